"""Probes for the remaining misses of the per-operation achievable model (issue 17).

    python3 validation/probes/fidelity_probe.py OUT.json   # about 5 minutes on an H200

Reuses serving_fidelity.py's forward (random weights of the published
shapes) and calibrate.py's cold-GEMM timing. Sections, each written to OUT
as soon as it is done:

- host: the host path of one eager call from Python, per kind of call, on
  tiny tensors (GPU work negligible): N calls back to back, wall clock over
  the N after a synchronise, divided by N. The calls are those the forward
  makes: a bf16 matmul and addmm, an fp8 cast and torch._scaled_mm, an add,
  a multiply, SiLU, RMSNorm, index_copy_, index_select, index_add_, a view
  (chunk), the rotary sequence, SDPA for one decode query.
- steps_profile: torch.profiler (CPU and CUDA) over one eager decode step of
  Llama-3-8B in bf16 and fp8 and over one Mixtral chunk: per ATen op name,
  calls and self CPU time; kernels counted.
- verify_attention: one layer's attention of q = 1, 2, 4, 8, 16 new tokens
  per sequence over T cached ones, as serving_fidelity.py's chunk runs it
  (lower-right causal mask, GQA or MHA) and as its decode step runs q = 1:
  time replayed from a CUDA graph, and the profiler's kernel names with
  their device time.
- verify_steps: whole verify passes (chunks of q <= 8) not measured before,
  eager (as the chunk rows of h200-serving-fidelity.json) and replayed from
  a CUDA graph (GPU time alone).
- mixtral_chunk: the chunk of 512 over 4,096 of Mixtral with fewer layers,
  eager and from a graph, per layer.
- gemm_small: square and small GEMMs in a graph over cold copies
  (calibrate.py's method), with the cuBLAS kernel names the profiler saw.
"""

import json
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
# The repository's validation/ scripts (run from the repository root, or from here).
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.getcwd(), "validation"))
import serving_fidelity as sf  # noqa: E402

T0 = time.time()
RES = dict(device=None, torch=torch.__version__, cuda=torch.version.cuda, method=__doc__)
OUT = None


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def save():
    RES["wall_s"] = time.time() - T0
    with open(OUT, "w") as f:
        json.dump(RES, f, indent=1)


def host_per_call(fn, n=2000):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    best = []
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        best.append((time.perf_counter() - t) / n)
    return statistics.median(best)


def host():
    bf = dict(device="cuda", dtype=torch.bfloat16)
    fp8 = sf.FP8
    one = torch.ones((), device="cuda")
    x = torch.randn(1, 4096, **bf)
    w = torch.randn(256, 4096, **bf)
    w8 = w.to(fp8)
    x8 = x.to(fp8)
    r = torch.randn(1, 256, **bf)
    nw = torch.ones(4096, **bf)
    g = torch.randn(1, 512, **bf)
    kc = torch.randn(1, 8, 1024, 128, **bf)
    idx1 = torch.tensor([5], device="cuda")
    q = torch.randn(1, 32, 1, 128, **bf)
    sel = torch.tensor([0], device="cuda")
    out = torch.zeros(1, 4096, **bf)
    freqs = torch.polar(torch.ones(64, device="cuda"), torch.rand(64, device="cuda"))
    qk = torch.randn(1, 40, 128, **bf)

    def rope():
        c = torch.view_as_complex(qk.float().unflatten(-1, (-1, 2)))
        return torch.view_as_real(c * freqs).flatten(-2).to(torch.bfloat16)

    calls = {
        "matmul_bf16": (lambda: x @ w.t(), 1),
        "addmm_bf16": (lambda: torch.addmm(r, x, w.t()), 1),
        "cast_fp8": (lambda: x.to(fp8), 1),
        "scaled_mm_fp8": (lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one,
                                                   out_dtype=torch.bfloat16), 1),
        "lin_fp8": (lambda: torch._scaled_mm(x.to(fp8), w8.t(), scale_a=one, scale_b=one,
                                             out_dtype=torch.bfloat16), 2),
        "add": (lambda: x + x, 1),
        "mul": (lambda: x * x, 1),
        "silu": (lambda: F.silu(x), 1),
        "silu_mul_chunk": (lambda: (lambda a, b: F.silu(a) * b)(*g.chunk(2, -1)), 2),
        "rms_norm": (lambda: F.rms_norm(x, (4096,), nw, 1e-5), 1),
        "chunk_view": (lambda: g.chunk(2, -1), 0),
        "index_copy": (lambda: kc.index_copy_(2, idx1, kc[:, :, :1]), 1),
        "index_select": (lambda: x.index_select(0, sel), 1),
        "index_add": (lambda: out.index_add_(0, sel, x), 1),
        "rope": (rope, 3),
        "sdpa_decode": (lambda: F.scaled_dot_product_attention(q, kc, kc, enable_gqa=True), None),
        "embedding_index": (lambda: w[sel], 1),
    }
    res = {}
    for name, (fn, kernels) in calls.items():
        try:
            res[name] = dict(host_s=host_per_call(fn), kernels=kernels)
            log(f"host {name}: {res[name]['host_s'] * 1e6:.1f} us")
        except Exception as e:  # noqa: BLE001
            res[name] = dict(error=repr(e))
            log(f"host {name} FAILED {e!r}")
    RES["host"] = res
    save()


def profile_ops(fn):
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    ops, kernels, kern_names = {}, 0, {}
    for e in prof.key_averages():
        ops[e.key[:80]] = dict(count=e.count, self_cpu_us=e.self_cpu_time_total,
                               cpu_us=e.cpu_time_total)
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            kernels += 1
            k = e.name[:90]
            d = kern_names.setdefault(k, [0, 0.0])
            d[0] += 1
            d[1] += e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
    top = sorted(ops.items(), key=lambda kv: -kv[1]["self_cpu_us"])[:40]
    ktop = sorted(kern_names.items(), key=lambda kv: -kv[1][1])[:25]
    return dict(cuda_events=kernels, ops=dict(top), kernels_by_time=ktop)


def ev_graph(fn, reps=10):
    """Median seconds of fn replayed from a CUDA graph (None if it cannot be captured)."""
    try:
        g = sf.graph_of(fn)
    except Exception as e:  # noqa: BLE001
        log(f"graph capture failed: {e!r}")
        torch.cuda.synchronize()
        return None
    for _ in range(2):
        g.replay()
    t = sf.ev_time(g.replay, reps)
    del g
    return t[0]


def steps_profile():
    RES["steps_profile"] = {}
    for dtype in ("bf16", "fp8"):
        M = sf.Model("llama-3-8b", dtype)
        for B in (1, 32):
            kc, vc = sf.caches(M, B, 1024)
            tok = torch.randint(0, M.m["V"], (B,), device="cuda")
            pos = torch.tensor([1023], device="cuda")
            step = lambda: M.decode_step(tok, kc, vc, pos)
            step()
            eager = sf.ev_time(step, 10)[0]
            graph = ev_graph(step, 10)
            p = profile_ops(step)
            key = f"llama-3-8b {dtype} decode B={B} T=1024"
            RES["steps_profile"][key] = dict(eager_s=eager, graph_s=graph, **p)
            log(f"{key}: eager {eager * 1e3:.2f} ms graph {(graph or 0) * 1e3:.2f} ms "
                f"cuda events {p['cuda_events']}")
            del kc, vc
            torch.cuda.empty_cache()
            save()
        del M
        torch.cuda.empty_cache()


def verify_attention():
    bf = dict(device="cuda", dtype=torch.bfloat16)
    out = []
    for h, kv in ((32, 8), (32, 32)):
        for T in (1024, 4096, 8192):
            for B in (1, 8, 32):
                for q in (1, 2, 4, 8, 16):
                    try:
                        kc = torch.randn(B, kv, T + q, 128, **bf)
                        vc = torch.randn(B, kv, T + q, 128, **bf)
                        qq = torch.randn(B, q, h, 128, **bf).transpose(1, 2)
                        if q == 1:
                            qd = torch.randn(B, h, 1, 128, **bf)
                            fn = lambda: F.scaled_dot_product_attention(qd, kc, vc,
                                                                        enable_gqa=kv != h)
                        else:
                            k_, v_ = kc[:, :, :T + q], vc[:, :, :T + q]
                            fn = lambda: sf.chunk_attention(qq, k_, v_, kv != h)
                        fn()
                        t = ev_graph(fn, 10)
                        p = profile_ops(fn)
                        row = dict(heads=h, kv_heads=kv, batch=B, q=q, cached=T, graph_s=t,
                                   path=sf.CHUNK_PATH if q > 1 else "decode",
                                   kv_bytes=2 * 2 * B * kv * (T + q) * 128,
                                   kernels=p["cuda_events"], kernels_by_time=p["kernels_by_time"])
                        out.append(row)
                        log(f"attn h={h} kv={kv} B={B} q={q} T={T}: {(t or 0) * 1e6:.1f} us "
                            f"{p['cuda_events']} kernels "
                            + "; ".join(f"{n[:40]} {c}x {d:.0f}us" for n, (c, d)
                                        in p["kernels_by_time"][:4]))
                        del kc, vc
                    except Exception as e:  # noqa: BLE001
                        log(f"attn h={h} kv={kv} B={B} q={q} T={T} FAILED {e!r}")
                        out.append(dict(heads=h, kv_heads=kv, batch=B, q=q, cached=T,
                                        error=repr(e)))
                    torch.cuda.empty_cache()
        RES["verify_attention"] = out
        save()


def verify_steps():
    RES["verify_steps"] = []
    for name, dtype, points in (
            ("llama-3-8b", "bf16", [(16, 2, 2048), (4, 8, 8192), (1, 4, 4096), (32, 8, 1024),
                                    (8, 4, 8192), (32, 4, 4096)]),
            ("llama-2-7b", "bf16", [(16, 4, 2048), (8, 8, 1024)]),
            ("llama-3-8b", "fp8", [(8, 4, 4096)])):
        M = sf.Model(name, dtype)
        for B, q, T in points:
            try:
                tok = torch.randint(0, M.m["V"], (B, q), device="cuda")
                kc, vc = sf.caches(M, B, T + q)
                f = lambda: M.prefill(tok, kc, vc, start=T)
                ok = bool(torch.isfinite(f()).all())
                eager = sf.ev_time(f, 5)[0]
                graph = ev_graph(f, 5)
                row = dict(kind="chunk", model=name, dtype=dtype, layers=M.m["L"], batch=B,
                           new_tokens=q, cached=T, time_s=eager, graph_s=graph, finite=ok,
                           attention=sf.CHUNK_PATH)
                RES["verify_steps"].append(row)
                log(json.dumps(row))
                del kc, vc
            except Exception as e:  # noqa: BLE001
                log(f"verify {name} B={B} q={q} T={T} FAILED {e!r}")
            torch.cuda.empty_cache()
            save()
        del M
        torch.cuda.empty_cache()


def mixtral_chunk():
    L = 8
    M = sf.Model("mixtral-8x7b", "bf16", layers=L)
    res = []
    for B, q, T in ((1, 512, 4096), (1, 128, 4096), (1, 2048, 0)):
        try:
            tok = torch.randint(0, M.m["V"], (B, q), device="cuda")
            M.set_route(B * q, seed=B + q + T)
            if T:
                kc, vc = sf.caches(M, B, T + q)
                f = lambda: M.prefill(tok, kc, vc, start=T)
            else:
                kc = vc = None
                f = lambda: M.prefill(tok)
            f()
            eager = sf.ev_time(f, 5)[0]
            graph = ev_graph(f, 5)
            p = profile_ops(f)
            row = dict(model="mixtral-8x7b", layers=L, batch=B, new_tokens=q, cached=T,
                       eager_s=eager, graph_s=graph, touched=M.touched, **p)
            res.append(row)
            log(f"mixtral {L} layers B={B} q={q} T={T}: eager {eager * 1e3:.2f} ms graph "
                f"{(graph or 0) * 1e3:.2f} ms, {p['cuda_events']} kernels")
            del kc, vc
        except Exception as e:  # noqa: BLE001
            log(f"mixtral q={q} T={T} FAILED {e!r}\n{traceback.format_exc()}")
        torch.cuda.empty_cache()
        RES["mixtral_chunk"] = res
        save()
    del M
    torch.cuda.empty_cache()


def gemm_small():
    import calibrate as cal

    cal.probe_pad()
    rows = []

    class W:
        def row(self, **kw):
            rows.append(kw)

    w = W()
    one = torch.ones((), device="cuda")
    shapes = [(s, s, s) for s in (256, 384, 512, 768, 1024, 1536, 2048, 3072)] + [
        (256, 1024, 1024), (512, 2048, 1024), (1024, 512, 2048), (768, 3072, 768),
        (2048, 1024, 512), (256, 256, 4096)]
    names = {}
    for dtype in ("bf16", "fp8"):
        for m, n, k in shapes:
            try:
                cal.gemm_one(w, dtype, m, n, k, f"small {m}x{n}x{k}", 20)
                a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
                if dtype == "fp8":
                    a8, b8 = a.to(sf.FP8), b.to(sf.FP8)
                    fn = lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one,
                                                  out_dtype=torch.bfloat16)
                else:
                    fn = lambda: a @ b.t()
                p = profile_ops(fn)
                names[f"{dtype} {m}x{n}x{k}"] = p["kernels_by_time"]
            except Exception as e:  # noqa: BLE001
                log(f"gemm {dtype} {m}x{n}x{k} FAILED {e!r}")
            RES["gemm_small"] = rows
            RES["gemm_small_kernels"] = names
            save()
    log("gemm kernels: " + json.dumps({k: [x[0][:48] for x in v] for k, v in names.items()}))


def main():
    global OUT
    OUT = sys.argv[1]
    sf.probe_pad()
    RES["device"] = torch.cuda.get_device_name()
    only = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else None
    for name, fn in (("host", host), ("gemm_small", gemm_small), ("verify_attention", verify_attention),
                     ("steps_profile", steps_profile), ("verify_steps", verify_steps),
                     ("mixtral_chunk", mixtral_chunk)):
        if only and name not in only:
            continue
        log(f"--- {name}")
        try:
            fn()
        except Exception:  # noqa: BLE001
            log(f"{name} FAILED\n{traceback.format_exc()}")
            RES.setdefault("failures", []).append(f"{name}: {traceback.format_exc()[-600:]}")
            torch.cuda.empty_cache()
        save()
    log(f"wrote {OUT}")


if __name__ == "__main__":
    main()

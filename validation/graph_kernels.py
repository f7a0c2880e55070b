"""Kernel durations and the gaps between them in a decode step replayed from a CUDA graph (issue 17).

    python3 validation/graph_kernels.py OUT.json            # about 3 minutes on an H200
    python3 validation/graph_kernels.py OUT.json --quick    # a smoke test

The per-operation model prices each kernel replayed from a graph at the
replay of an empty kernel (`achievable.launch.graph`) plus a fixed time
fitted on GEMMs (`achievable.kernel-overhead`) plus its work. This measures
what a decode step's kernels really take, by class. One process; it uses
serving_fidelity.py's forward (random weights of the published shapes).

1. `alone` (first, before any profiler is attached): graphs of one call
   repeated (64 norms back to back, 64 residual adds, 64 cache writes, ...)
   at the decode step's shapes for batch 1 and 64, and a one-element add
   (the empty kernel). CUDA events over 10 replays of the graph, median,
   divided by the calls: the time a call adds to a graph, its kernels'
   fixed time and the gap to the next together. Operands that would stay
   in the L2 (GEMM weights, KV caches) cycle over cold copies.
2. `steps`: Llama-3-8B bf16 decode at T = 1,024, batch 1 to 256; fp8 at
   batch 1 to 256; Llama-2-7B (MHA) bf16; Llama-3.1-70B fp8. Each step is
   captured in a CUDA graph, timed by CUDA events (20 replays, median,
   `graph_s`), then three replays run under torch.profiler (CUDA activity:
   CUPTI records every kernel a graph launches, with its start and end in
   ns), then it is timed again (`graph_after_s`: whether the attached
   profiler slows replays). Per replay: every kernel's name, start and
   duration (ns, relative to the replay's first kernel), and of the first
   replay its grid and block.
3. `alone_profiled`: the graphs of (1) again under the profiler: each
   kernel's duration and the gap to the next.

Timestamps are read from the exported Chrome trace with exact decimals
(its microsecond timestamps since the epoch carry nanoseconds that a
float64 would round to a quarter of a microsecond).
"""

import decimal
import json
import math
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.getcwd(), "validation"))
import serving_fidelity as sf  # noqa: E402

QUICK = "--quick" in sys.argv
T0 = time.time()
RES = dict(torch=torch.__version__, cuda=torch.version.cuda, method=__doc__, failures=[])
OUT = None
COPY_BYTES = 512 << 20  # cold copies of an operand fill at least this much (the L2 is 60 MiB)


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def save():
    RES["wall_s"] = time.time() - T0
    with open(OUT, "w") as f:
        json.dump(RES, f)


def classify(name):
    """A kernel's class from its name (PyTorch 2.11, cuBLAS nvjet, cuDNN SDPA)."""
    n = name
    lo = n.lower()
    if "splitkreduce" in lo:
        return "splitk_reduce"
    if "sdpa" in lo or "flash" in lo or "fmha" in lo or "cudnn" in lo:
        return "attention"
    if "nvjet" in lo or "gemm" in lo or "cutlass" in lo or "xmma" in lo:
        return "gemm"
    if "layer_norm" in lo or "rms_norm" in lo or "rowwisemoments" in lo:
        return "norm"
    if "index_copy" in lo:
        return "kv_write"
    if "index_kernel" in lo or "indexselect" in lo:
        return "gather"
    if "float8" in lo:
        return "cast"
    if "silu" in lo:
        return "silu"
    if "complex" in lo or "bfloat16_copy" in lo:
        return "rotary"
    if "direct_copy" in lo:
        return "copy"
    if "add" in lo and "functor" in lo:
        return "add"
    if "mul" in lo:
        return "mul"
    if "reduce_kernel" in lo or "argmax" in lo:
        return "reduce"
    if lo.startswith("memcpy") or lo.startswith("memset"):
        return "memcpy"
    return "other"


def trace(fn, reps):
    """Run fn reps times under torch.profiler; the CUDA kernels, memcpys and memsets sorted by
    start: (start_ns, dur_ns, name, grid, block), times exact from the Chrome trace."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    path = f"/tmp/graph_kernels_{os.getpid()}_{time.time_ns()}.json"
    prof.export_chrome_trace(path)
    with open(path) as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    os.remove(path)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    out = []
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        ts = int(decimal.Decimal(e["ts"]) * 1000)
        dur = int(decimal.Decimal(e["dur"]) * 1000)
        a = e.get("args", {})
        out.append((ts, dur, e["name"], a.get("grid"), a.get("block")))
    out.sort(key=lambda x: x[0])
    return out


def split_replays(evs, reps):
    """The kernels of each replay: equal consecutive runs of the sorted list."""
    n = len(evs) // reps if reps else 0
    if n == 0 or n * reps != len(evs):
        return None
    return [evs[i * n:(i + 1) * n] for i in range(reps)]


def replay_record(rep, names, grids):
    t0 = rep[0][0]
    ids = []
    for ts, dur, name, grid, block in rep:
        if name not in names:
            names[name] = len(names)
        ids.append(names[name])
    rec = dict(kernel=ids, start_ns=[r[0] - t0 for r in rep], dur_ns=[r[1] for r in rep],
               span_ns=rep[-1][0] + rep[-1][1] - t0)
    if grids:
        rec["grid"] = [r[3] for r in rep]
        rec["block"] = [r[4] for r in rep]
    return rec


def class_summary(rep):
    """Per class: kernels, summed duration, summed gap after, medians (ns)."""
    by = {}
    for i, (ts, dur, name, _, _) in enumerate(rep):
        gap = rep[i + 1][0] - (ts + dur) if i + 1 < len(rep) else None
        c = by.setdefault(classify(name), dict(n=0, dur=[], gap=[]))
        c["n"] += 1
        c["dur"].append(dur)
        if gap is not None:
            c["gap"].append(gap)
    return {k: dict(kernels=v["n"], dur_sum_ns=sum(v["dur"]), dur_median_ns=statistics.median(v["dur"]),
                    gap_sum_ns=sum(v["gap"]), gap_median_ns=statistics.median(v["gap"]) if v["gap"] else None)
            for k, v in by.items()}


def graph_time(g, reps):
    for _ in range(2):
        g.replay()
    return sf.ev_time(g.replay, reps)


# ---------------------------------------------------------------- alone


def alone_ops(B):
    """(name, calls of fn per graph, kernels a call launches, make-inputs, fn): one class each."""
    bf = dict(device="cuda", dtype=torch.bfloat16)
    d, h, kv, dh, ff, T = 4096, 32, 8, 128, 14336, 1024
    x = torch.randn(B, d, **bf)
    y = torch.randn(B, d, **bf)
    nw = torch.ones(d, **bf)
    qkv = torch.randn(B, (h + 2 * kv) * dh, **bf)
    gu = torch.randn(B, 2 * ff, **bf)
    s = torch.randn(B, ff, **bf)
    one = torch.zeros(1, device="cuda")
    freqs = torch.polar(torch.ones(dh // 2, device="cuda"), torch.rand(dh // 2, device="cuda"))
    pos = torch.tensor([T - 1], device="cuda")
    cache_bytes = 2 * B * kv * T * dh * 2
    copies = max(1, min(64, math.ceil(COPY_BYTES / cache_bytes)))
    kcs = [torch.randn(B, kv, T, dh, **bf) for _ in range(copies)]
    vcs = [torch.randn(B, kv, T, dh, **bf) for _ in range(copies)]
    q = torch.randn(B, h, 1, dh, **bf)
    qk = qkv[:, : (h + kv) * dh].reshape(B, h + kv, dh)
    k_new = qkv[:, h * dh:(h + kv) * dh].reshape(B, kv, 1, dh)
    widened = qk.float()
    cplx = torch.view_as_complex(widened.unflatten(-1, (-1, 2)))
    prod = torch.view_as_real(cplx * freqs).flatten(-2)
    fp8 = sf.FP8
    g_, u_ = gu.chunk(2, -1)
    silu_out = F.silu(g_)

    def rope():
        c = torch.view_as_complex(qk.float().unflatten(-1, (-1, 2)))
        return torch.view_as_real(c * freqs).flatten(-2).to(torch.bfloat16)

    ops = [
        ("empty", 1, lambda i: one.add_(1)),
        ("norm", 1, lambda i: F.rms_norm(x, (d,), nw, 1e-5)),
        ("add", 1, lambda i: x + y),
        ("silu", 1, lambda i: F.silu(g_)),
        ("mul", 1, lambda i: silu_out * u_),
        ("silu_mul", 2, lambda i: F.silu(g_) * u_),
        ("rotary_widen", 1, lambda i: qk.float()),
        ("rotary_mul", 1, lambda i: cplx * freqs),
        ("rotary_narrow", 1, lambda i: prod.to(torch.bfloat16)),
        ("rotary", 3, lambda i: rope()),
        ("kv_write", 1, lambda i: kcs[i % copies].index_copy_(2, pos, k_new)),
        ("cast_fp8", 1, lambda i: x.to(fp8)),
        ("attention", None, lambda i: F.scaled_dot_product_attention(
            q, kcs[i % copies], vcs[i % copies], enable_gqa=True)),
        ("norm_add", 2, lambda i: F.rms_norm(x, (d,), nw, 1e-5) + y),
    ]
    # GEMMs at the step's projection shapes over cold weight copies.
    for label, n, k in (("gemm_qkv", (h + 2 * kv) * dh, d), ("gemm_o", d, h * dh),
                        ("gemm_down", d, ff)):
        wb = n * k * 2
        wc = max(1, min(64, math.ceil(COPY_BYTES / wb)))
        ws = [torch.randn(n, k, **bf) * 0.02 for _ in range(wc)]
        a = torch.randn(B, k, **bf)
        ops.append((label, None, (lambda a, ws, wc: lambda i: a @ ws[i % wc].t())(a, ws, wc)))
        ops.append((label + "_norm", None,
                    (lambda a, ws, wc: lambda i: F.rms_norm(a @ ws[i % wc].t(), (n,), None, 1e-5))(
                        a, ws, wc)))
    return ops


def alone(profiled):
    key = "alone_profiled" if profiled else "alone"
    RES[key] = []
    calls = 64
    for B in (1, 64):
        try:
            ops = alone_ops(B)
        except Exception as e:  # noqa: BLE001
            log(f"alone B={B} setup FAILED {e!r}")
            RES["failures"].append(f"alone {B}: {traceback.format_exc()[-600:]}")
            continue
        for name, kernels, fn in ops:
            try:
                body = lambda: [fn(i) for i in range(calls)]
                g = sf.graph_of(body)
                t = graph_time(g, 10 if not QUICK else 3)
                row = dict(op=name, batch=B, calls=calls, kernels_per_call=kernels,
                           graph_s=t[0], graph_min_s=t[1], per_call_s=t[0] / calls)
                if profiled:
                    evs = trace(g.replay, 2)
                    reps = split_replays(evs, 2)
                    rep = reps[1] if reps else evs
                    durs = [r[1] for r in rep]
                    gaps = [rep[i + 1][0] - rep[i][0] - rep[i][1] for i in range(len(rep) - 1)]
                    row.update(kernels=len(rep), names=sorted({r[2] for r in rep}),
                               dur_median_ns=statistics.median(durs), dur_sum_ns=sum(durs),
                               gap_median_ns=statistics.median(gaps) if gaps else None,
                               gap_sum_ns=sum(gaps), span_ns=rep[-1][0] + rep[-1][1] - rep[0][0],
                               dur_ns=durs, gap_ns=gaps,
                               grid=rep[0][3], block=rep[0][4])
                    log(f"{key} B={B} {name}: {t[0] / calls * 1e6:.2f} us a call, {len(rep)} kernels, "
                        f"dur median {row['dur_median_ns'] / 1e3:.2f} us, gap median "
                        f"{(row['gap_median_ns'] or 0) / 1e3:.2f} us")
                else:
                    log(f"{key} B={B} {name}: {t[0] / calls * 1e6:.2f} us a call")
                RES[key].append(row)
                del g
            except Exception as e:  # noqa: BLE001
                log(f"{key} B={B} {name} FAILED {e!r}")
                RES["failures"].append(f"{key} {B} {name}: {traceback.format_exc()[-600:]}")
        del ops
        torch.cuda.empty_cache()
        save()


# ---------------------------------------------------------------- steps


def plan():
    if QUICK:
        return [("llama-3-8b", "bf16", 2, [(1, 1024), (64, 1024)])]
    return [
        ("llama-3-8b", "bf16", None, [(1, 1024), (8, 1024), (32, 1024), (64, 1024), (128, 1024),
                                      (256, 1024)]),
        ("llama-3-8b", "fp8", None, [(1, 1024), (8, 1024), (64, 1024), (256, 1024)]),
        ("llama-2-7b", "bf16", None, [(1, 1024), (64, 1024)]),
        ("llama-3.1-70b", "fp8", None, [(1, 1024), (32, 1024)]),
    ]


def run_step(M, B, T, names):
    m = M.m
    kc, vc = sf.caches(M, B, T)
    tok = torch.randint(0, m["V"], (B,), device="cuda")
    pos = torch.tensor([T - 1], device="cuda")
    nxt = torch.empty(B, dtype=torch.long, device="cuda")

    def step():
        logits = M.decode_step(tok, kc, vc, pos)
        nxt.copy_(logits.argmax(-1))
        return logits

    ok = bool(torch.isfinite(step()).all())
    g = sf.graph_of(step)
    reps = 20 if not QUICK else 5
    t = graph_time(g, reps)
    evs = trace(g.replay, 3)
    after = graph_time(g, reps)
    replays = split_replays(evs, 3)
    row = dict(model=M.name, dtype=M.dtype, layers=m["L"], batch=B, context=T, finite=ok,
               graph_s=t[0], graph_min_s=t[1], graph_max_s=t[2], graph_after_s=after[0],
               traced_events=len(evs))
    if replays is None:
        row["error"] = f"{len(evs)} events do not split into 3 equal replays"
        row["replays"] = [replay_record(evs, names, True)]
    else:
        row["kernels_per_replay"] = len(replays[0])
        row["same_sequence"] = all([r[2] for r in rep] == [r[2] for r in replays[0]] for rep in replays)
        row["replays"] = [replay_record(rep, names, i == 0) for i, rep in enumerate(replays)]
        row["classes"] = class_summary(replays[1])
    del g, kc, vc
    torch.cuda.empty_cache()
    return row


def steps():
    RES["steps"] = []
    names = {}
    RES["kernel_names"] = []
    for name, dtype, layers, points in plan():
        try:
            M = sf.Model(name, dtype, layers)
            log(f"built {name} {dtype}, {M.m['L']} layers")
        except Exception:  # noqa: BLE001
            log(f"model {name} {dtype} FAILED\n{traceback.format_exc()}")
            RES["failures"].append(f"model {name} {dtype}: {traceback.format_exc()[-600:]}")
            torch.cuda.empty_cache()
            continue
        for B, T in points:
            try:
                row = run_step(M, B, T, names)
                RES["steps"].append(row)
                cl = row.get("classes", {})
                spans = [r["span_ns"] / 1e6 for r in row["replays"]]
                log(f"{name} {dtype} B={B} T={T}: graph {row['graph_s'] * 1e3:.3f} ms (after profile "
                    f"{row['graph_after_s'] * 1e3:.3f}), traced spans "
                    + ", ".join(f"{s:.3f}" for s in spans) + f" ms, {row.get('kernels_per_replay')} kernels: "
                    + "; ".join(f"{c} {v['kernels']}x dur {v['dur_median_ns'] / 1e3:.2f} gap "
                                f"{(v['gap_median_ns'] or 0) / 1e3:.2f}" for c, v in sorted(cl.items())))
            except Exception:  # noqa: BLE001
                log(f"step {name} {dtype} B={B} T={T} FAILED\n{traceback.format_exc()}")
                RES["failures"].append(f"step {name} {dtype} {B} {T}: {traceback.format_exc()[-600:]}")
                torch.cuda.empty_cache()
            RES["kernel_names"] = sorted(names, key=names.get)
            save()
        del M
        torch.cuda.empty_cache()


def main():
    global OUT
    OUT = sys.argv[1]
    sf.probe_pad()
    RES["device"] = torch.cuda.get_device_name()
    RES["fp8_pad_m"] = sf.PAD_M
    for label, fn in (("alone", lambda: alone(False)), ("steps", steps),
                      ("alone_profiled", lambda: alone(True))):
        log(f"--- {label}")
        try:
            fn()
        except Exception:  # noqa: BLE001
            log(f"{label} FAILED\n{traceback.format_exc()}")
            RES["failures"].append(f"{label}: {traceback.format_exc()[-600:]}")
            torch.cuda.empty_cache()
        save()
    log(f"wrote {OUT}")


if __name__ == "__main__":
    main()

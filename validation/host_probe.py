"""The host path of an eager forward from Python, by operation class (issue 17).

    python3 validation/host_probe.py OUT.json [--rounds 3]   # about 3 minutes on an H200

One process; serving_fidelity.py's forward (Llama-3-8B bf16 and fp8,
Llama-2-7B, Llama-3.1-70B fp8, Mixtral-8x7B). Each round:

1. `calls`: the host path of each operation class as the forward calls it
   (its views included), at shapes whose GPU work is far below the host's
   path: wall clock over 400 calls back to back after a synchronise, the
   median of 5 such runs, per call and per kernel it launches (the kernels
   per call from torch.profiler, taken once at the very end). These are the
   microbenchmarks the model's host figures come from, as `roofline
   calibrate` would take them.
2. `steps`: eager decode steps and chunks: 5 warm-up steps, then 30 timed
   one by one with CUDA events (the host path in the clock) and, around the
   same call, the host's wall clock (`issue_s`, from the call to its return,
   the GPU not waited for) and the thread's CPU time (`cpu_s`): where the
   wall clock of the issue exceeds the CPU time the thread was not running
   (preempted or waiting), where both grow the core ran slower. Then 20
   replays of the same step from a CUDA graph (the GPU's time).
3. The same round repeats; the host path is seen drifting (or not) within
   one process.

`cycles`: the same single-op calls interleaved in one layer's order (bf16
and fp8 decode, a bf16 chunk), 200 cycles back to back, against the sum of
their costs alone. `tiny`: the forward at a tiny shape (its GPU work far
below the host's path), eager. `stat`: /proc/stat's CPU counters (steal
time) at each round.
`probe_conditions`: the Llama-3-8B bf16 B = 1 step timed 30 times under
plain conditions, with the garbage collector off, and pinned to one core.
`profile`: after all timing (a profiler session leaves CUPTI attached and
slows later launches), the kernels of each call class and of one eager
step of each configuration. `environment`: CPU model, cores, load, the
frequency governor, each core's MHz before and after.
"""

import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serving_fidelity as sf  # noqa: E402

T0 = time.time()
ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
QUICK = "--quick" in sys.argv


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError) as e:
        return repr(e)


def cpu_mhz():
    out = []
    for line in open("/proc/cpuinfo"):
        if line.startswith("cpu MHz"):
            out.append(float(line.split(":")[1]))
    return out


def environment():
    return dict(
        lscpu=sh("lscpu"),
        nproc=os.cpu_count(),
        affinity=sorted(os.sched_getaffinity(0)),
        loadavg=open("/proc/loadavg").read().strip(),
        governor=sh("cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>&1"),
        mhz=cpu_mhz(),
        python=platform.python_version(),
        torch=torch.__version__,
        cuda=torch.version.cuda,
        device=torch.cuda.get_device_name(),
        smi=sh("nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,"
               "pstate --format=csv"),
        top=sh("top -b -n 1 | head -20"),
    )


def per_call(fn, n=400, runs=5):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t) / n)
    return statistics.median(out), min(out)


def call_classes():
    """(name, class, fn): each operation as serving_fidelity's forward calls it."""
    bf = dict(device="cuda", dtype=torch.bfloat16)
    d, h, kv, dh = 4096, 32, 8, 128
    one = torch.ones((), device="cuda")
    x = torch.randn(1, d, **bf)
    r = torch.randn(1, 256, **bf)
    w = torch.randn(256, d, **bf)
    w8 = w.to(sf.FP8)
    nw = torch.ones(d, **bf)
    qkv = torch.randn(1, (h + 2 * kv) * dh, **bf)
    freqs = torch.polar(torch.ones(dh // 2, device="cuda"), torch.rand(dh // 2, device="cuda"))
    kc = torch.randn(1, kv, 64, dh, **bf)
    vc = torch.randn(1, kv, 64, dh, **bf)
    pos = torch.tensor([63], device="cuda")
    gu = torch.randn(1, 2 * 512, **bf)
    emb = torch.randn(1000, d, **bf)
    tok = torch.randint(0, 1000, (1,), device="cuda")
    logits = torch.randn(1, 1000, **bf)
    nxt = torch.empty(1, dtype=torch.long, device="cuda")
    q4 = torch.randn(1, h, 4, dh, **bf)
    k64 = torch.randn(1, kv, 68, dh, **bf)
    rl = torch.randn(4, 8, **bf)
    idx = torch.tensor([0, 2], device="cuda")
    xs = torch.randn(4, d, **bf)
    xpad = sf.PAD_M
    x8 = (x if xpad == 1 else torch.randn(xpad, d, **bf)).to(sf.FP8)

    def rope(qk):
        c = torch.view_as_complex(qk.float().unflatten(-1, (-1, 2)))
        return torch.view_as_real(c * freqs).flatten(-2).to(torch.bfloat16)

    def rotary():
        qk = rope(qkv[:, : (h + kv) * dh].reshape(1, h + kv, dh))
        return qk.split([h, kv], 1)

    def kv_write():
        k = qkv[:, h * dh:(h + kv) * dh].reshape(1, kv, dh)
        v = qkv[:, (h + kv) * dh:].reshape(1, kv, dh)
        kc.index_copy_(2, pos, k.view(1, kv, 1, dh))
        vc.index_copy_(2, pos, v.view(1, kv, 1, dh))

    def sdpa_decode():
        q = qkv[:, : h * dh].reshape(1, h, 1, dh)
        return F.scaled_dot_product_attention(q, kc, vc, enable_gqa=True).reshape(1, h * dh)

    def sdpa_chunk():
        return sf.chunk_attention(q4, k64, k64, True)

    kcc = torch.randn(1, kv, 68, dh, **bf)
    vcc = torch.randn(1, kv, 68, dh, **bf)
    qkv4 = torch.randn(4, (h + 2 * kv) * dh, **bf)

    def kv_write_chunk():
        k = qkv4[:, h * dh:(h + kv) * dh].reshape(4, kv, dh).view(1, 4, kv, dh).transpose(1, 2)
        v = qkv4[:, (h + kv) * dh:].reshape(4, kv, dh).view(1, 4, kv, dh).transpose(1, 2)
        kcc[:, :, 64:68].copy_(k)
        vcc[:, :, 64:68].copy_(v)
        return kcc[:, :, :68], vcc[:, :, :68]

    def attend_chunk():
        q = qkv4[:, : h * dh].reshape(4, h, dh).view(1, 4, h, dh).transpose(1, 2)
        o = sf.chunk_attention(q, kcc, vcc, True)
        return o.transpose(1, 2).reshape(4, h * dh)

    def act():
        g, u = gu.chunk(2, -1)
        return F.silu(g) * u

    def lin_fp8():
        xq = x.to(sf.FP8)
        if xpad > 1:
            xq = F.pad(xq.view(torch.uint8), (0, 0, 0, xpad - 1)).view(sf.FP8)
        return torch._scaled_mm(xq, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)

    def moe_route():
        topv, _ = rl.topk(2, -1)
        return topv.softmax(-1)[:, :1]

    def moe_expert_io():
        xe = xs.index_select(0, idx)
        out = torch.zeros_like(xs)
        out.index_add_(0, idx, xe * rl[:, :1].index_select(0, idx))
        return out

    return [
        ("matmul", "gemm", lambda: x @ w.t()),
        ("addmm", "gemm", lambda: torch.addmm(r, x, w.t())),
        ("scaled_mm", "gemm", lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one,
                                                        out_dtype=torch.bfloat16)),
        ("lin_fp8", "gemm+cast", lin_fp8),
        ("rms_norm", "elementwise", lambda: F.rms_norm(x, (d,), nw, 1e-5)),
        ("rotary", "elementwise", rotary),
        ("activation", "elementwise", act),
        ("add", "elementwise", lambda: x + x),
        ("cast_fp8", "elementwise", lambda: x.to(sf.FP8)),
        ("embedding", "elementwise", lambda: emb[tok]),
        ("kv_write", "elementwise", kv_write),
        ("argmax_copy", "elementwise", lambda: nxt.copy_(logits.argmax(-1))),
        ("sdpa_decode", "attention", sdpa_decode),
        ("sdpa_chunk", "attention", sdpa_chunk),
        ("kv_write_chunk", "elementwise", kv_write_chunk),
        ("attend_chunk", "attention", attend_chunk),
        ("moe_route", "elementwise", moe_route),
        ("moe_expert_io", "elementwise", moe_expert_io),
    ]


CYCLES = {
    # One dense layer's calls in the forward's order, bf16 and fp8, decode and chunk.
    "layer_bf16_decode": ["rms_norm", "matmul", "rotary", "kv_write", "sdpa_decode", "addmm",
                          "rms_norm", "matmul", "activation", "addmm"],
    "layer_fp8_decode": ["rms_norm", "lin_fp8", "rotary", "kv_write", "sdpa_decode", "lin_fp8", "add",
                         "rms_norm", "lin_fp8", "activation", "lin_fp8", "add"],
    "layer_bf16_chunk": ["rms_norm", "matmul", "rotary", "kv_write_chunk", "attend_chunk", "addmm",
                         "rms_norm", "matmul", "activation", "addmm"],
}


def measure_cycles(res, rnd):
    """The single-op calls interleaved in a layer's order, 200 cycles back to back: the same
    calls as `calls`, but each after a different one, as in a forward."""
    fns = {name: fn for name, _, fn in call_classes()}
    for cyc, names in CYCLES.items():
        seq = [fns[n] for n in names]

        def body(seq=seq):
            for f in seq:
                f()

        t, tmin = per_call(body, n=200 if not QUICK else 20)
        alone = {c["name"]: c["per_call_s"] for c in res["calls"] if c["round"] == rnd}
        iso = sum(alone[n] for n in names)
        res["cycles"].append(dict(round=rnd, name=cyc, calls=names, per_cycle_s=t, min_s=tmin,
                                  sum_alone_s=iso))
        log(f"round {rnd} cycle {cyc}: {t * 1e6:.1f} us against {iso * 1e6:.1f} us alone "
            f"({t / iso:.3f})")


def tiny_forward(res, rnd):
    """serving_fidelity's forward at a tiny shape (32 layers, d = 256, 2 heads): its kernels
    take 2 to 4 us, far below the host's path, so an eager step is the host's path alone."""
    sf.MODELS["tiny"] = dict(L=32, d=256, h=2, kv=1, dh=128, ff=512, V=1024)
    for dtype in ("bf16", "fp8"):
        M = sf.Model("tiny", dtype)
        f, keep = make_decode(M, 1, 64)
        row = dict(round=rnd, kind="decode", model="tiny", dtype=dtype, batch=1, context=64,
                   **time_step(f))
        g = sf.graph_of(f)
        g.replay()
        row["graph_s"] = sf.ev_time(g.replay, 20)[0]
        res["tiny"].append(row)
        log(f"round {rnd} tiny {dtype}: eager {row['eager_s'] * 1e3:.2f} issue {row['issue_s'] * 1e3:.2f} "
            f"graph {row['graph_s'] * 1e3:.2f} ms")
        del g, f, keep, M
    torch.cuda.empty_cache()


def steal():
    f = open("/proc/stat").readline().split()
    return dict(user=int(f[1]), system=int(f[3]), idle=int(f[4]), steal=int(f[8]) if len(f) > 8 else None)


def kernels_of(fn):
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    kern, mem = 0, 0
    names = {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        n = e.name
        if n.startswith(("Memcpy", "Memset", "[memcpy", "[memset")) or "memcpy" in n.lower()[:12]:
            mem += 1
            continue
        kern += 1
        names[n[:90]] = names.get(n[:90], 0) + 1
    return dict(kernels=kern, memcpy_memset=mem,
                top=sorted(names.items(), key=lambda kv: -kv[1])[:16])


def time_step(fn, reps=30, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ev, issue, cpu = [], [], []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        t, c = time.perf_counter(), time.thread_time()
        fn()
        issue.append(time.perf_counter() - t)
        cpu.append(time.thread_time() - c)
        e.record()
        e.synchronize()
        ev.append(s.elapsed_time(e) * 1e-3)
    return dict(eager_s=statistics.median(ev), eager_min_s=min(ev), eager_max_s=max(ev),
                issue_s=statistics.median(issue), cpu_s=statistics.median(cpu), series_s=ev)


def configs():
    dec = {
        ("llama-3-8b", "bf16"): [(1, 1024), (8, 1024), (32, 1024), (128, 1024), (256, 1024),
                                 (512, 1024)],
        ("llama-3-8b", "fp8"): [(1, 1024), (32, 1024), (128, 1024), (256, 1024)],
        ("llama-2-7b", "bf16"): [(1, 1024), (16, 1024), (64, 1024)],
        ("llama-3.1-70b", "fp8"): [(1, 1024), (32, 2048)],
        ("mixtral-8x7b", "bf16"): [(1, 1024), (8, 1024), (32, 1024)],
    }
    chunks = {
        ("llama-3-8b", "bf16"): [(1, 128, 4096), (1, 512, 4096), (8, 8, 2048), (64, 4, 1024),
                                 (32, 4, 4096)],
        ("llama-3-8b", "fp8"): [(32, 4, 4096)],
        ("llama-2-7b", "bf16"): [(1, 512, 4096)],
        ("mixtral-8x7b", "bf16"): [(1, 512, 4096)],
    }
    if QUICK:
        dec = {("llama-3-8b", "bf16"): [(1, 1024)], ("mixtral-8x7b", "bf16"): [(1, 1024)]}
        chunks = {("llama-3-8b", "bf16"): [(8, 8, 2048)]}
    return dec, chunks


def make_decode(M, B, T):
    m = M.m
    kc, vc = sf.caches(M, B, T)
    tok = torch.randint(0, m["V"], (B,), device="cuda")
    pos = torch.tensor([T - 1], device="cuda")
    M.set_route(B, seed=B * 7 + T)
    nxt = torch.empty(B, dtype=torch.long, device="cuda")

    def step():
        logits = M.decode_step(tok, kc, vc, pos)
        nxt.copy_(logits.argmax(-1))
        return logits

    return step, (kc, vc)


def make_chunk(M, B, q, T):
    m = M.m
    tok = torch.randint(0, m["V"], (B, q), device="cuda")
    M.set_route(B * q, seed=B + q + T)
    kc, vc = sf.caches(M, B, T + q)
    return (lambda: M.prefill(tok, kc, vc, start=T)), (kc, vc)


def measure_calls(res, rnd):
    for name, cls, fn in call_classes():
        try:
            t, tmin = per_call(fn, n=400 if not QUICK else 50)
            res["calls"].append(dict(round=rnd, name=name, cls=cls, per_call_s=t, min_s=tmin))
            log(f"round {rnd} call {name}: {t * 1e6:.2f} us")
        except Exception as e:  # noqa: BLE001
            log(f"call {name} FAILED {e!r}")
            res["failures"].append(f"call {name}: {e!r}")


def run_model(res, rnd, name, dtype, dec, chunks, profile=False):
    M = sf.Model(name, dtype)
    log(f"built {name} {dtype}")
    for B, T in dec:
        try:
            f, keep = make_decode(M, B, T)
            if profile:
                res["profile"].append(dict(kind="decode", model=name, dtype=dtype, batch=B,
                                           context=T, **kernels_of(f)))
            else:
                row = dict(round=rnd, kind="decode", model=name, dtype=dtype, batch=B, context=T,
                           **time_step(f))
                g = sf.graph_of(f)
                for _ in range(3):
                    g.replay()
                row["graph_s"] = sf.ev_time(g.replay, 20)[0]
                del g
                res["steps"].append(row)
                log(f"round {rnd} decode {name} {dtype} B={B} T={T}: eager {row['eager_s'] * 1e3:.2f} "
                    f"issue {row['issue_s'] * 1e3:.2f} cpu {row['cpu_s'] * 1e3:.2f} "
                    f"graph {row['graph_s'] * 1e3:.2f} ms")
            del f, keep
        except Exception as e:  # noqa: BLE001
            log(f"decode {name} {dtype} {B} {T} FAILED {e!r}")
            res["failures"].append(f"decode {name} {dtype} {B} {T}: {e!r}")
        torch.cuda.empty_cache()
    for B, q, T in chunks:
        try:
            f, keep = make_chunk(M, B, q, T)
            if profile:
                res["profile"].append(dict(kind="chunk", model=name, dtype=dtype, batch=B,
                                           new_tokens=q, cached=T, **kernels_of(f)))
            else:
                row = dict(round=rnd, kind="chunk", model=name, dtype=dtype, batch=B, new_tokens=q,
                           cached=T, **time_step(f, reps=10, warm=2))
                g = sf.graph_of(f)
                for _ in range(2):
                    g.replay()
                row["graph_s"] = sf.ev_time(g.replay, 10)[0]
                del g
                res["steps"].append(row)
                log(f"round {rnd} chunk {name} {dtype} B={B} q={q} T={T}: eager "
                    f"{row['eager_s'] * 1e3:.2f} issue {row['issue_s'] * 1e3:.2f} cpu "
                    f"{row['cpu_s'] * 1e3:.2f} graph {row['graph_s'] * 1e3:.2f} ms")
            del f, keep
        except Exception as e:  # noqa: BLE001
            log(f"chunk {name} {dtype} {B} {q} {T} FAILED {e!r}")
            res["failures"].append(f"chunk {name} {dtype} {B} {q} {T}: {e!r}")
        torch.cuda.empty_cache()
    del M
    torch.cuda.empty_cache()


def conditions(res):
    M = sf.Model("llama-3-8b", "bf16")
    f, keep = make_decode(M, 1, 1024)
    out = []
    out.append(dict(condition="plain", **time_step(f)))
    gc.disable()
    out.append(dict(condition="gc off", **time_step(f)))
    gc.enable()
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {sorted(before)[len(before) // 2]})
        out.append(dict(condition=f"pinned to cpu {sorted(before)[len(before) // 2]}", **time_step(f)))
    finally:
        os.sched_setaffinity(0, before)
    out.append(dict(condition="plain again", **time_step(f)))
    for o in out:
        log(f"condition {o['condition']}: eager {o['eager_s'] * 1e3:.2f} issue {o['issue_s'] * 1e3:.2f} "
            f"cpu {o['cpu_s'] * 1e3:.2f} ms")
    res["probe_conditions"] = out
    del f, keep, M
    torch.cuda.empty_cache()


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    sf.probe_pad()
    res = dict(method=__doc__, fp8_pad_m=sf.PAD_M, environment=environment(), calls=[], steps=[],
               profile=[], failures=[], cycles=[], tiny=[], stat=[])
    dec, chunks = configs()
    save = lambda: json.dump(res, open(out, "w"), indent=1)  # noqa: E731
    for rnd in range(ROUNDS):
        res["stat"].append(dict(round=rnd, t=time.time() - T0, **steal()))
        measure_calls(res, rnd)
        for fn in (measure_cycles, tiny_forward):
            try:
                fn(res, rnd)
            except Exception as e:  # noqa: BLE001
                log(f"{fn.__name__} FAILED {e!r}")
                res["failures"].append(f"{fn.__name__} {rnd}: {e!r}")
        for (name, dtype) in dict.fromkeys(list(dec) + list(chunks)):
            try:
                run_model(res, rnd, name, dtype, dec.get((name, dtype), []),
                          chunks.get((name, dtype), []))
            except Exception as e:  # noqa: BLE001
                log(f"model {name} {dtype} FAILED {e!r}")
                res["failures"].append(f"model {name} {dtype}: {e!r}")
            torch.cuda.empty_cache()
        res["environment"][f"mhz_after_round_{rnd}"] = cpu_mhz()
        save()
    res["stat"].append(dict(round=ROUNDS, t=time.time() - T0, **steal()))
    measure_calls(res, ROUNDS)
    try:
        measure_cycles(res, ROUNDS)
    except Exception as e:  # noqa: BLE001
        res["failures"].append(f"measure_cycles: {e!r}")
    conditions(res)
    save()
    # The profiler last: CUPTI stays attached afterwards.
    for name, cls, fn in call_classes():
        try:
            res["profile"].append(dict(kind="call", name=name, cls=cls, **kernels_of(fn)))
        except Exception as e:  # noqa: BLE001
            res["failures"].append(f"profile call {name}: {e!r}")
    for (name, dtype) in dict.fromkeys(list(dec) + list(chunks)):
        try:
            run_model(res, -1, name, dtype, dec.get((name, dtype), [])[:3],
                      chunks.get((name, dtype), []), profile=True)
        except Exception as e:  # noqa: BLE001
            res["failures"].append(f"profile {name} {dtype}: {e!r}")
        torch.cuda.empty_cache()
    res["wall_s"] = time.time() - T0
    save()
    log(f"wrote {out}")


if __name__ == "__main__":
    main()

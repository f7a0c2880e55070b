"""Measure the figures `roofline calibrate` fits, on the GPU this runs on.

    python3 validation/calibrate.py --out my-gpu.csv          # about 2.6 minutes on an H200 (150 and 156 s measured)
    python3 validation/calibrate.py --out power.csv --only power   # the power loops alone, about 2 minutes
    python3 validation/calibrate.py --out quick.csv --quick   # fewer shapes, a smoke test

PyTorch only (CUDA; on ROCm the same calls run where PyTorch supports them,
and the rows a part cannot run, fp8 say, are skipped with a message). The
output is one CSV file, one row per measurement, in the schema of
docs/data-schemas.md ("Calibration measurements"):

- hbm_read, hbm_copy: a large read-only reduction and a device-to-device copy
  (`bytes` counts bytes read, plus written for the copy);
- launch: a one-element kernel launched eagerly back to back, launched and
  synchronised each time, and replayed from a CUDA graph (seconds per kernel);
- gemm: one GEMM call launched eagerly, synchronised, and from a graph; then a
  grid of shapes per precision (bf16 `torch.matmul`; fp8 e4m3
  `torch._scaled_mm`, per-tensor scale, bf16 output), the serving shapes
  (every projection of Llama-3-8B and Llama-3.1-70B at M = 1 ... 8192)
  included, each timed in a CUDA graph over enough weight copies that no
  operand stays in L2;
- attention_prefill, attention_decode: `F.scaled_dot_product_attention`,
  causal prefill at S = 1k ... 16k (the default backend, as a forward calls it), decode over KV caches of several lengths
  and batches (`flops` counts the causal half only, 2 x 2 x B x H x S^2 x D / 2);
- compute_short, compute_sustained: back-to-back 8192^3 GEMMs for about 0.3 s
  and about 8 s, with the SM clock, memory clock, board power and temperature
  sampled every 100 ms (nvidia-smi) over the loop;
- power_wait, power_gemm, power_attention, power_stream: the power limit's
  loops, each 5-6 s of graph replays after 3 s of rest with board power and
  SM clock sampled over its part after 2 s (`burst_seconds` is its first
  call, before the limit acts; `seconds` the mean settled call): spin
  kernels (`torch.cuda._sleep`: a GPU waiting), 8192^3 bf16 GEMMs back to
  back and with a spin after each of 0.15 to 2.2 times a GEMM's time
  (`wait_seconds` the spin's share of a call), causal attention at S = 2k,
  8k, 16k, and 2 GiB device-to-device copies; the sampler and loop are
  validation/_gpu.py's, shared with validation/power_mix_h200.py;
- decode_step: whole Llama-3-8B-shaped decode steps (random weights; time
  depends on shapes) replayed from a CUDA graph;
- host_gemm, host_kernel, host_attention, host_cached_attention, host_layer:
  the host's path of one call from Python as a forward makes it, views
  included, at shapes whose GPU work is far below it (wall clock over 400
  calls back to back after a synchronise, median of 5): two GEMM calls
  (`x @ w.t()`, `torch.addmm`), the elementwise calls (RMSNorm, rotary
  embedding, SiLU times up, the two cache writes, an fp8 cast, a residual
  add; `kernels` counts the kernels each launches), a decode attention call,
  and the attention op of a pass of several new tokens over a cached prefix
  (its two slice writes and the masked call); then `host_layer`, every one
  of those calls once in a layer's order, back to back (a call after a
  different one costs more than after itself);
- kernel_norm, kernel_pointwise, kernel_kv_write, kernel_attention,
  kernel_combine, kernel_copy: one eager Llama-3-8B-shaped decode step at
  batch 1 and 32 under torch.profiler, each kernel name of those classes
  with its mean device time (`seconds`), its count (`kernels`) and the
  bytes one moves (`bytes`): `roofline calibrate` takes each class's
  median time less its bytes at the stream bandwidth (the last section:
  the profiler stays attached and slows later eager launches).

Method: CUDA events, warm-up first, median of the repetitions; random data
(never zeros); each GEMM and attention result checked for NaN and against a
float32 reference on a few rows. Clocks and power limits are left as found.
"""

import argparse
import csv
import datetime
import math
import os
import statistics
import subprocess
import sys
import time
import traceback

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _gpu import COLUMNS, SETTLE, Sampler, graph_of, timed_loop  # noqa: E402

FLUSH = 512 << 20  # weight copies per timed shape fill at least this (L2 is 50-60 MiB on big parts)

# Projections as (name, N, K) of a [M,K] x [K,N] GEMM; weights are [N,K].
LLAMA3_8B = [("qkv", 6144, 4096), ("o", 4096, 4096), ("gate_up", 28672, 4096),
             ("down", 4096, 14336), ("lm_head", 128256, 4096)]
LLAMA31_70B = [("qkv", 10240, 8192), ("o", 8192, 8192), ("gate_up", 57344, 8192),
               ("down", 8192, 28672), ("lm_head", 128256, 8192)]
SERVING_M = [1, 8, 32, 128, 512, 2048, 8192]
SQUARE = [512, 1024, 2048, 4096, 8192, 16384]
OTHER = [(16384, 1024, 16384), (1024, 16384, 16384), (4096, 4096, 65536),
         (16384, 16384, 1024)]

T0 = time.time()


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


class Writer:
    def __init__(self, path, env):
        self.env = env
        self.f = open(path, "w", newline="")
        self.w = csv.DictWriter(self.f, COLUMNS)
        self.w.writeheader()
        self.rows = 0

    def row(self, **kw):
        r = {c: "" for c in COLUMNS}
        r.update(self.env)
        for k, v in kw.items():
            if k not in r:
                raise KeyError(k)
            r[k] = "" if v is None else f"{v:.6e}" if isinstance(v, float) else v
        self.w.writerow(r)
        self.f.flush()
        self.rows += 1


def events_time(fn, reps):
    """Median seconds of fn() over reps, by CUDA events, after fn has been warmed."""
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e-3)
    return statistics.median(times)


def time_cold(make, fn, per_copy_bytes, est_s, reps):
    """Seconds per call of fn(*inputs), in a graph cycling over cold input copies."""
    copies = max(1, min(64, math.ceil(FLUSH / max(per_copy_bytes, 1))))
    inputs = [make(i) for i in range(copies)]
    calls = max(copies, min(1024, math.ceil(2e-3 / max(est_s, 2e-6))))

    def body():
        for i in range(calls):
            fn(*inputs[i % copies])

    g = graph_of(body)
    for _ in range(2):
        g.replay()
    replays = max(3, min(reps, math.ceil(0.15 / (calls * max(est_s, 2e-6)))))
    t = events_time(g.replay, replays) / calls
    out0 = fn(*inputs[0])
    del g
    return t, out0, inputs[0], replays * calls


def rel_err(out, ref):
    out, ref = out.float(), ref.float()
    if not torch.isfinite(out).all():
        return float("inf")
    return float((out - ref).norm() / ref.norm().clamp_min(1e-30))


# ---------------------------------------------------------------- sections


def hbm(w, quick):
    n = (1 << 30) if not quick else (256 << 20)  # bytes per buffer
    a = torch.randn(n // 4, device="cuda")
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
        a.sum()
    torch.cuda.synchronize()
    reps = 10 if quick else 30
    t = events_time(lambda: b.copy_(a), reps)
    assert torch.equal(a[:1024], b[:1024])
    w.row(operation="hbm_copy", bytes=2 * n, dtype="fp32", launch="eager", repeats=reps,
          seconds=t, note="bytes = read + written")
    log(f"hbm copy {2 * n / t / 1e9:.0f} GB/s (read+write)")
    t = events_time(lambda: a.sum(), reps)
    w.row(operation="hbm_read", bytes=n, dtype="fp32", launch="eager", repeats=reps,
          seconds=t, note="torch.sum over the buffer")
    log(f"hbm read {n / t / 1e9:.0f} GB/s")
    del a, b
    torch.cuda.empty_cache()


def launch(w, quick):
    x = torch.zeros(1, device="cuda")
    n = 2000 if not quick else 300
    for _ in range(100):
        x.add_(1)
    torch.cuda.synchronize()
    # eager: back to back, the host queue in the clock
    t = events_time(lambda: [x.add_(1) for _ in range(n)], 5) / n
    w.row(operation="launch", launch="eager", repeats=5 * n, seconds=t, dtype="fp32",
          note="x.add_(1) on one element, back to back")
    log(f"launch eager {t * 1e6:.2f} us")
    # synchronised: launch, wait, host clock
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        x.add_(1)
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    t = statistics.median(ts)
    w.row(operation="launch", launch="synchronised", repeats=n, seconds=t, dtype="fp32",
          note="x.add_(1) then torch.cuda.synchronize(), host clock")
    log(f"launch synchronised {t * 1e6:.2f} us")
    g = graph_of(lambda: [x.add_(1) for _ in range(n)])
    g.replay()
    t = events_time(g.replay, 10) / n
    w.row(operation="launch", launch="graph", repeats=10 * n, seconds=t, dtype="fp32",
          note="x.add_(1) captured n times, graph replay")
    log(f"launch graph {t * 1e6:.2f} us")
    del g
    # One GEMM call per launch mode: eager from Python, synchronised, and in a graph.
    for m, nn, k in ((1, 4096, 4096), (32, 4096, 4096)):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        wt = torch.randn(nn, k, device="cuda", dtype=torch.bfloat16)
        for _ in range(20):
            a @ wt.t()
        torch.cuda.synchronize()
        reps = 200 if not quick else 50
        t = events_time(lambda: [a @ wt.t() for _ in range(reps)], 5) / reps
        common = dict(operation="gemm", m=m, n=nn, k=k, dtype="bf16",
                      flops=2.0 * m * nn * k, bytes=2 * (m * k + nn * k + m * nn))
        w.row(**common, launch="eager", repeats=5 * reps, seconds=t,
              note="torch.matmul back to back from Python (warm weights)")
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            a @ wt.t()
            torch.cuda.synchronize()
            ts.append(time.perf_counter() - t0)
        ts_med = statistics.median(ts)
        w.row(**common, launch="synchronised", repeats=reps, seconds=ts_med,
              note="one torch.matmul then synchronize, host clock (warm weights)")
        g = graph_of(lambda: [a @ wt.t() for _ in range(reps)])
        g.replay()
        tg = events_time(g.replay, 10) / reps
        w.row(**common, launch="graph", repeats=10 * reps, seconds=tg,
              note="the same GEMM captured back to back (warm weights)")
        log(f"gemm {m}x{nn}x{k} eager {t * 1e6:.2f} us, synchronised {ts_med * 1e6:.2f} us, "
            f"graph {tg * 1e6:.2f} us")
        del g
    kernel_sweep(w, quick)


SWEEP_N, SWEEP_K, SWEEP_M = 65536, 4096, 8  # the sweep's fixed work: [M,K] x [K,N], 512 MiB of weights


def kernel_sweep(w, quick):
    """The fixed time a kernel costs, from its count at fixed work: one
    [8, 4096] x [4096, 65536] bf16 GEMM split by columns into 1 ... 64 GEMMs
    (each on its own weights, 512 MiB in all, so every replay reads them from
    HBM), replayed from a CUDA graph. The bytes stay the same; the time grows
    by the kernels' fixed cost: `roofline calibrate` fits kernel-overhead from
    the slope (formulas.md, "Calibration: fitting the achievable figures")."""
    K, M = SWEEP_K, SWEEP_M
    counts = (1, 2, 4, 8, 16, 32, 64) if not quick else (1, 8, 64)
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    wt = torch.randn(SWEEP_N, K, device="cuda", dtype=torch.bfloat16)
    for kernels in counts:
        n = SWEEP_N // kernels
        parts = list(wt.split(n, 0))
        g = graph_of(lambda: [x @ p.t() for p in parts])
        for _ in range(3):
            g.replay()
        t = events_time(g.replay, 20 if not quick else 5)
        w.row(operation="kernel_sweep", m=M, n=n, k=K, kernels=kernels, dtype="bf16", launch="graph",
              flops=2.0 * M * SWEEP_N * K, bytes=2 * (SWEEP_N * K + kernels * M * K + M * SWEEP_N),
              repeats=20, seconds=t,
              note=f"{M}x{SWEEP_N}x{K} split into {kernels} GEMMs of N = {n}, graph replay (cold weights)")
        log(f"kernel sweep {kernels:3d} GEMMs of {M}x{n}x{K}: {t * 1e6:.1f} us")
        del g
    del x, wt
    torch.cuda.empty_cache()


def fp8_ok():
    if torch.version.hip:
        return hasattr(torch, "float8_e4m3fnuz")
    return torch.cuda.get_device_capability() >= (8, 9)


def fp8_dtype():
    return torch.float8_e4m3fnuz if torch.version.hip else torch.float8_e4m3fn


PAD_M = None  # rows _scaled_mm's first operand must be a multiple of (found by probe)


def probe_pad():
    global PAD_M
    one = torch.ones((), device="cuda")
    for pad in (1, 16):
        try:
            a = torch.randn(pad, 64, device="cuda").to(fp8_dtype())
            b = torch.randn(64, 64, device="cuda").to(fp8_dtype())
            torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            torch.cuda.synchronize()
            PAD_M = pad
            return
        except RuntimeError:
            continue


def gemm_one(w, dtype, m, n, k, label, reps):
    note = label
    run_m = m
    if dtype == "fp8" and PAD_M and m % PAD_M:
        run_m = m + PAD_M - m % PAD_M
        note += f"; M padded to {run_m} (torch._scaled_mm needs a multiple of {PAD_M})"
    eb = 1 if dtype == "fp8" else 2
    per_copy = eb * (n * k + run_m * k)
    one = torch.ones((), device="cuda")

    def make(i):
        g = torch.Generator(device="cuda").manual_seed(100 + i)
        a = torch.randn(run_m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        wt = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g)
        if dtype == "fp8":
            a, wt = a.to(fp8_dtype()), wt.to(fp8_dtype())
        return a, wt

    if dtype == "fp8":
        fn = lambda a, wt: torch._scaled_mm(a, wt.t(), scale_a=one, scale_b=one,
                                            out_dtype=torch.bfloat16)
    else:
        fn = lambda a, wt: a @ wt.t()
    flops = 2.0 * m * n * k
    est = max(2.0 * run_m * n * k / 600e12, per_copy / 3.5e12, 4e-6)
    t, out, (a, wt), nrep = time_cold(make, fn, per_copy, est, reps)
    rows, cols = min(4, run_m), min(1024, n)
    err = rel_err(out[:rows, :cols], a[:rows].float() @ wt[:cols].float().t())
    bad = not (err < (0.05 if dtype == "fp8" else 0.02))
    w.row(operation="gemm", m=run_m, n=n, k=k, dtype=dtype, launch="graph", repeats=nrep,
          seconds=t, flops=2.0 * run_m * n * k, bytes=eb * (n * k + run_m * k) + 2 * run_m * n,
          note=note + (f"; RESULT CHECK FAILED rel err {err:.2e}" if bad else ""))
    log(f"gemm {dtype} {label} {run_m}x{n}x{k}: {t * 1e6:9.2f} us "
        f"{flops / t / 1e12:7.1f} TFLOP/s err {err:.1e}")
    torch.cuda.empty_cache()


def gemms(w, quick):
    dtypes = ["bf16"] + (["fp8"] if fp8_ok() else [])
    if "fp8" in dtypes:
        probe_pad()
        if PAD_M is None:
            log("fp8: torch._scaled_mm refused every probe; fp8 rows skipped")
            dtypes = ["bf16"]
    else:
        log("fp8: this part has no fp8 matrix unit PyTorch can use; fp8 rows skipped")
    ms = SERVING_M if not quick else [1, 128, 2048]
    reps = 15 if not quick else 5
    for dtype in dtypes:
        plan = [(s, s, s, f"square {s}") for s in (SQUARE if not quick else [1024, 8192])]
        if not quick:
            plan += [(m, n, k, "other") for m, n, k in OTHER]
        for model, projs in (("llama-3-8b", LLAMA3_8B), ("llama-3.1-70b", LLAMA31_70B)):
            for m in ms:
                for name, n, k in projs:
                    plan.append((m, n, k, f"{model} {name}"))
        for m, n, k, label in plan:
            try:
                gemm_one(w, dtype, m, n, k, label, reps)
            except Exception as e:  # noqa: BLE001
                log(f"gemm {dtype} {m}x{n}x{k} FAILED: {e!r}")
                torch.cuda.empty_cache()


def attention(w, quick):
    h, kv, d = 32, 8, 128
    seqs = [1024, 2048, 4096, 8192, 16384] if not quick else [1024, 4096]
    for S in seqs:
        B = 1
        q = torch.randn(B, h, S, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, kv, S, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn_like(k)
        # The default dispatch, as a model's forward calls it: on the H200 with
        # PyTorch 2.11 that is cuDNN's flash kernel, about twice as fast at 4k
        # to 16k as FlashAttention-2's, which an earlier version forced.
        fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        out = fn()
        for _ in range(2):
            fn()
        torch.cuda.synchronize()
        reps = 10 if not quick else 3
        t = events_time(fn, reps)
        note = ("causal, GQA via enable_gqa, the default backend (cudnn_sdp_enabled "
                f"{torch.backends.cuda.cudnn_sdp_enabled()}; no profiler here: it would slow the later sections)")
        # Check a few query rows against a float32 softmax.
        rows = torch.tensor([0, S // 3, S - 1], device="cuda")
        qs = q[0, :, rows].float()
        kr = k[0].float().repeat_interleave(h // kv, 0)
        vr = v[0].float().repeat_interleave(h // kv, 0)
        sc = (qs @ kr.transpose(-1, -2)) / math.sqrt(d)
        mask = torch.arange(S, device="cuda")[None, :] > rows[:, None]
        sc = sc.masked_fill(mask, float("-inf"))
        ref = sc.softmax(-1) @ vr
        err = rel_err(out[0, :, rows], ref)
        flops = 2.0 * B * h * S * S * d  # 2 GEMMs x 2 FLOP x B H S^2 D, halved for causal
        bad = not err < 0.02
        w.row(operation="attention_prefill", batch=B, seq=S, heads=h, kv_heads=kv, head_dim=d,
              flops=flops, bytes=2 * B * S * d * (2 * h + 2 * kv), dtype="bf16", launch="eager",
              repeats=reps, seconds=t,
              note=note + (f"; RESULT CHECK FAILED rel err {err:.2e}" if bad else ""))
        log(f"attention prefill S={S}: {t * 1e3:.3f} ms {flops / t / 1e12:.0f} TFLOP/s err {err:.1e}")
        del q, k, v
        torch.cuda.empty_cache()
    grid = [(1, 1024), (1, 8192), (8, 4096), (32, 1024), (32, 4096), (32, 16384),
            (128, 1024), (128, 4096)] if not quick else [(1, 1024), (32, 4096)]
    for B, T in grid:
        kvb = 2 * 2 * B * kv * T * d

        def make(i):
            g = torch.Generator(device="cuda").manual_seed(7 + i)
            q = torch.randn(B, h, 1, d, device="cuda", dtype=torch.bfloat16, generator=g)
            k = torch.randn(B, kv, T, d, device="cuda", dtype=torch.bfloat16, generator=g)
            return q, k, torch.randn(B, kv, T, d, device="cuda", dtype=torch.bfloat16, generator=g)

        fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        try:
            t, out, (q, k, v), nrep = time_cold(make, fn, kvb, kvb / 3.5e12, 15)
        except Exception as e:  # noqa: BLE001
            log(f"attention decode B={B} T={T} FAILED: {e!r}")
            torch.cuda.empty_cache()
            continue
        ref = (q.float() @ k.float().repeat_interleave(h // kv, 1).transpose(-1, -2) / math.sqrt(d))
        ref = ref.softmax(-1) @ v.float().repeat_interleave(h // kv, 1)
        err = rel_err(out, ref)
        bad = not err < 0.02
        w.row(operation="attention_decode", batch=B, context=T, heads=h, kv_heads=kv, head_dim=d,
              flops=4.0 * B * h * T * d, bytes=kvb, dtype="bf16", launch="graph", repeats=nrep,
              seconds=t, note="one query token over a cold KV cache, enable_gqa"
              + (f"; RESULT CHECK FAILED rel err {err:.2e}" if bad else ""))
        log(f"attention decode B={B} T={T}: {t * 1e6:.1f} us {kvb / t / 1e9:.0f} GB/s err {err:.1e}")
        del q, k, v
        torch.cuda.empty_cache()


def compute_loops(w, sampler, quick):
    dtypes = ["bf16"] + (["fp8"] if fp8_ok() and PAD_M else [])
    n = 8192
    one = torch.ones((), device="cuda")
    for dtype in dtypes:
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        if dtype == "fp8":
            a, b = a.to(fp8_dtype()), b.to(fp8_dtype())
            fn = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        else:
            fn = lambda: a @ b.t()
        g = graph_of(lambda: [fn() for _ in range(10)])
        g.replay()
        torch.cuda.synchronize()
        for op, dur in (("compute_short", 0.3), ("compute_sustained", 8.0 if not quick else 2.0)):
            time.sleep(1.0)  # let the clock recover between loops
            t0 = time.time()
            marks = []  # (host time after sync, event, GEMMs issued before it)
            calls = 0
            ev = torch.cuda.Event(enable_timing=True)
            ev.record()
            marks.append((t0, ev, 0))
            while time.time() - t0 < dur:
                g.replay()
                calls += 10
                if calls % 50 == 0:
                    ev = torch.cuda.Event(enable_timing=True)
                    ev.record()
                    ev.synchronize()
                    marks.append((time.time(), ev, calls))
            t1 = marks[-1][0]
            # sustained: the last 6 s (the clock has settled); short: the whole burst
            tw = t1 - 6.0 if op == "compute_sustained" and not quick else t0
            first = next(m for m in marks if m[0] >= tw)
            last = marks[-1]
            calls = last[2] - first[2]
            per = first[1].elapsed_time(last[1]) * 1e-3 / max(calls, 1)
            win = sampler.window(first[0], t1)
            p = dict(power_w="", sm_clock_mhz="", mem_clock_mhz="", temperature_c="")
            if win:
                p = dict(power_w=win[0], sm_clock_mhz=win[1], mem_clock_mhz=win[2], temperature_c=win[3])
            w.row(operation=op, m=n, n=n, k=n, dtype=dtype, launch="graph", repeats=calls,
                  seconds=per, flops=2.0 * n ** 3, **p,
                  note=f"{dur:g} s loop of graph-replayed GEMMs; clocks and power: means of "
                       f"100 ms nvidia-smi samples over {'the last 6 s' if op == 'compute_sustained' and not quick else 'the loop'}")
            log(f"{op} {dtype}: {2 * n ** 3 / per / 1e12:.0f} TFLOP/s"
                + (f" at {win[1]:.0f} MHz, {win[0]:.0f} W" if win else " (no nvidia-smi samples)"))
        del g, a, b
        torch.cuda.empty_cache()


POWER_GAPS = (0.0, 0.15, 0.45, 1.1, 2.2)  # spin after each GEMM, a share of the GEMM's burst time
POWER_SEQS = (2048, 8192, 16384)


def power_loop(sampler, seconds, settle, body, graph=True):
    """One power loop: 3 s of rest (the first calls run at the burst clock),
    capture, 1.5 s more, then graph replays (or `body` itself) for
    `seconds`. Returns the settled seconds a replay, the first replay's, the
    settled replays and the sampler's means over the settled part (None
    without samples)."""
    time.sleep(3.0)
    g = graph_of(body) if graph else None
    torch.cuda.synchronize()
    time.sleep(1.5)
    t0, t1, durs, settled = timed_loop(seconds, g.replay if graph else body, settle)
    del g
    torch.cuda.empty_cache()
    return statistics.fmean(settled), durs[0], len(settled), sampler.window(t0 + settle, t1)


def power_row(w, win, **kw):
    if not win:
        log(f"{kw['operation']}: no nvidia-smi samples, row not written (it needs power and clock)")
        return False
    p, sm, mem, temp = win
    w.row(power_w=p, sm_clock_mhz=sm, mem_clock_mhz="" if mem is None else mem,
          temperature_c="" if temp is None else temp, launch=kw.pop("launch", "graph"), **kw)
    log(f"{kw['operation']}: {kw['seconds'] * 1e3:.4f} ms settled, {kw['burst_seconds'] * 1e3:.4f} ms "
        f"first, {p:.1f} W at {sm:.0f} MHz")
    return True


def power(w, sampler, quick):
    """The power limit's loops (docs/formulas.md, "Calibration: the power limit"):
    spin kernels, 8192^3 bf16 GEMMs with spins of several lengths after each,
    causal attention, device-to-device copies; each a loop of graph replays
    with board power and SM clock sampled over its settled part."""
    seconds, settle = (3.0, 1.5) if quick else (6.0, SETTLE)
    gaps = (0.0, 1.1) if quick else POWER_GAPS
    seqs = (8192,) if quick else POWER_SEQS
    how = (f"{seconds:g} s loop of graph replays after 3 s of rest; seconds: the mean call after "
           f"{settle:g} s, burst_seconds: the first call; power and clocks: means of 100 ms "
           f"nvidia-smi samples after {settle:g} s")
    per_cycle = None
    spins, cycles = 20, 1_000_000
    try:
        t, t1, calls, win = power_loop(sampler, 5.0 if not quick else 3.0, settle,
                                       lambda: [torch.cuda._sleep(cycles) for _ in range(spins)])
        per_cycle = t / (spins * cycles)
        power_row(w, win, operation="power_wait", dtype="fp32", repeats=calls * spins,
                  seconds=t / spins, burst_seconds=t1 / spins,
                  note=f"torch.cuda._sleep({cycles}) spin kernels back to back, {spins} a replay; " + how)
    except Exception as e:  # noqa: BLE001
        log(f"power_wait FAILED ({e!r}): the GEMM loops run without spins")

    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    assert torch.isfinite(a[:64] @ b[:64].t()).all()
    g = graph_of(lambda: [a @ b.t() for _ in range(10)])
    time.sleep(2.0)
    t_gemm = events_time(g.replay, 3) / 10
    del g
    for r in gaps:
        if r and per_cycle is None:
            continue
        spin = int(round(r * t_gemm / per_cycle, -3)) if r else 0

        def body():
            for _ in range(10):
                a @ b.t()
                if spin:
                    torch.cuda._sleep(spin)

        t, t1, calls, win = power_loop(sampler, seconds, settle, body)
        power_row(w, win, operation="power_gemm", m=n, n=n, k=n, flops=2.0 * n ** 3, dtype="bf16",
                  repeats=calls * 10, seconds=t / 10, burst_seconds=t1 / 10,
                  wait_seconds=spin * per_cycle if spin else 0.0,
                  note=(f"a GEMM and a torch.cuda._sleep({spin}) spin, 10 a replay; wait_seconds: the "
                        f"spin's cycles at the power_wait row's time a cycle; " if spin else
                        "GEMMs back to back, 10 a replay; ") + how)
    del a, b
    torch.cuda.empty_cache()

    h, kv, dh = 32, 8, 128
    for S in seqs:
        q = torch.randn(1, h, S, dh, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(1, kv, S, dh, device="cuda", dtype=torch.bfloat16)
        v = torch.randn_like(k)
        reps = max(1, 16 * 2048 * 2048 // (S * S)) * 4
        fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        assert torch.isfinite(fn()).all()
        t, t1, calls, win = power_loop(sampler, seconds, settle, lambda: [fn() for _ in range(reps)])
        power_row(w, win, operation="power_attention", batch=1, seq=S, heads=h, kv_heads=kv,
                  head_dim=dh, flops=2.0 * h * S * S * dh, dtype="bf16", repeats=calls * reps,
                  seconds=t / reps, burst_seconds=t1 / reps,
                  note=f"causal SDPA (default backend, enable_gqa), {reps} a replay; " + how)
        del q, k, v
        torch.cuda.empty_cache()

    nb = (1 << 31) if not quick else (1 << 28)  # bytes per buffer
    src = torch.randn(nb // 4, device="cuda")
    dst = torch.empty_like(src)
    copies = 8
    # Eager: replayed from a graph the same copies ran at 2.8 TB/s and 530 W
    # on the H200 (validation/calibrate-h200-power-1.csv; most likely memcpy
    # nodes on the copy engines), not as the kernel a forward's memory-bound
    # work runs as.
    t, t1, calls, win = power_loop(sampler, seconds, settle,
                                   lambda: [dst.copy_(src) for _ in range(copies)], graph=False)
    assert torch.equal(src[:1024], dst[:1024])
    power_row(w, win, operation="power_stream", bytes=2 * nb, dtype="fp32", repeats=calls * copies,
              seconds=t / copies, burst_seconds=t1 / copies, launch="eager",
              note=f"device-to-device copies of {nb >> 20} MiB launched eagerly, {copies} a call, "
                   "bytes = read + written; " + how.replace("graph replays", "calls"))
    log(f"power_stream: {2 * nb / t * copies / 1e9:.0f} GB/s")
    del src, dst
    torch.cuda.empty_cache()



def llama_weights(L, d, h, kv, dh, ff, V):
    """Random bf16 weights of a Llama-3-shaped decoder of L layers: (embedding, LM head,
    layers, rotary frequencies)."""
    bf = dict(device="cuda", dtype=torch.bfloat16)
    s = 0.02
    emb = torch.randn(V, d, **bf) * s
    head = torch.randn(V, d, **bf) * s
    layers = [dict(qkv=torch.randn((h + 2 * kv) * dh, d, **bf) * s, o=torch.randn(d, h * dh, **bf) * s,
                   gu=torch.randn(2 * ff, d, **bf) * s, down=torch.randn(d, ff, **bf) * s,
                   n1=torch.ones(d, **bf), n2=torch.ones(d, **bf)) for _ in range(L)]
    freqs = torch.polar(torch.ones(dh // 2, device="cuda"), torch.rand(dh // 2, device="cuda"))
    return emb, head, layers, freqs


def llama_step(net, kc, vc, tok, pos, B, d, h, kv, dh):
    """One decode step of B tokens at cache position `pos` (RMSNorm, fused QKV, rotary,
    KV write, SDPA, fused gate+up, SiLU): the logits."""
    emb, head, layers, freqs = net
    x = emb[tok]
    for i, l in enumerate(layers):
        y = F.rms_norm(x, (d,), l["n1"], 1e-5)
        qkv = y @ l["qkv"].t()
        qk = qkv[:, : (h + kv) * dh].view(B, h + kv, dh // 2, 2).float()
        qk = torch.view_as_real(torch.view_as_complex(qk) * freqs).flatten(-2).to(x.dtype)
        q, k = qk.split([h, kv], 1)
        kc[i].index_copy_(2, pos, k.view(B, kv, 1, dh))
        vc[i].index_copy_(2, pos, qkv[:, (h + kv) * dh:].reshape(B, kv, 1, dh))
        a = F.scaled_dot_product_attention(q.reshape(B, h, 1, dh), kc[i], vc[i], enable_gqa=True)
        x = torch.addmm(x, a.reshape(B, h * dh), l["o"].t())
        y = F.rms_norm(x, (d,), l["n2"], 1e-5)
        g, u = (y @ l["gu"].t()).chunk(2, -1)
        x = torch.addmm(x, F.silu(g) * u, l["down"].t())
    return F.rms_norm(x, (d,), None, 1e-5) @ head.t()


EAGER_STEPS = ((1, 1024), (32, 1024), (32, 4096))  # (B, T) also timed eagerly
PREFILL_STEPS = ((1, 512), (1, 2048), (4, 1024), (1, 8192))  # (B, S) prefills, eager


def llama_prefill(net, tok, B, S, d, h, kv, dh):
    """A prefill of tok [B, S] through llama_step's layers with causal attention and no
    cache, as validation/serving_fidelity.py's forward runs it: the last token's logits."""
    emb, head, layers, freqs = net
    x = emb[tok].reshape(B * S, d)
    for l in layers:
        y = F.rms_norm(x, (d,), l["n1"], 1e-5)
        qkv = y @ l["qkv"].t()
        qk = qkv[:, : (h + kv) * dh].view(B * S, h + kv, dh // 2, 2).float()
        qk = torch.view_as_real(torch.view_as_complex(qk) * freqs).flatten(-2).to(x.dtype)
        q, k = qk.split([h, kv], 1)
        v = qkv[:, (h + kv) * dh:].reshape(B * S, kv, dh)
        q, k, v = (t.reshape(B, S, -1, dh).transpose(1, 2) for t in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = torch.addmm(x, a.transpose(1, 2).reshape(B * S, h * dh), l["o"].t())
        y = F.rms_norm(x, (d,), l["n2"], 1e-5)
        g, u = (y @ l["gu"].t()).chunk(2, -1)
        x = torch.addmm(x, F.silu(g) * u, l["down"].t())
    last = x.view(B, S, d)[:, -1]
    return F.rms_norm(last, (d,), None, 1e-5) @ head.t()


def decode_steps(w, quick):
    L, d, h, kv, dh, ff, V = 32, 4096, 32, 8, 128, 14336, 128256
    free, _ = torch.cuda.mem_get_info()
    per_layer = 2 * (d * (h + 2 * kv) * dh + d * h * dh + 3 * d * ff)
    grid = [(1, 1024), (8, 1024), (32, 1024), (32, 4096), (128, 1024)] if not quick else [(1, 1024), (32, 1024)]
    kv_max = max(2 * 2 * B * kv * T * dh for B, T in grid)
    fit = int((free * 0.8 - 4 * V * d) // (per_layer + kv_max))
    L = max(1, min(L, fit))
    bf = dict(device="cuda", dtype=torch.bfloat16)
    net = llama_weights(L, d, h, kv, dh, ff, V)
    for B, T in grid:
        kc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        vc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        tok = torch.randint(0, V, (B,), device="cuda")
        pos = torch.tensor([T - 1], device="cuda")
        out = torch.empty(B, dtype=torch.long, device="cuda")

        def step():
            logits = llama_step(net, kc, vc, tok, pos, B, d, h, kv, dh)
            out.copy_(logits.argmax(-1))
            return logits

        logits = step()
        ok = bool(torch.isfinite(logits).all())
        g = graph_of(step)
        for _ in range(3):
            g.replay()
        reps = 20 if not quick else 5
        t = events_time(g.replay, reps)
        what = ("random weights; RMSNorm, fused QKV, rotary, KV write, SDPA, fused gate+up, SiLU, "
                "LM head, argmax" + ("" if ok else "; NON-FINITE LOGITS"))
        w.row(operation="decode_step", model="llama-3-8b", layers=L, batch=B, context=T,
              heads=h, kv_heads=kv, head_dim=dh, dtype="bf16", launch="graph", repeats=reps,
              seconds=t, note=what)
        log(f"decode step llama-3-8b ({L} layers) B={B} T={T}: {t * 1e3:.3f} ms")
        del g
        if (B, T) in EAGER_STEPS:
            # The same step launched from Python, as an eager forward runs: the host's path
            # is in the clock (the whole steps `calibrate` checks the host figures on).
            for _ in range(3):
                step()
            torch.cuda.synchronize()
            t = events_time(step, 10 if not quick else 3)
            w.row(operation="decode_step", model="llama-3-8b", layers=L, batch=B, context=T,
                  heads=h, kv_heads=kv, head_dim=dh, dtype="bf16", launch="eager",
                  repeats=10, seconds=t, note=what + "; launched eagerly from Python")
            log(f"decode step llama-3-8b ({L} layers) B={B} T={T} eager: {t * 1e3:.3f} ms")
        del kc, vc
        torch.cuda.empty_cache()
    for B, S in PREFILL_STEPS if not quick else PREFILL_STEPS[:1]:
        tok = torch.randint(0, V, (B, S), device="cuda")
        f = lambda: llama_prefill(net, tok, B, S, d, h, kv, dh)
        ok = bool(torch.isfinite(f()).all())
        f()
        torch.cuda.synchronize()
        t = events_time(f, 5 if not quick else 2)
        w.row(operation="prefill_step", model="llama-3-8b", layers=L, batch=B, seq=S,
              heads=h, kv_heads=kv, head_dim=dh, dtype="bf16", launch="eager", repeats=5,
              seconds=t, note="random weights; the decode step's layers over S tokens, causal "
              "SDPA (default backend), LM head on the last token, launched eagerly"
              + ("" if ok else "; NON-FINITE LOGITS"))
        log(f"prefill step llama-3-8b ({L} layers) B={B} S={S}: {t * 1e3:.3f} ms")
        del tok
        torch.cuda.empty_cache()


def host_calls(quick):
    """(operation, name, kernels, fn): the calls of serving_fidelity.py's forward, as it makes
    them, at a tiny shape (their kernels take 2-4 us, well below the host's path)."""
    bf = dict(device="cuda", dtype=torch.bfloat16)
    d, h, kv, dh = 4096, 32, 8, 128
    x = torch.randn(1, d, **bf)
    r = torch.randn(1, 256, **bf)
    w = torch.randn(256, d, **bf)
    nw = torch.ones(d, **bf)
    qkv = torch.randn(1, (h + 2 * kv) * dh, **bf)
    freqs = torch.polar(torch.ones(dh // 2, device="cuda"), torch.rand(dh // 2, device="cuda"))
    kc = torch.randn(1, kv, 68, dh, **bf)
    vc = torch.randn(1, kv, 68, dh, **bf)
    kd = torch.randn(1, kv, 64, dh, **bf)
    vd = torch.randn(1, kv, 64, dh, **bf)
    pos = torch.tensor([63], device="cuda")
    gu = torch.randn(1, 1024, **bf)
    qkv4 = torch.randn(4, (h + 2 * kv) * dh, **bf)
    fp8 = fp8_dtype() if fp8_ok() else None

    def rotary():
        qk = qkv[:, : (h + kv) * dh].reshape(1, h + kv, dh)
        c = torch.view_as_complex(qk.float().unflatten(-1, (-1, 2)))
        return torch.view_as_real(c * freqs).flatten(-2).to(torch.bfloat16).split([h, kv], 1)

    def kv_write():
        k = qkv[:, h * dh:(h + kv) * dh].reshape(1, kv, dh)
        v = qkv[:, (h + kv) * dh:].reshape(1, kv, dh)
        kd.index_copy_(2, pos, k.view(1, kv, 1, dh))
        vd.index_copy_(2, pos, v.view(1, kv, 1, dh))

    def attention():
        q = qkv[:, : h * dh].reshape(1, h, 1, dh)
        return F.scaled_dot_product_attention(q, kd, vd, enable_gqa=True).reshape(1, h * dh)

    def activation():
        g, u = gu.chunk(2, -1)
        return F.silu(g) * u

    def cached_attention():
        from torch.nn.attention.bias import causal_lower_right
        k = qkv4[:, h * dh:(h + kv) * dh].reshape(4, kv, dh).view(1, 4, kv, dh).transpose(1, 2)
        v = qkv4[:, (h + kv) * dh:].reshape(4, kv, dh).view(1, 4, kv, dh).transpose(1, 2)
        kc[:, :, 64:68].copy_(k)
        vc[:, :, 64:68].copy_(v)
        q = qkv4[:, : h * dh].reshape(4, h, dh).view(1, 4, h, dh).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, kc, vc, attn_mask=causal_lower_right(4, 68),
                                           enable_gqa=True)
        return o.transpose(1, 2).reshape(4, h * dh)

    calls = [("host_kernel", "rms_norm", 1, lambda: F.rms_norm(x, (d,), nw, 1e-5)),
             ("host_gemm", "matmul", None, lambda: x @ w.t()),
             ("host_kernel", "rotary", 3, rotary),
             ("host_kernel", "kv_write", 2, kv_write),
             ("host_attention", "sdpa_decode", None, attention),
             ("host_gemm", "addmm", None, lambda: torch.addmm(r, x, w.t())),
             ("host_kernel", "activation", 2, activation),
             ("host_kernel", "add", 1, lambda: x + x)]
    if fp8 is not None:
        calls.append(("host_kernel", "cast_fp8", 1, lambda: x.to(fp8)))
    calls.append(("host_cached_attention", "chunk_attention", None, cached_attention))
    return calls


def host(w, quick):
    n = 400 if not quick else 50

    def per_call(fn):
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        out = []
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(n):
                fn()
            torch.cuda.synchronize()
            out.append((time.perf_counter() - t) / n)
        return statistics.median(out)

    calls = host_calls(quick)
    alone = 0.0
    for op, name, kernels, fn in calls:
        t = per_call(fn)
        alone += t
        w.row(operation=op, dtype="bf16", launch="eager", repeats=5 * n, seconds=t,
              kernels=kernels if kernels else "",
              note=f"{name}: called back to back from Python as the forward calls it, wall clock")
        log(f"{op} {name}: {t * 1e6:.2f} us")
    fns = [fn for _, _, _, fn in calls]

    def layer():
        for f in fns:
            f()

    t = per_call(layer)
    w.row(operation="host_layer", dtype="bf16", launch="eager", repeats=5 * n, seconds=t,
          note="every host_* call above once, in this order, back to back, wall clock per cycle")
    log(f"host_layer: {t * 1e6:.1f} us against {alone * 1e6:.1f} us alone ({t / alone:.3f})")


# A profiled kernel's class by its name (PyTorch's CUDA kernels, cuBLAS, cuDNN), with the
# bytes one moves at t tokens of a Llama-3-8B-shaped decode step over T cached tokens
# (validation/kernel_classes.py holds the same table).
def kernel_kinds(d, h, kv, dh, ff, T):
    return [
        ("vectorized_layer_norm_kernel", "norm", lambda t: 4 * t * d),
        ("index_copy_kernel_impl", "kv_write", lambda t: 4 * t * kv * dh),
        ("splitKreduce", None, None),
        ("nvjet", None, None),
        ("gemm", None, None),
        ("sdpa", "attention", lambda t: 4 * t * T * kv * dh + 4 * t * h * dh),
        ("flash", "attention", lambda t: 4 * t * T * kv * dh + 4 * t * h * dh),
        ("lean_reduction", "combine", lambda t: 4 * t * h * dh),
        ("Memcpy DtoD", "copy", lambda t: 4 * t * d),
        ("Memset", None, None),
        ("direct_copy_kernel_cuda", "pointwise", lambda t: 6 * t * (h + kv) * dh),
        ("bfloat16_copy_kernel_cuda", "pointwise", lambda t: 6 * t * (h + kv) * dh),
        ("complex", "pointwise", lambda t: 8 * t * (h + kv) * dh),
        ("silu", "pointwise", lambda t: 4 * t * ff),
        ("MulFunctor", "pointwise", lambda t: 6 * t * ff),
        ("float8_copy_kernel_cuda", "pointwise", lambda t: 3 * t * (2 * d + h * dh + ff) / 4),
        ("CUDAFunctor_add", "pointwise", lambda t: 6 * t * d),
        ("index_kernel", "pointwise", lambda t: 4 * t * d),
        ("gather_kernel", "pointwise", lambda t: 4 * t * d),
    ]


def kernels(w, quick):
    """Each kernel of one eager Llama-3-8B-shaped decode step (bf16, batch 1 and 32 at T =
    1,024) under torch.profiler: per kernel name of a class the `kernel-fixed` figures
    cover, a `kernel_<class>` row of its mean device time, its count and the bytes one
    moves. Last of the sections: a profiler session leaves CUPTI attached, which slows
    every later eager launch from Python."""
    from torch.profiler import ProfilerActivity, profile

    L, d, h, kv, dh, ff, V, T = 32, 4096, 32, 8, 128, 14336, 128256, 1024
    if quick:
        L = 4
    bf = dict(device="cuda", dtype=torch.bfloat16)
    net = llama_weights(L, d, h, kv, dh, ff, V)
    kinds = kernel_kinds(d, h, kv, dh, ff, T)
    for B in (1, 32):
        kc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        vc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        tok = torch.randint(0, V, (B,), device="cuda")
        pos = torch.tensor([T - 1], device="cuda")

        def step():
            return llama_step(net, kc, vc, tok, pos, B, d, h, kv, dh)

        for _ in range(3):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        by = {}
        for e in prof.events():
            if e.device_type != torch.autograd.DeviceType.CUDA:
                continue
            t = getattr(e, "device_time_total", None)
            if t is None:
                t = e.cuda_time_total
            c = by.setdefault(e.name, [0, 0.0])
            c[0] += 1
            c[1] += t * 1e-6
        rows = 0
        for name, (count, total) in sorted(by.items()):
            kind = next(((cls, work) for frag, cls, work in kinds if frag in name), (None, None))
            if kind[0] is None:
                continue
            cls, work = kind
            w.row(operation=f"kernel_{cls}", model="llama-3-8b", layers=L, batch=B, context=T,
                  heads=h, kv_heads=kv, head_dim=dh, bytes=float(max(work(B), 1)), dtype="bf16",
                  launch="eager", repeats=1, seconds=total / count, kernels=count,
                  note=f"{name[:80]}: torch.profiler device time of one eager decode step, mean of its {count} kernels")
            rows += 1
        log(f"kernels B={B}: {sum(c for c, _ in by.values())} kernels profiled, {rows} rows")
        del kc, vc
        torch.cuda.empty_cache()


def environment():
    name = torch.cuda.get_device_name()
    driver = ""
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader",
                                 "-i", "0"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    if not driver and torch.version.hip:
        driver = "hip " + torch.version.hip
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return dict(device=name, driver=driver, torch=torch.__version__, date=date)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="CSV file to write")
    ap.add_argument("--quick", action="store_true", help="fewer shapes and repetitions")
    ap.add_argument("--only", default="", help="comma list of sections: hbm,launch,gemm,attention,compute,power,decode,host,kernels")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("calibrate.py: no CUDA or ROCm device is visible to PyTorch")
    env = environment()
    log(f"{env['device']}, driver {env['driver']}, torch {env['torch']}")
    w = Writer(args.out, env)
    sampler = Sampler()
    torch.manual_seed(0)
    sections = [("hbm", hbm), ("launch", launch), ("gemm", gemms), ("attention", attention),
                ("compute", lambda w_, q: compute_loops(w_, sampler, q)),
                ("power", lambda w_, q: power(w_, sampler, q)), ("decode", decode_steps),
                ("host", host), ("kernels", kernels)]
    only = set(filter(None, args.only.split(",")))
    if only and "compute" in only and "gemm" not in only and fp8_ok():
        probe_pad()
    for name, fn in sections:
        if only and name not in only:
            continue
        log(f"--- {name}")
        try:
            fn(w, args.quick)
        except Exception:  # noqa: BLE001
            log(f"section {name} FAILED:\n{traceback.format_exc()}")
            torch.cuda.empty_cache()
    sampler.stop()
    log(f"wrote {w.rows} rows to {args.out} in {time.time() - T0:.0f} s")


if __name__ == "__main__":
    main()

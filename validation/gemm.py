#!/usr/bin/env python3
"""Time cuBLAS GEMMs on one NVIDIA H200, for `roofline matmul`'s L2-aware
lower bound (issue 12, "Matmul through the L2").

    python3 validation/gemm.py          # writes $OUT (or ./validation-out)/h200-gemm.json
    python3 validation/gemm.py probe    # launches each probed GEMM once, for ncu

Shapes are M x N x K: C[M,N] = A[M,K] . B[K,N]. B is stored as a [N,K]
weight and passed transposed (a linear layer's x @ W^T), for bf16
(torch.matmul) and fp8 e4m3 (torch._scaled_mm, per-tensor scales, bf16 out).

Timing: the inputs are copied until the copies fill at least 1 GiB (17x the
60 MiB L2), and a CUDA graph of `reps` GEMMs cycles through the copies, so
every GEMM reads its operands cold from HBM, as the first GEMM of a layer
does. The graph is replayed after three warm-ups; each replay is timed with
CUDA events, and the time per GEMM is the median replay over `reps`. The
graph removes the CPU launch cost but keeps the ~1 us gap between kernels,
which only makes a measurement longer (never shorter) than the kernel.
Each shape's first output is checked against a float32 reference on a few
rows before anything is timed.

The probe mode launches each GEMM of PROBE once, after its inputs are made,
and prints the launch order; run it under Nsight Compute (see README.md) for
the DRAM bytes each GEMM kernel really moves (ncu flushes the caches before
each replay pass, so they are cold-cache counts).
"""

import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import traceback

OUT = os.environ.get("OUT") or os.path.join(os.getcwd(), "validation-out")
QUICK = os.environ.get("QUICK") == "1"
L2_FLUSH = 1 << 30  # copies fill at least this many bytes

SQUARE = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
          (8192, 8192, 8192), (16384, 16384, 16384)]
SHAPES_LARGE = SQUARE + [
    (16384, 1024, 16384),   # tall: many rows, narrow output
    (1024, 16384, 16384),   # wide
    (4096, 4096, 65536),    # deep K
    (1024, 1024, 65536),    # deep K, small output (split-K territory)
    (16384, 16384, 1024),   # shallow K: the output write dominates
    (4096, 14336, 4096),    # Llama-3-8B MLP up-projection, 4096-token prefill
    (4096, 4096, 14336),    # its down-projection
]
DECODE_M = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
WEIGHTS = [(4096, 4096), (14336, 4096), (4096, 14336)]  # (N, K)
SHAPES_DECODE = [(m, n, k) for (n, k) in WEIGHTS for m in DECODE_M]

FP8_LARGE = [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 16384),
             (16384, 1024, 16384), (1024, 16384, 16384), (4096, 4096, 65536),
             (16384, 16384, 1024), (4096, 14336, 4096)]
FP8_DECODE = [(m, 14336, 4096) for m in (16, 32, 64, 128, 256, 512)] + \
             [(m, 4096, 4096) for m in (16, 64, 256, 512)]

PROBE = [("bf16", (8192, 8192, 8192)), ("bf16", (4096, 4096, 4096)),
         ("bf16", (16384, 1024, 16384)), ("bf16", (1024, 16384, 16384)),
         ("bf16", (4096, 4096, 65536)), ("bf16", (1024, 1024, 65536)),
         ("bf16", (16384, 16384, 1024)), ("bf16", (4096, 14336, 4096)),
         ("bf16", (1, 14336, 4096)), ("bf16", (64, 14336, 4096)),
         ("bf16", (512, 14336, 4096)), ("bf16", (512, 4096, 4096)),
         ("fp8", (8192, 8192, 8192)), ("fp8", (1024, 16384, 16384)),
         ("fp8", (128, 14336, 4096))]


def log(*a):
    print(*a, flush=True)


def smi():
    q = ("name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,"
         "power.draw,power.limit,temperature.gpu")
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"nvidia-smi failed: {e}"


def make(torch, dtype, m, n, k, copies):
    """`copies` (A, B^T) pairs in the GEMM's dtype; B is a [N,K] weight."""
    pairs = []
    for i in range(copies):
        g = torch.Generator(device="cuda").manual_seed(1234 + i)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g)
        if dtype == "fp8":
            a = a.to(torch.float8_e4m3fn)
            w = w.to(torch.float8_e4m3fn)
        pairs.append((a, w))
    return pairs


def gemm_fn(torch, dtype):
    if dtype == "bf16":
        return lambda a, w: torch.matmul(a, w.t())
    one = torch.ones((), device="cuda", dtype=torch.float32)
    return lambda a, w: torch._scaled_mm(a, w.t(), scale_a=one, scale_b=one,
                                         out_dtype=torch.bfloat16)


def check(torch, fn, a, w):
    """Relative error of a few output rows against float32."""
    c = fn(a, w)
    rows = min(8, a.shape[0])
    ref = a[:rows].float() @ w.float().t()
    err = (c[:rows].float() - ref).norm() / ref.norm().clamp_min(1e-30)
    return float(err)


def time_shape(torch, dtype, m, n, k):
    b = 1 if dtype == "fp8" else 2
    operand = b * (m * k + n * k)
    copies = max(1, min(64, math.ceil(L2_FLUSH / operand)))
    pairs = make(torch, dtype, m, n, k, copies)
    fn = gemm_fn(torch, dtype)
    err = check(torch, fn, *pairs[0])
    flops = 2.0 * m * n * k
    # Enough GEMMs per replay for ~2 ms, at least one pass over the copies.
    est = max(flops / 700e12, operand / 4e12, 5e-6)
    reps = max(copies, min(4096, math.ceil(2e-3 / est)))
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for i in range(3):
            fn(*pairs[i % copies])
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(reps):
            fn(*pairs[i % copies])
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(5 if QUICK else 15):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        graph.replay()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e-3 / reps)
    del graph, pairs
    torch.cuda.empty_cache()
    med = statistics.median(times)
    return {"dtype": dtype, "M": m, "N": n, "K": k, "s": med, "min_s": min(times),
            "max_s": max(times), "tflops": flops / med / 1e12, "reps": reps,
            "copies": copies, "rel_err": err}


def run_timings():
    import torch
    p = torch.cuda.get_device_properties(0)
    info = {"date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "torch": torch.__version__, "cuda": torch.version.cuda, "gpu": p.name,
            "sms": p.multi_processor_count, "l2_bytes": getattr(p, "L2_cache_size", None),
            "nvidia_smi_before": smi(),
            "method": "CUDA graph of reps GEMMs cycling through >= 1 GiB of input copies "
                      "(cold operands); median of 15 replays / reps; B is an [N,K] weight "
                      "passed transposed; fp8 = torch._scaled_mm e4m3, per-tensor scale 1, bf16 out"}
    rows = []
    plan = [("bf16", s) for s in SHAPES_LARGE + SHAPES_DECODE] + \
           [("fp8", s) for s in FP8_LARGE + FP8_DECODE]
    for dtype, (m, n, k) in plan:
        try:
            r = time_shape(torch, dtype, m, n, k)
            log(f"{dtype} {m}x{n}x{k}: {r['s'] * 1e6:.2f} us, {r['tflops']:.1f} TFLOP/s, "
                f"err {r['rel_err']:.2e}, reps {r['reps']}, copies {r['copies']}")
            if r["rel_err"] > (0.1 if dtype == "fp8" else 0.02):
                r["error"] = "result check failed"
            rows.append(r)
        except Exception as e:  # noqa: BLE001
            log(f"{dtype} {m}x{n}x{k}: FAILED {e!r}")
            traceback.print_exc()
            rows.append({"dtype": dtype, "M": m, "N": n, "K": k, "error": repr(e)})
            torch.cuda.empty_cache()
    info["nvidia_smi_after"] = smi()
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "h200-gemm.json")
    with open(path, "w") as f:
        json.dump({"env": info, "gemm": rows}, f, indent=1)
    log(f"wrote {path}")


def run_probe():
    import torch
    order = []
    for dtype, (m, n, k) in PROBE:
        pairs = make(torch, dtype, m, n, k, 1)
        fn = gemm_fn(torch, dtype)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(f"gemm {dtype} {m}x{n}x{k}")
        fn(*pairs[0])
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        order.append(f"{dtype} {m}x{n}x{k}")
        del pairs
        torch.cuda.empty_cache()
    log("PROBE ORDER:")
    for o in order:
        log("  " + o)


if __name__ == "__main__":
    if sys.argv[1:] == ["probe"]:
        run_probe()
    else:
        run_timings()

"""The same GEMM back to back, eagerly from Python and replayed from a CUDA
graph (issue 17).

    python3 validation/probes/gemm_launch_h200.py OUTDIR     # about a minute

validation/results/2026-12-02-h200/h200-gemm-interleave.json: the 2048 x 28672 x 4096 bf16 GEMM took
708-714 us a call replayed from a CUDA graph (CUDA events, no profiler),
611 us under torch.profiler, and about 620 us eagerly. Here each shape runs
both ways, without the profiler, over 4 weight copies: eagerly, 20 calls of
warm-up and then 40 calls between two CUDA events; and as a CUDA graph of
10 calls, replayed for 0.3 s and then 5 replays between two events. Then
the same, the graph's replays one at a time with a host synchronisation
between them (so the graph's first kernel starts on an idle GPU). bf16
(`a @ w.t()`) and fp8 (`torch._scaled_mm`, e4m3).

Writes OUTDIR/gemm-launch.json.
"""

import json
import os
import sys
import time

import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else "gemm-launch-out"
FP8 = torch.float8_e4m3fn


def ev(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e-3


def main():
    os.makedirs(OUT, exist_ok=True)
    one = torch.ones((), device="cuda")
    rows = []
    shapes = [("bf16", 2048, 6144, 4096), ("bf16", 2048, 4096, 4096), ("bf16", 2048, 28672, 4096),
              ("bf16", 2048, 4096, 14336), ("bf16", 8192, 28672, 4096), ("bf16", 8192, 8192, 8192),
              ("bf16", 512, 14336, 4096), ("fp8", 2048, 28672, 4096), ("fp8", 2048, 4096, 14336)]
    for dtype, m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02 for _ in range(4)]
        if dtype == "fp8":
            a = a.to(FP8)
            ws = [w.to(FP8) for w in ws]

            def call(i):
                return torch._scaled_mm(a, ws[i % 4].t(), scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16)
        else:
            def call(i):
                return a @ ws[i % 4].t()
        flops = 2.0 * m * n * k
        for i in range(20):
            call(i)
        eager = ev(lambda: [call(i) for i in range(40)]) / 40
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for i in range(10):
                call(i)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for i in range(10):
                call(i)
        t0 = time.time()
        while time.time() - t0 < 0.3:
            g.replay()
        graph = ev(lambda: [g.replay() for _ in range(5)]) / 50
        synced = []
        for _ in range(5):
            torch.cuda.synchronize()
            synced.append(ev(g.replay) / 10)
        for i in range(20):
            call(i)
        eager2 = ev(lambda: [call(i) for i in range(40)]) / 40
        r = dict(dtype=dtype, m=m, n=n, k=k, flops=flops, eager_s=eager, graph_s=graph,
                 graph_synced_s=sorted(synced)[2], eager_after_s=eager2)
        rows.append(r)
        print(f"{dtype} {m}x{n}x{k}: eager {eager * 1e6:.1f} us ({flops / eager / 1e12:.0f} TFLOP/s), "
              f"graph {graph * 1e6:.1f} us ({flops / graph / 1e12:.0f}), graph synced "
              f"{r['graph_synced_s'] * 1e6:.1f} us, eager again {eager2 * 1e6:.1f} us", flush=True)
        del g, ws, a
        torch.cuda.empty_cache()
    with open(os.path.join(OUT, "gemm-launch.json"), "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__, gemm=rows),
                  f, indent=1)


if __name__ == "__main__":
    main()

"""Back-to-back GEMMs against GEMMs between memory-bound kernels (issue 17).

    python3 validation/probes/gemm_interleave_h200.py OUTDIR     # under a minute

The gate/up GEMM of a Llama-3-8B prefill at S = 2,048 (2048 x 28672 x
4096) took 611 us in the profiled forward and 677 us a call in a CUDA graph
of back-to-back calls (validation/results/2026-12-02-h200/h200-gemm-data.json). Three CUDA graphs,
each warmed for 0.3 s and then replayed 10 times (CUDA events): (a) 10 calls
back to back, (b) 10 calls each followed by the forward's SiLU and product
on its output, (c) that SiLU and product alone 10 times; (b) - (c) over 10
is a GEMM's time between memory-bound kernels. Then (a) and (b) replayed
once each under torch.profiler, for each kernel's own duration.

Writes OUTDIR/gemm-interleave.json.
"""

import json
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

OUT = sys.argv[1] if len(sys.argv) > 1 else "gemm-interleave-out"


def graph(body):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        body()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        body()
    return g


def timed(g):
    t0 = time.time()
    while time.time() - t0 < 0.3:
        g.replay()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(10):
        g.replay()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e-3 / 10


def durations(g):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        g.replay()
        torch.cuda.synchronize()
    return [(e.name[:60], e.device_time * 1e-6) for e in prof.events()
            if e.device_type == torch.autograd.DeviceType.CUDA]


def main():
    os.makedirs(OUT, exist_ok=True)
    bf = dict(device="cuda", dtype=torch.bfloat16)
    m, n, k = 2048, 28672, 4096
    a = torch.randn(m, k, **bf)
    ws = [torch.randn(n, k, **bf) * 0.02 for _ in range(4)]
    out = torch.empty(m, n, **bf)

    def act():
        g, u = out.chunk(2, -1)
        return F.silu(g) * u

    ga = graph(lambda: [a @ ws[i % 4].t() for i in range(10)])

    def inter():
        for i in range(10):
            torch.matmul(a, ws[i % 4].t(), out=out)
            act()
    gb = graph(inter)
    gc = graph(lambda: [act() for _ in range(10)])
    ta, tb, tc = timed(ga), timed(gb), timed(gc)
    res = dict(m=m, n=n, k=k, back_to_back_s=ta / 10, interleaved_graph_s=tb / 10,
               elementwise_alone_s=tc / 10, gemm_between_s=(tb - tc) / 10)
    res["profiled_back_to_back"] = durations(ga)
    res["profiled_interleaved"] = durations(gb)
    gemm_a = [d for nm, d in res["profiled_back_to_back"] if "nvjet" in nm]
    gemm_b = [d for nm, d in res["profiled_interleaved"] if "nvjet" in nm]
    print(f"events: back to back {ta / 10 * 1e6:.1f} us a GEMM; interleaved {tb / 10 * 1e6:.1f} us "
          f"a pair, elementwise alone {tc / 10 * 1e6:.1f} us, so a GEMM between them "
          f"{(tb - tc) / 10 * 1e6:.1f} us", flush=True)
    print(f"profiler: back to back {[round(d * 1e6, 1) for d in gemm_a]}", flush=True)
    print(f"profiler: interleaved {[round(d * 1e6, 1) for d in gemm_b]}", flush=True)
    with open(os.path.join(OUT, "gemm-interleave.json"), "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__, **res), f,
                  indent=1)


if __name__ == "__main__":
    main()

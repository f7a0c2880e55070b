"""Eager host paths at the serving shapes (issue 17, eager fp8 decode).

    python3 validation/probes/eager_probe.py OUT.json   # under a minute on an H200

Interleaves eager Llama-3-8B decode steps in bf16 and fp8 (serving_fidelity.py's
forward, B = 1, T = 1024) four times each, to see the host path's drift within
one process, with their CUDA-graph replays; and times back to back from Python,
at the decode shapes (M = 1, the QKV and down projections), one projection as
the forward calls it: bf16 `x @ w.t()`, bf16 `torch.addmm`, fp8 cast then
`torch._scaled_mm`, `torch._scaled_mm` alone, the cast alone. Wall clock over
N calls after a synchronise, divided by N.
"""

import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "validation"))
import serving_fidelity as sf  # noqa: E402


def per_call(fn, n=1000):
    for _ in range(30):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t) / n)
    return statistics.median(out)


def main():
    sf.probe_pad()
    res = dict(method=__doc__, torch=torch.__version__, calls={}, steps=[])
    bf = dict(device="cuda", dtype=torch.bfloat16)
    one = torch.ones((), device="cuda")
    for n, k in ((6144, 4096), (4096, 14336), (256, 4096)):
        x = torch.randn(1, k, **bf)
        r = torch.randn(1, n, **bf)
        w = torch.randn(n, k, **bf)
        w8 = w.to(sf.FP8)
        x8 = x.to(sf.FP8)
        for name, fn in (("matmul_bf16", lambda: x @ w.t()),
                         ("addmm_bf16", lambda: torch.addmm(r, x, w.t())),
                         ("lin_fp8", lambda: torch._scaled_mm(x.to(sf.FP8), w8.t(), scale_a=one,
                                                              scale_b=one, out_dtype=torch.bfloat16)),
                         ("scaled_mm_fp8", lambda: torch._scaled_mm(x8, w8.t(), scale_a=one,
                                                                    scale_b=one, out_dtype=torch.bfloat16)),
                         ("cast_fp8", lambda: x.to(sf.FP8))):
            t = per_call(fn)
            res["calls"][f"{name} 1x{n}x{k}"] = t
            print(f"{name} 1x{n}x{k}: {t * 1e6:.1f} us", flush=True)
    models = {d: sf.Model("llama-3-8b", d) for d in ("bf16", "fp8")}
    kc, vc = sf.caches(models["bf16"], 1, 1024)
    tok = torch.randint(0, 128256, (1,), device="cuda")
    pos = torch.tensor([1023], device="cuda")
    graphs = {}
    for rnd in range(4):
        for d, M in models.items():
            step = lambda: M.decode_step(tok, kc, vc, pos)
            step()
            e = sf.ev_time(step, 10)
            if d not in graphs:
                graphs[d] = sf.graph_of(step)
            g = sf.ev_time(graphs[d].replay, 10)
            res["steps"].append(dict(round=rnd, dtype=d, eager_s=e[0], eager_min_s=e[1], graph_s=g[0]))
            print(f"round {rnd} {d}: eager {e[0] * 1e3:.2f} ms (min {e[1] * 1e3:.2f}) graph {g[0] * 1e3:.2f}",
                  flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

"""Does a bf16 GEMM's time on the H200 depend on its operands' values? (issue 17)

    python3 validation/probes/gemm_data_h200.py OUTDIR     # about 1 minute

The forward of validation/serving_fidelity.py ran its prefill GEMMs about
10% faster than validation/calibrate.py's rows of the same shapes at the same
SM clock (validation/results/2026-12-02-h200/h200-prefill-ops.json). The two differ in their data:
calibrate's operands are torch.randn (standard normal), the forward's
weights torch.randn x 0.02 and its activations an RMSNorm's output. Here
each of the forward's 2k-prefill GEMM shapes runs on four operand sets:
standard normal (calibrate's), weights x 0.02 (the forward's), both x 0.02,
and zeros; each after 2 s of rest, as a CUDA graph of back-to-back calls
over 4 weight copies replayed for about 0.15 s (calibrate's protocol), the
kernel's name from torch.profiler, the SM clock and power nvidia-smi read.

Writes OUTDIR/gemm-data.json.
"""

import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
for p in (HERE, os.path.join(HERE, "..")):
    sys.path.insert(0, os.path.abspath(p))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import common as ph  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "gemm-data-out"


def window(t0, t1):
    w = [x for x in ph.samples if t0 - 0.05 <= x[0] <= t1 + 0.05]
    pw = [float(x[2]) for x in w if x[2].replace(".", "").isdigit()]
    sm = [float(x[3]) for x in w if x[3].replace(".", "").isdigit()]
    return dict(samples=len(w), power_mean_w=statistics.fmean(pw) if pw else None,
                sm_clock_mean_mhz=statistics.fmean(sm) if sm else None)


def ev_time(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e-3


def main():
    os.makedirs(OUT, exist_ok=True)
    proc = ph.sampler()
    bf = dict(device="cuda", dtype=torch.bfloat16)
    rows = []
    shapes = [(2048, 6144, 4096), (2048, 4096, 4096), (2048, 28672, 4096), (2048, 4096, 14336),
              (8192, 8192, 8192)]
    sets = {
        "randn": (1.0, 1.0),
        "weights_x0.02": (1.0, 0.02),
        "both_x0.02": (0.02, 0.02),
        "zeros": (0.0, 0.0),
    }
    for m, n, k in shapes:
        flops = 2.0 * m * n * k
        for label, (sa, sw) in sets.items():
            a = torch.randn(m, k, **bf) * sa
            ws = [torch.randn(n, k, **bf) * sw for _ in range(4)]
            calls = max(4, int(2e-3 / (flops / 700e12)) + 1)
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for i in range(calls):
                    a @ ws[i % 4].t()
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for i in range(calls):
                    a @ ws[i % 4].t()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                a @ ws[0].t()
                torch.cuda.synchronize()
            names = sorted({e.name[:100] for e in prof.events()
                            if e.device_type == torch.autograd.DeviceType.CUDA})
            torch.cuda.synchronize()
            time.sleep(2.0)
            reps = max(3, int(0.15 / (calls * flops / 700e12)))
            t0 = time.time()
            t = sum(ev_time(g.replay) for _ in range(reps)) / (reps * calls)
            t1 = time.time()
            r = dict(m=m, n=n, k=k, data=label, a_scale=sa, w_scale=sw, seconds=t,
                     tflops=flops / t / 1e12, calls=reps * calls, kernels=names, **window(t0, t1))
            rows.append(r)
            print(f"{m}x{n}x{k} {label:14s} {t * 1e6:8.1f} us {r['tflops']:6.0f} TFLOP/s "
                  f"{r['sm_clock_mean_mhz']} MHz {r['power_mean_w']} W {names}", flush=True)
            del g, ws, a
            torch.cuda.empty_cache()
    proc.terminate()
    with open(os.path.join(OUT, "gemm-data.json"), "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__, gemm=rows),
                  f, indent=1)


if __name__ == "__main__":
    main()

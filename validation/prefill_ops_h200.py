"""A Llama-3-8B prefill's kernels one by one, and its GEMMs at the idle
board's clock and back to back (issue 17: `prefill --achievable` priced as
the measured forward runs).

    python3 validation/prefill_ops_h200.py OUTDIR     # about 2 minutes

- kernels: for bf16 at S = 512, 2,048 and 8,192 and fp8 at 2,048, one eager
  prefill of validation/serving_fidelity.py's Model under torch.profiler
  after 3 s of rest: every CUDA kernel and copy with its duration, summed by
  name (count, seconds), and the kernels of the second layer in launch
  order (name, duration), so each can be matched to the forward's
  operation;
- gemm: the forward's bf16 GEMM shapes at M = 2,048 and 8,192 (and
  8192^3), each after 3 s of rest: three single calls on fresh weights
  (CUDA events, the median: the idle board's clock), then a CUDA graph of
  back-to-back calls replayed for 0.15 s as validation/calibrate.py times
  its rows, then the same after 4 s of such replays; the SM clock and
  power nvidia-smi read over each.

Writes OUTDIR/prefill-ops.json.
"""

import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
for p in (HERE, os.path.join(HERE, "..", "..", "validation")):
    sys.path.insert(0, os.path.abspath(p))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import common as ph  # noqa: E402
import serving_fidelity as sf  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "prefill-ops-out"


def window(t0, t1):
    w = [x for x in ph.samples if t0 - 0.05 <= x[0] <= t1 + 0.05]
    pw = [float(x[2]) for x in w if x[2].replace(".", "").isdigit()]
    sm = [float(x[3]) for x in w if x[3].replace(".", "").isdigit()]
    return dict(samples=len(w), power_mean_w=statistics.fmean(pw) if pw else None,
                sm_clock_mean_mhz=statistics.fmean(sm) if sm else None)


def kernels_of(fn, layers):
    torch.cuda.synchronize()
    t0 = time.time()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    t1 = time.time()
    ev = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    ev.sort(key=lambda e: e.time_range.start)
    by = {}
    for e in ev:
        n = e.name[:160]
        c, s = by.get(n, (0, 0.0))
        by[n] = (c + 1, s + e.device_time * 1e-6)
    # The second layer: from the second QKV-sized GEMM on, one layer's worth.
    per_layer = len(ev) // layers
    seq = [(e.name[:160], e.device_time * 1e-6) for e in ev[per_layer:3 * per_layer]]
    total = sum(e.device_time for e in ev) * 1e-6
    return dict(kernels=len(ev), device_s=total, wall_s=t1 - t0,
                by_name=sorted(([n, c, s] for n, (c, s) in by.items()), key=lambda r: -r[2]),
                sequence=seq, **window(t0, t1))


def ev_time(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e-3


def gemm_rows():
    out = []
    bf = dict(device="cuda", dtype=torch.bfloat16)
    shapes = [(2048, 6144, 4096), (2048, 4096, 4096), (2048, 28672, 4096), (2048, 4096, 14336),
              (8192, 28672, 4096), (8192, 4096, 14336), (8192, 8192, 8192)]
    for m, n, k in shapes:
        a = torch.randn(m, k, **bf)
        ws = [torch.randn(n, k, **bf) for _ in range(4)]
        flops = 2.0 * m * n * k
        a @ ws[0].t()
        torch.cuda.synchronize()
        time.sleep(3.0)
        t0 = time.time()
        single = []
        for i in range(3):
            single.append(ev_time(lambda i=i: a @ ws[1 + i].t()))
        t1 = time.time()
        idle = dict(seconds=statistics.median(single), all_s=single, **window(t0, t1))
        calls = max(4, int(2e-3 / (flops / 700e12)) + 1)
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for i in range(calls):
                a @ ws[i % 4].t()
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            for i in range(calls):
                a @ ws[i % 4].t()
        g.replay()
        reps = max(3, int(0.15 / (calls * flops / 700e12)))
        t0 = time.time()
        t = sum(ev_time(g.replay) for _ in range(reps)) / (reps * calls)
        t1 = time.time()
        short = dict(seconds=t, calls=reps * calls, **window(t0, t1))
        t0 = time.time()
        while time.time() - t0 < 4.0:
            g.replay()
        t0 = time.time()
        t = sum(ev_time(g.replay) for _ in range(reps)) / (reps * calls)
        t1 = time.time()
        hot = dict(seconds=t, calls=reps * calls, **window(t0, t1))
        row = dict(m=m, n=n, k=k, flops=flops, idle=idle, graph_short=short, graph_hot=hot)
        out.append(row)
        print(f"gemm {m}x{n}x{k}: idle {flops / idle['seconds'] / 1e12:.0f} TFLOP/s at "
              f"{idle['sm_clock_mean_mhz']} MHz; graph {flops / short['seconds'] / 1e12:.0f} at "
              f"{short['sm_clock_mean_mhz']}; hot {flops / hot['seconds'] / 1e12:.0f} at "
              f"{hot['sm_clock_mean_mhz']} MHz {hot['power_mean_w']} W", flush=True)
        del g, ws, a
        torch.cuda.empty_cache()
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    proc = ph.sampler()
    sf.probe_pad()
    torch.manual_seed(0)
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__, prefill=[])
    for dtype in ("bf16", "fp8"):
        M = sf.Model("llama-3-8b", dtype)
        for S in ((512, 2048, 8192) if dtype == "bf16" else (2048,)):
            tok = torch.randint(0, M.m["V"], (1, S), device="cuda")
            M.prefill(tok)
            M.prefill(tok)
            torch.cuda.synchronize()
            time.sleep(3.0)
            r = kernels_of(lambda: M.prefill(tok), M.m["L"])
            res["prefill"].append(dict(model="llama-3-8b", dtype=dtype, batch=1, prompt=S, **r))
            print(f"prefill {dtype} S={S}: {r['kernels']} kernels, {r['device_s'] * 1e3:.2f} ms "
                  f"at {r['sm_clock_mean_mhz']} MHz", flush=True)
            for n, c, s in r["by_name"][:40]:
                print(f"  {c:5d} {s * 1e3:8.3f} ms  {n[:110]}", flush=True)
        del M
        torch.cuda.empty_cache()
    res["gemm"] = gemm_rows()
    proc.terminate()
    with open(os.path.join(OUT, "prefill-ops.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

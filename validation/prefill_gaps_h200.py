"""The gaps between an eager prefill's kernels on the GPU (issue 17).

    python3 validation/prefill_gaps_h200.py OUTDIR     # under a minute

Llama-3-8B bf16 (validation/serving_fidelity.py's Model), S = 2,048, batch
1: 5 prefills back to back timed by CUDA events (the way
serving_fidelity.py times its rows, without the profiler), then one under
torch.profiler with each kernel's start and end: the idle time between one
kernel's end and the next one's start, summed and per kernel, beside the
summed durations and the first-to-last span; then 5 more timed prefills.

Writes OUTDIR/prefill-gaps.json.
"""

import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for p in (HERE, os.path.join(HERE, "..", "..", "validation")):
    sys.path.insert(0, os.path.abspath(p))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import serving_fidelity as sf  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "prefill-gaps-out"


def ev(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e-3


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    M = sf.Model("llama-3-8b", "bf16")
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__, runs=[])
    for S in (2048, 8192):
        tok = torch.randint(0, M.m["V"], (1, S), device="cuda")
        for _ in range(3):
            M.prefill(tok)
        before = [ev(lambda: M.prefill(tok)) for _ in range(5)]
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            M.prefill(tok)
            torch.cuda.synchronize()
        ks = sorted((e.time_range.start, e.time_range.end, e.name[:60]) for e in prof.events()
                    if e.device_type == torch.autograd.DeviceType.CUDA)
        after = [ev(lambda: M.prefill(tok)) for _ in range(5)]
        gaps = [max(0.0, (ks[i + 1][0] - ks[i][1]) * 1e-6) for i in range(len(ks) - 1)]
        busy = sum((e - s) for s, e, _ in ks) * 1e-6
        span = (ks[-1][1] - ks[0][0]) * 1e-6
        big = sorted(((g, ks[i][2], ks[i + 1][2]) for i, g in enumerate(gaps)), reverse=True)[:10]
        r = dict(prompt=S, timed_before_s=before, timed_after_s=after, kernels=len(ks),
                 busy_s=busy, span_s=span, gaps_s=sum(gaps),
                 gap_median_s=statistics.median(gaps), largest_gaps=big)
        res["runs"].append(r)
        print(f"S={S}: timed {statistics.median(before) * 1e3:.2f} / "
              f"{statistics.median(after) * 1e3:.2f} ms; profiled {len(ks)} kernels busy "
              f"{busy * 1e3:.2f} ms, span {span * 1e3:.2f} ms, gaps {sum(gaps) * 1e3:.2f} ms "
              f"(median {statistics.median(gaps) * 1e6:.2f} us); largest {big[:3]}", flush=True)
    with open(os.path.join(OUT, "prefill-gaps.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

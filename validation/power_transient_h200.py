"""How far a short timing protocol is from the settled clock (docs/validation.md,
"The power limit over a step"): a Llama-3-8B bf16 prefill of 2,048 tokens,
plain and with validation/power_mix_h200.py's 140k-cycle spin after each
attention block and MLP (a TP 2 forward's all-reduce gaps on one GPU), each
timed eagerly as validation/multi_gpu.py times its TP prefills (after 3 s of
rest: a check call, a warm-up call, then the median of 5 calls timed by CUDA
events, a synchronise before each) and then for 6 s back to back (the
settled median of the calls after the first 2 s).

    python3 validation/power_transient_h200.py OUTDIR     # about 1 minute
"""

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import power_mix_h200 as pm  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "power-transient-out"


def ev(fn):
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e-3


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    M = pm.Gapped("llama-3-8b", "bf16")
    tok = torch.randint(0, M.m["V"], (1, 2048), device="cuda")
    rows = []
    for gap in (0, pm.GAP1):
        M.gap = gap
        M.prefill(tok)
        torch.cuda.synchronize()
        time.sleep(3.0)
        assert torch.isfinite(M.prefill(tok).float()).all()
        M.prefill(tok)
        short = [ev(lambda: M.prefill(tok)) for _ in range(5)]
        t0, loop = time.time(), []
        while time.time() - t0 < 6.0:
            loop.append((time.time() - t0, ev(lambda: M.prefill(tok))))
        settled = [t for at, t in loop if at >= 2.0]
        rows.append(dict(gap_cycles=gap, short_s=short, short_median_s=statistics.median(short),
                         settled_median_s=statistics.median(settled), settled_calls=len(settled)))
        print(f"gap {gap}: short {[round(x * 1e3, 2) for x in short]} ms, median "
              f"{statistics.median(short) * 1e3:.2f}; settled {statistics.median(settled) * 1e3:.2f} ms",
              flush=True)
    with open(os.path.join(OUT, "power-transient.json"), "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__, rows=rows), f,
                  indent=1)


if __name__ == "__main__":
    main()

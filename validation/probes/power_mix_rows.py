"""The committed H200 power loops as calibration rows (no GPU needed).

    python3 validation/probes/power_mix_rows.py > validation/results/2026-12-02-h200/calibrate-h200-power.csv

Turns the loops of validation/results/2026-12-02-h200/h200-power-mix-summary.json (power_mix_h200.py,
one lease, 2026-12-02), the ones hardware/h200-sxm.toml's
`[achievable.power-limit]` figures were fitted on by hand, into the rows
calibrate.py's power phase writes (docs/data-schemas.md, "Calibration
measurements"), so `roofline calibrate` fits them without a hand in it
(tests/calibrate.rs). Per loop: `seconds` the settled call, `burst_seconds`
the first call, both per operation (a replay held 20 spins, 10 GEMMs, or 64
or 4 attention calls); power and SM clock the loop's means after 2 s.

- power_wait: the `sleep` phase (spin kernels of 1,000,000 cycles);
- power_gemm: `gemm_gap0` to `gemm_gap3`; `wait_seconds` is each spin's
  cycles at the `sleep` phase's measured time a cycle, as calibrate.py
  computes it;
- power_attention: `attn_s2048`, `attn_s8192`, `attn_s16384`;
- power_stream: the `hbm_copy` phase of validation/results/2026-12-01-h200/h200-power-summary.json
  (power_h200.py, 2026-12-01; 2 GiB copies, bytes read plus written): the
  mix run had no memory-bound loop. Its summary keeps the rate, not the
  first call, so `burst_seconds` is the settled call.

The prefill loops are not rows: they are forwards, not one class of work.
The driver is the one calibrate-h200.csv recorded on the same machine.
"""

import csv
import json
import os
import sys

# validation/probes/ -> the repository root, so `validation` imports.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation import manifest  # noqa: E402
from validation.common import COLUMNS  # noqa: E402

ENV = dict(device="NVIDIA H200", driver="580.159.04", torch="2.11.0+cu130")
HOW = ("from validation/results/{src} phase {phase} (converted by validation/probes/power_mix_rows.py): "
       "seconds the settled call, burst_seconds the first")


def first_sample_date(samples):
    with open(manifest.path(samples)) as f:
        next(f)
        stamp = next(f).split(",")[1]  # 2026/12/02 00:01:33.814
    day, clock = stamp.split()
    return day.replace("/", "-") + "T" + clock.split(".")[0] + "Z"


def main():
    mix = json.load(open(manifest.path("h200-power-mix-summary.json")))
    old = json.load(open(manifest.path("h200-power-summary.json")))
    by = {p["phase"]: p for p in mix["phases"]}
    date = first_sample_date("h200-power-mix-samples.csv")
    w = csv.DictWriter(sys.stdout, COLUMNS, lineterminator="\n")
    w.writeheader()

    def row(p, src, **kw):
        r = {c: "" for c in COLUMNS}
        r.update(ENV, date=date, launch="graph", power_w=f"{p['power_mean_w']:.6e}",
                 sm_clock_mhz=f"{p['sm_clock_mean_mhz']:.6e}",
                 note=HOW.format(src=manifest.entry(src)["path"], phase=p["phase"]))
        for k, v in kw.items():
            r[k] = f"{v:.6e}" if isinstance(v, float) else v
        w.writerow(r)

    s = by["sleep"]
    spins = 20
    per_cycle = s["call_s"] / s["cycles_per_call"]
    row(s, "h200-power-mix-summary.json", operation="power_wait", dtype="fp32",
        repeats=s["settled_calls"] * spins, seconds=s["call_s"] / spins,
        burst_seconds=s["first_calls_s"][0] / spins)
    for i in range(4):
        p = by[f"gemm_gap{i}"]
        n = p["shape"][0]
        per = p["gemms_per_call"]
        row(p, "h200-power-mix-summary.json", operation="power_gemm", m=n, n=n, k=n,
            flops=p["flops_per_call"] / per, dtype="bf16", repeats=p["settled_calls"] * per,
            seconds=p["call_s"] / per, burst_seconds=p["first_calls_s"][0] / per,
            wait_seconds=p["gap_cycles"] * per_cycle)
    for S in (2048, 8192, 16384):
        p = by[f"attn_s{S}"]
        reps = p["calls_per_replay"]
        row(p, "h200-power-mix-summary.json", operation="power_attention", batch=1, seq=S,
            heads=32, kv_heads=8, head_dim=128, flops=p["causal_flops_per_call"] / reps,
            dtype="bf16", repeats=p["settled_calls"] * reps, seconds=p["call_s"] / reps,
            burst_seconds=p["first_calls_s"][0] / reps)
    c = next(p for p in old["phases"] if p["phase"] == "hbm_copy")
    t = c["bytes_per_copy"] / c["rate"]
    row(c, "h200-power-summary.json", operation="power_stream", bytes=c["bytes_per_copy"],
        dtype="fp32", repeats=round(c["timed_s"] / t), seconds=t, burst_seconds=t,
        date=first_sample_date("h200-power-samples.csv"))


if __name__ == "__main__":
    main()

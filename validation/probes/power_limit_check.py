"""The power limit over a step (docs/formulas.md, "Achievable: the power
limit over a step") against the loops of validation/power_mix_h200.py, with
measured burst times as its inputs instead of the model's: each prefill's
kernels by class from validation/prefill_kernels_h200.py's profile at the
idle board's clock (8k and 16k were profiled at 1,825 and 1,745 MHz and are
brought to the burst clock with the class's exponent), the GEMM loops' first
calls. Prints predicted against settled times and clocks. No GPU needed:

    python3 validation/probes/power_limit_check.py
"""

import math
import os
import sys

# validation/probes/ -> the repository root, so `validation` imports.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation import manifest  # noqa: E402

BURST_MHZ = 1980.0
# hardware/h200-sxm.toml
L, PG, PA, BA, PM, PW = 692.8, 960.0, 814.0, 0.88, 677.3, 122.0
BG = math.log(763.9 / 651.0) / math.log(PG / L)
SPACING_S = 1.44e-3  # the 2k prefill's first graph call less its profiled kernels


def solve(g, a, m, w):
    def at(x):
        tg, ta = g * x ** -BG, a * x ** -BA
        t = tg + ta + m + w
        return t, (PG * x * tg + PA * x * ta + PM * m + PW * w) / t
    if at(1.0)[1] <= L:
        return at(1.0)[0], 1.0
    lo, hi = 0.05, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if at(mid)[1] > L else (mid, hi)
    return at(lo)[0], lo


def main():
    mix = {p["phase"]: p for p in manifest.load_json("h200-power-mix-summary.json")["phases"]}
    pk = manifest.load_json("h200-prefill-kernels.json")
    print("| loop | predicted | settled | error | clock predicted | read |")
    print("| --- | --- | --- | --- | --- | --- |")

    def row(name, t, x):
        ph = mix[name]
        print(f"| {name} | {t * 1e3:.2f} ms | {ph['call_s'] * 1e3:.2f} ms | "
              f"{t / ph['call_s'] - 1:+.1%} | {x * BURST_MHZ:.0f} MHz | {ph['sm_clock_mean_mhz']:.0f} MHz |")

    g0 = mix["gemm_gap0"]["first_calls_s"][1]
    for i in range(4):
        ph = mix[f"gemm_gap{i}"]
        # A spin of n cycles lasts n / clock; the clock is the reading.
        spin = ph["gap_cycles"] * ph["gaps_per_call"] / (ph["sm_clock_mean_mhz"] * 1e6)
        row(f"gemm_gap{i}", *solve(g0, 0.0, 0.0, spin))
    for r in pk["prefill"]:
        b = r["burst"]
        k = b["sm_clock_mean_mhz"] / BURST_MHZ
        g = b["seconds"]["gemm"] * k ** BG
        a = b["seconds"]["attention"] * k ** BA
        m = b["seconds"]["other"]
        name = f"prefill_{r['dtype']}_s{r['prompt']}"
        row(name, *solve(g, a, m, SPACING_S))
        if name == "prefill_bf16_s2048":
            for gap in ("gap1", "gap2"):
                ph = mix[f"{name}_{gap}"]
                spin = ph["gap_cycles"] * ph["gaps_per_call"] / (ph["sm_clock_mean_mhz"] * 1e6)
                row(f"{name}_{gap}", *solve(g, a, m, SPACING_S + spin))


main()

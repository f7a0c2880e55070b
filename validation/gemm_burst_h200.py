"""The GEMM burst fraction per precision (`achievable.power-limit.gemm-burst-fraction`)
from the raw data, no GPU needed:

    python3 validation/gemm_burst_h200.py

The per-operation model's GEMM figures are fitted on validation/results/2026-12-01-h200/calibrate-h200.csv:
back-to-back CUDA-graph loops, which the board's power limit already slows. A forward
profiled after 3 s of rest (validation/prefill_ops_h200.py, validation/results/2026-12-02-h200/h200-prefill-ops.json)
runs the same shapes at the burst clock. For each profiled Llama-3-8B prefill this takes
the forward's layer GEMMs (the kernels named nvjet_* that run once or twice a layer, so not
the LM head's one), matches them to their shapes by their place around the attention
kernel in launch order (QKV before it, then the output projection, gate/up and down), and
divides their device time a layer by calibrate's rows of the same shapes and precision.

The fraction is the ratio over the four GEMMs together at S = 2,048, the prompt the power
limit's other figures were checked at, per precision; S = 512 and 8,192 (bf16) are shown
beside it, held out.
"""

import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from validation import manifest  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = {"llama-3-8b": 32}
# Llama-3-8B's layer GEMMs at M tokens, (n, k), in launch order.
SHAPES = {"qkv": (6144, 4096), "o": (4096, 4096), "gate_up": (28672, 4096), "down": (4096, 14336)}


def calibrate():
    rows = {}
    with open(manifest.path("calibrate-h200.csv")) as f:
        for r in csv.DictReader(f):
            if r["operation"] == "gemm" and r["launch"] == "graph":
                rows[(int(r["m"]), int(r["n"]), int(r["k"]), r["dtype"])] = float(r["seconds"])
    return rows


def layer_gemms(p):
    """{op: kernel name} for one layer, from the profiled launch order."""
    seq = [n for n, _ in p["sequence"]]
    attn = next(i for i, n in enumerate(seq) if "sdpa" in n or "flash" in n)
    gemm = [i for i, n in enumerate(seq) if n.startswith("nvjet")]
    before = max(i for i in gemm if i < attn)
    after = [i for i in gemm if i > attn][:3]
    return dict(zip(("qkv", "o", "gate_up", "down"), [seq[i] for i in [before, *after]]))


def main():
    cal = calibrate()
    d = json.load(open(manifest.path("h200-prefill-ops.json")))
    print("| forward | S | clock | profiled GEMMs a layer | calibrate's rows | fraction |")
    print("| --- | --- | --- | --- | --- | --- |")
    out = {}
    for p in d["prefill"]:
        layers, S, dt = LAYERS[p["model"]], p["prompt"], p["dtype"]
        names = layer_gemms(p)
        by = {n: (c, s) for n, c, s in p["by_name"]}
        # Each distinct kernel name once: the output projection and down
        # share one in both precisions.
        prof = sum(by[n][1] for n in set(names.values())) / layers
        kernels = sum(by[n][0] for n in set(names.values()))
        assert kernels == 4 * layers, (S, dt, kernels)
        ref = sum(cal[(S, n, k, dt)] for n, k in SHAPES.values())
        frac = prof / ref
        out[(dt, S)] = frac
        print(f"| {p['model']} {dt} | {S:,} | {p['sm_clock_mean_mhz']:.0f} MHz | "
              f"{prof * 1e6:.1f} us | {ref * 1e6:.1f} us | {frac:.3f} |")
        ops = {}
        for op, n in names.items():
            ops.setdefault(n, []).append(op)
        detail = ", ".join(
            f"{'+'.join(o)} {by[n][1] / layers * 1e6:.1f} us "
            f"({sum(cal[(S, *SHAPES[x], dt)] for x in o) * 1e6:.1f})"
            for n, o in ops.items())
        print(f"|  |  |  | {detail} |  |  |")
    print()
    for dt in ("bf16", "fp8"):
        print(f"{dt}: S = 2,048 gives {out[(dt, 2048)]:.3f}")


if __name__ == "__main__":
    main()

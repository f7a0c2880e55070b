"""The tool's --achievable answer beside published serving throughput
(validation/public/trtllm-llama.json: the dense Llama points of NVIDIA's
TensorRT-LLM performance overview, copied from ../shared/public/ with their
sources; SemiAnalysis InferenceX and MLPerf Inference v6.0 are kept out).

    cargo build && python3 validation/public/compare.py

An offline max-throughput point queues every request at once; the tool's
answer for it: the largest batch B whose weights and KV cache (ISL + OSL
tokens a sequence) fit in each of the point's TP devices, B sequences
prefilled (ISL tokens each) then decoded for OSL steps at the middle
context ISL + OSL / 2:

    output tokens/s per GPU = B x OSL / (prefill(B, ISL) / TP + OSL x step(B, ISL + OSL/2)) / TP

The KV cache is taken as fp8 (an assumption: NVIDIA's FP8 and FP4
checkpoints that these tables serve quantize the KV cache to FP8; the
tables do not say). (`decode --tp` prices the step's all-reduces; `prefill` takes no --tp, so
the batch's prefill is one device's divided by TP, its all-reduces left out.)

Each row prints the point, the tool's answer, the ratio, and the same
answer at speed of light (no --achievable), which must be at or above the
published figure: the last line counts the points it is not.
"""

import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("ROOFLINE", os.path.join(ROOT, "target", "debug", "roofline"))
HW = {"H100-SXM": "h100-sxm", "H200-SXM": "h200-sxm", "B200": "b200", "GB200": "gb200"}
MODEL = {"Llama-3.1-8B-Instruct": "llama-3-8b", "Llama-3.3-70B-Instruct": "llama-3.1-70b"}


MODE = ["--achievable"]


def q(*a):
    out = subprocess.run([BIN, *a, *MODE, "--format", "json"], capture_output=True, text=True)
    if out.returncode:
        return None
    return json.loads(out.stdout)


def prec(p):
    return "fp4" if p.startswith("fp4") else "fp8"


def answer(x):
    hw, m, tp, p = HW[x["gpu"]], MODEL[x["model"]], x["tp"] or 1, prec(x["precision"])
    isl, osl = x["isl"], x["osl"]
    base = ["--model", m, "--hw", hw, "--tp", str(tp), "--dtype", p, "--activations",
            "fp8" if p == "fp4" else p, "--kv-dtype", "fp8"]
    lo, hi = 1, 4096
    fits = lambda b: (r := q("decode", *base, "--batch", str(b), "--context", str(isl + osl))) \
        and r["results"]["fits"]  # noqa: E731
    if not fits(1):
        return None, None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    B = lo
    d = q("decode", *base, "--batch", str(B), "--context", str(isl + osl // 2))
    one = [a for i, a in enumerate(base) if a != "--tp" and (i == 0 or base[i - 1] != "--tp")]
    pf = q("prefill", *one, "--batch", str(B), "--prompt", str(isl), "--force")
    if not d or not pf:
        return None, None
    # prefill takes no --tp: one device's prefill split over TP devices.
    t = pf["results"]["time_s"] / tp + osl * d["results"]["step_time_s"]
    notes = " ".join(d.get("notes", []))
    return B * osl / t / tp, notes


def sol(x):
    """The answer at speed of light (datasheet figures)."""
    global MODE
    MODE = []
    try:
        return answer(x)[0]
    finally:
        MODE = ["--achievable"]


def main():
    pts = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "trtllm-llama.json")))
    print("| model | gpu | prec | TP | ISL/OSL | published tok/s/GPU | --achievable | ratio | speed of light |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    by = {}
    under = []
    for x in pts:
        meas = x["metrics"].get("output_tok_per_s_per_gpu")
        pred, _ = answer(x)
        bound = sol(x)
        if meas and bound is not None and bound < meas:
            under.append(f"{x['model']} {x['gpu']} TP{x['tp']} {x['isl']}/{x['osl']}")
        b = "-" if bound is None else f"{bound:,.0f}"
        if not meas or pred is None:
            print(f"| {x['model']} | {x['gpu']} | {x['precision']} | {x['tp']} | {x['isl']}/{x['osl']} | {meas} | - | - | {b} |")
            continue
        r = pred / meas
        by.setdefault(x["gpu"], []).append(abs(r - 1))
        print(f"| {x['model']} | {x['gpu']} | {x['precision']} | {x['tp']} | {x['isl']}/{x['osl']} | "
              f"{meas:,.0f} | {pred:,.0f} | {r:.2f} | {b} |")
    print()
    print(f"- speed of light below the published figure: {len(under)} of {len(pts)} points"
          + (": " + "; ".join(under) if under else ""))
    for g, v in by.items():
        print(f"- {g}: {len(v)} points, median |error| {statistics.median(v) * 100:.0f}%, worst {max(v) * 100:.0f}%")


if __name__ == "__main__":
    sys.exit(main())

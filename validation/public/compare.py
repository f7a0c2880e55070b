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

    output tokens/s per GPU = B x OSL / (prefill(B, ISL) + OSL x step(B, ISL + OSL/2)) / TP

Each row prints the point, the tool's answer, the ratio and whether the
answer's stated band covers the point.
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


def q(*a):
    out = subprocess.run([BIN, *a, "--achievable", "--format", "json"], capture_output=True, text=True)
    if out.returncode:
        return None
    return json.loads(out.stdout)


def prec(p):
    return "fp4" if p.startswith("fp4") else "fp8"


def answer(x):
    hw, m, tp, p = HW[x["gpu"]], MODEL[x["model"]], x["tp"] or 1, prec(x["precision"])
    isl, osl = x["isl"], x["osl"]
    base = ["--model", m, "--hw", hw, "--tp", str(tp), "--dtype", p, "--activations",
            "fp8" if p == "fp4" else p]
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
    pf = q("prefill", *base, "--batch", str(B), "--prompt", str(isl), "--force")
    if not d or not pf:
        return None, None
    t = pf["results"]["time_s"] + osl * d["results"]["step_time_s"]
    notes = " ".join(d.get("notes", []))
    return B * osl / t / tp, notes


def main():
    pts = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "trtllm-llama.json")))
    print("| model | gpu | prec | TP | ISL/OSL | published tok/s/GPU | --achievable | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    by = {}
    for x in pts:
        meas = x["metrics"].get("output_tok_per_s_per_gpu")
        pred, _ = answer(x)
        if not meas or pred is None:
            print(f"| {x['model']} | {x['gpu']} | {x['precision']} | {x['tp']} | {x['isl']}/{x['osl']} | {meas} | - | - |")
            continue
        r = pred / meas
        by.setdefault(x["gpu"], []).append(abs(r - 1))
        print(f"| {x['model']} | {x['gpu']} | {x['precision']} | {x['tp']} | {x['isl']}/{x['osl']} | "
              f"{meas:,.0f} | {pred:,.0f} | {r:.2f} |")
    print()
    for g, v in by.items():
        print(f"- {g}: {len(v)} points, median |error| {statistics.median(v) * 100:.0f}%, worst {max(v) * 100:.0f}%")


if __name__ == "__main__":
    sys.exit(main())

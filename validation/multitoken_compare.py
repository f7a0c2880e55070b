"""Multi-token steps and MLA decode against the tool, as Markdown tables
(docs/validation.md, "Multi-token steps" and "MLA as it runs"). No GPU:

    cargo build && python3 validation/multitoken_compare.py RESULTS_DIR...

Each RESULTS_DIR holds what validation/multitoken_steps.py and
validation/mla_steps.py wrote on one GPU (multitoken-steps.json,
mla-steps.json); the hardware file is chosen by the device name they
recorded. A verify pass of q tokens is priced as `decode --speculative
0.5,q-1,0` prices its verify forward (the LM head on every new token; a
draft cost of 0 leaves the pass alone); q = 1 as `decode`. The attention
path of each verify step is the one that ran: `lower_right` and
`bool_mask` rows are priced with `engine.attention.masked` set to what
the step measured (see docs/formulas.md, "A multi-token step").
"""

import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("ROOFLINE", os.path.join(ROOT, "target", "debug", "roofline"))
V2L = os.path.join(ROOT, "validation", "models", "deepseek-v2-lite.toml")

# The set that prices each measured mask (none: the engine's default).
MASK_SETS = {"decode": [], "lower_right": [],
             "bool_mask": ["--set", "engine.attention.mask=tensor"]}


def hw_of(device):
    return "h200-sxm" if "H200" in device else "h100-sxm" if "H100" in device else None


def q(*args):
    out = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{' '.join(args)}: {out.stderr}")
    return json.loads(out.stdout)["results"]


def fmt(s):
    return f"{s * 1e3:.2f} ms"


def table(title, rows):
    print(f"### {title}\n")
    print("| point | measured | --achievable | error |")
    print("| --- | --- | --- | --- |")
    errs = []
    for label, meas, pred in rows:
        e = pred / meas - 1
        errs.append(abs(e))
        print(f"| {label} | {fmt(meas)} | {fmt(pred)} | {e * 100:+.1f}% |")
    if errs:
        print(f"\n- {len(errs)} points, median {statistics.median(errs) * 100:.1f}%, "
              f"worst {max(errs) * 100:.1f}%\n")
    return errs


def verify_steps(d, hw, sets):
    rows = []
    for r in d["steps"]:
        if "graph_s" not in r:
            continue
        B, n, T = r["batch"], r["new_tokens"], r["cached"]
        base = ["--hw", hw, "--achievable", "--model", "qwen3-8b", "--batch", str(B),
                "--context", str(T), "--launch", "graph", *sets.get(r["mask"], [])]
        if n == 1:
            p = q("decode", *base)["step_time_s"]
        else:
            p = q("decode", *base, "--speculative", f"0.5,{n - 1},0")["step_time_s"]
        rows.append((f"{r['mask']} B={B} q={n} T={T}", r["graph_s"], p))
    return rows


def mla_decode(d, hw, sets):
    rows = []
    for r in d["decode"]:
        if "graph_s" not in r:
            continue
        p = q("decode", "--hw", hw, "--achievable", "--model", V2L, "--batch", str(r["batch"]),
              "--context", str(r["context"]), "--launch", "graph",
              "--set", "engine.moe.dispatch=grouped", *sets)["step_time_s"]
        rows.append((f"B={r['batch']} T={r['context']}", r["graph_s"], p))
    return rows


def main():
    for folder in sys.argv[1:]:
        mt = os.path.join(folder, "multitoken-steps.json")
        if os.path.exists(mt):
            d = json.load(open(mt))
            hw = hw_of(d["device"])
            table(f"Verify passes, Qwen3-8B bf16, CUDA graph ({d['device']}, "
                  f"{os.path.basename(folder)})", verify_steps(d, hw, MASK_SETS))
        ml = os.path.join(folder, "mla-steps.json")
        if os.path.exists(ml):
            d = json.load(open(ml))
            hw = hw_of(d["device"])
            table(f"MLA decode, DeepSeek-V2-Lite bf16, absorbed as batched GEMMs, CUDA graph "
                  f"({d['device']}, {os.path.basename(folder)})",
                  mla_decode(d, hw, ["--set", "engine.attention.path=eager"]))


if __name__ == "__main__":
    main()

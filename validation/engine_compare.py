"""The tool's MoE steps beside validation/engine_moe_h200.py's measurements
(issue 38): every decode (graph) and prefill (eager and graph) point of
validation/results/2026-12-02-h200/h200-engine-moe-{qwen3,mixtral,deepseek}.json, priced by
`roofline --achievable` with `--set engine.moe.dispatch=grouped` on the
default engine for the grouped rows and the default loop for the loop
rows; the speed of light beside each. The fitted point (Mixtral decode at
batch 64: moe.grouped.weight-stream-fraction) is marked and left out of
the held-out errors.

    python3 validation/engine_compare.py [path/to/roofline]
"""

import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from validation import manifest  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "debug", "roofline")
MODELS = {"qwen3": "tests/data/engines/qwen3-30b-a3b-shape.toml", "mixtral": "mixtral-8x7b",
          "deepseek": "tests/data/engines/deepseek-v3-moe4.toml"}
FIT = {("mixtral", "decode", "grouped", 64)}


def run(args):
    out = subprocess.run([BIN, *args, "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout)["results"]


def main():
    rows = []
    for key, model in MODELS.items():
        d = json.load(open(manifest.path(f"h200-engine-moe-{key}.json")))
        for r in d["decode"]:
            base = ["decode", "--model", model, "--hw", "h200-sxm", "--batch", str(r["batch"]),
                    "--context", str(r["context"])]
            sets = ["--set", "engine.moe.dispatch=grouped"] if r["dispatch"] == "grouped" else []
            t = run(base + ["--achievable", "--launch", "graph"] + sets)["step_time_s"]
            sol = run(base)["step_time_s"]
            rows.append((key, "decode", r["dispatch"], r["batch"], "graph", r["graph_s"], t, sol))
        for r in d["prefill"]:
            base = ["prefill", "--model", model, "--hw", "h200-sxm", "--prompt", str(r["prompt"])]
            sets = ["--set", "engine.moe.dispatch=grouped"]
            for launch, meas in (("eager", r["eager_s"]), ("graph", r["graph_s"])):
                t = run(base + ["--achievable", "--launch", launch] + sets)["time_s"]
                sol = run(base)["time_s"]
                rows.append((key, "prefill", "grouped", r["prompt"], launch, meas, t, sol))
    print(f"{'model':9} {'kind':8} {'dispatch':8} {'B/S':>5} {'launch':6} {'measured':>10} "
          f"{'predicted':>10} {'error':>8} {'sol':>10}")
    groups = {}
    for key, kind, disp, n, launch, meas, t, sol in rows:
        err = t / meas - 1
        fit = (key, kind, disp, n) in FIT
        print(f"{key:9} {kind:8} {disp:8} {n:5d} {launch:6} {meas * 1e3:9.2f}m {t * 1e3:9.2f}m "
              f"{err * 100:+7.1f}% {sol * 1e3:9.2f}m{'  fit' if fit else ''}"
              f"{'  SOL ABOVE' if sol > meas else ''}")
        if not fit:
            groups.setdefault((kind, disp), []).append(abs(err))
    for (kind, disp), e in sorted(groups.items()):
        print(f"{kind} {disp}: {len(e)} held-out points, median {statistics.median(e) * 100:.1f}%, "
              f"worst {max(e) * 100:.1f}%")


if __name__ == "__main__":
    main()

"""Held-out grouped-expert steps on the H100 against `--achievable` with
several hardware files: before (the engine's grouped-GEMM figure, measured
on an H200) and after the H100's own `achievable.grouped-gemm` figures
(docs/validation.md, "Grouped expert GEMMs on the H100").

    python3 validation/grouped_compare.py HW [HW ...]   # ids or paths, e.g.
    git show HEAD~1:hardware/h100-sxm.toml > /tmp/before.toml
    python3 validation/grouped_compare.py /tmp/before.toml h100-sxm my-h100.toml

Points (none in any fit): Qwen3-30B-A3B decode (graph) and prefill (eager,
graph), 2026-12-07-h100b/h100b-engine-moe-qwen3.json; gpt-oss-20b prefill
with FlexAttention (eager), 2026-12-07-h100/h100c-families.json;
DeepSeek-V2-Lite decode at 4,097 keys (graph, eager attention path) and
its expanded prefill (eager), 2026-12-07-h100/h100{a,b}-mla-steps.json.
Error is predicted / measured - 1.
"""

import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("ROOFLINE", os.path.join(ROOT, "target", "debug", "roofline"))
RES = os.path.join(ROOT, "validation", "results")
QWEN = os.path.join(ROOT, "tests", "data", "engines", "qwen3-30b-a3b-shape.toml")
OSS = os.path.join(ROOT, "validation", "models", "gpt-oss-20b-bf16.toml")
V2L = os.path.join(ROOT, "validation", "models", "deepseek-v2-lite.toml")
GROUPED = ["--set", "engine.moe.dispatch=grouped"]


def q(*args):
    out = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{' '.join(args)}: {out.stderr}")
    return json.loads(out.stdout)["results"]


def points():
    """(family, label, measured s, roofline arguments less --hw, result key)."""
    d = json.load(open(os.path.join(RES, "2026-12-07-h100b", "h100b-engine-moe-qwen3.json")))
    for r in d["decode"]:
        if r["dispatch"] != "grouped":
            continue
        yield ("qwen3-30b-a3b decode", f"B={r['batch']} graph", r["graph_s"],
               ["decode", "--model", QWEN, "--batch", str(r["batch"]), "--context",
                str(r["context"]), "--launch", "graph", *GROUPED], "step_time_s")
    for r in d["prefill"]:
        for launch in ("eager", "graph"):
            yield ("qwen3-30b-a3b prefill", f"S={r['prompt']} {launch}", r[f"{launch}_s"],
                   ["prefill", "--model", QWEN, "--prompt", str(r["prompt"]), "--launch", launch,
                    *GROUPED], "time_s")
    f = json.load(open(os.path.join(RES, "2026-12-07-h100", "h100c-families.json")))
    for r in f["prefill"]:
        yield ("gpt-oss-20b prefill (flex)", f"S={r['prompt']} eager", r["eager_s"],
               ["prefill", "--model", OSS, "--prompt", str(r["prompt"]), "--launch", "eager",
                *GROUPED, "--set", "engine.attention.path=flex"], "time_s")
    for tag in ("a", "b"):
        m = json.load(open(os.path.join(RES, "2026-12-07-h100", f"h100{tag}-mla-steps.json")))
        for r in m["decode"]:
            yield ("deepseek-v2-lite decode", f"B={r['batch']} graph (h100{tag})", r["graph_s"],
                   ["decode", "--model", V2L, "--batch", str(r["batch"]), "--context",
                    str(r["context"]), "--launch", "graph", *GROUPED,
                    "--set", "engine.attention.path=eager"], "step_time_s")
        for r in m["prefill"]:
            S = r.get("prompt") or r.get("seq")
            yield ("deepseek-v2-lite prefill", f"S={S} eager (h100{tag})", r["eager_s"],
                   ["prefill", "--model", V2L, "--prompt", str(S), "--launch", "eager",
                    *GROUPED], "time_s")


def main():
    hws = sys.argv[1:] or ["h100-sxm"]
    names = [os.path.basename(h) for h in hws]
    print("| family | point | measured | " + " | ".join(names) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in hws) + " |")
    errs = {}
    for fam, label, meas, args, key in points():
        cells = []
        for h in hws:
            p = q(*args[:1], "--hw", h, "--achievable", *args[1:])[key]
            e = p / meas - 1
            errs.setdefault((fam, h), []).append(abs(e))
            cells.append(f"{p * 1e3:.2f} ({e * 100:+.1f}%)")
        print(f"| {fam} | {label} | {meas * 1e3:.2f} ms | " + " | ".join(cells) + " |")
    print()
    fams = list(dict.fromkeys(f for f, _ in errs))
    print("| family | points | " + " | ".join(f"{n} median / worst" for n in names) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in hws) + " |")
    for fam in fams + ["all"]:
        cells, n = [], 0
        for h in hws:
            e = [x for (f, hh), v in errs.items() if hh == h and (f == fam or fam == "all")
                 for x in v]
            n = len(e)
            cells.append(f"{statistics.median(e) * 100:.1f}% / {max(e) * 100:.1f}%")
        print(f"| {fam} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

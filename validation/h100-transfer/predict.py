"""The H100 transfer test (issue 51): the tool's --achievable answer with the
predicted H100 file (hw/h100-sxm.toml, written by `python3
validation/transfer.py h100-predicted` from the H200's measured figures, the
transfer rule 'Hopper sibling' of docs/formulas.md and one public H100
figure, the Azure BabelStream stream) beside whole steps measured on an H100.

    python3 validation/h100-transfer/predict.py predict > validation/h100-transfer/prediction.json
    python3 validation/h100-transfer/predict.py compare DIR [--hw-dir D]  # tables per family

`predict` answers for the steps of the H200 runs of the same scripts (the
shapes the H100 run repeats) before any H100 was measured; `compare` answers
for the shapes the H100 run actually took (a model that did not fit runs
fewer layers: `--set layers=N`) with the same committed predicted file, and
prints, per family, median and worst of |predicted / measured - 1|.
"""

import json
import math
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.environ.get("ROOFLINE", os.path.join(ROOT, "target", "debug", "roofline"))
RES = os.path.join(ROOT, "validation", "results")
WHAT = {"decode": "measured decode steps by CUDA graph", "decode-eager": "measured decode steps launched eagerly from Python",
        "prefill": "measured prefills and chunks over a cached prefix (eager and graph)", "all": "measured whole steps (decode, prefill, chunks)"}
FULL_LAYERS = {"llama-3-8b": 32, "llama-2-7b": 32, "llama-3.1-70b": 80, "mixtral-8x7b": 32,
               "llama-3.2-1b": 16, "llama-3.2-3b": 28, "qwen3-8b": 36}
# H200 runs of the three step scripts: the shapes predicted before measuring.
H200 = {
    "serving_fidelity.py --clean": "2026-12-01-h200/h200-serving-clean.json",
    "qwen3_decode_h200.py": "2026-12-02-h200/h200-qwen3-decode.json",
    "small_models_h200.py": "2026-12-03-h200/h200-small-models.json",
}


MODE = ["--achievable"]


def q(hw_dir, *args):
    where = ["--hw-dir", hw_dir] if hw_dir else []
    out = subprocess.run([BIN, *args, "--hw", "h100-sxm", *where, *MODE,
                          "--format", "json"], capture_output=True, text=True)
    if out.returncode:
        return None, out.stderr.strip().splitlines()[-1] if out.stderr else "error"
    return json.loads(out.stdout)["results"], None


def prec(r):
    return ["--dtype", "fp8", "--activations", "fp8"] if r.get("dtype") == "fp8" else []


def layers(r):
    n = r.get("layers")
    full = FULL_LAYERS.get(r["model"])
    return ["--set", f"layers={n}"] if n and full and n != full else []


def rows(d, model=None):
    """(family, label, mode, args, measured seconds) of every step in a result file."""
    out = []
    fam = lambda r: f"{r['model']} {r.get('dtype', 'bf16')}"  # noqa: E731
    for r in d.get("decode", []):
        r = dict(r)
        r.setdefault("model", model or d.get("model"))
        base = ["decode", "--model", r["model"], "--batch", str(r["batch"]),
                "--context", str(r["context"]), *prec(r), *layers(r)]
        lab = f"B={r['batch']} T={r['context']}"
        if "graph_s" in r:
            out.append((fam(r), lab, "graph", base + ["--launch", "graph"], r["graph_s"], "step_time_s"))
        if "eager_s" in r:
            out.append((fam(r), lab, "eager", base + ["--launch", "eager"], r["eager_s"], "step_time_s"))
    for r in d.get("prefill", []):
        base = ["prefill", "--model", r["model"], "--batch", str(r["batch"]),
                "--prompt", str(r["prompt"]), "--launch", "eager", "--force", *prec(r), *layers(r)]
        out.append((fam(r), f"B={r['batch']} S={r['prompt']}", "prefill", base, r["time_s"], "time_s"))
    for r in d.get("chunk", []):
        base = ["prefill", "--model", r["model"], "--batch", str(r["batch"]),
                "--prompt", str(r["new_tokens"]), "--context", str(r["cached"]), "--force",
                *prec(r), *layers(r)]
        lab = f"B={r['batch']} q={r['new_tokens']} T={r['cached']}"
        out.append((fam(r), lab, "chunk eager", base + ["--launch", "eager"], r["time_s"], "time_s"))
        if "graph_s" in r:
            out.append((fam(r), lab, "chunk graph", base + ["--launch", "graph"], r["graph_s"], "time_s"))
    return out


def predict(hw_dir):
    res = {"predicted_file": os.path.relpath(os.path.join(hw_dir, "h100-sxm.toml"), ROOT),
           "command": "python3 validation/h100-transfer/predict.py predict", "steps": []}
    for script, path in H200.items():
        d = json.load(open(os.path.join(RES, path)))
        for fam, lab, mode, args, _meas, key in rows(d):
            r, err = q(hw_dir, *args)
            res["steps"].append(dict(script=script, family=fam, point=lab, mode=mode,
                                     command="roofline " + " ".join(args),
                                     predicted_s=r[key] if r else None, error=err))
    json.dump(res, sys.stdout, indent=1)
    print()


def compare(meas_dir, hw_dir, toml_part=None):
    fams = {}
    kinds = {}
    lines = []
    for f in sorted(os.listdir(meas_dir)):
        if not f.endswith(".json"):
            continue
        d = json.load(open(os.path.join(meas_dir, f)))
        if not isinstance(d, dict) or not ("decode" in d or "prefill" in d):
            continue
        for fam, lab, mode, args, meas, key in rows(d):
            if not meas or meas != meas:
                continue
            r, err = q(hw_dir, *args)
            if not r:
                lines.append(f"| {fam} | {lab} | {mode} | {meas * 1e3:.3f} | - | {err} |")
                continue
            p = r[key]
            e = p / meas - 1
            fams.setdefault((fam, mode.split()[0] if mode != "chunk graph" else "chunk"), []).append(abs(e))
            kind = {"graph": "decode", "eager": "decode-eager"}.get(mode, "prefill")
            kinds.setdefault(kind, []).append(e)
            lines.append(f"| {fam} | {lab} | {mode} | {meas * 1e3:.3f} | {p * 1e3:.3f} | {e * 100:+.1f}% |")
    print("| family | point | mode | measured ms | predicted ms | error |")
    print("| --- | --- | --- | --- | --- | --- |")
    print("\n".join(lines))
    print()
    print("| family | kind | points | median error | worst error |")
    print("| --- | --- | --- | --- | --- |")
    allv = []
    for (fam, mode), v in sorted(fams.items()):
        allv += v
        print(f"| {fam} | {mode} | {len(v)} | {statistics.median(v) * 100:.1f}% | {max(v) * 100:.1f}% |")
    if allv:
        print(f"| all | | {len(allv)} | {statistics.median(allv) * 100:.1f}% | {max(allv) * 100:.1f}% |")
    below = [e for v in kinds.values() for e in v if e > 0]
    print(f"\n- predictions above the measurement: {len(below)} of {sum(len(v) for v in kinds.values())}")
    if toml_part:
        kinds["all"] = [e for v in list(kinds.values()) for e in v]
        with open(os.environ["TOML_OUT"], "a") as f:
            for k, v in kinds.items():
                a = sorted(abs(x) for x in v)
                band = a[min(len(a) - 1, math.ceil(0.8 * len(a)) - 1)]
                f.write(f"\n[[entry]]\npart = \"{toml_part}\"\nanswer = \"{k}\"\n"
                        f"what = \"{WHAT[k]} on an H100 ({', '.join(sorted({fm for fm, _ in fams}))})\"\n"
                        f"points = {len(a)}\nmedian-error = {statistics.median(a):.4f}\n"
                        f"worst-error = {a[-1]:.4f}\nband = {band:.4f}\n"
                        f"measurements = \"validation/results/2026-12-07-h100/ (h100-serving-clean.json, "
                        f"h100-qwen3-decode.json, h100-small-models.json)\"\ndate = \"2026-12-07\"\n")


if __name__ == "__main__":
    a = sys.argv[1:]
    hw_dir = os.path.join(HERE, "hw")
    if "--hw-dir" in a:
        i = a.index("--hw-dir")
        hw_dir = a[i + 1]
        del a[i:i + 2]
    if a[:1] == ["predict"]:
        predict(hw_dir)
    elif a[:1] == ["compare"]:
        if "--sol" in a:
            MODE[:] = []
        part = a[a.index("--toml") + 1] if "--toml" in a else None
        compare(a[1], os.path.join(ROOT, "hardware") if "--shipped" in a else hw_dir, part)
    else:
        sys.exit(__doc__)

"""--achievable against every H200 measurement committed here, family by
family, as the Markdown tables of docs/validation.md ("Achievable: the
per-operation model against the H200"). No GPU needed:

    cargo build && python3 validation/achievable_compare.py > /tmp/tables.md

Each row: the query's inputs, the measurement, the prediction, the error
(prediction / measurement - 1) and whether the [achievable] figures were
fitted on it. tests/achievable_validation.rs asserts the bounds.
"""

import csv
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from validation import manifest  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("ROOFLINE", os.path.join(ROOT, "target", "debug", "roofline"))


def q(*args):
    out = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{' '.join(args)}: {out.stderr}")
    return json.loads(out.stdout)["results"]


def prec(r):
    return ["--dtype", "fp8", "--activations", "fp8"] if r.get("dtype") == "fp8" else []


def table(title, rows, note=""):
    print(f"### {title}\n")
    if note:
        print(note + "\n")
    print("| point | measured | --achievable | error | fitted |")
    print("| --- | --- | --- | --- | --- |")
    errs = {"yes": [], "no": []}
    for label, meas, pred, fitted in rows:
        e = pred / meas - 1
        errs[fitted].append(abs(e))
        print(f"| {label} | {fmt(meas)} | {fmt(pred)} | {e * 100:+.1f}% | {fitted} |")
    print()
    for k, v in errs.items():
        if v:
            kind = "fitted on" if k == "yes" else "held out"
            print(f"- {kind}: {len(v)} points, median {statistics.median(v) * 100:.1f}%, "
                  f"worst {max(v) * 100:.1f}%")
    allv = errs["yes"] + errs["no"]
    print(f"- all: {len(allv)} points, median {statistics.median(allv) * 100:.1f}%, "
          f"worst {max(allv) * 100:.1f}%\n")


def fmt(s):
    return f"{s * 1e3:.3g} ms" if s >= 1e-3 else f"{s * 1e6:.3g} us"


def main():
    hw = ["--hw", "h200-sxm", "--achievable"]
    d = json.load(open(manifest.path("h200-serving-fidelity.json")))
    # The serving file's figures were fitted on the microbenchmarks
    # (calibrate-h200.csv), none on these steps: every step is held out.
    for mode, key in (("graph", "graph_s"), ("eager", "eager_s")):
        rows = []
        for r in d["decode"]:
            p = q("decode", *hw, "--model", r["model"], "--batch", str(r["batch"]),
                  "--context", str(r["context"]), "--launch", mode, *prec(r))
            rows.append((f"{r['model']} {r['dtype']} B={r['batch']} T={r['context']}",
                         r[key], p["step_time_s"], "no"))
        table(f"Decode steps, {'CUDA graph' if mode == 'graph' else 'eagerly from Python'}"
              " (h200-serving-fidelity.json)", rows)
    rows = []
    for r in d["prefill"]:
        p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--prompt", str(r["prompt"]), "--launch", "eager", "--force", *prec(r))
        rows.append((f"{r['model']} {r['dtype']} B={r['batch']} S={r['prompt']}",
                     r["time_s"], p["time_s"], "no"))
    table("Prefill, eager (h200-serving-fidelity.json)", rows)
    rows = []
    for r in d["chunk"]:
        p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--prompt", str(r["new_tokens"]), "--context", str(r["cached"]),
              "--launch", "eager", "--force", *prec(r))
        rows.append((f"{r['model']} {r['dtype']} B={r['batch']} q={r['new_tokens']} T={r['cached']}",
                     r["time_s"], p["time_s"], "no"))
    table("Chunks: q new tokens over T cached (`prefill --context`), eager", rows,
          "Chunks of q <= 8 are speculative verify passes; their masked attention runs on "
          "FlashAttention-2's kernel (`achievable.attention.cached-*`). Timed eagerly, the "
          "small ones are bound by the host's path through Python.")
    clean = json.load(open(manifest.path("h200-serving-clean.json")))
    for mode, key, title in (("graph", "graph_s", "Decode steps, CUDA graph"),
                             ("eager", "eager_s", "Decode steps, eagerly from Python")):
        rows = []
        for r in clean["decode"]:
            p = q("decode", *hw, "--model", r["model"], "--batch", str(r["batch"]),
                  "--context", str(r["context"]), "--launch", mode, *prec(r))
            rows.append((f"{r['model']} {r['dtype']} B={r['batch']} T={r['context']}",
                         r[key], p["step_time_s"], "no"))
        table(f"{title}, clean run (h200-serving-clean.json)", rows)
    for mode, key in (("graph", "graph_s"), ("eager", "time_s")):
        rows = []
        for r in clean["chunk"]:
            p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
                  "--prompt", str(r["new_tokens"]), "--context", str(r["cached"]),
                  "--launch", mode, "--force", *prec(r))
            rows.append((f"{r['model']} {r['dtype']} B={r['batch']} q={r['new_tokens']} "
                         f"T={r['cached']}", r[key], p["time_s"], "no"))
        table(f"Chunks, {'CUDA graph' if mode == 'graph' else 'eager'}, clean run "
              "(h200-serving-clean.json)", rows)
    rows = []
    for r in clean["prefill"]:
        p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--prompt", str(r["prompt"]), "--launch", "eager", "--force", *prec(r))
        rows.append((f"{r['model']} {r['dtype']} B={r['batch']} S={r['prompt']}",
                     r["time_s"], p["time_s"], "no"))
    table("Prefill, eager, clean run (h200-serving-clean.json)", rows)
    # Eager steps in the processes of validation/host_probe.py: the host
    # figures come from process c's single-call microbenchmarks, no step.
    for tags, where, note in (
            ("abc", "host probe, the machine calibrated (h200-host-probe-a/b/c.json)",
             "Process and round (a0 = process a, round 0). The host figures "
             "(`achievable.call.*`) were measured on single calls in process c; a and b "
             "are other processes on the same machine."),
            ("d", "host probe, another machine (h200-host-probe-d.json)",
             "A later lease, another machine of the same kind, whose host ran 1.5 to 2.5 "
             "times slower (its own single calls and cycles measure that: "
             "h200-host-probe-d-log.txt); the figures are still process c's."),
            ("e", "host probe, a third lease (h200-host-probe-e.json)",
             "2026-12-01 22:20 UTC, two rounds: the host's single calls ran 1.1 to 1.35 "
             "times process c's in round 0 and its cycles interleaved at 1.38 to 1.46 (c: 1.12 to "
             "1.23; h200-host-probe-e-log.txt); the figures are still process c's.")):
        for kind, title in (("decode", "Decode steps, eagerly from Python"),
                            ("chunk", "Chunks and verify passes, eagerly from Python")):
            rows = []
            for tag in tags:
                hp = json.load(open(manifest.path(f"h200-host-probe-{tag}.json")))
                for r in hp["steps"]:
                    if r["kind"] != kind:
                        continue
                    if kind == "decode":
                        p = q("decode", *hw, "--model", r["model"], "--batch", str(r["batch"]),
                              "--context", str(r["context"]), "--launch", "eager", *prec(r))
                        t, label = p["step_time_s"], f"B={r['batch']} T={r['context']}"
                    else:
                        p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
                              "--prompt", str(r["new_tokens"]), "--context", str(r["cached"]),
                              "--launch", "eager", "--force", *prec(r))
                        t = p["time_s"]
                        label = f"B={r['batch']} q={r['new_tokens']} T={r['cached']}"
                    rows.append((f"{tag}{r['round']} {r['model']} {r['dtype']} {label}",
                                 r["eager_s"], t, "no"))
            table(f"{title}, {where}", rows, note)
    probe = json.load(open(manifest.path("h200-fidelity-probe.json")))
    rows = []
    for r in probe["verify_steps"]:
        p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--prompt", str(r["new_tokens"]), "--context", str(r["cached"]),
              "--launch", "graph", "--force", *prec(r))
        rows.append((f"{r['model']} {r['dtype']} B={r['batch']} q={r['new_tokens']} "
                     f"T={r['cached']}", r["graph_s"], p["time_s"], "no"))
    table("Verify passes, CUDA graph (h200-fidelity-probe.json)", rows)
    rows = []
    for name in ("h200-power-summary.json", "h200-power-heldout-summary.json"):
        pw = json.load(open(manifest.path(name)))
        for ph in pw["phases"]:
            if not ph["phase"].startswith("decode"):
                continue
            step = ph.get("step_s", ph.get("call_s"))
            p = q("decode", *hw, "--model", "llama-3-8b", "--batch", str(ph["batch"]),
                  "--context", str(ph["context"]), "--launch", "graph")
            rows.append((f"llama-3-8b bf16 B={ph['batch']} T={ph['context']} ({name[5:-13]})",
                         step, p["step_time_s"], "no"))
    table("Decode steps, CUDA graph, 6 s loops of the power runs (h200-power-summary.json, "
          "h200-power-heldout-summary.json)", rows,
          "Graph replays back to back for 6 s while the board's power was read; from batch "
          "128 the board sat at its 700 W limit with the clock pulled down (1,747 and 1,616 MHz).")
    gk = json.load(open(manifest.path("h200-graph-kernels.json")))
    rows = []
    for r in gk["steps"]:
        p = q("decode", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--context", str(r["context"]), "--launch", "graph", *prec(r))
        rows.append((f"{r['model']} {r['dtype']} B={r['batch']} T={r['context']}", r["graph_s"],
                     p["step_time_s"], "no"))
    table("Decode steps, CUDA graph, a later lease (h200-graph-kernels.json)", rows,
          "validation/graph_kernels.py, 2026-12-01 22:12 UTC: the serving script's forward, "
          "20 replays timed by CUDA events before any profiler was attached; no figure was "
          "fitted on these steps or on this lease.")
    old = json.load(open(manifest.path("h200-serving.json")))
    rows = []
    for r in old["decode"]:
        p = q("decode", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--context", str(r["context"]), "--launch", "graph")
        rows.append((f"{r['model']} B={r['batch']} T={r['context']} (graph)", r["graph_s"],
                     p["step_time_s"], "no"))
    for r in old["prefill"]:
        p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--prompt", str(r["prompt"]), "--launch", "eager")
        rows.append((f"{r['model']} B={r['batch']} S={r['prompt']} (prefill)", r["time_s"],
                     p["time_s"], "no"))
    table("Serving on 2026-11-30 (h200-serving.json, another script and day)", rows)
    tp = json.load(open(manifest.path("h200-tp2.json")))
    rows = []
    for r in tp["decode"]:
        p = q("plan", *hw, "--model", "llama-3-8b", "--tp", "2", "--devices", "2",
              "--batch", str(r["batch"]), "--context", str(r["context"]))
        rows.append((f"decode B={r['batch']} T={r['context']}", r["graph_s"],
                     p["decode_step_time_s"], "no"))
    # tp_h200.py's prefill applies no rotary embedding (its decode does):
    # its rows price that forward.
    for r in tp["prefill"]:
        p = q("plan", *hw, "--model", "llama-3-8b", "--tp", "2", "--devices", "2",
              "--batch", str(r["batch"]), "--prompt", str(r["prompt"]), "--launch", "eager",
              "--set", "position-embedding=none")
        rows.append((f"prefill B={r['batch']} S={r['prompt']}", r["time_s"],
                     p["prefill_time_s"], "no"))
    table("Tensor parallel, Llama-3-8B on two H200s (`plan --tp 2`, h200-tp2.json)", rows)
    rows = []
    with open(manifest.path("calibrate-h200.csv")) as f:
        for r in csv.DictReader(f):
            if r["operation"] != "gemm" or r["launch"] != "graph" or "warm" in r["note"]:
                continue
            p = q("matmul", *hw, "--m", r["m"], "--n", r["n"], "--k", r["k"], "--dtype",
                  r["dtype"], "--launch", "graph", "--tiles", "none")
            fitted = "yes" if r["note"].startswith(("llama-3-8b", "square")) else "no"
            rows.append((f"{r['dtype']} {r['m']}x{r['n']}x{r['k']} ({r['note']})",
                         float(r["seconds"]), p["time_s"], fitted))
    table("GEMMs by shape (`matmul --launch graph`, calibrate-h200.csv)", rows)
    g = json.load(open(manifest.path("h200-gemm.json")))
    rows = []
    for r in g["gemm"]:
        p = q("matmul", *hw, "--m", str(r["M"]), "--n", str(r["N"]), "--k", str(r["K"]),
              "--dtype", r["dtype"], "--launch", "graph", "--tiles", "none")
        rows.append((f"{r['dtype']} {r['M']}x{r['N']}x{r['K']}", r["s"], p["time_s"], "no"))
    table("GEMMs on 2026-11-30 (h200-gemm.json)", rows)
    rows = []
    for r in probe["gemm_small"]:
        p = q("matmul", *hw, "--m", str(r["m"]), "--n", str(r["n"]), "--k", str(r["k"]),
              "--dtype", r["dtype"], "--launch", "graph", "--tiles", "none")
        rows.append((f"{r['dtype']} {r['m']}x{r['n']}x{r['k']}", r["seconds"], p["time_s"], "no"))
    table("Small GEMMs, 2026-12-01 (h200-fidelity-probe.json)", rows)
    rows = []
    for r in json.load(open(manifest.path("h200-gemm-probe2.json")))["gemm"]:
        p = q("matmul", *hw, "--m", str(r["m"]), "--n", str(r["n"]), "--k", str(r["k"]),
              "--dtype", r["dtype"], "--launch", "graph", "--tiles", "none")
        rows.append((f"{r['dtype']} {r['m']}x{r['n']}x{r['k']}", r["seconds"], p["time_s"], "no"))
    table("Small and split-K GEMMs, 2026-12-01 (h200-gemm-probe2.json)", rows)
    # The ground measurements sit beside the repository (../shared/ground).
    ground = os.environ.get("GROUND", os.path.join(ROOT, "..", "shared", "ground"))
    nccl = json.load(open(os.path.join(ground, "h200-measured.json")))
    kinds = {"all_reduce": "all-reduce", "all_gather": "all-gather",
             "reduce_scatter": "reduce-scatter", "all_to_all": "all-to-all",
             "sendrecv": "send-recv"}
    rows = []
    for r in nccl["nccl_2gpu_nvlink"]:
        p = q("collective", kinds[r["op"]], *hw, "--devices", "2", "--bytes",
              str(r["bytes_per_rank"]), "--launch", "eager")
        fitted = "yes" if r["bytes_per_rank"] in (268435456, 1073741824) else "no"
        rows.append((f"{kinds[r['op']]} {r['bytes_per_rank'] // 1048576} MiB", r["s"],
                     p["time_s"], fitted))
    table("NCCL on two H200s (`collective --launch eager`, ground measurements)", rows)


main()

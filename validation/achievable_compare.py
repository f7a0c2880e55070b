"""--achievable against every H200 measurement committed here, family by
family, as the Markdown tables of docs/validation.md ("Achievable: the
per-operation model against the H200"). No GPU needed:

    cargo build && python3 validation/achievable_compare.py > /tmp/tables.md

Each row: the query's inputs, the measurement, the prediction, the error
(prediction / measurement - 1) and whether the [achievable] figures were
fitted on it. tests/achievable_validation.rs asserts the bounds.

The files come from validation/results/MANIFEST.toml: each entry with a
`compare` kind is read by that kind's reader below, the kinds in the order
of KINDS and the files of a kind in the manifest's order, so a new
measurement of a kind already here is a line in the manifest.
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


HW = ["--hw", "h200-sxm", "--achievable"]


def name(e):
    return e["path"].split("/", 1)[1]


def day(e):
    return e["path"][:10]


def load(e):
    with open(manifest.path(e["path"])) as f:
        return json.load(f)


def serving(e):
    hw = HW
    d = load(e)
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
              f" ({name(e)})", rows)
    rows = []
    for r in d["prefill"]:
        p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--prompt", str(r["prompt"]), "--launch", "eager", "--force", *prec(r))
        rows.append((f"{r['model']} {r['dtype']} B={r['batch']} S={r['prompt']}",
                     r["time_s"], p["time_s"], "no"))
    table(f"Prefill, eager ({name(e)})", rows)
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


def serving_clean(e):
    hw = HW
    clean = load(e)
    for mode, key, title in (("graph", "graph_s", "Decode steps, CUDA graph"),
                             ("eager", "eager_s", "Decode steps, eagerly from Python")):
        rows = []
        for r in clean["decode"]:
            p = q("decode", *hw, "--model", r["model"], "--batch", str(r["batch"]),
                  "--context", str(r["context"]), "--launch", mode, *prec(r))
            rows.append((f"{r['model']} {r['dtype']} B={r['batch']} T={r['context']}",
                         r[key], p["step_time_s"], "no"))
        table(f"{title}, clean run ({name(e)})", rows)
    for mode, key in (("graph", "graph_s"), ("eager", "time_s")):
        rows = []
        for r in clean["chunk"]:
            p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
                  "--prompt", str(r["new_tokens"]), "--context", str(r["cached"]),
                  "--launch", mode, "--force", *prec(r))
            rows.append((f"{r['model']} {r['dtype']} B={r['batch']} q={r['new_tokens']} "
                         f"T={r['cached']}", r[key], p["time_s"], "no"))
        table(f"Chunks, {'CUDA graph' if mode == 'graph' else 'eager'}, clean run "
              f"({name(e)})", rows)
    rows = []
    for r in clean["prefill"]:
        p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--prompt", str(r["prompt"]), "--launch", "eager", "--force", *prec(r))
        rows.append((f"{r['model']} {r['dtype']} B={r['batch']} S={r['prompt']}",
                     r["time_s"], p["time_s"], "no"))
    table(f"Prefill, eager, clean run ({name(e)})", rows)


# The host probe's processes by machine (the manifest's `group`): the
# host figures come from process c's single-call microbenchmarks, no step.
HOST_GROUPS = {
    "calibrated": ("host probe, the machine calibrated",
                   "Process and round (a0 = process a, round 0). The host figures "
                   "(`achievable.call.*`) were measured on single calls in process c; a and b "
                   "are other processes on the same machine."),
    "other-machine": ("host probe, another machine",
                      "A later lease, another machine of the same kind, whose host ran 1.5 to "
                      "2.5 times slower (its own single calls and cycles measure that: "
                      "h200-host-probe-d-log.txt); the figures are still process c's."),
    "third-lease": ("host probe, a third lease",
                    "2026-12-01 22:20 UTC, two rounds: the host's single calls ran 1.1 to 1.35 "
                    "times process c's in round 0 and its cycles interleaved at 1.38 to 1.46 "
                    "(c: 1.12 to 1.23; h200-host-probe-e-log.txt); the figures are still "
                    "process c's."),
}


def host_probes(entries):
    """Eager steps in the processes of validation/host_probe.py, a table per
    group of processes and kind of step."""
    hw = HW
    groups = {}
    for e in entries:
        groups.setdefault(e["group"], []).append(e)
    for group, es in groups.items():
        what, note = HOST_GROUPS[group]
        tags = [name(e)[len("h200-host-probe-"):-len(".json")] for e in es]
        files = ("h200-host-probe-" + "/".join(tags) + ".json")
        where = f"{what} ({files})"
        for kind, title in (("decode", "Decode steps, eagerly from Python"),
                            ("chunk", "Chunks and verify passes, eagerly from Python")):
            rows = []
            for tag, e in zip(tags, es):
                hp = load(e)
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


def verify(e):
    hw = HW
    rows = []
    for r in load(e)["verify_steps"]:
        p = q("prefill", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--prompt", str(r["new_tokens"]), "--context", str(r["cached"]),
              "--launch", "graph", "--force", *prec(r))
        rows.append((f"{r['model']} {r['dtype']} B={r['batch']} q={r['new_tokens']} "
                     f"T={r['cached']}", r["graph_s"], p["time_s"], "no"))
    table(f"Verify passes, CUDA graph ({name(e)})", rows)


def power_decode(entries):
    """The decode phases of the power runs, all in one table."""
    hw = HW
    rows = []
    for e in entries:
        pw = load(e)
        for ph in pw["phases"]:
            if not ph["phase"].startswith("decode"):
                continue
            step = ph.get("step_s", ph.get("call_s"))
            p = q("decode", *hw, "--model", "llama-3-8b", "--batch", str(ph["batch"]),
                  "--context", str(ph["context"]), "--launch", "graph")
            rows.append((f"llama-3-8b bf16 B={ph['batch']} T={ph['context']} "
                         f"({name(e)[5:-13]})", step, p["step_time_s"], "no"))
    table("Decode steps, CUDA graph, 6 s loops of the power runs ("
          + ", ".join(name(e) for e in entries) + ")", rows,
          "Graph replays back to back for 6 s while the board's power was read; from batch "
          "128 the board sat at its 700 W limit with the clock pulled down (1,747 and 1,616 MHz).")


def graph_steps(e):
    hw = HW
    gk = load(e)
    rows = []
    for r in gk["steps"]:
        p = q("decode", *hw, "--model", r["model"], "--batch", str(r["batch"]),
              "--context", str(r["context"]), "--launch", "graph", *prec(r))
        rows.append((f"{r['model']} {r['dtype']} B={r['batch']} T={r['context']}", r["graph_s"],
                     p["step_time_s"], "no"))
    table(f"Decode steps, CUDA graph, a later lease ({name(e)})", rows,
          "validation/graph_kernels.py, 2026-12-01 22:12 UTC: the serving script's forward, "
          "20 replays timed by CUDA events before any profiler was attached; no figure was "
          "fitted on these steps or on this lease.")


def serving_old(e):
    hw = HW
    old = load(e)
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
    table(f"Serving on {day(e)} ({name(e)}, another script and day)", rows)


def tp(e):
    hw = HW
    tp = load(e)
    rows = []
    for r in tp["decode"]:
        # the plain forward the script measured (plan's default is vllm)
        p = q("plan", *hw, "--model", "llama-3-8b", "--tp", "2", "--devices", "2",
              "--batch", str(r["batch"]), "--context", str(r["context"]),
              "--engine", "pytorch")
        rows.append((f"decode B={r['batch']} T={r['context']}", r["graph_s"],
                     p["decode_step_time_s"], "no"))
    # tp_h200.py's prefill applies no rotary embedding (its decode does):
    # its rows price that forward.
    for r in tp["prefill"]:
        p = q("plan", *hw, "--model", "llama-3-8b", "--tp", "2", "--devices", "2",
              "--batch", str(r["batch"]), "--prompt", str(r["prompt"]), "--launch", "eager",
              "--set", "position-embedding=none", "--engine", "pytorch")
        rows.append((f"prefill B={r['batch']} S={r['prompt']}", r["time_s"],
                     p["prefill_time_s"], "no"))
    table(f"Tensor parallel, Llama-3-8B on two H200s (`plan --tp 2`, {name(e)})", rows)


def calibrate_gemm(e):
    hw = HW
    rows = []
    with open(manifest.path(e["path"])) as f:
        for r in csv.DictReader(f):
            if r["operation"] != "gemm" or r["launch"] != "graph" or "warm" in r["note"]:
                continue
            p = q("matmul", *hw, "--m", r["m"], "--n", r["n"], "--k", r["k"], "--dtype",
                  r["dtype"], "--launch", "graph", "--tiles", "none")
            fitted = "yes" if r["note"].startswith(("llama-3-8b", "square")) else "no"
            rows.append((f"{r['dtype']} {r['m']}x{r['n']}x{r['k']} ({r['note']})",
                         float(r["seconds"]), p["time_s"], fitted))
    table(f"GEMMs by shape (`matmul --launch graph`, {name(e)})", rows)


def gemm_rows(title, rows_in, keys):
    hw = HW
    rows = []
    m, n, k, t = keys
    for r in rows_in:
        p = q("matmul", *hw, "--m", str(r[m]), "--n", str(r[n]), "--k", str(r[k]),
              "--dtype", r["dtype"], "--launch", "graph", "--tiles", "none")
        rows.append((f"{r['dtype']} {r[m]}x{r[n]}x{r[k]}", r[t], p["time_s"], "no"))
    table(title, rows)


def gemm(e):
    gemm_rows(f"GEMMs on {day(e)} ({name(e)})", load(e)["gemm"], ("M", "N", "K", "s"))


def gemm_small(e):
    gemm_rows(f"Small GEMMs, {day(e)} ({name(e)})", load(e)["gemm_small"],
              ("m", "n", "k", "seconds"))


def gemm_probe(e):
    gemm_rows(f"Small and split-K GEMMs, {day(e)} ({name(e)})", load(e)["gemm"],
              ("m", "n", "k", "seconds"))


# (kind, reader, whether the reader takes all the kind's entries at once)
KINDS = [("serving", serving, False), ("serving-clean", serving_clean, False),
         ("host-probe", host_probes, True), ("verify", verify, False),
         ("power-decode", power_decode, True), ("graph-steps", graph_steps, False),
         ("serving-old", serving_old, False), ("tp", tp, False),
         ("calibrate-gemm", calibrate_gemm, False), ("gemm", gemm, False),
         ("gemm-small", gemm_small, False), ("gemm-probe", gemm_probe, False)]


def nccl():
    hw = HW
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


def main():
    entries = manifest.entries()
    known = {k for k, _, _ in KINDS}
    for e in entries:
        for k in e.get("compare", []):
            if k not in known:
                sys.exit(f"MANIFEST.toml: {e['path']}: no comparison kind {k!r}")
    for kind, reader, together in KINDS:
        es = [e for e in entries if kind in e.get("compare", [])]
        if together:
            reader(es)
        else:
            for e in es:
                reader(e)
    nccl()


main()

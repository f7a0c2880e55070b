"""MLA's odd key counts and gpt-oss-shaped FlexAttention prefill against the
tool, as Markdown tables (docs/validation.md, "MLA's odd key counts" and
"FlexAttention prefill"). No GPU:

    cargo build && python3 validation/families_compare.py

Reads validation/results/2026-12-07-h100/h100c-families.json
(validation/families_gpu.py) and the whole MLA decode steps of
h100a-mla-steps.json and h100b-mla-steps.json (validation/mla_steps.py).
The attention-alone rows are priced by formulas.md's formulas with the
H100 file's figures (read from hardware/h100-sxm.toml and
engines/pytorch.toml); the whole steps by the tool itself.
"""

import json
import os
import statistics
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("ROOFLINE", os.path.join(ROOT, "target", "debug", "roofline"))
RES = os.path.join(ROOT, "validation", "results", "2026-12-07-h100")
V2L = os.path.join(ROOT, "validation", "models", "deepseek-v2-lite.toml")
OSS = os.path.join(ROOT, "validation", "models", "gpt-oss-20b-bf16.toml")
RATE = 794.5e12  # the H100 file's measured bf16 matmul rate


def q(*args):
    out = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{' '.join(args)}: {out.stderr}")
    return json.loads(out.stdout)["results"]


def summary(errs):
    a = [abs(e) for e in errs]
    return f"{len(a)} points, median {statistics.median(a) * 100:.1f}%, worst {max(a) * 100:.1f}%"


def mla_odd(d, hw):
    at = hw["achievable"]["attention"]
    fs, fv = at["latent-odd-scores-fraction"], at["latent-odd-values-fraction"]
    simt = at["latent-odd-simt-fraction"]
    lo, hi = at["latent-odd-simt-from"], at["latent-odd-simt-to"]
    print("| B | keys | scores kernel | scores measured / priced (us) | values measured / priced (us) | rows |")
    print("| --- | --- | --- | --- | --- | --- |")
    held = []
    for r in d["mla"]:
        B, K = r["batch"], r["keys"]
        if K % 2 == 0:
            continue
        e = B * 16 * K
        share = simt if lo <= e <= hi else fs
        ps = r["scores_flops"] / (share * RATE)
        pv = r["values_flops"] / (fv * RATE)
        kern = "magma_sgemmEx (SIMT)" if "magma" in r["scores_kernels"][0] else "align-1 tensor-op"
        use = "held out" if K == 4097 or B == 1 else "fitted"
        if use == "held out" and B > 1:
            held += [ps / r["scores_s"] - 1, pv / r["values_s"] - 1]
        print(f"| {B} | {K:,} | {kern} | {r['scores_s'] * 1e6:.0f} / {ps * 1e6:.0f} | "
              f"{r['values_s'] * 1e6:.0f} / {pv * 1e6:.0f} | {use} |")
    print(f"\n- held out at 4,097 keys, B = 16 to 256, each GEMM: {summary(held)}\n")


def mla_steps():
    print("| B | h100a | h100b | --achievable (eager path) | error (a, b) |")
    print("| --- | --- | --- | --- | --- |")
    a = json.load(open(os.path.join(RES, "h100a-mla-steps.json")))
    b = json.load(open(os.path.join(RES, "h100b-mla-steps.json")))
    errs = []
    for ra, rb in zip(a["decode"], b["decode"]):
        B = ra["batch"]
        p = q("decode", "--hw", "h100-sxm", "--achievable", "--model", V2L, "--batch", str(B),
              "--context", str(ra["context"]), "--launch", "graph",
              "--set", "engine.moe.dispatch=grouped", "--set", "engine.attention.path=eager"
              )["step_time_s"]
        ea, eb = p / ra["graph_s"] - 1, p / rb["graph_s"] - 1
        errs += [ea, eb]
        print(f"| {B} | {ra['graph_s'] * 1e3:.2f} | {rb['graph_s'] * 1e3:.2f} | {p * 1e3:.2f} | "
              f"{ea * 100:+.1f}%, {eb * 100:+.1f}% |")
    print(f"\n- {summary(errs)}\n")


def tiles(new, window, block=128):
    t, start = 0, 0
    while start < new:
        last = min(start + block, new) - 1
        lo = max(0, start + 1 - window)
        t += last // block - lo // block + 1
        start += block
    return t


def flex(d, eng):
    at = eng["attention"]
    pf, half, blk = at["flex-peak-fraction"], at["flex-half-length"], at["flex-block"]
    print("| B | S | layer | tiles (measured, formula) | kernel device (us) | one call, eager (us) | priced kernel (us) | rows |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    errs = []
    for r in d["flex_attention"]:
        B, S = r.get("batch", 1), r["seq"]
        w = 128 if r["kind"] == "sliding" else 10 ** 9
        t = tiles(S, w, blk)
        flops = t * blk * blk * 2 * 2 * 64 * 64 * B
        span = t / -(-S // blk) * blk
        p = flops / (RATE * pf * span / (span + half))
        dev = r.get("flex_device_s")
        if dev is None and "flex_kernels" in r:
            dev = sum(x[2] for x in r["flex_kernels"] if "flex" in x[0]) * 1e-6
        use = "fitted" if S == 4096 and B == 1 else "held out"
        if use == "held out" and dev:
            errs.append(p / dev - 1)
        print(f"| {B} | {S:,} | {r['kind']} | {r['blocks']}, {t} | "
              f"{dev * 1e6:.0f} | {r['flex_s'] * 1e6:.0f} | {p * 1e6:.0f} | {use} |"
              if dev else
              f"| {B} | {S:,} | {r['kind']} | {r['blocks']}, {t} | - | {r['flex_s'] * 1e6:.0f} | "
              f"{p * 1e6:.0f} | {use} |")
    if errs:
        print(f"\n- kernel device time held out: {summary(errs)}\n")


def prefill(d):
    print("| S | measured (eager) | GPU time (profiler) | --achievable, flex, eager | graph (GPU alone) | error |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in d["prefill"]:
        S = r["prompt"]
        base = ["--hw", "h100-sxm", "--achievable", "--model", OSS, "--prompt", str(S),
                "--set", "engine.moe.dispatch=grouped", "--set", "engine.attention.path=flex"]
        pe = q("prefill", *base, "--launch", "eager")["time_s"]
        pg = q("prefill", *base, "--launch", "graph")["time_s"]
        dev = r.get("device_s")
        print(f"| {S:,} | {r['eager_s'] * 1e3:.1f} ms | {dev * 1e3:.1f} ms | {pe * 1e3:.1f} ms | "
              f"{pg * 1e3:.1f} ms | {(pe / r['eager_s'] - 1) * 100:+.1f}% |" if dev else
              f"| {S:,} | {r['eager_s'] * 1e3:.1f} ms | - | {pe * 1e3:.1f} ms | {pg * 1e3:.1f} ms | "
              f"{(pe / r['eager_s'] - 1) * 100:+.1f}% |")
    print()


def main():
    d = json.load(open(os.path.join(RES, "h100c-families.json")))
    hw = tomllib.load(open(os.path.join(ROOT, "hardware", "h100-sxm.toml"), "rb"))
    eng = tomllib.load(open(os.path.join(ROOT, "engines", "pytorch.toml"), "rb"))
    print("### MLA's latent GEMMs at odd key counts (attention alone)\n")
    mla_odd(d, hw)
    print("### Whole DeepSeek-V2-Lite decode steps, 4,097 keys (eager path)\n")
    mla_steps()
    print("### FlexAttention, gpt-oss-20b's attention\n")
    flex(d, eng)
    print("### gpt-oss-20b-shaped prefill with FlexAttention, B = 1\n")
    prefill(d)


if __name__ == "__main__":
    main()

"""The transfer rules of docs/formulas.md ("Achievable figures carried
between parts"), one entry per part: its base (the measured sibling), the
rule's name and the figures it scales or sets from public measurements,
each with its source. validation/transfer.py writes them.
"""

import os

import transfer as t

AZURE_H100 = ("measured, public: Microsoft Azure, AI-benchmarking-guide, "
              "Azure_Results/ND_H100_v5_results.md, 'HBM Bandwidth' table "
              "(https://github.com/Azure/AI-benchmarking-guide/blob/main/Azure_Results/ND_H100_v5_results.md, "
              "as of commit b79e721, 2025-02-25; GPU 'NVIDIA H100 80GB HBM3'): BabelStream Triad 2.97 TB/s "
              "(88.7% of 3.35 TB/s); Triad is taken because Azure's ND H200 v5 table gives Triad 4.18 TB/s, "
              "within 1% of hardware/h200-sxm.toml's measured read-only stream (4,202.7 GB/s)")

HOPPER = "Hopper sibling"


def h100_predicted(out):
    """The transfer test's prediction (validation/h100-transfer/): the H200's
    measured figures carried to the H100 (the same GH100 die, clocks, power
    limit, NVLink 4 and software), the memory stream from a public H100
    measurement. Written before any H100 was measured here."""
    ov = {"achievable.hbm-bandwidth": ("2970 GB/s", AZURE_H100)}
    return t.transfer("h200-sxm", "h100-sxm", HOPPER, ov, out=out)


RULES = {"h100-predicted": h100_predicted}


def write(part, out=None):
    if part == "h100-predicted":
        out = out or os.path.join(t.ROOT, "validation", "h100-transfer", "hw", "h100-sxm.toml")
    return RULES[part](out)


# ---------------------------------------------------------------------------
# Shipped parts. The base is the H200's measured file; each rule's figures
# are the H200's measured share of its own datasheet times the target's
# datasheet (a "share"), the H200's figure unchanged (a "carry"), or a
# public measurement already cited in the target file (kept as it is).

H200 = {"hbm": (4202.7, 4800.0), "bf16": (763.9, 989.0), "fp8": (1372.6, 1979.0),
        "sus_bf16": 651 / 763.9, "sus_fp8": 1166 / 1372.6, "link": (370.0, 450.0), "tdp": 700.0,
        "idle": 80.9, "compute_w": 692.8, "stream_w": 677.3, "traffic": 815.8,
        "gemm_w": 960, "attn_w": 814, "wait_w": 122}
RULE_DOC = "docs/formulas.md, \"Achievable figures carried between parts\""


def share(what, base_val, base_sheet, target_sheet, unit, rule, digits=1):
    v = round(base_val / base_sheet * target_sheet, digits)
    src = (f"transferred from h200-sxm by the rule '{rule}' ({RULE_DOC}): {what}, the H200's "
           f"measured {base_val:g} over its datasheet {base_sheet:g} ({base_val / base_sheet:.4f}) "
           f"times this part's datasheet {target_sheet:g} {unit}")
    return f"{v} {unit}", src


def datasheet(part):
    import tomllib
    return tomllib.load(open(os.path.join(t.HW, part + ".toml", ), "rb"))


def rate(s):
    v, u = t.num(s)
    return v * {"TFLOP/s": 1, "PFLOP/s": 1000, "TB/s": 1000, "GB/s": 1, "TOPS": 1, "POPS": 1000}[u]


def common(part, rule, link_name=None, tdp=None, keep_public=True, extra=None):
    """The figures every rule sets the same way: stream, GEMM rates per
    precision, sustained rates, the scale-up link, the power-limit and
    energy figures scaled by the board limit."""
    d = datasheet(part)
    src = d.get("sources", {})
    # Only public measurements cited in the file are kept; a figure an
    # earlier run of this script wrote is written afresh.
    ach = {"dense": {k: v for k, v in d.get("achievable", {}).get("dense", {}).items()
                     if src.get(f"achievable.dense.{k}", "").startswith("measured, public")}}
    if src.get("achievable.hbm-bandwidth", "").startswith("measured, public"):
        ach["hbm-bandwidth"] = d["achievable"]["hbm-bandwidth"]
    ov = {}
    hbm_sheet = rate(d["memory"]["hbm-bandwidth"])
    if keep_public and "hbm-bandwidth" in ach:
        ov["achievable.hbm-bandwidth"] = (ach["hbm-bandwidth"], src["achievable.hbm-bandwidth"])
    else:
        ov["achievable.hbm-bandwidth"] = share("the stream", *H200["hbm"], hbm_sheet, "GB/s", rule)
    dense = dict(d["compute"]["dense"])
    if d["compute"].get("peak-scope") == "core":
        # Per-core peaks (Trainium3): the achievable rate is the device's.
        n = d["compute"]["cores"]
        dense = {k: f"{t.num(v)[0] * n} {t.num(v)[1]}" for k, v in dense.items()}
    rates = {}
    for p in ("bf16", "fp8", "fp4"):
        if p not in dense:
            continue
        sheet = rate(dense[p])
        if p in ach.get("dense", {}):
            ov[f"achievable.dense.{p}"] = (ach["dense"][p], src[f"achievable.dense.{p}"])
            rates[p] = rate(ach["dense"][p])
            continue
        # fp4 takes fp8's share (the same tensor cores at twice the rate).
        base = H200["fp8" if p == "fp4" else p]
        if p != "bf16" and "bf16" in rates and "bf16" in ach.get("dense", {}):
            # A public bf16 rate on this part: its share carries to fp8/fp4.
            eff = rates["bf16"] / rate(dense["bf16"])
            v = round(eff * sheet, 1)
            ov[f"achievable.dense.{p}"] = (
                f"{v} TFLOP/s",
                f"transferred by the rule '{rule}' ({RULE_DOC}): this part's public bf16 GEMM "
                f"rate ({rates['bf16']:g} TFLOP/s, cited at achievable.dense.bf16) over its "
                f"datasheet bf16 ({rate(dense['bf16']):g}), {eff:.4f}, times its datasheet {p} "
                f"{sheet:g} TFLOP/s")
        else:
            ov[f"achievable.dense.{p}"] = share(f"the best GEMM rate in {p}", base[0], base[1],
                                                sheet, "TFLOP/s", rule)
        rates[p] = t.num(ov[f"achievable.dense.{p}"][0])[0]
    for p in ("bf16", "fp8", "fp4"):
        if p in rates:
            f = H200["sus_fp8" if p != "bf16" else "sus_bf16"]
            ov[f"achievable.sustained.{p}"] = (
                f"{round(rates[p] * f, 1)} TFLOP/s",
                f"transferred from h200-sxm by the rule '{rule}' ({RULE_DOC}): "
                f"achievable.dense.{p} times the H200's measured sustained share "
                f"({'1166 / 1372.6' if p != 'bf16' else '651 / 763.9'} = {f:.4f}: an 8-second "
                f"GEMM loop held at the power limit)")
    for p in ("bf16", "fp8"):
        if p not in rates:
            ov[f"achievable.dense.{p}"] = (None, "")
            ov[f"achievable.sustained.{p}"] = (None, "")
    if "fp8" not in rates:
        ov["achievable.power-limit.gemm-burst-fraction.fp8"] = (None, "")
    ov["achievable.link-bandwidth.nvlink4"] = (None, "")
    for ic in d.get("interconnect", []):
        if ic.get("tier") == "scale-up" and (link_name is None or ic["name"] == link_name):
            one_way = ic.get("per-direction-bandwidth")
            sheet = t.num(one_way or ic["bidirectional-bandwidth"])
            sheet_gb = sheet[0] * (1000 if sheet[1] == "TB/s" else 1) / (1 if one_way else 2)
            key = f"achievable.link-bandwidth.{ic['name']}"
            if keep_public and src.get(key, "").startswith("measured, public"):
                # A public collective measurement on the part replaces the share.
                ov[key] = (d["achievable"]["link-bandwidth"][ic["name"]], src[key])
            else:
                ov[key] = share("NCCL send/recv one way over the scale-up link", *H200["link"],
                                sheet_gb, "GB/s", rule)
            break
    tdp = tdp or (d.get("package", {}).get("tdp-watts"))
    if tdp:
        k = tdp / H200["tdp"]
        why = (f"transferred from h200-sxm by the rule '{rule}' ({RULE_DOC}): the H200's measured "
               f"figure times this part's board limit over the H200's ({tdp} / 700 W = {k:.4f}): "
               f"a board draws the same share of its limit in the same class of work")
        for key, b in (("package.idle-watts", "idle"), ("package.compute-watts", "compute_w"),
                       ("package.stream-watts", "stream_w"),
                       ("achievable.power-limit.gemm-watts", "gemm_w"),
                       ("achievable.power-limit.attention-watts", "attn_w"),
                       ("achievable.power-limit.wait-watts", "wait_w")):
            v = round(H200[b] * k, 1)
            ov[key] = (int(round(v)) if key.startswith("achievable") else v, f"{why}; there {H200[b]:g} W")
        if "bf16" in rates:
            tr = H200["traffic"] * (rates["bf16"] * H200["sus_bf16"]) / 651
            ov["package.compute-traffic"] = (
                f"{round(tr, 1)} GB/s",
                f"transferred from h200-sxm by the rule '{rule}' ({RULE_DOC}): the H200's measured "
                f"815.8 GB/s of DRAM traffic under its 8192^3 bf16 GEMM loop at 651 TFLOP/s, "
                f"scaled to this part's achievable.sustained.bf16 (the same GEMM, as many bytes "
                f"per GEMM)")
    if extra:
        ov.update(extra)
    return ov


BLACKWELL = "CUDA from Hopper to Blackwell"
AMPERE = "CUDA from Hopper to Ampere"
ROCM = "ROCm from CUDA"
COMPILED = "Compiled whole-graph execution"

# RCCL on the MI300X (gfx942) runs no LL128 by default, so the collective
# model's latency protocol there is LL, at LL's share of the bandwidth.
RCCL_GFX942_LL = (0.25, (
    "vendor: RCCL (github.com/ROCm/rccl, tag rocm-6.2.0: the RCCL 2.22.3 of Azure's ND MI300X v5 runs), "
    "src/graph/tuning.cc ncclTopoTuneModel, 'Enable LL128 by default only on gfx90a with available tuning "
    "table': on gfx942 LL128 is off unless RCCL_LL128_FORCE_ENABLE is set (src/init.cc, default 0), so the "
    "latency protocol beside Simple is LL; this field holds LL's share of Simple's bus bandwidth for a ring "
    "all-reduce in NCCL's tuning model, 1/4 (NVIDIA/nccl src/graph/tuning.cc: busBw * 1.0/4.0 for "
    "all-reduce and reduce); it replaces LL128's 0.92 carried from the H200. Checked, not fitted, against "
    "Azure's RCCL all-reduce on 8 MI300X (AI-benchmarking-guide, Azure_Results/ND_MI300X_v5_results.md, "
    "'RCCL Bandwidth', commit 3de0c29, 2025-02-07): 16 MiB in 171.2 us (bus 171.46 GB/s) and 64 MiB in "
    "440.9 us (266.34 GB/s), where the tool gives 172.5 and 450.5 us with it (119.2 and 421.5 us with "
    "0.92); from 256 MiB up both give the measured times within 1%; at 1 and 4 MiB (vLLM's custom all-reduce "
    "below 8 MiB, engines/vllm.toml) 0.51x and 1.16x"))

ZERO_LAUNCH = ("0 us", f"transferred by the rule '{COMPILED}' ({RULE_DOC}): the runtime runs a "
               "step as one compiled program (XLA on TPU, the Neuron compiler on Trainium), so "
               "there is no per-kernel launch from the host; each fused operation keeps the "
               "per-kernel fixed costs carried from the H200 (kernel-overhead, kernel-fixed)")


def nvidia(part, rule=BLACKWELL, **kw):
    def f(out):
        return t.transfer("h200-sxm", part, rule, common(part, rule, **kw), out=out)
    return f


def compiled(part):
    def f(out):
        ov = common(part, COMPILED)
        for k in ("launch.graph", "achievable.launch.graph"):
            ov[k] = ZERO_LAUNCH
        return t.transfer("h200-sxm", part, COMPILED, ov, out=out)
    return f


RULES.update({
    "b200": nvidia("b200"),
    "b300": nvidia("b300"),
    "gb200": nvidia("gb200"),
    "gb300": nvidia("gb300"),
    "a100-sxm-80gb": nvidia("a100-sxm-80gb", rule=AMPERE),
    "mi300x": nvidia("mi300x", rule=ROCM, extra={"achievable.collective-protocol.ll128-share": RCCL_GFX942_LL}),
    "mi355x": nvidia("mi355x", rule=ROCM),
    "tpu7x": compiled("tpu7x"),
    "trainium3": compiled("trainium3"),
})
RULES["h100-sxm"] = nvidia("h100-sxm", rule=HOPPER)

"""The tool's answer beside TensorRT-LLM's published maximum-throughput
points for the MoE models: DeepSeek-R1-0528 (DEP4 / DEP8) and gpt-oss-120b
(TP1, DEP2, DEP4), copied with their sources from ../shared/public/
(validation/public/trtllm-deepseek-r1.json, trtllm-gpt-oss-120b.json;
SemiAnalysis InferenceX and MLPerf Inference v6.0 are kept out).

    cargo build && python3 validation/public/compare_deepseek_gpt_oss.py

DeepSeek-R1 is priced as deepseek-v3 (the same architecture and
config.json shapes; R1 is its reasoning fine-tune). `DEPn` is `plan --tp 1
--dp n --ep n` (attention data-parallel over n ranks, experts over the
same n), TP1 is `plan --tp 1`; every point with `--engine trtllm`.

An offline max-throughput point queues every request at once. The answer
for it, per rank: the largest batch B (at most 4,096, as the Llama tool
takes it) whose weights, KV cache (ISL + OSL tokens a sequence) and the
activations of an 8,192-token chunk fit the device's usable memory (90%,
the runs' kv_cache_free_gpu_mem_fraction 0.90-0.95); B prompts prefilled,
then OSL decode steps at the middle context ISL + OSL / 2:

    output tokens/s per GPU = B x OSL / (prefill(B, ISL) + OSL x step(B, ISL + OSL/2))

(one rank is one GPU in every layout here). Assumptions, not tuned: the KV
cache in fp8 (NVIDIA's FP8 and FP4 checkpoints quantize it; the tables do
not say); DeepSeek-R1 FP8 as `--dtype fp8 --activations fp8` (W8A8,
DeepGEMM's block-scaled FP8), FP4 as `--dtype fp4 --activations fp8`;
gpt-oss-120b at its checkpoint's own formats (MXFP4 experts, bf16
elsewhere), fp8 activations on Blackwell (MXFP4 x MXFP8), bf16 on Hopper.

Each row prints the point, the `--achievable` answer and its ratio to the
measurement, and the speed of light (datasheet figures), which must be at
or above the measurement: the last lines count the points where it is
not, and the median and worst |error| per model and part.
"""

import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.environ.get("ROOFLINE", os.path.join(ROOT, "target", "debug", "roofline"))
HW = {"H100-SXM": "h100-sxm", "H200-SXM": "h200-sxm", "B200": "b200", "GB200": "gb200"}
MODEL = {"DeepSeek-R1-0528": "deepseek-v3", "gpt-oss-120b": "gpt-oss-120b"}
CHUNK = 8192
MAX_BATCH = 4096


def q(args, achievable):
    out = subprocess.run([BIN, *args, *(["--achievable"] if achievable else []), "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode:
        return None
    return json.loads(out.stdout)["results"]


def base(x):
    hw, m = HW[x["gpu"]], MODEL[x["model"]]
    n = x["num_gpus"]
    dep = x.get("attention_dp")
    layout = ["--devices", str(n), "--tp", "1", "--dp", str(n), "--ep", str(n)] if dep else \
        ["--devices", "1", "--tp", "1"]
    blackwell = x["gpu"] in ("B200", "GB200")
    if m == "deepseek-v3":
        p = "fp4" if x["precision"].startswith("fp4") else "fp8"
        prec = ["--dtype", p, "--activations", "fp8"]
    else:
        prec = ["--activations", "fp8"] if blackwell else []
    return ["plan", "--model", m, "--hw", hw, *layout, *prec, "--kv-dtype", "fp8", "--engine", "trtllm"]


def fits(b, x, achievable):
    """Weights, KV and one chunk's activations within the usable memory."""
    isl, osl = x["isl"], x["osl"]
    r = q([*base(x), "--batch", str(b), "--context", str(isl + osl), "--prompt", str(isl)], achievable)
    if r is None:
        return False
    per_token = r["activation_bytes_per_device"] / max(b * isl, b)
    need = r["weight_bytes_per_device"] + r["kv_bytes_per_device"] + per_token * CHUNK
    return need <= r["usable_bytes"]


def answer(x, achievable):
    isl, osl = x["isl"], x["osl"]
    if not fits(1, x, achievable):
        return None, None
    lo, hi = 1, MAX_BATCH
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid, x, achievable):
            lo = mid
        else:
            hi = mid - 1
    b = lo
    # The batch's prefill priced as one pass of its B x ISL tokens (its
    # time, not its memory: the check above holds one chunk's).
    d = q([*base(x), "--batch", str(b), "--context", str(isl + osl // 2), "--prompt", str(isl)], achievable)
    if d is None:
        return None, b
    t = d["prefill_time_s"] + osl * d["decode_step_time_s"]
    return b * osl / t, b


def main():
    pts = []
    for f in ("trtllm-deepseek-r1.json", "trtllm-gpt-oss-120b.json"):
        pts += json.load(open(os.path.join(HERE, f)))
    print("| model | gpu | prec | layout | ISL/OSL | published tok/s/GPU | batch a rank | --achievable | ratio | speed of light |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    by = {}
    under = []
    for x in pts:
        meas = x["metrics"].get("output_tok_per_s_per_gpu")
        pred, b = answer(x, True)
        bound, _ = answer(x, False)
        label = f"{x['model']} {x['gpu']} {x['parallelism_label']} {x['isl']}/{x['osl']}"
        if meas and bound is not None and bound < meas:
            under.append(label)
        sb = "-" if bound is None else f"{bound:,.0f}"
        if not meas or pred is None:
            print(f"| {x['model']} | {x['gpu']} | {x['precision']} | {x['parallelism_label']} | {x['isl']}/{x['osl']} "
                  f"| {meas} | {b or '-'} | - | - | {sb} |")
            continue
        r = pred / meas
        by.setdefault((x["model"], x["gpu"]), []).append(abs(r - 1))
        print(f"| {x['model']} | {x['gpu']} | {x['precision']} | {x['parallelism_label']} | {x['isl']}/{x['osl']} "
              f"| {meas:,.0f} | {b} | {pred:,.0f} | {r:.2f} | {sb} |")
    print()
    print(f"- speed of light below the published figure: {len(under)} of {len(pts)} points"
          + (": " + "; ".join(under) if under else ""))
    for (m, g), v in by.items():
        print(f"- {m} on {g}: {len(v)} points, median |error| {statistics.median(v) * 100:.0f}%, "
              f"worst {max(v) * 100:.0f}%")


if __name__ == "__main__":
    sys.exit(main())

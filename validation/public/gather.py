"""Copies the public points the per-vendor comparison uses from
../shared/public/ into validation/public/vendors.json, each with its
source as published there (run once; the comparison reads only the copy).

Kept: DeepSeek-R1 and gpt-oss-120b from NVIDIA's TensorRT-LLM performance
overview (fixed ISL/OSL, offline max-throughput; H100, H200, B200, GB200)
and Llama-2-70B-Chat Offline from MLPerf Inference v5.1 (every part it has:
H100, H200, B200, GB200, MI300X, MI325X, MI355X). The dense Llama points
of the TensorRT-LLM overview are in trtllm-llama.json. SemiAnalysis
InferenceX and MLPerf Inference v6.0 are not used (the held-out check).

    python3 validation/public/gather.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "..", "shared", "public")


def main():
    trt = json.load(open(os.path.join(SHARED, "trtllm_perf_overview.json")))
    mlp = json.load(open(os.path.join(SHARED, "mlperf_inference_v5.1.json")))
    out = [x for x in trt if x["model"] in ("DeepSeek-R1-0528", "gpt-oss-120b")]
    out += [x for x in mlp if x["model"] == "Llama-2-70B-Chat" and x["scenario"] == "Offline"
            and x["gpu"] != "H200-NVL"]
    with open(os.path.join(HERE, "vendors.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(out)} points")


if __name__ == "__main__":
    main()

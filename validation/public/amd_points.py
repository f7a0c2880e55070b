"""Writes validation/public/amd.json: published offline-throughput points of
vLLM on the AMD Instinct MI300X whose settings are stated (model, weights,
KV cache, tensor parallelism, fixed input and output lengths, number of
prompts), copied by hand from the two sources named in each point. Beside them,
as a control, Azure's runs of the same settings on an H200 node with
TensorRT-LLM (printed, not counted: see their `metric_reading`). Run once;
the comparison (vendors.py) reads only the JSON.

    python3 validation/public/amd_points.py

What the throughput is. Azure's benchmark takes the seventh field of vLLM
benchmark_throughput.py's line "Throughput: R requests/s, T total tokens/s,
O output tokens/s" (Benchmarks/AMD/LLMBenchmark.py, `line.split(' ')[6]`),
so its figures are output tokens/s of the whole tensor-parallel group. AMD's
performance page says "Throughput (tokens/s)"; its figures at the settings
Azure also ran (Llama 3.1 70B FP8, TP 8, 128/2048 and 2048/2048: 13,280 and
7,652 against Azure's 12,204 and 7,421 output tokens/s) agree with output
tokens/s and not with total tokens (which would put 2048/2048 at half of
Azure's output), so they are read as output tokens/s too; the row keeps
the reading in `metric_reading`.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

AMD_PAGE = {
    "source": "AMD ROCm performance results page, vLLM throughput measurements (docker rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103, released 2025-11-03)",
    "url_or_repo_path": "https://www.amd.com/en/developer/resources/rocm-hub/dev-ai/performance-results.html (stored copy: https://www.amd.com/ja/developer/resources/rocm-hub/dev-ai/performance-results.html), 'Results on AMD Instinct MI300X Platform', 'Throughput Measurements'",
    "framework": "vLLM 0.11.1 on ROCm 7.0.0 (rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103)",
    "system": "dual AMD EPYC 9554, 8x AMD MI300X (192 GB HBM3, 750 W)",
    "concurrency_kind": "offline: every prompt queued at once ('a local inference client is fed requests at an infinite rate'); max num seqs equal to the number of prompts",
    "metric_reading": "the page's 'Throughput (tokens/s)' of the 8 GPUs, read as output tokens/s (see amd_points.py)",
}
AZURE = {
    "source": "Microsoft Azure AI-benchmarking-guide, ND MI300X v5 results, 'End-to-End Inference Workloads - vLLM'",
    "url_or_repo_path": "github.com/Azure/AI-benchmarking-guide Azure_Results/ND_MI300X_v5_results.md @ 3de0c294 (stored fork samuel-bohman/AI-benchmarking-guide); script Benchmarks/AMD/LLMBenchmark.py",
    "framework": "vLLM benchmark_throughput.py in rocm/vllm-dev:20241121-tuned; --quantization fp8 --kv-cache-dtype fp8 --num-scheduler-steps 10 --enable-chunked-prefill false --gpu-memory-utilization 0.90",
    "system": "Azure ND MI300X v5: 8x AMD MI300X, ROCm 6.2 (HIP 6.2.41133), RCCL 2.22.3",
    "concurrency_kind": "offline: 1,000 prompts queued at once (benchmark_throughput.py)",
    "metric_reading": "output tokens/s of the tensor-parallel group (the seventh field of benchmark_throughput's 'Throughput:' line)",
}

AZURE_H200 = {
    "source": "Microsoft Azure AI-benchmarking-guide, ND H200 v5 results, 'End-to-End Inference Workloads'",
    "url_or_repo_path": "github.com/Azure/AI-benchmarking-guide Azure_Results/ND_H200_v5_results.md @ 0de7d01d (stored fork samuel-bohman/AI-benchmarking-guide); script Benchmarks/NVIDIA/LLMBenchmark.py",
    "framework": "TensorRT-LLM v0.15.0, trtllm-bench build (--quantization FP8) and throughput, prepare_dataset.py token-norm-dist with stdev 0",
    "system": "Azure ND H200 v5: 8x NVIDIA H200 141GB, CUDA 12.6, NCCL 2.20.5",
    "concurrency_kind": "offline: 1,000 prompts queued at once (trtllm-bench throughput)",
    "metric_reading": "the table's 'throughput(tokens/sec)' of the tensor-parallel group; the script keeps trtllm-bench's report whole and the table does not name which of its throughputs it quotes, so these rows are a control, printed and not counted",
    "control": True,
}

PAGE_ROWS = [  # model, tp, isl, osl, prompts (= max num seqs), throughput of the 8 GPUs
    ("Llama-3.1-70B-Instruct", 8, 128, 2048, 3200, 13279.6),
    ("Llama-3.1-70B-Instruct", 8, 128, 4096, 1500, 11449.7),
    ("Llama-3.1-70B-Instruct", 8, 500, 2000, 2000, 11347.4),
    ("Llama-3.1-70B-Instruct", 8, 2048, 2048, 1500, 7651.7),
    ("Llama-3.1-405B-Instruct", 8, 128, 2048, 1500, 3816.8),
    ("Llama-3.1-405B-Instruct", 8, 128, 4096, 1500, 3099.6),
    ("Llama-3.1-405B-Instruct", 8, 500, 2000, 2000, 3026.1),
    ("Llama-3.1-405B-Instruct", 8, 2048, 2048, 500, 2196.4),
]
AZURE_ROWS = [  # model, tp, isl, osl, output tokens/s of the group (1,000 prompts)
    ("Llama-3.1-8B-Instruct", 1, 128, 128, 18149),
    ("Llama-3.1-8B-Instruct", 1, 128, 1024, 19579),
    ("Llama-3.1-8B-Instruct", 1, 128, 2048, 16394),
    ("Llama-3.1-8B-Instruct", 1, 500, 2000, 13559),
    ("Llama-3.1-8B-Instruct", 1, 1024, 1024, 10995),
    ("Llama-3.1-8B-Instruct", 1, 2048, 2048, 7356),
    ("Llama-3.1-70B-Instruct", 8, 128, 128, 9026),
    ("Llama-3.1-70B-Instruct", 8, 128, 1024, 12461),
    ("Llama-3.1-70B-Instruct", 8, 128, 2048, 12204),
    ("Llama-3.1-70B-Instruct", 8, 500, 2000, 10877),
    ("Llama-3.1-70B-Instruct", 8, 1024, 1024, 8256),
    ("Llama-3.1-70B-Instruct", 8, 2048, 2048, 7421),
    ("Llama-3.1-405B-Instruct", 8, 128, 128, 2484),
    ("Llama-3.1-405B-Instruct", 8, 128, 1024, 3846),
    ("Llama-3.1-405B-Instruct", 8, 128, 2048, 3902),
    ("Llama-3.1-405B-Instruct", 8, 500, 2000, 3407),
    ("Llama-3.1-405B-Instruct", 8, 1024, 1024, 2363),
    ("Llama-3.1-405B-Instruct", 8, 2048, 2048, 1840),
]


AZURE_H200_ROWS = [  # the same settings on an H200 node, TensorRT-LLM
    ("Llama-3.1-8B-Instruct", 1, 128, 128, 17853),
    ("Llama-3.1-8B-Instruct", 1, 128, 1024, 23880),
    ("Llama-3.1-8B-Instruct", 1, 128, 2048, 21255),
    ("Llama-3.1-8B-Instruct", 1, 500, 2000, 18357),
    ("Llama-3.1-8B-Instruct", 1, 1024, 1024, 15043),
    ("Llama-3.1-8B-Instruct", 1, 2048, 2048, 9736),
    ("Llama-3.1-70B-Instruct", 8, 128, 128, 11973),
    ("Llama-3.1-70B-Instruct", 8, 128, 1024, 18369),
    ("Llama-3.1-70B-Instruct", 8, 128, 2048, 18219),
    ("Llama-3.1-70B-Instruct", 8, 500, 2000, 15911),
    ("Llama-3.1-70B-Instruct", 8, 1024, 1024, 11302),
    ("Llama-3.1-70B-Instruct", 8, 2048, 2048, 10371),
    ("Llama-3.1-405B-Instruct", 8, 128, 128, 3148),
    ("Llama-3.1-405B-Instruct", 8, 128, 1024, 4981),
    ("Llama-3.1-405B-Instruct", 8, 128, 2048, 5098),
    ("Llama-3.1-405B-Instruct", 8, 500, 2000, 4447),
    ("Llama-3.1-405B-Instruct", 8, 1024, 1024, 3050),
    ("Llama-3.1-405B-Instruct", 8, 2048, 2048, 2859),
]


def point(base, model, tp, isl, osl, prompts, total, gpu="MI300X"):
    return {**base, "model": model, "precision": "fp8 (weights and KV cache)", "gpu": gpu,
            "num_gpus": tp, "parallelism_label": f"TP{tp}", "tp": tp, "ep": 1, "attention_dp": False,
            "isl": isl, "osl": osl, "num_prompts": prompts, "concurrency_or_batch": prompts,
            "spec_decoding": "none",
            "metrics": {"output_tok_per_s_total": total, "output_tok_per_s_per_gpu": round(total / tp, 1)}}


def main():
    out = [point(AMD_PAGE, *r) for r in PAGE_ROWS]
    out += [point(AZURE, m, tp, i, o, 1000, t) for m, tp, i, o, t in AZURE_ROWS]
    out += [point(AZURE_H200, m, tp, i, o, 1000, t, gpu="H200-SXM") for m, tp, i, o, t in AZURE_H200_ROWS]
    with open(os.path.join(HERE, "amd.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(out)} points")


if __name__ == "__main__":
    main()

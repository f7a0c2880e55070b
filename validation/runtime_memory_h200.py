"""Device memory a serving process holds outside PyTorch's allocator: the
CUDA context, then cuBLAS and the attention kernels' handles and
workspaces after their first calls. Writes JSON with the environment and
each reading (bytes). hardware/h200-sxm.toml's memory.runtime-bytes is the
last reading's `outside_allocator`.

    python3 validation/runtime_memory_h200.py --out validation/results/<date>-<gpu>/runtime_memory_h200.json
"""

import argparse
import json
import subprocess

import torch
import torch.nn.functional as F


def reading(label):
    free, total = torch.cuda.mem_get_info()
    reserved = torch.cuda.memory_reserved()
    return {
        "after": label,
        "total": total,
        "free": free,
        "allocator_reserved": reserved,
        "outside_allocator": total - free - reserved,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rows = [reading("a fresh process (the CUDA context alone)")]
    a = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    (a @ b).sum().item()
    torch.cuda.synchronize()
    rows.append(reading("a bf16 GEMM 4096 x 8192 x 8192 (cuBLAS)"))
    q = torch.randn(1, 64, 2048, 128, device="cuda", dtype=torch.bfloat16)
    F.scaled_dot_product_attention(q, q, q, is_causal=True).sum().item()
    torch.cuda.synchronize()
    rows.append(reading("a causal scaled_dot_product_attention, 64 heads x 2048 x 128"))
    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    out = {
        "method": "torch.cuda.mem_get_info() total - free - torch.cuda.memory_reserved(), after each call",
        "environment": {
            "gpu": torch.cuda.get_device_name(),
            "nvidia_smi": smi,
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
        },
        "readings": rows,
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

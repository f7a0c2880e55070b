"""Which weight-streaming GEMMs cuBLAS splits over K on an H200: the
projections of eleven catalog models (their N x K from models/*.toml) at
M = 1 to 256 rows, as `x @ w.t()` and as `torch.addmm(r, x, w.t())` (the
two calls serving_fidelity.py's forward makes), bf16, each called once
under torch.profiler after a warm-up: the kernels it launched, and whether
one was a split-K kernel with its `splitKreduce_kernel`. Decides the split
rule for memory-bound GEMMs (docs/validation.md, "Small models and single
calls").

    python3 validation/probes/split_k_h200.py OUT.json
"""

import json
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

# (model, d, heads, kv heads, head dim, ffn) from models/*.toml.
MODELS = [
    ("llama-3.2-1b", 2048, 32, 8, 64, 8192),
    ("llama-3.2-3b", 3072, 24, 8, 128, 8192),
    ("llama-3-8b", 4096, 32, 8, 128, 14336),
    ("llama-2-7b", 4096, 32, 32, 128, 11008),
    ("qwen3-8b", 4096, 32, 8, 128, 12288),
    ("qwen3-32b", 5120, 64, 8, 128, 25600),
    ("gemma-3-27b", 5376, 32, 16, 128, 21504),
    ("llama-3.1-70b", 8192, 64, 8, 128, 28672),
    ("mistral-7b", 4096, 32, 8, 128, 14336),
    ("qwen3-30b-a3b-attn", 2048, 32, 4, 128, 768),
    ("gpt-oss-20b-attn", 2880, 64, 8, 64, 2880),
]
ROWS = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def shapes():
    seen = set()
    for name, d, h, kv, dh, ff in MODELS:
        for proj, n, k in (("qkv", (h + 2 * kv) * dh, d), ("o", d, h * dh), ("gate_up", 2 * ff, d),
                           ("down", d, ff)):
            if (n, k) not in seen:
                seen.add((n, k))
                yield name, proj, n, k


def kernels(fn):
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def main():
    out = sys.argv[1]
    rows = []
    bf = dict(device="cuda", dtype=torch.bfloat16)
    for name, proj, n, k in shapes():
        w = torch.randn(n, k, **bf) * 0.02
        for m in ROWS:
            x = torch.randn(m, k, **bf)
            r = torch.randn(m, n, **bf)
            for op, fn in (("mm", lambda: x @ w.t()), ("addmm", lambda: torch.addmm(r, x, w.t()))):
                for _ in range(3):
                    fn()
                names = kernels(fn)
                row = dict(model=name, proj=proj, m=m, n=n, k=k, op=op, kernels=names,
                           split=any("splitK" in s or "splitk" in s.lower() for s in names))
                rows.append(row)
            print(name, proj, m, n, k, [r_["split"] for r_ in rows[-2:]], rows[-2]["kernels"][0][:40],
                  flush=True)
        del w
        torch.cuda.empty_cache()
    with open(out, "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                       date_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       method=__doc__, rows=rows), f, indent=1)
    print("wrote", out, flush=True)


if __name__ == "__main__":
    main()

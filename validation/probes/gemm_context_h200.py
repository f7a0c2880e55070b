"""Why the forward's GEMMs ran faster than the same shapes alone (issue 17).

    python3 validation/probes/gemm_context_h200.py OUTDIR     # under a minute

validation/results/2026-12-02-h200/h200-prefill-ops.json: in an eager Llama-3-8B bf16 prefill at
S = 2,048 the gate/up GEMM (2048 x 28672 x 4096, nvjet 320x128 coopB) took
611 us a call; alone, back to back in a CUDA graph, the same kernel took 677
us whatever the operands' scale (validation/results/2026-12-02-h200/h200-gemm-data.json). Here, on
a two-layer model of validation/serving_fidelity.py (the forward's own
tensors), the gate/up GEMM is timed (CUDA events, each after 2 s of rest):
the forward's normed input against its weights, alone and 10 back to back;
then each call followed by a memory-bound kernel (the forward's SiLU), as
the forward interleaves them; and the whole two-layer prefill under
torch.profiler, for the GEMM's own duration there.

Writes OUTDIR/gemm-context.json.
"""

import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
for p in (HERE, os.path.join(HERE, "..")):
    sys.path.insert(0, os.path.abspath(p))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import serving_fidelity as sf  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "gemm-context-out"


def ev(fn):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) * 1e-3


def prof_gemm(fn):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [(e.name[:80], e.device_time * 1e-6) for e in prof.events()
            if e.device_type == torch.autograd.DeviceType.CUDA]


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    M = sf.Model("llama-3-8b", "bf16", layers=2)
    S = 2048
    tok = torch.randint(0, M.m["V"], (1, S), device="cuda")
    x = M.emb[tok].reshape(S, -1)
    y = F.rms_norm(x, (x.shape[-1],), M.layers[0]["n2"], 1e-5)
    w = M.layers[0]["gu"]
    w2 = M.layers[1]["gu"]
    rnd = torch.randn_like(y)
    res = {}
    for label, a, b in (("forward_tensors", y, w), ("randn_input", rnd, w), ("forward_tensors_w2", y, w2)):
        a @ b.t()
        torch.cuda.synchronize()
        time.sleep(2.0)
        one = ev(lambda: a @ b.t())
        time.sleep(2.0)
        ten = ev(lambda: [a @ b.t() for _ in range(10)]) / 10
        time.sleep(2.0)
        k = prof_gemm(lambda: [a @ b.t() for _ in range(5)])
        g = [d for n, d in k if "nvjet" in n]
        time.sleep(2.0)

        def inter():
            for _ in range(10):
                o = a @ b.t()
                gg, uu = o.chunk(2, -1)
                F.silu(gg) * uu
        k2 = prof_gemm(inter)
        g2 = [d for n, d in k2 if "nvjet" in n]
        res[label] = dict(single_s=one, back_to_back_s=ten, profiled_back_to_back=g,
                          profiled_interleaved=g2)
        print(f"{label}: single {one * 1e6:.1f} us, 10 back to back {ten * 1e6:.1f} us, "
              f"profiled {[round(d * 1e6, 1) for d in g]}, interleaved "
              f"{[round(d * 1e6, 1) for d in g2]}", flush=True)
    time.sleep(2.0)
    M.prefill(tok)
    torch.cuda.synchronize()
    time.sleep(2.0)
    k = prof_gemm(lambda: M.prefill(tok))
    res["prefill_kernels"] = k
    print("prefill:", [(n[:40], round(d * 1e6, 1)) for n, d in k if "nvjet" in n], flush=True)
    with open(os.path.join(OUT, "gemm-context.json"), "w") as f:
        json.dump(dict(device=torch.cuda.get_device_name(), torch=torch.__version__, **res), f,
                  indent=1)


if __name__ == "__main__":
    main()

"""Held-out small and split-K GEMMs and the launch gap inside a CUDA graph (issue 17).

    python3 validation/probes/gemm_probe2.py OUT.json          # about 2 minutes on an H200
    python3 validation/probes/gemm_probe2.py --ncu             # one launch of each split-K shape, for Nsight Compute

Sections of OUT.json:

- gemm: GEMMs of shapes no figure was fitted on (small squares between the
  probed ones, small M and N over long K where cuBLAS splits K, and a few
  skewed ones), bf16 and fp8, timed by calibrate.py's method (a CUDA graph
  cycling over cold copies), with the kernels the torch profiler saw and
  their device time (warm operands, one call).
- chain: the same 256^3 and 1024^3 GEMM on warm operands captured N times
  in one graph, per-GEMM time, against the profiler's kernel duration:
  whether the graph's per-kernel launch adds to a kernel's own time or
  hides under it.
"""

import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.getcwd(), "validation"))
import calibrate as cal  # noqa: E402
import fidelity_probe as fp  # noqa: E402
import serving_fidelity as sf  # noqa: E402

T0 = time.time()
SQUARES = [128, 192, 320, 448, 640, 896, 1280, 1792, 2560]
SKEWED = [(128, 512, 512), (384, 1536, 768), (1536, 384, 1024), (640, 2560, 1280)]
SPLITK = [(128, 128, 8192), (256, 256, 2048), (256, 256, 8192), (256, 512, 4096),
          (512, 256, 4096), (512, 512, 4096), (128, 256, 16384), (384, 384, 8192),
          (256, 1024, 8192), (64, 64, 16384)]
SHAPES = [(s, s, s) for s in SQUARES] + SKEWED + SPLITK


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def operands(dtype, m, n, k):
    one = torch.ones((), device="cuda")
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    if dtype == "fp8":
        a8, b8 = a.to(sf.FP8), b.to(sf.FP8)
        return lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16)
    return lambda: a @ b.t()


def ncu_mode():
    # One warm-up, then one NVTX-named launch per shape.
    import torch.cuda.nvtx as nvtx
    for dtype in ("bf16", "fp8"):
        for m, n, k in SPLITK + [(256, 256, 256), (1024, 1024, 1024), (256, 256, 4096)]:
            fn = operands(dtype, m, n, k)
            fn()
            torch.cuda.synchronize()
            nvtx.range_push(f"{dtype} {m}x{n}x{k}")
            fn()
            torch.cuda.synchronize()
            nvtx.range_pop()


def main():
    if sys.argv[1] == "--ncu":
        cal.probe_pad()
        ncu_mode()
        return
    out = sys.argv[1]
    cal.probe_pad()
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
               cuda=torch.version.cuda, method=__doc__, gemm=[], kernels={}, chain=[])
    rows = res["gemm"]

    class W:
        def row(self, **kw):
            rows.append(kw)

    w = W()
    for dtype in ("bf16", "fp8"):
        for m, n, k in SHAPES:
            try:
                cal.gemm_one(w, dtype, m, n, k, f"heldout {m}x{n}x{k}", 20)
                p = fp.profile_ops(operands(dtype, m, n, k))
                res["kernels"][f"{dtype} {m}x{n}x{k}"] = p["kernels_by_time"]
            except Exception as e:  # noqa: BLE001
                log(f"gemm {dtype} {m}x{n}x{k} FAILED {e!r}")
        with open(out, "w") as f:
            json.dump(res, f, indent=1)
    for dtype in ("bf16", "fp8"):
        for s in (256, 1024):
            fn = operands(dtype, s, s, s)
            for calls in (1, 64):
                g = cal.graph_of(lambda: [fn() for _ in range(calls)])
                for _ in range(3):
                    g.replay()
                t = cal.events_time(g.replay, 50) / calls
                res["chain"].append(dict(dtype=dtype, m=s, n=s, k=s, calls=calls, seconds=t))
                log(f"chain {dtype} {s}^3 x{calls}: {t * 1e6:.2f} us per GEMM")
                del g
            p = fp.profile_ops(fn)
            res["chain"].append(dict(dtype=dtype, m=s, n=s, k=s, profile=p["kernels_by_time"]))
    res["wall_s"] = time.time() - T0
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    log(f"wrote {out}")


if __name__ == "__main__":
    main()

"""FP8 grouped expert GEMMs at DeepSeek-V3's routed-expert shapes, with what
PyTorch offers, for issue 53 (an independent check of Hopper's FP8 grouped
MoE figures; docs/validation.md, "FP8 grouped GEMMs at DeepSeek-V3's shapes").

    python3 validation/fp8_grouped_gpu.py OUTDIR [--quick]

DeepSeek-V3 (config.json: hidden 7,168, moe_intermediate_size 2,048, 256
routed experts, top 8): gate/up [rows, 7,168] x [7,168, 4,096] and down
[rows, 2,048] x [2,048, 7,168] per expert, over all 256 experts with the
same rows each (1, 2, 4, 8, 16, 32, 64, 128, 256 rows an expert), e4m3
operands, bf16 output:

- `scaled_grouped`: torch._scaled_grouped_mm, one call over the experts,
  a float32 scale per row of A and per column of each expert's B (rowwise);
- `scaled_loop`: torch._scaled_mm once per expert (per-tensor scales), the
  loop an implementation without a grouped FP8 kernel runs (rows padded
  to the multiple _scaled_mm needs), at 1, 16 and 128 rows only;
- `bf16_grouped`: torch._grouped_mm in bf16 at the same shapes, for scale.

Each point is replayed from a CUDA graph cycling over enough weight copies
that none stays in L2 (validation/common.py time_cold; the weights of one
call are 7.5 GB for gate/up, so one copy), median over the replays, results
checked on a few rows against float32. `weight_gbps` is the weight bytes
over the time; `tflops` the useful FLOPs over it. Writes
OUTDIR/fp8-grouped.json after every point.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import log  # noqa: E402

E, D, FF = 256, 7168, 2048
GEMMS = (("gate_up", 2 * FF, D), ("down", D, FF))
ROWS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
LOOP_ROWS = (1, 16, 128)
QUICK = "--quick" in sys.argv


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch = common.need_torch()
    f8 = common.fp8_dtype()
    env = common.environment()
    res = dict(env, script="validation/fp8_grouped_gpu.py", experts=E, hidden=D,
               expert_ff=FF, points=[], notes=[])
    path = os.path.join(out, "fp8-grouped.json")

    def save():
        with open(path, "w") as fh:
            json.dump(res, fh, indent=1)

    sgmm = getattr(torch, "_scaled_grouped_mm", None)
    gmm = getattr(torch, "_grouped_mm", None)
    res["has_scaled_grouped_mm"] = sgmm is not None
    rows_list = ROWS if not QUICK else (1, 128)
    t0 = time.time()

    def point(kind, name, n, k, rows, t, err, extra=None):
        flops = 2.0 * E * rows * n * k
        wbytes = E * n * k * (1 if kind != "bf16_grouped" else 2)
        r = dict(kind=kind, gemm=name, experts=E, rows=rows, n=n, k=k, seconds=t,
                 tflops=flops / t / 1e12, weight_gbps=wbytes / t / 1e9, rel_err=err)
        if extra:
            r.update(extra)
        res["points"].append(r)
        log(f"{kind:15s} {name:8s} rows {rows:4d}: {t * 1e6:10.1f} us {r['tflops']:7.1f} TFLOP/s "
            f"{r['weight_gbps']:7.0f} GB/s err {err:.1e}")
        save()

    for name, n, k in GEMMS:
        for rows in rows_list:
            M = E * rows
            offs = torch.arange(1, E + 1, device="cuda", dtype=torch.int32) * rows
            # FP8 grouped: B as [E, K, N] column-major (a transposed [E, N, K]).
            if sgmm is not None:
                def make8(i, n=n, k=k, M=M):
                    g = torch.Generator(device="cuda").manual_seed(300 + i)
                    a = torch.randn(M, k, device="cuda", generator=g, dtype=torch.bfloat16)
                    b = torch.randn(E, n, k, device="cuda", generator=g, dtype=torch.bfloat16)
                    return (a.to(f8), b.to(f8).transpose(-2, -1),
                            torch.ones(M, device="cuda", dtype=torch.float32),
                            torch.ones(E, n, device="cuda", dtype=torch.float32))
                fn8 = lambda a, b, sa, sb, offs=offs: sgmm(  # noqa: E731
                    a, b, sa, sb, offs=offs, out_dtype=torch.bfloat16)
                try:
                    per = E * n * k + M * k
                    t, o, (a, b, _, _), nrep = common.time_cold(
                        make8, fn8, per, max(per / 2.5e12, 2.0 * M * n * k / 1000e12, 6e-6), 10)
                    r = min(4, rows)
                    err = common.rel_err(o[:r, :1024], a[:r].float() @ b[0][:, :1024].float())
                    point("scaled_grouped", name, n, k, rows, t, err, dict(repeats=nrep))
                    del a, b, o
                except Exception as e:  # noqa: BLE001
                    msg = f"scaled_grouped {name} rows {rows}: {e!r}"[:400]
                    log(msg)
                    res["notes"].append(msg)
                torch.cuda.empty_cache()
            # bf16 grouped, for scale.
            if gmm is not None:
                def make16(i, n=n, k=k, M=M):
                    g = torch.Generator(device="cuda").manual_seed(400 + i)
                    return (torch.randn(M, k, device="cuda", generator=g, dtype=torch.bfloat16),
                            torch.randn(E, n, k, device="cuda", generator=g,
                                        dtype=torch.bfloat16).transpose(-2, -1))
                fn16 = lambda a, b, offs=offs: gmm(a, b, offs=offs)  # noqa: E731
                try:
                    per = 2 * (E * n * k + M * k)
                    t, o, (a, b), nrep = common.time_cold(
                        make16, fn16, per, max(per / 2.5e12, 2.0 * M * n * k / 600e12, 6e-6), 10)
                    r = min(4, rows)
                    err = common.rel_err(o[:r, :1024], a[:r].float() @ b[0][:, :1024].float())
                    point("bf16_grouped", name, n, k, rows, t, err, dict(repeats=nrep))
                    del a, b, o
                except Exception as e:  # noqa: BLE001
                    msg = f"bf16_grouped {name} rows {rows}: {e!r}"[:400]
                    log(msg)
                    res["notes"].append(msg)
                torch.cuda.empty_cache()
            # A per-expert loop of _scaled_mm (per-tensor scales).
            if rows in LOOP_ROWS and not QUICK:
                pad = 16 if rows % 16 else rows
                one = torch.ones((), device="cuda")

                def makel(i, n=n, k=k):
                    g = torch.Generator(device="cuda").manual_seed(500 + i)
                    a = torch.randn(E, pad, k, device="cuda", generator=g, dtype=torch.bfloat16)
                    b = torch.randn(E, n, k, device="cuda", generator=g, dtype=torch.bfloat16)
                    return a.to(f8), b.to(f8)

                def fnl(a, b):
                    o = None
                    for e in range(E):
                        o = torch._scaled_mm(a[e], b[e].t(), scale_a=one, scale_b=one,
                                             out_dtype=torch.bfloat16)
                    return o
                try:
                    per = E * n * k + E * pad * k
                    t, o, (a, b), nrep = common.time_cold(
                        makel, fnl, per, max(per / 2.5e12, E * 8e-6), 5)
                    err = common.rel_err(o[:4, :1024], a[E - 1][:4].float()
                                         @ b[E - 1][:1024].float().t())
                    point("scaled_loop", name, n, k, rows, t, err,
                          dict(repeats=nrep, rows_run=pad))
                    del a, b, o
                except Exception as e:  # noqa: BLE001
                    msg = f"scaled_loop {name} rows {rows}: {e!r}"[:400]
                    log(msg)
                    res["notes"].append(msg)
                torch.cuda.empty_cache()
    res["wall_s"] = time.time() - t0
    save()
    log(f"wrote {path}")


if __name__ == "__main__":
    main()

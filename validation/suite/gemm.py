"""GEMMs: the calibration's grid of shapes per precision (the serving shapes
of Llama-3-8B and Llama-3.1-70B included), each in a CUDA graph over cold
weight copies; cuBLAS timings and their Nsight Compute probe
(validation/gemm.py)."""

from validation.common import fp8_dtype, fp8_ok, log, rel_err, time_cold
from validation.suite import Rows, Script

torch = F = None  # bound by common.need_torch() when a section runs


# Projections as (name, N, K) of a [M,K] x [K,N] GEMM; weights are [N,K].
LLAMA3_8B = [("qkv", 6144, 4096), ("o", 4096, 4096), ("gate_up", 28672, 4096),
             ("down", 4096, 14336), ("lm_head", 128256, 4096)]


LLAMA31_70B = [("qkv", 10240, 8192), ("o", 8192, 8192), ("gate_up", 57344, 8192),
               ("down", 8192, 28672), ("lm_head", 128256, 8192)]


SERVING_M = [1, 8, 32, 128, 512, 2048, 8192]


SQUARE = [512, 1024, 2048, 4096, 8192, 16384]


OTHER = [(16384, 1024, 16384), (1024, 16384, 16384), (4096, 4096, 65536),
         (16384, 16384, 1024)]


PAD_M = None  # rows _scaled_mm's first operand must be a multiple of (found by probe)


def probe_pad():
    global PAD_M
    one = torch.ones((), device="cuda")
    for pad in (1, 16):
        try:
            a = torch.randn(pad, 64, device="cuda").to(fp8_dtype())
            b = torch.randn(64, 64, device="cuda").to(fp8_dtype())
            torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            torch.cuda.synchronize()
            PAD_M = pad
            return
        except RuntimeError:
            continue


def gemm_one(w, dtype, m, n, k, label, reps):
    note = label
    run_m = m
    if dtype == "fp8" and PAD_M and m % PAD_M:
        run_m = m + PAD_M - m % PAD_M
        note += f"; M padded to {run_m} (torch._scaled_mm needs a multiple of {PAD_M})"
    eb = 1 if dtype == "fp8" else 2
    per_copy = eb * (n * k + run_m * k)
    one = torch.ones((), device="cuda")

    def make(i):
        g = torch.Generator(device="cuda").manual_seed(100 + i)
        a = torch.randn(run_m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        wt = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g)
        if dtype == "fp8":
            a, wt = a.to(fp8_dtype()), wt.to(fp8_dtype())
        return a, wt

    if dtype == "fp8":
        fn = lambda a, wt: torch._scaled_mm(a, wt.t(), scale_a=one, scale_b=one,
                                            out_dtype=torch.bfloat16)
    else:
        fn = lambda a, wt: a @ wt.t()
    flops = 2.0 * m * n * k
    est = max(2.0 * run_m * n * k / 600e12, per_copy / 3.5e12, 4e-6)
    t, out, (a, wt), nrep = time_cold(make, fn, per_copy, est, reps)
    rows, cols = min(4, run_m), min(1024, n)
    err = rel_err(out[:rows, :cols], a[:rows].float() @ wt[:cols].float().t())
    bad = not (err < (0.05 if dtype == "fp8" else 0.02))
    w.row(operation="gemm", m=run_m, n=n, k=k, dtype=dtype, launch="graph", repeats=nrep,
          seconds=t, flops=2.0 * run_m * n * k, bytes=eb * (n * k + run_m * k) + 2 * run_m * n,
          note=note + (f"; RESULT CHECK FAILED rel err {err:.2e}" if bad else ""))
    log(f"gemm {dtype} {label} {run_m}x{n}x{k}: {t * 1e6:9.2f} us "
        f"{flops / t / 1e12:7.1f} TFLOP/s err {err:.1e}")
    torch.cuda.empty_cache()


def gemms(w, quick):
    dtypes = ["bf16"] + (["fp8"] if fp8_ok() else [])
    if "fp8" in dtypes:
        probe_pad()
        if PAD_M is None:
            log("fp8: torch._scaled_mm refused every probe; fp8 rows skipped")
            dtypes = ["bf16"]
    else:
        log("fp8: this part has no fp8 matrix unit PyTorch can use; fp8 rows skipped")
    ms = SERVING_M if not quick else [1, 128, 2048]
    reps = 15 if not quick else 5
    for dtype in dtypes:
        plan = [(s, s, s, f"square {s}") for s in (SQUARE if not quick else [1024, 8192])]
        if not quick:
            plan += [(m, n, k, "other") for m, n, k in OTHER]
        for model, projs in (("llama-3-8b", LLAMA3_8B), ("llama-3.1-70b", LLAMA31_70B)):
            for m in ms:
                for name, n, k in projs:
                    plan.append((m, n, k, f"{model} {name}"))
        for m, n, k, label in plan:
            try:
                gemm_one(w, dtype, m, n, k, label, reps)
            except Exception as e:  # noqa: BLE001
                log(f"gemm {dtype} {m}x{n}x{k} FAILED: {e!r}")
                torch.cuda.empty_cache()


NCU_GEMM = ("ncu --clock-control none --nvtx --csv --log-file {dir}/h200-gemm-ncu.csv --metrics "
            "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,"
            "lts__t_sectors_srcunit_tex_op_read.sum,launch__grid_size,launch__block_size").split()

SECTIONS = [
    Rows("gemm.shapes", "gemm", "the calibration's GEMM grid, bf16 and fp8, graph over cold "
         "copies (calibration rows gemm)", gemms),
    Script("gemm.cublas", "gemm.py", "60 cuBLAS GEMMs, median of 15 graph replays over cold "
           "copies", argv=["{py}", "{script}"], env={"OUT": "{dir}"}, quick_env={"QUICK": "1"}),
    Script("gemm.ncu-probe", "gemm.py", "15 GEMMs once each under Nsight Compute",
           argv=NCU_GEMM + ["{py}", "{script}", "probe"], needs="1 GPU, ncu"),
]

"""Mixture of experts: the calibration's grouped expert GEMMs (rows), grouped
and looped experts' decode and prefill steps (validation/engine_moe_h200.py)
and a Mixtral-8x7B prefill's kernels one by one
(validation/moe_prefill_ops_h200.py)."""

from validation.common import log, rel_err, time_cold
from validation.suite import Rows, Script

torch = F = None  # bound by common.need_torch() when a section runs


# (label, experts, [(GEMM, N, K)]) of a [rows, K] x [K, N] GEMM per expert:
# the routed experts' gate/up and down of three published MoE shapes
# (config.json of each). Not the shapes of the MoE steps the calibration is
# checked on (Qwen3-30B-A3B, gpt-oss-20b, DeepSeek-V2-Lite): those stay held out.
GROUPED = [("mixtral-8x7b", 8, [("gate_up", 28672, 4096), ("down", 4096, 14336)]),
           ("qwen3-235b-a22b", 128, [("gate_up", 3072, 4096), ("down", 4096, 1536)]),
           ("deepseek-v3", 256, [("gate_up", 4096, 7168), ("down", 7168, 2048)])]


GROUPED_ROWS = [1, 2, 8, 32, 128, 512]  # rows (routed tokens) per expert


def grouped_gemm():
    """torch._grouped_mm as the validation's MoE steps call it, and whether
    its B operand may be the transposed [E, N, K] weights (else [E, K, N])."""
    gmm = getattr(torch, "_grouped_mm", None) or getattr(F, "grouped_mm", None)
    if gmm is None:
        return None, False
    bf = dict(device="cuda", dtype=torch.bfloat16)
    a = torch.randn(64, 256, **bf)
    offs = torch.tensor([16, 16, 48, 64], dtype=torch.int32, device="cuda")
    try:
        gmm(a, torch.randn(4, 128, 256, **bf).transpose(-2, -1), offs=offs)
        torch.cuda.synchronize()
        return gmm, True
    except RuntimeError:
        return gmm, False


def grouped_one(w, gmm, transposed, label, experts, n, k, rows, reps):
    """One grouped GEMM over `experts` groups of `rows` rows each, timed in a
    graph over cold weight copies (each expert's weights read once a call)."""
    per_copy = 2 * experts * (n * k + rows * k)
    offs = (torch.arange(1, experts + 1, device="cuda", dtype=torch.int32) * rows)

    def make(i):
        g = torch.Generator(device="cuda").manual_seed(200 + i)
        a = torch.randn(experts * rows, k, device="cuda", dtype=torch.bfloat16, generator=g)
        if transposed:
            wt = torch.randn(experts, n, k, device="cuda", dtype=torch.bfloat16,
                             generator=g).transpose(-2, -1)
        else:
            wt = torch.randn(experts, k, n, device="cuda", dtype=torch.bfloat16, generator=g)
        return a, wt

    fn = lambda a, wt: gmm(a, wt, offs=offs)  # noqa: E731
    flops = 2.0 * experts * rows * n * k
    est = max(flops / 500e12, per_copy / 2.5e12, 6e-6)
    t, out, (a, wt), nrep = time_cold(make, fn, per_copy, est, reps)
    r = min(4, rows)
    err = rel_err(out[:r, : min(1024, n)], a[:r].float() @ wt[0][:, : min(1024, n)].float())
    bad = not (err < 0.02)
    w.row(operation="grouped_gemm", batch=experts, m=rows, n=n, k=k, dtype="bf16",
          launch="graph", repeats=nrep, seconds=t, flops=flops,
          bytes=2 * experts * (n * k + rows * k + rows * n),
          kernels=2, note=label + (f"; RESULT CHECK FAILED rel err {err:.2e}" if bad else ""))
    log(f"grouped {label} {experts} x {rows}x{n}x{k}: {t * 1e6:9.2f} us "
        f"{flops / t / 1e12:7.1f} TFLOP/s {per_copy / t / 1e9:7.0f} GB/s err {err:.1e}")


def grouped(w, quick):
    """The routed experts' grouped GEMMs (calibration rows grouped_gemm):
    `torch._grouped_mm`, bf16, one call over every expert with the same
    rows each (`batch` experts of `m` rows; `kernels` 2: PyTorch's
    prepare_grouped_gemm_data and the CUTLASS grouped GEMM), each timed in a
    CUDA graph over enough weight copies that none stays in L2. `bytes`
    counts the weights, the rows read and the rows written once."""
    gmm, transposed = grouped_gemm()
    if gmm is None:
        log("grouped: this PyTorch has no torch._grouped_mm; grouped_gemm rows skipped")
        return
    rows = GROUPED_ROWS if not quick else [1, 128]
    reps = 15 if not quick else 5
    for label, experts, gemms in GROUPED:
        for name, n, k in gemms:
            for m in rows:
                try:
                    grouped_one(w, gmm, transposed, f"{label} {name}", experts, n, k, m, reps)
                except Exception as e:  # noqa: BLE001 - a part whose PyTorch refuses a shape
                    log(f"grouped {label} {name} {experts} x {m}: FAILED {e!r}")
                torch.cuda.empty_cache()


SECTIONS = [
    Rows("moe.grouped", "grouped", "the routed experts' grouped GEMMs (torch._grouped_mm, bf16) "
         "at three MoE shapes and 1 to 512 rows an expert, graph over cold copies (calibration "
         "rows grouped_gemm)", grouped),
    Script("moe.engine", "engine_moe_h200.py", "Qwen3-30B-A3B, Mixtral-8x7B and DeepSeek-V3 "
           "shaped MoE steps, grouped and loop experts, each model in its own process",
           argv=["{py}", "{script}", "all", "{dir}"]),
    Script("moe.prefill-ops", "moe_prefill_ops_h200.py", "a Mixtral-8x7B prefill's kernels; "
           "decode steps under the profiler"),
]

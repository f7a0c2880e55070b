"""Memory: stream bandwidth (the calibration's hbm rows), strided reads, bytes
in flight, softmax fusion and elementwise epilogues (validation/measure.py),
and their DRAM bytes under Nsight Compute (validation/ncu_probe.py)."""

from validation.common import events_time, log
from validation.suite import Rows, Script

torch = F = None  # bound by common.need_torch() when a section runs


def hbm(w, quick):
    n = (1 << 30) if not quick else (256 << 20)  # bytes per buffer
    a = torch.randn(n // 4, device="cuda")
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
        a.sum()
    torch.cuda.synchronize()
    reps = 10 if quick else 30
    t = events_time(lambda: b.copy_(a), reps)
    assert torch.equal(a[:1024], b[:1024])
    w.row(operation="hbm_copy", bytes=2 * n, dtype="fp32", launch="eager", repeats=reps,
          seconds=t, note="bytes = read + written")
    log(f"hbm copy {2 * n / t / 1e9:.0f} GB/s (read+write)")
    t = events_time(lambda: a.sum(), reps)
    w.row(operation="hbm_read", bytes=n, dtype="fp32", launch="eager", repeats=reps,
          seconds=t, note="torch.sum over the buffer")
    log(f"hbm read {n / t / 1e9:.0f} GB/s")
    del a, b
    torch.cuda.empty_cache()


NCU_MEMORY = ("ncu --clock-control none --csv --log-file {dir}/h200-ncu.csv --metrics "
              "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,"
              "lts__t_sectors_srcunit_tex_op_read.sum").split()

SECTIONS = [
    Rows("memory.hbm", "hbm", "HBM read and copy bandwidth (calibration rows hbm_read, hbm_copy)",
         hbm),
] + [
    Script(f"memory.{topic}", "measure.py", what, argv=["{py}", "{script}", topic],
           env={"OUT": "{dir}"}, quick_env={"QUICK": "1"}, needs="1 GPU (CuPy, Triton)")
    for topic, what in (
        ("strided", "strided fp32 reads, 1 to 16 loads per thread, strides 1 to 128"),
        ("littles", "stride-1 reads at 1 to 8 blocks per SM x 1 to 16 loads per thread"),
        ("softmax", "torch, eager, Triton 3-kernel and fused softmax, bf16"),
        ("epilogue", "SiLU, GELU and copy; a GEMM with a separate GELU against cuBLASLt's"),
    )
] + [
    Script("memory.ncu-probe", "ncu_probe.py", "each memory kernel once under Nsight Compute",
           argv=NCU_MEMORY + ["{py}", "{script}"], needs="1 GPU, ncu"),
    Script("memory.runtime", "runtime_memory_h200.py", "device memory outside PyTorch's "
           "allocator: the CUDA context, cuBLAS and attention workspaces",
           argv=["{py}", "{script}", "--out", "{dir}/runtime_memory_h200.json"]),
]

"""Measure the figures `roofline calibrate` fits, on the GPU this runs on.

    python3 validation/calibrate.py --out my-gpu.csv          # 2.6 minutes on an H200 (150, 156 s), 2.8 on an H100 (168 s)
    python3 validation/calibrate.py --out power.csv --only power   # the power loops alone, about 2 minutes
    python3 validation/calibrate.py --out quick.csv --quick   # fewer shapes, a smoke test

PyTorch only (CUDA; on ROCm the same calls run where PyTorch supports them,
and the rows a part cannot run, fp8 say, are skipped with a message). The
output is one CSV file, one row per measurement, in the schema of
docs/data-schemas.md ("Calibration measurements"):

- hbm_read, hbm_copy: a large read-only reduction and a device-to-device copy
  (`bytes` counts bytes read, plus written for the copy);
- launch: a one-element kernel launched eagerly back to back, launched and
  synchronised each time, and replayed from a CUDA graph (seconds per kernel);
- gemm: one GEMM call launched eagerly, synchronised, and from a graph; then a
  grid of shapes per precision (bf16 `torch.matmul`; fp8 e4m3
  `torch._scaled_mm`, per-tensor scale, bf16 output), the serving shapes
  (every projection of Llama-3-8B and Llama-3.1-70B at M = 1 ... 8192)
  included, each timed in a CUDA graph over enough weight copies that no
  operand stays in L2;
- grouped_gemm: the routed experts' grouped GEMM as the validation's MoE
  steps call it (`torch._grouped_mm`, bf16), one call over every expert
  with the same rows each (`batch` experts of `m` rows, 1 to 512), at
  Mixtral-8x7B's, Qwen3-235B-A22B's and DeepSeek-V3's expert shapes, each
  timed in a CUDA graph over cold weight copies (3 s on an H100);
- attention_prefill, attention_decode: `F.scaled_dot_product_attention`,
  causal prefill at S = 1k ... 16k (the default backend, as a forward calls it), decode over KV caches of several lengths
  and batches (`flops` counts the causal half only, 2 x 2 x B x H x S^2 x D / 2);
- compute_short, compute_sustained: back-to-back 8192^3 GEMMs for about 0.3 s
  and about 8 s, with the SM clock, memory clock, board power and temperature
  sampled every 100 ms (nvidia-smi) over the loop;
- power_wait, power_gemm, power_attention, power_stream: the power limit's
  loops, each 5-6 s of graph replays after 3 s of rest with board power and
  SM clock sampled over its part after 2 s (`burst_seconds` is its first
  call, before the limit acts; `seconds` the mean settled call): spin
  kernels (`torch.cuda._sleep`: a GPU waiting), 8192^3 bf16 GEMMs back to
  back and with a spin after each of 0.15 to 2.2 times a GEMM's time
  (`wait_seconds` the spin's share of a call), causal attention at S = 2k,
  8k, 16k, and 2 GiB device-to-device copies; the sampler and loop are
  validation/common.py's, shared with validation/power_mix_h200.py;
- decode_step: whole Llama-3-8B-shaped decode steps (random weights; time
  depends on shapes) replayed from a CUDA graph;
- host_gemm, host_kernel, host_attention, host_cached_attention, host_layer:
  the host's path of one call from Python as a forward makes it, views
  included, at shapes whose GPU work is far below it (wall clock over 400
  calls back to back after a synchronise, median of 5): two GEMM calls
  (`x @ w.t()`, `torch.addmm`), the elementwise calls (RMSNorm, rotary
  embedding, SiLU times up, the two cache writes, an fp8 cast, a residual
  add; `kernels` counts the kernels each launches), a decode attention call,
  and the attention op of a pass of several new tokens over a cached prefix
  (its two slice writes and the masked call); then `host_layer`, every one
  of those calls once in a layer's order, back to back (a call after a
  different one costs more than after itself);
- kernel_norm, kernel_pointwise, kernel_kv_write, kernel_attention,
  kernel_combine, kernel_copy: one eager Llama-3-8B-shaped decode step at
  batch 1 and 32 under torch.profiler, each kernel name of those classes
  with its mean device time (`seconds`), its count (`kernels`) and the
  bytes one moves (`bytes`): `roofline calibrate` takes each class's
  median time less its bytes at the stream bandwidth (the last section:
  the profiler stays attached and slows later eager launches).

The loops are the suite's calibration sections (validation/suite/: one
module per family; `python3 -m validation list`); this script runs them in
their order into one CSV (`python3 -m validation run calibration.all --out
DIR --csv FILE` does the same and writes each section's JSON beside it).

Method: CUDA events, warm-up first, median of the repetitions; random data
(never zeros); each GEMM and attention result checked for NaN and against a
float32 reference on a few rows. Clocks and power limits are left as found.
"""

import argparse
import os
import sys
import time

# The repository root, so the package imports when this runs as a file.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from validation import common, suite  # noqa: E402
from validation.suite import calibration, gemm  # noqa: E402
from validation.common import events_time, graph_of  # noqa: E402,F401 - for the probes
from validation.suite.gemm import gemm_one, probe_pad  # noqa: E402,F401 - for the probes

try:  # the probes call the GEMM helpers through this module
    common.need_torch(gemm)
except ImportError:  # no torch: --help still answers, main() says what is missing
    pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="CSV file to write")
    ap.add_argument("--quick", action="store_true", help="fewer shapes and repetitions")
    ap.add_argument("--only", default="", help="comma list of sections: " +
                    ",".join(short for short, _ in calibration.ORDER))
    args = ap.parse_args()
    picked = suite.find(calibration.only(set(filter(None, args.only.split(",")))))
    rows, _ = suite.run(picked, quick=args.quick, csv_path=args.out)
    common.log(f"wrote {rows} rows to {args.out} in {time.time() - common.T0:.0f} s")


if __name__ == "__main__":
    main()

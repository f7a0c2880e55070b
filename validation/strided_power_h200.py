"""Board power of PyTorch's strided elementwise kernels (docs/validation.md,
"Strided kernels' power"): SiLU and its product with up, read as strided
views of a fused gate/up output the way a Llama MLP runs them, against the
same element counts on contiguous tensors (the vectorised path). The
energy model needs to know what such a kernel draws over its time: idle
power plus its bytes' energy, or more.

    python3 validation/strided_power_h200.py OUTDIR     # about 2 minutes

Phases, each a loop of CUDA-graph replays after 3 s of rest, 6 s long:

- idle: 5 s, nothing running;
- strided_t{T}: for T rows of a 14,336-wide MLP, `s = silu(gu[:, :ff])`
  then `y = s * gu[:, ff:]` (bf16), repeated `REPS[T]` times in the graph;
- contig_t{T}: the same two kernels on contiguous g and u tensors;

Per phase: power and clocks after 2 s of settling (nvidia-smi every 100 ms,
validation/common.py), the settled time per replay (CUDA events), and per
kernel the elements and bytes (read and write, bf16). Writes
OUTDIR/strided-power.json. Clocks and power limits are left as found.
"""

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from common import SETTLE, Sampler, graph_of, timed_loop  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "strided-power-out"
FF = 14336
# Replays per graph: enough kernels that a replay is milliseconds long.
REPS = {128: 256, 2048: 16, 8192: 4}
SECONDS = 6.0


def log(msg):
    print(msg, flush=True)


def run_phase(sampler, name, body, reps, elements, bytes_per_rep):
    time.sleep(3.0)
    g = graph_of(body)
    torch.cuda.synchronize()
    t0, t1, durs, settled = timed_loop(SECONDS, g.replay)
    w = sampler.window(t0 + SETTLE, t1)
    per = statistics.median(settled) if settled else statistics.median(durs)
    row = {
        "phase": name,
        "reps_per_replay": reps,
        "kernels_per_replay": 2 * reps,
        "elements_per_replay": elements,
        "bytes_per_replay": bytes_per_rep,
        "replay_s": per,
        "replays": len(durs),
        "power_w": w[0] if w else None,
        "sm_clock_mhz": w[1] if w else None,
        "mem_clock_mhz": w[2] if w else None,
        "temperature_c": w[3] if w else None,
        "window": [t0 + SETTLE, t1],
    }
    log(json.dumps({k: v for k, v in row.items() if k != "window"}))
    return row


def main():
    os.makedirs(OUT, exist_ok=True)
    assert torch.cuda.is_available()
    dev = torch.cuda.get_device_name()
    sampler = Sampler()
    time.sleep(1.0)
    rows = []
    t0 = time.time()
    time.sleep(5.0)
    w = sampler.window(t0 + 1.0, time.time())
    rows.append({"phase": "idle", "power_w": w[0] if w else None,
                 "sm_clock_mhz": w[1] if w else None})
    log(json.dumps(rows[-1]))
    for t, reps in REPS.items():
        gu = torch.randn(t, 2 * FF, device="cuda", dtype=torch.bfloat16)
        gate = torch.randn(t, FF, device="cuda", dtype=torch.bfloat16)
        up = torch.randn(t, FF, device="cuda", dtype=torch.bfloat16)
        elements = 2 * t * FF * reps  # two kernels of t x ff each
        # silu reads g, writes s; the product reads s and u, writes y.
        bytes_per_rep = 2 * t * FF * (2 + 3) * reps

        def strided(gu=gu, reps=reps):
            for _ in range(reps):
                s = F.silu(gu[:, :FF])
                _ = s * gu[:, FF:]

        def contig(gate=gate, up=up, reps=reps):
            for _ in range(reps):
                s = F.silu(gate)
                _ = s * up

        rows.append(run_phase(sampler, f"strided_t{t}", strided, reps, elements, bytes_per_rep))
        rows.append(run_phase(sampler, f"contig_t{t}", contig, reps, elements, bytes_per_rep))
        del gu, gate, up
        torch.cuda.empty_cache()
    sampler.stop()
    out = {
        "device": dev,
        "torch": torch.__version__,
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "ff": FF,
        "seconds_per_phase": SECONDS,
        "settle_s": SETTLE,
        "phases": rows,
        "samples": sampler.samples,
    }
    with open(os.path.join(OUT, "strided-power.json"), "w") as f:
        json.dump(out, f, indent=1)
    log(f"wrote {OUT}/strided-power.json")


if __name__ == "__main__":
    main()

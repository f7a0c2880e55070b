"""Board power and SM clock under mixes of work (docs/validation.md, "The
power limit over a step"): what a step's operations draw at the burst clock
and how far the clock drops when the step repeats back to back. The sampler,
graph capture and timed loop are validation/common.py's (shared with
calibrate.py's power phase, which measures the loops `roofline calibrate`
fits the power limit from); the forward is validation/serving_fidelity.py's
Model (the one its prefill rows timed).

    python3 validation/power_mix_h200.py OUTDIR     # about 4 minutes

Phases, each a loop of CUDA-graph replays after 3 s of rest (so its first
calls run at the idle board's clock):

- idle: 5 s;
- sleep: torch.cuda._sleep spin kernels (one block: an SM waiting, the rest
  idle, as a GPU waits on a collective);
- attn_s{2048,8192,16384}: causal flash attention of one Llama-3-8B layer
  (torch SDPA, 32 query heads over 8 KV heads, head dim 128, batch 1);
- prefill_bf16_s{2048,8192,16384}, prefill_fp8_s2048: Llama-3-8B prefills
  (random weights, batch 1);
- prefill_bf16_s2048_gap{1,2}: the 2,048 prefill with a spin kernel after
  each attention block and each MLP (where a TP 2 forward all-reduces), of
  GAP1 and GAP2 cycles;
- gemm_gap{0,1,2,3}: bf16 8192^3 GEMMs, each followed by a spin kernel of
  0, GAP_G1, GAP_G2, GAP_G3 cycles.

Per phase: power and clocks over the part after 2 s of settling (nvidia-smi
every 100 ms), the settled time per call (CUDA events), and the first calls'
times one by one (the burst, before the limit acts). Writes
OUTDIR/power-mix-samples.csv and OUTDIR/power-mix-summary.json. Clocks and
power limits are left as found.
"""

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import serving_fidelity as sf  # noqa: E402
from common import SETTLE, Sampler, graph_of, timed_loop  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "power-mix-out"
GAP1, GAP2 = 140_000, 560_000  # about 71 and 283 us at 1,980 MHz
GAP_G = (0, 400_000, 1_200_000, 3_000_000)  # after each 8192^3 GEMM (about 1.4 ms at burst)


def log(msg):
    print(msg, flush=True)


def phase(phases, name, seconds, body, **extra):
    time.sleep(3.0)
    g = graph_of(body)
    torch.cuda.synchronize()
    time.sleep(1.5)
    t0, t1, durs, settled = timed_loop(seconds, g.replay)
    row = dict(phase=name, t0=t0, t1=t1, calls=len(durs), settled_calls=len(settled),
               call_s=statistics.fmean(settled), call_median_s=statistics.median(settled),
               first_calls_s=durs[:8], **extra)
    phases.append(row)
    log(f"{name}: settled {row['call_s'] * 1e3:.3f} ms a call, first {durs[0] * 1e3:.3f} "
        f"{durs[1] * 1e3:.3f} {durs[2] * 1e3:.3f} ms, {len(durs)} calls")
    del g
    torch.cuda.empty_cache()


class Gapped(sf.Model):
    """Model whose attention blocks and MLPs are each followed by a spin kernel."""

    gap = 0

    def attn_block(self, l, x, write_kv, attend):
        x = super().attn_block(l, x, write_kv, attend)
        torch.cuda._sleep(self.gap)
        return x

    def ffn(self, i, l, x):
        x = super().ffn(i, l, x)
        torch.cuda._sleep(self.gap)
        return x


def main():
    os.makedirs(OUT, exist_ok=True)
    sampler = Sampler()
    phases = []
    torch.manual_seed(0)
    sf.probe_pad()
    time.sleep(1.0)
    t0 = time.time()
    time.sleep(5.0)
    phases.append(dict(phase="idle", t0=t0, t1=time.time()))

    phase(phases, "sleep", 5.0, lambda: [torch.cuda._sleep(1_000_000) for _ in range(20)],
          cycles_per_call=20_000_000)

    h, kv, dh = 32, 8, 128
    for S in (2048, 8192, 16384):
        q = torch.randn(1, h, S, dh, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(1, kv, S, dh, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(1, kv, S, dh, device="cuda", dtype=torch.bfloat16)
        reps = max(1, 16 * 2048 * 2048 // (S * S)) * 4
        flops = reps * 4.0 * h * dh * S * S / 2  # causal: half the 4 S^2 d products
        phase(phases, f"attn_s{S}", 6.0,
              lambda: [F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
                       for _ in range(reps)],
              prompt=S, calls_per_replay=reps, causal_flops_per_call=flops)
        del q, k, v

    for dtype in ("bf16", "fp8"):
        M = Gapped("llama-3-8b", dtype)
        for S in ((2048, 8192, 16384) if dtype == "bf16" else (2048,)):
            tok = torch.randint(0, M.m["V"], (1, S), device="cuda")
            assert torch.isfinite(M.prefill(tok).float()).all()
            phase(phases, f"prefill_{dtype}_s{S}", 7.0, lambda: M.prefill(tok),
                  model="llama-3-8b", dtype=dtype, batch=1, prompt=S)
            if dtype == "bf16" and S == 2048:
                for i, gap in enumerate((GAP1, GAP2), 1):
                    M.gap = gap
                    phase(phases, f"prefill_bf16_s2048_gap{i}", 7.0, lambda: M.prefill(tok),
                          model="llama-3-8b", dtype=dtype, batch=1, prompt=S,
                          gap_cycles=gap, gaps_per_call=2 * M.m["L"])
                    M.gap = 0
        del M
        torch.cuda.empty_cache()

    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)

    def gemms(gap):
        def body():
            for _ in range(10):
                a @ b.t()
                if gap:
                    torch.cuda._sleep(gap)
        return body

    for i, gap in enumerate(GAP_G):
        phase(phases, f"gemm_gap{i}", 6.0, gemms(gap), shape=[n, n, n], gemms_per_call=10,
              flops_per_call=10 * 2.0 * n ** 3, gap_cycles=gap, gaps_per_call=10 if gap else 0)
    time.sleep(1.0)
    sampler.stop()

    with open(os.path.join(OUT, "power-mix-samples.csv"), "w") as f:
        f.write("host_time_s,smi_timestamp,power_w,sm_clock_mhz,mem_clock_mhz,temperature_c,util_pct,phase\n")
        for smp in sampler.samples:
            name = next((p["phase"] for p in phases if p["t0"] <= smp[0] <= p["t1"]), "")
            f.write(f"{smp[0]:.3f}," + ",".join(smp[1:]) + f",{name}\n")
    summary = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                   settle_s=SETTLE, sample_period_ms=100, phases=[])
    for p in phases:
        win = [x for x in sampler.samples if p["t0"] + SETTLE <= x[0] <= p["t1"]]

        def col(i):
            out = []
            for x in win:
                try:
                    out.append(float(x[i]))
                except ValueError:
                    pass
            return out

        pw, sm = col(2), col(3)
        row = dict(p)
        row.update(samples=len(win),
                   power_mean_w=statistics.fmean(pw) if pw else None,
                   power_max_w=max(pw) if pw else None,
                   sm_clock_mean_mhz=statistics.fmean(sm) if sm else None,
                   sm_clock_min_mhz=min(sm) if sm else None,
                   duration_s=p["t1"] - p["t0"])
        row.pop("t0")
        row.pop("t1")
        summary["phases"].append(row)
        log(f"{p['phase']:>26}: {row['power_mean_w'] or 0:6.1f} W, "
            f"SM {row['sm_clock_mean_mhz'] or 0:6.0f} MHz")
    with open(os.path.join(OUT, "power-mix-summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()

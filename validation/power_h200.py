"""Board power of one GPU by phase, for docs/validation.md ("Power").

    python3 validation/power_h200.py OUTDIR     # about 2 minutes

nvidia-smi samples power.draw, clocks.sm, clocks.mem and temperature.gpu every
100 ms for the whole run (each line also stamped with the host clock when it
was read); the phases run one after another with 3 s of rest between them:

- idle: 10 s with nothing running;
- gemm_bf16, gemm_fp8: 12 s of back-to-back 8192^3 GEMMs (graph replays);
- hbm_copy: 10 s of 2 GiB device-to-device copies;
- decode_b1 ... decode_b256: 6 s each of Llama-3-8B-shaped bf16 decode steps
  (random weights, 32 layers, context 1024) replayed from a CUDA graph.

Writes OUTDIR/power-samples.csv (raw samples with the phase each falls in),
OUTDIR/power-summary.json (per phase: mean, median and max power over the
phase's last part after a 2 s settling time, SM and memory clocks held,
temperature, and the work rate achieved) and OUTDIR/power-limit.txt
(`nvidia-smi -q -d POWER`). Clocks and power limits are left as found.
"""

import os
import subprocess
import sys
import time

import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else "power-out"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import Sampler, graph_of, loop_for, write_phases  # noqa: E402
from validation import common as _common  # noqa: E402
from validation.suite import steps as _steps  # noqa: E402

_common.need_torch(_steps)
llama_step = _steps.llama_step


def log(msg):
    print(msg, flush=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "power-limit.txt"), "w") as f:
        f.write(subprocess.run(["nvidia-smi", "-q", "-d", "POWER,CLOCK,TEMPERATURE"],
                               capture_output=True, text=True).stdout)
    smp = Sampler()
    phases = []  # dict(name, t0, t1, rate, unit, ...)
    dev = "cuda"
    torch.manual_seed(0)
    time.sleep(1.0)
    t0 = time.time()
    time.sleep(10.0)
    phases.append(dict(phase="idle", t0=t0, t1=time.time()))
    log("idle done")

    n = 8192
    one = torch.ones((), device=dev)
    for dtype in ("bf16", "fp8"):
        time.sleep(3.0)
        a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        if dtype == "fp8":
            a, b = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
            fn = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        else:
            fn = lambda: a @ b.t()
        g = graph_of(lambda: [fn() for _ in range(10)])
        out = fn()
        assert torch.isfinite(out.float()).all()
        t0, t1, rate, calls, dt = loop_for(12.0, g.replay, 10 * 2.0 * n ** 3)
        phases.append(dict(phase=f"gemm_{dtype}", t0=t0, t1=t1, rate=rate, unit="FLOP/s",
                           shape=[n, n, n], gemms=calls * 10, timed_s=dt))
        log(f"gemm {dtype}: {rate / 1e12:.0f} TFLOP/s")
        del g, a, b, out
        torch.cuda.empty_cache()

    time.sleep(3.0)
    nb = 2 << 30
    src = torch.randn(nb // 4, device=dev)
    dst = torch.empty_like(src)
    t0, t1, rate, calls, dt = loop_for(10.0, lambda: dst.copy_(src), 2 * nb)
    assert torch.equal(src[:1000], dst[:1000])
    phases.append(dict(phase="hbm_copy", t0=t0, t1=t1, rate=rate, unit="B/s (read + written)",
                       bytes_per_copy=2 * nb, timed_s=dt))
    log(f"copy: {rate / 1e9:.0f} GB/s")
    del src, dst
    torch.cuda.empty_cache()

    L, d, h, kv, dh, ff, V, T = 32, 4096, 32, 8, 128, 14336, 128256, 1024
    bf = dict(device=dev, dtype=torch.bfloat16)
    s = 0.02
    emb = torch.randn(V, d, **bf) * s
    head = torch.randn(V, d, **bf) * s
    layers = [dict(qkv=torch.randn((h + 2 * kv) * dh, d, **bf) * s, o=torch.randn(d, h * dh, **bf) * s,
                   gu=torch.randn(2 * ff, d, **bf) * s, down=torch.randn(d, ff, **bf) * s,
                   n1=torch.ones(d, **bf), n2=torch.ones(d, **bf)) for _ in range(L)]
    freqs = torch.polar(torch.ones(dh // 2, device=dev), torch.rand(dh // 2, device=dev))
    for B in (1, 8, 32, 128, 256):
        time.sleep(3.0)
        kc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        vc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        tok = torch.randint(0, V, (B,), device=dev)
        pos = torch.tensor([T - 1], device=dev)
        nxt = torch.empty(B, dtype=torch.long, device=dev)

        def step():
            # calibrate.py's decode step (validation/suite/steps.py), the argmax kept.
            logits = llama_step((emb, head, layers, freqs), kc, vc, tok, pos, B, d, h, kv, dh)
            nxt.copy_(logits.argmax(-1))
            return logits

        assert torch.isfinite(step().float()).all()
        g = graph_of(step)
        t0, t1, rate, calls, dt = loop_for(6.0, g.replay, B)
        phases.append(dict(phase=f"decode_b{B}", t0=t0, t1=t1, rate=rate, unit="tokens/s",
                           batch=B, context=T, layers=L, step_s=dt / calls, timed_s=dt))
        log(f"decode B={B}: {dt / calls * 1e3:.2f} ms a step")
        del g, kc, vc
        torch.cuda.empty_cache()
    time.sleep(1.0)
    smp.stop()

    write_phases(OUT, "power", phases, smp.samples)

if __name__ == "__main__":
    main()

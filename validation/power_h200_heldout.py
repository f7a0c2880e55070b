"""Held-out board-power readings for the power model (docs/validation.md,
"The power model against the readings"): phases the hardware file's power
figures were not taken from. The sampler, loop and graph helpers are
validation/common.py's, as validation/power_h200.py's are.

    python3 validation/power_h200_heldout.py OUTDIR     # about 1.5 minutes

- idle: 6 s;
- gemm_bf16_2048: 8 s of back-to-back bf16 2048^3 GEMMs (graph replays);
- gemm_bf16_m64: 8 s of bf16 64 x 14336 x 4096 GEMMs (a decode-shaped,
  weight-streaming matmul);
- prefill_s2048: 8 s of Llama-3-8B-shaped bf16 prefills of 2048 tokens
  (random weights, 32 layers, causal flash attention);
- decode_b64_t4096: 6 s of Llama-3-8B decode steps at batch 64, context 4096.

Writes OUTDIR/power-heldout-samples.csv and OUTDIR/power-heldout-summary.json
(as validation/power_h200.py writes its own). Clocks and power limits are
left as found.
"""

import os
import sys
import time

import torch
import torch.nn.functional as F

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


def phase_loop(phases, name, seconds, body, work, unit, **extra):
    time.sleep(3.0)
    g = graph_of(body)
    t0, t1, rate, calls, dt = loop_for(seconds, g.replay, work)
    phases.append(dict(phase=name, t0=t0, t1=t1, rate=rate, unit=unit, timed_s=dt,
                       calls=calls, call_s=dt / calls, **extra))
    log(f"{name}: {rate:.4g} {unit}, {dt / calls * 1e3:.3f} ms a call")
    del g
    torch.cuda.empty_cache()


def llama(dev):
    L, d, h, kv, dh, ff, V = 32, 4096, 32, 8, 128, 14336, 128256
    bf = dict(device=dev, dtype=torch.bfloat16)
    s = 0.02
    emb = torch.randn(V, d, **bf) * s
    head = torch.randn(V, d, **bf) * s
    layers = [dict(qkv=torch.randn((h + 2 * kv) * dh, d, **bf) * s, o=torch.randn(d, h * dh, **bf) * s,
                   gu=torch.randn(2 * ff, d, **bf) * s, down=torch.randn(d, ff, **bf) * s,
                   n1=torch.ones(d, **bf), n2=torch.ones(d, **bf)) for _ in range(L)]
    return (L, d, h, kv, dh, ff, V), emb, head, layers


def main():
    os.makedirs(OUT, exist_ok=True)
    smp = Sampler()
    phases = []
    dev = "cuda"
    torch.manual_seed(0)
    time.sleep(1.0)
    t0 = time.time()
    time.sleep(6.0)
    phases.append(dict(phase="idle", t0=t0, t1=time.time()))

    n = 2048
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    phase_loop(phases, "gemm_bf16_2048", 8.0, lambda: [a @ b.t() for _ in range(50)],
               50 * 2.0 * n ** 3, "FLOP/s", shape=[n, n, n], gemms_per_call=50)
    del a, b
    m, nn, k = 64, 14336, 4096
    a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
    ws = [torch.randn(nn, k, device=dev, dtype=torch.bfloat16) for _ in range(4)]
    phase_loop(phases, "gemm_bf16_m64", 8.0, lambda: [a @ w.t() for _ in range(10) for w in ws],
               40 * 2.0 * m * nn * k, "FLOP/s", shape=[m, nn, k], gemms_per_call=40)
    del a, ws
    torch.cuda.empty_cache()

    (L, d, h, kv, dh, ff, V), emb, head, layers = llama(dev)
    freqs_all = torch.polar(torch.ones(dh // 2, device=dev), torch.rand(dh // 2, device=dev))

    S = 2048
    tok = torch.randint(0, V, (S,), device=dev)

    def prefill():
        x = emb[tok]
        for l in layers:
            y = F.rms_norm(x, (d,), l["n1"], 1e-5)
            qkv = y @ l["qkv"].t()
            qk = qkv[:, : (h + kv) * dh].view(S, h + kv, dh // 2, 2).float()
            qk = torch.view_as_real(torch.view_as_complex(qk) * freqs_all).flatten(-2).to(x.dtype)
            q, kk = qk.split([h, kv], 1)
            v = qkv[:, (h + kv) * dh:].view(S, kv, dh)
            at = F.scaled_dot_product_attention(q.transpose(0, 1)[None], kk.transpose(0, 1)[None],
                                                v.transpose(0, 1)[None], is_causal=True, enable_gqa=True)
            x = torch.addmm(x, at[0].transpose(0, 1).reshape(S, h * dh), l["o"].t())
            y = F.rms_norm(x, (d,), l["n2"], 1e-5)
            gg, u = (y @ l["gu"].t()).chunk(2, -1)
            x = torch.addmm(x, F.silu(gg) * u, l["down"].t())
        return F.rms_norm(x[-1:], (d,), None, 1e-5) @ head.t()

    assert torch.isfinite(prefill().float()).all()
    phase_loop(phases, "prefill_s2048", 8.0, prefill, S, "tokens/s", prompt=S, layers=L)

    B, T = 64, 4096
    kc = [torch.randn(B, kv, T, dh, device=dev, dtype=torch.bfloat16) for _ in range(L)]
    vc = [torch.randn(B, kv, T, dh, device=dev, dtype=torch.bfloat16) for _ in range(L)]
    dtok = torch.randint(0, V, (B,), device=dev)
    pos = torch.tensor([T - 1], device=dev)
    nxt = torch.empty(B, dtype=torch.long, device=dev)

    def step():
        # calibrate.py's decode step (validation/suite/steps.py), the argmax kept.
        logits = llama_step((emb, head, layers, freqs_all), kc, vc, dtok, pos, B, d, h, kv, dh)
        nxt.copy_(logits.argmax(-1))
        return logits

    assert torch.isfinite(step().float()).all()
    phase_loop(phases, "decode_b64_t4096", 6.0, step, B, "tokens/s", batch=B, context=T, layers=L)
    time.sleep(1.0)
    smp.stop()

    write_phases(OUT, "power-heldout", phases, smp.samples, extra=False, width=18)

if __name__ == "__main__":
    main()

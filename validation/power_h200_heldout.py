"""Held-out board-power readings for the power model (docs/validation.md,
"The power model against the readings"): phases the hardware file's power
figures were not taken from. The sampler, loop and graph helpers are those
of validation/power_h200.py.

    python3 validation/power_h200_heldout.py OUTDIR     # about 1.5 minutes

- idle: 6 s;
- gemm_bf16_2048: 8 s of back-to-back bf16 2048^3 GEMMs (graph replays);
- gemm_bf16_m64: 8 s of bf16 64 x 14336 x 4096 GEMMs (a decode-shaped,
  weight-streaming matmul);
- prefill_s2048: 8 s of Llama-3-8B-shaped bf16 prefills of 2048 tokens
  (random weights, 32 layers, causal flash attention);
- decode_b64_t4096: 6 s of Llama-3-8B decode steps at batch 64, context 4096.

The original docstring of power_h200.py follows for the helpers:

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

import json
import os
import statistics
import subprocess
import sys
import threading
import time

import torch
import torch.nn.functional as F

OUT = sys.argv[1] if len(sys.argv) > 1 else "power-out"
SETTLE = 2.0
samples = []  # (host time, nvidia-smi line fields...)


def log(msg):
    print(msg, flush=True)


def sampler():
    q = "timestamp,power.draw,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu"
    p = subprocess.Popen(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits",
                          "-lms", "100", "-i", "0"], stdout=subprocess.PIPE, text=True)

    def read():
        for line in p.stdout:
            f = [x.strip() for x in line.split(",")]
            if len(f) == 6:
                samples.append((time.time(), *f))

    threading.Thread(target=read, daemon=True).start()
    return p


def loop_for(seconds, body, work_per_call):
    """Run body() until `seconds` pass; the rate over the part after SETTLE, by CUDA events."""
    t0 = time.time()
    marks = []
    n = 0
    while True:
        body()
        n += 1
        if n % 5 == 0:
            ev = torch.cuda.Event(enable_timing=True)
            ev.record()
            ev.synchronize()
            marks.append((time.time(), ev, n))
            if time.time() - t0 >= seconds:
                break
    first = next(m for m in marks if m[0] >= t0 + SETTLE)
    last = marks[-1]
    dt = first[1].elapsed_time(last[1]) * 1e-3
    return t0, last[0], (last[2] - first[2]) * work_per_call / dt, (last[2] - first[2]), dt


def graph_of(body):
    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        for _ in range(2):
            body()
    torch.cuda.current_stream().wait_stream(st)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        body()
    return g



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
    proc = sampler()
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
        x = emb[dtok]
        for i, l in enumerate(layers):
            y = F.rms_norm(x, (d,), l["n1"], 1e-5)
            qkv = y @ l["qkv"].t()
            qk = qkv[:, : (h + kv) * dh].view(B, h + kv, dh // 2, 2).float()
            qk = torch.view_as_real(torch.view_as_complex(qk) * freqs_all).flatten(-2).to(x.dtype)
            q, kk = qk.split([h, kv], 1)
            kc[i].index_copy_(2, pos, kk.view(B, kv, 1, dh))
            vc[i].index_copy_(2, pos, qkv[:, (h + kv) * dh:].reshape(B, kv, 1, dh))
            at = F.scaled_dot_product_attention(q.reshape(B, h, 1, dh), kc[i], vc[i], enable_gqa=True)
            x = torch.addmm(x, at.reshape(B, h * dh), l["o"].t())
            y = F.rms_norm(x, (d,), l["n2"], 1e-5)
            gg, u = (y @ l["gu"].t()).chunk(2, -1)
            x = torch.addmm(x, F.silu(gg) * u, l["down"].t())
        logits = F.rms_norm(x, (d,), None, 1e-5) @ head.t()
        nxt.copy_(logits.argmax(-1))
        return logits

    assert torch.isfinite(step().float()).all()
    phase_loop(phases, "decode_b64_t4096", 6.0, step, B, "tokens/s", batch=B, context=T, layers=L)
    time.sleep(1.0)
    proc.terminate()

    with open(os.path.join(OUT, "power-heldout-samples.csv"), "w") as f:
        f.write("host_time_s,smi_timestamp,power_w,sm_clock_mhz,mem_clock_mhz,temperature_c,util_pct,phase\n")
        for smp in samples:
            ph = next((p["phase"] for p in phases if p["t0"] <= smp[0] <= p["t1"]), "")
            f.write(f"{smp[0]:.3f}," + ",".join(smp[1:]) + f",{ph}\n")
    summary = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                   settle_s=SETTLE, sample_period_ms=100, phases=[])
    for p in phases:
        win = [x for x in samples if p["t0"] + SETTLE <= x[0] <= p["t1"]]

        def col(i):
            v = []
            for x in win:
                try:
                    v.append(float(x[i]))
                except ValueError:
                    pass
            return v

        pw, sm, mem = col(2), col(3), col(4)
        row = dict(p)
        row.update(samples=len(win),
                   power_mean_w=statistics.fmean(pw) if pw else None,
                   power_median_w=statistics.median(pw) if pw else None,
                   power_max_w=max(pw) if pw else None,
                   sm_clock_mean_mhz=statistics.fmean(sm) if sm else None,
                   mem_clock_mean_mhz=statistics.fmean(mem) if mem else None)
        row["duration_s"] = p["t1"] - p["t0"]
        row.pop("t0")
        row.pop("t1")
        summary["phases"].append(row)
        log(f"{p['phase']:>18}: {row['power_mean_w'] or 0:6.1f} W, SM {row['sm_clock_mean_mhz'] or 0:6.0f} MHz")
    with open(os.path.join(OUT, "power-heldout-summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()

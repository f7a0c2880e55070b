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


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "power-limit.txt"), "w") as f:
        f.write(subprocess.run(["nvidia-smi", "-q", "-d", "POWER,CLOCK,TEMPERATURE"],
                               capture_output=True, text=True).stdout)
    proc = sampler()
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
            x = emb[tok]
            for i, l in enumerate(layers):
                y = F.rms_norm(x, (d,), l["n1"], 1e-5)
                qkv = y @ l["qkv"].t()
                qk = qkv[:, : (h + kv) * dh].view(B, h + kv, dh // 2, 2).float()
                qk = torch.view_as_real(torch.view_as_complex(qk) * freqs).flatten(-2).to(x.dtype)
                q, k = qk.split([h, kv], 1)
                kc[i].index_copy_(2, pos, k.view(B, kv, 1, dh))
                vc[i].index_copy_(2, pos, qkv[:, (h + kv) * dh:].reshape(B, kv, 1, dh))
                a = F.scaled_dot_product_attention(q.reshape(B, h, 1, dh), kc[i], vc[i], enable_gqa=True)
                x = torch.addmm(x, a.reshape(B, h * dh), l["o"].t())
                y = F.rms_norm(x, (d,), l["n2"], 1e-5)
                gg, u = (y @ l["gu"].t()).chunk(2, -1)
                x = torch.addmm(x, F.silu(gg) * u, l["down"].t())
            logits = F.rms_norm(x, (d,), None, 1e-5) @ head.t()
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
    proc.terminate()

    with open(os.path.join(OUT, "power-samples.csv"), "w") as f:
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

        pw, sm, mem, temp = col(2), col(3), col(4), col(5)
        row = dict(p)
        row.update(samples=len(win),
                   power_mean_w=statistics.fmean(pw) if pw else None,
                   power_median_w=statistics.median(pw) if pw else None,
                   power_max_w=max(pw) if pw else None,
                   sm_clock_mean_mhz=statistics.fmean(sm) if sm else None,
                   sm_clock_min_mhz=min(sm) if sm else None,
                   mem_clock_mean_mhz=statistics.fmean(mem) if mem else None,
                   temperature_mean_c=statistics.fmean(temp) if temp else None)
        row["duration_s"] = p["t1"] - p["t0"]
        row.pop("t0")
        row.pop("t1")
        summary["phases"].append(row)
        log(f"{p['phase']:>12}: {row['power_mean_w'] or 0:6.1f} W, SM {row['sm_clock_mean_mhz'] or 0:6.0f} MHz, "
            f"{len(win)} samples")
    with open(os.path.join(OUT, "power-summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()

"""Board power and the power limit: the calibration's short and sustained
compute loops and the power limit's loops (rows), and the power scripts'
phases (validation/power_*.py, strided_power_h200.py), each sampled by
validation/common.py's nvidia-smi sampler."""

import statistics
import time

from validation.common import SETTLE, events_time, fp8_dtype, fp8_ok, graph_of, log, timed_loop
from validation.suite import Rows, Script, gemm

torch = F = None  # bound by common.need_torch() when a section runs


def compute_loops(w, sampler, quick):
    dtypes = ["bf16"] + (["fp8"] if fp8_ok() and gemm.PAD_M else [])
    n = 8192
    one = torch.ones((), device="cuda")
    for dtype in dtypes:
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        if dtype == "fp8":
            a, b = a.to(fp8_dtype()), b.to(fp8_dtype())
            fn = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        else:
            fn = lambda: a @ b.t()
        g = graph_of(lambda: [fn() for _ in range(10)])
        g.replay()
        torch.cuda.synchronize()
        for op, dur in (("compute_short", 0.3), ("compute_sustained", 8.0 if not quick else 2.0)):
            time.sleep(1.0)  # let the clock recover between loops
            t0 = time.time()
            marks = []  # (host time after sync, event, GEMMs issued before it)
            calls = 0
            ev = torch.cuda.Event(enable_timing=True)
            ev.record()
            marks.append((t0, ev, 0))
            while time.time() - t0 < dur:
                g.replay()
                calls += 10
                if calls % 50 == 0:
                    ev = torch.cuda.Event(enable_timing=True)
                    ev.record()
                    ev.synchronize()
                    marks.append((time.time(), ev, calls))
            t1 = marks[-1][0]
            # sustained: the last 6 s (the clock has settled); short: the whole burst
            tw = t1 - 6.0 if op == "compute_sustained" and not quick else t0
            first = next(m for m in marks if m[0] >= tw)
            last = marks[-1]
            calls = last[2] - first[2]
            per = first[1].elapsed_time(last[1]) * 1e-3 / max(calls, 1)
            win = sampler.window(first[0], t1)
            p = dict(power_w="", sm_clock_mhz="", mem_clock_mhz="", temperature_c="")
            if win:
                p = dict(power_w=win[0], sm_clock_mhz=win[1], mem_clock_mhz=win[2], temperature_c=win[3])
            w.row(operation=op, m=n, n=n, k=n, dtype=dtype, launch="graph", repeats=calls,
                  seconds=per, flops=2.0 * n ** 3, **p,
                  note=f"{dur:g} s loop of graph-replayed GEMMs; clocks and power: means of "
                       f"100 ms nvidia-smi samples over {'the last 6 s' if op == 'compute_sustained' and not quick else 'the loop'}")
            log(f"{op} {dtype}: {2 * n ** 3 / per / 1e12:.0f} TFLOP/s"
                + (f" at {win[1]:.0f} MHz, {win[0]:.0f} W" if win else " (no nvidia-smi samples)"))
        del g, a, b
        torch.cuda.empty_cache()


POWER_GAPS = (0.0, 0.15, 0.45, 1.1, 2.2)  # spin after each GEMM, a share of the GEMM's burst time


POWER_SEQS = (2048, 8192, 16384)


def power_loop(sampler, seconds, settle, body, graph=True):
    """One power loop: 3 s of rest (the first calls run at the burst clock),
    capture, 1.5 s more, then graph replays (or `body` itself) for
    `seconds`. Returns the settled seconds a replay, the first replay's, the
    settled replays and the sampler's means over the settled part (None
    without samples)."""
    time.sleep(3.0)
    g = graph_of(body) if graph else None
    torch.cuda.synchronize()
    time.sleep(1.5)
    t0, t1, durs, settled = timed_loop(seconds, g.replay if graph else body, settle)
    del g
    torch.cuda.empty_cache()
    return statistics.fmean(settled), durs[0], len(settled), sampler.window(t0 + settle, t1)


def power_row(w, win, **kw):
    if not win:
        log(f"{kw['operation']}: no nvidia-smi samples, row not written (it needs power and clock)")
        return False
    p, sm, mem, temp = win
    w.row(power_w=p, sm_clock_mhz=sm, mem_clock_mhz="" if mem is None else mem,
          temperature_c="" if temp is None else temp, launch=kw.pop("launch", "graph"), **kw)
    log(f"{kw['operation']}: {kw['seconds'] * 1e3:.4f} ms settled, {kw['burst_seconds'] * 1e3:.4f} ms "
        f"first, {p:.1f} W at {sm:.0f} MHz")
    return True


def power(w, sampler, quick):
    """The power limit's loops (docs/formulas.md, "Calibration: the power limit"):
    spin kernels, 8192^3 bf16 GEMMs with spins of several lengths after each,
    causal attention, device-to-device copies; each a loop of graph replays
    with board power and SM clock sampled over its settled part."""
    seconds, settle = (3.0, 1.5) if quick else (6.0, SETTLE)
    gaps = (0.0, 1.1) if quick else POWER_GAPS
    seqs = (8192,) if quick else POWER_SEQS
    how = (f"{seconds:g} s loop of graph replays after 3 s of rest; seconds: the mean call after "
           f"{settle:g} s, burst_seconds: the first call; power and clocks: means of 100 ms "
           f"nvidia-smi samples after {settle:g} s")
    per_cycle = None
    spins, cycles = 20, 1_000_000
    try:
        t, t1, calls, win = power_loop(sampler, 5.0 if not quick else 3.0, settle,
                                       lambda: [torch.cuda._sleep(cycles) for _ in range(spins)])
        per_cycle = t / (spins * cycles)
        power_row(w, win, operation="power_wait", dtype="fp32", repeats=calls * spins,
                  seconds=t / spins, burst_seconds=t1 / spins,
                  note=f"torch.cuda._sleep({cycles}) spin kernels back to back, {spins} a replay; " + how)
    except Exception as e:  # noqa: BLE001
        log(f"power_wait FAILED ({e!r}): the GEMM loops run without spins")

    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    assert torch.isfinite(a[:64] @ b[:64].t()).all()
    g = graph_of(lambda: [a @ b.t() for _ in range(10)])
    time.sleep(2.0)
    t_gemm = events_time(g.replay, 3) / 10
    del g
    for r in gaps:
        if r and per_cycle is None:
            continue
        spin = int(round(r * t_gemm / per_cycle, -3)) if r else 0

        def body():
            for _ in range(10):
                a @ b.t()
                if spin:
                    torch.cuda._sleep(spin)

        t, t1, calls, win = power_loop(sampler, seconds, settle, body)
        power_row(w, win, operation="power_gemm", m=n, n=n, k=n, flops=2.0 * n ** 3, dtype="bf16",
                  repeats=calls * 10, seconds=t / 10, burst_seconds=t1 / 10,
                  wait_seconds=spin * per_cycle if spin else 0.0,
                  note=(f"a GEMM and a torch.cuda._sleep({spin}) spin, 10 a replay; wait_seconds: the "
                        f"spin's cycles at the power_wait row's time a cycle; " if spin else
                        "GEMMs back to back, 10 a replay; ") + how)
    del a, b
    torch.cuda.empty_cache()

    h, kv, dh = 32, 8, 128
    for S in seqs:
        q = torch.randn(1, h, S, dh, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(1, kv, S, dh, device="cuda", dtype=torch.bfloat16)
        v = torch.randn_like(k)
        reps = max(1, 16 * 2048 * 2048 // (S * S)) * 4
        fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        assert torch.isfinite(fn()).all()
        t, t1, calls, win = power_loop(sampler, seconds, settle, lambda: [fn() for _ in range(reps)])
        power_row(w, win, operation="power_attention", batch=1, seq=S, heads=h, kv_heads=kv,
                  head_dim=dh, flops=2.0 * h * S * S * dh, dtype="bf16", repeats=calls * reps,
                  seconds=t / reps, burst_seconds=t1 / reps,
                  note=f"causal SDPA (default backend, enable_gqa), {reps} a replay; " + how)
        del q, k, v
        torch.cuda.empty_cache()

    nb = (1 << 31) if not quick else (1 << 28)  # bytes per buffer
    src = torch.randn(nb // 4, device="cuda")
    dst = torch.empty_like(src)
    copies = 8
    # Eager: replayed from a graph the same copies ran at 2.8 TB/s and 530 W
    # on the H200 (validation/results/2026-12-02-h200/calibrate-h200-power-1.csv; most likely memcpy
    # nodes on the copy engines), not as the kernel a forward's memory-bound
    # work runs as.
    t, t1, calls, win = power_loop(sampler, seconds, settle,
                                   lambda: [dst.copy_(src) for _ in range(copies)], graph=False)
    assert torch.equal(src[:1024], dst[:1024])
    power_row(w, win, operation="power_stream", bytes=2 * nb, dtype="fp32", repeats=calls * copies,
              seconds=t / copies, burst_seconds=t1 / copies, launch="eager",
              note=f"device-to-device copies of {nb >> 20} MiB launched eagerly, {copies} a call, "
                   "bytes = read + written; " + how.replace("graph replays", "calls"))
    log(f"power_stream: {2 * nb / t * copies / 1e9:.0f} GB/s")
    del src, dst
    torch.cuda.empty_cache()


SECTIONS = [
    Rows("power.compute", "compute", "a 0.3 s and an 8 s 8192^3 GEMM loop per precision with "
         "clock and power (calibration rows compute_short, compute_sustained)", compute_loops,
         sampler=True),
    Rows("power.limit", "power", "the power limit's loops: spins, GEMMs with spins, attention, "
         "copies (calibration rows power_*)", power, sampler=True),
    Script("power.phases", "power_h200.py", "board power by phase: idle, GEMM loops, a copy "
           "loop, Llama-3-8B decode at batch 1 to 256"),
    Script("power.heldout", "power_h200_heldout.py", "board power of phases no power figure "
           "was taken from"),
    Script("power.mix", "power_mix_h200.py", "board power and SM clock under mixes of work"),
    Script("power.steps", "power_steps_h200.py", "board power of serving steps the power model "
           "was not fitted on"),
    Script("power.transient", "power_transient_h200.py", "a short timing protocol against the "
           "settled clock"),
    Script("power.strided", "strided_power_h200.py", "board power of strided elementwise "
           "kernels"),
]

"""The host's path and launch costs: one-element launches per launch mode,
one GEMM call per mode, the kernel-count sweep, the host's path of each
call a forward makes, and a decode step's kernels by class (calibration
rows); the eager host path by call class in rounds (validation/host_probe.py)."""

import statistics
import time

from validation.common import events_time, fp8_dtype, fp8_ok, graph_of, log
from validation.suite import Rows, Script
from validation.suite.steps import llama_step, llama_weights

torch = F = None  # bound by common.need_torch() when a section runs


def launch(w, quick):
    x = torch.zeros(1, device="cuda")
    n = 2000 if not quick else 300
    for _ in range(100):
        x.add_(1)
    torch.cuda.synchronize()
    # eager: back to back, the host queue in the clock
    t = events_time(lambda: [x.add_(1) for _ in range(n)], 5) / n
    w.row(operation="launch", launch="eager", repeats=5 * n, seconds=t, dtype="fp32",
          note="x.add_(1) on one element, back to back")
    log(f"launch eager {t * 1e6:.2f} us")
    # synchronised: launch, wait, host clock
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        x.add_(1)
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    t = statistics.median(ts)
    w.row(operation="launch", launch="synchronised", repeats=n, seconds=t, dtype="fp32",
          note="x.add_(1) then torch.cuda.synchronize(), host clock")
    log(f"launch synchronised {t * 1e6:.2f} us")
    g = graph_of(lambda: [x.add_(1) for _ in range(n)])
    g.replay()
    t = events_time(g.replay, 10) / n
    w.row(operation="launch", launch="graph", repeats=10 * n, seconds=t, dtype="fp32",
          note="x.add_(1) captured n times, graph replay")
    log(f"launch graph {t * 1e6:.2f} us")
    del g
    # One GEMM call per launch mode: eager from Python, synchronised, and in a graph.
    for m, nn, k in ((1, 4096, 4096), (32, 4096, 4096)):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        wt = torch.randn(nn, k, device="cuda", dtype=torch.bfloat16)
        for _ in range(20):
            a @ wt.t()
        torch.cuda.synchronize()
        reps = 200 if not quick else 50
        t = events_time(lambda: [a @ wt.t() for _ in range(reps)], 5) / reps
        common = dict(operation="gemm", m=m, n=nn, k=k, dtype="bf16",
                      flops=2.0 * m * nn * k, bytes=2 * (m * k + nn * k + m * nn))
        w.row(**common, launch="eager", repeats=5 * reps, seconds=t,
              note="torch.matmul back to back from Python (warm weights)")
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            a @ wt.t()
            torch.cuda.synchronize()
            ts.append(time.perf_counter() - t0)
        ts_med = statistics.median(ts)
        w.row(**common, launch="synchronised", repeats=reps, seconds=ts_med,
              note="one torch.matmul then synchronize, host clock (warm weights)")
        g = graph_of(lambda: [a @ wt.t() for _ in range(reps)])
        g.replay()
        tg = events_time(g.replay, 10) / reps
        w.row(**common, launch="graph", repeats=10 * reps, seconds=tg,
              note="the same GEMM captured back to back (warm weights)")
        log(f"gemm {m}x{nn}x{k} eager {t * 1e6:.2f} us, synchronised {ts_med * 1e6:.2f} us, "
            f"graph {tg * 1e6:.2f} us")
        del g
    kernel_sweep(w, quick)


SWEEP_N, SWEEP_K, SWEEP_M = 65536, 4096, 8  # the sweep's fixed work: [M,K] x [K,N], 512 MiB of weights


def kernel_sweep(w, quick):
    """The fixed time a kernel costs, from its count at fixed work: one
    [8, 4096] x [4096, 65536] bf16 GEMM split by columns into 1 ... 64 GEMMs
    (each on its own weights, 512 MiB in all, so every replay reads them from
    HBM), replayed from a CUDA graph. The bytes stay the same; the time grows
    by the kernels' fixed cost: `roofline calibrate` fits kernel-overhead from
    the slope (formulas.md, "Calibration: fitting the achievable figures")."""
    K, M = SWEEP_K, SWEEP_M
    counts = (1, 2, 4, 8, 16, 32, 64) if not quick else (1, 8, 64)
    x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    wt = torch.randn(SWEEP_N, K, device="cuda", dtype=torch.bfloat16)
    for kernels in counts:
        n = SWEEP_N // kernels
        parts = list(wt.split(n, 0))
        g = graph_of(lambda: [x @ p.t() for p in parts])
        for _ in range(3):
            g.replay()
        t = events_time(g.replay, 20 if not quick else 5)
        w.row(operation="kernel_sweep", m=M, n=n, k=K, kernels=kernels, dtype="bf16", launch="graph",
              flops=2.0 * M * SWEEP_N * K, bytes=2 * (SWEEP_N * K + kernels * M * K + M * SWEEP_N),
              repeats=20, seconds=t,
              note=f"{M}x{SWEEP_N}x{K} split into {kernels} GEMMs of N = {n}, graph replay (cold weights)")
        log(f"kernel sweep {kernels:3d} GEMMs of {M}x{n}x{K}: {t * 1e6:.1f} us")
        del g
    del x, wt
    torch.cuda.empty_cache()


def host_calls(quick):
    """(operation, name, kernels, fn): the calls of serving_fidelity.py's forward, as it makes
    them, at a tiny shape (their kernels take 2-4 us, well below the host's path)."""
    bf = dict(device="cuda", dtype=torch.bfloat16)
    d, h, kv, dh = 4096, 32, 8, 128
    x = torch.randn(1, d, **bf)
    r = torch.randn(1, 256, **bf)
    w = torch.randn(256, d, **bf)
    nw = torch.ones(d, **bf)
    qkv = torch.randn(1, (h + 2 * kv) * dh, **bf)
    freqs = torch.polar(torch.ones(dh // 2, device="cuda"), torch.rand(dh // 2, device="cuda"))
    kc = torch.randn(1, kv, 68, dh, **bf)
    vc = torch.randn(1, kv, 68, dh, **bf)
    kd = torch.randn(1, kv, 64, dh, **bf)
    vd = torch.randn(1, kv, 64, dh, **bf)
    pos = torch.tensor([63], device="cuda")
    gu = torch.randn(1, 1024, **bf)
    qkv4 = torch.randn(4, (h + 2 * kv) * dh, **bf)
    fp8 = fp8_dtype() if fp8_ok() else None

    def rotary():
        qk = qkv[:, : (h + kv) * dh].reshape(1, h + kv, dh)
        c = torch.view_as_complex(qk.float().unflatten(-1, (-1, 2)))
        return torch.view_as_real(c * freqs).flatten(-2).to(torch.bfloat16).split([h, kv], 1)

    def kv_write():
        k = qkv[:, h * dh:(h + kv) * dh].reshape(1, kv, dh)
        v = qkv[:, (h + kv) * dh:].reshape(1, kv, dh)
        kd.index_copy_(2, pos, k.view(1, kv, 1, dh))
        vd.index_copy_(2, pos, v.view(1, kv, 1, dh))

    def attention():
        q = qkv[:, : h * dh].reshape(1, h, 1, dh)
        return F.scaled_dot_product_attention(q, kd, vd, enable_gqa=True).reshape(1, h * dh)

    def activation():
        g, u = gu.chunk(2, -1)
        return F.silu(g) * u

    def cached_attention():
        from torch.nn.attention.bias import causal_lower_right
        k = qkv4[:, h * dh:(h + kv) * dh].reshape(4, kv, dh).view(1, 4, kv, dh).transpose(1, 2)
        v = qkv4[:, (h + kv) * dh:].reshape(4, kv, dh).view(1, 4, kv, dh).transpose(1, 2)
        kc[:, :, 64:68].copy_(k)
        vc[:, :, 64:68].copy_(v)
        q = qkv4[:, : h * dh].reshape(4, h, dh).view(1, 4, h, dh).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, kc, vc, attn_mask=causal_lower_right(4, 68),
                                           enable_gqa=True)
        return o.transpose(1, 2).reshape(4, h * dh)

    calls = [("host_kernel", "rms_norm", 1, lambda: F.rms_norm(x, (d,), nw, 1e-5)),
             ("host_gemm", "matmul", None, lambda: x @ w.t()),
             ("host_kernel", "rotary", 3, rotary),
             ("host_kernel", "kv_write", 2, kv_write),
             ("host_attention", "sdpa_decode", None, attention),
             ("host_gemm", "addmm", None, lambda: torch.addmm(r, x, w.t())),
             ("host_kernel", "activation", 2, activation),
             ("host_kernel", "add", 1, lambda: x + x)]
    if fp8 is not None:
        calls.append(("host_kernel", "cast_fp8", 1, lambda: x.to(fp8)))
    calls.append(("host_cached_attention", "chunk_attention", None, cached_attention))
    return calls


def host(w, quick):
    n = 400 if not quick else 50

    def per_call(fn):
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        out = []
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(n):
                fn()
            torch.cuda.synchronize()
            out.append((time.perf_counter() - t) / n)
        return statistics.median(out)

    calls = host_calls(quick)
    alone = 0.0
    for op, name, kernels, fn in calls:
        t = per_call(fn)
        alone += t
        w.row(operation=op, dtype="bf16", launch="eager", repeats=5 * n, seconds=t,
              kernels=kernels if kernels else "",
              note=f"{name}: called back to back from Python as the forward calls it, wall clock")
        log(f"{op} {name}: {t * 1e6:.2f} us")
    fns = [fn for _, _, _, fn in calls]

    def layer():
        for f in fns:
            f()

    t = per_call(layer)
    w.row(operation="host_layer", dtype="bf16", launch="eager", repeats=5 * n, seconds=t,
          note="every host_* call above once, in this order, back to back, wall clock per cycle")
    log(f"host_layer: {t * 1e6:.1f} us against {alone * 1e6:.1f} us alone ({t / alone:.3f})")


# A profiled kernel's class by its name (PyTorch's CUDA kernels, cuBLAS, cuDNN), with the
# bytes one moves at t tokens of a Llama-3-8B-shaped decode step over T cached tokens
# (validation/kernel_classes.py holds the same table).
def kernel_kinds(d, h, kv, dh, ff, T):
    return [
        ("vectorized_layer_norm_kernel", "norm", lambda t: 4 * t * d),
        ("index_copy_kernel_impl", "kv_write", lambda t: 4 * t * kv * dh),
        ("splitKreduce", None, None),
        ("nvjet", None, None),
        ("gemm", None, None),
        ("sdpa", "attention", lambda t: 4 * t * T * kv * dh + 4 * t * h * dh),
        ("flash", "attention", lambda t: 4 * t * T * kv * dh + 4 * t * h * dh),
        ("lean_reduction", "combine", lambda t: 4 * t * h * dh),
        ("Memcpy DtoD", "copy", lambda t: 4 * t * d),
        ("Memset", None, None),
        ("direct_copy_kernel_cuda", "pointwise", lambda t: 6 * t * (h + kv) * dh),
        ("bfloat16_copy_kernel_cuda", "pointwise", lambda t: 6 * t * (h + kv) * dh),
        ("complex", "pointwise", lambda t: 8 * t * (h + kv) * dh),
        ("silu", "pointwise", lambda t: 4 * t * ff),
        ("MulFunctor", "pointwise", lambda t: 6 * t * ff),
        ("float8_copy_kernel_cuda", "pointwise", lambda t: 3 * t * (2 * d + h * dh + ff) / 4),
        ("CUDAFunctor_add", "pointwise", lambda t: 6 * t * d),
        ("index_kernel", "pointwise", lambda t: 4 * t * d),
        ("gather_kernel", "pointwise", lambda t: 4 * t * d),
    ]


def kernels(w, quick):
    """Each kernel of one eager Llama-3-8B-shaped decode step (bf16, batch 1 and 32 at T =
    1,024) under torch.profiler: per kernel name of a class the `kernel-fixed` figures
    cover, a `kernel_<class>` row of its mean device time, its count and the bytes one
    moves. Last of the sections: a profiler session leaves CUPTI attached, which slows
    every later eager launch from Python."""
    from torch.profiler import ProfilerActivity, profile

    L, d, h, kv, dh, ff, V, T = 32, 4096, 32, 8, 128, 14336, 128256, 1024
    if quick:
        L = 4
    bf = dict(device="cuda", dtype=torch.bfloat16)
    net = llama_weights(L, d, h, kv, dh, ff, V)
    kinds = kernel_kinds(d, h, kv, dh, ff, T)
    for B in (1, 32):
        kc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        vc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        tok = torch.randint(0, V, (B,), device="cuda")
        pos = torch.tensor([T - 1], device="cuda")

        def step():
            return llama_step(net, kc, vc, tok, pos, B, d, h, kv, dh)

        for _ in range(3):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        by = {}
        for e in prof.events():
            if e.device_type != torch.autograd.DeviceType.CUDA:
                continue
            t = getattr(e, "device_time_total", None)
            if t is None:
                t = e.cuda_time_total
            c = by.setdefault(e.name, [0, 0.0])
            c[0] += 1
            c[1] += t * 1e-6
        rows = 0
        for name, (count, total) in sorted(by.items()):
            kind = next(((cls, work) for frag, cls, work in kinds if frag in name), (None, None))
            if kind[0] is None:
                continue
            cls, work = kind
            w.row(operation=f"kernel_{cls}", model="llama-3-8b", layers=L, batch=B, context=T,
                  heads=h, kv_heads=kv, head_dim=dh, bytes=float(max(work(B), 1)), dtype="bf16",
                  launch="eager", repeats=1, seconds=total / count, kernels=count,
                  note=f"{name[:80]}: torch.profiler device time of one eager decode step, mean of its {count} kernels")
            rows += 1
        log(f"kernels B={B}: {sum(c for c, _ in by.values())} kernels profiled, {rows} rows")
        del kc, vc
        torch.cuda.empty_cache()


SECTIONS = [
    Rows("host.launch", "launch", "launch cost per mode, one GEMM call per mode, the kernel "
         "sweep (calibration rows launch, gemm, kernel_sweep)", launch),
    Rows("host.calls", "host", "the host's path of each call a forward makes (calibration "
         "rows host_*)", host),
    Rows("host.kernels", "kernels", "a decode step's kernels by class under the profiler "
         "(calibration rows kernel_*; last: the profiler stays attached)", kernels),
    Script("host.probe", "host_probe.py", "the eager host path by call class, steps and chunks, "
           "in rounds", argv=["{py}", "{script}", "{dir}/host-probe.json", "--rounds", "3"],
           quick=["--quick"]),
]

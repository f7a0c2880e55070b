"""Small models, a masked chunk, single eager GEMM calls and batch-64 power
on one H200, none of which any figure was fitted on (issue 38's carried-over
points, docs/validation.md "Small models and single calls").

    python3 validation/small_models_h200.py OUT.json     # about 4 minutes

- decode: Llama-3.2-1B (16 layers, d 2,048, 32/8 heads of 64, FFN 8,192,
  vocabulary 128,256, head tied to the embedding) and Llama-3.2-3B (28
  layers, d 3,072, 24/8 heads of 128, FFN 8,192, tied), shapes from the
  models' config.json (models/llama-3.2-*.toml), on serving_fidelity.py's
  forward and timing, eagerly and from a CUDA graph; then the kernels of
  one eager step and one replay under the profiler (last, because a
  profiler leaves CUPTI attached and slows later eager launches).
- prefill of the 1B model at 512, 2,048 and 8,192 tokens (eager).
- chunk: 2,048 new tokens over a 16,384-token cache on the Llama-3-8B
  forward, attention three ways: the lower-right causal bias (the forward's
  own path), an explicit boolean mask of the same pattern (a hand-written
  chunked prefill), and the bias from a graph; the profiler names the
  attention kernel each ran.
- gemm_eager: one torch.matmul of M x 4096 x 4096 (bf16) called back to
  back from Python (CUDA events over 200 calls), and called then
  synchronised (host clock, median of 200).
- power: Llama-3-8B and Llama-3.2-1B decode at batch 64 (and the 1B at
  batch 1) from a CUDA graph, a 6 s loop after 3 s of rest, nvidia-smi
  power over it after 2 s (validation/common.py's sampler and loop).
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

sf.MODELS["llama-3.2-1b"] = dict(L=16, d=2048, h=32, kv=8, dh=64, ff=8192, V=128256)
sf.MODELS["llama-3.2-3b"] = dict(L=28, d=3072, h=24, kv=8, dh=128, ff=8192, V=128256)
TIED = ("llama-3.2-1b", "llama-3.2-3b")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def model(name):
    M = sf.Model(name, "bf16")
    if name in TIED:
        M.head = M.emb  # tie_word_embeddings: the LM head reads the embedding table
    return M


def decode_rows(res):
    sf.CLEAN = True  # no profiler while timing
    plan = {
        "llama-3.2-1b": [(1, 1024), (8, 1024), (32, 1024), (64, 1024), (128, 1024), (256, 1024),
                         (1, 8192), (32, 4096)],
        "llama-3.2-3b": [(1, 1024), (8, 1024), (32, 1024), (64, 1024), (128, 1024), (1, 8192)],
    }
    for name, shapes in plan.items():
        M = model(name)
        for B, T in shapes:
            sf.run_decode(M, res, B, T)
        if name == "llama-3.2-1b":
            for S in (512, 2048, 8192):
                sf.run_prefill(M, res, 1, S)
        del M
        torch.cuda.empty_cache()


def masked_chunk_attention(q, k, v, gqa):
    S, T = q.shape[2], k.shape[2]
    i = torch.arange(S, device=q.device).view(S, 1)
    j = torch.arange(T, device=q.device).view(1, T)
    mask = j <= i + (T - S)  # lower-right causal, as a boolean mask
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=gqa)


def attention_kernels(fn):
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA and (
                "attn" in e.name.lower() or "fmha" in e.name.lower() or "flash" in e.name.lower()
                or "sdpa" in e.name.lower() or "attention" in e.name.lower()):
            names[e.name[:100]] = names.get(e.name[:100], 0) + 1
    return names


def chunk_rows(res):
    M = model("llama-3-8b")
    q, T = 2048, 16384
    sf.CLEAN = True
    res.setdefault("chunk_variants", [])
    own = sf.chunk_attention
    for label, attn in (("lower_right_bias", own), ("boolean_mask", masked_chunk_attention)):
        sf.chunk_attention = attn
        sf.CHUNK_PATH = None
        before = len(res["chunk"])
        sf.run_prefill(M, res, 1, None, q=q, T=T)
        row = res["chunk"][before]
        row["variant"] = label
        tok = torch.randint(0, M.m["V"], (1, q), device="cuda")
        kc, vc = sf.caches(M, 1, T + q)
        row["attention_kernels"] = attention_kernels(lambda: M.prefill(tok, kc, vc, start=T))
        del kc, vc
        torch.cuda.empty_cache()
        res["chunk_variants"].append(dict(variant=label, time_s=row["time_s"],
                                          graph_s=row.get("graph_s"),
                                          kernels=row["attention_kernels"]))
        log(json.dumps(res["chunk_variants"][-1]))
    sf.chunk_attention = own
    del M
    torch.cuda.empty_cache()


def gemm_eager_rows(res):
    res["gemm_eager"] = []
    for M_ in (1, 8, 16, 64, 128, 256, 512):
        a = torch.randn(M_, 4096, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
        for _ in range(50):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        n = 200
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(n):
            torch.matmul(a, b)
        e.record()
        e.synchronize()
        back_to_back = s.elapsed_time(e) * 1e-3 / n
        synced = []
        for _ in range(n):
            t0 = time.perf_counter()
            torch.matmul(a, b)
            torch.cuda.synchronize()
            synced.append(time.perf_counter() - t0)
        g = graph_of(lambda: torch.matmul(a, b))
        for _ in range(5):
            g.replay()
        s.record()
        for _ in range(n):
            g.replay()
        e.record()
        e.synchronize()
        graph = s.elapsed_time(e) * 1e-3 / n
        row = dict(m=M_, n=4096, k=4096, dtype="bf16", back_to_back_s=back_to_back,
                   synchronised_median_s=statistics.median(synced),
                   synchronised_min_s=min(synced), graph_replay_s=graph, calls=n)
        res["gemm_eager"].append(row)
        log(json.dumps(row))
        del g


def power_rows(res):
    sampler = Sampler()
    phases = []
    time.sleep(1.0)
    t0 = time.time()
    time.sleep(5.0)
    w = sampler.window(t0 + 1.0, time.time())
    phases.append(dict(phase="idle", power_mean_w=w[0] if w else None))
    log(json.dumps(phases[-1]))
    for name, B, T in (("llama-3-8b", 64, 1024), ("llama-3-8b", 64, 2048), ("llama-3-8b", 64, 4096),
                       ("llama-3.2-1b", 64, 1024), ("llama-3.2-1b", 1, 1024)):
        M = model(name)
        kc, vc = sf.caches(M, B, T)
        tok = torch.randint(0, M.m["V"], (B,), device="cuda")
        pos = torch.tensor([T - 1], device="cuda")
        nxt = torch.empty(B, dtype=torch.long, device="cuda")

        def step(M=M, tok=tok, kc=kc, vc=vc, pos=pos, nxt=nxt):
            nxt.copy_(M.decode_step(tok, kc, vc, pos).argmax(-1))

        time.sleep(3.0)
        g = graph_of(step)
        torch.cuda.synchronize()
        a, b, durs, settled = timed_loop(6.0, g.replay)
        w = sampler.window(a + SETTLE, b)
        row = dict(phase=f"decode_{name}_b{B}_t{T}", model=name, batch=B, context=T,
                   step_s=statistics.median(settled or durs), calls=len(durs),
                   first_calls_s=durs[:6], power_mean_w=w[0] if w else None,
                   sm_clock_mean_mhz=w[1] if w else None, temperature_c=w[3] if w else None)
        phases.append(row)
        log(json.dumps({k: v for k, v in row.items() if k != "first_calls_s"}))
        del g, kc, vc, M
        torch.cuda.empty_cache()
    sampler.stop()
    res["power"] = phases
    res["power_samples"] = sampler.samples


def profiled_counts(res):
    """Kernels per step under the profiler, after all timing (CUPTI stays attached)."""
    res["kernels"] = []
    for name, B, T in (("llama-3.2-1b", 1, 1024), ("llama-3.2-1b", 64, 1024), ("llama-3.2-3b", 1, 1024)):
        M = model(name)
        kc, vc = sf.caches(M, B, T)
        tok = torch.randint(0, M.m["V"], (B,), device="cuda")
        pos = torch.tensor([T - 1], device="cuda")
        step = lambda: M.decode_step(tok, kc, vc, pos).argmax(-1)  # noqa: E731
        step()
        g = graph_of(step)
        row = dict(model=name, batch=B, context=T, eager=sf.kernel_count(step),
                   graph=sf.kernel_count(g.replay))
        res["kernels"].append(row)
        log(f"{name} B={B} kernels eager {row['eager']['kernels']} graph {row['graph']['kernels']}")
        del g, kc, vc, M
        torch.cuda.empty_cache()


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    sf.probe_pad()
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
               cuda=torch.version.cuda, date_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               decode=[], prefill=[], chunk=[], failures=[], method=__doc__)
    for part in (gemm_eager_rows, decode_rows, chunk_rows, power_rows, profiled_counts):
        try:
            part(res)
        except Exception as e:  # noqa: BLE001
            import traceback

            log(f"{part.__name__} FAILED {e!r}")
            res["failures"].append(f"{part.__name__}: {traceback.format_exc()[-600:]}")
            torch.cuda.empty_cache()
        with open(out, "w") as f:
            json.dump(res, f, indent=1)
    log(f"wrote {out}")


if __name__ == "__main__":
    main()

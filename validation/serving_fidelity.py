"""Serving steps on one H200 for the per-operation achievable model (issue 17).

    python3 validation/serving_fidelity.py OUT.json          # about 4 minutes
    python3 validation/serving_fidelity.py OUT.json --quick  # a smoke test
    ncu --clock-control none --nvtx --csv --log-file ncu.csv \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,launch__grid_size \
        python3 validation/serving_fidelity.py probe         # each probed op once, for DRAM bytes

Random weights of the published shapes (a step's time depends on shapes, not
values), built straight on the GPU:

- llama-3-8b (GQA) in bf16 and in fp8, llama-2-7b (MHA) in bf16,
  llama-3.1-70b in fp8 (80 layers, about 70 GB), mixtral-8x7b in bf16 (MoE:
  8 experts, top 2; all 32 layers when memory allows, else fewer: `layers`
  says how many ran).
- fp8: weights e4m3 with a per-tensor scale, each projection's input cast to
  e4m3 (one kernel, static scale) and `torch._scaled_mm` to bf16; embedding,
  norms, attention, KV cache and LM head stay bf16.
- A decode step per layer: RMSNorm, fused QKV, rotary (one complex multiply
  over q and k), KV-cache write, SDPA over the cache, output projection and
  residual, RMSNorm, fused gate+up, SiLU x up, down projection and residual;
  final norm, LM head for every sequence, argmax. MoE layers: router GEMM,
  top-2 and softmax, then per expert the tokens routed to it gathered, its
  gate+up, SiLU x up and down GEMMs, weighted and scattered back. Routing is
  uniform: every token picks 2 distinct experts at random, independently per
  layer (the tool's assumption, `src/calc/forward/step.rs` "experts touched"); the
  choice is drawn before capture so the graph has fixed shapes, and an
  expert no token picked is skipped (its weights are not read).
- decode: timed eagerly from Python (`eager_s`, the host path in the clock)
  and replayed from a CUDA graph (`graph_s`); CUDA events, median of 10 eager
  steps and 20 replays after warm-up.
- prefill: S prompt tokens per sequence from an empty cache, causal flash
  attention, LM head on the last token; eager, median of 5 (3 when long).
- chunk: q new tokens per sequence over a cache already holding T tokens
  (attention over T + q keys, lower-right causal mask: a chunked prefill, a
  prefix-cache hit, or a speculative verify pass when q is small); eager.
- kernels per step: torch.profiler over one eager step and one graph replay
  (CUDA kernels; memcpy and memset counted apart), with the 12 most frequent
  kernel names.
- `--clean`: no profiler at all, and each chunk also replayed from a CUDA
  graph (`graph_s`). A profiler session leaves CUPTI attached for the rest
  of the process (PyTorch does not tear it down by default: pytorch/pytorch
  issue 144455), which slows every later eager launch from Python; the
  eager rows of a run that profiles are taken after its first profile.

Every result is checked finite; a row that is not says so.
"""

import json
import math
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from common import graph_of  # noqa: E402 - validation/common.py's, also sf.graph_of for the probes

MODELS = {
    "llama-3-8b": dict(L=32, d=4096, h=32, kv=8, dh=128, ff=14336, V=128256),
    "llama-2-7b": dict(L=32, d=4096, h=32, kv=32, dh=128, ff=11008, V=32000),
    "llama-3.1-70b": dict(L=80, d=8192, h=64, kv=8, dh=128, ff=28672, V=128256),
    "mixtral-8x7b": dict(L=32, d=4096, h=32, kv=8, dh=128, ff=14336, V=32000, E=8, topk=2),
}
QUICK = "--quick" in sys.argv
CLEAN = "--clean" in sys.argv
FP8 = torch.float8_e4m3fn
T0 = time.time()
PAD_M = 1


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def probe_pad():
    global PAD_M
    one = torch.ones((), device="cuda")
    for pad in (1, 16):
        try:
            a = torch.randn(pad, 64, device="cuda").to(FP8)
            b = torch.randn(64, 64, device="cuda").to(FP8)
            torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            torch.cuda.synchronize()
            PAD_M = pad
            return
        except RuntimeError:
            continue


class Model:
    def __init__(self, name, dtype, layers=None):
        m = dict(MODELS[name])
        if layers:
            m["L"] = layers
        self.name, self.m, self.dtype = name, m, dtype
        L, d, h, kv, dh, ff, V = (m[k] for k in ("L", "d", "h", "kv", "dh", "ff", "V"))
        bf = dict(device="cuda", dtype=torch.bfloat16)
        s = 0.02
        self.one = torch.ones((), device="cuda")
        self.emb = torch.randn(V, d, **bf) * s
        self.head = torch.randn(V, d, **bf) * s
        self.freqs = torch.polar(torch.ones(dh // 2, device="cuda"), torch.rand(dh // 2, device="cuda"))
        self.layers = []
        for _ in range(L):
            l = dict(n1=torch.ones(d, **bf), n2=torch.ones(d, **bf),
                     qkv=self.w((h + 2 * kv) * dh, d), o=self.w(d, h * dh))
            if "E" in m:
                l["router"] = torch.randn(m["E"], d, **bf) * s
                l["w13"] = [self.w(2 * ff, d) for _ in range(m["E"])]
                l["w2"] = [self.w(d, ff) for _ in range(m["E"])]
            else:
                l["gu"] = self.w(2 * ff, d)
                l["down"] = self.w(d, ff)
            self.layers.append(l)
        self.route = None  # per layer: list of (expert, token index tensor)

    def w(self, n, k):
        t = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02
        return t.to(FP8) if self.dtype == "fp8" else t

    def lin(self, x, w):
        if self.dtype != "fp8":
            return x @ w.t()
        M = x.shape[0]
        pad = (-M) % PAD_M
        xq = x.to(FP8)
        if pad:
            xq = F.pad(xq.view(torch.uint8), (0, 0, 0, pad)).view(FP8)
        y = torch._scaled_mm(xq, w.t(), scale_a=self.one, scale_b=self.one, out_dtype=torch.bfloat16)
        return y[:M] if pad else y

    def lin_res(self, x, a, w):
        if self.dtype != "fp8":
            return torch.addmm(x, a, w.t())
        return x + self.lin(a, w)

    def set_route(self, tokens, seed=0):
        """Uniform routing drawn once: each token picks top-k distinct experts at random."""
        m = self.m
        if "E" not in m:
            return
        g = torch.Generator(device="cuda").manual_seed(seed)
        self.route = []
        touched = []
        for _ in range(m["L"]):
            pick = torch.rand(tokens, m["E"], device="cuda", generator=g).topk(m["topk"], -1).indices
            per = []
            for e in range(m["E"]):
                idx = (pick == e).any(-1).nonzero().flatten()
                if idx.numel():
                    per.append((e, idx))
            touched.append(len(per))
            self.route.append(per)
        self.touched = statistics.fmean(touched)

    def ffn(self, i, l, x):
        y = F.rms_norm(x, (x.shape[-1],), l["n2"], 1e-5)
        if "E" not in self.m:
            g, u = self.lin(y, l["gu"]).chunk(2, -1)
            return self.lin_res(x, F.silu(g) * u, l["down"])
        logits = y @ l["router"].t()
        topv, _ = logits.topk(self.m["topk"], -1)
        wts = topv.softmax(-1)[:, :1]  # one weight per token stands in for the gathered pair
        out = torch.zeros_like(x)
        for e, idx in self.route[i]:
            xe = y.index_select(0, idx)
            g, u = self.lin(xe, l["w13"][e]).chunk(2, -1)
            oe = self.lin(F.silu(g) * u, l["w2"][e])
            out.index_add_(0, idx, oe * wts.index_select(0, idx))
        return x + out

    def rope(self, qk):
        c = torch.view_as_complex(qk.float().unflatten(-1, (-1, 2)))
        return torch.view_as_real(c * self.freqs).flatten(-2).to(torch.bfloat16)

    def attn_block(self, l, x, write_kv, attend):
        """x: [N, d] for N = B x q tokens. Returns x after attention and the output projection."""
        m = self.m
        h, kv, dh = m["h"], m["kv"], m["dh"]
        y = F.rms_norm(x, (x.shape[-1],), l["n1"], 1e-5)
        qkv = self.lin(y, l["qkv"])
        N = x.shape[0]
        qk = self.rope(qkv[:, : (h + kv) * dh].reshape(N, h + kv, dh))
        q, k = qk.split([h, kv], 1)
        v = qkv[:, (h + kv) * dh:].reshape(N, kv, dh)
        k, v = write_kv(k, v)
        a = attend(q, k, v)  # [N, h*dh]
        return self.lin_res(x, a, l["o"])

    def decode_step(self, tok, kc, vc, pos):
        m = self.m
        h, kv, dh = m["h"], m["kv"], m["dh"]
        B = tok.shape[0]
        x = self.emb[tok]
        for i, l in enumerate(self.layers):
            def write_kv(k, v, i=i):
                kc[i].index_copy_(2, pos, k.view(B, kv, 1, dh))
                vc[i].index_copy_(2, pos, v.view(B, kv, 1, dh))
                return kc[i], vc[i]

            def attend(q, k, v):
                o = F.scaled_dot_product_attention(q.reshape(B, h, 1, dh), k, v, enable_gqa=kv != h)
                return o.reshape(B, h * dh)

            x = self.attn_block(l, x, write_kv, attend)
            x = self.ffn(i, l, x)
        return F.rms_norm(x, (x.shape[-1],), None, 1e-5) @ self.head.t()

    def prefill(self, tok, kc=None, vc=None, start=0):
        """tok [B, q]; with caches, attends over start + q keys (lower-right causal)."""
        m = self.m
        h, kv, dh = m["h"], m["kv"], m["dh"]
        B, S = tok.shape
        x = self.emb[tok].reshape(B * S, -1)
        for i, l in enumerate(self.layers):
            def write_kv(k, v, i=i):
                k = k.view(B, S, kv, dh).transpose(1, 2)
                v = v.view(B, S, kv, dh).transpose(1, 2)
                if kc is None:
                    return k, v
                kc[i][:, :, start:start + S].copy_(k)
                vc[i][:, :, start:start + S].copy_(v)
                return kc[i][:, :, :start + S], vc[i][:, :, :start + S]

            def attend(q, k, v):
                q = q.view(B, S, h, dh).transpose(1, 2)
                if kc is None or start == 0:
                    o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=kv != h)
                else:
                    o = chunk_attention(q, k, v, kv != h)
                return o.transpose(1, 2).reshape(B * S, h * dh)

            x = self.attn_block(l, x, write_kv, attend)
            x = self.ffn(i, l, x)
        last = x.view(B, S, -1)[:, -1]
        return F.rms_norm(last, (last.shape[-1],), None, 1e-5) @ self.head.t()


CHUNK_PATH = None


def chunk_attention(q, k, v, gqa):
    global CHUNK_PATH
    from torch.nn.attention.bias import causal_lower_right

    bias = causal_lower_right(q.shape[2], k.shape[2])
    if CHUNK_PATH in (None, "lower_right_gqa"):
        try:
            o = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, enable_gqa=gqa)
            CHUNK_PATH = "lower_right_gqa"
            return o
        except (RuntimeError, TypeError):
            CHUNK_PATH = "lower_right_repeat_kv"
    r = q.shape[1] // k.shape[1]
    return F.scaled_dot_product_attention(q, k.repeat_interleave(r, 1), v.repeat_interleave(r, 1),
                                          attn_mask=bias)


def ev_time(fn, reps):
    out = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) * 1e-3)
    return statistics.median(out), min(out), max(out)


def kernel_count(fn):
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    kern, mem, names = 0, 0, {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        n = e.name
        if n.startswith(("Memcpy", "Memset", "[memcpy", "[memset")) or "memcpy" in n.lower()[:12]:
            mem += 1
            continue
        kern += 1
        key = n[:90]
        names[key] = names.get(key, 0) + 1
    top = sorted(names.items(), key=lambda kv: -kv[1])[:12]
    return dict(kernels=kern, memcpy_memset=mem, top=top)


def caches(M, B, T):
    m = M.m
    bf = dict(device="cuda", dtype=torch.bfloat16)
    kc = [torch.randn(B, m["kv"], T, m["dh"], **bf) for _ in range(m["L"])]
    vc = [torch.randn(B, m["kv"], T, m["dh"], **bf) for _ in range(m["L"])]
    return kc, vc


def run_decode(M, res, B, T, count=False):
    m = M.m
    kc, vc = caches(M, B, T)
    tok = torch.randint(0, m["V"], (B,), device="cuda")
    pos = torch.tensor([T - 1], device="cuda")
    M.set_route(B, seed=B * 7 + T)
    nxt = torch.empty(B, dtype=torch.long, device="cuda")

    def step():
        logits = M.decode_step(tok, kc, vc, pos)
        nxt.copy_(logits.argmax(-1))
        return logits

    ok = bool(torch.isfinite(step()).all())
    for _ in range(2):
        step()
    torch.cuda.synchronize()
    eager = ev_time(step, 10 if not QUICK else 3)
    g = graph_of(step)
    for _ in range(3):
        g.replay()
    graph = ev_time(g.replay, 20 if not QUICK else 5)
    row = dict(kind="decode", model=M.name, dtype=M.dtype, layers=m["L"], batch=B, context=T,
               eager_s=eager[0], eager_min_s=eager[1], graph_s=graph[0], graph_min_s=graph[1],
               graph_max_s=graph[2], finite=ok)
    if M.route is not None:
        row["experts_touched_mean"] = M.touched
    if count and not CLEAN:
        row["profile_eager"] = kernel_count(step)
        row["profile_graph"] = kernel_count(g.replay)
    log(json.dumps({k: v for k, v in row.items() if not k.startswith("profile")})
        + (f" kernels eager {row['profile_eager']['kernels']} graph {row['profile_graph']['kernels']}"
           if count and not CLEAN else ""))
    res["decode"].append(row)
    del g, kc, vc
    torch.cuda.empty_cache()


def run_prefill(M, res, B, S, q=None, T=0):
    """Prefill of S tokens (T == 0), or a chunk of q new tokens over T cached ones."""
    m = M.m
    n_new = S if not T else q
    tok = torch.randint(0, m["V"], (B, n_new), device="cuda")
    M.set_route(B * n_new, seed=B + n_new + T)
    if T:
        kc, vc = caches(M, B, T + q)
        f = lambda: M.prefill(tok, kc, vc, start=T)
    else:
        kc = vc = None
        f = lambda: M.prefill(tok)
    out = f()
    ok = bool(torch.isfinite(out).all())
    f()
    torch.cuda.synchronize()
    reps = 3 if (B * n_new * (n_new + T) > 2 ** 26 or m["L"] > 40) else 5
    t = ev_time(f, reps if not QUICK else 2)
    row = dict(kind="prefill" if not T else "chunk", model=M.name, dtype=M.dtype, layers=m["L"],
               batch=B, time_s=t[0], min_s=t[1], max_s=t[2], finite=ok)
    if T:
        row.update(new_tokens=q, cached=T, attention=CHUNK_PATH)
        if CLEAN:
            g = graph_of(f)
            for _ in range(2):
                g.replay()
            row["graph_s"] = ev_time(g.replay, reps if not QUICK else 2)[0]
            del g
    else:
        row.update(prompt=S)
    if M.route is not None:
        row["experts_touched_mean"] = M.touched
    log(json.dumps(row))
    res["prefill" if not T else "chunk"].append(row)
    del kc, vc
    torch.cuda.empty_cache()


def plan():
    if QUICK:
        return [("llama-3-8b", "bf16", None, [(1, 1024, True), (32, 1024, False)], [(1, 2048)],
                 [(1, 128, 4096)]),
                ("mixtral-8x7b", "bf16", 4, [(8, 1024, True)], [(1, 1024)], [])]
    return [
        ("llama-3-8b", "bf16", None,
         [(1, 1024, True), (1, 8192, False), (8, 1024, False), (32, 1024, True), (32, 4096, False),
          (64, 2048, False), (128, 1024, False), (256, 1024, False), (512, 1024, False)],
         [(1, 512), (1, 2048), (1, 8192), (1, 16384), (4, 2048), (8, 1024), (32, 512)],
         [(1, 128, 4096), (1, 512, 4096), (1, 512, 8192), (1, 2048, 8192), (1, 2048, 14336),
          (32, 4, 4096), (8, 8, 2048), (64, 4, 1024)]),
        ("llama-3-8b", "fp8", None,
         [(1, 1024, True), (8, 1024, False), (32, 1024, True), (32, 4096, False), (128, 1024, False),
          (256, 1024, False)],
         [(1, 2048), (1, 8192), (4, 2048)], [(1, 2048, 8192), (32, 4, 4096)]),
        ("llama-2-7b", "bf16", None,
         [(1, 1024, True), (16, 1024, False), (32, 2048, False), (64, 1024, True)],
         [(1, 2048), (4, 2048)], [(1, 512, 4096)]),
        ("llama-3.1-70b", "fp8", None,
         [(1, 1024, True), (8, 2048, False), (32, 2048, True), (64, 1024, False), (128, 1024, False)],
         [(1, 2048), (1, 8192)], [(1, 1024, 8192)]),
        ("mixtral-8x7b", "bf16", "auto",
         [(1, 1024, True), (8, 1024, False), (32, 1024, True), (32, 4096, False), (128, 1024, False)],
         [(1, 2048), (4, 2048)], [(1, 512, 4096)]),
    ]


def mixtral_layers():
    m = MODELS["mixtral-8x7b"]
    per = 2 * (m["d"] * (m["h"] + 2 * m["kv"]) * m["dh"] + m["d"] * m["h"] * m["dh"]
               + m["E"] * 3 * m["d"] * m["ff"])
    free, _ = torch.cuda.mem_get_info()
    budget = free - 30e9  # KV caches and activations of the largest configuration
    return max(1, min(m["L"], int(budget // per)))


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    probe_pad()
    free, total = torch.cuda.mem_get_info()
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
               cuda=torch.version.cuda, mem_total=total, mem_free_at_start=free,
               fp8_pad_m=PAD_M, clean=CLEAN, decode=[], prefill=[], chunk=[], failures=[],
               method=__doc__)
    for name, dtype, layers, dec, pre, chunks in plan():
        try:
            if layers == "auto":
                layers = mixtral_layers()
            M = Model(name, dtype, layers)
            log(f"built {name} {dtype}, {M.m['L']} layers")
            for B, T, count in dec:
                try:
                    run_decode(M, res, B, T, count)
                except Exception as e:  # noqa: BLE001
                    log(f"decode {name} {dtype} B={B} T={T} FAILED {e!r}")
                    res["failures"].append(f"decode {name} {dtype} {B} {T}: {e!r}")
                    torch.cuda.empty_cache()
            for B, S in pre:
                try:
                    run_prefill(M, res, B, S)
                except Exception as e:  # noqa: BLE001
                    log(f"prefill {name} {dtype} B={B} S={S} FAILED {e!r}")
                    res["failures"].append(f"prefill {name} {dtype} {B} {S}: {e!r}")
                    torch.cuda.empty_cache()
            for B, q, T in chunks:
                try:
                    run_prefill(M, res, B, None, q=q, T=T)
                except Exception as e:  # noqa: BLE001
                    log(f"chunk {name} {dtype} B={B} q={q} T={T} FAILED {e!r}")
                    res["failures"].append(f"chunk {name} {dtype} {B} {q} {T}: {e!r}")
                    torch.cuda.empty_cache()
            del M
        except Exception:  # noqa: BLE001
            log(f"model {name} {dtype} FAILED\n{traceback.format_exc()}")
            res["failures"].append(f"model {name} {dtype}: {traceback.format_exc()[-400:]}")
        torch.cuda.empty_cache()
        res["wall_s"] = time.time() - T0
        with open(out, "w") as f:
            json.dump(res, f, indent=1)
    log(f"wrote {out}")


def probe():
    """Each op once, under NVTX ranges, for ncu's DRAM byte counters."""
    probe_pad()
    bf = dict(device="cuda", dtype=torch.bfloat16)
    one = torch.ones((), device="cuda")

    def rng(name, fn):
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(name)
        fn()
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        print("probe", name, flush=True)

    for M_ in (1, 32, 128):
        a = torch.randn(M_, 4096, **bf)
        w = torch.randn(28672, 4096, **bf)
        rng(f"gemm bf16 {M_}x28672x4096", lambda: a @ w.t())
        a8 = torch.randn(max(M_, PAD_M), 4096, **bf).to(FP8)
        w8 = w.to(FP8)
        rng(f"gemm fp8 {max(M_, PAD_M)}x28672x4096",
            lambda: torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
        rng(f"cast fp8 {M_}x4096", lambda: a.to(FP8))
    for B, h, kv, T in ((32, 32, 8, 4096), (16, 32, 32, 1024), (128, 32, 8, 1024)):
        q = torch.randn(B, h, 1, 128, **bf)
        k = torch.randn(B, kv, T, 128, **bf)
        v = torch.randn(B, kv, T, 128, **bf)
        rng(f"decode attention B={B} h={h} kv={kv} T={T}",
            lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=kv != h))
    for S in (4096,):
        q = torch.randn(1, 32, S, 128, **bf)
        k = torch.randn(1, 8, S, 128, **bf)
        v = torch.randn(1, 8, S, 128, **bf)
        rng(f"prefill attention S={S}",
            lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True))
    M = Model("llama-3-8b", "bf16", layers=2)
    kc, vc = caches(M, 32, 1024)
    tok = torch.randint(0, M.m["V"], (32,), device="cuda")
    pos = torch.tensor([1023], device="cuda")
    M.decode_step(tok, kc, vc, pos)
    rng("decode step llama-3-8b 2 layers B=32 T=1024", lambda: M.decode_step(tok, kc, vc, pos))


if __name__ == "__main__":
    if sys.argv[1:2] == ["probe"]:
        probe()
    else:
        main()

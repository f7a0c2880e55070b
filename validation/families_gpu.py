"""MLA's absorbed attention at odd key counts and gpt-oss-shaped prefill with
FlexAttention, in plain PyTorch, for issue 53 and docs/validation.md
("MLA's odd key counts", "FlexAttention prefill").

    python3 validation/families_gpu.py OUTDIR [--quick] [--only mla|flex]

MLA (DeepSeek-V2-Lite's attention: 16 heads, latent 512 + rotary 64): the
absorbed attention as validation/mla_steps.py runs it (scores = one bmm
[B, 16, 576] x [B, 576, K]; scale; softmax in fp32; cast back; values = one
bmm [B, 16, K] x [B, K, 512]) at B = 1, 16, 64, 256 and key counts K =
2,048 .. 8,193 (even, odd, 2 / 4 / 8 mod 8), each GEMM timed alone and the
whole, replayed from a CUDA graph over enough caches (each [B, K, 576],
its own) that they do not stay in the L2; the kernels each GEMM launches
(torch.profiler) at every point.

gpt-oss-20b-shaped prefill (openai/gpt-oss-20b config.json: 24 layers, d
2,880, 64 query heads and 8 KV heads of 64, a 128-token sliding window on
even layers, full attention on odd layers, a sink logit a head, 32 experts
of 2,880 top 4 with biases, vocabulary 201,088), bf16 random weights,
eager, B = 1: attention as transformers' flex path runs it (a block mask
of 128 x 128 blocks from create_block_mask, flex_attention compiled once
per shape with enable_gqa and return_lse, the sink folded in by
renormalising with the LSE: cat, logsumexp, exp, multiply; the output made
contiguous); experts as grouped GEMMs (argsort, counts, offsets,
index_select, torch._grouped_mm for gate/up and down with each routed
row's bias gathered and added, gpt-oss's clamped activation over
interleaved gate and up, routing weights, index_copy, sum over k). Points:
the attention alone per layer kind (flex kernel alone, flex + sink
renormalisation, SDPA's causal flash kernel without sinks for reference),
S = 1,024 .. 8,192; the whole prefill at S = 1,024, 2,048, 4,096 (eager,
upper median of 5), and its kernels at 4,096 (torch.profiler).
Writes OUTDIR/families.json after every point.
"""

import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import log  # noqa: E402

QUICK = "--quick" in sys.argv
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
L2_FLUSH = 200e6  # bytes of caches a graph cycles over (4x the H100's L2)


def kernels_of(torch, fn):
    """Kernel names and device seconds of one call of fn (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    by = {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        n = e.name[:140]
        c, t = by.get(n, (0, 0.0))
        by[n] = (c + 1, t + e.device_time * 1e-6)
    return sorted(([n, c, t] for n, (c, t) in by.items()), key=lambda x: -x[2])


def mla(torch, F, res, save):
    h, r, rope = 16, 512, 64
    bf = dict(device="cuda", dtype=torch.bfloat16)
    scale = 1.0 / math.sqrt(128 + rope)
    batches = (1, 16) if QUICK else (1, 16, 64, 256)
    keys = (4096, 4097) if QUICK else (2048, 2049, 4096, 4097, 4098, 4100, 4104, 8192, 8193)
    reps = 5 if QUICK else 15
    for B in batches:
        for K in keys:
            per = B * K * (r + rope) * 2
            n = max(2, min(64, math.ceil(L2_FLUSH / per)))
            if n * per > 20e9:
                n = max(2, int(20e9 // per))
            caches = [torch.randn(B, K, r + rope, **bf) for _ in range(n)]
            qs = [torch.randn(B, h, r + rope, **bf) for _ in range(n)]
            sc = [torch.bmm(qs[i], caches[i].transpose(1, 2)) for i in range(n)]
            ps = [s.float().softmax(-1).to(torch.bfloat16) for s in sc]
            parts = {
                "scores": lambda i: torch.bmm(qs[i], caches[i].transpose(1, 2)),
                "softmax": lambda i: (sc[i] * scale).float().softmax(-1).to(torch.bfloat16),
                "values": lambda i: torch.bmm(ps[i], caches[i][:, :, :r]),
                "whole": lambda i: torch.bmm(
                    ((torch.bmm(qs[i], caches[i].transpose(1, 2)) * scale).float().softmax(-1)
                     .to(torch.bfloat16)), caches[i][:, :, :r]),
            }
            row = dict(batch=B, keys=K, caches=n, latent_bytes=per,
                       scores_flops=2 * B * h * (r + rope) * K, values_flops=2 * B * h * r * K)
            for name, fn in parts.items():
                try:
                    def body(fn=fn):
                        for i in range(n):
                            fn(i)
                    row[name + "_s"] = common.graph_upper_median(body, reps) / n
                    if name in ("scores", "values"):
                        row[name + "_kernels"] = [x[0] for x in kernels_of(torch, lambda: fn(0))]
                except Exception as e:  # noqa: BLE001 - one failed point must not lose the rest
                    row[name + "_error"] = repr(e)[:300]
            res["mla"].append(row)
            log(json.dumps({k: (v if not isinstance(v, float) else round(v * 1e6, 2))
                            for k, v in row.items()}))
            save()
            del caches, qs, sc, ps
            torch.cuda.empty_cache()


OSS = dict(L=24, d=2880, h=64, kv=8, dh=64, window=128, E=32, topk=4, ff=2880, V=201088)


def flex(torch, F, res, save):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    m = dict(OSS)
    if QUICK:
        m.update(L=2, V=4096, E=8)
    L, d, h, kv, dh, win, E, k_top, ff = (m[x] for x in ("L", "d", "h", "kv", "dh", "window",
                                                          "E", "topk", "ff"))
    bf = dict(device="cuda", dtype=torch.bfloat16)
    torch._dynamo.config.cache_size_limit = 64
    flex_c = torch.compile(flex_attention, dynamic=False)
    gmm = getattr(torch, "_grouped_mm", None) or getattr(F, "grouped_mm")
    scale = dh ** -0.5

    def causal(b, hh, q, k):
        return k <= q

    def sliding(b, hh, q, k):
        return (k <= q) & (k > q - win)

    masks = {}

    def mask(kind, S):
        if (kind, S) not in masks:
            masks[(kind, S)] = create_block_mask(causal if kind == "full" else sliding,
                                                 None, None, S, S, device="cuda")
        return masks[(kind, S)]

    def attend(q, k, v, bm, sinks):
        """transformers' flex_attention_forward with s_aux (the sink by the LSE)."""
        o, lse = flex_lse(q, k, v, bm)
        lse = lse.to(v.dtype)
        Bq, H, S, _ = o.shape
        s = sinks.view(1, -1, 1, 1).expand(Bq, H, S, 1)
        le = lse.unsqueeze(-1)
        comb = torch.logsumexp(torch.cat([le, s], dim=-1), dim=-1, keepdim=True)
        o = o * torch.exp(le - comb)
        return o.transpose(1, 2).contiguous()

    def flex_lse(q, k, v, bm):
        """The output and LSE (return_aux from torch 2.9, return_lse before)."""
        try:
            from torch.nn.attention.flex_attention import AuxRequest
        except ImportError:
            return flex_c(q, k, v, block_mask=bm, enable_gqa=True, scale=scale, return_lse=True)
        o, aux = flex_c(q, k, v, block_mask=bm, enable_gqa=True, scale=scale,
                        return_aux=AuxRequest(lse=True))
        return o, aux.lse

    # The attention alone, one layer's call per kind.
    lens = (1024, 2048) if QUICK else (1024, 2048, 4096, 8192)
    points = [(1, S) for S in lens] + ([] if QUICK else [(4, 2048), (2, 8192)])
    sinks = torch.randn(h, **bf)
    for Bq, S in points:
        q = torch.randn(Bq, h, S, dh, **bf)
        k = torch.randn(Bq, kv, S, dh, **bf)
        v = torch.randn(Bq, kv, S, dh, **bf)
        for kind in ("sliding", "full"):
            bm = mask(kind, S)
            row = dict(batch=Bq, seq=S, kind=kind, blocks=int(bm.kv_num_blocks.sum().item())
                       + int(bm.full_kv_num_blocks.sum().item() if bm.full_kv_num_blocks
                             is not None else 0))
            variants = {
                "flex": lambda: flex_c(q, k, v, block_mask=bm, enable_gqa=True, scale=scale),
                "flex_sink": lambda: attend(q, k, v, bm, sinks),
            }
            if kind == "full":
                variants["sdpa_causal"] = lambda: F.scaled_dot_product_attention(
                    q, k, v, is_causal=True, enable_gqa=True, scale=scale)
            for name, fn in variants.items():
                try:
                    for _ in range(3):
                        fn()
                    torch.cuda.synchronize()
                    row[name + "_s"] = common.events_upper_median(fn, 10)
                    ks = kernels_of(torch, fn)
                    row[name + "_device_s"] = sum(x[2] for x in ks)
                    if S == 4096:
                        row[name + "_kernels"] = [x[:2] + [round(x[2] * 1e6, 2)] for x in ks]
                except Exception as e:  # noqa: BLE001
                    row[name + "_error"] = repr(e)[:400]
            res["flex_attention"].append(row)
            log(json.dumps({k2: v2 for k2, v2 in row.items() if not k2.endswith("kernels")}))
            save()
        del q, k, v

    # The whole prefill.
    torch.manual_seed(0)
    sd = 0.02

    def w(*shape):
        return torch.randn(*shape, **bf) * sd

    emb, head, norm = w(m["V"], d), w(m["V"], d), torch.ones(d, **bf)
    layers = []
    for i in range(L):
        layers.append(dict(
            n1=torch.ones(d, **bf), n2=torch.ones(d, **bf), sinks=torch.randn(h, **bf),
            qkv=w((h + 2 * kv) * dh, d), qkv_b=w((h + 2 * kv) * dh),
            o=w(d, h * dh), o_b=w(d), router=w(E, d), router_b=w(E),
            # [E, K, N] views of [E, N, K], as mla_steps.py lays the experts.
            w13=(torch.randn(E, 2 * ff, d, **bf) * sd).transpose(-2, -1), b13=w(E, 2 * ff),
            w2=(torch.randn(E, d, ff, **bf) * sd).transpose(-2, -1), b2=w(E, d)))
    torch.cuda.synchronize()
    log(f"gpt-oss built: {torch.cuda.memory_allocated() / 1e9:.1f} GB")
    inv = 1.0 / (150000 ** (torch.arange(0, dh, 2, device="cuda").float() / dh))

    def rot(x, cos, sin):
        a, b = torch.chunk(x, 2, dim=-1)
        return torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)

    def forward(tok):
        S = tok.shape[1]
        x = emb[tok[0]]
        ang = torch.arange(S, device="cuda").float()[:, None] * inv[None]
        cos, sin = ang.cos().to(torch.bfloat16)[None], ang.sin().to(torch.bfloat16)[None]
        bms = {kd: mask(kd, S) for kd in ("sliding", "full")}
        for i, l in enumerate(layers):
            y = F.rms_norm(x, (d,), l["n1"], 1e-5)
            qkv = torch.addmm(l["qkv_b"], y, l["qkv"].t())
            q, k, v = qkv.split([h * dh, kv * dh, kv * dh], -1)
            q = rot(q.view(S, h, dh).transpose(0, 1), cos, sin)[None]
            k = rot(k.view(S, kv, dh).transpose(0, 1), cos, sin)[None]
            v = v.view(S, kv, dh).transpose(0, 1)[None]
            a = attend(q, k, v, bms["sliding" if i % 2 == 0 else "full"], l["sinks"])
            x = x + torch.addmm(l["o_b"], a.view(S, h * dh), l["o"].t())
            y = F.rms_norm(x, (d,), l["n2"], 1e-5)
            logits = torch.addmm(l["router_b"], y, l["router"].t())
            tv, ti = logits.topk(k_top, -1)
            tw = tv.softmax(-1)
            flat = ti.flatten()
            order = flat.argsort(stable=True)
            counts = torch.bincount(flat, minlength=E)
            offs = counts.cumsum(0).to(torch.int32)
            ex = flat.index_select(0, order)
            xs = y.index_select(0, order // k_top)
            gu = gmm(xs, l["w13"], offs=offs) + l["b13"].index_select(0, ex)
            g, u = gu[:, ::2], gu[:, 1::2]
            g = g.clamp(max=7.0)
            u = u.clamp(min=-7.0, max=7.0)
            act = (u + 1) * (g * torch.sigmoid(g * 1.702))
            o = gmm(act, l["w2"], offs=offs) + l["b2"].index_select(0, ex)
            o = o * tw.flatten().index_select(0, order).unsqueeze(1)
            back = torch.empty_like(o).index_copy_(0, order, o)
            x = x + back.view(S, k_top, d).sum(1)
        return (F.rms_norm(x[-1:], (d,), norm, 1e-5) @ head.t()).argmax(-1)

    plens = (1024,) if QUICK else (1024, 2048, 4096)
    for S in plens:
        tok = torch.randint(0, m["V"], (1, S), device="cuda")
        row = dict(batch=1, prompt=S)
        try:
            f = lambda: forward(tok)  # noqa: E731
            for _ in range(2):
                f()
            torch.cuda.synchronize()
            row["eager_s"] = common.events_upper_median(f, 5)
            if True:
                ks = kernels_of(torch, f)
                row["kernels"] = sum(x[1] for x in ks)
                row["device_s"] = sum(x[2] for x in ks)
                row["by_name"] = [x[:2] + [round(x[2] * 1e6, 1)] for x in ks[:25]]
        except Exception as e:  # noqa: BLE001
            row["error"] = repr(e)[:400]
        res["prefill"].append(row)
        log(json.dumps({k2: v2 for k2, v2 in row.items() if k2 != "by_name"}))
        save()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch = common.need_torch()
    F = common.F
    res = dict(common.environment(), script="validation/families_gpu.py",
               mla=[], flex_attention=[], prefill=[])
    path = os.path.join(out, "families.json")

    def save():
        with open(path, "w") as f:
            json.dump(res, f, indent=1)

    if ONLY in (None, "mla") and "--no-mla" not in sys.argv:
        mla(torch, F, res, save)
    if ONLY in (None, "flex"):
        try:
            flex(torch, F, res, save)
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            res["flex_error"] = repr(e)[:600]
    res["wall_s"] = time.time() - common.T0
    save()


if __name__ == "__main__":
    main()

"""Decode steps of a DeepSeek-V2-Lite-shaped model (multi-head latent
attention, MLA) in plain PyTorch, for issue 53 and docs/validation.md ("MLA
as it runs").

    python3 validation/mla_steps.py OUTDIR [--quick]

Shapes (deepseek-ai/DeepSeek-V2-Lite config.json; models/deepseek-v2-lite.toml):
27 layers, d 2,048, 16 heads, no query compression (q_proj d -> 16 x 192),
kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128;
layer 0 dense (SwiGLU of 10,944), layers 1-26 MoE: 64 routed experts of
1,408, top 6 (softmax router), 2 shared experts (one SwiGLU of 2 x 1,408);
vocabulary 102,400, untied head. Random bf16 weights built on the GPU.

Decode, absorbed (as DeepSeek's own inference code runs MLA with its
`absorb` attention, here as batched GEMMs over the latent):
  RMSNorm; q = q_proj(x) [B, 16, 192]; kv_a_proj_with_mqa(x) [B, 576]
  (latent 512 + rotary key 64); RMSNorm of the latent; rotary on q's and
  the key's 64 rotary dims; the latent and rotary key written into the
  cache [B, T, 576] (index_copy_); q_nope folded by W_UK (a batched GEMM over
  heads: [16, B, 128] x [16, 128, 512]); scores = [q_lat, q_rope] x cache^T
  (one bmm, [B, 16, 576] x [B, 576, T]); softmax in fp32; the values from
  the latent (bmm [B, 16, T] x [B, T, 512]); W_UV (bmm over heads, [16, B,
  512] x [16, 512, 128]); o_proj with the residual (addmm); RMSNorm; the
  feed-forward; experts as grouped GEMMs (validation/engine_moe_h200.py's
  dispatch: argsort, counts, offsets, index_select, torch._grouped_mm for
  gate/up and down, scale, index_copy, sum over k), shared experts as one
  SwiGLU with the residual. Routing uniform (k distinct experts a token,
  drawn before capture). Final norm, LM head, argmax.

Points: decode at B = 1, 16, 64, 256 over T = 4,096 cached tokens (graph
replayed, upper median of 20; eager, upper median of 5); the absorbed
attention alone (scores, softmax, values: one layer's call over the 27
layers' caches, replayed from a graph) at the same points, with the latent
bytes it streams; the same attention as one fused SDPA call over the latent
(q [B, 16, 1, 576], k = the cache [B, 1, T, 576], v its first 512) where a
backend takes it (a FlashMLA-shaped kernel: the latent read once for all
heads); prefill, expanded (not absorbed: k and v from kv_b_proj, SDPA over
192-wide q/k and 128-wide v, causal) at B = 1, S = 1,024 and 4,096, eager.
Kernel names of one decode replay at B = 64 (torch.profiler, last).
Writes OUTDIR/mla-steps.json after every point.
"""

import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import log  # noqa: E402

V2L = dict(L=27, d=2048, h=16, nope=128, rope=64, vdim=128, r=512, ff=10944, eff=1408,
           E=64, topk=6, shared=2, dense=1, V=102400)
QUICK = "--quick" in sys.argv
T = 4096
BS = (1, 16, 256, 64)  # 64 last: its replay is profiled, and a profiler slows what follows
EPS = 1e-6


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch = common.need_torch()
    F = common.F
    m = dict(V2L)
    if QUICK:
        m.update(L=3, V=4096, E=8)
    L, d, h, nope, rope_d, vdim, r = (m[k] for k in ("L", "d", "h", "nope", "rope", "vdim", "r"))
    E, k_top = m["E"], m["topk"]
    bf = dict(device="cuda", dtype=torch.bfloat16)
    s = 0.02
    gmm = getattr(torch, "_grouped_mm", None) or getattr(F, "grouped_mm")

    def w(*shape):
        return torch.randn(*shape, **bf) * s

    def expert_w(n, k):
        # [E, K, N] views of [E, N, K] (nn.Linear's layout), as engine_moe_h200.py probes.
        return (torch.randn(E, n, k, **bf) * s).transpose(-2, -1)

    torch.manual_seed(0)
    emb, head, norm = w(m["V"], d), w(m["V"], d), torch.ones(d, **bf)
    freqs = torch.polar(torch.ones(rope_d // 2, device="cuda"), torch.rand(rope_d // 2, device="cuda"))
    layers = []
    for i in range(L):
        l = dict(n1=torch.ones(d, **bf), n2=torch.ones(d, **bf), kvn=torch.ones(r, **bf),
                 q=w(h * (nope + rope_d), d), kva=w(r + rope_d, d),
                 # kv_b_proj [h x (nope + v), r], split per head for the absorbed form.
                 kvb=w(h * (nope + vdim), r), o=w(d, h * vdim))
        kvb = l["kvb"].view(h, nope + vdim, r)
        l["wuk"] = kvb[:, :nope, :].contiguous()                  # [h, 128, 512]
        l["wuv"] = kvb[:, nope:, :].transpose(1, 2).contiguous()  # [h, 512, 128]
        if i < m["dense"]:
            l.update(gu=w(2 * m["ff"], d), down=w(d, m["ff"]))
        else:
            l.update(router=w(E, d), w13=expert_w(2 * m["eff"], d), w2=expert_w(d, m["eff"]),
                     sgu=w(2 * m["eff"] * m["shared"], d), sdown=w(d, m["eff"] * m["shared"]))
        layers.append(l)
    torch.cuda.synchronize()
    params = sum(t.numel() for l in layers for kk, t in l.items() if kk not in ("wuk", "wuv"))
    params += emb.numel() + head.numel() + norm.numel()
    res = dict(common.environment(), model="deepseek-v2-lite", shape=m, context=T,
               script="validation/mla_steps.py", weight_bytes=2 * params,
               decode=[], attention=[], prefill=[], kernels=[])
    path = os.path.join(out, "mla-steps.json")

    def save():
        with open(path, "w") as f:
            json.dump(res, f, indent=1)

    log(f"built: {2 * params / 1e9:.2f} GB of weights")

    def rope(x):
        c = torch.view_as_complex(x.float().unflatten(-1, (-1, 2)))
        return torch.view_as_real(c * freqs).flatten(-2).to(x.dtype)

    route = {}

    def set_route(tokens, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        route["ids"] = [torch.rand(tokens, E, device="cuda", generator=g).topk(k_top, -1).indices
                        .contiguous() for _ in range(L)]
        route["ones"] = torch.ones(tokens * k_top, dtype=torch.int64, device="cuda")

    def ffn(i, l, x):
        y = F.rms_norm(x, (d,), l["n2"], EPS)
        if "gu" in l:
            g, u = (y @ l["gu"].t()).chunk(2, -1)
            return torch.addmm(x, F.silu(g) * u, l["down"].t())
        Tk = x.shape[0]
        logits = y @ l["router"].t()
        topv, _ = logits.softmax(-1).topk(k_top, -1)
        flat = route["ids"][i].flatten()
        order = flat.argsort(stable=True)
        counts = torch.zeros(E, dtype=torch.int64, device="cuda").scatter_add_(0, flat, route["ones"])
        offs = counts.cumsum(0).to(torch.int32)
        xs = y.index_select(0, order // k_top)
        g, u = gmm(xs, l["w13"], offs=offs).chunk(2, -1)
        o = gmm(F.silu(g) * u, l["w2"], offs=offs)
        o = o * topv.flatten().index_select(0, order).unsqueeze(1)
        back = torch.empty_like(o).index_copy_(0, order, o)
        routed = back.view(Tk, k_top, d).sum(1)
        sg, su = (y @ l["sgu"].t()).chunk(2, -1)
        return torch.addmm(x + routed, F.silu(sg) * su, l["sdown"].t())

    scale = 1.0 / math.sqrt(nope + rope_d)

    def absorbed(qf, c):
        """qf [B, h, 576], c [B, T, 576] -> the latent output [B, h, 512]."""
        sc = torch.bmm(qf, c.transpose(1, 2)) * scale
        p = sc.float().softmax(-1).to(qf.dtype)
        return torch.bmm(p, c[:, :, :r])

    def decode_step(tok, cache, pos):
        B = tok.shape[0]
        x = emb[tok]
        for i, l in enumerate(layers):
            y = F.rms_norm(x, (d,), l["n1"], EPS)
            q = (y @ l["q"].t()).view(B, h, nope + rope_d)
            kva = y @ l["kva"].t()
            c = F.rms_norm(kva[:, :r], (r,), l["kvn"], EPS)
            kr = rope(kva[:, r:])
            cache[i].index_copy_(1, pos, torch.cat([c, kr], -1).unsqueeze(1))
            qn, qr = q.split([nope, rope_d], -1)
            ql = torch.bmm(qn.transpose(0, 1), l["wuk"]).transpose(0, 1)  # [B, h, 512]
            qf = torch.cat([ql, rope(qr)], -1)
            ol = absorbed(qf, cache[i])
            o = torch.bmm(ol.transpose(0, 1), l["wuv"]).transpose(0, 1).reshape(B, h * vdim)
            x = torch.addmm(x, o, l["o"].t())
            x = ffn(i, l, x)
        return (F.rms_norm(x, (d,), norm, EPS) @ head.t()).argmax(-1)

    def prefill(tok):
        B, S = tok.shape
        x = emb[tok].view(B * S, d)
        for i, l in enumerate(layers):
            y = F.rms_norm(x, (d,), l["n1"], EPS)
            q = (y @ l["q"].t()).view(B, S, h, nope + rope_d)
            kva = y @ l["kva"].t()
            c = F.rms_norm(kva[:, :r], (r,), l["kvn"], EPS)
            kr = rope(kva[:, r:]).view(B, S, 1, rope_d)
            kv = (c @ l["kvb"].t()).view(B, S, h, nope + vdim)
            kn, v = kv.split([nope, vdim], -1)
            qn, qr = q.split([nope, rope_d], -1)
            qq = torch.cat([qn, rope(qr)], -1).transpose(1, 2)
            kk = torch.cat([kn, kr.expand(B, S, h, rope_d)], -1).transpose(1, 2)
            a = F.scaled_dot_product_attention(qq, kk, v.transpose(1, 2), is_causal=True)
            x = torch.addmm(x, a.transpose(1, 2).reshape(B * S, h * vdim), l["o"].t())
            x = ffn(i, l, x)
        last = x.view(B, S, d)[:, -1]
        return (F.rms_norm(last, (d,), norm, EPS) @ head.t()).argmax(-1)

    reps = 5 if QUICK else 20

    def profile_of(fn, B):
        """Kernels of one call of fn by name (torch.profiler)."""
        from torch.profiler import ProfilerActivity, profile
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        ev = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        by = {}
        for e in ev:
            n = e.name[:160]
            c, t = by.get(n, (0, 0.0))
            by[n] = (c + 1, t + e.device_time * 1e-6)
        rows = sorted(([n, c, t] for n, (c, t) in by.items()), key=lambda x: -x[2])
        for n, c, t in rows[:15]:
            log(f"  {c:6d} {t * 1e3:9.3f} ms  {n[:110]}")
        return dict(batch=B, launch="graph", kernels=len(ev),
                    device_s=sum(e.device_time for e in ev) * 1e-6, by_name=rows)
    for S in (1024, 4096):
        set_route(S, seed=S)
        tok = torch.randint(0, m["V"], (1, S), device="cuda")
        row = dict(batch=1, prompt=S)
        try:
            f = lambda: prefill(tok)  # noqa: E731
            for _ in range(2):
                f()
            torch.cuda.synchronize()
            row["eager_s"] = common.events_upper_median(f, 5)
        except Exception as e:  # noqa: BLE001
            row["error"] = repr(e)[:400]
        res["prefill"].append(row)
        log(json.dumps(row))
        save()

    for B in BS:
        try:
            cache = [torch.randn(B, T + 1, r + rope_d, **bf) for _ in range(L)]
        except torch.OutOfMemoryError as e:
            log(f"B={B}: cache out of memory ({e})")
            continue
        set_route(B, seed=B)
        tok = torch.randint(0, m["V"], (B,), device="cuda")
        pos = torch.tensor([T], device="cuda")
        step = lambda: decode_step(tok, cache, pos)  # noqa: E731 - used before the names move on
        row = dict(batch=B, context=T)
        try:
            for _ in range(3):
                step()
            torch.cuda.synchronize()
            row["eager_s"] = common.events_upper_median(step, 5)
            g = common.graph_of(step)
            for _ in range(3):
                g.replay()
            row["graph_s"] = common.events_upper_median(g.replay, reps)
            if B == 64:
                res["kernels"].append(profile_of(g.replay, B))
            del g
        except Exception as e:  # noqa: BLE001 - one failed point must not lose the rest
            row["error"] = repr(e)[:400]
        res["decode"].append(row)
        log(json.dumps(row))
        save()

        # The absorbed attention alone, each layer's cache once.
        qf = torch.randn(B, h, r + rope_d, **bf)
        latent = B * (T + 1) * (r + rope_d) * 2
        variants = {
            "bmm": lambda i: absorbed(qf, cache[i]),
            # The same over 4,096 keys (a multiple of 8): the batched GEMMs'
            # leading dimensions aligned.
            "bmm_aligned": lambda i: absorbed(qf, cache[i][:, :T]),
            "sdpa_latent": lambda i: F.scaled_dot_product_attention(
                qf.unsqueeze(2), cache[i].unsqueeze(1), cache[i][:, :, :r].unsqueeze(1),
                enable_gqa=True, scale=scale),
            "sdpa_latent_expand": lambda i: F.scaled_dot_product_attention(
                qf.unsqueeze(2), cache[i].unsqueeze(1).expand(B, h, T + 1, r + rope_d),
                cache[i][:, :, :r].unsqueeze(1).expand(B, h, T + 1, r), scale=scale),
        }
        for name, fn in variants.items():
            arow = dict(batch=B, context=T, kind=name, latent_bytes_per_layer=latent)
            try:
                def body(fn=fn):
                    for i in range(L):
                        fn(i)
                t = common.graph_upper_median(body, reps) / L
                arow.update(layer_s=t, latent_gb_s=latent / t / 1e9)
            except Exception as e:  # noqa: BLE001
                arow["error"] = repr(e)[:300]
            res["attention"].append(arow)
            log(json.dumps(arow))
            save()
        del cache
        torch.cuda.empty_cache()

    res["wall_s"] = time.time() - common.T0
    save()
    for r0 in res["decode"]:
        print("SUMMARY decode", json.dumps(r0))
    for r0 in res["attention"]:
        print("SUMMARY attention", json.dumps(r0))
    for r0 in res["prefill"]:
        print("SUMMARY prefill", json.dumps(r0))


if __name__ == "__main__":
    main()

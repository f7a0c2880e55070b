"""Decode steps and prefills of Llama-shaped models on one H200, for
docs/validation.md ("Serving"). Random bf16 weights of the published shapes
(no checkpoint is needed: a step's time depends on shapes, not values).

A decode step: embedding gather, per layer RMSNorm, fused QKV projection,
rotary embedding, KV-cache write, attention over the whole cache
(scaled_dot_product_attention, GQA), output projection, residual, RMSNorm,
fused gate+up projection, SiLU-mul, down projection, residual; final norm,
LM head for every sequence, greedy argmax. Timed eagerly and as a replayed
CUDA graph (CUDA events, median of repeated replays).

A prefill: the same layers over S prompt tokens with causal flash attention,
the LM head on the last token only, timed eagerly (one launch per op is
negligible against a prefill).

With --compile: the lean step through torch.compile (Inductor fuses the
norms, rotary embedding and activation into a few Triton kernels; the
matmuls stay cuBLAS), then captured in a CUDA graph; decode only.

With --lean: F.rms_norm, rotary embedding of q and k together as one
complex multiply, and the residual adds folded into the output and down
projections (addmm): about 15 kernels a layer, close to the 12 a serving
engine issues. Without it, each op as plain PyTorch (about 45 a layer).

Usage: python3 validation/serving_h200.py OUT.json [--lean]
"""

import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import events_upper_median  # noqa: E402

MODELS = {
    "llama-3-8b": dict(L=32, d=4096, h=32, kv=8, dh=128, ff=14336, V=128256),
    "llama-2-7b": dict(L=32, d=4096, h=32, kv=32, dh=128, ff=11008, V=32000),
}


LEAN = "--lean" in sys.argv or "--compile" in sys.argv
COMPILE = "--compile" in sys.argv


def rms(x, w):
    if LEAN:
        return F.rms_norm(x, (x.shape[-1],), w, 1e-5)
    v = x.float().pow(2).mean(-1, keepdim=True)
    return (x.float() * torch.rsqrt(v + 1e-5)).to(x.dtype) * w


def rope_lean(qk, freqs):
    # One complex multiply over q and k together: 3 kernels.
    c = torch.view_as_complex(qk.float().unflatten(-1, (-1, 2)))
    return torch.view_as_real(c * freqs).flatten(-2).to(qk.dtype)


def rope(x, cos, sin):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), -1).flatten(-2)


class Model:
    def __init__(self, m, dev):
        self.m = m
        L, d, h, kv, dh, ff, V = (m[k] for k in ("L", "d", "h", "kv", "dh", "ff", "V"))
        bf = dict(device=dev, dtype=torch.bfloat16)
        s = 0.02
        self.emb = torch.randn(V, d, **bf) * s
        self.head = torch.randn(V, d, **bf) * s
        self.norm = torch.ones(d, **bf)
        self.freqs = torch.polar(torch.ones(dh // 2, device=dev), torch.zeros(dh // 2, device=dev))
        self.layers = []
        for _ in range(L):
            self.layers.append(
                dict(
                    n1=torch.ones(d, **bf),
                    qkv=torch.randn((h + 2 * kv) * dh, d, **bf) * s,
                    o=torch.randn(d, h * dh, **bf) * s,
                    n2=torch.ones(d, **bf),
                    gu=torch.randn(2 * ff, d, **bf) * s,
                    down=torch.randn(d, ff, **bf) * s,
                )
            )

    def weight_bytes(self):
        n = self.emb.numel() + self.head.numel() + self.norm.numel()
        for l in self.layers:
            n += sum(t.numel() for t in l.values())
        return 2 * n


def decode_step(M, tok, kcache, vcache, pos, cos, sin):
    m = M.m
    h, kv, dh = m["h"], m["kv"], m["dh"]
    B = tok.shape[0]
    x = M.emb[tok]  # [B, d]
    for i, l in enumerate(M.layers):
        y = rms(x, l["n1"])
        qkv = y @ l["qkv"].t()
        if LEAN:
            qk = rope_lean(qkv[:, : (h + kv) * dh].view(B, h + kv, dh), M.freqs)
            q, k = qk.split([h, kv], 1)
            q = q.view(B, h, 1, dh)
            k = k.view(B, kv, 1, dh)
            v = qkv[:, (h + kv) * dh :]
        else:
            q, k, v = qkv.split([h * dh, kv * dh, kv * dh], -1)
            q = rope(q.view(B, h, 1, dh), cos, sin)
            k = rope(k.view(B, kv, 1, dh), cos, sin)
        kcache[i].index_copy_(2, pos, k)
        vcache[i].index_copy_(2, pos, v.view(B, kv, 1, dh))
        a = F.scaled_dot_product_attention(q, kcache[i], vcache[i], enable_gqa=(kv != h))
        if LEAN:
            x = torch.addmm(x, a.reshape(B, h * dh), l["o"].t())
        else:
            x = x + a.reshape(B, h * dh) @ l["o"].t()
        y = rms(x, l["n2"])
        g, u = (y @ l["gu"].t()).chunk(2, -1)
        if LEAN:
            x = torch.addmm(x, F.silu(g) * u, l["down"].t())
        else:
            x = x + (F.silu(g) * u) @ l["down"].t()
    logits = rms(x, M.norm) @ M.head.t()
    return logits.argmax(-1)


def prefill(M, tok, cos, sin):
    m = M.m
    h, kv, dh = m["h"], m["kv"], m["dh"]
    B, S = tok.shape
    x = M.emb[tok]  # [B, S, d]
    for l in M.layers:
        y = rms(x, l["n1"])
        q, k, v = (y @ l["qkv"].t()).split([h * dh, kv * dh, kv * dh], -1)
        q = rope(q.view(B, S, h, dh).transpose(1, 2), cos, sin)
        k = rope(k.view(B, S, kv, dh).transpose(1, 2), cos, sin)
        v = v.view(B, S, kv, dh).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=(kv != h))
        x = x + a.transpose(1, 2).reshape(B, S, h * dh) @ l["o"].t()
        y = rms(x, l["n2"])
        g, u = (y @ l["gu"].t()).chunk(2, -1)
        x = x + (F.silu(g) * u) @ l["down"].t()
    logits = rms(x[:, -1], M.norm) @ M.head.t()
    return logits.argmax(-1)


time_fn = events_upper_median


def main():
    dev = "cuda"
    torch.manual_seed(0)
    free, total = torch.cuda.mem_get_info()
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
               mem_total=total, mem_free_at_start=free, decode=[], prefill=[])
    t0 = time.time()
    shapes = (("llama-3-8b", ((1, 1024), (1, 8192), (8, 1024), (32, 1024),
                              (32, 4096), (64, 2048), (128, 1024), (256, 1024))),
              ("llama-2-7b", ((1, 1024), (16, 1024), (64, 1024))))
    step_fn = decode_step
    if COMPILE:
        torch._dynamo.config.cache_size_limit = 64
        step_fn = torch.compile(decode_step)
        shapes = (("llama-3-8b", ((1, 1024), (32, 1024), (32, 4096), (128, 1024))),
                  ("llama-2-7b", ((1, 1024), (64, 1024))))
    for name, batches in shapes:
        M = Model(MODELS[name], dev)
        m = M.m
        for B, T in batches:
            kc = [torch.zeros(B, m["kv"], T, m["dh"], device=dev, dtype=torch.bfloat16) for _ in range(m["L"])]
            vc = [torch.zeros_like(k) for k in kc]
            tok = torch.randint(0, m["V"], (B,), device=dev)
            pos = torch.tensor([T - 1], device=dev)
            cos = torch.ones(1, 1, 1, m["dh"] // 2, device=dev, dtype=torch.bfloat16)
            sin = torch.zeros_like(cos)
            step = lambda: step_fn(M, tok, kc, vc, pos, cos, sin)
            for _ in range(3):
                step()
            torch.cuda.synchronize()
            eager = time_fn(step, 20)
            st = torch.cuda.Stream()
            st.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(st):
                for _ in range(2):
                    step()
            torch.cuda.current_stream().wait_stream(st)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                step()
            for _ in range(3):
                g.replay()
            graph = time_fn(g.replay, 30)
            row = dict(model=name, batch=B, context=T, eager_s=eager, graph_s=graph,
                       wall_s=time.time() - t0)
            print(json.dumps(row), flush=True)
            res["decode"].append(row)
            del g, kc, vc
            torch.cuda.empty_cache()
        if name == "llama-3-8b" and not COMPILE:
            for B, S in ((1, 512), (1, 2048), (1, 8192), (4, 2048)):
                tok = torch.randint(0, m["V"], (B, S), device=dev)
                cos = torch.ones(1, 1, S, m["dh"] // 2, device=dev, dtype=torch.bfloat16)
                sin = torch.zeros_like(cos)
                f = lambda: prefill(M, tok, cos, sin)
                for _ in range(2):
                    f()
                t = time_fn(f, 7)
                row = dict(model=name, batch=B, prompt=S, time_s=t)
                print(json.dumps(row), flush=True)
                res["prefill"].append(row)
                torch.cuda.empty_cache()
        res.setdefault("weight_bytes", {})[name] = M.weight_bytes()
        del M
        torch.cuda.empty_cache()
    res["wall_s"] = time.time() - t0
    json.dump(res, open(sys.argv[1], "w"), indent=1)


if __name__ == "__main__":
    main()

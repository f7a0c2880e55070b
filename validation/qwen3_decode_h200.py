"""Decode steps of a Qwen3-8B-shaped model on one H200, for docs/validation.md
("Qwen3-8B decode"). Random bf16 weights of the published shapes
(tests/data/hf/qwen3-8b.json: 36 layers, d 4096, 32 query / 8 KV heads of
128, FFN 12288, vocabulary 151936, untied head): a step's time depends on
the shapes, not the values.

The step is validation/serving_h200.py's lean decode (F.rms_norm, rotary
embedding of q and k as one complex multiply, residuals folded into the
output and down projections by addmm) with Qwen3's one addition: per-head
RMSNorm of q and k before the rotary embedding (q_norm, k_norm: one
weight vector of head_dim each), run as a weightless F.rms_norm over the
q and k heads together and a multiply by the stacked weights (2 kernels).
Timed as a replayed CUDA graph (CUDA events, median of 30 replays) and
eagerly (median of 10).

Usage: python3 validation/qwen3_decode_h200.py OUT.json
"""

import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import events_upper_median  # noqa: E402

Q3 = dict(L=36, d=4096, h=32, kv=8, dh=128, ff=12288, V=151936)
EPS = 1e-6


def rope(qk, freqs):
    c = torch.view_as_complex(qk.float().unflatten(-1, (-1, 2)))
    return torch.view_as_real(c * freqs).flatten(-2).to(qk.dtype)


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
            qn, kn = torch.ones(dh, **bf), torch.ones(dh, **bf)
            self.layers.append(dict(
                n1=torch.ones(d, **bf),
                qkv=torch.randn((h + 2 * kv) * dh, d, **bf) * s,
                # q_norm repeated over the query heads, k_norm over the KV heads.
                qkn=torch.cat([qn.expand(h, dh), kn.expand(kv, dh)]).contiguous(),
                o=torch.randn(d, h * dh, **bf) * s,
                n2=torch.ones(d, **bf),
                gu=torch.randn(2 * ff, d, **bf) * s,
                down=torch.randn(d, ff, **bf) * s,
            ))

    def weight_bytes(self):
        n = self.emb.numel() + self.head.numel() + self.norm.numel()
        for l in self.layers:
            # The stacked q/k norm weights are 2 x head_dim parameters.
            n += sum(t.numel() for k, t in l.items() if k != "qkn") + 2 * self.m["dh"]
        return 2 * n


def decode_step(M, tok, kcache, vcache, pos):
    m = M.m
    h, kv, dh = m["h"], m["kv"], m["dh"]
    B = tok.shape[0]
    x = M.emb[tok]
    for i, l in enumerate(M.layers):
        y = F.rms_norm(x, (x.shape[-1],), l["n1"], EPS)
        qkv = y @ l["qkv"].t()
        qk = qkv[:, : (h + kv) * dh].view(B, h + kv, dh)
        qk = F.rms_norm(qk, (dh,), None, EPS) * l["qkn"]
        qk = rope(qk, M.freqs)
        q, k = qk.split([h, kv], 1)
        q = q.view(B, h, 1, dh)
        k = k.view(B, kv, 1, dh)
        v = qkv[:, (h + kv) * dh:]
        kcache[i].index_copy_(2, pos, k)
        vcache[i].index_copy_(2, pos, v.view(B, kv, 1, dh))
        a = F.scaled_dot_product_attention(q, kcache[i], vcache[i], enable_gqa=True)
        x = torch.addmm(x, a.reshape(B, h * dh), l["o"].t())
        y = F.rms_norm(x, (x.shape[-1],), l["n2"], EPS)
        g, u = (y @ l["gu"].t()).chunk(2, -1)
        x = torch.addmm(x, F.silu(g) * u, l["down"].t())
    logits = F.rms_norm(x, (x.shape[-1],), M.norm, EPS) @ M.head.t()
    return logits.argmax(-1)


time_fn = events_upper_median


def main():
    dev = "cuda"
    torch.manual_seed(0)
    free, total = torch.cuda.mem_get_info()
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
               mem_total=total, mem_free_at_start=free, model="qwen3-8b", shape=Q3,
               script="validation/qwen3_decode_h200.py", decode=[])
    t0 = time.time()
    M = Model(Q3, dev)
    m = M.m
    res["weight_bytes"] = M.weight_bytes()
    for B, T in ((1, 1024), (1, 8192), (8, 2048), (32, 1024), (32, 4096), (64, 2048), (128, 1024)):
        kc = [torch.zeros(B, m["kv"], T, m["dh"], device=dev, dtype=torch.bfloat16) for _ in range(m["L"])]
        vc = [torch.zeros_like(k) for k in kc]
        tok = torch.randint(0, m["V"], (B,), device=dev)
        pos = torch.tensor([T - 1], device=dev)
        step = lambda: decode_step(M, tok, kc, vc, pos)
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        eager = time_fn(step, 10)
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
        row = dict(batch=B, context=T, eager_s=eager, graph_s=graph, wall_s=time.time() - t0)
        print(json.dumps(row), flush=True)
        res["decode"].append(row)
        del g, kc, vc
        torch.cuda.empty_cache()
    res["wall_s"] = time.time() - t0
    json.dump(res, open(sys.argv[1], "w"), indent=1)


if __name__ == "__main__":
    main()

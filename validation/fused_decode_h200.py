"""Decode steps with fused elementwise kernels, as vLLM lays a Llama layer
out, on one H200 (issue 38, "measure what you model": docs/validation.md,
"Fused kernels").

    python3 validation/fused_decode_h200.py OUT.json     # about 2 minutes

vLLM is not installed on the measurement machine, so its kernels are
written here in Triton to the structure of vLLM's own (csrc/layernorm_kernels.cu
fused_add_rms_norm, csrc/pos_encoding_kernels.cu rotary_embedding,
csrc/cache_kernels.cu reshape_and_cache_flash, csrc/activation_kernels.cu
silu_and_mul): one kernel each for the residual add with RMSNorm, the
rotary embedding of q and k in place, the key and value cache write, and
SiLU times up. The projections are cuBLAS GEMMs over fused weights (QKV,
gate+up), attention PyTorch's scaled_dot_product_attention over a
contiguous cache (GQA), the head cuBLAS and argmax. Random bf16 weights of
the published shapes (Llama-3-8B, Llama-3.2-1B); timed as CUDA-graph
replays (CUDA events, median of 30) and eagerly (median of 10); then the
kernels of one replay under the profiler; then each fused kernel alone, 200
calls captured in one graph, per call.
"""

import json
import os
import sys
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import graph_of  # noqa: E402
from serving_fidelity import ev_time, kernel_count as kernels_of  # noqa: E402

MODELS = {
    "llama-3-8b": dict(L=32, d=4096, h=32, kv=8, dh=128, ff=14336, V=128256),
    "llama-3.2-1b": dict(L=16, d=2048, h=32, kv=8, dh=64, ff=8192, V=128256),
}
EPS = 1e-5
BF = dict(device="cuda", dtype=torch.bfloat16)


@triton.jit
def add_rms_norm(x_ptr, res_ptr, w_ptr, D, eps, BLOCK: tl.constexpr):
    # residual += x; x = rms_norm(residual) * w (both in place), one row a program.
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=m, other=0.0).to(tl.float32)
    r = tl.load(res_ptr + row * D + offs, mask=m, other=0.0).to(tl.float32)
    s = x + r
    tl.store(res_ptr + row * D + offs, s.to(tl.bfloat16), mask=m)
    var = tl.sum(s * s, 0) / D
    w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(x_ptr + row * D + offs, (s * tl.rsqrt(var + eps) * w).to(tl.bfloat16), mask=m)


@triton.jit
def rotary(qkv_ptr, cos_ptr, sin_ptr, pos_ptr, stride, HALF: tl.constexpr):
    # Neox-style rotation of one head of one token, q and k heads alike.
    t = tl.program_id(0)
    hd = tl.program_id(1)
    p = tl.load(pos_ptr + t)
    offs = tl.arange(0, HALF)
    base = qkv_ptr + t * stride + hd * 2 * HALF
    x1 = tl.load(base + offs).to(tl.float32)
    x2 = tl.load(base + HALF + offs).to(tl.float32)
    c = tl.load(cos_ptr + p * HALF + offs)
    s = tl.load(sin_ptr + p * HALF + offs)
    tl.store(base + offs, (x1 * c - x2 * s).to(tl.bfloat16))
    tl.store(base + HALF + offs, (x2 * c + x1 * s).to(tl.bfloat16))


@triton.jit
def cache_write(qkv_ptr, kc_ptr, vc_ptr, pos_ptr, stride, H, KV, T, DH: tl.constexpr):
    # Token t (sequence t) writes its key and value of KV head g at its position.
    t = tl.program_id(0)
    g = tl.program_id(1)
    p = tl.load(pos_ptr + t)
    offs = tl.arange(0, DH)
    k = tl.load(qkv_ptr + t * stride + (H + g) * DH + offs)
    v = tl.load(qkv_ptr + t * stride + (H + KV + g) * DH + offs)
    dst = ((t * KV + g) * T + p) * DH + offs
    tl.store(kc_ptr + dst, k)
    tl.store(vc_ptr + dst, v)


@triton.jit
def silu_and_mul(gu_ptr, out_ptr, FF, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    col = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = col < FF
    g = tl.load(gu_ptr + row * 2 * FF + col, mask=m, other=0.0).to(tl.float32)
    u = tl.load(gu_ptr + row * 2 * FF + FF + col, mask=m, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * FF + col, (g * tl.sigmoid(g) * u).to(tl.bfloat16), mask=m)


class Model:
    def __init__(self, name):
        m = MODELS[name]
        self.name, self.m = name, m
        s = 0.02
        L, d, h, kv, dh, ff, V = (m[k] for k in ("L", "d", "h", "kv", "dh", "ff", "V"))
        self.emb = torch.randn(V, d, **BF) * s
        self.head = self.emb if name == "llama-3.2-1b" else torch.randn(V, d, **BF) * s
        self.norm = torch.ones(d, **BF)
        self.layers = [dict(n1=torch.ones(d, **BF), n2=torch.ones(d, **BF),
                            qkv=torch.randn((h + 2 * kv) * dh, d, **BF) * s,
                            o=torch.randn(d, h * dh, **BF) * s,
                            gu=torch.randn(2 * ff, d, **BF) * s,
                            down=torch.randn(d, ff, **BF) * s) for _ in range(L)]
        inv = 1.0 / (500000.0 ** (torch.arange(0, dh, 2, device="cuda").float() / dh))
        ang = torch.outer(torch.arange(131072 // 8, device="cuda").float(), inv)
        self.cos, self.sin = ang.cos().contiguous(), ang.sin().contiguous()

    def step(self, tok, kc, vc, pos, res, T):
        m = self.m
        h, kv, dh, d, ff = m["h"], m["kv"], m["dh"], m["d"], m["ff"]
        B = tok.shape[0]
        x = self.emb[tok]
        res.zero_()
        blk = triton.next_power_of_2(d)
        for i, l in enumerate(self.layers):
            add_rms_norm[(B,)](x, res, l["n1"], d, EPS, BLOCK=blk)
            qkv = x @ l["qkv"].t()
            rotary[(B, h + kv)](qkv, self.cos, self.sin, pos, qkv.stride(0), HALF=dh // 2)
            cache_write[(B, kv)](qkv, kc[i], vc[i], pos, qkv.stride(0), h, kv, T, DH=dh)
            q = qkv[:, : h * dh].view(B, h, 1, dh)
            a = F.scaled_dot_product_attention(q, kc[i], vc[i], enable_gqa=True).reshape(B, h * dh)
            x = a @ l["o"].t()
            add_rms_norm[(B,)](x, res, l["n2"], d, EPS, BLOCK=blk)
            gu = x @ l["gu"].t()
            act = torch.empty(B, ff, **BF)
            silu_and_mul[(B, triton.cdiv(ff, 1024))](gu, act, ff, BLOCK=1024)
            x = act @ l["down"].t()
        add_rms_norm[(B,)](x, res, self.norm, d, EPS, BLOCK=blk)
        return (x @ self.head.t()).argmax(-1)


def reference_check():
    """The fused kernels against plain PyTorch on one small case."""
    d = 256
    x = torch.randn(3, d, **BF)
    r = torch.randn(3, d, **BF)
    w = torch.rand(d, **BF)
    want_r = (x.float() + r.float())
    want = F.rms_norm(want_r, (d,), w.float(), EPS)
    x2, r2 = x.clone(), r.clone()
    add_rms_norm[(3,)](x2, r2, w, d, EPS, BLOCK=256)
    e1 = (x2.float() - want).abs().max().item()
    gu = torch.randn(3, 2 * 512, **BF)
    out = torch.empty(3, 512, **BF)
    silu_and_mul[(3, 1)](gu, out, 512, BLOCK=1024)
    g, u = gu.float().chunk(2, -1)
    e2 = (out.float() - F.silu(g) * u).abs().max().item()
    return dict(add_rms_norm_max_abs_err=e1, silu_and_mul_max_abs_err=e2)


def ev(fn, reps):
    t = ev_time(fn, reps)
    return t[0], t[1]


def setup(M, B, T):
    m = M.m
    kc = [torch.randn(B, m["kv"], T, m["dh"], **BF) for _ in range(m["L"])]
    vc = [torch.randn(B, m["kv"], T, m["dh"], **BF) for _ in range(m["L"])]
    tok = torch.randint(0, m["V"], (B,), device="cuda")
    pos = torch.full((B,), T - 1, device="cuda", dtype=torch.int64)
    res = torch.empty(B, m["d"], **BF)
    return (lambda: M.step(tok, kc, vc, pos, res, T)), (kc, vc)


def singles(M, B):
    """Each fused kernel alone at a decode shape: 200 calls in one graph."""
    m = M.m
    d, h, kv, dh, ff = m["d"], m["h"], m["kv"], m["dh"], m["ff"]
    T = 1024
    x = torch.randn(B, d, **BF)
    res = torch.randn(B, d, **BF)
    w = torch.ones(d, **BF)
    qkv = torch.randn(B, (h + 2 * kv) * dh, **BF)
    pos = torch.full((B,), T - 1, device="cuda", dtype=torch.int64)
    kc = torch.randn(B, kv, T, dh, **BF)
    vc = torch.randn(B, kv, T, dh, **BF)
    gu = torch.randn(B, 2 * ff, **BF)
    act = torch.empty(B, ff, **BF)
    blk = triton.next_power_of_2(d)
    bodies = {
        "add_rms_norm": lambda: add_rms_norm[(B,)](x, res, w, d, EPS, BLOCK=blk),
        "rotary": lambda: rotary[(B, h + kv)](qkv, M.cos, M.sin, pos, qkv.stride(0), HALF=dh // 2),
        "cache_write": lambda: cache_write[(B, kv)](qkv, kc, vc, pos, qkv.stride(0), h, kv, T, DH=dh),
        "silu_and_mul": lambda: silu_and_mul[(B, triton.cdiv(ff, 1024))](gu, act, ff, BLOCK=1024),
    }
    out = []
    for name, body in bodies.items():
        g = graph_of(lambda body=body: [body() for _ in range(200)])
        g.replay()
        t, tmin = ev(g.replay, 10)
        out.append(dict(model=M.name, batch=B, kernel=name, per_call_s=t / 200, min_s=tmin / 200))
        print(json.dumps(out[-1]), flush=True)
        del g
    return out


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
               triton=triton.__version__, date_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               method=__doc__, check=reference_check(), decode=[], kernels=[], singles=[],
               failures=[])
    print(json.dumps(res["check"]), flush=True)
    plan = {"llama-3-8b": [(1, 1024), (8, 1024), (32, 1024), (64, 1024), (128, 1024), (1, 8192),
                           (32, 4096)],
            "llama-3.2-1b": [(1, 1024), (8, 1024), (32, 1024), (64, 1024), (128, 1024), (1, 8192)]}
    models = {}
    for name, shapes in plan.items():
        M = models[name] = Model(name)
        for B, T in shapes:
            try:
                f, keep = setup(M, B, T)
                f()
                torch.cuda.synchronize()
                eager = ev(f, 10)
                g = graph_of(f)
                for _ in range(3):
                    g.replay()
                graph = ev(g.replay, 30)
                row = dict(model=name, batch=B, context=T, graph_s=graph[0], graph_min_s=graph[1],
                           eager_s=eager[0], eager_min_s=eager[1])
                res["decode"].append(row)
                print(json.dumps(row), flush=True)
                del g, keep, f
            except Exception as e:  # noqa: BLE001
                res["failures"].append(f"{name} {B} {T}: {e!r}")
                print("FAILED", name, B, T, repr(e), flush=True)
            torch.cuda.empty_cache()
        for B in (1, 64):
            res["singles"] += singles(M, B)
    for name, B in (("llama-3-8b", 1), ("llama-3-8b", 64), ("llama-3.2-1b", 1)):
        f, keep = setup(models[name], B, 1024)
        g = graph_of(f)
        row = dict(model=name, batch=B, context=1024, graph=kernels_of(g.replay))
        res["kernels"].append(row)
        print(name, B, "kernels", row["graph"]["kernels"], flush=True)
        del g, keep
    with open(out, "w") as fh:
        json.dump(res, fh, indent=1)
    print("wrote", out, flush=True)


if __name__ == "__main__":
    main()

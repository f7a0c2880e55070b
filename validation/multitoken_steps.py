"""Multi-token steps (q new tokens a sequence over a cache: a speculative
verify pass) of a Qwen3-8B-shaped model, for issue 53 and docs/validation.md
("Multi-token steps").

    python3 validation/multitoken_steps.py OUTDIR [--quick] [--lean]

The model and its decode step are validation/qwen3_decode_h200.py's (random
bf16 weights of the published shapes; F.rms_norm, per-head q/k norm, rotary
as one complex multiply, SDPA, the residual folded in by addmm). A verify
pass runs the same layer on B x q tokens: every projection is one GEMM at
M = B x q, the q keys and values are written into the cache at positions
T .. T+q-1 (index_copy_, as decode writes its one), attention runs the q
queries of each sequence over the T + q keys with a lower-right causal mask,
and the LM head runs on every new token (verification needs each
position's logits). The cache holds T = 2,048 tokens before the pass.

Two ways plain PyTorch masks a pass over a cache, each a whole step:
- `lower_right`: torch.nn.attention.bias.causal_lower_right, the mask
  validation/serving_fidelity.py's chunks use;
- `bool_mask`: an explicit boolean [q, T + q] tensor, as a forward that
  builds its own mask does (Hugging Face's SDPA path).
q = 1 is the decode step itself (qwen3_decode_h200.decode_step).

Then attention alone, one call per layer over the 36 layers' caches
replayed from a graph, by mask and by SDPA backend forced
(torch.nn.attention.sdpa_kernel), and the kernel names each runs
(torch.profiler, last: a profiler session slows later eager launches).

Timing: a CUDA graph replayed (`graph_s`, upper median of 20 by CUDA
events) and eagerly (`eager_s`, upper median of 5). Results are written to
OUTDIR/multitoken-steps.json after every point.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import log  # noqa: E402

T = 2048
QS = (1, 2, 3, 4, 8)
BS = (1, 16, 64)
MASKS = ("lower_right", "bool_mask")
QUICK = "--quick" in sys.argv
LEAN = "--lean" in sys.argv  # attention alone by mask only, no backend forced


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch = common.need_torch()
    F = common.F
    import qwen3_decode_h200 as q3
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention.bias import causal_lower_right

    shape = dict(q3.Q3)
    if QUICK:
        shape.update(L=2, V=4096)
    torch.manual_seed(0)
    M = q3.Model(shape, "cuda")
    m = M.m
    L, h, kv, dh = m["L"], m["h"], m["kv"], m["dh"]
    res = dict(common.environment(), model="qwen3-8b", shape=shape, cached=T,
               script="validation/multitoken_steps.py", weight_bytes=M.weight_bytes(),
               steps=[], attention=[], kernels=[])
    path = os.path.join(out, "multitoken-steps.json")

    def save():
        with open(path, "w") as f:
            json.dump(res, f, indent=1)

    def bool_mask(q):
        # Query i (position T + i) sees keys 0 .. T + i.
        i = torch.arange(q, device="cuda").unsqueeze(1)
        j = torch.arange(T + q, device="cuda").unsqueeze(0)
        return (j <= T + i).view(1, 1, q, T + q)

    # Whether the lower-right bias takes enable_gqa (else the keys are
    # repeated to every query head first, as serving_fidelity.py falls back).
    try:
        qq = torch.randn(1, h, 2, dh, device="cuda", dtype=torch.bfloat16)
        kk = torch.randn(1, kv, 66, dh, device="cuda", dtype=torch.bfloat16)
        F.scaled_dot_product_attention(qq, kk, kk, attn_mask=causal_lower_right(2, 66),
                                       enable_gqa=True)
        res["lower_right_path"] = "enable_gqa"
    except (RuntimeError, TypeError) as e:
        res["lower_right_path"] = f"repeat_interleave ({e!r:.200})"
    log(f"lower-right path: {res['lower_right_path']}")

    def attend_fn(kind, q):
        if kind == "lower_right":
            bias = causal_lower_right(q, T + q)
            if res["lower_right_path"] != "enable_gqa":
                r = h // kv
                return lambda qh, k, v: F.scaled_dot_product_attention(
                    qh, k.repeat_interleave(r, 1), v.repeat_interleave(r, 1), attn_mask=bias)
            return lambda qh, k, v: F.scaled_dot_product_attention(qh, k, v, attn_mask=bias,
                                                                   enable_gqa=True)
        if kind == "bool_mask":
            mask = bool_mask(q)
            return lambda qh, k, v: F.scaled_dot_product_attention(qh, k, v, attn_mask=mask,
                                                                   enable_gqa=True)
        if kind == "no_mask":
            return lambda qh, k, v: F.scaled_dot_product_attention(qh, k, v, enable_gqa=True)
        raise ValueError(kind)

    def verify_step(tok, kc, vc, pos, attend):
        B, q = tok.shape
        x = M.emb[tok].view(B * q, -1)
        for i, l in enumerate(M.layers):
            y = F.rms_norm(x, (x.shape[-1],), l["n1"], q3.EPS)
            qkv = y @ l["qkv"].t()
            qk = qkv[:, : (h + kv) * dh].view(B * q, h + kv, dh)
            qk = F.rms_norm(qk, (dh,), None, q3.EPS) * l["qkn"]
            qk = q3.rope(qk, M.freqs)
            qh, k = qk.split([h, kv], 1)
            qh = qh.view(B, q, h, dh).transpose(1, 2)
            k = k.view(B, q, kv, dh).transpose(1, 2)
            v = qkv[:, (h + kv) * dh:].view(B, q, kv, dh).transpose(1, 2)
            kc[i].index_copy_(2, pos, k)
            vc[i].index_copy_(2, pos, v)
            a = attend(qh, kc[i], vc[i])
            x = torch.addmm(x, a.transpose(1, 2).reshape(B * q, h * dh), l["o"].t())
            y = F.rms_norm(x, (x.shape[-1],), l["n2"], q3.EPS)
            g, u = (y @ l["gu"].t()).chunk(2, -1)
            x = torch.addmm(x, F.silu(g) * u, l["down"].t())
        logits = F.rms_norm(x, (x.shape[-1],), M.norm, q3.EPS) @ M.head.t()
        return logits.argmax(-1)

    def caches(B, q):
        bf = dict(device="cuda", dtype=torch.bfloat16)
        kc = [torch.randn(B, kv, T + q, dh, **bf) for _ in range(L)]
        vc = [torch.randn(B, kv, T + q, dh, **bf) for _ in range(L)]
        return kc, vc

    def make_step(B, q, kind, kc, vc, pos):
        """The step as a closure over its own tensors (not the loop's names)."""
        if q == 1:
            tok = torch.randint(0, m["V"], (B,), device="cuda")
            return lambda: q3.decode_step(M, tok, kc, vc, pos)
        tok = torch.randint(0, m["V"], (B, q), device="cuda")
        att = attend_fn(kind, q)
        return lambda: verify_step(tok, kc, vc, pos, att)

    def time_step(step):
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        eager = common.events_upper_median(step, 5)
        g = common.graph_of(step)
        for _ in range(3):
            g.replay()
        graph = common.events_upper_median(g.replay, 20)
        return eager, graph, g

    keep = {}
    reps = 5 if QUICK else 20
    for B in BS:
        for q in QS:
            kc, vc = caches(B, q)
            pos = torch.arange(T, T + q, device="cuda")
            for kind in (("decode",) if q == 1 else MASKS):
                try:
                    step = make_step(B, q, kind, kc, vc, pos)
                    eager, graph, g = time_step(step)
                    row = dict(batch=B, new_tokens=q, cached=T, mask=kind, eager_s=eager,
                               graph_s=graph)
                    if B == 16 and q in (1, 4):
                        # The step holds its caches: the graph's addresses stay valid.
                        keep[(B, q, kind)] = (g, step)
                    else:
                        del g
                except Exception as e:  # noqa: BLE001 - one failed point must not lose the rest
                    row = dict(batch=B, new_tokens=q, cached=T, mask=kind, error=repr(e)[:400])
                res["steps"].append(row)
                log(json.dumps(row))
                save()

            # Attention alone over the layers' caches, one call a layer.
            qh = torch.randn(B, h, q, dh, device="cuda", dtype=torch.bfloat16)
            lean = [("lower_right", None), ("bool_mask", None), ("no_mask", None)]
            variants = [("decode", None)] if q == 1 else lean if LEAN else [
                ("lower_right", None), ("bool_mask", None), ("no_mask", None),
                ("bool_mask", "efficient"), ("bool_mask", "cudnn"), ("bool_mask", "math"),
                ("lower_right", "flash"), ("lower_right", "efficient")]
            for kind, backend in variants:
                att = attend_fn("no_mask" if kind == "decode" else kind, q)
                bk = dict(flash=SDPBackend.FLASH_ATTENTION, efficient=SDPBackend.EFFICIENT_ATTENTION,
                          cudnn=SDPBackend.CUDNN_ATTENTION, math=SDPBackend.MATH).get(backend)

                def body():
                    for i in range(L):
                        att(qh, kc[i], vc[i])

                def run():
                    if bk is None:
                        body()
                    else:
                        with sdpa_kernel([bk]):
                            body()
                row = dict(batch=B, new_tokens=q, cached=T, mask=kind, backend=backend or "default")
                try:
                    row["layer_s"] = common.graph_upper_median(run, reps) / L
                except Exception as e:  # noqa: BLE001
                    row["error"] = repr(e)[:300]
                res["attention"].append(row)
                log(json.dumps(row))
                save()
            del kc, vc
            torch.cuda.empty_cache()

    # Kernel names and counts, last.
    def kernels_of(fn):
        return common.kernels_per_layer(fn, L)

    for (B, q, kind), (g, step) in keep.items():
        for launch, fn in (("graph", g.replay), ("eager", step)):
            try:
                r = kernels_of(fn)
                r.update(batch=B, new_tokens=q, mask=kind, launch=launch)
                res["kernels"].append(r)
                log(f"kernels B={B} q={q} {kind} {launch}: {r['kernels']} kernels, "
                    f"{r['copies']} copies, {r['device_s'] * 1e3:.2f} ms")
                for nm, c, s in r["by_name"][:12]:
                    log(f"  {c:6d} {s * 1e3:9.3f} ms  {nm[:110]}")
            except Exception as e:  # noqa: BLE001
                log(f"profile B={B} q={q} {kind} failed: {e!r}")
            save()
    res["wall_s"] = time.time() - common.T0
    save()
    # Summary: graph step times by batch and q.
    for kind in ("decode",) + MASKS:
        for B in BS:
            cells = [f"q{r['new_tokens']}={r['graph_s'] * 1e3:.2f}" for r in res["steps"]
                     if r["batch"] == B and r["mask"] in (kind, "decode") and "graph_s" in r]
            print(f"SUMMARY {kind} B={B}: " + " ".join(cells) + " ms")


if __name__ == "__main__":
    main()

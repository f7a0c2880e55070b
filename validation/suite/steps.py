"""Whole serving steps: the calibration's Llama-3-8B-shaped decode steps
(rows) and the serving scripts: decode, prefill and chunks for the
per-operation model (validation/serving_h200.py, serving_fidelity.py),
kernels inside graph replays (graph_kernels.py), prefill by kernel
(prefill_*_h200.py) and Qwen3-8B decode (qwen3_decode_h200.py)."""

from validation.common import events_time, graph_of, log
from validation.suite import Rows, Script

torch = F = None  # bound by common.need_torch() when a section runs


def llama_weights(L, d, h, kv, dh, ff, V):
    """Random bf16 weights of a Llama-3-shaped decoder of L layers: (embedding, LM head,
    layers, rotary frequencies)."""
    bf = dict(device="cuda", dtype=torch.bfloat16)
    s = 0.02
    emb = torch.randn(V, d, **bf) * s
    head = torch.randn(V, d, **bf) * s
    layers = [dict(qkv=torch.randn((h + 2 * kv) * dh, d, **bf) * s, o=torch.randn(d, h * dh, **bf) * s,
                   gu=torch.randn(2 * ff, d, **bf) * s, down=torch.randn(d, ff, **bf) * s,
                   n1=torch.ones(d, **bf), n2=torch.ones(d, **bf)) for _ in range(L)]
    freqs = torch.polar(torch.ones(dh // 2, device="cuda"), torch.rand(dh // 2, device="cuda"))
    return emb, head, layers, freqs


def llama_step(net, kc, vc, tok, pos, B, d, h, kv, dh):
    """One decode step of B tokens at cache position `pos` (RMSNorm, fused QKV, rotary,
    KV write, SDPA, fused gate+up, SiLU): the logits."""
    emb, head, layers, freqs = net
    x = emb[tok]
    for i, l in enumerate(layers):
        y = F.rms_norm(x, (d,), l["n1"], 1e-5)
        qkv = y @ l["qkv"].t()
        qk = qkv[:, : (h + kv) * dh].view(B, h + kv, dh // 2, 2).float()
        qk = torch.view_as_real(torch.view_as_complex(qk) * freqs).flatten(-2).to(x.dtype)
        q, k = qk.split([h, kv], 1)
        kc[i].index_copy_(2, pos, k.view(B, kv, 1, dh))
        vc[i].index_copy_(2, pos, qkv[:, (h + kv) * dh:].reshape(B, kv, 1, dh))
        a = F.scaled_dot_product_attention(q.reshape(B, h, 1, dh), kc[i], vc[i], enable_gqa=True)
        x = torch.addmm(x, a.reshape(B, h * dh), l["o"].t())
        y = F.rms_norm(x, (d,), l["n2"], 1e-5)
        g, u = (y @ l["gu"].t()).chunk(2, -1)
        x = torch.addmm(x, F.silu(g) * u, l["down"].t())
    return F.rms_norm(x, (d,), None, 1e-5) @ head.t()


EAGER_STEPS = ((1, 1024), (32, 1024), (32, 4096))  # (B, T) also timed eagerly


PREFILL_STEPS = ((1, 512), (1, 2048), (4, 1024), (1, 8192))  # (B, S) prefills, eager


def llama_prefill(net, tok, B, S, d, h, kv, dh):
    """A prefill of tok [B, S] through llama_step's layers with causal attention and no
    cache, as validation/serving_fidelity.py's forward runs it: the last token's logits."""
    emb, head, layers, freqs = net
    x = emb[tok].reshape(B * S, d)
    for l in layers:
        y = F.rms_norm(x, (d,), l["n1"], 1e-5)
        qkv = y @ l["qkv"].t()
        qk = qkv[:, : (h + kv) * dh].view(B * S, h + kv, dh // 2, 2).float()
        qk = torch.view_as_real(torch.view_as_complex(qk) * freqs).flatten(-2).to(x.dtype)
        q, k = qk.split([h, kv], 1)
        v = qkv[:, (h + kv) * dh:].reshape(B * S, kv, dh)
        q, k, v = (t.reshape(B, S, -1, dh).transpose(1, 2) for t in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = torch.addmm(x, a.transpose(1, 2).reshape(B * S, h * dh), l["o"].t())
        y = F.rms_norm(x, (d,), l["n2"], 1e-5)
        g, u = (y @ l["gu"].t()).chunk(2, -1)
        x = torch.addmm(x, F.silu(g) * u, l["down"].t())
    last = x.view(B, S, d)[:, -1]
    return F.rms_norm(last, (d,), None, 1e-5) @ head.t()


def decode_steps(w, quick):
    L, d, h, kv, dh, ff, V = 32, 4096, 32, 8, 128, 14336, 128256
    free, _ = torch.cuda.mem_get_info()
    per_layer = 2 * (d * (h + 2 * kv) * dh + d * h * dh + 3 * d * ff)
    grid = [(1, 1024), (8, 1024), (32, 1024), (32, 4096), (128, 1024)] if not quick else [(1, 1024), (32, 1024)]
    kv_max = max(2 * 2 * B * kv * T * dh for B, T in grid)
    fit = int((free * 0.8 - 4 * V * d) // (per_layer + kv_max))
    L = max(1, min(L, fit))
    bf = dict(device="cuda", dtype=torch.bfloat16)
    net = llama_weights(L, d, h, kv, dh, ff, V)
    for B, T in grid:
        kc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        vc = [torch.randn(B, kv, T, dh, **bf) for _ in range(L)]
        tok = torch.randint(0, V, (B,), device="cuda")
        pos = torch.tensor([T - 1], device="cuda")
        out = torch.empty(B, dtype=torch.long, device="cuda")

        def step():
            logits = llama_step(net, kc, vc, tok, pos, B, d, h, kv, dh)
            out.copy_(logits.argmax(-1))
            return logits

        logits = step()
        ok = bool(torch.isfinite(logits).all())
        g = graph_of(step)
        for _ in range(3):
            g.replay()
        reps = 20 if not quick else 5
        t = events_time(g.replay, reps)
        what = ("random weights; RMSNorm, fused QKV, rotary, KV write, SDPA, fused gate+up, SiLU, "
                "LM head, argmax" + ("" if ok else "; NON-FINITE LOGITS"))
        w.row(operation="decode_step", model="llama-3-8b", layers=L, batch=B, context=T,
              heads=h, kv_heads=kv, head_dim=dh, dtype="bf16", launch="graph", repeats=reps,
              seconds=t, note=what)
        log(f"decode step llama-3-8b ({L} layers) B={B} T={T}: {t * 1e3:.3f} ms")
        del g
        if (B, T) in EAGER_STEPS:
            # The same step launched from Python, as an eager forward runs: the host's path
            # is in the clock (the whole steps `calibrate` checks the host figures on).
            for _ in range(3):
                step()
            torch.cuda.synchronize()
            t = events_time(step, 10 if not quick else 3)
            w.row(operation="decode_step", model="llama-3-8b", layers=L, batch=B, context=T,
                  heads=h, kv_heads=kv, head_dim=dh, dtype="bf16", launch="eager",
                  repeats=10, seconds=t, note=what + "; launched eagerly from Python")
            log(f"decode step llama-3-8b ({L} layers) B={B} T={T} eager: {t * 1e3:.3f} ms")
        del kc, vc
        torch.cuda.empty_cache()
    for B, S in PREFILL_STEPS if not quick else PREFILL_STEPS[:1]:
        tok = torch.randint(0, V, (B, S), device="cuda")
        f = lambda: llama_prefill(net, tok, B, S, d, h, kv, dh)
        ok = bool(torch.isfinite(f()).all())
        f()
        torch.cuda.synchronize()
        t = events_time(f, 5 if not quick else 2)
        w.row(operation="prefill_step", model="llama-3-8b", layers=L, batch=B, seq=S,
              heads=h, kv_heads=kv, head_dim=dh, dtype="bf16", launch="eager", repeats=5,
              seconds=t, note="random weights; the decode step's layers over S tokens, causal "
              "SDPA (default backend), LM head on the last token, launched eagerly"
              + ("" if ok else "; NON-FINITE LOGITS"))
        log(f"prefill step llama-3-8b ({L} layers) B={B} S={S}: {t * 1e3:.3f} ms")
        del tok
        torch.cuda.empty_cache()


NCU_STEPS = ("ncu --clock-control none --nvtx --csv --log-file {dir}/h200-serving-ncu.csv "
             "--metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,"
             "launch__grid_size").split()

SECTIONS = [
    Rows("steps.decode", "decode", "whole Llama-3-8B-shaped decode steps by CUDA graph "
         "(calibration rows decode_step)", decode_steps),
    Script("steps.serving", "serving_h200.py", "Llama-3-8B and Llama-2-7B decode steps and "
           "prefills, lean forward", argv=["{py}", "{script}", "{dir}/serving.json", "--lean"]),
    Script("steps.fidelity", "serving_fidelity.py", "decode (graph and eager), prefill and "
           "chunks for the per-operation model, kernels per step",
           argv=["{py}", "{script}", "{dir}/serving-fidelity.json"], quick=["--quick"]),
    Script("steps.fidelity-clean", "serving_fidelity.py", "the same steps with no profiler "
           "attached, chunks also from graphs",
           argv=["{py}", "{script}", "{dir}/serving-clean.json", "--clean"], quick=["--quick"]),
    Script("steps.fidelity-ncu", "serving_fidelity.py", "each probed op once under Nsight "
           "Compute", argv=NCU_STEPS + ["{py}", "{script}", "probe"], needs="1 GPU, ncu"),
    Script("steps.graph-kernels", "graph_kernels.py", "kernel starts and durations inside "
           "decode graph replays; one-class graphs",
           argv=["{py}", "{script}", "{dir}/graph-kernels.json"], quick=["--quick"]),
    Script("steps.prefill-ops", "prefill_ops_h200.py", "every kernel of one eager Llama-3-8B "
           "prefill; the forward's GEMMs at rest and back to back"),
    Script("steps.prefill-kernels", "prefill_kernels_h200.py", "a prefill's time by kernel "
           "class at the idle clock and at the power limit"),
    Script("steps.prefill-gaps", "prefill_gaps_h200.py", "the GPU's idle time between an eager "
           "prefill's kernels"),
    Script("steps.qwen3-decode", "qwen3_decode_h200.py", "Qwen3-8B-shaped decode steps",
           argv=["{py}", "{script}", "{dir}/qwen3-decode.json"]),
    Script("steps.fused-decode", "fused_decode_h200.py", "Llama decode with vLLM-shaped fused "
           "kernels (Triton): steps, each kernel alone, kernels per replay",
           argv=["{py}", "{script}", "{dir}/fused-decode.json"]),
    Script("steps.small-models", "small_models_h200.py", "Llama-3.2-1B and 3B decode, a "
           "masked chunk, single eager GEMM calls, batch-64 power",
           argv=["{py}", "{script}", "{dir}/small-models.json"]),
]

"""Attention: `F.scaled_dot_product_attention` causal prefill and decode over
KV caches (calibration rows)."""

import math

from validation.common import events_time, log, rel_err, time_cold
from validation.suite import Rows

torch = F = None  # bound by common.need_torch() when a section runs


def attention(w, quick):
    h, kv, d = 32, 8, 128
    seqs = [1024, 2048, 4096, 8192, 16384] if not quick else [1024, 4096]
    for S in seqs:
        B = 1
        q = torch.randn(B, h, S, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(B, kv, S, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn_like(k)
        # The default dispatch, as a model's forward calls it: on the H200 with
        # PyTorch 2.11 that is cuDNN's flash kernel, about twice as fast at 4k
        # to 16k as FlashAttention-2's, which an earlier version forced.
        fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        out = fn()
        for _ in range(2):
            fn()
        torch.cuda.synchronize()
        reps = 10 if not quick else 3
        t = events_time(fn, reps)
        note = ("causal, GQA via enable_gqa, the default backend (cudnn_sdp_enabled "
                f"{torch.backends.cuda.cudnn_sdp_enabled()}; no profiler here: it would slow the later sections)")
        # Check a few query rows against a float32 softmax.
        rows = torch.tensor([0, S // 3, S - 1], device="cuda")
        qs = q[0, :, rows].float()
        kr = k[0].float().repeat_interleave(h // kv, 0)
        vr = v[0].float().repeat_interleave(h // kv, 0)
        sc = (qs @ kr.transpose(-1, -2)) / math.sqrt(d)
        mask = torch.arange(S, device="cuda")[None, :] > rows[:, None]
        sc = sc.masked_fill(mask, float("-inf"))
        ref = sc.softmax(-1) @ vr
        err = rel_err(out[0, :, rows], ref)
        flops = 2.0 * B * h * S * S * d  # 2 GEMMs x 2 FLOP x B H S^2 D, halved for causal
        bad = not err < 0.02
        w.row(operation="attention_prefill", batch=B, seq=S, heads=h, kv_heads=kv, head_dim=d,
              flops=flops, bytes=2 * B * S * d * (2 * h + 2 * kv), dtype="bf16", launch="eager",
              repeats=reps, seconds=t,
              note=note + (f"; RESULT CHECK FAILED rel err {err:.2e}" if bad else ""))
        log(f"attention prefill S={S}: {t * 1e3:.3f} ms {flops / t / 1e12:.0f} TFLOP/s err {err:.1e}")
        del q, k, v
        torch.cuda.empty_cache()
    grid = [(1, 1024), (1, 8192), (8, 4096), (32, 1024), (32, 4096), (32, 16384),
            (128, 1024), (128, 4096)] if not quick else [(1, 1024), (32, 4096)]
    for B, T in grid:
        kvb = 2 * 2 * B * kv * T * d

        def make(i):
            g = torch.Generator(device="cuda").manual_seed(7 + i)
            q = torch.randn(B, h, 1, d, device="cuda", dtype=torch.bfloat16, generator=g)
            k = torch.randn(B, kv, T, d, device="cuda", dtype=torch.bfloat16, generator=g)
            return q, k, torch.randn(B, kv, T, d, device="cuda", dtype=torch.bfloat16, generator=g)

        fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        try:
            t, out, (q, k, v), nrep = time_cold(make, fn, kvb, kvb / 3.5e12, 15)
        except Exception as e:  # noqa: BLE001
            log(f"attention decode B={B} T={T} FAILED: {e!r}")
            torch.cuda.empty_cache()
            continue
        ref = (q.float() @ k.float().repeat_interleave(h // kv, 1).transpose(-1, -2) / math.sqrt(d))
        ref = ref.softmax(-1) @ v.float().repeat_interleave(h // kv, 1)
        err = rel_err(out, ref)
        bad = not err < 0.02
        w.row(operation="attention_decode", batch=B, context=T, heads=h, kv_heads=kv, head_dim=d,
              flops=4.0 * B * h * T * d, bytes=kvb, dtype="bf16", launch="graph", repeats=nrep,
              seconds=t, note="one query token over a cold KV cache, enable_gqa"
              + (f"; RESULT CHECK FAILED rel err {err:.2e}" if bad else ""))
        log(f"attention decode B={B} T={T}: {t * 1e6:.1f} us {kvb / t / 1e9:.0f} GB/s err {err:.1e}")
        del q, k, v
        torch.cuda.empty_cache()


SECTIONS = [
    Rows("attention.sdpa", "attention", "causal prefill at S = 1k to 16k and decode attention "
         "(calibration rows attention_prefill, attention_decode)", attention),
]

"""Mixture-of-experts steps with grouped experts on one H200 (issue 38:
engine profiles, `moe.dispatch = "grouped"`).

    python3 validation/engine_moe_h200.py MODEL OUTDIR   # MODEL: qwen3 | mixtral | deepseek
    python3 validation/engine_moe_h200.py all OUTDIR     # each in a process of its own

Random bf16 weights of the published shapes, built on the GPU, in
validation/serving_fidelity.py's forward (RMSNorm, fused QKV, rotary as
one complex multiply, SDPA over the cache, the residual folded into the
output projection by addmm) with the feed-forward of every layer a
mixture of experts run one of two ways:

- grouped (what vLLM's fused MoE, SGLang and TensorRT-LLM do, here in plain
  PyTorch): router GEMM, top-k, softmax of the picked logits; the token x
  k picks sorted by expert (argsort), counted (a zero fill and a
  scatter-add), their running sum cast to int32 (the group offsets); the
  rows gathered in that order (index_select); gate/up as ONE
  `torch._grouped_mm` over the experts, SiLU x up, down as one grouped
  GEMM; each row scaled by its routing weight (gathered in the same
  order), the rows put back in token order (index_copy), the k rows of a
  token summed, the residual added. Shapes do not depend on the routing,
  so it replays from a CUDA graph;
- loop: serving_fidelity.py's per-expert loop (gather, gate/up, SiLU x up,
  down, scale, index_add), as the default `pytorch` engine prices it.

Routing is uniform (each token picks k distinct experts at random per
layer, drawn before capture, as serving_fidelity.py does); the router's
top-k still runs, its indices replaced by the drawn ones. An expert no
token picked has an empty group (its weights are not read).

Shapes (config.json of each model; attention as each model's, GQA):
- qwen3: Qwen3-30B-A3B, 48 layers, d 2048, 32/4 heads of 128, 128 experts
  top 8 of width 768, vocab 151,936 (no q/k norm: the measured forward
  leaves it out);
- mixtral: Mixtral-8x7B, 32 layers, d 4096, 32/8 heads, 8 experts top 2 of
  14,336, vocab 32,000;
- deepseek: DeepSeek-V3's MoE layers (d 7168, 256 routed experts top 8 of
  width 2,048, one shared expert of 2,048, vocab 129,280), 4 layers of
  them (the whole model does not fit), under GQA attention of 56/8 heads
  of 128 (the script's, not MLA).

Points: decode at batch 1, 4, 16, 64, 256 over 512 cached tokens, replayed
from a CUDA graph (`graph_s`, median of 20) and eagerly (`eager_s`, median
of 10); prefill of 512, 1,024 and 2,048 tokens (batch 1) eagerly and from a
graph (median of 5); the loop at decode batch 1, 16 and 64 (graph) for
qwen3 and mixtral. Then torch.profiler over one graph replay of decode at
batch 1 and 64 and one eager prefill of 2,048: kernels by name with their
device time, the second layer's kernels in order, memcpy/memset apart.
Nothing is fitted here; `held_out` marks the points no figure of the tool
was fitted to (all of them when the file is written: a later fit names
the points it used in docs/validation.md).

Writes OUTDIR/engine-moe-MODEL.json.
"""

import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
for p in (HERE, os.path.join(HERE, "..", "..", "validation")):
    sys.path.insert(0, os.path.abspath(p))

SHAPES = {
    "qwen3": ("qwen3-30b-a3b", dict(L=48, d=2048, h=32, kv=4, dh=128, ff=768, V=151936, E=128,
                                     topk=8, shared=0)),
    "mixtral": ("mixtral-8x7b", dict(L=32, d=4096, h=32, kv=8, dh=128, ff=14336, V=32000, E=8,
                                      topk=2, shared=0)),
    "deepseek": ("deepseek-v3-moe4", dict(L=4, d=7168, h=56, kv=8, dh=128, ff=2048, V=129280,
                                           E=256, topk=8, shared=1)),
}
DECODE_B = (1, 4, 16, 64, 256)
CONTEXT = 512
PREFILL_S = (512, 1024, 2048)
LOOP_B = (1, 16, 64)
T0 = time.time()
# `--profiles`: only the profiled points, timed again, and their profiles
# (engine-moe-MODEL-profiles.json): a first run lost them to a freed input.
PROFILES = "--profiles" in sys.argv
if PROFILES:
    DECODE_B, PREFILL_S, LOOP_B = (1, 64), (2048,), ()


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def run_all(out):
    for key in SHAPES:
        log(f"--- {key}")
        r = subprocess.run([sys.executable, os.path.abspath(__file__), key, out]
                           + (["--profiles"] if PROFILES else []))
        log(f"--- {key} exit {r.returncode}")


def main():
    key, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if key == "all":
        return run_all(out)
    import torch
    import torch.nn.functional as F

    import common
    import serving_fidelity as sf

    name, m = SHAPES[key]
    sf.MODELS[name] = m

    gmm = getattr(torch, "_grouped_mm", None) or getattr(F, "grouped_mm")

    def probe_layout():
        """Whether the grouped GEMM takes B as a transposed [E, N, K] (else [E, K, N])."""
        bf = dict(device="cuda", dtype=torch.bfloat16)
        a = torch.randn(64, 256, **bf)
        offs = torch.tensor([16, 16, 48, 64], dtype=torch.int32, device="cuda")
        try:
            gmm(a, torch.randn(4, 128, 256, **bf).transpose(-2, -1), offs=offs)
            torch.cuda.synchronize()
            return True
        except RuntimeError as e:
            log(f"transposed B refused ({e}); B row-major")
            return False

    TRANSPOSED = probe_layout()

    def expert_w(E, n, k):
        bf = dict(device="cuda", dtype=torch.bfloat16)
        if TRANSPOSED:
            return (torch.randn(E, n, k, **bf) * 0.02).transpose(-2, -1)
        return torch.randn(E, k, n, **bf) * 0.02

    class Moe(sf.Model):
        """serving_fidelity's Model with stacked expert weights and a grouped dispatch."""

        def __init__(self):
            mm = dict(m)
            self.name, self.m, self.dtype = name, mm, "bf16"
            L, d, h, kv, dh, ff, V, E = (mm[k] for k in ("L", "d", "h", "kv", "dh", "ff", "V", "E"))
            bf = dict(device="cuda", dtype=torch.bfloat16)
            s = 0.02
            self.one = torch.ones((), device="cuda")
            self.emb = torch.randn(V, d, **bf) * s
            self.head = torch.randn(V, d, **bf) * s
            self.freqs = torch.polar(torch.ones(dh // 2, device="cuda"),
                                     torch.rand(dh // 2, device="cuda"))
            self.layers = []
            for _ in range(L):
                l = dict(n1=torch.ones(d, **bf), n2=torch.ones(d, **bf),
                         qkv=self.w((h + 2 * kv) * dh, d), o=self.w(d, h * dh),
                         router=torch.randn(E, d, **bf) * s,
                         # [E, K, N] views of [E, N, K] as nn.Linear keeps them
                         # (column-major B), if the grouped GEMM takes that.
                         w13=expert_w(E, 2 * ff, d), w2=expert_w(E, d, ff))
                if mm["shared"]:
                    l["sgu"] = self.w(2 * ff * mm["shared"], d)
                    l["sdown"] = self.w(d, ff * mm["shared"])
                self.layers.append(l)
            self.route = None
            self.ids = None
            self.mode = "grouped"

        def set_ids(self, tokens, seed=0):
            mm = self.m
            g = torch.Generator(device="cuda").manual_seed(seed)
            self.ids, touched = [], []
            for _ in range(mm["L"]):
                pick = torch.rand(tokens, mm["E"], device="cuda", generator=g).topk(mm["topk"], -1).indices
                self.ids.append(pick.contiguous())
                touched.append(int(pick.unique().numel()))
            self.touched = statistics.fmean(touched)
            self.ones = torch.ones(tokens * mm["topk"], dtype=torch.int64, device="cuda")

        def ffn_loop(self, i, l, x):
            """serving_fidelity.Model.ffn's loop over the experts, on the stacked [E, K, N] weights."""
            y = F.rms_norm(x, (x.shape[-1],), l["n2"], 1e-5)
            logits = y @ l["router"].t()
            topv, _ = logits.topk(self.m["topk"], -1)
            wts = topv.softmax(-1)[:, :1]
            out = torch.zeros_like(x)
            for e, idx in self.route[i]:
                xe = y.index_select(0, idx)
                g, u = (xe @ l["w13"][e]).chunk(2, -1)
                oe = (F.silu(g) * u) @ l["w2"][e]
                out.index_add_(0, idx, oe * wts.index_select(0, idx))
            return x + out

        def ffn(self, i, l, x):
            if self.mode == "loop":
                return self.ffn_loop(i, l, x)
            mm = self.m
            E, k = mm["E"], mm["topk"]
            T, d = x.shape
            y = F.rms_norm(x, (d,), l["n2"], 1e-5)
            logits = y @ l["router"].t()
            topv, _ = logits.topk(k, -1)
            wts = topv.softmax(-1)
            flat = self.ids[i].flatten()
            order = flat.argsort(stable=True)
            counts = torch.zeros(E, dtype=torch.int64, device="cuda").scatter_add_(0, flat, self.ones)
            offs = counts.cumsum(0).to(torch.int32)
            xs = y.index_select(0, order // k)
            hgu = gmm(xs, l["w13"], offs=offs)
            g, u = hgu.chunk(2, -1)
            o = gmm(F.silu(g) * u, l["w2"], offs=offs)
            o = o * wts.flatten().index_select(0, order).unsqueeze(1)
            back = torch.empty_like(o).index_copy_(0, order, o)
            out = back.view(T, k, d).sum(1)
            if mm["shared"]:
                sg, su = self.lin(y, l["sgu"]).chunk(2, -1)
                return self.lin_res(x + out, F.silu(sg) * su, l["sdown"])
            return x + out

    torch.manual_seed(0)
    res = dict(model=name, shape=m, device=torch.cuda.get_device_name(), torch=torch.__version__,
               context=CONTEXT, decode=[], prefill=[], profiles=[], held_out=True)
    log(f"{name}: building")
    M = Moe()
    torch.cuda.synchronize()
    log(f"{name}: built, {torch.cuda.memory_allocated() / 1e9:.1f} GB")

    def decode_fn(B):
        kc, vc = sf.caches(M, B, CONTEXT)
        tok = torch.randint(0, m["V"], (B,), device="cuda")
        pos = torch.tensor([CONTEXT - 1], device="cuda")
        nxt = torch.empty(B, dtype=torch.long, device="cuda")

        def step():
            lg = M.decode_step(tok, kc, vc, pos)
            nxt.copy_(lg.argmax(-1))
            return lg

        return step, (kc, vc)

    def decode(B, mode):
        M.mode = mode
        if mode == "loop":
            M.set_route(B, seed=B * 7 + CONTEXT)
        else:
            M.set_ids(B, seed=B * 7 + CONTEXT)
        step, keep = decode_fn(B)
        ok = bool(torch.isfinite(step()).all())
        step()
        torch.cuda.synchronize()
        eager = sf.ev_time(step, 10) if mode == "grouped" else (None, None, None)
        g = sf.graph_of(step)
        for _ in range(3):
            g.replay()
        graph = sf.ev_time(g.replay, 20)
        row = dict(kind="decode", dispatch=mode, batch=B, context=CONTEXT, layers=m["L"],
                   graph_s=graph[0], graph_min_s=graph[1], graph_max_s=graph[2],
                   eager_s=eager[0], experts_touched_mean=M.touched, finite=ok)
        log(json.dumps(row))
        res["decode"].append(row)
        return g, step, keep

    def prefill(S):
        M.mode = "grouped"
        M.set_ids(S, seed=S + 1)
        tok = torch.randint(0, m["V"], (1, S), device="cuda")
        f = lambda: M.prefill(tok)  # noqa: E731
        ok = bool(torch.isfinite(f()).all())
        f()
        torch.cuda.synchronize()
        eager = sf.ev_time(f, 5)
        g = sf.graph_of(f)
        for _ in range(2):
            g.replay()
        graph = sf.ev_time(g.replay, 5)
        row = dict(kind="prefill", dispatch="grouped", batch=1, prompt=S, layers=m["L"],
                   eager_s=eager[0], eager_min_s=eager[1], graph_s=graph[0], graph_min_s=graph[1],
                   experts_touched_mean=M.touched, finite=ok)
        log(json.dumps(row))
        res["prefill"].append(row)
        return g, f

    keep = {}
    for B in DECODE_B:
        try:
            g, step, k = decode(B, "grouped")
            if B in (1, 64):
                keep[("decode", B)] = (g, (step, k), M.ids, M.ones, M.touched)
            else:
                del g, k
        except torch.OutOfMemoryError as e:
            log(f"decode B={B}: out of memory ({e})")
        torch.cuda.empty_cache()
    for S in PREFILL_S:
        try:
            g, f = prefill(S)
            if S == 2048:
                keep[("prefill", S)] = (f, M.ids, M.ones, M.touched)
            del g
        except torch.OutOfMemoryError as e:
            log(f"prefill S={S}: out of memory ({e})")
        torch.cuda.empty_cache()
    if key != "deepseek":
        for B in LOOP_B:
            try:
                g, step, k = decode(B, "loop")
                del g, k
            except torch.OutOfMemoryError as e:
                log(f"loop B={B}: out of memory ({e})")
            torch.cuda.empty_cache()

    # Profiles last: a profiler session slows later eager launches.
    def kernels_of(fn):
        return common.kernels_per_layer(fn, m["L"])

    M.mode = "grouped"
    for (kind, n), v in keep.items():
        try:
            if kind == "decode":
                g, _, M.ids, M.ones, M.touched = v
                r = kernels_of(g.replay)
                r.update(kind="decode", dispatch="grouped", batch=n, context=CONTEXT, launch="graph")
            else:
                f, M.ids, M.ones, M.touched = v
                r = kernels_of(f)
                r.update(kind="prefill", dispatch="grouped", batch=1, prompt=n, launch="eager")
            res["profiles"].append(r)
            log(f"profile {kind} {n}: {r['kernels']} kernels, {r['copies']} copies, "
                f"{r['device_s'] * 1e3:.2f} ms on the GPU")
            for nm, c, s in r["by_name"][:25]:
                log(f"  {c:6d} {s * 1e3:9.3f} ms  {nm[:110]}")
        except Exception as e:  # noqa: BLE001 - a failed profile must not lose the timings
            log(f"profile {kind} {n} failed: {e!r}")
    fname = f"engine-moe-{key}{'-profiles' if PROFILES else ''}.json"
    with open(os.path.join(out, fname), "w") as fh:
        json.dump(res, fh, indent=1)
    log(f"wrote {fname}")


if __name__ == "__main__":
    main()

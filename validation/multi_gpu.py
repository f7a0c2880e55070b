"""Ground truth on several GPUs of one node (issue 24): NCCL collectives,
tensor-parallel decode and prefill, a 2-stage pipeline, expert-parallel
all-to-all. One command, any world size:

    NCCL_NVLS_ENABLE=0 torchrun --nproc_per_node=8 validation/multi_gpu.py OUTDIR --budget 480

Sections run in priority order while the budget (seconds, counted from the
start) lasts; each writes OUTDIR/multi-gpu-<section>-w<N>.json as soon as it
ends, and a section stopped by the budget writes what it had. Every file
holds `"world_size": N` (json.dump's default separators), the GPU names, the
driver and `nvidia-smi topo -m`. A section that needs more GPUs than it got
records why it was skipped.

1. links: send/recv of 256 MiB between rank 0 and every other rank, one way
   (the bandwidth each pair reaches).
2. collectives: all-reduce, all-gather, reduce-scatter, all-to-all and a
   ring send/recv, 1 KiB ... 1 GiB (x4 steps; size = the full buffer one rank
   holds), eager (CUDA events, median of 20 after warm-up, a barrier before
   each) and captured in a CUDA graph (10 per graph, median of 10 replays).
   The send/recv ring needs 2 GPUs.
3. tp: Megatron-style tensor parallelism over all ranks (two all-reduces a
   layer, the LM head split by vocabulary): Llama-3-8B- and
   Llama-3.1-70B-shaped bf16 decode by CUDA graph at batch 1 ... 128 and
   contexts 1k ... 8k, and prefill of 2k and 8k tokens (eager). A shape
   whose weights do not fit one rank's memory is skipped and recorded.
4. pipeline: 2 stages of TP (world / 2) each, Llama-3-8B-shaped prefill of
   microbatches, activations handed from stage 0 to stage 1 by send/recv:
   the whole pipeline, each stage alone, and the handoff (needs 2 GPUs).
5. ep: one Mixtral-8x7B-shaped MoE layer with its 8 experts spread over the
   ranks: dispatch all-to-all, the local experts' GEMMs, combine all-to-all,
   at several token counts per rank (uniform routing, equal splits).

Random bf16 data (never zeros); results checked finite, all-reduce checked
against the expected sum. NVLink multicast stays off: the script refuses to
run unless NCCL_NVLS_ENABLE=0 (this workplace's rule for these machines).
"""

import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import graph_of as common_graph_of  # noqa: E402

T0 = time.time()
ARGS = None
RANK = 0
WORLD = 1


def log(msg):
    if RANK == 0:
        print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def left():
    return ARGS.budget - (time.time() - T0)


def out_of_time(need=0.0):
    """Rank 0 decides, every rank agrees, so collectives stay matched."""
    flag = torch.tensor([1 if left() < need else 0], device="cuda")
    dist.broadcast(flag, 0)
    return bool(flag.item())


def env_info():
    info = dict(world_size=WORLD, torch=torch.__version__, cuda=torch.version.cuda,
                nccl=".".join(map(str, torch.cuda.nccl.version())),
                date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                nccl_nvls_enable=os.environ.get("NCCL_NVLS_ENABLE"))
    names = [None] * WORLD
    dist.all_gather_object(names, torch.cuda.get_device_name())
    info["gpus"] = names
    if RANK == 0:
        for key, cmd in (("topology", ["nvidia-smi", "topo", "-m"]),
                         ("driver", ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", "0"]),
                         ("nvlink_status", ["nvidia-smi", "nvlink", "-s", "-i", "0"])):
            try:
                info[key] = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
            except (OSError, subprocess.SubprocessError) as e:
                info[key] = f"failed: {e!r}"
    return info


def save(section, res):
    if RANK == 0:
        path = os.path.join(ARGS.out, f"multi-gpu-{section}-w{WORLD}.json")
        with open(path, "w") as f:
            json.dump(res, f)
        log(f"wrote {path}")


def ev_time(fn, reps, barrier=True):
    out = []
    for _ in range(reps):
        if barrier:
            dist.barrier()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) * 1e-3)
    # every rank's median; report the slowest rank's (the collective's time)
    t = torch.tensor([statistics.median(out)], device="cuda", dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def graph_of(body):
    """validation/common.py's capture, replayed once so NCCL's graph
    resources are set up before the timed replays."""
    g = common_graph_of(body)
    g.replay()
    torch.cuda.synchronize()
    return g


def bf(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


# ---------------------------------------------------------------- sections


def links(res):
    if WORLD < 2:
        res["skipped"] = "needs 2 GPUs"
        return
    n = 256 << 20
    buf = bf(n // 2)
    res["bytes"] = n
    res["pairs"] = []
    for j in range(1, WORLD):
        if out_of_time(5):
            res["stopped_by_budget"] = True
            return

        def one():
            if RANK == 0:
                dist.send(buf, j)
            elif RANK == j:
                dist.recv(buf, 0)

        for _ in range(3):
            one()
        t = ev_time(one, 10)
        res["pairs"].append(dict(src=0, dst=j, seconds=t, bytes_per_s=n / t))
        log(f"link 0->{j}: {n / t / 1e9:.0f} GB/s")


def collective_call(kind, n_bytes):
    """A closure running one collective of a full buffer of n_bytes per rank."""
    elems = max(WORLD, n_bytes // 2)
    elems -= elems % WORLD
    x = bf(elems)
    if kind == "all_reduce":
        return (lambda: dist.all_reduce(x)), x
    if kind == "all_gather":
        part = bf(elems // WORLD)
        return (lambda: dist.all_gather_into_tensor(x, part)), part
    if kind == "reduce_scatter":
        part = bf(elems // WORLD)
        return (lambda: dist.reduce_scatter_tensor(part, x)), x
    if kind == "all_to_all":
        y = torch.empty_like(x)
        return (lambda: dist.all_to_all_single(y, x)), x
    if kind == "send_recv":
        y = torch.empty_like(x)
        nxt, prv = (RANK + 1) % WORLD, (RANK - 1) % WORLD

        def ring():
            ops = [dist.P2POp(dist.isend, x, nxt), dist.P2POp(dist.irecv, y, prv)]
            for r in dist.batch_isend_irecv(ops):
                r.wait()

        return ring, x
    raise ValueError(kind)


def collectives(res):
    sizes = [1 << s for s in range(10, 31, 2)]  # 1 KiB ... 1 GiB
    res["sizes"] = sizes
    res["rows"] = []
    res["note"] = ("bytes = the full buffer of one rank (all-gather: the gathered output; "
                   "reduce-scatter: the input); seconds = the slowest rank's median")
    # correctness: an all-reduce of rank-valued data
    x = torch.full((1024,), float(RANK + 1), device="cuda")
    dist.all_reduce(x)
    res["all_reduce_check"] = bool(torch.allclose(x, torch.full_like(x, WORLD * (WORLD + 1) / 2)))
    kinds = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all"] + (["send_recv"] if WORLD >= 2 else [])
    if WORLD < 2:
        res["send_recv_skipped"] = "needs 2 GPUs"
    for mode in ("eager", "graph"):
        for kind in kinds:
            for n in sizes:
                if out_of_time(10):
                    res["stopped_by_budget"] = True
                    return
                fn = buf = None
                try:
                    fn, buf = collective_call(kind, n)
                    if mode == "eager":
                        for _ in range(3):
                            fn()
                        t = ev_time(fn, 20 if n < (64 << 20) else 5)
                        calls = 1
                    else:
                        calls = 10 if n < (64 << 20) else 2
                        g = graph_of(lambda: [fn() for _ in range(calls)])
                        t = ev_time(g.replay, 10 if n < (64 << 20) else 3) / calls
                        del g
                    ok = bool(torch.isfinite(buf.float()).all()) if n < (64 << 20) else None
                    res["rows"].append(dict(kind=kind, mode=mode, bytes=n, seconds=t, finite=ok))
                    if n in (1 << 10, 1 << 20, 1 << 30):
                        log(f"{kind} {mode} {n} B: {t * 1e6:.1f} us")
                except Exception as e:  # noqa: BLE001
                    res["rows"].append(dict(kind=kind, mode=mode, bytes=n, error=repr(e)))
                    log(f"{kind} {mode} {n} FAILED {e!r}")
                del fn, buf
                torch.cuda.empty_cache()


SHAPES = {
    "llama-3-8b": dict(L=32, d=4096, h=32, kv=8, dh=128, ff=14336, V=128256),
    "llama-3.1-70b": dict(L=80, d=8192, h=64, kv=8, dh=128, ff=28672, V=128256),
}


class TPModel:
    """Megatron split over the ranks of `group` (size T): heads, KV heads,
    ffn columns and LM-head rows / T; two all-reduces a layer."""

    def __init__(self, m, layers, group, T):
        self.m, self.group, self.T = m, group, T
        d, dh = m["d"], m["dh"]
        self.h, self.kv, self.f = m["h"] // T, max(1, m["kv"] // T), m["ff"] // T
        s = 0.02
        self.emb = bf(m["V"], d) * s
        self.head = bf(m["V"] // T, d) * s
        self.freqs = torch.polar(torch.ones(dh // 2, device="cuda"), torch.rand(dh // 2, device="cuda"))
        self.layers = [dict(qkv=bf((self.h + 2 * self.kv) * dh, d) * s, o=bf(d, self.h * dh) * s,
                            gu=bf(2 * self.f, d) * s, down=bf(d, self.f) * s) for _ in range(layers)]

    @staticmethod
    def weight_bytes(m, layers, T):
        d, dh = m["d"], m["dh"]
        h, kv, f = m["h"] // T, max(1, m["kv"] // T), m["ff"] // T
        per = d * (h + 2 * kv) * dh + d * h * dh + 3 * d * f
        return 2 * (layers * per + m["V"] * d + m["V"] // T * d)

    def ar(self, x):
        if self.T > 1:
            dist.all_reduce(x, group=self.group)
        return x

    def layer(self, l, x, attend):
        d, dh = self.m["d"], self.m["dh"]
        h, kv = self.h, self.kv
        y = F.rms_norm(x, (d,), None, 1e-5)
        qkv = y @ l["qkv"].t()
        N = x.shape[0]
        c = torch.view_as_complex(qkv[:, : (h + kv) * dh].float().reshape(N, h + kv, dh // 2, 2))
        q, k = torch.view_as_real(c * self.freqs).flatten(-2).to(torch.bfloat16).split([h, kv], 1)
        v = qkv[:, (h + kv) * dh:].reshape(N, kv, dh)
        x = x + self.ar(attend(q, k, v) @ l["o"].t())
        y = F.rms_norm(x, (d,), None, 1e-5)
        g, u = (y @ l["gu"].t()).chunk(2, -1)
        return x + self.ar((F.silu(g) * u) @ l["down"].t())

    def head_max(self, x):
        m = (F.rms_norm(x, (x.shape[-1],), None, 1e-5) @ self.head.t()).max(-1).values.float()
        if self.T > 1:
            dist.all_reduce(m, op=dist.ReduceOp.MAX, group=self.group)
        return m

    def decode(self, tok, kc, vc, pos):
        B, dh, h, kv = tok.shape[0], self.m["dh"], self.h, self.kv
        x = self.emb[tok]
        for i, l in enumerate(self.layers):
            def attend(q, k, v, i=i):
                kc[i].index_copy_(2, pos, k.reshape(B, kv, 1, dh))
                vc[i].index_copy_(2, pos, v.reshape(B, kv, 1, dh))
                o = F.scaled_dot_product_attention(q.reshape(B, h, 1, dh), kc[i], vc[i], enable_gqa=h != kv)
                return o.reshape(B, h * dh)
            x = self.layer(l, x, attend)
        return self.head_max(x)

    def forward_tokens(self, x, B, S):
        """Layers over x [B*S, d] with causal attention (prefill)."""
        dh, h, kv = self.m["dh"], self.h, self.kv
        for l in self.layers:
            def attend(q, k, v):
                z = lambda t, n: t.reshape(B, S, n, dh).transpose(1, 2)
                o = F.scaled_dot_product_attention(z(q, h), z(k, kv), z(v, kv), is_causal=True,
                                                   enable_gqa=h != kv)
                return o.transpose(1, 2).reshape(B * S, h * dh)
            x = self.layer(l, x, attend)
        return x

    def prefill(self, tok):
        B, S = tok.shape
        x = self.forward_tokens(self.emb[tok].reshape(B * S, -1), B, S)
        return self.head_max(x.view(B, S, -1)[:, -1])


def fits(m, layers, T, extra=0):
    need = TPModel.weight_bytes(m, layers, T) + extra
    free = torch.tensor([torch.cuda.mem_get_info()[0]], device="cuda", dtype=torch.float64)
    dist.all_reduce(free, op=dist.ReduceOp.MIN)
    return need < 0.85 * free.item(), need


def tp(res):
    res["rows"] = []
    res["skipped"] = []
    T = WORLD
    for name, m in SHAPES.items():
        ok, need = fits(m, m["L"], T, extra=20e9)
        if not ok:
            res["skipped"].append(dict(model=name, tp=T, reason=f"weights {need / 1e9:.0f} GB do not fit one rank"))
            log(f"tp {name}: skipped ({need / 1e9:.0f} GB a rank)")
            continue
        if out_of_time(30):
            res["stopped_by_budget"] = True
            return
        M = TPModel(m, m["L"], None, T)
        for B, C in ((1, 1024), (8, 1024), (32, 1024), (32, 4096), (64, 2048), (128, 1024), (8, 8192)):
            if out_of_time(10):
                res["stopped_by_budget"] = True
                return
            kc = [bf(B, M.kv, C, m["dh"]) for _ in range(m["L"])]
            vc = [bf(B, M.kv, C, m["dh"]) for _ in range(m["L"])]
            tok = torch.randint(0, m["V"], (B,), device="cuda")
            pos = torch.tensor([C - 1], device="cuda")
            okf = bool(torch.isfinite(M.decode(tok, kc, vc, pos)).all())
            g = graph_of(lambda: M.decode(tok, kc, vc, pos))
            t = ev_time(g.replay, 20)
            res["rows"].append(dict(kind="decode", model=name, tp=T, batch=B, context=C, graph_s=t, finite=okf))
            log(f"tp{T} {name} decode B={B} C={C}: {t * 1e3:.2f} ms")
            del g, kc, vc
            torch.cuda.empty_cache()
        for B, S in ((1, 2048), (4, 2048), (1, 8192)):
            if out_of_time(15):
                res["stopped_by_budget"] = True
                return
            tok = torch.randint(0, m["V"], (B, S), device="cuda")
            okf = bool(torch.isfinite(M.prefill(tok)).all())
            M.prefill(tok)
            t = ev_time(lambda: M.prefill(tok), 5)
            res["rows"].append(dict(kind="prefill", model=name, tp=T, batch=B, prompt=S, time_s=t, finite=okf))
            log(f"tp{T} {name} prefill B={B} S={S}: {t * 1e3:.1f} ms")
            torch.cuda.empty_cache()
        del M
        torch.cuda.empty_cache()


def pipeline(res):
    if WORLD < 2 or WORLD % 2:
        res["skipped"] = "needs an even number of GPUs, at least 2"
        return
    half = WORLD // 2
    stage = RANK // half
    groups = [dist.new_group(list(range(s * half, (s + 1) * half))) for s in (0, 1)]
    m = SHAPES["llama-3-8b"]
    M = TPModel(m, m["L"] // 2, groups[stage], half)
    res.update(model="llama-3-8b", stages=2, tp_per_stage=half, layers_per_stage=m["L"] // 2, rows=[])
    peer = RANK + half if stage == 0 else RANK - half
    for micro, B, S in ((4, 1, 2048), (8, 1, 2048), (8, 4, 512)):
        if out_of_time(15):
            res["stopped_by_budget"] = True
            return
        xs = [bf(B * S, m["d"]) for _ in range(micro)]
        buf = torch.empty_like(xs[0])

        def run_stage_only():
            for x in xs:
                M.forward_tokens(x, B, S)

        def handoff():
            for x in xs:
                if stage == 0:
                    dist.send(x, peer)
                else:
                    dist.recv(buf, peer)

        def whole():
            for x in xs:
                if stage == 0:
                    dist.send(M.forward_tokens(x, B, S).contiguous(), peer)
                else:
                    dist.recv(buf, peer)
                    M.forward_tokens(buf, B, S)

        for fn in (run_stage_only, handoff, whole):
            fn()
        t_stage = ev_time(run_stage_only, 3)
        t_hand = ev_time(handoff, 3)
        t_all = ev_time(whole, 3)
        res["rows"].append(dict(microbatches=micro, batch=B, prompt=S, whole_s=t_all, stage_s=t_stage,
                                handoff_s=t_hand, bubble_s=t_all - t_stage))
        log(f"pipeline {micro}x(B={B},S={S}): whole {t_all * 1e3:.1f} ms, stage {t_stage * 1e3:.1f} ms, "
            f"handoff {t_hand * 1e3:.2f} ms")
    del M


def ep(res):
    d, ff, E, k = 4096, 14336, 8, 2
    local = max(1, E // WORLD)
    res.update(model="mixtral-8x7b layer", experts=E, topk=k, experts_per_rank=local, rows=[],
               note="uniform routing with equal splits: each rank sends tokens x topk / world rows to every rank")
    w13 = [bf(2 * ff, d) * 0.02 for _ in range(local)]
    w2 = [bf(d, ff) * 0.02 for _ in range(local)]
    for tokens in (1, 8, 32, 128, 512, 2048, 8192):
        if out_of_time(10):
            res["stopped_by_budget"] = True
            return
        rows = max(WORLD, tokens * k)
        rows -= rows % WORLD
        x = bf(rows, d)
        y = torch.empty_like(x)
        per_expert = max(1, rows // local)

        def dispatch():
            dist.all_to_all_single(y, x)

        def experts():
            outs = []
            for e in range(local):
                xe = y[e * per_expert:(e + 1) * per_expert]
                g, u = (xe @ w13[e].t()).chunk(2, -1)
                outs.append((F.silu(g) * u) @ w2[e].t())
            return outs

        def combine():
            dist.all_to_all_single(x, y)

        def layer():
            dispatch()
            experts()
            combine()

        for fn in (dispatch, experts, combine, layer):
            fn()
        row = dict(tokens_per_rank=tokens, rows_sent=rows, bytes_per_rank=rows * d * 2)
        for name, fn in (("dispatch", dispatch), ("experts", experts), ("combine", combine), ("layer", layer)):
            row[f"{name}_s"] = ev_time(fn, 10)
        g = graph_of(layer)
        row["layer_graph_s"] = ev_time(g.replay, 10)
        del g
        row["finite"] = bool(torch.isfinite(y).all())
        res["rows"].append(row)
        log(f"ep {tokens} tokens/rank: dispatch {row['dispatch_s'] * 1e6:.0f} us, experts "
            f"{row['experts_s'] * 1e6:.0f} us, combine {row['combine_s'] * 1e6:.0f} us")


def main():
    global ARGS, RANK, WORLD
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--budget", type=float, default=480.0, help="seconds for everything")
    ap.add_argument("--only", default="", help="comma list: links,collectives,tp,pipeline,ep")
    ARGS = ap.parse_args()
    if os.environ.get("NCCL_NVLS_ENABLE") != "0":
        sys.exit("multi_gpu.py: set NCCL_NVLS_ENABLE=0 (NVLink multicast must stay off)")
    os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
    os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    if "RANK" not in os.environ:  # plain python: a world of one
        os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="29533")
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    RANK, WORLD = dist.get_rank(), dist.get_world_size()
    os.makedirs(ARGS.out, exist_ok=True)
    torch.manual_seed(RANK)
    info = env_info()
    log(f"world size {WORLD}: {info['gpus']}")
    only = set(filter(None, ARGS.only.split(",")))
    for name, fn in (("links", links), ("collectives", collectives), ("tp", tp),
                     ("pipeline", pipeline), ("ep", ep)):
        if only and name not in only:
            continue
        if out_of_time(5):
            log(f"budget spent before {name}")
            break
        res = dict(info, section=name)
        t = time.time()
        try:
            fn(res)
        except Exception:  # noqa: BLE001
            res["error"] = traceback.format_exc()[-1500:]
            log(f"{name} FAILED\n{res['error']}")
        res["wall_s"] = time.time() - t
        save(name, res)
        torch.cuda.empty_cache()
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

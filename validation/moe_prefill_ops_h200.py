"""A Mixtral-8x7B prefill's kernels one by one (issue 17: Mixtral prefill
is the prefill family's worst row, the model 15-17% fast): one eager prefill
of validation/serving_fidelity.py's Model (bf16, all 32 layers, uniform
routing drawn as serving_fidelity.py draws it) under torch.profiler after 3
s of rest, every kernel summed by name, and the second layer's kernels in
launch order; the same prefill timed eagerly and replayed from a CUDA
graph (CUDA events, median of 3); then decode steps at batch 1 and 32 over
1,024 tokens, replayed from a graph under the profiler (the same kernels
at a few rows an expert). The profiling helper is
validation/prefill_ops_h200.py's.

    python3 validation/moe_prefill_ops_h200.py OUTDIR     # about 2 minutes

Writes OUTDIR/moe-prefill-ops.json.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common as ph  # noqa: E402
import prefill_ops_h200 as po  # noqa: E402
import serving_fidelity as sf  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "moe-prefill-ops-out"


def main():
    os.makedirs(OUT, exist_ok=True)
    proc = ph.sampler()
    sf.probe_pad()
    torch.manual_seed(0)
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__, prefill=[])
    M = sf.Model("mixtral-8x7b", "bf16")
    for B, S in ((1, 2048), (1, 512)):
        tok = torch.randint(0, M.m["V"], (B, S), device="cuda")
        M.set_route(B * S, seed=B + S)
        f = lambda: M.prefill(tok)  # noqa: E731
        f()
        f()
        torch.cuda.synchronize()
        eager = sf.ev_time(f, 3)
        g = sf.graph_of(f)
        for _ in range(2):
            g.replay()
        graph = sf.ev_time(g.replay, 3)
        del g
        torch.cuda.synchronize()
        time.sleep(3.0)
        r = po.kernels_of(f, M.m["L"])
        res["prefill"].append(dict(model="mixtral-8x7b", dtype="bf16", batch=B, prompt=S,
                                   eager_s=eager[0], graph_s=graph[0],
                                   experts_touched_mean=M.touched, **r))
        print(f"prefill B={B} S={S}: eager {eager[0] * 1e3:.2f} ms, graph {graph[0] * 1e3:.2f} ms, "
              f"{r['kernels']} kernels, {r['device_s'] * 1e3:.2f} ms on the GPU at "
              f"{r['sm_clock_mean_mhz']} MHz", flush=True)
        for n, c, s in r["by_name"][:30]:
            print(f"  {c:5d} {s * 1e3:8.3f} ms  {n[:110]}", flush=True)
        torch.cuda.empty_cache()
    # Decode steps at context 1,024: the same kernels at a few rows an expert.
    res["decode"] = []
    T = 1024
    for B in (1, 32):
        kc, vc = sf.caches(M, B, T)
        tok = torch.randint(0, M.m["V"], (B,), device="cuda")
        pos = torch.tensor([T - 1], device="cuda")
        M.set_route(B, seed=B * 7 + T)
        f = lambda: M.decode_step(tok, kc, vc, pos)  # noqa: E731
        f()
        f()
        torch.cuda.synchronize()
        g = sf.graph_of(f)
        for _ in range(2):
            g.replay()
        graph = sf.ev_time(g.replay, 10)
        r = po.kernels_of(g.replay, M.m["L"])
        res["decode"].append(dict(model="mixtral-8x7b", dtype="bf16", batch=B, context=T,
                                  graph_s=graph[0], experts_touched_mean=M.touched, **r))
        print(f"decode B={B}: graph {graph[0] * 1e3:.2f} ms, {r['kernels']} kernels, "
              f"{r['device_s'] * 1e3:.2f} ms on the GPU", flush=True)
        for n, c, s in r["by_name"][:24]:
            print(f"  {c:5d} {s * 1e3:8.3f} ms  {n[:110]}", flush=True)
        del g, kc, vc
        torch.cuda.empty_cache()
    proc.terminate()
    with open(os.path.join(OUT, "moe-prefill-ops.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

"""Why an eager Llama-3.2-1B decode step takes longer per layer than a
Llama-3-8B one (validation/results/2026-12-03-h200/h200-small-models.json:
7.4 ms for 16 layers against about 9.7 ms for 32). One process, the same
forward (serving_fidelity.py) and step timing as host_probe.py (CUDA events
around the call, the host's wall clock of the issue and the thread's CPU
time), three rounds of: Llama-3-8B B = 1, Llama-3.2-1B B = 1 and 64,
Llama-3.2-3B B = 1, all at context 1,024; then, after all timing, one eager
step of the 8B and the 1B under torch.profiler with CPU activity: each aten
op's calls and self CPU time, to name the calls whose host path differs.

    python3 validation/probes/small_host_h200.py OUT.json
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import host_probe as hp  # noqa: E402
import serving_fidelity as sf  # noqa: E402
import torch  # noqa: E402

sf.MODELS["llama-3.2-1b"] = dict(L=16, d=2048, h=32, kv=8, dh=64, ff=8192, V=128256)
sf.MODELS["llama-3.2-3b"] = dict(L=28, d=3072, h=24, kv=8, dh=128, ff=8192, V=128256)
RUNS = [("llama-3-8b", 1), ("llama-3.2-1b", 1), ("llama-3.2-1b", 64), ("llama-3.2-3b", 1)]


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    sf.probe_pad()
    res = dict(method=__doc__, environment=hp.environment(), steps=[], ops=[])
    models = {}
    for name in dict.fromkeys(n for n, _ in RUNS):
        models[name] = sf.Model(name, "bf16")
    for rnd in range(3):
        for name, B in RUNS:
            f, keep = hp.make_decode(models[name], B, 1024)
            row = dict(round=rnd, model=name, batch=B, context=1024, **hp.time_step(f))
            g = sf.graph_of(f)
            for _ in range(3):
                g.replay()
            row["graph_s"] = sf.ev_time(g.replay, 20)[0]
            del g, keep
            row.pop("series_s")
            res["steps"].append(row)
            hp.log(json.dumps(row))
            torch.cuda.empty_cache()
    from torch.profiler import ProfilerActivity, profile

    for name in ("llama-3-8b", "llama-3.2-1b"):
        f, keep = hp.make_decode(models[name], 1, 1024)
        f()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            f()
            torch.cuda.synchronize()
        ops = [dict(op=e.key, calls=e.count, self_cpu_us=e.self_cpu_time_total,
                    cpu_us=e.cpu_time_total) for e in prof.key_averages()]
        ops.sort(key=lambda o: -o["self_cpu_us"])
        res["ops"].append(dict(model=name, batch=1, ops=ops[:40]))
        hp.log(f"{name}: " + ", ".join(f"{o['op']} x{o['calls']} {o['self_cpu_us']:.0f}us" for o in ops[:12]))
        del keep
    with open(out, "w") as fh:
        json.dump(res, fh, indent=1)
    hp.log(f"wrote {out}")


if __name__ == "__main__":
    main()

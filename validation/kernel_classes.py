"""A decode step's kernels by class: their fixed time and the spacing between them (issue 17).

    python3 validation/kernel_classes.py            # prints the tables; no GPU needed
    python3 validation/kernel_classes.py --csv validation/results/2026-12-01-h200/calibrate-h200-kernels.csv
    python3 validation/kernel_classes.py --graph validation/results/2026-12-01-h200/h200-graph-kernels.json

Reads the profiler's kernels of four Llama-3-8B decode steps at T = 1,024
(bf16 and fp8, batch 1 and 32: `steps_profile` of
validation/results/2026-12-01-h200/h200-fidelity-probe.json, torch.profiler over one eager step,
each kernel name with its count and summed device time) and the same steps
replayed from a CUDA graph (`graph_s` there, 10 replays). For each kernel
class the per-operation model prices apart:

- its duration a kernel (device time / count) less its work (the bytes it
  moves at the measured stream bandwidth, `achievable.hbm-bandwidth`): the
  class's fixed time, which `[achievable.kernel-fixed]` carries;
- the spacing between kernels in the graph: (graph time - the summed
  durations) / the kernels and copies of the step, against the replay of
  an empty kernel (`achievable.launch.graph`, 0.94 us).

The figure of each class is the median over every kernel of the class in
the four steps (each name entry counted as many times as it ran), rounded
down to 0.1 us. Durations come from an eager step (the kernels are the
same the graph launches; eager they start on an idle GPU).

`--csv FILE` writes the same kernels as `validation/calibrate.py` rows
(`kernel_norm`, `kernel_pointwise`, ... : a kernel name's mean duration in
`seconds`, how many ran in `kernels`, the bytes one moves in `bytes`), the
rows `roofline calibrate` fits `[achievable.kernel-fixed]` from.

`--graph FILE` reads a later run of validation/graph_kernels.py instead
(every kernel of decode steps replayed from a CUDA graph, under the
profiler, on another lease): per step, the graph time against the summed
durations and the first-to-last span, and for Llama-3-8B the same class
medians, a check of the shipped figures on kernels they were not taken
from.
"""

import csv
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from validation import manifest  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BW = 4202.7e9  # achievable.hbm-bandwidth of hardware/h200-sxm.toml
LAUNCH_GRAPH = 0.94e-6
D, H, KV, DH, FF, T = 4096, 32, 8, 128, 14336, 1024

# (name fragment, class, bytes a kernel moves at t tokens); first match wins.
KINDS = [
    ("vectorized_layer_norm_kernel", "norm", lambda t: 4 * t * D),
    ("index_copy_kernel_impl", "kv-write", lambda t: 4 * t * KV * DH),
    ("splitKreduce", "gemm-reduce", None),
    ("nvjet", "gemm", None),
    ("sdpa", "attention", lambda t: 4 * t * T * KV * DH + 4 * t * H * DH),
    ("lean_reduction", "combine", lambda t: 4 * t * H * DH),  # reads partials, writes out
    ("Memcpy DtoD", "copy", lambda t: 4 * t * D),
    ("Memset", "memset", None),
    ("direct_copy_kernel_cuda", "pointwise", lambda t: 6 * t * (H + KV) * DH),  # rotary: widen
    ("gpu_kernel_impl<at::native::direct", "pointwise", lambda t: 6 * t * (H + KV) * DH),  # widen
    ("elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast", "pointwise",
     lambda t: 8 * t * (H + KV) * DH),  # rotary: the complex multiply
    ("bfloat16_copy_kernel_cuda", "pointwise", lambda t: 6 * t * (H + KV) * DH),  # rotary: narrow
    ("silu_", "pointwise", lambda t: 4 * t * FF),
    ("BinaryFunctor<c10::BFloat16", "pointwise", lambda t: 6 * t * FF),  # SiLU times up
    ("elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast", "pointwise",
     lambda t: 5 * t * FF),  # SiLU and times up on strided halves (batch 32): 4 and 6 bytes
    ("float8_copy_kernel_cuda", "pointwise", lambda t: 3 * t * (2 * D + H * DH + FF) / 4),  # casts
    ("CUDAFunctor_add", "pointwise", lambda t: 6 * t * D),  # fp8's residual adds
    ("gpu_index_kernel", "pointwise", lambda t: 4 * t * D),  # the embedding gather
    ("vectorized_gather_kernel", "pointwise", lambda t: 4 * t * D),
]
FIGURES = ["norm", "pointwise", "kv-write", "attention", "combine", "copy"]


def kind(name):
    for frag, cls, work in KINDS:
        if frag in name:
            return cls, work
    return "other", None


COLUMNS = ["operation", "model", "layers", "batch", "m", "n", "k", "seq", "context",
           "heads", "kv_heads", "head_dim", "bytes", "flops", "dtype", "launch",
           "repeats", "seconds", "sm_clock_mhz", "mem_clock_mhz", "power_w",
           "temperature_c", "kernels", "device", "driver", "torch", "date", "note"]


def main():
    d = json.load(open(manifest.path("h200-fidelity-probe.json")))
    out = sys.argv[sys.argv.index("--csv") + 1] if "--csv" in sys.argv else None
    fixed = {c: [] for c in FIGURES}
    print("| step | graph | summed durations | kernels and copies | spacing a kernel | "
          "durations + 0.94 us a kernel |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = []
    for key, v in d["steps_profile"].items():
        t = int(key.split("B=")[1].split()[0])
        events = sum(c for _, (c, _) in v["kernels_by_time"])
        total = sum(us for _, (_, us) in v["kernels_by_time"]) * 1e-6
        gap = (v["graph_s"] - total) / events
        print(f"| {key} | {v['graph_s'] * 1e3:.3f} ms | {total * 1e3:.3f} ms | {events} | "
              f"{gap * 1e6:.2f} us | {(total + LAUNCH_GRAPH * events) / v['graph_s'] - 1:+.1%} |")
        for name, (count, us) in v["kernels_by_time"]:
            cls, work = kind(name)
            per = us * 1e-6 / count
            w = work(t) / BW if work else 0.0
            rows.append((key, cls, name, count, per, w, work(t) if work else 0.0))
            if cls in fixed:
                fixed[cls] += [per - w] * count
    print("\n| step | class | kernel | count | duration | work | fixed |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key, cls, name, count, per, w, _ in rows:
        print(f"| {key} | {cls} | `{name[:60]}` | {count} | {per * 1e6:.2f} us | "
              f"{w * 1e6:.2f} us | {(per - w) * 1e6:.2f} us |")
    print("\n| class | kernels | median fixed | range | figure (rounded down) |")
    print("| --- | --- | --- | --- | --- |")
    path, out = out, {}
    for c in FIGURES:
        v = fixed[c]
        med = statistics.median(v)
        fig = int(med * 1e7) / 10
        out[c] = fig
        print(f"| {c} | {len(v)} | {med * 1e6:.2f} us | {min(v) * 1e6:.2f} to {max(v) * 1e6:.2f} us | "
              f"{fig} us |")
    print("\n" + json.dumps(out))
    if path:
        with open(path, "w", newline="") as f:
            wr = csv.DictWriter(f, COLUMNS)
            wr.writeheader()
            for key, cls, name, count, per, w, nbytes in rows:
                if cls not in FIGURES:
                    continue
                batch = int(key.split("B=")[1].split()[0])
                wr.writerow(dict(
                    operation="kernel_" + cls.replace("-", "_"), model="llama-3-8b", layers=32,
                    batch=batch, context=T, heads=H, kv_heads=KV, head_dim=DH,
                    bytes=f"{max(nbytes, 1.0):.6e}", dtype=key.split()[1], launch="eager",
                    seconds=f"{per:.6e}", kernels=count, device=d["device"],
                    driver="", torch=d["torch"], date="2026-12-01",
                    note=f"{key}: {name[:80]} (torch.profiler device time over {count} kernels, "
                         "h200-fidelity-probe.json steps_profile)"))
        print(f"wrote {path}")


def graph(path):
    d = json.load(open(path))
    names = d["kernel_names"]
    print("| step | kernels | graph | summed durations | span | (graph - durations) a kernel | "
          "gaps in the span a kernel |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    fixed = {c: [] for c in FIGURES}
    for s in d["steps"]:
        if "replays" not in s:
            continue
        r = s["replays"][0]
        n = s["kernels_per_replay"]
        dur = statistics.median(sum(x["dur_ns"]) for x in s["replays"]) * 1e-9
        span = statistics.median(x["span_ns"] for x in s["replays"]) * 1e-9
        print(f"| {s['model']} {s['dtype']} B={s['batch']} | {n} | {s['graph_s'] * 1e3:.3f} ms | "
              f"{dur * 1e3:.3f} ms | {span * 1e3:.3f} ms | {(s['graph_s'] - dur) / n * 1e6:.2f} us | "
              f"{(span - dur) / n * 1e6:.2f} us |")
        if s["model"] != "llama-3-8b":
            continue
        for k, ns in zip(r["kernel"], r["dur_ns"]):
            cls, work = kind(names[k])
            if cls in fixed:
                fixed[cls].append(ns * 1e-9 - (work(s["batch"]) / BW if work else 0.0))
    print("\n| class (Llama-3-8B, graph replays) | kernels | median fixed | range |")
    print("| --- | --- | --- | --- |")
    for c in FIGURES:
        v = fixed[c]
        if v:
            print(f"| {c} | {len(v)} | {statistics.median(v) * 1e6:.2f} us | "
                  f"{min(v) * 1e6:.2f} to {max(v) * 1e6:.2f} us |")


if __name__ == "__main__":
    if "--graph" in sys.argv:
        graph(sys.argv[sys.argv.index("--graph") + 1])
    else:
        main()

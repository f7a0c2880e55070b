#!/usr/bin/env python3
"""Put the tool's predictions beside the H200 measurements in validation/*.json.

Runs on any machine (no GPU): it calls the built CLI (`cargo build` first; or
set ROOFLINE=path) for every prediction and prints the markdown tables that
docs/validation.md quotes.

    python3 validation/compare.py
"""

import csv
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from validation import manifest  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.environ.get("ROOFLINE", os.path.join(ROOT, "target", "debug", "roofline"))


def tool(*args):
    out = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True,
                         check=True).stdout
    d = json.loads(out)
    return (d[0] if isinstance(d, list) else d)["results"]


def load(name):
    with open(manifest.path(f"h200-{name}.json")) as f:
        return json.load(f)


def ncu_kernels():
    """(id, kernel name, {metric: value}) in launch order, from h200-ncu.csv."""
    path = manifest.path("h200-ncu.csv")
    if not os.path.exists(path):
        return []
    txt = open(path).read()
    rows = csv.DictReader(io.StringIO(txt[txt.index('"ID"'):]))
    ks = {}
    for r in rows:
        k = ks.setdefault(int(r["ID"]), (r["Kernel Name"], {}))
        k[1][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [(i, *ks[i]) for i in sorted(ks)]


def strided():
    d = load("strided")
    stream = d["stream_read"]["GBps"]
    print(f"### strided reads (stream read {stream:.1f} GB/s, copy {d['copy']['GBps']:.1f} GB/s)\n")
    print("| stride | one load/thread GB/s | 8 loads/thread GB/s | measured efficiency "
          "(8 loads / stream) | sector 32 B | ratio | dram 64 B | ratio | segment 128 B | ratio "
          "| `--achievable` dram prediction GB/s | measured / that |")
    print("| --- " * 12 + "|")
    by = {}
    for r in d["rows"]:
        by.setdefault(r["stride_elems"], {})[r["kernel"]] = r
    for s, ks in sorted(by.items()):
        one = ks["one_load_per_thread"]["useful_GBps"]
        u8 = next(v for k, v in ks.items() if k.startswith("u8"))["useful_GBps"]
        eff = u8 / stream
        preds = {g: tool("coalesce", "--hw", "h200-sxm", "--dtype", "fp32", "--stride", str(s),
                         "--granularity", g)["stream_efficiency"]
                 for g in ("sector", "dram", "segment")}
        ach = tool("coalesce", "--hw", "h200-sxm", "--dtype", "fp32", "--stride", str(s),
                   "--granularity", "dram", "--achievable")[
            "stream_effective_bandwidth_bytes_per_s"] / 1e9
        print(f"| {s} | {one:.1f} | {u8:.1f} | {eff:.4f} | "
              + " | ".join(f"{preds[g]:.4f} | {eff / preds[g]:.2f}" for g in preds)
              + f" | {ach:.1f} | {u8 / ach:.2f} |")
    ks = [k for k in ncu_kernels() if k[1] == "read_u8"]
    if ks:
        print("\nNsight Compute, read_u8 over a 1 GiB buffer, one cold run each:\n")
        print("| stride | useful bytes | DRAM bytes read | DRAM bytes / useful byte | "
              "L2 sectors read x 32 B / useful | kernel time (us) | DRAM GB/s |")
        print("| --- " * 7 + "|")
        for s, (_, _, m) in zip([1, 2, 4, 8, 16, 32, 64, 128], ks):
            useful = (1 << 30) // s
            rd = m["dram__bytes_read.sum"]
            t = m["gpu__time_duration.sum"] * 1e-9
            l2 = m.get("lts__t_sectors_srcunit_tex_op_read.sum", float("nan")) * 32
            print(f"| {s} | {useful:,} | {rd:,.0f} | {rd / useful:.2f} | {l2 / useful:.2f} | "
                  f"{t * 1e6:.1f} | {rd / t / 1e9:.0f} |")


def littles():
    d = load("littles")
    print("\n### bytes in flight (stride 1)\n")
    print("| blocks/SM | warps/SM | loads/thread | bytes in flight | measured GB/s | "
          "predicted, 479 cycles, 4.8 TB/s | ratio | predicted, 348.9 ns, 4.2027 TB/s | ratio |")
    print("| --- " * 9 + "|")
    for r in d["rows"]:
        w = r["warps_per_sm"]
        txn = r["loads_per_thread"] * 128
        sol = tool("littles-law", "--hw", "h200-sxm", "--warps", str(w), "--transaction",
                   f"{txn} B")["one_load_per_warp_bandwidth_bytes_per_s"] / 1e9
        ach = tool("littles-law", "--hw", "h200-sxm", "--warps", str(w), "--transaction",
                   f"{txn} B", "--latency", "348.9ns", "--achievable")[
            "one_load_per_warp_bandwidth_bytes_per_s"] / 1e9
        print(f"| {r['blocks_per_sm']} | {w} | {r['loads_per_thread']} | "
              f"{r['bytes_in_flight_requested'] / 1e6:.3f} MB | {r['GBps']:.1f} | {sol:.1f} | "
              f"{r['GBps'] / sol:.2f} | {ach:.1f} | {r['GBps'] / ach:.2f} |")
    for a in ([], ["--achievable"], ["--achievable", "--latency", "348.9ns"]):
        t = tool("littles-law", "--hw", "h200-sxm", *a)
        print(f"\n`littles-law --hw h200-sxm {' '.join(a)}`: bytes_in_flight "
              f"{t['bytes_in_flight'] / 1e6:.3f} MB, latency {t['latency_s'] * 1e9:.1f} ns, "
              f"bandwidth {t['bandwidth_bytes_per_s'] / 1e12:.4f} TB/s")


def softmax():
    d = load("softmax")
    print("\n### softmax (bf16)\n")
    print("| size | variant | traversals | measured (graph) us | measured (eager) us | "
          "tool SoL us | ratio | tool achievable us | ratio |")
    print("| --- " * 9 + "|")
    trav = {"torch_softmax": 2, "triton_fused": 2, "triton_3kernel": 5, "eager_5op": 8}
    for e in d["sizes"]:
        R, C = e["rows"], e["cols"]
        args = ["fusion", "softmax", "--rows", str(R), "--cols", str(C), "--dtype", "bf16",
                "--hw", "h200-sxm"]
        sol, ach = tool(*args), tool(*args, "--achievable")
        one = sol["traversal_bytes"]
        for name, v in e["variants"].items():
            n = trav[name]
            if n == 2:
                p_sol, p_ach = sol["fused_time_s"], ach["fused_time_s"]
            elif n == 5:
                p_sol, p_ach = sol["unfused_time_s"], ach["unfused_time_s"]
            else:  # the tool's per-traversal time x 8 traversals
                p_sol = sol["unfused_time_s"] / 5 * 8
                p_ach = ach["unfused_time_s"] / 5 * 8
            g = v["graph_time_s"]
            print(f"| {R}x{C} | {name} | {n} ({n * one / 1e6:.1f} MB) | {g * 1e6:.1f} | "
                  f"{v['eager_time_s'] * 1e6:.1f} | {p_sol * 1e6:.1f} | {g / p_sol:.2f} | "
                  f"{p_ach * 1e6:.1f} | {g / p_ach:.2f} |")
    ks = [k for k in ncu_kernels() if k[0] >= 15 and "silu" not in k[1]
          and "distribution" not in k[1]]
    if ks:
        print("\nNsight Compute, one cold run per kernel (launch order: torch.softmax, amax, "
              "sub, exp, sum, div, row_max_k, exp_sum_k, div_k, fused_k; 4096^2 then 16384^2):\n")
        print("| kernel | DRAM read MB | DRAM write MB | time us | DRAM GB/s (read + write) |")
        print("| --- " * 5 + "|")
        for i, name, m in ks:
            rd, wr = m["dram__bytes_read.sum"], m["dram__bytes_write.sum"]
            t = m["gpu__time_duration.sum"] * 1e-9
            print(f"| {name.split('(')[0][:60]} | {rd / 1e6:.1f} | {wr / 1e6:.1f} | "
                  f"{t * 1e6:.1f} | {(rd + wr) / t / 1e9:.0f} |")


def epilogue():
    d = load("epilogue")
    sol = tool("fusion", "epilogue", "--tokens", "32768", "--width", "11008", "--hw", "h200-sxm")
    ach = tool("fusion", "epilogue", "--tokens", "32768", "--width", "11008", "--hw",
               "h200-sxm", "--achievable")
    ps, pa = sol["roundtrip_time_s"], ach["roundtrip_time_s"]
    print(f"\n### epilogue round trip (tool: {ps * 1e6:.1f} us SoL, {pa * 1e6:.1f} us achievable)\n")
    print("| op | measured us | GB/s (read + write) | / SoL round trip | / achievable round trip |")
    print("| --- " * 5 + "|")
    for name, v in d["ops"].items():
        t = v["time_s"]
        print(f"| {name} | {t * 1e6:.1f} | {v['GBps']:.1f} | {t / ps:.2f} | {t / pa:.2f} |")
    g = d.get("gemm_epilogue", {})
    if "addmm_only" in g:
        a, u, f = (g[k]["time_s"] for k in ("addmm_only", "addmm_then_gelu_tanh",
                                             "addmm_gelu_epilogue"))
        print(f"\nGEMM {g['shape']}: addmm {a * 1e6:.1f} us; + separate GELU {u * 1e6:.1f} us; "
              f"cuBLASLt GELU epilogue {f * 1e6:.1f} us. Fusion saved {(u - f) * 1e6:.1f} us "
              f"(tool: {ps * 1e6:.1f} SoL, {pa * 1e6:.1f} achievable; ratio {(u - f) / pa:.2f}); "
              f"the fused GEMM is {(f - a) * 1e6:.1f} us slower than the bare GEMM.")


if __name__ == "__main__":
    if not os.path.exists(BIN):
        sys.exit(f"build the CLI first (cargo build) or set ROOFLINE; {BIN} not found")
    strided()
    littles()
    softmax()
    epilogue()

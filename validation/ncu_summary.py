"""Sum Nsight Compute's per-kernel DRAM bytes and durations by NVTX range.

    python3 validation/ncu_summary.py validation/results/2026-12-01-h200/h200-serving-ncu.csv > validation/results/2026-12-01-h200/h200-serving-ncu.json

Reads the `ncu --nvtx --csv` log of `serving_fidelity.py probe` and writes, per
range the probe opened (one op, or one 2-layer decode step), its kernels (name,
grid, DRAM bytes read and written, duration) and their totals. Kernels outside
any range (building the inputs) are left out. No GPU needed.
"""

import csv
import json
import sys


def main():
    lines = [l for l in open(sys.argv[1]) if l.startswith('"')]
    rows = list(csv.DictReader(lines))
    rng_col = next(c for c in rows[0] if c.startswith("thread Domain:Push/Pop_Range"))
    kernels = {}
    for r in rows:
        key = (r["ID"], r[rng_col], r["Kernel Name"], r["Grid Size"])
        kernels.setdefault(key, {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    ranges = {}
    for (kid, rng, name, grid), m in sorted(kernels.items(), key=lambda kv: int(kv[0][0])):
        if not rng:
            continue
        # '<pid> "<default domain>:NAME:none:...': keep NAME
        if "<default domain>:" in rng:
            rng = rng.split("<default domain>:", 1)[1].split(":none", 1)[0]
        ranges.setdefault(rng, []).append(dict(
            kernel=name[:120], grid=grid, dram_read_bytes=m.get("dram__bytes_read.sum"),
            dram_write_bytes=m.get("dram__bytes_write.sum"),
            duration_s=m.get("gpu__time_duration.sum", 0) * 1e-9))
    out = []
    for rng, ks in ranges.items():
        out.append(dict(range=rng, kernels=len(ks),
                        dram_read_bytes=sum(k["dram_read_bytes"] or 0 for k in ks),
                        dram_write_bytes=sum(k["dram_write_bytes"] or 0 for k in ks),
                        duration_s=sum(k["duration_s"] for k in ks), detail=ks))
    json.dump(dict(source=sys.argv[1], clock_control="none", cache_control="ncu default (flushed before each kernel)",
                   ranges=out), sys.stdout, indent=1)


if __name__ == "__main__":
    main()

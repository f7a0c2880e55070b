"""Speed of the Python package, measured (not a test):

- `import roofline` in a fresh interpreter (pandas is not imported);
- a 10,000-point decode sweep (2 accelerators x 5,000 batch sizes) into a
  pandas DataFrame, pandas already imported;
- one single-point call.

    python bench/bench.py            # prints the medians
    python bench/bench.py --json     # one JSON object, for the record

Build the package in release first (`pip install ./python` does).
"""

import json
import os
import statistics
import subprocess
import sys
import time


def import_time(runs=15):
    code = (
        "import time; t=time.perf_counter(); import roofline; "
        "d=time.perf_counter()-t; import sys; "
        "assert 'pandas' not in sys.modules; print(d)"
    )
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        times.append(float(out.stdout))
    return statistics.median(times)


def sweep_time(runs=9):
    """Median wall time and median CPU time of the process (the second is
    what a busy shared machine disturbs least)."""
    import pandas  # noqa: F401  (the benchmark counts the sweep, not pandas' import)
    import roofline

    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        df = roofline.sweep(
            "decode", model="llama-3-8b", hw=["h100-sxm", "h200-sxm"],
            batch=range(1, 5001), context=8192,
        )
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        assert len(df) == 10_000, len(df)
    return statistics.median(wall), statistics.median(cpu), df.shape


def call_time(runs=200):
    import roofline

    t, c = time.perf_counter(), time.process_time()
    for _ in range(runs):
        roofline.decode(model="llama-3-8b", hw="h200-sxm", batch=32, context=8192)
    return (time.perf_counter() - t) / runs, (time.process_time() - c) / runs


def main():
    imp = import_time()
    sw, sw_cpu, shape = sweep_time()
    one, one_cpu = call_time()
    result = {
        "import_s": imp,
        "sweep_10000_dataframe_s": sw,
        "sweep_10000_dataframe_cpu_s": sw_cpu,
        "sweep_shape": list(shape),
        "single_decode_call_s": one,
        "single_decode_call_cpu_s": one_cpu,
        "load_average": os.getloadavg()[0],
        "python": sys.version.split()[0],
    }
    if "--json" in sys.argv:
        print(json.dumps(result))
    else:
        print(f"import roofline:                   {imp * 1e3:7.1f} ms (median of 15 fresh interpreters)")
        print(f"10,000-point sweep -> DataFrame:   {sw * 1e3:7.1f} ms wall, {sw_cpu * 1e3:.1f} ms CPU "
              f"(median of 9; {shape[0]} rows x {shape[1]} columns)")
        print(f"one decode call:                   {one * 1e6:7.1f} us wall, {one_cpu * 1e6:.1f} us CPU")
        print(f"load average while measuring:      {result['load_average']:.1f}")


if __name__ == "__main__":
    main()

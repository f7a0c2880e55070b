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
    import pandas  # noqa: F401  (the benchmark counts the sweep, not pandas' import)
    import roofline

    times = []
    for _ in range(runs):
        t = time.perf_counter()
        df = roofline.sweep(
            "decode", model="llama-3-8b", hw=["h100-sxm", "h200-sxm"],
            batch=range(1, 5001), context=8192,
        )
        times.append(time.perf_counter() - t)
        assert len(df) == 10_000, len(df)
    return statistics.median(times), df.shape


def call_time(runs=200):
    import roofline

    t = time.perf_counter()
    for _ in range(runs):
        roofline.decode(model="llama-3-8b", hw="h200-sxm", batch=32, context=8192)
    return (time.perf_counter() - t) / runs


def main():
    imp = import_time()
    sw, shape = sweep_time()
    one = call_time()
    result = {
        "import_s": imp,
        "sweep_10000_dataframe_s": sw,
        "sweep_shape": list(shape),
        "single_decode_call_s": one,
        "python": sys.version.split()[0],
    }
    if "--json" in sys.argv:
        print(json.dumps(result))
    else:
        print(f"import roofline:                   {imp * 1e3:7.1f} ms (median of 15 fresh interpreters)")
        print(f"10,000-point sweep -> DataFrame:   {sw * 1e3:7.1f} ms (median of 9; {shape[0]} rows x {shape[1]} columns)")
        print(f"one decode call:                   {one * 1e6:7.1f} us")


if __name__ == "__main__":
    main()

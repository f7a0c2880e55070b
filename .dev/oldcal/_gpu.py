"""Helpers the power scripts share (validation/calibrate.py's power phase and
validation/power_mix_h200.py): the nvidia-smi sampler, CUDA-graph capture and
the loop that replays a graph for a given time, timing every call.

Nothing here imports torch at load time, so a script that only converts
rows (validation/power_mix_rows.py) can import the column list without a GPU.
"""

import os
import statistics
import subprocess
import threading
import time

# The columns of a calibration measurement file (docs/data-schemas.md,
# "Calibration measurements"), in the order calibrate.py writes them.
COLUMNS = ["operation", "model", "layers", "batch", "m", "n", "k", "seq", "context",
           "heads", "kv_heads", "head_dim", "bytes", "flops", "dtype", "launch",
           "repeats", "seconds", "burst_seconds", "wait_seconds", "sm_clock_mhz",
           "mem_clock_mhz", "power_w", "temperature_c", "kernels", "device", "driver",
           "torch", "date", "note"]

SETTLE = 2.0  # seconds of a loop before its clock and power count as settled


class Sampler:
    """nvidia-smi every 100 ms in the background; each line stamped with the host clock.

    `samples` holds (host time, smi timestamp, power W, SM MHz, memory MHz,
    temperature C, utilisation %) as the strings nvidia-smi printed, after
    the host time.
    """

    QUERY = "timestamp,power.draw,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu"

    def __init__(self, index=None):
        self.samples = []
        self.proc = None
        index = index if index is not None else os.environ.get("CALIBRATE_SMI_INDEX", "0")
        try:
            self.proc = subprocess.Popen(
                ["nvidia-smi", f"--query-gpu={self.QUERY}", "--format=csv,noheader,nounits",
                 "-lms", "100", "-i", str(index)],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except (OSError, ValueError):
            return
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            f = [x.strip() for x in line.split(",")]
            if len(f) == 6:
                self.samples.append((time.time(), *f))

    def window(self, t0, t1):
        """Means of (power, SM clock, memory clock, temperature) over [t0, t1]; None if no sample."""
        cols = ([], [], [], [])
        for s in self.samples:
            if t0 <= s[0] <= t1:
                for c, v in zip(cols, s[2:6]):
                    try:
                        c.append(float(v))
                    except ValueError:
                        pass
        if not cols[0] or not cols[1]:
            return None
        return tuple(statistics.fmean(c) if c else None for c in cols)

    def stop(self):
        if self.proc:
            self.proc.terminate()


def graph_of(body):
    """Capture body() into a CUDA graph after warming it on a side stream."""
    import torch

    st = torch.cuda.Stream()
    st.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(st):
        for _ in range(2):
            body()
    torch.cuda.current_stream().wait_stream(st)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        body()
    return g


def timed_loop(seconds, body, settle=SETTLE):
    """Runs body() until `seconds` pass; every call timed by CUDA events.

    Returns (host start, host end, every call's seconds, the calls that
    started after `settle` seconds of the loop).
    """
    import torch

    evs = []
    t0 = time.time()
    n = 0
    s = torch.cuda.Event(enable_timing=True)
    s.record()
    evs.append(s)
    while True:
        body()
        e = torch.cuda.Event(enable_timing=True)
        e.record()
        evs.append(e)
        n += 1
        if n % 4 == 0 or n < 8:
            e.synchronize()
            if time.time() - t0 >= seconds:
                break
    torch.cuda.synchronize()
    durs = [evs[i].elapsed_time(evs[i + 1]) * 1e-3 for i in range(len(evs) - 1)]
    elapsed, settled = 0.0, []
    for d in durs:
        if elapsed >= settle:
            settled.append(d)
        elapsed += d
    return t0, time.time(), durs, settled

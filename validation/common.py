"""What every measurement here shares: timing (CUDA events, cold-copy
graphs), sampling (the nvidia-smi board-power sampler and the timed loops
that read it), environment capture, and the calibration file's rows.

Nothing here imports torch at load time: `need_torch()` binds it when a
section runs, so `python3 -m validation list`, the tests and the scripts
that only convert rows (validation/probes/power_mix_rows.py) run without a
GPU. Scripts beside this file import it as `common`; the package's modules
as `validation.common`.
"""

import csv
import datetime
import importlib
import json
import math
import os
import statistics
import subprocess
import threading
import time

torch = None  # bound by need_torch()
F = None


def need_torch(*modules):
    """Imports torch and binds `torch` and `F` (torch.nn.functional) in this
    module and in each of `modules`, whose functions use them as globals;
    returns torch. Called by a section before it runs, never at import."""
    global torch, F
    if torch is None:
        torch = importlib.import_module("torch")
        F = importlib.import_module("torch.nn.functional")
    for m in modules:
        m.torch, m.F = torch, F
    return torch


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

    def __init__(self, index=None, into=None):
        self.samples = [] if into is None else into
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

    terminate = stop


samples = []  # what sampler() samples, for scripts that read it as a module global


def sampler():
    """A Sampler appending to this module's `samples` (the prefill and probe
    scripts read them by time window)."""
    return Sampler(into=samples)


def graph_of(body):
    """Capture body() into a CUDA graph after warming it on a side stream."""
    torch = need_torch()
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
    torch = need_torch()

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


FLUSH = 512 << 20  # weight copies per timed shape fill at least this (L2 is 50-60 MiB on big parts)


T0 = time.time()


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


class Writer:
    """Calibration rows (COLUMNS), each value formatted as `roofline
    calibrate` reads it; written to a CSV file as they come when `path` is
    given, and kept in `kept` for a section's JSON."""

    def __init__(self, path, env):
        self.env = env
        self.f = open(path, "w", newline="") if path else None
        self.w = csv.DictWriter(self.f, COLUMNS) if self.f else None
        if self.w:
            self.w.writeheader()
        self.rows = 0
        self.kept = []

    def row(self, **kw):
        r = {c: "" for c in COLUMNS}
        r.update(self.env)
        for k, v in kw.items():
            if k not in r:
                raise KeyError(k)
            r[k] = "" if v is None else f"{v:.6e}" if isinstance(v, float) else v
        if self.w:
            self.w.writerow(r)
            self.f.flush()
        self.kept.append(r)
        self.rows += 1

    def close(self):
        if self.f:
            self.f.close()


def events_times(fn, reps):
    """Seconds of each of reps calls of fn(), by CUDA events, after fn has been warmed."""
    need_torch()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e-3)
    return times


def events_time(fn, reps):
    """Median seconds of fn() over reps, by CUDA events, after fn has been warmed."""
    return statistics.median(events_times(fn, reps))


def events_upper_median(fn, reps):
    """The upper median (the middle after sorting; of an even count the
    larger of the two) of events_times: what serving_h200.py and
    qwen3_decode_h200.py recorded their data with."""
    times = sorted(events_times(fn, reps))
    return times[len(times) // 2]


def graph_upper_median(body, reps):
    """Seconds of one replay of a CUDA graph of body(): body run once
    eagerly, captured (graph_of), replayed once to warm, then the upper
    median of reps replays by CUDA events (events_upper_median)."""
    torch = need_torch()
    body()
    torch.cuda.synchronize()
    g = graph_of(body)
    g.replay()
    t = events_upper_median(g.replay, reps)
    del g
    return t


def kernels_per_layer(fn, layers):
    """The kernels of one call of fn (torch.profiler), the copies and sets
    apart: their count, device seconds, each name's count and seconds
    (largest first) and the second layer's sequence (the kernels divided
    evenly over `layers`)."""
    torch = need_torch()
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    ev = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    ev.sort(key=lambda e: e.time_range.start)
    copies = [e for e in ev if "memcpy" in e.name.lower() or "memset" in e.name.lower()]
    kern = [e for e in ev if e not in copies]
    by = {}
    for e in kern:
        n = e.name[:160]
        c, s = by.get(n, (0, 0.0))
        by[n] = (c + 1, s + e.device_time * 1e-6)
    per = len(kern) // layers
    seq = [(e.name[:120], e.device_time * 1e-6) for e in kern[per:2 * per]] if per else []
    return dict(kernels=len(kern), copies=len(copies),
                device_s=sum(e.device_time for e in kern) * 1e-6,
                by_name=sorted(([n, c, s] for n, (c, s) in by.items()), key=lambda r: -r[2]),
                layer_sequence=seq)


def time_cold(make, fn, per_copy_bytes, est_s, reps):
    """Seconds per call of fn(*inputs), in a graph cycling over cold input copies."""
    copies = max(1, min(64, math.ceil(FLUSH / max(per_copy_bytes, 1))))
    inputs = [make(i) for i in range(copies)]
    calls = max(copies, min(1024, math.ceil(2e-3 / max(est_s, 2e-6))))

    def body():
        for i in range(calls):
            fn(*inputs[i % copies])

    g = graph_of(body)
    for _ in range(2):
        g.replay()
    replays = max(3, min(reps, math.ceil(0.15 / (calls * max(est_s, 2e-6)))))
    t = events_time(g.replay, replays) / calls
    out0 = fn(*inputs[0])
    del g
    return t, out0, inputs[0], replays * calls


def rel_err(out, ref):
    out, ref = out.float(), ref.float()
    if not torch.isfinite(out).all():
        return float("inf")
    return float((out - ref).norm() / ref.norm().clamp_min(1e-30))


def fp8_ok():
    if torch.version.hip:
        return hasattr(torch, "float8_e4m3fnuz")
    return torch.cuda.get_device_capability() >= (8, 9)


def fp8_dtype():
    return torch.float8_e4m3fnuz if torch.version.hip else torch.float8_e4m3fn


def environment():
    """The device, driver, torch version and UTC time a row or section records."""
    name = torch.cuda.get_device_name()
    driver = ""
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader",
                                 "-i", "0"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    if not driver and torch.version.hip:
        driver = "hip " + torch.version.hip
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return dict(device=name, driver=driver, torch=torch.__version__, date=date)


def loop_for(seconds, body, work_per_call, settle=SETTLE):
    """Runs body() until `seconds` pass, marking every fifth call with a CUDA
    event; returns (host start, host end, work per second over the calls
    after `settle`, those calls, their seconds). The power scripts' loop
    (validation/power_h200.py and the scripts after it)."""
    torch = need_torch()
    t0 = time.time()
    marks = []
    n = 0
    while True:
        body()
        n += 1
        if n % 5 == 0:
            ev = torch.cuda.Event(enable_timing=True)
            ev.record()
            ev.synchronize()
            marks.append((time.time(), ev, n))
            if time.time() - t0 >= seconds:
                break
    first = next(m for m in marks if m[0] >= t0 + settle)
    last = marks[-1]
    dt = first[1].elapsed_time(last[1]) * 1e-3
    return t0, last[0], (last[2] - first[2]) * work_per_call / dt, (last[2] - first[2]), dt


SAMPLES_HEADER = ("host_time_s,smi_timestamp,power_w,sm_clock_mhz,mem_clock_mhz,temperature_c,"
                  "util_pct,phase\n")


def write_phases(out_dir, name, phases, samples, settle=SETTLE, extra=True, width=12):
    """Writes OUT/<name>-samples.csv (every nvidia-smi sample with the phase
    it falls in) and OUT/<name>-summary.json (per phase, over its part after
    `settle` seconds: mean, median and max power, mean clocks; with `extra`
    also the least SM clock and the mean temperature). `phases` are dicts
    with `phase`, `t0` and `t1` (host times) and whatever else to keep."""
    torch = need_torch()
    with open(os.path.join(out_dir, f"{name}-samples.csv"), "w") as f:
        f.write(SAMPLES_HEADER)
        for smp in samples:
            ph = next((p["phase"] for p in phases if p["t0"] <= smp[0] <= p["t1"]), "")
            f.write(f"{smp[0]:.3f}," + ",".join(smp[1:]) + f",{ph}\n")
    summary = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                   settle_s=settle, sample_period_ms=100, phases=[])
    for p in phases:
        win = [x for x in samples if p["t0"] + settle <= x[0] <= p["t1"]]

        def col(i):
            v = []
            for x in win:
                try:
                    v.append(float(x[i]))
                except ValueError:
                    pass
            return v

        pw, sm, mem, temp = col(2), col(3), col(4), col(5)
        row = dict(p)
        row.update(samples=len(win),
                   power_mean_w=statistics.fmean(pw) if pw else None,
                   power_median_w=statistics.median(pw) if pw else None,
                   power_max_w=max(pw) if pw else None,
                   sm_clock_mean_mhz=statistics.fmean(sm) if sm else None)
        if extra:
            row.update(sm_clock_min_mhz=min(sm) if sm else None)
        row.update(mem_clock_mean_mhz=statistics.fmean(mem) if mem else None)
        if extra:
            row.update(temperature_mean_c=statistics.fmean(temp) if temp else None)
        row["duration_s"] = p["t1"] - p["t0"]
        row.pop("t0")
        row.pop("t1")
        summary["phases"].append(row)
        tail = f", {len(win)} samples" if extra else ""
        print(f"{p['phase']:>{width}}: {row['power_mean_w'] or 0:6.1f} W, "
              f"SM {row['sm_clock_mean_mhz'] or 0:6.0f} MHz{tail}", flush=True)
    with open(os.path.join(out_dir, f"{name}-summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return summary

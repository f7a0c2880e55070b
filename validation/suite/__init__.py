"""The suite's sections and the runner that writes them.

A section is one measurement, named `family.what`. Two kinds:

- Rows: a function of a family module here that measures calibration rows
  (validation/common.py's COLUMNS) in this process; the calibration file
  `roofline calibrate` reads is these rows (validation/calibrate.py).
- Script: one of the measurement scripts beside this package
  (validation/*.py), run as a process of its own with an output folder;
  the files it writes are read back into the section's JSON.

Each section run writes OUT/<section>.json: the section, what it measures,
the environment (device, driver, torch, UTC date), the method (the
function's or the script's docstring), the command where there is one, the
seconds it took, and the raw results (rows, or every file the script wrote,
JSON parsed, CSV as rows, logs as lines). Nothing here imports torch at
load time; a Rows section binds it when it runs.
"""

import ast
import csv
import datetime
import importlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

from validation import common

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # validation/
ROOT = os.path.dirname(HERE)
FAMILIES = ["memory", "gemm", "attention", "steps", "moe", "collectives", "power", "host",
            "calibration"]


class Failed(RuntimeError):
    """A section that ran and failed, with what it left (its command and
    log) for the section's JSON."""

    def __init__(self, message, payload):
        super().__init__(message)
        self.payload = payload


class Context:
    """What the sections of one run share: the quick flag, one nvidia-smi
    sampler (started the first time a section asks), one row writer."""

    def __init__(self, quick=False, writer=None):
        self.quick = quick
        self.writer = writer
        self._sampler = None

    def sampler(self):
        if self._sampler is None:
            self._sampler = common.Sampler()
        return self._sampler

    def close(self):
        if self._sampler is not None:
            self._sampler.stop()


class Rows:
    """Calibration rows measured in this process by `fn(w, quick)` (or
    `fn(w, sampler, quick)` when `sampler`)."""

    kind = "rows"

    def __init__(self, name, short, about, fn, sampler=False, needs="1 GPU"):
        self.name, self.short, self.about, self.fn = name, short, about, fn
        self.uses_sampler, self.needs = sampler, needs

    def method(self):
        mod = sys.modules[self.fn.__module__]
        return "\n\n".join(filter(None, [self.fn.__doc__, mod.__doc__]))

    def execute(self, ctx):
        # Every family module loaded: a section's functions call across them.
        common.need_torch(*[m for n, m in list(sys.modules.items())
                            if n.startswith("validation.suite.")])
        w = ctx.writer
        first = len(w.kept)
        if self.uses_sampler:
            self.fn(w, ctx.sampler(), ctx.quick)
        else:
            self.fn(w, ctx.quick)
        return {"environment": w.env, "columns": common.COLUMNS, "rows": w.kept[first:]}


class Script:
    """A measurement script run as its own process. `argv` is its command
    after the interpreter, with "{py}" the interpreter, "{script}" the
    script's path and "{dir}" a fresh output folder; `env` adds variables
    ("{dir}" allowed)."""

    kind = "script"

    def __init__(self, name, script, about, argv=("{py}", "{script}", "{dir}"), env=None,
                 quick=(), quick_env=None, needs="1 GPU"):
        self.name, self.script, self.about = name, script, about
        self.argv, self.env, self.quick_args, self.needs = list(argv), env or {}, list(quick), needs
        self.quick_env = quick_env or {}

    def path(self):
        return os.path.join(HERE, self.script)

    def method(self):
        with open(self.path()) as f:
            return ast.get_docstring(ast.parse(f.read())) or ""

    def command(self, out_dir, quick=False):
        sub = {"{py}": sys.executable, "{script}": self.path(), "{dir}": out_dir}
        argv = [_fill(a, sub) for a in self.argv]
        env = {k: _fill(v, sub) for k, v in self.env.items()}
        if quick:
            argv += self.quick_args
            env.update(self.quick_env)
        return argv, env

    def execute(self, ctx):
        out_dir = tempfile.mkdtemp(prefix=self.name + "-")
        argv, env = self.command(out_dir, ctx.quick)
        if argv[0] not in (sys.executable,) and shutil.which(argv[0]) is None:
            raise RuntimeError(f"{argv[0]} is not on PATH")
        lines = []
        p = subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        for line in p.stdout:
            print(line, end="", flush=True)
            lines.append(line.rstrip("\n"))
        rc = p.wait()
        files = {}
        for dirpath, _, names in os.walk(out_dir):
            for n in sorted(names):
                full = os.path.join(dirpath, n)
                files[os.path.relpath(full, out_dir)] = _read(full)
        shutil.rmtree(out_dir, ignore_errors=True)
        payload = {"command": argv, "env": env, "returncode": rc, "log": lines, "files": files}
        if rc:
            raise Failed(f"{self.script} exited {rc}", payload)
        return payload


def _fill(text, sub):
    for k, v in sub.items():
        text = text.replace(k, v)
    return text


def _read(path):
    """A script's output file as JSON data: JSON parsed, CSV as a list of
    rows, anything else as its lines."""
    with open(path, errors="replace") as f:
        text = f.read()
    if path.endswith(".json"):
        try:
            return json.loads(text)
        except ValueError:
            pass
    if path.endswith(".csv"):
        return list(csv.reader(io.StringIO(text)))
    return text.splitlines()


def environment():
    """The environment of a script section, read without importing torch:
    nvidia-smi's GPUs and driver, torch's installed version, the host."""
    env = dict(date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
               python=platform.python_version(), host=platform.node())
    try:
        from importlib.metadata import version

        env["torch"] = version("torch")
    except Exception:  # noqa: BLE001 - not installed: the section says so itself
        env["torch"] = None
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,power.limit",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        env["gpus"] = [line.strip() for line in q.stdout.splitlines() if line.strip()]
    except (OSError, subprocess.SubprocessError):
        env["gpus"] = []
    return env


def sections():
    """Every section, family by family, in the order `list` prints them."""
    out = []
    for fam in FAMILIES:
        out += importlib.import_module(f"validation.suite.{fam}").SECTIONS
    return out


def find(names):
    """The sections named (a family's name stands for all its sections)."""
    every = sections()
    by = {s.name: s for s in every}
    picked = []
    for n in names:
        if n in by:
            hit = [by[n]]
            if hit[0].kind == "group":
                hit = [by[m] for m in hit[0].members]
        else:
            hit = [s for s in every if s.name.startswith(n + ".") and s.kind != "group"]
        if not hit:
            raise SystemExit(f"validation: no section {n!r} (python3 -m validation list)")
        picked += [s for s in hit if s not in picked]
    return picked


def run(picked, out_dir=None, quick=False, csv_path=None, log_sections=True):
    """Runs the sections in order; writes OUT/<section>.json for each when
    out_dir is given, and every Rows section's rows to one calibration CSV
    when csv_path is. A failing section is logged (and its JSON carries the
    traceback) and the run goes on, as calibrate.py always has. Returns the
    rows written and the names of the sections that failed."""
    rows = [s for s in picked if s.kind == "rows"]
    env = None
    if rows:
        try:
            torch = common.need_torch()
        except ImportError:
            sys.exit("validation: PyTorch is not installed; the GPU sections need it")
        if not torch.cuda.is_available():
            sys.exit("calibrate.py: no CUDA or ROCm device is visible to PyTorch")
        env = common.environment()
        common.log(f"{env['device']}, driver {env['driver']}, torch {env['torch']}")
    ctx = Context(quick, common.Writer(csv_path, env or {}))
    if rows:
        # The sampler runs from the start, as calibrate.py's did: the short
        # compute burst has samples from its first 100 ms.
        ctx.sampler()
        torch.manual_seed(0)
        from validation.suite import gemm

        shorts = {s.short for s in rows}
        # compute_loops' fp8 GEMMs pad M as the GEMM section would have found.
        if "compute" in shorts and "gemm" not in shorts and common.fp8_ok():
            common.need_torch(gemm)
            gemm.probe_pad()
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    failed = []
    for s in picked:
        if log_sections:
            common.log(f"--- {getattr(s, 'short', s.name)}")
        t0 = time.time()
        record = dict(section=s.name, about=s.about, needs=s.needs,
                      started=datetime.datetime.now(datetime.timezone.utc).strftime(
                          "%Y-%m-%dT%H:%M:%SZ"), method=s.method())
        if s.kind == "script":
            record["environment"] = environment()
        try:
            record.update(s.execute(ctx))
        except Exception as e:  # noqa: BLE001
            record.update(getattr(e, "payload", {}))
            tb = traceback.format_exc()
            common.log(f"section {getattr(s, 'short', s.name)} FAILED:\n{tb}")
            record["error"] = tb
            failed.append(s.name)
            if rows:
                common.need_torch().cuda.empty_cache()
        record["seconds"] = time.time() - t0
        if out_dir:
            with open(os.path.join(out_dir, s.name + ".json"), "w") as f:
                json.dump(record, f, indent=1)
    ctx.close()
    ctx.writer.close()
    return ctx.writer.rows, failed

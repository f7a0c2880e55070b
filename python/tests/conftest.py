"""Shared fixtures: the CLI binary the comparisons run, built if absent."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _binary():
    env = os.environ.get("ROOFLINE_BIN")
    if env:
        return Path(env)
    for profile in ("debug", "release"):
        p = ROOT / "target" / profile / "roofline"
        if p.exists():
            return p
    subprocess.run(["cargo", "build", "--quiet", "--bin", "roofline"], cwd=ROOT, check=True)
    return ROOT / "target" / "debug" / "roofline"


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI; returns (exit code, stdout as JSON or text, stderr)."""
    binary = _binary()

    def run(*args, as_json=True):
        p = subprocess.run([str(binary), *args], cwd=ROOT, capture_output=True, text=True)
        out = json.loads(p.stdout) if as_json and p.returncode == 0 else p.stdout
        return p.returncode, out, p.stderr

    return run

"""Calibration: the rows `roofline calibrate` fits a hardware file's
achievable figures from (docs/data-schemas.md, "Calibration measurements";
docs/cli.md, `calibrate`). They are the Rows sections of the other families,
in the order validation/calibrate.py has always run them (the profiler's
kernels last: it stays attached and slows later eager launches); run
together they write one CSV file, byte for byte the file `roofline
calibrate` reads. `calibration.all` names them all.
"""

# (calibrate.py's --only name, the section)
ORDER = [("hbm", "memory.hbm"), ("launch", "host.launch"), ("gemm", "gemm.shapes"),
         ("grouped", "moe.grouped"), ("attention", "attention.sdpa"),
         ("compute", "power.compute"), ("power", "power.limit"), ("decode", "steps.decode"),
         ("host", "host.calls"), ("kernels", "host.kernels")]


class Group:
    """A name for several sections, run in its order."""

    kind = "group"

    def __init__(self, name, about, members):
        self.name, self.about, self.members = name, about, members
        self.needs = "1 GPU"


SECTIONS = [
    Group("calibration.all", "every calibration row, in calibrate.py's order (about 2.6 "
          "minutes on an H200)", [s for _, s in ORDER]),
]


def only(names):
    """The sections of calibrate.py's `--only a,b` (all when empty)."""
    known = dict(ORDER)
    bad = [n for n in names if n not in known]
    if bad:
        raise SystemExit(f"calibrate.py: no section {', '.join(bad)} (one of: "
                         f"{','.join(known)})")
    return [s for short, s in ORDER if not names or short in names]

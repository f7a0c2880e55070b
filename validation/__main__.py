"""python3 -m validation: the measurement suite's one entry point.

    python3 -m validation list                          # every section, what it needs
    python3 -m validation run SECTION... --out DIR      # OUT/<section>.json each
    python3 -m validation run calibration.all --out DIR --csv my-gpu.csv
    python3 -m validation manifest                      # docs/validation.md's file table
    python3 -m validation manifest --check docs/validation.md

A SECTION is a name from `list`, or a family (`power` runs every power
section). `--quick` runs fewer shapes and repetitions where a section has
such a mode. `--csv FILE` also writes the calibration rows of the run's
Rows sections to one CSV file, the one `roofline calibrate` reads.
"""

import argparse
import os
import sys

if __package__ in (None, ""):  # run as a file: make the package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from validation import manifest, suite  # noqa: E402

BEGIN = "<!-- manifest: begin (python3 -m validation manifest) -->"
END = "<!-- manifest: end -->"


def parser():
    ap = argparse.ArgumentParser(prog="python3 -m validation",
                                 description="the roofline measurement suite")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="name every section")
    r = sub.add_parser("run", help="run sections, one JSON file each")
    r.add_argument("sections", nargs="+", metavar="SECTION")
    r.add_argument("--out", required=True, metavar="DIR", help="folder for <section>.json")
    r.add_argument("--quick", action="store_true", help="fewer shapes and repetitions")
    r.add_argument("--csv", metavar="FILE", help="also write the calibration rows to FILE")
    m = sub.add_parser("manifest", help="the measurement files as docs/validation.md lists them")
    m.add_argument("--check", metavar="FILE",
                   help="fail unless FILE's manifest table is the one printed")
    m.add_argument("--write", metavar="FILE", help="replace FILE's manifest table")
    return ap


def list_sections(out=sys.stdout):
    rows = []
    for s in suite.sections():
        if s.kind == "group":
            what = f"{s.about}: {' '.join(s.members)}"
        elif s.kind == "rows":
            what = s.about
        else:
            what = f"{s.about} ({s.script})"
        rows.append((s.name, s.needs, what))
    width = max(len(r[0]) for r in rows)
    need = max(len(r[1]) for r in rows)
    for name, needs, what in rows:
        print(f"{name:<{width}}  {needs:<{need}}  {what}", file=out)


def table():
    """The manifest as a Markdown table, one row a file."""
    lines = ["| file | written by | role | what | figures citing it |",
             "| --- | --- | --- | --- | --- |"]
    for e in manifest.entries():
        by = f"`{e['script']}`" + (f" (`{e['section']}`)" if e["section"] else "")
        role = e["role"] + (f"; held out: {e['held-out']}" if e.get("held-out") else "")
        figs = ", ".join(f"`{f.split(': ', 1)[1]}`" for f in e.get("fitted", []))
        lines.append(f"| `{e['path']}` | {by} | {role} | {e['what']} | {figs} |")
    return "\n".join(lines) + "\n"


def splice(text, new):
    if BEGIN not in text or END not in text:
        raise SystemExit(f"no {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{new}{END}{tail}"


def main(argv=None):
    args = parser().parse_args(argv)
    if args.cmd == "list":
        list_sections()
    elif args.cmd == "run":
        picked = suite.find(args.sections)
        _, failed = suite.run(picked, out_dir=args.out, quick=args.quick, csv_path=args.csv)
        if failed:
            sys.exit(f"validation: {len(failed)} section(s) failed: {' '.join(failed)}")
    elif args.cmd == "manifest":
        t = table()
        if args.check or args.write:
            path = args.check or args.write
            with open(path) as f:
                text = f.read()
            new = splice(text, t)
            if args.check and new != text:
                sys.exit(f"{path}: the manifest table is stale; rerun with --write {path}")
            if args.write:
                with open(path, "w") as f:
                    f.write(new)
        else:
            sys.stdout.write(t)


if __name__ == "__main__":
    main()

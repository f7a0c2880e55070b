"""The suite without a GPU: every section is listed and importable with no
torch, the command line parses, the calibration order is calibrate.py's,
the rows are formatted as `roofline calibrate` reads them, and the
manifest names every file under validation/results/ and matches
docs/validation.md's table.

    python3 -m unittest discover -s validation/tests -t .
"""

import contextlib
import csv
import glob
import io
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from validation import __main__ as cli  # noqa: E402
from validation import common, manifest, suite  # noqa: E402
from validation.suite import calibration  # noqa: E402


class Sections(unittest.TestCase):
    def test_list_names_every_section_of_every_family(self):
        out = io.StringIO()
        cli.list_sections(out)
        names = [line.split()[0] for line in out.getvalue().splitlines()]
        self.assertEqual(len(names), len(set(names)), "section names are unique")
        for fam in suite.FAMILIES:
            self.assertTrue(any(n.startswith(fam + ".") for n in names), fam)
        for n in names:
            self.assertRegex(n, r"^[a-z]+\.[a-z0-9-]+$")

    def test_no_torch_at_import(self):
        # A fresh interpreter: listing imports every family module.
        code = ("import sys; sys.path.insert(0, %r); from validation import suite; "
                "suite.sections(); print('torch' in sys.modules)") % ROOT
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout.strip()
        self.assertEqual(out, "False")

    def test_scripts_exist(self):
        for s in suite.sections():
            if s.kind == "script":
                self.assertTrue(os.path.exists(s.path()), s.script)
                self.assertTrue(s.method(), f"{s.script} has a docstring")

    def test_find_families_groups_and_unknown(self):
        power = [s.name for s in suite.find(["power"])]
        self.assertIn("power.limit", power)
        self.assertTrue(all(n.startswith("power.") for n in power))
        cal = [s.name for s in suite.find(["calibration.all"])]
        self.assertEqual(cal, [s for _, s in calibration.ORDER])
        with self.assertRaises(SystemExit):
            suite.find(["no-such-section"])

    def test_calibration_order_is_calibrate_pys(self):
        # calibrate.py's --only names, in the order it always ran them.
        self.assertEqual([s for s, _ in calibration.ORDER],
                         ["hbm", "launch", "gemm", "grouped", "attention", "compute", "power",
                          "decode", "host", "kernels"])
        self.assertEqual([s.short for s in suite.find(calibration.only(set()))],
                         [s for s, _ in calibration.ORDER])
        self.assertEqual([s.name for s in suite.find(calibration.only({"power", "hbm"}))],
                         ["memory.hbm", "power.limit"])
        with self.assertRaises(SystemExit):
            calibration.only({"bogus"})

    def test_script_command_fills_the_folder(self):
        s = next(x for x in suite.sections() if x.name == "memory.strided")
        argv, env = s.command("/tmp/d", quick=True)
        self.assertEqual(argv[1:], [s.path(), "strided"])
        self.assertEqual(env, {"OUT": "/tmp/d", "QUICK": "1"})
        s = next(x for x in suite.sections() if x.name == "host.probe")
        argv, _ = s.command("/tmp/d")
        self.assertEqual(argv[2:], ["/tmp/d/host-probe.json", "--rounds", "3"])


class CommandLine(unittest.TestCase):
    def parse(self, *argv):
        return cli.parser().parse_args(list(argv))

    def test_run_takes_sections_and_out(self):
        a = self.parse("run", "gemm.shapes", "power", "--out", "d", "--quick", "--csv", "f.csv")
        self.assertEqual((a.sections, a.out, a.quick, a.csv),
                         (["gemm.shapes", "power"], "d", True, "f.csv"))

    def test_run_needs_out_and_a_section(self):
        for argv in (["run", "gemm.shapes"], ["run", "--out", "d"], []):
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
                self.parse(*argv)

    def test_calibrate_py_help_needs_no_torch(self):
        out = subprocess.run([sys.executable, os.path.join(ROOT, "validation", "calibrate.py"),
                              "--help"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("hbm,launch,gemm,grouped,attention,compute,power,decode,host,kernels",
                      "".join(out.stdout.split()))


class Rows(unittest.TestCase):
    def test_writer_formats_as_calibrate_reads(self):
        # The header and number format of tests/data/calibrate's files.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "c.csv")
            w = common.Writer(path, dict(device="GPU", driver="1", torch="2", date="D"))
            w.row(operation="launch", launch="graph", repeats=10, seconds=1.08e-6, dtype="fp32",
                  note="a, b")
            w.close()
            with open(path) as f:
                text = f.read()
        lines = text.splitlines()
        self.assertEqual(lines[0], ",".join(common.COLUMNS))
        self.assertEqual(lines[1], "launch,,,,,,,,,,,,,,fp32,graph,10,1.080000e-06,,,,,,,,GPU,1,2,D,"
                                   '"a, b"')
        self.assertEqual(w.kept[0]["seconds"], "1.080000e-06")
        with self.assertRaises(KeyError):
            w.row(no_such_column=1)

    def test_columns_are_the_latest_run_s(self):
        # calibrate.py's last full run on the H200 (2026-12-02), all 30 columns.
        with open(manifest.path("calibrate-h200-rep-1.csv")) as f:
            self.assertEqual(next(csv.reader(f)), common.COLUMNS)


class Manifest(unittest.TestCase):
    def test_every_results_file_is_named_once(self):
        named = [e["path"] for e in manifest.entries()]
        self.assertEqual(len(named), len(set(named)))
        on_disk = sorted(os.path.relpath(p, manifest.RESULTS)
                         for p in glob.glob(os.path.join(manifest.RESULTS, "*", "**"),
                                            recursive=True) if os.path.isfile(p))
        self.assertEqual(sorted(named), on_disk)

    def test_entries_say_who_wrote_them(self):
        sections = {s.name for s in suite.sections()}
        roles = {"fit", "measured", "held-out", "spread", "probe", "derived", "record"}
        for e in manifest.entries():
            self.assertIn(e["role"], roles, e["path"])
            self.assertTrue(os.path.exists(os.path.join(ROOT, "validation", e["script"])),
                            e["path"])
            self.assertRegex(e["path"], r"^\d{4}-\d\d-\d\d-[a-z0-9]+/")
            for s in filter(None, e["section"].split(",")):
                self.assertTrue(s in sections or s == "memory" or s == "calibration"
                                or s.split(".")[0] in suite.FAMILIES, (e["path"], s))

    @unittest.skipIf(manifest.tomllib is None, "needs Python 3.11's tomllib")
    def test_fitted_is_what_the_sources_cite(self):
        # Each `fitted` figure's source names the file, and every figure of
        # the hardware and engine files that names a file is listed.
        cited = {}
        for part in ("hardware/h200-sxm.toml", "engines/pytorch.toml"):
            with open(os.path.join(ROOT, part), "rb") as f:
                sources = manifest.tomllib.load(f).get("sources", {})
            for key, text in sources.items():
                for e in manifest.entries():
                    if "validation/results/" + e["path"] in text:
                        cited.setdefault(e["path"], []).append(f"{part}: {key}")
        for e in manifest.entries():
            self.assertEqual(sorted(e.get("fitted", [])), sorted(cited.get(e["path"], [])),
                             e["path"])

    def test_the_fallback_parser_reads_it_as_tomllib_does(self):
        with open(manifest.MANIFEST) as f:
            self.assertEqual(manifest._parse_simple(f.read())["file"], manifest.entries())

    def test_docs_table_is_the_manifest(self):
        with open(os.path.join(ROOT, "docs", "validation.md")) as f:
            text = f.read()
        self.assertEqual(cli.splice(text, cli.table()), text,
                         "python3 -m validation manifest --write docs/validation.md")


if __name__ == "__main__":
    unittest.main()

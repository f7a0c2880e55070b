"""The committed type stubs are what the generator makes from the built
module, so an editor's completions and docs follow the code."""

import subprocess
import sys

from conftest import ROOT


class TestStubs:
    def test_stubs_are_current(self):
        p = subprocess.run(
            [sys.executable, str(ROOT / "python" / "tools" / "stubgen.py"), "--check"],
            capture_output=True, text=True,
        )
        assert p.returncode == 0, p.stderr

    def test_every_public_name_has_a_stub_and_a_docstring(self):
        import roofline

        stub = (ROOT / "python" / "py_src" / "roofline" / "_roofline.pyi").read_text()
        for name in roofline.__all__:
            if name == "__version__":
                continue
            assert f"def {name}(" in stub or f"class {name}" in stub, name
            assert getattr(roofline, name).__doc__, name


class TestDeclaredInputs:
    """The keywords and docstrings of decode, prefill, plan, simulate and
    fleet are written from the library's declaration of their inputs, the
    one the CLI's flags come from: every flag of `--help` is a keyword, in
    the same order, and the docstring documents each."""

    def test_keywords_and_docs_are_the_cli_flags(self, cli):
        import inspect
        import re

        import roofline

        for command in ("decode", "prefill", "plan", "simulate", "fleet"):
            _, text, _ = cli(command, "--help", as_json=False)
            own = text.split("Common options:")[0]
            flags = [f.replace("-", "_") for f in re.findall(r"^ {6}--([a-z0-9-]+)", own, re.M)]
            fn = getattr(roofline, command)
            params = list(inspect.signature(fn).parameters)
            assert params == flags + ["achievable", "set"], command
            doc = inspect.getdoc(fn)
            args = doc.split("Args:")[1].split("Returns:")[0]
            documented = re.findall(r"^ {4}([a-z_]+): ", args, re.M)
            assert documented == params, command

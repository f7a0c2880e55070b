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

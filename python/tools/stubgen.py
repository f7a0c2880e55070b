"""Writes py_src/roofline/_roofline.pyi from the built native module: each
function's signature (pyo3's __text_signature__) and docstring (the Rust
/// comments), with types from the argument names. `--check` fails when the
committed file differs, so the stubs follow the code.

    python tools/stubgen.py          # write
    python tools/stubgen.py --check  # compare
"""

import inspect
import sys
from pathlib import Path

import roofline._roofline as native

OUT = Path(__file__).resolve().parent.parent / "py_src" / "roofline" / "_roofline.pyi"

HEADER = '''# Generated content DO NOT EDIT: python/tools/stubgen.py writes it from
# the native module's signatures and its Rust /// docstrings.

from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

Quantity = Union[int, float, str]
"""A number in base units (seconds, bytes, FLOP/s) or text with a unit ("4.8 TB/s")."""
Field = Union[Quantity, bool, Sequence[Quantity]]
"""A field's value; a sequence of values is an axis of a sweep."""
HardwareLike = Union[str, "Hardware", Sequence[Union[str, "Hardware"]]]
ModelLike = Union[str, "Model", Sequence[Union[str, "Model"]]]
Edits = Union[Mapping[str, Quantity], Sequence[str]]

__version__: str
'''

# Types of the arguments and results whose names say what they are.
ARG_TYPES = {
    "hw": "Optional[HardwareLike]",
    "model": "Optional[ModelLike]",
    "achievable": "bool",
    "set": "Optional[Edits]",
    "all": "bool",
    "y": "Optional[Sequence[str]]",
    "path": "str",
    "changes": "Edits",
    "what": "str",
    "command": "str",
    "dtype": "Optional[Union[str, Sequence[str]]]",
    "points": "Optional[Sequence[Union[str, Report]]]",
    "key": "str",
}
RETURNS = {
    "hardware": "Hardware",
    "model": "Model",
    "hardware_ids": "List[str]",
    "model_ids": "List[str]",
    "roofline_chart": "Chart",
    "sweep": "Any",
    "show": "Report",
    "set": "Hardware",
    "svg": "str",
    "save": "None",
    "to_json": "str",
    "to_dict": "Dict[str, Any]",
    "explain": "str",
    "table": "str",
    "markdown": "str",
    "chart": "Chart",
    "__getitem__": "Any",
    "_repr_html_": "str",
    "_repr_svg_": "str",
    "__repr__": "str",
}
PROPERTIES = {
    "command": "str",
    "hardware": "Optional[str]",
    "model": "Optional[str]",
    "inputs": "Dict[str, Any]",
    "results": "Dict[str, Any]",
    "quantities": "Dict[str, Dict[str, Any]]",
    "notes": "List[str]",
    "axes": "List[str]",
    "rows": "List[Dict[str, Dict[str, Any]]]",
    "id": "str",
    "edits": "List[str]",
}


def doc(obj, indent):
    text = inspect.getdoc(obj) or ""
    if not text:
        return f"{indent}...\n"
    body = "\n".join((indent + line).rstrip() for line in text.splitlines())
    return f'{indent}"""\n{body}\n{indent}"""\n'


def signature(fn, owner=None):
    sig = inspect.signature(fn)
    parts = []
    star = False
    for p in sig.parameters.values():
        if p.kind == p.VAR_KEYWORD:
            parts.append(f"**{p.name}: Any")
            continue
        if p.kind == p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.name in ("self", "slf"):
            parts.append("self")
            continue
        t = ARG_TYPES.get(p.name, "Optional[Field]")
        if p.default is p.empty:
            parts.append(f"{p.name}: {t}")
        else:
            parts.append(f"{p.name}: {t} = {p.default!r}")
    name = fn.__name__
    ret = RETURNS.get(name, "Report")
    if owner == "Model" and name == "set":
        ret = "Model"
    return f"({', '.join(parts)}) -> {ret}"


def class_stub(cls):
    out = [f"class {cls.__name__}:\n", doc(cls, "    ")]
    for name, member in sorted(vars(cls).items()):
        if name.startswith("__") and name not in ("__getitem__", "__repr__"):
            continue
        if type(member).__name__ == "getset_descriptor":
            out.append(f"    @property\n    def {name}(self) -> {PROPERTIES.get(name, 'Any')}:\n")
            out.append(doc(member, "        "))
        elif callable(member):
            out.append(f"    def {name}{signature(member, cls.__name__)}:\n")
            out.append(doc(member, "        "))
    return "".join(out) + "\n"


def render():
    parts = [HEADER, "\n"]
    for cls in (native.Report, native.Chart, native.Hardware, native.Model):
        parts.append(class_stub(cls))
    parts.append(f"class RooflineError(ValueError):\n{doc(native.RooflineError, '    ')}"
                 "    exit_code: int\n    field: Optional[str]\n\n")
    for name in ("DataError", "NoAnswerError", "UsageError", "FileError"):
        parts.append(f"class {name}(RooflineError):\n{doc(getattr(native, name), '    ')}\n")
    funcs = sorted(
        n for n, v in vars(native).items()
        if callable(v) and not n.startswith("_") and not isinstance(v, type)
    )
    for name in funcs:
        fn = getattr(native, name)
        parts.append(f"def {name}{signature(fn)}:\n{doc(fn, '    ')}\n")
    return "".join(parts).rstrip() + "\n"


def main():
    text = render()
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run python tools/stubgen.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Write the `[launch]` and `[achievable]` sections of a part nobody here
has measured, from a measured sibling's file and the transfer rules of
docs/formulas.md ("Achievable figures carried between parts"). No GPU
needed:

    python3 validation/transfer.py PART [--out FILE]   # one part (default: hardware/PART.toml)
    python3 validation/transfer.py --all               # every part in RULES

The target file keeps its datasheet sections; its `[launch]`, every
`[achievable...]` section and the energy figures of `[package]` are
replaced by the base file's, each figure either carried over unchanged
(the rule says why the sibling's holds), scaled by the rule (the sibling's
measured share of its own datasheet, times the target's datasheet), or set
from a public measurement cited exactly. Every figure written gets a
`[sources]` line saying which of the three it is.
"""

import os
import re
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")

# The [package] figures the power and energy model reads beside tdp-watts.
ENERGY = ["idle-watts", "compute-watts", "compute-traffic", "stream-watts",
          "strided-element-energy"]


def split(text):
    """The file as (header, lines) blocks; the first block's header is None."""
    out = [[None, []]]
    for line in text.splitlines():
        m = re.match(r"^\s*(\[\[?[^\]]+\]\]?)\s*(#.*)?$", line)
        if m:
            out.append([m.group(1), []])
        else:
            out[-1][1].append(line)
    return out


def name(header):
    return header.strip("[]") if header else None


def key_of(line):
    m = re.match(r'^\s*("[^"]+"|[A-Za-z0-9_-]+)\s*=', line)
    return m.group(1).strip('"') if m else None


def strip_comment(line):
    # Values here hold no '#' inside strings, so a comment is what follows one.
    if "#" in line and '"' not in line.split("#", 1)[1]:
        return line.split("#", 1)[0].rstrip()
    return line


def fmt(v):
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(round(v, 6))
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    return str(v)


def num(s):
    """'763.9 TFLOP/s' -> (763.9, 'TFLOP/s')."""
    m = re.match(r"^\s*([0-9.eE+-]+)\s*(.*)$", s)
    return float(m.group(1)), m.group(2)


def scale(s, f, digits=1):
    v, u = num(s)
    return f"{round(v * f, digits)} {u}".strip()


def transfer(base_id, target_id, rule, overrides, drop=(), out=None):
    """overrides: {"achievable.hbm-bandwidth": (value or None, source)}; a
    value of None drops the figure. Keys under `package.` go to [package]."""
    base_path = os.path.join(HW, base_id + ".toml")
    tgt_path = os.path.join(HW, target_id + ".toml")
    base_text = open(base_path).read()
    base = tomllib.loads(base_text)
    tgt_text = open(tgt_path).read()
    bsrc = base["sources"]
    new_src = {}

    def carried(full):
        s = bsrc.get(full, "")
        return (f"transferred from {base_id} by the rule '{rule}' (docs/formulas.md, "
                f"\"Achievable figures carried between parts\"): carried over unchanged; "
                f"there: {s}")

    def moved(section, lines):
        """The base section's lines with overrides applied."""
        res = []
        for line in lines:
            k = key_of(line)
            if k is None:
                if line.strip().startswith("#") or not line.strip():
                    continue
                res.append(line)
                continue
            full = f"{section}.{k}"
            if full in drop:
                continue
            if full in overrides:
                v, src = overrides[full]
                if v is None:
                    continue
                res.append(f"{k} = {fmt(v)}")
                new_src[full] = src
            else:
                res.append(strip_comment(line))
                if section.startswith("achievable.gemm.stream-split"):
                    pass
                elif full in bsrc:
                    new_src[full] = carried(full)
        return res

    blocks = split(base_text)
    carry_blocks = []
    seen = set()
    for h, lines in blocks:
        n = name(h)
        if n and (n == "launch" or n == "achievable" or n.startswith("achievable.")):
            if any(f"{n}.{k}" in drop for k in ["*"]):
                continue
            if n in drop:
                continue
            body = moved(n, lines)
            extra = [f"{k.rsplit('.', 1)[1]} = {fmt(v)}" for k, (v, src) in overrides.items()
                     if k.rsplit(".", 1)[0] == n and v is not None
                     and k.rsplit(".", 1)[1] not in {key_of(l) for l in lines}]
            for k, (v, src) in overrides.items():
                if k.rsplit(".", 1)[0] == n and v is not None and \
                        k.rsplit(".", 1)[1] not in {key_of(l) for l in lines}:
                    new_src[k] = src
            seen.add(n)
            if body or extra or h.startswith("[["):
                carry_blocks.append((h, body + extra))
            if n == "achievable.gemm.stream-split" or n.startswith("achievable.gemm"):
                for k in bsrc:
                    if k.startswith("achievable.gemm.stream-split") and k not in new_src:
                        new_src[k] = carried(k)
    # Overrides into sections the base lacks (a link the sibling has no name for).
    extra_sections = {}
    for k, (v, src) in overrides.items():
        sec, leaf = k.rsplit(".", 1)
        if (sec.startswith("achievable") or sec == "launch") and sec not in seen and v is not None:
            extra_sections.setdefault(sec, []).append(f"{leaf} = {fmt(v)}")
            new_src[k] = src

    # The kind of evidence, for the answers' band (src/calc/accuracy.rs).
    extra_sections["achievable.evidence"] = [
        'kind = "transferred"', f'from = "{base_id}"', f'rule = "{rule}"']

    # Energy figures of [package].
    pkg = []
    for k in ENERGY:
        full = f"package.{k}"
        if full in overrides:
            v, src = overrides[full]
            if v is not None:
                pkg.append(f"{k} = {fmt(v)}")
                new_src[full] = src
        elif k in base.get("package", {}):
            pkg.append(f"{k} = {fmt(base['package'][k])}")
            new_src[full] = carried(full)

    out_lines = []
    tblocks = split(tgt_text)
    old_src = tomllib.loads(tgt_text).get("sources", {})
    for h, lines in tblocks:
        n = name(h)
        if n and (n == "launch" or n == "achievable" or n.startswith("achievable.") or n == "sources"):
            continue
        if h:
            out_lines.append(h)
        if n == "package":
            lines = [l for l in lines if key_of(l) not in ENERGY]
            while lines and not lines[-1].strip():
                lines.pop()
            out_lines.extend(lines)
            out_lines.extend(pkg)
            out_lines.append("")
            continue
        out_lines.extend(lines)
    while out_lines and not out_lines[-1].strip():
        out_lines.pop()
    out_lines.append("")
    for h, body in carry_blocks:
        out_lines.append(h)
        out_lines.extend(body)
        out_lines.append("")
    for sec, body in extra_sections.items():
        out_lines.append(f"[{sec}]")
        out_lines.extend(body)
        out_lines.append("")
    out_lines.append("[sources]")
    for k, v in old_src.items():
        if k.startswith("launch.") or k.startswith("achievable.") or \
                k in {f"package.{e}" for e in ENERGY}:
            continue
        out_lines.append(f"{fmt(k)} = {fmt(v)}")
    for k, v in overrides.items():
        full, (val, src) = k, v
        if not (full.startswith("achievable") or full.startswith("launch") or
                full.startswith("package.")) and val is None:
            continue
    for k, v in new_src.items():
        out_lines.append(f"{fmt(k)} = {json_str(v)}")
    text = "\n".join(out_lines) + "\n"
    tomllib.loads(text)  # a file this writes must parse
    path = out or tgt_path
    with open(path, "w") as f:
        f.write(text)
    return path


def json_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


if __name__ == "__main__":
    import transfer_rules  # noqa: E402

    args = sys.argv[1:]
    out = None
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    parts = list(transfer_rules.RULES) if args == ["--all"] else args
    for p in parts:
        print(transfer_rules.write(p, out))

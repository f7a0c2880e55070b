"""validation/results/MANIFEST.toml: every measurement file, the script and
section that wrote it, its role (fitted on, held out, ...) and the figures
that cite it. The one place a script looks a measurement up, so a file is
found by its name wherever its dated folder is. No GPU needed.
"""

import os

try:
    import tomllib
except ModuleNotFoundError:  # Python before 3.11: the few keys this reads
    tomllib = None

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
MANIFEST = os.path.join(RESULTS, "MANIFEST.toml")


def _parse_simple(text):
    """The manifest's [[file]] tables of strings (and string lists), for a
    Python without tomllib."""
    files, cur, key = [], None, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line == "[[file]]":
            cur = {}
            files.append(cur)
        elif key is not None:
            if line == "]":
                key = None
            else:
                cur[key].append(line.rstrip(",").strip('"'))
        else:
            k, v = (s.strip() for s in line.split("=", 1))
            if v == "[":
                key, cur[k] = k, []
            else:
                cur[k] = v.strip('"')
    return {"file": files}


def entries():
    """The manifest's [[file]] entries, in its order."""
    with open(MANIFEST, "rb") as f:
        data = f.read()
    if tomllib is not None:
        return tomllib.loads(data.decode())["file"]
    return _parse_simple(data.decode())["file"]


def entry(name):
    """The one entry whose file is `name` (a bare file name, or a path
    relative to validation/results/)."""
    hits = [e for e in entries() if e["path"] == name or e["path"].split("/", 1)[1] == name]
    if len(hits) != 1:
        raise SystemExit(f"validation/results/MANIFEST.toml names {len(hits)} files {name!r}")
    return hits[0]


def path(name):
    """The absolute path of a measurement file named in the manifest."""
    return os.path.join(RESULTS, entry(name)["path"])


def load_json(name):
    import json

    with open(path(name)) as f:
        return json.load(f)

"""Chunks of 2,048 new tokens over cached prefixes of 8k to 16k on a
Llama-3-8B-shaped forward (bf16, all 32 layers, eager), with
serving_fidelity.py's model and timing, to see whether the chunk model
holds past the 14k the validation set reaches (issue 38's carried-over
point: a 2k chunk over a 16k prefix). Writes JSON rows as
serving_fidelity.py's `chunk` rows.

    python3 validation/probes/chunk_long_prefix_h200.py OUT.json
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import serving_fidelity as sf  # noqa: E402


def main():
    out = sys.argv[1]
    sf.torch.manual_seed(0)
    sf.probe_pad()
    res = dict(device=sf.torch.cuda.get_device_name(), torch=sf.torch.__version__,
               chunk=[], prefill=[], decode=[], failures=[], method=__doc__)
    M = sf.Model("llama-3-8b", "bf16", None)
    for B, q, T in [(1, 2048, 8192), (1, 2048, 14336), (1, 2048, 16384), (1, 2048, 20480),
                    (1, 512, 16384)]:
        try:
            sf.run_prefill(M, res, B, None, q=q, T=T)
        except Exception as e:  # noqa: BLE001
            res["failures"].append(f"chunk {B} {q} {T}: {e!r}")
    with open(out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

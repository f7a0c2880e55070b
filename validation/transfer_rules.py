"""The transfer rules of docs/formulas.md ("Achievable figures carried
between parts"), one entry per part: its base (the measured sibling), the
rule's name and the figures it scales or sets from public measurements,
each with its source. validation/transfer.py writes them.
"""

import os

import transfer as t

AZURE_H100 = ("measured, public: Microsoft Azure, AI-benchmarking-guide, "
              "Azure_Results/ND_H100_v5_results.md, 'HBM Bandwidth' table "
              "(https://github.com/Azure/AI-benchmarking-guide/blob/main/Azure_Results/ND_H100_v5_results.md, "
              "as of commit b79e721, 2025-02-25; GPU 'NVIDIA H100 80GB HBM3'): BabelStream Triad 2.97 TB/s "
              "(88.7% of 3.35 TB/s); Triad is taken because Azure's ND H200 v5 table gives Triad 4.18 TB/s, "
              "within 1% of hardware/h200-sxm.toml's measured read-only stream (4,202.7 GB/s)")

HOPPER = "Hopper sibling"


def h100_predicted(out):
    """The transfer test's prediction (validation/h100-transfer/): the H200's
    measured figures carried to the H100 (the same GH100 die, clocks, power
    limit, NVLink 4 and software), the memory stream from a public H100
    measurement. Written before any H100 was measured here."""
    ov = {"achievable.hbm-bandwidth": ("2970 GB/s", AZURE_H100)}
    return t.transfer("h200-sxm", "h100-sxm", HOPPER, ov, out=out)


RULES = {"h100-predicted": h100_predicted}


def write(part, out=None):
    if part == "h100-predicted":
        out = out or os.path.join(t.ROOT, "validation", "h100-transfer", "hw", "h100-sxm.toml")
    return RULES[part](out)

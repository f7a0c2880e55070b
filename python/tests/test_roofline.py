"""The Python package against the command line: the same numbers, the same
catalog, the same errors; then what only Python has (objects, sweeps into
tables, notebook display)."""

import json
import math
import sys

import pytest

import roofline
from conftest import ROOT

H100_BANDWIDTH = 3.35e12  # H100 SXM HBM3, the datasheet's 3.35 TB/s

# Every command, as Python calls it and as the CLI is typed.
CASES = [
    ("hw_show", dict(hw="h100-sxm", dtype="fp8"), ["hw", "show", "h100-sxm", "--dtype", "fp8"]),
    ("hw_show", dict(hw=["h100-sxm", "mi355x"]), ["hw", "show", "h100-sxm,mi355x"]),
    ("hw_list", dict(), ["hw", "list"]),
    ("model_list", dict(), ["model", "list"]),
    ("model_show", dict(model="llama-3-8b"), ["model", "show", "llama-3-8b"]),
    ("model_show", dict(model="llama-3-8b", dtype=["bf16", "fp8", "int4"]),
     ["model", "show", "llama-3-8b", "--sweep", "dtype=bf16,fp8,int4"]),
    # A Hugging Face config.json read as the CLI reads it.
    ("model_show", dict(model=str(ROOT / "tests/data/hf/mixtral-8x7b.json")),
     ["model", "show", str(ROOT / "tests/data/hf/mixtral-8x7b.json")]),
    ("decode", dict(model=str(ROOT / "tests/data/hf/llama-3-8b.json"), hw="h200-sxm", batch=32, context=8192),
     ["decode", "--model", str(ROOT / "tests/data/hf/llama-3-8b.json"), "--hw", "h200-sxm", "--batch", "32",
      "--context", "8192"]),
    ("point", dict(hw="h100-sxm", intensity=1), ["point", "--hw", "h100-sxm", "--intensity", "1"]),
    ("point", dict(hw="h100-sxm", flops="137.4GFLOP", bytes="100.7MB"),
     ["point", "--hw", "h100-sxm", "--flops", "137.4GFLOP", "--bytes", "100.7MB"]),
    ("occupancy", dict(hw="h100-sxm", threads=256, regs=64, smem="32KiB", textbook=True),
     ["occupancy", "--hw", "h100-sxm", "--threads", "256", "--regs", "64", "--smem", "32KiB", "--textbook"]),
    ("coalesce", dict(hw="h100-sxm", dtype="fp32", stride=32, granularity="segment"),
     ["coalesce", "--hw", "h100-sxm", "--dtype", "fp32", "--stride", "32", "--granularity", "segment"]),
    ("littles_law", dict(hw="h100-sxm", latency="500 cycles", clock="1.8GHz"),
     ["littles-law", "--hw", "h100-sxm", "--latency", "500 cycles", "--clock", "1.8GHz"]),
    ("matmul", dict(hw="h100-sxm", m=4096, n=4096, k=4096, tile=128),
     ["matmul", "--hw", "h100-sxm", "--m", "4096", "--n", "4096", "--k", "4096", "--tile", "128"]),
    ("matmul", dict(m=4096, n=4096, k=4096, tile=[32, 64, 128]),
     ["matmul", "--m", "4096", "--n", "4096", "--k", "4096", "--sweep", "tile=32,64,128"]),
    ("fusion_softmax", dict(rows=4096, cols=4096, dtype="bf16", hw="h100-sxm"),
     ["fusion", "softmax", "--rows", "4096", "--cols", "4096", "--dtype", "bf16", "--hw", "h100-sxm"]),
    ("fusion_chain", dict(ops=3, elements=134217728), ["fusion", "chain", "--ops", "3", "--elements", "134217728"]),
    ("fusion_epilogue", dict(tokens=32768, width=11008, layers=32),
     ["fusion", "epilogue", "--tokens", "32768", "--width", "11008", "--layers", "32"]),
    ("launch", dict(kernels=490, overhead="5 us", floor="4.0 ms", fused_kernels=163),
     ["launch", "--kernels", "490", "--overhead", "5 us", "--floor", "4.0 ms", "--fused-kernels", "163"]),
    ("kv", dict(model="llama-3-8b", context=8192, batch=32, hw="h200-sxm"),
     ["kv", "--model", "llama-3-8b", "--context", "8192", "--batch", "32", "--hw", "h200-sxm"]),
    ("decode", dict(model="llama-3-8b", hw="h200-sxm", batch=32, context=8192),
     ["decode", "--model", "llama-3-8b", "--hw", "h200-sxm", "--batch", "32", "--context", "8192"]),
    ("decode", dict(model="llama-3-8b", hw="h200-sxm", batch=32, context=4096, achievable=True),
     ["decode", "--model", "llama-3-8b", "--hw", "h200-sxm", "--batch", "32", "--context", "4096", "--achievable"]),
    ("decode", dict(model="llama-3-8b", hw="h200-sxm", batch=8, context=2048, speculative="0.8,4,0.05"),
     ["decode", "--model", "llama-3-8b", "--hw", "h200-sxm", "--batch", "8", "--context", "2048",
      "--speculative", "0.8,4,0.05"]),
    ("decode", dict(model="llama-3-8b", hw=["h100-sxm", "h200-sxm"], batch=[1, 8, 64], context="8k",
                    kv_dtype="fp8"),
     ["decode", "--model", "llama-3-8b", "--hw", "h100-sxm,h200-sxm", "--batch", "1", "--context", "8k",
      "--kv-dtype", "fp8", "--sweep", "batch=1,8,64"]),
    ("prefill", dict(model="llama-3-8b", hw="h200-sxm", prompt=4096, chunk=1024),
     ["prefill", "--model", "llama-3-8b", "--hw", "h200-sxm", "--prompt", "4096", "--chunk", "1024"]),
    ("speculative", dict(acceptance=0.8, draft_tokens=4, draft_cost=0.05),
     ["speculative", "--acceptance", "0.8", "--draft-tokens", "4", "--draft-cost", "0.05"]),
    ("collective", dict(kind="all-reduce", hw="h200-sxm", devices=8, bytes="1GiB"),
     ["collective", "all-reduce", "--hw", "h200-sxm", "--devices", "8", "--bytes", "1GiB"]),
    ("simulate", dict(model="llama-3-8b", hw="h200-sxm", rate="12/s", prompt=2048, output=256, requests=200),
     ["simulate", "--model", "llama-3-8b", "--hw", "h200-sxm", "--rate", "12/s", "--prompt", "2048",
      "--output", "256", "--requests", "200"]),
    # fleet's parts with joint=True are one joint search: a Python list is
    # the CLI's comma-separated --hw --joint, not one search per part.
    ("fleet", dict(model="llama-3-8b", hw=["h100-sxm", "h200-sxm"], joint=True, rate="20/s", prompt=512, output=64,
                   slo_ttft="2s", slo_tpot="50ms", requests=100, max_devices=8),
     ["fleet", "--model", "llama-3-8b", "--hw", "h100-sxm,h200-sxm", "--joint", "--rate", "20/s", "--prompt", "512",
      "--output", "64", "--slo-ttft", "2s", "--slo-tpot", "50ms", "--requests", "100", "--max-devices", "8"]),
    # Without joint, a list of parts is compared: each part's own search.
    ("fleet", dict(model="llama-3-8b", hw=["h100-sxm", "h200-sxm"], rate="20/s", prompt=512, output=64,
                   slo_ttft="2s", slo_tpot="50ms", requests=100, max_devices=8),
     ["fleet", "--model", "llama-3-8b", "--hw", "h100-sxm,h200-sxm", "--rate", "20/s", "--prompt", "512",
      "--output", "64", "--slo-ttft", "2s", "--slo-tpot", "50ms", "--requests", "100", "--max-devices", "8"]),
    ("fleet", dict(model="llama-3-8b", hw="h200-sxm", rate="100/s", prompt="lognormal:1024,0.5", output=200,
                   slo_ttft="p50=300ms", slo_tpot="30ms", requests=200, max_devices=16),
     ["fleet", "--model", "llama-3-8b", "--hw", "h200-sxm", "--rate", "100/s", "--prompt", "lognormal:1024,0.5",
      "--output", "200", "--slo-ttft", "p50=300ms", "--slo-tpot", "30ms", "--requests", "200",
      "--max-devices", "16"]),
    # Power, energy and cost: the CLI's --price, --energy-price and --pue.
    ("decode", dict(model="llama-3-8b", hw="h200-sxm", batch=64, context=2048, achievable=True, price="2.50/h",
                    energy_price="0.10/kWh", pue=1.3),
     ["decode", "--model", "llama-3-8b", "--hw", "h200-sxm", "--batch", "64", "--context", "2048", "--achievable",
      "--price", "2.50/h", "--energy-price", "0.10/kWh", "--pue", "1.3"]),
    ("point", dict(hw="h200-sxm", intensity=100, achievable=True, price="2.50/h"),
     ["point", "--hw", "h200-sxm", "--intensity", "100", "--achievable", "--price", "2.50/h"]),
    ("matmul", dict(hw="h200-sxm", m=8192, n=8192, k=8192, achievable=True, launch="graph", price="2.50/h"),
     ["matmul", "--hw", "h200-sxm", "--m", "8192", "--n", "8192", "--k", "8192", "--achievable", "--launch", "graph",
      "--price", "2.50/h"]),
    ("prefill", dict(model="llama-3-8b", hw="h200-sxm", prompt=512, context=4096, achievable=True,
                     energy_price="0.10/kWh"),
     ["prefill", "--model", "llama-3-8b", "--hw", "h200-sxm", "--prompt", "512", "--context", "4096",
      "--achievable", "--energy-price", "0.10/kWh"]),
    # An engine profile (issue 38): the grouped experts and the custom all-reduce as the CLI prices them.
    ("decode", dict(model="mixtral-8x7b", hw="h200-sxm", batch=16, context=1024, achievable=True, engine="vllm"),
     ["decode", "--model", "mixtral-8x7b", "--hw", "h200-sxm", "--batch", "16", "--context", "1024",
      "--achievable", "--engine", "vllm"]),
    ("collective", dict(kind="all-reduce", hw="h200-sxm", devices=8, bytes="16KiB", achievable=True, launch="graph",
                        engine="trtllm"),
     ["collective", "all-reduce", "--hw", "h200-sxm", "--devices", "8", "--bytes", "16KiB", "--achievable",
      "--launch", "graph", "--engine", "trtllm"]),
    ("collective", dict(kind="all-reduce", hw="h200-sxm", devices=8, bytes="64MiB", achievable=True, launch="graph"),
     ["collective", "all-reduce", "--hw", "h200-sxm", "--devices", "8", "--bytes", "64MiB", "--achievable",
      "--launch", "graph"]),
    ("plan", dict(model="llama-3.1-70b", hw="h200-sxm", devices=8, tp=8, batch=32, dtype="fp8", activations="fp8",
                  launch="eager", price="3/h"),
     ["plan", "--model", "llama-3.1-70b", "--hw", "h200-sxm", "--devices", "8", "--tp", "8", "--batch", "32",
      "--dtype", "fp8", "--activations", "fp8", "--launch", "eager", "--price", "3/h"]),
    ("simulate", dict(model="llama-3-8b", hw="h200-sxm", rate="4/s", prompt=6000, output=64, requests=60,
                      prefill_dp=2, prefill_max_batched_tokens=4096, price="2.50/h"),
     ["simulate", "--model", "llama-3-8b", "--hw", "h200-sxm", "--rate", "4/s", "--prompt", "6000", "--output",
      "64", "--requests", "60", "--prefill-dp", "2", "--prefill-max-batched-tokens", "4096", "--price", "2.50/h"]),
    ("fleet", dict(model="llama-3-8b", hw="h200-sxm", rate="10/s", prompt=512, output=64, slo_tpot="50ms",
                   requests=100, max_devices=4, objective="cost", price="3.50/h", energy_price="0.12/kWh"),
     ["fleet", "--model", "llama-3-8b", "--hw", "h200-sxm", "--rate", "10/s", "--prompt", "512", "--output", "64",
      "--slo-tpot", "50ms", "--requests", "100", "--max-devices", "4", "--objective", "cost", "--price", "3.50/h",
      "--energy-price", "0.12/kWh"]),
    ("plan", dict(model="llama-3.1-70b", hw="h200-sxm", devices=8, tp=8, batch=32),
     ["plan", "--model", "llama-3.1-70b", "--hw", "h200-sxm", "--devices", "8", "--tp", "8", "--batch", "32"]),
    ("plan", dict(model="llama-3.1-70b", hw="h200-sxm", search=True, devices=16, objective="throughput",
                  batch=32),
     ["plan", "--model", "llama-3.1-70b", "--hw", "h200-sxm", "--search", "--devices", "16",
      "--objective", "throughput", "--batch", "32"]),
]


def as_given(report):
    """A swept input the command does not resolve itself (matmul's `tile`)
    keeps its value as given: the CLI's text `"32"`, Python's number 32.
    Compare such values as numbers.

    The CLI streams a sweep's JSON (docs/cli.md): its top-level `inputs`
    are the first point's and a row's `inputs` add what differs, where a
    collected report keeps the shared inputs on top. So a sweep compares
    each row's axis values, results and error, not where inputs sit."""
    if report.get("rows") and report.get("axes"):
        axes = [a if isinstance(a, str) else a.get("name") for a in report["axes"]]
        report.pop("inputs", None)
        for row in report["rows"]:
            row["inputs"] = {k: v for k, v in row["inputs"].items() if k in axes}
    for row in report.get("rows", []):
        for k, v in row["inputs"].items():
            if isinstance(v, str):
                try:
                    row["inputs"][k] = float(v)
                except ValueError:
                    pass
            elif isinstance(v, int) and not isinstance(v, bool):
                row["inputs"][k] = float(v)
    return report


class TestSameAsCli:
    @pytest.mark.parametrize("fn,kwargs,argv", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
    def test_json_matches(self, cli, fn, kwargs, argv):
        code, expected, err = cli(*argv, "--format", "json")
        assert code == 0, err
        got = json.loads(getattr(roofline, fn)(**kwargs).to_json())
        assert as_given(got) == as_given(expected)

    def test_every_command_is_covered(self):
        covered = {c[0] for c in CASES}
        commands = {
            "hw_show", "hw_list", "model_show", "model_list", "point", "occupancy", "coalesce",
            "littles_law", "matmul", "fusion_softmax", "fusion_chain", "fusion_epilogue", "launch",
            "kv", "decode", "prefill", "speculative", "collective", "plan", "simulate", "fleet",
        }
        assert commands <= covered

    def test_every_flag_is_an_argument(self, cli):
        """Each command's flags (its --help, less the common options) are
        the function's keyword arguments, `-` written `_`: what the CLI
        takes, Python takes."""
        import inspect
        import re

        functions = {c[0] for c in CASES}
        for fn in sorted(functions):
            argv = fn.replace("fusion_", "fusion ").replace("littles_law", "littles-law")
            argv = argv.replace("hw_", "hw ").replace("model_", "model ").split()
            code, text, err = cli(*argv, "--help", as_json=False)
            assert code == 0, err
            own = text.split("Common options:")[0]
            flags = {f.replace("-", "_") for f in re.findall(r"^\s+(?:-\w, )?--([\w-]+)", own, re.M)}
            flags -= {"help", "explain"}
            params = set(inspect.signature(getattr(roofline, fn)).parameters)
            assert flags <= params, f"{fn} lacks {sorted(flags - params)}"

    def test_an_edit_is_the_clis_set(self, cli):
        h = roofline.hardware("h100-sxm").set({"memory.hbm-bandwidth": "4.8 TB/s"})
        code, expected, err = cli("point", "--hw", "h100-sxm", "--intensity", "1",
                                  "--set", "memory.hbm-bandwidth=4.8 TB/s", "--format", "json")
        assert code == 0, err
        r = roofline.point(hw=h, intensity=1)
        assert json.loads(r.to_json()) == expected
        # 4.8 TB/s times 1 FLOP/B, far below the ridge.
        assert r.results["attainable_flops_per_s"] == pytest.approx(4.8e12)
        assert any("what-if" in n for n in r.notes)

    def test_explain_matches(self, cli):
        code, expected, _ = cli("point", "--hw", "h100-sxm", "--intensity", "1", "--explain", as_json=False)
        assert code == 0
        assert roofline.point(hw="h100-sxm", intensity=1).explain() == expected

    def test_table_matches(self, cli):
        code, expected, _ = cli("kv", "--model", "llama-3-8b", "--context", "8192", as_json=False)
        assert code == 0
        assert roofline.kv(model="llama-3-8b", context=8192).table() == expected

    @pytest.mark.parametrize("kwargs,argv", [
        (dict(hw="h100-sxm", intensity="fast"), ["point", "--hw", "h100-sxm", "--intensity", "fast"]),
        (dict(hw="h100-smx", intensity=1), ["point", "--hw", "h100-smx", "--intensity", "1"]),
        (dict(hw="h100-sxm"), ["point", "--hw", "h100-sxm"]),
        (dict(hw="no/such/file.toml", intensity=1), ["point", "--hw", "no/such/file.toml", "--intensity", "1"]),
    ])
    def test_errors_carry_the_clis_exit_code(self, cli, kwargs, argv):
        code, _, _ = cli(*argv)
        with pytest.raises(roofline.RooflineError) as e:
            roofline.point(**kwargs)
        assert e.value.exit_code == code


class TestReport:
    def test_results_are_base_unit_floats(self):
        r = roofline.point(hw="h100-sxm", intensity=1)
        assert r.results["attainable_flops_per_s"] == pytest.approx(H100_BANDWIDTH)
        assert r["bound"] == "memory"
        assert r.inputs["intensity"] == 1.0
        assert r.command == "point" and r.hardware == "h100-sxm"
        assert r.to_dict()["results"] == r.results

    def test_quantities_with_units_are_accepted_as_text(self):
        a = roofline.point(hw="h100-sxm", flops="137.4 GFLOP", bytes="100.7 MB")
        b = roofline.point(hw="h100-sxm", flops=137.4e9, bytes=100.7e6)
        assert a.results == b.results

    def test_missing_key_says_what_there_is(self):
        with pytest.raises(KeyError, match="bound"):
            roofline.point(hw="h100-sxm", intensity=1)["nope"]

    def test_html_cells_carry_exact_values(self):
        r = roofline.decode(model="llama-3-8b", hw="h200-sxm", batch=32, context=8192)
        html = r._repr_html_()
        t = r.results["step_time_s"]
        assert f'data-key="step_time_s" data-value="{json.dumps(t)}"' in html
        for n in r.notes:
            assert n.split(":")[0] in html

    def test_repr_is_the_table(self):
        r = roofline.kv(model="llama-3-8b", context=8192)
        assert repr(r) == r.table()
        assert "KV" in repr(r)

    def test_explain_of_a_sweep_has_every_point(self):
        r = roofline.point(hw="h100-sxm", intensity=[1, 2, 4])
        assert len(r.rows) == 3
        text = r.explain()
        assert text.count("point · h100-sxm") == 3

    def test_charts_are_svg(self):
        c = roofline.roofline_chart(["h100-sxm", "h200-sxm"], points=["decode:1"])
        assert c._repr_svg_().lstrip().startswith("<svg")
        s = roofline.point(hw="h100-sxm", intensity=[1, 4, 16, 64]).chart(y=["attainable_flops_per_s"])
        assert "<svg" in s.svg()

    def test_chart_save(self, tmp_path):
        c = roofline.roofline_chart("h100-sxm")
        c.save(tmp_path / "r.png")
        assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
        with pytest.raises(roofline.DataError, match="svg or .png"):
            c.save(tmp_path / "r.gif")


class TestHardware:
    def test_catalog_is_listable(self):
        ids = roofline.hardware_ids()
        assert "h100-sxm" in ids and "h200-sxm" in ids
        assert "llama-3-8b" in roofline.model_ids()
        rows = roofline.hw_list().rows
        assert [r["inputs"]["id"] for r in rows] == ids

    def test_set_returns_an_edited_copy(self):
        h = roofline.hardware("h200-sxm")
        e = h.set({"memory.hbm-bandwidth": "5 TB/s"})
        assert h.edits == [] and e.edits == ["memory.hbm-bandwidth=5 TB/s"]
        assert repr(e) == 'roofline.hardware("h200-sxm").set({"memory.hbm-bandwidth": "5 TB/s"})'
        assert e.show().results["hbm_bandwidth_bytes_per_s"] == pytest.approx(5e12)

    def test_a_bad_edit_fails_at_once(self):
        with pytest.raises(roofline.DataError, match="hbm-bandwidth"):
            roofline.hardware("h200-sxm").set({"memory.hbm-bandwith": "5 TB/s"})
        with pytest.raises(roofline.DataError, match="model field"):
            roofline.hardware("h200-sxm").set({"layers": 16})

    def test_model_edits(self):
        m = roofline.model("llama-3-8b").set({"layers": 16})
        full = roofline.model_show("llama-3-8b").results
        half = m.show().results
        assert half["layers"] == full["layers"] / 2 if "layers" in full else half != full

    def test_unknown_id_suggests(self):
        with pytest.raises(roofline.DataError, match="did you mean `h100-sxm`"):
            roofline.hardware("h100-smx")

    def test_a_path_loads(self):
        from conftest import ROOT
        h = roofline.hardware(str(ROOT / "tests" / "data" / "minimal-gpu.toml"))
        # The fixture: 100 TFLOP/s over 1 TB/s, a ridge at 100 FLOP/B.
        r = roofline.point(hw=h, intensity=1000)
        assert r.results["ridge_point_flop_per_byte"] == pytest.approx(100.0)


class TestSweep:
    def test_dataframe_has_axes_and_results(self):
        pd = pytest.importorskip("pandas")
        df = roofline.sweep("decode", model="llama-3-8b", hw=["h100-sxm", "h200-sxm"],
                            batch=range(1, 33), context=8192)
        assert isinstance(df, pd.DataFrame)
        assert len(df) == 64
        assert list(df.columns[:2]) == ["hardware", "batch"]
        # Memory-bound decode: the H200's 4.8 TB/s against the H100's 3.35
        # TB/s, for the same bytes at batch 1.
        t = df[df.batch == 1].set_index("hardware")["step_time_s"]
        assert t["h100-sxm"] / t["h200-sxm"] == pytest.approx(4.8 / 3.35, rel=1e-3)

    def test_column_types(self):
        """Switches are a bool column, texts a text column, and a result a
        part lacks (the H800 file has no power figures, so its energy is
        null in the JSON) is NaN in a float column, as pandas reads a
        list with gaps."""
        pd = pytest.importorskip("pandas")
        df = roofline.sweep("decode", model="llama-3-8b", hw=["h200-sxm", "h800"], batch=[1, 2], context=1024)
        assert df["fits"].dtype == bool
        assert list(df["bound"]) == ["memory"] * 4
        assert df["power_w"].dtype == float
        h800 = df[df.hardware == "h800"]
        assert h800["power_w"].isna().all()
        single = roofline.decode(model="llama-3-8b", hw="h800", batch=1, context=1024)
        assert single.results["power_w"] is None
        assert df[df.hardware == "h200-sxm"]["power_w"].tolist() == [700.0, 700.0]  # the H200's 700 W TDP

    def test_same_values_as_a_single_call(self):
        rows = roofline.sweep("hw_show", hw=["h100-sxm", "h200-sxm"])
        pd = sys.modules.get("pandas")
        if pd is not None:
            rows = rows.to_dict("records")
        single = roofline.hw_show("h200-sxm").results
        assert rows[1]["hbm_bandwidth_bytes_per_s"] == single["hbm_bandwidth_bytes_per_s"]

    def test_without_pandas_a_list_of_dicts(self, monkeypatch):
        monkeypatch.setitem(sys.modules, "pandas", None)
        rows = roofline.sweep("point", hw="h100-sxm", intensity=[1, 2])
        assert isinstance(rows, list) and len(rows) == 2
        assert rows[1]["intensity"] == 2
        assert rows[1]["attainable_flops_per_s"] == pytest.approx(2 * H100_BANDWIDTH)

    def test_unknown_command(self):
        with pytest.raises(roofline.DataError, match="did you mean `decode`"):
            roofline.sweep("decod", batch=[1, 2])


class TestErrors:
    def test_one_class_per_kind_under_one_base(self):
        for cls in (roofline.DataError, roofline.UsageError, roofline.NoAnswerError, roofline.FileError):
            assert issubclass(cls, roofline.RooflineError)
        assert issubclass(roofline.RooflineError, ValueError)

    def test_a_bad_unit_names_the_field(self):
        with pytest.raises(roofline.DataError) as e:
            roofline.decode(model="llama-3-8b", hw="h200-sxm", batch=1, context="8 parsecs")
        assert e.value.field == "context"
        assert "context" in str(e.value)

    def test_missing_input_is_usage(self):
        with pytest.raises(roofline.UsageError):
            roofline.decode(model="llama-3-8b", batch=1, context=1024)

    def test_unreadable_file_is_file_error(self):
        with pytest.raises(roofline.FileError, match="no/such.toml"):
            roofline.hardware("no/such.toml")

    def test_no_answer(self):
        # Llama-3.1-70B's 141 GB of bf16 weights cannot fit one 80 GB H100:
        # a decode step there has no answer.
        with pytest.raises(roofline.NoAnswerError) as e:
            roofline.decode(model="llama-3.1-70b", hw="h100-sxm", batch=1, context=1024)
        assert e.value.exit_code == 1

    def test_kv_says_what_does_not_fit(self):
        # kv answers the sizes there and says it does not fit (issue 37).
        r = roofline.kv(model="llama-3.1-70b", context=1024, hw="h100-sxm")
        assert r.results["fits"] is False
        assert r.results["max_batch"] == 0
        assert any("does not fit" in n for n in r.notes)

    def test_kv_tp_splits_the_weights_and_heads(self):
        # tests/cmd/kv-tp-70b-h200.toml's hand derivation: (70,553,706,496 -
        # 1,318,912 norms) / 4 + 1,318,912 parameters x 2 B per device, and
        # 2 of the 8 KV heads.
        r = roofline.kv(model="llama-3.1-70b", context=8192, batch=16, hw="h200-sxm", tp=4)
        assert r.results["weight_bytes"] == 35_278_831_616
        assert r.results["kv_share"] == 0.25
        assert r.results["max_batch"] == 148

    def test_not_a_number_is_refused(self):
        with pytest.raises(roofline.DataError, match="finite"):
            roofline.point(hw="h100-sxm", intensity=math.inf)
        with pytest.raises(roofline.DataError, match="expected a number"):
            roofline.point(hw="h100-sxm", intensity={"a": 1})

    def test_huge_values_are_errors_not_crashes(self):
        with pytest.raises(roofline.RooflineError):
            roofline.decode(model="llama-3-8b", hw="h200-sxm", batch=2**63, context=1024)
        with pytest.raises(roofline.RooflineError):
            roofline.decode(model="llama-3-8b", hw="h200-sxm", batch=2**80, context=1024)


class TestEngines:
    def test_grouped_experts_are_faster_than_a_loop(self):
        # Mixtral's experts as vLLM's grouped GEMMs against PyTorch's loop
        # over experts (engines/*.toml): fewer kernels, less time.
        f = lambda e: roofline.decode(model="mixtral-8x7b", hw="h200-sxm", batch=16, context=1024,
                                      achievable=True, engine=e)
        vllm, torch = f("vllm"), f("pytorch")
        assert vllm.results["step_time_s"] < torch.results["step_time_s"]
        assert vllm.results["kernels"] < torch.results["kernels"]

    def test_an_engine_set_edits_one_field(self):
        # The default engine with grouped dispatch prices as vLLM's dispatch does
        # for the experts: fewer kernels than the loop.
        loop = roofline.decode(model="mixtral-8x7b", hw="h200-sxm", batch=16, context=1024, achievable=True)
        grouped = roofline.decode(model="mixtral-8x7b", hw="h200-sxm", batch=16, context=1024, achievable=True,
                                  set=["engine.moe.dispatch=grouped"])
        assert grouped.results["kernels"] < loop.results["kernels"]

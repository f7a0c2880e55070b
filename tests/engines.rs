//! Engine profiles (issue 38): the catalog, the default engine's answers
//! unchanged, grouped expert dispatch against the H200 measurements of
//! validation/engine_moe_h200.py (validation/results/2026-12-02-h200/h200-engine-moe-*.json, raw
//! data committed with the script), and the engines' all-reduce.

use roofline::catalog::Catalog;
use roofline::error::Result;
use roofline::inputs::Fields;
use roofline::query::{Context, evaluate};
use roofline::report::Report;
use roofline::spec::hardware::Mode;
use serde_json::Value;

fn run(command: &str, mode: Mode, sets: &[&str], pairs: &[(&str, Value)]) -> Result<Report> {
    let sets = Context::parse_sets(sets)?;
    let ctx = Context::new(Catalog::default(), sets, mode);
    let mut f = Fields::new();
    for (k, v) in pairs {
        f.insert((*k).into(), v.clone());
    }
    let mut r = evaluate(&ctx, command, &f, &[], false)?;
    Ok(r.remove(0))
}

fn num(r: &Report, key: &str) -> f64 {
    r.results[key].as_f64().unwrap_or_else(|| panic!("{key}"))
}

#[test]
fn the_catalog_lists_four_engines_and_pytorch_is_the_default() {
    let r = run("engine list", Mode::SpeedOfLight, &[], &[]).unwrap();
    let ids: Vec<&str> = r
        .rows
        .iter()
        .map(|r| r.inputs["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["pytorch", "sglang", "trtllm", "vllm"]);
    // Every existing answer is the pytorch file's: the same numbers with
    // and without --engine pytorch, dense and MoE, decode and prefill.
    for model in ["llama-3-8b", "mixtral-8x7b"] {
        let base = [
            ("model", Value::from(model)),
            ("hw", "h200-sxm".into()),
            ("batch", 16.into()),
            ("context", 1024.into()),
        ];
        let mut named = base.to_vec();
        named.push(("engine", "pytorch".into()));
        for mode in [Mode::SpeedOfLight, Mode::Achievable] {
            let a = run("decode", mode, &[], &base).unwrap();
            let b = run("decode", mode, &[], &named).unwrap();
            assert_eq!(a.results, b.results, "{model} {mode:?}");
        }
    }
}

#[test]
fn a_bad_engine_file_is_bad_data() {
    // An unknown field, and a field without a source, exit 65.
    let e = run(
        "engine show",
        Mode::SpeedOfLight,
        &["engine.moe.dispatchh=grouped"],
        &[("engine", "pytorch".into())],
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 65, "{e}");
    let e = run(
        "engine show",
        Mode::SpeedOfLight,
        &[],
        &[("engine", "tests/data/engines/no-source.toml".into())],
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 65, "{e}");
    assert!(e.to_string().contains("fusion.rotary"), "{e}");
    // A dispatch value the file format lacks.
    let e = run(
        "engine show",
        Mode::SpeedOfLight,
        &["engine.moe.dispatch=scatter"],
        &[("engine", "pytorch".into())],
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 65, "{e}");
}

/// Every measured point of validation/results/2026-12-02-h200/h200-engine-moe-*.json with the
/// tool's achievable and speed-of-light times: (label, dispatch, kind,
/// measured, achievable, speed of light).
fn points() -> Vec<(String, String, &'static str, f64, f64, f64)> {
    let models = [
        ("qwen3", "tests/data/engines/qwen3-30b-a3b-shape.toml"),
        ("mixtral", "mixtral-8x7b"),
        ("deepseek", "tests/data/engines/deepseek-v3-moe4.toml"),
    ];
    let mut out = Vec::new();
    for (key, model) in models {
        let text = std::fs::read_to_string(format!(
            "validation/results/2026-12-02-h200/h200-engine-moe-{key}.json"
        ))
        .unwrap();
        let d: Value = serde_json::from_str(&text).unwrap();
        for r in d["decode"].as_array().unwrap() {
            let disp = r["dispatch"].as_str().unwrap().to_string();
            let sets: &[&str] = if disp == "grouped" {
                &["engine.moe.dispatch=grouped"]
            } else {
                &[]
            };
            let f = [
                ("model", Value::from(model)),
                ("hw", "h200-sxm".into()),
                ("batch", r["batch"].clone()),
                ("context", r["context"].clone()),
                ("launch", "graph".into()),
            ];
            let t = num(
                &run("decode", Mode::Achievable, sets, &f).unwrap(),
                "step_time_s",
            );
            let sol = num(
                &run("decode", Mode::SpeedOfLight, &[], &f[..4]).unwrap(),
                "step_time_s",
            );
            let label = format!("{key} decode {disp} B={}", r["batch"]);
            out.push((
                label,
                disp,
                "decode",
                r["graph_s"].as_f64().unwrap(),
                t,
                sol,
            ));
        }
        for r in d["prefill"].as_array().unwrap() {
            for (launch, col) in [("eager", "eager_s"), ("graph", "graph_s")] {
                let f = [
                    ("model", Value::from(model)),
                    ("hw", "h200-sxm".into()),
                    ("prompt", r["prompt"].clone()),
                    ("launch", launch.into()),
                ];
                let sets = &["engine.moe.dispatch=grouped"];
                let t = num(
                    &run("prefill", Mode::Achievable, sets, &f).unwrap(),
                    "time_s",
                );
                let sol = num(
                    &run("prefill", Mode::SpeedOfLight, &[], &f[..3]).unwrap(),
                    "time_s",
                );
                let label = format!("{key} prefill S={} {launch}", r["prompt"]);
                out.push((
                    label,
                    "grouped".into(),
                    "prefill",
                    r[col].as_f64().unwrap(),
                    t,
                    sol,
                ));
            }
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[test]
fn grouped_and_looped_experts_against_the_h200_measurements() {
    let pts = points();
    assert_eq!(pts.len(), 39);
    // The one point moe.grouped.weight-stream-fraction was fitted to
    // (engines/pytorch.toml's source) is left out of the held-out errors.
    let held = |p: &&(String, String, &str, f64, f64, f64)| p.0 != "mixtral decode grouped B=64";
    let err = |p: &(String, String, &str, f64, f64, f64)| (p.4 / p.3 - 1.0).abs();
    let group = |disp: &str, kind: &str| -> Vec<f64> {
        pts.iter()
            .filter(held)
            .filter(|p| p.1 == disp && p.2 == kind)
            .map(err)
            .collect()
    };
    let (gd, ld, gp) = (
        group("grouped", "decode"),
        group("loop", "decode"),
        group("grouped", "prefill"),
    );
    assert_eq!((gd.len(), ld.len(), gp.len()), (14, 6, 18));
    let worst = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    assert!(
        median(gd.clone()) <= 0.15 && worst(&gd) <= 0.25,
        "grouped decode {gd:?}"
    );
    assert!(worst(&gp) <= 0.25, "grouped prefill {gp:?}");
    assert!(median(ld.clone()) <= 0.15, "loop decode {ld:?}");
    // The speed of light is below every measurement.
    for p in &pts {
        assert!(
            p.5 < p.3,
            "{}: speed of light {} above measured {}",
            p.0,
            p.5,
            p.3
        );
    }
}

#[test]
fn grouped_decode_on_an_h100_with_its_own_grouped_figures() {
    // Qwen3-30B-A3B-shaped grouped decode measured on an H100 in the same
    // call as the calibration rows hardware/h100-sxm.toml's
    // achievable.grouped-gemm figures come from, but not among them
    // (validation/results/2026-12-07-h100b/h100b-engine-moe-qwen3.json;
    // docs/validation.md, "Grouped expert GEMMs on the H100"): within 8%
    // median and 10% worst, and below the engine's H200 figure's answer,
    // which priced them 17% to 23% slow from batch 16.
    let text =
        std::fs::read_to_string("validation/results/2026-12-07-h100b/h100b-engine-moe-qwen3.json")
            .unwrap();
    let d: Value = serde_json::from_str(&text).unwrap();
    assert!(d["device"].as_str().unwrap().contains("H100"));
    let mut errs = Vec::new();
    for r in d["decode"].as_array().unwrap() {
        if r["dispatch"] != "grouped" {
            continue;
        }
        let f = [
            (
                "model",
                Value::from("tests/data/engines/qwen3-30b-a3b-shape.toml"),
            ),
            ("hw", "h100-sxm".into()),
            ("batch", r["batch"].clone()),
            ("context", r["context"].clone()),
            ("launch", "graph".into()),
        ];
        let t = num(
            &run(
                "decode",
                Mode::Achievable,
                &["engine.moe.dispatch=grouped"],
                &f,
            )
            .unwrap(),
            "step_time_s",
        );
        let sol = num(
            &run("decode", Mode::SpeedOfLight, &[], &f[..4]).unwrap(),
            "step_time_s",
        );
        let measured = r["graph_s"].as_f64().unwrap();
        assert!(
            sol < measured,
            "B={}: speed of light {sol} above {measured}",
            r["batch"]
        );
        errs.push((t / measured - 1.0).abs());
    }
    assert_eq!(errs.len(), 5);
    let worst = errs.iter().copied().fold(0.0, f64::max);
    assert!(median(errs.clone()) <= 0.08 && worst <= 0.10, "{errs:?}");
}

#[test]
fn a_grouped_step_runs_the_profiled_kernels() {
    // Qwen3-30B-A3B-shaped decode at batch 1 replayed from a graph: the
    // profiler counted 1,684 kernels
    // (validation/results/2026-12-02-h200/h200-engine-moe-qwen3-profiles.json);
    // the step's kernels follow the engine's counts.
    let f = [
        (
            "model",
            Value::from("tests/data/engines/qwen3-30b-a3b-shape.toml"),
        ),
        ("hw", "h200-sxm".into()),
        ("batch", 1.into()),
        ("context", 512.into()),
        ("launch", "graph".into()),
    ];
    let grouped = num(
        &run(
            "decode",
            Mode::Achievable,
            &["engine.moe.dispatch=grouped"],
            &f,
        )
        .unwrap(),
        "kernels",
    );
    let looped = num(
        &run("decode", Mode::Achievable, &[], &f).unwrap(),
        "kernels",
    );
    // The tool counts 1,779: the MoE part matches the profiled sequence
    // (24 a layer with the router); the attention side counts about 2 a
    // layer more than the graph ran.
    assert!((grouped / 1684.0 - 1.0).abs() < 0.10, "{grouped}");
    // A loop launches 8 kernels per touched expert: far more.
    assert!(looped > grouped + 48.0 * 8.0 * 4.0, "{looped} {grouped}");
}

#[test]
fn vllm_prices_a_mixtral_decode_faster_than_pytorch() {
    for batch in [1, 16, 64] {
        let f = |e: &str| {
            [
                ("model", Value::from("mixtral-8x7b")),
                ("hw", "h200-sxm".into()),
                ("batch", batch.into()),
                ("context", 1024.into()),
                ("engine", e.into()),
            ]
        };
        let t = |e| {
            num(
                &run("decode", Mode::Achievable, &[], &f(e)).unwrap(),
                "step_time_s",
            )
        };
        let (v, p) = (t("vllm"), t("pytorch"));
        assert!(v < p, "batch {batch}: vllm {v} pytorch {p}");
    }
}

/// Dense decode steps with vLLM's fused kernel structure written in
/// Triton (validation/fused_decode_h200.py,
/// validation/results/2026-12-03-h200/h200-fused-decode.json; held out:
/// no figure was fitted on them), replayed from CUDA graphs, against
/// `--engine vllm`: every row within 15%, the median within 10%.
#[test]
fn vllm_fused_kernels_against_the_h200_measurements() {
    let p = format!(
        "{}/validation/results/2026-12-03-h200/h200-fused-decode.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let d: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let rows = d["decode"].as_array().unwrap();
    assert_eq!(rows.len(), 13);
    let mut errs = Vec::new();
    for r in rows {
        let f = [
            ("model", r["model"].clone()),
            ("hw", "h200-sxm".into()),
            ("batch", r["batch"].clone()),
            ("context", r["context"].clone()),
            ("engine", "vllm".into()),
        ];
        let t = num(
            &run("decode", Mode::Achievable, &[], &f).unwrap(),
            "step_time_s",
        );
        let e = t / r["graph_s"].as_f64().unwrap() - 1.0;
        assert!(
            e.abs() <= 0.15,
            "{} B={} T={}: {:+.1}%",
            r["model"],
            r["batch"],
            r["context"],
            e * 100.0
        );
        errs.push(e.abs());
    }
    assert!(median(errs.clone()) <= 0.10, "median {}", median(errs));
}

/// `fusion.kv-write` writes a token's key and value in one kernel: one
/// kernel fewer a layer (Llama-3-8B's 32), the same bytes; `engine show`
/// lists both new fusions.
#[test]
fn one_cache_write_kernel_a_layer_under_kv_write() {
    let f = [
        ("model", Value::from("llama-3-8b")),
        ("hw", "h200-sxm".into()),
        ("batch", 1.into()),
        ("context", 1024.into()),
    ];
    let plain = run("decode", Mode::Achievable, &[], &f).unwrap();
    let fused = run(
        "decode",
        Mode::Achievable,
        &["engine.fusion.kv-write=true"],
        &f,
    )
    .unwrap();
    assert_eq!(num(&plain, "kernels") - num(&fused, "kernels"), 32.0);
    assert_eq!(
        num(&plain, "kv_write_bytes").to_bits(),
        num(&fused, "kv_write_bytes").to_bits()
    );
    let show = |e: &str| {
        run(
            "engine show",
            Mode::SpeedOfLight,
            &[],
            &[("engine", e.into())],
        )
        .unwrap()
    };
    for (e, kv, norm) in [
        ("pytorch", false, false),
        ("vllm", true, true),
        ("sglang", true, true),
    ] {
        let r = show(e);
        assert_eq!(r.results["fused_kv_write"], Value::from(kv), "{e}");
        assert_eq!(r.results["norm_one_pass"], Value::from(norm), "{e}");
    }
}

#[test]
fn trtllm_all_reduces_16_kib_over_8_h200s_under_10_us_below_nccl() {
    let f = |e: &str| {
        [
            ("kind", Value::from("all-reduce")),
            ("hw", "h200-sxm".into()),
            ("devices", 8.into()),
            ("bytes", "16KiB".into()),
            ("launch", "graph".into()),
            ("engine", e.into()),
        ]
    };
    let custom = run("collective", Mode::Achievable, &[], &f("trtllm")).unwrap();
    let nccl = run("collective", Mode::Achievable, &[], &f("pytorch")).unwrap();
    let (c, n) = (num(&custom, "time_s"), num(&nccl, "time_s"));
    // One-shot: the cited 3.5 us pass plus 7 x 16 KiB over the NVLink.
    assert!(c < 10e-6 && c < n, "custom {c} nccl {n}");
    assert!(c > 3.5e-6, "{c}");
    let algo = custom.results["algorithm"].as_str().unwrap();
    assert!(algo.contains("one-shot"), "{algo}");
    // The latency's source is stated.
    let show = run(
        "engine show",
        Mode::SpeedOfLight,
        &[],
        &[("engine", "trtllm".into())],
    )
    .unwrap();
    let q = &show.quantities["all_reduce_latency_s"];
    assert!(
        q.source.as_deref().unwrap().contains("AIConfigurator"),
        "{q:?}"
    );
    // A custom all-reduce whose file has no latency figure: the custom path
    // says which field to set.
    let e = run(
        "collective",
        Mode::Achievable,
        &[],
        &f("tests/data/engines/custom-no-latency.toml"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("engine.all-reduce.latency"), "{e}");
}

#[test]
fn vllm_s_cited_all_reduce_latency_against_the_sizes_it_was_not_taken_from() {
    // sgl-project/sglang pull request 2904 measured vLLM's custom
    // all-reduce on 8 H100s (NVLink 4, as the H200's): 512 B in 10.1 us,
    // 4,096 B in 9.3 us (the latency engines/vllm.toml takes), 32 KiB in
    // 11.8 us. The two it was not taken from, one-shot under 256 KiB:
    for (bytes, measured_us) in [("512B", 10.1), ("32KiB", 11.8)] {
        let r = run(
            "collective",
            Mode::Achievable,
            &[],
            &[
                ("kind", Value::from("all-reduce")),
                ("hw", "h200-sxm".into()),
                ("devices", 8.into()),
                ("bytes", bytes.into()),
                ("launch", "graph".into()),
                ("engine", "vllm".into()),
            ],
        )
        .unwrap();
        let t = num(&r, "time_s") * 1e6;
        let err = (t - measured_us) / measured_us;
        assert!(err.abs() < 0.20, "{bytes}: {t} us against {measured_us}");
        let algo = r.results["algorithm"].as_str().unwrap();
        assert!(algo.contains("one-shot"), "{algo}");
    }
}

#[test]
fn sglang_s_cited_all_reduce_latency_against_the_sizes_it_was_not_taken_from() {
    // engines/sglang.toml takes 9.3 us from the 4,096-byte row of the
    // vllm table in sgl-project/sglang pull request 2904 (8 H100s,
    // without CUDA graphs): vLLM's kernel, the one sgl-kernel's
    // custom_all_reduce.cuh has carried since pull request 5079. The rows
    // it was not taken from, one-shot under 256 KiB: 512 B in 10.1 us and
    // 32 KiB in 11.8 us. Tolerance 20%: the eager timing includes a copy
    // into the registered buffer that a graph replay skips, and the table
    // itself puts 512 B 8.6% above 4,096 B for the same work, so a few
    // microseconds of the rows are not the kernel's.
    let at = |bytes: &str, engine: &str| {
        run(
            "collective",
            Mode::Achievable,
            &[],
            &[
                ("kind", Value::from("all-reduce")),
                ("hw", "h200-sxm".into()),
                ("devices", 8.into()),
                ("bytes", bytes.into()),
                ("launch", "graph".into()),
                ("engine", engine.into()),
            ],
        )
        .unwrap()
    };
    for (bytes, measured_us) in [("512B", 10.1), ("32KiB", 11.8)] {
        let r = at(bytes, "sglang");
        let t = num(&r, "time_s") * 1e6;
        let err = (t - measured_us) / measured_us;
        assert!(err.abs() < 0.20, "{bytes}: {t} us against {measured_us}");
        let algo = r.results["algorithm"].as_str().unwrap();
        assert!(algo.contains("one-shot"), "{algo}");
    }
    // The dispatch its source states: one stage under 256 KiB over 8 GPUs,
    // two stages from 512 KiB to 8 MiB, NCCL above.
    for (bytes, stage) in [("128KiB", "one-shot"), ("1MiB", "two-shot")] {
        let algo = at(bytes, "sglang").results["algorithm"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(algo.contains(stage), "{bytes}: {algo}");
    }
    let big = at("16MiB", "sglang");
    assert!(
        !big.results["algorithm"]
            .as_str()
            .unwrap()
            .contains("custom"),
        "{:?}",
        big.results["algorithm"]
    );
    // One kernel, one price: SGLang's answer is vLLM's at every size.
    for bytes in ["4KiB", "64KiB", "2MiB"] {
        let (s, v) = (at(bytes, "sglang"), at(bytes, "vllm"));
        assert_eq!(num(&s, "time_s"), num(&v, "time_s"), "{bytes}");
    }
    // The latency's source is stated, with the kernel it timed.
    let show = run(
        "engine show",
        Mode::SpeedOfLight,
        &[],
        &[("engine", "sglang".into())],
    )
    .unwrap();
    let q = &show.quantities["all_reduce_latency_s"];
    let src = q.source.as_deref().unwrap();
    assert!(src.contains("2904") && src.contains("5079"), "{q:?}");
}

#[test]
fn an_engine_set_on_a_command_without_an_engine_is_refused() {
    let e = run(
        "hw show",
        Mode::SpeedOfLight,
        &["engine.moe.dispatch=grouped"],
        &[("hw", "h200-sxm".into())],
    )
    .unwrap_err();
    assert!(e.to_string().contains("engine field"), "{e}");
}

#[test]
fn explain_derives_the_kernel_count_from_the_engine_s_operations() {
    // Mixtral (32 MoE layers) under vllm (engines/vllm.toml): a grouped
    // dispatch runs gate/up and down as two grouped GEMMs a layer (64 in
    // all) and around them routing 1 + permute 2 + combine 1 + 2 x
    // (gemm-kernels 1 - 1) = 4 pointwise kernels a layer, 128 in all
    // (formulas.md, "Engines").
    let out = crate::common::cli(&[
        "decode",
        "--model",
        "mixtral-8x7b",
        "--hw",
        "h200-sxm",
        "--batch",
        "16",
        "--context",
        "2048",
        "--achievable",
        "--engine",
        "vllm",
        "--explain",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find("kernels per step").expect("a kernels derivation");
    let block: String = text[at..].lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(block.contains("expert-dispatch 128"), "{block}");
    assert!(block.contains("routed-experts 64"), "{block}");
}

#[test]
fn eager_attention_writes_out_the_scores_of_gpt_oss() {
    // Issue 53: gpt-oss decode with transformers' eager attention. By hand,
    // gpt-oss-20b at batch 16 over 32,768 cached tokens, bf16 cache (2 x 8
    // KV heads x 64 x 2 B = 2,048 B a token a layer): a layer holds 16,448
    // tokens on average (full layers 32,768, windowed ones 128) and 16,449
    // after the new one. Beyond the fused kernel, repeat_kv writes the
    // cache 8 times over for the 64 query heads and the two GEMMs read the
    // copies, 2 x 8 x 16 x 16,449 x 2,048 B, and the score GEMM writes and
    // the value GEMM reads 16 x 64 x 16,449 bf16 scores, 2 x 2 B each: 24
    // layers x (8,623,423,488 + 67,375,104) = 208,593,321,984 B.
    let base = [
        ("model", Value::from("gpt-oss-20b")),
        ("hw", "h200-sxm".into()),
        ("batch", 16.into()),
        ("context", 32768.into()),
        ("dtype", "bf16".into()),
    ];
    let eager = ["engine.attention.path=eager"];
    let flash = run("decode", Mode::SpeedOfLight, &[], &base).unwrap();
    let written = run("decode", Mode::SpeedOfLight, &eager, &base).unwrap();
    let extra = num(&written, "bytes") - num(&flash, "bytes");
    assert!((extra - 208_593_321_984.0).abs() < 1.0, "{extra}");
    // The whole rectangle of scores: one key more a query than the causal
    // count's half of the new token's own (16,449 against 16,448.5).
    let flops = num(&written, "flops") - num(&flash, "flops");
    assert!(
        (flops - 2.0 * 64.0 * 128.0 * 0.5 * 16.0 * 24.0).abs() < 1.0,
        "{flops}"
    );
    // Per layer the second GEMM, scale, mask, concatenation, max,
    // subtraction, softmax, the output copy and two repeat_kv copies: 10
    // kernels, 240 over the 24 layers.
    let fa = run("decode", Mode::Achievable, &[], &base).unwrap();
    let ea = run("decode", Mode::Achievable, &eager, &base).unwrap();
    assert_eq!(num(&ea, "kernels") - num(&fa, "kernels"), 240.0);
    assert!(num(&ea, "step_time_s") > num(&fa, "step_time_s") + 40e-3);
}

#[test]
fn biased_experts_read_their_biases_and_a_grouped_dispatch_adds_them() {
    // gpt-oss-20b decode at batch 1: 4 experts touched a layer, each with
    // 2 x 2,880 + 2,880 = 8,640 bf16 bias elements: 24 x 4 x 8,640 x 2 B =
    // 1,658,880 B read. Grouped, each of the 4 slots gathers and adds its
    // rows: 4 x 8,640 x (2 + 4 x 2) B = 345,600 B a layer, 4 kernels.
    let base = [
        ("model", Value::from("gpt-oss-20b")),
        ("hw", "h200-sxm".into()),
        ("batch", 1.into()),
        ("context", 1024.into()),
    ];
    let bias = |r: &Report| {
        r.quantities["weight_bytes"]
            .derivation
            .split(" + ")
            .find_map(|s| s.strip_prefix("expert-bias "))
            .map(str::to_string)
    };
    let r = run("decode", Mode::SpeedOfLight, &[], &base).unwrap();
    assert_eq!(bias(&r).as_deref(), Some("1.659 MB"));
    let grouped = ["engine.moe.dispatch=grouped"];
    let loop_ = run("decode", Mode::Achievable, &[], &base).unwrap();
    let g = run("decode", Mode::Achievable, &grouped, &base).unwrap();
    let ops = |r: &Report| r.quantities["kernels"].derivation.clone();
    assert!(ops(&g).contains("expert-bias-add 96"), "{}", ops(&g));
    assert!(!ops(&loop_).contains("expert-bias-add"), "{}", ops(&loop_));
}

/// A Qwen3-8B verify pass of `q` tokens over 2,048 cached at batch `b` on
/// the H100, replayed from a graph (`decode --speculative 0.5,q-1,0`: the
/// verify forward alone), under the engine `sets`.
fn verify_pass(b: u64, q: u64, sets: &[&str]) -> Report {
    let base = [
        ("model", Value::from("qwen3-8b")),
        ("hw", "h100-sxm".into()),
        ("batch", b.into()),
        ("context", 2048.into()),
        ("launch", "graph".into()),
        ("acceptance", 0.5.into()),
        ("draft-tokens", (q - 1).into()),
        ("draft-cost", 0.0.into()),
    ];
    run("decode", Mode::Achievable, sets, &base).unwrap()
}

#[test]
fn a_mask_tensor_adds_the_kernels_the_profiler_counted() {
    // torch.profiler over one verify pass at B = 16, q = 4 (validation/
    // results/2026-12-07-h100/h100a-multitoken-log.txt): 652 kernels under
    // the lower-right bias, 760 under a boolean mask tensor, 36 layers.
    let tensor = ["engine.attention.mask=tensor"];
    let lr = num(&verify_pass(16, 4, &[]), "kernels");
    let t = num(&verify_pass(16, 4, &tensor), "kernels");
    assert_eq!(t - lr, 760.0 - 652.0);
}

#[test]
fn verify_passes_by_the_mask_that_ran_against_two_h100s() {
    // Issue 53: Qwen3-8B verify passes over 2,048 cached, graph-replayed,
    // measured on two H100s (validation/results/2026-12-07-h100/
    // h100a-multitoken-steps.json and h100b-, `graph_s`, ms). The
    // lower-right rows price with FlashAttention-2's figures carried from
    // the H200 (fitted there, held out here); the tensor-mask rows with
    // cuDNN's kernel fitted on h100a's attention alone at B = 16 and 64
    // (the whole steps and B = 1 held out). q = 3 (an odd key count, 1.6
    // times slower under a mask tensor) is left out: not priced.
    let points: [(u64, u64, &str, f64, f64); 18] = [
        (1, 2, "lower-right", 8.07, 7.94),
        (1, 4, "lower-right", 8.13, 7.97),
        (1, 8, "lower-right", 8.20, 8.04),
        (16, 2, "lower-right", 15.76, 15.57),
        (16, 4, "lower-right", 15.94, 15.78),
        (16, 8, "lower-right", 16.30, 16.14),
        (64, 2, "lower-right", 40.91, 39.93),
        (64, 4, "lower-right", 43.74, 42.10),
        (64, 8, "lower-right", 49.59, 48.07),
        (1, 2, "tensor", 9.37, 9.21),
        (1, 4, "tensor", 9.45, 9.29),
        (1, 8, "tensor", 9.53, 9.40),
        (16, 2, "tensor", 14.73, 14.53),
        (16, 4, "tensor", 14.89, 14.70),
        (16, 8, "tensor", 15.27, 15.10),
        (64, 2, "tensor", 34.49, 34.71),
        (64, 4, "tensor", 36.86, 36.50),
        (64, 8, "tensor", 43.11, 41.92),
    ];
    let mut errs = Vec::new();
    for (b, q, mask, a, bb) in points {
        let set = format!("engine.attention.mask={mask}");
        let p = num(&verify_pass(b, q, &[set.as_str()]), "step_time_s") * 1e3;
        for m in [a, bb] {
            let e = (p / m - 1.0).abs();
            assert!(e < 0.10, "{mask} B={b} q={q}: {p:.2} ms against {m} ms");
            errs.push(e);
        }
    }
    assert!(median(errs) < 0.05);
}

#[test]
fn mla_absorbed_as_batched_gemms_reads_the_latent_twice() {
    // Issue 53: MLA's absorbed attention in plain PyTorch (validation/
    // mla_steps.py). By hand, DeepSeek-V2-Lite (16 heads, latent 512 +
    // rotary 64, 27 layers) decoding at batch 64 over 4,096 cached tokens
    // (4,097 keys after the new one), bf16: beyond the fused kernel's one
    // read of the latent, the value GEMM reads its 512 columns again, 64 x
    // 4,097 x 512 x 2 B = 268,500,992 B, and the scores are written and
    // read back, 2 x 64 x 16 x 4,097 x 2 B = 16,781,312 B: 27 x
    // 285,282,304 = 7,702,622,208 B. The FLOPs are the fused kernel's.
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/validation/models/deepseek-v2-lite.toml"
    );
    let base = [
        ("model", Value::from(model)),
        ("hw", "h100-sxm".into()),
        ("batch", 64.into()),
        ("context", 4096.into()),
    ];
    let eager = ["engine.attention.path=eager"];
    let flash = run("decode", Mode::SpeedOfLight, &[], &base).unwrap();
    let bmm = run("decode", Mode::SpeedOfLight, &eager, &base).unwrap();
    let extra = num(&bmm, "bytes") - num(&flash, "bytes");
    assert!((extra - 7_702_622_208.0).abs() < 1.0, "{extra}");
    assert_eq!(num(&bmm, "flops"), num(&flash, "flops"));
    // A layer: the second latent GEMM, the scale, the two casts and the
    // softmax, the query's concatenation, the W_UK and W_UV GEMMs and the
    // output copy: 9 kernels, 243 over 27 layers.
    let fa = run("decode", Mode::Achievable, &[], &base).unwrap();
    let ea = run("decode", Mode::Achievable, &eager, &base).unwrap();
    assert_eq!(num(&ea, "kernels") - num(&fa, "kernels"), 243.0);
}

#[test]
fn mxfp4_experts_stream_at_the_dequantizing_kernel_s_share_only_without_fp4_math() {
    // gpt-oss-120b's routed experts are MXFP4 (models/gpt-oss-120b.toml).
    // The H200 has no fp4 math, so TensorRT-LLM's grouped kernel
    // dequantizes them as it loads them and streams at 0.628 of the
    // achievable bandwidth (engines/trtllm.toml,
    // moe.grouped.dequant-stream-fraction): the op's memory term is
    // 1 / 0.628 = 1.592 times what it is with the figure set to 1. The
    // B200 has fp4 math: the figure leaves it alone.
    use roofline::calc::step::{self, Choices, Shape};
    let cat = Catalog::default();
    let m = cat.model("gpt-oss-120b", &[]).unwrap();
    let memory = |hw: &str, frac: &str| {
        let sets = Context::parse_sets(&[&format!(
            "engine.moe.grouped.dequant-stream-fraction={frac}"
        )])
        .unwrap();
        let e = cat.engine("trtllm", &sets).unwrap();
        let h = cat.hardware(hw, &[]).unwrap();
        let c = Choices {
            dtype: None,
            activations: None,
            kv_dtype: Some("fp8"),
            launch: Some("graph"),
            kernels: None,
            engine: Some(&e),
        };
        let s = step::setup(&m, &h, Mode::Achievable, c).unwrap();
        let shape = Shape {
            batch: 64,
            new: 1,
            past: 1024,
            lm_head_tokens: 1,
        };
        let t = step::timed(&m, &s, shape).unwrap();
        t.priced.unwrap().op("routed-experts").unwrap().memory_s
    };
    let ratio = memory("h200-sxm", "0.628") / memory("h200-sxm", "1");
    assert!((ratio - 1.0 / 0.628).abs() < 1e-9, "{ratio}");
    assert_eq!(memory("b200", "0.628"), memory("b200", "1"));
}

/// DeepSeek-V2-Lite (validation/models/deepseek-v2-lite.toml) decoding at
/// batch `b` over 4,096 cached tokens on the H100 under vLLM, graph-replayed.
fn v2_lite_vllm(b: u64, sets: &[&str]) -> Report {
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/validation/models/deepseek-v2-lite.toml"
    );
    let base = [
        ("model", Value::from(model)),
        ("hw", "h100-sxm".into()),
        ("engine", "vllm".into()),
        ("batch", b.into()),
        ("context", 4096.into()),
        ("launch", "graph".into()),
    ];
    run("decode", Mode::Achievable, sets, &base).unwrap()
}

#[test]
fn the_engines_mla_kernel_pads_the_heads_to_its_tile() {
    // FlashAttention-3's MLA path (vLLM, SGLang on Hopper) computes 64 rows
    // of a sequence's heads x new tokens a CTA (engine.attention.
    // mla-query-tile). DeepSeek-V2-Lite has 16 heads: one decode token's
    // rows are padded 4x to a 64-row tile, 2x to 32, not at all at 16. At a
    // share of the rate low enough that the kernel is compute-bound, the
    // step grows with the padded FLOPs: (64-row step - 16-row step) is 3
    // times (32-row step - 16-row step).
    let at = |tile: &str| {
        let t = format!("engine.attention.mla-query-tile={tile}");
        let f = "engine.attention.mla-peak-fraction=0.05";
        num(&v2_lite_vllm(256, &[t.as_str(), f]), "step_time_s")
    };
    let (t16, t32, t64) = (at("16"), at("32"), at("64"));
    assert!(t32 > t16, "{t32} {t16}");
    let r = (t64 - t16) / (t32 - t16);
    assert!((r - 3.0).abs() < 1e-3, "{r}");
    // At the shipped 0.83 the latent read bounds it: the kernel's time is
    // the latent's bytes at the file's bandwidth, whatever the tile.
    let shipped = |tile: &str| {
        let t = format!("engine.attention.mla-query-tile={tile}");
        num(&v2_lite_vllm(256, &[t.as_str()]), "step_time_s")
    };
    assert_eq!(shipped("64"), shipped("16"));
}

#[test]
fn mla_decode_at_an_odd_key_count_against_two_h100s() {
    // Issue 53: DeepSeek-V2-Lite decode over 4,096 cached tokens (4,097
    // keys, an odd count: cuBLAS's align-1 and SIMT kernels), absorbed
    // attention as batched GEMMs, grouped experts, graph-replayed, on two
    // H100s (validation/results/2026-12-07-h100/h100a-mla-steps.json and
    // h100b-, `graph_s`, ms). The odd-count figures were fitted on the
    // attention alone at 2,049 and 8,193 keys (h100c-families.json): these
    // steps are held out.
    let points: [(u64, f64, f64); 4] = [
        (1, 6.59, 6.55),
        (16, 20.66, 20.64),
        (64, 41.97, 41.91),
        (256, 75.88, 76.15),
    ];
    let model = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/validation/models/deepseek-v2-lite.toml"
    );
    let sets = ["engine.moe.dispatch=grouped", "engine.attention.path=eager"];
    let mut errs = Vec::new();
    for (b, a, bb) in points {
        let base = [
            ("model", Value::from(model)),
            ("hw", "h100-sxm".into()),
            ("batch", b.into()),
            ("context", 4096.into()),
            ("launch", "graph".into()),
        ];
        let p = num(
            &run("decode", Mode::Achievable, &sets, &base).unwrap(),
            "step_time_s",
        ) * 1e3;
        for m in [a, bb] {
            let e = (p / m - 1.0).abs();
            assert!(e < 0.20, "B={b}: {p:.2} ms against {m} ms");
            errs.push(e);
        }
    }
    assert!(median(errs) < 0.12);
}

#[test]
fn the_flex_path_s_eager_prefill_counts_the_sink_kernels_and_their_host() {
    // Issue 53, formulas.md "Engines: attention paths", the flex path's
    // host. gpt-oss-20b (24 layers, sinks) prefilled eagerly at 1,024
    // tokens: beside the flex kernel the profiler counted 16 kernels a
    // layer on transformers' flex path with sinks (the output's copy, 14
    // sink ops, the LSE's kernel; validation/results/2026-12-07-h100/
    // h100c-families.json, flex_sink_kernels), so 384 more than the
    // fused path, whose sink rides in the attention kernel.
    let base = [
        ("model", Value::from("gpt-oss-20b")),
        ("hw", "h100-sxm".into()),
        ("batch", 1.into()),
        ("prompt", 1024.into()),
        ("dtype", "bf16".into()),
        ("launch", "eager".into()),
    ];
    let fused = run("prefill", Mode::Achievable, &[], &base).unwrap();
    let flex = |extra: &[&str]| {
        let mut sets = vec!["engine.attention.path=flex"];
        sets.extend_from_slice(extra);
        run("prefill", Mode::Achievable, &sets, &base).unwrap()
    };
    assert_eq!(num(&flex(&[]), "kernels") - num(&fused, "kernels"), 384.0);
    // The host's paths enter once a layer: where the host is the longer
    // path (figures large enough that it is), 1 ms more on the compiled
    // call or on the sink renormalisation adds 24 ms to the step.
    let t = |s: &[&str]| num(&flex(s), "time_s");
    let base_t = t(&[
        "engine.attention.flex-call-eager=10ms",
        "engine.attention.flex-sink-eager=10ms",
    ]);
    let call = t(&[
        "engine.attention.flex-call-eager=11ms",
        "engine.attention.flex-sink-eager=10ms",
    ]);
    let sink = t(&[
        "engine.attention.flex-call-eager=10ms",
        "engine.attention.flex-sink-eager=11ms",
    ]);
    assert!((call - base_t - 24e-3).abs() < 1e-9, "{}", call - base_t);
    assert!((sink - base_t - 24e-3).abs() < 1e-9, "{}", sink - base_t);
}

//! The catalog's data files as data: every built-in file and fixture loads,
//! every number in a built-in hardware or model file names its source, the
//! Hugging Face fixtures import to the same figures as the catalog files, the
//! listings show everything, and the loader rejects bad data with a message
//! that names the file, the line and the field.

use roofline::calc::{hw, model};
use roofline::catalog::Catalog;
use roofline::spec::Origin;
use roofline::spec::hardware::Hardware;
use roofline::spec::model::Model;
use std::path::Path;

const HARDWARE: &[&str] = &[
    "a100-sxm-40gb",
    "a100-sxm-80gb",
    "b200",
    "b300",
    "gb200",
    "gb300",
    "h100-sxm",
    "h200-sxm",
    "h800",
    "mi300x",
    "mi355x",
    "rtx-5090",
    "tpu-v1",
    "tpu-v4",
    "tpu7x",
    "trainium3",
    "v100-sxm2",
];
const MODELS: &[&str] = &[
    "deepseek-v3",
    "gemma-3-27b",
    "gpt-3-175b",
    "gpt-oss-120b",
    "gpt-oss-20b",
    "kimi-k2",
    "llama-2-7b",
    "llama-3-8b",
    "llama-3.1-405b",
    "llama-3.1-70b",
    "llama-3.2-1b",
    "llama-3.2-3b",
    "llama-4-maverick",
    "llama-4-scout",
    "mistral-7b",
    "mixtral-8x7b",
    "qwen3-235b-a22b",
    "qwen3-30b-a3b",
    "qwen3-32b",
    "qwen3-8b",
];

#[test]
fn the_catalog_has_every_part_and_model() {
    let c = Catalog::default();
    let hw: Vec<String> = c
        .hardware_entries()
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(hw, HARDWARE);
    let m: Vec<String> = c
        .model_entries()
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(m, MODELS);
}

/// Text fields: names and enumerations, not numbers.
const TEXT_KEYS: &[&str] = &[
    "id",
    "name",
    "vendor",
    "kind",
    "default-dtype",
    "summary",
    "scope",
    "tier",
    "topology",
    "register-allocation-granularity",
    "peak-scope",
    // `[achievable.evidence]`: the kind of the figures, whose own sources
    // say it figure by figure.
    "evidence",
    // `[calibration]`: a calibrated file's own provenance (which file, which
    // device, its held-out error), written by `roofline calibrate`.
    "calibration",
    "norm",
    "position-embedding",
    "activation",
    "family",
];

/// Collects the kebab-case paths of every numeric value: numbers, quantity
/// strings ("80 GB"), booleans that change a count, and lists of them.
fn numeric_paths(prefix: &str, v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                if prefix.is_empty() && k == "sources" {
                    continue;
                }
                if TEXT_KEYS.contains(&k.as_str()) {
                    continue;
                }
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                numeric_paths(&p, v, out);
            }
        }
        toml::Value::Array(a) if a.iter().all(toml::Value::is_table) => {
            for (i, v) in a.iter().enumerate() {
                numeric_paths(&format!("{prefix}.{i}"), v, out);
            }
        }
        toml::Value::Array(_)
        | toml::Value::Integer(_)
        | toml::Value::Float(_)
        | toml::Value::Boolean(_)
        | toml::Value::String(_) => out.push(prefix.to_string()),
        toml::Value::Datetime(_) => {}
    }
}

fn unsourced(dir: &str, id: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!("{dir}/{id}.toml")).unwrap();
    let doc: toml::Value = toml::from_str(&text).unwrap();
    let sources = doc
        .get("sources")
        .and_then(toml::Value::as_table)
        .cloned()
        .unwrap_or_default();
    let mut paths = Vec::new();
    numeric_paths("", &doc, &mut paths);
    paths
        .into_iter()
        // `counts-toward-total` is a bookkeeping flag, not a figure.
        .filter(|p| !p.ends_with("counts-toward-total"))
        .filter(|p| !sources.contains_key(p))
        .collect()
}

#[test]
fn every_number_in_a_builtin_hardware_file_has_a_source() {
    let mut missing = Vec::new();
    for id in HARDWARE {
        for p in unsourced("hardware", id) {
            missing.push(format!("{id}: {p}"));
        }
    }
    assert!(
        missing.is_empty(),
        "no [sources] entry for:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_number_in_a_builtin_model_file_has_a_source() {
    let mut missing = Vec::new();
    for id in MODELS {
        for p in unsourced("models", id) {
            missing.push(format!("{id}: {p}"));
        }
    }
    assert!(
        missing.is_empty(),
        "no [sources] entry for:\n{}",
        missing.join("\n")
    );
}

#[test]
fn vendor_figures_are_marked() {
    // A source is a course text and its section (000/002/004, named in
    // words), the ground measurements, or says what else it is: vendor,
    // measured, derived, assumption. docs/sources.md lists each document.
    for id in HARDWARE {
        let h = Catalog::default().hardware(id, &[]).unwrap();
        for (k, s) in &h.sources {
            let ok = [
                "the Learn Kernels book (000), ",
                "the GPU-architecture lecture (002), ",
                "the inference-engineer chapter (004)",
                "the ground measurements",
                "vendor:",
                "measured",
                "derived:",
                "assumption:",
                // Carried from a measured sibling by a rule of
                // docs/formulas.md, or a third party's published figure.
                "transferred",
                "third-party",
            ]
            .iter()
            .any(|p| s.starts_with(p));
            assert!(ok, "{id} {k}: `{s}` does not say where it came from");
        }
    }
}

fn figures(m: &Model) -> (f64, f64, f64) {
    let r = model::cost(m, &model::ModelInputs::default())
        .unwrap()
        .report(false);
    (
        r.number("params").unwrap(),
        r.number("active_params").unwrap(),
        r.number("kv_bytes_per_token").unwrap(),
    )
}

/// Each Hugging Face fixture imports to the same parameters, active
/// parameters and KV bytes as the catalog file of the same model.
#[test]
fn hugging_face_fixtures_match_the_catalog() {
    let c = Catalog::default();
    let mut seen = 0;
    for e in std::fs::read_dir("tests/data/hf").unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
        let imported = c
            .model(p.to_str().unwrap(), &[])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(imported.id, stem);
        if MODELS.contains(&stem.as_str()) {
            let catalog = c.model(&stem, &[]).unwrap();
            assert_eq!(figures(&imported), figures(&catalog), "{stem}");
            seen += 1;
        }
    }
    assert_eq!(
        seen, 19,
        "a fixture for every catalog model with a config.json"
    );
}

#[test]
fn qwen2_import_has_qkv_biases() {
    let m = Catalog::default()
        .model("tests/data/hf/qwen2-7b.json", &[])
        .unwrap();
    assert!(m.attention.qkv_bias);
    assert_eq!(m.sliding_window, None, "use_sliding_window is false");
    // Qwen2-7B's published total: 7,615,616,512 (7.62B).
    assert_eq!(figures(&m).0, 7_615_616_512.0);
    assert_eq!(figures(&m).2, 2.0 * 28.0 * 4.0 * 128.0 * 2.0);
}

#[test]
fn listings_show_every_entry_with_a_summary() {
    let c = Catalog::default();
    let all: Vec<Hardware> = HARDWARE
        .iter()
        .map(|id| c.hardware(id, &[]).unwrap())
        .collect();
    let r = hw::list(&all);
    assert_eq!(r.rows.len(), HARDWARE.len());
    for row in &r.rows {
        assert!(row.results.contains_key("summary"), "{:?}", row.inputs);
        assert!(
            row.results.contains_key("peak_flops_per_s"),
            "{:?}",
            row.inputs
        );
    }
    let ms: Vec<Model> = MODELS.iter().map(|id| c.model(id, &[]).unwrap()).collect();
    let r = model::list(&ms).unwrap();
    assert_eq!(r.rows.len(), MODELS.len());
    assert!(r.rows.iter().all(|row| row.results.contains_key("summary")));
}

#[test]
fn list_entries_say_where_each_listed_figure_comes_from() {
    let c = Catalog::default();
    // Trainium3 states its Tensor Engine peak per NeuronCore (79 TFLOP/s
    // BF16, 000 §6.2) and has 8 NeuronCores: the listed peak is derived.
    let t = hw::list_entry(&c.hardware("trainium3", &[]).unwrap());
    assert_eq!(t.number("peak_flops_per_s"), Some(8.0 * 79e12));
    let q = &t.quantities["peak_flops_per_s"];
    assert_eq!(q.formula, "compute.dense.bf16 x compute.cores");
    assert_eq!(q.derivation, "79 TFLOP/s x 8");
    let src = q.source.as_deref().unwrap();
    assert!(
        src.contains("79 TFLOPS") && src.contains("compute.cores:"),
        "{src}"
    );
    // The H100's figures are its file's fields, each with that field's
    // source: 989 TFLOP/s dense BF16, 3.35 TB/s, 80 GB.
    let h = c.hardware("h100-sxm", &[]).unwrap();
    let e = hw::list_entry(&h);
    for (key, field, value) in [
        ("peak_flops_per_s", "compute.dense.bf16", 989e12),
        ("hbm_bandwidth_bytes_per_s", "memory.hbm-bandwidth", 3.35e12),
        ("hbm_capacity_bytes", "memory.hbm-capacity", 80e9),
    ] {
        assert_eq!(e.number(key), Some(value), "{key}");
        assert_eq!(e.quantities[key].formula, field);
        assert_eq!(
            e.quantities[key].source.as_deref(),
            h.source(field),
            "{key}"
        );
    }
    // Llama 3 8B: 8,030,261,248 parameters (Meta's published count), the
    // sum of the subtotals `model show` derives from the layer shapes.
    let m = model::list_entry(&c.model("llama-3-8b", &[]).unwrap()).unwrap();
    assert_eq!(m.number("params"), Some(8_030_261_248.0));
    assert!(
        m.quantities["params"]
            .formula
            .starts_with("embedding + output head + attention")
    );
    assert_eq!(
        m.quantities["attention_params"].derivation,
        "32 x (2 x 4,096 x 32 x 128 + 2 x 4,096 x 8 x 128)"
    );
}

// ---- loader validation ----

fn origin() -> Origin {
    Origin {
        name: "bad.toml".into(),
        overridden: false,
    }
}

fn h100_text() -> String {
    std::fs::read_to_string("hardware/h100-sxm.toml").unwrap()
}

/// 1-based line of the first line starting with `prefix`.
fn line_of(src: &str, prefix: &str) -> usize {
    src.lines().position(|l| l.starts_with(prefix)).unwrap() + 1
}

fn hw_err(src: &str) -> String {
    let e = Hardware::parse(src, &origin()).unwrap_err();
    assert_eq!(e.exit_code(), 65, "{e}");
    e.to_string()
}

fn model_err(src: &str) -> String {
    let e = Model::parse(src, &origin()).unwrap_err();
    assert_eq!(e.exit_code(), 65, "{e}");
    e.to_string()
}

#[test]
fn negative_bandwidth_is_rejected_with_its_line() {
    let src = h100_text().replace(
        "hbm-bandwidth = \"3.35 TB/s\"",
        "hbm-bandwidth = \"-3.35 TB/s\"",
    );
    let line = line_of(&src, "hbm-bandwidth = ");
    let msg = hw_err(&src);
    assert!(msg.starts_with(&format!("bad.toml:{line}:")), "{msg}");
    assert!(msg.contains("greater than zero"), "{msg}");
}

#[test]
fn per_direction_above_bidirectional_is_rejected() {
    let src = h100_text().replace(
        "per-direction-bandwidth = \"450 GB/s\"",
        "per-direction-bandwidth = \"1800 GB/s\"",
    );
    let msg = hw_err(&src);
    assert!(
        msg.contains("interconnect.0.per-direction-bandwidth"),
        "{msg}"
    );
    assert!(msg.contains("exceeds the bidirectional"), "{msg}");
}

#[test]
fn missing_unit_is_rejected() {
    let src = h100_text().replace("hbm-bandwidth = \"3.35 TB/s\"", "hbm-bandwidth = 3.35");
    let msg = hw_err(&src);
    assert!(msg.contains("has no unit"), "{msg}");
}

#[test]
fn unknown_field_is_rejected() {
    let src = h100_text().replace("sector = \"32 B\"", "sector = \"32 B\"\nsectr = \"32 B\"");
    let msg = hw_err(&src);
    assert!(msg.contains("unknown field `sectr`"), "{msg}");
}

#[test]
fn malformed_toml_names_line_and_column() {
    let msg = hw_err("id = \"x\"\nname = \n");
    assert!(msg.starts_with("bad.toml:2:"), "{msg}");
}

#[test]
fn measured_above_datasheet_is_rejected() {
    let src = std::fs::read_to_string("hardware/h200-sxm.toml")
        .unwrap()
        .replace(
            "hbm-bandwidth = \"4202.7 GB/s\"",
            "hbm-bandwidth = \"4202.7 TB/s\"",
        );
    let msg = hw_err(&src);
    assert!(
        msg.contains("achievable.hbm-bandwidth") && msg.contains("exceeds"),
        "{msg}"
    );
}

#[test]
fn domain_above_fabric_maximum_is_rejected() {
    let src = std::fs::read_to_string("hardware/gb200.toml")
        .unwrap()
        .replace("domain-size = 72", "domain-size = 1000");
    let msg = hw_err(&src);
    assert!(msg.contains("interconnect.0.domain-size"), "{msg}");
}

#[test]
fn per_core_peaks_need_cores() {
    let src = std::fs::read_to_string("hardware/trainium3.toml")
        .unwrap()
        .replace("cores = 8\n", "");
    let msg = hw_err(&src);
    assert!(
        msg.contains("compute.peak-scope")
            || msg.contains("compute.cores")
            || msg.contains("scope"),
        "{msg}"
    );
}

#[test]
fn a_source_for_a_missing_field_is_rejected() {
    let src = h100_text().replace("dram-latency = \"479 cycles\"\n", "");
    let msg = hw_err(&src);
    assert!(msg.contains("memory.dram-latency"), "{msg}");
}

#[test]
fn more_kv_heads_than_heads_is_rejected() {
    let src = std::fs::read_to_string("models/llama-3-8b.toml")
        .unwrap()
        .replace("kv-heads = 8", "kv-heads = 64");
    let line = line_of(&src, "kv-heads = ");
    let msg = model_err(&src);
    assert!(
        msg.contains("attention.kv-heads") && msg.contains("more than"),
        "{msg}"
    );
    assert!(msg.starts_with(&format!("bad.toml:{line}:")), "{msg}");
}

#[test]
fn model_unknown_field_and_bad_kind() {
    let base = std::fs::read_to_string("models/llama-3-8b.toml").unwrap();
    let msg = model_err(&base.replace("layers = 32", "layers = 32\nlayer = 32"));
    assert!(msg.contains("unknown field `layer`"), "{msg}");
    let msg = model_err(&base.replace("kind = \"gqa\"", "kind = \"sparse\""));
    assert!(msg.contains("attention.kind"), "{msg}");
    let msg = model_err(&base.replace("layers = 32", "layers = 0"));
    assert!(msg.contains("layers") || msg.contains("zero"), "{msg}");
}

#[test]
fn fixtures_exist() {
    assert!(Path::new("tests/data/hf/deepseek-v3.json").exists());
}

//! A user's own data files: `hw new` / `model new` templates load (once
//! their id is set) to exactly the figures of the file they were made from;
//! a file without `[sources]` cites itself; a template's placeholder id and
//! a missing table are reported by name.

use roofline::calc::{hw, model};
use roofline::catalog::{Catalog, suggest};
use roofline::spec::Origin;
use roofline::spec::hardware::{Hardware, Mode};
use roofline::spec::model::Model;
use roofline::spec::template::PLACEHOLDER_ID;

fn origin(name: &str) -> Origin {
    Origin {
        name: name.into(),
        overridden: false,
    }
}

fn filled(template: &str, id: &str) -> String {
    let placeholder = format!("id = \"{PLACEHOLDER_ID}\"");
    assert!(template.contains(&placeholder), "{template}");
    template.replace(&placeholder, &format!("id = \"{id}\""))
}

#[test]
fn every_hardware_template_loads_to_the_same_figures() {
    let c = Catalog::default();
    for e in c.hardware_entries().unwrap() {
        let t = c.template("hw", &e.id).unwrap();
        assert!(
            !t.lines().any(|l| l.trim() == "[sources]"),
            "{}: a template has no sources",
            e.id
        );
        assert!(
            t.contains("# [compute]:"),
            "{}: sections are described",
            e.id
        );
        let mine = Hardware::parse(&filled(&t, &e.id), &origin("mine.toml"))
            .unwrap_or_else(|err| panic!("{}: {err}", e.id));
        let theirs = c.hardware(&e.id, &[]).unwrap();
        let inputs = hw::HwShowInputs::default();
        let a = hw::cost(&mine, &inputs, Mode::SpeedOfLight)
            .unwrap()
            .report(false);
        let b = hw::cost(&theirs, &inputs, Mode::SpeedOfLight)
            .unwrap()
            .report(false);
        assert_eq!(a.results, b.results, "{}", e.id);
        // Every value of the user's file cites the file.
        for (k, q) in &a.quantities {
            if let Some(s) = &q.source {
                assert_eq!(s, "mine.toml", "{}: {k}", e.id);
            }
        }
    }
}

#[test]
fn every_model_template_loads_to_the_same_figures() {
    let c = Catalog::default();
    for e in c.model_entries().unwrap() {
        let t = c.template("model", &e.id).unwrap();
        let mine = Model::parse(&filled(&t, &e.id), &origin("mine.toml"))
            .unwrap_or_else(|err| panic!("{}: {err}", e.id));
        let theirs = c.model(&e.id, &[]).unwrap();
        let inputs = model::ModelInputs::default();
        let a = model::cost(&mine, &inputs).unwrap();
        let b = model::cost(&theirs, &inputs).unwrap();
        assert_eq!(a.params, b.params, "{}", e.id);
        assert_eq!(a.kv_bytes_per_token, b.kv_bytes_per_token, "{}", e.id);
        assert_eq!(mine.source("layers"), Some("mine.toml"));
    }
}

#[test]
fn a_template_keeps_its_placeholder_id_until_changed() {
    let t = Catalog::default().template("hw", "h100-sxm").unwrap();
    let e = Hardware::parse(&t, &origin("dir/my-gpu.toml")).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("field `id`"), "{msg}");
    assert!(msg.contains("`id = \"my-gpu\"`"), "{msg}");
    assert_eq!(e.exit_code(), 65);
}

#[test]
fn a_missing_table_is_named_not_blamed_on_id() {
    let src = "id = \"x\"\nname = \"x\"\nvendor = \"x\"\nkind = \"gpu\"\ndefault-dtype = \"bf16\"\n\n[memory]\nhbm-bandwidth = \"1 TB/s\"\n";
    let msg = Hardware::parse(src, &origin("x.toml"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("field `compute`"), "{msg}");
    assert!(!msg.contains("`id`"), "{msg}");
    let src = "id = \"x\"\nname = \"x\"\nvendor = \"x\"\nkind = \"gpu\"\ndefault-dtype = \"bf16\"\n\n[compute]\nclock = \"1 GHz\"\n\n[memory]\n";
    let msg = Hardware::parse(src, &origin("x.toml"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("x.toml:7: field `compute.dense`"), "{msg}");
    // A file without [sources] is fine.
    let src = "id = \"x\"\nname = \"x\"\nvendor = \"x\"\nkind = \"gpu\"\ndefault-dtype = \"bf16\"\n\n[compute.dense]\nbf16 = \"1 TFLOP/s\"\n\n[memory]\n";
    let h = Hardware::parse(src, &origin("x.toml")).unwrap();
    assert_eq!(h.source("compute.dense.bf16"), Some("x.toml"));
}

#[test]
fn ids_match_without_case_and_typos_get_the_likely_id() {
    let c = Catalog::default();
    assert_eq!(c.hardware("H100-SXM", &[]).unwrap().id, "h100-sxm");
    assert_eq!(c.model("Llama-3-8B", &[]).unwrap().id, "llama-3-8b");
    let e = c.model("llama-3-70b", &[]).unwrap_err().to_string();
    assert!(e.contains("did you mean `llama-3.1-70b`"), "{e}");
    let ids = [
        "llama-2-7b",
        "llama-3-8b",
        "llama-3.1-70b",
        "llama-3.1-405b",
    ];
    assert_eq!(
        suggest("llama-3-405b", ids).as_deref(),
        Some("llama-3.1-405b")
    );
    assert_eq!(suggest("LLAMA-2-7B", ids).as_deref(), Some("llama-2-7b"));
    assert_eq!(suggest("gpt-9", ids), None);
}

#[test]
fn a_bad_file_in_a_folder_breaks_only_itself() {
    let c = Catalog {
        hw_dirs: vec!["tests/data/hwdir-bad".into()],
        ..Default::default()
    };
    assert!(c.hardware("h100-sxm", &[]).is_ok());
    assert!(c.hardware("minimal-gpu", &[]).is_ok());
    let e = c.hardware("broken-gpu", &[]).unwrap_err().to_string();
    assert!(e.contains("tests/data/hwdir-bad/broken-gpu.toml:15"), "{e}");
}

#[test]
fn a_missing_folder_names_where_it_came_from() {
    let c = Catalog {
        hw_dirs: vec!["no/such/dir".into()],
        dir_names: vec![("no/such/dir".into(), "ROOFLINE_HW_DIR".into())],
        ..Default::default()
    };
    let e = c.hardware("h100-sxm", &[]).unwrap_err();
    assert!(e.to_string().contains("ROOFLINE_HW_DIR"), "{e}");
    assert_eq!(e.exit_code(), 74);
}

#[test]
fn hugging_face_quantization_sets_the_weight_precision() {
    let c = Catalog::default();
    let cases = [
        ("tiny-llama-awq", "int4"),
        ("tiny-llama-gptq-8bit", "int8"),
        ("tiny-mistral-fp8", "fp8"),
    ];
    for (file, dtype) in cases {
        let m = c.model(&format!("tests/data/hf/{file}.json"), &[]).unwrap();
        assert_eq!(m.weight_dtype.as_deref(), Some(dtype), "{file}");
        let cost = model::cost(&m, &model::ModelInputs::default()).unwrap();
        assert_eq!(cost.dtype, dtype, "{file}");
        assert!(
            cost.notes.iter().any(|n| n.contains("quantization_config")),
            "{file}: {:?}",
            cost.notes
        );
        // --dtype still decides when given.
        let bf16 = model::cost(
            &m,
            &model::ModelInputs {
                dtype: Some("bf16".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(bf16.weight_bytes, bf16.params.total as f64 * 2.0);
    }
    let e = c
        .model("tests/data/bad/hf-gptq-3bit.json", &[])
        .unwrap_err();
    assert!(e.to_string().contains("quantization_config.bits"), "{e}");
}

#[test]
fn a_config_without_kv_heads_is_read_as_mha_and_says_so() {
    let m = Catalog::default()
        .model("tests/data/hf/tiny-llama-no-kv-heads.json", &[])
        .unwrap();
    assert_eq!(m.kv_heads(), 8);
    assert!(
        m.notes.iter().any(|n| n.contains("num_key_value_heads")),
        "{:?}",
        m.notes
    );
}

#[test]
fn parameter_subtotals_add_up() {
    let c = Catalog::default();
    for e in c.model_entries().unwrap() {
        let m = c.model(&e.id, &[]).unwrap();
        let cost = model::cost(&m, &model::ModelInputs::default()).unwrap();
        let sum: u64 = cost.parts.iter().map(|p| p.value).sum();
        assert_eq!(sum, cost.params.total, "{}", e.id);
        for p in &cost.parts {
            assert!(!p.formula.is_empty(), "{} {}", e.id, p.key);
        }
    }
}

#[test]
fn a_source_must_name_a_field_of_the_file() {
    let base = "id = \"x\"\nname = \"x\"\nvendor = \"x\"\nkind = \"gpu\"\ndefault-dtype = \"bf16\"\n\n[compute.dense]\nbf16 = \"1 TFLOP/s\"\n\n[memory]\nhbm-bandwidth = \"1 TB/s\"\n\n[[memory.levels]]\nname = \"l2\"\ncapacity = \"50 MB\"\nscope = \"chip\"\n\n[sources]\n";
    let with = |key: &str| format!("{base}\"{key}\" = \"a datasheet\"\n");
    // Tables, dotted keys and an array of tables by index all name fields.
    for key in [
        "compute.dense.bf16",
        "compute.dense",
        "memory.hbm-bandwidth",
        "memory.levels.0.capacity",
        "memory.levels.0",
    ] {
        let h =
            Hardware::parse(&with(key), &origin("x.toml")).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(h.source(key), Some("a datasheet"), "{key}");
    }
    for key in [
        "compute.dense.fp8",
        "memory.levels.1.capacity",
        "memory.levels.x.capacity",
        "memory.hbm-bandwidth.peak",
        "nothing",
    ] {
        let msg = Hardware::parse(&with(key), &origin("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(&format!("source given for `{key}`, which is not a field")),
            "{key}: {msg}"
        );
    }
}

#[test]
fn the_gemm_burst_fraction_is_one_number_or_a_table_by_precision() {
    use roofline::spec::hardware::Shares;
    use roofline::spec::overrides::Set;
    let c = Catalog::default();
    let hw = |sets: &[&str]| {
        let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
        c.hardware("h200-sxm", &sets)
    };
    let burst = |h: &Hardware| {
        h.achievable
            .as_ref()
            .and_then(|a| a.power_limit.as_ref())
            .and_then(|p| p.gemm_burst_fraction.clone())
            .unwrap()
    };
    // The shipped file keys it by precision (validation/gemm_burst_h200.py).
    let h = hw(&[]).unwrap();
    assert_eq!(burst(&h).get("bf16"), Some(0.9));
    assert_eq!(burst(&h).get("fp8"), Some(0.84));
    assert_eq!(burst(&h).get("fp16"), None);
    // One number, as files written before the table have it, serves all.
    let h = hw(&["achievable.power-limit.gemm-burst-fraction=0.95"]).unwrap();
    assert_eq!(burst(&h), Shares::All(0.95));
    assert_eq!(burst(&h).get("fp8"), Some(0.95));
    // A share out of range names its key; an unknown precision is refused.
    for (set, field) in [
        (
            "achievable.power-limit.gemm-burst-fraction.fp8=1.2",
            "achievable.power-limit.gemm-burst-fraction.fp8",
        ),
        (
            "achievable.power-limit.gemm-burst-fraction=0",
            "achievable.power-limit.gemm-burst-fraction",
        ),
        ("achievable.power-limit.gemm-burst-fraction.fp9=0.9", "fp9"),
    ] {
        let e = hw(&[set]).unwrap_err().to_string();
        assert!(e.contains(field), "{set}: {e}");
    }
}

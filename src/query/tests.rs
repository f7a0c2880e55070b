//! The dispatch as a library user calls it: fields in, reports out.

use super::*;
use crate::catalog::Catalog;
use crate::spec::hardware::Mode;

fn fields(pairs: &[(&str, Value)]) -> Fields {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone()))
        .collect()
}

#[test]
fn a_list_valued_field_is_an_axis() {
    // The H100 SXM's 3.35 TB/s times the intensity, far below the ridge.
    let f = fields(&[
        ("hw", "h100-sxm".into()),
        ("intensity", serde_json::json!([1, 2, 4])),
    ]);
    let r = evaluate(&Context::default(), "point", &f, &[], false).unwrap();
    assert_eq!(r.len(), 1);
    let rows = &r[0].rows;
    assert_eq!(rows.len(), 3);
    for (row, i) in rows.iter().zip([1.0, 2.0, 4.0]) {
        let a = row.results["attainable_flops_per_s"].as_f64().unwrap();
        assert!((a - 3.35e12 * i).abs() < 1.0, "{a}");
    }
    // One report per point when asked.
    let each = evaluate(&Context::default(), "point", &f, &[], true).unwrap();
    assert_eq!(each.len(), 3);
}

#[test]
fn a_field_both_listed_and_swept_is_refused() {
    let f = fields(&[
        ("hw", "h100-sxm".into()),
        ("intensity", serde_json::json!([1, 2])),
    ]);
    let sweep = Axis {
        name: "intensity".into(),
        values: vec![8.into()].into(),
    };
    let e = evaluate(&Context::default(), "point", &f, &[sweep], false).unwrap_err();
    assert!(e.to_string().contains("swept twice"), "{e}");
}

#[test]
fn an_unknown_command_suggests_the_nearest() {
    let e = evaluate(&Context::default(), "decod", &Fields::new(), &[], false).unwrap_err();
    assert!(e.to_string().contains("did you mean `decode`"), "{e}");
    assert_eq!(e.exit_code(), 65);
}

#[test]
fn hardware_given_as_text_is_found_by_its_id() {
    let text = include_str!("../../tests/data/minimal-gpu.toml");
    let catalog = Catalog {
        hw_texts: vec![("minimal-gpu".into(), text.into())],
        ..Catalog::default()
    };
    let ctx = Context::new(catalog, Vec::new(), Mode::SpeedOfLight);
    // The fixture's 100 TFLOP/s over 1 TB/s: a ridge at 100 FLOP/B.
    let f = fields(&[("hw", "minimal-gpu".into()), ("intensity", 1000.into())]);
    let r = evaluate(&ctx, "point", &f, &[], false).unwrap();
    let ridge = r[0].results["ridge_point_flop_per_byte"].as_f64().unwrap();
    assert!((ridge - 100.0).abs() < 1e-9, "{ridge}");
    // It is listed beside the built-ins.
    let list = evaluate(&ctx, "hw list", &Fields::new(), &[], true).unwrap();
    assert!(
        list.iter()
            .any(|r| r.hardware.as_deref() == Some("minimal-gpu"))
    );
}

#[test]
fn a_set_no_file_takes_is_an_error() {
    let sets = Context::parse_sets(&["layers=16"]).unwrap();
    let ctx = Context::new(Catalog::default(), sets, Mode::SpeedOfLight);
    let f = fields(&[("hw", "h100-sxm".into()), ("intensity", 1.into())]);
    let e = evaluate(&ctx, "point", &f, &[], false).unwrap_err();
    assert!(e.to_string().contains("reads no model"), "{e}");
}

#[test]
fn fleet_parts_as_a_list_are_one_joint_search_like_the_comma_text() {
    // Python's `hw=[...]` and a scenario's `hw = [...]` reach the library
    // as a list; the command line's `--hw a,b` as text. With `joint`, both
    // are one search over both parts, not one search per part.
    let common = |hw: Value| {
        fields(&[
            ("model", "llama-3-8b".into()),
            ("hw", hw),
            ("joint", true.into()),
            ("rate", "20/s".into()),
            ("prompt", 512.into()),
            ("output", 64.into()),
            ("slo-ttft", "2s".into()),
            ("slo-tpot", "50ms".into()),
            ("requests", 100.into()),
            ("max-devices", 8.into()),
        ])
    };
    let ctx = Context::default();
    let listed = evaluate(
        &ctx,
        "fleet",
        &common(serde_json::json!(["h100-sxm", "h200-sxm"])),
        &[],
        false,
    )
    .unwrap();
    let text = evaluate(
        &ctx,
        "fleet",
        &common("h100-sxm,h200-sxm".into()),
        &[],
        false,
    )
    .unwrap();
    assert!(listed[0].axes.is_empty(), "{:?}", listed[0].axes);
    assert_eq!(
        serde_json::to_value(&listed[0]).unwrap(),
        serde_json::to_value(&text[0]).unwrap()
    );
}

#[test]
fn fleet_parts_without_joint_are_each_searched_and_compared() {
    // Issue 54, item 6: `fleet --hw a,b` gives each part's best answer side
    // by side, as `decode --hw a,b` does: each column is what that part's
    // own search answers.
    let with = |hw: Value| {
        fields(&[
            ("model", "llama-3-8b".into()),
            ("hw", hw),
            ("rate", "20/s".into()),
            ("prompt", 512.into()),
            ("output", 64.into()),
            ("slo-ttft", "2s".into()),
            ("slo-tpot", "50ms".into()),
            ("requests", 100.into()),
            ("max-devices", 8.into()),
        ])
    };
    let ctx = Context::default();
    let compared = evaluate(
        &ctx,
        "fleet",
        &with(serde_json::json!(["h100-sxm", "h200-sxm"])),
        &[],
        false,
    )
    .unwrap();
    assert_eq!(compared.len(), 1);
    assert_eq!(compared[0].axes, vec!["hardware".to_string()]);
    assert_eq!(compared[0].rows.len(), 2);
    for (row, part) in compared[0].rows.iter().zip(["h100-sxm", "h200-sxm"]) {
        assert_eq!(row.inputs["hardware"], part);
        let alone = evaluate(&ctx, "fleet", &with(part.into()), &[], false).unwrap();
        for k in ["devices", "layout", "tp", "dp", "ttft_s", "tpot_s"] {
            assert_eq!(row.results[k], alone[0].results[k], "{part} {k}");
        }
    }
    // With `joint` the same list is one search: one answer, no axis.
    let mut joint = with(serde_json::json!(["h100-sxm", "h200-sxm"]));
    joint.insert("joint".into(), true.into());
    let one = evaluate(&ctx, "fleet", &joint, &[], false).unwrap();
    assert!(one[0].axes.is_empty(), "{:?}", one[0].axes);
}

#[test]
fn fleet_with_one_target_reports_the_other_as_simulated() {
    // Only a TPOT target: the winner's TTFT is still a simulated p99 (a
    // number), and the same run's TPOT is checked against its target.
    let f = fields(&[
        ("model", "llama-3-8b".into()),
        ("hw", "h200-sxm".into()),
        ("rate", "20/s".into()),
        ("prompt", 512.into()),
        ("output", 64.into()),
        ("slo-tpot", "50ms".into()),
        ("requests", 100.into()),
        ("max-devices", 8.into()),
    ]);
    let r = evaluate(&Context::default(), "fleet", &f, &[], false).unwrap();
    let res = &r[0].results;
    let ttft = res["ttft_s"].as_f64().unwrap();
    assert!(ttft > 0.0 && ttft.is_finite(), "{ttft}");
    assert!(res["tpot_s"].as_f64().unwrap() <= 0.050);
    assert!(res.get("ttft_margin").is_none_or(|m| m.is_null()));
    for row in &r[0].rows {
        if row.results["meets"] == true {
            assert!(row.results["ttft_s"].as_f64().is_some());
        }
    }
}

/// The fields a typed input reads: its own serialised keys (every field,
/// one not given as null), read from `given`.
fn typed_keys<T: serde::de::DeserializeOwned + serde::Serialize>(
    given: &Fields,
) -> std::collections::BTreeSet<String> {
    let t: T = crate::inputs::from_fields(given).unwrap();
    let v = serde_json::to_value(t).unwrap();
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn each_declared_input_is_a_field_the_library_reads() {
    use super::declared::{DECODE, Declared, PREFILL};
    use std::collections::BTreeSet;
    // The query's own fields: the files, the engine, a measured time
    // (commands.rs) and the prices (calc::power::Prices); the rest are the
    // command's typed inputs, and decode's `speculative` is split into
    // three of them (calc::decode::SPECULATIVE_PARTS).
    let own = ["model", "hw", "engine", "measured"]
        .into_iter()
        .chain(crate::calc::power::PRICE_FIELDS);
    let check = |d: &Declared, typed: BTreeSet<String>, split: &[&str]| {
        let declared: BTreeSet<String> = d.flags().map(|f| f.name.to_string()).collect();
        let read: BTreeSet<String> = own
            .clone()
            .chain(split.iter().copied())
            .map(String::from)
            .chain(typed)
            .collect();
        assert_eq!(declared, read, "{}", d.command);
    };
    check(
        &DECODE,
        typed_keys::<crate::calc::decode::DecodeInputs>(&fields(&[("context", 1.into())])),
        &["speculative"],
    );
    check(
        &PREFILL,
        typed_keys::<crate::calc::prefill::PrefillInputs>(&fields(&[("prompt", 1.into())])),
        &[],
    );
    for p in crate::calc::decode::SPECULATIVE_PARTS {
        assert!(DECODE.flag(p).is_some(), "{p}");
    }
}

#[test]
fn each_declared_serving_input_is_a_field_the_library_reads() {
    use super::declared::{Declared, FLEET, PLAN, SIMULATE};
    use std::collections::BTreeSet;
    // The query's own fields: the files, the engine and the prices; the
    // rest are the command's typed inputs.
    let own: BTreeSet<String> = ["model", "hw", "engine"]
        .into_iter()
        .chain(crate::calc::power::PRICE_FIELDS)
        .map(String::from)
        .collect();
    let declared =
        |d: &Declared| -> BTreeSet<String> { d.flags().map(|f| f.name.to_string()).collect() };
    let plan = typed_keys::<crate::calc::plan::PlanInputs>(&Fields::new());
    assert_eq!(
        declared(&PLAN),
        own.iter().cloned().chain(plan).collect(),
        "plan"
    );
    // simulate's `timeline` is asked for by a chart, not given.
    let mut simulate = typed_keys::<crate::calc::simulate::SimulateInputs>(&Fields::new());
    assert!(simulate.remove("timeline"));
    assert_eq!(
        declared(&SIMULATE),
        own.iter()
            .cloned()
            .chain(simulate.iter().cloned())
            .collect(),
        "simulate"
    );
    // fleet: its own fields, `joint` (read by the query: the parts are one
    // search) and the workload simulate reads, without the layout the
    // search chooses.
    let fleet = declared(&FLEET);
    for f in &fleet {
        assert!(
            own.contains(f)
                || f == "joint"
                || crate::calc::fleet::OWN_FIELDS.contains(&f.as_str())
                || simulate.contains(f),
            "fleet's {f} is read by nothing"
        );
    }
    for f in crate::calc::fleet::OWN_FIELDS {
        assert!(fleet.contains(f), "fleet's {f} is not declared");
    }
}

#[test]
fn a_python_docstring_names_inputs_as_keywords() {
    // The command line's `--prompt` is Python's `prompt`, `--draft-tokens`
    // its `draft_tokens`; a sentence ends with a period.
    let f = super::declared::DECODE.flag("slo-ttft").unwrap();
    assert_eq!(
        f.python_help(),
        "Time-to-first-token target, for goodput (needs prompt, output; a time, or PERCENTILE=TIME as in simulate)."
    );
    let f = super::declared::DECODE.flag("dtype").unwrap();
    assert!(
        f.python_help().ends_with("nvfp4, ..."),
        "{}",
        f.python_help()
    );
}

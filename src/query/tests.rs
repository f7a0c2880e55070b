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
    // as a list; the command line's `--hw a,b` as text. Both are one search
    // over both parts, not one search per part.
    let common = |hw: Value| {
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

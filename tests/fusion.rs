//! `fusion`: the golden cases of the `fusion` topic
//! (../shared/golden/seed_cases.toml) through the library's typed costs,
//! snapshots of the reports, and properties of the cost functions over
//! any input. Expected values and tolerances are the golden file's; each
//! check names its case id.

use crate::common;
use common::check;
use proptest::prelude::*;
use roofline::calc::fusion::{self, ChainInputs, EpilogueInputs, FusionCost, SoftmaxInputs};
use roofline::catalog::Catalog;
use roofline::inputs::{Count, Number, Seconds};
use roofline::render::{Explain, Json, Renderer, Table};
use roofline::report::Report;
use roofline::spec::hardware::{Hardware, Mode};

/// The catalog's hardware, parsed once per test binary.
fn hw(id: &str) -> &'static Hardware {
    static CACHE: std::sync::OnceLock<Vec<Hardware>> = std::sync::OnceLock::new();
    let all = CACHE.get_or_init(|| {
        ["h100-sxm", "tpu7x"]
            .iter()
            .map(|id| {
                Catalog::default()
                    .hardware(id, &[])
                    .expect("hardware loads")
            })
            .collect()
    });
    all.iter().find(|h| h.id == id).expect("cached hardware")
}

/// |actual - expected| <= tol * |expected|, the golden file's rule.
fn close(id: &str, actual: f64, expected: f64, tol: f64) {
    let ok = (actual - expected).abs() <= tol * expected.abs() + 1e-12 * expected.abs().max(1.0);
    assert!(
        ok,
        "{id}: got {actual}, expected {expected} (tolerance {tol})"
    );
}

fn num(r: &Report, key: &str) -> f64 {
    r.number(key)
        .unwrap_or_else(|| panic!("{} has no numeric `{key}`", r.command))
}

const BF16: Option<&str> = Some("bf16");

fn softmax(rows: u64, cols: u64) -> FusionCost {
    let i = SoftmaxInputs {
        rows: Some(Count(rows)),
        cols: Some(Count(cols)),
        dtype: BF16.map(String::from),
        ..SoftmaxInputs::default()
    };
    fusion::softmax(hw("h100-sxm"), &i, Mode::SpeedOfLight).unwrap()
}

fn chain(ops: u64, elements: u64, inputs: u64, overhead: Option<f64>) -> FusionCost {
    let i = ChainInputs {
        ops: Some(Count(ops)),
        elements: Some(Count(elements)),
        inputs: Some(Count(inputs)),
        dtype: BF16.map(String::from),
        overhead: overhead.map(Seconds),
        ..ChainInputs::default()
    };
    fusion::chain(hw("h100-sxm"), &i, Mode::SpeedOfLight).unwrap()
}

fn epilogue() -> FusionCost {
    let i = EpilogueInputs {
        tokens: Some(Count(32768)),
        width: Some(Count(11008)),
        layers: Some(Count(32)),
        dtype: BF16.map(String::from),
        ..EpilogueInputs::default()
    };
    fusion::epilogue(hw("h100-sxm"), &i, Mode::SpeedOfLight).unwrap()
}

const KIB: f64 = 1024.0;

#[test]
fn fused_softmax_002_s7_10() {
    let c = softmax(4096, 4096);
    let r = c.report(false);
    check("lec-7.10-traversal-bytes", num(&r, "traversal_bytes"));
    check("lec-7.10-unfused-bytes", num(&r, "unfused_bytes"));
    check("lec-7.10-unfused-time", c.unfused_time_s * 1e6);
    check("lec-7.10-fused-bytes", num(&r, "fused_bytes"));
    check("lec-7.10-fused-time", c.fused_time_s * 1e6);
    check("lec-7.10-fusion-ratio", c.speedup);
    check("lec-7.10-row-bytes", num(&r, "row_bytes") / KIB);
    check("lec-7.10-softmax-intensity", c.intensity);
    check("lec-7.10-softmax-vs-ridge", num(&r, "ridge_vs_intensity"));
    // The ratio is the lecture's 5 traversals over 2 at any size.
    close(
        "lec-7.10-fusion-ratio (1000 x 777)",
        softmax(1000, 777).speedup,
        2.5,
        1e-12,
    );
}

#[test]
fn epilogue_roundtrip_002_s7_10() {
    let r = epilogue().report(false);
    check(
        "lec-7.10-activation-roundtrip-bytes",
        num(&r, "roundtrip_bytes"),
    );
    check(
        "lec-7.10-activation-roundtrip-time",
        num(&r, "roundtrip_time_s") * 1e3,
    );
    check(
        "lec-7.10-activation-roundtrip-layers",
        num(&r, "roundtrip_time_s_all_layers") * 1e3,
    );
    close(
        "fusion deletes exactly the round-trip",
        num(&r, "bytes_saved"),
        num(&r, "roundtrip_bytes"),
        1e-12,
    );
}

#[test]
fn merge_attn_states_004() {
    // [32 tokens, 32 heads, 128] bf16: two reads and one write.
    let with_launch = chain(1, 32 * 32 * 128, 2, Some(1e-6));
    check("ch-merge-bytes", with_launch.fused_bytes);
    check("ch-merge-bytes-MB", with_launch.fused_bytes / 1e6);
    let no_launch = chain(1, 32 * 32 * 128, 2, None);
    check("ch-merge-hbm-time", no_launch.fused_time_s * 1e6);
    check(
        "ch-merge-launch-vs-work",
        with_launch.launch_vs_work().unwrap(),
    );
}

#[test]
fn elementwise_chain_is_three_times_fewer_bytes() {
    // Three single-input kernels each read and write the tensor (6
    // traversals); fused, the chain reads once and writes once (2).
    let c = chain(3, 1 << 20, 1, None);
    let r = c.report(false);
    let tensor = num(&r, "tensor_bytes");
    close(
        "chain unfused traversals",
        c.unfused_bytes / tensor,
        6.0,
        0.0,
    );
    close("chain fused traversals", c.fused_bytes / tensor, 2.0, 0.0);
    close("chain speedup", c.speedup, 3.0, 1e-12);
}

#[test]
fn defaults_are_the_flags_defaults() {
    // ops-per-element 5 for softmax, inputs 1 and flops-per-op 1 for a
    // chain, layers 1 and ops-per-element 1 for an epilogue.
    let h = hw("h100-sxm");
    let s = fusion::softmax(
        h,
        &SoftmaxInputs {
            rows: Some(Count(8)),
            cols: Some(Count(8)),
            ..Default::default()
        },
        Mode::SpeedOfLight,
    )
    .unwrap();
    assert_eq!(s.report(true).inputs["ops_per_element"], 5.0);
    let e = fusion::epilogue(
        h,
        &EpilogueInputs {
            tokens: Some(Count(8)),
            width: Some(Count(8)),
            ..Default::default()
        },
        Mode::SpeedOfLight,
    )
    .unwrap();
    let r = e.report(true);
    assert_eq!(r.inputs["layers"], 1);
    assert_eq!(r.inputs["ops_per_element"], 1.0);
}

#[test]
fn errors_name_fields() {
    let h = hw("h100-sxm");
    let field = |e: roofline::Error| match e {
        roofline::Error::Field { field, .. } | roofline::Error::MissingInput { field, .. } => field,
        e => panic!("not a field error: {e}"),
    };
    let zero = SoftmaxInputs {
        rows: Some(Count(0)),
        cols: Some(Count(8)),
        ..Default::default()
    };
    let e = fusion::softmax(h, &zero, Mode::SpeedOfLight).unwrap_err();
    assert_eq!(field(e), "rows");
    let missing = ChainInputs {
        ops: Some(Count(2)),
        ..Default::default()
    };
    let e = fusion::chain(h, &missing, Mode::SpeedOfLight).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert_eq!(field(e), "elements");
    let negative = ChainInputs {
        ops: Some(Count(2)),
        elements: Some(Count(8)),
        overhead: Some(Seconds(-1e-6)),
        ..Default::default()
    };
    let e = fusion::chain(h, &negative, Mode::SpeedOfLight).unwrap_err();
    assert_eq!(field(e), "overhead");
    let ops = SoftmaxInputs {
        rows: Some(Count(8)),
        cols: Some(Count(8)),
        ops_per_element: Some(Number(0.0)),
        ..Default::default()
    };
    let e = fusion::softmax(h, &ops, Mode::SpeedOfLight).unwrap_err();
    assert_eq!(field(e), "ops-per-element");
}

// Snapshots of the seeds' worked examples as a table, JSON and derivations.

fn text(r: &dyn Renderer, report: &Report) -> String {
    String::from_utf8(r.render(report)).unwrap()
}

#[test]
fn softmax_table() {
    insta::assert_snapshot!(text(&Table, &softmax(4096, 4096).report(false)));
}

#[test]
fn softmax_json() {
    insta::assert_snapshot!(text(&Json, &softmax(4096, 4096).report(false)));
}

#[test]
fn chain_table() {
    insta::assert_snapshot!(text(&Table, &chain(4, 1 << 27, 1, None).report(false)));
}

#[test]
fn epilogue_explain() {
    insta::assert_snapshot!(text(&Explain, &epilogue().report(false)));
}

#[test]
fn a_lean_report_has_the_same_values() {
    let c = softmax(4096, 4096);
    let (full, lean) = (c.report(false), c.report(true));
    assert_eq!(full.results, lean.results);
    assert!(lean.quantities.is_empty() && lean.notes.is_empty());
}

// Properties over any input: no panic; when the cost is Ok, its times are
// positive and finite and fusion speeds the work up.

fn count() -> impl Strategy<Value = Option<Count>> {
    prop_oneof![
        Just(None),
        (0u64..5).prop_map(|n| Some(Count(n))),
        (1u64..1_000_000).prop_map(|n| Some(Count(n))),
        any::<u64>().prop_map(|n| Some(Count(n))),
    ]
}

fn number() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        Just(None),
        Just(Some(0.0)),
        (-10.0f64..1e3).prop_map(Some),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Some),
    ]
}

fn dtype() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some("bf16".to_string())),
        Just(Some("fp8".to_string())),
        Just(Some("fp4".to_string())),
        Just(Some("fp64".to_string())),
        Just(Some("nope".to_string())),
    ]
}

fn ok_cost(c: &FusionCost) -> Result<(), TestCaseError> {
    for (what, t) in [
        ("unfused_time_s", c.unfused_time_s),
        ("fused_time_s", c.fused_time_s),
    ] {
        prop_assert!(t.is_finite() && t > 0.0, "{what} = {t}");
    }
    prop_assert!(c.speedup.is_finite() && c.speedup > 0.0, "{}", c.speedup);
    prop_assert!(c.speedup >= 1.0 - 1e-12, "fusion slowed it: {}", c.speedup);
    let r = c.report(true);
    for (k, v) in &r.results {
        if let Some(x) = v.as_f64() {
            prop_assert!(x.is_finite(), "{k} = {x}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn softmax_never_panics(rows in count(), cols in count(), ops in number(), dtype in dtype(), overhead in number(), achievable in any::<bool>()) {
        let i = SoftmaxInputs { rows, cols, ops_per_element: ops.map(Number), dtype, overhead: overhead.map(Seconds) };
        let mode = if achievable { Mode::Achievable } else { Mode::SpeedOfLight };
        for h in ["h100-sxm", "tpu7x"] {
            if let Ok(c) = fusion::softmax(hw(h), &i, mode) {
                ok_cost(&c)?;
            }
        }
    }

    #[test]
    fn chain_never_panics(ops in count(), elements in count(), inputs in count(), flops in number(), dtype in dtype(), overhead in number()) {
        let i = ChainInputs { ops, elements, inputs, flops_per_op: flops.map(Number), dtype, overhead: overhead.map(Seconds) };
        if let Ok(c) = fusion::chain(hw("h100-sxm"), &i, Mode::SpeedOfLight) {
            ok_cost(&c)?;
        }
    }

    #[test]
    fn epilogue_never_panics(tokens in count(), width in count(), layers in count(), ops in number(), dtype in dtype(), overhead in number()) {
        let i = EpilogueInputs { tokens, width, layers, ops_per_element: ops.map(Number), dtype, overhead: overhead.map(Seconds) };
        if let Ok(c) = fusion::epilogue(hw("h100-sxm"), &i, Mode::SpeedOfLight) {
            ok_cost(&c)?;
            if let fusion::Pattern::Epilogue { roundtrip_time_s, roundtrip_time_s_all_layers, .. } = c.pattern {
                prop_assert!(roundtrip_time_s > 0.0 && roundtrip_time_s.is_finite());
                prop_assert!(roundtrip_time_s_all_layers > 0.0 && roundtrip_time_s_all_layers.is_finite());
            }
        }
    }
}

// Golden cases of the topic that no command computes, and why:
// - book-2.1-online-softmax-accesses: access counts of two softmax kernels
//   inside one pass, quoted from a kernel description, not a traffic model.

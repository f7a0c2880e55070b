//! Snapshots of `kv`, `decode`, `prefill` and `speculative`: one table and
//! one JSON each, for the worked examples.

use roofline::calc::{decode, kv, prefill, speculative};
use roofline::catalog::Catalog;
use roofline::render::{Json, Renderer, Table};
use roofline::report::Report;
use roofline::spec::hardware::Mode;

fn text(r: &dyn Renderer, report: &Report) -> String {
    String::from_utf8(r.render(report)).unwrap()
}

fn kv_report() -> Report {
    let c = Catalog::default();
    let i: kv::KvInputs =
        serde_json::from_value(serde_json::json!({"context": 8192, "batch": 32})).unwrap();
    let hw = c.hardware("h200-sxm", &[]).unwrap();
    kv::cost(&c.model("llama-3-8b", &[]).unwrap(), Some(&hw), &i)
        .unwrap()
        .report(false)
}

fn decode_report() -> Report {
    let c = Catalog::default();
    let i: decode::DecodeInputs =
        serde_json::from_value(serde_json::json!({"batch": 1, "context": 1024})).unwrap();
    decode::cost(
        &c.model("llama-2-7b", &[]).unwrap(),
        &c.hardware("h100-sxm", &[]).unwrap(),
        &i,
        Mode::SpeedOfLight,
    )
    .unwrap()
    .report(false)
}

fn prefill_report() -> Report {
    let c = Catalog::default();
    let i: prefill::PrefillInputs =
        serde_json::from_value(serde_json::json!({"prompt": 8192})).unwrap();
    prefill::cost(
        &c.model("llama-3-8b", &[]).unwrap(),
        &c.hardware("h100-sxm", &[]).unwrap(),
        &i,
        Mode::SpeedOfLight,
    )
    .unwrap()
    .report(false)
}

fn speculative_report() -> Report {
    let i: speculative::SpeculativeInputs = serde_json::from_value(
        serde_json::json!({"acceptance": 0.8, "draft-tokens": 4, "draft-cost": 0.05}),
    )
    .unwrap();
    speculative::cost(&i).unwrap().report(false)
}

#[test]
fn kv_table() {
    insta::assert_snapshot!(text(&Table, &kv_report()));
}

#[test]
fn kv_json() {
    insta::assert_snapshot!(text(&Json, &kv_report()));
}

#[test]
fn decode_table() {
    insta::assert_snapshot!(text(&Table, &decode_report()));
}

#[test]
fn decode_json() {
    insta::assert_snapshot!(text(&Json, &decode_report()));
}

#[test]
fn prefill_table() {
    insta::assert_snapshot!(text(&Table, &prefill_report()));
}

#[test]
fn prefill_json() {
    insta::assert_snapshot!(text(&Json, &prefill_report()));
}

#[test]
fn speculative_table() {
    insta::assert_snapshot!(text(&Table, &speculative_report()));
}

#[test]
fn speculative_json() {
    insta::assert_snapshot!(text(&Json, &speculative_report()));
}

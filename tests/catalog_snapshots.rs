//! Snapshots of the catalog listings and of one datasheet per kind of
//! accelerator, as JSON reports: a change to any number in a built-in file
//! shows up here as a reviewed diff.

use roofline::calc::hw;
use roofline::calc::model;
use roofline::catalog::Catalog;
use roofline::spec::hardware::Mode;

#[test]
fn hw_list() {
    let c = Catalog::default();
    let all: Vec<_> = c
        .hardware_entries()
        .unwrap()
        .iter()
        .map(|e| c.hardware(&e.id, &[]).unwrap())
        .collect();
    insta::assert_json_snapshot!(hw::list(&all));
}

#[test]
fn model_list() {
    let c = Catalog::default();
    let all: Vec<_> = c
        .model_entries()
        .unwrap()
        .iter()
        .map(|e| c.model(&e.id, &[]).unwrap())
        .collect();
    insta::assert_json_snapshot!(model::list(&all).unwrap());
}

#[test]
fn datasheets() {
    let c = Catalog::default();
    for id in ["h200-sxm", "mi355x", "tpu7x", "trainium3", "h800"] {
        let h = c.hardware(id, &[]).unwrap();
        let r = hw::cost(&h, &Default::default(), Mode::SpeedOfLight)
            .unwrap()
            .report(false);
        insta::assert_json_snapshot!(format!("datasheet-{id}"), r.results);
    }
}

#[test]
fn model_figures() {
    let c = Catalog::default();
    // In bf16, as the snapshots were taken (DeepSeek-V3's own checkpoint
    // is fp8; `tests/weights.rs` holds the defaults).
    let bf16 = model::ModelInputs {
        dtype: Some("bf16".into()),
        ..Default::default()
    };
    for id in ["deepseek-v3", "mixtral-8x7b", "gpt-3-175b"] {
        let r = model::cost(&c.model(id, &[]).unwrap(), &bf16)
            .unwrap()
            .report(false);
        insta::assert_json_snapshot!(format!("model-{id}"), r.results);
    }
}

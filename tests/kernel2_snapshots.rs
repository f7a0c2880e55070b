//! Snapshots of the `fusion` and `launch` reports as a table, as
//! JSON and as `--explain` derivations, for the seeds' worked examples.

use roofline::calc::fusion::{self, FusionOptions};
use roofline::calc::launch::{self, LaunchParams, Overhead};
use roofline::catalog::Catalog;
use roofline::render::{Explain, Json, Renderer, Table};
use roofline::report::Report;
use roofline::spec::hardware::Hardware;

fn h100() -> Hardware {
    Catalog::default().hardware("h100-sxm", &[]).unwrap()
}

fn text(r: &dyn Renderer, report: &Report) -> String {
    String::from_utf8(r.render(report)).unwrap()
}

fn bf16() -> FusionOptions {
    FusionOptions {
        dtype: Some("bf16".into()),
        ..FusionOptions::default()
    }
}

#[test]
fn fusion_softmax_table() {
    let r = fusion::softmax(&h100(), 4096, 4096, 5.0, &bf16()).unwrap();
    insta::assert_snapshot!(text(&Table, &r));
}

#[test]
fn fusion_softmax_json() {
    let r = fusion::softmax(&h100(), 4096, 4096, 5.0, &bf16()).unwrap();
    insta::assert_snapshot!(text(&Json, &r));
}

#[test]
fn fusion_chain_table() {
    let r = fusion::chain(&h100(), 4, 1 << 27, 1, 1.0, &bf16()).unwrap();
    insta::assert_snapshot!(text(&Table, &r));
}

#[test]
fn fusion_epilogue_explain() {
    let r = fusion::epilogue(&h100(), 32768, 11008, 32, 1.0, &bf16()).unwrap();
    insta::assert_snapshot!(text(&Explain, &r));
}

fn ex5() -> Report {
    let p = LaunchParams {
        kernels: Some(490),
        floor_s: Some(4.0e-3),
        fused_kernels: Some(163),
        ..LaunchParams::default()
    };
    let o = Overhead {
        mode: "eager".into(),
        per_kernel_s: 5e-6,
        derivation: "--overhead 5 us".into(),
    };
    launch::launch(None, &p, &[o]).unwrap()
}

#[test]
fn launch_table() {
    insta::assert_snapshot!(text(&Table, &ex5()));
}

#[test]
fn launch_json() {
    insta::assert_snapshot!(text(&Json, &ex5()));
}

#[test]
fn launch_modes_table() {
    let p = LaunchParams {
        kernels_per_layer: Some(12),
        layers: Some(32),
        extra_kernels: 3,
        floor_s: Some(4.0e-3),
        ..LaunchParams::default()
    };
    let mk = |m: &str, us: f64| Overhead {
        mode: m.into(),
        per_kernel_s: us * 1e-6,
        derivation: String::new(),
    };
    let r = launch::launch(
        Some("v100"),
        &p,
        &[mk("eager", 0.9), mk("synchronised", 6.7), mk("graph", 0.5)],
    )
    .unwrap();
    insta::assert_snapshot!(text(&Table, &r));
}

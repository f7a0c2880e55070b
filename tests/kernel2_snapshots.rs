//! Snapshots of the `matmul` reports as a table, as
//! JSON and as `--explain` derivations, for the seeds' worked examples.

use roofline::calc::matmul::{self, MatmulParams};
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

fn matmul_4096() -> Report {
    matmul::matmul(&h100(), &MatmulParams::default()).unwrap()
}

#[test]
fn matmul_table() {
    insta::assert_snapshot!(text(&Table, &matmul_4096()));
}

#[test]
fn matmul_json() {
    insta::assert_snapshot!(text(&Json, &matmul_4096()));
}

#[test]
fn matmul_explain() {
    insta::assert_snapshot!(text(&Explain, &matmul_4096()));
}

#[test]
fn matmul_decode_wgmma_table() {
    let p = MatmulParams {
        m: 1,
        mma: Some("wgmma".into()),
        ..MatmulParams::default()
    };
    insta::assert_snapshot!(text(&Table, &matmul::matmul(&h100(), &p).unwrap()));
}

//! Snapshots of the `matmul` report as a table, as JSON and as `--explain`
//! derivations, for the seeds' worked examples (002 §7.8, 004 "Tensor
//! cores").

use roofline::calc::matmul::{self, MatmulInputs};
use roofline::catalog::Catalog;
use roofline::render::{Explain, Json, Renderer, Table};
use roofline::report::Report;
use roofline::spec::hardware::{Hardware, Mode};

fn h100() -> Hardware {
    Catalog::default().hardware("h100-sxm", &[]).unwrap()
}

fn text(r: &dyn Renderer, report: &Report) -> String {
    String::from_utf8(r.render(report)).unwrap()
}

fn report(i: &MatmulInputs) -> Report {
    matmul::cost(&h100(), i, Mode::SpeedOfLight)
        .unwrap()
        .report(false)
}

fn matmul_4096() -> Report {
    report(&MatmulInputs::new(4096, 4096, 4096))
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
    let p = MatmulInputs {
        mma: Some("wgmma".into()),
        ..MatmulInputs::new(1, 4096, 4096)
    };
    insta::assert_snapshot!(text(&Table, &report(&p)));
}

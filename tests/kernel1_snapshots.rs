//! Snapshots of the table and JSON of `point`, `occupancy`, `coalesce` and
//! `littles-law`, on the H200 fixture (tests/data/occupancy/h200.toml) so a
//! catalog edit does not move them.

use roofline::calc::coalesce::{Access, Granularity, coalesce};
use roofline::calc::littles_law::{Demand, Latency, littles_law};
use roofline::calc::occupancy::{Kernel, occupancy};
use roofline::calc::point::{self, PointInputs};
use roofline::catalog::Catalog;
use roofline::precision;
use roofline::render::{Explain, Format, Renderer};
use roofline::report::Report;
use roofline::spec::hardware::{Hardware, Mode};

fn h200() -> Hardware {
    Catalog::default()
        .hardware("tests/data/occupancy/h200.toml", &[])
        .unwrap()
}

fn table(r: &Report) -> String {
    String::from_utf8(Format::Table.renderer().render(r)).unwrap()
}

fn explain(r: &Report) -> String {
    String::from_utf8(Explain.render(r)).unwrap()
}

#[test]
fn point_snapshots() {
    let r = point::cost(
        &h200(),
        &PointInputs::at_intensity(1.0, "bf16"),
        Mode::SpeedOfLight,
    )
    .unwrap()
    .report(false);
    insta::assert_snapshot!("point_table", table(&r));
    insta::assert_json_snapshot!("point_json", r);
    let r = point::cost(
        &h200(),
        &PointInputs::totals(2.0 * 4096f64.powi(3), 3.0 * 4096f64.powi(2) * 2.0, "bf16"),
        Mode::SpeedOfLight,
    )
    .unwrap()
    .report(false);
    insta::assert_snapshot!("point_totals_explain", explain(&r));
}

#[test]
fn occupancy_snapshots() {
    let k = Kernel {
        threads: 256,
        regs: 64,
        smem: 32 * 1024,
        ..Kernel::default()
    };
    let r = occupancy(&h200(), &k).unwrap();
    insta::assert_snapshot!("occupancy_table", table(&r));
    insta::assert_json_snapshot!("occupancy_json", r);
    insta::assert_snapshot!("occupancy_explain", explain(&r));
    let r = occupancy(
        &h200(),
        &Kernel {
            textbook: true,
            grid: Some(100),
            ..k
        },
    )
    .unwrap();
    insta::assert_snapshot!("occupancy_textbook_grid_table", table(&r));
}

#[test]
fn coalesce_snapshots() {
    let a = Access {
        stride: 32,
        offset: 0,
        granularity: Granularity::Dram,
    };
    let p = precision::lookup("fp32").unwrap();
    let r = coalesce(&h200(), p, Mode::SpeedOfLight, &a).unwrap();
    insta::assert_snapshot!("coalesce_table", table(&r));
    insta::assert_json_snapshot!("coalesce_json", r);
    let a = Access {
        stride: 1,
        offset: 4,
        granularity: Granularity::Segment,
    };
    let r = coalesce(&h200(), p, Mode::SpeedOfLight, &a).unwrap();
    insta::assert_snapshot!("coalesce_misaligned_explain", explain(&r));
}

#[test]
fn littles_law_snapshots() {
    let d = Demand {
        latency: Some(Latency::Cycles(500.0)),
        clock_hz: Some(1.8e9),
        ..Demand::default()
    };
    let r = littles_law(&h200(), &d).unwrap();
    insta::assert_snapshot!("littles_law_table", table(&r));
    insta::assert_json_snapshot!("littles_law_json", r);
    insta::assert_snapshot!("littles_law_explain", explain(&r));
}

//! Speed of `point`, `occupancy`, `coalesce` and `littles-law` in the
//! library: loading the hardware file, the typed cost, its lean report (a
//! sweep point) and the full report rendered as a table, as one query does.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::coalesce::{self, CoalesceInputs, Granularity};
use roofline::calc::littles_law::{self, LittlesLawInputs};
use roofline::calc::occupancy::{self, OccupancyInputs};
use roofline::calc::point::{self, PointInputs};
use roofline::catalog::Catalog;
use roofline::inputs::{Fields, from_fields};
use roofline::render::Format;
use roofline::spec::hardware::Mode;
use roofline::sweep::{self, Axis};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let cat = Catalog::default();
    let hw = cat.hardware("h100-sxm", &[]).unwrap();
    let table = Format::Table.renderer();
    let sol = Mode::SpeedOfLight;

    c.bench_function("load h100-sxm", |b| {
        b.iter(|| cat.hardware(black_box("h100-sxm"), &[]).unwrap())
    });
    c.bench_function("point report + table", |b| {
        b.iter(|| {
            let r = point::cost(&hw, &PointInputs::at_intensity(black_box(1.0), "bf16"), sol)
                .unwrap()
                .report(false);
            table.render(&r)
        })
    });
    let k = OccupancyInputs::new(256, 64, 32 * 1024);
    c.bench_function("occupancy cost", |b| {
        b.iter(|| {
            occupancy::cost(&hw, black_box(&k), sol)
                .unwrap()
                .blocks_per_sm
        })
    });
    c.bench_function("occupancy cost + lean report", |b| {
        b.iter(|| {
            occupancy::cost(&hw, black_box(&k), sol)
                .unwrap()
                .report(true)
        })
    });
    c.bench_function("occupancy report + table", |b| {
        b.iter(|| {
            table.render(
                &occupancy::cost(&hw, black_box(&k), sol)
                    .unwrap()
                    .report(false),
            )
        })
    });
    for (name, stride, offset) in [("coalesce stride 32", 32, 0), ("coalesce misaligned", 1, 4)] {
        let a = CoalesceInputs::new("fp32", stride, offset, Granularity::Segment);
        c.bench_function(&format!("{name} report + table"), |b| {
            b.iter(|| {
                table.render(
                    &coalesce::cost(&hw, black_box(&a), sol)
                        .unwrap()
                        .report(false),
                )
            })
        });
    }
    let d = LittlesLawInputs::lecture(500.0, 1.8e9);
    c.bench_function("littles-law report + table", |b| {
        b.iter(|| {
            table.render(
                &littles_law::cost(&hw, black_box(&d), sol)
                    .unwrap()
                    .report(false),
            )
        })
    });
}

/// The calculation's share of a 99,840-point occupancy grid (32 block
/// sizes x 240 register counts x 13 shared-memory sizes): each point's
/// fields deserialized, its cost and its lean report, as a sweep does, with
/// no rows kept. SPEC's budget for the whole process is 0.5 s.
fn grid(c: &mut Criterion) {
    let hw = Catalog::default().hardware("h100-sxm", &[]).unwrap();
    let axes: Vec<Axis> = [
        "threads=32..1024:32",
        "regs=16..255:1",
        "smem=0..98304:8192",
    ]
    .iter()
    .map(|s| sweep::parse(s).unwrap().into())
    .collect();
    let mut g = c.benchmark_group("occupancy grid");
    g.sample_size(10);
    g.bench_function("99,840 points: fields, cost, lean report", |b| {
        b.iter(|| {
            let mut f = Fields::new();
            let mut n = 0;
            for t in &axes[0].values {
                f.insert("threads".into(), t.clone());
                for r in &axes[1].values {
                    f.insert("regs".into(), r.clone());
                    for s in &axes[2].values {
                        f.insert("smem".into(), s.clone());
                        let k: OccupancyInputs = from_fields(&f).unwrap();
                        let c = occupancy::cost(&hw, &k, Mode::SpeedOfLight).unwrap();
                        n += c.report(true).results.len();
                    }
                }
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench, grid);
criterion_main!(benches);

//! Speed of `point`, `occupancy`, `coalesce` and `littles-law` in the
//! library: loading the hardware file, computing the report and rendering
//! its table, as one query does.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::coalesce::{Access, Granularity, coalesce};
use roofline::calc::littles_law::{Demand, Latency, littles_law};
use roofline::calc::occupancy::{Kernel, limits, occupancy};
use roofline::calc::point::{self, PointInputs};
use roofline::catalog::Catalog;
use roofline::precision;
use roofline::render::Format;
use roofline::spec::hardware::Mode;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let cat = Catalog::default();
    let hw = cat.hardware("h100-sxm", &[]).unwrap();
    let bf16 = precision::lookup("bf16").unwrap();
    let fp32 = precision::lookup("fp32").unwrap();
    let table = Format::Table.renderer();

    c.bench_function("load h100-sxm", |b| {
        b.iter(|| cat.hardware(black_box("h100-sxm"), &[]).unwrap())
    });
    c.bench_function("point report + table", |b| {
        b.iter(|| {
            let r = point::cost(
                &hw,
                &PointInputs::at_intensity(black_box(1.0), bf16.name),
                Mode::SpeedOfLight,
            )
            .unwrap()
            .report(false);
            table.render(&r)
        })
    });
    let k = Kernel {
        threads: 256,
        regs: 64,
        smem: 32 * 1024,
        ..Kernel::default()
    };
    c.bench_function("occupancy limits", |b| {
        b.iter(|| limits(&hw, black_box(&k)).unwrap().blocks_per_sm())
    });
    c.bench_function("occupancy report + table", |b| {
        b.iter(|| table.render(&occupancy(&hw, black_box(&k)).unwrap()))
    });
    for (name, stride, offset) in [("coalesce stride 32", 32, 0), ("coalesce misaligned", 1, 4)] {
        let a = Access {
            stride,
            offset,
            granularity: Granularity::Segment,
        };
        c.bench_function(&format!("{name} report + table"), |b| {
            b.iter(|| {
                table.render(&coalesce(&hw, fp32, Mode::SpeedOfLight, black_box(&a)).unwrap())
            })
        });
    }
    let d = Demand {
        latency: Some(Latency::Cycles(500.0)),
        clock_hz: Some(1.8e9),
        ..Demand::default()
    };
    c.bench_function("littles-law report + table", |b| {
        b.iter(|| table.render(&littles_law(&hw, black_box(&d)).unwrap()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);

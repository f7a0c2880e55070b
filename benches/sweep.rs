//! Benchmarks of sweeps as data: the typed calculation evaluated at every
//! point of a grid and the combined report rendered, as `--sweep` does.
//! The whole-process budgets (SPEC, "Speed") are a 10,000-point sweep in
//! under 50 ms and a 100,000-point grid in under 0.5 s.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::point::{self, PointInputs};
use roofline::catalog::Catalog;
use roofline::inputs::{Fields, from_fields};
use roofline::render::Format;
use roofline::spec::hardware::Mode;
use roofline::sweep::{self, Axis};
use serde_json::Value;
use std::hint::black_box;

fn axis(name: &str, n: usize) -> Axis {
    Axis {
        name: name.into(),
        values: (1..=n)
            .map(|i| Value::from(i.to_string()))
            .collect::<Vec<_>>()
            .into(),
    }
}

fn grid(c: &mut Criterion) {
    let hw = Catalog::default().hardware("h100-sxm", &[]).unwrap();
    let mut base = Fields::new();
    base.insert("dtype".into(), "bf16".into());
    let run = |axes: &[Axis]| {
        sweep::evaluate(axes, |p, lean| {
            let mut f = base.clone();
            for (k, v) in p {
                f.insert((*k).to_string(), (*v).clone());
            }
            let inputs: PointInputs = from_fields(&f)?;
            Ok(point::cost(&hw, &inputs, Mode::SpeedOfLight)?.report(lean))
        })
        .unwrap()
    };
    let mut g = c.benchmark_group("sweep");
    g.sample_size(10);
    let ten_k = [axis("intensity", 10_000)];
    g.bench_function("point 10,000 points", |b| b.iter(|| run(black_box(&ten_k))));
    let r = run(&ten_k);
    g.bench_function("render csv 10,000 rows", |b| {
        b.iter(|| Format::Csv.renderer().render(black_box(&r)))
    });
    g.bench_function("render table 10,000 rows", |b| {
        b.iter(|| Format::Table.renderer().render(black_box(&r)))
    });
    let hundred_k = [axis("intensity", 100_000)];
    g.bench_function("point 100,000 points + csv", |b| {
        b.iter(|| Format::Csv.renderer().render(&run(black_box(&hundred_k))))
    });
    g.finish();
}

criterion_group!(benches, grid);
criterion_main!(benches);

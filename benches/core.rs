//! Benchmarks of the core path: load a built-in file, calculate, render.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::{hw, model};
use roofline::catalog::Catalog;
use roofline::render::Format;
use roofline::spec::hardware::Mode;
use std::hint::black_box;

fn core(c: &mut Criterion) {
    let cat = Catalog::default();
    c.bench_function("load h100-sxm", |b| {
        b.iter(|| cat.hardware(black_box("h100-sxm"), &[]).unwrap())
    });
    let h = cat.hardware("h100-sxm", &[]).unwrap();
    c.bench_function("hw show h100-sxm", |b| {
        b.iter(|| {
            hw::cost(black_box(&h), &Default::default(), Mode::SpeedOfLight)
                .unwrap()
                .report(false)
        })
    });
    let r = hw::cost(&h, &Default::default(), Mode::SpeedOfLight)
        .unwrap()
        .report(false);
    for f in [Format::Table, Format::Json, Format::Csv, Format::Markdown] {
        c.bench_function(&format!("render {f:?}"), |b| {
            b.iter(|| f.renderer().render(black_box(&r)))
        });
    }
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let inputs = model::ModelInputs::default();
    c.bench_function("model show llama-3-8b", |b| {
        b.iter(|| model::cost(black_box(&m), &inputs).unwrap().report(false))
    });
}

criterion_group!(benches, core);
criterion_main!(benches);

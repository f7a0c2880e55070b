//! Benchmarks of charts: building each chart's data from the library and
//! drawing it as SVG and PNG.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::decode::DecodeInputs;
use roofline::calc::matmul::MatmulInputs;
use roofline::calc::occupancy::OccupancyInputs;
use roofline::catalog::Catalog;
use roofline::chart::roofline::KernelMark;
use roofline::chart::{
    self, Chart, ChartFormat, DecodeData, OccupancyData, RooflineData, TilesData,
};
use roofline::spec::hardware::Mode;
use std::hint::black_box;

fn charts(c: &mut Criterion) {
    let cat = Catalog::default();
    let hw: Vec<_> = ["h100-sxm", "b200", "mi355x", "tpu7x", "trainium3"]
        .iter()
        .map(|id| cat.hardware(id, &[]).unwrap())
        .collect();
    let roofline = || {
        RooflineData::build(
            &hw,
            &["bf16".into(), "fp8".into()],
            vec![
                KernelMark::parse("decode:1").unwrap(),
                KernelMark::parse("prefill 4K:4100").unwrap(),
            ],
            false,
        )
        .unwrap()
    };
    let r = Chart::Roofline(roofline());
    c.bench_function("chart roofline build", |b| b.iter(|| black_box(roofline())));
    c.bench_function("chart roofline svg", |b| {
        b.iter(|| chart::render(black_box(&r), ChartFormat::Svg).unwrap())
    });
    c.bench_function("chart roofline png", |b| {
        b.iter(|| chart::render(black_box(&r), ChartFormat::Png).unwrap())
    });
    let h100 = &hw[0];
    let occ = OccupancyInputs::new(256, 64, 32768);
    c.bench_function("chart occupancy build", |b| {
        b.iter(|| OccupancyData::build(black_box(h100), &occ).unwrap())
    });
    let o = Chart::Occupancy(OccupancyData::build(h100, &occ).unwrap());
    c.bench_function("chart occupancy svg", |b| {
        b.iter(|| chart::render(black_box(&o), ChartFormat::Svg).unwrap())
    });
    let tiles = MatmulInputs::new(4096, 4096, 4096);
    let t = Chart::Tiles(TilesData::build(h100, &tiles, Mode::SpeedOfLight).unwrap());
    c.bench_function("chart tiles svg", |b| {
        b.iter(|| chart::render(black_box(&t), ChartFormat::Svg).unwrap())
    });
    let model = cat.model("llama-3-8b", &[]).unwrap();
    let inputs: DecodeInputs = roofline::inputs::from_fields(
        serde_json::json!({"batch": 1, "context": 2048})
            .as_object()
            .unwrap(),
    )
    .unwrap();
    let serving = [
        hw[0].clone(),
        cat.hardware("h200-sxm", &[]).unwrap(),
        hw[1].clone(),
        hw[2].clone(),
    ];
    c.bench_function("chart decode build", |b| {
        b.iter(|| {
            DecodeData::build(
                &model,
                black_box(&serving),
                &inputs,
                1024,
                Mode::SpeedOfLight,
            )
            .unwrap()
        })
    });
    let d = Chart::Decode(
        DecodeData::build(&model, &serving, &inputs, 1024, Mode::SpeedOfLight).unwrap(),
    );
    c.bench_function("chart decode svg", |b| {
        b.iter(|| chart::render(black_box(&d), ChartFormat::Svg).unwrap())
    });
}

criterion_group!(benches, charts);
criterion_main!(benches);

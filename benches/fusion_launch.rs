//! Criterion benchmarks of the `fusion` and `launch` calculations
//! (library only; hardware parsed once outside the loop); `matmul`'s are
//! in benches/matmul.rs.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::fusion::{self, EpilogueInputs, SoftmaxInputs};
use roofline::calc::launch::{self, LaunchInputs};
use roofline::catalog::Catalog;
use roofline::inputs::{Count, Seconds};
use roofline::spec::hardware::Mode;
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    let h100 = Catalog::default().hardware("h100-sxm", &[]).unwrap();
    c.bench_function("catalog h100-sxm load", |b| {
        b.iter(|| {
            Catalog::default()
                .hardware(black_box("h100-sxm"), &[])
                .unwrap()
        })
    });
    let softmax = SoftmaxInputs {
        rows: Some(Count(4096)),
        cols: Some(Count(4096)),
        ..SoftmaxInputs::default()
    };
    c.bench_function("fusion softmax 4096x4096", |b| {
        b.iter(|| {
            fusion::softmax(black_box(&h100), black_box(&softmax), Mode::SpeedOfLight)
                .unwrap()
                .report(false)
        })
    });
    let epilogue = EpilogueInputs {
        tokens: Some(Count(32768)),
        width: Some(Count(11008)),
        layers: Some(Count(32)),
        ..EpilogueInputs::default()
    };
    c.bench_function("fusion epilogue", |b| {
        b.iter(|| {
            fusion::epilogue(black_box(&h100), black_box(&epilogue), Mode::SpeedOfLight)
                .unwrap()
                .report(false)
        })
    });
    let lp = LaunchInputs {
        kernels: Some(Count(490)),
        overhead: Some(Seconds(5e-6)),
        floor: Some(Seconds(4e-3)),
        fused_kernels: Some(Count(163)),
        ..LaunchInputs::default()
    };
    c.bench_function("launch exercise 5", |b| {
        b.iter(|| {
            launch::cost(None, black_box(&lp), Mode::SpeedOfLight)
                .unwrap()
                .report(false)
        })
    });
}

criterion_group!(fusion_launch, benches);
criterion_main!(fusion_launch);

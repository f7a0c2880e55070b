//! Criterion benchmarks of the `matmul` calculation (library only;
//! hardware parsed once outside the loop): the cost alone, and the cost
//! with its full and its lean report.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::matmul::{self, MatmulInputs};
use roofline::catalog::Catalog;
use roofline::spec::hardware::Mode;
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    let h100 = Catalog::default().hardware("h100-sxm", &[]).unwrap();
    let p = MatmulInputs::new(4096, 4096, 4096);
    c.bench_function("matmul cost 4096^3", |b| {
        b.iter(|| matmul::cost(black_box(&h100), black_box(&p), Mode::SpeedOfLight).unwrap())
    });
    c.bench_function("matmul 4096^3 full report", |b| {
        b.iter(|| {
            matmul::cost(black_box(&h100), black_box(&p), Mode::SpeedOfLight)
                .unwrap()
                .report(false)
        })
    });
    c.bench_function("matmul 4096^3 lean report", |b| {
        b.iter(|| {
            matmul::cost(black_box(&h100), black_box(&p), Mode::SpeedOfLight)
                .unwrap()
                .report(true)
        })
    });
    let decode = MatmulInputs {
        mma: Some("m16n8k16".into()),
        ..MatmulInputs::new(1, 4096, 4096)
    };
    c.bench_function("matmul decode M=1 with mma", |b| {
        b.iter(|| {
            matmul::cost(black_box(&h100), black_box(&decode), Mode::SpeedOfLight)
                .unwrap()
                .report(false)
        })
    });
}

criterion_group!(matmul_benches, benches);
criterion_main!(matmul_benches);

//! Criterion benchmarks of the `fusion` and `launch` calculations
//! (library only; hardware parsed once outside the loop); `matmul`'s are
//! in benches/matmul.rs.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::fusion::{self, FusionOptions};
use roofline::calc::launch::{self, LaunchParams, Overhead};
use roofline::catalog::Catalog;
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
    let opts = FusionOptions::default();
    c.bench_function("fusion softmax 4096x4096", |b| {
        b.iter(|| fusion::softmax(black_box(&h100), 4096, 4096, 5.0, &opts).unwrap())
    });
    c.bench_function("fusion epilogue", |b| {
        b.iter(|| fusion::epilogue(black_box(&h100), 32768, 11008, 32, 1.0, &opts).unwrap())
    });
    let lp = LaunchParams {
        kernels: Some(490),
        floor_s: Some(4e-3),
        fused_kernels: Some(163),
        ..LaunchParams::default()
    };
    let o = [Overhead {
        mode: "eager".into(),
        per_kernel_s: 5e-6,
        derivation: String::new(),
    }];
    c.bench_function("launch exercise 5", |b| {
        b.iter(|| launch::launch(None, black_box(&lp), black_box(&o)).unwrap())
    });
}

criterion_group!(kernel2, benches);
criterion_main!(kernel2);

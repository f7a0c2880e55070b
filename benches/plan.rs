//! Benchmarks of the plan search: DeepSeek-V3 on 1,024 H200s (every valid
//! layout costed and ranked), one explicit layout, and one collective.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::collective::{self, Fabric, Kind};
use roofline::calc::plan::{self, PlanInputs, Setup};
use roofline::catalog::Catalog;
use roofline::inputs::Count;
use roofline::spec::hardware::Mode;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let cat = Catalog::default();
    let h = cat.hardware("h200-sxm", &[]).unwrap();
    let m = cat.model("deepseek-v3", &[]).unwrap();
    let inputs = PlanInputs {
        devices: Some(Count(1024)),
        search: Some(true),
        batch: Some(Count(64)),
        ..Default::default()
    };
    let s = Setup::new(&h, &m, &inputs, Mode::SpeedOfLight).unwrap();
    let w = plan::workload(&inputs).unwrap();
    c.bench_function("plan search deepseek-v3 1024 h200", |b| {
        b.iter(|| plan::search(black_box(&s), 1024, w, &inputs).unwrap())
    });
    c.bench_function("plan search deepseek-v3 1024 h200 with report", |b| {
        b.iter(|| {
            plan::search(black_box(&s), 1024, w, &inputs)
                .unwrap()
                .report(false)
        })
    });
    let one = PlanInputs {
        devices: Some(Count(32)),
        tp: Some(Count(4)),
        dp: Some(Count(8)),
        ep: Some(Count(32)),
        ..Default::default()
    };
    c.bench_function("plan deepseek-v3 tp4 dp8 ep32", |b| {
        b.iter(|| plan::cost(black_box(&h), &m, &one, Mode::SpeedOfLight).unwrap())
    });
    let f = Fabric::of(&h, Mode::SpeedOfLight);
    c.bench_function("collective all-reduce 32 h200", |b| {
        b.iter(|| collective::time(black_box(&f), Kind::AllReduce, 32, 1e9, None).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Benchmarks of the simulator: 10,000 and 100,000 requests of
//! Llama-3-8B on one H200 under Poisson arrivals (cost and report), as
//! `simulate --rate 20/s --prompt 2048 --output 256` runs them.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::simulate::{self, SimulateInputs};
use roofline::catalog::Catalog;
use roofline::spec::hardware::Mode;
use serde_json::json;
use std::hint::black_box;

fn sims(c: &mut Criterion) {
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let h = cat.hardware("h200-sxm", &[]).unwrap();
    let mut g = c.benchmark_group("simulate");
    g.sample_size(10);
    for n in [10_000u64, 100_000] {
        let i: SimulateInputs = serde_json::from_value(json!({
            "rate": "20/s", "prompt": 2048, "output": 256, "requests": n,
            "slo-ttft": "2s", "slo-tpot": "50ms"
        }))
        .unwrap();
        g.bench_function(format!("llama-3-8b h200 {n} requests"), |b| {
            b.iter(|| {
                simulate::cost(black_box(&m), &h, &i, Mode::SpeedOfLight)
                    .unwrap()
                    .report(false)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, sims);
criterion_main!(benches);

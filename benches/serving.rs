//! Benchmarks of the serving calculations: one decode step, a 512-point
//! batch sweep through the sweep engine (as `decode --sweep batch=1..512:1`
//! runs it), a 10,000-point sweep under `--achievable`, an SLO bisection, a
//! KV fit and a chunked prefill.

use criterion::{Criterion, criterion_group, criterion_main};
use roofline::calc::{decode, kv, prefill};
use roofline::catalog::Catalog;
use roofline::inputs::{Fields, from_fields};
use roofline::spec::hardware::Mode;
use roofline::sweep::{self, Axis};
use serde_json::{Value, json};
use std::hint::black_box;
use std::rc::Rc;

fn fields(v: Value) -> Fields {
    v.as_object().unwrap().clone()
}

fn serving(c: &mut Criterion) {
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let h = cat.hardware("h200-sxm", &[]).unwrap();
    let one: decode::DecodeInputs =
        from_fields(&fields(json!({"batch": 32, "context": 4096}))).unwrap();
    c.bench_function("decode llama-3-8b h200 (cost + report)", |b| {
        b.iter(|| {
            decode::cost(black_box(&m), &h, &one, Mode::SpeedOfLight)
                .unwrap()
                .report(false)
        })
    });
    let base = fields(json!({"batch": 1, "context": 2048}));
    let axes = [Axis {
        name: "batch".into(),
        values: (1..=512).map(Value::from).collect::<Vec<_>>().into(),
    }];
    c.bench_function("decode sweep batch=1..512:1", |b| {
        b.iter(|| {
            sweep::evaluate(&axes, |point, lean| {
                let mut f = base.clone();
                for (k, v) in point {
                    f.insert((*k).to_string(), (*v).clone());
                }
                let i: decode::DecodeInputs = from_fields(&f)?;
                Ok(decode::cost(&m, &h, &i, Mode::SpeedOfLight)?.report(lean))
            })
            .unwrap()
        })
    });
    // The per-operation model (--achievable) over a 10,000-point grid:
    // batch 1..100 by context 64..6,400 (SPEC "Speed": under 100 ms).
    let grid = [
        Axis {
            name: "batch".into(),
            values: (1..=100).map(Value::from).collect::<Vec<_>>().into(),
        },
        Axis {
            name: "context".into(),
            values: (1..=100)
                .map(|c| Value::from(64 * c))
                .collect::<Vec<_>>()
                .into(),
        },
    ];
    let base_a = fields(json!({}));
    // Its points share one set-up, as the command line's do.
    let (rm, rh) = (Rc::new(m.clone()), Rc::new(h.clone()));
    c.bench_function("decode sweep 10,000 points --achievable", |b| {
        b.iter(|| {
            let mut shared = decode::Shared::default();
            sweep::evaluate(&grid, |point, lean| {
                let mut f = base_a.clone();
                for (k, v) in point {
                    f.insert((*k).to_string(), (*v).clone());
                }
                let i: decode::DecodeInputs = from_fields(&f)?;
                Ok(decode::cost_shared(&rm, &rh, &i, Mode::Achievable, &mut shared)?.report(lean))
            })
            .unwrap()
        })
    });
    let slo: decode::DecodeInputs = from_fields(&fields(
        json!({"batch": 1, "context": 2048, "slo-tpot": "10 ms"}),
    ))
    .unwrap();
    c.bench_function("decode --slo-tpot bisection", |b| {
        b.iter(|| decode::cost(black_box(&m), &h, &slo, Mode::SpeedOfLight).unwrap())
    });
    let k: kv::KvInputs = from_fields(&fields(json!({"context": 8192, "batch": 32}))).unwrap();
    c.bench_function("kv llama-3-8b h200", |b| {
        b.iter(|| kv::cost(black_box(&m), Some(&h), &k).unwrap().report(false))
    });
    let p: prefill::PrefillInputs = from_fields(&fields(
        json!({"prompt": 32768, "chunk": 512, "force": true}),
    ))
    .unwrap();
    c.bench_function("prefill 32k in 512-token chunks", |b| {
        b.iter(|| prefill::cost(black_box(&m), &h, &p, Mode::SpeedOfLight).unwrap())
    });
}

criterion_group!(benches, serving);
criterion_main!(benches);

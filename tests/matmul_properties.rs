//! Properties of `matmul::cost` over arbitrary shapes, tiles and MMA
//! shapes, zero and 64-bit extremes included: it never panics, and an
//! answer is a sane one (times positive and finite, attainable at most the
//! peak, every efficiency in (0, 1]).

use proptest::prelude::*;
use roofline::calc::matmul::{self, MatmulInputs, Tiles};
use roofline::catalog::Catalog;
use roofline::inputs::Count;
use roofline::spec::hardware::{Hardware, Mode};
use std::sync::OnceLock;

fn catalog(id: &'static str) -> &'static Hardware {
    static H100: OnceLock<Hardware> = OnceLock::new();
    static TPU: OnceLock<Hardware> = OnceLock::new();
    let cell = if id == "h100-sxm" { &H100 } else { &TPU };
    cell.get_or_init(|| Catalog::default().hardware(id, &[]).unwrap())
}

/// A count anywhere from 0 to 2^64 - 1, weighted towards the edges.
fn count() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1u64),
        Just(u64::MAX),
        1u64..=8192,
        any::<u64>(),
        (0u32..64).prop_map(|e| 1u64 << e),
    ]
}

fn opt(s: impl Strategy<Value = u64>) -> impl Strategy<Value = Option<Count>> {
    prop::option::of(s.prop_map(Count))
}

fn mma() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop_oneof![
        Just("m16n8k16".to_string()),
        Just("wgmma".to_string()),
        (count(), prop::option::of(count()), count()).prop_map(|(m, n, k)| match n {
            Some(n) => format!("m{m}n{n}k{k}"),
            None => format!("m{m}nNk{k}"),
        }),
    ])
}

fn inputs() -> impl Strategy<Value = MatmulInputs> {
    (
        (count(), count(), count()),
        (opt(count()), opt(count()), opt(count()), opt(count())),
        (opt(count()), opt(count()), opt(count())),
        mma(),
        prop::option::of(prop::collection::vec(count(), 0..4).prop_map(Tiles)),
        prop::option::of(prop::sample::select(vec!["bf16", "fp8", "fp32"])),
    )
        .prop_map(
            |(
                (m, n, k),
                (tile, tile_m, tile_n, tile_k),
                (stages, pps, threads),
                mma,
                tiles,
                dtype,
            )| {
                MatmulInputs {
                    tile,
                    tile_m,
                    tile_n,
                    tile_k,
                    stages,
                    programs_per_sm: pps,
                    threads,
                    mma,
                    tiles,
                    dtype: dtype.map(String::from),
                    ..MatmulInputs::new(m, n, k)
                }
            },
        )
}

fn fraction(what: &str, v: f64) -> std::result::Result<(), TestCaseError> {
    prop_assert!(v > 0.0 && v <= 1.0, "{what} = {v} is not in (0, 1]");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn cost_never_panics_and_answers_sanely(
        p in inputs(),
        id in prop::sample::select(vec!["h100-sxm", "tpu7x"]),
    ) {
        let hw = catalog(id);
        let Ok(c) = matmul::cost(hw, &p, Mode::SpeedOfLight) else {
            return Ok(());
        };
        let peak = c.roof.peak;
        for (what, t) in std::iter::once((0, &c.tile)).chain(c.table.iter().map(|(x, t)| (*x, t))) {
            let time = t.time.time_s;
            prop_assert!(time.is_finite() && time > 0.0, "tile {what}: time {time}");
            prop_assert!(t.attainable <= peak, "tile {what}: {} > peak {peak}", t.attainable);
            prop_assert!(t.attainable > 0.0);
            fraction("attainable / peak", t.attainable / peak)?;
        }
        prop_assert!(c.naive_time.time_s.is_finite() && c.naive_time.time_s > 0.0);
        prop_assert!(c.compute_time_s.is_finite() && c.compute_time_s > 0.0);
        fraction("naive attainable / peak", c.roof.attainable(c.naive_intensity) / peak)?;
        if let Some(w) = &c.waves {
            fraction("wave efficiency", w.waves.efficiency)?;
        }
        if let Some(m) = &c.mma {
            fraction("row utilisation", m.row_utilisation)?;
            prop_assert!(m.effective_peak <= peak);
        }
        // The L2 level sits between each operand once and one tile's
        // reuse, and the headline time is never below the compulsory one.
        let tr = &c.traffic;
        prop_assert!(tr.operand_bytes <= c.tile.tiled_bytes * (1.0 + 1e-12));
        prop_assert!(tr.bytes >= c.minimal_bytes * (1.0 - 1e-12));
        prop_assert!(tr.footprint.0 >= 1.0 && tr.footprint.1 >= 1.0);
        let floor = c.effective_roof.time(c.flops, c.minimal_bytes).time_s;
        prop_assert!(c.time_s.is_finite() && c.time_s >= floor * (1.0 - 1e-12));
        // The report of an answer builds, full and lean.
        let r = c.report(false);
        prop_assert!(r.results.contains_key("time_s"));
        let lean = c.report(true);
        prop_assert_eq!(lean.results.len(), r.results.len());
    }
}

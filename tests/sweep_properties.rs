//! Properties of the sweep parser and the grid: any text either parses to
//! at most the point cap or is refused with a clear error; never a panic,
//! never an overflowed count (this runs in the test profile, where integer
//! overflow panics).

use proptest::prelude::*;
use roofline::sweep::{self, Axis, MAX_POINTS};
use serde_json::Value;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_text_parses_or_is_refused(text in ".{0,40}") {
        match sweep::parse(&text) {
            Ok(s) => {
                prop_assert!(!s.values.is_empty());
                prop_assert!(s.values.len() <= MAX_POINTS);
            }
            Err(e) => prop_assert_eq!(e.exit_code(), 65),
        }
    }

    #[test]
    fn ranges_of_any_size_are_bounded(
        lo in -1e308f64..1e308,
        span in 0f64..1e308,
        step in prop::num::f64::POSITIVE | prop::num::f64::SUBNORMAL,
    ) {
        let hi = lo + span;
        for spec in [format!("x={lo}..{hi}:{step}"), format!("x={lo}..{hi}")] {
            match sweep::parse(&spec) {
                Ok(s) => prop_assert!(s.values.len() <= MAX_POINTS),
                Err(e) => prop_assert_eq!(e.exit_code(), 65),
            }
        }
    }

    #[test]
    fn the_grid_cap_applies_to_the_product(sizes in prop::collection::vec(1usize..2000, 1..4)) {
        let axes: Vec<Axis> = sizes
            .iter()
            .map(|&n| Axis { name: "a".into(), values: vec![Value::Null; n].into() })
            .collect();
        let product: u128 = sizes.iter().map(|&n| n as u128).product();
        match sweep::grid_size(&axes) {
            Ok(n) => prop_assert_eq!(n as u128, product),
            Err(_) => prop_assert!(product > MAX_POINTS as u128),
        }
    }
}

#[test]
fn the_issue_cases_are_refused_with_the_count() {
    for (spec, count) in [
        ("intensity=0..1e300:1e-300", "more than 1e308"),
        // A subnormal step is refused as too small before it is counted.
        ("intensity=0..1:1e-320", "too small to compute with"),
        ("intensity=1..2000000:1", "2,000,000"),
    ] {
        let e = sweep::parse(spec).unwrap_err();
        assert!(e.to_string().contains(count), "{spec}: {e}");
        assert_eq!(e.exit_code(), 65);
    }
}

//! `speculative` (Leviathan et al. 2023) and the speculative-decoding cases
//! of the `other` topic (../shared/golden/seed_cases.toml).

use roofline::calc::speculative::{self, SpeculativeInputs, expected_tokens, speedup};
use roofline::error::Error;

fn run(v: serde_json::Value) -> Result<speculative::SpeculativeCost, Error> {
    let i: SpeculativeInputs = serde_json::from_value(v).unwrap();
    speculative::cost(&i)
}

#[test]
fn issue_example() {
    // a = 0.8, g = 4: (1 - 0.8^5) / (1 - 0.8) = 3.3616 tokens a pass.
    let c = run(serde_json::json!({"acceptance": 0.8, "draft-tokens": 4})).unwrap();
    assert!((c.expected_tokens_per_pass - 3.3616).abs() < 1e-12);
    assert_eq!(c.speedup, c.expected_tokens_per_pass);
    let c =
        run(serde_json::json!({"acceptance": 0.8, "draft-tokens": 4, "draft-cost": 0.05})).unwrap();
    assert!((c.speedup - 3.3616 / 1.2).abs() < 1e-12);
    assert!(c.best_speedup >= c.speedup);
}

#[test]
fn book_figure_round() {
    // book-4.4-figure-tokens: a round that accepts 3 drafted tokens also
    // keeps the target's own next token: 4 tokens from one target pass.
    // With certain acceptance of g = 3 drafts, the expected count is g + 1.
    assert_eq!(expected_tokens(1.0, 3), 4.0, "book-4.4-figure-tokens");
    // book-4.4-tokens-per-run: 38 tokens from 9 target runs is 4.22 a run,
    // which the formula reaches with g = 7 at an acceptance near 0.83.
    let per_run: f64 = 38.0 / 9.0;
    assert!(
        (per_run - 4.22).abs() <= 0.002 * 4.22,
        "book-4.4-tokens-per-run"
    );
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if expected_tokens(mid, 7) < per_run {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    assert!((expected_tokens(lo, 7) - per_run).abs() < 1e-9);
    assert!(lo > 0.8 && lo < 0.86, "{lo}");
}

#[test]
fn no_draft_cost_no_loss() {
    for a in [0.0, 0.3, 0.9] {
        assert!(speedup(a, 4, 0.0) >= 1.0);
    }
    // A costly draft can make it slower.
    assert!(speedup(0.2, 8, 0.5) < 1.0);
}

#[test]
fn bad_input() {
    let e = run(serde_json::json!({"acceptance": 1.5, "draft-tokens": 4})).unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "acceptance"),
        "{e}"
    );
    let e = run(serde_json::json!({"acceptance": 0.5, "draft-tokens": 0})).unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "draft-tokens"),
        "{e}"
    );
    let e = run(serde_json::json!({"acceptance": 0.5, "draft-tokens": 2, "draft-cost": -1}))
        .unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "draft-cost"),
        "{e}"
    );
}

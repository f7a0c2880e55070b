//! `speculative` (Leviathan et al. 2023): expected tokens a target pass and
//! the speedup, against hand-worked points. The book's speculative figures
//! (one drafted round, 38 tokens in 9 runs) count a trace, not an
//! expectation; tests/golden.rs lists them as skipped.

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
fn certain_acceptance_keeps_every_draft_and_one_more() {
    // With acceptance 1 every one of g drafts is kept, plus the target's
    // own next token: g + 1 a pass.
    for g in [1, 3, 7] {
        assert_eq!(expected_tokens(1.0, g), g as f64 + 1.0);
    }
    // With acceptance 0 only the target's token: 1 a pass.
    assert_eq!(expected_tokens(0.0, 7), 1.0);
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

/// `simulate --speculative` at the speed of light against TensorRT-LLM's
/// published DeepSeek-R1 MTP run on 8 H200s (tests/data/public/
/// trtllm-deepseek-r1-mtp-h200.toml): one request at a time, MTP with 3
/// drafts. Its acceptance is not published, so the bound takes every
/// draft accepted and free (1,3,0: 4 tokens a verify step), the most any
/// acceptance gives; the speed of light must then be at least as fast as
/// the measurement. (EP 8: the published EP 4 layout does not fit the
/// tool's weights per device; docs/validation.md, "Public points:
/// DeepSeek-R1 with MTP", gives the `--achievable` answer and its error.)
#[test]
fn the_speed_of_light_with_mtp_bounds_the_published_h200_run() {
    mtp_bound(|p| format!("1,{},0", p["draft-tokens"].as_integer().unwrap()));
}

/// The same bound at the acceptance TensorRT-LLM publishes for the same
/// workload and MTP depth (a mean accepted length of 2.82 tokens a step
/// at three drafts, tests/data/public/trtllm-deepseek-r1-mtp-h200.toml),
/// the drafts free: the mean-length form of `--speculative`.
#[test]
fn the_speed_of_light_at_the_published_mtp_acceptance_bounds_the_h200_run() {
    mtp_bound(|p| {
        format!(
            "length={},{},0",
            p["mean-accepted-length"].as_float().unwrap(),
            p["draft-tokens"].as_integer().unwrap()
        )
    });
}

fn mtp_bound(spec: impl Fn(&toml::Table) -> String) {
    let p: toml::Table =
        toml::from_str(include_str!("data/public/trtllm-deepseek-r1-mtp-h200.toml")).unwrap();
    let int = |k: &str| p[k].as_integer().unwrap().to_string();
    let (prompt, output, requests) = (int("prompt"), int("output"), int("requests"));
    let spec = spec(&p);
    let r = crate::common::cli_json(&[
        "simulate",
        "--model",
        "deepseek-v3",
        "--hw",
        "h200-sxm",
        "--tp",
        "8",
        "--ep",
        "8",
        "--dtype",
        "fp8",
        "--activations",
        "fp8",
        "--engine",
        "trtllm",
        "--concurrency",
        "1",
        "--prompt",
        &prompt,
        "--output",
        &output,
        "--requests",
        &requests,
        "--speculative",
        &spec,
    ]);
    let e2e = crate::common::json_num(&r, "e2e_mean_s");
    let measured = p["request-latency-mean-s"].as_float().unwrap();
    assert!(
        e2e <= measured,
        "speed of light {e2e} s > measured {measured} s"
    );
    let per_user = output.parse::<f64>().unwrap() / e2e;
    let measured = p["per-user-tokens-per-s"].as_float().unwrap();
    assert!(
        per_user >= measured,
        "speed of light {per_user}/s < measured {measured}/s"
    );
}

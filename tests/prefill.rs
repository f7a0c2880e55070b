//! `prefill` against the chapter's score-matrix cases of the `kv-cache`
//! topic (../shared/golden/seed_cases.toml; expected values and tolerances
//! are the golden file's) and issue 9's FLOP formula; chunked prefill; bad
//! input.

use crate::common;
use common::{check, check_si, num};
use roofline::calc::prefill::{self, PrefillCost, PrefillInputs};
use roofline::calc::roof::Bound;
use roofline::catalog::Catalog;
use roofline::error::Error;
use roofline::spec::hardware::Mode;

fn run(m: &str, h: &str, v: serde_json::Value) -> Result<PrefillCost, Error> {
    let c = Catalog::default();
    let i: PrefillInputs = serde_json::from_value(v).unwrap();
    prefill::cost(
        &c.model(m, &[]).unwrap(),
        &c.hardware(h, &[]).unwrap(),
        &i,
        Mode::SpeedOfLight,
    )
}

fn close(id: &str, got: f64, expected: f64, tol: f64) {
    assert!(
        (got - expected).abs() <= tol * expected.abs() + 1e-12,
        "{id}: got {got}, expected {expected} (tolerance {tol})"
    );
}

#[test]
fn materialised_scores_against_l2() {
    // 004: at S = 8192 one head's fp32 QK^T is 268 MB, five of the H100's
    // 50 MB L2, and 32 heads hold 8.59 GB.
    let c = run(
        "llama-3-8b",
        "h100-sxm",
        serde_json::json!({"prompt": 8192}),
    )
    .unwrap();
    let r = c.report(false);
    check_si("ch-scores-fp32-8192", num(&r, "scores_bytes_per_head"));
    check("ch-scores-vs-l2", num(&r, "scores_over_l2"));
    check_si("ch-scores-32-heads", num(&r, "scores_bytes_per_layer"));
    assert!(c.materialised.time_s > c.time_s);
}

#[test]
fn flops_are_two_per_weight_per_token_plus_causal_attention() {
    // Llama-3-8B: the projections' and FFN's weights (no embedding, no LM
    // head) times 2 x S, plus half of 4 S^2 d per layer, plus the LM head
    // for the last token.
    let s = 4096.0;
    let (d, layers, vocab) = (4096.0, 32.0, 128256.0);
    let c = run(
        "llama-3-8b",
        "h200-sxm",
        serde_json::json!({"prompt": 4096}),
    )
    .unwrap();
    let body = layers * (d * (32.0 + 16.0) * 128.0 + d * 32.0 * 128.0 + 3.0 * d * 14336.0);
    let attention = layers * 4.0 * s * (s + 1.0) / 2.0 * d;
    let expected = 2.0 * body * s + attention + 2.0 * d * vocab;
    close("issue-9-prefill-flops", c.flops, expected, 1e-12);
    close(
        "half of 4 S^2 d",
        c.attention_flops,
        layers * 2.0 * s * s * d,
        1.0 / s,
    );
    assert_eq!(c.bound, Bound::Compute);
    // Weights once, the prompt's KV written once.
    assert_eq!(c.kv_write_bytes, s * 131072.0);
}

#[test]
fn chunked_prefill_reads_the_growing_cache() {
    let whole = run(
        "llama-3-8b",
        "h200-sxm",
        serde_json::json!({"prompt": 8192}),
    )
    .unwrap();
    let chunked = run(
        "llama-3-8b",
        "h200-sxm",
        serde_json::json!({"prompt": 8192, "chunk": 2048}),
    )
    .unwrap();
    assert_eq!(chunked.chunks.len(), 4);
    // The same FLOPs (the causal pairs add up), weights read per chunk
    // (the LM head only with the last; the embedding rows gathered once
    // each, a chunk at a time), earlier chunks' KV read by later
    // ones: (0 + 1 + 2 + 3) x 2048 tokens.
    close("flops", chunked.flops, whole.flops, 1e-12);
    let head = 4096.0 * 128256.0 * 2.0;
    let rows = 8192.0 * 4096.0 * 2.0;
    let expected = 4.0 * whole.weight_bytes - 3.0 * (head + rows);
    close("weights", chunked.weight_bytes, expected, 1e-12);
    assert_eq!(chunked.kv_read_bytes, 6.0 * 2048.0 * 131072.0);
    assert!(chunked.time_s >= whole.time_s);
}

#[test]
fn bad_input() {
    let e = run("llama-3-8b", "h200-sxm", serde_json::json!({"prompt": 0})).unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "prompt"),
        "{e}"
    );
    let e = run(
        "llama-3-8b",
        "h200-sxm",
        serde_json::json!({"prompt": 10000}),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "prompt"),
        "{e}"
    );
    let ok = run(
        "llama-3-8b",
        "h200-sxm",
        serde_json::json!({"prompt": 10000, "force": true}),
    );
    assert_eq!(ok.unwrap().beyond_max, Some(8192));
    let e = run(
        "llama-3-8b",
        "h200-sxm",
        serde_json::json!({"prompt": 10, "chunk": 0}),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "chunk"),
        "{e}"
    );
}

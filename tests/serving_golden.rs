//! Coverage of the serving topics of ../shared/golden/seed_cases.toml
//! (`kv-cache`, `decode-floor`, `quantization`'s serving cases, and the
//! serving and speculative-decoding cases of `other`): every case is tested
//! by id in tests/kv.rs, tests/decode.rs, tests/prefill.rs,
//! tests/serving_speculative.rs or here, or listed in `SKIPPED` with the
//! reason.

use roofline::calc::coalesce::{Access, Granularity, counts};

/// Cases no serving command computes, and why.
const SKIPPED: &[(&str, &str)] = &[
    (
        "book-4.2-dsv2-kv-factor",
        "1 / (1 - 93.3%) restates DeepSeek-V2's reported reduction against DeepSeek 67B, a model outside the catalog",
    ),
    (
        "lec-intro-slo-batch",
        "quoted from an earlier lecture (B = 164 under its SLO); its inputs are not in the seeds",
    ),
    (
        "lec-intro-memory-batch",
        "quoted from an earlier lecture (B = 199 by memory); its inputs are not in the seeds",
    ),
    (
        "lec-7.11-decode-batch-max",
        "quoted from Lecture 2's accounting (~116); its inputs are not in the seeds",
    ),
    (
        "book-4.1-cb-figure-steps",
        "a figure's step count (11 against 8) for continuous batching, a schedule the tool does not simulate",
    ),
];

/// Serving cases of other topics that the serving tests cover.
const SERVING_OTHER: &[&str] = &[
    "lec-intro-slo-batch",
    "lec-intro-memory-batch",
    "lec-7.11-decode-batch-max",
    "book-4.1-cb-figure-steps",
    "book-4.4-tokens-per-run",
    "book-4.4-figure-tokens",
];

#[test]
fn lecture_strided_decode() {
    // lec-7.6-strided-decode-time: the 4.0 ms floor (the golden case's
    // input) when every weight byte costs a stride-32 fp32 load: one 128-B
    // segment per 4-B element, 1/32 efficiency, 128 ms.
    let a = Access {
        stride: 32,
        offset: 0,
        granularity: Granularity::Segment,
    };
    let c = counts(32, 32, 128, &a).unwrap();
    let efficiency = c.useful_bytes / c.moved_bytes;
    assert_eq!(efficiency, 0.03125);
    assert_eq!(4.0 / efficiency, 128.0, "lec-7.6-strided-decode-time");
}

#[test]
fn every_case_is_covered_or_skipped() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/golden/seed_cases.toml"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        return; // the golden file sits beside the repository, not in it
    };
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let tests = [
        include_str!("kv.rs"),
        include_str!("decode.rs"),
        include_str!("prefill.rs"),
        include_str!("serving_speculative.rs"),
        include_str!("serving_golden.rs"),
        include_str!("precision_golden.rs"),
    ]
    .join("\n");
    let mut missing = Vec::new();
    for case in doc["case"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        let topic = case["topic"].as_str().unwrap();
        let ours = matches!(topic, "kv-cache" | "decode-floor")
            || SERVING_OTHER.contains(&id)
            || (topic == "quantization"
                && !id.starts_with("book-6.1")
                && id != "book-glossary-tf32-bits");
        if !ours || SKIPPED.iter().any(|(s, _)| *s == id) {
            continue;
        }
        if !tests.contains(&format!("\"{id}\"")) && !tests.contains(&format!("{id}:")) {
            missing.push(id.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "cases neither tested nor skipped: {missing:?}"
    );
}

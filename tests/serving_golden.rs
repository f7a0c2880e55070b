//! Coverage of the serving topics of ../shared/golden/seed_cases.toml
//! (`kv-cache`, `decode-floor`, `quantization`'s serving cases, and the
//! serving and speculative-decoding cases of `other`): every case is tested
//! by id in tests/kv.rs, tests/decode.rs, tests/prefill.rs,
//! tests/serving_speculative.rs or here, or listed in `SKIPPED` with the
//! reason.

use roofline::calc::coalesce::{Access, Granularity, counts};

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


//! No input may panic: property tests feed the unit parser and the data-file
//! loaders arbitrary text and mutations of real files, and require an `Ok`
//! or an `Err`, never a panic. Each property runs `CASES` inputs.

use proptest::prelude::*;
use roofline::spec::Origin;
use roofline::spec::hardware::Hardware;
use roofline::spec::model::Model;
use roofline::units::{self, Dim};

const CASES: u32 = 2_000;
const H100: &str = include_str!("../hardware/h100-sxm.toml");
const LLAMA: &str = include_str!("../models/llama-3-8b.toml");

fn origin() -> Origin {
    Origin {
        name: "fuzz.toml".into(),
        overridden: false,
    }
}

const DIMS: [Dim; 7] = [
    Dim::Bytes,
    Dim::BytesPerSec,
    Dim::Flop,
    Dim::FlopPerSec,
    Dim::Hz,
    Dim::Cycles,
    Dim::Seconds,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    #[test]
    fn unit_parser_never_panics(s in "\\PC{0,24}", d in 0usize..7) {
        let _ = units::parse(&s, DIMS[d]);
    }

    #[test]
    fn unit_parser_results_are_finite(n in "[-+]?[0-9]{0,4}(\\.[0-9]{0,3})?([eE][-+]?[0-9]{1,3})?", u in "(| )(B|KiB|GB|TB/s|GHz|us|ms|cycles|TFLOP/s|x)", d in 0usize..7) {
        if let Ok(v) = units::parse(&format!("{n}{u}"), DIMS[d]) {
            prop_assert!(v.is_finite());
        }
    }

    #[test]
    fn hardware_loader_never_panics_on_text(s in "\\PC{0,200}") {
        let _ = Hardware::parse(&s, &origin());
        let _ = Model::parse(&s, &origin());
    }

    #[test]
    fn hardware_loader_never_panics_on_mutated_files(pos in 0usize..4000, len in 0usize..8, junk in "\\PC{0,6}") {
        for base in [H100, LLAMA] {
            let mut cut = pos.min(base.len());
            while !base.is_char_boundary(cut) { cut -= 1; }
            let mut end = (cut + len).min(base.len());
            while !base.is_char_boundary(end) { end -= 1; }
            let text = format!("{}{}{}", &base[..cut], junk, &base[end..]);
            let _ = Hardware::parse(&text, &origin());
            let _ = Model::parse(&text, &origin());
        }
    }

    #[test]
    fn loaders_never_panic_on_replaced_values(line in 0usize..200, value in prop_oneof![
        Just("0".to_string()), Just("-1".to_string()), Just("nan".to_string()), Just("inf".to_string()),
        Just("18446744073709551616".to_string()), Just("\"1e308 EB\"".to_string()), Just("\"\"".to_string()),
        Just("[]".to_string()), Just("true".to_string()), Just("\"-3 TB/s\"".to_string()), Just("4294967296".to_string()),
    ]) {
        for base in [H100, LLAMA] {
            let lines: Vec<&str> = base.lines().collect();
            let i = line % lines.len();
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            if let Some((k, _)) = lines[i].split_once('=') {
                out[i] = format!("{k}= {value}");
            }
            let text = out.join("\n");
            let _ = Hardware::parse(&text, &origin());
            let _ = Model::parse(&text, &origin());
        }
    }
}

/// The parameter count of a dense, untied, bias-free GQA model with a
/// SwiGLU FFN and RMSNorm, in checked 128-bit arithmetic (None beyond
/// 128 bits): the reference the tool's 64-bit count must equal, or fail
/// where it exceeds 64 bits.
fn reference_total(
    l: u128,
    d: u128,
    v: u128,
    h: u128,
    kv: u128,
    dh: u128,
    ff: u128,
) -> Option<u128> {
    let mul = |xs: &[u128]| xs.iter().try_fold(1u128, |a, &x| a.checked_mul(x));
    let add = |xs: &[u128]| xs.iter().try_fold(0u128, |a, &x| a.checked_add(x));
    let embedding_and_head = mul(&[2, v, d])?;
    let attention = add(&[mul(&[2, d, h, dh])?, mul(&[2, d, kv, dh])?])?;
    let ffn = mul(&[3, d, ff])?;
    let norms = mul(&[d, add(&[mul(&[2, l])?, 1])?])?;
    add(&[
        embedding_and_head,
        mul(&[l, add(&[attention, ffn])?])?,
        norms,
    ])
}

fn edge() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 1u64..5_000,
        1 => 1u64..=u64::from(u32::MAX),
        1 => 1u64..=i64::MAX as u64,
        1 => Just(i64::MAX as u64),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    /// Sizes up to the largest TOML integer: every generated file parses,
    /// and the count is either exact or an error naming a field; it never
    /// wraps.
    #[test]
    fn model_counts_do_not_overflow_silently(
        layers in edge(), hidden in edge(), vocab in edge(), kv in 1u64..16, group in 1u64..8,
        head_dim in edge(), ff in edge(),
    ) {
        let heads = kv * group;
        let text = LLAMA
            .replacen("layers = 32", &format!("layers = {layers}"), 1)
            .replacen("hidden-size = 4096", &format!("hidden-size = {hidden}"), 1)
            .replacen("vocab-size = 128256", &format!("vocab-size = {vocab}"), 1)
            .replacen("heads = 32", &format!("heads = {heads}"), 1)
            .replacen("kv-heads = 8", &format!("kv-heads = {kv}"), 1)
            .replacen("head-dim = 128", &format!("head-dim = {head_dim}"), 1)
            .replacen("intermediate-size = 14336", &format!("intermediate-size = {ff}"), 1);
        let m = Model::parse(&text, &origin());
        prop_assert!(m.is_ok(), "generated file did not parse: {:?}", m.err());
        let m = m.unwrap();
        let [l, d, v, h, k, dh, f] = [layers, hidden, vocab, heads, kv, head_dim, ff]
            .map(u128::from);
        let exact = reference_total(l, d, v, h, k, dh, f);
        match (roofline::calc::model::params(&m), exact) {
            (Ok(p), Some(t)) => prop_assert_eq!(u128::from(p.total), t),
            (Ok(p), None) => prop_assert!(false, "counted {} beyond 128 bits", p.total),
            (Err(e), Some(t)) => {
                prop_assert!(t > u128::from(u64::MAX), "{t} fits in 64 bits, yet: {e}");
                prop_assert_eq!(e.exit_code(), 65);
                prop_assert!(matches!(&e, roofline::Error::Data { field: Some(_), .. }), "{e}");
            }
            (Err(e), None) => prop_assert!(matches!(&e, roofline::Error::Data { field: Some(_), .. }), "{e}"),
        }
    }
}

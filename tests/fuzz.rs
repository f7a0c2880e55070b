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

#[test]
fn model_counts_do_not_overflow_silently() {
    // Sizes at the edge of u64: the count must fail cleanly or be exact.
    let text = LLAMA
        .replace("hidden-size = 4096", "hidden-size = 18446744073709551615")
        .replace("head-dim = 128", "head-dim = 1");
    if let Ok(m) = Model::parse(&text, &origin()) {
        let p = roofline::calc::model::params(&m);
        assert!(p.is_err() || p.unwrap().total > 0);
    }
}

//! One rule for every number (issue 55): a value a hardware, model or
//! engine file or a step flag gives outside the plausible range of its
//! kind (docs/data-schemas.md, "Plausible ranges") is refused with exit 65
//! naming the field. Each property draws a random field and a value
//! beyond its kind's bound, by a random factor, above or below; the bounds
//! are the ones the document states, written out here, not read from the
//! code under test.

use proptest::prelude::*;
use roofline::spec::Origin;
use roofline::spec::engine::Engine;
use roofline::spec::hardware::Hardware;
use roofline::spec::model::Model;

const H100: &str = include_str!("../hardware/h100-sxm.toml");
const LLAMA: &str = include_str!("../models/llama-3-8b.toml");
const VLLM: &str = include_str!("../engines/vllm.toml");

fn origin() -> Origin {
    Origin {
        name: "ranges.toml".into(),
        overridden: false,
    }
}

/// The documented range of the kind a unit belongs to, in base units, and
/// the base unit to write a value in.
fn kind(unit: &str) -> Option<(f64, f64, &'static str)> {
    Some(match unit {
        "B" | "KB" | "MB" | "GB" | "TB" | "KiB" | "MiB" | "GiB" | "TiB" => (0.125, 1e18, "B"),
        "B/s" | "KB/s" | "MB/s" | "GB/s" | "TB/s" | "GiB/s" => (1.0, 1e18, "B/s"),
        "FLOP/s" | "GFLOP/s" | "TFLOP/s" | "PFLOP/s" | "TOPS" | "POPS" => (1.0, 1e22, "FLOP/s"),
        "Hz" | "kHz" | "MHz" | "GHz" => (1e3, 1e11, "Hz"),
        "cycles" => (1e-3, 1e15, "cycles"),
        "s" | "ms" | "us" | "ns" | "ps" => (1e-15, 1e9, "s"),
        "J" | "mJ" | "uJ" | "nJ" | "pJ" => (1e-18, 1e15, "J"),
        _ => return None,
    })
}

/// A value `factor` orders of magnitude beyond the range, above or below
/// (never below the smallest normal double, which is refused as too small
/// by an earlier rule).
fn beyond((min, max): (f64, f64), above: bool, factor: i32) -> f64 {
    if above {
        max * 10f64.powi(factor)
    } else {
        (min / 10f64.powi(factor)).max(1e-300)
    }
}

/// Every `key = "NUMBER UNIT"` line of a file: (line index, key, kind).
fn quantity_lines(text: &str) -> Vec<(usize, String, (f64, f64, &'static str))> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let (k, v) = l.split_once('=')?;
            let k = k.trim();
            if k.starts_with('"') || k.starts_with('#') {
                return None;
            }
            let v = v.trim().strip_prefix('"')?.strip_suffix('"')?;
            let (num, unit) = v.split_once(' ')?;
            num.parse::<f64>().ok()?;
            Some((i, k.to_string(), kind(unit.trim())?))
        })
        .collect()
}

/// Every `key = INTEGER` line: the counts.
fn count_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let (k, v) = l.split_once('=')?;
            let k = k.trim();
            if k.starts_with('"') || k.starts_with('#') {
                return None;
            }
            v.trim().parse::<u64>().ok()?;
            Some((i, k.to_string()))
        })
        .collect()
}

/// Every `key = NUMBER` line with a fraction or an exponent: the plain
/// numbers (shares, ratios, exponents, watts, errors).
fn plain_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let (k, v) = l.split_once('=')?;
            let k = k.trim();
            if k.starts_with('"') || k.starts_with('#') {
                return None;
            }
            let v = v.trim();
            (v.parse::<u64>().is_err() && v.parse::<f64>().is_ok()).then(|| (i, k.to_string()))
        })
        .collect()
}

fn replaced(text: &str, line: usize, key: &str, value: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            if i == line {
                format!("{key} = {value}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The error is bad data (65) and names `key` (as the last part of its
/// field path, or in its message).
fn names(e: &roofline::Error, key: &str) -> bool {
    let field_ok = match e.root() {
        roofline::Error::Data { field: Some(f), .. } => f.rsplit('.').next() == Some(key),
        roofline::Error::Field { field, .. } => field.rsplit('.').next() == Some(key),
        _ => false,
    };
    e.exit_code() == 65 && (field_ok || e.to_string().contains(&format!("`{key}`")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A quantity of a hardware or engine file beyond its kind's range.
    #[test]
    fn file_quantities_outside_their_range_are_refused_by_field(
        which in 0usize..2, pick in any::<prop::sample::Index>(), above in any::<bool>(), factor in 1i32..40,
    ) {
        let base = [H100, VLLM][which];
        let lines = quantity_lines(base);
        prop_assert!(lines.len() > 3, "the file has quantities");
        let (i, key, (min, max, unit)) = &lines[pick.index(lines.len())];
        let v = beyond((*min, *max), above, factor);
        let text = replaced(base, *i, key, &format!("\"{v:e} {unit}\""));
        let r = if which == 0 {
            Hardware::parse(&text, &origin()).map(|_| ())
        } else {
            Engine::parse(&text, &origin()).map(|_| ())
        };
        match r {
            Ok(()) => prop_assert!(false, "{key} = {v:e} {unit} was accepted"),
            Err(e) => prop_assert!(names(&e, key), "{key} = {v:e} {unit}: {e}"),
        }
    }

    /// A count of a model, hardware or engine file above 2^53.
    #[test]
    fn file_counts_above_two_to_the_53_are_refused_by_field(
        which in 0usize..3, pick in any::<prop::sample::Index>(), extra in 1u64..1_000_000,
    ) {
        let base = [LLAMA, H100, VLLM][which];
        let lines = count_lines(base);
        prop_assert!(!lines.is_empty());
        let (i, key) = &lines[pick.index(lines.len())];
        let v = (1u64 << 53) + extra;
        let text = replaced(base, *i, key, &v.to_string());
        let r = match which {
            0 => Model::parse(&text, &origin()).map(|_| ()),
            1 => Hardware::parse(&text, &origin()).map(|_| ()),
            _ => Engine::parse(&text, &origin()).map(|_| ()),
        };
        match r {
            Ok(()) => prop_assert!(false, "{key} = {v} was accepted"),
            Err(e) => prop_assert!(names(&e, key), "{key} = {v}: {e}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A plain number of a hardware, model or engine file (a share, an
    /// exponent, watts, an error) beyond the widest range of any plain
    /// kind (10^-15 to 10^15).
    #[test]
    fn file_plain_numbers_outside_their_range_are_refused_by_field(
        which in 0usize..3, pick in any::<prop::sample::Index>(), above in any::<bool>(), factor in 1i32..40,
    ) {
        let base = [H100, LLAMA, VLLM][which];
        let lines = plain_lines(base);
        if lines.is_empty() {
            return Ok(());
        }
        let (i, key) = &lines[pick.index(lines.len())];
        let v = beyond((1e-15, 1e15), above, factor);
        let text = replaced(base, *i, key, &format!("{v:e}"));
        let r = match which {
            0 => Hardware::parse(&text, &origin()).map(|_| ()),
            1 => Model::parse(&text, &origin()).map(|_| ()),
            _ => Engine::parse(&text, &origin()).map(|_| ()),
        };
        match r {
            Ok(()) => prop_assert!(false, "{key} = {v:e} was accepted"),
            Err(e) => prop_assert!(names(&e, key), "{key} = {v:e}: {e}"),
        }
    }
}

/// Step commands and the flag whose value is drawn, with its kind's range
/// in base units and the unit written (`""` for a dimensionless number or
/// a count).
const FLAGS: &[(&str, &str, f64, f64, &str)] = &[
    (
        "launch --hw h100-sxm --kernels 400",
        "--overhead",
        1e-15,
        1e9,
        "s",
    ),
    (
        "prefill --model llama-3-8b --hw h200-sxm --prompt 4096",
        "--measured",
        1e-15,
        1e9,
        "s",
    ),
    (
        "point --hw h100-sxm --bytes 1GB",
        "--flops",
        1.0,
        1e30,
        "FLOP",
    ),
    (
        "point --hw h100-sxm --flops 1GFLOP",
        "--bytes",
        0.125,
        1e18,
        "B",
    ),
    ("point --hw h100-sxm", "--intensity", 1e-15, 1e15, ""),
    (
        "collective all-reduce --hw h200-sxm --devices 8",
        "--bytes",
        0.125,
        1e18,
        "B",
    ),
    (
        "occupancy --hw h100-sxm --threads 256 --regs 32",
        "--smem",
        0.125,
        1e18,
        "B",
    ),
    (
        "speculative --acceptance 0.8 --draft-tokens 4",
        "--draft-cost",
        1e-15,
        1e15,
        "",
    ),
    ("hw show h100-sxm", "--clock", 1e3, 1e11, "Hz"),
    (
        "decode --model llama-3-8b --hw h200-sxm --batch 8",
        "--context",
        1.0,
        9007199254740992.0,
        "",
    ),
    (
        "kv --model llama-3-8b --context 8192",
        "--batch",
        1.0,
        9007199254740992.0,
        "",
    ),
    (
        "prefill --model llama-3-8b --hw h200-sxm",
        "--prompt",
        1.0,
        9007199254740992.0,
        "",
    ),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A step flag beyond its kind's range: exit 65, the flag named.
    #[test]
    fn flags_outside_their_range_are_refused_by_flag(
        pick in any::<prop::sample::Index>(), above in any::<bool>(), factor in 1i32..40,
    ) {
        let (line, flag, min, max, unit) = FLAGS[pick.index(FLAGS.len())];
        // Counts have no smaller bound than 1 beyond their field's own;
        // they are drawn above 2^53.
        let above = above || max == 9007199254740992.0;
        let v = beyond((min, max), above, factor);
        let value = if max == 9007199254740992.0 {
            format!("{v:e}")
        } else {
            format!("{v:e}{unit}")
        };
        let mut args: Vec<&str> = line.split(' ').collect();
        args.push(flag);
        args.push(&value);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_roofline"))
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        prop_assert_eq!(out.status.code(), Some(65), "roofline {} {}: {}", line, value, err);
        prop_assert!(err.contains(flag), "roofline {} {} {}: {}", line, flag, value, err);
    }
}

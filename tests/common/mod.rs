//! Helpers the topic test files share: hardware loading, the golden cases
//! of `tests/data/golden/seed_cases.toml` (the workspace's seed cases,
//! copied into the repository so a fresh clone tests them), the checks every
//! golden assertion goes through (`check`, `check_si`, `check_rounded`,
//! `check_flagged`: the expected number is always the golden file's), and
//! the command-line runner. tests/golden.rs checks that every case id goes
//! through one of them.
#![allow(dead_code)] // each test file uses its own share of these

use roofline::catalog::Catalog;
use roofline::report::Report;
use roofline::spec::hardware::Hardware;
use roofline::spec::overrides::Set;
use serde::Deserialize;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A catalog id or a path, with `--set`-style overrides.
pub fn hw_with(what: &str, sets: &[&str]) -> Hardware {
    let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
    Catalog::default()
        .hardware(what, &sets)
        .unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// A catalog id or a path.
pub fn hw(what: &str) -> Hardware {
    hw_with(what, &[])
}

/// The built-in H100 SXM, the seeds' reference part.
pub fn h100() -> Hardware {
    hw("h100-sxm")
}

/// A fixture of `tests/data/occupancy/` (files that do not move when the
/// catalog is edited).
pub fn fixture(id: &str) -> Hardware {
    hw(&format!("tests/data/occupancy/{id}.toml"))
}

/// A result of a report as a number.
pub fn num(r: &Report, key: &str) -> f64 {
    r.number(key)
        .unwrap_or_else(|| panic!("no number `{key}` in {:?}", r.results))
}

/// |got - expected| <= tol x |expected|, plus rounding noise.
pub fn close(id: &str, got: f64, expected: f64, tol: f64) {
    let slack = tol * expected.abs() + 1e-9 * expected.abs().max(1e-300);
    assert!(
        (got - expected).abs() <= slack,
        "{id}: got {got}, expected {expected} within {tol}"
    );
}

/// One golden case.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// Its id.
    pub id: String,
    /// Its topic.
    pub topic: String,
    /// The number as the seed states it, in `unit`.
    pub expected: f64,
    /// The unit of `expected`.
    #[serde(default)]
    pub unit: String,
    /// Relative tolerance.
    pub tolerance_rel: f64,
    /// The seed's number disagrees with its own formula.
    #[serde(default)]
    pub inconsistent: bool,
    /// The recomputed value.
    pub computed: Option<f64>,
    /// The seed's stated inputs.
    #[serde(default)]
    pub inputs: toml::Table,
}

impl Case {
    /// Input `key` of the case as a number.
    pub fn input(&self, key: &str) -> f64 {
        match self.inputs.get(key) {
            Some(toml::Value::Integer(i)) => *i as f64,
            Some(toml::Value::Float(x)) => *x,
            other => panic!("{}: input `{key}` is {other:?}", self.id),
        }
    }
}

#[derive(Deserialize)]
struct File {
    case: Vec<Case>,
}

/// Every golden case.
pub fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        let text = include_str!("../data/golden/seed_cases.toml");
        toml::from_str::<File>(text)
            .expect("tests/data/golden/seed_cases.toml parses")
            .case
    })
}

/// The golden case `id`.
pub fn golden(id: &str) -> &'static Case {
    cases()
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no golden case `{id}`"))
}

/// Asserts the tool's `got` against golden case `id`, in the case's unit,
/// at its tolerance. A case marked inconsistent is checked against the
/// correct (recomputed) number; docs/errata.md lists the slip.
pub fn check(id: &str, got: f64) {
    let c = golden(id);
    let expected = if c.inconsistent {
        assert!(
            errata_ids().contains(&id),
            "{id} is inconsistent in the seed: docs/errata.md must list the slip"
        );
        c.computed
            .unwrap_or_else(|| panic!("{id} is inconsistent and has no computed value"))
    } else {
        c.expected
    };
    close(id, got, expected, c.tolerance_rel);
}

/// How many base units (bytes, seconds, FLOP/s, Hz, 1 for a fraction)
/// one of `unit` holds, for the golden file's units that scale; `None`
/// for counts and ratios, which carry no prefix.
pub fn unit_scale(unit: &str) -> Option<f64> {
    const KI: f64 = 1024.0;
    Some(match unit {
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => KI,
        "MiB" => KI * KI,
        "GiB" => KI * KI * KI,
        "B/s" | "FLOP/s" => 1.0,
        "MB/s" => 1e6,
        "GB/s" => 1e9,
        "TB/s" => 1e12,
        "GFLOP/s" => 1e9,
        "TFLOP/s" | "TOPS" => 1e12,
        "PFLOP/s" => 1e15,
        "ms" => 1e-3,
        "us" => 1e-6,
        "ns" => 1e-9,
        "MHz" => 1e6,
        "GHz" => 1e9,
        "%" => 1e-2,
        _ => return None,
    })
}

/// [`check`] for a number the tool gives in base units (bytes, seconds,
/// FLOP/s, Hz, or a fraction where the case says `%`): it is converted to
/// the case's unit first. A case whose unit does not scale is compared
/// as it is.
pub fn check_si(id: &str, got_base: f64) {
    let scale = unit_scale(&golden(id).unit).unwrap_or(1.0);
    check(id, got_base / scale);
}

/// [`check_si`] for a seed figure that is the exact count rounded to the
/// digits the text writes ("671B", "13.5 GB") while the golden file
/// carries tolerance 0: the tool's number, rounded to the significant
/// digits of the seed's, must be the seed's.
pub fn check_rounded(id: &str, got_base: f64) {
    let c = golden(id);
    let got = got_base / unit_scale(&c.unit).unwrap_or(1.0);
    let digits = significant_digits(c.expected);
    let rounded = round_to(got, digits);
    close(id, rounded, c.expected, c.tolerance_rel);
}

/// Significant digits of `x` as its shortest decimal form writes them,
/// trailing zeros of an integer not counted (671e9 has 3).
fn significant_digits(x: f64) -> i32 {
    let s = format!("{:e}", x.abs());
    let mantissa = s.split('e').next().unwrap().replace('.', "");
    mantissa.trim_end_matches('0').len().max(1) as i32
}

fn round_to(x: f64, digits: i32) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let p = digits - 1 - x.abs().log10().floor() as i32;
    let f = 10f64.powi(p);
    (x * f).round() / f
}

/// A case where the tool deliberately answers another number than the
/// seed's, because the sources disagree or the tool counts by another
/// convention: docs/errata.md must list the id, the tool's `got` (in base
/// units) must be outside the case's tolerance of the seed's number, and
/// it must match `other` (in the case's unit), the figure errata names
/// with its source.
pub fn check_flagged(id: &str, got_base: f64, other: f64) {
    let c = golden(id);
    let got = got_base / unit_scale(&c.unit).unwrap_or(1.0);
    assert!(
        errata_ids().contains(&id),
        "{id}: the tool answers {got} where the seed says {}; docs/errata.md must list it",
        c.expected
    );
    assert!(
        (got - c.expected).abs() > c.tolerance_rel * c.expected.abs() + 1e-9 * c.expected.abs(),
        "{id}: the tool now agrees with the seed ({got}); take it out of docs/errata.md"
    );
    assert!(
        {
            let text = errata().replace(',', "");
            text.contains(&fmt_figure(other)) || text.contains(&format!("{other}"))
        },
        "{id}: docs/errata.md does not state the figure {other}"
    );
    close(id, got, other, c.tolerance_rel);
}

/// docs/errata.md.
pub fn errata() -> &'static str {
    include_str!("../../docs/errata.md")
}

/// The case ids in the first column of docs/errata.md's tables.
pub fn errata_ids() -> Vec<&'static str> {
    errata()
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .flat_map(|cell| cell.split(','))
        .map(|id| id.trim().trim_matches('`'))
        .filter(|id| cases().iter().any(|c| c.id == *id))
        .collect()
}

/// A figure as errata writes it: up to four decimals, trailing zeros off.
fn fmt_figure(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// A command line as it is typed, split at its spaces:
/// `words("decode --model llama-3-8b --batch 8")` is the array of those
/// five words. A value that holds a space (`--set "memory.hbm-bandwidth=4.5
/// TB/s"`) is pushed on after as a word of its own.
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// `decode` of Llama-3.1-70B on H200s at batch 16 and 4,096 tokens of
/// context, then `extra`: the step tests/decode_tp.rs derives by hand on
/// a tensor-parallel group, which other tests ask for too.
pub fn decode_70b_h200<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = words("decode --model llama-3.1-70b --hw h200-sxm --batch 16 --context 4096");
    a.extend_from_slice(extra);
    a
}

/// Runs the binary.
pub fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_roofline"))
        .args(args)
        .output()
        .expect("run roofline")
}

/// Runs the binary with `--format json`, which must succeed, and returns
/// the report.
pub fn cli_json(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    let out = cli(&a);
    assert!(
        out.status.success(),
        "roofline {}: {}",
        a.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// A result of a JSON report as a number.
pub fn json_num(v: &serde_json::Value, key: &str) -> f64 {
    v["results"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("no number `{key}` in {}", v["results"]))
}

/// Runs the binary, which must fail with `code`, and returns its stderr.
pub fn cli_err(args: &[&str], code: i32) -> String {
    let out = cli(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(code),
        "roofline {}: {err}",
        args.join(" ")
    );
    err
}

/// The results of one `--achievable` query on the H200 through the library
/// (`query::evaluate`, as the CLI runs it), `pairs` its inputs.
pub fn h200_achievable(command: &str, pairs: &[(&str, serde_json::Value)]) -> serde_json::Value {
    let ctx = roofline::query::Context::new(
        Default::default(),
        Vec::new(),
        roofline::spec::hardware::Mode::Achievable,
    );
    let mut f = roofline::inputs::Fields::new();
    f.insert("hw".into(), "h200-sxm".into());
    for (k, v) in pairs {
        f.insert((*k).into(), v.clone());
    }
    let r = roofline::query::evaluate(&ctx, command, &f, &[], false).unwrap();
    serde_json::to_value(&r[0].results).unwrap()
}

//! Helpers the topic test files share: hardware loading, the golden cases
//! of `tests/data/golden/seed_cases.toml` (a copy of
//! `../shared/golden/seed_cases.toml`), the tolerance check every golden
//! assertion goes through, the command-line runner, and the coverage check
//! that every golden case of a topic is asserted or listed as skipped.
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
        c.computed
            .unwrap_or_else(|| panic!("{id} is inconsistent and has no computed value"))
    } else {
        c.expected
    };
    close(id, got, expected, c.tolerance_rel);
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

/// The calls whose arguments count as asserting a case id.
const ASSERTIONS: &[&str] = &[
    "check",
    "close",
    "assert",
    "assert_eq",
    "assert_ne",
    "prop_assert",
    "prop_assert_eq",
];

/// Every string literal of Rust `source` outside comments: the ids a
/// table-driven test asserts in a loop.
#[allow(dead_code)] // each test binary uses the helpers it needs
pub fn code_literals(source: &str) -> Vec<String> {
    literals(source, false)
}

/// The string literals of Rust `source` that sit inside the arguments of
/// an assertion call, comments left out.
#[allow(dead_code)]
pub fn asserted_literals(source: &str) -> Vec<String> {
    literals(source, true)
}

fn literals(source: &str, only_asserted: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut calls: Vec<bool> = Vec::new();
    let mut ident = String::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                ident.clear();
            }
            '"' => {
                let mut lit = String::new();
                while let Some(n) = chars.next() {
                    match n {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        n => lit.push(n),
                    }
                }
                if !only_asserted || calls.iter().any(|a| *a) {
                    out.push(lit);
                }
                ident.clear();
            }
            '(' => {
                let name = ident.trim_end_matches('!');
                calls.push(ASSERTIONS.contains(&name));
                ident.clear();
            }
            ')' => {
                calls.pop();
                ident.clear();
            }
            c if c.is_alphanumeric() || c == '_' || c == '!' => ident.push(c),
            c if c.is_whitespace() => {}
            _ => ident.clear(),
        }
    }
    out
}

/// Every golden case of `topic` is asserted by id in `source` (inside an
/// assertion call, not in a comment) or listed in `skipped` with why, and
/// none is both.
pub fn assert_topic_covered(topic: &str, source: &str, skipped: &[(&str, &str)]) {
    let asserted = asserted_literals(source);
    let mut missing = Vec::new();
    let mut n = 0;
    for c in cases().iter().filter(|c| c.topic == topic) {
        n += 1;
        let tested = asserted.contains(&c.id);
        let skip = skipped.iter().any(|(s, _)| *s == c.id);
        assert!(!(tested && skip), "{} is both asserted and skipped", c.id);
        if !tested && !skip {
            missing.push(c.id.as_str());
        }
    }
    for (s, why) in skipped {
        assert!(
            cases().iter().any(|c| c.id == *s && c.topic == topic),
            "skipped `{s}` is not a {topic} case"
        );
        assert!(!why.is_empty(), "{s}: say why it is skipped");
    }
    assert!(n > 0, "no golden cases of topic {topic}");
    assert!(
        missing.is_empty(),
        "{topic} cases asserted nowhere and not skipped: {missing:?}"
    );
}

#[test]
fn literals_in_comments_and_plain_calls_do_not_count() {
    let src = r#"
        // check("a", 1.0)
        let x = ["b"];
        check("c", num(&r, "d"));
        assert_eq!(r.results["e"], "f", "g");
    "#;
    assert_eq!(asserted_literals(src), ["c", "d", "e", "f", "g"]);
}

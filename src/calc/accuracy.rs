//! How good an `--achievable` answer is: the validated error of that kind
//! of answer on that part, from the table kept beside the measurements
//! (`validation/achievable-error.toml`, built into the binary), or a
//! calibrated file's own held-out error, or "not validated on this part".
//! `tests/achievable_errors.rs` recomputes every entry of the table from
//! the raw measurements with the current model, so the table cannot drift
//! from what the tool answers.

use crate::spec::hardware::Hardware;
use serde::Deserialize;

/// The table's text.
pub const TABLE: &str = include_str!("../../validation/achievable-error.toml");

/// One validated kind of answer on one part.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Entry {
    /// Hardware id.
    pub part: String,
    /// Kind of answer: `decode` (CUDA graph), `decode-eager`, `prefill`.
    pub answer: String,
    /// What was measured, in words ("measured H200 decode steps").
    pub what: String,
    /// Measurements compared.
    pub points: u64,
    /// Median relative error.
    pub median_error: f64,
    /// Worst relative error.
    pub worst_error: f64,
    /// The raw data.
    pub measurements: String,
    /// When the table entry was last computed.
    pub date: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    entry: Vec<Entry>,
}

/// The table's entries.
pub fn entries() -> Vec<Entry> {
    // The table ships with the binary and a test parses it: a failure here
    // is a build defect, not a user's input.
    toml::from_str::<Table>(TABLE)
        .map(|t| t.entry)
        .unwrap_or_default()
}

/// The kind of answer a report is, from its command and launch mode; None
/// for commands whose answers have no validated kind. A report's command
/// may carry its subcommand (`collective all-reduce`).
pub fn kind(command: &str, launch: Option<&str>) -> Option<&'static str> {
    let command = command.split_whitespace().next().unwrap_or(command);
    match (command, launch) {
        ("decode", Some("eager")) => Some("decode-eager"),
        ("decode", _) => Some("decode"),
        ("prefill", _) => Some("prefill"),
        ("matmul", _) => Some("matmul"),
        ("plan", _) => Some("plan"),
        ("collective", _) => Some("collective"),
        _ => None,
    }
}

fn pct(x: f64) -> String {
    let p = 100.0 * x;
    if p < 10.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// The note an `--achievable` answer of `kind` on `hw` carries.
pub fn quote(kind: &str, hw: &Hardware) -> String {
    if let Some(c) = &hw.calibration
        && let (Some(n), Some(m), Some(w)) = (c.points, c.median_error, c.worst_error)
    {
        return format!(
            "calibrated: within {} median, {} worst of {n} held-out points of {} ({}, {}; roofline calibrate)",
            pct(m),
            pct(w),
            c.measurements,
            c.device,
            c.date.get(..10).unwrap_or(&c.date)
        );
    }
    match entries()
        .into_iter()
        .find(|e| e.part == hw.id && e.answer == kind)
    {
        Some(e) => format!(
            "validated: within {} median, {} worst of {} {} (docs/validation.md)",
            pct(e.median_error),
            pct(e.worst_error),
            e.points,
            e.what
        ),
        None => format!(
            "not validated on this part: no {kind} answers of `{}` have been measured (docs/validation.md lists what has)",
            hw.id
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_its_errors_are_fractions() {
        let e = entries();
        assert!(!e.is_empty());
        for x in &e {
            assert!(x.median_error <= x.worst_error, "{x:?}");
            assert!(x.points > 0 && x.worst_error.is_finite(), "{x:?}");
        }
    }

    #[test]
    fn kinds() {
        assert_eq!(kind("decode", Some("eager")), Some("decode-eager"));
        assert_eq!(kind("decode", Some("graph")), Some("decode"));
        assert_eq!(kind("point", None), None);
        assert_eq!(kind("collective all-reduce", None), Some("collective"));
    }
}

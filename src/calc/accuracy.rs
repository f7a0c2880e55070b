//! How good an `--achievable` answer is: the validated error of that kind
//! of answer on that part, from the table kept beside the measurements
//! (`validation/achievable-error.toml`, built into the binary), or a
//! calibrated file's own held-out error, or "not validated on this part".
//! `tests/achievable_errors.rs` recomputes every entry of the table from
//! the raw measurements with the current model, so the table cannot drift
//! from what the tool answers.
//!
//! A part whose figures were carried from a measured sibling
//! (`[achievable.evidence] kind = "transferred"`) quotes the transfer
//! test instead (`validation/transfer-error.toml`): how the same kind of
//! carrying did predicting real H100 steps from the H200's figures, held
//! out (docs/validation.md, "The H100 transfer test"); its band is the
//! error that 4 in 5 of those steps were within.

use crate::spec::hardware::{EvidenceKind, Hardware};
use serde::Deserialize;

/// The table's text.
pub const TABLE: &str = include_str!("../../validation/achievable-error.toml");

/// The transfer test's and measured parts' table beside it (parts other
/// than the H200's generated table: `validation/h100-transfer/`).
pub const TRANSFER_TABLE: &str = include_str!("../../validation/transfer-error.toml");

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
    /// The error that at least 4 in 5 of the points were within (the
    /// 80th percentile of |error|): the band an answer of this kind quotes.
    #[serde(default)]
    pub band: Option<f64>,
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

/// The transfer table's entries: `part = "transfer"` for the transfer
/// test, a part id for parts measured here beside the H200.
pub fn transfer_entries() -> Vec<Entry> {
    toml::from_str::<Table>(TRANSFER_TABLE)
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

/// How an entry's error reads: "within 3.5% median, 11% worst of 29 ...",
/// with the band first where the entry has one.
fn within(e: &Entry) -> String {
    let band = e
        .band
        .map(|b| format!("band ±{} (4 in 5 within it); ", pct(b)))
        .unwrap_or_default();
    format!(
        "{band}within {} median, {} worst of {} {}",
        pct(e.median_error),
        pct(e.worst_error),
        e.points,
        e.what
    )
}

/// The evidence word and the band of an `--achievable` answer of `kind`
/// on `hw`: the validated error of that kind on that part, a calibrated
/// file's held-out error, the transfer test's error for a transferred
/// file, or "not validated".
pub fn quote(kind: &str, hw: &Hardware) -> String {
    let own = entries()
        .into_iter()
        .chain(transfer_entries())
        .find(|e| e.part == hw.id && e.answer == kind);
    if let Some(e) = &own {
        return format!("measured here: {} (docs/validation.md)", within(e));
    }
    if let Some(c) = &hw.calibration
        && let (Some(n), Some(m), Some(w)) = (c.points, c.median_error, c.worst_error)
    {
        return format!(
            "calibrated by you: within {} median, {} worst of {n} held-out points of {} ({}, {}; roofline calibrate)",
            pct(m),
            pct(w),
            c.measurements,
            c.device,
            c.date.get(..10).unwrap_or(&c.date)
        );
    }
    let ev = hw.achievable.as_ref().and_then(|a| a.evidence.as_ref());
    if let Some(ev) = ev
        && ev.kind != EvidenceKind::Measured
    {
        let what = match ev.kind {
            EvidenceKind::Public => "public figures".to_string(),
            _ => format!(
                "transferred from {} by the rule '{}'",
                ev.from.as_deref().unwrap_or("a measured sibling"),
                ev.rule.as_deref().unwrap_or("unnamed")
            ),
        };
        let t = transfer_entries();
        let hit = t
            .iter()
            .find(|e| e.part == "transfer" && e.answer == kind)
            .or_else(|| t.iter().find(|e| e.part == "transfer" && e.answer == "all"));
        return match hit {
            Some(e) => format!(
                "{what} (docs/formulas.md, \"Achievable figures carried between parts\"): {} — \
                 the H100 transfer test, the H200's figures carried to an H100 and held out \
                 (docs/validation.md); no {kind} answer of `{}` itself has been measured",
                within(e),
                hw.id
            ),
            None => format!(
                "{what} (docs/formulas.md, \"Achievable figures carried between parts\"): \
                 no band yet: no {kind} answers of `{}` or of the transfer test have been measured",
                hw.id
            ),
        };
    }
    format!(
        "not validated on this part: no {kind} answers of `{}` have been measured (docs/validation.md lists what has)",
        hw.id
    )
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

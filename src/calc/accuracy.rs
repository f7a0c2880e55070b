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
        // Built from whole steps: quoted with the whole-step band.
        ("simulate" | "fleet", _) => Some("all"),
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
    // A kind without its own entry takes the part's whole-step one, then
    // its graph decode one (simulate and fleet answers are built of steps).
    let table: Vec<Entry> = entries().into_iter().chain(transfer_entries()).collect();
    let own = [kind, "all", "decode"]
        .iter()
        .find_map(|k| table.iter().find(|e| e.part == hw.id && e.answer == *k))
        .cloned();
    if let Some(e) = &own {
        // A whole deployment (plan, simulate, fleet) on a part with
        // published serving points quotes their band where it is the
        // wider: its steps can be right and the deployment not (batching,
        // layouts the steps never ran).
        let public = table
            .iter()
            .find(|p| p.part == hw.id && p.answer == "public")
            .filter(|p| matches!(kind, "plan" | "all") && p.band > e.band);
        if let Some(p) = public {
            return format!(
                "measured here: {} (validation/public/); its measured steps: {} (docs/validation.md)",
                within(p),
                within(&Entry {
                    band: None,
                    ..e.clone()
                })
            );
        }
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
        // The rule's own check (public points of parts it wrote) first: it
        // says how carrying did on those parts, not between two siblings.
        let rule = format!("rule:{}", ev.rule.as_deref().unwrap_or(""));
        if let Some(e) = t.iter().find(|e| e.part == rule) {
            return format!(
                "{what} (docs/formulas.md, \"Achievable figures carried between parts\"): {} \
                 (docs/validation.md); no {kind} answer of `{}` itself has been measured",
                within(e),
                hw.id
            );
        }
        let hit = t
            .iter()
            .find(|e| e.part == "transfer" && e.answer == kind)
            .or_else(|| t.iter().find(|e| e.part == "transfer" && e.answer == "all"));
        // The transfer test carried figures between two Hopper parts: for
        // another rule it is the nearest check there is, and says so.
        let caveat = if ev.rule.as_deref() == Some("Hopper sibling") {
            ""
        } else {
            "; this rule itself is untested, so the band is a floor"
        };
        return match hit {
            Some(e) => format!(
                "{what} (docs/formulas.md, \"Achievable figures carried between parts\"): {} — \
                 the H100 transfer test, the H200's figures carried to an H100 and held out \
                 (docs/validation.md); no {kind} answer of `{}` itself has been measured{caveat}",
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
    fn the_transfer_table_parses_and_its_bands_lie_between_median_and_worst() {
        let t = transfer_entries();
        assert!(t.iter().any(|e| e.part == "transfer"));
        for e in &t {
            let b = e.band.expect("every transfer entry has a band");
            assert!(e.median_error <= b && b <= e.worst_error, "{e:?}");
        }
    }

    #[test]
    fn every_part_quotes_its_evidence_and_a_band() {
        let cat = crate::catalog::Catalog::default();
        let hw = |id: &str| cat.hardware(id, &[]).unwrap();
        let q = quote("decode", &hw("b200"));
        assert!(
            q.starts_with("transferred from h200-sxm by the rule 'CUDA from Hopper to Blackwell'")
                && q.contains("band ±"),
            "{q}"
        );
        // The ROCm rule has its own check now (published MI300X points).
        let q = quote("decode", &hw("mi300x"));
        assert!(
            q.starts_with("transferred from h200-sxm by the rule 'ROCm from CUDA'")
                && q.contains("band ±")
                && !q.contains("untested"),
            "{q}"
        );
        // A rule without a check of its own says its band is a floor.
        let q = quote("decode", &hw("a100-sxm-80gb"));
        assert!(q.contains("band ±") && q.contains("untested"), "{q}");
        let q = quote("prefill", &hw("h100-sxm"));
        assert!(
            q.starts_with("measured here:") && q.contains("band ±"),
            "{q}"
        );
        for id in [
            "b300",
            "gb200",
            "gb300",
            "mi355x",
            "tpu7x",
            "trainium3",
            "a100-sxm-80gb",
        ] {
            assert!(quote("decode", &hw(id)).contains("band ±"), "{id}");
        }
        // The H200's generated table carries bands too.
        assert!(quote("decode", &hw("h200-sxm")).contains("band ±"));
    }

    #[test]
    fn a_whole_deployment_quotes_the_wider_public_band() {
        let cat = crate::catalog::Catalog::default();
        let h100 = cat.hardware("h100-sxm", &[]).unwrap();
        let band = |q: &str| -> f64 {
            let i = q.find("band ±").unwrap() + "band ±".len();
            q[i..].split('%').next().unwrap().parse().unwrap()
        };
        let step = quote("decode", &h100);
        let fleet = quote("all", &h100);
        assert!(fleet.contains("(validation/public/)"), "{fleet}");
        assert!(band(&fleet) > band(&step), "{fleet} / {step}");
        // A single step keeps the steps' band.
        assert!(!step.contains("validation/public"), "{step}");
    }

    #[test]
    fn kinds() {
        assert_eq!(kind("decode", Some("eager")), Some("decode-eager"));
        assert_eq!(kind("decode", Some("graph")), Some("decode"));
        assert_eq!(kind("point", None), None);
        assert_eq!(kind("collective all-reduce", None), Some("collective"));
    }
}

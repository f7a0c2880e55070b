//! `speculative`: what draft-then-verify decoding buys (formulas.md,
//! "Serving: speculative decoding"; Leviathan, Kalman and Matias, "Fast
//! Inference from Transformers via Speculative Decoding", ICML 2023; 000
//! §4.4). A draft proposes g tokens; the target verifies them in one pass
//! and keeps each with probability a (independently), so a pass yields
//! (1 - a^(g+1)) / (1 - a) tokens on average.

use crate::error::{Error, Result};
use crate::inputs::{Count, Number, at_least_one, non_negative};
use crate::report::{Quantity, Report, Unit};
use crate::units;
use serde::{Deserialize, Serialize};

/// `speculative`'s inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SpeculativeInputs {
    /// Probability a drafted token is accepted, 0 to 1.
    pub acceptance: Number,
    /// Tokens drafted per pass (g).
    pub draft_tokens: Count,
    /// The draft's cost per token as a share of one target pass (c;
    /// default 0).
    pub draft_cost: Option<Number>,
}

/// Expected tokens per target pass: (1 - a^(g+1)) / (1 - a); g + 1 when
/// every draft is accepted (Leviathan et al. 2023, eq. 1).
pub fn expected_tokens(a: f64, g: u64) -> f64 {
    if a >= 1.0 {
        return (g + 1) as f64;
    }
    (1.0 - a.powf((g + 1) as f64)) / (1.0 - a)
}

/// Walltime speedup over plain decoding when a drafted token costs c of a
/// target pass: expected tokens / (g c + 1) (Leviathan et al. 2023,
/// Theorem 3.8).
pub fn speedup(a: f64, g: u64, c: f64) -> f64 {
    expected_tokens(a, g) / (g as f64 * c + 1.0)
}

/// Validated acceptance rate.
pub fn acceptance(a: f64) -> Result<f64> {
    if !(0.0..=1.0).contains(&a) || !a.is_finite() {
        return Err(Error::field(
            "acceptance",
            "must be a probability from 0 to 1",
        ));
    }
    Ok(a)
}

/// Every figure `speculative` reports.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SpeculativeCost {
    /// a.
    pub acceptance: f64,
    /// g.
    pub draft_tokens: u64,
    /// c.
    pub draft_cost: f64,
    /// (1 - a^(g+1)) / (1 - a).
    pub expected_tokens_per_pass: f64,
    /// expected / (g c + 1).
    pub speedup: f64,
    /// The g from 1 to 64 with the highest speedup at this a and c.
    pub best_draft_tokens: u64,
    /// Its speedup.
    pub best_speedup: f64,
}

/// The longest draft the best-g search tries.
pub const MAX_DRAFT: u64 = 64;

/// The most a draft pass may cost, in target passes: a draft that costs
/// more than the target it drafts for is not a draft (the speedup is
/// below one from a cost of one up).
pub const MAX_DRAFT_COST: f64 = 100.0;

/// A draft pass's cost relative to a target pass (default 0): finite,
/// zero or more and at most [`MAX_DRAFT_COST`]. `speculative` and
/// `decode` both check it here.
pub fn draft_cost(c: Option<f64>) -> Result<f64> {
    let c = non_negative("draft-cost", c.unwrap_or(0.0))?;
    if c > MAX_DRAFT_COST {
        return Err(Error::field(
            "draft-cost",
            format!(
                "{} target passes is no draft's cost: give one of at most {MAX_DRAFT_COST} (a draft model costs a fraction of one)",
                crate::units::sig(c, 4)
            ),
        ));
    }
    Ok(c)
}

/// Validated draft length g: at least one, at most 1024. `speculative`,
/// `decode` and the request-level commands check it here.
pub fn draft_tokens(g: u64) -> Result<u64> {
    let g = at_least_one("draft-tokens", g)?;
    if g > 1024 {
        return Err(Error::field(
            "draft-tokens",
            "at most 1024 drafted tokens per pass",
        ));
    }
    Ok(g)
}

/// Draft-then-verify applied to every decode step of a request-level run
/// (`simulate --speculative`, `fleet --speculative`; formulas.md,
/// "Simulation: speculative decoding"): the same `A,G[,C]` as `decode
/// --speculative`, with the same meaning.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Draft {
    /// a: probability a drafted token is accepted.
    pub acceptance: f64,
    /// g: tokens drafted per pass.
    pub draft_tokens: u64,
    /// c: one drafted token's cost as a share of a plain target step of
    /// the same batch.
    pub draft_cost: f64,
}

impl Draft {
    /// Reads `ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST]` as `decode
    /// --speculative` reads it (decode's own splitter and checks); an error
    /// names `speculative`.
    pub fn parse(text: &str) -> Result<Draft> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "kebab-case")]
        struct Parts {
            acceptance: Number,
            draft_tokens: Count,
            draft_cost: Option<Number>,
        }
        let mut f = crate::inputs::Fields::new();
        f.insert("speculative".into(), text.into());
        let (f, named) =
            crate::calc::decode::speculative_fields(&f)?.expect("the field was just given");
        let check = || -> Result<Draft> {
            let p: Parts = crate::inputs::from_fields(&f)?;
            Ok(Draft {
                acceptance: acceptance(p.acceptance.0)?,
                draft_tokens: draft_tokens(p.draft_tokens.0)?,
                draft_cost: draft_cost(p.draft_cost.map(|c| c.0))?,
            })
        };
        check().map_err(named)
    }

    /// Expected tokens a sequence gains from a pass that verifies `drafts`
    /// drafted tokens: (1 - a^(d+1)) / (1 - a).
    pub fn tokens(&self, drafts: u64) -> f64 {
        expected_tokens(self.acceptance, drafts)
    }

    /// The flag's text, A,G,C.
    pub fn text(&self) -> String {
        format!(
            "{},{},{}",
            units::sig(self.acceptance, 6),
            self.draft_tokens,
            units::sig(self.draft_cost, 6)
        )
    }
}

/// `speculative`'s cost.
pub fn cost(inputs: &SpeculativeInputs) -> Result<SpeculativeCost> {
    let a = acceptance(inputs.acceptance.0)?;
    let g = draft_tokens(inputs.draft_tokens.0)?;
    let c = draft_cost(inputs.draft_cost.map(|c| c.0))?;
    let (best_g, best) =
        (1..=MAX_DRAFT)
            .map(|g| (g, speedup(a, g, c)))
            .fold(
                (1, f64::MIN),
                |acc, x| if x.1 > acc.1 + 1e-12 { x } else { acc },
            );
    Ok(SpeculativeCost {
        acceptance: a,
        draft_tokens: g,
        draft_cost: c,
        expected_tokens_per_pass: expected_tokens(a, g),
        speedup: speedup(a, g, c),
        best_draft_tokens: best_g,
        best_speedup: best,
    })
}

impl SpeculativeCost {
    /// The report of this cost.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("speculative", lean);
        let (a, g, c) = (self.acceptance, self.draft_tokens, self.draft_cost);
        r.input("acceptance", a);
        r.input("draft_tokens", g);
        r.input("draft_cost", c);
        r.result(
            "expected_tokens_per_pass",
            self.expected_tokens_per_pass,
            || {
                Quantity::new("tokens per target pass", Unit::Count)
                    .formula("(1 - a^(g+1)) / (1 - a)")
                    .derive(format!(
                        "(1 - {}^{}) / (1 - {})",
                        units::sig(a, 4),
                        g + 1,
                        units::sig(a, 4)
                    ))
                    .source(Some("Leviathan et al. 2023, eq. 1"))
            },
        );
        r.result("speedup", self.speedup, || {
            Quantity::new("speedup over plain decoding", Unit::Ratio)
                .formula("(1 - a^(g+1)) / ((1 - a) (g c + 1))")
                .derive(format!(
                    "{} / ({} x {} + 1)",
                    units::sig(self.expected_tokens_per_pass, 4),
                    g,
                    units::sig(c, 4)
                ))
                .source(Some("Leviathan et al. 2023, Theorem 3.8"))
        });
        r.result("best_draft_tokens", self.best_draft_tokens as f64, || {
            Quantity::new("draft length with the highest speedup", Unit::Count)
                .formula(format!("argmax over g = 1..{MAX_DRAFT} of the speedup"))
        });
        r.result("best_speedup", self.best_speedup, || {
            Quantity::new("speedup at that length", Unit::Ratio)
        });
        // The best length is an answer only where it is a speedup and
        // where the search did not simply stop.
        if self.best_speedup <= 1.0 {
            r.note_with(|| {
                format!(
                    "no draft length pays: at a draft cost of {} the best, g = {}, runs at {}x the speed of plain decoding; speculation gains only where the acceptance exceeds the draft cost (Leviathan et al. 2023, Corollary 3.9)",
                    units::sig(c, 4),
                    self.best_draft_tokens,
                    units::sig(self.best_speedup, 4)
                )
            });
        } else if self.best_draft_tokens == MAX_DRAFT {
            r.note_with(|| {
                let limit = if a < 1.0 {
                    format!(" toward 1 / (1 - a) = {}x", units::sig(1.0 / (1.0 - a), 4))
                } else {
                    String::new()
                };
                format!(
                    "the speedup still grows at g = {MAX_DRAFT}, where the search stops{limit}: with so cheap a draft, longer drafts do better still"
                )
            });
        }
        r.note("acceptance is taken as independent per token with a fixed rate (Leviathan et al. 2023); `decode --speculative` applies it to a step on a device, where verifying g+1 tokens per sequence costs more than one");
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_example() {
        assert!((expected_tokens(0.8, 4) - 3.3616).abs() < 1e-9);
        assert_eq!(expected_tokens(1.0, 4), 5.0);
        assert_eq!(expected_tokens(0.0, 4), 1.0);
    }
}

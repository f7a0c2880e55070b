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

/// The most drafted positions a per-position acceptance lists.
pub const MAX_POSITIONS: usize = 16;

/// How a verify pass keeps its drafted tokens (formulas.md, "Serving:
/// speculative decoding", the three forms): one probability for every
/// drafted position (`0.8`), one per position (`0.9/0.7/0.5`: the first
/// draft is kept with 0.9, the second, given the first, with 0.7, ...), or
/// the mean accepted length a published run quotes (`length=2.6`: tokens a
/// pass yields, the target's own token included).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Acceptance {
    /// a for every position.
    Each(f64),
    /// a_1 .. a_n, one per drafted position (n = `len`).
    Positions {
        /// The rates; those past `len` are unused.
        rates: [f64; MAX_POSITIONS],
        /// How many are given.
        len: usize,
    },
    /// L tokens a pass at the full draft, read as the one rate for every
    /// position that yields L at G drafts (`each`, set by
    /// [`Acceptance::with_drafts`]), so a shorter pass yields what that
    /// rate gives.
    Length {
        /// L.
        tokens: f64,
        /// The equivalent rate at G drafts.
        each: f64,
    },
}

impl Acceptance {
    /// Reads `0.8`, `0.9/0.7/0.5` or `length=2.6`; each rate a probability
    /// from 0 to 1. [`Acceptance::with_drafts`] checks it against G.
    pub fn parse(text: &str) -> Result<Acceptance> {
        let t = text.trim();
        let number = |x: &str| -> Result<f64> {
            let v: Number = serde_json::from_value(serde_json::Value::from(x.trim()))
                .map_err(|e| Error::field("acceptance", e.to_string()))?;
            Ok(v.0)
        };
        let lower = t.to_ascii_lowercase();
        if let Some(l) = lower.strip_prefix("length=") {
            let l = number(l)?;
            if l < 1.0 {
                return Err(Error::field(
                    "acceptance",
                    format!(
                        "is a mean accepted length below 1 (`{t}`): it counts the target's own token, so it is at least 1"
                    ),
                ));
            }
            return Ok(Acceptance::Length {
                tokens: l,
                each: f64::NAN,
            });
        }
        if t.contains('/') {
            let parts: Vec<&str> = t.split('/').collect();
            if parts.len() > MAX_POSITIONS {
                return Err(Error::field(
                    "acceptance",
                    format!(
                        "lists {} per-position rates (`{t}`): at most {MAX_POSITIONS}, one a drafted token",
                        parts.len()
                    ),
                ));
            }
            let mut rates = [0.0; MAX_POSITIONS];
            for (r, p) in rates.iter_mut().zip(&parts) {
                if p.trim().is_empty() {
                    return Err(Error::field(
                        "acceptance",
                        format!(
                            "has an empty rate between slashes (`{t}`): give one a drafted position, e.g. 0.9/0.7/0.5"
                        ),
                    ));
                }
                *r = acceptance(number(p)?)?;
            }
            return Ok(Acceptance::Positions {
                rates,
                len: parts.len(),
            });
        }
        Ok(Acceptance::Each(acceptance(number(t)?)?))
    }

    /// Checked against G drafted tokens: a per-position list gives one rate
    /// per drafted token, a mean length is at most G + 1 (every draft
    /// kept); the length's equivalent rate is solved here.
    pub fn with_drafts(self, g: u64) -> Result<Acceptance> {
        match self {
            Acceptance::Each(_) => Ok(self),
            Acceptance::Positions { len, .. } if len as u64 != g => Err(Error::field(
                "acceptance",
                format!("has {len} per-position rates for {g} drafted tokens: give one for each"),
            )),
            Acceptance::Positions { .. } => Ok(self),
            Acceptance::Length { tokens, .. } => {
                let most = (g + 1) as f64;
                if tokens > most + 1e-12 {
                    return Err(Error::field(
                        "acceptance",
                        format!(
                            "is a mean accepted length of {}, more than the {} tokens a pass of {g} drafts can yield",
                            units::sig(tokens, 6),
                            most
                        ),
                    ));
                }
                Ok(Acceptance::Length {
                    tokens,
                    each: rate_for_length(tokens, g),
                })
            }
        }
    }

    /// Expected tokens a pass verifying `d` drafted tokens yields: (1 -
    /// a^(d+1)) / (1 - a) for one rate, 1 + a_1 + a_1 a_2 + ... + a_1 ..
    /// a_d per position.
    pub fn tokens(&self, d: u64) -> f64 {
        match *self {
            Acceptance::Each(a) | Acceptance::Length { each: a, .. } => expected_tokens(a, d),
            Acceptance::Positions { rates, len } => {
                let mut kept = 1.0;
                let mut sum = 1.0;
                for a in rates.iter().take(len.min(d as usize)) {
                    kept *= a;
                    sum += kept;
                }
                sum
            }
        }
    }

    /// The form as typed: `0.8`, `0.9/0.7/0.5`, `length=2.6`.
    pub fn text(&self) -> String {
        match *self {
            Acceptance::Each(a) => units::sig(a, 6),
            Acceptance::Positions { rates, len } => rates[..len]
                .iter()
                .map(|a| units::sig(*a, 6))
                .collect::<Vec<_>>()
                .join("/"),
            Acceptance::Length { tokens, .. } => format!("length={}", units::sig(tokens, 6)),
        }
    }

    /// The formula its expected tokens follow, for a report.
    pub fn formula(&self) -> &'static str {
        match self {
            Acceptance::Each(_) => "(1 - a^(g+1)) / (1 - a)",
            Acceptance::Positions { .. } => "1 + a1 + a1 a2 + ... + a1 ... ag",
            Acceptance::Length { .. } => "the mean accepted length L given",
        }
    }
}

/// The one rate a for every position whose pass of `g` drafts yields `l`
/// tokens: (1 - a^(g+1)) / (1 - a) = l, which rises from 1 at a = 0 to g +
/// 1 at a = 1 (bisection to f64 precision).
fn rate_for_length(l: f64, g: u64) -> f64 {
    if l >= (g + 1) as f64 {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if expected_tokens(mid, g) < l {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

impl Serialize for Acceptance {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Acceptance::Each(a) => s.serialize_f64(*a),
            _ => s.serialize_str(&self.text()),
        }
    }
}

/// A field that holds an [`Acceptance`] (decode's `acceptance`): a number,
/// or the text of any of its forms.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct AcceptanceField(pub Acceptance);

impl<'de> Deserialize<'de> for AcceptanceField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let v = serde_json::Value::deserialize(d)?;
        let text = match &v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            other => return Err(D::Error::custom(format!("`{other}` is not an acceptance"))),
        };
        Acceptance::parse(&text)
            .map(AcceptanceField)
            .map_err(|e| match e {
                Error::Field { message, .. } => D::Error::custom(message),
                e => D::Error::custom(e.to_string()),
            })
    }
}

/// Draft-then-verify applied to every decode step of a request-level run
/// (`simulate --speculative`, `fleet --speculative`; formulas.md,
/// "Simulation: speculative decoding"): the same `A,G[,C]` as `decode
/// --speculative`, with the same meaning.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Draft {
    /// How drafted tokens are kept: one rate, one a position, or a mean
    /// accepted length.
    pub acceptance: Acceptance,
    /// g: tokens drafted per pass.
    pub draft_tokens: u64,
    /// c: one drafted token's cost as a share of a plain target step of
    /// the same batch.
    pub draft_cost: f64,
}

impl Draft {
    /// Reads `ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST]` as `decode
    /// --speculative` reads it (decode's own splitter and checks), the
    /// acceptance in any of [`Acceptance`]'s forms; an error names
    /// `speculative`.
    pub fn parse(text: &str) -> Result<Draft> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "kebab-case")]
        struct Parts {
            acceptance: AcceptanceField,
            draft_tokens: Count,
            draft_cost: Option<Number>,
        }
        let mut f = crate::inputs::Fields::new();
        f.insert("speculative".into(), text.into());
        let (f, named) =
            crate::calc::decode::speculative_fields(&f)?.expect("the field was just given");
        let check = || -> Result<Draft> {
            let p: Parts = crate::inputs::from_fields(&f)?;
            let g = draft_tokens(p.draft_tokens.0)?;
            Ok(Draft {
                acceptance: p.acceptance.0.with_drafts(g)?,
                draft_tokens: g,
                draft_cost: draft_cost(p.draft_cost.map(|c| c.0))?,
            })
        };
        check().map_err(named)
    }

    /// Expected tokens a sequence gains from a pass that verifies `drafts`
    /// drafted tokens ([`Acceptance::tokens`]).
    pub fn tokens(&self, drafts: u64) -> f64 {
        self.acceptance.tokens(drafts)
    }

    /// The flag's text, A,G,C.
    pub fn text(&self) -> String {
        format!(
            "{},{},{}",
            self.acceptance.text(),
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

    #[test]
    fn per_position_rates_multiply_down_the_draft() {
        // By hand: 1 + 0.9 + 0.9 x 0.7 + 0.9 x 0.7 x 0.5 = 2.845 tokens at
        // three drafts; a pass of two drafts stops at 1 + 0.9 + 0.63.
        let a = Acceptance::parse("0.9/0.7/0.5")
            .unwrap()
            .with_drafts(3)
            .unwrap();
        assert!((a.tokens(3) - 2.845).abs() < 1e-12);
        assert!((a.tokens(2) - 2.53).abs() < 1e-12);
        assert_eq!(a.tokens(0), 1.0);
        assert_eq!(a.text(), "0.9/0.7/0.5");
        // Equal rates are the one-rate form: (1 - 0.8^4) / 0.2 = 2.952.
        let same = Acceptance::parse("0.8/0.8/0.8").unwrap();
        assert!((same.tokens(3) - 2.952).abs() < 1e-12);
        assert!((Acceptance::parse("0.8").unwrap().tokens(3) - 2.952).abs() < 1e-12);
        // One rate a drafted token, no more and no fewer.
        assert!(
            Acceptance::parse("0.9/0.7")
                .unwrap()
                .with_drafts(3)
                .is_err()
        );
        assert!(Acceptance::parse("0.9/1.2/0.5").is_err());
        assert!(Acceptance::parse("0.9//0.5").is_err());
        let many = vec!["0.5"; MAX_POSITIONS + 1].join("/");
        assert!(Acceptance::parse(&many).is_err());
    }

    #[test]
    fn a_mean_length_gives_that_many_tokens_a_full_pass() {
        // DeepSeek-V3's MTP, about 1.85 tokens a step at one draft: L
        // tokens a pass, by definition; its one-draft rate is L - 1.
        let a = Acceptance::parse("length=1.85")
            .unwrap()
            .with_drafts(1)
            .unwrap();
        assert!((a.tokens(1) - 1.85).abs() < 1e-9);
        match a {
            Acceptance::Length { each, .. } => assert!((each - 0.85).abs() < 1e-9),
            _ => panic!("{a:?}"),
        }
        // At three drafts L = 2.6 comes back whole, and a shorter pass
        // yields less (the one rate a with 1 + a + a^2 + a^3 = 2.6).
        let b = Acceptance::parse("LENGTH=2.6")
            .unwrap()
            .with_drafts(3)
            .unwrap();
        assert!((b.tokens(3) - 2.6).abs() < 1e-9);
        assert!(b.tokens(1) < 2.0 && b.tokens(1) > 1.0);
        // Every draft kept: g + 1; more is refused, and less than 1.
        let all = Acceptance::parse("length=4")
            .unwrap()
            .with_drafts(3)
            .unwrap();
        assert_eq!(all.tokens(3), 4.0);
        assert!(
            Acceptance::parse("length=4.5")
                .unwrap()
                .with_drafts(3)
                .is_err()
        );
        assert!(Acceptance::parse("length=0.9").is_err());
        assert!(Acceptance::parse("length=abc").is_err());
    }

    #[test]
    fn a_draft_reads_every_form() {
        let d = Draft::parse("0.9/0.7/0.5,3,0.04").unwrap();
        assert!((d.tokens(3) - 2.845).abs() < 1e-12);
        assert_eq!(d.text(), "0.9/0.7/0.5,3,0.04");
        let l = Draft::parse("length=1.85,1").unwrap();
        assert!((l.tokens(1) - 1.85).abs() < 1e-9);
        let e = Draft::parse("0.9/0.7,3").unwrap_err().to_string();
        assert!(e.contains("speculative"), "{e}");
    }
}

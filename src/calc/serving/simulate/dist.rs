//! Token-length distributions and the seeded random numbers they draw
//! from (formulas.md, "Simulation: workload"). `2048` is fixed;
//! `lognormal:MEAN,SIGMA` has mean MEAN tokens and log-space standard
//! deviation SIGMA; `uniform:A..B` is every whole number from A to B
//! equally likely. A draw is rounded to a whole token, at least one.

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The simulation's random numbers: one PCG stream from one seed, so a
/// seed repeats a run exactly.
pub struct Random(Pcg64);

impl Random {
    /// The stream of `seed`.
    pub fn new(seed: u64) -> Self {
        Random(Pcg64::seed_from_u64(seed))
    }

    /// Uniform on [0, 1): the top 53 bits of one draw.
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponential with mean `mean`, by inversion.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit()).ln()
    }

    /// Standard normal, by Box-Muller (one of the pair).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// A whole number from 0 to n - 1.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.unit() * n as f64) as u64).min(n.saturating_sub(1))
    }
}

/// A distribution of token counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Length {
    /// Always n.
    Fixed {
        /// Tokens.
        tokens: u64,
    },
    /// Lognormal with this mean (tokens) and log-space sigma.
    Lognormal {
        /// Mean tokens.
        mean: f64,
        /// Standard deviation of the log.
        sigma: f64,
    },
    /// Uniform over the whole numbers lo..=hi.
    Uniform {
        /// Least.
        lo: u64,
        /// Most.
        hi: u64,
    },
}

/// The most tokens a drawn length may have; a lognormal's far tail is cut
/// here rather than overflow.
pub const MAX_TOKENS: u64 = 1 << 40;

impl Length {
    /// One draw.
    pub fn sample(&self, r: &mut Random) -> u64 {
        match *self {
            Length::Fixed { tokens } => tokens,
            Length::Uniform { lo, hi } => lo + r.below(hi - lo + 1),
            Length::Lognormal { mean, sigma } => {
                // E[exp(mu + sigma Z)] = exp(mu + sigma^2 / 2) = mean.
                let mu = mean.ln() - sigma * sigma / 2.0;
                let x = (mu + sigma * r.normal()).exp().round();
                (x.max(1.0).min(MAX_TOKENS as f64)) as u64
            }
        }
    }

    /// The mean of the distribution, tokens (before rounding).
    pub fn mean(&self) -> f64 {
        match *self {
            Length::Fixed { tokens } => tokens as f64,
            Length::Uniform { lo, hi } => (lo + hi) as f64 / 2.0,
            Length::Lognormal { mean, .. } => mean,
        }
    }

    /// The largest draw possible, where bounded.
    pub fn max(&self) -> Option<u64> {
        match *self {
            Length::Fixed { tokens } => Some(tokens),
            Length::Uniform { hi, .. } => Some(hi),
            Length::Lognormal { .. } => None,
        }
    }

    /// As typed: `2048`, `lognormal:2048,0.5`, `uniform:512..4096`.
    pub fn text(&self) -> String {
        match *self {
            Length::Fixed { tokens } => tokens.to_string(),
            Length::Uniform { lo, hi } => format!("uniform:{lo}..{hi}"),
            Length::Lognormal { mean, sigma } => format!("lognormal:{mean},{sigma}"),
        }
    }
}

/// Parses a length distribution.
pub fn parse(text: &str) -> Result<Length, String> {
    let t = text.trim();
    let whole = |s: &str, what: &str| -> Result<u64, String> {
        let n =
            crate::inputs::parse_count(s.trim()).map_err(|e| format!("`{t}`: its {what} {e}"))?;
        if n == 0 || n > MAX_TOKENS {
            return Err(format!(
                "`{t}`: its {what} must be from 1 to {} tokens",
                crate::units::whole(MAX_TOKENS)
            ));
        }
        Ok(n)
    };
    let expected = "expected N, lognormal:MEAN,SIGMA or uniform:A..B (e.g. 2048, lognormal:2048,0.5, uniform:512..4096)";
    match t.split_once(':') {
        None => Ok(Length::Fixed {
            tokens: whole(t, "length").map_err(|e| format!("{e}; {expected}"))?,
        }),
        Some((kind, args)) => match kind.trim().to_ascii_lowercase().as_str() {
            "lognormal" => {
                let (m, s) = args
                    .split_once(',')
                    .ok_or_else(|| format!("`{t}`: {expected}"))?;
                let mean: f64 = m
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{t}`: its mean `{}` is not a number", m.trim()))?;
                let sigma: f64 = s
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{t}`: its sigma `{}` is not a number", s.trim()))?;
                if !(mean.is_finite() && mean >= 1.0 && mean <= MAX_TOKENS as f64) {
                    return Err(format!("`{t}`: the mean must be at least 1 token"));
                }
                if !(sigma.is_finite() && (0.0..=10.0).contains(&sigma)) {
                    return Err(format!("`{t}`: sigma must be from 0 to 10"));
                }
                Ok(Length::Lognormal { mean, sigma })
            }
            "uniform" => {
                let (a, b) = args
                    .split_once("..")
                    .ok_or_else(|| format!("`{t}`: {expected}"))?;
                let (lo, hi) = (whole(a, "low end")?, whole(b, "high end")?);
                if lo > hi {
                    return Err(format!("`{t}`: the low end is above the high end"));
                }
                Ok(Length::Uniform { lo, hi })
            }
            other => Err(format!("`{t}`: unknown distribution `{other}`; {expected}")),
        },
    }
}

impl<'de> Deserialize<'de> for Length {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Length;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a token count or a distribution (lognormal:MEAN,SIGMA, uniform:A..B)")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Length, E> {
                parse(&v.to_string()).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Length, E> {
                parse(&v.to_string()).map_err(E::custom)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Length, E> {
                parse(v).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_kind() {
        assert_eq!(parse("2048").unwrap(), Length::Fixed { tokens: 2048 });
        assert_eq!(
            parse("uniform:512..4096").unwrap(),
            Length::Uniform { lo: 512, hi: 4096 }
        );
        assert_eq!(
            parse("lognormal:2048,0.5").unwrap(),
            Length::Lognormal {
                mean: 2048.0,
                sigma: 0.5
            }
        );
        for bad in [
            "0",
            "uniform:9..3",
            "lognormal:2048",
            "normal:5,1",
            "x",
            "lognormal:a,1",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sample_means_match_the_distribution() {
        // The sample mean of 200,000 draws is within 1% of the stated mean
        // (the standard error is about 0.1% for these shapes).
        let mut r = Random::new(7);
        for d in [
            parse("lognormal:2048,0.5").unwrap(),
            parse("uniform:512..4096").unwrap(),
        ] {
            let n = 200_000;
            let m: f64 = (0..n).map(|_| d.sample(&mut r) as f64).sum::<f64>() / n as f64;
            assert!((m / d.mean() - 1.0).abs() < 0.01, "{d:?}: {m}");
        }
        let mut r = Random::new(1);
        let e: f64 = (0..200_000).map(|_| r.exponential(2.0)).sum::<f64>() / 200_000.0;
        assert!((e - 2.0).abs() < 0.02, "{e}");
    }

    #[test]
    fn uniform_reaches_both_ends() {
        let mut r = Random::new(3);
        let d = Length::Uniform { lo: 1, hi: 3 };
        let v: Vec<u64> = (0..1000).map(|_| d.sample(&mut r)).collect();
        assert!(v.contains(&1) && v.contains(&3) && !v.iter().any(|&x| !(1..=3).contains(&x)));
    }
}

//! Latency targets: a time at a percentile (formulas.md, "Simulation:
//! goodput"). `2s` alone is a p99 target for `simulate` and `fleet`;
//! `p50=500ms` names the percentile. `decode` and `plan` take the same
//! text and keep their old meaning for a bare time (the step's own time:
//! a step has one time, so every percentile of it is that time).

use crate::units::{self, Dim};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The percentile a bare time stands for in `simulate` and `fleet`.
pub const DEFAULT_PERCENTILE: f64 = 99.0;

/// The longest target time accepted, seconds.
pub const MAX_TARGET_S: f64 = units::MAX_SECONDS;

/// A latency target: `seconds` at `percentile`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Target {
    /// The percentile, strictly between 0 and 100.
    pub percentile: f64,
    /// The time, seconds.
    pub seconds: f64,
    /// Whether the percentile was named (`p50=...`) rather than implied.
    pub named: bool,
}

impl Target {
    /// `p99 2 s` as people read it.
    pub fn text(&self) -> String {
        format!(
            "p{} {}",
            units::sig(self.percentile, 4),
            units::seconds(self.seconds)
        )
    }
}

/// Parses `2s`, `500ms` or `p90=1.5s`.
pub fn parse(text: &str) -> Result<Target, String> {
    let t = text.trim();
    let (percentile, time, named) = match t.split_once('=') {
        Some((p, time)) => {
            let p = p.trim();
            let digits = p
                .strip_prefix('p')
                .or_else(|| p.strip_prefix('P'))
                .ok_or_else(|| {
                    format!("`{t}`: expected a time (2s) or PERCENTILE=TIME (p99=2s, p50=500ms)")
                })?;
            let v: f64 = digits.trim().parse().map_err(|_| {
                format!("`{p}` is not a percentile; expected p followed by a number, e.g. p99")
            })?;
            if !(v > 0.0 && v < 100.0) {
                return Err(format!(
                    "percentile {} is outside (0, 100); give one such as p50, p90 or p99.9",
                    units::sig(v, 6)
                ));
            }
            (v, time.trim(), true)
        }
        None => (DEFAULT_PERCENTILE, t, false),
    };
    let seconds = units::parse(time, Dim::Seconds).map_err(|e| e.to_string())?;
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(format!("`{time}`: a target time must be above zero"));
    }
    // A target past a billion seconds (about 32 years) bounds nothing,
    // and the margin against it (target over latency) leaves what a
    // double holds: a slip, said as one rather than answered with a null
    // margin.
    if seconds > MAX_TARGET_S {
        return Err(format!(
            "`{}`: a target time must be at most 1e9 s (about 32 years)",
            units::excerpt(time, 40)
        ));
    }
    Ok(Target {
        percentile,
        seconds,
        named,
    })
}

impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Target;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a time (2s) or PERCENTILE=TIME (p99=2s)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Target, E> {
                parse(v).map_err(E::custom)
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_time_is_p99() {
        let t = parse("2s").unwrap();
        assert_eq!((t.percentile, t.seconds, t.named), (99.0, 2.0, false));
    }

    #[test]
    fn named_percentile() {
        let t = parse("p50=500ms").unwrap();
        assert_eq!(t.percentile, 50.0);
        assert!((t.seconds - 0.5).abs() < 1e-12);
        assert!(t.named);
        assert_eq!(parse("p99.9=1s").unwrap().percentile, 99.9);
    }

    #[test]
    fn refuses_percentiles_outside_the_open_interval() {
        for bad in ["p0=1s", "p100=1s", "p150=1s", "p-5=1s"] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains("outside (0, 100)"), "{bad}: {e}");
        }
        assert!(parse("q50=1s").is_err());
        assert!(parse("p50=fast").is_err());
        assert!(parse("0s").is_err());
        // Past a billion seconds the margin would overflow.
        assert!(parse("1e308s").is_err());
        assert!(parse("p50=2e9s").is_err());
        assert_eq!(parse("1e9s").unwrap().seconds, 1e9);
    }
}

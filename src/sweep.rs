//! `--sweep name=values`: a list (`bf16,fp8,int4`), powers of two
//! (`1..256` gives 1, 2, 4, ..., 256) or a linear range (`0..100:25`).

use crate::error::{Error, Result};

/// Most points one sweep may have, so a typo cannot run forever.
pub const MAX_POINTS: usize = 10_000;

/// A parsed sweep: the flag it varies and the values, as the flag would
/// be typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The flag name without dashes (`intensity`, `dtype`).
    pub name: String,
    /// One value per point.
    pub values: Vec<String>,
}

fn num(s: &str, spec: &str) -> Result<f64> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| Error::input("--sweep", format!("`{spec}`: `{s}` is not a number")))?;
    if !v.is_finite() {
        return Err(Error::input(
            "--sweep",
            format!("`{spec}`: `{s}` is not finite"),
        ));
    }
    Ok(v)
}

fn show(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Splits a trailing unit off the end of a range: `600:100cycles` ->
/// (`600:100`, `cycles`).
fn split_tail_unit(rest: &str) -> (&str, &str) {
    let t = rest.trim_end();
    let cut = t
        .rfind(|c: char| c.is_ascii_digit() || c == '.')
        .map_or(0, |i| i + 1);
    (&t[..cut], t[cut..].trim())
}

/// Parses `name=spec`.
pub fn parse(text: &str) -> Result<Sweep> {
    let (name, spec) = text.split_once('=').ok_or_else(|| {
        Error::input(
            "--sweep",
            format!("`{text}`: expected NAME=VALUES, e.g. intensity=1..256"),
        )
    })?;
    let name = name.trim().trim_start_matches('-').to_string();
    if name.is_empty() {
        return Err(Error::input(
            "--sweep",
            format!("`{text}`: the flag name is empty"),
        ));
    }
    let spec = spec.trim();
    let values = if let Some((lo, rest)) = spec.split_once("..") {
        // A unit after the last number ("400..600:100cycles", "1..4GHz")
        // applies to every point.
        let (rest, unit) = {
            let (n, u) = split_tail_unit(rest);
            (n, u)
        };
        let (hi, step) = match rest.split_once(':') {
            Some((h, s)) => (h, Some(s)),
            None => (rest, None),
        };
        // A unit may also follow the low end ("1GB..4GB"); it must match.
        let (lo, lo_unit) = split_tail_unit(lo);
        let unit = match (lo_unit, unit) {
            ("", u) => u,
            (l, "") => l,
            (l, u) if l.trim() == u.trim() => u,
            (l, u) => {
                return Err(Error::input(
                    "--sweep",
                    format!("`{spec}`: the ends of the range have different units ({l}, {u})"),
                ));
            }
        };
        let lo = num(lo, spec)?;
        let hi = num(hi, spec)?;
        if hi < lo {
            return Err(Error::input(
                "--sweep",
                format!("`{spec}`: the range runs backwards"),
            ));
        }
        let mut out = Vec::new();
        match step {
            Some(step) => {
                let step = num(step, spec)?;
                if step <= 0.0 {
                    return Err(Error::input(
                        "--sweep",
                        format!("`{spec}`: the step must be positive"),
                    ));
                }
                let n = ((hi - lo) / step + 1e-9).floor() as usize + 1;
                if n > MAX_POINTS {
                    return Err(Error::input(
                        "--sweep",
                        format!("`{spec}`: {n} points is more than {MAX_POINTS}"),
                    ));
                }
                for i in 0..n {
                    out.push(show(lo + step * i as f64));
                }
            }
            None => {
                if lo <= 0.0 {
                    return Err(Error::input(
                        "--sweep",
                        format!(
                            "`{spec}`: a powers-of-two range must start above zero (use lo..hi:step for a linear one)"
                        ),
                    ));
                }
                let mut v = lo;
                while v <= hi * (1.0 + 1e-12) {
                    out.push(show(v));
                    v *= 2.0;
                    if out.len() > MAX_POINTS {
                        return Err(Error::input(
                            "--sweep",
                            format!("`{spec}`: more than {MAX_POINTS} points"),
                        ));
                    }
                }
            }
        }
        if unit.is_empty() {
            out
        } else {
            out.into_iter().map(|v| format!("{v}{unit}")).collect()
        }
    } else {
        let v: Vec<String> = spec.split(',').map(|s| s.trim().to_string()).collect();
        if v.iter().any(String::is_empty) {
            return Err(Error::input(
                "--sweep",
                format!("`{spec}`: empty value in the list"),
            ));
        }
        v
    };
    Ok(Sweep { name, values })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        let s = parse("dtype=bf16,fp8,int4").unwrap();
        assert_eq!(s.name, "dtype");
        assert_eq!(s.values, ["bf16", "fp8", "int4"]);
    }

    #[test]
    fn powers_of_two() {
        assert_eq!(
            parse("intensity=1..16").unwrap().values,
            ["1", "2", "4", "8", "16"]
        );
        assert_eq!(
            parse("tile=32..256").unwrap().values,
            ["32", "64", "128", "256"]
        );
        assert_eq!(parse("x=3..20").unwrap().values, ["3", "6", "12"]);
    }

    #[test]
    fn linear() {
        assert_eq!(
            parse("batch=0..100:25").unwrap().values,
            ["0", "25", "50", "75", "100"]
        );
        assert_eq!(parse("x=0.5..1.5:0.5").unwrap().values, ["0.5", "1", "1.5"]);
    }

    #[test]
    fn units_carry_over_to_every_point() {
        assert_eq!(
            parse("latency=400..600:100cycles").unwrap().values,
            ["400cycles", "500cycles", "600cycles"]
        );
        assert_eq!(
            parse("clock=1..4 GHz").unwrap().values,
            ["1GHz", "2GHz", "4GHz"]
        );
        assert_eq!(
            parse("clock=1.4GHz,1.8 GHz").unwrap().values,
            ["1.4GHz", "1.8 GHz"]
        );
    }

    #[test]
    fn errors() {
        for bad in [
            "nodash",
            "=1,2",
            "x=",
            "x=1,,2",
            "x=8..1",
            "x=0..8",
            "x=1..8:0",
            "x=a..b",
            "x=0..1e9:1",
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.exit_code(), 65, "{bad}");
        }
    }
}

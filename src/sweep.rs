//! Sweeps as data. `--sweep name=values` is a list (`bf16,fp8,int4`),
//! powers of two (`1..256` gives 1, 2, 4, ..., 256) or a linear range
//! (`0..100:25`). The command line is parsed once; [`evaluate`] runs the
//! typed calculation at every point of the grid of all sweeps (and
//! compared items) and gathers one report whose `axes` name what varies.

use crate::error::{Error, Result};
use crate::report::Report;
use serde_json::Value;

/// Most points a whole grid (the product of every sweep and list) may
/// have, so a typo cannot run for hours.
pub const MAX_POINTS: usize = 1_000_000;

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
    if !crate::units::usable(v) {
        return Err(Error::input(
            "--sweep",
            format!(
                "`{spec}`: `{s}` is too small to compute with (below 2.2e-308, the smallest normal double)"
            ),
        ));
    }
    Ok(v)
}

/// A point's value as text: whole numbers plainly, very large or small
/// ones in scientific notation (never a 300-digit decimal), the rest as
/// the shortest decimal that reads back the same.
fn show(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v != 0.0 && !(1e-4..1e15).contains(&v.abs()) {
        format!("{v:e}")
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
        // A unit may also follow the low end ("1GB..4GB") and, with a
        // step, the high end ("0..96KiB:16KiB"); those given must match.
        let (lo, lo_unit) = split_tail_unit(lo);
        let (hi, hi_unit) = if step.is_some() {
            split_tail_unit(hi)
        } else {
            (hi, "")
        };
        let tail_unit = unit;
        let mut unit = "";
        for u in [lo_unit, hi_unit, tail_unit] {
            match (unit, u) {
                (_, "") => {}
                ("", u) => unit = u,
                (a, b) if a == b => {}
                (a, b) => {
                    return Err(Error::input(
                        "--sweep",
                        format!("`{spec}`: the range's values have different units ({a}, {b})"),
                    ));
                }
            }
        }
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
                // Counted in f64 first: a tiny step overflows any integer.
                let n = ((hi - lo) / step + 1e-9).floor() + 1.0;
                if n.is_nan() || n > MAX_POINTS as f64 {
                    return Err(Error::input(
                        "--sweep",
                        format!(
                            "`{spec}` would need {} points; at most {} are allowed",
                            count_text(n),
                            crate::units::number(MAX_POINTS as f64)
                        ),
                    ));
                }
                let n = n as usize;
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
                    if out.len() >= MAX_POINTS {
                        return Err(Error::input(
                            "--sweep",
                            format!(
                                "`{spec}`: more than {} points",
                                crate::units::number(MAX_POINTS as f64)
                            ),
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

fn count_text(n: f64) -> String {
    if n.is_finite() {
        crate::units::number(n)
    } else {
        "more than 1e308".into()
    }
}

/// One axis of a grid: an input's kebab-case name and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The input field (`intensity`, `tile-k`), `hw` or `model` for a
    /// comparison, or a dotted `--set` path (`memory.hbm-bandwidth`).
    pub name: String,
    /// One value per point, as typed.
    pub values: Vec<Value>,
}

impl From<Sweep> for Axis {
    fn from(s: Sweep) -> Self {
        Axis {
            name: s.name,
            values: s.values.into_iter().map(Value::from).collect(),
        }
    }
}

/// The key an axis has in a report: `hw` is `hardware`, kebab-case is
/// snake_case.
pub fn axis_key(name: &str) -> String {
    match name {
        "hw" => "hardware".into(),
        n => n.replace('-', "_"),
    }
}

/// The number of points of a grid, refused above [`MAX_POINTS`].
pub fn grid_size(axes: &[Axis]) -> Result<usize> {
    let mut n: usize = 1;
    for a in axes {
        n = n.saturating_mul(a.values.len());
    }
    if n > MAX_POINTS {
        let names: Vec<String> = axes
            .iter()
            .map(|a| {
                format!(
                    "{} ({})",
                    a.name,
                    crate::units::number(a.values.len() as f64)
                )
            })
            .collect();
        return Err(Error::input(
            "--sweep",
            format!(
                "the grid {} has {} points; at most {} are allowed",
                names.join(" x "),
                count_text(axes.iter().map(|a| a.values.len() as f64).product::<f64>()),
                crate::units::number(MAX_POINTS as f64)
            ),
        ));
    }
    Ok(n)
}

/// Inputs whose value can change the unit a result is stated in: the
/// accelerator (a capacity in GiB or GB) and the precisions (int8 counts
/// OP, the rest FLOP).
const CHANGES_UNITS: &[&str] = &["hw", "dtype", "activations"];

/// Evaluates `eval` at every point of the grid (the last axis varies
/// fastest) and combines the answers into one report. `eval` gets the
/// point as (name, value) pairs and whether it may build a lean report
/// (values only). Built in full are: the first and last points, for the
/// report's descriptions and shared notes; the first point of each
/// precision or accelerator, for its units; and every item of a
/// comparison, for its notes. An error names the point.
pub fn evaluate(
    axes: &[Axis],
    mut eval: impl FnMut(&[(&str, &Value)], bool) -> Result<Report>,
) -> Result<Report> {
    let n = grid_size(axes)?;
    let keys: Vec<String> = axes.iter().map(|a| axis_key(&a.name)).collect();
    let mut gather = crate::report::Gather::new(&keys, n);
    let mut idx = vec![0usize; axes.len()];
    let mut point: Vec<(&str, &Value)> = Vec::with_capacity(axes.len());
    let unit_axes: Vec<usize> = (0..axes.len())
        .filter(|&d| CHANGES_UNITS.contains(&axes[d].name.as_str()))
        .collect();
    let mut classes: rustc_hash::FxHashSet<Vec<usize>> = Default::default();
    // A comparison's items are each built in full, so each one's notes
    // are known.
    let comparison = axes.iter().all(|a| a.name == "hw" || a.name == "model");
    let mut class: Vec<usize> = Vec::with_capacity(unit_axes.len());
    for i in 0..n {
        point.clear();
        point.extend(
            axes.iter()
                .zip(&idx)
                .map(|(a, &j)| (a.name.as_str(), &a.values[j])),
        );
        // A point whose unit class (its precision or accelerator) is new
        // is built in full, so its results' units are known; the rest of
        // its class borrow them.
        class.clear();
        class.extend(unit_axes.iter().map(|&d| idx[d]));
        let new_class = !unit_axes.is_empty() && classes.insert(class.clone());
        let lean = i != 0 && i + 1 != n && !new_class && !comparison;
        let r = eval(&point, lean).map_err(|e| Error::At {
            point: point
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{k}={}",
                        v.as_str().map_or_else(|| v.to_string(), str::to_string)
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
            error: Box::new(e),
        })?;
        if i == 0 {
            crate::report::set_results_hint(r.results.len());
        }
        let unit_class = (!unit_axes.is_empty()).then_some(class.as_slice());
        gather.push_in(r, &point, unit_class);
        for d in (0..axes.len()).rev() {
            idx[d] += 1;
            if idx[d] < axes[d].values.len() {
                break;
            }
            idx[d] = 0;
        }
    }
    crate::report::set_results_hint(0);
    Ok(gather.finish())
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
        // The same unit on every value of a stepped range reads as one.
        assert_eq!(
            parse("smem=0..96KiB:32KiB").unwrap().values,
            ["0KiB", "32KiB", "64KiB", "96KiB"]
        );
        assert_eq!(
            parse("bw=3TB/s..5TB/s:1TB/s").unwrap().values,
            ["3TB/s", "4TB/s", "5TB/s"]
        );
        let e = parse("bw=3TB/s..5GB/s:1TB/s").unwrap_err().to_string();
        assert!(e.contains("different units (TB/s, GB/s)"), "{e}");
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
            "x=0..1e300:1e-300",
            "x=0..1:1e-320",
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.exit_code(), 65, "{bad}");
        }
    }
}

#[cfg(test)]
mod grid_tests {
    use super::*;
    use crate::report::{Quantity, Unit};

    fn axis(name: &str, n: usize) -> Axis {
        Axis {
            name: name.into(),
            values: (0..n).map(|i| Value::from(i.to_string())).collect(),
        }
    }

    #[test]
    fn the_cap_applies_to_the_product() {
        assert_eq!(
            grid_size(&[axis("a", 1000), axis("b", 1000)]).unwrap(),
            1_000_000
        );
        let e = grid_size(&[axis("a", 1000), axis("b", 1001)]).unwrap_err();
        assert!(e.to_string().contains("1,001,000 points"), "{e}");
        let e = grid_size(&[axis("a", 10_000), axis("b", 10_000)]).unwrap_err();
        assert!(e.to_string().contains("100,000,000 points"), "{e}");
        assert_eq!(e.exit_code(), 65);
    }

    #[test]
    fn a_precision_s_lean_points_keep_its_units() {
        // int8 counts OP/s, bf16 FLOP/s: the unit depends on the dtype axis,
        // and lean points carry values only.
        let dtype = Axis {
            name: "dtype".into(),
            values: vec![Value::from("bf16"), Value::from("int8")],
        };
        let mut full = 0;
        let r = evaluate(&[dtype, axis("x", 4)], |p, lean| {
            full += usize::from(!lean);
            let unit = if p[0].1 == "int8" {
                Unit::OpPerSec
            } else {
                Unit::FlopPerSec
            };
            let mut r = Report::new_lean("t", lean);
            r.result("peak", 1.0, || Quantity::new("peak", unit));
            Ok(r)
        })
        .unwrap();
        // The first point, the last, and the first int8 one.
        assert_eq!(full, 3);
        let units: Vec<Unit> = r.rows.iter().map(|row| row.unit("peak", &r)).collect();
        assert_eq!(&units[..4], &[Unit::FlopPerSec; 4]);
        assert_eq!(&units[4..], &[Unit::OpPerSec; 4]);
    }

    #[test]
    fn every_result_in_every_row_and_last_axis_fastest() {
        let r = evaluate(&[axis("a", 2), axis("b-c", 3)], |p, lean| {
            let mut r = Report::new_lean("t", lean);
            r.result("x", 1.0, || Quantity::new("x", Unit::Count));
            r.note(format!("{}", p[0].1));
            Ok(r)
        })
        .unwrap();
        assert_eq!(r.axes, ["a", "b_c"]);
        assert_eq!(r.rows.len(), 6);
        assert!(
            r.rows
                .iter()
                .all(|row| row.results.get("x") == Some(&Value::from(1.0)))
        );
        assert_eq!(r.rows[1].inputs.get("b_c"), Some(&Value::from("1")));
        assert_eq!(r.rows[3].inputs.get("a"), Some(&Value::from("1")));
        // First and last points differ in their note, so it is not shared.
        assert!(r.notes.is_empty());
        assert!(r.quantities.contains_key("x"));
    }

    #[test]
    fn an_error_names_its_point() {
        let e = evaluate(&[axis("m", 3)], |p, _| {
            if p[0].1 == "2" {
                Err(Error::field("m", "bad"))
            } else {
                Ok(Report::new("t"))
            }
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "at m=2: field `m`: bad");
        assert_eq!(e.exit_code(), 65);
    }
}

//! Sweeps as data. `--sweep name=values` is a list (`bf16,fp8,int4`),
//! powers of two (`1..256` gives 1, 2, 4, ..., 256) or a linear range
//! (`0..100:25`). The command line is parsed once; [`evaluate`] runs the
//! typed calculation at every point of the grid of all sweeps (and
//! compared items) and gathers one report whose `axes` name what varies.

use crate::error::{Error, Result};
use crate::report::{Report, RowSink};
use serde_json::Value;

/// Most points a whole grid (the product of every sweep and list) may
/// have, so a typo cannot run for hours.
pub const MAX_POINTS: usize = 1_000_000;

/// Most distinct files a grid may load: combinations of its hardware,
/// model and `--set`-path axes, each parsed and validated once (and
/// remembered, good or failed, so a point repeating one costs nothing).
/// A file takes far longer than a point's arithmetic, so this bounds a
/// grid of what-ifs over file fields as [`MAX_POINTS`] bounds the rest.
pub const MAX_FILES: usize = 8192;

/// A parsed sweep: the flag it varies and the values, as the flag would
/// be typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The flag name without dashes (`intensity`, `dtype`).
    pub name: String,
    /// One value per point; a range is made point by point, not held.
    pub values: Values,
}

/// An axis's values. A range (`1..1000000:1`) is kept as its ends and
/// step and each point is made when it is reached, so a million-point
/// sweep holds a few numbers rather than a million strings; a list holds
/// what was given.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// The values as given (a comma list, a scenario's array, compared ids).
    List(Vec<Value>),
    /// `lo + step * i` for `i` in `0..n`, each followed by `unit`.
    Linear {
        /// The first value.
        lo: f64,
        /// The step between values.
        step: f64,
        /// How many values.
        n: usize,
        /// The unit written after every value (may be empty).
        unit: String,
    },
    /// `lo * 2^i` for `i` in `0..n`, each followed by `unit`.
    Doubling {
        /// The first value.
        lo: f64,
        /// How many values.
        n: usize,
        /// The unit written after every value (may be empty).
        unit: String,
    },
}

impl Values {
    /// How many values.
    pub fn len(&self) -> usize {
        match self {
            Values::List(v) => v.len(),
            Values::Linear { n, .. } | Values::Doubling { n, .. } => *n,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th value, as it would be typed (`"64"`, `"16KiB"`); `None`
    /// past the end.
    pub fn get(&self, i: usize) -> Option<Value> {
        if i >= self.len() {
            return None;
        }
        let (v, unit) = match self {
            Values::List(v) => return v.get(i).cloned(),
            Values::Linear { lo, step, unit, .. } => (lo + step * i as f64, unit),
            // In two halves, so a tiny start's 2^1100 is not infinite.
            Values::Doubling { lo, unit, .. } => {
                let a = i32::try_from(i.div_euclid(2)).ok()?;
                let b = i32::try_from(i.div_ceil(2)).ok()?;
                (lo * 2f64.powi(a) * 2f64.powi(b), unit)
            }
        };
        let mut t = show(v);
        t.push_str(unit);
        Some(Value::String(t))
    }

    /// Every value, in order, each made as it is reached.
    pub fn iter(&self) -> impl Iterator<Item = Value> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Every value as text (a string as it is, anything else as JSON).
    pub fn texts(&self) -> impl Iterator<Item = String> + '_ {
        self.iter().map(|v| match v {
            Value::String(s) => s,
            v => v.to_string(),
        })
    }
}

impl From<Vec<Value>> for Values {
    fn from(v: Vec<Value>) -> Self {
        Values::List(v)
    }
}

impl<'a> IntoIterator for &'a Values {
    type Item = Value;
    type IntoIter = Box<dyn Iterator<Item = Value> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
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
        .map_or(0, |i| i.saturating_add(1));
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
        let unit = unit.to_string();
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
                Values::Linear {
                    lo,
                    step,
                    n: n as usize,
                    unit,
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
                // At most 1024 doublings stay finite, far under the cap.
                let mut n = 0usize;
                let mut v = lo;
                while v.is_finite() && v <= hi * (1.0 + 1e-12) {
                    n = n.saturating_add(1);
                    v *= 2.0;
                }
                Values::Doubling { lo, n, unit }
            }
        }
    } else {
        let v: Vec<Value> = spec.split(',').map(|s| Value::from(s.trim())).collect();
        if v.iter().any(|s| s.as_str() == Some("")) {
            return Err(Error::input(
                "--sweep",
                format!("`{spec}`: empty value in the list"),
            ));
        }
        Values::List(v)
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
    pub values: Values,
}

impl Axis {
    /// Whether `e` refuses this axis's unit: a range writes one unit after
    /// every value, so a field that does not take it refuses every point
    /// alike (`--sweep compute.dense.bf16=1..1e308/h`), and the sweep says
    /// so once, before its points (issue 55).
    pub fn unit_refused(&self, e: &Error) -> bool {
        let unit = match &self.values {
            Values::Linear { unit, .. } | Values::Doubling { unit, .. } => unit,
            Values::List(_) => return false,
        };
        let Error::Data {
            field: Some(field),
            message,
            ..
        } = e
        else {
            return false;
        };
        field == &self.name
            && if unit.is_empty() {
                message.contains("` has no unit;")
            } else {
                message.starts_with(&format!("unknown unit `{unit}` in `"))
            }
    }

    /// An axis of the values given.
    pub fn list(name: impl Into<String>, values: Vec<Value>) -> Self {
        Axis {
            name: name.into(),
            values: Values::List(values),
        }
    }
}

impl From<Sweep> for Axis {
    fn from(s: Sweep) -> Self {
        Axis {
            name: s.name,
            values: s.values,
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
        let names = axes_text(axes.iter());
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

/// The axes as a refusal names them: `name (count)` each, in order.
fn axes_text<'a>(axes: impl Iterator<Item = &'a Axis>) -> Vec<String> {
    axes.map(|a| {
        format!(
            "{} ({})",
            a.name,
            crate::units::number(a.values.len() as f64)
        )
    })
    .collect()
}

/// Refuses a grid whose file axes (its hardware and model axes and the
/// fields of their files it sets, as the caller knows them) combine to
/// more than [`MAX_FILES`] files.
pub fn check_files<'a>(files: impl IntoIterator<Item = &'a Axis>) -> Result<()> {
    let file_axes: Vec<&Axis> = files.into_iter().collect();
    let n = file_axes
        .iter()
        .fold(1usize, |f, a| f.saturating_mul(a.values.len()));
    if n <= MAX_FILES {
        return Ok(());
    }
    let names = axes_text(file_axes.iter().copied());
    Err(Error::input(
        "--sweep",
        format!(
            "the grid {} loads a file for each of its {} combinations of hardware, model and file fields; at most {} are allowed: narrow a range or take a coarser step",
            names.join(" x "),
            count_text(
                file_axes
                    .iter()
                    .map(|a| a.values.len() as f64)
                    .product::<f64>()
            ),
            crate::units::number(MAX_FILES as f64)
        ),
    ))
}

/// Inputs whose value can change the unit a result is stated in: the
/// accelerator (a capacity in GiB or GB) and the precisions (int8 counts
/// OP, the rest FLOP).
const CHANGES_UNITS: &[&str] = &["hw", "dtype", "activations"];

/// Evaluates `eval` at every point of the grid (the last axis varies
/// fastest) and combines the answers into one report. `eval` gets the
/// point as (name, value) pairs and whether it may build a lean report
/// (values only). Built in full are: the first answering point and the
/// last point, for the report's descriptions and shared notes; the first
/// point of each precision or accelerator, for its units; and every item
/// of a comparison, for its notes.
///
/// A point that fails becomes a row holding its error, and the sweep goes
/// on; only when every point fails is the first point's error returned
/// (naming the point). An error about the whole command rather than the
/// point (bad usage, exit 2; an I/O failure, exit 74; a bad `--sweep`)
/// stops the sweep at once.
pub fn evaluate(
    axes: &[Axis],
    eval: impl FnMut(&[(&str, &Value)], bool) -> Result<Report>,
) -> Result<Report> {
    evaluate_into(axes, None, None, eval)
}

/// Most points a chart of a sweep keeps ([`chart_strides`]): far more than
/// a chart has pixels along its axis, and few enough to hold.
pub const CHART_POINTS: usize = 20_000;

/// Per axis, every how many values a chart of the grid keeps (1: all), so
/// that at most [`CHART_POINTS`] points are kept: the axis with the most
/// values kept is halved until the grid fits. An axis's last value is
/// always kept too.
pub fn chart_strides(axes: &[Axis]) -> Vec<usize> {
    let lens: Vec<usize> = axes.iter().map(|a| a.values.len().max(1)).collect();
    let mut kept = lens.clone();
    while kept.iter().map(|&k| k as f64).product::<f64>() > CHART_POINTS as f64 {
        let Some((i, _)) = kept.iter().enumerate().max_by_key(|(_, k)| **k) else {
            break;
        };
        if kept[i] <= 1 {
            break;
        }
        kept[i] = kept[i].div_ceil(2);
    }
    lens.iter()
        .zip(&kept)
        .map(|(&l, &k)| l.div_ceil(k))
        .collect()
}

/// [`evaluate`], handing each row to `sink` as it is made (a streamed CSV
/// or JSON sweep) rather than keeping it: the report returned has no rows
/// but those `keep` selects (per axis, every how many values, as
/// [`chart_strides`] gives, for a chart of the sweep), and the caller
/// gives it to the sink as the tail.
pub fn evaluate_into(
    axes: &[Axis],
    sink: Option<&mut dyn RowSink>,
    keep: Option<&[usize]>,
    mut eval: impl FnMut(&[(&str, &Value)], bool) -> Result<Report>,
) -> Result<Report> {
    let n = grid_size(axes)?;
    let keys: Vec<String> = axes.iter().map(|a| axis_key(&a.name)).collect();
    let mut gather =
        crate::report::Gather::with_sink(&keys, n, sink.map(|s| -> &mut dyn RowSink { s }));
    let mut idx = vec![0usize; axes.len()];
    let mut values: Vec<Value> = Vec::with_capacity(axes.len());
    let unit_axes: Vec<usize> = (0..axes.len())
        .filter(|&d| CHANGES_UNITS.contains(&axes[d].name.as_str()))
        .collect();
    let mut classes: rustc_hash::FxHashSet<Vec<usize>> = Default::default();
    // A comparison's items are each built in full, so each one's notes
    // are known.
    let comparison = axes.iter().all(|a| a.name == "hw" || a.name == "model");
    let mut class: Vec<usize> = Vec::with_capacity(unit_axes.len());
    let mut first_error: Option<Error> = None;
    // Points before the first answering one failed; their rows follow the
    // report's head, so they are worked again once it is known (a failing
    // point fails again, and nothing of it is kept meanwhile).
    let mut failed_before = 0usize;
    // Set by the first answering point, until the sweep ends.
    let mut columns: Option<crate::report::ColumnsGuard> = None;
    let kept = |idx: &[usize]| {
        keep.is_some_and(|strides| {
            idx.iter().zip(strides).zip(axes).all(|((&j, &s), a)| {
                j.is_multiple_of(s.max(1)) || j.saturating_add(1) == a.values.len()
            })
        })
    };
    for i in 0..n {
        fill_point(axes, &idx, &mut values);
        let point = named(axes, &values);
        gather.keep(kept(&idx));
        // A point whose unit class (its precision or accelerator) is new
        // is built in full, so its results' units are known; the rest of
        // its class borrow them.
        class.clear();
        class.extend(unit_axes.iter().map(|&d| idx[d]));
        let new_class = !unit_axes.is_empty() && classes.insert(class.clone());
        let lean = gather.seen() && i.saturating_add(1) != n && !new_class && !comparison;
        let unit_class = (!unit_axes.is_empty()).then_some(class.as_slice());
        match eval(&point, lean) {
            Ok(r) => {
                if !gather.seen() {
                    crate::report::set_size_hint(r.inputs.len(), r.results.len());
                    columns = gather.columns(&r).map(crate::report::ColumnsGuard::set);
                    let row = gather.make_row(r, &point, unit_class);
                    gather.start()?;
                    let mut again = vec![0usize; axes.len()];
                    let mut again_values: Vec<Value> = Vec::with_capacity(axes.len());
                    for _ in 0..failed_before {
                        fill_point(axes, &again, &mut again_values);
                        let p = named(axes, &again_values);
                        gather.keep(kept(&again));
                        let e = match eval(&p, true) {
                            Err(e) => e,
                            // Deterministic calculations fail the same way
                            // twice; should one not, its answer stands.
                            Ok(r) => {
                                gather.push_in(r, &p, None)?;
                                advance(axes, &mut again);
                                continue;
                            }
                        };
                        gather.push_error(&p, e.to_string())?;
                        advance(axes, &mut again);
                    }
                    gather.keep(kept(&idx));
                    gather.emit(row, true)?;
                } else {
                    gather.push_in(r, &point, unit_class)?;
                }
            }
            Err(e) => {
                let bad_sweep = matches!(&e, Error::Input { flag, .. } if flag == "--sweep");
                if new_class {
                    // The class's units come from a point that answers.
                    classes.remove(&class);
                }
                // A bad `--sweep` is about the command line, not a point.
                if bad_sweep {
                    return Err(e);
                }
                if matches!(e.exit_code(), 2 | 74) {
                    return Err(at(&point, e));
                }
                let msg = e.to_string();
                if first_error.is_none() {
                    first_error = Some(at(&point, e));
                }
                if gather.seen() {
                    gather.push_error(&point, msg)?;
                } else {
                    failed_before = failed_before.saturating_add(1);
                }
            }
        }
        advance(axes, &mut idx);
    }
    crate::report::set_size_hint(0, 0);
    drop(columns);
    if !gather.seen() {
        return Err(first_error.unwrap_or_else(|| Error::NoAnswer("no point answered".into())));
    }
    Ok(gather.finish())
}

/// The values of the point at grid index `idx`, made afresh (a range's
/// values are not held).
fn fill_point(axes: &[Axis], idx: &[usize], values: &mut Vec<Value>) {
    values.clear();
    values.extend(
        axes.iter()
            .zip(idx)
            .map(|(a, &j)| a.values.get(j).unwrap_or(Value::Null)),
    );
}

/// The point as (name, value) pairs.
fn named<'a>(axes: &'a [Axis], values: &'a [Value]) -> Vec<(&'a str, &'a Value)> {
    axes.iter().map(|a| a.name.as_str()).zip(values).collect()
}

/// The next grid index, the last axis fastest.
fn advance(axes: &[Axis], idx: &mut [usize]) {
    for d in (0..axes.len()).rev() {
        idx[d] = idx[d].saturating_add(1);
        if idx[d] < axes[d].values.len() {
            break;
        }
        idx[d] = 0;
    }
}

/// An error at a point, naming it.
fn at(point: &[(&str, &Value)], e: Error) -> Error {
    Error::At {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(spec: &str) -> Vec<String> {
        parse(spec).unwrap().values.texts().collect()
    }

    #[test]
    fn a_range_unit_a_field_refuses_fails_every_point() {
        let data = |field: &str, message: &str| Error::Data {
            file: "--set".into(),
            line: None,
            col: None,
            field: Some(field.into()),
            message: message.into(),
        };
        let wrong = data(
            "compute.dense.bf16",
            "unknown unit `/h` in `3/h`; expected one of FLOP/s",
        );
        let axis = |spec: &str| {
            let s = parse(spec).unwrap();
            Axis {
                name: s.name,
                values: s.values,
            }
        };
        let range = axis("compute.dense.bf16=3..1e308/h");
        assert!(range.unit_refused(&wrong));
        // Another field's refusal, or a list whose values may carry other
        // units, does not speak for every point.
        let other = axis("memory.hbm-bandwidth=3..9/h");
        assert!(!other.unit_refused(&wrong));
        let list = axis("compute.dense.bf16=3/h,4TFLOP/s");
        assert!(!list.unit_refused(&wrong));
        // A value refused for its size, not its unit, may be one point's.
        let small = data("compute.dense.bf16", "must be above zero");
        assert!(!range.unit_refused(&small));
        let bare = axis("memory.hbm-bandwidth=1..1000");
        assert!(bare.unit_refused(&data(
            "memory.hbm-bandwidth",
            "`1` has no unit; write it as a string with one of B/s"
        )));
    }

    #[test]
    fn lists() {
        let s = parse("dtype=bf16,fp8,int4").unwrap();
        assert_eq!(s.name, "dtype");
        assert_eq!(
            s.values.texts().collect::<Vec<_>>(),
            ["bf16", "fp8", "int4"]
        );
    }

    #[test]
    fn a_range_is_made_point_by_point_not_held() {
        let s = parse("batch=1..1000000:1").unwrap();
        assert!(matches!(s.values, Values::Linear { n: 1_000_000, .. }));
        assert_eq!(s.values.get(0), Some(Value::from("1")));
        assert_eq!(s.values.get(999_999), Some(Value::from("1000000")));
        assert_eq!(s.values.get(1_000_000), None);
        // A doubling from a tiny start stays finite past 2^1023.
        let s = parse("x=1e-300..1e300").unwrap();
        let last = s.values.iter().last().unwrap();
        let v: f64 = last.as_str().unwrap().parse().unwrap();
        assert!(v.is_finite() && v <= 1e300 && v > 5e299, "{v}");
        assert_eq!(s.values.len(), 1994);
    }

    #[test]
    fn powers_of_two() {
        assert_eq!(texts("intensity=1..16"), ["1", "2", "4", "8", "16"]);
        assert_eq!(texts("tile=32..256"), ["32", "64", "128", "256"]);
        assert_eq!(texts("x=3..20"), ["3", "6", "12"]);
    }

    #[test]
    fn tiny_and_huge_points_read_in_scientific_notation() {
        assert_eq!(show(1e-300), "1e-300");
        assert_eq!(show(2.5e20), "2.5e20");
        assert_eq!(show(0.5), "0.5");
        assert_eq!(show(1e15), "1e15");
    }

    #[test]
    fn linear() {
        assert_eq!(texts("batch=0..100:25"), ["0", "25", "50", "75", "100"]);
        assert_eq!(texts("x=0.5..1.5:0.5"), ["0.5", "1", "1.5"]);
    }

    #[test]
    fn units_carry_over_to_every_point() {
        assert_eq!(
            texts("latency=400..600:100cycles"),
            ["400cycles", "500cycles", "600cycles"]
        );
        assert_eq!(texts("clock=1..4 GHz"), ["1GHz", "2GHz", "4GHz"]);
        assert_eq!(texts("clock=1.4GHz,1.8 GHz"), ["1.4GHz", "1.8 GHz"]);
        // The same unit on every value of a stepped range reads as one.
        assert_eq!(
            texts("smem=0..96KiB:32KiB"),
            ["0KiB", "32KiB", "64KiB", "96KiB"]
        );
        assert_eq!(texts("bw=3TB/s..5TB/s:1TB/s"), ["3TB/s", "4TB/s", "5TB/s"]);
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
            "x=1e-320..1e-300",
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
            values: (0..n)
                .map(|i| Value::from(i.to_string()))
                .collect::<Vec<_>>()
                .into(),
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
    fn the_file_cap_applies_to_the_file_axes_product() {
        // 1,024 x 8 = 8,192 files: allowed; one more value refused.
        check_files(&[axis("compute.dense.bf16", 1024), axis("hw", 8)]).unwrap();
        let e = check_files(&[axis("memory.hbm-bandwidth", 1024), axis("layers", 9)]).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("9,216 combinations"), "{msg}");
        assert!(msg.contains("at most 8,192"), "{msg}");
        assert_eq!(e.exit_code(), 65);
    }

    #[test]
    fn a_precision_s_lean_points_keep_its_units() {
        // int8 counts OP/s, bf16 FLOP/s: the unit depends on the dtype axis,
        // and lean points carry values only.
        let dtype = Axis {
            name: "dtype".into(),
            values: vec![Value::from("bf16"), Value::from("int8")].into(),
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
    fn a_failing_point_is_a_row_with_its_error() {
        let r = evaluate(&[axis("m", 3)], |p, _| {
            if p[0].1 == "2" {
                Err(Error::field("m", "bad"))
            } else {
                Ok(Report::new("t"))
            }
        })
        .unwrap();
        assert_eq!(r.rows.len(), 3);
        assert_eq!(r.rows[2].error.as_deref(), Some("field `m`: bad"));
        assert_eq!(r.rows[2].inputs.get("m"), Some(&Value::from("2")));
        assert!(r.rows[..2].iter().all(|row| row.error.is_none()));
    }

    #[test]
    fn points_failing_before_the_first_answer_keep_their_place() {
        let r = evaluate(&[axis("m", 4)], |p, _| {
            if p[0].1 == "0" || p[0].1 == "1" {
                Err(Error::field("m", "low"))
            } else {
                let mut r = Report::new("t");
                r.result("x", 1.0, || Quantity::new("x", Unit::Count));
                Ok(r)
            }
        })
        .unwrap();
        let m: Vec<&Value> = r.rows.iter().map(|row| &row.inputs["m"]).collect();
        assert_eq!(m, ["0", "1", "2", "3"]);
        assert!(r.rows[0].error.is_some() && r.rows[1].error.is_some());
        assert!(r.rows[2].error.is_none() && r.rows[3].error.is_none());
        assert_eq!(r.command, "t");
    }

    #[test]
    fn only_a_sweep_where_every_point_fails_is_an_error_naming_the_first() {
        let e = evaluate(&[axis("m", 3)], |p, _| {
            Err(Error::field(
                "m",
                format!("bad {}", p[0].1.as_str().unwrap_or("")),
            ))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "at m=0: field `m`: bad 0");
        assert_eq!(e.exit_code(), 65);
        // An error about the whole command stops at once.
        let mut calls = 0;
        let e = evaluate(&[axis("m", 3)], |_, _| {
            calls += 1;
            Err(Error::usage("--x", "give --x"))
        })
        .unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(calls, 1);
    }

    #[test]
    fn chart_strides_keep_a_bounded_grid() {
        let kept = |axes: &[Axis]| {
            let st = chart_strides(axes);
            axes.iter()
                .zip(&st)
                .map(|(a, s)| {
                    (0..a.values.len())
                        .filter(|j| j % s == 0 || j + 1 == a.values.len())
                        .count()
                })
                .product::<usize>()
        };
        assert_eq!(chart_strides(&[axis("a", 100)]), [1]);
        assert!(kept(&[axis("a", 1_000_000)]) <= CHART_POINTS + 1);
        assert!(kept(&[axis("a", 1000), axis("b", 1000)]) <= (CHART_POINTS as f64 * 1.1) as usize);
        assert_eq!(chart_strides(&[axis("hw", 2), axis("x", 1_000_000)])[0], 1);
    }
}

//! Any sweep as a chart: the chosen results of a combined report against
//! its swept input, one series per item of the other axes (a `--hw` or
//! `--model` list, a second sweep), one panel per result. Built from the
//! report's `axes` and `rows` alone, so it works for every command whose
//! sweeps produce them.

use super::draw_error;
use super::style::{self, Scale};
use crate::error::{Error, Result};
use crate::report::ChartRows;
use crate::report::{Report, Row, Unit};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::prelude::*;
use serde_json::Value;

/// The results a command's chart shows when `--y` is not given, in order
/// of preference; the first the report has wins.
pub const DEFAULT_Y: &[(&str, &[&str])] = &[
    ("point", &["time_s", "attainable_flops_per_s"]),
    ("matmul", &["time_s"]),
    ("occupancy", &["occupancy"]),
    ("coalesce", &["efficiency"]),
    ("littles-law", &["bytes_in_flight"]),
    ("model show", &["weight_bytes"]),
    ("hw show", &["ridge_point_flop_per_byte"]),
    ("launch", &["launch_fraction", "launch_time_s"]),
    ("decode", &["tokens_per_s", "step_time_s"]),
    ("prefill", &["time_s"]),
    ("kv", &["kv_bytes"]),
    ("speculative", &["speedup"]),
    ("fusion softmax", &["fused_time_s"]),
    ("fusion chain", &["fused_time_s"]),
    ("fusion epilogue", &["fused_time_s"]),
];

/// One line: the rows sharing every axis but the swept one.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepSeries {
    /// Legend text (`h100-sxm`, `h100-sxm, dtype fp8`).
    pub label: String,
    /// (x, y) in base units; x is a category's index for a text axis.
    pub points: Vec<(f64, f64)>,
}

/// One result against the swept input.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPanel {
    /// The result's key.
    pub key: String,
    /// Its label.
    pub label: String,
    /// Its unit, scaled.
    pub scale: Scale,
    /// Logarithmic when every value is positive over two decades or more.
    pub log: bool,
    /// One per series.
    pub series: Vec<SweepSeries>,
}

/// Everything the sweep chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepData {
    /// The chart's title.
    pub title: String,
    /// The swept input's key.
    pub x_key: String,
    /// Its axis description.
    pub x_label: String,
    /// Its unit, scaled.
    pub x_scale: Scale,
    /// Logarithmic for a powers-of-two (or any geometric) sweep.
    pub x_log: bool,
    /// The values of a text axis (`dtype`), in order; empty for numbers.
    pub categories: Vec<String>,
    /// One per result drawn.
    pub panels: Vec<SweepPanel>,
}

/// Units of the inputs commands sweep, for the x axis (a report describes
/// its results, not always its inputs).
pub const INPUT_UNITS: &[(&str, Unit)] = &[
    ("intensity", Unit::FlopPerByte),
    ("flops", Unit::Flop),
    ("bytes", Unit::Bytes),
    ("smem", Unit::BytesIec),
    ("static_smem", Unit::BytesIec),
    ("carveout", Unit::BytesIec),
    ("clock", Unit::Hz),
    ("latency", Unit::Cycles),
    ("bandwidth", Unit::BytesPerSec),
];

/// What an input counts, for a unitless x axis.
pub const INPUT_COUNTS: &[(&str, &str)] = &[
    ("threads", "threads per block"),
    ("regs", "registers per thread"),
    ("tile", "tile edge (elements)"),
    ("tile_m", "tile rows (elements)"),
    ("tile_n", "tile columns (elements)"),
    ("tile_k", "tile depth (elements)"),
    ("m", "M (rows)"),
    ("n", "N (columns)"),
    ("k", "K (contraction)"),
    ("batch", "batch (sequences)"),
    ("stride", "stride (elements)"),
    ("rows", "rows"),
    ("cols", "columns"),
    ("kernels", "kernels per step"),
];

fn nothing(why: &str) -> Error {
    Error::field("chart", format!("nothing to draw: {why}"))
}

fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// A number from a JSON number or a plain numeric string.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Whether sorted positive values step by one constant ratio (a
/// powers-of-two sweep is the usual one).
fn geometric(xs: &[f64]) -> bool {
    let mut v: Vec<f64> = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v.dedup();
    if v.len() < 3 || v[0] <= 0.0 {
        return false;
    }
    let r = v[1] / v[0];
    r >= 1.5 && v.windows(2).all(|w| ((w[1] / w[0]) / r - 1.0).abs() < 1e-6)
}

static NULL: Value = Value::Null;

/// The points a chart draws: a report's rows, or, for a streamed sweep,
/// the numbers it kept ([`ChartRows`]).
enum Points<'a> {
    Rows(&'a [Row]),
    Kept(&'a ChartRows),
}

impl<'a> Points<'a> {
    fn of(report: &'a Report) -> Self {
        match &report.chart_rows {
            Some(k) if report.rows.is_empty() => Points::Kept(k),
            _ => Points::Rows(&report.rows),
        }
    }

    fn len(&self) -> usize {
        match self {
            Points::Rows(r) => r.len(),
            Points::Kept(k) => k.len(),
        }
    }

    /// Point `i`'s value of input `key`.
    fn input(&self, i: usize, key: &str) -> Option<&'a Value> {
        match self {
            Points::Rows(r) => r.get(i)?.inputs.get(key),
            Points::Kept(k) => k.input(i, key),
        }
    }

    /// Point `i`'s result `key`, where it is a number.
    fn result(&self, i: usize, key: &str) -> Option<f64> {
        match self {
            Points::Rows(r) => r
                .get(i)?
                .results
                .get(key)
                .filter(|v| v.is_number())
                .and_then(Value::as_f64),
            Points::Kept(k) => k.result(i, key),
        }
    }

    /// The result keys (the first row's).
    fn keys(&self) -> Vec<&'a str> {
        match self {
            Points::Rows(r) => r
                .first()
                .map(|row| row.results.keys().map(|k| k.as_ref()).collect())
                .unwrap_or_default(),
            Points::Kept(k) => k.keys.iter().map(|k| k.as_ref()).collect(),
        }
    }

    /// Whether `key` is a result at all (a number or not).
    fn has_key(&self, key: &str) -> bool {
        self.keys().contains(&key)
    }

    /// The unit point `i` states result `key` in.
    fn unit(&self, i: usize, key: &str, report: &Report) -> Unit {
        match self {
            Points::Rows(r) => r
                .get(i)
                .map_or_else(|| report.unit(key), |row| row.unit(key, report)),
            Points::Kept(k) => k.unit(i, key).unwrap_or_else(|| report.unit(key)),
        }
    }
}

impl SweepData {
    /// The chart of `report`'s rows: `keys` against the swept input (the
    /// innermost axis that is not `hardware` or `model`), or the command's
    /// usual results when `keys` is empty.
    pub fn from_report(report: &Report, keys: &[String]) -> Result<Self> {
        let pts = Points::of(report);
        if !report.rows_are_points() || pts.len() == 0 {
            return Err(nothing(
                "this answer is a single point; add --sweep NAME=VALUES to vary an input",
            ));
        }
        // The swept input drawn along x: the innermost numeric one, else
        // the innermost of any kind (a `dtype` list).
        let swept: Vec<&String> = report
            .axes
            .iter()
            .filter(|a| *a != "hardware" && *a != "model")
            .collect();
        let numeric_axis = |a: &&&String| {
            (0..pts.len()).all(|i| pts.input(i, a.as_str()).and_then(number).is_some())
        };
        let Some(x_key) = swept
            .iter()
            .rev()
            .find(numeric_axis)
            .or(swept.last())
            .map(|a| (*a).clone())
        else {
            return Err(nothing(
                "a comparison has no swept input to draw against; add --sweep NAME=VALUES",
            ));
        };
        // Series come from the other axes; an axis that moves in step with
        // the swept one (`tile` sets tile_m and tile_n together) is the
        // same axis and makes no series.
        let in_step = |a: &String| {
            let mut seen: Vec<(&Value, &Value)> = Vec::new();
            (0..pts.len()).all(|i| {
                let (x, v) = (
                    pts.input(i, x_key.as_str()).unwrap_or(&NULL),
                    pts.input(i, a.as_str()).unwrap_or(&NULL),
                );
                match seen.iter().find(|(sx, _)| *sx == x) {
                    Some((_, sv)) => *sv == v,
                    None => {
                        seen.push((x, v));
                        true
                    }
                }
            })
        };
        let others: Vec<&String> = report
            .axes
            .iter()
            .filter(|a| **a != x_key)
            .filter(|a| *a == "hardware" || *a == "model" || !in_step(a))
            .collect();

        // The x values: numbers where every row has one, else categories.
        let xs: Vec<&Value> = (0..pts.len())
            .map(|i| pts.input(i, x_key.as_str()).unwrap_or(&NULL))
            .collect();
        let numeric: Option<Vec<f64>> = xs.iter().map(|v| number(v)).collect();
        let mut categories = Vec::new();
        let xvals: Vec<f64> = match &numeric {
            Some(v) => v.clone(),
            None => xs
                .iter()
                .map(|v| {
                    let t = text(v);
                    let i = categories.iter().position(|c| *c == t).unwrap_or_else(|| {
                        categories.push(t);
                        categories.len() - 1
                    });
                    i as f64
                })
                .collect(),
        };
        let x_log = numeric.as_ref().is_some_and(|v| geometric(v));

        // The results to draw.
        let numeric_keys: Vec<&str> = pts
            .keys()
            .into_iter()
            .filter(|k| (0..pts.len()).any(|i| pts.result(i, k).is_some()))
            .collect();
        let keys: Vec<String> = if keys.is_empty() {
            let preferred = DEFAULT_Y
                .iter()
                .find(|(c, _)| *c == report.command)
                .and_then(|(_, ks)| ks.iter().find(|k| numeric_keys.contains(k)))
                .map(|k| k.to_string());
            // A result that changes along the swept input within a series
            // (not one that only differs between accelerators or models).
            let series_keys: Vec<Vec<String>> = (0..pts.len())
                .map(|i| {
                    others
                        .iter()
                        .map(|a| text(pts.input(i, a.as_str()).unwrap_or(&NULL)))
                        .collect()
                })
                .collect();
            let varies = |k: &str| {
                let mut first: std::collections::HashMap<&Vec<String>, Option<u64>> =
                    std::collections::HashMap::new();
                series_keys.iter().enumerate().any(|(i, sk)| {
                    let v = pts.result(i, k).map(f64::to_bits);
                    *first.entry(sk).or_insert(v) != v
                })
            };
            // Then the command's headline results, then anything that varies.
            let headline = numeric_keys
                .iter()
                .find(|k| report.headline.iter().any(|h| h == *k) && varies(k))
                .map(|k| k.to_string());
            let any = || {
                numeric_keys
                    .iter()
                    .find(|k| varies(k))
                    .map(|k| (*k).to_string())
            };
            match preferred.or(headline).or_else(any) {
                Some(k) => vec![k],
                None => return Err(nothing("no numeric result varies across the sweep")),
            }
        } else {
            for k in keys {
                if !pts.has_key(k.as_str()) {
                    let list = &numeric_keys;
                    return Err(Error::field(
                        "y",
                        format!(
                            "`{k}` is not a result of `{}`; its numeric results are: {}",
                            report.command,
                            list.join(", ")
                        ),
                    ));
                }
                if !numeric_keys.contains(&k.as_str()) {
                    return Err(Error::field(
                        "y",
                        format!("`{k}` is not a number, so it cannot be drawn"),
                    ));
                }
            }
            keys.to_vec()
        };

        // Series: one per combination of the other axes, in row order.
        let series_of = |i: usize| -> String {
            others
                .iter()
                .map(|a| {
                    let v = text(pts.input(i, a.as_str()).unwrap_or(&NULL));
                    if *a == "hardware" || *a == "model" {
                        v
                    } else {
                        format!("{} {v}", a.replace('_', " "))
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut names: Vec<String> = Vec::new();
        let row_series: Vec<usize> = (0..pts.len())
            .map(|i| {
                let s = series_of(i);
                names.iter().position(|n| *n == s).unwrap_or_else(|| {
                    names.push(s);
                    names.len() - 1
                })
            })
            .collect();
        let mut panels = Vec::new();
        for key in &keys {
            let mut series: Vec<SweepSeries> = names
                .iter()
                .map(|n| SweepSeries {
                    label: if n.is_empty() {
                        report.label(key)
                    } else {
                        n.clone()
                    },
                    points: Vec::new(),
                })
                .collect();
            for (i, x) in xvals.iter().enumerate() {
                let Some(y) = pts.result(i, key.as_str()) else {
                    continue;
                };
                if !y.is_finite() {
                    continue;
                }
                series[row_series[i]].points.push((*x, y));
            }
            for s in &mut series {
                s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            let ys: Vec<f64> = series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .collect();
            if ys.is_empty() {
                return Err(nothing(&format!("`{key}` has no value at any point")));
            }
            let (lo, hi) = ys.iter().fold((f64::INFINITY, 0f64), |(a, b), &y| {
                (a.min(y), b.max(y.abs()))
            });
            let unit = report.unit(key);
            let log = lo > 0.0 && hi / lo >= 100.0 && unit != Unit::Fraction;
            // A log axis reads best with its smallest value at 1 or more.
            let at = if log { lo } else { hi };
            let mut scale = Scale::for_unit(unit, at);
            // A sweep across precisions mixes FLOP/s rows with int8's OP/s
            // ones: the axis names both.
            let mut others: Vec<Unit> = Vec::new();
            for u in (0..pts.len()).map(|i| pts.unit(i, key, report)) {
                if u != unit && !others.contains(&u) {
                    others.push(u);
                }
            }
            for u in others {
                let o = Scale::for_unit(u, at);
                if o.divisor == scale.divisor {
                    scale.unit = format!("{} or {}", scale.unit, o.unit);
                }
            }
            panels.push(SweepPanel {
                key: key.clone(),
                label: report.label(key),
                scale,
                log,
                series,
            });
        }

        let described = report.quantities.get(x_key.as_str());
        // An int8 report counts operations: its intensity input is in OP/B.
        let integer = report.quantities.values().any(|q| q.unit == Unit::OpPerSec);
        let x_unit = described.map(|q| q.unit).unwrap_or_else(|| {
            INPUT_UNITS
                .iter()
                .find(|(k, _)| *k == x_key)
                .map_or(Unit::None, |(_, u)| u.ops_if(integer))
        });
        let x_max = xvals.iter().fold(0f64, |a, b| a.max(b.abs()));
        let x_min = xvals.iter().fold(f64::INFINITY, |a, b| a.min(b.abs()));
        let x_scale = if categories.is_empty() {
            Scale::for_unit(x_unit, if x_log { x_min.max(1e-300) } else { x_max })
        } else {
            Scale::for_unit(Unit::None, 1.0)
        };
        let twins: Vec<&String> = report
            .axes
            .iter()
            .filter(|a| **a != x_key && *a != "hardware" && *a != "model" && !others.contains(a))
            .collect();
        let square = twins.len() == 1
            && matches!(
                (x_key.as_str(), twins[0].as_str()),
                ("tile_m", "tile_n") | ("tile_n", "tile_m")
            );
        let x_label = match described {
            _ if square => "square tile edge (elements)".to_string(),
            Some(q) => q.label.clone(),
            None => INPUT_COUNTS
                .iter()
                .find(|(k, _)| *k == x_key)
                .map_or_else(|| x_key.replace('_', " "), |(_, l)| (*l).to_string()),
        };
        let ys: Vec<String> = panels.iter().map(|p| p.label.clone()).collect();
        let mut title = format!(
            "{}: {} against {}",
            report.command,
            ys.join(" and "),
            x_label
        );
        if let Some(h) = &report.hardware {
            title.push_str(&format!(" on {h}"));
        }
        let by: Vec<String> = others
            .iter()
            .map(|a| match a.as_str() {
                "hardware" => "accelerator".to_string(),
                a => a.replace('_', " "),
            })
            .collect();
        if !by.is_empty() {
            title.push_str(&format!(" by {}", by.join(" and ")));
        }
        if let Some(m) = &report.model {
            title.push_str(&format!(", {m}"));
        }
        Ok(SweepData {
            title,
            x_label: x_scale.describe(&x_label),
            x_key,
            x_scale,
            x_log,
            categories,
            panels,
        })
    }
}

/// Draws one panel per result, stacked.
pub fn sweep<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, data: &SweepData) -> Result<()> {
    let body = style::titled(area, &data.title, style::CAPTION_SIZE)?;
    let areas = body.split_evenly((data.panels.len().max(1), 1));
    for (p, a) in data.panels.iter().zip(&areas) {
        let xs = p
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|q| q.0 / data.x_scale.divisor));
        let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        let ys = p
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|q| q.1 / p.scale.divisor));
        let (mut y0, mut y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(y), b.max(y))
        });
        if !data.categories.is_empty() {
            (x0, x1) = (-0.5, data.categories.len() as f64 - 0.5);
        } else if data.x_log {
            (x0, x1) = (x0 / 1.3, x1 * 1.3);
        } else {
            let pad = ((x1 - x0) * 0.04).max(if x1 == 0.0 { 1.0 } else { x1.abs() * 0.04 });
            (x0, x1) = (x0 - pad, x1 + pad);
        }
        if p.log {
            (y0, y1) = (y0 / 1.5, y1 * 1.5);
        } else {
            let span = y1 - y0;
            let pad = if span > 0.0 {
                span * 0.08
            } else {
                y1.abs().max(1.0) * 0.1
            };
            // Anchor at zero when the values are not far from it.
            y0 = if y0 >= 0.0 && y0 < span * 2.0 {
                0.0
            } else {
                y0 - pad
            };
            y1 += pad;
        }
        let (x0, x1) = super::axis("chart", "x", x0, x1, data.x_log)?;
        let (y0, y1) = super::axis("chart", "y", y0, y1, p.log)?;
        match (data.x_log, p.log) {
            // One arm per pair of axis kinds: plotters types them apart.
            (true, true) => panel(
                builder(a)
                    .build_cartesian_2d((x0..x1).log_scale().base(2.0), (y0..y1).log_scale())
                    .map_err(draw_error)?,
                data,
                p,
            )?,
            (true, false) => panel(
                builder(a)
                    .build_cartesian_2d((x0..x1).log_scale().base(2.0), y0..y1)
                    .map_err(draw_error)?,
                data,
                p,
            )?,
            (false, true) => panel(
                builder(a)
                    .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
                    .map_err(draw_error)?,
                data,
                p,
            )?,
            (false, false) => panel(
                builder(a)
                    .build_cartesian_2d(x0..x1, y0..y1)
                    .map_err(draw_error)?,
                data,
                p,
            )?,
        }
    }
    Ok(())
}

fn builder<'a, 'b, DB: DrawingBackend>(a: &'a DrawingArea<DB, Shift>) -> ChartBuilder<'a, 'b, DB> {
    let mut b = ChartBuilder::on(a);
    b.margin(style::MARGIN)
        .x_label_area_size(style::X_LABEL_AREA)
        .y_label_area_size(style::Y_LABEL_AREA);
    b
}

fn panel<'a, DB, X, Y>(
    mut chart: ChartContext<'a, DB, Cartesian2d<X, Y>>,
    data: &SweepData,
    p: &SweepPanel,
) -> Result<()>
where
    DB: DrawingBackend + 'a,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let cats = &data.categories;
    let xfmt = |v: &f64| {
        if cats.is_empty() {
            style::tick(*v)
        } else if (v - v.round()).abs() < 1e-6 && *v >= 0.0 {
            cats.get(v.round() as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(&data.x_label)
        .y_desc(p.scale.describe(&p.label))
        .axis_desc_style(style::text(style::AXIS_SIZE))
        .label_style(style::text(style::TICK_SIZE))
        .x_label_formatter(&xfmt)
        .y_label_formatter(&|v| style::tick(*v))
        .light_line_style(style::GRID_LIGHT)
        .bold_line_style(style::GRID);
    if !cats.is_empty() {
        mesh.x_labels(cats.len() * 2 + 1);
    }
    if p.log {
        // Two or three decades get their 2s and 5s labelled too.
        mesh.y_labels(12);
    }
    mesh.draw().map_err(draw_error)?;
    let (xd, yd) = (data.x_scale.divisor, p.scale.divisor);
    let many = p.series.iter().map(|s| s.points.len()).max().unwrap_or(0) > 60;
    let curves: Vec<Vec<(f64, f64)>> = p.series.iter().map(|s| s.points.clone()).collect();
    for (i, s) in p.series.iter().enumerate() {
        let c = style::color(i);
        let line = c.stroke_width(style::width(&curves, i));
        let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (x / xd, y / yd)).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), line))
            .map_err(draw_error)?
            .label(style::legend(&s.label))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], line));
        if !many {
            chart
                .draw_series(
                    pts.iter()
                        .map(|&q| Circle::new(q, style::POINT_RADIUS, c.filled())),
                )
                .map_err(draw_error)?;
        }
    }
    // The legend goes in the corner the lines cross least: each segment
    // is sampled and the samples in each corner's box counted.
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let entries = p.series.len() as i32 + 1;
    let (bw, bh) = (
        (xr.end - xr.start) * 2 / 5,
        entries * (style::LEGEND_SIZE as i32 + 8) + 24,
    );
    let mid = (yr.start + yr.end - bh) / 2;
    let corners = [
        (SeriesLabelPosition::UpperRight, xr.end - bw, yr.start),
        (SeriesLabelPosition::LowerRight, xr.end - bw, yr.end - bh),
        (SeriesLabelPosition::UpperLeft, xr.start, yr.start),
        (SeriesLabelPosition::LowerLeft, xr.start, yr.end - bh),
        (SeriesLabelPosition::MiddleRight, xr.end - bw, mid),
        (SeriesLabelPosition::MiddleLeft, xr.start, mid),
    ];
    let mut samples: Vec<(i32, i32)> = Vec::new();
    for s in &p.series {
        let px: Vec<(i32, i32)> = s
            .points
            .iter()
            .map(|&(x, y)| chart.backend_coord(&(x / xd, y / yd)))
            .collect();
        for w in px.windows(2) {
            for t in 0..=16 {
                samples.push((
                    w[0].0 + (w[1].0 - w[0].0) * t / 16,
                    w[0].1 + (w[1].1 - w[0].1) * t / 16,
                ));
            }
        }
        samples.extend(px);
    }
    let crossing = |x: i32, y: i32| {
        samples
            .iter()
            .filter(|(sx, sy)| *sx >= x && *sx <= x + bw && *sy >= y && *sy <= y + bh)
            .count()
    };
    let pos = corners
        .iter()
        .min_by_key(|(_, x, y)| crossing(*x, *y))
        .map_or(SeriesLabelPosition::UpperRight, |c| c.0.clone());
    chart
        .configure_series_labels()
        .position(pos)
        .margin(10)
        .label_font(style::text(style::LEGEND_SIZE))
        .background_style(style::BACKGROUND.mix(0.92))
        .border_style(style::GRID)
        .draw()
        .map_err(draw_error)?;
    Ok(())
}

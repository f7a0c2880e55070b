//! The roofline chart (formulas.md, "Roofline point"; 002 §7.4): attainable
//! throughput against arithmetic intensity on log-log axes, one roof per
//! accelerator and precision, each ridge point marked with its intensity,
//! kernels as labelled intensities, and measured (achievable) roofs dashed
//! beside the datasheet ones.

use super::draw_error;
use super::layout::{Placer, around};
use super::style::{self, Scale};
use crate::calc::roof::Roof;
use crate::error::{Error, Result};
use crate::precision;
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, Dim};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One roof: an accelerator at a precision, datasheet or measured.
#[derive(Debug, Clone, PartialEq)]
pub struct RoofSeries {
    /// Hardware id.
    pub hardware: String,
    /// Precision name.
    pub dtype: String,
    /// Peak and bandwidth.
    pub roof: Roof,
    /// Measured (achievable) figures rather than the datasheet's.
    pub measured: bool,
    /// Palette index: one colour per accelerator.
    pub color: usize,
}

impl RoofSeries {
    /// The legend text: the accelerator, and whether measured.
    pub fn label(&self) -> String {
        if self.measured {
            format!("{} measured", self.hardware)
        } else {
            self.hardware.clone()
        }
    }
}

/// A kernel drawn at its arithmetic intensity.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelMark {
    /// What it is ("decode").
    pub label: String,
    /// FLOP per byte.
    pub intensity: f64,
}

impl KernelMark {
    /// Parses `LABEL:INTENSITY` (`decode:1`, `prefill 4K:4100`) or
    /// `LABEL:FLOPS/BYTES` with units (`matmul:137.4GFLOP/2.15GB`); the
    /// label may itself contain colons, the value is after the last one.
    pub fn parse(text: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::field(
                "point",
                format!(
                    "`{text}`: {why}; write LABEL:INTENSITY or LABEL:FLOPS/BYTES, e.g. \"decode:1\" or \"gemm:137.4GFLOP/2.15GB\""
                ),
            )
        };
        let (label, value) = text.rsplit_once(':').ok_or_else(|| bad("no `:`"))?;
        let label = label.trim();
        if label.is_empty() {
            return Err(bad("the label is empty"));
        }
        let value = value.trim();
        let intensity = match value.split_once('/') {
            // "FLOP/B" (or int8's "OP/B") after a bare intensity is a
            // unit, not a ratio.
            Some((v, unit)) if unit.trim() == "B" && v.trim().ends_with("OP") => {
                let v = crate::units::bare_intensity(value);
                v.parse::<f64>()
                    .map_err(|_| bad(&format!("`{v}` is not a number")))?
            }
            Some((flops, bytes)) => {
                let f = units::parse(flops.trim(), Dim::Flop)
                    .map_err(|e| bad(&format!("FLOPs `{}`: {e}", flops.trim())))?;
                let b = units::parse(bytes.trim(), Dim::Bytes)
                    .map_err(|e| bad(&format!("bytes `{}`: {e}", bytes.trim())))?;
                if b <= 0.0 {
                    return Err(bad("the bytes must be more than zero"));
                }
                f / b
            }
            None => value
                .parse::<f64>()
                .map_err(|_| bad(&format!("`{value}` is not a number")))?,
        };
        if !intensity.is_finite() || intensity <= 0.0 {
            return Err(bad(
                "the intensity must be a positive number (the axis is logarithmic)",
            ));
        }
        Ok(KernelMark {
            label: label.to_string(),
            intensity,
        })
    }

    /// The kernel a saved JSON report describes (`roofline point`,
    /// `matmul` or `fusion ... --format json`): its intensity result,
    /// labelled with the command and, where recorded, its shape.
    pub fn from_report(json: &serde_json::Value, whence: &str) -> Result<Self> {
        let results = json.get("results");
        let intensity = ["intensity_flop_per_byte", "intensity"]
            .iter()
            .find_map(|k| results.and_then(|r| r.get(*k)).and_then(serde_json::Value::as_f64))
            .filter(|i| i.is_finite() && *i > 0.0)
            .ok_or_else(|| {
                Error::field(
                    "from",
                    format!(
                        "{whence}: no positive `results.intensity_flop_per_byte` or `results.intensity`; give the JSON of one `point`, `matmul` or `fusion` answer"
                    ),
                )
            })?;
        let command = json
            .get("command")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("kernel");
        let input = |k: &str| {
            json.get("inputs")
                .and_then(|i| i.get(k))
                .and_then(serde_json::Value::as_f64)
        };
        let label = match (input("m"), input("n"), input("k")) {
            (Some(m), Some(n), Some(k)) => format!("{command} {m}x{n}x{k}"),
            _ => command.to_string(),
        };
        Ok(KernelMark { label, intensity })
    }
}

/// Everything the roofline chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct RooflineData {
    /// The chart's title.
    pub title: String,
    /// Roofs in drawing order.
    pub roofs: Vec<RoofSeries>,
    /// Kernels to mark.
    pub kernels: Vec<KernelMark>,
    /// What was left out and why (a precision a part lacks).
    pub notes: Vec<String>,
}

/// The most decades an axis of a roofline chart spans.
const MAX_DECADES: f64 = 18.0;

impl RooflineData {
    /// The roofs of `hardware` at each of `dtypes` (each part's default
    /// precision when empty), with measured roofs beside them when
    /// `achievable`. A precision one part lacks is left out with a note;
    /// one no part has, or no measured figures anywhere when asked for,
    /// is an error.
    pub fn build(
        hardware: &[Hardware],
        dtypes: &[String],
        kernels: Vec<KernelMark>,
        achievable: bool,
    ) -> Result<Self> {
        if hardware.is_empty() {
            return Err(Error::field(
                "hw",
                "no accelerators to draw; give one or more ids (see `roofline hw list`)",
            ));
        }
        for d in dtypes {
            precision::lookup(d)?;
        }
        let mut roofs = Vec::new();
        let mut notes = Vec::new();
        let mut first_missing = None;
        let mut any_measured = false;
        let mut color = 0;
        for hw in hardware {
            let wanted: Vec<Option<&str>> = if dtypes.is_empty() {
                vec![None]
            } else {
                dtypes.iter().map(|d| Some(d.as_str())).collect()
            };
            for d in wanted {
                let p = match hw.precision(d) {
                    Ok(p) => p,
                    Err(e) => {
                        notes.push(format!("{e}; left out"));
                        continue;
                    }
                };
                let roof = Roof::of(hw, p, Mode::SpeedOfLight)?;
                roofs.push(RoofSeries {
                    hardware: hw.id.clone(),
                    dtype: p.name.to_string(),
                    roof,
                    measured: false,
                    color,
                });
                if achievable {
                    match Roof::of(hw, p, Mode::Achievable) {
                        Ok(roof) => {
                            any_measured = true;
                            roofs.push(RoofSeries {
                                hardware: hw.id.clone(),
                                dtype: p.name.to_string(),
                                roof,
                                measured: true,
                                color,
                            });
                        }
                        Err(e) => {
                            notes.push(format!(
                                "{} has no measured {} roof (no `achievable` figures in its file); only its datasheet roof is drawn",
                                hw.id, p.name
                            ));
                            first_missing.get_or_insert(e);
                        }
                    }
                }
            }
            color += 1;
        }
        if roofs.is_empty() {
            let ids: Vec<&str> = hardware.iter().map(|h| h.id.as_str()).collect();
            return Err(Error::Unsupported(format!(
                "nothing to draw: {} {} no {} peak",
                ids.join(", "),
                if ids.len() == 1 { "has" } else { "have" },
                dtypes.join(" or ")
            )));
        }
        if achievable && !any_measured {
            return Err(first_missing.unwrap_or_else(|| {
                Error::Unsupported("nothing measured to draw for --achievable".into())
            }));
        }
        let ids: Vec<&str> = hardware.iter().map(|h| h.id.as_str()).collect();
        let mut precisions: Vec<&str> = Vec::new();
        for r in &roofs {
            if !precisions.contains(&r.dtype.as_str()) {
                precisions.push(&r.dtype);
            }
        }
        let figures = if achievable {
            "datasheet (solid) and measured (dashed)"
        } else {
            "datasheet"
        };
        let title = format!(
            "Roofline of {}: dense {}, {figures}",
            ids.join(", "),
            precisions.join(" and ")
        );
        let data = RooflineData {
            title,
            roofs,
            kernels,
            notes,
        };
        data.check_drawable()?;
        Ok(data)
    }

    /// Refuses axes a chart cannot draw (hundreds of decades, or ends that
    /// are not finite and positive), naming the point or roof that
    /// stretches them, before plotters sees them.
    pub fn check_drawable(&self) -> Result<()> {
        let ((x0, x1), (y0, y1)) = self.ranges();
        let span = |lo: f64, hi: f64| {
            (lo.is_normal() && hi.is_normal() && lo > 0.0 && hi > lo).then(|| (hi / lo).log10())
        };
        let fits = |lo, hi| span(lo, hi).is_some_and(|d| d.is_finite() && d <= MAX_DECADES);
        if fits(x0, x1) && fits(y0, y1) {
            return Ok(());
        }
        // The kernel furthest from an intensity of 1 is the likely cause.
        let worst = self.kernels.iter().max_by(|a, b| {
            a.intensity
                .log10()
                .abs()
                .total_cmp(&b.intensity.log10().abs())
        });
        match worst {
            Some(k) if !(1e-6..=1e9).contains(&k.intensity) => Err(Error::field(
                "point",
                format!(
                    "`{}` has an intensity of {:e} FLOP/B; a roofline chart draws at most {MAX_DECADES} decades, so a point's intensity must lie between 1e-6 and 1e9",
                    k.label, k.intensity
                ),
            )),
            _ => Err(Error::Unsupported(format!(
                "the roofs span more than {MAX_DECADES} decades (peaks or bandwidths far apart), which a chart cannot draw; chart fewer accelerators or check their figures"
            ))),
        }
    }

    /// The units of the throughput and intensity axes: TFLOP/s and FLOP/B,
    /// TOP/s and OP/B when every roof is an integer (int8) one, both when
    /// they mix.
    pub fn op_units(&self) -> (&'static str, &'static str) {
        let integer = self.roofs.iter().filter(|r| r.roof.integer).count();
        if integer == 0 {
            ("TFLOP/s", "FLOP/B")
        } else if integer == self.roofs.len() {
            ("TOP/s", "OP/B")
        } else {
            ("TFLOP/s or TOP/s", "FLOP/B or OP/B")
        }
    }

    /// The axis ranges: intensity (FLOP/B) and throughput (FLOP/s), whole
    /// decades with room for every ridge and kernel.
    pub fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let decade_down = |v: f64| 10f64.powf(v.log10().floor());
        let kmin = self.kernels.iter().map(|k| k.intensity).fold(1.0, f64::min);
        let kmax = self.kernels.iter().map(|k| k.intensity).fold(1.0, f64::max);
        let rmax = self
            .roofs
            .iter()
            .map(|r| r.roof.ridge())
            .fold(1.0, f64::max);
        let x0 = decade_down(kmin / 4.0).min(0.1);
        let x1 = (rmax * 8.0).max(kmax * 3.0);
        let bmin = self
            .roofs
            .iter()
            .map(|r| r.roof.bandwidth)
            .fold(f64::INFINITY, f64::min);
        let pmax = self.roofs.iter().map(|r| r.roof.peak).fold(0.0, f64::max);
        let y0 = bmin * x0 / 1.5;
        let y1 = pmax * 3.0;
        ((x0, x1), (y0, y1))
    }
}

/// Draws the roofline chart.
pub fn roofline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &RooflineData,
) -> Result<()> {
    let body = style::titled(area, &data.title, style::TITLE_SIZE)?;
    let ((x0, x1), (y0, y1)) = data.ranges();
    // Throughput in TFLOP/s, the unit datasheets quote; int8 roofs count
    // integer operations (TOP/s, OP/B), and a chart with both says so.
    let (rate, per_byte) = data.op_units();
    let scale = Scale {
        divisor: 1e12,
        unit: rate.into(),
    };
    let s = |v: f64| v / scale.divisor;
    // Each datasheet ceiling is named at its right end, in a column beside
    // the plot.
    let ceiling_name = |r: &RoofSeries| {
        let kind = if r.measured { " measured" } else { "" };
        format!("{} {}{kind}", r.hardware, r.dtype)
    };
    let ceiling_names: Vec<String> = data.roofs.iter().map(ceiling_name).collect();
    let name_style = style::text_in(style::NOTE_SIZE, style::INK);
    let column = ceiling_names
        .iter()
        .map(|n| {
            area.estimate_text_size(n, &name_style)
                .map_or(120, |(w, _)| w)
        })
        .max()
        .unwrap_or(0)
        + 30;
    let mut chart = ChartBuilder::on(&body)
        .margin(style::MARGIN)
        .margin_right(style::MARGIN + column)
        .x_label_area_size(style::X_LABEL_AREA)
        .y_label_area_size(style::Y_LABEL_AREA)
        .build_cartesian_2d((x0..x1).log_scale(), (s(y0)..s(y1)).log_scale())
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc(format!(
            "arithmetic intensity ({}); ridge points labelled with theirs",
            per_byte.replace("/B", "/byte")
        ))
        .y_desc(scale.describe("attainable throughput"))
        .axis_desc_style(style::text(style::AXIS_SIZE))
        .label_style(style::text(style::TICK_SIZE))
        .x_label_formatter(&|v| style::tick(*v))
        .y_label_formatter(&|v| style::tick(*v))
        .light_line_style(style::GRID_LIGHT)
        .bold_line_style(style::GRID)
        .draw()
        .map_err(draw_error)?;

    let polyline = |r: &RoofSeries| {
        vec![
            (x0, s(r.roof.attainable(x0))),
            (r.roof.ridge(), s(r.roof.peak)),
            (x1, s(r.roof.peak)),
        ]
    };
    // One legend entry per accelerator (and per measured accelerator).
    let mut in_legend: Vec<String> = Vec::new();
    for r in &data.roofs {
        let c = style::color(r.color);
        let line = c.stroke_width(style::LINE_WIDTH);
        let pts = polyline(r);
        let label = r.label();
        let first = !in_legend.contains(&label);
        if first {
            in_legend.push(label.clone());
        }
        if r.measured {
            let drawn = chart
                .draw_series(DashedLineSeries::new(
                    pts,
                    style::DASH.0,
                    style::DASH.1,
                    line,
                ))
                .map_err(draw_error)?;
            if first {
                drawn.label(style::legend(&label)).legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (8, 0)], line)
                        + PathElement::new(vec![(13, 0), (20, 0)], line)
                });
            }
        } else {
            let drawn = chart
                .draw_series(LineSeries::new(pts, line))
                .map_err(draw_error)?;
            if first {
                drawn
                    .label(style::legend(&label))
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], line));
            }
        }
    }

    // Kernels: a dotted vertical at the intensity, a ring where it meets
    // each datasheet roof.
    for k in &data.kernels {
        chart
            .draw_series(DashedLineSeries::new(
                vec![(k.intensity, s(y0)), (k.intensity, s(y1))],
                4,
                4,
                style::ANNOTATION.stroke_width(2),
            ))
            .map_err(draw_error)?;
        for r in data.roofs.iter().filter(|r| !r.measured) {
            let c = style::color(r.color);
            chart
                .draw_series(std::iter::once(Circle::new(
                    (k.intensity, s(r.roof.attainable(k.intensity))),
                    style::POINT_RADIUS,
                    c.stroke_width(2),
                )))
                .map_err(draw_error)?;
        }
    }
    // Ridge points: filled on datasheet roofs, rings on measured ones.
    for r in &data.roofs {
        let c = style::color(r.color);
        let marker = if r.measured {
            c.stroke_width(2)
        } else {
            c.filled()
        };
        chart
            .draw_series(std::iter::once(Circle::new(
                (r.roof.ridge(), s(r.roof.peak)),
                style::POINT_RADIUS,
                marker,
            )))
            .map_err(draw_error)?;
    }

    // Labels, placed so they overlap neither each other nor, where there
    // is room, the lines: kernels along the top, each ceiling's precision
    // at its right end, then the ridge points. The legend's corner stays
    // clear.
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let mut placer = Placer::new((xr.start, yr.start, xr.end, yr.end));
    let legend_w = in_legend
        .iter()
        .map(|l| {
            area.estimate_text_size(l, &style::text(style::LEGEND_SIZE))
                .map_or(200, |(w, _)| w as i32)
        })
        .max()
        .unwrap_or(0)
        + 60;
    let legend_h = in_legend.len() as i32 * (style::LEGEND_SIZE as i32 + 10) + 24;
    placer.block((xr.end - legend_w, yr.end - legend_h, xr.end, yr.end));
    for r in &data.roofs {
        let px: Vec<(i32, i32)> = polyline(r).iter().map(|p| chart.backend_coord(p)).collect();
        placer.block_line(&px, 3);
        let (x, y) = px[1];
        placer.block((x - 6, y - 6, x + 6, y + 6));
    }
    let note = style::text_in(style::NOTE_SIZE, style::INK);
    // (anchor in data coordinates, text, pixel offset, style)
    type Label<'a> = ((f64, f64), String, (i32, i32), TextStyle<'a>);
    let mut labels: Vec<Label> = Vec::new();
    for k in &data.kernels {
        let text = format!("{} ({} {per_byte})", k.label, style::tick(k.intensity));
        let size = area.estimate_text_size(&text, &note).map_err(draw_error)?;
        let at = (k.intensity, s(y1));
        let (w, h) = (size.0 as i32, size.1 as i32);
        let mut offsets = Vec::new();
        for step in 0..6 {
            offsets.push((6, 6 + step * (h + 6)));
            offsets.push((-w - 6, 6 + step * (h + 6)));
        }
        let o = placer.place(chart.backend_coord(&at), size, &offsets);
        labels.push((at, text, o, note.clone()));
    }
    for r in &data.roofs {
        let at = (r.roof.ridge(), s(r.roof.peak));
        let text = style::tick(r.roof.ridge());
        let st = style::text_in(style::NOTE_SIZE, style::color(r.color));
        let size = area.estimate_text_size(&text, &st).map_err(draw_error)?;
        let o = placer.place(chart.backend_coord(&at), size, &around(size, 9));
        labels.push((at, text, o, st));
    }
    // Ceiling names: in order of height, pushed apart where they would
    // overlap, each joined to its line by a short leader.
    let base = area.get_base_pixel();
    let mut names: Vec<(i32, String, RGBColor)> = data
        .roofs
        .iter()
        .map(|r| {
            let y = chart.backend_coord(&(x1, s(r.roof.peak))).1;
            (y, ceiling_name(r), style::color(r.color))
        })
        .collect();
    names.sort_by_key(|n| n.0);
    let h = area
        .estimate_text_size("Xg", &name_style)
        .map_or(14, |(_, h)| h as i32)
        + 5;
    let mut placed: Vec<i32> = Vec::with_capacity(names.len());
    for n in &names {
        let y = placed.last().map_or(n.0, |p| n.0.max(p + h));
        placed.push(y);
    }
    let overflow = placed.last().map_or(0, |y| (y + h / 2 - yr.end).max(0));
    if overflow > 0 {
        // Pushed past the bottom: move the last up and re-space upwards.
        if let Some(last) = placed.last_mut() {
            *last -= overflow;
        }
        for i in (0..placed.len().saturating_sub(1)).rev() {
            placed[i] = placed[i].min(placed[i + 1] - h);
        }
    }
    for ((y_line, text, c), y) in names.into_iter().zip(placed) {
        let x = xr.end;
        let leader = vec![
            (x + 3 - base.0, y_line - base.1),
            (x + 12 - base.0, y - base.1),
            (x + 16 - base.0, y - base.1),
        ];
        area.draw(&PathElement::new(leader, c.stroke_width(1)))
            .map_err(draw_error)?;
        area.draw(&Text::new(
            text,
            (x + 19 - base.0, y - base.1),
            style::text_in(style::NOTE_SIZE, c).pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Center,
            )),
        ))
        .map_err(draw_error)?;
    }
    for (at, text, o, st) in labels {
        chart
            .plotting_area()
            .draw(&(EmptyElement::at(at) + Text::new(text, o, st)))
            .map_err(draw_error)?;
    }

    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .margin(10)
        .label_font(style::text(style::LEGEND_SIZE))
        .background_style(style::BACKGROUND.mix(0.92))
        .border_style(style::GRID)
        .draw()
        .map_err(draw_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_marks_from_reports() {
        let j = serde_json::json!({
            "command": "matmul",
            "inputs": {"m": 4096, "n": 4096, "k": 4096},
            "results": {"intensity": 128.0}
        });
        let k = KernelMark::from_report(&j, "f.json").unwrap();
        assert_eq!(
            (k.label.as_str(), k.intensity),
            ("matmul 4096x4096x4096", 128.0)
        );
        let e = KernelMark::from_report(&serde_json::json!({"results": {}}), "f.json").unwrap_err();
        assert!(e.to_string().contains("f.json"), "{e}");
    }

    #[test]
    fn kernel_marks_parse() {
        let k = KernelMark::parse("prefill 4K:4100").unwrap();
        assert_eq!((k.label.as_str(), k.intensity), ("prefill 4K", 4100.0));
        assert_eq!(KernelMark::parse("a:b:2").unwrap().label, "a:b");
        let g = KernelMark::parse("gemm:137.4GFLOP/2.15GB").unwrap();
        assert!((g.intensity - 63.91).abs() < 0.01, "{}", g.intensity);
        assert_eq!(KernelMark::parse("x:300 FLOP/B").unwrap().intensity, 300.0);
        assert_eq!(KernelMark::parse("x:300 OP/B").unwrap().intensity, 300.0);
        for bad in [
            "decode",
            ":1",
            "x:0",
            "x:-1",
            "x:abc",
            "x:inf",
            "x:1GFLOP/0",
            "x:1GB/2GB",
        ] {
            let e = KernelMark::parse(bad).unwrap_err();
            assert_eq!(e.exit_code(), 65, "{bad}");
        }
    }
}

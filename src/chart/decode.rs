//! The serving trade-off chart (formulas.md, "Serving: decode step"): as
//! the batch grows, each accelerator's decode throughput per device against
//! the speed each user sees, one curve per accelerator, as MLPerf's
//! interactive benchmarks draw it. Every point is [`decode::cost`] at one
//! batch; memory-bound steps are circles, compute-bound ones triangles, and
//! a curve ends where the KV cache no longer fits.

use super::draw_error;
use super::layout::Placer;
use super::style;
use crate::calc::decode::{self, DecodeInputs};
use crate::calc::roof::Bound;
use crate::error::{Error, Result};
use crate::inputs::Count;
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One batch on one accelerator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodePoint {
    /// Sequences decoded together.
    pub batch: u64,
    /// Tokens per second each sequence sees.
    pub per_user: f64,
    /// Tokens per second of the device.
    pub per_device: f64,
    /// What binds the step.
    pub bound: Bound,
}

/// One accelerator's curve.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeSeries {
    /// Hardware id.
    pub hardware: String,
    /// Increasing batch.
    pub points: Vec<DecodePoint>,
    /// The largest batch whose KV fits beside the weights, where the curve
    /// was cut there.
    pub kv_limit: Option<u64>,
}

/// Everything the decode chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeData {
    /// The chart's title.
    pub title: String,
    /// One per accelerator that can hold the model.
    pub series: Vec<DecodeSeries>,
    /// What was left out and why.
    pub notes: Vec<String>,
}

impl DecodeData {
    /// Decode of `model` on each of `hardware` at batches 1, 2, 4, ... up
    /// to `max_batch` (and the largest that fits, where that is smaller).
    /// `inputs` gives the context, precisions and launch mode; its batch is
    /// replaced at each point. A part that cannot hold the weights is left
    /// out with a note; none that can is an error.
    pub fn build(
        model: &Model,
        hardware: &[Hardware],
        inputs: &DecodeInputs,
        max_batch: u64,
        mode: Mode,
    ) -> Result<Self> {
        if hardware.is_empty() {
            return Err(Error::field(
                "hw",
                "no accelerators to draw; give one or more ids",
            ));
        }
        crate::inputs::at_least_one("max-batch", max_batch)?;
        let mut series = Vec::new();
        let mut notes = Vec::new();
        let at = |hw: &Hardware, b: u64| {
            let mut i = inputs.clone();
            i.batch = Some(Count(b));
            decode::cost(model, hw, &i, mode)
        };
        let mut dtype = String::new();
        for hw in hardware {
            let mut points = Vec::new();
            let mut kv_limit = None;
            let mut b = 1u64;
            while b <= max_batch {
                let c = match at(hw, b) {
                    Ok(c) => c,
                    Err(Error::NoAnswer(why)) => {
                        notes.push(format!("{}: {why}; left out", hw.id));
                        break;
                    }
                    Err(e) => return Err(e),
                };
                dtype = c.setup.weights.to_string();
                if let Some(m) = &c.memory
                    && !m.fits
                {
                    // End the curve at the largest batch that fits.
                    kv_limit = Some(m.max_batch);
                    if m.max_batch >= 1
                        && points
                            .last()
                            .is_none_or(|p: &DecodePoint| p.batch < m.max_batch)
                        && let Ok(c) = at(hw, m.max_batch)
                    {
                        points.push(point(&c));
                    }
                    if points.is_empty() {
                        notes.push(format!(
                            "{}: {} does not fit at batch {} (its weights and KV cache exceed the memory); left out",
                            hw.id,
                            model.id,
                            units::whole(b)
                        ));
                    }
                    break;
                }
                points.push(point(&c));
                b = match b.checked_mul(2) {
                    Some(n) => n,
                    None => break,
                };
            }
            if !points.is_empty() {
                series.push(DecodeSeries {
                    hardware: hw.id.clone(),
                    points,
                    kv_limit,
                });
            }
        }
        if series.is_empty() {
            let why = if notes.is_empty() {
                "no accelerator gave a decode point".to_string()
            } else {
                notes.join("; ")
            };
            return Err(Error::Unsupported(format!("nothing to draw: {why}")));
        }
        let title = format!(
            "Decode of {} ({dtype} weights, context {}): throughput per device against speed per user as the batch grows",
            model.id,
            units::number(inputs.context.0 as f64)
        );
        Ok(DecodeData {
            title,
            series,
            notes,
        })
    }
}

fn point(c: &decode::DecodeCost) -> DecodePoint {
    DecodePoint {
        batch: c.batch,
        per_user: c.tokens_per_s_per_user(),
        per_device: c.tokens_per_s(),
        bound: c.timed.roof.bound,
    }
}

/// Draws the curves.
pub fn decode<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, data: &DecodeData) -> Result<()> {
    let body = style::titled(area, &data.title, style::CAPTION_SIZE)?;
    let all = data.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, 0f64, f64::INFINITY, 0f64);
    for p in all {
        x0 = x0.min(p.per_user);
        x1 = x1.max(p.per_user);
        y0 = y0.min(p.per_device);
        y1 = y1.max(p.per_device);
    }
    // Whole decades at the low ends, so the first tick is labelled.
    let decade = |v: f64| 10f64.powf(v.log10().floor());
    let (x0, x1, y0, y1) = (decade(x0 / 1.3), x1 * 1.6, decade(y0 / 1.3), y1 * 2.0);
    let (x0, x1) = super::axis("chart", "x", x0, x1, true)?;
    let (y0, y1) = super::axis("chart", "y", y0, y1, true)?;
    let mut chart = ChartBuilder::on(&body)
        .margin(style::MARGIN)
        .x_label_area_size(style::X_LABEL_AREA)
        .y_label_area_size(style::Y_LABEL_AREA)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc("speed per user (tokens/s per sequence)")
        .y_desc("throughput per device (tokens/s)")
        .axis_desc_style(style::text(style::AXIS_SIZE))
        .label_style(style::text(style::TICK_SIZE))
        .x_label_formatter(&|v| style::log_tick(*v))
        .y_label_formatter(&|v| style::log_tick(*v))
        .x_labels(12)
        .y_labels(12)
        .light_line_style(style::GRID_LIGHT)
        .bold_line_style(style::GRID)
        .draw()
        .map_err(draw_error)?;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let mut placer = Placer::new((xr.start, yr.start, xr.end, yr.end));
    let curves: Vec<Vec<(f64, f64)>> = data
        .series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .map(|p| (p.per_user, p.per_device))
                .collect()
        })
        .collect();
    for (i, s) in data.series.iter().enumerate() {
        let c = style::color(i);
        let line = c.stroke_width(style::width(&curves, i));
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (p.per_user, p.per_device))
            .collect();
        let px: Vec<(i32, i32)> = pts.iter().map(|p| chart.backend_coord(p)).collect();
        placer.block_line(&px, 4);
        let label = match s.kv_limit {
            Some(b) => format!(
                "{} (KV full beyond batch {})",
                s.hardware,
                units::number(b as f64)
            ),
            None => s.hardware.clone(),
        };
        chart
            .draw_series(LineSeries::new(pts, line))
            .map_err(draw_error)?
            .label(style::legend(&label))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], line));
        for p in &s.points {
            let at = (p.per_user, p.per_device);
            match p.bound {
                Bound::Memory => chart
                    .draw_series(std::iter::once(Circle::new(
                        at,
                        style::POINT_RADIUS,
                        c.filled(),
                    )))
                    .map_err(draw_error)?,
                Bound::Compute => chart
                    .draw_series(std::iter::once(TriangleMarker::new(
                        at,
                        style::POINT_RADIUS + 2,
                        c.filled(),
                    )))
                    .map_err(draw_error)?,
            };
        }
    }
    // The marker key.
    let ink = style::INK;
    chart
        .draw_series(std::iter::empty::<Circle<(f64, f64), u32>>())
        .map_err(draw_error)?
        .label(style::legend("memory-bound step"))
        .legend(move |(x, y)| Circle::new((x + 10, y), style::POINT_RADIUS, ink.filled()));
    chart
        .draw_series(std::iter::empty::<Circle<(f64, f64), u32>>())
        .map_err(draw_error)?
        .label(style::legend("compute-bound step"))
        .legend(move |(x, y)| {
            TriangleMarker::new((x + 10, y), style::POINT_RADIUS + 2, ink.filled())
        });
    // Batch sizes beside every other point, where there is room.
    let st = style::text_in(style::NOTE_SIZE, style::ANNOTATION);
    for s in &data.series {
        for p in &s.points {
            let last = s.points.last().is_some_and(|l| l.batch == p.batch);
            if !(p.batch.trailing_zeros().is_multiple_of(2) || last) {
                continue;
            }
            let text = format!("b={}", p.batch);
            let size = area.estimate_text_size(&text, &st).map_err(draw_error)?;
            let at = (p.per_user, p.per_device);
            let (w, h) = (size.0 as i32, size.1 as i32);
            let offsets = [(6, 4), (6, -h - 4), (-w - 6, 4), (-w - 6, -h - 4)];
            if let Some(o) = placer.try_place(chart.backend_coord(&at), size, &offsets) {
                chart
                    .plotting_area()
                    .draw(&(EmptyElement::at(at) + Text::new(text, o, st.clone())))
                    .map_err(draw_error)?;
            }
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .margin(10)
        .label_font(style::text(style::LEGEND_SIZE))
        .background_style(style::BACKGROUND.mix(0.92))
        .border_style(style::GRID)
        .draw()
        .map_err(draw_error)?;
    Ok(())
}

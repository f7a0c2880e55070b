//! The occupancy chart: the three graphs of NVIDIA's occupancy calculator
//! (formulas.md, "Occupancy"; 002 §7.5): occupancy against registers per
//! thread, against threads per block and against shared memory per block,
//! each varying one input of the given kernel and marking the kernel
//! itself. Every point is [`occupancy::cost`] with NVIDIA's allocation
//! rules.

use super::draw_error;
use super::layout::{Placer, around};
use super::style::{self, Scale};
use crate::calc::occupancy::{self, OccupancyInputs};
use crate::error::{Error, Result};
use crate::inputs::{Bytes, Count};
use crate::report::Unit;
use crate::spec::hardware::{Hardware, Mode};
use crate::units;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeSet;

/// One graph: occupancy as one input varies.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// What varies, for the caption and the axis.
    pub varies: String,
    /// The x axis's unit scale (shared memory in KiB).
    pub scale: Scale,
    /// (input, occupancy 0..1) pairs, increasing input.
    pub points: Vec<(f64, f64)>,
    /// The kernel's own input value.
    pub current: f64,
}

/// Everything the occupancy chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct OccupancyData {
    /// The chart's title.
    pub title: String,
    /// The kernel's occupancy (0..1).
    pub occupancy: f64,
    /// Registers, block size, shared memory.
    pub panels: Vec<Panel>,
}

impl OccupancyData {
    /// Occupancy of the kernel `inputs` describes on `hw` (threads and
    /// registers default to 256 and 32 here), and its three graphs: each
    /// point is [`occupancy::cost`] with one input changed.
    pub fn build(hw: &Hardware, inputs: &OccupancyInputs) -> Result<Self> {
        let mut kernel = inputs.clone();
        kernel.threads.get_or_insert(Count(256));
        kernel.regs.get_or_insert(Count(32));
        let now = occupancy::cost(hw, &kernel, Mode::SpeedOfLight)?;
        let b = &now.budget;
        let (threads, regs, smem) = (now.threads, now.regs, now.smem);
        // The kernel's own values are marked on axes that end at the
        // hardware's limits: one beyond them cannot be drawn (nor launched).
        if regs > b.max_regs_per_thread {
            return Err(Error::field(
                "regs",
                format!(
                    "{} registers per thread is more than {}'s {}; the chart's axis ends there",
                    units::whole(regs),
                    hw.id,
                    units::whole(b.max_regs_per_thread)
                ),
            ));
        }
        if smem > b.smem_optin {
            return Err(Error::field(
                "smem",
                format!(
                    "{} of shared memory per block is more than {}'s {} per block; the chart's axis ends there",
                    units::iec_bytes(smem as f64),
                    hw.id,
                    units::iec_bytes(b.smem_optin as f64)
                ),
            ));
        }
        // A point that cannot launch is zero occupancy.
        let at = |k: OccupancyInputs| {
            occupancy::cost(hw, &k, Mode::SpeedOfLight).map_or(0.0, |c| c.occupancy)
        };
        let by_regs: Vec<(f64, f64)> = (1..=b.max_regs_per_thread)
            .map(|r| {
                let mut k = kernel.clone();
                k.regs = Some(Count(r));
                (r as f64, at(k))
            })
            .collect();
        let by_threads: Vec<(f64, f64)> = (1..=b.max_threads_per_block / b.warp_size)
            .map(|w| w * b.warp_size)
            .chain(std::iter::once(threads))
            .collect::<BTreeSet<u64>>()
            .into_iter()
            .map(|t| {
                let mut k = kernel.clone();
                k.threads = Some(Count(t));
                (t as f64, at(k))
            })
            .collect();
        // Shared memory in steps of the allocation unit (or a thousandth of
        // the range), the kernel's own amount included.
        let step = b.smem_unit.max(b.smem_optin / 1000).max(1);
        let by_smem: Vec<(f64, f64)> = (0..=b.smem_optin / step)
            .map(|i| i * step)
            .chain(std::iter::once(smem).filter(|s| *s <= b.smem_optin))
            .collect::<BTreeSet<u64>>()
            .into_iter()
            .map(|s| {
                let mut k = kernel.clone();
                k.smem = Some(Bytes(s as f64));
                (s as f64, at(k))
            })
            .collect();
        let kib = Scale::for_unit(Unit::BytesIec, 1024.0);
        let limiter = now
            .limiters
            .iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join(" and ");
        let title = format!(
            "Occupancy on {}: {threads} threads, {regs} registers, {} shared memory per block = {} ({})",
            hw.id,
            units::iec_bytes(smem as f64),
            Unit::Fraction.format(now.occupancy),
            if now.failure.is_some() || limiter.is_empty() {
                "cannot launch".to_string()
            } else {
                format!("{limiter}-limited")
            }
        );
        Ok(OccupancyData {
            title,
            occupancy: now.occupancy,
            panels: vec![
                Panel {
                    varies: "registers per thread".into(),
                    scale: Scale::for_unit(Unit::Count, 1.0),
                    points: by_regs,
                    current: regs as f64,
                },
                Panel {
                    varies: "threads per block".into(),
                    scale: Scale::for_unit(Unit::Count, 1.0),
                    points: by_threads,
                    current: threads as f64,
                },
                Panel {
                    varies: "shared memory per block".into(),
                    scale: kib,
                    points: by_smem,
                    current: smem as f64,
                },
            ],
        })
    }
}

/// Draws the three graphs, stacked.
pub fn occupancy<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &OccupancyData,
) -> Result<()> {
    let body = style::titled(area, &data.title, style::CAPTION_SIZE)?;
    let panels = body.split_evenly((data.panels.len().max(1), 1));
    for (p, a) in data.panels.iter().zip(&panels) {
        panel(a, p, data.occupancy)?;
    }
    Ok(())
}

fn panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Panel, occ: f64) -> Result<()> {
    let d = p.scale.divisor;
    let x1 = p.points.last().map_or(1.0, |(x, _)| *x) / d;
    let x0 = p.points.first().map_or(0.0, |(x, _)| *x) / d;
    let mut chart = ChartBuilder::on(area)
        .margin(style::MARGIN)
        .caption(
            format!("Occupancy against {}", p.varies),
            style::text(style::AXIS_SIZE),
        )
        .x_label_area_size(style::X_LABEL_AREA)
        .y_label_area_size(style::Y_LABEL_AREA)
        .build_cartesian_2d(x0..x1, 0.0..105.0)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc(p.scale.describe(&p.varies))
        .y_desc("occupancy (% of warp slots)")
        .axis_desc_style(style::text(style::AXIS_SIZE))
        .label_style(style::text(style::TICK_SIZE))
        .x_label_formatter(&|v| style::tick(*v))
        .y_label_formatter(&|v| style::tick(*v))
        .light_line_style(style::GRID_LIGHT)
        .bold_line_style(style::GRID)
        .draw()
        .map_err(draw_error)?;
    // A step line: occupancy holds until the next point.
    // Only the changes are drawn (a flat run is one segment).
    let mut steps: Vec<(f64, f64)> = Vec::new();
    for (i, &(x, y)) in p.points.iter().enumerate() {
        let y = y * 100.0;
        let last = i + 1 == p.points.len();
        match steps.last() {
            Some(&(_, prev)) if prev == y && !last => {}
            Some(&(_, prev)) => {
                steps.push((x / d, prev));
                if prev != y {
                    steps.push((x / d, y));
                }
            }
            None => steps.push((x / d, y)),
        }
    }
    let step_pixels: Vec<(i32, i32)> = steps.iter().map(|p| chart.backend_coord(p)).collect();
    chart
        .draw_series(LineSeries::new(
            steps,
            style::color(0).stroke_width(style::LINE_WIDTH),
        ))
        .map_err(draw_error)?;
    let at = (p.current / d, occ * 100.0);
    chart
        .draw_series(std::iter::once(Circle::new(
            at,
            style::POINT_RADIUS + 2,
            style::HIGHLIGHT.filled(),
        )))
        .map_err(draw_error)?;
    let label = format!(
        "this kernel: {} {} -> {}",
        style::tick(p.current / d),
        if p.scale.unit.is_empty() {
            p.varies.split(' ').next().unwrap_or("").to_string()
        } else {
            p.scale.unit.clone()
        },
        Unit::Fraction.format(occ)
    );
    let st = style::text_in(style::NOTE_SIZE, style::HIGHLIGHT);
    let size = area.estimate_text_size(&label, &st).map_err(draw_error)?;
    // Beside the marker, clear of the curve where there is room.
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let mut placer = Placer::new((xr.start, yr.start, xr.end, yr.end));
    placer.block_line(&step_pixels, 4);
    let (dx, dy) = placer.place(chart.backend_coord(&at), size, &around(size, 12));
    chart
        .plotting_area()
        .draw(&(EmptyElement::at(at) + Text::new(label, (dx, dy), st)))
        .map_err(draw_error)?;
    Ok(())
}

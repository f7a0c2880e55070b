//! The occupancy chart: the three graphs of NVIDIA's occupancy calculator
//! (formulas.md, "Occupancy"; 002 §7.5): occupancy against registers per
//! thread, against threads per block and against shared memory per block,
//! each varying one input of the given kernel and marking the kernel
//! itself. Every point is [`occupancy::limits`] with NVIDIA's allocation
//! rules.

use super::draw_error;
use super::layout::{Placer, around};
use super::style::{self, Scale};
use crate::calc::occupancy::{self, Kernel, Limits};
use crate::error::{Error, Result};
use crate::inputs::{Bytes, Count};
use crate::report::Unit;
use crate::spec::hardware::Hardware;
use crate::units;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Deserialize;

/// The kernel the chart is about (defaults: 256 threads, 32 registers, no
/// shared memory).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OccupancyChartInputs {
    /// Threads per block.
    pub threads: Option<Count>,
    /// Registers per thread.
    pub regs: Option<Count>,
    /// Dynamic shared memory per block.
    pub smem: Option<Bytes>,
}

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

fn fraction(l: &Limits) -> f64 {
    if l.max_warps == 0 {
        return 0.0;
    }
    (l.blocks_per_sm() * l.warps_per_block) as f64 / l.max_warps as f64
}

impl OccupancyData {
    /// Occupancy of `inputs` on `hw`, and its three graphs.
    pub fn build(hw: &Hardware, inputs: &OccupancyChartInputs) -> Result<Self> {
        let ex = hw.execution()?;
        let threads = inputs.threads.map_or(256, |c| c.0);
        let regs = inputs.regs.map_or(32, |c| c.0);
        let smem_f = inputs.smem.map_or(0.0, |b| b.0);
        if smem_f < 0.0 || smem_f.fract() != 0.0 || smem_f > 1e15 {
            return Err(Error::field(
                "smem",
                "expected a whole number of bytes, zero or more",
            ));
        }
        let smem = smem_f as u64;
        let kernel = |threads: u64, regs: u64, smem: u64| Kernel {
            threads,
            regs,
            smem,
            ..Default::default()
        };
        let now = occupancy::limits(hw, &kernel(threads, regs, smem))?;
        if let Some(f) = &now.failure
            && f.out_of_range
        {
            return Err(Error::field(f.flag.trim_start_matches('-'), &f.message));
        }
        let occ = fraction(&now);
        let warp = u64::from(ex.warp_size.get());
        let max_regs = ex
            .max_registers_per_thread
            .map_or(255, |v| u64::from(v.get()));
        let max_threads = ex
            .max_threads_per_block
            .map_or(1024, |v| u64::from(v.get()));
        let optin = ex
            .smem_per_block_optin
            .or(ex.smem_per_block)
            .map_or(48.0 * 1024.0, |b| b.get()) as u64;
        let unit = ex.smem_allocation_unit.map_or(128.0, |b| b.get()).max(1.0) as u64;
        let step = unit.max(optin / 1000);
        let curve = |xs: &mut dyn Iterator<Item = u64>, k: &dyn Fn(u64) -> Kernel| {
            xs.map(|x| occupancy::limits(hw, &k(x)).map(|l| (x as f64, fraction(&l))))
                .collect::<Result<Vec<_>>>()
        };
        let by_regs = curve(&mut (1..=max_regs), &|r| kernel(threads, r, smem))?;
        let by_threads = curve(&mut (1..=max_threads / warp).map(|w| w * warp), &|t| {
            kernel(t, regs, smem)
        })?;
        // The kernel's own shared memory is a point of its curve even where
        // it falls between steps.
        let by_smem = curve(
            &mut (0..=optin / step)
                .map(|i| i * step)
                .filter(|s| *s != smem)
                .chain(std::iter::once(smem).filter(|s| *s <= optin))
                .collect::<std::collections::BTreeSet<u64>>()
                .into_iter(),
            &|s| kernel(threads, regs, s),
        )?;
        let kib = Scale::for_unit(Unit::BytesIec, 1024.0);
        let limiter = now.limiters().join(" and ");
        let title = format!(
            "Occupancy on {}: {threads} threads, {regs} registers, {} shared memory per block = {} ({})",
            hw.id,
            units::iec_bytes(smem as f64),
            Unit::Fraction.format(occ),
            if limiter.is_empty() {
                "cannot launch".to_string()
            } else {
                format!("{limiter}-limited")
            }
        );
        Ok(OccupancyData {
            title,
            occupancy: occ,
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
                    scale: Scale {
                        divisor: kib.divisor,
                        unit: kib.unit,
                    },
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

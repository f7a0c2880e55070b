//! The tile chart (formulas.md, "Matmul traffic" and "Tile feasibility";
//! 002 §7.8): a tiled matmul's HBM traffic and time against the square
//! tile edge, with what no tile can beat (each operand read once; the
//! compute floor) and the tiles the hardware cannot hold (shared memory per
//! block with its pipeline stages; the fp32 accumulator in the register
//! file) shaded.

use super::draw_error;
use super::style::{self, Scale};
use crate::calc::matmul::{self, MatmulInputs, Tiles};
use crate::error::Result;
use crate::report::Unit;
use crate::spec::hardware::{Hardware, Mode};
use crate::units;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One square tile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TilePoint {
    /// Tile edge (BLOCK_M = BLOCK_N).
    pub tile: u64,
    /// Tiled operand reads from HBM, bytes.
    pub bytes: f64,
    /// Bytes / bandwidth.
    pub memory_s: f64,
    /// max(compute floor, memory time).
    pub time_s: f64,
}

/// Everything the tile chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct TilesData {
    /// The chart's title.
    pub title: String,
    /// Tiles from 16 up, powers of two.
    pub points: Vec<TilePoint>,
    /// Zero-reuse bytes, 2·b·M·N·K.
    pub naive_bytes: f64,
    /// Each operand read once and C written once.
    pub minimal_bytes: f64,
    /// FLOPs / peak.
    pub compute_s: f64,
    /// Largest tile edge whose A and B stages fit the per-block shared
    /// memory, and that limit in bytes.
    pub smem_limit: Option<(f64, f64)>,
    /// Tile edge at which the fp32 accumulator fills the register file, and
    /// the register file in bytes.
    pub register_limit: Option<(f64, f64)>,
}

impl TilesData {
    /// The chart's data for the matmul `inputs` on `hw`: [`matmul::cost`]
    /// with its tile table set to the powers of two from 16 up to the
    /// larger matrix edge (1,024 at most).
    pub fn build(hw: &Hardware, inputs: &MatmulInputs, mode: Mode) -> Result<Self> {
        let edge = inputs
            .m
            .0
            .max(inputs.n.0)
            .checked_next_power_of_two()
            .unwrap_or(1024)
            .clamp(16, 1024);
        let tiles: Vec<u64> = std::iter::successors(Some(16u64), |t| Some(t * 2))
            .take_while(|t| *t <= edge)
            .collect();
        let mut inputs = inputs.clone();
        inputs.tiles = Some(Tiles(tiles));
        let c = matmul::cost(hw, &inputs, mode)?;
        let points = c
            .table
            .iter()
            .map(|(t, tc)| TilePoint {
                tile: *t,
                bytes: tc.tiled_bytes,
                memory_s: tc.time.memory_s,
                time_s: tc.time.time_s,
            })
            .collect();
        // The largest square tile whose A and B stages fit the per-block
        // shared memory, (2·T·BK)·b·stages <= limit, and the edge at which
        // the fp32 accumulator T²·4 fills the register file.
        let smem_limit = c.limits.smem_limit.map(|l| {
            (
                l / (2.0 * c.tile_k as f64 * c.bytes_per_element * c.stages as f64),
                l,
            )
        });
        let register_limit = c
            .limits
            .register_file
            .map(|rf| ((rf / matmul::ACCUMULATOR_BYTES).sqrt(), rf));
        let title = format!(
            "Tiled {}x{}x{} {} matmul on {}{}: HBM traffic and time against the square tile",
            c.m,
            c.n,
            c.k,
            c.dtype,
            c.hardware,
            if mode == Mode::Achievable {
                " (measured)"
            } else {
                ""
            }
        );
        Ok(TilesData {
            title,
            points,
            naive_bytes: c.naive_bytes,
            minimal_bytes: c.minimal_bytes,
            compute_s: c.compute_time_s,
            smem_limit,
            register_limit,
        })
    }
}

/// Draws traffic over time, sharing the tile axis.
pub fn tiles<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, data: &TilesData) -> Result<()> {
    let body = style::titled(area, &data.title, style::CAPTION_SIZE)?;
    let panels = body.split_evenly((2, 1));
    let bytes_max = data.naive_bytes;
    let bscale = Scale::for_unit(Unit::Bytes, data.minimal_bytes.max(1.0) * 10.0);
    let tmax = data
        .points
        .iter()
        .map(|p| p.time_s)
        .fold(data.compute_s, f64::max);
    let tscale = Scale::for_unit(Unit::Seconds, tmax);
    let bytes_series = vec![
        Series {
            label: "tiled operand reads".into(),
            points: data
                .points
                .iter()
                .map(|p| (p.tile as f64, p.bytes))
                .collect(),
            color: 0,
            dashed: false,
        },
        Series {
            label: format!("no reuse: {}", units::si(data.naive_bytes, "B")),
            points: flat(data, data.naive_bytes),
            color: 7,
            dashed: true,
        },
        Series {
            label: format!("each operand once: {}", units::si(data.minimal_bytes, "B")),
            points: flat(data, data.minimal_bytes),
            color: 2,
            dashed: true,
        },
    ];
    panel(
        &panels[0],
        data,
        &Panel {
            series: bytes_series,
            scale: bscale,
            what: "HBM traffic",
            range: (data.minimal_bytes / 3.0, bytes_max * 2.0),
            legend: SeriesLabelPosition::MiddleRight,
            name_limits: false,
        },
    )?;
    let time_series = vec![
        Series {
            label: "time = max(compute, memory)".into(),
            points: data
                .points
                .iter()
                .map(|p| (p.tile as f64, p.time_s))
                .collect(),
            color: 0,
            dashed: false,
        },
        Series {
            label: "memory time".into(),
            points: data
                .points
                .iter()
                .map(|p| (p.tile as f64, p.memory_s))
                .collect(),
            color: 1,
            dashed: true,
        },
        Series {
            label: format!("compute floor: {}", units::seconds(data.compute_s)),
            points: flat(data, data.compute_s),
            color: 2,
            dashed: true,
        },
    ];
    let tmin = data
        .points
        .iter()
        .map(|p| p.memory_s)
        .fold(data.compute_s, f64::min);
    panel(
        &panels[1],
        data,
        &Panel {
            series: time_series,
            scale: tscale,
            what: "time",
            range: (tmin / 2.0, tmax * 2.0),
            legend: SeriesLabelPosition::UpperRight,
            name_limits: true,
        },
    )?;
    Ok(())
}

struct Series {
    label: String,
    points: Vec<(f64, f64)>,
    color: usize,
    dashed: bool,
}

fn flat(data: &TilesData, v: f64) -> Vec<(f64, f64)> {
    let (a, b) = x_range(data);
    vec![(a, v), (b, v)]
}

fn x_range(data: &TilesData) -> (f64, f64) {
    let first = data.points.first().map_or(16.0, |p| p.tile as f64);
    let last = data.points.last().map_or(1024.0, |p| p.tile as f64);
    (first / 1.25, last * 1.25)
}

/// One panel: its lines, y axis and legend.
struct Panel {
    series: Vec<Series>,
    scale: Scale,
    what: &'static str,
    range: (f64, f64),
    legend: SeriesLabelPosition,
    /// Whether the feasibility limits are named in this panel's legend.
    name_limits: bool,
}

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &TilesData,
    p: &Panel,
) -> Result<()> {
    let Panel {
        series,
        scale,
        what,
        range: (lo, hi),
        legend,
        name_limits,
    } = p;
    let (lo, hi, legend, name_limits) = (*lo, *hi, legend.clone(), *name_limits);
    let (x0, x1) = x_range(data);
    let (x0, x1) = super::axis("chart", "x", x0, x1, true)?;
    let d = scale.divisor;
    super::axis("chart", "y", lo / d, hi / d, true)?;
    let mut chart = ChartBuilder::on(area)
        .margin(style::MARGIN)
        .x_label_area_size(style::X_LABEL_AREA)
        .y_label_area_size(style::Y_LABEL_AREA)
        .build_cartesian_2d(
            (x0..x1).log_scale().base(2.0),
            ((lo / d)..(hi / d)).log_scale(),
        )
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc("square tile edge, BLOCK_M = BLOCK_N (elements)")
        .y_desc(scale.describe(what))
        .axis_desc_style(style::text(style::AXIS_SIZE))
        .label_style(style::text(style::TICK_SIZE))
        .x_label_formatter(&|v| style::tick(*v))
        .y_label_formatter(&|v| style::tick(*v))
        .light_line_style(style::GRID_LIGHT)
        .bold_line_style(style::GRID)
        .draw()
        .map_err(draw_error)?;
    // Infeasible tiles, shaded from the tighter limit rightwards; each
    // limit a dashed vertical named in the legend.
    let mut limits: Vec<(f64, String, RGBColor)> = Vec::new();
    if let Some((t, rf)) = data.register_limit {
        limits.push((
            t,
            format!(
                "beyond here: fp32 accumulator fills the {} register file (tile >= {})",
                units::iec_bytes(rf),
                style::tick(t)
            ),
            style::HIGHLIGHT,
        ));
    }
    if let Some((t, l)) = data.smem_limit {
        limits.push((
            t,
            format!(
                "beyond here: A and B stages exceed {} of shared memory (tile > {})",
                units::iec_bytes(l),
                style::tick(t.floor())
            ),
            style::color(4),
        ));
    }
    if let Some(t) = limits.iter().map(|l| l.0).reduce(f64::min)
        && t < x1
    {
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(t.max(x0), lo / d), (x1, hi / d)],
                style::INFEASIBLE.filled(),
            )))
            .map_err(draw_error)?;
    }
    for (t, text, c) in &limits {
        if *t >= x1 || *t <= x0 {
            continue;
        }
        let line = c.stroke_width(2);
        let drawn = chart
            .draw_series(DashedLineSeries::new(
                vec![(*t, lo / d), (*t, hi / d)],
                6,
                4,
                line,
            ))
            .map_err(draw_error)?;
        if name_limits {
            drawn.label(style::legend(text)).legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (5, 0)], line)
                    + PathElement::new(vec![(9, 0), (14, 0)], line)
                    + PathElement::new(vec![(18, 0), (20, 0)], line)
            });
        }
    }
    for s in series {
        let c = style::color(s.color);
        let line = c.stroke_width(style::LINE_WIDTH);
        let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (x, y / d)).collect();
        if s.dashed {
            chart
                .draw_series(DashedLineSeries::new(
                    pts,
                    style::DASH.0,
                    style::DASH.1,
                    line,
                ))
                .map_err(draw_error)?
                .label(style::legend(&s.label))
                .legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (8, 0)], line)
                        + PathElement::new(vec![(13, 0), (20, 0)], line)
                });
        } else {
            chart
                .draw_series(LineSeries::new(pts.clone(), line))
                .map_err(draw_error)?
                .label(style::legend(&s.label))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], line));
            chart
                .draw_series(
                    pts.iter()
                        .map(|&p| Circle::new(p, style::POINT_RADIUS, c.filled())),
                )
                .map_err(draw_error)?;
        }
    }
    chart
        .configure_series_labels()
        .position(legend)
        .margin(10)
        .label_font(style::text(style::LEGEND_SIZE))
        .background_style(style::BACKGROUND.mix(0.92))
        .border_style(style::GRID)
        .draw()
        .map_err(draw_error)?;
    Ok(())
}

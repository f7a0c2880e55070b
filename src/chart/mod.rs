//! Charts: typed chart data -> SVG or PNG bytes, through plotters.
//!
//! Each chart is a data struct built from the library's typed costs (a
//! [`Roof`](crate::calc::roof::Roof) per accelerator and precision, the
//! occupancy limits, the matmul traffic formulas) or, for any sweep, from
//! a combined [`Report`](crate::report::Report)'s axes and rows; and one
//! drawing function per chart, generic over the plotters drawing backend,
//! with its look in [`style`]'s constants. SVG is the default; a file
//! ending in `.png` is drawn by the bitmap backend. Text is measured (and on
//! a bitmap drawn) with the DejaVu Sans font shipped in `assets/fonts/`
//! ([`text`]), so no system font library is needed; the SVG keeps its text
//! as `<text>` elements in the generic `sans-serif` family, so any viewer
//! renders them.
//!
//! The library never writes files: [`render`] returns the bytes.

pub mod decode;
pub mod layout;
pub mod occupancy;
pub mod roofline;
pub mod style;
pub mod sweep;
pub mod text;
pub mod tiles;

use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

pub use crate::report::ChartRows;
pub use decode::DecodeData;
pub use occupancy::OccupancyData;
pub use roofline::RooflineData;
pub use sweep::SweepData;
pub use tiles::TilesData;

/// The file format a chart is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartFormat {
    /// Scalable vector graphics (text stays text).
    Svg,
    /// A bitmap, [`style::WIDTH`] pixels wide or more.
    Png,
}

impl ChartFormat {
    /// The format a path's extension asks for: `.svg` or `.png` (any
    /// case); `-` (standard output) is SVG. Anything else is an error
    /// against `field`, the input that named the path.
    pub fn from_path(path: &Path, field: &str) -> Result<Self> {
        if path.as_os_str() == "-" {
            return Ok(ChartFormat::Svg);
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("svg") => Ok(ChartFormat::Svg),
            Some("png") => Ok(ChartFormat::Png),
            Some(other) => Err(Error::field(
                field,
                format!(
                    "`{}`: unknown chart format `.{other}`; give a file ending in .svg or .png",
                    path.display()
                ),
            )),
            // `.svg` is a hidden file named "svg" with no extension, to
            // Rust as to the shell: say what it lacks.
            None if path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| matches!(n.to_ascii_lowercase().as_str(), ".svg" | ".png")) =>
            {
                Err(Error::field(
                    field,
                    format!(
                        "`{}` has no name before its extension; give a file name such as chart.svg",
                        path.display()
                    ),
                ))
            }
            None => Err(Error::field(
                field,
                format!(
                    "`{}` has no extension; give a file ending in .svg or .png",
                    path.display()
                ),
            )),
        }
    }
}

/// A chart ready to draw.
#[derive(Debug, Clone)]
pub enum Chart {
    /// Roofs of accelerators and precisions, with kernels as points.
    Roofline(RooflineData),
    /// Occupancy against registers, block size and shared memory.
    Occupancy(OccupancyData),
    /// Matmul HBM traffic and time against the tile size.
    Tiles(TilesData),
    /// Results of any sweep against its swept input.
    Sweep(SweepData),
    /// Decode throughput per device against speed per user.
    Decode(DecodeData),
}

impl Chart {
    /// Width and height in pixels (SVG user units).
    pub fn size(&self) -> (u32, u32) {
        match self {
            Chart::Roofline(_) | Chart::Decode(_) => (style::WIDTH, style::HEIGHT),
            Chart::Occupancy(_) => (style::WIDTH, style::PANEL_HEIGHT * 3 + style::TITLE_BAND),
            Chart::Tiles(_) => (style::WIDTH, style::PANEL_HEIGHT * 2 + style::TITLE_BAND),
            Chart::Sweep(d) => (
                style::WIDTH,
                (style::PANEL_HEIGHT.max(style::HEIGHT / d.panels.len().max(1) as u32))
                    * d.panels.len().max(1) as u32
                    + style::TITLE_BAND,
            ),
        }
    }

    /// Draws the chart on any plotters backend.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        match self {
            Chart::Roofline(d) => roofline::roofline(area, d),
            Chart::Occupancy(d) => occupancy::occupancy(area, d),
            Chart::Tiles(d) => tiles::tiles(area, d),
            Chart::Sweep(d) => sweep::sweep(area, d),
            Chart::Decode(d) => decode::decode(area, d),
        }
    }
}

/// Draws `chart` as SVG text or PNG bytes.
pub fn render(chart: &Chart, format: ChartFormat) -> Result<Vec<u8>> {
    let (w, h) = chart.size();
    match format {
        ChartFormat::Svg => {
            let mut s = String::new();
            {
                let root = text::Fonted::new(SVGBackend::with_string(&mut s, (w, h)), false)
                    .into_drawing_area();
                chart.draw(&root)?;
                root.present().map_err(draw_error)?;
            }
            Ok(s.into_bytes())
        }
        #[cfg(not(feature = "png"))]
        ChartFormat::Png => Err(Error::Unsupported(
            "this build draws no PNG charts (the library's `png` feature); give a file ending in .svg"
                .into(),
        )),
        #[cfg(feature = "png")]
        ChartFormat::Png => {
            let mut buf = vec![0u8; w as usize * h as usize * 3];
            {
                let root = text::Fonted::new(BitMapBackend::with_buffer(&mut buf, (w, h)), true)
                    .into_drawing_area();
                chart.draw(&root)?;
                root.present().map_err(draw_error)?;
            }
            encode_png(&buf, w, h)
        }
    }
}

/// Encodes an RGB buffer as PNG.
#[cfg(feature = "png")]
fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().map_err(draw_error)?;
        writer.write_image_data(rgb).map_err(draw_error)?;
    }
    Ok(out)
}

/// An axis plotters can tick, or an error against `field`. Plotters' tick
/// loops never end on an infinite end, a zero end of a log axis or a log
/// range whose ratio overflows (1e-300 to 1e300): the ends must be finite,
/// a log axis's positive and normal with a finite ratio, a linear axis's
/// span finite.
pub(crate) fn axis(field: &str, what: &str, lo: f64, hi: f64, log: bool) -> Result<(f64, f64)> {
    let ok = lo.is_finite()
        && hi.is_finite()
        && lo <= hi
        && if log {
            lo >= f64::MIN_POSITIVE && (hi / lo).is_finite()
        } else {
            (hi - lo).is_finite()
        };
    if ok {
        return Ok((lo, hi));
    }
    Err(Error::field(
        field,
        format!(
            "cannot draw the {what} axis from {lo:.3e} to {hi:.3e}: {}; chart a narrower range",
            if log {
                "a log axis needs positive ends less than 1e308 apart"
            } else {
                "its span is past f64's range"
            }
        ),
    ))
}

/// A drawing failure (plotters or the PNG encoder) as the library's error.
pub(crate) fn draw_error(e: impl std::fmt::Display) -> Error {
    Error::Unsupported(format!("drawing the chart failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_extensions() {
        let f = |p: &str| ChartFormat::from_path(Path::new(p), "out");
        assert_eq!(f("a.svg").unwrap(), ChartFormat::Svg);
        assert_eq!(f("dir/A.PNG").unwrap(), ChartFormat::Png);
        assert_eq!(f("-").unwrap(), ChartFormat::Svg);
        let e = f("a.jpg").unwrap_err();
        assert_eq!(e.exit_code(), 65);
        assert!(e.to_string().contains(".svg or .png"), "{e}");
        assert!(f("chart").is_err());
    }
}

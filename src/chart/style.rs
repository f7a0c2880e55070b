//! How every chart looks: sizes, fonts, colours and number formats, in one
//! place, and the font registration the text layout needs.

use plotters::prelude::*;
use plotters::style::RGBColor;

/// Chart width in pixels (PNG) or SVG user units.
pub const WIDTH: u32 = 1200;
/// Height of a one-panel chart.
pub const HEIGHT: u32 = 800;
/// Height of one panel of a stacked chart.
pub const PANEL_HEIGHT: u32 = 420;
/// Height of the title band above the panels.
pub const TITLE_BAND: u32 = 60;

/// The font family every text element names: SVG viewers use their own
/// sans-serif; measuring and bitmaps use the shipped font
/// ([`super::text`]).
pub const FONT: &str = "sans-serif";
/// Title size in pixels.
pub const TITLE_SIZE: f64 = 28.0;
/// Panel caption size.
pub const CAPTION_SIZE: f64 = 22.0;
/// Axis description size.
pub const AXIS_SIZE: f64 = 19.0;
/// Tick label size.
pub const TICK_SIZE: f64 = 16.0;
/// Legend text size.
pub const LEGEND_SIZE: f64 = 16.0;
/// Annotation (ridge point, marker) text size.
pub const NOTE_SIZE: f64 = 15.0;

/// Space around the plotting area.
pub const MARGIN: u32 = 16;
/// Height of the x-axis label area.
pub const X_LABEL_AREA: u32 = 56;
/// Width of the y-axis label area.
pub const Y_LABEL_AREA: u32 = 96;

/// Line width of a series.
pub const LINE_WIDTH: u32 = 3;
/// Radius of a marked point.
pub const POINT_RADIUS: u32 = 5;
/// Dash length and gap of a measured (achievable) roof.
pub const DASH: (u32, u32) = (12, 7);

/// Background.
pub const BACKGROUND: RGBColor = RGBColor(255, 255, 255);
/// Text and axes.
pub const INK: RGBColor = RGBColor(30, 30, 30);
/// Kernel markers, limits and other annotations.
pub const ANNOTATION: RGBColor = RGBColor(90, 90, 90);
/// The current configuration on the occupancy chart.
pub const HIGHLIGHT: RGBColor = RGBColor(214, 39, 40);
/// Minor grid lines.
pub const GRID_LIGHT: RGBColor = RGBColor(244, 244, 244);
/// Major grid lines and legend borders.
pub const GRID: RGBColor = RGBColor(190, 190, 190);
/// Shading of an infeasible region.
pub const INFEASIBLE: RGBColor = RGBColor(250, 225, 225);

/// Series colours, in order (Tableau 10: distinct in print and for the
/// common colour-vision deficiencies).
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The line width of series `i`: wider where a later series lies on top
/// of it (four points in five within 2%), so the covered curve still shows as the
/// other's border.
pub fn width(series: &[Vec<(f64, f64)>], i: usize) -> u32 {
    let close = |a: f64, b: f64| (a - b).abs() <= 0.02 * a.abs().max(b.abs());
    let covered = series.iter().skip(i + 1).any(|later| {
        let mine = &series[i];
        let n = mine.len().min(later.len());
        let same = mine
            .iter()
            .zip(later)
            .filter(|(p, q)| close(p.0, q.0) && close(p.1, q.1))
            .count();
        n > 0 && same * 5 >= n * 4
    });
    if covered { LINE_WIDTH + 4 } else { LINE_WIDTH }
}

/// The colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Fills the background and draws the title in a band at the top;
/// returns the area below it.
pub fn titled<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    size: f64,
) -> crate::Result<DrawingArea<DB, plotters::coord::Shift>> {
    area.fill(&BACKGROUND).map_err(super::draw_error)?;
    let (band, body) = area.split_vertically(TITLE_BAND);
    // A long title shrinks to fit the width, down to the caption size
    // less a quarter.
    let room = band.dim_in_pixel().0.saturating_sub(2 * MARGIN);
    let mut size = size;
    while size > CAPTION_SIZE * 0.75
        && band
            .estimate_text_size(title, &text(size))
            .is_ok_and(|(w, _)| w > room)
    {
        size -= 1.0;
    }
    band.draw(&Text::new(
        title.to_string(),
        (band.dim_in_pixel().0 as i32 / 2, TITLE_BAND as i32 / 2),
        text(size).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        )),
    ))
    .map_err(super::draw_error)?;
    Ok(body)
}

/// A legend entry's text, padded so plotters sizes the legend box for
/// the shipped font: plotters measures legend text with its built-in
/// estimate (0.7 of an em per character), which runs short of DejaVu Sans
/// on wide labels; trailing spaces draw nothing and widen the box.
pub fn legend(text: &str) -> String {
    let em = LEGEND_SIZE / 1.24 / 1.24;
    let want = f64::from(super::text::measure(text, LEGEND_SIZE).0) + 6.0;
    let have = em * 0.7 * text.len() as f64;
    let pad = ((want - have) / (em * 0.7)).ceil().max(0.0) as usize;
    format!("{text}{}", " ".repeat(pad))
}

/// A text style of the given size.
pub fn text(size: f64) -> TextStyle<'static> {
    (FONT, size).into_font().color(&INK)
}

/// A text style of the given size and colour.
pub fn text_in(size: f64, c: RGBColor) -> TextStyle<'static> {
    (FONT, size).into_font().color(&c)
}

/// A tick label: three significant digits, thousands grouped, no
/// trailing zeros.
pub fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if v.abs() >= 1e6 || v.abs() < 1e-3 {
        return format!("{v:.0e}");
    }
    if v.abs() >= 1000.0 {
        return crate::units::number(v.round());
    }
    crate::units::sig(v, 3)
}

/// A tick label on a logarithmic axis: 1s, 2s, 3s and 5s of each decade
/// are labelled, the rest left to the grid (90 and 100 would collide).
pub fn log_tick(v: f64) -> String {
    if v <= 0.0 {
        return String::new();
    }
    let lead = (v / 10f64.powf(v.log10().floor())).round() as i64;
    if matches!(lead, 1 | 2 | 3 | 5 | 10) {
        tick(v)
    } else {
        String::new()
    }
}

/// A scale for an axis: the divisor and the unit text, chosen so the
/// largest value reads between 1 and 1000 (`TFLOP/s`, `GB`, `us`).
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// Values are divided by this.
    pub divisor: f64,
    /// The unit after scaling, empty for plain counts.
    pub unit: String,
}

impl Scale {
    /// The scale for values up to `max` of a report unit.
    pub fn for_unit(unit: crate::report::Unit, max: f64) -> Scale {
        use crate::report::Unit as U;
        let si = |base: &str| {
            const P: [(f64, &str); 6] = [
                (1e15, "P"),
                (1e12, "T"),
                (1e9, "G"),
                (1e6, "M"),
                (1e3, "k"),
                (1.0, ""),
            ];
            let (d, p) = P
                .iter()
                .find(|(d, _)| max.abs() >= *d)
                .copied()
                .unwrap_or((1.0, ""));
            // Bytes use capital K for kilo, as the tables do.
            let p = if p == "k" && base.starts_with('B') {
                "K"
            } else {
                p
            };
            Scale {
                divisor: d,
                unit: format!("{p}{base}"),
            }
        };
        let plain = |u: &str| Scale {
            divisor: 1.0,
            unit: u.into(),
        };
        match unit {
            U::Bytes => si("B"),
            U::BytesIec => {
                const P: [(f64, &str); 4] = [
                    (1024f64 * 1024.0 * 1024.0, "GiB"),
                    (1024f64 * 1024.0, "MiB"),
                    (1024.0, "KiB"),
                    (1.0, "B"),
                ];
                let (d, u) = P.iter().find(|(d, _)| max >= *d).copied().unwrap_or(P[3]);
                Scale {
                    divisor: d,
                    unit: u.into(),
                }
            }
            U::BytesPerSec => si("B/s"),
            U::Flop => si("FLOP"),
            U::FlopPerSec => si("FLOP/s"),
            U::Op => si("OP"),
            U::OpPerSec => si("OP/s"),
            U::FlopPerSecPerWatt => si("FLOP/s/W"),
            U::OpPerSecPerWatt => si("OP/s/W"),
            U::Hz => si("Hz"),
            U::Seconds => {
                let (d, u) = if max >= 1.0 {
                    (1.0, "s")
                } else if max >= 1e-3 {
                    (1e-3, "ms")
                } else if max >= 1e-6 {
                    (1e-6, "us")
                } else {
                    (1e-9, "ns")
                };
                Scale {
                    divisor: d,
                    unit: u.into(),
                }
            }
            U::Fraction => Scale {
                divisor: 0.01,
                unit: "%".into(),
            },
            U::FlopPerByte => plain("FLOP/B"),
            U::OpPerByte => plain("OP/B"),
            U::BytesPerCycle => plain("B/cycle"),
            U::Cycles => plain("cycles"),
            U::Ratio => plain("x"),
            U::Bits => plain("bits"),
            U::Watts => si("W"),
            U::TokensPerKwh => si("tokens/kWh"),
            U::Joules => {
                let (d, u) = if max >= 1.0 {
                    (1.0, "J")
                } else if max >= 1e-3 {
                    (1e-3, "mJ")
                } else if max >= 1e-6 {
                    (1e-6, "uJ")
                } else {
                    (1e-9, "nJ")
                };
                Scale {
                    divisor: d,
                    unit: u.into(),
                }
            }
            U::JoulesPerFlop => Scale {
                divisor: 1e-12,
                unit: "pJ/FLOP".into(),
            },
            U::JoulesPerByte => Scale {
                divisor: 1e-12,
                unit: "pJ/B".into(),
            },
            U::Count | U::None => plain(""),
        }
    }

    /// An axis description: the label with the unit in brackets.
    pub fn describe(&self, label: &str) -> String {
        if self.unit.is_empty() {
            label.to_string()
        } else if let Some(open) = label.strip_suffix(')') {
            // "tiled bytes (operand reads)" -> "... (operand reads, GB)"
            format!("{open}, {})", self.unit)
        } else {
            format!("{label} ({})", self.unit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Unit;

    #[test]
    fn ticks_read_plainly() {
        assert_eq!(tick(0.1), "0.1");
        assert_eq!(tick(10000.0), "10,000");
        assert_eq!(tick(295.22), "295");
        assert_eq!(tick(1e9), "1e9");
    }

    #[test]
    fn scales_pick_a_prefix() {
        let s = Scale::for_unit(Unit::FlopPerSec, 2.5e15);
        assert_eq!((s.divisor, s.unit.as_str()), (1e15, "PFLOP/s"));
        assert_eq!(Scale::for_unit(Unit::Bytes, 2.1e9).unit, "GB");
        assert_eq!(Scale::for_unit(Unit::Bytes, 2.1e3).unit, "KB");
        assert_eq!(Scale::for_unit(Unit::Seconds, 3e-4).unit, "us");
        assert_eq!(
            Scale::for_unit(Unit::Fraction, 1.0).describe("occupancy"),
            "occupancy (%)"
        );
        assert_eq!(
            Scale::for_unit(Unit::Count, 5.0).describe("blocks"),
            "blocks"
        );
    }
}

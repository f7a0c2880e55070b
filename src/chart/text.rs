//! Text without system fonts: a drawing backend wrapper that measures text
//! with the shipped DejaVu Sans (so axes, legends and labels are laid out
//! for the real glyph widths) and, on a bitmap, draws the glyphs itself
//! with `ab_glyph`. On SVG the text stays `<text>` for the viewer's
//! sans-serif. Everything else passes through to the wrapped backend.
//!
//! This keeps plotters' own font support off: its `ab_glyph` font table is
//! process-wide and, once enabled, also replaces the fallback font of every
//! other plotters user in the build (criterion's reports among them).

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use std::sync::LazyLock;

/// The shipped font: DejaVu Sans (Bitstream Vera licence; see
/// `assets/fonts/LICENSE-DejaVu.txt`).
#[cfg(not(target_arch = "wasm32"))]
static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// The web page draws only SVG, whose text the browser sets, so it only
/// measures: it carries a subset of the same font (Latin, Greek,
/// punctuation, arrows, mathematical operators and geometric shapes, with
/// their advances and kerning; `assets/fonts/README.md` says how it is
/// made), a sixth of the size. Text inside the subset measures as with the
/// whole font.
#[cfg(target_arch = "wasm32")]
static FONT_BYTES: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-web.ttf");

static FONT: LazyLock<Option<FontRef<'static>>> =
    LazyLock::new(|| FontRef::try_from_slice(FONT_BYTES).ok());

/// Where the baseline sits below the top of a line, as a fraction of the
/// font size (capitals fill the line's box, descenders hang below).
const BASELINE: f32 = 0.66;

/// Width and height in pixels of `text` at `size` (plotters' sizes: the
/// line's box is size / 1.24 tall).
pub fn measure(text: &str, size: f64) -> (u32, u32) {
    let Some(font) = FONT.as_ref() else {
        // Unreachable with the shipped font; a crude estimate otherwise.
        return (
            (text.chars().count() as f64 * size * 0.55) as u32,
            (size / 1.24) as u32,
        );
    };
    let sf = font.as_scaled(PxScale::from(size as f32));
    let mut w = 0f32;
    let mut prev = None;
    for c in text.chars() {
        let g = sf.glyph_id(c);
        if let Some(p) = prev {
            w += sf.kern(p, g);
        }
        w += sf.h_advance(g);
        prev = Some(g);
    }
    (w.ceil() as u32, (size / 1.24) as u32)
}

/// A backend whose text is measured (and on bitmaps drawn) with the
/// shipped font.
pub struct Fonted<B> {
    inner: B,
    raster: bool,
}

impl<B: DrawingBackend> Fonted<B> {
    /// Wraps `inner`; `raster` draws glyphs as pixels (bitmaps) instead of
    /// passing text through (SVG).
    pub fn new(inner: B, raster: bool) -> Self {
        Fonted { inner, raster }
    }
}

type Res<B> = Result<(), DrawingErrorKind<<B as DrawingBackend>::ErrorType>>;

impl<B: DrawingBackend> DrawingBackend for Fonted<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Res<B> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Res<B> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Res<B> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Res<B> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Res<B> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Res<B> {
        if !self.raster || style.stroke_width() <= 1 {
            return self.inner.draw_path(path, style);
        }
        // plotters' bitmap backend strokes a wide path as one polygon with
        // unlimited miter joins: at a sharp turn (a dense, noisy series)
        // the miter runs far past the point, out of its panel (plotters
        // issue 549; SVG viewers limit miters). Each segment alone, with a
        // disc at each joint, keeps the stroke within half a width of the
        // line.
        let r = style.stroke_width() / 2;
        let dot = style.color();
        let mut prev: Option<BackendCoord> = None;
        for p in path {
            if let Some(q) = prev {
                self.inner.draw_path([q, p], style)?;
                self.inner.draw_circle(p, r, &dot, true)?;
            }
            prev = Some(p);
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Res<B> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Res<B> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res<B> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        Ok(measure(text, style.size()))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Res<B> {
        if !self.raster {
            return self.inner.draw_text(text, style, pos);
        }
        let color = style.color();
        let Some(font) = FONT.as_ref() else {
            return Ok(());
        };
        if color.alpha == 0.0 {
            return Ok(());
        }
        let size = style.size();
        let (w, h) = measure(text, size);
        let (w, h) = (w as i32, h as i32);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Center => -w / 2,
            HPos::Right => -w,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -h / 2,
            VPos::Bottom => -h,
        };
        let turn = style.transform();
        let (width, height) = self.inner.get_size();
        let sf = font.as_scaled(PxScale::from(size as f32));
        let baseline = size as f32 * BASELINE;
        let mut caret = 0f32;
        let mut prev = None;
        let mut pixels: Vec<(i32, i32, f32)> = Vec::new();
        for c in text.chars() {
            let id = sf.glyph_id(c);
            if let Some(p) = prev {
                caret += sf.kern(p, id);
            }
            prev = Some(id);
            let glyph = id.with_scale_and_position(sf.scale(), ab_glyph::point(caret, baseline));
            if let Some(outline) = font.outline_glyph(glyph) {
                let b = outline.px_bounds();
                let (bx, by) = (b.min.x as i32, b.min.y as i32);
                outline.draw(|x, y, coverage| {
                    if coverage > 0.0 {
                        pixels.push((bx + x as i32, by + y as i32, coverage));
                    }
                });
            }
            caret += sf.h_advance(id);
        }
        for (x, y, coverage) in pixels {
            let (x, y) = turn.transform(x + dx, y + dy);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if x >= 0 && y >= 0 && x < width as i32 && y < height as i32 {
                let c = BackendColor {
                    alpha: color.alpha * f64::from(coverage.min(1.0)),
                    rgb: color.rgb,
                };
                self.inner.draw_pixel((x, y), c)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_font_loads_and_measures() {
        assert!(FONT.is_some());
        let (w, h) = measure("1,000", 16.0);
        assert!((25..45).contains(&w), "{w}");
        assert_eq!(h, 12);
        assert!(measure("WWW", 16.0).0 > measure("iii", 16.0).0);
    }
}

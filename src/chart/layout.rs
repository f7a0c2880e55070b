//! Where annotation labels go: each label takes the first of its
//! candidate places that overlaps no label already placed and stays
//! inside the plot, so ridge points that nearly coincide (B200 and MI355X
//! in bf16) still get readable labels.

/// A rectangle in pixels: left, top, right, bottom.
pub type Rect = (i32, i32, i32, i32);

/// Places labels without overlap.
#[derive(Debug, Clone)]
pub struct Placer {
    bounds: Rect,
    taken: Vec<Rect>,
    lines: Vec<Rect>,
}

fn overlaps(a: Rect, b: Rect) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

impl Placer {
    /// A placer for labels inside `bounds`.
    pub fn new(bounds: Rect) -> Self {
        Placer {
            bounds,
            taken: Vec::new(),
            lines: Vec::new(),
        }
    }

    /// Marks a drawn line (pixel points) as something labels should avoid
    /// where they can; a label crosses a line rather than another label.
    pub fn block_line(&mut self, points: &[(i32, i32)], half_width: i32) {
        for w in points.windows(2) {
            let (a, b) = (w[0], w[1]);
            let len = (((b.0 - a.0) as f64).powi(2) + ((b.1 - a.1) as f64).powi(2)).sqrt();
            let n = (len / 4.0).ceil().max(1.0) as i32;
            for i in 0..=n {
                let t = f64::from(i) / f64::from(n);
                let x = a.0 + ((b.0 - a.0) as f64 * t) as i32;
                let y = a.1 + ((b.1 - a.1) as f64 * t) as i32;
                self.lines.push((
                    x - half_width,
                    y - half_width,
                    x + half_width,
                    y + half_width,
                ));
            }
        }
    }

    /// Marks a rectangle as taken (a marker, a legend).
    pub fn block(&mut self, r: Rect) {
        self.taken.push(r);
    }

    /// Places a `size` label near `anchor`: `offsets` are candidate
    /// positions of its top-left corner relative to the anchor, in order
    /// of preference. Returns the offset chosen; when none is free, the
    /// first that stays inside the bounds (or the first of all).
    pub fn place(
        &mut self,
        anchor: (i32, i32),
        size: (u32, u32),
        offsets: &[(i32, i32)],
    ) -> (i32, i32) {
        // Measured text runs a little past its estimate: keep a margin.
        let (w, h) = (size.0 as i32 + 4, size.1 as i32 + 4);
        let rect = |o: (i32, i32)| {
            let (x, y) = (anchor.0 + o.0 - 2, anchor.1 + o.1 - 2);
            (x, y, x + w, y + h)
        };
        let inside = |r: Rect| {
            r.0 >= self.bounds.0
                && r.1 >= self.bounds.1
                && r.2 <= self.bounds.2
                && r.3 <= self.bounds.3
        };
        let free = |r: Rect| !self.taken.iter().any(|t| overlaps(*t, r));
        let clear = |r: Rect| !self.lines.iter().any(|t| overlaps(*t, r));
        let chosen = offsets
            .iter()
            .copied()
            .find(|o| inside(rect(*o)) && free(rect(*o)) && clear(rect(*o)))
            .or_else(|| {
                offsets
                    .iter()
                    .copied()
                    .find(|o| inside(rect(*o)) && free(rect(*o)))
            })
            .or_else(|| offsets.iter().copied().find(|o| inside(rect(*o))))
            .unwrap_or(offsets.first().copied().unwrap_or((0, 0)));
        self.taken.push(rect(chosen));
        chosen
    }
}

impl Placer {
    /// Places a label only where it overlaps nothing (labels or lines);
    /// `None` leaves it out.
    pub fn try_place(
        &mut self,
        anchor: (i32, i32),
        size: (u32, u32),
        offsets: &[(i32, i32)],
    ) -> Option<(i32, i32)> {
        let (w, h) = (size.0 as i32 + 4, size.1 as i32 + 4);
        let rect = |o: &(i32, i32)| {
            let (x, y) = (anchor.0 + o.0 - 2, anchor.1 + o.1 - 2);
            (x, y, x + w, y + h)
        };
        let b = self.bounds;
        let chosen = offsets.iter().find(|o| {
            let r = rect(o);
            r.0 >= b.0
                && r.1 >= b.1
                && r.2 <= b.2
                && r.3 <= b.3
                && !self
                    .taken
                    .iter()
                    .chain(&self.lines)
                    .any(|t| overlaps(*t, r))
        })?;
        self.taken.push(rect(chosen));
        Some(*chosen)
    }
}

/// Candidate offsets around a point for a `size` label, `gap` pixels away:
/// right-below, right-above, left-below, left-above, then stepping further
/// down and up on either side.
pub fn around(size: (u32, u32), gap: i32) -> Vec<(i32, i32)> {
    let (w, h) = (size.0 as i32, size.1 as i32);
    let mut out = vec![
        (gap, gap / 2),
        (gap, -h - gap / 2),
        (-w - gap, gap / 2),
        (-w - gap, -h - gap / 2),
    ];
    for step in 1..8 {
        let dy = step * (h + 2);
        out.push((gap, gap / 2 + dy));
        out.push((-w - gap, gap / 2 + dy));
        out.push((gap, -h - gap / 2 - dy));
        out.push((-w - gap, -h - gap / 2 - dy));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_label_moves_aside() {
        let mut p = Placer::new((0, 0, 1000, 1000));
        let c = around((60, 14), 8);
        let a = p.place((500, 500), (60, 14), &c);
        let b = p.place((502, 503), (60, 14), &c);
        assert_eq!(a, (8, 4));
        assert_ne!(b, (8, 4));
    }

    #[test]
    fn labels_stay_inside() {
        let mut p = Placer::new((0, 0, 100, 100));
        let o = p.place((95, 50), (40, 10), &around((40, 10), 4));
        assert!(95 + o.0 >= 0 && 95 + o.0 + 40 <= 100);
    }
}

//! `matmul --solve ridge`: the size at which a square n x n x n matmul
//! reaches the ridge, counting its minimal traffic (each operand read once,
//! the output written once) as the lecture does (002 §7.7; formulas.md,
//! "Matmul traffic", "The ridge of a square matmul").
//!
//! FLOPs 2n^3 over bytes 3bn^2 is an intensity of 2n / (3b), which meets
//! the ridge (peak / bandwidth) at n = 3 b ridge / 2: below it the matmul
//! is memory-bound, at or above it compute-bound.

use crate::calc::roof::{self, Bound, Roof};
use crate::error::{Error, Result};
use crate::inputs::Fields;
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::number;

/// The ridge of a square matmul on one part at one precision.
#[derive(Debug, Clone)]
pub struct RidgeCost<'a> {
    /// The hardware.
    pub hw: &'a Hardware,
    /// The precision.
    pub dtype: &'static str,
    /// Bytes per element.
    pub bytes: f64,
    /// The roof at that precision.
    pub roof: Roof,
    /// 3 b ridge / 2: where the intensity equals the ridge.
    pub n: f64,
    /// The largest whole n still memory-bound.
    pub last_memory_bound: u64,
    /// The smallest whole n compute-bound.
    pub first_compute_bound: u64,
}

/// Minimal-traffic intensity of an n x n x n matmul at `b` bytes an
/// element: 2n^3 / (3 b n^2).
pub fn square_intensity(n: f64, b: f64) -> f64 {
    2.0 * n * n * n / (3.0 * b * n * n)
}

/// Checks a `matmul --solve` point: only the part and its precision enter
/// the ridge, so a shape or tile given beside it is a question the solve
/// does not answer; and `ridge` is the one thing it solves for.
pub fn check_solve(fields: &Fields) -> Result<()> {
    if let Some(k) = fields
        .keys()
        .find(|k| !matches!(k.as_str(), "solve" | "dtype" | "hw"))
    {
        return Err(Error::field(
            k.as_str(),
            format!(
                "`{k}` has no part in --solve ridge, which finds the n of a square matmul from the part's ridge alone; leave it out"
            ),
        ));
    }
    match fields.get("solve").and_then(serde_json::Value::as_str) {
        Some("ridge") => Ok(()),
        other => Err(Error::field(
            "solve",
            format!("`{}`: matmul solves for `ridge` only", other.unwrap_or("?")),
        )),
    }
}

/// The n at which a square matmul in `dtype` (default: the part's) meets
/// `hw`'s ridge.
pub fn ridge<'a>(hw: &'a Hardware, dtype: Option<&str>, mode: Mode) -> Result<RidgeCost<'a>> {
    let prec = hw.precision(dtype)?;
    let b = prec.bytes();
    let roof = Roof::of(hw, prec, mode)?;
    let n = 3.0 * b * roof.ridge() / 2.0;
    if !n.is_finite() || n > 1e15 {
        return Err(Error::field(
            "dtype",
            format!(
                "{}'s ridge at {} is too large to solve for",
                hw.id, prec.name
            ),
        ));
    }
    // The closed form, checked against the roof's own verdict on the
    // whole numbers either side (a ridge that is itself whole is
    // compute-bound: at the ridge the machine is at peak).
    let mut first = n.ceil().max(1.0) as u64;
    while first > 1 && roof.bound(square_intensity((first - 1) as f64, b)) == Bound::Compute {
        first -= 1;
    }
    while roof.bound(square_intensity(first as f64, b)) == Bound::Memory {
        first += 1;
    }
    Ok(RidgeCost {
        hw,
        dtype: prec.name,
        bytes: b,
        roof,
        n,
        last_memory_bound: first - 1,
        first_compute_bound: first,
    })
}

impl RidgeCost<'_> {
    /// The report.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("matmul", lean);
        r.hardware = Some(self.hw.id.clone());
        r.input("solve", "ridge");
        r.input("dtype", self.dtype);
        let ridge = roof::ridge(&mut r, &self.roof);
        r.result("bytes_per_element", self.bytes, || {
            Quantity::new("bytes per element", Unit::Bytes)
        });
        r.result("ridge_n", self.n, || {
            Quantity::new("n where a square matmul meets the ridge", Unit::Count)
                .formula("3 x bytes per element x ridge / 2 (intensity 2n^3 / 3bn^2 = 2n / 3b)")
                .derive(format!(
                    "3 x {} x {} / 2",
                    number(self.bytes),
                    number(ridge)
                ))
        });
        r.result("last_memory_bound_n", self.last_memory_bound, || {
            Quantity::new("largest n still memory-bound", Unit::Count)
                .formula("the largest whole n with 2n / 3b below the ridge")
                .derive(format!(
                    "2 x {} / (3 x {}) = {} FLOP/B",
                    self.last_memory_bound,
                    number(self.bytes),
                    number(square_intensity(self.last_memory_bound as f64, self.bytes))
                ))
        });
        r.result("first_compute_bound_n", self.first_compute_bound, || {
            Quantity::new("smallest n compute-bound", Unit::Count)
                .formula("the smallest whole n with 2n / 3b at or above the ridge")
                .derive(format!(
                    "2 x {} / (3 x {}) = {} FLOP/B",
                    self.first_compute_bound,
                    number(self.bytes),
                    number(square_intensity(
                        self.first_compute_bound as f64,
                        self.bytes
                    ))
                ))
        });
        r.note(
            "traffic: the minimal one, each operand read once and the output written once (3bn^2 bytes); a tiled kernel moves more and reaches the ridge at a larger n (matmul --m N --n N --k N shows its tiled intensity)",
        );
        r.headline(&[
            "ridge_point_flop_per_byte",
            "ridge_n",
            "last_memory_bound_n",
        ]);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_intensity_of_a_square_matmul() {
        // 2 x 885^3 / (3 x 2 x 885^2) = 295 FLOP/B, by hand.
        assert!((square_intensity(885.0, 2.0) - 295.0).abs() < 1e-9);
    }
}

//! The roofline's two figures every calculation that has a peak and a
//! bandwidth reports the same way (formulas.md, "Roofline point"; 002 §7.4):
//! the ridge point and the throughput an intensity can attain.

use crate::report::{Quantity, Report, Unit};
use crate::units::{self, si};

/// Records `ridge_point_flop_per_byte` = peak / bandwidth and returns it.
pub fn ridge(r: &mut Report, peak: f64, bw: f64) -> f64 {
    let ridge = peak / bw;
    r.result(
        "ridge_point_flop_per_byte",
        ridge,
        Quantity::new("ridge point", Unit::FlopPerByte)
            .formula("peak / bandwidth")
            .derive(format!("{} / {}", si(peak, "FLOP/s"), si(bw, "B/s"))),
    );
    ridge
}

/// Keys and labels of an attainable-throughput pair of results.
pub struct AttainableKeys<'a> {
    /// Key of the attainable rate.
    pub attainable: &'a str,
    /// Its label.
    pub attainable_label: &'a str,
    /// Key of the fraction of peak.
    pub fraction: &'a str,
    /// Its label.
    pub fraction_label: &'a str,
}

/// Records attainable = min(peak, intensity x bandwidth) and its fraction
/// of peak; returns the attainable rate.
pub fn attainable(r: &mut Report, k: &AttainableKeys, peak: f64, intensity: f64, bw: f64) -> f64 {
    let a = peak.min(intensity * bw);
    r.result(
        k.attainable,
        a,
        Quantity::new(k.attainable_label, Unit::FlopPerSec)
            .formula("min(peak, intensity x bandwidth)")
            .derive(format!(
                "min({}, {} x {})",
                si(peak, "FLOP/s"),
                units::sig(intensity, 4),
                si(bw, "B/s")
            )),
    );
    r.result(
        k.fraction,
        a / peak,
        Quantity::new(k.fraction_label, Unit::Fraction)
            .formula("attainable / peak")
            .derive(format!("{} / {}", si(a, "FLOP/s"), si(peak, "FLOP/s"))),
    );
    a
}

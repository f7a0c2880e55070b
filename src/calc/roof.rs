//! The roofline itself (formulas.md, "Roofline point"; 002 §7.4): one
//! [`Roof`] of a peak and a bandwidth answers the ridge point, the
//! throughput an intensity can attain, what binds it and how long a
//! kernel of given FLOPs and bytes takes. Every calculation with a time
//! (point, matmul, fusion, launch, decode, prefill) goes through it.

use crate::error::Result;
use crate::precision::Precision;
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, si};
use serde::Serialize;

/// Which roof binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Memory bandwidth binds: below the ridge.
    Memory,
    /// The compute peak binds: at or above the ridge.
    Compute,
}

impl Bound {
    /// `"memory"` or `"compute"`, as reports print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
        }
    }
}

/// A compute peak and a memory bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Roof {
    /// Peak throughput, FLOP/s (OP/s on an integer peak).
    pub peak: f64,
    /// Memory bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Whether the peak counts integer operations (int8): then its work,
    /// rates and intensities are shown in OP, OP/s and OP/B.
    pub integer: bool,
}

/// A kernel's time on a roof: each term and the larger of the two.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RoofTime {
    /// FLOPs / peak.
    pub compute_s: f64,
    /// Bytes / bandwidth.
    pub memory_s: f64,
    /// max(compute, memory): the speed-of-light time.
    pub time_s: f64,
    /// Which term is the larger.
    pub bound: Bound,
}

impl Roof {
    /// The roof of `hw` at precision `p`: datasheet or measured figures.
    pub fn of(hw: &Hardware, p: &Precision, mode: Mode) -> Result<Self> {
        Ok(Roof {
            peak: hw.peak(p, mode)?,
            bandwidth: hw.bandwidth(mode)?,
            integer: p.integer(),
        })
    }

    /// A FLOP unit as this roof counts its operations: FLOP, FLOP/s and
    /// FLOP/B, or OP, OP/s and OP/B on an integer peak; others as they are.
    pub fn unit(&self, u: Unit) -> Unit {
        u.ops_if(self.integer)
    }

    /// The peak, formatted in its unit (`989 TFLOP/s`, `92 TOP/s`).
    pub fn peak_text(&self) -> String {
        self.unit(Unit::FlopPerSec).format(self.peak)
    }

    /// The ridge point, peak / bandwidth, in FLOP per byte.
    pub fn ridge(&self) -> f64 {
        self.peak / self.bandwidth
    }

    /// min(peak, intensity x bandwidth).
    pub fn attainable(&self, intensity: f64) -> f64 {
        self.peak.min(intensity * self.bandwidth)
    }

    /// Memory below the ridge; compute at or above it (at the ridge the
    /// machine is at peak).
    pub fn bound(&self, intensity: f64) -> Bound {
        if intensity < self.ridge() {
            Bound::Memory
        } else {
            Bound::Compute
        }
    }

    /// max(FLOPs / peak, bytes / bandwidth) with both terms.
    pub fn time(&self, flops: f64, bytes: f64) -> RoofTime {
        let compute_s = flops / self.peak;
        let memory_s = bytes / self.bandwidth;
        RoofTime {
            compute_s,
            memory_s,
            time_s: compute_s.max(memory_s),
            bound: if memory_s > compute_s {
                Bound::Memory
            } else {
                Bound::Compute
            },
        }
    }
}

/// Records `ridge_point_flop_per_byte` = peak / bandwidth and returns it.
pub fn ridge(r: &mut Report, roof: &Roof) -> f64 {
    let ridge = roof.ridge();
    r.result("ridge_point_flop_per_byte", ridge, || {
        Quantity::new("ridge point", roof.unit(Unit::FlopPerByte))
            .formula("peak / bandwidth")
            .derive(format!(
                "{} / {}",
                roof.peak_text(),
                si(roof.bandwidth, "B/s")
            ))
    });
    ridge
}

/// Records `intensity` = FLOPs / bytes of some work and returns it.
pub fn intensity(r: &mut Report, roof: &Roof, flops: f64, bytes: f64) -> f64 {
    let intensity = flops / bytes;
    r.result("intensity", intensity, || {
        Quantity::new("arithmetic intensity", roof.unit(Unit::FlopPerByte))
            .formula("FLOPs / bytes")
            .derive(format!(
                "{} / {}",
                roof.unit(Unit::Flop).format(flops),
                si(bytes, "B")
            ))
    });
    intensity
}

/// Records `compute_time_s` = FLOPs / peak and `memory_time_s` = bytes /
/// bandwidth, the two terms of `t`, with their derivations.
pub fn times(r: &mut Report, roof: &Roof, t: &RoofTime, flops: f64, bytes: f64) {
    r.result("compute_time_s", t.compute_s, || {
        Quantity::new("compute time", Unit::Seconds)
            .formula("FLOPs / peak")
            .derive(format!(
                "{} / {}",
                roof.unit(Unit::Flop).format(flops),
                roof.peak_text()
            ))
    });
    r.result("memory_time_s", t.memory_s, || {
        Quantity::new("memory time", Unit::Seconds)
            .formula("bytes / bandwidth")
            .derive(format!(
                "{} / {}",
                si(bytes, "B"),
                si(roof.bandwidth, "B/s")
            ))
    });
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

/// The keys of a kernel's own attainable throughput and fraction of peak.
pub const ATTAINABLE: AttainableKeys<'static> = AttainableKeys {
    attainable: "attainable_flops_per_s",
    attainable_label: "attainable throughput",
    fraction: "fraction_of_peak",
    fraction_label: "fraction of peak",
};

/// Records attainable = min(peak, intensity x bandwidth) and its fraction
/// of peak; returns the attainable rate.
pub fn attainable(r: &mut Report, k: &AttainableKeys<'static>, roof: &Roof, intensity: f64) -> f64 {
    let a = roof.attainable(intensity);
    r.result(k.attainable, a, || {
        Quantity::new(k.attainable_label, roof.unit(Unit::FlopPerSec))
            .formula("min(peak, intensity x bandwidth)")
            .derive(format!(
                "min({}, {} x {})",
                roof.peak_text(),
                units::sig(intensity, 4),
                si(roof.bandwidth, "B/s")
            ))
    });
    r.result(k.fraction, a / roof.peak, || {
        Quantity::new(k.fraction_label, Unit::Fraction)
            .formula("attainable / peak")
            .derive(format!(
                "{} / {}",
                roof.unit(Unit::FlopPerSec).format(a),
                roof.peak_text()
            ))
    });
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    // H100 SXM bf16 dense: 989 TFLOP/s over 3.35 TB/s (002 §7.4).
    const H100: Roof = Roof {
        peak: 989e12,
        bandwidth: 3.35e12,
        integer: false,
    };

    #[test]
    fn ridge_and_attainable() {
        assert!((H100.ridge() - 295.22).abs() < 0.01);
        assert_eq!(H100.attainable(1.0), 3.35e12);
        assert_eq!(H100.attainable(1000.0), 989e12);
        assert_eq!(H100.bound(1.0), Bound::Memory);
        assert_eq!(H100.bound(H100.ridge()), Bound::Compute);
    }

    #[test]
    fn time_is_the_larger_term() {
        // 4096^3 bf16 matmul, tiled at 128: 137.4 GFLOP over 1.07 GB.
        let t = H100.time(137.4e9, 1.07e9);
        assert!((t.compute_s - 138.9e-6).abs() < 0.1e-6);
        assert!((t.memory_s - 319.4e-6).abs() < 0.1e-6);
        assert_eq!(t.time_s, t.memory_s);
        assert_eq!(t.bound, Bound::Memory);
    }

    #[test]
    fn an_integer_roof_counts_operations() {
        // TPU v1: 92 TOPS over 34 GB/s, a ridge of 2,706 OP/B (formulas.md).
        let tpu = Roof {
            peak: 92e12,
            bandwidth: 34e9,
            integer: true,
        };
        let mut r = Report::new("t");
        ridge(&mut r, &tpu);
        attainable(&mut r, &ATTAINABLE, &tpu, 10.0);
        let q = &r.quantities["ridge_point_flop_per_byte"];
        assert_eq!(q.unit, Unit::OpPerByte);
        assert_eq!(q.derivation, "92 TOP/s / 34 GB/s");
        assert_eq!(q.unit.format(tpu.ridge()), "2,706 OP/B");
        let a = &r.quantities["attainable_flops_per_s"];
        assert_eq!(a.unit, Unit::OpPerSec);
        assert_eq!(a.derivation, "min(92 TOP/s, 10 x 34 GB/s)");
        assert_eq!(
            r.quantities["fraction_of_peak"].derivation,
            "340 GOP/s / 92 TOP/s"
        );
    }
}

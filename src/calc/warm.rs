//! The speed of light with a warm L2 (formulas.md, "The speed of light
//! with a warm L2"). The headline speed of light of `matmul`, `decode` and
//! `prefill` assumes a cold L2: every byte that must be read comes from
//! HBM once per call. Called back to back, a call's operands may still sit
//! in the L2 from the call before (an fp8 32 x 6144 x 4096 GEMM's 25 MB of
//! weights in the H100's 50 MB L2, issue 53), so the cold figure is no
//! bound there. The warm bound drops that assumption: at most the L2's
//! capacity of what a call reads can be on chip when it starts, and every
//! byte it moves passes through the L2, so
//!
//!   warm = max(FLOPs / peak, (streamed - L2) / HBM, bytes / L2 bandwidth)
//!
//! with `streamed` the bytes a cold call must read from HBM (each operand
//! once) and `bytes` all the bytes it moves. It holds whatever the cache
//! held before the call.

use super::roof::Roof;
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::Hardware;
use crate::units::{self, si};
use serde::Serialize;

/// The L2 a warm bound needs: its capacity on the chip and its bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct L2 {
    /// Capacity on the chip, bytes.
    pub capacity: f64,
    /// Bandwidth on the chip, bytes/s.
    pub bandwidth: f64,
}

impl L2 {
    /// The `l2` level of `hw`, where its file records both its capacity and
    /// its bandwidth (`bandwidth`, or `bytes-per-cycle` x count x clock).
    pub fn of(hw: &Hardware) -> Option<L2> {
        let l = hw.memory.levels.iter().find(|l| l.name == "l2")?;
        // A chip-wide level is one unit; a per-die one counts its dies.
        let n = l.count.map_or(1.0, |c| f64::from(c.get()));
        let bandwidth = match (l.bandwidth, l.bytes_per_cycle, hw.compute.clock) {
            (Some(b), _, _) => b.get(),
            (None, Some(bpc), Some(c)) => bpc * n * c.get(),
            _ => return None,
        };
        (bandwidth > 0.0).then_some(L2 {
            capacity: l.capacity.get() * n,
            bandwidth,
        })
    }
}

/// A call's time with a warm L2, each term and their maximum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Warm {
    /// The L2 it assumes.
    pub l2: L2,
    /// Bytes that may be on chip when the calls start: the L2's capacity
    /// once a call.
    pub on_chip: f64,
    /// FLOPs / peak.
    pub compute_s: f64,
    /// What must still come from HBM, over the HBM bandwidth.
    pub hbm_s: f64,
    /// Every byte moved, over the L2's bandwidth.
    pub l2_s: f64,
    /// The largest of the three: the bound.
    pub time_s: f64,
    /// Whether everything the call streams fits the L2 (then a warm call
    /// need read nothing from HBM).
    pub resident: bool,
}

/// The warm bound of `calls` calls (a chunked prefill's chunks) of `flops`
/// in all on `roof` that must stream `streamed` bytes cold and move `bytes`
/// in all: each call starts with at most the L2's capacity on chip.
pub fn warm(roof: &Roof, l2: L2, flops: f64, streamed: f64, bytes: f64, calls: f64) -> Warm {
    let compute_s = flops / roof.peak;
    let on_chip = l2.capacity * calls.max(1.0);
    let hbm_s = (streamed - on_chip).max(0.0) / roof.bandwidth;
    let l2_s = bytes.max(streamed) / l2.bandwidth;
    Warm {
        l2,
        on_chip,
        compute_s,
        hbm_s,
        l2_s,
        time_s: compute_s.max(hbm_s).max(l2_s),
        resident: streamed <= on_chip,
    }
}

/// Records `warm_l2_time_s` (labelled `what`) with its derivation, and
/// the note saying what the speed of light assumes about the L2.
pub fn record(r: &mut Report, roof: &Roof, w: &Warm, what: &str, streamed: f64, bytes: f64) {
    r.result("warm_l2_time_s", w.time_s, || {
        Quantity::new(format!("{what} with a warm L2 (a bound)"), Unit::Seconds)
            .formula("max(FLOPs / peak, (streamed - L2) / bandwidth, bytes / L2 bandwidth)")
            .derive(format!(
                "max({}, ({} - {}) / {}, {} / {})",
                units::seconds(w.compute_s),
                si(streamed, "B"),
                si(w.on_chip, "B"),
                si(roof.bandwidth, "B/s"),
                si(bytes.max(streamed), "B"),
                si(w.l2.bandwidth, "B/s")
            ))
    });
    r.note_with(|| {
        if w.resident {
            format!(
                "the speed of light assumes a cold L2 (every operand read from HBM once a call); what this call streams ({}) fits the {} L2, so called back to back it may stay on chip: warm_l2_time_s, priced at the L2's {}, is the bound then (formulas.md, The speed of light with a warm L2)",
                si(streamed, "B"),
                si(w.l2.capacity, "B"),
                si(w.l2.bandwidth, "B/s")
            )
        } else {
            format!(
                "the speed of light assumes a cold L2 (every operand read from HBM once a call); called back to back at most the {} L2's worth can stay on chip, so warm_l2_time_s is the bound for any cache state (formulas.md, The speed of light with a warm L2)",
                si(w.l2.capacity, "B")
            )
        }
    });
}

/// The note for a device whose file lacks the L2's bandwidth: the speed of
/// light assumes a cold L2 and no warm bound is priced.
pub fn note_cold(r: &mut Report) {
    r.note("the speed of light assumes a cold L2 (every operand read from HBM once a call); the file lacks the L2's capacity or bandwidth, so no warm-cache bound is priced and back-to-back calls whose operands stay in a cache may beat it");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_term_binds() {
        let roof = Roof {
            peak: 1e15,
            bandwidth: 1e12,
            integer: false,
        };
        let l2 = L2 {
            capacity: 10e6,
            bandwidth: 4e12,
        };
        // 30 MB streamed, 10 MB of it may be on chip: 20 MB from HBM, 20 us;
        // 40 MB through the L2 at 4 TB/s, 10 us; 1 GFLOP, 1 us.
        let w = warm(&roof, l2, 1e9, 30e6, 40e6, 1.0);
        assert!((w.hbm_s - 20e-6).abs() < 1e-12);
        assert!((w.l2_s - 10e-6).abs() < 1e-12);
        assert!((w.time_s - 20e-6).abs() < 1e-12);
        assert!(!w.resident);
        // 8 MB fits: nothing from HBM, 40 MB at the L2's rate binds.
        let w = warm(&roof, l2, 1e9, 8e6, 40e6, 1.0);
        assert_eq!(w.hbm_s, 0.0);
        assert!((w.time_s - 10e-6).abs() < 1e-12);
        assert!(w.resident);
        // Three chunks each start with 10 MB on chip: all 30 MB may be.
        assert_eq!(warm(&roof, l2, 1e9, 30e6, 40e6, 3.0).hbm_s, 0.0);
    }
}

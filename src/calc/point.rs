//! `point`: where a kernel sits on the roofline of one accelerator at one
//! precision: the ridge point, the throughput its arithmetic intensity can
//! reach, whether memory or compute binds it, and, given its FLOPs and
//! bytes, its time (formulas.md, "Roofline point"; 002 §7.7 and §7.8).

use crate::error::Result;
use crate::precision::Precision;
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, si};

/// What the kernel is: an intensity, or its FLOPs and bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Work {
    /// Arithmetic intensity (FLOP per byte of memory traffic).
    Intensity(f64),
    /// Total floating-point operations and bytes moved.
    Totals {
        /// FLOPs.
        flops: f64,
        /// Bytes to and from device memory.
        bytes: f64,
    },
}

use super::positive;

/// `point`: the roofline at `p` on `hw`, evaluated at `work`.
pub fn point(hw: &Hardware, p: &Precision, mode: Mode, work: Work) -> Result<Report> {
    let peak = hw.peak(p, mode)?;
    let bw = hw.bandwidth(mode)?;
    let mut r = Report::new("point");
    r.hardware = Some(hw.id.clone());
    r.input("dtype", p.name);
    if mode == Mode::Achievable {
        r.input("achievable", true);
    }
    let (peak_field, bw_field) = match mode {
        Mode::SpeedOfLight => (
            format!("compute.dense.{}", p.compute),
            "memory.hbm-bandwidth",
        ),
        Mode::Achievable => (
            format!("achievable.dense.{}", p.compute),
            "achievable.hbm-bandwidth",
        ),
    };
    let intensity = match work {
        Work::Intensity(i) => {
            let i = positive("--intensity", i)?;
            r.input("intensity", i);
            i
        }
        Work::Totals { flops, bytes } => {
            let f = positive("--flops", flops)?;
            let b = positive("--bytes", bytes)?;
            r.input("flops", f);
            r.input("bytes", b);
            r.describe("flops", Quantity::new("FLOPs", Unit::Flop));
            r.describe("bytes", Quantity::new("bytes moved", Unit::Bytes));
            f / b
        }
    };
    r.result(
        "peak_flops_per_s",
        peak,
        Quantity::new("peak", Unit::FlopPerSec).source(hw.source(&peak_field)),
    );
    r.result(
        "bandwidth_bytes_per_s",
        bw,
        Quantity::new("memory bandwidth", Unit::BytesPerSec).source(hw.source(bw_field)),
    );
    let ridge = super::roof::ridge(&mut r, peak, bw);
    let mut iq = Quantity::new("arithmetic intensity", Unit::FlopPerByte);
    if let Work::Totals { flops, bytes } = work {
        iq = iq.formula("FLOPs / bytes").derive(format!(
            "{} / {}",
            si(flops, "FLOP"),
            si(bytes, "B")
        ));
    }
    r.result("intensity_flop_per_byte", intensity, iq);
    let attainable = super::roof::attainable(
        &mut r,
        &super::roof::AttainableKeys {
            attainable: "attainable_flops_per_s",
            attainable_label: "attainable throughput",
            fraction: "fraction_of_peak",
            fraction_label: "fraction of peak",
        },
        peak,
        intensity,
        bw,
    );
    // At the ridge both roofs meet; call it compute-bound there, as the
    // machine is then at peak.
    let memory_bound = intensity < ridge;
    r.result(
        "bound",
        if memory_bound { "memory" } else { "compute" },
        Quantity::new("bound", Unit::None)
            .formula("memory if intensity < ridge point, else compute"),
    );
    if let Work::Totals { flops, bytes } = work {
        let tc = flops / peak;
        let tm = bytes / bw;
        r.result(
            "compute_time_s",
            tc,
            Quantity::new("compute time", Unit::Seconds)
                .formula("FLOPs / peak")
                .derive(format!("{} / {}", si(flops, "FLOP"), si(peak, "FLOP/s"))),
        );
        r.result(
            "memory_time_s",
            tm,
            Quantity::new("memory time", Unit::Seconds)
                .formula("bytes / bandwidth")
                .derive(format!("{} / {}", si(bytes, "B"), si(bw, "B/s"))),
        );
        r.result(
            "time_s",
            tc.max(tm),
            Quantity::new("time (speed of light)", Unit::Seconds)
                .formula("max(FLOPs / peak, bytes / bandwidth)")
                .derive(format!(
                    "max({}, {})",
                    units::seconds(tc),
                    units::seconds(tm)
                )),
        );
    }
    if memory_bound {
        r.note(format!(
            "memory-bound: intensity {} FLOP/B is {}x below the ridge ({} FLOP/B); at most {}% of peak",
            units::sig(intensity, 4),
            units::sig(ridge / intensity, 4),
            units::sig(ridge, 4),
            units::sig(attainable / peak * 100.0, 3)
        ));
    } else {
        r.note(format!(
            "compute-bound: intensity {} FLOP/B is {}x the ridge ({} FLOP/B)",
            units::sig(intensity, 4),
            units::sig(intensity / ridge, 4),
            units::sig(ridge, 4)
        ));
    }
    r.note(match mode {
        Mode::SpeedOfLight => "speed of light: datasheet peak and bandwidth; real kernels reach less (--achievable uses the file's measured figures, an error where it has none)",
        Mode::Achievable => "achievable: measured figures from the hardware file, not the datasheet",
    });
    Ok(r)
}

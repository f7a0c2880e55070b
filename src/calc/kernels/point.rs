//! `point`: where a kernel sits on the roofline of one accelerator at one
//! precision: the ridge point, the throughput its arithmetic intensity can
//! reach, whether memory or compute binds it, and, given its FLOPs and
//! bytes, its time (formulas.md, "Roofline point"; 002 §7.7 and §7.8).

use crate::calc::roof::{self, Bound, Roof, RoofTime};
use crate::error::{Error, Result};
use crate::inputs::{Bytes, Flop, Number, positive};
use crate::precision::Precision;
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, si};
use serde::{Deserialize, Serialize};

/// `point`'s inputs: an intensity, or a kernel's FLOPs and bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PointInputs {
    /// Arithmetic intensity, FLOP per byte.
    pub intensity: Option<Number>,
    /// Total floating-point operations (needs `bytes`).
    pub flops: Option<Flop>,
    /// Bytes to and from device memory (needs `flops`).
    pub bytes: Option<Bytes>,
    /// Precision (default: the hardware's `default-dtype`).
    pub dtype: Option<String>,
    /// Use the 2:4 structured-sparsity peak (default false).
    pub sparse: Option<crate::calc::hw::Switch>,
}

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

impl PointInputs {
    /// Inputs for an intensity at a precision.
    pub fn at_intensity(intensity: f64, dtype: &str) -> Self {
        PointInputs {
            intensity: Some(Number(intensity)),
            dtype: Some(dtype.into()),
            ..Default::default()
        }
    }

    /// Inputs for a kernel's FLOPs and bytes at a precision.
    pub fn totals(flops: f64, bytes: f64, dtype: &str) -> Self {
        PointInputs {
            flops: Some(Flop(flops)),
            bytes: Some(Bytes(bytes)),
            dtype: Some(dtype.into()),
            ..Default::default()
        }
    }

    /// The work the inputs describe, validated: exactly one of `intensity`
    /// or the (`flops`, `bytes`) pair, each finite and above zero.
    pub fn work(&self) -> Result<Work> {
        match (self.intensity, self.flops, self.bytes) {
            (Some(i), None, None) => Ok(Work::Intensity(positive("intensity", i.0)?)),
            (None, Some(f), Some(b)) => Ok(Work::Totals {
                flops: positive("flops", f.0)?,
                bytes: positive("bytes", b.0)?,
            }),
            // Which inputs are given is the same at every point of a
            // sweep, so a sweep stops at its first point (`refused_by`).
            (Some(_), _, _) => Err(crate::inputs::refused_by(
                &[],
                Error::field(
                    "intensity",
                    "give an intensity, or flops and bytes, not both",
                ),
            )),
            (None, Some(_), None) => {
                Err(Error::missing_input("bytes", "flops needs bytes as well"))
            }
            (None, None, Some(_)) => {
                Err(Error::missing_input("flops", "bytes needs flops as well"))
            }
            (None, None, None) => Err(Error::missing_input(
                "intensity",
                "give an intensity, or flops and bytes",
            )),
        }
    }
}

/// A kernel on a roofline: every figure `point` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointCost {
    /// The hardware's id.
    pub hardware: String,
    /// The precision.
    pub dtype: &'static str,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// Whether the peak is the 2:4 sparse one.
    pub sparse: bool,
    /// The roof at that precision.
    pub roof: Roof,
    /// Where the peak and the bandwidth come from.
    pub sources: (Option<String>, Option<String>),
    /// The work evaluated.
    pub work: Work,
    /// FLOP per byte.
    pub intensity: f64,
    /// min(peak, intensity x bandwidth).
    pub attainable: f64,
    /// Memory or compute.
    pub bound: Bound,
    /// The time, when FLOPs and bytes were given.
    pub time: Option<RoofTime>,
    /// Board power (and, given FLOPs and bytes, energy) of the work
    /// (formulas.md, "Power and energy").
    pub energy: crate::calc::power::Energy,
}

impl Serialize for Work {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Work::Intensity(i) => s.serialize_f64(*i),
            Work::Totals { flops, bytes } => (flops, bytes).serialize(s),
        }
    }
}

/// `point`'s cost: the roof of `hw` at the inputs' precision, evaluated at
/// their work.
pub fn cost(hw: &Hardware, inputs: &PointInputs, mode: Mode) -> Result<PointCost> {
    let p: &Precision = hw.precision(inputs.dtype.as_deref())?;
    let sparse = inputs.sparse.is_some_and(|s| s.0);
    let roof = if sparse {
        Roof {
            peak: hw.sparse_peak(p, mode)?,
            bandwidth: hw.bandwidth(mode)?,
            integer: p.integer(),
        }
    } else {
        Roof::of(hw, p, mode)?
    };
    let work = inputs.work()?;
    let intensity = match work {
        Work::Intensity(i) => i,
        Work::Totals { flops, bytes } => flops / bytes,
    };
    if intensity == 0.0 || !intensity.is_finite() {
        return Err(Error::field(
            if matches!(work, Work::Intensity(_)) {
                "intensity"
            } else {
                "flops"
            },
            format!(
                "the intensity {} is outside what can be computed with; give values whose ratio is a finite number above zero",
                Unit::FlopPerByte.ops_if(p.integer()).format(intensity)
            ),
        ));
    }
    let (peak_field, bw_field) = match mode {
        Mode::SpeedOfLight if sparse => (
            format!("compute.sparse.{}", p.compute),
            "memory.hbm-bandwidth",
        ),
        Mode::SpeedOfLight => (
            format!("compute.dense.{}", p.compute),
            "memory.hbm-bandwidth",
        ),
        Mode::Achievable => (
            format!("achievable.dense.{}", p.compute),
            "achievable.hbm-bandwidth",
        ),
    };
    let time = match work {
        Work::Intensity(_) => None,
        Work::Totals { flops, bytes } => Some(roof.time(flops, bytes)),
    };
    // An intensity alone has a power (its FLOPs and bytes per second) but
    // no energy: price one byte's worth and record only the power.
    let (flops, bytes, per) = match work {
        Work::Totals { flops, bytes } => (flops, bytes, crate::calc::power::Per::Work),
        Work::Intensity(i) => (i, 1.0, crate::calc::power::Per::Rate),
    };
    let t = roof.time(flops, bytes).time_s;
    let energy = crate::calc::power::Energy::new(
        crate::calc::power::PowerModel::of(hw, p.compute).map(|pm| pm.draw(t, flops, bytes)),
        t,
        mode,
        1.0,
        0.0,
        per,
    );
    Ok(PointCost {
        hardware: hw.id.clone(),
        dtype: p.name,
        mode,
        sparse,
        roof,
        sources: (
            hw.source(&peak_field).map(String::from),
            hw.source(bw_field).map(String::from),
        ),
        work,
        intensity,
        attainable: roof.attainable(intensity),
        bound: roof.bound(intensity),
        time,
        energy,
    })
}

impl PointCost {
    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let roof = &self.roof;
        // An int8 roof counts operations: OP, OP/s, OP/B.
        let u = |unit: Unit| roof.unit(unit);
        let mut r = Report::new_lean("point", lean);
        r.hardware = Some(self.hardware.clone());
        r.input("dtype", self.dtype);
        if self.sparse {
            r.input("sparse", true);
        }
        if self.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        match self.work {
            Work::Intensity(i) => r.input("intensity", i),
            Work::Totals { flops, bytes } => {
                r.input("flops", flops);
                r.input("bytes", bytes);
                r.describe("flops", || {
                    Quantity::new(if roof.integer { "OPs" } else { "FLOPs" }, u(Unit::Flop))
                });
                r.describe("bytes", || Quantity::new("bytes moved", Unit::Bytes));
            }
        }
        r.result("peak_flops_per_s", roof.peak, || {
            let label = if self.sparse {
                "peak, 2:4 sparse"
            } else {
                "peak"
            };
            Quantity::new(label, u(Unit::FlopPerSec)).source(self.sources.0.as_deref())
        });
        r.result("bandwidth_bytes_per_s", roof.bandwidth, || {
            Quantity::new("memory bandwidth", Unit::BytesPerSec).source(self.sources.1.as_deref())
        });
        let ridge = roof::ridge(&mut r, roof);
        r.result("intensity_flop_per_byte", self.intensity, || {
            let q = Quantity::new("arithmetic intensity", u(Unit::FlopPerByte));
            match self.work {
                Work::Totals { flops, bytes } => q.formula("FLOPs / bytes").derive(format!(
                    "{} / {}",
                    u(Unit::Flop).format(flops),
                    si(bytes, "B")
                )),
                Work::Intensity(_) => q,
            }
        });
        roof::attainable(&mut r, &roof::ATTAINABLE, roof, self.intensity);
        r.result("bound", self.bound.as_str(), || {
            Quantity::new("bound", Unit::None)
                .formula("memory if intensity < ridge point, else compute")
        });
        if let (Some(t), Work::Totals { flops, bytes }) = (self.time, self.work) {
            roof::times(&mut r, roof, &t, flops, bytes);
            r.result("time_s", t.time_s, || {
                Quantity::new("time (speed of light)", Unit::Seconds)
                    .formula("max(FLOPs / peak, bytes / bandwidth)")
                    .derive(format!(
                        "max({}, {})",
                        units::seconds(t.compute_s),
                        units::seconds(t.memory_s)
                    ))
            });
        }
        self.energy.record(&mut r);
        let intensity = self.intensity;
        let attainable = self.attainable;
        r.note_with(|| {
            let per_byte = u(Unit::FlopPerByte);
            match self.bound {
                Bound::Memory => format!(
                    "memory-bound: intensity {} is {}x below the ridge ({}); at most {}% of peak",
                    per_byte.format(intensity),
                    units::number(ridge / intensity),
                    per_byte.format(ridge),
                    units::percent(attainable / roof.peak)
                ),
                Bound::Compute => format!(
                    "compute-bound: intensity {} is {}x the ridge ({})",
                    per_byte.format(intensity),
                    units::number(intensity / ridge),
                    per_byte.format(ridge)
                ),
            }
        });
        if let Some(n) = crate::precision::lookup(self.dtype)
            .ok()
            .and_then(|p| p.compute_note())
        {
            r.note(n);
        }
        r.note(match self.mode {
            Mode::SpeedOfLight => "speed of light: datasheet peak and bandwidth; real kernels reach less (--achievable uses the file's measured figures, an error where it has none)",
            Mode::Achievable => "achievable: measured figures from the hardware file, not the datasheet",
        });
        r
    }
}

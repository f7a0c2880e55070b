//! `hw show`'s figures at one precision: the typed [`HwCost`] and
//! [`cost`], which computes it.

use super::{HwShowInputs, onchip_bytes};
use crate::calc::roof::Roof;
use crate::error::Result;
use crate::inputs::positive;
use crate::precision;
use crate::spec::hardware::{Hardware, Mode};
use serde::Serialize;

/// One precision's peaks, for the table of every precision a part has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrecisionPeaks {
    /// The compute key (`bf16`).
    pub precision: &'static str,
    /// Dense peak (measured with `--achievable`).
    pub dense: f64,
    /// The 2:4 sparse peak, where published (datasheet mode only).
    pub sparse: Option<f64>,
    /// Dense peak / bandwidth, where there is a bandwidth.
    pub ridge: Option<f64>,
    /// Whether the peaks count integer operations (OP/s).
    pub integer: bool,
}

/// Every figure `hw show` reports for one accelerator at one precision;
/// the rest of the datasheet is read from `hardware` as the file has it.
#[derive(Debug, Clone, Serialize)]
pub struct HwCost<'a> {
    /// The file.
    #[serde(skip)]
    pub hardware: &'a Hardware,
    /// The precision.
    pub dtype: &'static str,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// Whether the peak is the 2:4 sparse one.
    pub sparse: bool,
    /// Whether the precision computes on integer units (its peak in OP/s).
    pub integer: bool,
    /// The peak at the precision (FLOP/s, or OP/s) and the field it comes
    /// from.
    pub peak: f64,
    /// `compute.dense.bf16`, `compute.sparse.fp8`, `achievable.dense.bf16`.
    pub peak_field: String,
    /// Memory bandwidth (B/s); none with `--achievable` on a file that has
    /// measured compute rates but no measured bandwidth.
    pub bandwidth: Option<f64>,
    /// The field the bandwidth comes from.
    pub bandwidth_field: &'static str,
    /// Peak and bandwidth, where both are known.
    pub roof: Option<Roof>,
    /// Datasheet capacity (bytes) and whether the vendor states it in GiB.
    pub capacity: Option<(f64, bool)>,
    /// What the runtime reports as the device's memory (bytes).
    pub usable_capacity: Option<f64>,
    /// The whole chip's vendor-stated peak at the precision, where it
    /// differs from the per-core peaks times cores (Trainium3).
    pub chip_peak: Option<f64>,
    /// Board power (W).
    pub board_power: Option<f64>,
    /// peak / board power (FLOP/s per W).
    pub flops_per_watt: Option<f64>,
    /// Total on-chip storage (bytes) and its terms.
    pub onchip: (f64, Vec<String>),
    /// The clock of per-cycle figures (Hz), where known.
    pub clock_hz: Option<f64>,
    /// Whether the clock was given rather than the file's.
    pub clock_given: bool,
    /// SMs / CUs.
    pub sms: Option<f64>,
    /// The memory latency Little's law uses (seconds), how it was derived,
    /// and the field it comes from.
    pub latency: Option<MemoryLatency>,
    /// bandwidth x latency (bytes).
    pub bytes_in_flight: Option<f64>,
    /// Every precision's peaks.
    pub precisions: Vec<PrecisionPeaks>,
}

/// The memory latency behind bytes in flight.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum MemoryLatency {
    /// The file's latency in cycles, over the clock.
    Cycles {
        /// Cycles.
        cycles: f64,
        /// Seconds (cycles / clock).
        seconds: f64,
    },
    /// A time: the measured pointer-chase latency (`--achievable`) or the
    /// file's `dram-latency-time`.
    Seconds {
        /// Seconds.
        seconds: f64,
        /// Whether it is the measured `achievable.dram-latency`.
        measured: bool,
    },
}

impl MemoryLatency {
    /// The latency in seconds.
    pub fn seconds(self) -> f64 {
        match self {
            MemoryLatency::Cycles { seconds, .. } | MemoryLatency::Seconds { seconds, .. } => {
                seconds
            }
        }
    }
}

/// `hw show`'s figures: the peak and roof at the inputs' precision (dense
/// or 2:4 sparse; datasheet or measured), capacity beside the runtime's
/// usable figure, compute per watt, per-SM shares of bandwidth, and the
/// bytes in flight Little's law needs (formulas.md, "Hardware figures";
/// 002 §7.3, 004 Latency hiding).
pub fn cost<'a>(hw: &'a Hardware, inputs: &HwShowInputs, mode: Mode) -> Result<HwCost<'a>> {
    let p = hw.precision(inputs.dtype.as_deref())?;
    let sparse = inputs.sparse.is_some_and(|s| s.0);
    let (peak, peak_field) = if sparse {
        (
            hw.sparse_peak(p, mode)?,
            format!("compute.sparse.{}", p.compute),
        )
    } else {
        let field = match mode {
            Mode::SpeedOfLight => format!("compute.dense.{}", p.compute),
            Mode::Achievable => format!("achievable.dense.{}", p.compute),
        };
        (hw.peak(p, mode)?, field)
    };
    let (bandwidth, bandwidth_field) = match mode {
        Mode::SpeedOfLight => (Some(hw.bandwidth(mode)?), "memory.hbm-bandwidth"),
        Mode::Achievable => (
            hw.achievable
                .as_ref()
                .and_then(|a| a.hbm_bandwidth)
                .map(|b| b.get()),
            "achievable.hbm-bandwidth",
        ),
    };
    let clock_hz = match inputs.clock {
        Some(c) => Some(positive("clock", c.0)?),
        None => hw.compute.clock.map(|c| c.get()),
    };
    let measured_latency = hw.achievable.as_ref().and_then(|a| a.dram_latency);
    let latency = match (mode, measured_latency) {
        (Mode::Achievable, Some(t)) => Some(MemoryLatency::Seconds {
            seconds: t.get(),
            measured: true,
        }),
        _ => match (
            hw.memory.dram_latency,
            clock_hz,
            hw.memory.dram_latency_time,
        ) {
            (Some(c), Some(f), _) => Some(MemoryLatency::Cycles {
                cycles: c.get(),
                seconds: c.get() / f,
            }),
            (_, _, Some(t)) => Some(MemoryLatency::Seconds {
                seconds: t.get(),
                measured: false,
            }),
            _ => None,
        },
    };
    let board_power = hw.board_power();
    let precisions = hw
        .compute
        .dense
        .keys()
        .into_iter()
        .filter_map(|key| {
            let pp = precision::ALL.iter().find(|x| x.name == key)?;
            let dense = hw.peak(pp, mode).ok()?;
            let sparse = (mode == Mode::SpeedOfLight)
                .then(|| hw.sparse_peak(pp, mode).ok())
                .flatten();
            Some(PrecisionPeaks {
                precision: key,
                dense,
                sparse,
                ridge: bandwidth.map(|b| dense / b),
                integer: pp.integer(),
            })
        })
        .collect();
    Ok(HwCost {
        hardware: hw,
        dtype: p.name,
        mode,
        sparse,
        integer: p.integer(),
        peak,
        peak_field,
        bandwidth,
        bandwidth_field,
        roof: bandwidth.map(|b| Roof {
            peak,
            bandwidth: b,
            integer: p.integer(),
        }),
        capacity: hw
            .memory
            .hbm_capacity
            .map(|c| (c.get(), hw.capacity_is_binary())),
        usable_capacity: hw.usable_capacity(),
        chip_peak: if sparse || mode == Mode::Achievable {
            None
        } else {
            hw.compute.chip.as_ref().and_then(|c| c.get(p.compute))
        },
        board_power,
        flops_per_watt: board_power.map(|w| peak / w),
        onchip: onchip_bytes(hw),
        clock_hz,
        clock_given: inputs.clock.is_some(),
        sms: hw.execution.as_ref().map(|e| f64::from(e.sms.get())),
        bytes_in_flight: match (bandwidth, latency) {
            (Some(b), Some(l)) => Some(b * l.seconds()),
            _ => None,
        },
        latency,
        precisions,
    })
}

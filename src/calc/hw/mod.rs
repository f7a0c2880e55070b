//! `hw show` and `hw list`: an accelerator's datasheet numbers and the
//! figures derived from them (formulas.md, "Hardware figures"; 002 §7.3).
//! `hw show` is a typed query: [`HwShowInputs`] in, [`cost`] to an
//! [`HwCost`] of every figure, [`HwCost::report`] to a report.

use super::roof::Roof;
use crate::error::Result;
use crate::inputs::{Hz, positive};
use crate::precision::{self, Precision};
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::spec::hardware::{Hardware, Mode, PeakScope, Scope};
use crate::units::{self, si};
use serde::{Deserialize, Serialize};

/// The slowest and fastest boost clocks of the built-in catalog, in Hz: TPU
/// v1's 700 MHz (the GPU-architecture lecture (002), §7.12) and the 2.4 GHz
/// of the MI355X (AMD's datasheet, peak engine clock) and Trainium3 (the
/// Learn Kernels book (000), §6.2). A test holds them to the catalog.
pub const CATALOG_CLOCK_RANGE_HZ: (f64, f64) = (700e6, 2.4e9);

/// A warning when the clock that per-cycle figures use is far outside what
/// hardware runs at: more than twice, or less than a tenth of, the file's
/// boost clock when a clock is given (`--clock`), or of the catalog's
/// fastest or slowest boost clock otherwise (the file's own, as `--set
/// compute.clock` may have made it). No part runs there, so the figure is
/// likely a unit slip (`1e99GHz`, MHz for GHz). Every command that uses a
/// clock (`hw show`, `littles-law`) notes it in these words.
pub fn clock_note(hw: &Hardware, given: Option<f64>) -> Option<String> {
    let boost = hw.compute.clock.map(|c| c.get());
    let clock = given.or(boost)?;
    let (slowest, fastest) = CATALOG_CLOCK_RANGE_HZ;
    let plausible = |c: f64| (slowest / 10.0..=2.0 * fastest).contains(&c);
    let hz = |c: f64| si(c, "Hz");
    let (low, high) = match boost {
        Some(b) if given.is_some() && plausible(b) => {
            let theirs = format!("{}'s boost clock {}", hw.id, hz(b));
            ((b, theirs.clone()), (b, theirs))
        }
        _ => (
            (
                slowest,
                format!("the slowest boost clock in the catalog ({})", hz(slowest)),
            ),
            (
                fastest,
                format!("the fastest boost clock in the catalog ({})", hz(fastest)),
            ),
        ),
    };
    if clock > 2.0 * high.0 {
        Some(format!(
            "warning: the clock {} is more than twice {}: check the unit",
            hz(clock),
            high.1
        ))
    } else if clock < low.0 / 10.0 {
        Some(format!(
            "warning: the clock {} is less than a tenth of {}: check the unit",
            hz(clock),
            low.1
        ))
    } else {
        None
    }
}

/// Number of units of an on-chip level's scope on the chip.
pub fn level_count(hw: &Hardware, scope: Scope, count: Option<u32>) -> f64 {
    if let Some(c) = count {
        return f64::from(c);
    }
    match scope {
        Scope::Sm => hw
            .execution
            .as_ref()
            .map_or(1.0, |e| f64::from(e.sms.get())),
        Scope::Core => hw.compute.cores.map_or(1.0, |c| f64::from(c.get())),
        Scope::Die | Scope::Chip => 1.0,
    }
}

/// Total on-chip storage: every level that counts toward the total, times
/// the number of its scope units (the lecture's §7.3: registers + SMEM +
/// L2). Each level is written as its own row shows it (NVIDIA's "50 MB"
/// of L2, not 47.68 MiB).
pub fn onchip_bytes(hw: &Hardware) -> (f64, Vec<String>) {
    let mut total = 0.0;
    let mut terms = Vec::new();
    for l in hw.memory.levels.iter().filter(|l| l.counts_toward_total) {
        let n = level_count(hw, l.scope, l.count.map(|c| c.get()));
        total += l.capacity.get() * n;
        if n == 1.0 {
            terms.push(format!(
                "{} {}",
                Unit::BytesIec.format(l.capacity.get()),
                l.name
            ));
        } else {
            terms.push(format!(
                "{} x {} {}",
                n,
                Unit::BytesIec.format(l.capacity.get()),
                l.name
            ));
        }
    }
    (total, terms)
}

/// An on/off input that reads from a boolean or from the text a flag or a
/// sweep gives (`true`, `false`, `yes`, `no`, `1`, `0`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Switch(pub bool);

impl<'de> Deserialize<'de> for Switch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Switch;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true or false")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Switch, E> {
                Ok(Switch(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Switch, E> {
                match v.trim().to_ascii_lowercase().as_str() {
                    "true" | "yes" | "on" | "1" => Ok(Switch(true)),
                    "false" | "no" | "off" | "0" => Ok(Switch(false)),
                    _ => Err(E::custom(format!("`{v}`: expected true or false"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// `hw show`'s inputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HwShowInputs {
    /// Precision of the headline peak and ridge point (default: the file's
    /// `default-dtype`).
    pub dtype: Option<String>,
    /// Clock for per-cycle figures (default: the file's boost clock).
    pub clock: Option<Hz>,
    /// Use the 2:4 structured-sparsity peaks (default false; an error where
    /// the file has none at the precision).
    pub sparse: Option<Switch>,
}

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

impl HwCost<'_> {
    /// The report: headline figures at the precision, the datasheet with
    /// each figure's source, and a table of every precision's peaks. A lean
    /// report records values only.
    pub fn report(&self, lean: bool) -> Report {
        let hw = self.hardware;
        let mut r = Report::new_lean("hw show", lean);
        r.hardware = Some(hw.id.clone());
        r.input("dtype", self.dtype);
        if self.sparse {
            r.input("sparse", true);
        }
        if self.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        let src = |f: &str| hw.source(f).map(String::from);
        r.result("name", hw.name.as_str(), || {
            Quantity::new("name", Unit::None)
        });
        r.result("vendor", hw.vendor.as_str(), || {
            Quantity::new("vendor", Unit::None)
        });
        r.result("kind", hw.kind.as_str(), || {
            Quantity::new("kind", Unit::None)
        });

        let peak = self.peak;
        // int8 peaks count integer operations: OP/s, not FLOP/s.
        let rate = Unit::FlopPerSec.ops_if(self.integer);
        r.result("peak_flops_per_s", peak, || {
            let what = match (self.sparse, self.mode) {
                (true, _) => "peak, 2:4 sparse",
                (false, Mode::Achievable) => "peak, measured matmul",
                (false, Mode::SpeedOfLight) => "peak",
            };
            let what = if hw.compute.peak_scope == PeakScope::Core {
                format!("{what} (per-core engines x cores)")
            } else {
                what.to_string()
            };
            let mut q = Quantity::new(what, rate).source(src(&self.peak_field).as_deref());
            if hw.peak_multiplier() != 1.0 && self.mode == Mode::SpeedOfLight {
                q = q.formula("per-core peak x cores").derive(format!(
                    "{} x {}",
                    rate.format(peak / hw.peak_multiplier()),
                    units::number(hw.peak_multiplier())
                ));
            }
            q
        });
        if let Some(c) = self.chip_peak {
            r.result("chip_peak_flops_per_s", c, || {
                Quantity::new("peak, whole chip as the vendor states it", rate)
                    .source(src(&format!("compute.chip.{}", self.dtype_key())).as_deref())
            });
        }
        if let Some(bw) = self.bandwidth {
            r.result("hbm_bandwidth_bytes_per_s", bw, || {
                let label = if self.mode == Mode::Achievable {
                    "memory bandwidth, measured"
                } else {
                    "memory bandwidth"
                };
                Quantity::new(label, Unit::BytesPerSec).source(hw.source(self.bandwidth_field))
            });
        }
        if let Some((c, binary)) = self.capacity {
            r.result("hbm_capacity_bytes", c, || {
                // The vendor's unit: 144 GiB stays 144 GiB.
                let unit = if binary { Unit::BytesIec } else { Unit::Bytes };
                Quantity::new("memory capacity (datasheet)", unit)
                    .source(hw.source("memory.hbm-capacity"))
            });
        }
        if let Some(u) = self.usable_capacity {
            r.result("usable_capacity_bytes", u, || {
                Quantity::new("memory capacity (runtime total)", Unit::Bytes)
                    .source(hw.source("memory.usable-capacity"))
            });
        }
        if let Some(roof) = &self.roof {
            super::roof::ridge(&mut r, roof);
        }
        if let (Some(w), Some(fw)) = (self.board_power, self.flops_per_watt) {
            r.result("flops_per_watt", fw, || {
                // The label names no unit: the value carries FLOP/s/W or
                // OP/s/W, and a comparison shows both under one label.
                Quantity::new(
                    "peak per W of board power",
                    Unit::FlopPerSecPerWatt.ops_if(self.integer),
                )
                .formula("peak / board power")
                .derive(format!("{} / {} W", rate.format(peak), units::number(w)))
            });
        }

        // Board energy per FLOP and per byte when the board runs flat out
        // on one engine (formulas.md, "Power and energy").
        let pm = super::power::PowerModel::of(hw, p_compute(self.dtype));
        r.result(
            "joules_per_flop",
            pm.as_ref().ok().map(|m| m.compute_w / m.compute_rate),
            || {
                let q = Quantity::new(
                    "board energy per FLOP at the sustained peak",
                    Unit::JoulesPerFlop,
                )
                .formula("package.compute-watts / achievable.sustained")
                .group("energy");
                match &pm {
                    Ok(m) => q.derive(format!(
                        "{} W / {} (of which {} W idle, {} W the loop's own memory traffic, {} W compute: {} dynamic)",
                        units::sig(m.compute_w, 4),
                        rate.format(m.compute_rate),
                        units::sig(m.idle_w, 4),
                        units::sig(m.compute_w - m.idle_w - m.compute_dynamic_w(), 4),
                        units::sig(m.compute_dynamic_w(), 4),
                        Unit::JoulesPerFlop.format(m.joules_per_flop())
                    )),
                    Err(_) => q,
                }
            },
        );
        let stream = hw.package.as_ref().and_then(|p| p.stream_watts).zip(
            hw.achievable
                .as_ref()
                .and_then(|a| a.hbm_bandwidth)
                .map(|b| b.get()),
        );
        let idle = hw.package.as_ref().and_then(|p| p.idle_watts);
        r.result("joules_per_hbm_byte", stream.map(|(w, b)| w / b), || {
            let q = Quantity::new("board energy per HBM byte streamed", Unit::JoulesPerByte)
                .formula("package.stream-watts / achievable.hbm-bandwidth")
                .group("energy");
            match (stream, idle) {
                (Some((w, b)), Some(i)) => q.derive(format!(
                    "{} W / {} (of which {} W idle: {} dynamic)",
                    units::sig(w, 4),
                    units::si(b, "B/s"),
                    units::sig(i, 4),
                    Unit::JoulesPerByte.format((w - i) / b)
                )),
                (Some((w, b)), None) => {
                    q.derive(format!("{} W / {}", units::sig(w, 4), units::si(b, "B/s")))
                }
                _ => q,
            }
        });
        if let Err(field) = &pm {
            r.note(format!(
                "energy per FLOP and per byte: the file has no {field}; set it with --set {field}=... (docs/data-schemas.md, \"[package]\"; a measured figure with its source)"
            ));
        }

        let (onchip, terms) = &self.onchip;
        if *onchip > 0.0 {
            r.result("onchip_bytes", *onchip, || {
                Quantity::new("on-chip storage", Unit::Bytes)
                    .formula("sum of on-chip levels x their count")
                    .derive(terms.join(" + "))
            });
        }
        if let Some(clock) = self.clock_hz {
            r.input("clock_hz", clock);
        }
        if let Some(sms) = self.sms {
            r.result("sms", sms, || {
                Quantity::new("SMs / CUs", Unit::Count).source(hw.source("execution.sms"))
            });
            if let Some(bw) = self.bandwidth {
                let per_sm = bw / sms;
                r.result("hbm_bandwidth_per_sm_bytes_per_s", per_sm, || {
                    Quantity::new("memory bandwidth per SM", Unit::BytesPerSec)
                        .formula("bandwidth / SMs")
                        .derive(format!("{} / {}", si(bw, "B/s"), sms))
                });
                if let Some(clock) = self.clock_hz {
                    r.result("hbm_bytes_per_cycle_per_sm", per_sm / clock, || {
                        Quantity::new("memory bytes per cycle per SM", Unit::BytesPerCycle)
                            .formula("bandwidth / SMs / clock")
                            .derive(format!("{} / {} / {}", si(bw, "B/s"), sms, si(clock, "Hz")))
                    });
                }
            }
        }
        if let (Some(bw), Some(lat), Some(inflight)) =
            (self.bandwidth, self.latency, self.bytes_in_flight)
        {
            r.result("littles_law_bytes_in_flight", inflight, || {
                let q = Quantity::new("bytes in flight to saturate memory", Unit::Bytes);
                match lat {
                    MemoryLatency::Cycles { cycles, .. } => q
                        .formula("bandwidth x latency / clock")
                        .derive(format!(
                            "{} x {} cycles / {}",
                            si(bw, "B/s"),
                            units::number(cycles),
                            si(self.clock_hz.unwrap_or(f64::NAN), "Hz")
                        ))
                        .source(hw.source("memory.dram-latency")),
                    MemoryLatency::Seconds { seconds, measured } => q
                        .formula("bandwidth x latency")
                        .derive(format!("{} x {}", si(bw, "B/s"), units::seconds(seconds)))
                        .source(if measured {
                            hw.source("achievable.dram-latency")
                        } else {
                            hw.source("memory.dram-latency-time")
                        }),
                }
            });
        }

        // The datasheet's figures are described even in a lean report: a
        // comparison's inner points may carry keys (a part's own levels and
        // links) that no full point describes.
        let lean_report = r.lean;
        r.lean = false;
        datasheet(&mut r, hw, self.clock_hz);
        r.lean = lean_report;

        // The columns are described in FLOP units unless every precision
        // is an integer one (TPU v1); an int8 row beside float ones carries
        // its own OP units.
        let all_integer =
            !self.precisions.is_empty() && self.precisions.iter().all(|pp| pp.integer);
        r.describe("precision", || Quantity::new("precision", Unit::None));
        r.describe("dense_flops_per_s", || {
            Quantity::new("dense peak", Unit::FlopPerSec.ops_if(all_integer))
        });
        r.describe("sparse_flops_per_s", || {
            Quantity::new("2:4 sparse peak", Unit::FlopPerSec.ops_if(all_integer))
        });
        r.describe("ridge_point_flop_per_byte", || {
            Quantity::new("ridge point", Unit::FlopPerByte.ops_if(all_integer))
        });
        r.describe("joules_per_flop", || {
            Quantity::new("J per FLOP, sustained", Unit::JoulesPerFlop)
        });
        {
            for pp in &self.precisions {
                let mut row = Row::default();
                row.inputs.insert("precision".into(), pp.precision.into());
                row.results
                    .insert("dense_flops_per_s".into(), pp.dense.into());
                if let Some(s) = pp.sparse {
                    row.results.insert("sparse_flops_per_s".into(), s.into());
                }
                if let Some(rp) = pp.ridge {
                    row.results
                        .insert("ridge_point_flop_per_byte".into(), rp.into());
                }
                row.results.insert(
                    "joules_per_flop".into(),
                    super::power::PowerModel::of(hw, pp.precision)
                        .ok()
                        .map(|m| m.compute_w / m.compute_rate)
                        .into(),
                );
                if pp.integer != all_integer {
                    for (k, u) in [
                        ("dense_flops_per_s", Unit::FlopPerSec),
                        ("sparse_flops_per_s", Unit::FlopPerSec),
                        ("ridge_point_flop_per_byte", Unit::FlopPerByte),
                    ] {
                        row.units.insert(k.into(), u.ops_if(pp.integer));
                    }
                }
                r.rows.push(row);
            }
            r.rows_kind = Some(RowsKind::Table);
            r.table_in_comparison = true;
        }
        if self.chip_peak.is_some() {
            r.note_with(|| {
                format!(
                    "{}: the headline peak is the per-core engines' rate times {} cores; the chip peak is the vendor's figure for all engines together",
                    hw.id,
                    units::number(hw.peak_multiplier())
                )
            });
        }
        for (key, format) in [
            ("fp8", hw.compute.fp8_format.as_deref()),
            ("fp4", hw.compute.fp4_format.as_deref()),
        ] {
            if let Some(f) = format
                && self.precisions.iter().any(|pp| pp.precision == key)
            {
                r.note_with(|| {
                    format!(
                        "{}'s {key} peak is for {} (microscaled, block-scaled), not plain {key}",
                        hw.id,
                        f.to_ascii_uppercase()
                    )
                });
            }
        }
        if self.bandwidth.is_none() {
            r.note_with(|| {
                format!(
                    "{} has measured compute rates but no measured memory bandwidth (achievable.hbm-bandwidth): the ridge point, per-SM bandwidth and bytes in flight need one and are left out",
                    hw.id
                )
            });
        }
        // Measured bandwidth over a latency nobody measured on this part:
        // say so rather than let the bytes in flight pass as measured.
        if self.mode == Mode::Achievable
            && self.bytes_in_flight.is_some()
            && !matches!(
                self.latency,
                Some(MemoryLatency::Seconds { measured: true, .. })
            )
        {
            r.note_with(|| {
                format!(
                    "{} has no measured memory latency (achievable.dram-latency): bytes in flight use the measured bandwidth and the file's datasheet latency",
                    hw.id
                )
            });
        }
        r.note(match self.mode {
            Mode::SpeedOfLight => "speed-of-light figures from the datasheet; --achievable uses the file's measured ones (an error where it has none)",
            Mode::Achievable => "achievable figures: measured, not datasheet",
        });
        // A clock far outside what hardware runs at is likely a unit slip.
        if let Some(n) = clock_note(hw, self.clock_hz.filter(|_| self.clock_given)) {
            r.note(n);
        }
        r
    }

    fn dtype_key(&self) -> &'static str {
        precision::lookup(self.dtype).map_or(self.dtype, |p| p.compute)
    }
}

/// A result key from a level or link name: `shared-memory` -> `shared_memory`.
fn key(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect::<String>()
        .to_ascii_lowercase()
}

fn scope_word(scope: Scope) -> &'static str {
    match scope {
        Scope::Sm => "per SM",
        Scope::Core => "per core",
        Scope::Die => "per die",
        Scope::Chip => "per chip",
    }
}

/// The rest of the datasheet, each figure with its source: clock, memory
/// levels (per unit and chip totals, 002 §7.3), execution limits, fabric
/// tiers (both directions and each way), launch costs, package and host.
fn datasheet(r: &mut Report, hw: &Hardware, clock: Option<f64>) {
    let mut mark = r.results.len();
    let src = |f: &str| hw.source(f);
    if let Some(c) = hw.compute.clock {
        r.result(
            "boost_clock_hz",
            c.get(),
            Quantity::new("boost clock", Unit::Hz).source(src("compute.clock")),
        );
    }
    if let Some(c) = hw.compute.cores {
        r.result(
            "cores",
            f64::from(c.get()),
            Quantity::new("cores (TensorCores / NeuronCores)", Unit::Count)
                .source(src("compute.cores")),
        );
    }
    for (k, label, v) in [
        ("sparse_cores", "SparseCores", hw.compute.sparse_cores),
        ("dma_engines", "DMA engines", hw.compute.dma_engines),
        (
            "collective_cores",
            "collective cores",
            hw.compute.collective_cores,
        ),
    ] {
        if let Some(v) = v {
            let field = format!("compute.{}", k.replace('_', "-"));
            r.result(
                k,
                f64::from(v.get()),
                Quantity::new(label, Unit::Count).source(src(&field)),
            );
        }
    }
    r.group_since(mark, "compute");
    mark = r.results.len();
    let m = &hw.memory;
    if let Some(l) = m.dram_latency {
        r.result(
            "dram_latency_cycles",
            l.get(),
            Quantity::new("memory latency", Unit::Cycles).source(src("memory.dram-latency")),
        );
    }
    for (k, label, field, v) in [
        ("sector_bytes", "sector", "memory.sector", m.sector),
        (
            "segment_bytes",
            "segment (cache line)",
            "memory.segment",
            m.segment,
        ),
        (
            "dram_fetch_bytes",
            "DRAM fetch unit",
            "memory.dram-fetch",
            m.dram_fetch,
        ),
    ] {
        if let Some(v) = v {
            r.result(
                k,
                v.get(),
                Quantity::new(label, Unit::Bytes).source(src(field)),
            );
        }
    }
    r.group_since(mark, "memory");
    mark = r.results.len();
    for (i, l) in m.levels.iter().enumerate() {
        let k = key(&l.name);
        let n = level_count(hw, l.scope, l.count.map(|c| c.get()));
        let cap_field = format!("memory.levels.{i}.capacity");
        // One meaning per key across parts: an SM's level is keyed per SM
        // (its chip total beside it); a die's or a core's level is keyed
        // for the chip, with the per-unit figure named by its unit, so an
        // MI355X's per-XCD L2 never sits in an H100's chip-wide `l2_bytes`.
        let (unit_key, total_key) = match l.scope {
            Scope::Sm | Scope::Chip => (format!("{k}_bytes"), format!("{k}_total_bytes")),
            Scope::Die => (format!("{k}_per_die_bytes"), format!("{k}_bytes")),
            Scope::Core => (format!("{k}_per_core_bytes"), format!("{k}_bytes")),
        };
        let chip_wide = matches!(l.scope, Scope::Die | Scope::Core);
        r.result(
            unit_key,
            l.capacity.get(),
            Quantity::new(
                format!("{} {}", l.name, scope_word(l.scope)),
                Unit::BytesIec,
            )
            .source(src(&cap_field)),
        );
        if n > 1.0 || chip_wide {
            r.result(
                total_key,
                l.capacity.get() * n,
                Quantity::new(format!("{} on the chip", l.name), Unit::BytesIec)
                    .formula(format!("{} x count", l.name))
                    .derive(format!("{} x {}", n, units::iec_bytes(l.capacity.get()))),
            );
        }
        if let (Some(bpc), Some(c)) = (l.bytes_per_cycle, clock) {
            r.result(
                format!("{k}_bandwidth_bytes_per_s"),
                bpc * n * c,
                Quantity::new(
                    format!("{} bandwidth on the chip", l.name),
                    Unit::BytesPerSec,
                )
                .formula("bytes per cycle x count x clock")
                .derive(format!("{} x {} x {}", units::number(bpc), n, si(c, "Hz")))
                .source(src(&format!("memory.levels.{i}.bytes-per-cycle"))),
            );
        } else if let Some(b) = l.bandwidth {
            r.result(
                format!("{k}_bandwidth_bytes_per_s"),
                b.get(),
                Quantity::new(format!("{} bandwidth", l.name), Unit::BytesPerSec)
                    .source(src(&format!("memory.levels.{i}.bandwidth"))),
            );
        }
        if let Some(lat) = l.latency {
            r.result(
                format!("{k}_latency_cycles"),
                lat.get(),
                Quantity::new(format!("{} latency", l.name), Unit::Cycles)
                    .source(src(&format!("memory.levels.{i}.latency"))),
            );
        }
    }
    r.group_since(mark, "on-chip");
    mark = r.results.len();
    if let Some(ex) = &hw.execution {
        let sms = f64::from(ex.sms.get());
        let counts = [
            (
                "warp_size",
                "warp / wavefront size",
                "warp-size",
                Some(ex.warp_size),
            ),
            (
                "max_warps_per_sm",
                "resident warps per SM",
                "max-warps-per-sm",
                ex.max_warps_per_sm,
            ),
            (
                "max_threads_per_sm",
                "resident threads per SM",
                "max-threads-per-sm",
                ex.max_threads_per_sm,
            ),
            (
                "max_threads_per_block",
                "threads per block",
                "max-threads-per-block",
                ex.max_threads_per_block,
            ),
            (
                "max_blocks_per_sm",
                "resident blocks per SM",
                "max-blocks-per-sm",
                ex.max_blocks_per_sm,
            ),
            (
                "registers_per_sm",
                "32-bit registers per SM",
                "registers-per-sm",
                ex.registers_per_sm,
            ),
            (
                "max_registers_per_thread",
                "registers per thread",
                "max-registers-per-thread",
                ex.max_registers_per_thread,
            ),
            (
                "max_cluster_size",
                "portable cluster size",
                "max-cluster-size",
                ex.max_cluster_size,
            ),
        ];
        for (k, label, field, v) in counts {
            if let Some(v) = v {
                r.result(
                    k,
                    f64::from(v.get()),
                    Quantity::new(label, Unit::Count).source(src(&format!("execution.{field}"))),
                );
            }
        }
        for (k, label, field, v) in [
            (
                "smem_per_block_bytes",
                "shared memory per block (default)",
                "smem-per-block",
                ex.smem_per_block.map(|b| b.get()),
            ),
            (
                "smem_per_block_optin_bytes",
                "shared memory per block (opt-in)",
                "smem-per-block-optin",
                ex.smem_per_block_optin.map(|b| b.get()),
            ),
            (
                "reserved_smem_per_block_bytes",
                "reserved shared memory per block",
                "reserved-smem-per-block",
                ex.reserved_smem_per_block.map(|b| b.get()),
            ),
        ] {
            if let Some(v) = v {
                r.result(
                    k,
                    v,
                    Quantity::new(label, Unit::BytesIec).source(src(&format!("execution.{field}"))),
                );
            }
        }
        if let Some(l) = ex.fp32_lanes_per_sm {
            r.result(
                "fp32_lanes",
                sms * f64::from(l.get()),
                Quantity::new("FP32 lanes (CUDA cores)", Unit::Count)
                    .formula("SMs x FP32 lanes per SM")
                    .derive(format!("{} x {}", sms, l))
                    .source(src("execution.fp32-lanes-per-sm")),
            );
        }
        if let Some(t) = ex.tensor_cores_per_sm {
            r.result(
                "tensor_cores",
                sms * f64::from(t.get()),
                Quantity::new("tensor / matrix cores", Unit::Count)
                    .formula("SMs x tensor cores per SM")
                    .derive(format!("{} x {}", sms, t))
                    .source(src("execution.tensor-cores-per-sm")),
            );
        }
    }
    r.group_since(mark, "execution");
    mark = r.results.len();
    for (i, link) in hw.interconnect.iter().enumerate() {
        let k = key(&link.name);
        let per = " per device";
        let f = |x: &str| format!("interconnect.{i}.{x}");
        if let Some(b) = link.bidirectional_bandwidth {
            r.result(
                format!("{k}_bidirectional_bytes_per_s"),
                b.get(),
                Quantity::new(
                    format!("{} ({}) both directions{per}", link.name, link.tier),
                    Unit::BytesPerSec,
                )
                .source(src(&f("bidirectional-bandwidth"))),
            );
        }
        if let Some(b) = link.per_direction_bandwidth {
            r.result(
                format!("{k}_per_direction_bytes_per_s"),
                b.get(),
                Quantity::new(
                    format!("{} ({}) each way{per}", link.name, link.tier),
                    Unit::BytesPerSec,
                )
                .source(src(&f("per-direction-bandwidth"))),
            );
        }
        if let Some(d) = link.domain_size {
            let topo = link
                .topology
                .as_deref()
                .map_or(String::new(), |t| format!(", {t}"));
            r.result(
                format!("{k}_domain_size"),
                f64::from(d.get()),
                Quantity::new(format!("{} domain{topo}", link.name), Unit::Count)
                    .source(src(&f("domain-size"))),
            );
        }
        if let Some(d) = link.max_domain_size {
            r.result(
                format!("{k}_max_domain_size"),
                f64::from(d.get()),
                Quantity::new(format!("{} largest domain", link.name), Unit::Count)
                    .source(src(&f("max-domain-size"))),
            );
        }
        if let Some(b) = link.aggregate_bandwidth {
            r.result(
                format!("{k}_aggregate_bytes_per_s"),
                b.get(),
                Quantity::new(format!("{} domain aggregate", link.name), Unit::BytesPerSec)
                    .source(src(&f("aggregate-bandwidth"))),
            );
        }
        if let Some(n) = link.axes {
            r.result(
                format!("{k}_axes"),
                f64::from(n.get()),
                Quantity::new(format!("{} torus axes", link.name), Unit::Count)
                    .source(src(&f("axes"))),
            );
        }
        if let Some(n) = link.links {
            r.result(
                format!("{k}_links"),
                f64::from(n.get()),
                Quantity::new(format!("{} links", link.name), Unit::Count).source(src(&f("links"))),
            );
            if let Some(a) = link.axes {
                r.result(
                    format!("{k}_links_per_axis"),
                    f64::from(n.get()) / f64::from(a.get()),
                    Quantity::new(format!("{} links per torus axis", link.name), Unit::Count)
                        .formula("links / axes")
                        .derive(format!("{n} / {a}")),
                );
            }
        }
        if let Some(b) = link.link_bandwidth {
            r.result(
                format!("{k}_link_bidirectional_bytes_per_s"),
                b.get(),
                Quantity::new(
                    format!("{} one link, both directions", link.name),
                    Unit::BytesPerSec,
                )
                .source(src(&f("link-bandwidth"))),
            );
            if let Some(a) = link.axes
                && let Some(n) = link.links
            {
                r.result(
                    format!("{k}_axis_bidirectional_bytes_per_s"),
                    b.get() * f64::from(n.get()) / f64::from(a.get()),
                    Quantity::new(
                        format!("{} one torus axis, both directions", link.name),
                        Unit::BytesPerSec,
                    )
                    .formula("link bandwidth x links per axis")
                    .derive(format!(
                        "{} x {}",
                        si(b.get(), "B/s"),
                        f64::from(n.get()) / f64::from(a.get())
                    )),
                );
            }
        }
    }
    r.group_since(mark, "interconnect");
    mark = r.results.len();
    if let Some(l) = &hw.launch {
        for (k, label, field, v) in [
            ("launch_eager_s", "launch, eager", "launch.eager", l.eager),
            (
                "launch_graph_s",
                "launch, CUDA graph",
                "launch.graph",
                l.graph,
            ),
            (
                "launch_synchronised_s",
                "launch, synchronised",
                "launch.synchronised",
                l.synchronised,
            ),
        ] {
            if let Some(v) = v {
                r.result(
                    k,
                    v.get(),
                    Quantity::new(label, Unit::Seconds).source(src(field)),
                );
            }
        }
    }
    r.group_since(mark, "launch");
    mark = r.results.len();
    if let Some(p) = &hw.package {
        let counts = [
            (
                "compute_dies",
                "compute dies",
                "compute-dies",
                p.compute_dies.map(|x| f64::from(x.get())),
            ),
            (
                "io_dies",
                "I/O dies",
                "io-dies",
                p.io_dies.map(|x| f64::from(x.get())),
            ),
            (
                "hbm_stacks",
                "HBM stacks",
                "hbm-stacks",
                p.hbm_stacks.map(|x| f64::from(x.get())),
            ),
            (
                "transistors",
                "transistors",
                "transistors",
                p.transistors.map(|x| x.get() as f64),
            ),
            (
                "tdp_watts",
                "board power (W)",
                "tdp-watts",
                p.tdp_watts.map(|x| f64::from(x.get())),
            ),
        ];
        for (k, label, field, v) in counts {
            if let Some(v) = v {
                r.result(
                    k,
                    v,
                    Quantity::new(label, Unit::Count).source(src(&format!("package.{field}"))),
                );
            }
        }
        if let Some(b) = p.die_to_die_bandwidth {
            r.result(
                "die_to_die_bytes_per_s",
                b.get(),
                Quantity::new("die-to-die bandwidth", Unit::BytesPerSec)
                    .source(src("package.die-to-die-bandwidth")),
            );
        }
    }
    r.group_since(mark, "package");
    mark = r.results.len();
    if let Some(a) = &hw.achievable {
        if let Some(b) = a.hbm_bandwidth {
            r.result(
                "measured_hbm_bandwidth_bytes_per_s",
                b.get(),
                Quantity::new("memory bandwidth, measured", Unit::BytesPerSec)
                    .source(src("achievable.hbm-bandwidth")),
            );
        }
        for key in a.dense.keys() {
            if let Some(v) = a.dense.get(key) {
                let integer = precision::lookup(key).is_ok_and(|p| p.integer());
                r.result(
                    format!("measured_{key}_flops_per_s"),
                    v,
                    Quantity::new(
                        format!("{key} matmul, measured"),
                        Unit::FlopPerSec.ops_if(integer),
                    )
                    .source(src(&format!("achievable.dense.{key}"))),
                );
            }
        }
        for (k, label, field, v) in [
            (
                "measured_l1_latency_s",
                "L1 latency, measured",
                "achievable.l1-latency",
                a.l1_latency,
            ),
            (
                "measured_l2_latency_s",
                "L2 latency, measured",
                "achievable.l2-latency",
                a.l2_latency,
            ),
            (
                "measured_dram_latency_s",
                "memory latency, measured",
                "achievable.dram-latency",
                a.dram_latency,
            ),
        ] {
            if let Some(v) = v {
                r.result(
                    k,
                    v.get(),
                    Quantity::new(label, Unit::Seconds).source(src(field)),
                );
            }
        }
        for (name, b) in &a.link_bandwidth {
            r.result(
                format!("measured_{}_bytes_per_s", key(name)),
                b.get(),
                Quantity::new(format!("{name} bandwidth, measured"), Unit::BytesPerSec)
                    .source(src(&format!("achievable.link-bandwidth.{name}"))),
            );
        }
    }
    r.group_since(mark, "measured");
    mark = r.results.len();
    if let Some(h) = &hw.host {
        if let Some(d) = h.devices {
            r.result(
                "host_devices",
                f64::from(d.get()),
                Quantity::new("devices per host", Unit::Count).source(src("host.devices")),
            );
        }
        if let Some(v) = h.vcpus {
            r.result(
                "host_vcpus",
                f64::from(v.get()),
                Quantity::new("host vCPUs", Unit::Count).source(src("host.vcpus")),
            );
        }
        if let Some(m) = h.memory {
            r.result(
                "host_memory_bytes",
                m.get(),
                Quantity::new("host memory", Unit::Bytes).source(src("host.memory")),
            );
        }
    }
    r.group_since(mark, "host");
    r.order_groups(&[
        "compute",
        "memory",
        "on-chip",
        "execution",
        "interconnect",
        "launch",
        "package",
        "host",
        "measured",
    ]);
}

/// Peak at the file's default precision, for listings.
pub fn default_peak(hw: &Hardware) -> Option<(&'static Precision, f64)> {
    let p = hw.precision(None).ok()?;
    Some((p, hw.peak(p, Mode::SpeedOfLight).ok()?))
}

/// One accelerator's `hw list` entry: the figures the list shows, each
/// with the field it is read from and that field's source (what
/// `hw list --explain` prints). The peak is the dense datasheet peak at the
/// file's `default-dtype`.
pub fn list_entry(hw: &Hardware) -> Report {
    let mut r = Report::new("hw list");
    r.hardware = Some(hw.id.clone());
    r.result("name", hw.name.as_str(), Quantity::new("name", Unit::None));
    r.result("kind", hw.kind.as_str(), Quantity::new("kind", Unit::None));
    if let Some((p, peak)) = default_peak(hw) {
        r.result(
            "dtype",
            p.name,
            Quantity::new("precision of the peak", Unit::None).formula("default-dtype"),
        );
        let field = format!("compute.dense.{}", p.compute);
        let mut source = hw.source(&field).map(String::from);
        // TPU v1's default is int8: its peak is in OP/s.
        let rate = Unit::FlopPerSec.ops_if(p.integer());
        let mut q = Quantity::new(format!("peak at {}, dense", p.name), rate);
        let cores = hw.peak_multiplier();
        if cores == 1.0 {
            q = q.formula(field);
        } else {
            // Per-core peaks (peak-scope = "core"): the device total.
            q = q
                .formula(format!("{field} x compute.cores"))
                .derive(format!("{} x {cores}", rate.format(peak / cores)));
            if let Some(c) = hw.source("compute.cores")
                && source.as_deref() != Some(c)
            {
                source = Some(match source {
                    Some(s) => format!("{s}; compute.cores: {c}"),
                    None => format!("compute.cores: {c}"),
                });
            }
        }
        r.result("peak_flops_per_s", peak, q.source(source.as_deref()));
    }
    if let Some(b) = hw.memory.hbm_bandwidth {
        r.result(
            "hbm_bandwidth_bytes_per_s",
            b.get(),
            Quantity::new("memory bandwidth", Unit::BytesPerSec)
                .formula("memory.hbm-bandwidth")
                .source(hw.source("memory.hbm-bandwidth")),
        );
    }
    if let Some(c) = hw.memory.hbm_capacity {
        // The vendor's unit: 192 GiB stays 192 GiB beside 80 GB.
        let unit = if hw.capacity_is_binary() {
            Unit::BytesIec
        } else {
            Unit::Bytes
        };
        r.result(
            "hbm_capacity_bytes",
            c.get(),
            Quantity::new("memory capacity", unit)
                .formula("memory.hbm-capacity")
                .source(hw.source("memory.hbm-capacity")),
        );
    }
    if let Some(s) = &hw.summary {
        r.result("summary", s.as_str(), Quantity::new("summary", Unit::None));
    }
    r
}

/// The `hw list` table of [`list_entry`] reports: one row per accelerator.
pub fn listing(entries: Vec<Report>) -> Report {
    Report::listing(
        "hw list",
        entries,
        &[
            ("name", "name", Unit::None),
            ("kind", "kind", Unit::None),
            ("dtype", "dtype", Unit::None),
            ("peak_flops_per_s", "peak (default dtype)", Unit::FlopPerSec),
            (
                "hbm_bandwidth_bytes_per_s",
                "memory bandwidth",
                Unit::BytesPerSec,
            ),
            ("hbm_capacity_bytes", "memory", Unit::Bytes),
            ("summary", "summary", Unit::None),
        ],
    )
}

/// `hw list`: one row per accelerator with its summary.
pub fn list(items: &[Hardware]) -> Report {
    listing(items.iter().map(list_entry).collect())
}

/// The compute key of a precision name (`int4` computes at `int8`).
fn p_compute(name: &str) -> &'static str {
    precision::lookup(name).map_or("", |p| p.compute)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::{Fields, from_fields};

    fn inputs(pairs: &[(&str, serde_json::Value)]) -> crate::error::Result<HwShowInputs> {
        let f: Fields = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect();
        from_fields(&f)
    }

    #[test]
    fn switches_read_booleans_and_text() {
        for (v, want) in [
            (serde_json::json!(true), true),
            (serde_json::json!("true"), true),
            (serde_json::json!("yes"), true),
            (serde_json::json!("0"), false),
            (serde_json::json!(false), false),
        ] {
            let i = inputs(&[("sparse", v)]).unwrap();
            assert_eq!(i.sparse, Some(Switch(want)));
        }
        let e = inputs(&[("sparse", serde_json::json!("maybe"))]).unwrap_err();
        assert!(e.to_string().contains("true or false"), "{e}");
    }

    #[test]
    fn inputs_name_unknown_fields_and_take_clock_units() {
        let i = inputs(&[("clock", serde_json::json!("1.8GHz"))]).unwrap();
        assert_eq!(i.clock.map(|c| c.0), Some(1.8e9));
        assert!(inputs(&[("tile", serde_json::json!(1))]).is_err());
    }

    fn catalog_hw(id: &str, sets: &[&str]) -> Hardware {
        let sets: Vec<crate::spec::overrides::Set> =
            sets.iter().map(|s| s.parse().unwrap()).collect();
        crate::catalog::Catalog::default()
            .hardware(id, &sets)
            .unwrap()
    }

    #[test]
    fn the_clock_range_is_the_catalogs() {
        let cat = crate::catalog::Catalog::default();
        let clocks: Vec<f64> = cat
            .hardware_entries()
            .unwrap()
            .iter()
            .filter_map(|e| cat.hardware(&e.id, &[]).ok()?.compute.clock)
            .map(|c| c.get())
            .collect();
        let lo = clocks.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = clocks.iter().copied().fold(0.0, f64::max);
        assert_eq!((lo, hi), CATALOG_CLOCK_RANGE_HZ);
    }

    #[test]
    fn a_clock_outside_what_hardware_runs_at_is_noted() {
        let h100 = catalog_hw("h100-sxm", &[]);
        // The lecture's 1.8 GHz and the file's own 1.98 GHz are fine.
        assert_eq!(clock_note(&h100, Some(1.8e9)), None);
        assert_eq!(clock_note(&h100, None), None);
        // Given: against the file's boost clock (2 x 1.98 GHz, 198 MHz).
        let n = clock_note(&h100, Some(1e108)).unwrap();
        assert_eq!(
            n,
            "warning: the clock 1e108 Hz is more than twice h100-sxm's boost clock 1.98 GHz: check the unit"
        );
        assert!(clock_note(&h100, Some(3.9e9)).is_none());
        assert!(
            clock_note(&h100, Some(1.8e6))
                .unwrap()
                .contains("less than a tenth")
        );
        // Set in the file: against the catalog's 700 MHz to 2.4 GHz.
        let set = catalog_hw("h100-sxm", &["compute.clock=1e99GHz"]);
        assert_eq!(
            clock_note(&set, None).unwrap(),
            "warning: the clock 1e108 Hz is more than twice the fastest boost clock in the catalog (2.4 GHz): check the unit"
        );
        let slow = catalog_hw("h100-sxm", &["compute.clock=1MHz"]);
        assert!(
            clock_note(&slow, None)
                .unwrap()
                .contains("less than a tenth of the slowest boost clock in the catalog (700 MHz)")
        );
        // A sane --clock over an absurd file clock is judged by the catalog.
        assert_eq!(clock_note(&set, Some(1.8e9)), None);
    }
}

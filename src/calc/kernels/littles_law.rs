//! `littles-law`: how much must be in flight for device memory to deliver
//! its bandwidth, bytes in flight = bandwidth x latency, in loads, per SM
//! against the warp budget, and the pointer-chase corollary of one load in
//! flight (formulas.md, "Little's law"; 002 §7.3, §7.4 and exercises 1-2;
//! 004 "Latency hiding").

use crate::error::{Error, Result};
use crate::inputs::{Bytes, Count, Hz, finite_result, positive};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, Dim, UnitError, si};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A memory latency as given: in clock cycles or as a time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Latency {
    /// Clock cycles (converted with the clock).
    Cycles(f64),
    /// Seconds.
    Seconds(f64),
}

impl<'de> Deserialize<'de> for Latency {
    /// A bare number is cycles; text is cycles (`500 cycles`) or a time
    /// (`350 ns`).
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Latency;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("cycles (\"500 cycles\") or a time (\"350 ns\")")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Latency, E> {
                Ok(Latency::Cycles(v as f64))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Latency, E> {
                Ok(Latency::Cycles(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Latency, E> {
                Ok(Latency::Cycles(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Latency, E> {
                match units::parse(v, Dim::Cycles) {
                    Ok(c) => Ok(Latency::Cycles(c)),
                    Err(UnitError::WrongUnit { .. }) => units::parse(v, Dim::Seconds)
                        .map(Latency::Seconds)
                        .map_err(|_| {
                            E::custom(format!(
                                "`{v}`: expected cycles (\"500 cycles\") or a time (\"350 ns\")"
                            ))
                        }),
                    Err(e) => Err(E::custom(e)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// `littles-law`'s inputs; a field left out takes the hardware file's
/// value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LittlesLawInputs {
    /// Load latency (default: `memory.dram-latency`, else
    /// `memory.dram-latency-time`; with measured figures,
    /// `achievable.dram-latency`).
    pub latency: Option<Latency>,
    /// Clock (default: `compute.clock`).
    pub clock: Option<Hz>,
    /// Bytes per load (default: `memory.segment`).
    pub transaction: Option<Bytes>,
    /// Resident warps per SM that share the loads (default: the SM's warp
    /// budget).
    pub warps: Option<Count>,
    /// Bytes per dependent load in the pointer chase (default 8).
    pub pointer: Option<Bytes>,
}

impl LittlesLawInputs {
    /// The lecture's question: a latency in cycles at a clock, 128-B loads.
    pub fn lecture(cycles: f64, clock_hz: f64) -> Self {
        LittlesLawInputs {
            latency: Some(Latency::Cycles(cycles)),
            clock: Some(Hz(clock_hz)),
            transaction: Some(Bytes(128.0)),
            ..Default::default()
        }
    }
}

/// What an SM must carry, where the hardware has SMs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerSm {
    /// SMs on the chip.
    pub sms: u64,
    /// Loads in flight per SM.
    pub loads_per_sm: f64,
    /// Bandwidth / SMs.
    pub bandwidth_per_sm: f64,
    /// Bandwidth / SMs / clock, where the clock is known.
    pub bytes_per_cycle_per_sm: Option<f64>,
    /// FP32 lanes x 4 B: what the SM's arithmetic can ask for each cycle
    /// (002 §7.3), where the file has the lanes and the clock is known.
    pub operand_demand_bytes_per_cycle: Option<f64>,
    /// The SM's warp budget, where the file has it.
    pub warps_available: Option<u64>,
    /// The resident warps sharing the loads: given, or the budget.
    pub warps: Option<u64>,
    /// ceil(loads per SM / warps).
    pub loads_per_warp: Option<f64>,
    /// min(bandwidth, warps x SMs x bytes per load / latency).
    pub one_load_per_warp_bandwidth: Option<f64>,
}

/// Little's law on one accelerator: every figure `littles-law` reports.
#[derive(Debug, Clone)]
pub struct LittlesLawCost<'a> {
    /// The hardware.
    pub hw: &'a Hardware,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// The inputs as given.
    pub inputs: LittlesLawInputs,
    /// The latency used (given, or the file's).
    pub latency: Latency,
    /// The clock used, if any is known.
    pub clock: Option<f64>,
    /// Bytes per load.
    pub transaction: f64,
    /// Bytes per pointer-chase load.
    pub pointer: f64,
    /// Device-memory bandwidth (B/s).
    pub bandwidth: f64,
    /// The latency in seconds.
    pub latency_s: f64,
    /// Bandwidth / clock.
    pub bytes_per_cycle: Option<f64>,
    /// Bandwidth x latency.
    pub bytes_in_flight: f64,
    /// Bytes in flight / bytes per load.
    pub loads_in_flight: f64,
    /// Per-SM figures, where the hardware has SMs.
    pub per_sm: Option<PerSm>,
    /// The shared-memory latency in cycles, where the file has it and the
    /// latency can be counted in cycles.
    pub smem_latency_cycles: Option<f64>,
    /// The latency in cycles, where it can be counted in cycles.
    pub latency_cycles: Option<f64>,
    /// One dependent load per latency: loads per second.
    pub chase_loads_per_s: f64,
    /// Pointer bytes per latency.
    pub chase_bytes_per_s: f64,
}

/// `littles-law`'s cost on `hw`.
pub fn cost<'a>(
    hw: &'a Hardware,
    inputs: &LittlesLawInputs,
    mode: Mode,
) -> Result<LittlesLawCost<'a>> {
    let bandwidth = hw.bandwidth(mode)?;
    let clock = match inputs.clock {
        Some(c) => Some(positive("clock", c.0)?),
        None => hw.compute.clock.map(|c| c.get()),
    };
    let latency = match inputs.latency {
        Some(Latency::Cycles(c)) => Latency::Cycles(positive("latency", c)?),
        Some(Latency::Seconds(s)) => Latency::Seconds(positive("latency", s)?),
        // With measured figures, the measured (pointer-chase) latency.
        None if mode == Mode::Achievable => {
            match hw.achievable.as_ref().and_then(|a| a.dram_latency) {
                Some(t) => Latency::Seconds(t.get()),
                None => {
                    return Err(hw.missing(
                        "achievable.dram-latency",
                        "the measured memory latency of the achievable figures; or give a latency",
                        Some("350 ns"),
                    ));
                }
            }
        }
        None => match (hw.memory.dram_latency, hw.memory.dram_latency_time) {
            (Some(c), _) => Latency::Cycles(c.get()),
            (None, Some(t)) => Latency::Seconds(t.get()),
            (None, None) => {
                return Err(hw.missing(
                    "memory.dram-latency",
                    "the memory latency of Little's law; or give a latency",
                    Some("500 cycles"),
                ));
            }
        },
    };
    let latency_s = match latency {
        Latency::Cycles(c) => {
            let clk = clock.ok_or_else(|| {
                hw.missing(
                    "compute.clock",
                    "converting a latency in cycles to time (or give a clock)",
                    Some("1.8 GHz"),
                )
            })?;
            c / clk
        }
        Latency::Seconds(s) => s,
    };
    let latency_s = finite_result("latency_s", latency_s, true)?;
    let transaction = match inputs.transaction {
        Some(t) => positive("transaction", t.0)?,
        None => hw.memory.segment.map(|s| s.get()).ok_or_else(|| {
            hw.missing(
                "memory.segment",
                "the bytes per load (or give a transaction size)",
                Some("128 B"),
            )
        })?,
    };
    let pointer = positive("pointer", inputs.pointer.map_or(8.0, |p| p.0))?;
    let warps_given = match inputs.warps {
        Some(Count(0)) => return Err(Error::field("warps", "must be at least 1")),
        w => w.map(|w| w.0),
    };

    let bytes_in_flight = finite_result("bytes_in_flight", bandwidth * latency_s, true)?;
    let loads_in_flight = finite_result("loads_in_flight", bytes_in_flight / transaction, true)?;
    let per_sm = hw.execution.as_ref().map(|ex| {
        let sms = u64::from(ex.sms.get());
        let loads_per_sm = loads_in_flight / sms as f64;
        let bandwidth_per_sm = bandwidth / sms as f64;
        let bytes_per_cycle_per_sm = clock.map(|c| bandwidth_per_sm / c);
        let warps_available = ex.max_warps_per_sm.map(|w| u64::from(w.get())).or_else(|| {
            ex.max_threads_per_sm
                .map(|t| u64::from(t.get() / ex.warp_size.get()))
        });
        let warps = warps_given.or(warps_available).filter(|w| *w > 0);
        PerSm {
            sms,
            loads_per_sm,
            bandwidth_per_sm,
            bytes_per_cycle_per_sm,
            operand_demand_bytes_per_cycle: ex
                .fp32_lanes_per_sm
                .filter(|_| clock.is_some())
                .map(|l| f64::from(l.get()) * 4.0),
            warps_available,
            warps,
            loads_per_warp: warps.map(|w| (loads_per_sm / w as f64).ceil()),
            // The converse: what w warps with one load each can sustain.
            one_load_per_warp_bandwidth: warps
                .map(|w| (w as f64 * sms as f64 * transaction / latency_s).min(bandwidth)),
        }
    });
    let bytes_per_cycle = clock.map(|c| bandwidth / c);
    for (what, v) in [
        ("bytes_per_cycle", bytes_per_cycle),
        (
            "bytes_per_cycle_per_sm",
            per_sm.and_then(|p| p.bytes_per_cycle_per_sm),
        ),
    ] {
        if let Some(v) = v {
            finite_result(what, v, true)?;
        }
    }
    let latency_cycles = match (latency, clock) {
        (Latency::Cycles(c), _) => Some(c),
        (Latency::Seconds(s), Some(clk)) => Some(s * clk),
        (Latency::Seconds(_), None) => None,
    };
    let smem_latency_cycles = hw
        .memory
        .levels
        .iter()
        .find(|l| l.name == "shared-memory")
        .and_then(|l| l.latency)
        .map(|c| c.get())
        .filter(|c| *c > 0.0 && latency_cycles.is_some());
    // clock / cycles, not 1 / (cycles / clock): exact for round inputs.
    let chase_loads_per_s = match (latency, clock) {
        (Latency::Cycles(c), Some(clk)) => clk / c,
        _ => 1.0 / latency_s,
    };
    let chase_loads_per_s = finite_result("pointer_chase_loads_per_s", chase_loads_per_s, true)?;
    let chase_bytes_per_s = finite_result(
        "pointer_chase_bytes_per_s",
        chase_loads_per_s * pointer,
        true,
    )?;
    Ok(LittlesLawCost {
        hw,
        mode,
        inputs: inputs.clone(),
        latency,
        clock,
        transaction,
        pointer,
        bandwidth,
        latency_s,
        bytes_per_cycle,
        bytes_in_flight,
        loads_in_flight,
        per_sm,
        smem_latency_cycles,
        latency_cycles,
        chase_loads_per_s,
        chase_bytes_per_s,
    })
}

impl LittlesLawCost<'_> {
    /// SM operand demand over its share of memory per cycle (002 §7.3's
    /// "36x shortfall"), where both are known.
    pub fn sm_shortfall(&self) -> Option<f64> {
        let p = self.per_sm.as_ref()?;
        Some(p.operand_demand_bytes_per_cycle? / p.bytes_per_cycle_per_sm?)
    }

    /// Memory latency over shared-memory latency (002 §7.3's "~17x gap"),
    /// where both are known in cycles.
    pub fn smem_latency_ratio(&self) -> Option<f64> {
        Some(self.latency_cycles? / self.smem_latency_cycles?)
    }

    /// Bandwidth over pointer-chase bandwidth.
    pub fn chase_slowdown(&self) -> f64 {
        self.bandwidth / self.chase_bytes_per_s
    }

    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let hw = self.hw;
        let bw = self.bandwidth;
        let given = &self.inputs;
        let mut r = Report::new_lean("littles-law", lean);
        r.hardware = Some(hw.id.clone());
        if self.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        if let Some(c) = self.clock.filter(|_| given.clock.is_some()) {
            r.input("clock", c);
            r.describe("clock", || Quantity::new("clock", Unit::Hz));
        }
        match given.latency {
            Some(Latency::Cycles(c)) => {
                r.input("latency", c);
                r.describe("latency", || Quantity::new("latency", Unit::Cycles));
            }
            Some(Latency::Seconds(s)) => {
                r.input("latency", s);
                r.describe("latency", || Quantity::new("latency", Unit::Seconds));
            }
            None => {}
        }
        if given.transaction.is_some() {
            r.input("transaction", self.transaction);
            r.describe("transaction", || {
                Quantity::new("bytes per load", Unit::Bytes)
            });
        }
        if given.pointer.is_some() {
            r.input("pointer", self.pointer);
            r.describe("pointer", || {
                Quantity::new("bytes per pointer", Unit::Bytes)
            });
        }
        if let Some(w) = given.warps {
            r.input("warps", w.0);
        }

        r.result("bandwidth_bytes_per_s", bw, || {
            Quantity::new("memory bandwidth", Unit::BytesPerSec).source(hw.source(
                if self.mode == Mode::SpeedOfLight {
                    "memory.hbm-bandwidth"
                } else {
                    "achievable.hbm-bandwidth"
                },
            ))
        });
        r.result("latency_s", self.latency_s, || {
            let q = Quantity::new("latency in time", Unit::Seconds);
            let q = match (self.latency, self.clock) {
                (Latency::Cycles(c), Some(clk)) => q
                    .formula("latency cycles / clock")
                    .derive(format!("{} cycles / {}", units::number(c), si(clk, "Hz"))),
                _ => q,
            };
            if given.latency.is_none() {
                q.source(
                    hw.source("memory.dram-latency")
                        .or(hw.source("memory.dram-latency-time")),
                )
            } else {
                q
            }
        });
        if let (Some(ratio), Some(smem), Some(cycles)) = (
            self.smem_latency_ratio(),
            self.smem_latency_cycles,
            self.latency_cycles,
        ) {
            r.result("smem_latency_ratio", ratio, || {
                Quantity::new("latency / shared-memory latency", Unit::Ratio)
                    .formula("latency cycles / shared-memory latency cycles")
                    .derive(format!(
                        "{} cycles / {} cycles",
                        units::sig(cycles, 4),
                        units::sig(smem, 4)
                    ))
                    .source(
                        hw.memory
                            .levels
                            .iter()
                            .position(|l| l.name == "shared-memory")
                            .and_then(|i| hw.source(&format!("memory.levels.{i}.latency"))),
                    )
            });
        }
        if let (Some(bpc), Some(clk)) = (self.bytes_per_cycle, self.clock) {
            r.result("bytes_per_cycle", bpc, || {
                Quantity::new("memory bytes per cycle", Unit::BytesPerCycle)
                    .formula("bandwidth / clock")
                    .derive(format!("{} / {}", si(bw, "B/s"), si(clk, "Hz")))
            });
        }
        let in_flight = self.bytes_in_flight;
        r.result("bytes_in_flight", in_flight, || {
            Quantity::new("bytes in flight", Unit::Bytes)
                .formula("bandwidth x latency")
                .derive(format!(
                    "{} x {}",
                    si(bw, "B/s"),
                    units::seconds(self.latency_s)
                ))
        });
        let loads = self.loads_in_flight;
        r.result("loads_in_flight", loads, || {
            Quantity::new("loads in flight", Unit::Count)
                .formula("bytes in flight / bytes per load")
                .derive(format!(
                    "{} / {} B",
                    si(in_flight, "B"),
                    units::number(self.transaction)
                ))
        });
        match &self.per_sm {
            Some(p) => self.per_sm_report(&mut r, p),
            None => r.note_with(|| {
                format!(
                    "{} has no SMs: per-SM demand and the warp budget do not apply",
                    hw.id
                )
            }),
        }

        let chase = self.chase_loads_per_s;
        let latency_s = self.latency_s;
        r.result("pointer_chase_loads_per_s", chase, || {
            Quantity::new("pointer chase: dependent loads per second", Unit::Count)
                .formula("1 / latency")
                .derive(format!("1 / {}", units::seconds(latency_s)))
        });
        let chase_bw = self.chase_bytes_per_s;
        r.result("pointer_chase_bytes_per_s", chase_bw, || {
            Quantity::new("pointer chase: useful bandwidth", Unit::BytesPerSec)
                .formula("pointer bytes / latency")
                .derive(format!(
                    "{} B / {}",
                    units::number(self.pointer),
                    units::seconds(latency_s)
                ))
        });
        r.result("pointer_chase_slowdown", self.chase_slowdown(), || {
            Quantity::new("bandwidth / pointer-chase bandwidth", Unit::Ratio)
                .formula("bandwidth / pointer-chase bandwidth")
                .derive(format!("{} / {}", si(bw, "B/s"), si(chase_bw, "B/s")))
        });
        if let Some(n) = crate::calc::hw::clock_note(hw, given.clock.map(|c| c.0)) {
            r.note(n);
        }
        if given.latency.is_none() {
            if self.mode == Mode::Achievable {
                r.note("latency: the hardware file's measured (pointer-chase) DRAM latency");
            } else {
                r.note("latency: the hardware file's DRAM latency; the lecture assumes 500 cycles at 1.8 GHz (give them as the latency and the clock)");
            }
        }
        r.note("one dependent load in flight (a pointer chase) gets latency-bound bandwidth, whatever the pins can do");
        r
    }

    fn per_sm_report(&self, r: &mut Report, p: &PerSm) {
        let hw = self.hw;
        let bw = self.bandwidth;
        let sms = p.sms;
        let loads = self.loads_in_flight;
        let per_sm = p.loads_per_sm;
        r.result("loads_per_sm", per_sm, || {
            Quantity::new("loads in flight per SM", Unit::Count)
                .formula("loads in flight / SMs")
                .derive(format!("{} / {sms}", units::sig(loads, 4)))
                .source(hw.source("execution.sms"))
        });
        r.result("bandwidth_per_sm_bytes_per_s", p.bandwidth_per_sm, || {
            Quantity::new("memory bandwidth per SM", Unit::BytesPerSec)
                .formula("bandwidth / SMs")
                .derive(format!("{} / {sms}", si(bw, "B/s")))
        });
        if let (Some(bpc), Some(clk)) = (p.bytes_per_cycle_per_sm, self.clock) {
            r.result("bytes_per_cycle_per_sm", bpc, || {
                Quantity::new("memory bytes per cycle per SM", Unit::BytesPerCycle)
                    .formula("bandwidth / SMs / clock")
                    .derive(format!("{} / {sms} / {}", si(bw, "B/s"), si(clk, "Hz")))
            });
        }
        if let (Some(demand), Some(shortfall), Some(bpc)) = (
            p.operand_demand_bytes_per_cycle,
            self.sm_shortfall(),
            p.bytes_per_cycle_per_sm,
        ) {
            r.result("sm_operand_demand_bytes_per_cycle", demand, || {
                Quantity::new(
                    "operand bytes an SM's FP32 lanes ask for a cycle",
                    Unit::BytesPerCycle,
                )
                .formula("FP32 lanes per SM x 4 B")
                .derive(format!("{} x 4 B", units::number(demand / 4.0)))
                .source(hw.source("execution.fp32-lanes-per-sm"))
            });
            r.result("sm_shortfall", shortfall, || {
                Quantity::new("SM operand demand / its share of memory", Unit::Ratio)
                    .formula("operand bytes per cycle / memory bytes per cycle per SM")
                    .derive(format!(
                        "{} / {}",
                        units::number(demand),
                        units::sig(bpc, 4)
                    ))
            });
        }
        if let Some(budget) = p.warps_available {
            r.result("warps_available", budget, || {
                Quantity::new("warp budget per SM", Unit::Count)
                    .source(hw.source("execution.max-warps-per-sm"))
            });
        }
        if let (Some(w), Some(per_warp), Some(sustained)) =
            (p.warps, p.loads_per_warp, p.one_load_per_warp_bandwidth)
        {
            r.result("loads_per_warp", per_warp, || {
                Quantity::new("loads in flight each warp must carry", Unit::Count)
                    .formula("ceil(loads per SM / resident warps)")
                    .derive(format!("ceil({} / {w})", units::sig(per_sm, 4)))
            });
            r.result("one_load_per_warp_bandwidth_bytes_per_s", sustained, || {
                Quantity::new(
                    "bandwidth at one load in flight per warp",
                    Unit::BytesPerSec,
                )
                .formula("min(bandwidth, warps x SMs x bytes per load / latency)")
                .derive(format!(
                    "min({}, {w} x {sms} x {} B / {})",
                    si(bw, "B/s"),
                    units::number(self.transaction),
                    units::seconds(self.latency_s)
                ))
            });
            let over_budget = p.warps_available.filter(|b| w > *b);
            if let Some(budget) = over_budget {
                r.note_with(|| {
                    format!(
                        "warning: {} warps is beyond the {}-warp budget of an SM on {}: no SM can hold them; the figures assume they were resident",
                        units::whole(w),
                        units::whole(budget),
                        hw.id
                    )
                });
            }
            r.note_with(|| {
                if over_budget.is_some() {
                    let held = p.warps_available.unwrap_or(w);
                    let each = (per_sm / held as f64).ceil();
                    format!(
                        "at the {} warps an SM can hold, each warp needs {} independent load{} in flight to saturate memory",
                        units::whole(held),
                        units::number(each),
                        if each == 1.0 { "" } else { "s" }
                    )
                } else if per_sm <= w as f64 {
                    format!(
                        "{} loads per SM fit in {} warps at one load each: enough warps to saturate memory if each keeps a load in flight",
                        units::sig_grouped(per_sm, 3),
                        units::whole(w)
                    )
                } else {
                    format!(
                        "{} loads per SM exceed {} warps: each warp needs {} independent loads in flight (unrolling, pipelining) to saturate memory",
                        units::sig_grouped(per_sm, 3),
                        units::whole(w),
                        units::number(per_warp)
                    )
                }
            });
        }
    }
}

//! `littles-law`: how much must be in flight for device memory to deliver
//! its bandwidth, bytes in flight = bandwidth x latency, in loads, per SM
//! against the warp budget, and the pointer-chase corollary of one load in
//! flight (formulas.md, "Little's law"; 002 §7.4 and exercises 1-2; 004
//! "Latency hiding").

use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, si};

/// A memory latency as given: in clock cycles or as a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Latency {
    /// Clock cycles (converted with the clock).
    Cycles(f64),
    /// Seconds.
    Seconds(f64),
}

/// The question's inputs; `None` takes the hardware file's value.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Demand {
    /// Load latency (default: `memory.dram-latency`, else
    /// `memory.dram-latency-time`).
    pub latency: Option<Latency>,
    /// Clock (default: `compute.clock`).
    pub clock_hz: Option<f64>,
    /// Bytes per load (default: `memory.segment`).
    pub transaction: Option<f64>,
    /// Resident warps per SM that share the loads (default: the SM's
    /// warp budget).
    pub warps: Option<u64>,
    /// Bytes per dependent load in the pointer chase (default 8).
    pub pointer: Option<f64>,
    /// Datasheet or measured bandwidth.
    pub mode: Mode,
}

use super::positive;

/// `littles-law` on one accelerator.
pub fn littles_law(hw: &Hardware, d: &Demand) -> Result<Report> {
    let bw = hw.bandwidth(d.mode)?;
    let mut r = Report::new("littles-law");
    r.hardware = Some(hw.id.clone());
    if d.mode == Mode::Achievable {
        r.input("achievable", true);
    }
    let clock = match d.clock_hz {
        Some(c) => {
            let c = positive("--clock", c)?;
            r.input("clock", c);
            r.describe("clock", Quantity::new("clock", Unit::Hz));
            Some(c)
        }
        None => hw.compute.clock.map(|c| c.get()),
    };
    let latency = match d.latency {
        Some(Latency::Cycles(c)) => {
            positive("--latency", c)?;
            r.input("latency", c);
            r.describe("latency", Quantity::new("latency", Unit::Cycles));
            Latency::Cycles(c)
        }
        Some(Latency::Seconds(s)) => {
            positive("--latency", s)?;
            r.input("latency", s);
            r.describe("latency", Quantity::new("latency", Unit::Seconds));
            Latency::Seconds(s)
        }
        // With --achievable, the measured (pointer-chase) latency.
        None if d.mode == Mode::Achievable => {
            match hw.achievable.as_ref().and_then(|a| a.dram_latency) {
                Some(t) => Latency::Seconds(t.get()),
                None => {
                    return Err(hw.missing(
                        "achievable.dram-latency",
                        "the measured memory latency for --achievable; or pass --latency",
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
                    "the memory latency of Little's law; or pass --latency",
                    Some("500 cycles"),
                ));
            }
        },
    };
    let (latency_s, lat_q) = match latency {
        Latency::Cycles(c) => {
            let clk = clock.ok_or_else(|| {
                hw.missing(
                    "compute.clock",
                    "converting a latency in cycles to time (or pass --clock)",
                    Some("1.8 GHz"),
                )
            })?;
            (
                c / clk,
                Quantity::new("latency in time", Unit::Seconds)
                    .formula("latency cycles / clock")
                    .derive(format!("{} cycles / {}", units::number(c), si(clk, "Hz"))),
            )
        }
        Latency::Seconds(s) => (s, Quantity::new("latency in time", Unit::Seconds)),
    };
    let lat_q = if d.latency.is_none() {
        lat_q.source(
            hw.source("memory.dram-latency")
                .or(hw.source("memory.dram-latency-time")),
        )
    } else {
        lat_q
    };
    let txn = match d.transaction {
        Some(t) => {
            let t = positive("--transaction", t)?;
            r.input("transaction", t);
            r.describe("transaction", Quantity::new("bytes per load", Unit::Bytes));
            t
        }
        None => hw.memory.segment.map(|s| s.get()).ok_or_else(|| {
            hw.missing(
                "memory.segment",
                "the bytes per load (or pass --transaction)",
                Some("128 B"),
            )
        })?,
    };
    let pointer = positive("--pointer", d.pointer.unwrap_or(8.0))?;
    if d.pointer.is_some() {
        r.input("pointer", pointer);
        r.describe("pointer", Quantity::new("bytes per pointer", Unit::Bytes));
    }

    r.result(
        "bandwidth_bytes_per_s",
        bw,
        Quantity::new("memory bandwidth", Unit::BytesPerSec).source(hw.source(
            if d.mode == Mode::SpeedOfLight {
                "memory.hbm-bandwidth"
            } else {
                "achievable.hbm-bandwidth"
            },
        )),
    );
    r.result("latency_s", latency_s, lat_q);
    if let Some(clk) = clock {
        r.result(
            "bytes_per_cycle",
            bw / clk,
            Quantity::new("memory bytes per cycle", Unit::BytesPerCycle)
                .formula("bandwidth / clock")
                .derive(format!("{} / {}", si(bw, "B/s"), si(clk, "Hz"))),
        );
    }
    let in_flight = bw * latency_s;
    r.result(
        "bytes_in_flight",
        in_flight,
        Quantity::new("bytes in flight", Unit::Bytes)
            .formula("bandwidth x latency")
            .derive(format!("{} x {}", si(bw, "B/s"), units::seconds(latency_s))),
    );
    let loads = in_flight / txn;
    r.result(
        "loads_in_flight",
        loads,
        Quantity::new("loads in flight", Unit::Count)
            .formula("bytes in flight / bytes per load")
            .derive(format!("{} / {} B", si(in_flight, "B"), units::number(txn))),
    );

    if let Some(ex) = &hw.execution {
        let sms = f64::from(ex.sms.get());
        let per_sm = loads / sms;
        r.result(
            "loads_per_sm",
            per_sm,
            Quantity::new("loads in flight per SM", Unit::Count)
                .formula("loads in flight / SMs")
                .derive(format!("{} / {}", units::sig(loads, 4), sms))
                .source(hw.source("execution.sms")),
        );
        r.result(
            "bandwidth_per_sm_bytes_per_s",
            bw / sms,
            Quantity::new("memory bandwidth per SM", Unit::BytesPerSec)
                .formula("bandwidth / SMs")
                .derive(format!("{} / {}", si(bw, "B/s"), sms)),
        );
        if let Some(clk) = clock {
            r.result(
                "bytes_per_cycle_per_sm",
                bw / sms / clk,
                Quantity::new("memory bytes per cycle per SM", Unit::BytesPerCycle)
                    .formula("bandwidth / SMs / clock")
                    .derive(format!("{} / {} / {}", si(bw, "B/s"), sms, si(clk, "Hz"))),
            );
        }
        let budget = ex.max_warps_per_sm.map(|w| u64::from(w.get())).or_else(|| {
            ex.max_threads_per_sm
                .map(|t| u64::from(t.get() / ex.warp_size.get()))
        });
        if let Some(budget) = budget {
            r.result(
                "warps_available",
                budget,
                Quantity::new("warp budget per SM", Unit::Count)
                    .source(hw.source("execution.max-warps-per-sm")),
            );
        }
        let warps = match d.warps {
            Some(0) => return Err(Error::input("--warps", "must be at least 1")),
            Some(w) => {
                r.input("warps", w);
                Some(w)
            }
            None => budget,
        };
        if let Some(w) = warps {
            let per_warp = (per_sm / w as f64).ceil();
            r.result(
                "loads_per_warp",
                per_warp,
                Quantity::new("loads in flight each warp must carry", Unit::Count)
                    .formula("ceil(loads per SM / resident warps)")
                    .derive(format!("ceil({} / {w})", units::sig(per_sm, 4))),
            );
            // The converse: what w warps with one load each can sustain.
            let sustained = (w as f64 * sms * txn / latency_s).min(bw);
            r.result(
                "one_load_per_warp_bandwidth_bytes_per_s",
                sustained,
                Quantity::new(
                    "bandwidth at one load in flight per warp",
                    Unit::BytesPerSec,
                )
                .formula("min(bandwidth, warps x SMs x bytes per load / latency)")
                .derive(format!(
                    "min({}, {w} x {sms} x {} B / {})",
                    si(bw, "B/s"),
                    units::number(txn),
                    units::seconds(latency_s)
                )),
            );
            if per_sm <= w as f64 {
                r.note(format!(
                    "{} loads per SM fit in {w} warps at one load each: enough warps to saturate memory if each keeps a load in flight",
                    units::sig(per_sm, 3)
                ));
            } else {
                r.note(format!(
                    "{} loads per SM exceed {w} warps: each warp needs {per_warp} independent loads in flight (unrolling, pipelining) to saturate memory",
                    units::sig(per_sm, 3)
                ));
            }
        }
    } else {
        r.note(format!(
            "{} has no SMs: per-SM demand and the warp budget do not apply",
            hw.id
        ));
    }

    // clock / cycles, not 1 / (cycles / clock): exact for round inputs.
    let chase = match (latency, clock) {
        (Latency::Cycles(c), Some(clk)) => clk / c,
        _ => 1.0 / latency_s,
    };
    r.result(
        "pointer_chase_loads_per_s",
        chase,
        Quantity::new("pointer chase: dependent loads per second", Unit::Count)
            .formula("1 / latency")
            .derive(format!("1 / {}", units::seconds(latency_s))),
    );
    let chase_bw = chase * pointer;
    r.result(
        "pointer_chase_bytes_per_s",
        chase_bw,
        Quantity::new("pointer chase: useful bandwidth", Unit::BytesPerSec)
            .formula("pointer bytes / latency")
            .derive(format!(
                "{} B / {}",
                units::number(pointer),
                units::seconds(latency_s)
            )),
    );
    r.result(
        "pointer_chase_slowdown",
        bw / chase_bw,
        Quantity::new("bandwidth / pointer-chase bandwidth", Unit::Ratio)
            .formula("bandwidth / pointer-chase bandwidth")
            .derive(format!("{} / {}", si(bw, "B/s"), si(chase_bw, "B/s"))),
    );
    if d.latency.is_none() {
        if d.mode == Mode::Achievable {
            r.note("latency: the hardware file's measured (pointer-chase) DRAM latency");
        } else {
            r.note("latency: the hardware file's DRAM latency; the lecture assumes 500 cycles at 1.8 GHz (pass --latency \"500 cycles\" --clock 1.8GHz)");
        }
    }
    r.note("one dependent load in flight (a pointer chase) gets latency-bound bandwidth, whatever the pins can do");
    Ok(r)
}

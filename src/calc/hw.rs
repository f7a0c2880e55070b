//! `hw show` and `hw list`: an accelerator's datasheet numbers and the
//! figures derived from them (formulas.md, "Hardware figures"; 002 §7.3).

use crate::error::Result;
use crate::precision::{self, Precision};
use crate::report::{Quantity, Report, Row, Unit};
use crate::spec::hardware::{Hardware, Mode, Scope};
use crate::units::{self, si};

/// Options of `hw show`.
#[derive(Debug, Clone, Default)]
pub struct ShowOptions {
    /// The precision for the headline ridge point (default: the file's).
    pub dtype: Option<String>,
    /// Clock for per-cycle figures (default: the file's boost clock).
    pub clock_hz: Option<f64>,
    /// Datasheet or measured rates.
    pub mode: Mode,
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
/// the number of its scope units (002 §7.3: registers + SMEM + L2).
pub fn onchip_bytes(hw: &Hardware) -> (f64, Vec<String>) {
    let mut total = 0.0;
    let mut terms = Vec::new();
    for l in hw.memory.levels.iter().filter(|l| l.counts_toward_total) {
        let n = level_count(hw, l.scope, l.count.map(|c| c.get()));
        total += l.capacity.get() * n;
        if n == 1.0 {
            terms.push(format!("{} {}", units::iec_bytes(l.capacity.get()), l.name));
        } else {
            terms.push(format!(
                "{} x {} {}",
                n,
                units::iec_bytes(l.capacity.get()),
                l.name
            ));
        }
    }
    (total, terms)
}

/// `hw show`: headline figures at one precision and a row per precision.
pub fn show(hw: &Hardware, opts: &ShowOptions) -> Result<Report> {
    let p = hw.precision(opts.dtype.as_deref())?;
    let mut r = Report::new("hw show");
    r.hardware = Some(hw.id.clone());
    r.input("dtype", p.name);
    let sos = opts.mode == Mode::SpeedOfLight;
    if !sos {
        r.input("achievable", true);
    }
    let src = |f: &str| hw.source(f).map(String::from);
    r.result("name", hw.name.as_str(), Quantity::new("name", Unit::None));
    r.result(
        "vendor",
        hw.vendor.as_str(),
        Quantity::new("vendor", Unit::None),
    );
    r.result("kind", hw.kind.as_str(), Quantity::new("kind", Unit::None));

    let peak = hw.peak(p, opts.mode)?;
    let peak_field = if sos {
        format!("compute.dense.{}", p.compute)
    } else {
        format!("achievable.dense.{}", p.compute)
    };
    let mut q = Quantity::new("peak", Unit::FlopPerSec).source(src(&peak_field).as_deref());
    if hw.peak_multiplier() != 1.0 {
        q = q.formula("per-core peak x cores").derive(format!(
            "{} x {}",
            si(peak / hw.peak_multiplier(), "FLOP/s"),
            hw.peak_multiplier()
        ));
    }
    r.result("peak_flops_per_s", peak, q);

    let bw = hw.bandwidth(opts.mode)?;
    let bw_field = if sos {
        "memory.hbm-bandwidth"
    } else {
        "achievable.hbm-bandwidth"
    };
    r.result(
        "hbm_bandwidth_bytes_per_s",
        bw,
        Quantity::new("memory bandwidth", Unit::BytesPerSec).source(hw.source(bw_field)),
    );
    if let Some(c) = hw.memory.hbm_capacity {
        r.result(
            "hbm_capacity_bytes",
            c.get(),
            Quantity::new("memory capacity", Unit::Bytes).source(hw.source("memory.hbm-capacity")),
        );
    }
    let ridge = peak / bw;
    r.result(
        "ridge_point_flop_per_byte",
        ridge,
        Quantity::new("ridge point", Unit::FlopPerByte)
            .formula("peak / bandwidth")
            .derive(format!("{} / {}", si(peak, "FLOP/s"), si(bw, "B/s"))),
    );

    let (onchip, terms) = onchip_bytes(hw);
    if onchip > 0.0 {
        r.result(
            "onchip_bytes",
            onchip,
            Quantity::new("on-chip storage", Unit::Bytes)
                .formula("sum of on-chip levels x their count")
                .derive(terms.join(" + ")),
        );
    }

    let clock = opts.clock_hz.map_or_else(|| hw.clock(), Ok);
    if let Ok(clock) = clock {
        r.input("clock_hz", clock);
    }
    if let Some(ex) = &hw.execution {
        let sms = f64::from(ex.sms.get());
        r.result(
            "sms",
            sms,
            Quantity::new("SMs / CUs", Unit::Count).source(hw.source("execution.sms")),
        );
        let per_sm = bw / sms;
        r.result(
            "hbm_bandwidth_per_sm_bytes_per_s",
            per_sm,
            Quantity::new("memory bandwidth per SM", Unit::BytesPerSec)
                .formula("bandwidth / SMs")
                .derive(format!("{} / {}", si(bw, "B/s"), sms)),
        );
        if let Ok(clock) = clock {
            r.result(
                "hbm_bytes_per_cycle_per_sm",
                per_sm / clock,
                Quantity::new("memory bytes per cycle per SM", Unit::BytesPerCycle)
                    .formula("bandwidth / SMs / clock")
                    .derive(format!("{} / {} / {}", si(bw, "B/s"), sms, si(clock, "Hz"))),
            );
        }
    }
    if let (Ok(clock), Some(lat)) = (clock, hw.memory.dram_latency) {
        let t = lat.get() / clock;
        r.result(
            "littles_law_bytes_in_flight",
            bw * t,
            Quantity::new("bytes in flight to saturate memory", Unit::Bytes)
                .formula("bandwidth x latency / clock")
                .derive(format!(
                    "{} x {} cycles / {}",
                    si(bw, "B/s"),
                    units::number(lat.get()),
                    si(clock, "Hz")
                ))
                .source(hw.source("memory.dram-latency")),
        );
    }

    r.describe("precision", Quantity::new("precision", Unit::None));
    r.describe(
        "dense_flops_per_s",
        Quantity::new("dense peak", Unit::FlopPerSec),
    );
    r.describe(
        "sparse_flops_per_s",
        Quantity::new("sparse peak", Unit::FlopPerSec),
    );
    r.describe(
        "ridge_flop_per_byte",
        Quantity::new("ridge point", Unit::FlopPerByte),
    );
    for key in hw.compute.dense.keys() {
        let Some(pp) = precision::ALL.iter().find(|x| x.name == key) else {
            continue;
        };
        let Ok(pk) = hw.peak(pp, opts.mode) else {
            continue;
        };
        let mut row = Row::default();
        row.inputs.insert("precision".into(), key.into());
        row.results.insert("dense_flops_per_s".into(), pk.into());
        if sos && let Some(s) = hw.compute.sparse.as_ref().and_then(|s| s.get(key)) {
            row.results.insert(
                "sparse_flops_per_s".into(),
                (s * hw.peak_multiplier()).into(),
            );
        }
        row.results
            .insert("ridge_flop_per_byte".into(), (pk / bw).into());
        r.rows.push(row);
    }
    if sos {
        r.note("speed-of-light figures from the datasheet; --achievable uses measured ones where the file has them");
    } else {
        r.note("achievable figures: measured, not datasheet");
    }
    Ok(r)
}

/// Peak at the file's default precision, for listings.
pub fn default_peak(hw: &Hardware) -> Option<(&'static Precision, f64)> {
    let p = hw.precision(None).ok()?;
    Some((p, hw.peak(p, Mode::SpeedOfLight).ok()?))
}

/// `hw list`: one row per accelerator with its summary.
pub fn list(items: &[Hardware]) -> Report {
    let mut r = Report::new("hw list");
    r.describe("id", Quantity::new("id", Unit::None));
    r.describe("name", Quantity::new("name", Unit::None));
    r.describe("kind", Quantity::new("kind", Unit::None));
    r.describe(
        "peak_flops_per_s",
        Quantity::new("peak (default dtype)", Unit::FlopPerSec),
    );
    r.describe(
        "hbm_bandwidth_bytes_per_s",
        Quantity::new("memory bandwidth", Unit::BytesPerSec),
    );
    r.describe("hbm_capacity_bytes", Quantity::new("memory", Unit::Bytes));
    r.describe("summary", Quantity::new("summary", Unit::None));
    for hw in items {
        let mut row = Row::default();
        row.inputs.insert("id".into(), hw.id.clone().into());
        row.results.insert("name".into(), hw.name.clone().into());
        row.results.insert("kind".into(), hw.kind.as_str().into());
        if let Some((p, pk)) = default_peak(hw) {
            row.results.insert("dtype".into(), p.name.into());
            row.results.insert("peak_flops_per_s".into(), pk.into());
        }
        if let Some(b) = hw.memory.hbm_bandwidth {
            row.results
                .insert("hbm_bandwidth_bytes_per_s".into(), b.get().into());
        }
        if let Some(c) = hw.memory.hbm_capacity {
            row.results
                .insert("hbm_capacity_bytes".into(), c.get().into());
        }
        if let Some(s) = &hw.summary {
            row.results.insert("summary".into(), s.clone().into());
        }
        r.rows.push(row);
    }
    r
}

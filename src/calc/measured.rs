//! `--measured TIME`: what a kernel, step or collective achieved in a
//! measured time, and its share of each roof: the achieved FLOP/s over the
//! compute peak (model FLOP utilisation, MFU), the achieved bytes per
//! second over the memory bandwidth (MBU), and for a collective the bus
//! bandwidth over the link's (formulas.md, "Measured utilisation"). The
//! work counted is the model's own (its FLOPs and bytes), so MFU and MBU
//! read as the share of the roofline the measurement reached.

use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Unit};
use crate::units::{self, si};

/// Adds the measured time's results to a report of `point`, `matmul`,
/// `decode`, `prefill` or `collective`.
pub fn record(r: &mut Report, time: f64) -> Result<()> {
    let num = |k: &str| r.number(k);
    let modelled = num("time_s").or(num("step_time_s"));
    if r.command.starts_with("collective") {
        let (Some(bus), Some(bw)) = (num("bus_bytes"), num("bandwidth_bytes_per_s")) else {
            return Err(Error::Unsupported(
                "the collective has no bus bytes to rate the measured time by".into(),
            ));
        };
        let busbw = bus / time;
        push(r, time, modelled);
        r.result("achieved_busbw_bytes_per_s", busbw, || {
            Quantity::new("achieved bus bandwidth", Unit::BytesPerSec)
                .formula("bus bytes / measured time")
                .derive(format!("{} / {}", si(bus, "B"), units::seconds(time)))
        });
        r.result("busbw_fraction", busbw / bw, || {
            Quantity::new("share of the link's bandwidth", Unit::Fraction)
                .formula("achieved bus bandwidth / link bandwidth")
                .derive(format!("{} / {}", si(busbw, "B/s"), si(bw, "B/s")))
        });
        r.result("mbu", busbw / bw, || {
            Quantity::new("bandwidth utilisation (bus)", Unit::Fraction)
                .formula("achieved bus bandwidth / link bandwidth")
        });
        more(r, &["achieved_busbw_bytes_per_s", "busbw_fraction"]);
        return Ok(());
    }
    let flops = num("flops").or_else(|| r.inputs.get("flops").and_then(|v| v.as_f64()));
    // matmul counts the HBM traffic at its reuse level.
    let bytes = num("bytes")
        .or(num("traffic_bytes"))
        .or_else(|| r.inputs.get("bytes").and_then(|v| v.as_f64()));
    let (Some(flops), Some(bytes)) = (flops, bytes) else {
        return Err(Error::missing_input(
            "measured",
            "a measured time is rated by the work done: give --flops and --bytes",
        ));
    };
    // matmul gives its peak and bandwidth through its times.
    let peak = num("peak_flops_per_s").or_else(|| Some(flops / num("compute_time_s")?));
    let bw = num("bandwidth_bytes_per_s").or_else(|| Some(bytes / num("traffic_memory_time_s")?));
    let (Some(peak), Some(bw)) = (peak, bw) else {
        return Err(Error::Unsupported(
            "the report has no peak or bandwidth to rate the measured time by".into(),
        ));
    };
    let integer = r.unit("peak_flops_per_s") == Unit::OpPerSec;
    let rate = flops / time;
    let bps = bytes / time;
    push(r, time, modelled);
    r.result("achieved_flops_per_s", rate, || {
        Quantity::new("achieved compute rate", Unit::FlopPerSec.ops_if(integer))
            .formula("FLOPs / measured time")
            .derive(format!("{} / {}", si(flops, "FLOP"), units::seconds(time)))
    });
    r.result("achieved_bytes_per_s", bps, || {
        Quantity::new("achieved memory rate", Unit::BytesPerSec)
            .formula("bytes / measured time")
            .derive(format!("{} / {}", si(bytes, "B"), units::seconds(time)))
    });
    r.result("mfu", rate / peak, || {
        Quantity::new("compute utilisation (MFU)", Unit::Fraction)
            .formula("achieved FLOP/s / peak FLOP/s")
            .derive(format!("{} / {}", si(rate, "FLOP/s"), si(peak, "FLOP/s")))
    });
    r.result("mbu", bps / bw, || {
        Quantity::new("memory-bandwidth utilisation (MBU)", Unit::Fraction)
            .formula("achieved B/s / memory bandwidth")
            .derive(format!("{} / {}", si(bps, "B/s"), si(bw, "B/s")))
    });
    more(
        r,
        &[
            "measured_time_s",
            "achieved_flops_per_s",
            "achieved_bytes_per_s",
            "mfu",
            "mbu",
        ],
    );
    Ok(())
}

fn push(r: &mut Report, time: f64, modelled: Option<f64>) {
    r.input("measured", time);
    r.describe("measured", || Quantity::new("measured time", Unit::Seconds));
    r.result("measured_time_s", time, || {
        Quantity::new("measured time", Unit::Seconds)
    });
    if let Some(m) = modelled {
        r.result("model_vs_measured", m / time, || {
            Quantity::new("modelled time / measured time", Unit::Ratio)
                .formula("modelled time / measured time")
                .derive(format!("{} / {}", units::seconds(m), units::seconds(time)))
        });
    }
}

/// Adds `keys` to what a table shows by default.
fn more(r: &mut Report, keys: &[&str]) {
    if r.lean {
        return;
    }
    for k in keys {
        if !r.headline.iter().any(|h| h == k) {
            r.headline.push((*k).to_string());
        }
    }
}

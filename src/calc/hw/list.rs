//! `hw list`: one entry of the figures the list shows per accelerator,
//! and the listing of them.

use crate::precision::Precision;
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};

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

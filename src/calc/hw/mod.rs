//! `hw show` and `hw list`: an accelerator's datasheet numbers and the
//! figures derived from them (formulas.md, "Hardware figures"; 002 §7.3).
//! `hw show` is a typed query: [`HwShowInputs`] in, [`cost`] to an
//! [`HwCost`] of every figure, [`HwCost::report`] to a report.
//!
//! The rooms: this file holds the inputs and the helpers other commands
//! share (the clock warning, level counts, on-chip bytes); `cost` the
//! figures, `report` and `datasheet` the report made from them, `list`
//! `hw list`.

use crate::inputs::Hz;
use crate::report::Unit;
use crate::spec::hardware::{Hardware, Scope};
use crate::units::si;
use serde::{Deserialize, Serialize};

mod cost;
mod datasheet;
mod list;
mod report;

pub use cost::{HwCost, MemoryLatency, PrecisionPeaks, cost};
pub use list::{default_peak, list, list_entry, listing};

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
        // Set in the file: against the catalog's 700 MHz to 2.4 GHz (50
        // GHz, within the plausible range a file's clock may have: 1e99
        // GHz is refused as it is read, issue 55).
        let set = catalog_hw("h100-sxm", &["compute.clock=50GHz"]);
        assert!(clock_note(&set, None).unwrap().contains(
            "is more than twice the fastest boost clock in the catalog (2.4 GHz): check the unit"
        ));
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

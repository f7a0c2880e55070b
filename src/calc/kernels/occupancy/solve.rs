//! `occupancy`'s inverse questions: the warps a target occupancy needs
//! (`--target-occupancy 40%`), and the most of one resource a kernel may
//! use and still reach a target or full occupancy (`--solve registers`,
//! `--solve threads`, `--solve smem`) (formulas.md, "Occupancy, solved
//! backwards").
//!
//! Each solve asks the forward arithmetic ([`cost`]) itself at the
//! candidate values rather than inverting its formulas by hand: the
//! allocation granularities, the carveout choice and the per-block limits
//! then hold in the answer exactly as they hold forwards, and the answer is
//! the kernel `occupancy` would report, printed in full.

use super::budget::Budget;
use super::cost::{OccupancyCost, cost};
use super::{Limiter, OccupancyInputs};
use crate::error::{Error, Result};
use crate::inputs::{Bytes, Count};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, number};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The resource `--solve` finds the most of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Solve {
    /// Registers per thread.
    Registers,
    /// Threads per block.
    Threads,
    /// Dynamic shared memory per block.
    Smem,
}

impl Solve {
    fn as_str(self) -> &'static str {
        match self {
            Solve::Registers => "registers",
            Solve::Threads => "threads",
            Solve::Smem => "smem",
        }
    }
}

/// A share of the warp budget: `40%`, `40 %` or `0.4`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Share(pub f64);

impl<'de> Deserialize<'de> for Share {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Share;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a share such as 40% or 0.4")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Share, E> {
                share(v).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Share, E> {
                share(v as f64).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Share, E> {
                share(v as f64).map_err(E::custom)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Share, E> {
                let t = v.trim();
                let (num, scale) = match t.strip_suffix('%') {
                    Some(n) => (n.trim(), 0.01),
                    None => (t, 1.0),
                };
                let x: f64 = num.parse().map_err(|_| {
                    E::custom(format!("`{v}` is not a share; write it as 40% or 0.4"))
                })?;
                share(x * scale).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// The smallest occupancy a target may ask for: 0.1%, below one warp of
/// the largest warp budget any part has (one of 64 is 1.6%).
const MIN_SHARE: f64 = 1e-3;

fn share(x: f64) -> std::result::Result<Share, String> {
    if x.is_finite() && (MIN_SHARE..=1.0).contains(&x) {
        Ok(Share(x))
    } else {
        Err(format!(
            "{} is no occupancy: give a share of at least 0.1% and at most 100% (0.4 or 40%)",
            pct(x)
        ))
    }
}

/// What a solve found.
#[derive(Debug, Clone)]
pub struct SolveCost<'a> {
    /// The hardware.
    pub hw: &'a Hardware,
    /// The occupancy asked for (1 when not given).
    pub target: f64,
    /// The warp budget per SM.
    pub max_warps: u64,
    /// target x warp budget: the warps the target names.
    pub target_warps: f64,
    /// The whole warps that reach at least the target.
    pub warps_needed: u64,
    /// The resource solved for, if any.
    pub solve: Option<Solve>,
    /// The largest value of it that reaches the target (registers per
    /// thread, threads per block or bytes of dynamic shared memory).
    pub most: Option<u64>,
    /// The kernel at that value (or the kernel given, when only a target
    /// was asked), as `occupancy` reports it.
    pub kernel: Option<OccupancyCost<'a>>,
    /// The kernel one step beyond `most` (one register, one thread, one
    /// byte more), which falls short, with its occupancy and what binds;
    /// `None` where the step is past the hardware's limit.
    pub beyond: Option<(u64, f64, Option<Limiter>)>,
}

/// Occupancy's inverse: the warps `target_occupancy` needs and, with
/// `solve`, the most of that resource a kernel may use and still reach it
/// (full occupancy when no target is given).
pub fn solve<'a>(hw: &'a Hardware, inputs: &OccupancyInputs, mode: Mode) -> Result<SolveCost<'a>> {
    let ex = hw.execution()?;
    let b = Budget::of(hw, ex)?;
    let target = inputs.target_occupancy.map_or(1.0, |s| s.0);
    let target_warps = target * b.max_warps as f64;
    // A hair below the product, so that 50% of 64 is 32 warps, not 33 by
    // rounding.
    let warps_needed = (target_warps - 1e-9).ceil().max(1.0) as u64;
    // Reaching the target: the kernel's warps cover `warps_needed`.
    let reaches = |c: &OccupancyCost| c.warps_per_sm >= warps_needed;
    let given = |name: &str, v: bool, what: Solve| -> Result<()> {
        if v {
            Err(Error::field(
                name,
                format!(
                    "`{name}` is what --solve {} finds; leave it out",
                    what.as_str()
                ),
            ))
        } else {
            Ok(())
        }
    };
    let at = |f: &dyn Fn(&mut OccupancyInputs)| -> Result<OccupancyCost<'a>> {
        let mut i = inputs.clone();
        f(&mut i);
        cost(hw, &i, mode)
    };
    let Some(what) = inputs.solve else {
        // Only the target: its warps, and the kernel's own figures when
        // one is given.
        let kernel = match (inputs.threads, inputs.regs) {
            (Some(_), Some(_)) => Some(cost(hw, inputs, mode)?),
            _ => None,
        };
        return Ok(SolveCost {
            hw,
            target,
            max_warps: b.max_warps,
            target_warps,
            warps_needed,
            solve: None,
            most: None,
            kernel,
            beyond: None,
        });
    };
    // The candidates, from the most to the least; the answer is the first
    // that reaches the target. Occupancy only falls as registers or shared
    // memory grow, so those two could bisect; threads per block cannot
    // (288 threads fill 63 of 64 warps where 256 and 512 fill all), so
    // every count is tried. Each is one forward cost: at most a few
    // thousand integer evaluations.
    let (most, kernel, beyond) = match what {
        Solve::Registers => {
            given("regs", inputs.regs.is_some(), what)?;
            need_kernel(inputs.threads.is_some(), "threads", what)?;
            let found = (1..=b.max_regs_per_thread).rev().find_map(|r| {
                at(&|i| i.regs = Some(Count(r)))
                    .ok()
                    .filter(|c| reaches(c))
                    .map(|c| (r, c))
            });
            let Some((r, c)) = found else {
                return Err(short(hw, target, &at(&|i| i.regs = Some(Count(1)))?, what));
            };
            let beyond = (r < b.max_regs_per_thread)
                .then(|| at(&|i| i.regs = Some(Count(r + 1))).ok())
                .flatten()
                .map(|n| (r + 1, n.occupancy, n.limiters.first()));
            (r, c, beyond)
        }
        Solve::Threads => {
            given("threads", inputs.threads.is_some(), what)?;
            need_kernel(inputs.regs.is_some(), "regs", what)?;
            let found = (1..=b.max_threads_per_block).rev().find_map(|t| {
                at(&|i| i.threads = Some(Count(t)))
                    .ok()
                    .filter(|c| reaches(c))
                    .map(|c| (t, c))
            });
            let Some((t, c)) = found else {
                return Err(short(
                    hw,
                    target,
                    &at(&|i| i.threads = Some(Count(b.warp_size)))?,
                    what,
                ));
            };
            let beyond = (t < b.max_threads_per_block)
                .then(|| at(&|i| i.threads = Some(Count(t + 1))).ok())
                .flatten()
                .map(|n| (t + 1, n.occupancy, n.limiters.first()));
            (t, c, beyond)
        }
        Solve::Smem => {
            given("smem", inputs.smem.is_some(), what)?;
            need_kernel(inputs.threads.is_some(), "threads", what)?;
            need_kernel(inputs.regs.is_some(), "regs", what)?;
            let with = |s: u64| at(&|i| i.smem = Some(Bytes(s as f64)));
            let none = with(0)?;
            if !reaches(&none) {
                return Err(short(hw, target, &none, what));
            }
            // Bisect: `lo` reaches the target, `hi` does not (or is past
            // what a block may ask for).
            let static_smem = inputs.static_smem.map_or(0.0, |s| s.0) as u64;
            let mut lo = 0u64;
            let mut hi = b.smem_optin.saturating_sub(static_smem) + 1;
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if with(mid).is_ok_and(|c| reaches(&c)) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let beyond = with(lo + 1)
                .ok()
                .map(|n| (lo + 1, n.occupancy, n.limiters.first()));
            (lo, with(lo)?, beyond)
        }
    };
    Ok(SolveCost {
        hw,
        target,
        max_warps: b.max_warps,
        target_warps,
        warps_needed,
        solve: Some(what),
        most: Some(most),
        kernel: Some(kernel),
        beyond,
    })
}

/// A fraction as a percentage with its sign (`0.75` -> `75%`).
fn pct(fraction: f64) -> String {
    format!("{}%", units::percent(fraction))
}

fn need_kernel(present: bool, name: &str, what: Solve) -> Result<()> {
    if present {
        Ok(())
    } else {
        Err(Error::missing_input(
            name,
            format!(
                "--solve {} needs the rest of the kernel: give `{name}`",
                what.as_str()
            ),
        ))
    }
}

/// The error for a target no value reaches: what the kernel reaches at the
/// least of the resource, and what binds it there.
fn short(hw: &Hardware, target: f64, least: &OccupancyCost, what: Solve) -> Error {
    let least_of = match what {
        Solve::Registers => "1 register per thread".to_string(),
        Solve::Threads => format!("{} threads per block", least.threads),
        Solve::Smem => "no dynamic shared memory".to_string(),
    };
    let binds = least.limiters.first().map_or("nothing", Limiter::describe);
    Error::field(
        "target-occupancy",
        format!(
            "no {} reaches {} on {}: even with {least_of} the kernel reaches {} ({} bind{}); ask for a lower --target-occupancy",
            match what {
                Solve::Registers => "register count",
                Solve::Threads => "thread count",
                Solve::Smem => "shared-memory size",
            },
            pct(target),
            hw.id,
            pct(least.occupancy),
            binds,
            if binds.ends_with('s') { "" } else { "s" }
        ),
    )
}

impl SolveCost<'_> {
    /// The report: the kernel as `occupancy` reports it, with the target's
    /// warps and the solved value ahead of it.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = match &self.kernel {
            Some(k) => k.report(lean),
            None => {
                let mut r = Report::new_lean("occupancy", lean);
                r.hardware = Some(self.hw.id.clone());
                r
            }
        };
        r.input("target_occupancy", self.target);
        r.describe("target_occupancy", || {
            Quantity::new("occupancy asked for", Unit::Fraction)
        });
        if let Some(s) = self.solve {
            r.input("solve", s.as_str());
        }
        r.result("target_warps", self.target_warps, || {
            Quantity::new("warps the target names", Unit::Count)
                .formula("target occupancy x warps per SM")
                .derive(format!(
                    "{} x {} = {}",
                    pct(self.target),
                    self.max_warps,
                    number(self.target_warps)
                ))
        });
        r.result("warps_needed", self.warps_needed, || {
            Quantity::new("whole warps per SM that reach it", Unit::Count)
                .formula("ceil(target warps)")
                .derive(format!("ceil({})", number(self.target_warps)))
        });
        if let (Some(what), Some(most)) = (self.solve, self.most) {
            let (key, label, unit) = match what {
                Solve::Registers => (
                    "registers_per_thread",
                    "most registers per thread",
                    Unit::Count,
                ),
                Solve::Threads => ("threads_per_block", "most threads per block", Unit::Count),
                Solve::Smem => (
                    "smem_per_block",
                    "most dynamic shared memory per block",
                    Unit::BytesIec,
                ),
            };
            let show = |v: u64| match what {
                Solve::Smem => units::iec_bytes(v as f64),
                _ => number(v as f64),
            };
            r.result(key, most, || {
                let q = Quantity::new(label, unit).formula(
                    "the largest value at which the kernel's warps per SM reach the target's",
                );
                match self.beyond {
                    Some((next, occ, binds)) => q.derive(format!(
                        "{} reaches {} warps; {} falls to {}{}",
                        show(most),
                        self.kernel.as_ref().map_or(0, |k| k.warps_per_sm),
                        show(next),
                        pct(occ),
                        binds.map_or(String::new(), |l| format!(", bound by {}", l.describe()))
                    )),
                    None => q.derive(format!("{}: the hardware's limit", show(most))),
                }
            });
            r.headline(&[key, "occupancy"]);
        } else if self.kernel.is_none() {
            r.headline(&["target_warps", "warps_needed"]);
        }
        r
    }
}

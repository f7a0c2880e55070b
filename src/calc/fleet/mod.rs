//! `fleet`: the fewest devices that serve a workload within its SLOs, and
//! the frontier of throughput per device against speed per user
//! (formulas.md, "Fleet"). It searches every part named, every layout of
//! a replica (TP, PP, EP) that fits, batch caps and token budgets, and for
//! each the fewest data-parallel replicas whose simulated run meets the
//! targets. Every verdict comes from the simulator ([`super::simulate`]):
//! one replica at the rate divided by the replicas (random routing splits
//! Poisson arrivals into Poisson arrivals), with the same seed, so more
//! replicas only ever thin the same arrivals. A decode-only throughput
//! bound only orders and prunes the search; it decides nothing.
//!
//! Rooms: [`search`] (candidates and the replica search), [`pools`] (the
//! disaggregated half), [`confirm`] (the winner run whole at steady state,
//! [`steady`]), [`check`] (its `simulate` command), [`report`].

pub mod check;
pub mod confirm;
mod floors;
pub mod pools;
pub mod report;
pub mod search;
pub mod steady;
#[cfg(test)]
mod tests;

use super::simulate::{self, SimulateInputs};
use crate::error::{Error, Result};
use crate::inputs::Count;
use crate::units;
use serde::{Deserialize, Serialize};

pub use search::{Candidate, FleetCost, Verdict};

/// What the search minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    /// Devices in all (the default).
    #[default]
    Devices,
    /// Cost per million output tokens (needs `price` and/or
    /// `energy-price`).
    Cost,
    /// Energy per output token.
    Energy,
}

impl Objective {
    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Objective::Devices => "devices",
            Objective::Cost => "cost",
            Objective::Energy => "energy",
        }
    }

    /// The score of a configuration of `devices` devices whose run draws
    /// `energy`, at `prices`; lower is better. Energy and cost need the
    /// part's board-power figures (an error naming the field) and cost a
    /// price.
    pub fn score(
        self,
        devices: u64,
        energy: &crate::calc::power::Energy,
        prices: &crate::calc::power::Prices,
    ) -> Result<f64> {
        let per_token = || {
            energy.per_token_j().ok_or_else(|| match &energy.draw {
                Err(f) => Error::field(
                    "objective",
                    format!("ranking by energy needs the part's board power; it has no {f}"),
                ),
                Ok(_) => Error::field("objective", "no output tokens to rank by"),
            })
        };
        Ok(match self {
            Objective::Devices => devices as f64,
            Objective::Energy => per_token()?,
            Objective::Cost => {
                if !prices.any() {
                    return Err(Error::missing_input(
                        "price",
                        "--objective cost ranks by cost per million output tokens; give price (per device-hour) and/or energy-price",
                    ));
                }
                let device = prices
                    .device_per_million(energy.device_s_per_token())
                    .ok_or_else(|| Error::field("objective", "no output tokens to rank by"))?;
                let bill = match prices.kwh {
                    Some(_) => prices.energy_per_million(Some(per_token()?)).unwrap_or(0.0),
                    None => 0.0,
                };
                device + bill
            }
        })
    }
}

impl Objective {
    /// The lowest score a configuration of `devices` devices can have when
    /// its run spends at least `device_s` device-seconds and `energy_j`
    /// joules per output token: the floor a search prunes by (formulas.md,
    /// "Fleet"). None where the score needs a figure the part lacks (then
    /// [`Objective::score`] says which).
    pub fn floor(
        self,
        devices: u64,
        device_s: f64,
        energy_j: Option<f64>,
        prices: &crate::calc::power::Prices,
    ) -> Option<f64> {
        match self {
            Objective::Devices => Some(devices as f64),
            Objective::Energy => energy_j,
            Objective::Cost => {
                if !prices.any() {
                    return None;
                }
                Some(
                    prices.device_per_million(Some(device_s))?
                        + prices.energy_per_million(energy_j)?,
                )
            }
        }
    }

    /// A score for a person: devices, joules per output token, or cost per
    /// million output tokens.
    pub fn show(self, score: f64) -> String {
        match self {
            Objective::Devices => units::whole(score as u64),
            Objective::Energy => format!("{} per output token", units::joules(score)),
            Objective::Cost => format!("{} per million output tokens", units::sig(score, 4)),
        }
    }
}

/// `fleet`'s inputs: `simulate`'s workload and engine flags, plus the
/// search's bounds ([`FleetOptions`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FleetInputs {
    /// The workload, as `simulate` takes it (no layout fields).
    pub sim: SimulateInputs,
    /// The search's own fields.
    pub options: FleetOptions,
    /// Prices for cost per token and `--objective cost`.
    pub prices: crate::calc::power::Prices,
    /// How the inputs were named, for the check command.
    pub check: check::Check,
}

/// The fields `fleet` adds to `simulate`'s.
pub const OWN_FIELDS: [&str; 5] = ["max-devices", "caps", "budgets", "objective", "pareto"];

impl FleetInputs {
    /// Splits a field map into `simulate`'s fields and the search's.
    pub fn from_fields(f: &crate::inputs::Fields) -> Result<Self> {
        let mut f = f.clone();
        let prices = crate::calc::power::Prices::take(&mut f)?;
        let (own, sim): (crate::inputs::Fields, crate::inputs::Fields) = f
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .partition(|(k, _)| OWN_FIELDS.contains(&k.as_str()));
        Ok(FleetInputs {
            sim: crate::inputs::from_fields(&sim)?,
            options: crate::inputs::from_fields(&own)?,
            prices,
            check: check::Check::default(),
        })
    }
}

/// The search's bounds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FleetOptions {
    /// The most devices a deployment may take (default 1,024).
    pub max_devices: Option<Count>,
    /// Batch caps searched, comma-separated (default 16,32,64,128,256).
    pub caps: Option<String>,
    /// Token budgets searched beside each cap, comma-separated (default:
    /// 2,048 + the cap).
    pub budgets: Option<String>,
    /// What to minimise.
    pub objective: Option<Objective>,
    /// Also trace the frontier of tokens/s per device against tokens/s per
    /// user.
    #[serde(default)]
    pub pareto: bool,
    /// Simulates every candidate, no floor pruning (for tests that check
    /// the pruning changes no ranked answer; not a user field).
    #[serde(skip)]
    pub exhaustive: bool,
}

/// Default batch caps searched.
pub const DEFAULT_CAPS: [u64; 5] = [16, 32, 64, 128, 256];
/// Requests each simulated verdict takes by default.
pub const DEFAULT_REQUESTS: u64 = 1000;
/// Default device bound.
pub const DEFAULT_MAX_DEVICES: u64 = 1024;

/// Parses a comma-separated list of counts.
pub fn counts(field: &str, text: &str) -> Result<Vec<u64>> {
    let v = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| match crate::inputs::parse_count(s) {
            Ok(n) if n >= 1 => Ok(n),
            Ok(_) => Err(Error::field(field, "each value must be at least 1")),
            Err(e) => Err(Error::field(field, e)),
        })
        .collect::<Result<Vec<u64>>>()?;
    if v.is_empty() {
        return Err(Error::field(field, "give at least one value"));
    }
    Ok(v)
}

/// Checks what `fleet` needs of the workload: a rate and a target.
pub fn check(i: &FleetInputs) -> Result<simulate::Workload> {
    let s = &i.sim;
    for (f, given) in [
        ("tp", s.tp.is_some()),
        ("pp", s.pp.is_some()),
        ("ep", s.ep.is_some()),
        ("dp", s.dp.is_some()),
        ("max-seqs", s.max_seqs.is_some()),
        ("max-batched-tokens", s.max_batched_tokens.is_some()),
    ] {
        if given {
            return Err(Error::field(
                f,
                "fleet searches the layout and the caps itself; give caps or budgets to narrow them, or run `simulate` for one layout",
            ));
        }
    }
    if s.concurrency.is_some() || s.trace.is_some() {
        return Err(Error::field(
            if s.trace.is_some() {
                "trace"
            } else {
                "concurrency"
            },
            "fleet sizes a deployment for a Poisson arrival rate; give rate",
        ));
    }
    if s.slo_ttft.is_none() && s.slo_tpot.is_none() {
        return Err(Error::missing_input(
            "slo-ttft",
            "fleet finds the fewest devices meeting targets; give slo-ttft and/or slo-tpot (a bare time is p99)",
        ));
    }
    let mut sim = s.clone();
    if sim.requests.is_none() {
        sim.requests = Some(Count(DEFAULT_REQUESTS));
    }
    simulate::workload(&sim)
}

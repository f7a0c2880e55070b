//! `fleet`: the fewest devices that serve a workload within its SLOs, and
//! the frontier of throughput per device against speed per user
//! (formulas.md, "Fleet"). It searches every part named, every layout of
//! a replica (TP, PP, EP) that fits, batch caps and token budgets, and for
//! each the fewest data-parallel replicas whose simulated run meets the
//! targets. Every verdict comes from the simulator ([`crate::calc::simulate`]):
//! one replica at the rate divided by the replicas (random routing splits
//! Poisson arrivals into Poisson arrivals), with the same seed, so more
//! replicas only ever thin the same arrivals. A decode-only throughput
//! bound only orders and prunes the search; it decides nothing.
//!
//! Rooms: [`search`] (candidates and the replica search), [`pools`] (the
//! disaggregated half), [`confirm`] (the winner run whole at steady state,
//! [`steady`]), [`check`](mod@check) (its `simulate` command), [`report`].

pub mod check;
pub mod confirm;
mod floors;
pub mod pools;
pub mod report;
pub mod search;
pub mod steady;
#[cfg(test)]
mod tests;
mod unpriced;

use crate::calc::simulate::{self, SimulateInputs};
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
    /// A price per device-hour for each part (`price =
    /// "h100-sxm=2/h,b200=5/h"`); empty when one price holds for all.
    pub part_prices: PartPrices,
}

/// A device-hour price per part, by id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartPrices(pub Vec<(String, f64)>);

impl PartPrices {
    /// Reads `PART=AMOUNT/UNIT,...`; None when the text is one price.
    fn parse(v: &serde_json::Value) -> Result<Option<Self>> {
        let Some(text) = v.as_str().filter(|t| t.contains('=')) else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((part, price)) = item.split_once('=') else {
                return Err(Error::field(
                    "price",
                    format!(
                        "`{item}`: give every part its price, PART=AMOUNT/h (h100-sxm=2/h,b200=5/h), or one price for all"
                    ),
                ));
            };
            let mut f = crate::inputs::Fields::new();
            f.insert("price".into(), price.trim().into());
            let p = crate::calc::power::Prices::take(&mut f)?;
            let part = part.trim().to_string();
            if out.iter().any(|(q, _): &(String, f64)| *q == part) {
                return Err(Error::field("price", format!("{part} is priced twice")));
            }
            out.push((part, p.device_hour.unwrap_or_default()));
        }
        Ok(Some(PartPrices(out)))
    }

    /// Keeps the price of `id` alone: a comparison searches each part on
    /// its own (`fleet --hw a,b`), and each search takes its part's price.
    /// A list that does not price `id` is left whole, so that the search
    /// says which part lacks a price.
    pub fn only(&mut self, id: &str) {
        if self.0.iter().any(|(q, _)| q == id) {
            self.0.retain(|(q, _)| q == id);
        }
    }

    /// Checks every part searched has a price (a per-part list given).
    pub fn check(&self, parts: &[&str]) -> Result<()> {
        if self.0.is_empty() {
            return Ok(());
        }
        for p in parts {
            if !self.0.iter().any(|(q, _)| q == p) {
                return Err(Error::field(
                    "price",
                    format!(
                        "no price for {p}: a per-part price names every part searched ({})",
                        self.0
                            .iter()
                            .map(|(q, _)| q.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
        for (q, _) in &self.0 {
            if !parts.contains(&q.as_str()) {
                return Err(Error::field(
                    "price",
                    format!("{q} is priced but not searched (--hw {})", parts.join(",")),
                ));
            }
        }
        Ok(())
    }

    /// `base` with the device-hour price of a plan spending `weights`
    /// (part, device-seconds or devices) in these shares: the weighted mean,
    /// exact for cost per token where the pools share a span (formulas.md,
    /// "Fleet", cost). `base` itself when one price holds for all.
    pub fn of(
        &self,
        base: &crate::calc::power::Prices,
        weights: &[(&str, f64)],
    ) -> crate::calc::power::Prices {
        if self.0.is_empty() {
            return *base;
        }
        let price = |p: &str| self.0.iter().find(|(q, _)| q == p).map_or(0.0, |x| x.1);
        let total: f64 = weights.iter().map(|w| w.1).sum();
        let mean = if total > 0.0 {
            weights.iter().map(|(p, w)| price(p) * w).sum::<f64>() / total
        } else {
            weights.first().map_or(0.0, |(p, _)| price(p))
        };
        crate::calc::power::Prices {
            device_hour: Some(mean),
            ..*base
        }
    }
}

impl FleetInputs {
    /// The prices of candidate `c`: its parts' per-part prices weighted by
    /// their devices, or the one price.
    pub fn prices_of(&self, c: &Candidate) -> crate::calc::power::Prices {
        let mut w = vec![(c.hardware.as_str(), c.layout.devices() as f64)];
        if let Some(p) = &c.prefill {
            w.push((p.hardware.as_str(), p.layout.devices() as f64));
        }
        self.part_prices.of(&self.prices, &w)
    }
}

/// The fields `fleet` adds to `simulate`'s.
pub const OWN_FIELDS: [&str; 5] = ["max-devices", "caps", "budgets", "objective", "pareto"];

impl FleetInputs {
    /// Splits a field map into `simulate`'s fields and the search's.
    pub fn from_fields(f: &crate::inputs::Fields) -> Result<Self> {
        let mut f = f.clone();
        let part_prices = match f.get("price").map(PartPrices::parse).transpose()?.flatten() {
            Some(p) => {
                f.remove("price");
                p
            }
            None => PartPrices::default(),
        };
        let prices = crate::calc::power::Prices::take(&mut f)?;
        let prices = if part_prices.0.is_empty() {
            prices
        } else {
            // A price stands for "priced"; each plan's is its parts'.
            crate::calc::power::Prices {
                device_hour: Some(0.0),
                ..prices
            }
        };
        let (own, sim): (crate::inputs::Fields, crate::inputs::Fields) = f
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .partition(|(k, _)| OWN_FIELDS.contains(&k.as_str()));
        Ok(FleetInputs {
            sim: crate::inputs::from_fields(&sim)?,
            options: crate::inputs::from_fields(&own)?,
            prices,
            check: check::Check::default(),
            part_prices,
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

/// The most requests one verdict simulates: each candidate's verdict runs
/// them, so the search's time grows with them (docs/cli.md, "Limits").
pub const MAX_REQUESTS: u64 = 10_000;
/// The most values `caps` or `budgets` lists.
pub const MAX_LIST: usize = 64;
/// The most (part, cap, budget) combinations one search prices, each over
/// every layout (docs/cli.md, "Limits").
pub const MAX_CANDIDATES: usize = 256;

/// The parts a fleet point searches jointly (the command line's
/// `--hw --joint`, a scenario's list with `joint`), as one comma list: the
/// `parts` field as given, or the one part `hw` names where the parts are
/// compared one search each.
pub fn parts_list(fields: &crate::inputs::Fields) -> String {
    use serde_json::Value;
    match fields.get("parts").or_else(|| fields.get("hw")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    }
}

/// Parses a comma-separated list of counts: each from 1 to `most` (the
/// bound `simulate` puts on the same field), at most [`MAX_LIST`] of them.
pub fn counts(field: &str, text: &str) -> Result<Vec<u64>> {
    let most: u64 = if field == "budgets" { 1 << 22 } else { 1 << 20 };
    let v = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| match crate::inputs::parse_count(s) {
            Ok(n) if (1..=most).contains(&n) => Ok(n),
            Ok(_) => Err(Error::field(
                field,
                format!("each value must be from 1 to {}", units::whole(most)),
            )),
            Err(e) => Err(Error::field(field, e)),
        })
        .collect::<Result<Vec<u64>>>()?;
    if v.is_empty() {
        return Err(Error::field(field, "give at least one value"));
    }
    if v.len() > MAX_LIST {
        return Err(Error::field(
            field,
            format!("give at most {MAX_LIST} values (the search prices each)"),
        ));
    }
    Ok(v)
}

/// Refuses a search of more than [`MAX_CANDIDATES`] (part, cap, budget)
/// combinations, naming the list to shorten.
pub fn bound(parts: usize, caps: usize, budgets: Option<usize>) -> Result<()> {
    let n = parts * caps * budgets.unwrap_or(1);
    if n > MAX_CANDIDATES {
        return Err(Error::field(
            if budgets.is_some_and(|b| b > 1) {
                "budgets"
            } else {
                "caps"
            },
            format!(
                "{parts} part(s) x {caps} cap(s){} is {n} combinations; a search prices at most {MAX_CANDIDATES}: give fewer",
                budgets.map_or(String::new(), |b| format!(" x {b} budget(s)"))
            ),
        ));
    }
    Ok(())
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
    if sim.requests.is_some_and(|r| r.0 > MAX_REQUESTS) {
        return Err(Error::field(
            "requests",
            format!(
                "fleet simulates each candidate's verdict: at most {} requests (simulate one deployment with more)",
                units::whole(MAX_REQUESTS)
            ),
        ));
    }
    simulate::workload(&sim)
}

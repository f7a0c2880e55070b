//! The search over every valid layout of a device count, ranked by the
//! objective, with why each layout is not the best.

use super::evaluate::{PlanCost, evaluate};
use super::validate::{divisors, gcd, validate};
use super::{Layout, Objective, PlanInputs, Setup, Workload};
use crate::error::{Error, Result};
use crate::inputs::{Count, at_least_one};
use crate::units::{self, si};
use serde::Serialize;

/// A search's answer: every valid layout, best first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchCost {
    /// What it ranked by.
    pub objective: Objective,
    /// Devices searched.
    pub devices: u64,
    /// Valid layouts, best first.
    pub plans: Vec<PlanCost>,
    /// Score each plan was ranked by (higher is better).
    pub scores: Vec<f64>,
    /// Why each plan is not the best: the constraint or cost that beat it.
    pub verdicts: Vec<String>,
    /// Layouts skipped and why, as (tp, pp, ep, reason), counted by reason.
    pub rejected: Vec<(String, u64)>,
    /// The TTFT target (goodput).
    pub slo_ttft: Option<f64>,
    /// The TPOT target (goodput).
    pub slo_tpot: Option<f64>,
}

fn score(p: &PlanCost, o: Objective, ttft: Option<f64>, tpot: Option<f64>) -> f64 {
    if !p.fits {
        return f64::NEG_INFINITY;
    }
    match o {
        Objective::Latency => -p.decode_step_time_s,
        Objective::Throughput => p.tokens_per_s_per_device,
        Objective::Goodput => {
            let ok = ttft.is_none_or(|t| p.prefill_time_s <= t)
                && tpot.is_none_or(|t| p.decode_step_time_s <= t);
            if ok { p.tokens_per_s_per_device } else { 0.0 }
        }
    }
}

/// Every valid layout of `devices`, costed and ranked by `objective`.
pub fn search(s: &Setup, devices: u64, w: Workload, inputs: &PlanInputs) -> Result<SearchCost> {
    let n = at_least_one("devices", devices)?;
    let objective = inputs.objective.unwrap_or_default();
    let ttft = inputs.slo_ttft.map(|x| x.seconds);
    let tpot = inputs.slo_tpot.map(|x| x.seconds);
    if objective == Objective::Goodput && ttft.is_none() && tpot.is_none() {
        return Err(Error::missing_input(
            "slo-ttft",
            "goodput counts the tokens of layouts that meet a target; give slo-ttft or slo-tpot",
        ));
    }
    let mut plans = Vec::new();
    let mut rejected: Vec<(String, u64)> = Vec::new();
    let mut reject = |why: String| {
        if let Some(r) = rejected.iter_mut().find(|(w, _)| *w == why) {
            r.1 += 1;
        } else {
            rejected.push((why, 1));
        }
    };
    let fixed = |f: Option<Count>| f.map(|c| c.0);
    // Past a million devices only layouts that can exist are tried (tp
    // divides the heads and pp the layers, as `validate` requires), so the
    // work is bounded by the model, not by the device count; below, every
    // split is tried, so the summary counts the ones the model rules out.
    let heads = s.model.attention.heads.get();
    let layers = s.model.layers.get();
    let every = n <= 1 << 20;
    let tps = divisors(if every { n } else { gcd(n, heads) });
    for tp in tps {
        if fixed(inputs.tp).is_some_and(|t| t != tp) {
            continue;
        }
        let pps = divisors(if every { n / tp } else { gcd(n / tp, layers) });
        for pp in pps {
            if fixed(inputs.pp).is_some_and(|p| p != pp) {
                continue;
            }
            let dp = n / tp / pp;
            let eps = if s.model.moe.is_some() {
                divisors(tp * dp)
            } else {
                vec![1]
            };
            for ep in eps {
                if fixed(inputs.ep).is_some_and(|e| e != ep) {
                    continue;
                }
                let l = Layout { tp, pp, dp, ep };
                match validate(s, l, Some(n)) {
                    Ok(()) => plans.push(evaluate(s, l, w)?),
                    Err(e) => {
                        let why = match &e {
                            Error::Field { field, message } => {
                                let short = message
                                    .split(';')
                                    .next()
                                    .unwrap_or(message)
                                    .split(" (")
                                    .next()
                                    .unwrap_or(message)
                                    .to_string();
                                // Group by constraint, not by value.
                                let gist: String = short
                                    .split_whitespace()
                                    .skip(2)
                                    .collect::<Vec<_>>()
                                    .join(" ");
                                format!("{field}: {gist}")
                            }
                            other => other.to_string(),
                        };
                        reject(why);
                    }
                }
            }
        }
    }
    if plans.is_empty() {
        return Err(Error::NoAnswer(format!(
            "no valid layout of {} on {} {} devices: {}",
            s.model.id,
            units::whole(n),
            s.hw.id,
            rejected
                .iter()
                .map(|(w, c)| format!("{w} ({c})"))
                .collect::<Vec<_>>()
                .join("; ")
        )));
    }
    let mut scored: Vec<(f64, PlanCost)> = plans
        .into_iter()
        .map(|p| (score(&p, objective, ttft, tpot), p))
        .collect();
    scored.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.decode_step_time_s.total_cmp(&b.1.decode_step_time_s))
            .then(
                a.1.memory_bytes_per_device
                    .total_cmp(&b.1.memory_bytes_per_device),
            )
    });
    let best = scored[0].1.clone();
    let verdicts = scored
        .iter()
        .enumerate()
        .map(|(i, (sc, p))| {
            if i == 0 {
                return "best".to_string();
            }
            if !p.fits {
                return format!(
                    "does not fit: {} per device against {} usable",
                    si(p.memory_bytes_per_device, "B"),
                    si(p.usable_bytes, "B")
                );
            }
            if objective == Objective::Goodput && *sc == 0.0 {
                let mut why = Vec::new();
                if let Some(t) = ttft
                    && p.prefill_time_s > t
                {
                    why.push(format!(
                        "TTFT {} > {}",
                        units::seconds(p.prefill_time_s),
                        units::seconds(t)
                    ));
                }
                if let Some(t) = tpot
                    && p.decode_step_time_s > t
                {
                    why.push(format!(
                        "TPOT {} > {}",
                        units::seconds(p.decode_step_time_s),
                        units::seconds(t)
                    ));
                }
                return format!("misses the SLO: {}", why.join(", "));
            }
            let by = match objective {
                Objective::Latency => format!(
                    "decode step {} vs {}",
                    units::seconds(p.decode_step_time_s),
                    units::seconds(best.decode_step_time_s)
                ),
                _ => format!(
                    "{} vs {} tokens/s per device",
                    units::sig_grouped(p.tokens_per_s_per_device, 4),
                    units::sig_grouped(best.tokens_per_s_per_device, 4)
                ),
            };
            let cause = if p.comm_time_s > p.decode_step_time_s * 0.5 {
                "communication"
            } else if p.bubble_fraction > 0.0 {
                "pipeline bubble and compute"
            } else {
                "compute and memory time"
            };
            format!("{by} ({cause})")
        })
        .collect();
    let (scores, plans): (Vec<f64>, Vec<PlanCost>) = scored.into_iter().unzip();
    Ok(SearchCost {
        objective,
        devices: n,
        plans,
        scores,
        verdicts,
        rejected,
        slo_ttft: ttft,
        slo_tpot: tpot,
    })
}

//! The winner's verdict at steady state (formulas.md, "Fleet: steady
//! state"). The search sizes each candidate by one replica at the rate /
//! replicas over a short run; the winner is then run whole, as its check
//! command runs it (every replica, both pools, the search's own flags),
//! long enough that its queue, preemptions and KV use have stopped
//! climbing ([`super::steady`]): a run that still climbs is doubled, one
//! that misses a target or still climbs at the longest run gives way, with
//! a replica more on the pool that binds, and then to the next candidate.
//! So the figures the answer quotes are the check command's own.

use super::search::{Candidate, Verdict, rank};
use super::steady::Steady;
use super::{FleetInputs, Objective};
use crate::calc::simulate::report::Summary;
use crate::calc::simulate::{self, SimCost, SimulateInputs, Workload};
use crate::error::{Error, Result};
use crate::inputs::Count;
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units;

/// A whole deployment's run at steady state.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// Requests in the run (the check command's `--requests`).
    pub requests: u64,
    /// Its windows.
    pub steady: Steady,
    /// Times the run was doubled because it still climbed.
    pub extended: u32,
    /// Replicas added to the search's count for it to hold.
    pub added: u64,
    /// The KV cache's share held in the last window, all replicas.
    pub kv_share: f64,
}

/// What the confirmation needs of the search.
pub(super) struct Ctx<'a> {
    pub m: &'a Model,
    pub hws: &'a [Hardware],
    pub i: &'a FleetInputs,
    pub mode: Mode,
    pub w: &'a Workload,
}

/// The longest run a verdict takes, requests.
pub const MOST_REQUESTS: u64 = 64_000;
/// Candidates run whole before the search gives up confirming: past it,
/// the answer is that none was confirmed, never an unconfirmed plan.
pub const CONFIRMS: usize = 64;
/// Replicas a candidate may gain when its whole run misses.
const BUMPS: u64 = 2;

/// `simulate`'s inputs for a candidate's whole deployment over
/// `requests` requests.
pub fn inputs(i: &FleetInputs, c: &Candidate, requests: u64) -> SimulateInputs {
    let mut s = i.sim.clone();
    let l = c.layout;
    s.tp = Some(Count(l.tp));
    s.pp = Some(Count(l.pp));
    s.ep = Some(Count(l.ep));
    s.dp = Some(Count(l.dp));
    s.max_seqs = Some(Count(c.max_seqs));
    s.max_batched_tokens = Some(Count(c.max_tokens));
    s.requests = Some(Count(requests));
    if let Some(p) = &c.prefill {
        let pl = p.layout;
        s.prefill_dp = Some(Count(pl.dp));
        s.prefill_tp = Some(Count(pl.tp));
        s.prefill_pp = Some(Count(pl.pp));
        s.prefill_ep = Some(Count(pl.ep));
        s.prefill_hw = Some(p.hardware.clone());
        s.prefill_max_batched_tokens = Some(Count(p.max_tokens));
    }
    s
}

/// The requests a candidate's first whole run takes: the search's run
/// for each replica of its larger pool.
pub fn first_length(w: &Workload, c: &Candidate) -> u64 {
    let most = c
        .layout
        .dp
        .max(c.prefill.as_ref().map_or(1, |p| p.layout.dp));
    w.requests.saturating_mul(most).clamp(1, MOST_REQUESTS)
}

/// Why a whole run fails: the words, the margin, whether TTFT binds.
struct Fails {
    why: String,
    margin: Option<f64>,
    ttft: bool,
}

fn part<'a>(hws: &'a [Hardware], id: &str) -> &'a Hardware {
    hws.iter().find(|h| h.id == id).unwrap_or(&hws[0])
}

/// Runs `c` whole, doubling the run while it climbs.
fn settle(
    cx: &Ctx,
    c: &Candidate,
    runs: &mut u64,
) -> Result<std::result::Result<(SimCost, Checked), Fails>> {
    let hw = part(cx.hws, &c.hardware);
    let pre = c.prefill.as_ref().map_or(hw, |p| part(cx.hws, &p.hardware));
    let mut n = first_length(cx.w, c);
    let mut extended = 0;
    loop {
        let mut s = inputs(cx.i, c, n);
        s.per_request = true;
        *runs += 1;
        let sc = match simulate::cost_with(cx.m, hw, pre, &s, cx.mode) {
            Ok(sc) => sc,
            // A plan `simulate` cannot run as given (it does not fit, or its
            // replicas together need a figure the part lacks) does not hold.
            Err(e @ (Error::NoAnswer(_) | Error::MissingField { .. })) => {
                return Ok(Err(Fails {
                    why: e.to_string(),
                    margin: None,
                    ttft: false,
                }));
            }
            Err(e) => return Err(e),
        };
        let out = sc.outcomes.as_deref().unwrap_or_default();
        let st = Steady::of(out);
        let sm = &sc.summary;
        if !(sm.meets() && sm.late_meets) {
            let (why, margin) = super::search::misses(sm);
            let ttft = sm.ttft_slo.is_some_and(|a| !a.met());
            return Ok(Err(Fails {
                why: format!("{why} over {} requests", units::whole(n)),
                margin: Some(margin),
                ttft,
            }));
        }
        match st.trend(cx.w.slo_ttft.map(|t| t.seconds)) {
            None => {
                let held = st.windows[3].kv_tokens;
                let room = sc.kv_tokens as f64 * c.layout.dp as f64;
                let mut sc = sc;
                sc.outcomes = None;
                return Ok(Ok((
                    sc,
                    Checked {
                        requests: n,
                        steady: st,
                        extended,
                        added: 0,
                        kv_share: if room > 0.0 { held / room } else { 0.0 },
                    },
                )));
            }
            Some(why) if n >= MOST_REQUESTS => {
                return Ok(Err(Fails {
                    why: format!(
                        "not at steady state after {} requests: {why}",
                        units::whole(n)
                    ),
                    margin: None,
                    ttft: false,
                }));
            }
            Some(_) => {
                n = (n * 2).min(MOST_REQUESTS);
                extended += 1;
            }
        }
    }
}

/// Confirms the best candidate that meets, whole and at steady state,
/// re-ranking after each that falls over, in order until one holds; Some
/// (why) where none held within [`CONFIRMS`] (then no candidate meets).
pub(super) fn confirm(
    cx: &Ctx,
    candidates: &mut [Candidate],
    runs: &mut u64,
    notes: &mut Vec<String>,
) -> Result<Option<String>> {
    let objective = cx.i.options.objective.unwrap_or(Objective::Devices);
    for _ in 0..CONFIRMS {
        let Some(c) = candidates.first_mut() else {
            return Ok(None);
        };
        if c.checked.is_some() || !matches!(c.verdict, Verdict::Meets { .. }) {
            return Ok(None);
        }
        let mut trial = c.clone();
        let mut first: Option<Fails> = None;
        let mut held = None;
        for bump in 0..=BUMPS {
            match settle(cx, &trial, runs)? {
                Ok((sc, mut chk)) => {
                    chk.added = bump;
                    held = Some((sc, chk));
                    break;
                }
                Err(f) => {
                    // A replica more on the pool that binds (an attention
                    // data-parallel group more: its G replicas).
                    match (&mut trial.prefill, f.ttft) {
                        (Some(p), true) => p.layout.dp += 1,
                        _ => trial.layout.dp += trial.layout.attention_dp(),
                    }
                    first.get_or_insert(f);
                }
            }
        }
        match held {
            Some((sc, chk)) => {
                let binds = match (&trial.verdict, &first) {
                    (_, Some(f)) => Some(format!(
                        "{} with {} devices, whole and at steady state",
                        f.why,
                        units::whole(c.devices())
                    )),
                    (Verdict::Meets { binds, .. }, None) => binds.clone(),
                    _ => None,
                };
                let at: Summary = sc.summary;
                trial.energy = Some(sc.energy);
                trial.verdict = Verdict::Meets {
                    at: Box::new(at),
                    binds,
                };
                trial.checked = Some(chk);
                *c = trial;
            }
            None => {
                let f = first.unwrap_or(Fails {
                    why: "no run".into(),
                    margin: None,
                    ttft: false,
                });
                notes.push(format!(
                    "{} ({} devices) met the targets in the search's short run of one replica but not whole: {}",
                    super::report::plan_text(c),
                    units::whole(c.devices()),
                    f.why
                ));
                c.verdict = Verdict::Breaks {
                    why: format!("whole deployment at steady state: {}", f.why),
                    margin: f.margin,
                };
            }
        }
        rank(candidates, objective, cx.i);
    }
    // A plan is the answer only once it has held over a whole run: past
    // the last confirmation, those that met only in the short run are
    // not answers.
    if candidates
        .first()
        .is_some_and(|c| c.checked.is_none() && matches!(c.verdict, Verdict::Meets { .. }))
    {
        let why = format!(
            "not run whole: the first {CONFIRMS} plans that met in the search's short run fell over when run whole, and the search stopped confirming"
        );
        for c in candidates.iter_mut() {
            if c.checked.is_none() && matches!(c.verdict, Verdict::Meets { .. }) {
                c.verdict = Verdict::Breaks {
                    why: why.clone(),
                    margin: None,
                };
            }
        }
        rank(candidates, objective, cx.i);
        return Ok(Some(why));
    }
    Ok(None)
}

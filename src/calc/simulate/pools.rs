//! Disaggregated prefill and decode pools (formulas.md, "Simulation:
//! disaggregated pools"), as two coupled simulations: the prefill pool
//! runs every prompt (each request leaves it when its prompt completes);
//! its cache then crosses the scale-out fabric to the decode pool, and the
//! moment it lands is the request's arrival there. The decode pool runs
//! decode-only steps ([`Config::prefilled`]). A request's TTFT is its
//! prefill pool queue, prefill and KV transfer; its TPOT comes from the
//! decode pool's steps.

use super::arrivals::{Arrivals, Request};
use super::cost::StepCost;
use super::dist::Random;
use super::scheduler::{Abort, Config, Outcome, Simulation, Totals};
use super::slo::Target;
use crate::calc::collective::{Fabric, Kind};
use crate::calc::plan::Layout;
use crate::error::{Error, Result};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;

/// The KV cache's move from a prefill replica to a decode replica.
#[derive(Debug, Clone, PartialEq)]
pub struct Transfer {
    /// Bytes of one prompt token's cache, every layer.
    pub bytes_per_token: f64,
    /// Bytes per second between the two replicas.
    pub bandwidth: f64,
    /// Fixed seconds per move (the links' latency; 0 at speed of light).
    pub latency_s: f64,
    /// The links it crosses (`nic`, or `h200-sxm nic -> b200 nic`).
    pub link: String,
}

impl Transfer {
    /// Seconds to move a prompt of `prompt` tokens.
    pub fn seconds(&self, prompt: u64) -> f64 {
        self.latency_s + prompt as f64 * self.bytes_per_token / self.bandwidth
    }
}

/// One side's scale-out link: bandwidth per device one way (times its
/// send/recv efficiency) and latency, or why it is missing.
pub fn link(hw: &Hardware, mode: Mode) -> Result<(f64, f64, String)> {
    let fabric = Fabric::of(hw, mode);
    let Some(t) = fabric.scale_out()? else {
        return Err(Error::Unsupported(format!(
            "{} has no scale-out interconnect (an [[interconnect]] with tier = \"scale-out\" and its per-direction-bandwidth), which prices the KV transfer between disaggregated pools; add one to a copy of the file (`roofline hw new`)",
            hw.id
        )));
    };
    let eff = t.efficiency[Kind::SendRecv.index()];
    Ok((
        t.bandwidth * eff,
        t.hop_latency + t.fixed_latency,
        t.name.clone(),
    ))
}

/// The transfer from a prefill replica of layout `lp` on `hp` to a decode
/// replica of `ld` on `hd`: each device sends (and receives) over its own
/// scale-out link, so the move runs at the slower side's devices x link
/// bandwidth; `kv_bytes` is the cache's bytes per element.
pub fn transfer(
    m: &Model,
    kv_bytes: f64,
    (hp, lp): (&Hardware, Layout),
    (hd, ld): (&Hardware, Layout),
    mode: Mode,
) -> Result<Transfer> {
    let (bp, ap, np) = link(hp, mode)?;
    let (bd, ad, nd) = link(hd, mode)?;
    let per_token = crate::calc::model::kv_elements_per_token_per_layer(m)? as f64
        * kv_bytes
        * m.layers.get() as f64;
    let send = (lp.tp * lp.pp) as f64 * bp;
    let recv = (ld.tp * ld.pp) as f64 * bd;
    Ok(Transfer {
        bytes_per_token: per_token,
        bandwidth: send.min(recv),
        latency_s: ap.max(ad),
        link: if hp.id == hd.id {
            np
        } else {
            format!("{} {np} -> {} {nd}", hp.id, hd.id)
        },
    })
}

/// The prefill pool's share of each request: its prompt and the first
/// token only.
pub fn prefill_requests(reqs: &[Request]) -> Vec<Request> {
    reqs.iter().map(|r| Request { output: 1, ..*r }).collect()
}

/// Runs the prefill pool over `reqs` (arrival times set); each request's
/// outcome there (its first token ends its prompt).
pub fn run_prefill<C: StepCost>(
    cfg: Config,
    cost: C,
    reqs: &[Request],
    kv_tokens: u64,
    block: u64,
    seed: u64,
) -> Result<(Vec<Outcome>, Totals)> {
    let mut sim = Simulation::new(
        cfg,
        cost,
        &Arrivals::Trace(Vec::new()),
        prefill_requests(reqs),
        kv_tokens,
        block,
        seed,
    );
    sim.step_until_no_events()?;
    Ok(sim.finish())
}

/// The decode pool's run: which requests it served and how.
pub struct Decoded {
    /// Each request served, joined across both pools (arrival at the
    /// prefill pool, first token when its cache lands, last token).
    pub outcomes: Vec<Outcome>,
    /// The decode pool's totals; `in_flight_area` spans both pools.
    pub totals: Totals,
}

/// Runs the decode pool on what the prefill pool produced: `pre` is each
/// request's prefill outcome (in `reqs`' order). With `only` set to
/// `Some(r)` the landed requests are routed at random among `r` decode
/// replicas and only the first is simulated (the replicas are exchangeable);
/// otherwise `cfg.replicas` replicas run. `timeline` keeps decode
/// replica 0's state over time. `abort`, a TPOT target, stops a run once
/// it is sure to be missed (then `None`).
#[allow(clippy::too_many_arguments)]
pub fn run_decode<C: StepCost>(
    cfg: Config,
    cost: C,
    reqs: &[Request],
    pre: &[Outcome],
    transfer: &Transfer,
    kv_tokens: u64,
    block: u64,
    seed: u64,
    only: Option<u64>,
    abort: Option<Target>,
    timeline: bool,
) -> Result<Option<Decoded>> {
    // Routing among decode replicas draws from its own stream, apart from
    // the lengths' and the prefill pool's.
    let mut route = Random::new(seed ^ 0x5851_f42d_4c95_7f2d);
    let mut kept: Vec<usize> = Vec::with_capacity(reqs.len());
    for k in 0..reqs.len() {
        if let Some(r) = only
            && r > 1
            && route.below(r) != 0
        {
            continue;
        }
        kept.push(k);
    }
    // Requests of one output token are done when their prompt is.
    let land = |k: usize| pre[k].first_token_s + transfer.seconds(reqs[k].prompt);
    let mut moving: Vec<usize> = kept
        .iter()
        .copied()
        .filter(|&k| reqs[k].output > 1)
        .collect();
    moving.sort_by(|&a, &b| land(a).total_cmp(&land(b)).then(a.cmp(&b)));
    let dreqs: Vec<Request> = moving
        .iter()
        .map(|&k| Request {
            arrival_s: land(k),
            ..reqs[k]
        })
        .collect();
    let cfg = Config {
        prefilled: true,
        replicas: if only.is_some() { 1 } else { cfg.replicas },
        ..cfg
    };
    let mut sim = Simulation::new(
        cfg,
        cost,
        &Arrivals::Trace(Vec::new()),
        dreqs,
        kv_tokens,
        block,
        seed,
    );
    if let Some(t) = abort {
        // Nearest rank: n - ceil(p n / 100) requests may exceed the time.
        let n = moving.len() as u64;
        sim.abort_when(Abort {
            ttft: None,
            tpot: Some((t.seconds, n - ((t.percentile / 100.0) * n as f64).ceil() as u64)),
        });
    }
    if timeline {
        sim.keep_timeline();
    }
    sim.step_until_no_events()?;
    if sim.aborted() {
        return Ok(None);
    }
    let (dout, mut totals) = sim.finish();
    let mut at = vec![usize::MAX; reqs.len()];
    for (j, &k) in moving.iter().enumerate() {
        at[k] = j;
    }
    let outcomes: Vec<Outcome> = kept
        .iter()
        .map(|&k| {
            let p = pre[k];
            match at[k] {
                usize::MAX => Outcome {
                    output: reqs[k].output,
                    ..p
                },
                j => {
                    let d = dout[j];
                    Outcome {
                        arrival_s: reqs[k].arrival_s,
                        prompt: reqs[k].prompt,
                        output: reqs[k].output,
                        start_s: p.start_s,
                        first_token_s: d.first_token_s,
                        finish_s: d.finish_s,
                        preemptions: p.preemptions + d.preemptions,
                        replica: d.replica,
                    }
                }
            }
        })
        .collect();
    // Requests in the system, from arrival at the prefill pool to the last
    // token: the integral is the sum of their times in it.
    totals.in_flight_area = outcomes.iter().map(|o| o.finish_s - o.arrival_s).sum();
    Ok(Some(Decoded { outcomes, totals }))
}

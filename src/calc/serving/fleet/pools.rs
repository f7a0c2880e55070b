//! The disaggregated half of the search (formulas.md, "Fleet:
//! disaggregated pools"): a prefill pool and a decode pool, each with its
//! own part, layout and replica count, coupled by the KV transfer on the
//! scale-out fabric. The pools are sized in turn: first each part's
//! prefill pool with the fewest devices whose TTFT (queue, prefill and
//! transfer) meets the target, simulated as one prefill replica at the rate
//! / replicas; then, for every decode part, layout and batch cap, the
//! fewest decode replicas whose TPOT meets its target, each verdict a
//! coupled run: the whole prefill pool over the arrivals, its finished
//! prompts' caches moved, and one decode replica fed a random 1 / R share
//! of them (decode-only steps).

use super::FleetInputs;
use super::search::{Candidate, PrefillPool, Verdict, layouts, misses, plan_inputs};
use crate::calc::plan::{self, Layout, Replica};
use crate::calc::power::Energy;
use crate::calc::simulate::arrivals::{self, Arrivals, Request};
use crate::calc::simulate::cost::{Batch, Forward, StepCost, decode_pass};
use crate::calc::simulate::dist::Random;
use crate::calc::simulate::pools::{self as sp, Transfer};
use crate::calc::simulate::report::Summary;
use crate::calc::simulate::scheduler::{Abort, Config, Outcome, Simulation};
use crate::calc::simulate::{self, Workload};
use crate::error::Result;
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units;
use std::collections::HashMap;

/// The most requests one coupled run sends through the prefill pool.
pub(super) const MOST_REQUESTS: usize = 100_000;
/// Times the coupled run may add a prefill replica when the decode side's
/// slower fabric pushes TTFT past its target.
const PREFILL_BUMPS: u64 = 4;

/// What both halves of the search share.
pub(super) struct Shared<'x> {
    pub m: &'x Model,
    pub hws: &'x [Hardware],
    pub i: &'x FleetInputs,
    pub mode: Mode,
    pub w: &'x Workload,
    pub rate: f64,
    /// Requests at unit rate (arrival times are unit-mean gaps summed).
    pub base: &'x [Request],
    pub block: u64,
    pub max_devices: u64,
    pub caps: &'x [u64],
    pub budgets: Option<&'x [u64]>,
    pub keep: usize,
    /// The largest iteration (tokens, sequences) of the search, which
    /// `--reserve step` holds back on every plan.
    pub step: (u64, u64),
    /// Layouts left out for a figure their part lacks.
    pub left: &'x super::unpriced::Unpriced,
}

/// A part's cheapest prefill pool.
struct Choice {
    hw: usize,
    layout: Layout,
    replicas: u64,
    max_tokens: u64,
}

/// KV room of a replica in tokens, None when its weights leave none.
pub(super) fn room(r: &Replica) -> Option<u64> {
    (r.kv_budget_bytes > 0.0).then(|| (r.kv_budget_bytes / r.kv_bytes_per_token).min(1e15) as u64)
}

/// Seconds of a prompt of `p` tokens alone, chunked by `budget`.
fn prefill_alone(
    f: &mut Forward,
    p: u64,
    budget: u64,
    window: crate::spec::model::Window,
) -> Result<f64> {
    let mut t = 0.0;
    let mut done = 0;
    while done < p {
        let c = (p - done).min(budget);
        let mut b = Batch::default();
        b.add(c, done, done + c == p, window);
        t += f.seconds(&b)?;
        done += c;
    }
    Ok(t)
}

/// The one walk over a part's prefill layouts, shared by the pool search
/// and the frontier: each layout whose weights leave KV room, whose
/// prompts fit, and whose mean prompt alone (chunked by the whole-prompt
/// budget) with its transfer meets the TTFT target, handed to `visit` with
/// its KV room, transfer, forward (`max_seqs` sequences) and that prompt's
/// seconds alone. A layout that needs a figure the part lacks is skipped.
fn prefill_layouts(
    sh: &Shared,
    s: &plan::Setup,
    hw: &Hardware,
    pre_reqs: &[Request],
    kv_bytes: f64,
    max_seqs: u64,
    mut visit: impl FnMut(Layout, u64, &Transfer, &mut Forward, f64) -> Result<()>,
) -> Result<()> {
    let budget = simulate::DEFAULT_WHOLE_PROMPT;
    let mean_prompt = sh.w.prompt.mean().max(1.0) as u64;
    for l in layouts(s, sh.max_devices, sh.left) {
        let rep = Replica::new(s, l)?;
        let Some(kv) = room(&rep) else { continue };
        if simulate::check_fit(sh.m, pre_reqs, kv, sh.block, sh.i.sim.force).is_err() {
            continue;
        }
        let t = sp::transfer(sh.m, kv_bytes, (hw, l), (hw, l), sh.mode)?;
        let mut f = Forward::new(&rep, sh.m, s.step.precisions, budget, max_seqs)?;
        let Some(alone) = unpriced(
            sh,
            (&hw.id, l),
            prefill_alone(&mut f, mean_prompt, budget, sh.m.window()),
        )?
        else {
            continue;
        };
        let misses =
            sh.w.slo_ttft
                .is_some_and(|tt| alone + t.seconds(mean_prompt) > tt.seconds);
        if !misses {
            visit(l, kv, &t, &mut f, alone)?;
        }
    }
    Ok(())
}

/// The one walk over a part's decode layouts, shared by the pool search
/// and the frontier: each replica whose weights leave KV room that every
/// request fits, handed to `visit` with that room.
fn decode_layouts(
    sh: &Shared,
    s: &plan::Setup,
    mut visit: impl FnMut(Layout, &Replica, u64) -> Result<()>,
) -> Result<()> {
    for l in layouts(s, sh.max_devices, sh.left) {
        let rep = Replica::new(s, l)?;
        let Some(kv) = room(&rep) else { continue };
        if simulate::check_fit(sh.m, sh.base, kv, sh.block, sh.i.sim.force).is_err() {
            continue;
        }
        visit(l, &rep, kv)?;
    }
    Ok(())
}

/// The parts whose scale-out link is known; each other part's reason goes
/// to `notes` where given.
fn usable_parts(sh: &Shared, mut notes: Option<&mut Vec<String>>) -> Vec<usize> {
    let mut usable = Vec::new();
    for (k, hw) in sh.hws.iter().enumerate() {
        match sp::link(hw, sh.mode) {
            Ok(_) => usable.push(k),
            Err(e) => {
                if let Some(n) = notes.as_mut() {
                    n.push(format!(
                        "disaggregated pools on {} were not searched: {e}",
                        hw.id
                    ));
                }
            }
        }
    }
    usable
}

/// A step's time, or None where the layout `at` needs a figure the part
/// lacks (a pipeline hand-off past the scale-up domain under
/// `--achievable` without a measured NIC): that layout is not searched, as
/// the aggregated search leaves it out, and the answer's notes say so.
fn unpriced(sh: &Shared, at: (&str, Layout), t: Result<f64>) -> Result<Option<f64>> {
    match t {
        Ok(t) => Ok(Some(t)),
        Err(e @ crate::error::Error::MissingField { .. }) => {
            sh.left.add(at.0, at.1, &e);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The arrivals at `rate`.
fn at_rate(base: &[Request], rate: f64) -> Vec<Request> {
    base.iter()
        .map(|r| Request {
            arrival_s: r.arrival_s / rate,
            ..*r
        })
        .collect()
}

/// Joins prefill outcomes with their transfer as a TTFT-only view: the
/// first token counts when its cache lands (a request of one output token
/// ends with its prompt).
fn landed(reqs: &[Request], pre: &[Outcome], t: &Transfer) -> Vec<Outcome> {
    reqs.iter()
        .zip(pre)
        .map(|(r, o)| {
            let first = if r.output > 1 {
                o.first_token_s + t.seconds(r.prompt)
            } else {
                o.first_token_s
            };
            Outcome {
                output: r.output,
                first_token_s: first,
                finish_s: first,
                ..*o
            }
        })
        .collect()
}

/// The prefill pool's energy over its run of `reqs` (outcomes `o`) on
/// `devices` devices, `per_replica` each: its draw over the span from the
/// first arrival to the last prompt done, per output token of the requests
/// it served.
fn prefill_energy(
    pm: std::result::Result<crate::calc::power::PowerModel, String>,
    drawn: crate::calc::power::Draw,
    reqs: &[Request],
    o: &[Outcome],
    devices: u64,
    per_replica: u64,
    mode: Mode,
) -> Energy {
    let first = o.iter().map(|x| x.arrival_s).fold(f64::INFINITY, f64::min);
    let end = o.iter().map(|x| x.first_token_s).fold(0.0, f64::max);
    let span = (end - first).max(f64::MIN_POSITIVE);
    let tokens: u64 = reqs.iter().map(|r| r.output).sum();
    let s = Summary {
        devices,
        span_s: span,
        output_tokens_per_s: tokens as f64 / span,
        ..Summary::default()
    };
    simulate::run_energy(pm, drawn, &s, per_replica as f64, mode)
}

/// The disaggregated candidates, or none (with a note) where the fabric
/// lacks a figure.
pub(super) fn search(
    sh: &Shared,
    found: &mut Vec<u64>,
    scores: &mut Vec<f64>,
    runs: &mut u64,
    notes: &mut Vec<String>,
) -> Result<Vec<Candidate>> {
    let (m, w) = (sh.m, sh.w);
    let objective = sh.i.options.objective.unwrap_or_default();
    let mut out = Vec::new();
    // Parts whose scale-out link is known.
    let usable = usable_parts(sh, Some(notes));
    if usable.is_empty() {
        return Ok(out);
    }
    let setups = part_setups(sh)?;
    let window = m.window();
    let mean_prompt = w.prompt.mean();
    let mean_output = w.output.mean();
    let pre_budget = simulate::DEFAULT_WHOLE_PROMPT;
    let pre_seqs = simulate::DEFAULT_MAX_SEQS;
    let pre_reqs = sp::prefill_requests(sh.base);
    let kv_bytes = setups[usable[0]].step.precisions.kv;
    let ttft_only = Workload {
        slo_tpot: None,
        ..w.clone()
    };
    // 1. Each part's prefill pool: fewest devices, then the widest TTFT
    // margin, at the sender's own fabric (the coupled run checks the
    // receiver's).
    let mut choices: Vec<Choice> = Vec::new();
    for &k in &usable {
        let s = &setups[k];
        let hw = &sh.hws[k];
        let mut best: Option<(u64, f64, Choice)> = None;
        let mut pruned = false;
        prefill_layouts(
            sh,
            s,
            hw,
            &pre_reqs,
            kv_bytes,
            pre_seqs,
            |l, kv, t, f, alone| {
                let size = l.tp * l.pp;
                let most = sh.max_devices / size;
                // A pool busier than its replicas can be never drains.
                // `as u64` saturates a huge rate; the add must too.
                let bound = ((sh.rate * alone).floor() as u64).saturating_add(1);
                if bound > most {
                    return Ok(());
                }
                // Bounds before any run: a pool that needs more devices than
                // this part's best so far, or than the K-th best plan found
                // beside one decode device, is not simulated.
                if best.as_ref().is_some_and(|(d, _, _)| bound * size > *d) {
                    return Ok(());
                }
                let floor = (bound * size + 1) as f64;
                if found.len() >= sh.keep && floor as u64 > found[sh.keep - 1] {
                    pruned = true;
                    return Ok(());
                }
                let min_kv = sh
                    .base
                    .iter()
                    .map(|r| {
                        if r.output > 1 {
                            t.seconds(r.prompt)
                        } else {
                            0.0
                        }
                    })
                    .fold(f64::INFINITY, f64::min);
                let cfg = Config {
                    max_tokens: pre_budget,
                    max_seqs: pre_seqs,
                    prefix_hit: w.prefix_hit,
                    window,
                    replicas: 1,
                    prefilled: false,
                    draft: None,
                };
                // One replica at rate / r; None when TTFT misses.
                let mut check = |r: u64, runs: &mut u64| -> Result<Option<Summary>> {
                    *runs += 1;
                    let reqs = at_rate(&pre_reqs, sh.rate / r as f64);
                    let mut sim = Simulation::new(
                        cfg,
                        &mut *f,
                        &Arrivals::Trace(Vec::new()),
                        reqs.clone(),
                        kv,
                        sh.block,
                        w.seed,
                    );
                    if let Some(tt) = w.slo_ttft {
                        let n = reqs.len() as u64;
                        sim.abort_when(Abort {
                            ttft: Some((
                                tt.seconds - min_kv,
                                n - ((tt.percentile / 100.0) * n as f64).ceil() as u64,
                            )),
                            tpot: None,
                        });
                    }
                    sim.step_until_no_events()?;
                    if sim.aborted() {
                        return Ok(None);
                    }
                    let (o, tot) = sim.finish();
                    let full = at_rate(sh.base, sh.rate / r as f64);
                    let s = Summary::of(&landed(&full, &o, t), &tot, 1, size, &ttft_only);
                    Ok((s.meets() && s.late_meets).then_some(s))
                };
                let reps = if w.slo_ttft.is_none() {
                    bound
                } else {
                    let (mut lo, mut hi) = (bound - 1, bound);
                    let mut ok = false;
                    loop {
                        if check(hi, runs)?.is_some() {
                            ok = true;
                            break;
                        }
                        lo = hi;
                        if hi >= most {
                            break;
                        }
                        hi = (hi * 2).min(most);
                    }
                    if !ok {
                        return Ok(());
                    }
                    while hi - lo > 1 {
                        let mid = lo + (hi - lo) / 2;
                        if check(mid, runs)?.is_some() {
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                    }
                    hi
                };
                let score = (reps * size) as f64;
                let better = best
                    .as_ref()
                    .is_none_or(|(d, a, _)| score < *a || (score == *a && reps * size < *d));
                if better {
                    best = Some((
                        reps * size,
                        score,
                        Choice {
                            hw: k,
                            layout: l,
                            replicas: reps,
                            max_tokens: pre_budget,
                        },
                    ));
                }
                Ok(())
            },
        )?;
        match best {
            Some((_, _, c)) => choices.push(c),
            None if pruned => notes.push(format!(
                "disaggregated pools with prefill on {} were not simulated: their bounds already need more devices than the {} best plans found",
                hw.id, sh.keep
            )),
            None => notes.push(format!(
                "no prefill pool on {} within {} devices meets the TTFT target",
                hw.id,
                units::whole(sh.max_devices)
            )),
        }
    }
    if choices.is_empty() {
        return Ok(out);
    }
    // 2. Every decode pool beside each prefill pool.
    let mut long: Vec<Request> = sh.base.to_vec();
    let n = sh.base.len();
    // Under cost and energy, the floors of each coupled run's spans
    // (formulas.md, "Fleet: disaggregated pools"): every run is a prefix
    // of the same stream, so it is drawn once, as long as the longest.
    let spans = (objective != super::Objective::Devices && !sh.i.options.exhaustive).then(|| {
        let most = super::floors::want(n, sh.max_devices, MOST_REQUESTS);
        let mut rng = Random::new(w.seed);
        long = arrivals::requests(
            &Arrivals::Poisson(1.0),
            most as u64,
            &w.prompt,
            &w.output,
            &mut rng,
        );
        super::floors::SpanFloors::new(&long, n, MOST_REQUESTS, w.seed, sh.max_devices, sh.rate)
    });
    // The best split plan's score so far: a candidate that could still be
    // it is simulated even when the five best are better.
    let mut best_split: Option<f64> = None;
    for c in &choices {
        let (ph, ps) = (&sh.hws[c.hw], &setups[c.hw]);
        let prep = Replica::new(ps, c.layout)?;
        let pkv = room(&prep).unwrap_or(0);
        let mut pf = Forward::new(&prep, m, ps.step.precisions, c.max_tokens, pre_seqs)?;
        let ppower = crate::calc::power::PowerModel::of(ph, ps.step.compute);
        let psize = c.layout.tp * c.layout.pp;
        if let Ok(pm) = &ppower {
            pf.meter(pm.clone());
        }
        let pcfg = Config {
            max_tokens: c.max_tokens,
            max_seqs: pre_seqs,
            prefix_hit: w.prefix_hit,
            window,
            replicas: 1,
            prefilled: false,
            draft: None,
        };
        // The whole prefill pool's outcomes and energy by (replicas,
        // requests).
        type Pre = std::rc::Rc<(Vec<Outcome>, Energy)>;
        let mut cache: HashMap<(u64, usize), Pre> = HashMap::new();
        let mut pre_pool = |rp: u64, reqs: &[Request], runs: &mut u64| -> Result<Pre> {
            if let Some(o) = cache.get(&(rp, reqs.len())) {
                return Ok(o.clone());
            }
            *runs += 1;
            let cfg = Config {
                replicas: rp,
                ..pcfg
            };
            pf.reset_meter();
            let (o, _) = sp::run_prefill(cfg, &mut pf, reqs, pkv, sh.block, w.seed)?;
            let e = prefill_energy(
                ppower.clone(),
                pf.drawn(),
                reqs,
                &o,
                rp * psize,
                psize,
                sh.mode,
            );
            let o = std::rc::Rc::new((o, e));
            cache.insert((rp, reqs.len()), o.clone());
            Ok(o)
        };
        for &k in &usable {
            let (hd, ds) = (&sh.hws[k], &setups[k]);
            decode_layouts(sh, ds, |l, rep, kv| {
                let size = l.tp * l.pp;
                let mk = |cap: u64, tokens: u64, why: String, margin: Option<f64>| Candidate {
                    hardware: hd.id.clone(),
                    layout: l,
                    max_seqs: cap,
                    max_tokens: tokens,
                    verdict: Verdict::Breaks { why, margin },
                    energy: None,
                    prefill: None,
                    checked: None,
                };
                let t = sp::transfer(m, kv_bytes, (ph, c.layout), (hd, l), sh.mode)?;
                let pool = |rp: u64| PrefillPool {
                    hardware: ph.id.clone(),
                    layout: Layout { dp: rp, ..c.layout },
                    max_tokens: c.max_tokens,
                    transfer_s: t.seconds(mean_prompt as u64),
                    bandwidth: t.bandwidth,
                    link: t.link.clone(),
                };
                let max_cap = *sh.caps.iter().max().unwrap_or(&256);
                let max_budget = sh
                    .budgets
                    .and_then(|b| b.iter().max().copied())
                    .unwrap_or(simulate::DEFAULT_WHOLE_PROMPT + max_cap);
                let mut f = Forward::new(rep, m, ds.step.precisions, max_budget, max_cap)?;
                let dpower = crate::calc::power::PowerModel::of(hd, ds.step.compute);
                if let Ok(pm) = &dpower {
                    f.meter(pm.clone());
                }
                let ctx = mean_prompt as u64;
                let one = decode_pass(&mut f, w.draft, 1, ctx, window).map(|(s, e)| s / e);
                let Some(step1) = unpriced(sh, (&hd.id, l), one)? else {
                    return Ok(());
                };
                if let Some(tt) = w.slo_tpot
                    && step1 > tt.seconds
                {
                    let mut x = mk(
                        0,
                        0,
                        format!(
                            "TPOT: one sequence's step alone is {} > {}",
                            units::seconds(step1),
                            units::seconds(tt.seconds)
                        ),
                        Some(tt.seconds / step1 - 1.0),
                    );
                    x.prefill = Some(pool(c.replicas));
                    out.push(x);
                    return Ok(());
                }
                // TTFT at this decode side's fabric: add prefill replicas
                // while the slower receiver pushes it past the target.
                let mut rp = c.replicas;
                let first = at_rate(&long[..n], sh.rate);
                loop {
                    let o = pre_pool(rp, &first, runs)?;
                    let s = Summary::of(
                        &landed(&first, &o.0, &t),
                        &Default::default(),
                        rp,
                        1,
                        &ttft_only,
                    );
                    if (s.meets() && s.late_meets) || rp >= c.replicas + PREFILL_BUMPS {
                        break;
                    }
                    rp += 1;
                }
                let pre_devices = rp * c.layout.devices();
                for &cap in sh.caps {
                    let tokens = sh
                        .budgets
                        .and_then(|b| b.first().copied())
                        .unwrap_or(simulate::DEFAULT_WHOLE_PROMPT + cap);
                    let mut x = mk(cap, tokens, String::new(), None);
                    x.prefill = Some(pool(rp));
                    let (pass, gained) =
                        decode_pass(&mut f, w.draft, cap, ctx + mean_output as u64 / 2, window)?;
                    let per_token = pass / (cap as f64 * gained);
                    let bound = (sh.rate * mean_output * per_token).ceil().max(1.0) as u64;
                    let most = sh.max_devices.saturating_sub(pre_devices) / size;
                    if bound > most {
                        x.verdict = Verdict::Breaks {
                            why: format!(
                                "devices: even at full batches the decode pool needs at least {} replicas ({} devices beside the prefill pool's {}) > {}",
                                units::whole(bound),
                                units::whole(bound.saturating_mul(size)),
                                units::whole(pre_devices),
                                units::whole(sh.max_devices)
                            ),
                            margin: None,
                        };
                        out.push(x);
                        continue;
                    }
                    let floor = (pre_devices + bound * size) as f64;
                    if found.len() >= sh.keep && floor as u64 > found[sh.keep - 1] {
                        x.verdict = Verdict::Breaks {
                            why: format!(
                                "devices: needs at least {} (the prefill pool and a decode-only bound), more than the {} best found",
                                units::whole(pre_devices + bound * size),
                                sh.keep
                            ),
                            margin: None,
                        };
                        out.push(x);
                        continue;
                    }
                    // Under cost and energy: the floor at every replica
                    // count the search may reach.
                    let floor = spans.as_ref().and_then(|fl| {
                        let pre_idle = ppower.as_ref().ok().map(|p| p.idle_w);
                        let dec_idle = dpower.as_ref().ok().map(|p| p.idle_w);
                        (bound..=most)
                            .map(|rd| {
                                let (p, d) = fl.at(rd)?;
                                let (pre_s, dec_s) = (pre_devices as f64 * p, size as f64 * d);
                                let energy =
                                    pre_idle.zip(dec_idle).map(|(a, b)| a * pre_s + b * dec_s);
                                objective.floor(
                                    0,
                                    pre_s + dec_s,
                                    energy,
                                    &sh.i.part_prices.of(
                                        &sh.i.prices,
                                        &[(ph.id.as_str(), pre_s), (hd.id.as_str(), dec_s)],
                                    ),
                                )
                            })
                            .try_fold(f64::INFINITY, |m, f| f.map(|f| m.min(f)))
                    });
                    if let Some(f) = floor
                        && scores.len() >= sh.keep
                        && f > scores[sh.keep - 1]
                        && best_split.is_some_and(|b| f > b)
                    {
                        x.verdict = Verdict::Breaks {
                            why: format!(
                                "{}: at least {} (idle power over each pool's arrival span), worse than the {} best found and the best disaggregated plan found",
                                objective.as_str(),
                                objective.show(f),
                                sh.keep
                            ),
                            margin: None,
                        };
                        out.push(x);
                        continue;
                    }
                    let dcfg = Config {
                        max_tokens: tokens,
                        max_seqs: cap,
                        prefix_hit: 0.0,
                        window,
                        replicas: 1,
                        prefilled: true,
                        draft: w.draft,
                    };
                    // One decode replica of rd, fed by the whole prefill
                    // pool; `full` runs to the end (a quoted verdict). The
                    // last run's energy: the prefill pool's and the decode
                    // replica's draw.
                    let last: std::cell::RefCell<Option<(Energy, crate::calc::power::Draw)>> =
                        Default::default();
                    let mut check =
                        |rd: u64, full: bool, runs: &mut u64| -> Result<Option<Summary>> {
                            let want = super::floors::want(n, rd, MOST_REQUESTS);
                            if long.len() < want {
                                let mut rng = Random::new(w.seed);
                                long = arrivals::requests(
                                    &Arrivals::Poisson(1.0),
                                    want as u64,
                                    &w.prompt,
                                    &w.output,
                                    &mut rng,
                                );
                            }
                            let reqs = at_rate(&long[..want], sh.rate);
                            let pre = pre_pool(rp, &reqs, runs)?;
                            *runs += 1;
                            f.reset_meter();
                            let d = sp::run_decode(
                                dcfg,
                                &mut f,
                                &reqs,
                                &pre.0,
                                &t,
                                kv,
                                sh.block,
                                w.seed,
                                Some(rd),
                                if full { None } else { w.slo_tpot },
                                false,
                            )?;
                            *last.borrow_mut() = Some((pre.1.clone(), f.drawn()));
                            Ok(d.map(|d| Summary::of(&d.outcomes, &d.totals, 1, size, w)))
                        };
                    let passes =
                        |s: &Option<Summary>| s.as_ref().is_some_and(|s| s.meets() && s.late_meets);
                    let (mut lo, mut hi) = (bound - 1, bound);
                    let mut at;
                    let mut at_energy = None;
                    loop {
                        at = check(hi, false, runs)?;
                        if passes(&at) {
                            at_energy = last.borrow_mut().take();
                            break;
                        }
                        lo = hi;
                        if hi >= most {
                            break;
                        }
                        hi = (hi * 2).min(most);
                    }
                    if !passes(&at) {
                        let s = check(hi, true, runs)?.unwrap_or_default();
                        let (why, margin) = misses(&s);
                        x.verdict = Verdict::Breaks {
                            why: format!(
                                "{why} even with {} decode replicas ({} devices in all)",
                                units::whole(hi),
                                units::whole(hi * size + pre_devices)
                            ),
                            margin: Some(margin),
                        };
                        x.layout.dp = hi;
                        out.push(x);
                        continue;
                    }
                    while hi - lo > 1 {
                        let mid = lo + (hi - lo) / 2;
                        let s = check(mid, false, runs)?;
                        if passes(&s) {
                            hi = mid;
                            at = s;
                            at_energy = last.borrow_mut().take();
                        } else {
                            lo = mid;
                        }
                    }
                    let binds = if lo >= 1 {
                        let s = check(lo, true, runs)?.unwrap_or_default();
                        let (why, _) = misses(&s);
                        Some(if why.is_empty() {
                            super::search::cannot_keep_up(lo, per_token, sh.rate * mean_output)
                        } else {
                            format!("{why} with {} decode replicas", units::whole(lo))
                        })
                    } else {
                        None
                    };
                    x.layout.dp = hi;
                    let mut at = at.unwrap_or_default();
                    let devices = hi * size + pre_devices;
                    at.devices = devices;
                    at.output_tokens_per_s_per_device =
                        at.output_tokens_per_s * hi as f64 / devices as f64;
                    let (pre_e, drawn) = at_energy.expect("a passing run leaves its energy");
                    // The decode pool: hi replicas, each its run's draw
                    // over its span, making hi times its tokens.
                    let pool = Summary {
                        devices: hi * size,
                        output_tokens_per_s: at.output_tokens_per_s * hi as f64,
                        ..at.clone()
                    };
                    let dec_e = simulate::run_energy(
                        dpower.clone(),
                        drawn,
                        &pool,
                        (hi * size) as f64,
                        sh.mode,
                    );
                    let energy = Energy::pooled(&[pre_e, dec_e], at.span_s);
                    let score = objective.score(devices, &energy, &sh.i.prices_of(&x))?;
                    x.energy = Some(energy);
                    x.verdict = Verdict::Meets {
                        at: Box::new(at),
                        binds,
                    };
                    if objective == super::Objective::Devices {
                        found.push(score as u64);
                        found.sort_unstable();
                    } else {
                        scores.push(score);
                        scores.sort_by(f64::total_cmp);
                        best_split = Some(best_split.map_or(score, |b| b.min(score)));
                    }
                    out.push(x);
                }
                Ok(())
            })?;
        }
    }
    Ok(out)
}

/// Each part's plan set-up for the disaggregated pools, with the search's
/// step shape: what the pool search and the Pareto trace both walk.
fn part_setups<'x>(sh: &Shared<'x>) -> Result<Vec<plan::Setup<'x>>> {
    let pi = plan_inputs(&sh.i.sim);
    sh.hws
        .iter()
        .map(|hw| {
            let mut s = plan::Setup::new(hw, sh.m, &pi, sh.mode)?;
            s.step_shape.get_or_insert(sh.step);
            Ok(s)
        })
        .collect()
}

/// The disaggregated points of the frontier (formulas.md, "Fleet: the
/// frontier"): for each decode part, layout and batch cap, a decode
/// replica saturated with decode-only steps at the mean context (its
/// tokens/s per user the inverse of that step), beside the share of a
/// prefill pool its requests need: each prompt's prefill alone, on the
/// prefill layout that spends the fewest device-seconds a prompt and meets
/// TTFT alone with its transfer. Tokens/s per device counts both.
pub(super) fn pareto(
    sh: &Shared,
    notes: &mut Vec<String>,
) -> Result<Vec<super::search::ParetoPoint>> {
    let (m, w) = (sh.m, sh.w);
    let mut out = Vec::new();
    let usable = usable_parts(sh, None);
    if usable.is_empty() {
        return Ok(out);
    }
    let setups = part_setups(sh)?;
    let window = m.window();
    let mean_prompt = w.prompt.mean().max(1.0) as u64;
    let mean_output = w.output.mean().max(1.0);
    let pre_reqs = sp::prefill_requests(sh.base);
    let kv_bytes = setups[usable[0]].step.precisions.kv;
    // Each part's cheapest prefill layout: device-seconds per prompt.
    let mut pre: Vec<(usize, Layout, f64)> = Vec::new();
    for &k in &usable {
        let mut best: Option<(Layout, f64)> = None;
        prefill_layouts(
            sh,
            &setups[k],
            &sh.hws[k],
            &pre_reqs,
            kv_bytes,
            1,
            |l, _, _, _, alone| {
                let cost = alone * (l.tp * l.pp) as f64;
                if best.is_none_or(|(_, c)| cost < c) {
                    best = Some((l, cost));
                }
                Ok(())
            },
        )?;
        if let Some((l, c)) = best {
            pre.push((k, l, c));
        }
    }
    let Some(&(pk, pl, per_prompt)) = pre.iter().min_by(|a, b| a.2.total_cmp(&b.2)) else {
        notes.push(
            "the frontier has no disaggregated points: no prefill layout meets TTFT alone".into(),
        );
        return Ok(out);
    };
    let ctx = mean_prompt + mean_output as u64 / 2;
    for &k in &usable {
        let s = &setups[k];
        decode_layouts(sh, s, |l, rep, kv| {
            let max_cap = *sh.caps.iter().max().unwrap_or(&256);
            let mut f = Forward::new(rep, m, s.step.precisions, max_cap, max_cap)?;
            let size = (l.tp * l.pp) as f64;
            for &cap in sh.caps {
                // A saturated batch must fit the cache at the mean context.
                if cap.saturating_mul(ctx) > kv {
                    continue;
                }
                // A pass's time per token each sequence gains.
                let pass = decode_pass(&mut f, sh.w.draft, cap, ctx, window).map(|(s, e)| s / e);
                let Some(step) = unpriced(sh, (&sh.hws[k].id, l), pass)? else {
                    break;
                };
                let tokens = cap as f64 / step;
                let prefill_devices = tokens / mean_output * per_prompt;
                out.push(super::search::ParetoPoint {
                    hardware: sh.hws[k].id.clone(),
                    layout: l,
                    max_seqs: cap,
                    per_device: tokens / (size + prefill_devices),
                    per_user: 1.0 / step,
                    prefill: Some((sh.hws[pk].id.clone(), pl, prefill_devices)),
                });
            }
            Ok(())
        })?;
    }
    Ok(out)
}

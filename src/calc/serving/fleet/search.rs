//! The search: candidates (part, layout of one replica, batch cap, token
//! budget), and for each the fewest replicas whose simulated run meets
//! every target.

use super::unpriced::Unpriced;
use super::{FleetInputs, Objective};
use crate::calc::plan::{self, Layout, Replica};
use crate::calc::simulate::arrivals::{self, Arrivals};
use crate::calc::simulate::cost::{Batch, Forward, StepCost, decode_pass};
use crate::calc::simulate::dist::Random;
use crate::calc::simulate::report::Summary;
use crate::calc::simulate::scheduler::{Abort, Config};
use crate::calc::simulate::{self, Instance, Workload};
use crate::error::{Error, Result};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units::{self, si};

/// One configuration searched.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The part.
    pub hardware: String,
    /// The replica's layout (dp: the replicas).
    pub layout: Layout,
    /// Sequences per iteration.
    pub max_seqs: u64,
    /// Token budget per iteration.
    pub max_tokens: u64,
    /// What became of it.
    pub verdict: Verdict,
    /// Board power and energy per output token of the run that meets
    /// (formulas.md, "Power and energy"); None for one that breaks.
    pub energy: Option<crate::calc::power::Energy>,
    /// A disaggregated candidate's prefill pool (then `hardware`,
    /// `layout`, `max_seqs` and `max_tokens` are its decode pool's); None
    /// for prefill and decode on every replica.
    pub prefill: Option<PrefillPool>,
    /// The whole deployment's run, as its check command runs it, at
    /// steady state ([`super::confirm`]); None where it was not run (only
    /// the winner is, and those ranked above it that failed).
    pub checked: Option<super::confirm::Checked>,
}

/// The prefill pool of a disaggregated candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct PrefillPool {
    /// The part.
    pub hardware: String,
    /// A prefill replica's layout (dp: the replicas).
    pub layout: Layout,
    /// Token budget of a prefill iteration.
    pub max_tokens: u64,
    /// The mean prompt's KV transfer to the decode pool, seconds.
    pub transfer_s: f64,
    /// The transfer's bandwidth, B/s.
    pub bandwidth: f64,
    /// The links it crosses.
    pub link: String,
}

/// Whether and how a candidate serves the workload.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// It meets every target with `layout.dp` replicas.
    Meets {
        /// The run at that many replicas.
        at: Box<Summary>,
        /// What fails with one replica fewer (None: one replica suffices).
        binds: Option<String>,
    },
    /// It cannot, and why (the constraint and by how much).
    Breaks {
        /// The constraint it breaks.
        why: String,
        /// How far from the target (target / value - 1, below zero), where
        /// a run measured it.
        margin: Option<f64>,
    },
}

impl Candidate {
    /// Devices in all (both pools).
    pub fn devices(&self) -> u64 {
        self.layout.devices() + self.prefill.as_ref().map_or(0, |p| p.layout.devices())
    }
}

/// A point of the frontier.
#[derive(Debug, Clone, PartialEq)]
pub struct ParetoPoint {
    /// The part.
    pub hardware: String,
    /// The replica's layout.
    pub layout: Layout,
    /// The batch cap (= the closed loop's users).
    pub max_seqs: u64,
    /// Output tokens per second per device.
    pub per_device: f64,
    /// Output tokens per second per user (1 / mean TPOT).
    pub per_user: f64,
    /// A disaggregated point's prefill pool per decode replica: the part,
    /// its layout and the devices it takes (a share: the prompts one
    /// decode replica's requests bring); None when aggregated.
    pub prefill: Option<(String, Layout, f64)>,
}

/// The search's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetCost {
    /// The model.
    pub model: String,
    /// The engine that priced every candidate.
    pub engine: String,
    /// Datasheet or measured.
    pub mode: Mode,
    /// What was minimised.
    pub objective: Objective,
    /// The workload.
    pub workload: Workload,
    /// The device bound.
    pub max_devices: u64,
    /// Every candidate, those that meet first (fewest devices first).
    pub candidates: Vec<Candidate>,
    /// Simulated runs the search took.
    pub runs: u64,
    /// The frontier, when asked.
    pub pareto: Option<Vec<ParetoPoint>>,
    /// What the search left out, and why.
    pub notes: Vec<String>,
    /// Why no plan is the answer though some met in the search's short
    /// runs: none held over a whole run (formulas.md, "Fleet: steady
    /// state").
    pub unconfirmed: Option<String>,
    /// Prices for cost per token.
    pub prices: crate::calc::power::Prices,
    /// How the inputs were named, for the check command.
    pub check: super::check::Check,
    /// Per-part device-hour prices, when given.
    pub part_prices: super::PartPrices,
}

/// One part's fixed figures for a layout: the replica's step cost, its
/// cache and its power model.
struct Sized<'a, 'b, 'c> {
    /// The part's index.
    hw: usize,
    forward: Forward<'a, 'b, 'c>,
    kv_tokens: u64,
    window: crate::spec::model::Window,
    power: std::result::Result<crate::calc::power::PowerModel, String>,
}

/// A candidate waiting to be simulated.
struct Pending {
    /// Its layout's index in the sized layouts.
    layout: usize,
    cap: u64,
    tokens: u64,
    /// Replicas the decode-only bound needs.
    bound: u64,
    /// Seconds per output token at full batches.
    per_token: f64,
    /// The lowest score it could have (at its bound), and the floor as a
    /// line in the replicas (at none, per replica): None where the part
    /// lacks a figure the score needs.
    floor: Option<f64>,
    line: Option<(f64, f64)>,
}

/// Layouts of one replica worth trying: tp over the divisors of the heads
/// that `plan` accepts, pp over the divisors of the layers up to 16, ep
/// over the divisors of tp for MoE; at most `max` devices. One `plan`
/// accepts but the part cannot price (a figure it lacks) goes to `left`,
/// which the answer's notes name.
pub(super) fn layouts(s: &plan::Setup, max: u64, left: &Unpriced) -> Vec<Layout> {
    let m = s.model;
    let mut out = Vec::new();
    for tp in plan::divisors(m.attention.heads.get()) {
        for pp in plan::divisors(m.layers.get())
            .into_iter()
            .filter(|p| *p <= 16)
        {
            if tp * pp > max {
                continue;
            }
            let eps = if m.moe.is_some() {
                plan::divisors(tp)
            } else {
                vec![1]
            };
            for ep in eps {
                let l = Layout { tp, pp, dp: 1, ep };
                // A layout `plan` accepts may still need a figure the part
                // lacks (a pipeline hand-off past an MI300X board, an
                // achievable link bandwidth): left out, and said so.
                if plan::validate(s, l, None).is_ok() {
                    match Replica::new(s, l) {
                        Ok(_) => out.push(l),
                        Err(e) => left.add(&s.hw.id, l, &e),
                    }
                }
            }
        }
    }
    out
}

/// Attention data-parallel layouts worth trying for an MoE model (formulas.md,
/// "Fleet", DEP): one stage, tp over the divisors of the heads, and the
/// experts over G = 2, 4, 8, ... such replicas (dp = G, ep = tp x G) while
/// the group fits one scale-up domain and `max` devices. A replica is then
/// one rank of a group, and replicas come G at a time.
pub(super) fn dep_layouts(s: &plan::Setup, max: u64) -> Vec<Layout> {
    let m = s.model;
    let (Some(_), Some(dom)) = (&m.moe, s.fabric.domain()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for tp in plan::divisors(m.attention.heads.get()) {
        let mut g = 2;
        while tp * g <= dom.min(max) {
            let l = Layout {
                tp,
                pp: 1,
                dp: g,
                ep: tp * g,
            };
            if plan::validate(s, l, None).is_ok() && Replica::new(s, l).is_ok() {
                out.push(l);
            }
            g *= 2;
        }
    }
    out
}

/// The run of one replica at `rate` requests per second.
#[allow(clippy::too_many_arguments)]
fn run(
    sz: &mut Sized,
    w: &Workload,
    reqs: &[arrivals::Request],
    unit_gaps: &[f64],
    rate: f64,
    cap: u64,
    budget: u64,
    block: u64,
    full: bool,
) -> Result<Option<Summary>> {
    // The same arrivals at every rate: unit-mean gaps scaled by 1 / rate.
    let mut t = 0.0;
    let reqs: Vec<arrivals::Request> = reqs
        .iter()
        .zip(unit_gaps)
        .map(|(r, g)| {
            t += g / rate;
            arrivals::Request { arrival_s: t, ..*r }
        })
        .collect();
    let cfg = Config {
        max_tokens: budget,
        max_seqs: cap,
        prefix_hit: w.prefix_hit,
        window: sz.window,
        replicas: 1,
        prefilled: false,
        draft: w.draft,
    };
    let wr = Workload {
        arrivals: Arrivals::Poisson(rate),
        ..w.clone()
    };
    if !full {
        // The most requests a percentile target lets exceed its time:
        // nearest rank, n - ceil(p n / 100).
        let most = |t: Option<crate::calc::simulate::slo::Target>, n: u64| {
            t.map(|t| {
                (
                    t.seconds,
                    n - ((t.percentile / 100.0) * n as f64).ceil() as u64,
                )
            })
        };
        let n = reqs.len() as u64;
        let n2 = reqs.iter().filter(|r| r.output > 1).count() as u64;
        let abort = Abort {
            ttft: most(w.slo_ttft, n),
            tpot: most(w.slo_tpot, n2),
        };
        return Ok(simulate::simulate_until_missed(
            cfg,
            &mut sz.forward,
            &wr,
            reqs,
            sz.kv_tokens,
            block,
            abort,
        )?
        .map(|(out, totals)| Summary::of(&out, &totals, 1, 1, &wr)));
    }
    let (out, totals) =
        simulate::simulate(cfg, &mut sz.forward, &wr, reqs, sz.kv_tokens, block, false)?;
    Ok(Some(Summary::of(&out, &totals, 1, 1, &wr)))
}

/// What binds below the decode-only bound, where a finite run may not
/// show it yet: `replicas` at full batches emit fewer tokens a second than
/// arrive.
pub(super) fn cannot_keep_up(replicas: u64, per_token: f64, need: f64) -> String {
    format!(
        "throughput: {} replicas at full batches emit at most {} output tokens/s < the {} that arrive (the queue grows without end)",
        units::whole(replicas),
        units::sig(replicas as f64 / per_token, 4),
        units::sig(need, 4)
    )
}

/// The targets a run misses, with the worst margin.
pub(super) fn misses(s: &Summary) -> (String, f64) {
    let mut why = Vec::new();
    let mut worst = f64::INFINITY;
    if s.meets() && !s.late_meets {
        why.push(
            "the queue still grows at the end of the run (its last quarter misses a target)"
                .to_string(),
        );
        worst = 0.0;
    }
    for (k, a) in [("TTFT", s.ttft_slo), ("TPOT", s.tpot_slo)] {
        if let Some(a) = a
            && !a.met()
        {
            why.push(format!(
                "{k} p{} {} > {}",
                units::sig(a.target.percentile, 4),
                units::seconds(a.value_s),
                units::seconds(a.target.seconds)
            ));
            worst = worst.min(a.margin);
        }
    }
    (why.join(", "), worst)
}

/// The search over every part in `hws`.
pub fn search(m: &Model, hws: &[Hardware], i: &FleetInputs, mode: Mode) -> Result<FleetCost> {
    let w = super::check(i)?;
    let Arrivals::Poisson(rate) = w.arrivals else {
        return Err(Error::field("rate", "fleet needs a Poisson rate"));
    };
    let max_devices = crate::inputs::at_least_one(
        "max-devices",
        i.options
            .max_devices
            .map_or(super::DEFAULT_MAX_DEVICES, |c| c.0),
    )?;
    let caps = match &i.options.caps {
        Some(t) => super::counts("caps", t)?,
        None => super::DEFAULT_CAPS.to_vec(),
    };
    let budgets = i
        .options
        .budgets
        .as_deref()
        .map(|t| super::counts("budgets", t))
        .transpose()?;
    super::bound(hws.len(), caps.len(), budgets.as_ref().map(Vec::len))?;
    let block = simulate::caps(&i.sim)?.block;
    // --reserve step: the largest iteration any plan of the search runs
    // (its largest token budget or a whole prompt, its largest cap or a
    // prefill pool's sequences), held back on every plan so that one
    // check command (`--reserve step:TOKENS,SEQS`) reproduces each.
    let step = {
        let max_cap = *caps.iter().max().unwrap_or(&simulate::DEFAULT_MAX_SEQS);
        let tokens = budgets
            .as_ref()
            .and_then(|b| b.iter().max().copied())
            .unwrap_or(simulate::DEFAULT_WHOLE_PROMPT + max_cap)
            .max(simulate::DEFAULT_WHOLE_PROMPT);
        (tokens, max_cap.max(simulate::DEFAULT_MAX_SEQS))
    };
    let objective = i.options.objective.unwrap_or_default();
    let ids: Vec<&str> = hws.iter().map(|h| h.id.as_str()).collect();
    i.part_prices.check(&ids)?;
    // The same lengths and unit gaps for every candidate and rate.
    let mut rng = Random::new(w.seed);
    let base = arrivals::requests(
        &Arrivals::Poisson(1.0),
        w.requests,
        &w.prompt,
        &w.output,
        &mut rng,
    );
    let mut unit_gaps = Vec::with_capacity(base.len());
    let mut prev = 0.0;
    for r in &base {
        unit_gaps.push(r.arrival_s - prev);
        prev = r.arrival_s;
    }
    let mean_prompt = w.prompt.mean();
    let mean_output = w.output.mean();
    let mut candidates = Vec::new();
    let mut runs = 0u64;
    let mut pareto_pts = Vec::new();
    // The K-th best score found so far: a candidate whose floor is worse
    // is not simulated.
    const KEEP: usize = 5;
    let mut found: Vec<f64> = Vec::new();
    // A run of R replicas spans at least its arrivals, the unit gaps after
    // the first times R / rate, for all its output tokens: R times this
    // many seconds per token on each device; and it forwards at least each
    // prompt's uncached tokens and each output token but the last, this
    // many per output token (formulas.md, "Fleet").
    let outputs = base.iter().map(|r| r.output).sum::<u64>().max(1) as f64;
    let spread = unit_gaps.iter().skip(1).sum::<f64>() / (rate * outputs);
    let forwarded = base
        .iter()
        .map(|r| {
            let skip = ((w.prefix_hit * r.prompt as f64).floor() as u64).min(r.prompt - 1);
            (r.prompt - skip + r.output - 1) as f64
        })
        .sum::<f64>()
        / outputs;
    let insts: Vec<Instance> = hws
        .iter()
        .map(|hw| {
            let one = Layout {
                tp: 1,
                pp: 1,
                dp: 1,
                ep: 1,
            };
            let mut inst = Instance::new(m, hw, mode, &i.sim, one)?;
            inst.setup.step_shape.get_or_insert(step);
            Ok(inst)
        })
        .collect::<Result<_>>()?;
    let left = Unpriced::default();
    let mut replicas = Vec::new();
    for (k, inst) in insts.iter().enumerate() {
        for l in layouts(&inst.setup, max_devices, &left)
            .into_iter()
            .chain(dep_layouts(&inst.setup, max_devices))
        {
            replicas.push((k, Replica::new(&inst.setup, l)?));
        }
    }
    let window = m.window();
    let max_cap = *caps.iter().max().unwrap_or(&256);
    let max_budget = budgets
        .as_ref()
        .and_then(|b| b.iter().max().copied())
        .unwrap_or(simulate::DEFAULT_WHOLE_PROMPT + max_cap);
    // Every layout's fixed figures and every (cap, budget)'s decode-only
    // bound first; then the candidates are simulated lowest floor first, so
    // that the best plans are found early and the rest are pruned by their
    // floors.
    let mut sized = Vec::new();
    let mut pending = Vec::new();
    for (k, replica) in &replicas {
        let (hw, inst) = (&hws[*k], &insts[*k]);
        let l = replica.layout;
        let mk = |why: String, margin: Option<f64>, cap: u64, tokens: u64| Candidate {
            hardware: hw.id.clone(),
            layout: l,
            max_seqs: cap,
            max_tokens: tokens,
            verdict: Verdict::Breaks { why, margin },
            prefill: None,
            energy: None,
            checked: None,
        };
        let Some(kv) = super::pools::room(replica) else {
            candidates.push(mk(
                format!(
                    "memory: weights {} per device exceed the {} usable",
                    si(replica.weight_bytes, "B"),
                    si(replica.weight_bytes + replica.kv_budget_bytes, "B")
                ),
                None,
                0,
                0,
            ));
            continue;
        };
        if let Err(e) = simulate::check_fit(m, &base, kv, block, i.sim.force) {
            if matches!(e, Error::NoAnswer(_)) {
                candidates.push(mk(format!("memory: {e}"), None, 0, 0));
                continue;
            }
            return Err(e);
        }
        let mut forward =
            Forward::new(replica, m, inst.setup.step.precisions, max_budget, max_cap)?;
        let power = crate::calc::power::PowerModel::of(hw, inst.setup.step.compute);
        if let Ok(pm) = &power {
            forward.meter(pm.clone());
        }
        // Light-load limits: one sequence's decode step and one whole
        // prompt. A target below them is never met by this layout.
        let ctx = mean_prompt as u64;
        // With speculative decoding, one sequence's pass over the tokens
        // it gains.
        let step1 = decode_pass(&mut forward, w.draft, 1, ctx, window).map(|(s, e)| s / e)?;
        let mut pre = Batch::default();
        pre.add(mean_prompt.max(1.0) as u64, 0, true, window);
        let ttft0 = forward.seconds(&pre)?;
        if let Some(t) = w.slo_tpot
            && step1 > t.seconds
        {
            candidates.push(mk(
                format!(
                    "TPOT: one sequence's step alone is {} > {}",
                    units::seconds(step1),
                    units::seconds(t.seconds)
                ),
                Some(t.seconds / step1 - 1.0),
                0,
                0,
            ));
            continue;
        }
        if let Some(t) = w.slo_ttft
            && ttft0 > t.seconds
        {
            candidates.push(mk(
                format!(
                    "TTFT: the mean prompt's prefill alone is {} > {}",
                    units::seconds(ttft0),
                    units::seconds(t.seconds)
                ),
                Some(t.seconds / ttft0 - 1.0),
                0,
                0,
            ));
            continue;
        }
        // A replica's devices (`rank`), and what the search counts in: a
        // group of G attention data-parallel replicas (1 without DEP).
        let g = l.attention_dp();
        let rank = l.tp * l.pp;
        let size = rank * g;
        let flops1 = forward.body_flops_per_token()?;
        for &cap in &caps {
            let tokens_list = budgets
                .clone()
                .unwrap_or_else(|| vec![simulate::DEFAULT_WHOLE_PROMPT + cap]);
            for &tokens in &tokens_list {
                // Decode-only bound on one replica's rate: cap sequences at
                // the mean context give cap tokens a step.
                let (pass, gained) = decode_pass(
                    &mut forward,
                    w.draft,
                    cap,
                    ctx + mean_output as u64 / 2,
                    window,
                )?;
                let per_token = pass / (cap as f64 * gained);
                let bound = (rate * mean_output * per_token / g as f64).ceil().max(1.0) as u64;
                if bound > max_devices / size {
                    candidates.push(mk(
                        format!(
                            "devices: even at full batches it needs at least {} replicas ({} devices) > {}",
                            units::whole(bound),
                            units::whole(bound.saturating_mul(size)),
                            units::whole(max_devices)
                        ),
                        None,
                        cap,
                        tokens,
                    ));
                    continue;
                }
                let floor = |r: u64| {
                    let dev_s = (size * r) as f64 * spread;
                    let energy = power
                        .as_ref()
                        .ok()
                        .map(|p| p.idle_w * dev_s + p.dynamic_j(flops1, 0.0) * forwarded);
                    objective.floor(
                        r * size,
                        dev_s,
                        energy,
                        &i.part_prices.of(&i.prices, &[(hw.id.as_str(), 1.0)]),
                    )
                };
                pending.push(Pending {
                    layout: sized.len(),
                    cap,
                    tokens,
                    bound,
                    per_token,
                    floor: floor(bound),
                    // The floor is affine in the replicas.
                    line: floor(0).zip(floor(1)).map(|(a, b)| (a, b - a)),
                });
            }
            if i.options.pareto {
                // Saturated: a closed loop of cap users on one replica.
                let n = (cap * 4).max(200).min(w.requests.max(cap));
                let reqs: Vec<arrivals::Request> = base.iter().take(n as usize).copied().collect();
                let cfg = Config {
                    max_tokens: simulate::DEFAULT_WHOLE_PROMPT + cap,
                    max_seqs: cap,
                    prefix_hit: w.prefix_hit,
                    window,
                    replicas: 1,
                    prefilled: false,
                    draft: w.draft,
                };
                let wc = Workload {
                    arrivals: Arrivals::Closed(cap),
                    requests: n,
                    ..w.clone()
                };
                runs += 1;
                let (out, t) = simulate::simulate(cfg, &mut forward, &wc, reqs, kv, block, false)?;
                let s = Summary::of(&out, &t, 1, rank, &wc);
                if s.tpot.mean > 0.0 {
                    pareto_pts.push(ParetoPoint {
                        hardware: hw.id.clone(),
                        layout: l,
                        max_seqs: cap,
                        per_device: s.output_tokens_per_s_per_device,
                        per_user: 1.0 / s.tpot.mean,
                        prefill: None,
                    });
                }
            }
        }
        sized.push(Sized {
            hw: *k,
            forward,
            kv_tokens: kv,
            window,
            power,
        });
    }
    // Lowest floor first; a stable sort keeps the catalog's order among
    // equals.
    pending.sort_by(|a, b| {
        let key = |p: &Pending| p.floor.unwrap_or(f64::INFINITY);
        key(a).total_cmp(&key(b))
    });
    for p in pending {
        let sz = &mut sized[p.layout];
        let hw = &hws[sz.hw];
        let l = sz.forward.layout();
        let g = l.attention_dp();
        let rank = l.tp * l.pp;
        let size = rank * g;
        let (cap, tokens, bound) = (p.cap, p.tokens, p.bound);
        let mut c = Candidate {
            hardware: hw.id.clone(),
            layout: l,
            max_seqs: cap,
            max_tokens: tokens,
            verdict: Verdict::Breaks {
                why: String::new(),
                margin: None,
            },
            prefill: None,
            energy: None,
            checked: None,
        };
        // Replicas past the K-th best score found would not rank: the
        // search stops there (the floor grows with the replicas).
        let kth = (found.len() >= KEEP && !i.options.exhaustive).then(|| found[KEEP - 1]);
        if let (Some(best), Some(f)) = (kth, p.floor)
            && f > best
        {
            c.verdict = Verdict::Breaks {
                why: match objective {
                    Objective::Devices => format!(
                        "devices: needs at least {} (a decode-only bound), more than the {} best found",
                        units::whole(bound * size),
                        KEEP
                    ),
                    o => format!(
                        "{}: at least {} (idle power over its fewest replicas' span and the FLOPs of every forwarded token), worse than the {} best found",
                        o.as_str(),
                        o.show(f),
                        KEEP
                    ),
                },
                margin: None,
            };
            candidates.push(c);
            continue;
        }
        let ranked = match (kth, p.line) {
            (Some(best), Some((a, b))) if b > 0.0 => {
                Some(((best - a) / b).floor().clamp(0.0, 1e18) as u64)
            }
            _ => None,
        };
        let most = ranked.unwrap_or(max_devices / size);
        // Smallest passing replica count: double, then bisect. A run stops
        // early once a target is sure to be missed; the runs a verdict
        // quotes are run in full. Each run's draw is metered afresh: the
        // one that meets is priced by its own iterations.
        let drawn = std::cell::Cell::new(crate::calc::power::Draw::default());
        let mut check = |r: u64, full: bool, runs: &mut u64| -> Result<Option<Summary>> {
            *runs += 1;
            sz.forward.reset_meter();
            let s = run(
                sz,
                &w,
                &base,
                &unit_gaps,
                rate / (r * g) as f64,
                cap,
                tokens,
                block,
                full,
            );
            drawn.set(sz.forward.drawn());
            s
        };
        let mut at_drawn = crate::calc::power::Draw::default();
        let passes = |s: &Option<Summary>| s.as_ref().is_some_and(|s| s.meets() && s.late_meets);
        let mut lo = bound - 1; // fails (or zero)
        let mut hi = bound;
        let mut at;
        loop {
            at = check(hi, false, &mut runs)?;
            if passes(&at) {
                at_drawn = drawn.get();
                break;
            }
            lo = hi;
            if hi >= most {
                break;
            }
            hi = (hi * 2).min(most);
        }
        if !passes(&at) {
            c.layout.dp = hi * g;
            if ranked.is_some() {
                c.verdict = Verdict::Breaks {
                    why: format!(
                        "{}: {} replicas ({} devices) still miss a target, and more would not rank among the {} best found",
                        objective.as_str(),
                        units::whole(hi),
                        units::whole(hi * size),
                        KEEP
                    ),
                    margin: None,
                };
                candidates.push(c);
                continue;
            }
            let s = check(hi, true, &mut runs)?.unwrap_or_default();
            let (why, margin) = misses(&s);
            c.verdict = Verdict::Breaks {
                why: format!(
                    "{why} even with {} replicas ({} devices)",
                    units::whole(hi),
                    units::whole(hi * size)
                ),
                margin: Some(margin),
            };
            candidates.push(c);
            continue;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let s = check(mid, false, &mut runs)?;
            if passes(&s) {
                hi = mid;
                at = s;
                at_drawn = drawn.get();
            } else {
                lo = mid;
            }
        }
        let binds = if lo >= 1 {
            let f = check(lo, true, &mut runs)?.unwrap_or_default();
            let (why, _) = misses(&f);
            Some(if why.is_empty() {
                cannot_keep_up(lo, p.per_token, rate * mean_output)
            } else {
                format!("{why} with {} replicas", units::whole(lo))
            })
        } else {
            None
        };
        c.layout.dp = hi * g;
        let mut at = at.unwrap_or_default();
        at.devices = hi * size;
        at.output_tokens_per_s_per_device = at.output_tokens_per_s / rank as f64;
        // The run is one replica's at rate / replicas: its energy per token
        // is the deployment's.
        let mut one = at.clone();
        one.devices = rank;
        let energy = simulate::run_energy(sz.power.clone(), at_drawn, &one, rank as f64, mode);
        let score = objective.score(
            hi * size,
            &energy,
            &i.part_prices.of(&i.prices, &[(hw.id.as_str(), 1.0)]),
        )?;
        c.energy = Some(energy);
        c.verdict = Verdict::Meets {
            at: Box::new(at),
            binds,
        };
        found.push(score);
        found.sort_by(f64::total_cmp);
        candidates.push(c);
    }
    // Disaggregated prefill and decode pools.
    let mut notes = Vec::new();
    if let Some(n) = insts
        .first()
        .and_then(|x| plan::step_reserve_note(&x.setup, 1))
    {
        notes.push(format!(
            "{n}; every plan holds back the search's largest iteration"
        ));
    }
    let shared = super::pools::Shared {
        m,
        hws,
        i,
        mode,
        w: &w,
        rate,
        base: &base,
        block,
        max_devices,
        caps: &caps,
        budgets: budgets.as_deref(),
        keep: KEEP,
        step,
        left: &left,
    };
    let mut scores = found.clone();
    // Pools prune by devices under the devices objective.
    let mut found: Vec<u64> = if objective == Objective::Devices {
        found.iter().map(|f| *f as u64).collect()
    } else {
        notes.push(format!(
            "disaggregated candidates under --objective {}: each part's prefill pool is the fewest devices meeting TTFT; the decode pools beside it are ranked by {}, both pools metered",
            objective.as_str(),
            objective.as_str()
        ));
        Vec::new()
    };
    // Under cost and energy the split plans prune by the scores found
    // (formulas.md, "Fleet: disaggregated pools").
    candidates.extend(super::pools::search(
        &shared,
        &mut found,
        &mut scores,
        &mut runs,
        &mut notes,
    )?);
    rank(&mut candidates, objective, i);
    // The winner's whole deployment at steady state, as its check command
    // runs it; one that falls over gives way to the next.
    let unconfirmed = super::confirm::confirm(
        &super::confirm::Ctx {
            m,
            hws,
            i,
            mode,
            w: &w,
        },
        &mut candidates,
        &mut runs,
        &mut notes,
    )?;
    if i.options.pareto {
        pareto_pts.extend(super::pools::pareto(&shared, &mut notes)?);
    }
    let pareto = i.options.pareto.then(|| frontier(pareto_pts));
    // Layouts a missing figure left out come first: they may be what the
    // answer would otherwise have been.
    let per_layout = (caps.len() * budgets.as_ref().map_or(1, Vec::len)) as u64;
    notes.splice(0..0, left.notes(per_layout));
    Ok(FleetCost {
        model: m.id.clone(),
        engine: insts
            .first()
            .map_or_else(String::new, |x| x.setup.step.engine.id.clone()),
        mode,
        objective,
        workload: w,
        max_devices,
        candidates,
        runs,
        pareto,
        notes,
        unconfirmed,
        prices: i.prices,
        check: i.check.clone().with_step(step),
        part_prices: i.part_prices.clone(),
    })
}

/// Ranks the candidates: with --objective energy or cost, those that meet
/// by it first; then fewest devices, aggregated before disaggregated, the
/// largest TTFT margin; then those that break, closest first.
pub(super) fn rank(candidates: &mut [Candidate], objective: Objective, i: &FleetInputs) {
    let by = |c: &Candidate| match (&c.verdict, &c.energy) {
        (Verdict::Meets { .. }, Some(e)) if objective != Objective::Devices => objective
            .score(c.devices(), e, &i.prices_of(c))
            .unwrap_or(f64::INFINITY),
        _ => 0.0,
    };
    let key = |c: &Candidate| match &c.verdict {
        Verdict::Meets { at, .. } => (
            0,
            by(c),
            c.devices(),
            c.prefill.is_some(),
            -at.ttft_slo.map_or(0.0, |a| a.margin),
        ),
        Verdict::Breaks { margin, .. } => (
            1,
            0.0,
            u64::MAX,
            false,
            -margin.unwrap_or(f64::NEG_INFINITY),
        ),
    };
    candidates.sort_by(|a, b| {
        let (x, y) = (key(a), key(b));
        x.0.cmp(&y.0)
            .then(x.1.total_cmp(&y.1))
            .then(x.2.cmp(&y.2))
            .then(x.3.cmp(&y.3))
            .then(x.4.total_cmp(&y.4))
    });
}

/// The points no other beats on both tokens/s per device and per user.
pub fn frontier(mut pts: Vec<ParetoPoint>) -> Vec<ParetoPoint> {
    pts.sort_by(|a, b| {
        b.per_user
            .total_cmp(&a.per_user)
            .then(b.per_device.total_cmp(&a.per_device))
    });
    let mut out: Vec<ParetoPoint> = Vec::new();
    for p in pts {
        if out.last().is_none_or(|q| p.per_device > q.per_device) {
            out.push(p);
        }
    }
    out
}

pub(super) fn plan_inputs(s: &simulate::SimulateInputs) -> plan::PlanInputs {
    plan::PlanInputs {
        dtype: s.dtype.clone(),
        kv_dtype: s.kv_dtype.clone(),
        activations: s.activations.clone(),
        launch: s.launch.clone(),
        reserve: s.reserve.clone(),
        engine: s.engine.clone(),
        ..Default::default()
    }
}

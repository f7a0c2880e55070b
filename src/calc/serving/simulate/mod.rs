//! `simulate`: one serving deployment, request by request (formulas.md,
//! "Simulation"). Requests arrive (Poisson, a closed loop or a trace),
//! queue, and are served under continuous batching with chunked prefill
//! and paged KV admission with preemption; every iteration is priced by
//! the same per-operation step cost as `decode` and `prefill`
//! ([`cost::Forward`]). The answer is latency percentiles, throughput,
//! goodput under SLOs and how full the batch and the cache ran.
//!
//! Rooms: [`arrivals`] (where requests come from), [`dist`] (lengths and
//! the seeded random stream), [`events`] (the queue), [`kv`] (blocks),
//! [`scheduler`] (the engine and the loop), [`cost`](mod@cost) (iteration prices),
//! [`slo`] (targets), [`report`] (statistics and the report).

pub mod arrivals;
pub mod cost;
pub mod dist;
pub mod events;
pub mod kv;
pub mod pools;
pub mod report;
pub mod scheduler;
pub mod slo;
#[cfg(test)]
mod tests;

use self::arrivals::{Arrivals, Request};
use self::dist::{Length, Random};
use self::report::Summary;
use self::scheduler::{Config, Outcome, Simulation, Totals};
use self::slo::Target;
use crate::calc::plan::{self, Layout, PlanInputs, Replica};
use crate::error::{Error, Result};
use crate::inputs::Count;
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units::{self, si};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Sequences one iteration holds by default: vLLM's `max_num_seqs`
/// default of 256 (vLLM engine arguments).
pub const DEFAULT_MAX_SEQS: u64 = 256;
/// Tokens per KV block by default: vLLM's `block_size` default of 16
/// (vLLM engine arguments).
pub const DEFAULT_BLOCK: u64 = 16;
/// The prompt the default token budget holds whole beside a full batch of
/// decodes (the 2,048).
pub const DEFAULT_WHOLE_PROMPT: u64 = 2048;
/// Requests simulated by default.
pub const DEFAULT_REQUESTS: u64 = 10_000;
/// The most requests one run takes. A run holds each request's lengths,
/// state and outcome (about 140 bytes), so its memory grows with them:
/// 136 MB at this bound, 10 s in the debug binary at 20/s of 512 + 64
/// tokens (docs/cli.md, "Limits"; measured with /usr/bin/time -v).
pub const MAX_REQUESTS: u64 = 1_000_000;

/// Requests per second: `12/s`, `720/min` or a bare number.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Rate(pub f64);

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Rate;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("requests per second (12/s, 720/min)")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Rate, E> {
                arrivals::parse_rate(&v.to_string())
                    .map(Rate)
                    .map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Rate, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Rate, E> {
                self.visit_f64(v as f64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Rate, E> {
                arrivals::parse_rate(v).map(Rate).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// `simulate`'s inputs (and the workload part of `fleet`'s).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SimulateInputs {
    /// Poisson arrivals, requests per second.
    pub rate: Option<Rate>,
    /// A closed loop of this many users.
    pub concurrency: Option<Count>,
    /// A CSV trace of arrivals and lengths.
    pub trace: Option<String>,
    /// Prompt tokens: a count or a distribution.
    pub prompt: Option<Length>,
    /// Output tokens: a count or a distribution.
    pub output: Option<Length>,
    /// Share of each prompt already in the prefix cache.
    pub prefix_hit: Option<serde_json::Value>,
    /// Requests to simulate (default 10,000; a trace: all its rows).
    pub requests: Option<Count>,
    /// Seed of the random stream (default 0).
    pub seed: Option<Count>,
    /// Token budget of one iteration.
    pub max_batched_tokens: Option<Count>,
    /// Sequences one iteration may hold (default 256).
    pub max_seqs: Option<Count>,
    /// Tokens per KV block (default 16).
    pub block_size: Option<Count>,
    /// Time-to-first-token target (a bare time is p99).
    pub slo_ttft: Option<Target>,
    /// Time-per-output-token target (a bare time is p99).
    pub slo_tpot: Option<Target>,
    /// Tensor parallelism.
    pub tp: Option<Count>,
    /// Pipeline stages.
    pub pp: Option<Count>,
    /// Expert parallelism.
    pub ep: Option<Count>,
    /// Data-parallel replicas (requests routed among them at random).
    pub dp: Option<Count>,
    /// Redundant copies of hot experts over each expert group (default 0),
    /// as `plan` takes them.
    pub redundant_experts: Option<Count>,
    /// Weight precision.
    pub dtype: Option<String>,
    /// KV precision.
    pub kv_dtype: Option<String>,
    /// Activation precision.
    pub activations: Option<String>,
    /// Launch overhead: none, eager or graph.
    pub launch: Option<String>,
    /// Share of memory held back.
    pub reserve: Option<serde_json::Value>,
    /// Keep one row per request.
    #[serde(default)]
    pub per_request: bool,
    /// Keep the state over time (for a chart).
    #[serde(default)]
    pub timeline: bool,
    /// Allow requests beyond the model's maximum context.
    #[serde(default)]
    pub force: bool,
    /// Disaggregated: replicas of a separate prefill pool (the decode pool
    /// is tp, pp, ep, dp). Any `prefill-` field makes the run disaggregated.
    pub prefill_dp: Option<Count>,
    /// Tensor parallelism of a prefill replica (default 1).
    pub prefill_tp: Option<Count>,
    /// Pipeline stages of a prefill replica (default 1).
    pub prefill_pp: Option<Count>,
    /// Expert parallelism of a prefill replica (default 1).
    pub prefill_ep: Option<Count>,
    /// The prefill pool's part (default: `hw`, the decode pool's).
    pub prefill_hw: Option<String>,
    /// Token budget of a prefill iteration (default 2,048).
    pub prefill_max_batched_tokens: Option<Count>,
    /// The engine the steps run on (the plain PyTorch forward when
    /// `None`).
    #[serde(skip)]
    pub engine: Option<std::sync::Arc<crate::spec::engine::Engine>>,
}

impl SimulateInputs {
    /// Whether any field asks for a separate prefill pool.
    pub fn disaggregated(&self) -> bool {
        self.prefill_dp.is_some()
            || self.prefill_tp.is_some()
            || self.prefill_pp.is_some()
            || self.prefill_ep.is_some()
            || self.prefill_hw.is_some()
            || self.prefill_max_batched_tokens.is_some()
    }
}

/// The workload resolved: where requests come from and how long they are.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// Arrivals.
    pub arrivals: Arrivals,
    /// Prompt lengths.
    pub prompt: Length,
    /// Output lengths.
    pub output: Length,
    /// Share of each prompt cached.
    pub prefix_hit: f64,
    /// Requests.
    pub requests: u64,
    /// Seed.
    pub seed: u64,
    /// The targets.
    pub slo_ttft: Option<Target>,
    /// The targets.
    pub slo_tpot: Option<Target>,
}

/// Resolves the workload flags (shared with `fleet`).
pub fn workload(i: &SimulateInputs) -> Result<Workload> {
    let given = [i.rate.is_some(), i.concurrency.is_some(), i.trace.is_some()];
    if given.iter().filter(|g| **g).count() != 1 {
        return Err(Error::missing_input(
            "rate",
            "give one of rate (Poisson arrivals, e.g. 12/s), concurrency (a closed loop of N users) or trace (a CSV file)",
        ));
    }
    let arrivals = if let Some(r) = i.rate {
        Arrivals::Poisson(r.0)
    } else if let Some(c) = i.concurrency {
        Arrivals::Closed(
            crate::inputs::at_least_one("concurrency", c.0).map_err(|_| {
                Error::field("concurrency", "must be a whole number of users, at least 1")
            })?,
        )
    } else {
        let path = i.trace.as_deref().unwrap_or_default();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.to_string(),
            source: e,
        })?;
        Arrivals::Trace(arrivals::parse_trace(path, &text)?)
    };
    let trace = matches!(arrivals, Arrivals::Trace(_));
    if trace && (i.prompt.is_some() || i.output.is_some()) {
        return Err(Error::field(
            "prompt",
            "a trace gives each request's lengths; leave out prompt and output",
        ));
    }
    let fixed1 = Length::Fixed { tokens: 1 };
    let (prompt, output) = if trace {
        (fixed1, fixed1)
    } else {
        (
            i.prompt.ok_or_else(|| {
                Error::missing_input(
                    "prompt",
                    "give `prompt` (tokens, or a distribution such as lognormal:2048,0.5)",
                )
            })?,
            i.output.ok_or_else(|| {
                Error::missing_input(
                    "output",
                    "give `output` (tokens, or a distribution such as uniform:100..500)",
                )
            })?,
        )
    };
    let prefix_hit = match &i.prefix_hit {
        None => 0.0,
        Some(v) => crate::calc::kv::parse_share("prefix-hit", v)?,
    };
    let requests = match (&arrivals, i.requests) {
        (Arrivals::Trace(t), Some(n)) => n.0.min(t.len() as u64),
        (Arrivals::Trace(t), None) => t.len() as u64,
        (_, n) => n.map_or(DEFAULT_REQUESTS, |c| c.0),
    };
    if !(1..=MAX_REQUESTS).contains(&requests) {
        return Err(Error::field(
            "requests",
            format!("must be from 1 to {}", units::whole(MAX_REQUESTS)),
        ));
    }
    Ok(Workload {
        arrivals,
        prompt,
        output,
        prefix_hit,
        requests,
        seed: i.seed.map_or(0, |c| c.0),
        slo_ttft: i.slo_ttft,
        slo_tpot: i.slo_tpot,
    })
}

/// The engine's caps: budget and sequences.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Caps {
    /// Token budget per iteration.
    pub max_tokens: u64,
    /// Sequences per iteration.
    pub max_seqs: u64,
    /// Tokens per block.
    pub block: u64,
}

/// Resolves the caps, with their defaults.
pub fn caps(i: &SimulateInputs) -> Result<Caps> {
    let max_seqs =
        crate::inputs::at_least_one("max-seqs", i.max_seqs.map_or(DEFAULT_MAX_SEQS, |c| c.0))?;
    let max_tokens = crate::inputs::at_least_one(
        "max-batched-tokens",
        i.max_batched_tokens
            .map_or(DEFAULT_WHOLE_PROMPT.saturating_add(max_seqs), |c| c.0),
    )?;
    let block =
        crate::inputs::at_least_one("block-size", i.block_size.map_or(DEFAULT_BLOCK, |c| c.0))?;
    for (f, v, most) in [
        ("max-seqs", max_seqs, 1u64 << 20),
        ("max-batched-tokens", max_tokens, 1u64 << 22),
        ("block-size", block, 1u64 << 20),
    ] {
        if v > most {
            return Err(Error::field(
                f,
                format!("must be at most {}", units::whole(most)),
            ));
        }
    }
    Ok(Caps {
        max_tokens,
        max_seqs,
        block,
    })
}

/// A model on a device in a layout, ready to price iterations.
pub struct Instance<'a> {
    /// Plan's setup (precisions, roof, fabric, memory).
    pub setup: plan::Setup<'a>,
    /// The layout.
    pub layout: Layout,
}

impl<'a> Instance<'a> {
    /// Resolves the setup and validates the layout.
    pub fn new(
        m: &'a Model,
        hw: &'a Hardware,
        mode: Mode,
        i: &SimulateInputs,
        layout: Layout,
    ) -> Result<Self> {
        // decode's and prefill's own choices of launch and activations.
        let pi = PlanInputs {
            dtype: i.dtype.clone(),
            kv_dtype: i.kv_dtype.clone(),
            activations: i.activations.clone(),
            launch: i.launch.clone(),
            reserve: i.reserve.clone(),
            engine: i.engine.clone(),
            redundant_experts: i.redundant_experts,
            ..Default::default()
        };
        let setup = plan::Setup::new(hw, m, &pi, mode)?;
        plan::validate(&setup, layout, None)?;
        Ok(Instance { setup, layout })
    }
}

/// The most replicas a run holds: each is simulated with its own cache
/// and queue, held in memory from the start (docs/cli.md, "Limits").
pub const MAX_REPLICAS: u64 = 1 << 16;

fn replicas(field: &str, dp: u64) -> Result<()> {
    if dp > MAX_REPLICAS {
        return Err(Error::field(
            field,
            format!(
                "at most {} replicas are simulated (each with its own cache and queue)",
                units::whole(MAX_REPLICAS)
            ),
        ));
    }
    Ok(())
}

/// The layout the inputs name (one replica: tp x pp devices; dp replicas).
pub fn layout(i: &SimulateInputs) -> Result<Layout> {
    let one = |f: &str, c: Option<Count>| crate::inputs::at_least_one(f, c.map_or(1, |c| c.0));
    let l = Layout {
        tp: one("tp", i.tp)?,
        pp: one("pp", i.pp)?,
        dp: one("dp", i.dp)?,
        ep: one("ep", i.ep)?,
    };
    crate::inputs::mul("dp", &[l.tp, l.pp, l.dp])?;
    replicas("dp", l.dp)?;
    Ok(l)
}

/// Everything a run found.
#[derive(Debug, Clone, PartialEq)]
pub struct SimCost {
    /// The hardware's id.
    pub hardware: String,
    /// The model's id.
    pub model: String,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// The engine that priced its steps.
    pub engine: String,
    /// The layout.
    pub layout: Layout,
    /// The caps.
    pub caps: Caps,
    /// The workload.
    pub workload: Workload,
    /// Weight, activation, KV precision and launch, as `decode` names them.
    pub precisions: [&'static str; 4],
    /// Tokens of KV cache one replica holds.
    pub kv_tokens: u64,
    /// The statistics.
    pub summary: Summary,
    /// Each request, when asked.
    pub outcomes: Option<Vec<Outcome>>,
    /// The state over time, when asked.
    pub timeline: Vec<[f64; 5]>,
    /// A disaggregated run's prefill pool and transfer (then `hardware`,
    /// `layout`, `caps` and `kv_tokens` are the decode pool's).
    pub pools: Option<PrefillPool>,
    /// Board power per device over the run and energy per output token,
    /// prefill included (formulas.md, "Power and energy").
    pub energy: crate::calc::power::Energy,
    /// What `--reserve step` held back, as a note (None for a share).
    pub reserve_note: Option<String>,
}

/// The prefill pool of a disaggregated run.
#[derive(Debug, Clone, PartialEq)]
pub struct PrefillPool {
    /// Its part.
    pub hardware: String,
    /// Its layout (dp: its replicas).
    pub layout: Layout,
    /// Its token budget per iteration.
    pub max_tokens: u64,
    /// KV room of one prefill replica, tokens.
    pub kv_tokens: u64,
    /// The move of a prompt's cache to the decode pool.
    pub transfer: pools::Transfer,
    /// The mean request's transfer, seconds.
    pub transfer_mean_s: f64,
    /// Share of the span the prefill replicas were busy.
    pub busy: f64,
}

/// KV room of one replica in tokens, or no answer when the weights leave
/// none.
pub fn kv_tokens(inst: &Instance, replica: &Replica) -> Result<u64> {
    let s = &inst.setup;
    if replica.kv_budget_bytes <= 0.0 {
        return Err(Error::NoAnswer(format!(
            "{} does not fit on {} in tp {} pp {}: its weights per device ({}) exceed the {} usable by {}; use more devices (tp, pp) or a narrower dtype",
            s.model.id,
            s.hw.id,
            inst.layout.tp,
            inst.layout.pp,
            si(replica.weight_bytes, "B"),
            si(replica.weight_bytes + replica.kv_budget_bytes, "B"),
            si(-replica.kv_budget_bytes, "B")
        )));
    }
    Ok((replica.kv_budget_bytes / replica.kv_bytes_per_token).min(1e15) as u64)
}

/// Checks every request fits the cache on its own (exit 1 otherwise) and
/// the model's context (unless forced).
pub fn check_fit(
    m: &Model,
    reqs: &[Request],
    kv_tokens: u64,
    block: u64,
    force: bool,
) -> Result<()> {
    let Some(big) = reqs.iter().max_by_key(|r| r.prompt + r.output) else {
        return Ok(());
    };
    // A sequence's cache never holds its last token.
    let tokens = big.prompt + big.output - 1;
    crate::calc::kv::check_context(m, big.prompt + big.output, force).map_err(|e| match e {
        Error::Field { message, .. } => Error::field("prompt", message),
        e => e,
    })?;
    let room = kv_tokens / block * block;
    if tokens > room {
        return Err(Error::NoAnswer(format!(
            "a request of {} prompt and {} output tokens needs {} tokens of KV cache, but one replica holds {}: {} tokens ({:.1}x) too many; use more devices per replica (tp, pp), a narrower kv-dtype, or shorter requests",
            units::whole(big.prompt),
            units::whole(big.output),
            units::whole(tokens),
            units::whole(room),
            units::whole(tokens - room),
            tokens as f64 / room.max(1) as f64
        )));
    }
    Ok(())
}

/// Runs the workload `w` on instance `inst` with caps `c`; the real step
/// cost. `keep` keeps outcomes and the timeline.
pub fn run(
    inst: &Instance,
    w: &Workload,
    c: Caps,
    keep: (bool, bool),
    force: bool,
) -> Result<SimCost> {
    let replica = Replica::new(&inst.setup, inst.layout)?;
    let kv = kv_tokens(inst, &replica)?;
    let m = inst.setup.model;
    let mut rng = Random::new(w.seed);
    let mut reqs = arrivals::requests(&w.arrivals, w.requests, &w.prompt, &w.output, &mut rng);
    reqs.truncate(w.requests as usize);
    check_fit(m, &reqs, kv, c.block, force)?;
    let mut fwd = cost::Forward::new(
        &replica,
        m,
        inst.setup.step.precisions,
        c.max_tokens,
        c.max_seqs,
    )?;
    let pm = crate::calc::power::PowerModel::of(inst.setup.hw, inst.setup.step.compute);
    let per_replica = inst.layout.tp.saturating_mul(inst.layout.pp) as f64;
    if let Ok(pm) = &pm {
        fwd.meter(pm.clone());
    }
    let cfg = Config {
        max_tokens: c.max_tokens,
        max_seqs: c.max_seqs,
        prefix_hit: w.prefix_hit,
        window: m.window(),
        replicas: inst.layout.dp,
        prefilled: false,
    };
    let (outcomes, totals) = simulate(cfg, &mut fwd, w, reqs, kv, c.block, keep.1)?;
    let devices = inst.layout.devices();
    let summary = Summary::of(&outcomes, &totals, cfg.replicas, devices, w);
    let energy = run_energy(pm, fwd.drawn(), &summary, per_replica, inst.setup.mode);
    let s = &inst.setup.step;
    Ok(SimCost {
        hardware: inst.setup.hw.id.clone(),
        model: m.id.clone(),
        mode: inst.setup.mode,
        engine: inst.setup.step.engine.id.clone(),
        layout: inst.layout,
        caps: c,
        workload: w.clone(),
        precisions: s.precision_names(),
        kv_tokens: kv,
        summary,
        outcomes: keep.0.then_some(outcomes),
        timeline: totals.timeline,
        pools: None,
        energy,
        reserve_note: plan::step_reserve_note(&inst.setup, inst.layout.tp),
    })
}

/// A run's energy: every iteration's draw on each replica's devices, and
/// idle power on every device for the rest of the span (waiting for
/// requests). Per output token, prefill included.
pub fn run_energy(
    pm: std::result::Result<crate::calc::power::PowerModel, String>,
    busy: crate::calc::power::Draw,
    summary: &Summary,
    per_replica: f64,
    mode: Mode,
) -> crate::calc::power::Energy {
    use crate::calc::power::{Draw, Energy, Per};
    let devices = summary.devices as f64;
    let span = summary.span_s;
    let tokens = summary.output_tokens_per_s * span;
    let draw = pm.map(|pm| {
        let busy_device_s = busy.limited_time_s * per_replica;
        let idle_device_s = (devices * span - busy_device_s).max(0.0);
        let total_j = busy.energy_j * per_replica + pm.idle_w * idle_device_s;
        let time = span.max(busy_device_s / devices);
        Draw {
            time_s: time,
            limited_time_s: time,
            energy_j: total_j / devices,
            power_w: total_j / devices / time,
            uncapped_w: busy.uncapped_w,
            idle_w: pm.idle_w,
            limit_w: pm.limit_w,
            flop_j: busy.flop_j * per_replica / devices,
            byte_j: busy.byte_j * per_replica / devices,
            strided_j: busy.strided_j * per_replica / devices,
            held: busy.held,
        }
    });
    Energy::new(draw, span, mode, devices, tokens, Per::Output)
}

/// Runs a simulation to the end with any step cost.
pub fn simulate<C: cost::StepCost>(
    cfg: Config,
    cost: C,
    w: &Workload,
    reqs: Vec<Request>,
    kv_tokens: u64,
    block: u64,
    timeline: bool,
) -> Result<(Vec<Outcome>, Totals)> {
    let mut sim = Simulation::new(cfg, cost, &w.arrivals, reqs, kv_tokens, block, w.seed);
    if timeline {
        sim.keep_timeline();
    }
    sim.step_until_no_events()?;
    Ok(sim.finish())
}

/// Runs a simulation until it ends or a target is sure to be missed
/// (then `None`).
#[allow(clippy::too_many_arguments)]
pub fn simulate_until_missed<C: cost::StepCost>(
    cfg: Config,
    cost: C,
    w: &Workload,
    reqs: Vec<Request>,
    kv_tokens: u64,
    block: u64,
    abort: scheduler::Abort,
) -> Result<Option<(Vec<Outcome>, Totals)>> {
    let mut sim = Simulation::new(cfg, cost, &w.arrivals, reqs, kv_tokens, block, w.seed);
    sim.abort_when(abort);
    sim.step_until_no_events()?;
    Ok((!sim.aborted()).then(|| sim.finish()))
}

/// `simulate`'s cost (a disaggregated run's prefill pool on `hw` too).
pub fn cost(m: &Model, hw: &Hardware, i: &SimulateInputs, mode: Mode) -> Result<SimCost> {
    cost_with(m, hw, hw, i, mode)
}

/// `simulate`'s cost, a disaggregated run's prefill pool on `prefill_hw`.
pub fn cost_with(
    m: &Model,
    hw: &Hardware,
    prefill_hw: &Hardware,
    i: &SimulateInputs,
    mode: Mode,
) -> Result<SimCost> {
    if i.disaggregated() {
        return run_pools(m, hw, prefill_hw, i, mode);
    }
    let w = workload(i)?;
    let c = caps(i)?;
    let mut inst = Instance::new(m, hw, mode, i, layout(i)?)?;
    // --reserve step: the largest iteration the caps allow.
    inst.setup
        .step_shape
        .get_or_insert((c.max_tokens, c.max_seqs));
    run(&inst, &w, c, (i.per_request, i.timeline), i.force)
}

/// A disaggregated run (formulas.md, "Simulation: disaggregated pools"):
/// the prefill pool on `ph` in the `prefill-` layout, the decode pool on
/// `hw` in `tp`/`pp`/`ep`/`dp`, coupled by the KV transfer.
fn run_pools(
    m: &Model,
    hw: &Hardware,
    ph: &Hardware,
    i: &SimulateInputs,
    mode: Mode,
) -> Result<SimCost> {
    let w = workload(i)?;
    if matches!(w.arrivals, Arrivals::Closed(_)) {
        return Err(Error::field(
            "concurrency",
            "a disaggregated run takes Poisson (rate) or trace arrivals; a closed loop would feed the prefill pool from the decode pool's finishes",
        ));
    }
    let c = caps(i)?;
    let one = |f: &str, x: Option<Count>| crate::inputs::at_least_one(f, x.map_or(1, |c| c.0));
    let lp = Layout {
        tp: one("prefill-tp", i.prefill_tp)?,
        pp: one("prefill-pp", i.prefill_pp)?,
        dp: one("prefill-dp", i.prefill_dp)?,
        ep: one("prefill-ep", i.prefill_ep)?,
    };
    crate::inputs::mul("prefill-dp", &[lp.tp, lp.pp, lp.dp])?;
    replicas("prefill-dp", lp.dp)?;
    let pre_tokens = crate::inputs::at_least_one(
        "prefill-max-batched-tokens",
        i.prefill_max_batched_tokens
            .map_or(DEFAULT_WHOLE_PROMPT, |c| c.0),
    )?;
    if pre_tokens > 1 << 22 {
        return Err(Error::field(
            "prefill-max-batched-tokens",
            format!("must be at most {}", units::whole(1u64 << 22)),
        ));
    }
    let mut dec = Instance::new(m, hw, mode, i, layout(i)?)?;
    let mut pre = Instance::new(m, ph, mode, i, lp)?;
    // --reserve step: a decode-only iteration of max-seqs sequences; a
    // prefill iteration of its token budget.
    dec.setup
        .step_shape
        .get_or_insert((c.max_seqs.min(c.max_tokens), c.max_seqs));
    pre.setup.step_shape.get_or_insert((pre_tokens, c.max_seqs));
    let (drep, prep) = (
        Replica::new(&dec.setup, dec.layout)?,
        Replica::new(&pre.setup, pre.layout)?,
    );
    let (dkv, pkv) = (kv_tokens(&dec, &drep)?, kv_tokens(&pre, &prep)?);
    let mut rng = Random::new(w.seed);
    let mut reqs = arrivals::requests(&w.arrivals, w.requests, &w.prompt, &w.output, &mut rng);
    reqs.truncate(w.requests as usize);
    check_fit(m, &pools::prefill_requests(&reqs), pkv, c.block, i.force)?;
    check_fit(m, &reqs, dkv, c.block, i.force)?;
    let transfer = pools::transfer(
        m,
        dec.setup.step.precisions.kv,
        (ph, lp),
        (hw, dec.layout),
        mode,
    )?;
    let window = m.window();
    let pcfg = Config {
        max_tokens: pre_tokens,
        max_seqs: c.max_seqs,
        prefix_hit: w.prefix_hit,
        window,
        replicas: lp.dp,
        prefilled: false,
    };
    let mut pfwd = cost::Forward::new(&prep, m, pre.setup.step.precisions, pre_tokens, c.max_seqs)?;
    let ppower = crate::calc::power::PowerModel::of(ph, pre.setup.step.compute);
    if let Ok(pm) = &ppower {
        pfwd.meter(pm.clone());
    }
    let (pout, ptot) = pools::run_prefill(pcfg, &mut pfwd, &reqs, pkv, c.block, w.seed)?;
    let dcfg = Config {
        max_tokens: c.max_tokens,
        max_seqs: c.max_seqs,
        prefix_hit: 0.0,
        window,
        replicas: dec.layout.dp,
        prefilled: true,
    };
    let mut dfwd = cost::Forward::new(
        &drep,
        m,
        dec.setup.step.precisions,
        c.max_tokens,
        c.max_seqs,
    )?;
    let dpower = crate::calc::power::PowerModel::of(hw, dec.setup.step.compute);
    if let Ok(pm) = &dpower {
        dfwd.meter(pm.clone());
    }
    let d = pools::run_decode(
        dcfg, &mut dfwd, &reqs, &pout, &transfer, dkv, c.block, w.seed, None, None, i.timeline,
    )?
    .expect("a run without an abort finishes");
    let devices = dec.layout.devices() + lp.devices();
    let mut summary = Summary::of(&d.outcomes, &d.totals, dec.layout.dp, devices, &w);
    let mean_prompt = reqs.iter().map(|r| r.prompt as f64).sum::<f64>() / reqs.len().max(1) as f64;
    let s = &dec.setup.step;
    summary.iterations += ptot.iterations;
    summary.preemptions = d.outcomes.iter().map(|o| u64::from(o.preemptions)).sum();
    let prefill_busy = ptot.busy_s / (summary.span_s * lp.dp as f64);
    // Each pool over the run's span and its output tokens, summed.
    let pool_energy = |pm, drawn, l: Layout| {
        let one = Summary {
            devices: l.devices(),
            ..summary.clone()
        };
        run_energy(pm, drawn, &one, (l.tp * l.pp) as f64, mode)
    };
    let energy = crate::calc::power::Energy::pooled(
        &[
            pool_energy(ppower, pfwd.drawn(), lp),
            pool_energy(dpower, dfwd.drawn(), dec.layout),
        ],
        summary.span_s,
    );
    Ok(SimCost {
        hardware: hw.id.clone(),
        model: m.id.clone(),
        mode,
        engine: dec.setup.step.engine.id.clone(),
        layout: dec.layout,
        caps: c,
        workload: w.clone(),
        precisions: s.precision_names(),
        kv_tokens: dkv,
        summary,
        outcomes: i.per_request.then_some(d.outcomes),
        timeline: d.totals.timeline,
        energy,
        reserve_note: plan::step_reserve_note(&dec.setup, dec.layout.tp),
        pools: Some(PrefillPool {
            hardware: ph.id.clone(),
            layout: lp,
            max_tokens: pre_tokens,
            kv_tokens: pkv,
            transfer_mean_s: transfer.latency_s
                + mean_prompt * transfer.bytes_per_token / transfer.bandwidth,
            transfer,
            busy: prefill_busy,
        }),
    })
}

//! `plan`: a parallel layout of a model on N devices (tensor, pipeline,
//! data and expert parallelism), what it costs in memory per device and in
//! communication per layer and per step, its prefill and decode times, and
//! a search over every valid layout (formulas.md, "Plans"; 000 §5.1-§5.3).
//!
//! Devices are numbered TP innermost, then DP, then PP: a TP group is
//! contiguous (inside one scale-up domain when TP fits in it), a pipeline
//! stage is the T x D devices of one slice, and the E devices of an expert
//! group are contiguous within a stage.

use super::collective::{self, CallMode, Fabric, Kind};
use super::decode;
use super::kv;
use super::model::{Params, kv_elements_per_token_per_layer, params};
use super::power;
use super::roof::Roof;
use super::simulate::slo::Target;
use super::step::{self, Shape};
use crate::error::{Error, Result};
use crate::inputs::{Count, Tokens, at_least_one};
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units::{self, si};
use serde::{Deserialize, Serialize};

/// `plan`'s inputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PlanInputs {
    /// Devices in all (must equal tp x pp x dp when those are given).
    pub devices: Option<Count>,
    /// Tensor-parallel degree (default 1).
    pub tp: Option<Count>,
    /// Pipeline stages (default 1).
    pub pp: Option<Count>,
    /// Data-parallel replicas (default: devices / (tp x pp)).
    pub dp: Option<Count>,
    /// Expert-parallel degree of the MoE layers (default 1).
    pub ep: Option<Count>,
    /// Redundant copies of hot experts spread over the expert group
    /// (default 0).
    pub redundant_experts: Option<Count>,
    /// Sequences in flight per data-parallel replica (default 1).
    pub batch: Option<Count>,
    /// Tokens of context each sequence holds at the decode step (default
    /// 4096).
    pub context: Option<Tokens>,
    /// Prompt tokens per sequence for prefill (default 1024).
    pub prompt: Option<Tokens>,
    /// Pipeline microbatches (default: pp).
    pub microbatches: Option<Count>,
    /// Weight precision (default: the hardware's default-dtype).
    pub dtype: Option<String>,
    /// KV-cache precision (default bf16, as `decode` and `kv` take it).
    pub kv_dtype: Option<String>,
    /// Activation precision (default: the hardware's default-dtype); the
    /// matmuls run at the peak of the wider of weights and activations, so
    /// fp8 weights need fp8 activations to run at the fp8 peak.
    #[serde(default)]
    pub activations: Option<String>,
    /// Launch overhead: `none` (the default at speed of light), `graph`
    /// (the default with --achievable; collectives captured too) or `eager`.
    #[serde(default)]
    pub launch: Option<String>,
    /// Share of device memory held back for the runtime, fragmentation
    /// and CUDA graphs: `10%` or `0.1` (default 10%).
    pub reserve: Option<serde_json::Value>,
    /// Let tensor parallelism cross the scale-up domain.
    pub allow_cross_node: Option<bool>,
    /// Enumerate every valid layout of `devices` and rank them.
    pub search: Option<bool>,
    /// What the search ranks by (default: throughput).
    pub objective: Option<Objective>,
    /// Time-to-first-token target for goodput.
    pub slo_ttft: Option<Target>,
    /// Time-per-output-token target for goodput.
    pub slo_tpot: Option<Target>,
    /// Lay out separate prefill and decode pools.
    pub disaggregate: Option<bool>,
    /// Devices of the prefill pool (with `disaggregate`).
    pub prefill_devices: Option<Count>,
    /// Devices of the decode pool (with `disaggregate`).
    pub decode_devices: Option<Count>,
}

/// What a search ranks by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    /// The shortest decode step.
    Latency,
    /// The most tokens per second per device.
    #[default]
    Throughput,
    /// The most tokens per second per device from layouts that meet the
    /// TTFT and TPOT targets.
    Goodput,
}

impl Objective {
    /// The name users type.
    pub fn as_str(self) -> &'static str {
        match self {
            Objective::Latency => "latency",
            Objective::Throughput => "throughput",
            Objective::Goodput => "goodput",
        }
    }
}

/// A parallel layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// Tensor parallelism.
    pub tp: u64,
    /// Pipeline stages.
    pub pp: u64,
    /// Data-parallel replicas.
    pub dp: u64,
    /// Expert parallelism.
    pub ep: u64,
}

impl Layout {
    /// tp x pp x dp; a product past 64 bits reads as `u64::MAX`, more
    /// devices than any count the inputs allow ([`crate::inputs::MAX_COUNT`]).
    pub fn devices(&self) -> u64 {
        self.tp.saturating_mul(self.pp).saturating_mul(self.dp)
    }
}

/// The workload a plan is costed at.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Workload {
    /// Sequences per data-parallel replica.
    pub batch: u64,
    /// Context tokens per sequence at the decode step.
    pub context: u64,
    /// Prompt tokens per sequence.
    pub prompt: u64,
    /// Pipeline microbatches (`None`: the number of stages).
    pub microbatches: Option<u64>,
}

/// Everything about a model on a device that does not depend on the
/// layout, resolved once for a search.
pub struct Setup<'a> {
    /// The hardware.
    pub hw: &'a Hardware,
    /// The model.
    pub model: &'a Model,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// The fabric tiers.
    pub fabric: Fabric,
    /// Compute peak and memory bandwidth.
    pub roof: Roof,
    /// Precisions, roof and launch overhead of a forward pass, as
    /// `decode` and `prefill` resolve them.
    pub step: decode::Setup,
    /// Device memory, bytes (measured usable memory where the file has
    /// it, else the datasheet capacity).
    pub capacity: f64,
    /// Whether `capacity` is the measured usable figure.
    pub capacity_source: kv::MemorySource,
    /// Share held back.
    pub reserve: f64,
    /// Redundant experts.
    pub redundant: u64,
    /// Whether TP may cross the scale-up domain.
    pub allow_cross_node: bool,
    params: Params,
}

impl<'a> Setup<'a> {
    /// Resolves the model's parameter groups and the device's figures.
    pub fn new(
        hw: &'a Hardware,
        model: &'a Model,
        inputs: &PlanInputs,
        mode: Mode,
    ) -> Result<Self> {
        let step = decode::setup(
            model,
            hw,
            mode,
            decode::Choices {
                dtype: inputs.dtype.as_deref(),
                kv_dtype: inputs.kv_dtype.as_deref(),
                activations: inputs.activations.as_deref(),
                // decode's defaults: none at speed of light, graph with
                // --achievable
                launch: inputs.launch.as_deref(),
                ..Default::default()
            },
        )?;
        let call = match step.launch {
            decode::LaunchMode::Eager => CallMode::Eager,
            decode::LaunchMode::Graph => CallMode::Graph,
            decode::LaunchMode::None => CallMode::None,
        };
        let (capacity, capacity_source) = kv::device_memory(hw)?;
        let reserve = match &inputs.reserve {
            None => kv::DEFAULT_RESERVE,
            Some(v) => kv::parse_share("reserve", v)?,
        };
        let redundant = inputs.redundant_experts.map_or(0, |c| c.0);
        if redundant > 0 && model.moe.is_none() {
            return Err(Error::field(
                "redundant-experts",
                format!(
                    "{} is dense: it has no experts to copy; leave it out",
                    model.id
                ),
            ));
        }
        Ok(Setup {
            hw,
            model,
            mode,
            fabric: Fabric::called(hw, mode, call),
            roof: step.roof,
            step,
            capacity,
            capacity_source,
            reserve,
            redundant,
            allow_cross_node: inputs.allow_cross_node.unwrap_or(false),
            params: params(model)?,
        })
    }

    fn moe_layers(&self) -> u64 {
        self.model
            .moe
            .as_ref()
            .map_or(0, |m| self.model.layers.get() - m.dense_layers)
    }

    fn dense_layers(&self) -> u64 {
        self.model.layers.get() - self.moe_layers()
    }

    /// Routed experts plus redundant copies.
    pub fn expert_slots(&self) -> u64 {
        self.model
            .moe
            .as_ref()
            .map_or(0, |m| m.routed_experts.get() + self.redundant)
    }
}

/// Greatest common divisor.
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Divisors of `n`, ascending.
pub fn divisors(n: u64) -> Vec<u64> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d <= n / d {
        if n.is_multiple_of(d) {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    large.reverse();
    small.extend(large);
    small
}

fn list(v: &[u64]) -> String {
    let shown: Vec<String> = v.iter().take(12).map(u64::to_string).collect();
    if v.len() > 12 {
        format!("{}, ...", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Checks a layout against the model and the fabric; the error names the
/// constraint that failed and suggests values that pass.
pub fn validate(s: &Setup, l: Layout, devices: Option<u64>) -> Result<()> {
    let m = s.model;
    for (f, v) in [("tp", l.tp), ("pp", l.pp), ("dp", l.dp), ("ep", l.ep)] {
        at_least_one(f, v)?;
    }
    let heads = m.attention.heads.get();
    let kv = m.kv_heads();
    if !heads.is_multiple_of(l.tp) && !kv.is_multiple_of(l.tp) {
        let mut ok: Vec<u64> = divisors(heads);
        ok.retain(|t| s.allow_cross_node || s.fabric.domain().is_none_or(|d| *t <= d));
        return Err(Error::field(
            "tp",
            format!(
                "tp {} divides neither the {} KV heads nor the {} heads of {}; valid: {}",
                units::whole(l.tp),
                units::whole(kv),
                units::whole(heads),
                m.id,
                list(&ok)
            ),
        ));
    }
    if let Some(d) = s.fabric.domain()
        && l.tp > d
        && !s.allow_cross_node
    {
        let ok: Vec<u64> = divisors(heads).into_iter().filter(|t| *t <= d).collect();
        return Err(Error::field(
            "tp",
            format!(
                "tp {} exceeds {}'s scale-up domain of {} devices, so every all-reduce would cross the network; give tp of at most {} ({}) or allow it with --allow-cross-node",
                units::whole(l.tp),
                s.hw.id,
                units::whole(d),
                units::whole(d),
                list(&ok)
            ),
        ));
    }
    if let Some(d) = s.fabric.domain()
        && l.tp > d
        && !l.tp.is_multiple_of(d)
    {
        return Err(Error::field(
            "tp",
            format!(
                "tp {} across domains of {} must be a multiple of {}",
                units::whole(l.tp),
                units::whole(d),
                units::whole(d)
            ),
        ));
    }
    if let Some(n) = devices
        && l.devices() != n
    {
        let tp_pp = l.tp.saturating_mul(l.pp);
        let hint = if n.is_multiple_of(tp_pp) {
            format!(
                "for tp {} and pp {} give dp {}",
                units::whole(l.tp),
                units::whole(l.pp),
                units::whole(n / tp_pp)
            )
        } else {
            let ok: Vec<u64> = divisors(gcd(n, m.attention.heads.get()))
                .into_iter()
                .filter(|t| {
                    validate(
                        s,
                        Layout {
                            tp: *t,
                            pp: 1,
                            dp: n / t,
                            ep: 1,
                        },
                        None,
                    )
                    .is_ok()
                })
                .collect();
            format!(
                "tp x pp = {} does not divide {}; tp that divide both the devices and the heads: {}",
                units::whole(tp_pp),
                units::whole(n),
                list(&ok)
            )
        };
        return Err(Error::field(
            "dp",
            format!(
                "tp x pp x dp = {} x {} x {} = {}, not the {} devices; {hint}",
                units::whole(l.tp),
                units::whole(l.pp),
                units::whole(l.dp),
                units::whole(l.devices()),
                units::whole(n)
            ),
        ));
    }
    let layers = m.layers.get();
    if !layers.is_multiple_of(l.pp) {
        return Err(Error::field(
            "pp",
            format!(
                "pp {} does not divide the {} layers of {}; valid: {}",
                units::whole(l.pp),
                units::whole(layers),
                m.id,
                list(&divisors(layers))
            ),
        ));
    }
    match &m.moe {
        None if l.ep > 1 => {
            return Err(Error::field(
                "ep",
                format!(
                    "ep {}: {} is dense and has no experts to spread; give ep 1",
                    units::whole(l.ep),
                    m.id
                ),
            ));
        }
        None => {}
        Some(_) => {
            let slots = s.expert_slots();
            let td = l.tp * l.dp;
            let ok: Vec<u64> = divisors(td)
                .into_iter()
                .filter(|e| slots.is_multiple_of(*e))
                .collect();
            if !td.is_multiple_of(l.ep) {
                return Err(Error::field(
                    "ep",
                    format!(
                        "ep {} does not divide tp x dp = {}, the devices of a pipeline stage; valid: {}",
                        units::whole(l.ep),
                        units::whole(td),
                        list(&ok)
                    ),
                ));
            }
            if !slots.is_multiple_of(l.ep) {
                let routed = slots - s.redundant;
                let first = (l.ep - routed % l.ep) % l.ep;
                let redundant: Vec<u64> = (0..3).map(|i| first + i * l.ep).collect();
                return Err(Error::field(
                    "ep",
                    format!(
                        "ep {} does not divide the {} experts ({} routed + {} redundant); valid: {}; or, for ep {}, redundant-experts {}, ...",
                        units::whole(l.ep),
                        units::whole(slots),
                        units::whole(routed),
                        units::whole(s.redundant),
                        list(&ok),
                        units::whole(l.ep),
                        list(&redundant)
                    ),
                ));
            }
            if let Some(d) = s.fabric.domain()
                && l.ep > d
                && !l.ep.is_multiple_of(d)
            {
                let ok: Vec<u64> = ok.into_iter().filter(|e| *e <= d || e % d == 0).collect();
                return Err(Error::field(
                    "ep",
                    format!(
                        "an expert group of {} fills scale-up domains of {} unevenly; valid: {}",
                        units::whole(l.ep),
                        units::whole(d),
                        list(&ok)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The busiest pipeline stage for one kind of pass: the stage whose
/// compute plus communication is longest sets every slot of the pipeline.
#[derive(Debug, Clone, Copy, Default)]
struct Busiest {
    /// Compute plus communication of that stage, seconds.
    slot: f64,
    /// Its communication, seconds.
    comm: f64,
    /// Its compute-or-memory time, seconds.
    compute: f64,
}

impl Busiest {
    /// Keeps the stage if it is busier than the busiest so far.
    fn offer(&mut self, compute: f64, comm: f64) {
        if compute + comm > self.slot {
            *self = Busiest {
                slot: compute + comm,
                comm,
                compute,
            };
        }
    }
}

/// The communication of one pass (a decode step's microbatch or a prefill
/// microbatch) through one stage.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Comm {
    /// Each TP all-reduce's input per rank, bytes.
    pub tp_allreduce_bytes: f64,
    /// One TP all-reduce, seconds.
    pub tp_allreduce_s: f64,
    /// TP all-reduces per dense layer (after attention and after the MLP).
    pub allreduces_per_dense_layer: u64,
    /// TP all-reduces per MoE layer.
    pub allreduces_per_moe_layer: u64,
    /// Each EP all-to-all's input per rank (dispatch; combine is the same
    /// size), bytes.
    pub ep_alltoall_bytes: f64,
    /// One EP all-to-all, seconds.
    pub ep_alltoall_s: f64,
    /// Activations sent across one stage boundary, bytes.
    pub pp_send_bytes: f64,
    /// One stage-to-stage send, seconds.
    pub pp_send_s: f64,
    /// Communication of one dense layer, seconds.
    pub dense_layer_s: f64,
    /// Communication of one MoE layer, seconds.
    pub moe_layer_s: f64,
    /// Communication of one stage, seconds (its layers and its send).
    pub stage_s: f64,
}

/// A layout's costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanCost {
    /// The hardware's id.
    pub hardware: String,
    /// The model's id.
    pub model: String,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// Weight precision.
    pub dtype: &'static str,
    /// KV precision.
    pub kv_dtype: &'static str,
    /// The layout.
    pub layout: Layout,
    /// Redundant experts.
    pub redundant_experts: u64,
    /// The workload.
    pub work: Workload,
    /// Microbatches used.
    pub microbatches: u64,
    /// Layers per stage.
    pub layers_per_stage: u64,
    /// Experts each device holds per MoE layer.
    pub experts_per_device: f64,
    /// Weights on the heaviest stage's devices, bytes.
    pub weight_bytes: f64,
    /// KV cache per device, bytes.
    pub kv_bytes: f64,
    /// Share of the KV a device holds (1/tp, or more where tp exceeds the
    /// KV heads or the latent is shared by all heads).
    pub kv_share: f64,
    /// Live activations per device, bytes.
    pub activation_bytes: f64,
    /// weights + KV + activations.
    pub memory_bytes_per_device: f64,
    /// Device memory.
    pub capacity_bytes: f64,
    /// Held back for the runtime.
    pub reserve_bytes: f64,
    /// capacity - reserve.
    pub usable_bytes: f64,
    /// Whether it fits.
    pub fits: bool,
    /// Why not, when it does not.
    pub why_not: Option<String>,
    /// Decode communication.
    pub decode_comm: Comm,
    /// Prefill communication.
    pub prefill_comm: Comm,
    /// Communication in one decode step, seconds.
    pub comm_time_s: f64,
    /// Communication in one prefill, seconds.
    pub prefill_comm_time_s: f64,
    /// Compute-or-memory time of one stage pass at decode, seconds.
    pub decode_stage_compute_s: f64,
    /// Compute-or-memory time of one stage pass at prefill, seconds.
    pub prefill_stage_compute_s: f64,
    /// Parameters on a device of the heaviest stage.
    pub weight_params: f64,
    /// KV bytes per token per layer (whole, before the TP share).
    pub kv_bytes_per_token_layer: f64,
    /// Tokens of one decode pass (sequences per microbatch).
    pub decode_tokens: f64,
    /// Tokens of one prefill pass.
    pub prefill_tokens: f64,
    /// The model's hidden size.
    pub hidden: u64,
    /// One decode step, seconds.
    pub decode_step_time_s: f64,
    /// Time to first token for the batch's prompts, seconds.
    pub prefill_time_s: f64,
    /// (P-1)/(M+P-1).
    pub bubble_fraction: f64,
    /// Tokens per second of the whole deployment at decode.
    pub tokens_per_s: f64,
    /// Tokens per second per device.
    pub tokens_per_s_per_device: f64,
    /// Board power per device and energy per output token of a decode
    /// step (formulas.md, "Power and energy": a replica's work spread
    /// evenly over its devices, each idle for the whole step).
    pub energy: power::Energy,
    /// The same for the prefill of the batch's prompts, per prompt token.
    pub prefill_energy: power::Energy,
}

const ACT_BYTES: f64 = 2.0;

/// The results a plan's table shows by default.
const HEADLINE: &[&str] = &[
    "plans_considered",
    "tp",
    "pp",
    "ep",
    "dp",
    "memory_bytes_per_device",
    "usable_bytes",
    "fits",
    "comm_time_s",
    "prefill_time_s",
    "decode_step_time_s",
    "bubble_fraction",
    "tokens_per_s_per_device",
    "power_w",
    "energy_per_token_j",
    "prefill_energy_per_token_j",
    "cost_per_million_output_tokens",
    "cost_per_million_input_tokens",
]; // activations travel and live in bf16

/// Time of a collective of `bytes` per rank over `n` devices, 0 for one.
fn coll(s: &Setup, kind: Kind, n: u64, bytes: f64) -> Result<f64> {
    if n <= 1 || bytes <= 0.0 {
        return Ok(0.0);
    }
    Ok(collective::time(&s.fabric, kind, n, bytes, None)?.time_s)
}

fn comm(s: &Setup, l: Layout, tokens: f64) -> Result<Comm> {
    let d = s.model.hidden_size.get() as f64;
    let mut c = Comm {
        tp_allreduce_bytes: tokens * d * ACT_BYTES,
        ..Default::default()
    };
    c.tp_allreduce_s = coll(s, Kind::AllReduce, l.tp, c.tp_allreduce_bytes)?;
    let tp_on = u64::from(l.tp > 1);
    c.allreduces_per_dense_layer = 2 * tp_on;
    if let Some(moe) = &s.model.moe {
        let k = moe.experts_per_token.get() as f64;
        if l.ep > 1 {
            c.allreduces_per_moe_layer = tp_on;
            // Each TP rank dispatches its 1/tp share of the replica's tokens,
            // each to k experts.
            c.ep_alltoall_bytes = tokens / l.tp as f64 * k * d * ACT_BYTES;
            c.ep_alltoall_s = coll(s, Kind::AllToAll, l.ep, c.ep_alltoall_bytes)?;
        } else {
            c.allreduces_per_moe_layer = 2 * tp_on;
        }
    }
    c.dense_layer_s = c.allreduces_per_dense_layer as f64 * c.tp_allreduce_s;
    c.moe_layer_s = c.allreduces_per_moe_layer as f64 * c.tp_allreduce_s + 2.0 * c.ep_alltoall_s;
    if l.pp > 1 {
        c.pp_send_bytes = tokens * d * ACT_BYTES;
        let across = s.fabric.domain().is_some_and(|dom| l.tp * l.dp >= dom);
        let n = if across {
            2 * s.fabric.domain().unwrap_or(1)
        } else {
            2
        };
        c.pp_send_s = collective::time(&s.fabric, Kind::SendRecv, n, c.pp_send_bytes, None)?.time_s;
    }
    Ok(c)
}

/// Parameters of one layer's groups.
struct PerLayer {
    attention: f64,
    dense_ffn: f64,
    expert: f64,
    shared: f64,
    norms: f64,
}

fn per_layer(s: &Setup) -> PerLayer {
    let p = &s.params;
    let layers = s.model.layers.get() as f64;
    let moe_layers = s.moe_layers() as f64;
    let dense = s.dense_layers() as f64;
    let routed = s
        .model
        .moe
        .as_ref()
        .map_or(1.0, |m| m.routed_experts.get() as f64);
    PerLayer {
        attention: p.attention as f64 / layers,
        dense_ffn: if dense > 0.0 {
            p.dense_ffn as f64 / dense
        } else {
            0.0
        },
        expert: if moe_layers > 0.0 {
            p.routed_experts as f64 / moe_layers / routed
        } else {
            0.0
        },
        shared: if moe_layers > 0.0 {
            p.shared_experts as f64 / moe_layers
        } else {
            0.0
        },
        norms: p.norms as f64 / layers,
    }
}

/// What some of a forward's ops add to one pipeline stage's time on one
/// device ([`Replica::add_part`]): sums that add over ops.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StagePart {
    /// FLOPs on the roofline (speed of light).
    pub flops: f64,
    /// Bytes on the roofline.
    pub bytes: f64,
    /// Launch overhead, seconds.
    pub launch_s: f64,
    /// The per-operation model's sums (`--achievable`).
    pub priced: step::price::Part,
}

impl std::ops::AddAssign for StagePart {
    fn add_assign(&mut self, o: StagePart) {
        self.flops += o.flops;
        self.bytes += o.bytes;
        self.launch_s += o.launch_s;
        self.priced += o.priced;
    }
}

/// Shards a replica's forward pass (serving's typed per-op costs) onto one
/// device of one stage (formulas.md, "Plans", time).
struct Shard<'a, 'b> {
    s: &'a Setup<'b>,
    l: Layout,
    kv_share: f64,
    experts_per_device: f64,
    /// One routed expert's weights, bytes.
    expert_bytes: f64,
}

impl Shard<'_, '_> {
    /// What the ops of `st` (a pass of `tokens` tokens, or some of its
    /// ops) add to one stage's time: its FLOPs, bytes and launch overhead
    /// on the roofline, or under `--achievable` each op priced on its own.
    /// Parts add; [`Shard::time_of`] of a stage's sum is its time.
    fn part(
        &self,
        st: &step::Step,
        tokens: f64,
        n_dense: f64,
        n_moe: f64,
        first: bool,
        last: bool,
    ) -> StagePart {
        let s = self.s;
        if let Some(p) = &s.step.pricer {
            return StagePart {
                priced: p.part(&self.sharded(st, n_dense, n_moe, first, last)),
                ..StagePart::default()
            };
        }
        let m = s.model;
        let t = self.l.tp as f64;
        let layers = m.layers.get() as f64;
        let of = |n: f64, total: u64| if total == 0 { 0.0 } else { n / total as f64 };
        let f_layers = (n_dense + n_moe) / layers;
        let f_dense = of(n_dense, s.dense_layers());
        let f_moe = of(n_moe, s.moe_layers());
        let (mut flops, mut bytes) = (0.0, 0.0);
        for op in &st.ops {
            // (share of FLOPs and weight/activation bytes, share of KV bytes)
            let (share, kv) = match op.name {
                "embedding" => (if first { 1.0 / t } else { 0.0 }, 0.0),
                "attention" => (f_layers / t, f_layers * self.kv_share),
                "ffn" => (f_dense / t, 0.0),
                "router" => (f_moe, 0.0),
                "shared-experts" => (f_moe / t, 0.0),
                "norms" => (f_layers, 0.0),
                "lm-head" => (if last { 1.0 / t } else { 0.0 }, 0.0),
                "routed-experts" => {
                    // A device does k/tp of its replica's tokens' expert work
                    // and reads the experts it holds that any token of its
                    // expert group routes to.
                    flops += op.flops * f_moe / t;
                    bytes += op.activation_bytes * f_moe / t;
                    if let Some(moe) = &m.moe {
                        let e = moe.routed_experts.get();
                        let group = tokens * (self.l.ep.max(self.l.tp) as f64 / t);
                        let hit = step::experts_touched(
                            e,
                            moe.experts_per_token.get(),
                            group.ceil() as u64,
                        ) / e as f64;
                        bytes += n_moe * self.experts_per_device * self.expert_bytes * hit;
                    }
                    continue;
                }
                // Attention projections and anything else per layer: split
                // by tp.
                _ => (f_layers / t, 0.0),
            };
            flops += op.flops * share;
            bytes += (op.weight_bytes + op.activation_bytes) * share
                + (op.kv_read_bytes + op.kv_write_bytes) * kv;
        }
        StagePart {
            flops,
            bytes,
            launch_s: st.kernels * f_layers * s.step.per_kernel_s,
            ..StagePart::default()
        }
    }

    /// A stage's time from the sum of its parts: the roofline time plus
    /// launch overhead, or the per-operation model's time.
    fn time_of(&self, part: &StagePart) -> f64 {
        match &self.s.step.pricer {
            Some(p) => p.time_of(&part.priced),
            None => self.s.roof.time(part.flops, part.bytes).time_s + part.launch_s,
        }
    }

    /// The roofline time plus launch overhead of one stage's share of the
    /// pass `st` of `tokens` tokens.
    fn time(
        &self,
        st: &step::Step,
        tokens: f64,
        n_dense: f64,
        n_moe: f64,
        first: bool,
        last: bool,
    ) -> f64 {
        self.time_of(&self.part(st, tokens, n_dense, n_moe, first, last))
    }

    /// One device's share of `st` as a step of its own, for the
    /// per-operation model: each op's repetitions cut to this stage's
    /// layers, its work and bytes to this rank's share, and its GEMMs split
    /// as tensor parallelism splits them (column-parallel QKV, gate/up and
    /// LM head divide N; row-parallel output and down projections divide
    /// K).
    fn sharded(
        &self,
        st: &step::Step,
        n_dense: f64,
        n_moe: f64,
        first: bool,
        last: bool,
    ) -> step::Step {
        let s = self.s;
        let m = s.model;
        let tp = self.l.tp;
        let t = tp as f64;
        let layers = m.layers.get() as f64;
        let of = |n: f64, total: u64| if total == 0 { 0.0 } else { n / total as f64 };
        let f_layers = (n_dense + n_moe) / layers;
        let f_dense = of(n_dense, s.dense_layers());
        let f_moe = of(n_moe, s.moe_layers());
        let split = |g: &mut Option<step::Gemm>, by_n: bool| {
            if let Some(g) = g {
                if by_n {
                    g.n = g.n.div_ceil(tp).max(1);
                } else {
                    g.k = g.k.div_ceil(tp).max(1);
                }
            }
        };
        let mut out = st.clone();
        out.heads = st.heads / t;
        for op in out.ops.iter_mut().chain(out.extra.iter_mut()) {
            // (share of repetitions, share of work per repetition, share of
            // KV bytes per repetition)
            let (reps, work, kv) = match op.name {
                "embedding" => (if first { 1.0 } else { 0.0 }, 1.0 / t, 0.0),
                "lm-head" | "final-norm" => (if last { 1.0 } else { 0.0 }, 1.0 / t, 0.0),
                "attention" => (f_layers, 1.0 / t, self.kv_share),
                "ffn" | "activation" | "casts" => (f_dense, 1.0 / t, 0.0),
                "router" => (f_moe, 1.0, 0.0),
                "shared-experts" | "routed-experts" | "expert-activation" => (f_moe, 1.0 / t, 0.0),
                "norms" | "layer-norms" => (f_layers, 1.0, 0.0),
                _ => (f_layers, 1.0 / t, 0.0),
            };
            let whole = reps * work;
            op.flops *= whole;
            op.weight_bytes *= whole;
            op.activation_bytes *= whole;
            op.kv_read_bytes *= reps * kv;
            op.kv_write_bytes *= reps * kv;
            op.count *= reps;
            if tp > 1 && work < 1.0 {
                match op.name {
                    "o" => split(&mut op.gemms[0], false),
                    "ffn" | "shared-experts" | "routed-experts" => {
                        split(&mut op.gemms[0], true);
                        split(&mut op.gemms[1], false);
                    }
                    _ => split(&mut op.gemms[0], true),
                }
            }
        }
        out
    }
}

/// The costs of layout `l` at workload `w`.
pub fn evaluate(s: &Setup, l: Layout, w: Workload) -> Result<PlanCost> {
    let m = s.model;
    let t = l.tp as f64;
    let layers = m.layers.get();
    let per_stage = layers / l.pp;
    let pl = per_layer(s);
    let bytes = s.step.precisions.weight;
    let microbatches = w.microbatches.unwrap_or(l.pp).max(1);
    let mf = microbatches as f64;
    let (k, routed) = m.moe.as_ref().map_or((0.0, 1.0), |moe| {
        (
            moe.experts_per_token.get() as f64,
            moe.routed_experts.get() as f64,
        )
    });
    let experts_per_device = if m.moe.is_none() {
        0.0
    } else if l.ep > 1 {
        s.expert_slots() as f64 / l.ep as f64
    } else {
        routed / t
    };
    let first_moe = m.moe.as_ref().map_or(layers, |moe| moe.dense_layers);
    // Weights of each stage's devices; the heaviest decides.
    let mut weight_bytes: f64 = 0.0;
    let mut weight_params: f64 = 0.0;
    let mut stage_params = Vec::with_capacity(l.pp as usize);
    for st in 0..l.pp {
        let (a, b) = (st * per_stage, (st + 1) * per_stage);
        let n_moe = b.saturating_sub(a.max(first_moe)) as f64;
        let n_dense = per_stage as f64 - n_moe;
        let mut p = (pl.attention / t + pl.norms) * per_stage as f64
            + n_dense * pl.dense_ffn / t
            + n_moe * (pl.expert * experts_per_device + pl.shared / t);
        if st == 0 {
            p += s.params.embedding as f64 / t;
        }
        if st == l.pp - 1 {
            p += s.params.lm_head as f64 / t;
        }
        stage_params.push((n_dense, n_moe));
        if p * bytes > weight_bytes {
            weight_bytes = p * bytes;
            weight_params = p;
        }
    }
    // KV: the tokens of this replica's sequences, this stage's layers, the
    // heads this rank holds.
    let kv_heads = m.kv_heads();
    let kv_share = if m.attention.kind == crate::spec::model::AttentionKind::Mla {
        1.0
    } else {
        kv_heads.div_ceil(l.tp) as f64 / kv_heads as f64
    };
    let kv_per_token_layer = kv_elements_per_token_per_layer(m)? as f64 * s.step.precisions.kv;
    let context = w.context as f64;
    let kv_bytes = w.batch as f64 * context * kv_per_token_layer * per_stage as f64 * kv_share;
    // Live activations of one layer for the largest pass (a prefill
    // microbatch): residual, normed copy, attention output and the MLP's
    // gate and up projections on this rank.
    let d = m.hidden_size.get() as f64;
    let ffn_width = m
        .moe
        .as_ref()
        .map_or(m.ffn.intermediate_size.get() as f64, |moe| {
            (moe.expert_intermediate_size.get() as f64 * k)
                .max(m.ffn.intermediate_size.get() as f64)
        });
    // In f64: a batch and a prompt of up to 2^53 each overflow a u64
    // product.
    let prefill_tokens = w.batch.div_ceil(microbatches) as f64 * w.prompt as f64;
    let live_tokens = prefill_tokens.max(w.batch as f64 / mf);
    let activation_bytes = live_tokens * (4.0 * d + 2.0 * ffn_width / t) * ACT_BYTES;
    let memory = weight_bytes + kv_bytes + activation_bytes;
    let reserve_bytes = s.capacity * s.reserve;
    let usable = s.capacity - reserve_bytes;
    let fits = memory <= usable;
    let why_not = (!fits).then(|| {
        format!(
            "needs {} per device (weights {}, KV {}, activations {}) but {} has {} usable ({} less a {}% reserve)",
            si(memory, "B"),
            si(weight_bytes, "B"),
            si(kv_bytes, "B"),
            si(activation_bytes, "B"),
            s.hw.id,
            si(usable, "B"),
            si(s.capacity, "B"),
            units::percent(s.reserve)
        )
    });
    // Communication of one pass per stage.
    let decode_tokens = w.batch.div_ceil(microbatches) as f64;
    let decode_comm = comm(s, l, decode_tokens)?;
    let prefill_comm = comm(s, l, prefill_tokens)?;
    let stage_comm = |c: &Comm, n_dense: f64, n_moe: f64| {
        n_dense * c.dense_layer_s + n_moe * c.moe_layer_s + c.pp_send_s
    };
    // Compute and memory of one pass through each stage: serving's typed
    // forward pass of one replica's microbatch, sharded per device.
    let mb = w.batch.div_ceil(microbatches);
    let forward = |new: u64, past: u64| {
        step::forward(
            m,
            Shape {
                batch: mb,
                new,
                past,
                lm_head_tokens: 1,
            },
            &s.step.precisions,
        )
    };
    let decode_step_ops = forward(1, w.context)?;
    let prefill_step_ops = forward(w.prompt, 0)?;
    let shard = Shard {
        s,
        l,
        kv_share,
        experts_per_device,
        expert_bytes: pl.expert * bytes,
    };
    let pass = |st: &step::Step, tokens: f64, n_dense: f64, n_moe: f64, first: bool, last: bool| {
        shard.time(st, tokens, n_dense, n_moe, first, last)
    };
    let slots = microbatches as f64 + l.pp as f64 - 1.0;
    let (mut dec, mut pre) = (Busiest::default(), Busiest::default());
    for (st, &(n_dense, n_moe)) in stage_params.iter().enumerate() {
        let first = st == 0;
        let last = st as u64 == l.pp - 1;
        dec.offer(
            pass(&decode_step_ops, mb as f64, n_dense, n_moe, first, last),
            stage_comm(&decode_comm, n_dense, n_moe),
        );
        pre.offer(
            pass(
                &prefill_step_ops,
                (mb * w.prompt) as f64,
                n_dense,
                n_moe,
                first,
                last,
            ),
            stage_comm(&prefill_comm, n_dense, n_moe),
        );
    }
    let decode_step = slots * dec.slot;
    let prefill = slots * pre.slot;
    let tokens_per_s = w.batch as f64 * l.dp as f64 / decode_step;
    // One replica's devices share its work; every microbatch runs the
    // forward once.
    let replica = (l.tp.saturating_mul(l.pp)) as f64;
    let passes = microbatches as f64;
    let pm = power::PowerModel::of(s.hw, s.step.compute);
    let spread = |t: f64, st: &step::Step| {
        pm.clone().map(|pm| {
            pm.draw(
                t,
                passes * st.flops() / replica,
                passes * st.bytes() / replica,
            )
        })
    };
    let energy = power::Energy::new(
        spread(decode_step, &decode_step_ops),
        decode_step,
        s.mode,
        replica,
        w.batch as f64,
        power::Per::Output,
    );
    let prefill_energy = power::Energy::new(
        spread(prefill, &prefill_step_ops),
        prefill,
        s.mode,
        replica,
        (w.batch as f64) * (w.prompt as f64),
        power::Per::Prompt,
    );
    Ok(PlanCost {
        hardware: s.hw.id.clone(),
        model: m.id.clone(),
        mode: s.mode,
        dtype: s.step.weights,
        kv_dtype: s.step.kv.name,
        layout: l,
        redundant_experts: s.redundant,
        work: w,
        microbatches,
        layers_per_stage: per_stage,
        experts_per_device,
        weight_bytes,
        kv_bytes,
        kv_share,
        activation_bytes,
        memory_bytes_per_device: memory,
        capacity_bytes: s.capacity,
        reserve_bytes,
        usable_bytes: usable,
        fits,
        why_not,
        decode_comm,
        prefill_comm,
        comm_time_s: slots * dec.comm,
        prefill_comm_time_s: slots * pre.comm,
        decode_stage_compute_s: dec.compute,
        prefill_stage_compute_s: pre.compute,
        weight_params,
        kv_bytes_per_token_layer: kv_per_token_layer,
        decode_tokens,
        prefill_tokens,
        hidden: m.hidden_size.get(),
        decode_step_time_s: decode_step,
        prefill_time_s: prefill,
        bubble_fraction: (l.pp - 1) as f64 / slots,
        tokens_per_s,
        tokens_per_s_per_device: tokens_per_s / l.devices() as f64,
        energy,
        prefill_energy,
    })
}

/// One data-parallel replica of a layout, resolved once so that forward
/// passes of any shape can be priced on it: the simulator's step cost
/// (`simulate`, `fleet`). A pass runs through the stages one after
/// another (one batch in flight: no microbatching), each stage's share
/// priced as [`evaluate`] prices it, plus its communication.
pub struct Replica<'a, 'b> {
    shard: Shard<'a, 'b>,
    /// (dense layers, MoE layers) of each stage.
    stages: Vec<(f64, f64)>,
    /// The layout.
    pub layout: Layout,
    /// Weights on a device of the heaviest stage, bytes.
    pub weight_bytes: f64,
    /// KV bytes one token takes on a device (its stage's layers, its
    /// share of the heads).
    pub kv_bytes_per_token: f64,
    /// Bytes a device holds for the KV cache: usable memory less the
    /// weights of the heaviest stage.
    pub kv_budget_bytes: f64,
}

impl<'a, 'b> Replica<'a, 'b> {
    /// The replica of `l` (validated by the caller) under `s`.
    pub fn new(s: &'a Setup<'b>, l: Layout) -> Result<Self> {
        let w = Workload {
            batch: 1,
            context: 1,
            prompt: 1,
            microbatches: Some(1),
        };
        let p = evaluate(s, l, w)?;
        let layers = s.model.layers.get();
        let per_stage = layers / l.pp;
        let first_moe = s.model.moe.as_ref().map_or(layers, |moe| moe.dense_layers);
        let stages = (0..l.pp)
            .map(|st| {
                let (a, b) = (st * per_stage, (st + 1) * per_stage);
                let n_moe = b.saturating_sub(a.max(first_moe)) as f64;
                (per_stage as f64 - n_moe, n_moe)
            })
            .collect();
        let pl = per_layer(s);
        Ok(Replica {
            shard: Shard {
                s,
                l,
                kv_share: p.kv_share,
                experts_per_device: p.experts_per_device,
                expert_bytes: pl.expert * s.step.precisions.weight,
            },
            stages,
            layout: l,
            weight_bytes: p.weight_bytes,
            kv_bytes_per_token: p.kv_bytes_per_token_layer * per_stage as f64 * p.kv_share,
            kv_budget_bytes: p.usable_bytes - p.weight_bytes,
        })
    }

    /// The communication of one pass of `tokens` tokens.
    pub fn comm(&self, tokens: f64) -> Result<Comm> {
        comm(self.shard.s, self.layout, tokens)
    }

    /// Pipeline stages.
    pub fn stages(&self) -> usize {
        self.stages.len()
    }

    /// Adds what the ops of `st` (a pass of `tokens` tokens, or some of
    /// its ops) cost each stage to `into`, one part per stage: a pass's
    /// parts add, so the ops that depend only on the token count can be
    /// priced once and kept.
    pub fn add_part(&self, st: &step::Step, tokens: f64, into: &mut [StagePart]) {
        let last = self.stages.len() - 1;
        for (i, (&(n_dense, n_moe), p)) in self.stages.iter().zip(into).enumerate() {
            *p += self
                .shard
                .part(st, tokens, n_dense, n_moe, i == 0, i == last);
        }
    }

    /// A pass whose stages cost `parts`, with the communication `c` of a
    /// pass of its tokens, seconds.
    pub fn pass_s_of(&self, parts: &[StagePart], c: &Comm) -> f64 {
        let last = self.stages.len() - 1;
        self.stages
            .iter()
            .zip(parts)
            .enumerate()
            .map(|(i, (&(n_dense, n_moe), p))| {
                let send = if i == last { 0.0 } else { c.pp_send_s };
                self.shard.time_of(p) + n_dense * c.dense_layer_s + n_moe * c.moe_layer_s + send
            })
            .sum()
    }

    /// One forward `st` of `tokens` tokens through every stage in turn,
    /// with the communication `c` of a pass of that many tokens, seconds.
    pub fn pass_s(&self, st: &step::Step, tokens: f64, c: &Comm) -> f64 {
        let mut parts = vec![StagePart::default(); self.stages.len()];
        self.add_part(st, tokens, &mut parts);
        self.pass_s_of(&parts, c)
    }
}

/// The layout the inputs name, with defaults: tp 1, pp 1, ep 1, dp the
/// rest of the devices.
pub fn layout(inputs: &PlanInputs) -> Result<(Layout, Option<u64>)> {
    let tp = inputs.tp.map_or(1, |c| c.0);
    let pp = inputs.pp.map_or(1, |c| c.0);
    let ep = inputs.ep.map_or(1, |c| c.0);
    at_least_one("tp", tp)?;
    at_least_one("pp", pp)?;
    let devices = inputs
        .devices
        .map(|c| at_least_one("devices", c.0))
        .transpose()?;
    let dp = match (inputs.dp, devices) {
        (Some(d), _) => d.0,
        (None, Some(n)) => {
            let tpp = crate::inputs::mul("pp", &[tp, pp])?;
            // An uneven split is reported by `validate`, after the
            // constraints on tp and pp themselves.
            (n / tpp).max(1)
        }
        (None, None) => 1,
    };
    crate::inputs::mul("dp", &[tp, pp, dp])?;
    Ok((Layout { tp, pp, dp, ep }, devices))
}

/// The workload the inputs give, with defaults.
pub fn workload(inputs: &PlanInputs) -> Result<Workload> {
    let batch = at_least_one("batch", inputs.batch.map_or(1, |c| c.0))?;
    let context = at_least_one("context", inputs.context.map_or(4096, |c| c.0))?;
    let prompt = at_least_one("prompt", inputs.prompt.map_or(1024, |c| c.0))?;
    let microbatches = inputs
        .microbatches
        .map(|c| at_least_one("microbatches", c.0))
        .transpose()?;
    Ok(Workload {
        batch,
        context,
        prompt,
        microbatches,
    })
}

/// One explicit layout: validated, then costed.
pub fn cost(hw: &Hardware, model: &Model, inputs: &PlanInputs, mode: Mode) -> Result<PlanCost> {
    let s = Setup::new(hw, model, inputs, mode)?;
    let (l, devices) = layout(inputs)?;
    validate(&s, l, devices)?;
    evaluate(&s, l, workload(inputs)?)
}

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

/// Separate prefill and decode pools.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DisaggCost {
    /// The prefill pool's best layout (shortest TTFT that fits).
    pub prefill: PlanCost,
    /// The decode pool's best layout (by the objective).
    pub decode: PlanCost,
    /// KV bytes of one request (prompt x KV per token, all layers).
    pub kv_transfer_bytes: f64,
    /// Bandwidth between the pools, B/s (the devices of one prefill
    /// replica, each over its own scale-out link).
    pub transfer_bandwidth: f64,
    /// Time to move one request's KV, seconds.
    pub kv_transfer_s: f64,
    /// Whether the transfer takes no longer than a decode step, so it
    /// hides behind decoding the requests already running.
    pub hides: bool,
}

/// Lays out prefill on `a` devices and decode on `b`.
pub fn disaggregate(
    s: &Setup,
    a: u64,
    b: u64,
    w: Workload,
    inputs: &PlanInputs,
) -> Result<DisaggCost> {
    let mut pre_in = inputs.clone();
    pre_in.objective = Some(Objective::Latency);
    pre_in.tp = None;
    pre_in.pp = None;
    pre_in.ep = None;
    let pre = search(s, at_least_one("prefill-devices", a)?, w, &pre_in)?;
    let prefill = pre
        .plans
        .iter()
        .filter(|p| p.fits)
        .min_by(|x, y| x.prefill_time_s.total_cmp(&y.prefill_time_s))
        .cloned()
        .ok_or_else(|| {
            Error::NoAnswer(format!(
                "no layout of {} fits on {} prefill devices",
                s.model.id,
                units::whole(a)
            ))
        })?;
    let mut dec_in = inputs.clone();
    dec_in.tp = None;
    dec_in.pp = None;
    dec_in.ep = None;
    let dec = search(s, at_least_one("decode-devices", b)?, w, &dec_in)?;
    let decode = dec.plans[0].clone();
    let kv_per_token = kv_elements_per_token_per_layer(s.model)? as f64
        * s.step.precisions.kv
        * s.model.layers.get() as f64;
    let kv_transfer_bytes = w.prompt as f64 * kv_per_token;
    let link =
        match s.fabric.scale_out()? {
            Some(t) => t.bandwidth,
            None => s.fabric.scale_up()?.map(|t| t.bandwidth).ok_or_else(|| {
                Error::Unsupported(format!("{} has no link between pools", s.hw.id))
            })?,
        };
    let senders = (prefill.layout.tp * prefill.layout.pp) as f64;
    let transfer_bandwidth = link * senders;
    let kv_transfer_s = kv_transfer_bytes / transfer_bandwidth;
    Ok(DisaggCost {
        hides: kv_transfer_s <= decode.decode_step_time_s,
        prefill,
        decode,
        kv_transfer_bytes,
        transfer_bandwidth,
        kv_transfer_s,
    })
}

/// Records a plan's figures; its layout as inputs (a layout the user gave)
/// or as results (one a search or a pool chose).
fn plan_results(r: &mut Report, p: &PlanCost, prefix: &str, lean: bool, layout_given: bool) {
    let key = |k: &'static str| -> crate::report::Key {
        if prefix.is_empty() {
            k.into()
        } else {
            format!("{prefix}{k}").into()
        }
    };
    let l = p.layout;
    for (k, v, label) in [
        ("tp", l.tp, "tensor parallel"),
        ("pp", l.pp, "pipeline stages"),
        ("ep", l.ep, "expert parallel"),
        ("dp", l.dp, "data parallel"),
    ] {
        if layout_given {
            r.input(key(k), v);
        } else {
            r.result(key(k), v, || Quantity::new(label, Unit::Count));
        }
    }
    let mark = r.results.len();
    r.result(key("weight_bytes_per_device"), p.weight_bytes, || {
        Quantity::new("weights per device", Unit::Bytes).formula(
            "params of the heaviest stage: attention, dense FFN and shared experts / tp, (routed + redundant) / ep experts, embedding / tp on the first stage, lm_head / tp on the last; x bytes per weight",
        )
        .derive(format!("{} params x {} B", units::number(p.weight_params), units::sig(p.weight_bytes / p.weight_params.max(1.0), 4)))
    });
    if p.experts_per_device > 0.0 {
        r.result(key("experts_per_device"), p.experts_per_device, || {
            Quantity::new("experts per device per MoE layer", Unit::Count).formula(
                "(routed + redundant) / ep; with ep 1, routed / tp (experts split like the MLP)",
            )
        });
    }
    r.result(key("kv_bytes_per_device"), p.kv_bytes, || {
        Quantity::new("KV cache per device", Unit::Bytes)
            .formula("batch x context x KV per token per layer x layers per stage x share")
            .derive(format!(
                "{} x {} x {} x {} x {}",
                p.work.batch,
                p.work.context,
                si(p.kv_bytes_per_token_layer, "B"),
                p.layers_per_stage,
                units::sig(p.kv_share, 4)
            ))
    });
    r.result(key("kv_share"), p.kv_share, || {
        Quantity::new("share of the KV heads per device", Unit::Fraction).formula(
            "ceil(kv_heads / tp) / kv_heads (1 for MLA: the latent is shared by every head)",
        )
    });
    r.result(
        key("activation_bytes_per_device"),
        p.activation_bytes,
        || {
            Quantity::new("live activations per device", Unit::Bytes)
                .formula("prefill tokens per microbatch x (4 x hidden + 2 x MLP width / tp) x 2 B")
        },
    );
    r.result(
        key("memory_bytes_per_device"),
        p.memory_bytes_per_device,
        || {
            Quantity::new("memory per device", Unit::Bytes)
                .formula("weights + KV + activations")
                .derive(format!(
                    "{} + {} + {}",
                    si(p.weight_bytes, "B"),
                    si(p.kv_bytes, "B"),
                    si(p.activation_bytes, "B")
                ))
        },
    );
    r.result(key("usable_bytes"), p.usable_bytes, || {
        Quantity::new("usable memory", Unit::Bytes)
            .formula("capacity x (1 - reserve)")
            .derive(format!(
                "{} - {}",
                si(p.capacity_bytes, "B"),
                si(p.reserve_bytes, "B")
            ))
    });
    r.result(key("fits"), p.fits, || {
        Quantity::new("fits", Unit::None).formula("memory per device <= usable memory")
    });
    if !lean {
        r.group_since(mark, "memory");
    }
    let mark = r.results.len();
    let c = &p.decode_comm;
    if l.tp > 1 {
        r.result(key("tp_allreduce_bytes"), c.tp_allreduce_bytes, || {
            Quantity::new("TP all-reduce per rank (decode)", Unit::Bytes)
                .formula("batch / microbatches x hidden x 2 B")
                .derive(format!(
                    "{} x {} x 2 B",
                    units::number(p.decode_tokens),
                    p.hidden
                ))
        });
        r.result(key("tp_allreduce_s"), c.tp_allreduce_s, || {
            Quantity::new("one TP all-reduce (decode)", Unit::Seconds).formula(
                "collective all-reduce of that size over tp devices (formulas.md, Collectives)",
            )
        });
    }
    if l.ep > 1 {
        r.result(key("ep_alltoall_bytes"), c.ep_alltoall_bytes, || {
            Quantity::new(
                "EP dispatch per rank (decode; combine the same)",
                Unit::Bytes,
            )
            .formula("tokens / tp x experts per token x hidden x 2 B")
        });
        r.result(key("ep_alltoall_s"), c.ep_alltoall_s, || {
            Quantity::new("one EP all-to-all (decode)", Unit::Seconds).formula(
                "collective all-to-all of that size over ep devices (formulas.md, Collectives)",
            )
        });
    }
    if l.pp > 1 {
        r.result(key("pp_send_bytes"), c.pp_send_bytes, || {
            Quantity::new("activations per stage boundary (decode)", Unit::Bytes)
        });
        r.result(key("pp_send_s"), c.pp_send_s, || {
            Quantity::new("one stage send (decode)", Unit::Seconds)
        });
    }
    r.result(key("comm_per_dense_layer_s"), c.dense_layer_s, || {
        Quantity::new("communication per dense layer (decode)", Unit::Seconds)
            .formula("all-reduces per layer x one all-reduce")
    });
    if p.experts_per_device > 0.0 {
        r.result(key("comm_per_moe_layer_s"), c.moe_layer_s, || {
            Quantity::new("communication per MoE layer (decode)", Unit::Seconds)
                .formula("attention all-reduce + dispatch + combine (or two all-reduces with ep 1)")
        });
    }
    r.result(key("comm_time_s"), p.comm_time_s, || {
        Quantity::new("communication per decode step", Unit::Seconds).formula(
            "(microbatches + pp - 1) x (the busiest stage's layers' communication + its send)",
        )
    });
    r.result(key("prefill_comm_time_s"), p.prefill_comm_time_s, || {
        Quantity::new("communication per prefill", Unit::Seconds)
    });
    if !lean {
        r.group_since(mark, "communication");
    }
    let mark = r.results.len();
    // Prefill and decode share one pipeline formula; only the stage's
    // compute time and communication differ.
    let slots = p.microbatches + l.pp - 1;
    let pipelined = |label: &'static str, stage_compute_s: f64, comm_s: f64| {
        move || {
            Quantity::new(label, Unit::Seconds)
                .formula(
                    "(microbatches + pp - 1) x (max(FLOPs / peak, bytes / bandwidth) + communication) of the busiest stage",
                )
                .derive(format!(
                    "({} + {} - 1) x ({} + {})",
                    p.microbatches,
                    l.pp,
                    units::seconds(stage_compute_s),
                    units::seconds(comm_s / slots as f64)
                ))
        }
    };
    r.result(
        key("prefill_time_s"),
        p.prefill_time_s,
        pipelined(
            "time to first token (prefill)",
            p.prefill_stage_compute_s,
            p.prefill_comm_time_s,
        ),
    );
    r.result(
        key("decode_step_time_s"),
        p.decode_step_time_s,
        pipelined("decode step", p.decode_stage_compute_s, p.comm_time_s),
    );
    r.result(key("bubble_fraction"), p.bubble_fraction, || {
        Quantity::new("pipeline bubble", Unit::Fraction)
            .formula("(pp - 1) / (microbatches + pp - 1)")
            .derive(format!(
                "({} - 1) / ({} + {} - 1)",
                l.pp, p.microbatches, l.pp
            ))
    });
    r.result(key("tokens_per_s"), p.tokens_per_s, || {
        Quantity::new("decode tokens per second (all replicas)", Unit::Count)
            .formula("batch x dp / decode step")
            .derive(format!(
                "{} x {} / {}",
                p.work.batch,
                l.dp,
                units::seconds(p.decode_step_time_s)
            ))
    });
    r.result(
        key("tokens_per_s_per_device"),
        p.tokens_per_s_per_device,
        || Quantity::new("decode tokens per second per device", Unit::Count),
    );
    if !lean {
        r.group_since(mark, "time");
    }
}

fn header(r: &mut Report, p: &PlanCost) {
    r.hardware = Some(p.hardware.clone());
    r.model = Some(p.model.clone());
    r.input("dtype", p.dtype);
    if p.kv_dtype != p.dtype {
        r.input("kv_dtype", p.kv_dtype);
    }
    r.input("batch", p.work.batch);
    r.input("context", p.work.context);
    r.input("prompt", p.work.prompt);
    r.input("microbatches", p.microbatches);
    if p.redundant_experts > 0 {
        r.input("redundant_experts", p.redundant_experts);
    }
    if p.mode == Mode::Achievable {
        r.input("achievable", true);
    }
}

fn time_note(r: &mut Report, mode: Mode) {
    r.note(match mode {
        Mode::SpeedOfLight => "speed of light: datasheet peaks, memory and link bandwidths, no collective latency and no overlap of communication with compute; a lower bound on a real run",
        Mode::Achievable => "achievable: measured peaks, memory bandwidth, link bandwidth and NCCL latency; communication is not overlapped with compute",
    });
    r.note("decode and prefill times per device: the forward pass `decode` and `prefill` cost (their typed per-op FLOPs and bytes) sharded to one device of the busiest stage, timed as max(FLOPs / peak, bytes / bandwidth) plus launch overhead; collectives carry bf16 activations");
}

impl PlanCost {
    /// Records the decode step's power and energy per output token, and
    /// the prefill's energy per prompt token beside them.
    pub fn record_energy(&self, r: &mut Report) {
        self.energy.record(r);
        let per = self.prefill_energy.per_token_j();
        r.result("prefill_energy_per_token_j", per, || {
            Quantity::new("prefill energy per prompt token", Unit::Joules)
                .formula("power x devices x prefill time / prompt tokens")
                .group("energy")
        });
    }

    /// The report of one layout.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("plan", lean);
        header(&mut r, self);
        r.input("devices", self.layout.devices());
        plan_results(&mut r, self, "", lean, true);
        r.headline(HEADLINE);
        self.record_energy(&mut r);
        if !lean {
            r.order_groups(&["memory", "communication", "time"]);
        }
        if let Some(w) = &self.why_not {
            r.note(format!("does not fit: {w}"));
        }
        if self.experts_per_device > 0.0 && self.layout.ep > 1 {
            r.note_with(|| {
                format!(
                    "MoE layers: {} experts per device over an expert group of {}; shared experts are split by tp on every device",
                    units::sig_grouped(self.experts_per_device, 4),
                    units::whole(self.layout.ep)
                )
            });
        }
        if self.kv_share >= 1.0 && self.layout.tp > 1 {
            r.note("the KV latent is shared by every head, so each TP rank holds all of it: data-parallel attention saves the memory that tensor parallelism cannot");
        }
        time_note(&mut r, self.mode);
        r
    }
}

fn plan_row(p: &PlanCost, rank: usize, score: f64, verdict: &str) -> Row {
    let mut row = Row::default();
    let l = p.layout;
    row.inputs.insert("rank".into(), (rank as u64).into());
    row.inputs.insert("tp".into(), l.tp.into());
    row.inputs.insert("pp".into(), l.pp.into());
    row.inputs.insert("ep".into(), l.ep.into());
    row.inputs.insert("dp".into(), l.dp.into());
    let res = &mut row.results;
    res.insert(
        "memory_bytes_per_device".into(),
        p.memory_bytes_per_device.into(),
    );
    res.insert("comm_time_s".into(), p.comm_time_s.into());
    res.insert("prefill_time_s".into(), p.prefill_time_s.into());
    res.insert("decode_step_time_s".into(), p.decode_step_time_s.into());
    res.insert("bubble_fraction".into(), p.bubble_fraction.into());
    res.insert(
        "tokens_per_s_per_device".into(),
        p.tokens_per_s_per_device.into(),
    );
    res.insert(
        "power_w".into(),
        p.energy.draw.as_ref().ok().map(|d| d.power_w).into(),
    );
    res.insert("energy_per_token_j".into(), p.energy.per_token_j().into());
    res.insert(
        "prefill_energy_per_token_j".into(),
        p.prefill_energy.per_token_j().into(),
    );
    res.insert(
        "tokens_per_kwh".into(),
        p.energy.per_token_j().map(|j| power::KWH / j).into(),
    );
    res.insert("layout".into(), layout_text(&l).into());
    res.insert("binds".into(), binds(p).into());
    res.insert("fits".into(), p.fits.into());
    let _ = score;
    res.insert("verdict".into(), verdict.into());
    row
}

/// A layout in a few letters: `tp8 pp2`, the degrees above one (`tp1`
/// where every degree is one).
fn layout_text(l: &Layout) -> String {
    let parts: Vec<String> = [("tp", l.tp), ("pp", l.pp), ("ep", l.ep), ("dp", l.dp)]
        .iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, n)| format!("{k}{n}"))
        .collect();
    if parts.is_empty() {
        "tp1".into()
    } else {
        parts.join(" ")
    }
}

/// What dominates a layout's decode step: memory (it does not fit),
/// communication (more than half the step), the pipeline bubble, or the
/// roof of the busiest stage's compute and memory traffic.
fn binds(p: &PlanCost) -> &'static str {
    if !p.fits {
        "memory (does not fit)"
    } else if p.comm_time_s > p.decode_step_time_s * 0.5 {
        "communication"
    } else if p.bubble_fraction > 0.0 {
        "pipeline bubble"
    } else {
        "compute and memory time"
    }
}

fn describe_rows(r: &mut Report) {
    r.describe("rank", || Quantity::new("rank", Unit::Count));
    for (k, label, unit) in [
        ("tp", "tp", Unit::Count),
        ("pp", "pp", Unit::Count),
        ("ep", "ep", Unit::Count),
        ("dp", "dp", Unit::Count),
        ("memory_bytes_per_device", "memory per device", Unit::Bytes),
        ("comm_time_s", "communication per step", Unit::Seconds),
        ("prefill_time_s", "prefill", Unit::Seconds),
        ("decode_step_time_s", "decode step", Unit::Seconds),
        ("bubble_fraction", "bubble", Unit::Fraction),
        (
            "tokens_per_s_per_device",
            "tokens/s per device",
            Unit::Count,
        ),
        ("power_w", "power per device", Unit::Watts),
        (
            "energy_per_token_j",
            "energy per output token",
            Unit::Joules,
        ),
        (
            "prefill_energy_per_token_j",
            "energy per prompt token",
            Unit::Joules,
        ),
        (
            "tokens_per_kwh",
            "output tokens per kWh",
            Unit::TokensPerKwh,
        ),
        ("layout", "layout", Unit::None),
        ("binds", "what binds", Unit::None),
        ("fits", "fits", Unit::None),
        ("verdict", "why not first", Unit::None),
    ] {
        r.describe(k, || Quantity::new(label, unit));
    }
}

impl SearchCost {
    /// The report of a search: the best layout's figures, then every
    /// layout as a row (`plans`).
    pub fn report(&self, lean: bool) -> Report {
        let best = &self.plans[0];
        let mut r = Report::new_lean("plan search", lean);
        header(&mut r, best);
        r.input("devices", self.devices);
        r.input("objective", self.objective.as_str());
        if let Some(t) = self.slo_ttft {
            r.input("slo_ttft", t);
        }
        if let Some(t) = self.slo_tpot {
            r.input("slo_tpot", t);
        }
        r.result("plans_considered", self.plans.len() as u64, || {
            Quantity::new("valid layouts", Unit::Count)
        });
        plan_results(&mut r, best, "", lean, false);
        r.headline(HEADLINE);
        best.record_energy(&mut r);
        if !lean {
            r.order_groups(&["memory", "communication", "time"]);
            r.rows_kind = Some(RowsKind::Table);
            for (i, p) in self.plans.iter().enumerate() {
                r.rows
                    .push(plan_row(p, i + 1, self.scores[i], &self.verdicts[i]));
            }
            describe_rows(&mut r);
            // The default table: each layout, the figure the objective
            // ranks by, what binds it, whether it fits; --all the rest.
            let ranked_by = match self.objective {
                Objective::Latency => "decode_step_time_s",
                _ => "tokens_per_s_per_device",
            };
            r.row_headline = ["rank", "layout", ranked_by, "binds", "fits"]
                .iter()
                .map(|k| (*k).to_string())
                .collect();
        }
        // `plans`: every layout as one object with a single plan's keys,
        // best first (the table shows them as its rows).
        let plans: Vec<serde_json::Value> = self
            .plans
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let row = plan_row(p, i + 1, self.scores[i], &self.verdicts[i]);
                let mut o = serde_json::Map::new();
                for (k, v) in row.inputs.into_iter().chain(row.results) {
                    o.insert(k.into_owned(), v);
                }
                serde_json::Value::Object(o)
            })
            .collect();
        r.result("plans", plans, || {
            Quantity::new("every valid layout, best first", Unit::None)
        });
        for (why, n) in &self.rejected {
            r.note_with(|| {
                format!(
                    "skipped {} layout{}: {why}",
                    units::whole(*n),
                    if *n == 1 { "" } else { "s" }
                )
            });
        }
        if !best.fits {
            r.note("no layout fits; the best is the one closest to fitting");
        }
        time_note(&mut r, best.mode);
        r
    }
}

impl DisaggCost {
    /// The report of a disaggregated deployment.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("plan disaggregate", lean);
        header(&mut r, &self.decode);
        r.input("prefill_devices", self.prefill.layout.devices());
        r.input("decode_devices", self.decode.layout.devices());
        for (prefix, p, pool) in [
            ("prefill_", &self.prefill, "prefill pool"),
            ("decode_", &self.decode, "decode pool"),
        ] {
            let mark = r.results.len();
            plan_results(&mut r, p, prefix, lean, false);
            if !lean {
                let keys: Vec<crate::report::Key> = r.results.keys().skip(mark).cloned().collect();
                for k in keys {
                    if let Some(q) = r.quantities.get_mut(&k) {
                        q.label = format!("{pool}: {}", q.label);
                        q.group = Some(pool.to_string());
                    }
                }
            }
        }
        r.result("prefill_time_s", self.prefill.prefill_time_s, || {
            Quantity::new("time to first token (prefill pool)", Unit::Seconds)
        });
        r.result("decode_step_time_s", self.decode.decode_step_time_s, || {
            Quantity::new("decode step (decode pool)", Unit::Seconds)
        });
        let mark = r.results.len();
        r.result("kv_transfer_bytes", self.kv_transfer_bytes, || {
            Quantity::new("KV per request", Unit::Bytes)
                .formula("prompt x KV bytes per token (all layers)")
        });
        r.result(
            "transfer_bandwidth_bytes_per_s",
            self.transfer_bandwidth,
            || {
                Quantity::new("bandwidth between the pools", Unit::BytesPerSec)
                    .formula("tp x pp of a prefill replica x the scale-out link, one way")
            },
        );
        r.result("kv_transfer_s", self.kv_transfer_s, || {
            Quantity::new("KV transfer per request", Unit::Seconds)
                .formula("KV per request / bandwidth between the pools")
                .derive(format!(
                    "{} / {}",
                    si(self.kv_transfer_bytes, "B"),
                    si(self.transfer_bandwidth, "B/s")
                ))
        });
        r.result("kv_transfer_hides", self.hides, || {
            Quantity::new("transfer hides behind a decode step", Unit::None)
                .formula("KV transfer <= decode step")
        });
        r.headline(&[
            "prefill_time_s",
            "decode_step_time_s",
            "prefill_tp",
            "prefill_pp",
            "prefill_ep",
            "prefill_dp",
            "prefill_memory_bytes_per_device",
            "decode_tp",
            "decode_pp",
            "decode_ep",
            "decode_dp",
            "decode_memory_bytes_per_device",
            "kv_transfer_bytes",
            "kv_transfer_s",
            "kv_transfer_hides",
            "power_w",
            "energy_per_token_j",
            "prefill_energy_per_token_j",
            "cost_per_million_output_tokens",
            "cost_per_million_input_tokens",
        ]);
        // The decode pool's step per output token; the prefill pool's pass
        // per prompt token beside it (the KV transfer's energy is not
        // modelled).
        self.decode.energy.record(&mut r);
        let per = self.prefill.prefill_energy.per_token_j();
        r.result("prefill_energy_per_token_j", per, || {
            Quantity::new("prefill pool energy per prompt token", Unit::Joules)
                .formula("power x devices x prefill time / prompt tokens")
                .group("energy")
        });
        if !lean {
            r.group_since(mark, "between the pools");
            r.order_groups(&["prefill pool", "decode pool", "between the pools"]);
        }
        r.note_with(|| {
            let (a, b) = (self.prefill.layout, self.decode.layout);
            format!(
                "the pools are laid out separately (DistServe; the Learn Kernels book (000), §5.3): prefill tp {} pp {} dp {} ep {}, decode tp {} pp {} dp {} ep {}",
                units::whole(a.tp),
                units::whole(a.pp),
                units::whole(a.dp),
                units::whole(a.ep),
                units::whole(b.tp),
                units::whole(b.pp),
                units::whole(b.dp),
                units::whole(b.ep)
            )
        });
        time_note(&mut r, self.decode.mode);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_in_order() {
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(61), vec![1, 61]);
        assert_eq!(divisors(1), vec![1]);
    }
}

//! `plan`: a parallel layout of a model on N devices (tensor, pipeline,
//! data and expert parallelism), what it costs in memory per device and in
//! communication per layer and per step, its prefill and decode times, and
//! a search over every valid layout (formulas.md, "Plans"; 000 §5.1-§5.3).
//!
//! Devices are numbered TP innermost, then DP, then PP: a TP group is
//! contiguous (inside one scale-up domain when TP fits in it), a pipeline
//! stage is the T x D devices of one slice, and the E devices of an expert
//! group are contiguous within a stage.
//!
//! The rooms: this file holds the inputs and the layout-independent setup;
//! [`validate`](validate()) the constraints a layout must meet, `comm` its
//! collectives, `stage` the sharding of a forward pass onto one stage's
//! device, [`evaluate`](evaluate()) a layout's memory fit and times,
//! [`Replica`] the simulator's per-pass price, [`search`](search()) the
//! ranking of every layout, `disagg` separate prefill and decode pools, and
//! `report` / `search_report` the reports made from those costs.

use crate::calc::collective::Fabric;
use crate::calc::kv;
use crate::calc::model::{WeightBytes, params, weight_split};
use crate::calc::roof::Roof;
use crate::calc::simulate::slo::Target;
use crate::calc::step;
use crate::error::{Error, Result};
use crate::inputs::{Count, Tokens, at_least_one};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use serde::{Deserialize, Serialize};

mod comm;
mod disagg;
mod evaluate;
mod replica;
mod report;
mod search;
mod search_report;
mod stage;
mod validate;

pub use comm::Comm;
pub use disagg::{DisaggCost, disaggregate};
pub use evaluate::{PlanCost, Weights, evaluate};
pub use replica::Replica;
pub use search::{SearchCost, search};
pub use stage::{StagePart, tp_device_bytes};
pub use validate::{divisors, tensor_parallel, validate};

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
    /// The engine the steps and all-reduces run on (the plain PyTorch
    /// forward and NCCL when `None`).
    #[serde(skip)]
    pub engine: Option<std::sync::Arc<crate::spec::engine::Engine>>,
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

    /// The data-parallel ranks one expert group spans: E / T where the
    /// experts spread over whole TP groups of several replicas (attention
    /// data-parallel with expert parallelism, DEP: formulas.md, "Plans:
    /// attention data-parallel with expert parallelism"), else 1. Those
    /// replicas run each MoE layer together, each with its own batch.
    pub fn attention_dp(&self) -> u64 {
        if self.ep > self.tp && self.ep.is_multiple_of(self.tp) {
            self.ep / self.tp
        } else {
            1
        }
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
    pub step: step::Setup,
    /// Device memory, bytes (measured usable memory where the file has
    /// it, else the datasheet capacity).
    pub capacity: f64,
    /// Whether `capacity` is the measured usable figure.
    pub capacity_source: kv::MemorySource,
    /// Share held back (0 with `--reserve step`).
    pub reserve: f64,
    /// With `--reserve step`: the runtime's bytes outside the allocator
    /// (`memory.runtime-bytes`), held back beside the step's activations.
    pub runtime_bytes: Option<f64>,
    /// With `--reserve step`: the largest step a replica runs, as (tokens,
    /// sampled sequences), set by the command that knows its caps
    /// (`simulate`, `fleet`); its activations and logits are held back
    /// from the KV cache ([`step_reserve_bytes`]).
    pub step_shape: Option<(u64, u64)>,
    /// Redundant experts.
    pub redundant: u64,
    /// Whether TP may cross the scale-up domain.
    pub allow_cross_node: bool,
    /// The model's weights by module at the step's precisions (the one
    /// accounting `model show` reports).
    weights: WeightBytes,
}

impl<'a> Setup<'a> {
    /// Resolves the model's parameter groups and the device's figures.
    pub fn new(
        hw: &'a Hardware,
        model: &'a Model,
        inputs: &PlanInputs,
        mode: Mode,
    ) -> Result<Self> {
        let step = step::setup(
            model,
            hw,
            mode,
            step::Choices {
                dtype: inputs.dtype.as_deref(),
                kv_dtype: inputs.kv_dtype.as_deref(),
                activations: inputs.activations.as_deref(),
                // decode's defaults: none at speed of light, graph with
                // --achievable
                launch: inputs.launch.as_deref(),
                engine: inputs.engine.as_deref(),
                ..Default::default()
            },
        )?;
        // The collectives are called as the step's kernels are launched.
        let call = step.launch;
        let (capacity, capacity_source) = kv::device_memory(hw)?;
        let mut step_shape = None;
        let (reserve, runtime_bytes) = match &inputs.reserve {
            None => (kv::DEFAULT_RESERVE, None),
            Some(v) => match step_reserve(v)? {
                Some(shape) => {
                    step_shape = shape;
                    (0.0, Some(runtime_bytes(hw)?))
                }
                None => (kv::parse_share("reserve", v)?, None),
            },
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
        let params = params(model)?;
        let weights = weight_split(model, &params, step.precisions.weight)?;
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
            runtime_bytes,
            step_shape,
            redundant,
            allow_cross_node: inputs.allow_cross_node.unwrap_or(false),
            weights,
        })
    }

    fn moe_layers(&self) -> u64 {
        self.model.moe_layers()
    }

    fn dense_layers(&self) -> u64 {
        self.model.layers.get() - self.moe_layers()
    }

    /// The ranks the LM head's vocabulary is split over beyond tensor
    /// parallelism: the attention data-parallel group where the engine
    /// gathers the ranks' hidden states for it
    /// (`dp-attention.lm-head = "gathered"`), else 1.
    pub fn lm_head_split(&self, l: Layout) -> u64 {
        match self.step.engine.dp_attention.lm_head {
            crate::spec::engine::LmHead::Gathered => l.attention_dp(),
            crate::spec::engine::LmHead::Local => 1,
        }
    }

    /// Routed experts plus redundant copies.
    pub fn expert_slots(&self) -> u64 {
        self.model
            .moe
            .as_ref()
            .map_or(0, |m| m.routed_experts.get() + self.redundant)
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

/// Refuses `--reserve step:TOKENS,SEQS` for `plan`: plan prices its own
/// pass's activations, so a step's shape (what `simulate` and `fleet`
/// hold back for their iterations) would be parsed and not used.
pub fn plan_reserve(inputs: &PlanInputs) -> Result<()> {
    if let Some(v) = &inputs.reserve
        && let Some(Some(_)) = step_reserve(v)?
    {
        return Err(Error::field(
            "reserve",
            format!(
                "`{}`: plan prices its own pass's activations, so it takes no step shape; give `step` (the runtime's measured bytes outside the allocator) or a share such as 10%; simulate and fleet take step:TOKENS,SEQS",
                v.as_str().unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

/// `--reserve step` (the run's own largest step) or `step:TOKENS,SEQS`
/// (a step of that many tokens and sampled sequences, as `fleet`'s check
/// command writes the search's largest): Some(shape); None for a share.
pub fn step_reserve(v: &serde_json::Value) -> Result<Option<Option<(u64, u64)>>> {
    let Some(t) = v.as_str().map(str::trim) else {
        return Ok(None);
    };
    let Some(rest) = t
        .get(..4)
        .filter(|h| h.eq_ignore_ascii_case("step"))
        .map(|_| &t[4..])
    else {
        return Ok(None);
    };
    if rest.trim().is_empty() {
        return Ok(Some(None));
    }
    let bad = || {
        Error::field(
            "reserve",
            format!("`{t}`: give step, step:TOKENS,SEQS (step:2304,256) or a share (10%)"),
        )
    };
    let (a, b) = rest
        .trim()
        .strip_prefix(':')
        .and_then(|r| r.split_once(','))
        .ok_or_else(bad)?;
    let n = |x: &str| {
        x.trim()
            .replace('_', "")
            .parse::<u64>()
            .ok()
            .filter(|&n| (1..=1 << 40).contains(&n))
            .ok_or_else(bad)
    };
    Ok(Some(Some((n(a)?, n(b)?))))
}

/// The runtime's measured footprint outside the allocator, which `--reserve
/// step` needs.
fn runtime_bytes(hw: &Hardware) -> Result<f64> {
    hw.memory
        .runtime_bytes
        .map(|b| b.get())
        .ok_or_else(|| Error::MissingField {
            owner: hw.id.clone(),
            field: "memory.runtime-bytes".into(),
            why: "--reserve step holds back the runtime's memory outside the allocator, measured (validation/runtime_memory_h200.py); without it give a share, e.g. --reserve 10%".into(),
            example: None,
        })
}

/// Bytes a device of a tensor-parallel degree `tp` holds back for one step
/// of `tokens` tokens and `seqs` sampled sequences beside the KV cache
/// (formulas.md, "Memory: the reserve priced from the step"): the live
/// activations of one layer for each token (residual, normed copy,
/// attention output: 3 x hidden, plus the query: 1 x hidden; the MLP's gate
/// and up projections on this rank: 2 x ffn / tp), at 2 bytes, as `plan`
/// counts them, and the logits of each sampled sequence over the whole
/// vocabulary in fp32 (vLLM's sampler upcasts them: vllm/v1/sample/sampler.py).
pub fn step_reserve_bytes(m: &Model, tp: u64, tokens: u64, seqs: u64) -> f64 {
    let per_token = evaluate::live_bytes_per_token(m, tp);
    let vocab = m.vocab_size.get() as f64;
    tokens as f64 * per_token + seqs as f64 * vocab * 4.0
}

/// What `--reserve step` held back on a device of TP `tp`, as a note; None
/// for a flat share.
pub fn step_reserve_note(s: &Setup, tp: u64) -> Option<String> {
    let (runtime, (tokens, seqs)) = (s.runtime_bytes?, s.step_shape?);
    let step = step_reserve_bytes(s.model, tp, tokens, seqs);
    Some(format!(
        "reserve priced from the step: {} of runtime outside the allocator ({}'s memory.runtime-bytes, measured) and {} of activations and logits for an iteration of {} tokens and {} sequences at tp {tp}; the CUDA graphs' pool is not priced (not measured)",
        crate::units::si(runtime, "B"),
        s.hw.id,
        crate::units::si(step, "B"),
        crate::units::whole(tokens),
        crate::units::whole(seqs),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn an_expert_group_wider_than_tp_is_attention_data_parallel() {
        let l = |tp, dp, ep| Layout { tp, pp: 1, dp, ep };
        // DEP 8: eight replicas of one device share the experts.
        assert_eq!(l(1, 8, 8).attention_dp(), 8);
        // SGLang's --tp 8 --dp 4 --enable-dp-attention: attention TP 2.
        assert_eq!(l(2, 4, 8).attention_dp(), 4);
        // Experts within one TP group, or none spread: one replica each.
        assert_eq!(l(8, 1, 8).attention_dp(), 1);
        assert_eq!(l(4, 2, 1).attention_dp(), 1);
        // A group that is not whole TP groups is no DP-attention group.
        assert_eq!(l(2, 3, 3).attention_dp(), 1);
    }

    #[test]
    fn the_reserve_reads_step_a_named_step_or_a_share() {
        let r = |t: &str| step_reserve(&Value::from(t));
        assert_eq!(r("step").unwrap(), Some(None));
        assert_eq!(r(" Step ").unwrap(), Some(None));
        assert_eq!(r("step:2304,256").unwrap(), Some(Some((2304, 256))));
        assert_eq!(r("10%").unwrap(), None);
        assert_eq!(step_reserve(&Value::from(0.1)).unwrap(), None);
        for bad in ["step:", "step:1", "step:0,1", "step:a,b", "stepx"] {
            assert!(r(bad).is_err(), "{bad}");
        }
    }
}

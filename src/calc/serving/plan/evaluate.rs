//! The costs of one layout at one workload: weights, KV and activations
//! per device against usable memory, communication, prefill and decode
//! times, throughput and energy.

use super::comm::{ACT_BYTES, Comm, comm};
use super::stage::{Shard, StageSlice, device_bytes, per_layer, stage_layers};
use super::{Layout, Setup, Workload};
use crate::calc::model::kv_elements_per_token_per_layer;
use crate::calc::power;
use crate::calc::step::{self, Shape};
use crate::error::Result;
use crate::spec::hardware::Mode;
use crate::units::{self, si};
use serde::Serialize;

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
    /// Keeps the stage if it is busier than the busiest so far: its
    /// compute and the communication it does not hide on the GPU, or, where
    /// eager calls' host path is priced apart (`host`: the host's path over
    /// the stage's kernels and over its collective calls), the longer of
    /// that and the host's path.
    /// `hidden`: the communication the stage's compute hides (formulas.md,
    /// "Plans: communication under compute").
    fn offer(&mut self, compute: f64, comm: f64, hidden: f64, host: Option<(f64, f64)>) {
        let gpu = compute + comm - hidden;
        let slot = host.map_or(gpu, |(k, c)| gpu.max(k + c));
        if slot > self.slot {
            *self = Busiest {
                slot,
                comm,
                compute,
            };
        }
    }
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
    /// The engine that priced it.
    pub engine: String,
    /// Weight precision.
    pub dtype: &'static str,
    /// Weight precision in words, each module at its own
    /// ("bf16, routed experts mxfp4").
    pub weights_in: String,
    /// Whether fp8 weights run as W8A8 by default.
    pub w8a8_default: bool,
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
    /// The weights of every stage and device, and what the layout
    /// replicates.
    pub weights: Weights,
    /// KV bytes per token per layer (whole, before the TP share).
    pub kv_bytes_per_token_layer: f64,
    /// Tokens of one decode pass (sequences per microbatch).
    pub decode_tokens: f64,
    /// Tokens of one prefill pass.
    pub prefill_tokens: f64,
    /// The model's hidden size.
    pub hidden: u64,
    /// One decode step, seconds: the time model's, not stretched by the
    /// board's power limit (formulas.md, "One time on one device").
    pub decode_step_time_s: f64,
    /// Prefill of every prompt of the batch (the last request's time to
    /// first token when the batch arrives at once), seconds, likewise.
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

/// A layout's weights: a device of each stage, all devices together, and
/// what the layout holds more than once (formulas.md, "Plans", memory).
/// All devices = the model's weights + the three replicated parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Weights {
    /// Weight bytes on a device of each pipeline stage.
    pub per_stage: Vec<f64>,
    /// Summed over every device: each stage's device x tp x dp.
    pub all_devices: f64,
    /// The model's own weights, as `model show` weighs them.
    pub model: f64,
    /// Norms and routers, whole on every TP rank: (tp - 1) copies in each
    /// replica.
    pub tp_copies: f64,
    /// The weights other than the routed experts, whole in each DP
    /// replica: dp - 1 more copies (the LM head dp / G - 1 where its
    /// vocabulary is split over attention data-parallel groups of G).
    pub dp_copies: f64,
    /// Routed experts held more than once: redundant experts, or every
    /// expert once per group of ep devices where ep is less than tp x dp.
    pub expert_copies: f64,
}

impl Weights {
    /// The weights of layout `l` with `per_stage` bytes on a device of each
    /// stage; the replicated parts from the whole model's modules, apart
    /// from the per-stage sum, so the two check each other.
    fn of(s: &Setup, l: Layout, experts_per_device: f64, per_stage: Vec<f64>) -> Weights {
        let w = &s.weights;
        let m = s.model;
        let (tp, dp) = (l.tp as f64, l.dp as f64);
        let all_devices = per_stage.iter().sum::<f64>() * tp * dp;
        let model = w.total();
        let routed = m
            .moe
            .as_ref()
            .map_or(0.0, |x| x.routed_experts.get() as f64);
        // Expert slots held over all devices, in units of one layer's
        // routed experts.
        let held = experts_per_device * tp * dp;
        let expert_copies = if routed > 0.0 {
            w.routed_experts * (held / routed - 1.0)
        } else {
            0.0
        };
        // A head split over an attention data-parallel group of G ranks
        // is held once per group, not once per replica.
        let groups = dp / s.lm_head_split(l) as f64;
        Weights {
            all_devices,
            model,
            tp_copies: dp * (tp - 1.0) * (w.norms + w.router),
            dp_copies: (dp - 1.0) * (model - w.routed_experts) - (dp - groups) * w.lm_head,
            expert_copies,
            per_stage,
        }
    }

    /// The replicated parts together.
    pub fn replicated(&self) -> f64 {
        self.tp_copies + self.dp_copies + self.expert_copies
    }
}

/// Live activation bytes of one layer per token on a device of TP `tp`:
/// residual, normed copy, attention output and query (4 x hidden) and the
/// MLP's gate and up projections on this rank (2 x ffn / tp; an MoE layer's
/// k experts' or the dense FFN's, the wider), at 2 bytes.
pub fn live_bytes_per_token(m: &crate::spec::model::Model, tp: u64) -> f64 {
    let d = m.hidden_size.get() as f64;
    let ffn_width = m
        .moe
        .as_ref()
        .map_or(m.ffn.intermediate_size.get() as f64, |moe| {
            (moe.expert_intermediate_size.get() as f64 * moe.experts_per_token.get() as f64)
                .max(m.ffn.intermediate_size.get() as f64)
        });
    (4.0 * d + 2.0 * ffn_width / tp as f64) * ACT_BYTES
}

/// The costs of layout `l` at workload `w`.
pub fn evaluate(s: &Setup, l: Layout, w: Workload) -> Result<PlanCost> {
    let m = s.model;
    let t = l.tp as f64;
    let layers = m.layers.get();
    let layers_per_stage = layers / l.pp;
    let pl = per_layer(s);
    let microbatches = w.microbatches.unwrap_or(l.pp).max(1);
    let mf = microbatches as f64;
    let routed = m
        .moe
        .as_ref()
        .map_or(1.0, |moe| moe.routed_experts.get() as f64);
    let experts_per_device = if m.moe.is_none() {
        0.0
    } else if l.ep > 1 {
        s.expert_slots() as f64 / l.ep as f64
    } else {
        routed / t
    };
    // Weights of each stage's devices; the heaviest decides.
    let mut weight_bytes: f64 = 0.0;
    let stage_params = stage_layers(m, l.pp);
    let mut per_stage = Vec::with_capacity(stage_params.len());
    for (st, &(n_dense, n_moe)) in stage_params.iter().enumerate() {
        let bytes = device_bytes(
            &pl,
            &s.weights,
            &StageSlice {
                layers: layers_per_stage as f64,
                dense: n_dense,
                moe: n_moe,
                tp: t,
                experts_per_device,
                first: st == 0,
                last: st as u64 == l.pp - 1,
                lm_head_split: s.lm_head_split(l) as f64,
            },
        );
        per_stage.push(bytes);
        weight_bytes = weight_bytes.max(bytes);
    }
    let weights = Weights::of(s, l, experts_per_device, per_stage);
    // KV: the tokens of this replica's sequences, this stage's layers, the
    // heads this rank holds.
    let kv_share = crate::calc::kv::kv_share(m, l.tp);
    let kv_per_token_layer = kv_elements_per_token_per_layer(m)? as f64 * s.step.precisions.kv;
    let context = w.context as f64;
    let kv_bytes =
        w.batch as f64 * context * kv_per_token_layer * layers_per_stage as f64 * kv_share;
    // Live activations of one layer for the largest pass (a prefill
    // microbatch): residual, normed copy, attention output and the MLP's
    // gate and up projections on this rank.
    // In f64: a batch and a prompt of up to 2^53 each overflow a u64
    // product.
    let prefill_tokens = w.batch.div_ceil(microbatches) as f64 * w.prompt as f64;
    let live_tokens = prefill_tokens.max(w.batch as f64 / mf);
    let activation_bytes = live_tokens * live_bytes_per_token(m, l.tp);
    let memory = weight_bytes + kv_bytes + activation_bytes;
    let reserve_bytes = s.capacity * s.reserve + s.runtime_bytes.unwrap_or(0.0);
    let usable = s.capacity - reserve_bytes;
    let fits = memory <= usable;
    let why_not = (!fits).then(|| {
        // Where --dtype replaced the checkpoint's own precision, say what
        // the checkpoint's format would hold.
        let own = m
            .weight_dtype
            .as_deref()
            .and_then(|d| crate::precision::lookup(d).ok())
            .filter(|d| d.name != s.step.weights && d.bits < crate::precision::lookup(s.step.weights).map_or(0.0, |p| p.bits))
            .map_or(String::new(), |d| {
                format!(
                    "; the checkpoint's own format ({}, the default without --dtype) weighs less",
                    crate::calc::model::weights_in(m, d.name)
                )
            });
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
        ) + &own
    });
    // Communication of one pass per stage.
    let decode_tokens = w.batch.div_ceil(microbatches) as f64;
    // Each sequence samples one token a pass: the LM head's rows.
    let seqs = w.batch.div_ceil(microbatches) as f64;
    let decode_comm = comm(s, l, decode_tokens, seqs)?;
    let prefill_comm = comm(s, l, prefill_tokens, seqs)?;
    let stage_comm =
        |c: &Comm, n_dense: f64, n_moe: f64, last: bool| c.stage_comm_s(n_dense, n_moe, true, last);
    // Compute and memory of one pass through each stage: serving's typed
    // forward pass of one replica's microbatch, sharded per device.
    let mb = w.batch.div_ceil(microbatches);
    let forward = |new: u64, past: u64| {
        step::forward_engine(
            m,
            Shape {
                batch: mb,
                new,
                past,
                lm_head_tokens: 1,
            },
            &s.step.precisions,
            &s.step.engine,
        )
    };
    let decode_step_ops = forward(1, w.context)?;
    let prefill_step_ops = forward(w.prompt, 0)?;
    let shard = Shard {
        s,
        l,
        kv_share,
        experts_per_device,
        expert_bytes: pl.expert,
        lm_head_split: s.lm_head_split(l) as f64,
    };
    // (its time, the host's path over its kernels when launched eagerly)
    let pass = |st: &step::Step, tokens: f64, n_dense: f64, n_moe: f64, first: bool, last: bool| {
        let part = shard.part(st, tokens, n_dense, n_moe, first, last);
        (shard.time_of(&part), part.priced.host_s)
    };
    let host = |c: &Comm, kernels: f64, n_dense: f64, n_moe: f64| {
        c.host_s(n_dense, n_moe, true).map(|h| (kernels, h))
    };
    let slots = microbatches as f64 + l.pp as f64 - 1.0;
    let (mut dec, mut pre) = (Busiest::default(), Busiest::default());
    // What a device draws: its stage's part of each microbatch's pass,
    // the same FLOPs and bytes its time counts, averaged over the stages
    // (formulas.md, "Power and energy": each device idle for the rest of
    // the step).
    let share = microbatches as f64 / l.pp as f64;
    let (mut dec_work, mut pre_work) = (Vec::new(), Vec::new());
    for (st, &(n_dense, n_moe)) in stage_params.iter().enumerate() {
        let first = st == 0;
        let last = st as u64 == l.pp - 1;
        let send = l.pp > 1;
        let scaled = |w: power::Work| power::Work {
            flops: w.flops * share,
            bytes: w.bytes * share,
            strided: w.strided * share,
            ..w
        };
        dec_work.extend(
            shard
                .work(&decode_step_ops, mb as f64, n_dense, n_moe, first, last)
                .into_iter()
                .map(scaled),
        );
        pre_work.extend(
            shard
                .work(
                    &prefill_step_ops,
                    (mb * w.prompt) as f64,
                    n_dense,
                    n_moe,
                    first,
                    last,
                )
                .into_iter()
                .map(scaled),
        );
        let (t, k) = pass(&decode_step_ops, mb as f64, n_dense, n_moe, first, last);
        dec.offer(
            t,
            stage_comm(&decode_comm, n_dense, n_moe, last),
            decode_comm.hidden_s(n_dense, n_moe, send, last, t),
            host(&decode_comm, k, n_dense, n_moe),
        );
        let (t, k) = pass(
            &prefill_step_ops,
            (mb * w.prompt) as f64,
            n_dense,
            n_moe,
            first,
            last,
        );
        pre.offer(
            t,
            stage_comm(&prefill_comm, n_dense, n_moe, last),
            prefill_comm.hidden_s(n_dense, n_moe, send, last, t),
            host(&prefill_comm, k, n_dense, n_moe),
        );
    }
    // One replica's devices share its work. One time for each pass
    // (formulas.md, "One time on one device"): the pipeline's, the roofs'
    // bound or the achievable price; where the work would pass the board's
    // limit in it the board is held at the limit, and the stretched time
    // is the note's estimate. Throughput, latencies and energy per token
    // derive from it.
    let replica = (l.tp.saturating_mul(l.pp)) as f64;
    let pm = power::PowerModel::of(s.hw, s.step.compute);
    let decode_step = slots * dec.slot;
    let prefill = slots * pre.slot;
    let draw = |t: f64, work: Vec<power::Work>| {
        pm.as_ref()
            .map_err(String::clone)
            .map(|pm| (pm, pm.draw_step(t, work)))
    };
    let tokens_per_s = w.batch as f64 * l.dp as f64 / decode_step;
    let energy = power::Energy::held(
        draw(decode_step, dec_work),
        decode_step,
        s.mode,
        replica,
        w.batch as f64,
        power::Per::Output,
    );
    let prefill_energy = power::Energy::held(
        draw(prefill, pre_work),
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
        engine: s.step.engine.id.clone(),
        dtype: s.step.weights,
        weights_in: crate::calc::model::weights_in(m, s.step.weights),
        w8a8_default: s.step.w8a8_default,
        kv_dtype: s.step.kv.name,
        layout: l,
        redundant_experts: s.redundant,
        work: w,
        microbatches,
        layers_per_stage,
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
        weights,
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

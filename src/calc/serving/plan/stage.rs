//! A replica's forward pass (serving's typed per-op costs) sharded onto
//! one device of one pipeline stage, and the weights of a layer's groups.

use super::{Layout, Setup};
use crate::calc::model::WeightBytes;
use crate::calc::step;
use crate::spec::model::Model;

/// Weight bytes of one layer's groups, each at its module's precision
/// (the model's one accounting, [`WeightBytes`]).
pub(super) struct PerLayer {
    pub(super) attention: f64,
    pub(super) dense_ffn: f64,
    /// One routed expert of one MoE layer, its biases included.
    pub(super) expert: f64,
    /// The shared experts of one MoE layer.
    pub(super) shared: f64,
    /// The router of one MoE layer.
    pub(super) router: f64,
    pub(super) norms: f64,
}

pub(super) fn per_layer(s: &Setup) -> PerLayer {
    per_layer_of(s.model, &s.weights)
}

/// [`per_layer`] of model `m` whose weights are `w`.
fn per_layer_of(m: &Model, w: &WeightBytes) -> PerLayer {
    let layers = m.layers.get() as f64;
    let moe_layers = m.moe_layers() as f64;
    let dense = m.dense_ffn_layers() as f64;
    let routed = m
        .moe
        .as_ref()
        .map_or(1.0, |m| m.routed_experts.get() as f64);
    let per_moe = |x: f64| {
        if moe_layers > 0.0 {
            x / moe_layers
        } else {
            0.0
        }
    };
    PerLayer {
        attention: w.attention / layers,
        dense_ffn: if dense > 0.0 {
            w.dense_ffn / dense
        } else {
            0.0
        },
        expert: per_moe(w.routed_experts) / routed,
        shared: per_moe(w.shared_experts),
        router: per_moe(w.router),
        norms: w.norms / layers,
    }
}

/// (dense, MoE) layers of each of `pp` equal pipeline stages of `m`, the
/// MoE ones where the dense-first layers and the layer step place them.
pub(super) fn stage_layers(m: &Model, pp: u64) -> Vec<(f64, f64)> {
    let per = m.layers.get() / pp.max(1);
    (0..pp)
        .map(|st| {
            let n_moe = m.moe_layers_in(st * per, (st + 1) * per) as f64;
            (per as f64 - n_moe, n_moe)
        })
        .collect()
}

/// Which layers one pipeline stage holds and how a device of it shards
/// them, for [`device_bytes`].
pub(super) struct StageSlice {
    /// Layers of the stage.
    pub(super) layers: f64,
    /// Of those, layers with a dense feed-forward block.
    pub(super) dense: f64,
    /// Of those, MoE layers.
    pub(super) moe: f64,
    /// Tensor-parallel ranks.
    pub(super) tp: f64,
    /// Routed experts each device holds per MoE layer.
    pub(super) experts_per_device: f64,
    /// Whether the stage holds the embedding (the first) and the LM head
    /// (the last).
    pub(super) first: bool,
    pub(super) last: bool,
    /// Ranks the LM head's vocabulary is split over beyond TP (1: whole on
    /// each TP group; G: over an attention data-parallel group).
    pub(super) lm_head_split: f64,
}

/// Weight bytes one device of a stage holds (formulas.md, "Plans",
/// memory): attention, dense FFN, shared experts, embedding and LM head
/// split over the TP ranks, norms and routers whole on every rank (vLLM
/// and SGLang replicate the router), routed experts as placed.
pub(super) fn device_bytes(pl: &PerLayer, w: &WeightBytes, st: &StageSlice) -> f64 {
    let t = st.tp;
    let mut n = (pl.attention / t + pl.norms) * st.layers
        + st.dense * pl.dense_ffn / t
        + st.moe * (pl.expert * st.experts_per_device + pl.shared / t + pl.router);
    if st.first {
        n += w.embedding / t;
    }
    if st.last {
        n += w.lm_head / (t * st.lm_head_split);
    }
    n
}

/// Weight bytes on one device when model `m` (weights `w`) is split over
/// `tp` tensor-parallel ranks and nothing else: a plan of one stage with
/// the experts split as the TP ranks split them (`plan --tp N --pp 1`'s
/// weights). `kv --tp` fits with it.
pub fn tp_device_bytes(m: &Model, w: &WeightBytes, tp: u64) -> f64 {
    let t = tp.max(1) as f64;
    let routed = m
        .moe
        .as_ref()
        .map_or(0.0, |x| x.routed_experts.get() as f64);
    device_bytes(
        &per_layer_of(m, w),
        w,
        &StageSlice {
            layers: m.layers.get() as f64,
            dense: m.dense_ffn_layers() as f64,
            moe: m.moe_layers() as f64,
            tp: t,
            experts_per_device: routed / t,
            first: true,
            last: true,
            lm_head_split: 1.0,
        },
    )
}

/// What some of a forward's ops add to one pipeline stage's time on one
/// device ([`Replica::add_part`](super::Replica::add_part)): sums that add over ops.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StagePart {
    /// FLOPs one device of the stage does: the roofline's (speed of
    /// light), and what the power model counts in both modes.
    pub flops: f64,
    /// Bytes it moves, likewise.
    pub bytes: f64,
    /// Elements it computes on the strided elementwise path (the
    /// per-operation model's; the power model's).
    pub strided: f64,
    /// Launch overhead, seconds.
    pub launch_s: f64,
    /// The per-operation model's sums (`--achievable`).
    pub priced: step::price::Part,
}

impl std::ops::AddAssign for StagePart {
    fn add_assign(&mut self, o: StagePart) {
        self.flops += o.flops;
        self.bytes += o.bytes;
        self.strided += o.strided;
        self.launch_s += o.launch_s;
        self.priced += o.priced;
    }
}

/// The routed experts of one device's expert group.
struct ExpertGroup {
    /// Distinct experts the device holds that its group's tokens touch,
    /// per MoE layer.
    held: f64,
    /// Rows each touched expert's GEMMs run.
    rows: u64,
}

/// Shards a replica's forward pass (serving's typed per-op costs) onto one
/// device of one stage (formulas.md, "Plans", time).
pub(super) struct Shard<'a, 'b> {
    pub(super) s: &'a Setup<'b>,
    pub(super) l: Layout,
    pub(super) kv_share: f64,
    pub(super) experts_per_device: f64,
    /// One routed expert's weights, bytes.
    pub(super) expert_bytes: f64,
    /// Ranks the LM head's vocabulary is split over beyond TP
    /// ([`super::Setup::lm_head_split`]).
    pub(super) lm_head_split: f64,
}

impl Shard<'_, '_> {
    /// What the ops of `st` (a pass of `tokens` tokens, or some of its
    /// ops) add to one stage's time: its FLOPs, bytes and launch overhead
    /// on the roofline, or under `--achievable` each op priced on its own.
    /// Parts add; [`Shard::time_of`] of a stage's sum is its time.
    pub(super) fn part(
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
            let sharded = self.sharded(st, tokens, n_dense, n_moe, first, last);
            let ops = || sharded.ops.iter().chain(&sharded.extra);
            return StagePart {
                flops: ops().map(|o| o.flops).sum(),
                bytes: ops().map(step::Op::bytes).sum(),
                strided: ops().map(step::Op::strided_elements).sum(),
                priced: p.part(&sharded),
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
                "lm-head" if last => {
                    // Split over G ranks, each computes its slice of all G
                    // ranks' rows: the same FLOPs, 1/G of the weights.
                    flops += op.flops / t;
                    bytes += op.weight_bytes / (t * self.lm_head_split) + op.activation_bytes / t;
                    continue;
                }
                "lm-head" => (0.0, 0.0),
                "routed-experts" => {
                    // A device does k/tp of its replica's tokens' expert work
                    // and reads the experts it holds that any token of its
                    // expert group routes to.
                    flops += op.flops * f_moe / t;
                    bytes += op.activation_bytes * f_moe / t;
                    if let Some(moe) = &m.moe {
                        let g = self.expert_group(moe, tokens);
                        bytes += n_moe * g.held * self.expert_bytes;
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

    /// The routed experts one device of a replica running `tokens` tokens
    /// reads per MoE layer: every token of its expert group (the ep ranks'
    /// replicas, or the tp ranks of one) routes k of the experts, and the
    /// device reads those it holds that any of them touched.
    fn expert_group(&self, moe: &crate::spec::model::Moe, tokens: f64) -> ExpertGroup {
        let e = moe.routed_experts.get();
        let k = moe.experts_per_token.get();
        let tokens = tokens * (self.l.ep.max(self.l.tp) as f64 / self.l.tp as f64);
        let touched = step::experts_touched(e, k, tokens.ceil() as u64);
        ExpertGroup {
            held: self.experts_per_device * touched / e as f64,
            rows: ((tokens * k as f64) / touched.max(1.0)).ceil().max(1.0) as u64,
        }
    }

    /// The operations of a stage's part as the power model sees them: the
    /// FLOPs, bytes and strided elements its time counts, so the step's
    /// power is its own bytes' and FLOPs' energy over its own time
    /// (formulas.md, "Power and energy").
    pub(super) fn work(
        &self,
        st: &step::Step,
        tokens: f64,
        n_dense: f64,
        n_moe: f64,
        first: bool,
        last: bool,
    ) -> Vec<crate::calc::power::Work> {
        if self.s.step.pricer.is_some() {
            let sharded = self.sharded(st, tokens, n_dense, n_moe, first, last);
            crate::calc::power::step_work(&sharded, 1.0).collect()
        } else {
            let p = self.part(st, tokens, n_dense, n_moe, first, last);
            vec![crate::calc::power::Work {
                flops: p.flops,
                bytes: p.bytes,
                ..Default::default()
            }]
        }
    }

    /// A stage's time from the sum of its parts: the roofline time plus
    /// launch overhead, or the per-operation model's time.
    pub(super) fn time_of(&self, part: &StagePart) -> f64 {
        self.time_with_wait(part, 0.0)
    }

    /// A stage's time from the sum of its parts and `wait_s` of
    /// communication between its kernels, the communication included:
    /// under the power limit the GPU's waits lower its power and raise its
    /// clock (formulas.md, "Achievable: the power limit over a step").
    pub(super) fn time_with_wait(&self, part: &StagePart, wait_s: f64) -> f64 {
        self.time_with_calls(part, wait_s, wait_s)
    }

    /// As [`Shard::time_with_wait`], the collectives' host path over the
    /// stage's calls (`host_wait_s`) counted apart from their GPU time.
    pub(super) fn time_with_calls(&self, part: &StagePart, wait_s: f64, host_wait_s: f64) -> f64 {
        match &self.s.step.pricer {
            Some(p) => p.time_with_calls(&part.priced, wait_s, host_wait_s),
            None => self.s.roof.time(part.flops, part.bytes).time_s + part.launch_s + wait_s,
        }
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
        tokens: f64,
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
        out.kv_heads = (st.kv_heads / t).max(1.0);
        let ep = self.l.ep > 1;
        for op in out.ops.iter_mut().chain(out.extra.iter_mut()) {
            if ep
                && op.name == "routed-experts"
                && let Some(moe) = &m.moe
            {
                self.held_experts(op, moe, tokens, f_moe);
                continue;
            }
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
            if tp > 1 {
                // A row-parallel projection's partial output is summed by
                // the all-reduce before the residual is added, so it
                // cannot fold the residual in (`addmm`): no copy.
                op.copies = 0.0;
            }
            if op.name == "lm-head" && self.lm_head_split > 1.0 {
                // Its vocabulary over the attention data-parallel group:
                // G times the rows (every rank's sampled tokens), 1/G of
                // the columns and of the weights.
                let g = self.lm_head_split;
                op.weight_bytes /= g;
                if let Some(gemm) = &mut op.gemms[0] {
                    gemm.m = gemm.m.saturating_mul(g as u64);
                    gemm.n = gemm.n.div_ceil(g as u64).max(1);
                }
            }
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

    /// A routed-experts op under expert parallelism, as [`Shard::part`]
    /// counts it: the device does k/tp of its replica's tokens' expert
    /// work, each expert whole, and reads the experts it holds that its
    /// group's tokens touch (not the replica's touched experts over the
    /// whole model).
    fn held_experts(
        &self,
        op: &mut step::Op,
        moe: &crate::spec::model::Moe,
        tokens: f64,
        f_moe: f64,
    ) {
        let t = self.l.tp as f64;
        let g = self.expert_group(moe, tokens);
        let layers = self.s.moe_layers() as f64 * f_moe;
        op.flops *= f_moe / t;
        op.activation_bytes *= f_moe / t;
        op.weight_bytes = layers * g.held * self.expert_bytes;
        op.count *= f_moe;
        if op.grouped.is_none() {
            op.kernels = step::MOE_ROUTING_KERNELS + step::KERNELS_PER_TOUCHED_EXPERT * g.held;
        }
        for gemm in op.gemms.iter_mut().flatten() {
            gemm.m = g.rows;
            gemm.groups = g.held.max(1.0);
        }
    }
}

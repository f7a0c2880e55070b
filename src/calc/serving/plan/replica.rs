//! One data-parallel replica of a layout, resolved once so that forward
//! passes of any shape can be priced on it (`simulate`, `fleet`).

use super::comm::{Comm, comm};
use super::evaluate::evaluate;
use super::stage::{Shard, StagePart, per_layer, stage_layers};
use super::{Layout, Setup, Workload};
use crate::calc::step;
use crate::error::Result;

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
    /// The engine its steps run on.
    pub fn engine(&self) -> &crate::spec::engine::Engine {
        &self.shard.s.step.engine
    }

    /// The power model of its part at its compute precision, or the field
    /// its file lacks.
    pub fn power_model(&self) -> std::result::Result<crate::calc::power::PowerModel, String> {
        crate::calc::power::PowerModel::of(self.shard.s.hw, self.shard.s.step.compute)
    }

    /// Datasheet or achievable times.
    pub fn mode(&self) -> crate::spec::hardware::Mode {
        self.shard.s.mode
    }

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
        let stages = stage_layers(s.model, l.pp);
        let pl = per_layer(s);
        Ok(Replica {
            shard: Shard {
                s,
                l,
                kv_share: p.kv_share,
                experts_per_device: p.experts_per_device,
                expert_bytes: pl.expert,
                lm_head_split: s.lm_head_split(l) as f64,
            },
            stages,
            layout: l,
            weight_bytes: p.weight_bytes,
            kv_bytes_per_token: p.kv_bytes_per_token_layer * per_stage as f64 * p.kv_share,
            // With --reserve step, the largest step's activations and
            // logits are held back too (plan's own pass is one token).
            kv_budget_bytes: p.usable_bytes
                - p.weight_bytes
                - match (s.runtime_bytes, s.step_shape) {
                    (Some(_), Some((tokens, seqs))) => {
                        super::step_reserve_bytes(s.model, l.tp, tokens, seqs)
                    }
                    _ => 0.0,
                },
        })
    }

    /// The communication of one pass of `tokens` tokens, the LM head's
    /// left out ([`Replica::lm_head_s`]).
    pub fn comm(&self, tokens: f64) -> Result<Comm> {
        comm(self.shard.s, self.layout, tokens, 0.0)
    }

    /// The LM head's collectives for `seqs` sampled tokens, seconds: 0
    /// unless its vocabulary is split over an attention data-parallel
    /// group.
    pub fn lm_head_s(&self, seqs: f64) -> Result<f64> {
        let mut c = Comm::default();
        Ok(super::comm::lm_head_gathers(self.shard.s, self.layout, seqs, &mut c)?.0)
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
                let wait = c.stage_comm_s(n_dense, n_moe, i != last, i == last);
                let host = c.host_s(n_dense, n_moe, i != last).unwrap_or(wait);
                let t = self.shard.time_with_calls(p, wait, host);
                // What the compute hides (formulas.md, "Plans: communication
                // under compute"), priced only where something may be.
                if c.overlappable_s(n_dense, n_moe, i != last, i == last) > 0.0 {
                    let compute = self.shard.time_with_calls(p, 0.0, 0.0);
                    t - c.hidden_s(n_dense, n_moe, i != last, i == last, compute)
                } else {
                    t
                }
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

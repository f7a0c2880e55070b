//! The communication of one pass through one stage: TP all-reduces, EP
//! all-to-alls and the stage-to-stage send (formulas.md, "Plans").

use super::{Layout, Setup};
use crate::calc::collective::{self, Kind};
use crate::error::Result;
use crate::spec::engine::OverlapKind;
use crate::spec::hardware::Mode;
use serde::Serialize;

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
    /// One EP dispatch all-to-all, seconds.
    pub ep_alltoall_s: f64,
    /// One EP combine all-to-all, seconds (the dispatch's, save at speed
    /// of light where the dispatch goes in fp8).
    pub ep_combine_s: f64,
    /// What runs under compute (formulas.md, "Plans: communication under
    /// compute").
    pub overlap: Overlapped,
    /// Where the LM head's vocabulary is split over an attention
    /// data-parallel group (formulas.md, "Plans: attention data-parallel
    /// with expert parallelism"): each rank's hidden states of its sampled
    /// tokens, all-gathered before the head, bytes per rank.
    pub lm_head_gather_bytes: f64,
    /// Its slice of every rank's logits, all-gathered after the head,
    /// bytes per rank.
    pub lm_head_logits_bytes: f64,
    /// The two all-gathers, seconds (on the last stage).
    pub lm_head_s: f64,
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
    /// The host's path of one eager collective call where it is priced
    /// apart from the GPU's time (formulas.md, "Collectives", protocols):
    /// the `*_s` figures above are then the GPU's time, and the host's
    /// path over a stage's calls runs alongside it. `None`: each call's
    /// time holds both.
    #[serde(skip)]
    pub call_host_s: Option<f64>,
    /// EP all-to-alls per MoE layer (dispatch and combine).
    #[serde(skip)]
    pub alltoalls_per_moe_layer: u64,
}

/// The communication a pass may run under its compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Overlapped {
    /// None: compute, then communication.
    #[default]
    None,
    /// All of it (speed of light: another microbatch's compute can run
    /// under any collective, so the bound takes the longer of the two).
    All,
    /// The EP all-to-alls (an engine's two-batch overlap).
    EpAllToAll,
}

impl Comm {
    /// Communication of a stage (`n_dense` dense and `n_moe` MoE layers,
    /// and its send when `send`) that runs under the stage's compute,
    /// seconds; the pass hides up to its compute time of it.
    /// `last`: the stage holds the LM head.
    pub fn overlappable_s(&self, n_dense: f64, n_moe: f64, send: bool, last: bool) -> f64 {
        match self.overlap {
            Overlapped::None => 0.0,
            Overlapped::All => {
                n_dense * self.dense_layer_s
                    + n_moe * self.moe_layer_s
                    + if send { self.pp_send_s } else { 0.0 }
                    + if last { self.lm_head_s } else { 0.0 }
            }
            Overlapped::EpAllToAll => n_moe * (self.ep_alltoall_s + self.ep_combine_s),
        }
    }

    /// Of a stage's communication, what its compute of `compute_s` hides.
    pub fn hidden_s(
        &self,
        n_dense: f64,
        n_moe: f64,
        send: bool,
        last: bool,
        compute_s: f64,
    ) -> f64 {
        self.overlappable_s(n_dense, n_moe, send, last)
            .min(compute_s.max(0.0))
    }

    /// A stage's communication (`n_dense` dense and `n_moe` MoE layers,
    /// its send when `send`, the LM head's gathers when `last`), seconds.
    pub fn stage_comm_s(&self, n_dense: f64, n_moe: f64, send: bool, last: bool) -> f64 {
        n_dense * self.dense_layer_s
            + n_moe * self.moe_layer_s
            + if send { self.pp_send_s } else { 0.0 }
            + if last { self.lm_head_s } else { 0.0 }
    }

    /// The host's path over a stage's collective calls (`n_dense` dense
    /// and `n_moe` MoE layers, and its send when `send`), where it is
    /// priced apart from the GPU's time.
    pub fn host_s(&self, n_dense: f64, n_moe: f64, send: bool) -> Option<f64> {
        let calls = n_dense * self.allreduces_per_dense_layer as f64
            + n_moe * (self.allreduces_per_moe_layer + self.alltoalls_per_moe_layer) as f64
            + if send && self.pp_send_bytes > 0.0 {
                1.0
            } else {
                0.0
            };
        self.call_host_s.map(|h| h * calls)
    }
}

/// Activations travel and live in bf16.
pub(super) const ACT_BYTES: f64 = 2.0;

/// The GPU's time of a collective of `bytes` per rank over `n` devices
/// (0 for one), and the host's path of the call where it is priced apart.
fn coll(s: &Setup, kind: Kind, n: u64, bytes: f64) -> Result<(f64, Option<f64>)> {
    if n <= 1 || bytes <= 0.0 {
        return Ok((0.0, None));
    }
    let c = collective::time_on(&s.fabric, kind, n, bytes, None, &s.step.engine)?;
    Ok((c.gpu_s, c.host_s))
}

/// The communication of a pass of `tokens` tokens of which `seqs` sample
/// (the LM head's rows).
pub(super) fn comm(s: &Setup, l: Layout, tokens: f64, seqs: f64) -> Result<Comm> {
    let d = s.model.hidden_size.get() as f64;
    let mut c = Comm {
        tp_allreduce_bytes: tokens * d * ACT_BYTES,
        ..Default::default()
    };
    let (t, host) = coll(s, Kind::AllReduce, l.tp, c.tp_allreduce_bytes)?;
    c.tp_allreduce_s = t;
    c.call_host_s = host;
    let tp_on = u64::from(l.tp > 1);
    c.allreduces_per_dense_layer = 2 * tp_on;
    if let Some(moe) = &s.model.moe {
        let k = moe.experts_per_token.get() as f64;
        if l.ep > 1 {
            c.allreduces_per_moe_layer = tp_on;
            // Each TP rank dispatches its 1/tp share of the replica's tokens,
            // each to k experts.
            c.ep_alltoall_bytes = tokens / l.tp as f64 * k * d * ACT_BYTES;
            let (t, host) = if s.mode == Mode::SpeedOfLight {
                // The fewest bytes a dispatch must move (formulas.md,
                // "Plans: the EP all-to-all at speed of light"): one copy
                // of a token per domain it reaches, and fp8 dispatch
                // where the activations are fp8; the combine in bf16.
                let f = node_dedup(s, l, moe.routed_experts.get(), moe.experts_per_token.get());
                let (combine, _) = coll(s, Kind::AllToAll, l.ep, c.ep_alltoall_bytes * f)?;
                c.ep_combine_s = combine;
                let narrow = s.step.precisions.activation.min(ACT_BYTES) / ACT_BYTES;
                coll(s, Kind::AllToAll, l.ep, c.ep_alltoall_bytes * f * narrow)?
            } else {
                let r = coll(s, Kind::AllToAll, l.ep, c.ep_alltoall_bytes)?;
                c.ep_combine_s = r.0;
                r
            };
            c.ep_alltoall_s = t;
            c.alltoalls_per_moe_layer = 2;
            c.call_host_s = c.call_host_s.or(host);
        } else {
            c.allreduces_per_moe_layer = 2 * tp_on;
        }
    }
    c.dense_layer_s = c.allreduces_per_dense_layer as f64 * c.tp_allreduce_s;
    c.moe_layer_s =
        c.allreduces_per_moe_layer as f64 * c.tp_allreduce_s + c.ep_alltoall_s + c.ep_combine_s;
    if l.pp > 1 {
        c.pp_send_bytes = tokens * d * ACT_BYTES;
        let across = s.fabric.domain().is_some_and(|dom| l.tp * l.dp >= dom);
        let n = if across {
            2 * s.fabric.domain().unwrap_or(1)
        } else {
            2
        };
        let send = collective::time(&s.fabric, Kind::SendRecv, n, c.pp_send_bytes, None)?;
        c.pp_send_s = send.gpu_s;
        c.call_host_s = c.call_host_s.or(send.host_s);
    }
    let (t, host) = lm_head_gathers(s, l, seqs, &mut c)?;
    c.lm_head_s = t;
    c.call_host_s = c.call_host_s.or(host);
    c.overlap = match s.mode {
        Mode::SpeedOfLight => Overlapped::All,
        Mode::Achievable
            if tokens >= 2.0
                && c.ep_alltoall_s > 0.0
                && s.step.engine.overlap.ep_all_to_all == OverlapKind::TwoBatch =>
        {
            Overlapped::EpAllToAll
        }
        Mode::Achievable => Overlapped::None,
    };
    Ok(c)
}

/// The LM head's collectives where its vocabulary is split over the
/// attention data-parallel group of E = T x G ranks (formulas.md, "Plans:
/// attention data-parallel with expert parallelism"): every rank's hidden
/// states of its `seqs` sampled tokens all-gathered over E (`seqs / T x
/// hidden x 2 B` a rank), and each rank's vocabulary slice of all G x seqs
/// rows' logits all-gathered back (`G seqs x vocab / E x 2 B = seqs x vocab
/// / T x 2 B` a rank). None where each rank keeps its own head: (0, None).
pub(super) fn lm_head_gathers(
    s: &Setup,
    l: Layout,
    seqs: f64,
    c: &mut Comm,
) -> Result<(f64, Option<f64>)> {
    let g = s.lm_head_split(l);
    if g <= 1 || seqs <= 0.0 {
        return Ok((0.0, None));
    }
    let n = l.tp * g;
    let d = s.model.hidden_size.get() as f64;
    let vocab = s.model.vocab_size.get() as f64;
    let t = l.tp as f64;
    c.lm_head_gather_bytes = seqs / t * d * ACT_BYTES;
    c.lm_head_logits_bytes = seqs * vocab / t * ACT_BYTES;
    let (a, host) = coll(s, Kind::AllGather, n, c.lm_head_gather_bytes)?;
    let (b, _) = coll(s, Kind::AllGather, n, c.lm_head_logits_bytes)?;
    Ok((a + b, host))
}

/// The share of an EP all-to-all's bytes that must cross domains once each
/// token goes to each domain it reaches once (and is forwarded inside it),
/// against the per-pick exchange [`collective`] prices: where the expert
/// group spans G > 1 scale-up domains, a token's k picks of E experts
/// (spread evenly, E / G a domain) reach a given other domain with
/// probability 1 - C(E - E/G, k) / C(E, k); the per-pick exchange sends
/// k (n - d) / n copies across. 1 where the group fits one domain.
pub(super) fn node_dedup(s: &Setup, l: Layout, experts: u64, k: u64) -> f64 {
    let Some(dom) = s.fabric.domain() else {
        return 1.0;
    };
    let n = l.ep;
    if dom <= 1 || n <= dom || experts == 0 || k == 0 {
        return 1.0;
    }
    let g = n as f64 / dom as f64;
    let e = experts as f64;
    let per = e / g;
    // P(no pick lands in one given other domain)
    let mut miss = 1.0;
    for i in 0..k.min(experts) {
        let i = i as f64;
        miss *= ((e - per - i) / (e - i)).max(0.0);
    }
    let reached = (g - 1.0) * (1.0 - miss);
    let per_pick = k as f64 * (n - dom) as f64 / n as f64;
    (reached / per_pick).min(1.0)
}

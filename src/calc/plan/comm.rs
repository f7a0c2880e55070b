//! The communication of one pass through one stage: TP all-reduces, EP
//! all-to-alls and the stage-to-stage send (formulas.md, "Plans").

use super::{Layout, Setup};
use crate::calc::collective::{self, Kind};
use crate::error::Result;
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

/// Activations travel and live in bf16.
pub(super) const ACT_BYTES: f64 = 2.0;

/// Time of a collective of `bytes` per rank over `n` devices, 0 for one.
fn coll(s: &Setup, kind: Kind, n: u64, bytes: f64) -> Result<f64> {
    if n <= 1 || bytes <= 0.0 {
        return Ok(0.0);
    }
    Ok(collective::time(&s.fabric, kind, n, bytes, None)?.time_s)
}

pub(super) fn comm(s: &Setup, l: Layout, tokens: f64) -> Result<Comm> {
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

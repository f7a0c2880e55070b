//! The pieces of the 2026 model families a forward adds beyond the Llama
//! layer (formulas.md, "Achievable: a forward operation by operation",
//! q/k norm, sinks and weight formats): the per-head RMSNorm of queries and
//! keys (Qwen3, Gemma 3), the sink logit each head adds to its softmax
//! (gpt-oss), and each module's weights read at its own format (gpt-oss's
//! MXFP4 experts beside bf16 attention).

use super::{KernelClass, LM_HEAD, Op, OpKind, Precisions};
use crate::spec::engine::Engine;
use crate::spec::model::Model;

/// Bytes per element of the q and k the norm reads and writes (the 16-bit
/// stream).
const STREAM_BYTES: f64 = 2.0;

/// Kernels of the q/k norm as a PyTorch forward runs it: the RMS
/// normalisation over each head, then the multiply by the q and k weights
/// (validation/qwen3_decode_h200.py); an engine with one-pass norms runs
/// one norm kernel for q and one for k.
pub const QK_NORM_KERNELS: f64 = 2.0;

/// The q/k norm of `tokens` tokens, all layers, as engine `e` runs it:
/// each kernel reads and writes its share of the (h + h_kv) x d_h query
/// and key elements. PyTorch's is a norm kernel (`kernel-fixed.norm`) and
/// an elementwise multiply; one-pass norms are priced as elementwise
/// kernels (formulas.md, "Engines: how a profile turns into kernels").
/// Empty for a model without it.
pub fn qk_norm(m: &Model, tokens: u64, e: &Engine) -> Vec<Op> {
    if m.attention.qk_norm == crate::spec::model::QkNorm::None {
        return Vec::new();
    }
    let layers = m.layers.get() as f64;
    let qk = tokens as f64 * (m.attention.heads.get() + m.kv_heads()) as f64 * m.head_dim() as f64;
    // One pass over the q and k elements: read and write each.
    let pass = 2.0 * qk * STREAM_BYTES * layers;
    if e.fusion.norm_one_pass {
        return vec![Op {
            class: KernelClass::Pointwise,
            activation_bytes: pass,
            ..Op::plain("qk-norm", OpKind::Elementwise, layers, QK_NORM_KERNELS)
        }];
    }
    vec![
        Op {
            class: KernelClass::Norm,
            activation_bytes: pass,
            ..Op::plain("qk-norm", OpKind::Elementwise, layers, 1.0)
        },
        Op {
            class: KernelClass::Pointwise,
            activation_bytes: pass,
            ..Op::plain("qk-norm-scale", OpKind::Elementwise, layers, 1.0)
        },
    ]
}

/// The sink logits' FLOPs: one more score a query head, exponentiated and
/// added into the softmax's denominator (2 FLOPs), every layer. Zero for
/// a model without sinks.
pub fn sink_flops(m: &Model, tokens: u64) -> f64 {
    if !m.attention.sinks {
        return 0.0;
    }
    2.0 * tokens as f64 * m.attention.heads.get() as f64 * m.layers.get() as f64
}

/// The `weight-formats` module an op's weights belong to.
fn module_of(op: &str) -> Option<&'static str> {
    Some(match op {
        "embedding" => "embedding",
        "qkv" | "o" | "attention-projections" => "attention",
        "ffn" => "dense-ffn",
        "router" => "router",
        "shared-experts" => "shared-experts",
        "routed-experts" => "routed-experts",
        LM_HEAD => "lm-head",
        _ => return None,
    })
}

/// Reads each op's weights at its module's format (`weight-formats`),
/// where the model lists one; the rest stay at `p.weight`.
pub fn apply_formats(m: &Model, ops: &mut [Op], p: &Precisions) {
    if m.weight_formats.is_empty() || p.weight <= 0.0 {
        return;
    }
    for op in ops.iter_mut() {
        if let Some(module) = module_of(op.name) {
            let b = crate::calc::model::module_bytes(m, module, p.weight);
            op.weight_bytes *= b / p.weight;
        }
    }
}

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

/// What the eager attention path adds to a forward (formulas.md,
/// "Engines: attention paths"): the bytes and kernels of its two batched
/// GEMMs beyond a fused kernel's, and the elementwise kernels between them.
#[derive(Debug, Clone, PartialEq)]
pub struct Eager {
    /// Score and value FLOPs of the full rectangle (the mask zeroes the
    /// rest; nothing is skipped), all layers.
    pub flops: f64,
    /// Bytes the GEMMs move beyond a fused kernel's: the keys and values
    /// copied to every query head (written by `repeat_kv`, read by the
    /// GEMMs) and the scores written and the probabilities read, all layers.
    pub gemm_bytes: f64,
    /// The second batched GEMM (the fused kernel is one).
    pub gemm_kernels: f64,
    /// The kernels between the GEMMs.
    pub between: Op,
    /// MLA over an odd key count: its latent GEMMs' misaligned kernels.
    pub latent_odd: Option<super::LatentOdd>,
}

/// Bytes per score element passes of the eager softmax make, in reads and
/// writes of the score matrix: the scale (2), the mask add (2), the sink
/// column's concatenation (2), the row max (1), its subtraction (2) and the
/// softmax (2); without sinks the scale, the mask and the softmax (6).
fn score_passes(sinks: bool) -> (f64, f64) {
    if sinks { (11.0, 6.0) } else { (6.0, 3.0) }
}

/// The eager path of `batch` sequences of `new` tokens over a cache whose
/// layers hold `seen` tokens on average (a window caps a windowed layer's
/// cache), KV `kv_layer` bytes a token a layer, as transformers'
/// `eager_attention_forward` runs it; for MLA, its absorbed attention as
/// batched GEMMs over the latent ([`mla_absorbed`]).
pub fn eager(
    m: &Model,
    batch: u64,
    new: u64,
    seen: f64,
    kv_layer: f64,
    p: &Precisions,
) -> Option<Eager> {
    if m.attention.kind == crate::spec::model::AttentionKind::Mla {
        return mla_absorbed(m, batch, new, seen, p);
    }
    let layers = m.layers.get() as f64;
    let h = m.attention.heads.get() as f64;
    let dh = m.head_dim() as f64;
    let group = h / m.kv_heads() as f64;
    let (b, q) = (batch as f64, new as f64);
    // Each query scores every key the layer holds after this pass's write.
    let keys = seen + q;
    let scores = b * h * q * keys;
    let a = p.activation;
    // repeat_kv copies keys and values to every query head when heads share
    // them (read once, written `group` times); the GEMMs read the copies.
    let expand = if group > 1.0 {
        2.0 * group * b * keys * kv_layer
    } else {
        0.0
    };
    let (passes, kernels) = score_passes(m.attention.sinks);
    let copies = if group > 1.0 { 2.0 } else { 0.0 };
    // The output's transpose made contiguous: read and write it.
    let out = 2.0 * b * q * h * dh * a;
    Some(Eager {
        flops: 2.0 * h * 2.0 * dh * q * keys * b * layers,
        gemm_bytes: (expand + 2.0 * scores * a) * layers,
        gemm_kernels: 1.0,
        between: Op {
            class: KernelClass::Pointwise,
            activation_bytes: (passes * scores * a + out) * layers,
            ..Op::plain(
                "attention-scores",
                OpKind::Elementwise,
                layers,
                kernels + 1.0 + copies,
            )
        },
        latent_odd: None,
    })
}

/// Kernels of MLA's absorbed attention in plain PyTorch beyond the fused
/// kernel's one, a layer (validation/mla_steps.py's `decode_step`, the
/// kernels of one replay in validation/results/2026-12-07-h100/
/// h100a-mla-log.txt): between the two latent GEMMs the scale, the cast
/// to fp32, the softmax and the cast back; around them the query's fold by
/// W_UK and the output's by W_UV (two batched GEMMs over the heads), the
/// folded query concatenated with its rotary part, the output made
/// contiguous.
const MLA_BETWEEN_KERNELS: f64 = 4.0;
const MLA_AROUND_KERNELS: f64 = 4.0;

/// MLA's absorbed attention as plain PyTorch runs it (formulas.md,
/// "Engines: attention paths", MLA): the scores one batched GEMM of each
/// sequence's h x q queries over its latent and rotary keys, written out
/// (E = B x h x q x K elements at the activation precision), scaled, cast
/// to fp32, softmaxed and cast back, then a second batched GEMM over the
/// latent's first r columns (the latent read again). FLOPs are the fused
/// kernel's; the bytes beyond its single read of the latent are the second
/// read (B x K x r x kv bytes) and the scores written and read back by the
/// GEMMs (2 E a); between them `E (4 a + 16)` bytes in 4 kernels.
fn mla_absorbed(m: &Model, batch: u64, new: u64, seen: f64, p: &Precisions) -> Option<Eager> {
    let a = &m.attention;
    let r = a.kv_lora_rank?.get() as f64;
    let rope = a.qk_rope_head_dim.map_or(0.0, |x| x.get() as f64);
    let layers = m.layers.get() as f64;
    let h = a.heads.get() as f64;
    let (b, q) = (batch as f64, new as f64);
    let keys = seen + q;
    let scores = b * h * q * keys;
    let act = p.activation;
    // Scale (read, write), cast to fp32 (read, write 4 B), softmax (4 B
    // each way), cast back (read 4 B, write).
    let between = scores * (4.0 * act + 16.0);
    // The folded query and rotary part concatenated (read, write), the
    // output made contiguous (read, write).
    let around = 2.0 * b * q * h * (r + rope) * act + 2.0 * b * q * h * r * act;
    Some(Eager {
        flops: 2.0 * h * (2.0 * r + rope) * q * keys * b * layers,
        gemm_bytes: (b * keys * r * p.kv + 2.0 * scores * act) * layers,
        gemm_kernels: 1.0,
        between: Op {
            class: KernelClass::Pointwise,
            activation_bytes: (between + around) * layers,
            ..Op::plain(
                "attention-scores",
                OpKind::Elementwise,
                layers,
                MLA_BETWEEN_KERNELS + MLA_AROUND_KERNELS,
            )
        },
        // An odd key count leaves the scores' rows (keys x 2 B) off the
        // 16-byte alignment cuBLAS's Hopper kernels need.
        latent_odd: (keys.fract() == 0.0 && keys % 2.0 == 1.0).then_some(super::LatentOdd {
            scores_flops: 2.0 * h * (r + rope) * q * keys * b * layers,
            values_flops: 2.0 * h * r * q * keys * b * layers,
            elements: scores,
        }),
    })
}

/// Bytes per element of an expert's bias: gpt-oss keeps its biases at 16
/// bits beside the MXFP4 blocks (the checkpoint's `*_bias` tensors are
/// bf16; config.json's quantization covers the blocks and scales).
const BIAS_BYTES: f64 = 2.0;

/// Kernels a grouped dispatch adds a layer for biased experts: the bias
/// rows gathered by each routed slot's expert and added, after the
/// gate/up GEMM and after the down GEMM (a grouped GEMM takes no bias).
const GROUPED_BIAS_KERNELS: f64 = 4.0;

/// Biased experts (gpt-oss; formulas.md, "Engines: attention paths",
/// biased experts): the touched experts' bias vectors, `(mats - 1) ff + d`
/// elements each, read every MoE layer. A loop over experts adds them in
/// each expert's GEMM epilogue (`F.linear` with a bias: no kernel); a
/// grouped dispatch gathers each routed slot's rows (read at 16 bits,
/// written at the activation precision) and adds them (read the output and
/// the rows, write the output), four kernels a layer.
#[allow(clippy::too_many_arguments)]
pub fn expert_bias(
    tokens: u64,
    k: u64,
    touched: f64,
    d: u64,
    ff: u64,
    mats: u64,
    moe_layers: f64,
    grouped: bool,
    p: &Precisions,
) -> (Op, Option<Op>) {
    let per_expert = ((mats - 1) * ff + d) as f64;
    let read = Op {
        weight_bytes: touched * per_expert * BIAS_BYTES * moe_layers,
        ..Op::plain("expert-bias", OpKind::Gather, moe_layers, 0.0)
    };
    let between = grouped.then(|| {
        let slots = tokens as f64 * k as f64 * per_expert;
        let a = p.activation;
        Op {
            class: KernelClass::Pointwise,
            activation_bytes: slots * (BIAS_BYTES + a + 3.0 * a) * moe_layers,
            ..Op::plain(
                "expert-bias-add",
                OpKind::Elementwise,
                moe_layers,
                GROUPED_BIAS_KERNELS,
            )
        }
    });
    (read, between)
}

/// What FlexAttention makes of a pass (formulas.md, "Engines: attention
/// paths", FlexAttention).
#[derive(Debug, Clone, PartialEq)]
pub struct Flex {
    /// FLOPs of every tile the block mask marks (a tile partly masked is
    /// computed whole), all layers.
    pub flops: f64,
    /// The kernel's time per FLOP over the dense rate: the FLOP-weighted
    /// mean of 1 / efficiency(span) over the layer kinds.
    pub per_flop: f64,
    /// The output made contiguous and, with sinks, its renormalisation.
    pub between: Op,
    /// Launched eagerly, the host's path of the compiled call
    /// (`attention.flex-call-eager`), seconds, if the engine gives it.
    pub call_host_s: Option<f64>,
}

/// Kernels transformers' flex path runs a layer after the flex kernel
/// with sinks (validation/results/2026-12-07-h100/h100c-families.json,
/// flex_sink_kernels at 4,096: the LSE cast, the sinks concatenated, the
/// logsumexp's max, subtraction, absolute value, fill, exponent, sum, log
/// and add, the subtraction and exponent of the factor, the multiply over
/// the output): 14, beside the output's copy.
const FLEX_SINK_KERNELS: f64 = 14.0;

/// Kernels the compiled flex call adds when it returns the LSE for the
/// sinks (same file, flex_sink_kernels at 4,096: triton_poi_fused_mul_1,
/// the LSE scaled from base 2, 1.95 us; the call without the LSE launches
/// the flex kernel alone).
const FLEX_LSE_KERNELS: f64 = 1.0;

/// Tiles of `block` x `block` one head of one sequence computes when `new`
/// queries join `past` cached keys, causal, each query seeing at most
/// `window` keys: for each query tile, the key tiles from the one holding
/// its first query's oldest visible key to the one holding its last query.
pub fn flex_tiles(new: u64, past: u64, window: u64, block: u64) -> f64 {
    let b = block.max(1);
    let mut tiles = 0u64;
    let mut start = 0u64;
    while start < new {
        let first = past + start;
        let last = past + (start + b).min(new) - 1;
        let lo = (first + 1).saturating_sub(window);
        tiles += last / b - lo / b + 1;
        start += b;
    }
    tiles as f64
}

/// FlexAttention over `batch` sequences of `new` tokens after `past`, as
/// engine `e` describes it (`attention.flex-*`); an error naming the field
/// the engine leaves out.
pub fn flex(
    m: &Model,
    batch: u64,
    new: u64,
    past: u64,
    e: &Engine,
    p: &Precisions,
) -> crate::error::Result<Flex> {
    let at = &e.attention;
    let need = |v: Option<f64>, key: &str| {
        v.ok_or_else(|| {
            crate::error::Error::Unsupported(format!(
                "engine `{}` runs attention on the flex path but has no `attention.{key}`; set it with --set engine.attention.{key}=...",
                e.id
            ))
        })
    };
    let block = need(at.flex_block.map(|x| x.get() as f64), "flex-block")? as u64;
    let peak = need(at.flex_peak_fraction, "flex-peak-fraction")?;
    let half = need(
        at.flex_half_length.map(|x| x.get() as f64),
        "flex-half-length",
    )?;
    let layers = m.layers.get() as f64;
    let h = m.attention.heads.get() as f64;
    let dh = m.head_dim() as f64;
    let win = m.window();
    let q_tiles = new.div_ceil(block.max(1)) as f64;
    // Each layer kind: its share of the layers, its tiles.
    let kinds = [
        (1.0 - win.share, flex_tiles(new, past, u64::MAX, block)),
        (win.share, flex_tiles(new, past, win.tokens, block)),
    ];
    let tile_flops = 2.0 * h * 2.0 * dh * (block * block) as f64 * batch as f64;
    let (mut flops, mut time) = (0.0, 0.0);
    for (share, tiles) in kinds {
        if share <= 0.0 {
            continue;
        }
        let f = share * layers * tiles * tile_flops;
        // The keys a query tile computes, on average.
        let span = tiles / q_tiles * block as f64;
        flops += f;
        time += f * (span + half) / (peak * span);
    }
    let out = batch as f64 * new as f64 * h * dh * p.activation;
    let (kernels, bytes) = if m.attention.sinks {
        // The copy and the multiply each read and write the output; the
        // small kernels move the per-row LSE (a few bytes a row).
        let rows = batch as f64 * new as f64 * h;
        (
            1.0 + FLEX_SINK_KERNELS + FLEX_LSE_KERNELS,
            4.0 * out + 2.0 * (FLEX_SINK_KERNELS - 1.0 + FLEX_LSE_KERNELS) * rows * p.activation,
        )
    } else {
        (1.0, 2.0 * out)
    };
    Ok(Flex {
        flops,
        per_flop: if flops > 0.0 { time / flops } else { 1.0 },
        between: Op {
            class: KernelClass::Pointwise,
            activation_bytes: bytes * layers,
            // With sinks, the renormalisation's host path measured whole.
            host_call_s: at
                .flex_sink_eager
                .filter(|_| m.attention.sinks)
                .map(|s| s.get()),
            ..Op::plain("attention-flex-out", OpKind::Elementwise, layers, kernels)
        },
        call_host_s: at.flex_call_eager.map(|s| s.get()),
    })
}

#[cfg(test)]
mod tests {
    use super::flex_tiles;
    use crate::calc::step::Precisions;
    use crate::catalog::Catalog;
    use crate::spec::overrides::Set;

    #[test]
    fn flex_with_sinks_counts_its_kernels_and_the_measured_host_paths() {
        // formulas.md, "Engines: attention paths", the flex path's host. A
        // made-up gpt-oss-shaped model: 2 layers of 4 heads (2 KV) of 64 with
        // sinks, 256 new tokens, bf16. By hand, a layer after the flex
        // kernel: the output's copy, 14 sink ops and the LSE's kernel the
        // compiled call adds (16, the profiler's count beside the flex
        // kernel); bytes: the copy and the multiply read and write the
        // output (4 x 256 x 4 x 64 x 2 B = 524,288) and the 14 others
        // move a bf16 value a row each way (2 x 14 x 256 x 4 x 2 B =
        // 57,344), 581,632 B a layer.
        let sets = |v: &[&str]| -> Vec<Set> { v.iter().map(|s| s.parse().unwrap()).collect() };
        let cat = Catalog::default();
        // The small gpt-oss-shaped model, with `extra` set on top.
        let small = |extra: &[&str]| {
            let mut v = vec![
                "model.layers=2",
                "model.attention.heads=4",
                "model.attention.kv-heads=2",
            ];
            v.extend_from_slice(extra);
            cat.model("gpt-oss-20b", &sets(&v)).unwrap()
        };
        let m = small(&[]);
        let p = Precisions {
            weight: 2.0,
            activation: 2.0,
            kv: 2.0,
        };
        let e = cat
            .engine(
                "pytorch",
                &sets(&[
                    "engine.attention.flex-call-eager=100us",
                    "engine.attention.flex-sink-eager=300us",
                ]),
            )
            .unwrap();
        let f = super::flex(&m, 1, 256, 0, &e, &p).unwrap();
        assert_eq!(f.between.kernels, 16.0);
        assert_eq!(f.between.count, 2.0);
        assert!((f.between.activation_bytes - 2.0 * 581_632.0).abs() < 1e-6);
        // The host's paths as given, per layer.
        assert!((f.call_host_s.unwrap() - 100e-6).abs() < 1e-15);
        assert!((f.between.host_call_s.unwrap() - 300e-6).abs() < 1e-15);
        // Without sinks: the copy alone, and no sink host path.
        let plain = small(&["model.attention.sinks=false"]);
        let g = super::flex(&plain, 1, 256, 0, &e, &p).unwrap();
        assert_eq!(g.between.kernels, 1.0);
        assert_eq!(g.between.host_call_s, None);
    }

    #[test]
    fn flex_tiles_are_the_block_masks_measured() {
        // create_block_mask's masks for gpt-oss-20b's layers on an H100
        // (validation/results/2026-12-07-h100/h100c-families.json,
        // flex_attention blocks): tiles a head at 1,024 to 8,192 tokens.
        for (s, window, tiles) in [
            (1024, 128, 15.0),
            (2048, 128, 31.0),
            (4096, 128, 63.0),
            (8192, 128, 127.0),
            (1024, u64::MAX, 36.0),
            (2048, u64::MAX, 136.0),
            (4096, u64::MAX, 528.0),
            (8192, u64::MAX, 2080.0),
        ] {
            assert_eq!(flex_tiles(s, 0, window, 128), tiles, "{s} {window}");
        }
        // By hand: 200 new tokens after 100 cached, a 128-token window:
        // query tile 0 (positions 100-227) needs keys 0-227 (tiles 0, 1);
        // tile 1 (228-299) keys 101-299 (tiles 0, 1, 2).
        assert_eq!(flex_tiles(200, 100, 128, 128), 5.0);
    }
}

//! The kernels between a forward's matmuls (formulas.md, "Achievable: a
//! forward operation by operation", elementwise kernels): the norms, rotary
//! embedding (or a learned position table's add), the gated activation, the residual adds a projection does not
//! fuse, and, with 8-bit activations, the cast of each projection's input.
//! The speed of light takes them as fused away; the per-operation model
//! streams their bytes at the measured bandwidth and pays each kernel's
//! fixed costs. The structure is a PyTorch forward as a serving engine
//! without custom fused kernels runs it (the validation scripts' forward:
//! `F.rms_norm`, rotary as one complex multiply in fp32, SiLU times up, the
//! residual folded into the bf16 projections by `addmm`).

use super::{KernelClass, Op, OpKind, Precisions, Shape, Strided};
use crate::error::Result;
use crate::spec::engine::{Dispatch, Engine};
use crate::spec::model::{Model, PositionEmbedding};

/// Bytes per element of the residual stream and of the tensors the
/// elementwise kernels pass between them: 16-bit whatever the weights (an
/// fp8 projection writes bf16).
const STREAM_BYTES: f64 = 2.0;

/// Bytes per element rotary embedding moves: the 16-bit q and k read and
/// widened to fp32 (2 + 4), the complex multiply (4 + 4), the narrowing
/// back (4 + 2).
const ROTARY_BYTES_PER_ELEMENT: f64 = 20.0;

/// Kernels of rotary embedding in that form: widen, multiply, narrow.
const ROTARY_KERNELS: f64 = 3.0;

/// The elementwise kernels of the forward of `m` at `shape` over `tokens`
/// tokens (batch x new), at precisions `p`, as the default engine runs
/// them.
pub fn kernels_between(m: &Model, shape: Shape, tokens: u64, p: &Precisions) -> Vec<Op> {
    // The plain engine dispatches experts in a loop: nothing to fail on.
    kernels_between_on(m, shape, tokens, p, super::plain_engine()).unwrap_or_default()
}

/// [`kernels_between`] as engine `e` runs them: its fusions and, for a
/// grouped expert dispatch, its routing, permute and combine kernels
/// (formulas.md, "Engines: how a profile turns into kernels").
pub fn kernels_between_on(
    m: &Model,
    shape: Shape,
    tokens: u64,
    p: &Precisions,
    e: &Engine,
) -> Result<Vec<Op>> {
    let fuse = &e.fusion;
    let t = tokens as f64;
    let d = m.hidden_size.get() as f64;
    let layers = m.layers.get() as f64;
    let a = &m.attention;
    let (h, kv) = (a.heads.get() as f64, m.kv_heads() as f64);
    let dh = m.head_dim() as f64;
    let gated = m.ffn.gated();
    let cast = p.activation < STREAM_BYTES - 1e-9;
    let (dense_layers, moe_layers) = (m.dense_ffn_layers() as f64, m.moe_layers() as f64);
    let ew = |name, count: f64, kernels: f64, bytes: f64| Op {
        activation_bytes: bytes * count,
        ..Op::plain(name, OpKind::Elementwise, count, kernels)
    };
    let mut out = Vec::with_capacity(6);
    // Two RMSNorms a layer (norms-per-layer: Gemma 3 has four), each
    // reading and writing the residual stream (fused with the residual
    // add: reading the sum's two inputs and writing the sum and the normed
    // stream).
    let per_norm = if fuse.norm_residual { 4.0 } else { 2.0 };
    let norms = m.norms_per_layer() as f64;
    let norm_class = norm_class(e);
    out.push(Op {
        class: norm_class,
        ..ew(
            "layer-norms",
            layers,
            norms,
            norms * per_norm * t * d * STREAM_BYTES,
        )
    });
    // Rotary embedding, for a model that has it. The widening reads q and
    // k as a strided view of the fused QKV output: it takes the strided
    // path (read 2, write 4 per element).
    let qk = t * (h + kv) * dh * layers;
    if m.position_embedding == PositionEmbedding::Rope && fuse.rotary {
        // One kernel rotating q and k in place: read and write each.
        out.push(ew(
            "rotary",
            layers,
            1.0,
            t * (h + kv) * dh * 2.0 * STREAM_BYTES,
        ));
    } else if m.position_embedding == PositionEmbedding::Rope {
        out.push(Op {
            strided: [
                Some(Strided {
                    elements: qk,
                    bytes: qk * (STREAM_BYTES + 4.0),
                }),
                None,
            ],
            ..ew(
                "rotary",
                layers,
                ROTARY_KERNELS,
                t * (h + kv) * dh * ROTARY_BYTES_PER_ELEMENT,
            )
        });
    }
    // Learned positions: each token's row of the table added to its
    // embedding once, before the first layer (read both, write the sum).
    if m.position_embedding == PositionEmbedding::Learned {
        out.push(ew("positions", 1.0, 1.0, 3.0 * t * d * STREAM_BYTES));
    }
    // The activation of each token's feed-forward (k experts' worth in an
    // MoE layer, whose kernels the routed experts count).
    let fused_act = gated && fuse.gate_up_activation;
    let act = |ff: f64, rows: f64| {
        if fused_act {
            // One kernel: read the gate and up halves, write the product.
            3.0 * rows * ff * STREAM_BYTES
        } else if gated {
            // SiLU(gate) written, then times up: read g, write s; read s and
            // u, write the product.
            5.0 * rows * ff * STREAM_BYTES
        } else {
            2.0 * rows * ff * STREAM_BYTES
        }
    };
    let act_kernels = if gated && !fused_act { 2.0 } else { 1.0 };
    // A gated activation reads the gate and the up halves of the fused
    // gate/up output as strided views: SiLU (read g, write s) and the
    // product (read s and u, write) both take the strided path.
    let act_strided = |ff: f64, rows: f64, count: f64| {
        let e = rows * ff * count;
        if gated && !fused_act {
            [
                Some(Strided {
                    elements: e,
                    bytes: 2.0 * e * STREAM_BYTES,
                }),
                Some(Strided {
                    elements: e,
                    bytes: 3.0 * e * STREAM_BYTES,
                }),
            ]
        } else {
            [None, None]
        }
    };
    if dense_layers > 0.0 {
        let ff = m.ffn.intermediate_size.get() as f64;
        out.push(Op {
            strided: act_strided(ff, t, dense_layers),
            ..ew("activation", dense_layers, act_kernels, act(ff, t))
        });
    }
    if let Some(moe) = &m.moe
        && moe_layers > 0.0
    {
        let ff = moe.expert_intermediate_size.get() as f64;
        let k = moe.experts_per_token.get() as f64;
        let s = moe.shared_experts as f64;
        let grouped = e.moe.dispatch == Dispatch::Grouped;
        let mut bytes = act(ff, t * k);
        // In a loop the routed experts' activation kernels are
        // `routed-experts`'s; a grouped dispatch runs one activation over
        // every pick.
        let mut kernels = if grouped { act_kernels } else { 0.0 };
        let mut strided = act_strided(ff, t * k, moe_layers);
        if s > 0.0 {
            bytes += act(ff * s, t);
            kernels += act_kernels;
            let shared = act_strided(ff * s, t, moe_layers);
            for (a, b) in strided.iter_mut().zip(shared) {
                if let (Some(a), Some(b)) = (a.as_mut(), b) {
                    a.elements += b.elements;
                    a.bytes += b.bytes;
                }
            }
        }
        out.push(Op {
            strided,
            ..ew("expert-activation", moe_layers, kernels, bytes)
        });
        let rd = t * k * d * moe_layers;
        if grouped {
            out.push(grouped_dispatch(e, t, k, d, moe_layers)?);
        } else {
            // Dispatch, per touched expert (formulas.md, expert dispatch):
            // its rows gathered (read, write), its routing weights
            // gathered, its output scaled by them (a broadcast: the strided
            // path) and added back into the layer's output through atomics
            // (read the rows, read and write the output), t x k rows of d
            // in all. Its kernels are counted among `routed-experts`'.
            out.push(Op {
                strided: [
                    Some(Strided {
                        elements: rd,
                        bytes: 2.0 * rd * STREAM_BYTES,
                    }),
                    None,
                ],
                scatter: Some(Strided {
                    elements: rd,
                    bytes: 3.0 * rd * STREAM_BYTES,
                }),
                ..ew(
                    "expert-dispatch",
                    moe_layers,
                    0.0,
                    7.0 * t * k * d * STREAM_BYTES,
                )
            });
        }
    }
    if cast {
        // Each projection's input cast from the 16-bit stream to 8 bits
        // (read 2, write 1 per element): QKV and gate/up read the normed
        // stream (d), the output projection the attention output (h x dh),
        // down the activation (ff); and the two residual adds an 8-bit
        // projection cannot fold in (read two, write one).
        let ff = m.ffn.intermediate_size.get() as f64;
        let elems = t * (d + h * dh + d + ff);
        // The residual adds go into the norms where the engine fuses them.
        let adds = if fuse.norm_residual { 0.0 } else { 2.0 };
        out.push(ew(
            "casts",
            dense_layers,
            4.0 + adds,
            elems * (STREAM_BYTES + p.activation) + adds * 3.0 * t * d * STREAM_BYTES,
        ));
    }
    // The final norm over the tokens the LM head reads.
    let head = (shape.batch * shape.lm_head_tokens) as f64;
    if head > 0.0 {
        out.push(Op {
            class: norm_class,
            ..ew("final-norm", 1.0, 1.0, 2.0 * head * d * STREAM_BYTES)
        });
    }
    Ok(out)
}

/// The kernel class an engine's RMSNorm is priced at: its one-pass kernel
/// at an elementwise kernel's fixed time, PyTorch's at the norm kernel's
/// (formulas.md, "Engines: how a profile turns into kernels").
pub fn norm_class(e: &Engine) -> KernelClass {
    if e.fusion.norm_one_pass {
        KernelClass::Pointwise
    } else {
        KernelClass::Norm
    }
}

/// A grouped expert dispatch's kernels between the router and the grouped
/// GEMMs and after them, `t` tokens picking `k` experts each over rows of
/// `d`, `layers` MoE layers (formulas.md, "Engines: how a profile turns
/// into kernels", grouped experts): the engine's routing, permute and
/// combine kernels and its grouped GEMMs' set-up kernels, each at a
/// pointwise kernel's fixed time; the rows gathered in expert order
/// (read, write) unless the GEMM gathers them, scaled by their routing
/// weights (a broadcast: the strided path) unless the GEMM does, put back
/// in token order (an index copy: the strided path) unless the GEMM
/// writes them there, a token's k rows summed, and the residual added
/// unless the next norm adds it.
fn grouped_dispatch(e: &Engine, t: f64, k: f64, d: f64, layers: f64) -> Result<Op> {
    let g = &e.moe.grouped;
    let [routing, permute, combine, gemm] = e.grouped_kernels()?;
    let r = t * k * d * layers;
    let mut bytes = (r + t * d * layers) * STREAM_BYTES; // the sum over k
    let mut strided: [Option<Strided>; 2] = [None, None];
    if !g.gather_in_gemm {
        bytes += 2.0 * r * STREAM_BYTES;
    }
    if !g.scale_in_gemm {
        bytes += 2.0 * r * STREAM_BYTES;
        strided[0] = Some(Strided {
            elements: r,
            bytes: 2.0 * r * STREAM_BYTES,
        });
    }
    if !g.scatter_in_gemm {
        bytes += 2.0 * r * STREAM_BYTES;
        strided[1] = Some(Strided {
            elements: r,
            bytes: 2.0 * r * STREAM_BYTES,
        });
    }
    let mut kernels = routing + permute + combine + 2.0 * (gemm - 1.0).max(0.0);
    if !e.fusion.norm_residual {
        kernels += 1.0;
        bytes += 3.0 * t * d * layers * STREAM_BYTES;
    }
    Ok(Op {
        activation_bytes: bytes,
        strided,
        ..Op::plain("expert-dispatch", OpKind::Elementwise, layers, kernels)
    })
}

#[cfg(test)]
mod tests {
    use crate::calc::step::{self, Precisions, Shape};
    use crate::catalog::Catalog;
    use crate::spec::overrides::Set;

    fn names(id: &str, sets: &[&str]) -> Vec<&'static str> {
        let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
        let m = Catalog::default().model(id, &sets).unwrap();
        let p = Precisions {
            weight: 2.0,
            activation: 2.0,
            kv: 2.0,
        };
        let shape = Shape {
            batch: 1,
            new: 16,
            past: 0,
            lm_head_tokens: 1,
        };
        let s = step::forward(&m, shape, &p).unwrap();
        s.extra.iter().map(|o| o.name).collect()
    }

    #[test]
    fn rotary_kernels_only_for_rotary_positions() {
        // Llama rotates q and k; GPT-3 adds a learned table's rows once;
        // a NoPE forward does neither.
        let rope = names("llama-3-8b", &[]);
        assert!(rope.contains(&"rotary") && !rope.contains(&"positions"));
        let learned = names("gpt-3-175b", &[]);
        assert!(!learned.contains(&"rotary") && learned.contains(&"positions"));
        let none = names("llama-3-8b", &["position-embedding=none"]);
        assert!(!none.contains(&"rotary") && !none.contains(&"positions"));
    }
}

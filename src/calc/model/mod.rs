//! `model show` and `model list`: parameter counts, weight bytes and KV
//! bytes per token, derived from the architecture (formulas.md, "Model
//! figures").
//!
//! Counts are 64-bit and checked: a size that makes a count overflow is an
//! error naming the model field that dominates the product, never a
//! wrapped number.

use crate::error::{Error, Result};
use crate::precision::{self, Precision};
use crate::report::{Quantity, Report, Unit};
use crate::spec::model::{AttentionKind, Model, PositionEmbedding};
use crate::units::{grouped, si};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// Parameter counts, split the way people reason about them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Params {
    /// Input embedding (and learned positions).
    pub embedding: u64,
    /// Output projection (0 when tied).
    pub lm_head: u64,
    /// Attention projections, all layers.
    pub attention: u64,
    /// Dense feed-forward blocks, all dense layers.
    pub dense_ffn: u64,
    /// Routed experts, all MoE layers.
    pub routed_experts: u64,
    /// Shared experts and routers, all MoE layers.
    pub shared_experts: u64,
    /// Norm weights (and biases).
    pub norms: u64,
    /// Total.
    pub total: u64,
    /// Parameters one token touches.
    pub active: u64,
}

/// A count and the model field that dominates it, so an overflow names
/// the field a person would change.
#[derive(Debug, Clone, Copy)]
struct N {
    v: u64,
    field: &'static str,
}

/// Checked arithmetic on [`N`] for one model.
struct Counter<'a> {
    model: &'a Model,
}

impl Counter<'_> {
    fn overflow(&self, field: &str) -> Error {
        Error::Data {
            file: self.model.id.clone(),
            line: None,
            col: None,
            field: Some(field.to_string()),
            message: "too large: a count derived from it overflows 64 bits".into(),
        }
    }

    /// The field of the larger operand; a constant (no field) is never
    /// blamed.
    fn blame(a: N, b: N) -> &'static str {
        if b.field.is_empty() || (a.v >= b.v && !a.field.is_empty()) {
            a.field
        } else {
            b.field
        }
    }

    fn mul(&self, a: N, b: N) -> Result<N> {
        let field = Self::blame(a, b);
        a.v.checked_mul(b.v)
            .map(|v| N { v, field })
            .ok_or_else(|| self.overflow(field))
    }

    fn product(&self, xs: &[N]) -> Result<N> {
        let mut acc = N {
            v: 1,
            field: xs.first().map_or("layers", |x| x.field),
        };
        for &x in xs {
            acc = self.mul(acc, x)?;
        }
        Ok(acc)
    }

    fn add(&self, a: N, b: N) -> Result<N> {
        let field = Self::blame(a, b);
        a.v.checked_add(b.v)
            .map(|v| N { v, field })
            .ok_or_else(|| self.overflow(field))
    }

    fn sum(&self, xs: &[N]) -> Result<N> {
        let mut acc = N {
            v: 0,
            field: xs.first().map_or("layers", |x| x.field),
        };
        for &x in xs {
            acc = self.add(acc, x)?;
        }
        Ok(acc)
    }
}

fn k(v: u64) -> N {
    N { v, field: "" }
}

/// The named sizes of a model.
struct Sizes {
    d: N,
    h: N,
    layers: N,
    vocab: N,
}

fn sizes(m: &Model) -> Sizes {
    Sizes {
        d: N {
            v: m.hidden_size.get(),
            field: "hidden-size",
        },
        h: N {
            v: m.attention.heads.get(),
            field: "attention.heads",
        },
        layers: N {
            v: m.layers.get(),
            field: "layers",
        },
        vocab: N {
            v: m.vocab_size.get(),
            field: "vocab-size",
        },
    }
}

fn opt(v: Option<std::num::NonZeroU64>, field: &'static str) -> N {
    N {
        v: v.map_or(0, |x| x.get()),
        field,
    }
}

fn head_dim(m: &Model) -> N {
    N {
        v: m.head_dim(),
        field: if m.attention.head_dim.is_some() {
            "attention.head-dim"
        } else {
            "hidden-size"
        },
    }
}

fn kv_heads(m: &Model) -> N {
    N {
        v: m.kv_heads(),
        field: "attention.kv-heads",
    }
}

/// Attention parameters of one layer.
fn attention_per_layer(c: &Counter, m: &Model) -> Result<N> {
    let a = &m.attention;
    let s = sizes(m);
    let (d, h) = (s.d, s.h);
    if a.kind == AttentionKind::Mla {
        // DeepSeek-V2/V3 multi-head latent attention.
        let nope = opt(a.qk_nope_head_dim, "attention.qk-nope-head-dim");
        let rope = opt(a.qk_rope_head_dim, "attention.qk-rope-head-dim");
        let v = opt(a.v_head_dim, "attention.v-head-dim");
        let kv_rank = opt(a.kv_lora_rank, "attention.kv-lora-rank");
        let qk = c.add(nope, rope)?;
        let q = match a.q_lora_rank {
            Some(r) => {
                let r = N {
                    v: r.get(),
                    field: "attention.q-lora-rank",
                };
                c.sum(&[c.mul(d, r)?, r, c.product(&[r, h, qk])?])?
            }
            None => c.product(&[d, h, qk])?,
        };
        let kv = c.sum(&[
            c.mul(d, c.add(kv_rank, rope)?)?,
            kv_rank,
            c.product(&[kv_rank, h, c.add(nope, v)?])?,
        ])?;
        let o = c.product(&[h, v, d])?;
        return c.sum(&[q, kv, o]);
    }
    let dh = head_dim(m);
    let kv = kv_heads(m);
    let mut p = c.sum(&[
        c.product(&[k(2), d, h, dh])?,
        c.product(&[k(2), d, kv, dh])?,
    ])?;
    if a.qkv_bias || m.linear_bias {
        p = c.sum(&[p, c.mul(h, dh)?, c.product(&[k(2), kv, dh])?])?;
    }
    if m.linear_bias {
        p = c.add(p, d)?;
    }
    Ok(p)
}

/// One feed-forward block of width `ff`.
fn ffn(c: &Counter, m: &Model, ff: N) -> Result<N> {
    let d = sizes(m).d;
    let mats = k(if m.ffn.gated() { 3 } else { 2 });
    let mut p = c.product(&[mats, d, ff])?;
    if m.linear_bias {
        p = c.sum(&[p, ff, d])?;
    }
    Ok(p)
}

/// Derives the parameter counts; a count beyond 64 bits is an error naming
/// the field that dominates it.
pub fn params(m: &Model) -> Result<Params> {
    let c = Counter { model: m };
    let s = sizes(m);
    let (d, layers) = (s.d, s.layers);
    let mut embedding = c.mul(s.vocab, d)?;
    if m.position_embedding == PositionEmbedding::Learned {
        let ctx = opt(m.max_context, "max-context");
        embedding = c.add(embedding, c.mul(ctx, d)?)?;
    }
    let lm_head = if m.tied_embeddings {
        k(0)
    } else {
        c.mul(s.vocab, d)?
    };
    let attention = c.mul(attention_per_layer(&c, m)?, layers)?;
    // MLA's latent norms are counted in attention_per_layer.
    let norm_per = c.mul(k(m.norm.params_per_width()), d)?;
    let norms = c.mul(norm_per, c.add(c.mul(k(2), layers)?, k(1))?)?;
    let dense_ff = N {
        v: m.ffn.intermediate_size.get(),
        field: "ffn.intermediate-size",
    };
    let (dense_ffn, routed, shared, active_experts) = match &m.moe {
        None => (c.mul(ffn(&c, m, dense_ff)?, layers)?, k(0), k(0), k(0)),
        Some(moe) => {
            let dense = N {
                v: moe.dense_layers,
                field: "moe.dense-layers",
            };
            let moe_layers = N {
                v: layers.v.saturating_sub(dense.v),
                field: "layers",
            };
            let dense_ffn = c.mul(ffn(&c, m, dense_ff)?, dense)?;
            let one = ffn(
                &c,
                m,
                N {
                    v: moe.expert_intermediate_size.get(),
                    field: "moe.expert-intermediate-size",
                },
            )?;
            let experts = N {
                v: moe.routed_experts.get(),
                field: "moe.routed-experts",
            };
            let routed = c.product(&[one, experts, moe_layers])?;
            // The router is a d x experts linear map; DeepSeek-V3 adds one
            // bias per expert for load balancing.
            let mut router = c.mul(d, experts)?;
            if moe.router_bias {
                router = c.add(router, experts)?;
            }
            let shared_n = N {
                v: moe.shared_experts,
                field: "moe.shared-experts",
            };
            let shared = c.mul(c.add(c.mul(one, shared_n)?, router)?, moe_layers)?;
            let topk = N {
                v: moe.experts_per_token.get(),
                field: "moe.experts-per-token",
            };
            let active = c.product(&[one, topk, moe_layers])?;
            (dense_ffn, routed, shared, active)
        }
    };
    let total = c.sum(&[
        embedding, lm_head, attention, dense_ffn, routed, shared, norms,
    ])?;
    // Validation keeps top-k at or below the routed experts, so the active
    // count is no more than the total.
    let active = c.add(k(total.v - routed.v), active_experts)?;
    Ok(Params {
        embedding: embedding.v,
        lm_head: lm_head.v,
        attention: attention.v,
        dense_ffn: dense_ffn.v,
        routed_experts: routed.v,
        shared_experts: shared.v,
        norms: norms.v,
        total: total.v,
        active: active.v,
    })
}

/// KV-cache elements per token per layer: 2 x KV heads x head dim, or for
/// MLA the latent plus the decoupled rotary key; an error naming the field
/// where that overflows 64 bits.
pub fn kv_elements_per_token_per_layer(m: &Model) -> Result<u64> {
    let c = Counter { model: m };
    let a = &m.attention;
    let n = if a.kind == AttentionKind::Mla {
        c.add(
            opt(a.kv_lora_rank, "attention.kv-lora-rank"),
            opt(a.qk_rope_head_dim, "attention.qk-rope-head-dim"),
        )?
    } else {
        c.product(&[k(2), kv_heads(m), head_dim(m)])?
    };
    Ok(n.v)
}

/// One parameter subtotal with the layer shapes it is derived from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Part {
    /// The result key (`attention_params`).
    pub key: &'static str,
    /// What it counts.
    pub label: &'static str,
    /// The count.
    pub value: u64,
    /// The formula in the shapes' names.
    pub formula: String,
    /// The formula with the numbers substituted.
    pub derivation: String,
}

fn g(v: u64) -> String {
    grouped(v.into())
}

/// The parameter subtotals of [`params`], each derived from the layer
/// shapes (formulas.md, "Model figures"), in the order a person adds them
/// up: embedding, head, attention, MLP, experts, norms.
pub fn breakdown(m: &Model, p: &Params) -> Vec<Part> {
    let a = &m.attention;
    let (d, layers, vocab) = (m.hidden_size.get(), m.layers.get(), m.vocab_size.get());
    let h = a.heads.get();
    let mut out = Vec::new();
    let (mut f, mut x) = ("vocab x d".to_string(), format!("{} x {}", g(vocab), g(d)));
    if m.position_embedding == PositionEmbedding::Learned {
        f.push_str(" + max_context x d (learned positions)");
        x.push_str(&format!(
            " + {} x {}",
            g(m.max_context.map_or(0, |c| c.get())),
            g(d)
        ));
    }
    out.push(Part {
        key: "embedding_params",
        label: "embedding",
        value: p.embedding,
        formula: f,
        derivation: x,
    });
    out.push(if m.tied_embeddings {
        Part {
            key: "lm_head_params",
            label: "output head",
            value: 0,
            formula: "none of its own: tied to the embedding matrix".into(),
            derivation: String::new(),
        }
    } else {
        Part {
            key: "lm_head_params",
            label: "output head",
            value: p.lm_head,
            formula: "vocab x d".into(),
            derivation: format!("{} x {}", g(vocab), g(d)),
        }
    });
    let (f, x) = if a.kind == AttentionKind::Mla {
        let n = |v: Option<std::num::NonZeroU64>| g(v.map_or(0, |x| x.get()));
        let (nope, rope, v, kvr) = (
            n(a.qk_nope_head_dim),
            n(a.qk_rope_head_dim),
            n(a.v_head_dim),
            n(a.kv_lora_rank),
        );
        let (qf, qx) = match a.q_lora_rank {
            Some(r) => (
                "d x q_rank + q_rank + q_rank x h x (nope + rope)",
                format!(
                    "{d} x {r} + {r} + {r} x {h} x ({nope} + {rope})",
                    d = g(d),
                    r = g(r.get()),
                    h = g(h)
                ),
            ),
            None => (
                "d x h x (nope + rope)",
                format!("{} x {} x ({nope} + {rope})", g(d), g(h)),
            ),
        };
        (
            format!(
                "layers x (q + kv + o); q = {qf}, kv = d x (kv_rank + rope) + kv_rank + kv_rank x h x (nope + v), o = h x v x d (the lone q_rank and kv_rank terms are the latent norms)"
            ),
            format!(
                "{} x ({qx} + {d} x ({kvr} + {rope}) + {kvr} + {kvr} x {h} x ({nope} + {v}) + {h} x {v} x {d})",
                g(layers),
                d = g(d),
                h = g(h)
            ),
        )
    } else {
        let (kv, dh) = (m.kv_heads(), m.head_dim());
        let mut f = "layers x (2 x d x h x d_h + 2 x d x h_kv x d_h".to_string();
        let mut x = format!(
            "{} x (2 x {d} x {h} x {dh} + 2 x {d} x {kv} x {dh}",
            g(layers),
            d = g(d),
            h = g(h),
            kv = g(kv),
            dh = g(dh)
        );
        if a.qkv_bias || m.linear_bias {
            f.push_str(" + h x d_h + 2 x h_kv x d_h");
            x.push_str(&format!(
                " + {h} x {dh} + 2 x {kv} x {dh}",
                h = g(h),
                kv = g(kv),
                dh = g(dh)
            ));
        }
        if m.linear_bias {
            f.push_str(" + d");
            x.push_str(&format!(" + {}", g(d)));
        }
        f.push_str("): q and o are d x h x d_h, k and v d x h_kv x d_h");
        x.push(')');
        (f, x)
    };
    out.push(Part {
        key: "attention_params",
        label: "attention",
        value: p.attention,
        formula: f,
        derivation: x,
    });
    let gated = m.ffn.gated();
    let mats = if gated { 3 } else { 2 };
    let what = if gated {
        "3 matrices: gate, up, down"
    } else {
        "2 matrices: up, down"
    };
    let mlp = |width: u64, width_name: &str| -> (String, String) {
        let mut f = format!("{mats} x d x {width_name}");
        let mut x = format!("{mats} x {} x {}", g(d), g(width));
        if m.linear_bias {
            f.push_str(&format!(" + {width_name} + d"));
            x.push_str(&format!(" + {} + {}", g(width), g(d)));
        }
        (f, x)
    };
    let ff = m.ffn.intermediate_size.get();
    let (dense_layers, moe_layers) = match &m.moe {
        Some(moe) => (moe.dense_layers, layers.saturating_sub(moe.dense_layers)),
        None => (layers, 0),
    };
    let (f1, x1) = mlp(ff, "d_ff");
    // A model whose every layer is a mixture of experts has no dense MLP.
    let all_moe = m.moe.is_some() && dense_layers == 0;
    out.extend((!all_moe).then(|| Part {
        key: "mlp_params",
        label: if gated {
            "dense MLP (with its gate)"
        } else {
            "dense MLP"
        },
        value: p.dense_ffn,
        formula: format!("dense_layers x ({f1}); {what}"),
        derivation: format!("{} x ({x1})", g(dense_layers)),
    }));
    if let Some(moe) = &m.moe {
        let fe = moe.expert_intermediate_size.get();
        let (fx, xx) = mlp(fe, "d_expert");
        let e = moe.routed_experts.get();
        out.push(Part {
            key: "routed_expert_params",
            label: "routed experts",
            value: p.routed_experts,
            formula: format!("moe_layers x routed x ({fx})"),
            derivation: format!("{} x {} x ({xx})", g(moe_layers), g(e)),
        });
        let bias = if moe.router_bias { " + routed" } else { "" };
        let bias_x = if moe.router_bias {
            format!(" + {}", g(e))
        } else {
            String::new()
        };
        out.push(Part {
            key: "shared_expert_params",
            label: "shared experts and routers",
            value: p.shared_experts,
            formula: format!("moe_layers x (shared x ({fx}) + d x routed{bias})"),
            derivation: format!(
                "{} x ({} x ({xx}) + {} x {}{bias_x})",
                g(moe_layers),
                moe.shared_experts,
                g(d),
                g(e)
            ),
        });
    }
    let (nf, nx) = match m.norm {
        crate::spec::model::Norm::Rmsnorm => (
            "(2 x layers + 1) x d: two RMSNorms per layer and a final one, one weight each",
            format!("(2 x {} + 1) x {}", g(layers), g(d)),
        ),
        crate::spec::model::Norm::Layernorm => (
            "(2 x layers + 1) x 2 x d: two LayerNorms per layer and a final one, weight and bias",
            format!("(2 x {} + 1) x 2 x {}", g(layers), g(d)),
        ),
    };
    out.push(Part {
        key: "norm_params",
        label: "norms",
        value: p.norms,
        formula: nf.into(),
        derivation: nx,
    });
    out
}

/// `model show`'s inputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ModelInputs {
    /// Weight precision (default: the model's `weight-dtype`, else bf16).
    pub dtype: Option<String>,
    /// KV-cache precision (default bf16).
    pub kv_dtype: Option<String>,
}

/// The precision named by `field`, or bf16.
fn precision_of(field: &str, name: Option<&str>) -> Result<&'static Precision> {
    precision::lookup(name.unwrap_or("bf16")).map_err(|e| match e {
        Error::Input { message, .. } => Error::field(field, message),
        e => e,
    })
}

/// The MoE shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MoeShape {
    /// Routed experts per MoE layer.
    pub routed_experts: u64,
    /// Shared experts per MoE layer.
    pub shared_experts: u64,
    /// Routed experts each token runs (top-k).
    pub experts_per_token: u64,
    /// Dense layers before the MoE ones.
    pub dense_layers: u64,
}

/// The architecture numbers a person checks a model by (004 "KV cache":
/// L, d, h, h_kv, d_h), and the MoE shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Architecture {
    /// Attention variant.
    pub attention: AttentionKind,
    /// Layers (L).
    pub layers: u64,
    /// Hidden size (d).
    pub hidden_size: u64,
    /// Vocabulary.
    pub vocab_size: u64,
    /// Query heads (h).
    pub heads: u64,
    /// KV heads (h_kv).
    pub kv_heads: u64,
    /// Head dimension (d_h), except for MLA.
    pub head_dim: Option<u64>,
    /// Whether the file gives the head dimension (else hidden / heads).
    pub head_dim_given: bool,
    /// heads x head dim, except for MLA.
    pub heads_x_head_dim: Option<u64>,
    /// MLA latent rank.
    pub kv_lora_rank: Option<u64>,
    /// MLA decoupled rotary key dimension.
    pub qk_rope_head_dim: Option<u64>,
    /// Dense FFN width (d_ff).
    pub intermediate_size: u64,
    /// Sliding window, in tokens.
    pub sliding_window: Option<u64>,
    /// The MoE shape, if any.
    pub moe: Option<MoeShape>,
    /// Longest context.
    pub max_context: Option<u64>,
}

/// A model's derived figures: every number `model show` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelCost {
    /// The model's id.
    pub model: String,
    /// Its published name.
    pub name: String,
    /// Weight precision.
    pub dtype: &'static str,
    /// Bits per weight.
    pub weight_bits: f64,
    /// KV-cache precision.
    pub kv_dtype: &'static str,
    /// Bytes per KV element.
    pub kv_element_bytes: f64,
    /// Parameter counts.
    pub params: Params,
    /// The parameter subtotals with their derivations.
    pub parts: Vec<Part>,
    /// params x bits / 8.
    pub weight_bytes: f64,
    /// active params x bits / 8.
    pub active_weight_bytes: f64,
    /// KV elements per token per layer.
    pub kv_elements_per_token_per_layer: u64,
    /// KV bytes per token per layer.
    pub kv_bytes_per_token_per_layer: f64,
    /// KV bytes per token, all layers.
    pub kv_bytes_per_token: f64,
    /// active params / params, for MoE models.
    pub active_fraction: Option<f64>,
    /// The architecture.
    pub architecture: Architecture,
    /// Field path -> where its number came from.
    pub sources: IndexMap<String, String>,
    /// What a value without a source cites: the model file, when it has no
    /// `[sources]` table.
    pub cites_file: Option<String>,
    /// Assumptions made in reading the model (stated as report notes).
    pub notes: Vec<String>,
}

/// `model show`'s cost: counts, weight bytes at `dtype`, KV bytes at
/// `kv-dtype`.
pub fn cost(m: &Model, i: &ModelInputs) -> Result<ModelCost> {
    // The weights' own precision (a quantized checkpoint's) unless --dtype
    // says otherwise.
    let dtype = precision_of("dtype", i.dtype.as_deref().or(m.weight_dtype.as_deref()))?;
    // The KV cache's own layouts (int8/int4/int2 carry KIVI's scale and
    // zero point), as `kv` and `decode` count them: one figure per model.
    let kv_dtype = super::kv::kv_precision(i.kv_dtype.as_deref().unwrap_or("bf16"))?;
    let p = params(m)?;
    let kv_elements = kv_elements_per_token_per_layer(m)?;
    let a = &m.attention;
    let mla = a.kind == AttentionKind::Mla;
    let heads_x_head_dim = if mla {
        None
    } else {
        let c = Counter { model: m };
        Some(c.mul(sizes(m).h, head_dim(m))?.v)
    };
    let mut notes = m.notes.clone();
    if kv_dtype.group.is_some() {
        notes.push(format!(
            "KV in {}: {} ({} bits an element), as `kv` and `decode` count it",
            kv_dtype.name,
            kv_dtype.layout,
            crate::units::sig(kv_dtype.bits(), 4)
        ));
    }
    if let Some(w) = &m.weight_dtype {
        let from = m
            .source("weight-dtype")
            .map_or(String::new(), |s| format!(" ({s})"));
        if i.dtype.is_none() {
            notes.push(format!(
                "weights at {} ({}): the model's weight-dtype{from}; --dtype overrides. Every parameter is counted at {}, including any the checkpoint keeps at 16 bits (often the embedding and output head)",
                dtype.name, dtype.layout, dtype.name
            ));
        } else if precision_of("weight-dtype", Some(w))?.name != dtype.name {
            notes.push(format!(
                "weights at {} as --dtype asks, not the checkpoint's own {w}{from}",
                dtype.name
            ));
        }
    }
    let per_layer = kv_elements as f64 * kv_dtype.bytes();
    Ok(ModelCost {
        model: m.id.clone(),
        name: m.name.clone(),
        dtype: dtype.name,
        weight_bits: dtype.bits,
        kv_dtype: kv_dtype.name,
        kv_element_bytes: kv_dtype.bytes(),
        params: p,
        parts: breakdown(m, &p),
        weight_bytes: p.total as f64 * dtype.bytes(),
        active_weight_bytes: p.active as f64 * dtype.bytes(),
        kv_elements_per_token_per_layer: kv_elements,
        kv_bytes_per_token_per_layer: per_layer,
        kv_bytes_per_token: per_layer * m.layers.get() as f64,
        active_fraction: m.moe.as_ref().map(|_| p.active as f64 / p.total as f64),
        architecture: Architecture {
            attention: a.kind,
            layers: m.layers.get(),
            hidden_size: m.hidden_size.get(),
            vocab_size: m.vocab_size.get(),
            heads: a.heads.get(),
            kv_heads: m.kv_heads(),
            head_dim: (!mla).then(|| m.head_dim()),
            head_dim_given: a.head_dim.is_some(),
            heads_x_head_dim,
            kv_lora_rank: a.kv_lora_rank.map(|x| x.get()),
            qk_rope_head_dim: a.qk_rope_head_dim.map(|x| x.get()),
            intermediate_size: m.ffn.intermediate_size.get(),
            sliding_window: m.sliding_window.map(|x| x.get()),
            moe: m.moe.as_ref().map(|x| MoeShape {
                routed_experts: x.routed_experts.get(),
                shared_experts: x.shared_experts,
                experts_per_token: x.experts_per_token.get(),
                dense_layers: x.dense_layers,
            }),
            max_context: m.max_context.map(|x| x.get()),
        },
        sources: m.sources.clone(),
        cites_file: m.cites_file.clone(),
        notes,
    })
}

/// The parameter subtotals, each derived from the layer shapes, then
/// their sum and the parameters one token uses: `model show`'s and
/// `model list`'s derivation of the count.
fn param_results(r: &mut Report, parts: &[Part], p: &Params, moe: bool) {
    let parts_from = r.results.len();
    for part in parts {
        r.result(part.key, part.value as f64, || {
            Quantity::new(part.label, Unit::Count)
                .formula(part.formula.clone())
                .derive(part.derivation.clone())
        });
    }
    r.group_since(parts_from, "parameters");
    let total = p.total as f64;
    r.result("params", total, || {
        Quantity::new("parameters", Unit::Count)
            .formula(
                parts
                    .iter()
                    .map(|x| x.label)
                    .collect::<Vec<_>>()
                    .join(" + "),
            )
            .derive(
                parts
                    .iter()
                    .map(|x| grouped(x.value.into()))
                    .collect::<Vec<_>>()
                    .join(" + "),
            )
    });
    r.result("active_params", p.active as f64, || {
        if moe {
            Quantity::new("active parameters per token", Unit::Count)
                .formula("params - routed experts + the routed experts one token runs (moe_layers x top-k x one expert)")
                .derive(format!(
                    "{} - {} + {}",
                    grouped(p.total.into()),
                    grouped(p.routed_experts.into()),
                    grouped(
                        u128::from(p.active) + u128::from(p.routed_experts)
                            - u128::from(p.total)
                    )
                ))
        } else {
            Quantity::new("active parameters per token", Unit::Count)
                .formula("params (dense: every parameter is used)")
        }
    });
}

impl ModelCost {
    fn source(&self, field: &str) -> Option<&str> {
        self.sources
            .get(field)
            .or(self.cites_file.as_ref())
            .map(String::as_str)
    }

    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let p = &self.params;
        let arch = &self.architecture;
        let mut r = Report::new_lean("model show", lean);
        r.model = Some(self.model.clone());
        r.input("dtype", self.dtype);
        r.input("kv_dtype", self.kv_dtype);
        r.result("name", self.name.as_str(), || {
            Quantity::new("name", Unit::None)
        });
        param_results(&mut r, &self.parts, p, arch.moe.is_some());
        let total = p.total as f64;
        let bits = self.weight_bits;
        r.result("weight_bytes", self.weight_bytes, || {
            Quantity::new("weights", Unit::Bytes)
                .formula("params x bits / 8")
                .derive(format!("{} x {} / 8", grouped(p.total.into()), bits))
        });
        r.result("active_weight_bytes", self.active_weight_bytes, || {
            Quantity::new("active weights per token", Unit::Bytes)
                .formula("active_params x bits / 8")
                .derive(format!("{} x {} / 8", grouped(p.active.into()), bits))
        });
        let mla = arch.attention == AttentionKind::Mla;
        r.result(
            "kv_bytes_per_token_per_layer",
            self.kv_bytes_per_token_per_layer,
            || {
                let (f, d) = if mla {
                    (
                        "(kv_lora_rank + qk_rope_head_dim) x bytes: the latent and the rotary key",
                        format!(
                            "({} + {})",
                            arch.kv_lora_rank.unwrap_or(0),
                            arch.qk_rope_head_dim.unwrap_or(0)
                        ),
                    )
                } else {
                    (
                        "2 x kv_heads x head_dim x bytes: a key and a value per KV head",
                        format!("2 x {} x {}", arch.kv_heads, arch.head_dim.unwrap_or(0)),
                    )
                };
                Quantity::new("KV per token per layer", Unit::Bytes)
                    .formula(f)
                    .derive(format!("{d} x {}", self.kv_element_bytes))
            },
        );
        r.result("kv_bytes_per_token", self.kv_bytes_per_token, || {
            Quantity::new("KV per token", Unit::Bytes)
                .formula("layers x KV per token per layer")
                .derive(format!(
                    "{} x {}",
                    arch.layers,
                    si(self.kv_bytes_per_token_per_layer, "B")
                ))
        });
        let mark = r.results.len();
        self.architecture(&mut r);
        if let Some(ctx) = arch.max_context {
            r.result("max_context", ctx as f64, || {
                Quantity::new("maximum context", Unit::Count).source(self.source("max-context"))
            });
        }
        r.group_since(mark, "architecture");
        // The answer and the shapes that decide it; --all adds the
        // subtotals and the rest, --explain derives every one.
        r.headline(&[
            "name",
            "params",
            "active_params",
            "weight_bytes",
            "active_weight_bytes",
            "kv_bytes_per_token_per_layer",
            "kv_bytes_per_token",
            "layers",
            "hidden_size",
            "heads",
            "kv_heads",
            "head_dim",
            "kv_lora_rank",
            "routed_experts",
            "experts_per_token",
        ]);
        for n in &self.notes {
            r.note(n.clone());
        }
        r.note_with(|| {
            format!(
                "{} billion parameters = {} in {}",
                crate::units::sig_grouped(total / 1e9, 4),
                si(self.weight_bytes, "B"),
                self.dtype
            )
        });
        r
    }

    /// The architecture numbers, each with its source, and the MoE shape.
    fn architecture(&self, r: &mut Report) {
        let a = &self.architecture;
        let p = &self.params;
        let count = |r: &mut Report, key: &'static str, label: &str, v: u64, field: &str| {
            r.result(key, v as f64, || {
                Quantity::new(label, Unit::Count).source(self.source(field))
            });
        };
        count(r, "layers", "layers (L)", a.layers, "layers");
        count(
            r,
            "hidden_size",
            "hidden size (d)",
            a.hidden_size,
            "hidden-size",
        );
        count(r, "vocab_size", "vocabulary", a.vocab_size, "vocab-size");
        count(r, "heads", "query heads (h)", a.heads, "attention.heads");
        count(
            r,
            "kv_heads",
            "KV heads (h_kv)",
            a.kv_heads,
            "attention.kv-heads",
        );
        if let (Some(dh), Some(hd)) = (a.head_dim, a.heads_x_head_dim) {
            r.result("head_dim", dh as f64, || {
                Quantity::new("head dimension (d_h)", Unit::Count)
                    .source(self.source("attention.head-dim"))
                    .formula(if a.head_dim_given {
                        ""
                    } else {
                        "hidden_size / heads"
                    })
            });
            r.result("heads_x_head_dim", hd as f64, || {
                Quantity::new("h x d_h", Unit::Count)
                    .formula("heads x head_dim")
                    .derive(format!("{} x {}", a.heads, dh))
            });
            r.result(
                "query_heads_per_kv_head",
                a.heads as f64 / a.kv_heads as f64,
                || {
                    Quantity::new("query heads per KV head", Unit::Count)
                        .formula("heads / kv_heads")
                        .derive(format!("{} / {}", a.heads, a.kv_heads))
                },
            );
        } else {
            for (key, label, field, v) in [
                (
                    "kv_lora_rank",
                    "MLA latent rank",
                    "attention.kv-lora-rank",
                    a.kv_lora_rank,
                ),
                (
                    "qk_rope_head_dim",
                    "MLA rotary key dim",
                    "attention.qk-rope-head-dim",
                    a.qk_rope_head_dim,
                ),
            ] {
                if let Some(v) = v {
                    count(r, key, label, v, field);
                }
            }
        }
        count(
            r,
            "intermediate_size",
            "dense FFN width (d_ff)",
            a.intermediate_size,
            "ffn.intermediate-size",
        );
        if let Some(w) = a.sliding_window {
            count(
                r,
                "sliding_window",
                "sliding window (tokens)",
                w,
                "sliding-window",
            );
        }
        if let Some(moe) = &a.moe {
            count(
                r,
                "routed_experts",
                "routed experts",
                moe.routed_experts,
                "moe.routed-experts",
            );
            count(
                r,
                "shared_experts",
                "shared experts",
                moe.shared_experts,
                "moe.shared-experts",
            );
            count(
                r,
                "experts_per_token",
                "routed experts per token (top-k)",
                moe.experts_per_token,
                "moe.experts-per-token",
            );
            // Shared experts are few and top-k is at most the routed
            // count, so the sum is computed in f64 and cannot wrap.
            r.result(
                "experts_run_per_token",
                moe.experts_per_token as f64 + moe.shared_experts as f64,
                || {
                    Quantity::new("experts run per token", Unit::Count)
                        .formula("top-k + shared")
                        .derive(format!(
                            "{} + {}",
                            moe.experts_per_token, moe.shared_experts
                        ))
                },
            );
            count(
                r,
                "dense_layers",
                "dense layers",
                moe.dense_layers,
                "moe.dense-layers",
            );
            if let Some(f) = self.active_fraction {
                r.result("active_fraction", f, || {
                    Quantity::new("active share of parameters", Unit::Fraction)
                        .formula("active_params / params")
                        .derive(format!(
                            "{} / {}",
                            grouped(p.active.into()),
                            grouped(p.total.into())
                        ))
                });
            }
        }
    }
}

/// One model's `model list` entry: its name, the parameter count derived
/// from the layer shapes (as `model show` derives it), the layers and the
/// attention variant with their sources (what `model list --explain`
/// prints). An error where a count overflows.
pub fn list_entry(m: &Model) -> Result<Report> {
    let p = params(m)?;
    let mut r = Report::new("model list");
    r.model = Some(m.id.clone());
    r.result("name", m.name.as_str(), Quantity::new("name", Unit::None));
    param_results(&mut r, &breakdown(m, &p), &p, m.moe.is_some());
    r.result(
        "layers",
        m.layers.get(),
        Quantity::new("layers (L)", Unit::Count).source(m.source("layers")),
    );
    r.result(
        "attention",
        m.attention.kind.as_str(),
        Quantity::new("attention", Unit::None).source(m.source("attention.kind")),
    );
    if let Some(s) = &m.summary {
        r.result("summary", s.as_str(), Quantity::new("summary", Unit::None));
    }
    Ok(r)
}

/// The `model list` table of [`list_entry`] reports: one row per model.
pub fn listing(entries: Vec<Report>) -> Report {
    Report::listing(
        "model list",
        entries,
        &[
            ("name", "name", Unit::None),
            ("params", "parameters", Unit::Count),
            ("active_params", "active", Unit::Count),
            ("layers", "layers", Unit::Count),
            ("attention", "attention", Unit::None),
            ("summary", "summary", Unit::None),
        ],
    )
}

/// `model list`: one row per model. A model whose counts overflow is left
/// out with its error, so one bad file does not hide the others.
pub fn list(items: &[Model]) -> Result<Report> {
    let mut notes = Vec::new();
    let entries = items
        .iter()
        .filter_map(|m| {
            list_entry(m)
                .map_err(|e| notes.push(format!("left out {e}")))
                .ok()
        })
        .collect();
    let mut r = listing(entries);
    for n in notes {
        r.note(n);
    }
    Ok(r)
}

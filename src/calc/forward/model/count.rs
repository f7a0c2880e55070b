//! Parameter counts and KV elements per token, derived from the
//! architecture in checked 64-bit arithmetic: an overflow names the field
//! that dominates the product.

use crate::error::{Error, Result};
use crate::spec::model::{AttentionKind, Model, PositionEmbedding};
use serde::Serialize;

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
    /// The routers alone (a part of `shared_experts`), for weight formats
    /// that keep them at 16 bits.
    pub router: u64,
    /// The routed experts' biases (a part of `routed_experts`), which a
    /// block-scaled checkpoint keeps at 16 bits.
    pub routed_expert_biases: u64,
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
pub(super) struct N {
    pub(super) v: u64,
    field: &'static str,
}

/// Checked arithmetic on [`N`] for one model.
pub(super) struct Counter<'a> {
    pub(super) model: &'a Model,
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

    pub(super) fn mul(&self, a: N, b: N) -> Result<N> {
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
pub(super) struct Sizes {
    d: N,
    pub(super) h: N,
    layers: N,
    vocab: N,
}

pub(super) fn sizes(m: &Model) -> Sizes {
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

pub(super) fn head_dim(m: &Model) -> N {
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
    if m.linear_bias || a.o_bias {
        p = c.add(p, d)?;
    }
    // Qwen3's per-head q and k RMSNorm weights, one head-dim vector each.
    if a.qk_norm == crate::spec::model::QkNorm::Rmsnorm {
        p = c.add(p, c.mul(k(2), dh)?)?;
    }
    // gpt-oss's sink logit, one per query head.
    if a.sinks {
        p = c.add(p, h)?;
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
    let per_layer = N {
        v: m.norms_per_layer(),
        field: "norms-per-layer",
    };
    let norms = c.mul(norm_per, c.add(c.mul(per_layer, layers)?, k(1))?)?;
    let dense_ff = N {
        v: m.ffn.intermediate_size.get(),
        field: "ffn.intermediate-size",
    };
    let (dense_ffn, routed, shared, active_experts, router_n, bias_n) = match &m.moe {
        None => (
            c.mul(ffn(&c, m, dense_ff)?, layers)?,
            k(0),
            k(0),
            k(0),
            k(0),
            k(0),
        ),
        Some(moe) => {
            let dense = N {
                v: m.dense_ffn_layers(),
                field: "moe.dense-layers",
            };
            let moe_layers = N {
                v: m.moe_layers(),
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
            // gpt-oss's expert biases: gate/up ((mats - 1) x width) and down
            // (d), where linear-bias has not already counted them.
            let bias_one = if moe.expert_bias && !m.linear_bias {
                let mats = if m.ffn.gated() { 2 } else { 1 };
                c.add(
                    c.mul(
                        k(mats),
                        N {
                            v: moe.expert_intermediate_size.get(),
                            field: "moe.expert-intermediate-size",
                        },
                    )?,
                    d,
                )?
            } else {
                k(0)
            };
            let one_routed = c.add(one, bias_one)?;
            let routed = c.product(&[one_routed, experts, moe_layers])?;
            let biases = c.product(&[bias_one, experts, moe_layers])?;
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
            let routers = c.mul(router, moe_layers)?;
            let topk = N {
                v: moe.experts_per_token.get(),
                field: "moe.experts-per-token",
            };
            let active = c.product(&[one_routed, topk, moe_layers])?;
            (dense_ffn, routed, shared, active, routers, biases)
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
        router: router_n.v,
        routed_expert_biases: bias_n.v,
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

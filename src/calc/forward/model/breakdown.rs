//! The parameter subtotals, each with the layer shapes it is derived
//! from, as `model show` and `--explain` print them.

use super::Params;
use crate::spec::model::{AttentionKind, Model, PositionEmbedding};
use crate::units::grouped;
use serde::Serialize;

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

/// The parameter subtotals of [`params`](super::params), each derived from the layer
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
        if m.linear_bias || a.o_bias {
            f.push_str(" + d");
            x.push_str(&format!(" + {}", g(d)));
        }
        let qk_rms = a.qk_norm == crate::spec::model::QkNorm::Rmsnorm;
        if qk_rms {
            f.push_str(" + 2 x d_h");
            x.push_str(&format!(" + 2 x {}", g(dh)));
        }
        if a.sinks {
            f.push_str(" + h");
            x.push_str(&format!(" + {}", g(h)));
        }
        f.push_str("): q and o are d x h x d_h, k and v d x h_kv x d_h");
        if qk_rms {
            f.push_str("; q and k norms one d_h vector each");
        }
        if a.sinks {
            f.push_str("; one sink logit per head");
        }
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
    let (dense_layers, moe_layers) = (m.dense_ffn_layers(), m.moe_layers());
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
        let (mut fx, mut xx) = mlp(fe, "d_expert");
        let (shared_fx, shared_xx) = (fx.clone(), xx.clone());
        if moe.expert_bias && !m.linear_bias {
            let b = if gated { 2 } else { 1 };
            fx.push_str(&format!(" + {b} x d_expert + d (biases)"));
            xx.push_str(&format!(" + {b} x {} + {}", g(fe), g(d)));
        }
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
            formula: format!("moe_layers x (shared x ({shared_fx}) + d x routed{bias})"),
            derivation: format!(
                "{} x ({} x ({shared_xx}) + {} x {}{bias_x})",
                g(moe_layers),
                moe.shared_experts,
                g(d),
                g(e)
            ),
        });
    }
    let n = m.norms_per_layer();
    let (nf, nx) = match (m.norm, n) {
        (crate::spec::model::Norm::Rmsnorm, 2) => (
            "(2 x layers + 1) x d: two RMSNorms per layer and a final one, one weight each"
                .to_string(),
            format!("(2 x {} + 1) x {}", g(layers), g(d)),
        ),
        (crate::spec::model::Norm::Layernorm, 2) => (
            "(2 x layers + 1) x 2 x d: two LayerNorms per layer and a final one, weight and bias"
                .to_string(),
            format!("(2 x {} + 1) x 2 x {}", g(layers), g(d)),
        ),
        (crate::spec::model::Norm::Rmsnorm, n) => (
            format!(
                "({n} x layers + 1) x d: {n} RMSNorms per layer (norms-per-layer) and a final one, one weight each"
            ),
            format!("({n} x {} + 1) x {}", g(layers), g(d)),
        ),
        (crate::spec::model::Norm::Layernorm, n) => (
            format!(
                "({n} x layers + 1) x 2 x d: {n} LayerNorms per layer (norms-per-layer) and a final one, weight and bias"
            ),
            format!("({n} x {} + 1) x 2 x {}", g(layers), g(d)),
        ),
    };
    out.push(Part {
        key: "norm_params",
        label: "norms",
        value: p.norms,
        formula: nf,
        derivation: nx,
    });
    out
}

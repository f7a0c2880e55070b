//! `model show` and `model list`: parameter counts, weight bytes and KV
//! bytes per token, derived from the architecture (formulas.md, "Model
//! figures").

use crate::error::{Error, Result};
use crate::precision::Precision;
use crate::report::{Quantity, Report, Row, Unit};
use crate::spec::model::Model;
use crate::units::{grouped, si};

/// Parameter counts, split the way people reason about them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Params {
    /// Input embedding (and learned positions).
    pub embedding: u128,
    /// Output projection (0 when tied).
    pub lm_head: u128,
    /// Attention projections, all layers.
    pub attention: u128,
    /// Dense feed-forward blocks, all dense layers.
    pub dense_ffn: u128,
    /// Routed experts, all MoE layers.
    pub routed_experts: u128,
    /// Shared experts and routers, all MoE layers.
    pub shared_experts: u128,
    /// Norm weights (and biases).
    pub norms: u128,
    /// Total.
    pub total: u128,
    /// Parameters one token touches.
    pub active: u128,
}

fn overflow() -> Error {
    Error::Unsupported("parameter count overflows 128 bits; check the model's sizes".into())
}

/// Multiplies sizes, failing instead of wrapping.
fn mul(xs: &[u64]) -> Result<u128> {
    xs.iter().try_fold(1u128, |acc, &x| {
        acc.checked_mul(u128::from(x)).ok_or_else(overflow)
    })
}

/// Attention parameters of one layer.
fn attention_per_layer(m: &Model) -> Result<u128> {
    let a = &m.attention;
    let d = m.hidden_size.get();
    let h = a.heads.get();
    if a.kind == "mla" {
        // DeepSeek-V2/V3 multi-head latent attention.
        let nope = a.qk_nope_head_dim.map_or(0, |x| x.get());
        let rope = a.qk_rope_head_dim.map_or(0, |x| x.get());
        let v = a.v_head_dim.map_or(0, |x| x.get());
        let kv_rank = a.kv_lora_rank.map_or(0, |x| x.get());
        let q = match a.q_lora_rank {
            Some(r) => mul(&[d, r.get()])? + u128::from(r.get()) + mul(&[r.get(), h, nope + rope])?,
            None => mul(&[d, h, nope + rope])?,
        };
        let kv = mul(&[d, kv_rank + rope])? + u128::from(kv_rank) + mul(&[kv_rank, h, nope + v])?;
        let o = mul(&[h, v, d])?;
        return Ok(q + kv + o);
    }
    let dh = m.head_dim();
    let kv = m.kv_heads();
    let mut p = mul(&[d, h, dh])? * 2 + mul(&[d, kv, dh])? * 2;
    if a.qkv_bias || m.linear_bias {
        p += mul(&[h, dh])? + 2 * mul(&[kv, dh])?;
    }
    if m.linear_bias {
        p += u128::from(d);
    }
    Ok(p)
}

/// One feed-forward block of width `ff`.
fn ffn(m: &Model, ff: u64) -> Result<u128> {
    let d = m.hidden_size.get();
    let mats: u64 = if m.ffn.gated() { 3 } else { 2 };
    let mut p = mul(&[mats, d, ff])?;
    if m.linear_bias {
        p += u128::from(ff) + u128::from(d);
    }
    Ok(p)
}

/// Derives the parameter counts.
pub fn params(m: &Model) -> Result<Params> {
    let d = m.hidden_size.get();
    let layers = m.layers.get();
    let mut p = Params {
        embedding: mul(&[m.vocab_size.get(), d])?,
        ..Default::default()
    };
    if m.position_embedding == "learned" {
        p.embedding += mul(&[m.max_context.map_or(0, |x| x.get()), d])?;
    }
    p.lm_head = if m.tied_embeddings {
        0
    } else {
        mul(&[m.vocab_size.get(), d])?
    };
    p.attention = attention_per_layer(m)? * u128::from(layers);
    let norm_per = if m.norm == "layernorm" {
        2 * u128::from(d)
    } else {
        u128::from(d)
    };
    let mut extra_norms = 0u128;
    if m.attention.kind == "mla" {
        // MLA's latent norms are counted in attention_per_layer.
        extra_norms = 0;
    }
    p.norms = norm_per * (2 * u128::from(layers) + 1) + extra_norms;
    let mut active_experts = 0u128;
    match &m.moe {
        None => p.dense_ffn = ffn(m, m.ffn.intermediate_size.get())? * u128::from(layers),
        Some(moe) => {
            let dense = moe.dense_layers;
            let moe_layers = u128::from(layers - dense);
            p.dense_ffn = ffn(m, m.ffn.intermediate_size.get())? * u128::from(dense);
            let one = ffn(m, moe.expert_intermediate_size.get())?;
            p.routed_experts = one * u128::from(moe.routed_experts.get()) * moe_layers;
            // The router is a d x experts linear map; DeepSeek-V3 adds one
            // bias per expert for load balancing.
            let mut router = mul(&[d, moe.routed_experts.get()])?;
            if moe.router_bias {
                router += u128::from(moe.routed_experts.get());
            }
            p.shared_experts = (one * u128::from(moe.shared_experts) + router) * moe_layers;
            active_experts = one * u128::from(moe.experts_per_token.get()) * moe_layers;
        }
    }
    p.total = p.embedding
        + p.lm_head
        + p.attention
        + p.dense_ffn
        + p.routed_experts
        + p.shared_experts
        + p.norms;
    p.active = p.total - p.routed_experts + active_experts;
    Ok(p)
}

/// KV-cache elements per token per layer: 2 x KV heads x head dim, or for
/// MLA the latent plus the decoupled rotary key.
pub fn kv_elements_per_token_per_layer(m: &Model) -> u64 {
    let a = &m.attention;
    if a.kind == "mla" {
        a.kv_lora_rank.map_or(0, |x| x.get()) + a.qk_rope_head_dim.map_or(0, |x| x.get())
    } else {
        2 * m.kv_heads() * m.head_dim()
    }
}

fn kv_formula(m: &Model) -> (String, String) {
    let a = &m.attention;
    if a.kind == "mla" {
        (
            "layers x (kv_lora_rank + qk_rope_head_dim) x bytes".into(),
            format!(
                "{} x ({} + {})",
                m.layers,
                a.kv_lora_rank.map_or(0, |x| x.get()),
                a.qk_rope_head_dim.map_or(0, |x| x.get())
            ),
        )
    } else {
        (
            "2 x layers x kv_heads x head_dim x bytes".into(),
            format!("2 x {} x {} x {}", m.layers, m.kv_heads(), m.head_dim()),
        )
    }
}

/// `model show`: counts, weight bytes at `dtype`, KV bytes at `kv_dtype`.
pub fn show(m: &Model, dtype: &Precision, kv_dtype: &Precision) -> Result<Report> {
    let p = params(m)?;
    let mut r = Report::new("model show");
    r.model = Some(m.id.clone());
    r.input("dtype", dtype.name);
    r.input("kv_dtype", kv_dtype.name);
    r.result("name", m.name.as_str(), Quantity::new("name", Unit::None));
    let total = p.total as f64;
    r.result(
        "params",
        total,
        Quantity::new("parameters", Unit::Count)
            .formula("embedding + lm_head + attention + dense FFN + routed experts + shared experts and routers + norms")
            .derive(format!(
                "{} + {} + {} + {} + {} + {} + {}",
                grouped(p.embedding),
                grouped(p.lm_head),
                grouped(p.attention),
                grouped(p.dense_ffn),
                grouped(p.routed_experts),
                grouped(p.shared_experts),
                grouped(p.norms)
            )),
    );
    r.result(
        "active_params",
        p.active as f64,
        if m.moe.is_some() {
            Quantity::new("active parameters per token", Unit::Count)
                .formula("params - routed experts + the routed experts one token runs")
                .derive(format!(
                    "{} - {} + {}",
                    grouped(p.total),
                    grouped(p.routed_experts),
                    grouped(p.active + p.routed_experts - p.total)
                ))
        } else {
            Quantity::new("active parameters per token", Unit::Count)
                .formula("params (dense: every parameter is used)")
                .derive(grouped(p.total))
        },
    );
    r.result(
        "weight_bytes",
        total * dtype.bytes(),
        Quantity::new("weights", Unit::Bytes)
            .formula("params x bits / 8")
            .derive(format!("{} x {} / 8", grouped(p.total), dtype.bits)),
    );
    r.result(
        "active_weight_bytes",
        p.active as f64 * dtype.bytes(),
        Quantity::new("active weights per token", Unit::Bytes).formula("active_params x bits / 8"),
    );
    let per_layer = kv_elements_per_token_per_layer(m) as f64 * kv_dtype.bytes();
    r.result(
        "kv_bytes_per_token_per_layer",
        per_layer,
        Quantity::new("KV per token per layer", Unit::BytesIec),
    );
    let (f, d) = kv_formula(m);
    let kv = per_layer * m.layers.get() as f64;
    r.result(
        "kv_bytes_per_token",
        kv,
        Quantity::new("KV per token", Unit::Bytes)
            .formula(f)
            .derive(format!("{d} x {}", kv_dtype.bytes())),
    );
    let mark = r.results.len();
    architecture(&mut r, m, &p);
    if let Some(ctx) = m.max_context {
        r.result(
            "max_context",
            ctx.get() as f64,
            Quantity::new("maximum context", Unit::Count)
                .source(m.sources.get("max-context").map(String::as_str)),
        );
    }
    r.group_since(mark, "architecture");
    r.note(format!(
        "{} billion parameters = {} in {}",
        crate::units::sig(total / 1e9, 4),
        si(total * dtype.bytes(), "B"),
        dtype.name
    ));
    Ok(r)
}

/// The architecture numbers a person checks a model by (004 "KV cache":
/// L, d, h, h_kv, d_h), each with its source, and the MoE shape.
fn architecture(r: &mut Report, m: &Model, p: &Params) {
    let src = |f: &str| m.sources.get(f).map(String::as_str);
    let a = &m.attention;
    let count = |r: &mut Report, k: &str, label: &str, v: u64, field: &str| {
        r.result(
            k,
            v as f64,
            Quantity::new(label, Unit::Count).source(src(field)),
        );
    };
    count(r, "layers", "layers (L)", m.layers.get(), "layers");
    count(
        r,
        "hidden_size",
        "hidden size (d)",
        m.hidden_size.get(),
        "hidden-size",
    );
    count(
        r,
        "vocab_size",
        "vocabulary",
        m.vocab_size.get(),
        "vocab-size",
    );
    count(
        r,
        "heads",
        "query heads (h)",
        a.heads.get(),
        "attention.heads",
    );
    count(
        r,
        "kv_heads",
        "KV heads (h_kv)",
        m.kv_heads(),
        "attention.kv-heads",
    );
    if a.kind != "mla" {
        let dh = m.head_dim();
        r.result(
            "head_dim",
            dh as f64,
            Quantity::new("head dimension (d_h)", Unit::Count)
                .source(src("attention.head-dim"))
                .formula(if a.head_dim.is_some() {
                    ""
                } else {
                    "hidden_size / heads"
                }),
        );
        r.result(
            "heads_x_head_dim",
            (a.heads.get() * dh) as f64,
            Quantity::new("h x d_h", Unit::Count)
                .formula("heads x head_dim")
                .derive(format!("{} x {}", a.heads, dh)),
        );
        r.result(
            "query_heads_per_kv_head",
            a.heads.get() as f64 / m.kv_heads() as f64,
            Quantity::new("query heads per KV head", Unit::Count)
                .formula("heads / kv_heads")
                .derive(format!("{} / {}", a.heads, m.kv_heads())),
        );
    } else {
        for (k, label, field, v) in [
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
                count(r, k, label, v.get(), field);
            }
        }
    }
    count(
        r,
        "intermediate_size",
        "dense FFN width (d_ff)",
        m.ffn.intermediate_size.get(),
        "ffn.intermediate-size",
    );
    if let Some(w) = m.sliding_window {
        count(
            r,
            "sliding_window",
            "sliding window (tokens)",
            w.get(),
            "sliding-window",
        );
    }
    if let Some(moe) = &m.moe {
        count(
            r,
            "routed_experts",
            "routed experts",
            moe.routed_experts.get(),
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
            moe.experts_per_token.get(),
            "moe.experts-per-token",
        );
        r.result(
            "experts_run_per_token",
            (moe.experts_per_token.get() + moe.shared_experts) as f64,
            Quantity::new("experts run per token", Unit::Count)
                .formula("top-k + shared")
                .derive(format!(
                    "{} + {}",
                    moe.experts_per_token, moe.shared_experts
                )),
        );
        count(
            r,
            "dense_layers",
            "dense layers",
            moe.dense_layers,
            "moe.dense-layers",
        );
        r.result(
            "active_fraction",
            p.active as f64 / p.total as f64,
            Quantity::new("active share of parameters", Unit::Fraction)
                .formula("active_params / params")
                .derive(format!("{} / {}", grouped(p.active), grouped(p.total))),
        );
    }
}

/// `model list`: one row per model.
pub fn list(items: &[Model]) -> Result<Report> {
    let mut r = Report::new("model list");
    r.describe("params", Quantity::new("parameters", Unit::Count));
    r.describe("active_params", Quantity::new("active", Unit::Count));
    r.describe("layers", Quantity::new("layers", Unit::Count));
    r.describe("attention", Quantity::new("attention", Unit::None));
    r.describe("summary", Quantity::new("summary", Unit::None));
    for m in items {
        let p = params(m)?;
        let mut row = Row::default();
        row.inputs.insert("id".into(), m.id.clone().into());
        row.results.insert("name".into(), m.name.clone().into());
        row.results.insert("params".into(), (p.total as f64).into());
        row.results
            .insert("active_params".into(), (p.active as f64).into());
        row.results.insert("layers".into(), m.layers.get().into());
        row.results
            .insert("attention".into(), m.attention.kind.clone().into());
        if let Some(s) = &m.summary {
            row.results.insert("summary".into(), s.clone().into());
        }
        r.rows.push(row);
    }
    Ok(r)
}

//! `model show` and `model list`: parameter counts, weight bytes and KV
//! bytes per token, derived from the architecture (formulas.md, "Model
//! figures").
//!
//! Counts are 64-bit and checked: a size that makes a count overflow is an
//! error naming the model field that dominates the product, never a
//! wrapped number.
//!
//! The rooms: this file holds `model show`'s inputs, its typed cost and
//! [`cost`]; `count` the checked parameter and KV counts, `breakdown` the
//! subtotals with the layer shapes they come from, `report` the report made
//! from the cost, `list` `model list`.

use crate::error::{Error, Result};
use crate::precision::{self, Precision};
use crate::spec::model::{AttentionKind, Model};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

mod breakdown;
mod count;
mod list;
mod report;

use count::{Counter, head_dim, sizes};

pub use breakdown::{Part, breakdown};
pub use count::{Params, kv_elements_per_token_per_layer, params};
pub use list::{list, list_entry, listing};

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

/// A model's weights by module, in bytes, each module at its own
/// precision: the one accounting `model show`, `kv`, `decode`, `plan`,
/// `simulate` and `fleet` weigh a model by (formulas.md, "Model figures",
/// weight formats). Every field covers all the layers that have it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct WeightBytes {
    /// Input embedding (and learned positions).
    pub embedding: f64,
    /// Output projection (0 when tied).
    pub lm_head: f64,
    /// Attention projections (and their biases, q/k norms and sinks).
    pub attention: f64,
    /// Dense feed-forward blocks, all dense layers.
    pub dense_ffn: f64,
    /// Routed experts, all MoE layers, their biases included (kept at
    /// the default precision).
    pub routed_experts: f64,
    /// Shared experts, all MoE layers (the routers apart).
    pub shared_experts: f64,
    /// The routers, all MoE layers.
    pub router: f64,
    /// Norm weights (and biases).
    pub norms: f64,
}

impl WeightBytes {
    /// The whole model's weights.
    pub fn total(&self) -> f64 {
        self.embedding
            + self.lm_head
            + self.attention
            + self.dense_ffn
            + self.routed_experts
            + self.shared_experts
            + self.router
            + self.norms
    }
}

/// [`WeightBytes`] of `m` with `p`'s counts: each module at its
/// `weight-formats` precision, the rest (norms, sinks and biases a
/// block-scaled checkpoint keeps at 16 bits included) at `default` bytes
/// per weight (formulas.md, "Model figures", weight formats).
pub fn weight_split(m: &Model, p: &Params, default: f64) -> Result<WeightBytes> {
    let at = |module: &str| -> Result<f64> {
        match m.weight_formats.get(module) {
            None => Ok(default),
            Some(f) => Ok(precision_of(&format!("weight-formats.{module}"), Some(f))?.bytes()),
        }
    };
    let routed = p.routed_experts - p.routed_expert_biases;
    let shared = p.shared_experts - p.router;
    Ok(WeightBytes {
        embedding: p.embedding as f64 * at("embedding")?,
        lm_head: p.lm_head as f64 * at("lm-head")?,
        attention: p.attention as f64 * at("attention")?,
        dense_ffn: p.dense_ffn as f64 * at("dense-ffn")?,
        routed_experts: routed as f64 * at("routed-experts")?
            + p.routed_expert_biases as f64 * default,
        shared_experts: shared as f64 * at("shared-experts")?,
        router: p.router as f64 * at("router")?,
        norms: p.norms as f64 * default,
    })
}

/// Weight bytes of `m` with `p`'s counts: the sum of [`weight_split`].
/// Without a `weight-formats` table, every parameter at `default`.
pub fn weight_bytes(m: &Model, p: &Params, default: f64) -> Result<f64> {
    if m.weight_formats.is_empty() {
        return Ok(p.total as f64 * default);
    }
    Ok(weight_split(m, p, default)?.total())
}

/// The weights' precision in words, as a report's header gives it: `dtype`
/// alone, or with the modules a checkpoint stores otherwise, grouped by
/// format ("bf16, routed experts mxfp4"; "fp8, embedding, lm head and
/// router bf16").
pub fn weights_in(m: &Model, dtype: &str) -> String {
    let mut groups: Vec<(&str, Vec<String>)> = Vec::new();
    for (module, f) in &m.weight_formats {
        let f = precision::lookup(f).map_or(f.as_str(), |p| p.name);
        if f == dtype {
            continue;
        }
        let name = module.replace('-', " ");
        match groups.iter_mut().find(|(g, _)| *g == f) {
            Some((_, v)) => v.push(name),
            None => groups.push((f, vec![name])),
        }
    }
    let mut out = dtype.to_string();
    for (f, names) in groups {
        let list = match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => continue,
        };
        out.push_str(&format!(", {list} {f}"));
    }
    out
}

/// Bytes per weight of one module of `m`: its `weight-formats` entry, else
/// `default` bytes (what the step model reads each operation's weights at).
pub fn module_bytes(m: &Model, module: &str, default: f64) -> f64 {
    m.weight_formats
        .get(module)
        .and_then(|f| precision::lookup(f).ok())
        .map_or(default, Precision::bytes)
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
    /// The weights' precision in words, each module at its own.
    pub weights_in: String,
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
    /// params x bits / 8, each module at its own precision.
    pub weight_bytes: f64,
    /// The weights by module (they sum to `weight_bytes`).
    pub modules: WeightBytes,
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
    /// The card's total and active parameter counts, where the file gives
    /// them.
    pub card: (Option<f64>, Option<f64>),
    /// Module -> weight precision, where the checkpoint mixes them.
    pub weight_formats: IndexMap<String, String>,
    /// Layers whose attention is windowed.
    pub windowed_layers: u64,
}

/// `model show`'s cost: counts, weight bytes at `dtype`, KV bytes at
/// `kv-dtype`.
pub fn cost(m: &Model, i: &ModelInputs) -> Result<ModelCost> {
    // The weights' own precision (a quantized checkpoint's) unless --dtype
    // says otherwise.
    let dtype = precision_of("dtype", i.dtype.as_deref().or(m.weight_dtype.as_deref()))?;
    // The KV cache's own layouts (int8/int4/int2 carry KIVI's scale and
    // zero point), as `kv` and `decode` count them: one figure per model.
    let kv_dtype = crate::calc::kv::kv_precision(i.kv_dtype.as_deref().unwrap_or("bf16"))?;
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
            // Where [weight-formats] names the 16-bit modules, the next
            // note lists them; otherwise say what the one format overcounts.
            let rest = if m.weight_formats.is_empty() {
                format!(
                    " Every parameter is counted at {}, including any the checkpoint keeps at 16 bits (often the embedding and output head)",
                    dtype.name
                )
            } else {
                String::new()
            };
            notes.push(format!(
                "weights at {} ({}): the model's weight-dtype{from}; --dtype overrides.{rest}",
                dtype.name, dtype.layout
            ));
        } else if precision_of("weight-dtype", Some(w))?.name != dtype.name {
            notes.push(format!(
                "weights at {} as --dtype asks, not the checkpoint's own {w}{from}",
                dtype.name
            ));
        }
    }
    let per_layer = kv_elements as f64 * kv_dtype.bytes();
    let modules = weight_split(m, &p, dtype.bytes())?;
    let weight_bytes = weight_bytes(m, &p, dtype.bytes())?;
    // Active bytes: the total's, less the routed experts a token skips, at
    // the routed experts' own format.
    let words = weights_in(m, dtype.name);
    let mixed = words != dtype.name;
    let active_weight_bytes = if !mixed {
        p.active as f64 * dtype.bytes()
    } else {
        let skipped = (p.total - p.active) as f64;
        weight_bytes - skipped * module_bytes(m, "routed-experts", dtype.bytes())
    };
    if mixed {
        let list: Vec<String> = m
            .weight_formats
            .iter()
            .map(|(k, v)| {
                let from = m
                    .source(&format!("weight-formats.{k}"))
                    .map_or(String::new(), |s| format!(" ({s})"));
                format!("{k} in {v}{from}")
            })
            .collect();
        notes.push(format!(
            "weights per module: {}; the rest (norms and biases included) in {}",
            list.join(", "),
            dtype.name
        ));
    }
    Ok(ModelCost {
        model: m.id.clone(),
        name: m.name.clone(),
        dtype: dtype.name,
        weights_in: words,
        weight_bits: dtype.bits,
        kv_dtype: kv_dtype.name,
        kv_element_bytes: kv_dtype.bytes(),
        params: p,
        parts: breakdown(m, &p),
        weight_bytes,
        modules,
        active_weight_bytes,
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
        card: (m.card_params, m.card_active_params),
        weight_formats: m.weight_formats.clone(),
        windowed_layers: m.windowed_layers(),
    })
}

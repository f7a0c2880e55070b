//! The model file: a transformer's architecture. Parameter counts, weight
//! bytes and KV bytes are derived from it (`calc::model`), never typed in.
//! Field meanings are in `docs/data-schemas.md`.

use super::{Origin, field_error};
use crate::error::Result;
use indexmap::IndexMap;
use serde::Deserialize;
use std::num::NonZeroU64;

/// A model file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Model {
    /// The short name users type (`llama-3-8b`).
    pub id: String,
    /// The model's published name.
    pub name: String,
    /// One line for `model list`.
    #[serde(default)]
    pub summary: Option<String>,
    /// Field path -> where the number came from.
    #[serde(default)]
    pub sources: IndexMap<String, String>,
    /// Transformer blocks.
    pub layers: NonZeroU64,
    /// Model (residual stream) width.
    pub hidden_size: NonZeroU64,
    /// Vocabulary size.
    pub vocab_size: NonZeroU64,
    /// Whether the output projection shares the embedding matrix.
    #[serde(default)]
    pub tied_embeddings: bool,
    /// Longest context the model supports.
    pub max_context: Option<NonZeroU64>,
    /// Sliding-window attention span (Mistral): a sequence keeps KV for at
    /// most this many recent tokens per layer.
    pub sliding_window: Option<NonZeroU64>,
    /// `rmsnorm` (one weight vector) or `layernorm` (weight and bias).
    #[serde(default = "rmsnorm")]
    pub norm: String,
    /// `rope` (no parameters) or `learned` (a max-context x hidden table).
    #[serde(default = "rope")]
    pub position_embedding: String,
    /// Whether linear layers carry biases (GPT-3 does; Llama does not).
    #[serde(default)]
    pub linear_bias: bool,
    /// Attention.
    pub attention: Attention,
    /// The dense feed-forward block.
    pub ffn: Ffn,
    /// Mixture of experts, if any.
    #[serde(default)]
    pub moe: Option<Moe>,
}

fn rmsnorm() -> String {
    "rmsnorm".into()
}
fn rope() -> String {
    "rope".into()
}

/// Attention shape.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Attention {
    /// `mha`, `gqa`, `mqa` or `mla`.
    pub kind: String,
    /// Query heads.
    pub heads: NonZeroU64,
    /// Key/value heads (equal to heads for MHA, 1 for MQA).
    pub kv_heads: Option<NonZeroU64>,
    /// Per-head dimension (defaults to hidden-size / heads).
    pub head_dim: Option<NonZeroU64>,
    /// Whether q, k, v projections carry biases (Qwen2 does).
    #[serde(default)]
    pub qkv_bias: bool,
    /// MLA: rank of the query compression (absent: queries uncompressed).
    pub q_lora_rank: Option<NonZeroU64>,
    /// MLA: rank of the key/value latent cached per token.
    pub kv_lora_rank: Option<NonZeroU64>,
    /// MLA: decoupled rotary key dimension (cached beside the latent).
    pub qk_rope_head_dim: Option<NonZeroU64>,
    /// MLA: per-head non-rotary query/key dimension.
    pub qk_nope_head_dim: Option<NonZeroU64>,
    /// MLA: per-head value dimension.
    pub v_head_dim: Option<NonZeroU64>,
}

/// The dense feed-forward block.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Ffn {
    /// Intermediate width of a dense layer.
    pub intermediate_size: NonZeroU64,
    /// `swiglu` (gated: three matrices) or `gelu`/`relu` (two).
    pub activation: String,
}

impl Ffn {
    /// Whether the activation is gated (three weight matrices).
    pub fn gated(&self) -> bool {
        matches!(self.activation.as_str(), "swiglu" | "geglu" | "silu-gated")
    }
}

/// Mixture of experts.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Moe {
    /// Routed experts per MoE layer.
    pub routed_experts: NonZeroU64,
    /// Shared (always-on) experts per MoE layer.
    #[serde(default)]
    pub shared_experts: u64,
    /// Routed experts each token runs.
    pub experts_per_token: NonZeroU64,
    /// Intermediate width of one expert.
    pub expert_intermediate_size: NonZeroU64,
    /// The first this-many layers are dense (use `ffn`).
    #[serde(default)]
    pub dense_layers: u64,
    /// Whether the router carries a per-expert bias (DeepSeek-V3's
    /// load-balancing correction term).
    #[serde(default)]
    pub router_bias: bool,
}

const ACTIVATIONS: &[&str] = &["swiglu", "geglu", "silu-gated", "gelu", "relu"];

impl Model {
    /// Parses and validates a model file's text.
    pub fn parse(src: &str, origin: &Origin) -> Result<Self> {
        let m: Model = super::from_toml(src, origin)?;
        m.validate(src, origin)?;
        Ok(m)
    }

    fn validate(&self, src: &str, origin: &Origin) -> Result<()> {
        let err = |field: &str, msg: String| Err(field_error(src, origin, field, msg));
        let a = &self.attention;
        let heads = a.heads.get();
        let kv = a.kv_heads.map_or(heads, NonZeroU64::get);
        if kv > heads {
            return err(
                "attention.kv-heads",
                format!("{kv} KV heads is more than the {heads} query heads"),
            );
        }
        if !heads.is_multiple_of(kv) {
            return err(
                "attention.kv-heads",
                format!("{heads} query heads do not divide evenly into {kv} KV heads"),
            );
        }
        match a.kind.as_str() {
            "mha" if kv != heads => {
                return err(
                    "attention.kind",
                    format!("mha needs kv-heads = heads ({heads}), got {kv}"),
                );
            }
            "mqa" if kv != 1 => {
                return err(
                    "attention.kind",
                    format!("mqa needs kv-heads = 1, got {kv}"),
                );
            }
            "gqa" if kv == heads || kv == 1 => {}
            "mha" | "mqa" | "gqa" => {}
            "mla" => {
                for (f, v) in [
                    ("attention.kv-lora-rank", a.kv_lora_rank),
                    ("attention.qk-rope-head-dim", a.qk_rope_head_dim),
                    ("attention.qk-nope-head-dim", a.qk_nope_head_dim),
                    ("attention.v-head-dim", a.v_head_dim),
                ] {
                    if v.is_none() {
                        return err(f, "mla attention needs this field".into());
                    }
                }
            }
            other => {
                return err(
                    "attention.kind",
                    format!("`{other}`: expected mha, gqa, mqa or mla"),
                );
            }
        }
        if a.head_dim.is_none() && a.kind != "mla" && !self.hidden_size.get().is_multiple_of(heads)
        {
            return err(
                "attention.head-dim",
                "hidden-size is not a multiple of heads; give head-dim".into(),
            );
        }
        if !ACTIVATIONS.contains(&self.ffn.activation.as_str()) {
            return err(
                "ffn.activation",
                format!(
                    "`{}`: expected one of {}",
                    self.ffn.activation,
                    ACTIVATIONS.join(", ")
                ),
            );
        }
        if !matches!(self.norm.as_str(), "rmsnorm" | "layernorm") {
            return err(
                "norm",
                format!("`{}`: expected rmsnorm or layernorm", self.norm),
            );
        }
        if !matches!(self.position_embedding.as_str(), "rope" | "learned") {
            return err(
                "position-embedding",
                format!("`{}`: expected rope or learned", self.position_embedding),
            );
        }
        if self.position_embedding == "learned" && self.max_context.is_none() {
            return err(
                "max-context",
                "learned position embeddings need max-context".into(),
            );
        }
        if let Some(moe) = &self.moe {
            if moe.experts_per_token > moe.routed_experts {
                return err(
                    "moe.experts-per-token",
                    "more experts per token than routed experts".into(),
                );
            }
            if moe.dense_layers > self.layers.get() {
                return err("moe.dense-layers", "more dense layers than layers".into());
            }
        }
        if let (Some(w), Some(c)) = (self.sliding_window, self.max_context)
            && w > c
        {
            return err(
                "sliding-window",
                format!("a window of {w} tokens is longer than the {c}-token context"),
            );
        }
        if a.kind == "mla"
            && a.q_lora_rank
                .is_some_and(|r| r.get() >= self.hidden_size.get())
        {
            return err(
                "attention.q-lora-rank",
                "a query compression rank at or above hidden-size compresses nothing".into(),
            );
        }
        for key in self.sources.keys() {
            if super::locate(src, key).is_none() && !origin.overridden {
                return err(
                    "sources",
                    format!("source given for `{key}`, which is not a field of this file"),
                );
            }
        }
        Ok(())
    }

    /// KV heads (query heads for MHA).
    pub fn kv_heads(&self) -> u64 {
        self.attention
            .kv_heads
            .map_or(self.attention.heads.get(), NonZeroU64::get)
    }

    /// Per-head dimension.
    pub fn head_dim(&self) -> u64 {
        self.attention.head_dim.map_or(
            self.hidden_size.get() / self.attention.heads.get(),
            NonZeroU64::get,
        )
    }
}

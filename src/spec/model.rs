//! The model file: a transformer's architecture. Parameter counts, weight
//! bytes and KV bytes are derived from it (`calc::model`), never typed in.
//! Field meanings are in `docs/data-schemas.md`.

use super::{Origin, line_col, locate_in};
use crate::error::{Error, Result};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
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
    /// The family `model list` groups it under (`qwen3`, `gpt-oss`).
    #[serde(default)]
    pub family: Option<String>,
    /// The model card's own total parameter count, to set beside the
    /// derived one (cards differ in what they count: the embedding, the
    /// head, a vision tower).
    pub card_params: Option<f64>,
    /// The card's own active-parameter count (MoE).
    pub card_active_params: Option<f64>,
    /// Field path -> where the number came from; a file without the table
    /// is the source of all its values.
    #[serde(default)]
    pub sources: IndexMap<String, String>,
    /// What a value without a `[sources]` entry cites: the file's own name
    /// when it has no `[sources]` table, else nothing.
    #[serde(skip)]
    pub cites_file: Option<String>,
    /// Assumptions made in reading the file (an imported config without
    /// `num_key_value_heads` read as multi-head attention), for reports to
    /// state.
    #[serde(skip)]
    pub notes: Vec<String>,
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
    /// The precision the weights are stored in, where the checkpoint is
    /// quantized (`int4` for a 4-bit AWQ or GPTQ checkpoint); `model show`
    /// reports weight bytes at it unless `--dtype` says otherwise. Absent:
    /// bf16.
    pub weight_dtype: Option<String>,
    /// Sliding-window attention span (Mistral): a sequence keeps KV for at
    /// most this many recent tokens per windowed layer.
    pub sliding_window: Option<NonZeroU64>,
    /// Which layers the window applies to: `sliding` (or `chunked`, Llama
    /// 4's local attention, whose cache is at most one chunk) and `full`,
    /// one per layer, or a shorter pattern repeated from the first layer
    /// (Gemma 3: five `sliding`, one `full`). Absent: every layer is
    /// windowed when `sliding-window` is given.
    #[serde(default)]
    pub layer_types: Vec<LayerType>,
    /// Norm layers per transformer block (default 2: before attention and
    /// before the feed-forward; Gemma 3 has 4, a post-norm after each).
    pub norms_per_layer: Option<NonZeroU64>,
    /// Weight precision per module where a checkpoint mixes them
    /// (gpt-oss: `routed-experts = "mxfp4"`, the rest bf16); a module not
    /// listed is at `weight-dtype`. Keys: embedding, lm-head, attention,
    /// dense-ffn, routed-experts, shared-experts, router.
    #[serde(default)]
    pub weight_formats: IndexMap<String, String>,
    /// `rmsnorm` (one weight vector) or `layernorm` (weight and bias).
    #[serde(default)]
    pub norm: Norm,
    /// `rope` (no parameters) or `learned` (a max-context x hidden table).
    #[serde(default)]
    pub position_embedding: PositionEmbedding,
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

/// What one layer's attention sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LayerType {
    /// Every cached token.
    Full,
    /// The last `sliding-window` tokens.
    Sliding,
    /// Its chunk of `sliding-window` tokens (Llama 4); cached and priced
    /// as a window of that length, an upper bound.
    Chunked,
}

/// The per-head query/key norm.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QkNorm {
    /// None.
    #[default]
    None,
    /// RMSNorm with a head-dim weight vector for q and one for k.
    Rmsnorm,
    /// L2 normalisation without weights.
    L2,
}

/// The modules a `[weight-formats]` table may name.
pub const WEIGHT_MODULES: &[&str] = &[
    "embedding",
    "lm-head",
    "attention",
    "dense-ffn",
    "routed-experts",
    "shared-experts",
    "router",
];

/// How a model's layers split between full and windowed attention: the
/// KV a layer caches and the tokens its attention reads (formulas.md,
/// "Serving: KV cache", windowed layers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// The window, in tokens (u64::MAX: none).
    pub tokens: u64,
    /// Share of the layers that are windowed (0 to 1).
    pub share: f64,
}

impl Window {
    /// No window: every layer sees every cached token.
    pub const NONE: Window = Window {
        tokens: u64::MAX,
        share: 0.0,
    };

    /// Every layer windowed at `tokens` (Mistral).
    pub fn all(tokens: u64) -> Window {
        Window { tokens, share: 1.0 }
    }

    /// Cached tokens one layer reads on average when `past` are cached:
    /// full layers all of them, windowed ones at most the window.
    pub fn seen(&self, past: u64) -> f64 {
        let w = past.min(self.tokens) as f64;
        (1.0 - self.share) * past as f64 + self.share * w
    }

    /// The cached tokens a windowed layer keeps of `past`.
    pub fn capped(&self, past: u64) -> u64 {
        past.min(self.tokens)
    }

    /// Query-key pairs per layer, averaged over the layers, when `new`
    /// tokens join `past` cached ones: causal for full layers; in a
    /// windowed layer each query sees the window once its position passes
    /// it (the first `window - past` new tokens see every earlier one).
    pub fn pairs(&self, new: u64, past: u64, causal: impl Fn(u64, u64) -> f64) -> f64 {
        let full = causal(new, past);
        let within = new.min(self.tokens.saturating_sub(past));
        let windowed =
            causal(within, past) + new.saturating_sub(within) as f64 * self.tokens as f64;
        (1.0 - self.share) * full + self.share * windowed
    }
}

/// The normalisation layers' kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Norm {
    /// RMSNorm: one weight vector of the model width.
    #[default]
    Rmsnorm,
    /// LayerNorm: a weight and a bias vector.
    Layernorm,
}

impl Norm {
    /// Parameters of one norm layer over a width of `d`.
    pub fn params_per_width(self) -> u64 {
        match self {
            Norm::Rmsnorm => 1,
            Norm::Layernorm => 2,
        }
    }
}

/// How positions enter the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PositionEmbedding {
    /// Rotary embeddings: no parameters.
    #[default]
    Rope,
    /// A learned max-context x hidden-size table.
    Learned,
    /// No position encoding (NoPE): attention alone orders the tokens.
    None,
}

/// The attention variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AttentionKind {
    /// Multi-head: one KV head per query head.
    Mha,
    /// Grouped-query: query heads share KV heads in groups.
    Gqa,
    /// Multi-query: one KV head.
    Mqa,
    /// Multi-head latent attention (DeepSeek-V2/V3): a compressed KV
    /// latent is cached.
    Mla,
}

impl AttentionKind {
    /// `mha`, `gqa`, `mqa` or `mla`.
    pub fn as_str(self) -> &'static str {
        match self {
            AttentionKind::Mha => "mha",
            AttentionKind::Gqa => "gqa",
            AttentionKind::Mqa => "mqa",
            AttentionKind::Mla => "mla",
        }
    }
}

/// The feed-forward activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Activation {
    /// SiLU-gated (three matrices).
    Swiglu,
    /// GELU-gated (three matrices).
    Geglu,
    /// Another name for SwiGLU.
    SiluGated,
    /// GELU (two matrices).
    Gelu,
    /// ReLU (two matrices).
    Relu,
}

/// Attention shape.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Attention {
    /// `mha`, `gqa`, `mqa` or `mla`.
    pub kind: AttentionKind,
    /// Query heads.
    pub heads: NonZeroU64,
    /// Key/value heads (equal to heads for MHA, 1 for MQA).
    pub kv_heads: Option<NonZeroU64>,
    /// Per-head dimension (defaults to hidden-size / heads).
    pub head_dim: Option<NonZeroU64>,
    /// Whether q, k, v projections carry biases (Qwen2 does).
    #[serde(default)]
    pub qkv_bias: bool,
    /// Whether the output projection carries a bias (gpt-oss does).
    #[serde(default)]
    pub o_bias: bool,
    /// Per-head norm of queries and keys before the rotary embedding:
    /// `rmsnorm` (Qwen3, Gemma 3, GLM-4.5: a head-dim weight vector each
    /// for q and k per layer) or `l2` (Llama 4: no weights); both add norm
    /// kernels. Default `none`.
    #[serde(default)]
    pub qk_norm: QkNorm,
    /// A learned sink logit per query head (gpt-oss): one parameter a head
    /// per layer, one more column in every softmax.
    #[serde(default)]
    pub sinks: bool,
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
    /// `swiglu`, `geglu`, `silu-gated` (gated: three matrices) or
    /// `gelu`, `relu` (two).
    pub activation: Activation,
}

impl Ffn {
    /// Whether the activation is gated (three weight matrices).
    pub fn gated(&self) -> bool {
        matches!(
            self.activation,
            Activation::Swiglu | Activation::Geglu | Activation::SiluGated
        )
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
    /// load-balancing correction term, gpt-oss's router bias).
    #[serde(default)]
    pub router_bias: bool,
    /// After the dense layers, every this-many-th layer is an MoE layer
    /// (layer i, counted from 0, when (i + 1) is a multiple of it); the
    /// others are dense (Llama 4 Maverick: 2). Default 1: all of them.
    pub layer_step: Option<NonZeroU64>,
    /// Whether each expert's projections carry biases (gpt-oss: gate/up
    /// and down).
    #[serde(default)]
    pub expert_bias: bool,
}

impl Model {
    /// Parses and validates a model file's text. The text is parsed
    /// twice, no more: once into the model, once into a document whose
    /// spans locate the fields validation names.
    pub fn parse(src: &str, origin: &Origin) -> Result<Self> {
        let mut m: Model = super::from_toml(src, origin).map_err(|e| name_the_key(src, e))?;
        // `toml` reads integers up to u64::MAX; TOML (and `toml_edit`)
        // stop at i64::MAX. A number between the two is an error here,
        // named by its own field, not by whichever field validation could
        // no longer locate.
        let doc = toml_edit::Document::parse(src).map_err(|e| document_error(src, origin, &e))?;
        m.validate(Some(&doc), src, origin)?;
        if m.sources.is_empty() {
            m.cites_file = Some(origin.name.clone());
        }
        Ok(m)
    }

    /// The model of an already parsed tree with `--set`s applied
    /// (`origin.overridden`), where it deserializes and validates; `None`
    /// otherwise, and the caller parses the text, whose spans name the
    /// error. On success it equals [`Model::parse`] of the text.
    pub(crate) fn from_tree(tree: toml::Table, origin: &Origin) -> Option<Self> {
        debug_assert!(origin.overridden);
        let mut m: Model = toml::Value::Table(tree).try_into().ok()?;
        m.validate(None, "", origin).ok()?;
        if m.sources.is_empty() {
            m.cites_file = Some(origin.name.clone());
        }
        Some(m)
    }

    /// A built-in file's model from the JSON copy build.rs made of its text
    /// (having checked its `[sources]` keys); `None` where it does not
    /// deserialize or validate, and the caller parses the text, which
    /// names the error. On success it equals [`Model::parse`] of the text
    /// (`catalog::tests`).
    pub(crate) fn from_json(json: &str, origin: &Origin) -> Option<Self> {
        let mut m: Model = serde_json::from_str(json).ok()?;
        m.validate(None, "", origin).ok()?;
        if m.sources.is_empty() {
            m.cites_file = Some(origin.name.clone());
        }
        Some(m)
    }

    /// `doc` locates a field validation rejects; without it (a tree) the
    /// error has no line.
    fn validate(
        &self,
        doc: Option<&toml_edit::Document<&str>>,
        src: &str,
        origin: &Origin,
    ) -> Result<()> {
        let err = |field: &str, msg: String| {
            Err(Error::Data {
                file: origin.name.clone(),
                line: doc
                    .and_then(|d| locate_in(d, field))
                    .map(|o| line_col(src, o).0),
                col: None,
                field: Some(field.to_string()),
                message: msg,
            })
        };
        if self.id == super::template::PLACEHOLDER_ID {
            return err("id", super::placeholder_message(&origin.name));
        }
        // Every count of the file passes the one bound inputs pass, named
        // by its field, before any arithmetic uses it.
        for (field, v) in self.counts() {
            if let Err(msg) = crate::inputs::bounded_count(v) {
                return err(field, msg);
            }
        }
        // A card's parameter count is a count: at least one parameter and
        // no more than the largest count an input may give (2^53).
        for (field, v) in [
            ("card-params", self.card_params),
            ("card-active-params", self.card_active_params),
        ] {
            if let Some(x) = v
                && !(x.is_finite() && x >= 1.0 && x <= crate::inputs::MAX_COUNT as f64)
            {
                return err(
                    field,
                    format!(
                        "{x} is not a plausible parameter count: give one of at least 1 and at most 2^53"
                    ),
                );
            }
        }
        if let Some(w) = &self.weight_dtype
            && let Err(e) = crate::precision::lookup(w)
        {
            let msg = match e {
                Error::Input { message, .. } => message,
                e => e.to_string(),
            };
            return err("weight-dtype", msg);
        }
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
        match a.kind {
            AttentionKind::Mha if kv != heads => {
                return err(
                    "attention.kind",
                    format!("mha needs kv-heads = heads ({heads}), got {kv}"),
                );
            }
            AttentionKind::Mqa if kv != 1 => {
                return err(
                    "attention.kind",
                    format!("mqa needs kv-heads = 1, got {kv}"),
                );
            }
            AttentionKind::Mha | AttentionKind::Mqa | AttentionKind::Gqa => {}
            AttentionKind::Mla => {
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
        }
        if a.head_dim.is_none()
            && a.kind != AttentionKind::Mla
            && !self.hidden_size.get().is_multiple_of(heads)
        {
            return err(
                "attention.head-dim",
                "hidden-size is not a multiple of heads; give head-dim".into(),
            );
        }
        if self.position_embedding == PositionEmbedding::Learned && self.max_context.is_none() {
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
                format!(
                    "a window of {} tokens is longer than the {}-token context",
                    crate::units::whole(w.get()),
                    crate::units::whole(c.get())
                ),
            );
        }
        if a.kind == AttentionKind::Mla
            && a.q_lora_rank
                .is_some_and(|r| r.get() >= self.hidden_size.get())
        {
            return err(
                "attention.q-lora-rank",
                "a query compression rank at or above hidden-size compresses nothing".into(),
            );
        }
        if !self.layer_types.is_empty() {
            if self.sliding_window.is_none() {
                return err(
                    "layer-types",
                    "layer types name windowed layers; give sliding-window too".into(),
                );
            }
            if self.layer_types.len() as u64 > self.layers.get() {
                return err(
                    "layer-types",
                    format!(
                        "{} layer types for {} layers; give one per layer or a shorter pattern",
                        self.layer_types.len(),
                        self.layers
                    ),
                );
            }
        }
        for (module, dtype) in &self.weight_formats {
            if !WEIGHT_MODULES.contains(&module.as_str()) {
                return err(
                    "weight-formats",
                    format!(
                        "`{module}` is not a module; weight formats name {}",
                        WEIGHT_MODULES.join(", ")
                    ),
                );
            }
            if let Err(e) = crate::precision::lookup(dtype) {
                let msg = match e {
                    Error::Input { message, .. } => message,
                    e => e.to_string(),
                };
                return err(&format!("weight-formats.{module}"), msg);
            }
        }
        for key in self.sources.keys() {
            if !origin.overridden && doc.is_some_and(|d| locate_in(d, key).is_none()) {
                return err(
                    "sources",
                    format!("source given for `{key}`, which is not a field of this file"),
                );
            }
        }
        Ok(())
    }

    /// Every integer of the file, by its field path.
    fn counts(&self) -> Vec<(&'static str, u64)> {
        let a = &self.attention;
        let opt = |v: Option<NonZeroU64>| v.map_or(0, NonZeroU64::get);
        let mut out = vec![
            ("layers", self.layers.get()),
            ("hidden-size", self.hidden_size.get()),
            ("vocab-size", self.vocab_size.get()),
            ("max-context", opt(self.max_context)),
            ("sliding-window", opt(self.sliding_window)),
            ("norms-per-layer", opt(self.norms_per_layer)),
            ("attention.heads", a.heads.get()),
            ("attention.kv-heads", opt(a.kv_heads)),
            ("attention.head-dim", opt(a.head_dim)),
            ("attention.q-lora-rank", opt(a.q_lora_rank)),
            ("attention.kv-lora-rank", opt(a.kv_lora_rank)),
            ("attention.qk-rope-head-dim", opt(a.qk_rope_head_dim)),
            ("attention.qk-nope-head-dim", opt(a.qk_nope_head_dim)),
            ("attention.v-head-dim", opt(a.v_head_dim)),
            ("ffn.intermediate-size", self.ffn.intermediate_size.get()),
        ];
        if let Some(m) = &self.moe {
            out.extend([
                ("moe.routed-experts", m.routed_experts.get()),
                ("moe.shared-experts", m.shared_experts),
                ("moe.experts-per-token", m.experts_per_token.get()),
                (
                    "moe.expert-intermediate-size",
                    m.expert_intermediate_size.get(),
                ),
                ("moe.dense-layers", m.dense_layers),
                ("moe.layer-step", opt(m.layer_step)),
            ]);
        }
        out
    }

    /// Where a field's number came from, if the file says; a file without a
    /// `[sources]` table is the source of all its values.
    pub fn source(&self, field: &str) -> Option<&str> {
        self.sources
            .get(field)
            .or(self.cites_file.as_ref())
            .map(String::as_str)
    }

    /// KV heads (query heads for MHA).
    pub fn kv_heads(&self) -> u64 {
        self.attention
            .kv_heads
            .map_or(self.attention.heads.get(), NonZeroU64::get)
    }

    /// Layers whose attention is windowed: every layer with a window and
    /// no `layer-types`, else those the types (repeated) mark.
    pub fn windowed_layers(&self) -> u64 {
        let layers = self.layers.get();
        if self.sliding_window.is_none() {
            return 0;
        }
        let t = &self.layer_types;
        if t.is_empty() {
            return layers;
        }
        let n = t.len() as u64;
        let per = t.iter().filter(|x| **x != LayerType::Full).count() as u64;
        let rest = layers.checked_rem(n).unwrap_or(0) as usize;
        let tail = t[..rest].iter().filter(|x| **x != LayerType::Full).count() as u64;
        layers
            .checked_div(n)
            .unwrap_or(0)
            .saturating_mul(per)
            .saturating_add(tail)
    }

    /// The window and the share of layers it applies to.
    pub fn window(&self) -> Window {
        match self.sliding_window {
            None => Window::NONE,
            Some(w) => Window {
                tokens: w.get(),
                share: self.windowed_layers() as f64 / self.layers.get() as f64,
            },
        }
    }

    /// Token-layers of KV one sequence of `context` tokens caches: full
    /// layers every token, windowed layers at most the window.
    pub fn cached_token_layers(&self, context: u64) -> f64 {
        let win = self.windowed_layers();
        let full = self.layers.get().saturating_sub(win);
        let w = self
            .sliding_window
            .map_or(context, |w| context.min(w.get()));
        full as f64 * context as f64 + win as f64 * w as f64
    }

    /// MoE layers: after the dense ones, those the layer step picks.
    pub fn moe_layers(&self) -> u64 {
        self.moe_layers_in(0, self.layers.get())
    }

    /// MoE layers among layers `a..b` (counted from 0): layer i is MoE
    /// when it is past the dense ones and (i + 1) is a multiple of the
    /// layer step. A pipeline stage's share (Llama 4 Maverick: every other
    /// layer).
    pub fn moe_layers_in(&self, a: u64, b: u64) -> u64 {
        let Some(moe) = &self.moe else { return 0 };
        let b = b.min(self.layers.get());
        let from = a.max(moe.dense_layers);
        if from >= b {
            return 0;
        }
        let step = moe.layer_step.unwrap_or(NonZeroU64::MIN);
        // The multiples of step in (from, b].
        (b / step).saturating_sub(from / step)
    }

    /// Layers with a dense feed-forward.
    pub fn dense_ffn_layers(&self) -> u64 {
        self.layers.get().saturating_sub(self.moe_layers())
    }

    /// Norm layers per block.
    pub fn norms_per_layer(&self) -> u64 {
        self.norms_per_layer.map_or(2, NonZeroU64::get)
    }

    /// The precision a module's weights are stored in: its entry in
    /// `weight-formats`, else `default` (the model's or --dtype's).
    pub fn module_format<'a>(&'a self, module: &str, default: &'a str) -> &'a str {
        self.weight_formats
            .get(module)
            .map_or(default, String::as_str)
    }

    /// Per-head dimension.
    pub fn head_dim(&self) -> u64 {
        self.attention.head_dim.map_or(
            self.hidden_size.get() / self.attention.heads,
            NonZeroU64::get,
        )
    }
}

/// A document error where `toml` read the text and `toml_edit` did not (an
/// integer beyond i64): its line, column and the key on that line.
fn document_error(src: &str, origin: &Origin, e: &toml_edit::TomlError) -> Error {
    let at = e.span().map(|s| s.start);
    let (line, col) = at.map(|o| line_col(src, o)).unzip();
    let field = at.and_then(|o| key_on_line(src, o));
    let value = e
        .span()
        .and_then(|s| src.get(s))
        .map(str::trim)
        .filter(|v| {
            !v.is_empty()
                && v.chars()
                    .all(|c| c.is_ascii_digit() || c == '_' || c == '+')
        });
    let mut message = match value {
        Some(v) => format!(
            "`{v}` is larger than a TOML integer can be (at most {})",
            i64::MAX
        ),
        None => e.message().trim().to_string(),
    };
    if origin.overridden {
        message.push_str(" (after applying --set)");
    }
    Error::Data {
        file: origin.name.clone(),
        line,
        col,
        field,
        message,
    }
}

/// A parse error at a line and column that the document could not name a
/// field for (the document does not parse either): the key on that line.
fn name_the_key(src: &str, e: Error) -> Error {
    match e {
        Error::Data {
            file,
            line: Some(line),
            col,
            field: None,
            message,
        } => {
            let offset = src
                .split_inclusive('\n')
                .take(line.saturating_sub(1))
                .map(str::len)
                .fold(0usize, usize::saturating_add)
                .saturating_add(col.unwrap_or(1).saturating_sub(1));
            Error::Data {
                field: key_on_line(src, offset),
                file,
                line: Some(line),
                col,
                message,
            }
        }
        e => e,
    }
}

/// The dotted key path of the `key = value` line holding a byte offset,
/// with the `[table]` it sits under: enough to name a field when the
/// document itself cannot be parsed.
fn key_on_line(src: &str, offset: usize) -> Option<String> {
    let start = src
        .get(..offset)?
        .rfind('\n')
        .map_or(0, |i| i.saturating_add(1));
    let line = src[start..].lines().next()?;
    let key = line.split_once('=')?.0.trim().trim_matches('"');
    if key.is_empty() {
        return None;
    }
    let table = src[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key.to_string(),
    })
}

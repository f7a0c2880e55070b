//! Hugging Face `config.json` import: maps a model family's field names onto
//! the model file's schema and emits TOML, so imported configs go through the
//! same validation as catalog files.
//!
//! Families: those in [`FAMILIES`]. Llama 4 and Gemma 3 configs are read
//! from their `text_config` (the vision tower is not counted); a key their
//! config class leaves to a default is read at that default and its source
//! says so. Every imported number gets a `[sources]` entry naming the
//! `config.json` key it came from, and a key that would change the cost in
//! a way the schema cannot say is refused by name.

use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::fmt::Write;

/// The families this importer understands, for messages.
pub const FAMILIES: &[&str] = &[
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "qwen3_moe",
    "gpt_oss",
    "mixtral",
    "deepseek_v2",
    "deepseek_v3",
    "kimi_k2",
    "kimi_k25",
    "llama4",
    "llama4_text",
    "gemma3",
    "gemma3_text",
    "glm4_moe",
];

/// What transformers' config class fills in for a key a published config
/// leaves out, per family: read at these values, with sources that say
/// so. Structural sizes (widths, layers, heads) are not defaulted.
fn class_defaults(family: &str) -> (&'static str, Vec<(&'static str, Value)>) {
    match family {
        "gemma3" | "gemma3_text" => (
            "Gemma3TextConfig",
            vec![
                ("vocab_size", 262_208.into()),
                ("max_position_embeddings", 131_072.into()),
                ("tie_word_embeddings", true.into()),
                ("num_key_value_heads", 4.into()),
                ("head_dim", 256.into()),
                ("hidden_activation", "gelu_pytorch_tanh".into()),
                ("sliding_window", 4096.into()),
                ("sliding_window_pattern", 6.into()),
            ],
        ),
        "llama4" | "llama4_text" => (
            "Llama4TextConfig",
            vec![
                ("tie_word_embeddings", false.into()),
                ("intermediate_size_mlp", 16_384.into()),
                ("interleave_moe_layer_step", 1.into()),
                ("use_qk_norm", true.into()),
                ("no_rope_layer_interval", 4.into()),
                ("attention_chunk_size", 8192.into()),
                ("attn_temperature_tuning", true.into()),
            ],
        ),
        "glm4_moe" => ("Glm4MoeConfig", vec![("use_qk_norm", false.into())]),
        _ => ("", Vec::new()),
    }
}

fn data(file: &str, field: Option<&str>, message: impl Into<String>) -> Error {
    Error::Data {
        file: file.into(),
        line: None,
        col: None,
        field: field.map(Into::into),
        message: message.into(),
    }
}

/// Reads config keys, naming the file and key in every error.
struct Cfg<'a> {
    map: &'a Map<String, Value>,
    file: &'a str,
}

impl Cfg<'_> {
    fn uint(&self, key: &str) -> Result<Option<u64>> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => {
                let n = v.as_u64().filter(|&x| x > 0).ok_or_else(|| {
                    data(
                        self.file,
                        Some(key),
                        format!("`{key}` is {v}; expected a positive integer"),
                    )
                })?;
                // The bound every count passes, named by the config's own
                // key rather than by the model field it becomes.
                crate::inputs::bounded_count(n)
                    .map(Some)
                    .map_err(|m| data(self.file, Some(key), m))
            }
        }
    }

    fn need(&self, key: &str) -> Result<u64> {
        self.uint(key)?.ok_or_else(|| {
            data(
                self.file,
                Some(key),
                format!("`{key}` is missing; a model needs it"),
            )
        })
    }

    fn string(&self, key: &str) -> Option<&str> {
        self.map.get(key).and_then(Value::as_str)
    }

    fn boolean(&self, key: &str) -> Result<Option<bool>> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(data(
                self.file,
                Some(key),
                format!("`{key}` is {v}; expected true or false"),
            )),
        }
    }
}

/// The TOML being written, with its sources table kept beside it.
#[derive(Default)]
struct Out {
    body: String,
    /// Config keys read at their config class's default, and the class.
    defaulted: Vec<&'static str>,
    class: &'static str,
    /// Module, precision and where it came from.
    weight_formats: Vec<(String, String, String)>,
    sources: Vec<(String, String)>,
    notes: Vec<String>,
}

/// A config read as a model file: its TOML and the assumptions the import
/// made, which reports state as notes.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The model file's text.
    pub toml: String,
    /// What was assumed or decided in reading the config.
    pub notes: Vec<String>,
}

impl Out {
    fn section(&mut self, name: &str) {
        let _ = write!(self.body, "\n[{name}]\n");
    }

    /// Writes `key = value` and records which config key it came from.
    fn field(&mut self, path: &str, value: impl std::fmt::Display, from: &str) {
        let key = path.rsplit('.').next().unwrap_or(path);
        let _ = writeln!(self.body, "{key} = {value}");
        let first = from.split([' ', '/']).next().unwrap_or(from);
        let source = if self.defaulted.contains(&first) {
            format!(
                "vendor: transformers {} default {from} (the config.json leaves it out)",
                self.class
            )
        } else {
            format!("vendor: config.json {from}")
        };
        self.sources.push((path.into(), source));
    }
}

/// The routed experts as Mixtral's config names them (`num_local_experts`,
/// `num_experts_per_tok`, each expert `intermediate_size` wide), which
/// gpt-oss and Llama 4 keep.
fn experts(o: &mut Out, c: &Cfg, routed: &str, width: &str) -> Result<()> {
    o.field("moe.routed-experts", c.need(routed)?, routed);
    per_token(o, c, width)
}

/// The experts a token is routed to and each expert's width (`width`, the
/// config's key for it): every MoE family's pair.
fn per_token(o: &mut Out, c: &Cfg, width: &str) -> Result<()> {
    o.field(
        "moe.experts-per-token",
        c.need("num_experts_per_tok")?,
        "num_experts_per_tok",
    );
    o.field("moe.expert-intermediate-size", c.need(width)?, width);
    Ok(())
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The id for an imported config: the file's stem, or its folder's name when
/// the file is the conventional `config.json`.
fn id_from(name: &str) -> String {
    let p = std::path::Path::new(name);
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("imported");
    let raw = if stem == "config" {
        p.parent()
            .and_then(|d| d.file_name())
            .and_then(|s| s.to_str())
            .unwrap_or(stem)
    } else {
        stem
    };
    raw.to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// Maps a config's `hidden_act` onto the gated activation these families
/// use (all five have gate, up and down projections).
fn activation(act: &str) -> Option<&'static str> {
    match act {
        "silu" | "swish" => Some("swiglu"),
        "gelu" | "gelu_new" | "gelu_pytorch_tanh" => Some("geglu"),
        _ => None,
    }
}

/// Converts a `config.json` to model-file TOML.
pub fn to_toml(src: &str, name: &str) -> Result<String> {
    import(src, name).map(|i| i.toml)
}

/// The weight precision a `quantization_config` decides, and what was read
/// (`awq, 4-bit, group size 128`); `None` for a config without one.
fn quantization(c: &Cfg) -> Result<Option<(&'static str, String)>> {
    let Some(q) = c.map.get("quantization_config") else {
        return Ok(None);
    };
    let Some(q) = q.as_object() else {
        return Err(data(
            c.file,
            Some("quantization_config"),
            "`quantization_config` is not an object",
        ));
    };
    let qc = Cfg {
        map: q,
        file: c.file,
    };
    let method = qc
        .string("quant_method")
        .unwrap_or("unnamed")
        .to_ascii_lowercase();
    let int_bits = |bits: u64| -> Result<&'static str> {
        match bits {
            4 => Ok("int4"),
            8 => Ok("int8"),
            b => Err(data(
                c.file,
                Some("quantization_config.bits"),
                format!(
                    "{b}-bit {method} weights: this tool has 4- and 8-bit integer precisions only"
                ),
            )),
        }
    };
    let (dtype, what) = match method.as_str() {
        "awq" | "gptq" => {
            let bits = qc.need("bits").map_err(|_| {
                data(
                    c.file,
                    Some("quantization_config.bits"),
                    format!("a {method} quantization_config needs `bits`"),
                )
            })?;
            let group = qc
                .uint("group_size")?
                .map_or(String::new(), |g| format!(", group size {g}"));
            (int_bits(bits)?, format!("{method}, {bits}-bit{group}"))
        }
        "fp8" | "fbgemm_fp8" => ("fp8", method.clone()),
        "bitsandbytes" => {
            if qc.boolean("load_in_4bit")? == Some(true) {
                ("int4", "bitsandbytes, 4-bit".into())
            } else if qc.boolean("load_in_8bit")? == Some(true) {
                ("int8", "bitsandbytes, 8-bit".into())
            } else {
                return Ok(None);
            }
        }
        other => {
            return Err(data(
                c.file,
                Some("quantization_config.quant_method"),
                format!(
                    "quant_method `{other}` is not one this importer reads (awq, gptq, fp8, fbgemm_fp8, bitsandbytes, modelopt); remove the quantization_config and pass --dtype"
                ),
            ));
        }
    };
    Ok(Some((dtype, what)))
}

/// A repeating pattern's length as a vector length, bounded: a config's
/// pattern of more than 4,096 layers is cut to the model anyway.
fn pattern_len(p: u64) -> usize {
    usize::try_from(p).unwrap_or(usize::MAX).min(4096)
}

/// The per-layer attention kinds a config gives, with the key they came
/// from: `layer_types` where it lists them (gpt-oss, newer Gemma 3 and
/// Llama 4 configs), else Gemma 3's `sliding_window_pattern` (every
/// pattern-th layer global) or Llama 4's `no_rope_layers` /
/// `no_rope_layer_interval` (the NoPE layers attend globally, the RoPE
/// layers in chunks). A kind this tool does not model is refused.
fn layer_types(c: &Cfg, llama4: bool, gemma: bool) -> Result<Option<(Vec<&'static str>, String)>> {
    // A pattern longer than the model is cut to it (validation takes no
    // more types than layers).
    let layers = c
        .uint("num_hidden_layers")?
        .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    if let Some(v) = c.map.get("layer_types").and_then(Value::as_array) {
        let mut types = Vec::new();
        for t in v {
            types.push(match t.as_str() {
                Some("full_attention") => "full",
                Some("sliding_attention") => "sliding",
                Some("chunked_attention") if llama4 => "chunked",
                _ => {
                    return Err(data(
                        c.file,
                        Some("layer_types"),
                        format!("layer type {t} is not one this importer models (full_attention, sliding_attention; chunked_attention for llama4)"),
                    ));
                }
            });
        }
        let n = types.iter().filter(|t| **t != "full").count();
        let from = format!("layer_types ({n} of {} windowed)", types.len());
        return Ok(Some((types, from)));
    }
    if gemma && let Some(p) = c.uint("sliding_window_pattern")? {
        let mut t = vec!["sliding"; pattern_len(p).saturating_sub(1)];
        t.push("full");
        t.truncate(layers);
        let from = format!(
            "sliding_window_pattern {p} (layer i is global when (i + 1) is a multiple of it)"
        );
        return Ok(Some((t, from)));
    }
    if llama4 {
        if let Some(v) = c.map.get("no_rope_layers").and_then(Value::as_array)
            && !v.is_empty()
        {
            let mut t = Vec::new();
            for x in v {
                t.push(match x.as_u64() {
                    Some(1) => "chunked",
                    Some(0) => "full",
                    _ => {
                        return Err(data(
                            c.file,
                            Some("no_rope_layers"),
                            format!("no_rope_layers holds {x}; expected 1 (RoPE, chunked) or 0 (NoPE, global)"),
                        ));
                    }
                });
            }
            // The list may be longer than the model ("at least" one a layer).
            t.truncate(layers);
            return Ok(Some((
                t,
                "no_rope_layers (1: RoPE with chunked attention, 0: NoPE, global)".into(),
            )));
        }
        if let Some(n) = c.uint("no_rope_layer_interval")? {
            let mut t = vec!["chunked"; pattern_len(n).saturating_sub(1)];
            t.push("full");
            t.truncate(layers);
            let from = format!(
                "no_rope_layer_interval {n} (every {n}th layer NoPE with global attention, the rest chunked)"
            );
            return Ok(Some((t, from)));
        }
    }
    Ok(None)
}

/// What a ModelOpt `quantization_config` (`quant_method: modelopt`)
/// decides: the precision of the quantized Linears and the modules it
/// leaves at 16 bits.
struct ModelOpt {
    dtype: &'static str,
    algo: String,
    bf16: Vec<&'static str>,
    notes: Vec<String>,
}

/// Reads a ModelOpt config: `quant_algo` NVFP4 (E2M1 values, an E4M3
/// scale per 16) or FP8; the `ignore` list mapped onto the schema's
/// modules (`*self_attn*` attention, `lm_head`, `*.gate` and `*router*`
/// the router, `*shared_expert*`); an ignore entry that names a layer by
/// index, or a module the schema has no name for, is refused by name, as
/// is MIXED_PRECISION. `None` for any other method.
fn modelopt(c: &Cfg) -> Result<Option<ModelOpt>> {
    let Some(q) = c.map.get("quantization_config").and_then(Value::as_object) else {
        return Ok(None);
    };
    if q.get("quant_method").and_then(Value::as_str) != Some("modelopt") {
        return Ok(None);
    }
    let field = Some("quantization_config.quant_algo");
    let algo = q.get("quant_algo").and_then(Value::as_str).unwrap_or("");
    let dtype = match algo {
        "NVFP4" => "nvfp4",
        "FP8" => "fp8",
        other => {
            return Err(data(
                c.file,
                field,
                format!(
                    "modelopt quant_algo `{other}` is not one this importer reads (NVFP4, FP8); a per-layer MIXED_PRECISION needs a model .toml with [weight-formats]"
                ),
            ));
        }
    };
    // The embedding is not a Linear: ModelOpt never quantizes it.
    let mut bf16 = vec!["embedding"];
    for m in q
        .get("ignore")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let m = m.as_str().unwrap_or("");
        // The vision tower and its projector are not counted at all.
        let vision = [
            "vision_tower",
            "mm_projector",
            "embed_vision",
            "multi_modal_projector",
        ];
        if vision
            .iter()
            .any(|v| m.starts_with(v) || m.contains(&format!(".{v}")))
        {
            continue;
        }
        let module = if m.contains("self_attn") {
            "attention"
        } else if m.ends_with("lm_head") {
            "lm-head"
        } else if m.contains("shared_expert") {
            "shared-experts"
        } else if m.ends_with(".gate") || m.contains("router") {
            "router"
        } else {
            return Err(data(
                c.file,
                Some("quantization_config.ignore"),
                format!(
                    "`{m}`: a module left unquantized that the schema's weight formats cannot name (they name embedding, lm-head, attention, dense-ffn, routed-experts, shared-experts, router)"
                ),
            ));
        };
        if !bf16.contains(&module) {
            bf16.push(module);
        }
    }
    let mut notes = Vec::new();
    let kv8 = q
        .get("kv_cache_scheme")
        .and_then(|k| k.get("num_bits"))
        .and_then(Value::as_u64)
        == Some(8)
        || q.get("kv_cache_quant_algo").and_then(Value::as_str) == Some("FP8");
    if kv8 {
        notes.push("the checkpoint's KV cache is FP8 (quantization_config); pass --kv-dtype fp8 to price it so".into());
    }
    Ok(Some(ModelOpt {
        dtype,
        algo: algo.into(),
        bf16,
        notes,
    }))
}

/// Converts a `config.json` to model-file TOML and the notes on what the
/// import assumed.
pub fn import(src: &str, name: &str) -> Result<Imported> {
    let v: Value = serde_json::from_str(src).map_err(|e| Error::Data {
        file: name.into(),
        line: Some(e.line()),
        col: Some(e.column()),
        field: None,
        message: format!("not valid JSON: {e}"),
    })?;
    let Some(map) = v.as_object() else {
        return Err(data(name, None, "expected a JSON object (a config.json)"));
    };
    let top = Cfg { map, file: name };
    let family = top.string("model_type").ok_or_else(|| {
        data(
            name,
            Some("model_type"),
            format!(
                "`model_type` is missing; supported families: {}",
                FAMILIES.join(", ")
            ),
        )
    })?;
    // Kimi K2 is DeepSeek-V3's architecture under its own name.
    // Kimi K2.5 wraps the same language model in a multimodal config.
    let deepseek = matches!(
        family,
        "deepseek_v3" | "deepseek_v2" | "kimi_k2" | "kimi_k25"
    );
    let nested = matches!(family, "llama4" | "gemma3" | "kimi_k25");
    let qwen3 = matches!(family, "qwen3" | "qwen3_moe");
    let oss = family == "gpt_oss";
    let llama4 = matches!(family, "llama4" | "llama4_text");
    let gemma = matches!(family, "gemma3" | "gemma3_text");
    let glm = family == "glm4_moe";
    if !FAMILIES.contains(&family) {
        return Err(data(
            name,
            Some("model_type"),
            format!(
                "model_type `{family}` is not supported; supported families: {}",
                FAMILIES.join(", ")
            ),
        ));
    }

    // A multimodal config nests the language model in text_config; the
    // keys the class defaults are filled in where the config leaves them.
    let text = match map.get("text_config") {
        Some(Value::Object(t)) if nested => t,
        Some(_) if nested => {
            return Err(data(
                name,
                Some("text_config"),
                "`text_config` is not an object",
            ));
        }
        _ => map,
    };
    let mut merged = text.clone();
    let mut o = Out::default();
    let (class, defaults) = class_defaults(family);
    o.class = class;
    for (k, v) in defaults {
        if !merged.contains_key(k) {
            merged.insert(k.into(), v);
            o.defaulted.push(k);
        }
    }
    let c = Cfg {
        map: &merged,
        file: name,
    };
    if nested && map.contains_key("vision_config") {
        o.notes.push(
            "the vision encoder (vision_config) is not counted: this is the text model".into(),
        );
    }
    let id = id_from(name);
    let _ = writeln!(o.body, "id = {}", quote(&id));
    let title = top
        .string("_name_or_path")
        .filter(|s| !s.is_empty())
        .map_or_else(|| format!("{family} model ({id})"), String::from);
    let _ = writeln!(o.body, "name = {}", quote(&title));
    let _ = writeln!(
        o.body,
        "summary = {}",
        quote(&format!(
            "imported from a Hugging Face {family} config.json{}",
            // Kimi K2 sets 0: no such layer to leave out.
            match c
                .map
                .get("num_nextn_predict_layers")
                .and_then(Value::as_u64)
            {
                Some(0) | None => String::new(),
                Some(n) => format!(
                    "; its {n} multi-token-prediction layer(s) are left out, as in the catalog"
                ),
            }
        ))
    );

    // Biases the schema records only as a whole (qkv-bias, linear-bias):
    // rather than drop them silently, say the config is not supported.
    for key in ["attention_bias", "mlp_bias"] {
        if c.boolean(key)? == Some(true)
            && !(family == "qwen2" || oss || (glm && key == "attention_bias"))
        {
            return Err(data(
                c.file,
                Some(key),
                format!(
                    "`{key}: true` is not supported for {family} configs; write a model .toml with qkv-bias / linear-bias (docs/data-schemas.md)"
                ),
            ));
        }
    }
    let hidden = c.need("hidden_size")?;
    let heads = c.need("num_attention_heads")?;
    o.field("layers", c.need("num_hidden_layers")?, "num_hidden_layers");
    o.field("hidden-size", hidden, "hidden_size");
    o.field("vocab-size", c.need("vocab_size")?, "vocab_size");
    // Every supported family but Gemma (defaulted above) unties them.
    let tied = c.boolean("tie_word_embeddings")?.unwrap_or(false);
    o.field("tied-embeddings", tied, "tie_word_embeddings");
    if let Some(ctx) = c.uint("max_position_embeddings")? {
        o.field("max-context", ctx, "max_position_embeddings");
    }
    // Gemma 2's tanh caps on the logits are a kernel this tool does not
    // price; Gemma 3 sets them null.
    for key in ["attn_logit_softcapping", "final_logit_softcapping"] {
        if c.map.get(key).is_some_and(|v| !v.is_null()) {
            return Err(data(
                name,
                Some(key),
                format!(
                    "`{key}` (a tanh cap on the logits) is not one this tool prices; remove it to read the rest"
                ),
            ));
        }
    }
    if gemma {
        o.field(
            "norms-per-layer",
            4,
            "model_type gemma3 (input, post-attention, pre- and post-feedforward RMSNorms)",
        );
    }
    // Qwen2 and Qwen3 list a window but only use it with use_sliding_window.
    let window_on = c
        .boolean("use_sliding_window")?
        .unwrap_or(family != "qwen2" && !qwen3);
    // Llama 4's local layers attend within fixed chunks, not a sliding
    // window: cached and priced as a window of the chunk's length.
    let (window, window_key) = if llama4 {
        (
            c.uint("attention_chunk_size")?,
            "attention_chunk_size (chunked attention: each query sees its own chunk, priced as a window of that length)",
        )
    } else if window_on {
        (c.uint("sliding_window")?, "sliding_window")
    } else {
        (None, "")
    };
    let types = layer_types(&c, llama4, gemma)?;
    // A window as long as the context is full attention, and so is one no
    // layer uses.
    let ctx = c.uint("max_position_embeddings")?;
    if let Some(w) = window
        && ctx.is_none_or(|ctx| w < ctx)
        && types
            .as_ref()
            .is_none_or(|(t, _)| t.iter().any(|x| *x != "full"))
    {
        o.field("sliding-window", w, window_key);
        if let Some((t, from)) = types {
            let list: Vec<String> = t.iter().map(|t| quote(t)).collect();
            o.field("layer-types", format!("[{}]", list.join(", ")), &from);
        }
    }
    if family == "qwen3_moe"
        && c.map
            .get("mlp_only_layers")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    {
        return Err(data(
            name,
            Some("mlp_only_layers"),
            "dense layers listed by index (mlp_only_layers) are not supported; write a model .toml",
        ));
    }
    if oss {
        if let Some(q) = c.map.get("quantization_config").and_then(Value::as_object) {
            let method = q.get("quant_method").and_then(Value::as_str).unwrap_or("");
            if method != "mxfp4" {
                return Err(data(
                    name,
                    Some("quantization_config.quant_method"),
                    format!("quant_method `{method}` on gpt_oss: this importer reads mxfp4"),
                ));
            }
            for m in q
                .get("modules_to_not_convert")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let m = m.as_str().unwrap_or("");
                if m.contains("experts") {
                    return Err(data(
                        name,
                        Some("quantization_config.modules_to_not_convert"),
                        format!("`{m}`: experts kept at 16 bits is not supported"),
                    ));
                }
            }
            o.weight_formats.push((
                "routed-experts".into(),
                "mxfp4".into(),
                "vendor: config.json quantization_config (quant_method mxfp4; modules_to_not_convert keeps attention, router, embedding and head at 16 bits)".into(),
            ));
        }
    } else if let Some(q) = modelopt(if map.contains_key("quantization_config") {
        &top
    } else {
        &c
    })? {
        o.field(
            "weight-dtype",
            quote(q.dtype),
            &format!(
                "quantization_config (quant_method modelopt, quant_algo {})",
                q.algo
            ),
        );
        let from = "vendor: config.json quantization_config.ignore (modelopt leaves these modules at 16 bits)";
        for m in q.bf16 {
            let from = if m == "embedding" {
                "vendor: config.json quantization_config.config_groups (targets Linear only: the embedding stays at 16 bits)"
            } else {
                from
            };
            o.weight_formats
                .push((m.into(), "bf16".into(), from.into()));
        }
        o.notes.extend(q.notes);
    } else if let Some((dtype, what)) = quantization(if map.contains_key("quantization_config") {
        &top
    } else {
        &c
    })? {
        o.field(
            "weight-dtype",
            quote(dtype),
            &format!("quantization_config ({what})"),
        );
    }

    o.section("attention");
    let kv = match c.uint("num_key_value_heads")? {
        Some(kv) => kv,
        None => {
            if !deepseek {
                o.notes.push(format!(
                    "the config has no num_key_value_heads: read as full multi-head attention ({heads} KV heads, one per query head), as the {family} family defaults"
                ));
            }
            heads
        }
    };
    if deepseek {
        o.field("attention.kind", quote("mla"), "model_type deepseek (MLA)");
    } else {
        let kind = if kv == heads {
            "mha"
        } else if kv == 1 {
            "mqa"
        } else {
            "gqa"
        };
        o.field(
            "attention.kind",
            quote(kind),
            "num_key_value_heads vs num_attention_heads",
        );
    }
    o.field("attention.heads", heads, "num_attention_heads");
    o.field("attention.kv-heads", kv, "num_key_value_heads");
    if deepseek {
        if let Some(r) = c.uint("q_lora_rank")? {
            o.field("attention.q-lora-rank", r, "q_lora_rank");
        }
        for (path, key) in [
            ("attention.kv-lora-rank", "kv_lora_rank"),
            ("attention.qk-rope-head-dim", "qk_rope_head_dim"),
            ("attention.qk-nope-head-dim", "qk_nope_head_dim"),
            ("attention.v-head-dim", "v_head_dim"),
        ] {
            o.field(path, c.need(key)?, key);
        }
    } else if let Some(hd) = c.uint("head_dim")? {
        o.field("attention.head-dim", hd, "head_dim");
    } else if hidden.is_multiple_of(heads) {
        o.field(
            "attention.head-dim",
            hidden.checked_div(heads).unwrap_or(0),
            "hidden_size / num_attention_heads",
        );
    }
    if family == "qwen2" {
        o.field(
            "attention.qkv-bias",
            true,
            "model_type qwen2 (q, k, v biases)",
        );
    }
    if qwen3 || gemma {
        o.field(
            "attention.qk-norm",
            quote("rmsnorm"),
            &format!("model_type {family} (q_norm, k_norm per head)"),
        );
    }
    if glm {
        let bias = c.boolean("attention_bias")?.unwrap_or(false);
        o.field(
            "attention.qkv-bias",
            bias,
            "attention_bias (q, k, v; o_proj has none)",
        );
        if c.boolean("use_qk_norm")? == Some(true) {
            o.field(
                "attention.qk-norm",
                quote("rmsnorm"),
                "use_qk_norm (q_norm, k_norm per head)",
            );
        }
    }
    if llama4 && c.boolean("use_qk_norm")? == Some(true) {
        o.field(
            "attention.qk-norm",
            quote("l2"),
            "use_qk_norm (L2 norm without weights)",
        );
        o.notes.push(
            "use_qk_norm: Llama 4 L2-normalises q and k on its RoPE layers only; the norm is priced on every layer (it has no weights)".into(),
        );
    }
    if llama4 && c.boolean("attn_temperature_tuning")? == Some(true) {
        o.notes.push(
            "attn_temperature_tuning: the NoPE layers scale each query by a position-dependent factor, one multiply a query element, not priced".into(),
        );
    }
    if oss {
        let bias = c.boolean("attention_bias")?.unwrap_or(false);
        o.field("attention.qkv-bias", bias, "attention_bias");
        o.field("attention.o-bias", bias, "attention_bias");
        o.field(
            "attention.sinks",
            true,
            "model_type gpt_oss (self_attn.sinks, one per head)",
        );
    }

    o.section("ffn");
    // Llama 4's dense layers are wider than its experts.
    let dense_key = if llama4 {
        "intermediate_size_mlp"
    } else {
        "intermediate_size"
    };
    o.field("ffn.intermediate-size", c.need(dense_key)?, dense_key);
    // Gemma names its activation hidden_activation.
    let act_key = if c.string("hidden_activation").is_some() {
        "hidden_activation"
    } else {
        "hidden_act"
    };
    let act_name = c.string(act_key).unwrap_or("silu");
    let act = activation(act_name).ok_or_else(|| {
        data(
            name,
            Some(act_key),
            format!("{act_key} `{act_name}` is not one this importer maps (silu, gelu)"),
        )
    })?;
    o.field(
        "ffn.activation",
        quote(act),
        &format!("{act_key} {act_name} with gate/up/down projections"),
    );

    if family == "qwen3_moe" {
        o.section("moe");
        experts(&mut o, &c, "num_experts", "moe_intermediate_size")?;
        if let Some(step) = c.uint("decoder_sparse_step")? {
            o.field("moe.layer-step", step, "decoder_sparse_step");
        }
    }
    if oss {
        o.section("moe");
        experts(&mut o, &c, "num_local_experts", "intermediate_size")?;
        o.field(
            "moe.router-bias",
            true,
            "model_type gpt_oss (mlp.router.bias)",
        );
        o.field(
            "moe.expert-bias",
            true,
            "model_type gpt_oss (gate_up_proj_bias, down_proj_bias)",
        );
    }
    if llama4 {
        let step = c.need("interleave_moe_layer_step")?;
        // An explicit list of MoE layers must be the one the step makes
        // (layers step - 1, 2 step - 1, ...), which the schema can say.
        if let Some(v) = c.map.get("moe_layers").and_then(Value::as_array) {
            let layers = c.need("num_hidden_layers")?;
            // Layers step - 1, 2 step - 1, ... (step and layers are positive
            // and bounded, so none of this overflows).
            let n = layers.checked_div(step).unwrap_or(0);
            let want: Vec<u64> = (1..=n)
                .map(|k| k.saturating_mul(step).saturating_sub(1))
                .collect();
            let got: Vec<u64> = v.iter().filter_map(Value::as_u64).collect();
            if got != want || got.len() != v.len() {
                return Err(data(
                    name,
                    Some("moe_layers"),
                    format!(
                        "MoE layers listed by index other than every {step}th are not supported; write a model .toml"
                    ),
                ));
            }
        }
        o.section("moe");
        experts(&mut o, &c, "num_local_experts", "intermediate_size")?;
        o.field(
            "moe.shared-experts",
            1,
            "model_type llama4 (feed_forward.shared_expert in every MoE layer, of width intermediate_size)",
        );
        o.field("moe.layer-step", step, "interleave_moe_layer_step");
    }
    if family == "mixtral" {
        o.section("moe");
        experts(&mut o, &c, "num_local_experts", "intermediate_size")?;
    }
    if (deepseek || glm)
        && let Some(routed) = c.uint("n_routed_experts")?
    {
        if c.uint("moe_layer_freq")?.is_some_and(|f| f != 1) {
            return Err(data(
                name,
                Some("moe_layer_freq"),
                "MoE layers interleaved with dense ones (moe_layer_freq > 1) are not supported",
            ));
        }
        o.section("moe");
        o.field("moe.routed-experts", routed, "n_routed_experts");
        o.field(
            "moe.shared-experts",
            c.uint("n_shared_experts")?.unwrap_or(0),
            "n_shared_experts",
        );
        per_token(&mut o, &c, "moe_intermediate_size")?;
        o.field(
            "moe.dense-layers",
            c.uint("first_k_dense_replace")?.unwrap_or(0),
            "first_k_dense_replace",
        );
        // DeepSeek-V3's aux-loss-free balancing adds e_score_correction_bias;
        // GLM-4.5's router always carries it.
        if glm {
            o.field(
                "moe.router-bias",
                true,
                "model_type glm4_moe (gate.e_score_correction_bias)",
            );
        } else {
            let bias = c.string("topk_method") == Some("noaux_tc");
            o.field(
                "moe.router-bias",
                bias,
                "topk_method (noaux_tc carries e_score_correction_bias)",
            );
        }
    }

    if !o.weight_formats.is_empty() {
        o.body.push_str("\n[weight-formats]\n");
        let formats = std::mem::take(&mut o.weight_formats);
        for (k, v, from) in formats {
            let _ = writeln!(o.body, "{k} = {}", quote(&v));
            o.sources.push((format!("weight-formats.{k}"), from));
        }
    }
    o.body.push_str("\n[sources]\n");
    for (k, v) in &o.sources {
        let _ = writeln!(o.body, "{} = {}", quote(k), quote(v));
    }
    Ok(Imported {
        toml: o.body,
        notes: o.notes,
    })
}

#[cfg(test)]
mod tests;

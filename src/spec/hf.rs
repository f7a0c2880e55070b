//! Hugging Face `config.json` import: maps a model family's field names onto
//! the model file's schema and emits TOML, so imported configs go through the
//! same validation as catalog files.
//!
//! Families: `llama`, `mistral`, `qwen2`, `mixtral`, `deepseek_v3` (and
//! `deepseek_v2`, which shares its field names). Every imported number gets a
//! `[sources]` entry naming the `config.json` key it came from.

use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::fmt::Write;

/// The families this importer understands, for messages.
pub const FAMILIES: &[&str] = &["llama", "mistral", "qwen2", "mixtral", "deepseek_v3"];

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
        self.sources
            .push((path.into(), format!("vendor: config.json {from}")));
    }
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
                    "quant_method `{other}` is not one this importer reads (awq, gptq, fp8, fbgemm_fp8, bitsandbytes); remove the quantization_config and pass --dtype"
                ),
            ));
        }
    };
    Ok(Some((dtype, what)))
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
    let c = Cfg { map, file: name };
    let family = c.string("model_type").ok_or_else(|| {
        data(
            name,
            Some("model_type"),
            format!(
                "`model_type` is missing; supported families: {}",
                FAMILIES.join(", ")
            ),
        )
    })?;
    let deepseek = matches!(family, "deepseek_v3" | "deepseek_v2");
    if !deepseek && !matches!(family, "llama" | "mistral" | "qwen2" | "mixtral") {
        return Err(data(
            name,
            Some("model_type"),
            format!(
                "model_type `{family}` is not supported; supported families: {}",
                FAMILIES.join(", ")
            ),
        ));
    }

    let mut o = Out::default();
    let id = id_from(name);
    let _ = writeln!(o.body, "id = {}", quote(&id));
    let title = c
        .string("_name_or_path")
        .filter(|s| !s.is_empty())
        .map_or_else(|| format!("{family} model ({id})"), String::from);
    let _ = writeln!(o.body, "name = {}", quote(&title));
    let _ = writeln!(
        o.body,
        "summary = {}",
        quote(&format!(
            "imported from a Hugging Face {family} config.json{}",
            match c.uint("num_nextn_predict_layers")? {
                Some(n) => format!(
                    "; its {n} multi-token-prediction layer(s) are left out, as in the catalog"
                ),
                None => String::new(),
            }
        ))
    );

    // Biases the schema records only as a whole (qkv-bias, linear-bias):
    // rather than drop them silently, say the config is not supported.
    for key in ["attention_bias", "mlp_bias"] {
        if c.boolean(key)? == Some(true) && family != "qwen2" {
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
    // Every supported family defaults to untied embeddings.
    let tied = c.boolean("tie_word_embeddings")?.unwrap_or(false);
    o.field("tied-embeddings", tied, "tie_word_embeddings");
    if let Some(ctx) = c.uint("max_position_embeddings")? {
        o.field("max-context", ctx, "max_position_embeddings");
    }
    // Qwen2 lists a window but only uses it with use_sliding_window.
    let window_on = c
        .boolean("use_sliding_window")?
        .unwrap_or(family != "qwen2");
    // A window as long as the context is full attention.
    let ctx = c.uint("max_position_embeddings")?;
    if window_on
        && let Some(w) = c.uint("sliding_window")?
        && ctx.is_none_or(|ctx| w < ctx)
    {
        o.field("sliding-window", w, "sliding_window");
    }

    if let Some((dtype, what)) = quantization(&c)? {
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
            hidden / heads,
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

    o.section("ffn");
    o.field(
        "ffn.intermediate-size",
        c.need("intermediate_size")?,
        "intermediate_size",
    );
    let act_name = c.string("hidden_act").unwrap_or("silu");
    let act = activation(act_name).ok_or_else(|| {
        data(
            name,
            Some("hidden_act"),
            format!("hidden_act `{act_name}` is not one this importer maps (silu, gelu)"),
        )
    })?;
    o.field(
        "ffn.activation",
        quote(act),
        &format!("hidden_act {act_name} with gate/up/down projections"),
    );

    if family == "mixtral" {
        o.section("moe");
        o.field(
            "moe.routed-experts",
            c.need("num_local_experts")?,
            "num_local_experts",
        );
        o.field(
            "moe.experts-per-token",
            c.need("num_experts_per_tok")?,
            "num_experts_per_tok",
        );
        o.field(
            "moe.expert-intermediate-size",
            c.need("intermediate_size")?,
            "intermediate_size",
        );
    }
    if deepseek && let Some(routed) = c.uint("n_routed_experts")? {
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
        o.field(
            "moe.experts-per-token",
            c.need("num_experts_per_tok")?,
            "num_experts_per_tok",
        );
        o.field(
            "moe.expert-intermediate-size",
            c.need("moe_intermediate_size")?,
            "moe_intermediate_size",
        );
        o.field(
            "moe.dense-layers",
            c.uint("first_k_dense_replace")?.unwrap_or(0),
            "first_k_dense_replace",
        );
        // DeepSeek-V3's aux-loss-free balancing adds e_score_correction_bias.
        let bias = c.string("topk_method") == Some("noaux_tc");
        o.field(
            "moe.router-bias",
            bias,
            "topk_method (noaux_tc carries e_score_correction_bias)",
        );
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
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_the_file_or_its_folder() {
        assert_eq!(id_from("tests/data/hf/llama-3-8b.json"), "llama-3-8b");
        assert_eq!(
            id_from("models/Meta-Llama-3-8B/config.json"),
            "meta-llama-3-8b"
        );
    }

    #[test]
    fn bad_json_names_line_and_column() {
        let e = to_toml("{\n  \"model_type\": \"llama\",\n  oops\n}", "x.json").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("x.json") && msg.contains(":3:"), "{msg}");
        assert_eq!(e.exit_code(), 65);
    }

    #[test]
    fn unknown_family_lists_the_supported_ones() {
        let e = to_toml(r#"{"model_type": "gpt2"}"#, "g.json").unwrap_err();
        assert!(e.to_string().contains("deepseek_v3"), "{e}");
    }

    #[test]
    fn missing_key_is_named() {
        let e = to_toml(
            r#"{"model_type": "llama", "num_attention_heads": 32}"#,
            "m.json",
        )
        .unwrap_err();
        assert!(e.to_string().contains("hidden_size"), "{e}");
    }
}

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
pub const FAMILIES: &[&str] = &[
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "qwen3_moe",
    "gpt_oss",
    "mixtral",
    "deepseek_v3",
    "kimi_k2",
];

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
    weight_formats: Vec<(String, String)>,
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
    // Kimi K2 is DeepSeek-V3's architecture under its own name.
    let deepseek = matches!(family, "deepseek_v3" | "deepseek_v2" | "kimi_k2");
    let qwen3 = matches!(family, "qwen3" | "qwen3_moe");
    let oss = family == "gpt_oss";
    if !deepseek && !qwen3 && !oss && !matches!(family, "llama" | "mistral" | "qwen2" | "mixtral") {
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
        if c.boolean(key)? == Some(true) && family != "qwen2" && !oss {
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
    // Qwen2 and Qwen3 list a window but only use it with use_sliding_window.
    let window_on = c
        .boolean("use_sliding_window")?
        .unwrap_or(family != "qwen2" && !qwen3);
    // A window as long as the context is full attention.
    let ctx = c.uint("max_position_embeddings")?;
    if window_on
        && let Some(w) = c.uint("sliding_window")?
        && ctx.is_none_or(|ctx| w < ctx)
    {
        o.field("sliding-window", w, "sliding_window");
    }

    // Per-layer attention kinds (gpt-oss alternates 128-token windows
    // with full layers); a kind this tool does not model is refused.
    if let Some(v) = c.map.get("layer_types").and_then(Value::as_array) {
        let mut types = Vec::new();
        for t in v {
            types.push(match t.as_str() {
                Some("full_attention") => "full",
                Some("sliding_attention") => "sliding",
                _ => {
                    return Err(data(
                        name,
                        Some("layer_types"),
                        format!("layer type {t} is not one this importer models (full_attention, sliding_attention)"),
                    ));
                }
            });
        }
        if window_on && types.contains(&"sliding") {
            let n = types.iter().filter(|t| **t == "sliding").count();
            let list: Vec<String> = types.iter().map(|t| quote(t)).collect();
            o.field(
                "layer-types",
                format!("[{}]", list.join(", ")),
                &format!("layer_types ({n} of {} sliding_attention)", types.len()),
            );
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
            o.weight_formats
                .push(("routed-experts".into(), "mxfp4".into()));
        }
    } else if let Some((dtype, what)) = quantization(&c)? {
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
    if qwen3 {
        o.field(
            "attention.qk-norm",
            quote("rmsnorm"),
            "model_type qwen3 (q_norm, k_norm per head)",
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

    if family == "qwen3_moe" {
        o.section("moe");
        o.field("moe.routed-experts", c.need("num_experts")?, "num_experts");
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
        if let Some(step) = c.uint("decoder_sparse_step")? {
            o.field("moe.layer-step", step, "decoder_sparse_step");
        }
    }
    if oss {
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

    if !o.weight_formats.is_empty() {
        o.body.push_str("\n[weight-formats]\n");
        let formats = std::mem::take(&mut o.weight_formats);
        for (k, v) in formats {
            let _ = writeln!(o.body, "{k} = {}", quote(&v));
            o.sources.push((
                format!("weight-formats.{k}"),
                "vendor: config.json quantization_config (quant_method mxfp4; modules_to_not_convert keeps attention, router, embedding and head at 16 bits)".into(),
            ));
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

#[cfg(test)]
mod family_tests {
    use crate::spec::{Origin, model::Model};

    fn load(name: &str) -> Model {
        let path = format!("{}/tests/data/hf/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let src = std::fs::read_to_string(&path).unwrap();
        let toml = super::to_toml(&src, &path).unwrap();
        Model::parse(
            &toml,
            &Origin {
                name: path,
                overridden: false,
            },
        )
        .unwrap()
    }

    // Hand derivations from the configs (d hidden, L layers, V vocabulary):
    // Qwen3-8B: embedding + head 2 x 151,936 x 4,096 = 1,244,659,712;
    // attention 36 x (2 x 4096 x 4096 + 2 x 4096 x 1024 + 2 x 128 q/k norm)
    // = 1,509,958,656; FFN 36 x 3 x 4096 x 12288 = 5,435,817,984; norms
    // (2 x 36 + 1) x 4096 = 299,008: 8,190,735,360 (the card's 8.2 B).
    // gpt-oss-120b: embedding + head 2 x 201,088 x 2,880 = 1,158,266,880;
    // attention 36 x (2 x 2880 x 4096 + 2 x 2880 x 512 + biases 4096 +
    // 1024 + 2880 + 64 sinks) = 955,805,184; experts 36 x 128 x (3 x 2880
    // x 2880 + 2 x 2880 + 2880 biases) = 114,704,998,400, routers 36 x
    // (2880 x 128 + 128) = 13,275,648; norms (2 x 36 + 1) x 2880 = 210,240:
    // 116,829,156,672 (the card's 116.83 B).
    #[test]
    fn published_configs_count_by_hand() {
        let p = |n| crate::calc::model::params(&load(n)).unwrap();
        assert_eq!(p("qwen3-8b").total, 8_190_735_360);
        assert_eq!(p("gpt-oss-120b").total, 116_829_156_672);
        // Qwen3-30B-A3B: 622,329,856 + 48 x 18,874,624 + 48 x (128 x
        // 4,718,592 + 262,144) + 198,656; active: 8 of the 128 experts.
        let q = p("qwen3-30b-a3b");
        assert_eq!(q.total, 30_532_122_624);
        assert_eq!(q.active, 3_353_032_704);
        // gpt-oss-20b: 24 layers, 32 experts, top 4.
        let g = p("gpt-oss-20b");
        assert_eq!(g.total, 20_914_757_184);
        // Active less the embedding: the card's 3.61 B rule.
        assert_eq!(g.active - g.embedding, 3_608_307_264);
    }

    #[test]
    fn gpt_oss_20b_kv_caps_the_windowed_layers() {
        // 12 full layers x 8,192 + 12 windowed x 128 tokens, 2 x 8 x 64 x
        // 2 bytes a token-layer: 2,048 x 99,840 = 204,472,320 bytes.
        let m = load("gpt-oss-20b");
        assert_eq!(m.windowed_layers(), 12);
        assert_eq!(m.cached_token_layers(8192) * 2048.0, 204_472_320.0);
    }
}

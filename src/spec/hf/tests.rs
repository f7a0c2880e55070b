//! The importer's unit tests: messages, and the published configs counted
//! by hand.

mod messages {
    use super::super::*;

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

mod family_tests {
    use crate::spec::{Origin, model::Model};

    fn load(name: &str) -> Model {
        let path = format!("{}/tests/data/hf/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let src = std::fs::read_to_string(&path).unwrap();
        let toml = crate::spec::hf::to_toml(&src, &path).unwrap();
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

/// What the Llama 4, Gemma 3 and GLM-4.5 importers map, default and
/// refuse, on small configs written here.
mod new_families {
    use super::super::*;

    fn tiny_llama4(extra: &str) -> String {
        format!(
            r#"{{"model_type": "llama4", "text_config": {{"hidden_size": 64,
            "num_hidden_layers": 8, "num_attention_heads": 4, "num_key_value_heads": 2,
            "head_dim": 16, "vocab_size": 100, "intermediate_size": 32,
            "intermediate_size_mlp": 128, "num_local_experts": 4,
            "num_experts_per_tok": 1, "max_position_embeddings": 1000000{extra}}}}}"#
        )
    }

    #[test]
    fn llama4_reads_text_config_and_the_class_defaults() {
        let t = to_toml(&tiny_llama4(""), "l4.json").unwrap();
        // The chunk, the NoPE pattern from no_rope_layer_interval 4, the
        // shared expert and the dense width, each with its source.
        assert!(t.contains("sliding-window = 8192"), "{t}");
        assert!(
            t.contains(r#"layer-types = ["chunked", "chunked", "chunked", "full"]"#),
            "{t}"
        );
        assert!(
            t.contains("Llama4TextConfig default attention_chunk_size"),
            "{t}"
        );
        assert!(t.contains("shared-experts = 1"), "{t}");
        assert!(t.contains("intermediate-size = 128"), "{t}");
        assert!(t.contains("qk-norm = \"l2\""), "{t}");
    }

    #[test]
    fn llama4_without_chunking_is_full_attention() {
        let t = to_toml(&tiny_llama4(r#", "attention_chunk_size": null"#), "l4.json").unwrap();
        assert!(!t.contains("sliding-window"), "{t}");
    }

    #[test]
    fn llama4_moe_layers_off_the_step_are_refused_by_name() {
        let e = to_toml(&tiny_llama4(r#", "moe_layers": [0, 5]"#), "l4.json").unwrap_err();
        assert!(e.to_string().contains("moe_layers"), "{e}");
        // The list the step makes is accepted.
        to_toml(
            &tiny_llama4(r#", "interleave_moe_layer_step": 2, "moe_layers": [1, 3, 5, 7]"#),
            "l4.json",
        )
        .unwrap();
    }

    #[test]
    fn gemma3_pattern_norms_and_softcapping() {
        let base = r#""model_type": "gemma3_text", "hidden_size": 64, "num_hidden_layers": 12,
            "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
            "intermediate_size": 128, "sliding_window": 512"#;
        let t = to_toml(&format!("{{{base}}}"), "g.json").unwrap();
        assert!(t.contains("norms-per-layer = 4"), "{t}");
        assert!(t.contains("qk-norm = \"rmsnorm\""), "{t}");
        assert!(t.contains("tied-embeddings = true"), "{t}");
        assert!(t.contains("activation = \"geglu\""), "{t}");
        assert!(
            t.contains(r#"["sliding", "sliding", "sliding", "sliding", "sliding", "full"]"#),
            "{t}"
        );
        // A pattern of 1 makes every layer global: no window at all.
        let t = to_toml(
            &format!(r#"{{{base}, "sliding_window_pattern": 1}}"#),
            "g.json",
        )
        .unwrap();
        assert!(!t.contains("sliding-window"), "{t}");
        let e = to_toml(
            &format!(r#"{{{base}, "final_logit_softcapping": 30.0}}"#),
            "g.json",
        )
        .unwrap_err();
        assert!(e.to_string().contains("final_logit_softcapping"), "{e}");
    }

    #[test]
    fn an_unknown_layer_type_is_refused_by_name() {
        let e = to_toml(
            r#"{"model_type": "gemma3_text", "hidden_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 4, "intermediate_size": 128,
            "layer_types": ["linear_attention", "full_attention"]}"#,
            "g.json",
        )
        .unwrap_err();
        assert!(e.to_string().contains("linear_attention"), "{e}");
    }

    #[test]
    fn glm4_moe_biases_and_router() {
        let t = to_toml(
            r#"{"model_type": "glm4_moe", "hidden_size": 64, "num_hidden_layers": 4,
            "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
            "vocab_size": 100, "intermediate_size": 128, "moe_intermediate_size": 16,
            "n_routed_experts": 8, "n_shared_experts": 1, "num_experts_per_tok": 2,
            "first_k_dense_replace": 1, "attention_bias": true, "use_qk_norm": true}"#,
            "glm.json",
        )
        .unwrap();
        for want in [
            "qkv-bias = true",
            "qk-norm = \"rmsnorm\"",
            "router-bias = true",
            "dense-layers = 1",
            "shared-experts = 1",
        ] {
            assert!(t.contains(want), "{want}: {t}");
        }
    }
}

/// ModelOpt quantization configs.
mod modelopt {
    use super::super::*;

    fn with(q: &str) -> Result<String> {
        to_toml(
            &format!(
                r#"{{"model_type": "qwen3", "hidden_size": 64, "num_hidden_layers": 2,
                "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
                "vocab_size": 100, "intermediate_size": 128, "quantization_config": {q}}}"#
            ),
            "q.json",
        )
    }

    #[test]
    fn nvfp4_maps_the_ignore_list_onto_modules() {
        let t = with(
            r#"{"quant_method": "modelopt", "quant_algo": "NVFP4",
            "ignore": ["lm_head", "model.layers.0.self_attn*", "model.layers.1.self_attn*"]}"#,
        )
        .unwrap();
        assert!(t.contains("weight-dtype = \"nvfp4\""), "{t}");
        for m in ["embedding", "lm-head", "attention"] {
            assert!(t.contains(&format!("{m} = \"bf16\"")), "{m}: {t}");
        }
    }

    #[test]
    fn what_the_schema_cannot_say_is_refused_by_name() {
        let e =
            with(r#"{"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION"}"#).unwrap_err();
        assert!(e.to_string().contains("MIXED_PRECISION"), "{e}");
        let e = with(
            r#"{"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ["model.layers.0*"]}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("model.layers.0*"), "{e}");
    }
}

//! The models people deploy in 2026 (issue 39), through the CLI on their
//! catalog ids: parameter counts, weight bytes and KV bytes against hand
//! derivations from the published configs (tests/data/hf-sources.md), and
//! the same figures from the configs themselves.

use crate::common::{cli_json, json_num};

/// `model show ID --format json`.
fn show(id: &str) -> serde_json::Value {
    cli_json(&["model", "show", id])
}

/// (total, active) parameters of `model show`.
fn counts(id: &str) -> (f64, f64) {
    let r = show(id);
    (json_num(&r, "params"), json_num(&r, "active_params"))
}

/// Within a relative tolerance.
fn near(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got / want - 1.0).abs() <= tol,
        "{what}: {got} against {want} (tolerance {tol})"
    );
}

// Notation: d model width, L layers, V vocabulary, h query heads, k KV
// heads, e head dim, f FFN width, E experts, t experts per token, m expert
// width. Untied embeddings count V x d twice; a norm is d weights, two per
// block plus the final one. Attention per layer: 2 d h e + 2 d k e, and
// 2 e for Qwen3's q/k RMSNorm. A gated FFN is 3 d f. Active parameters:
// the total less the routed experts, plus t of them per MoE layer (the
// embedding counted, as for every model; `model show` also gives the
// count without it).

#[test]
fn qwen3_dense_counts_by_hand() {
    // Qwen3-8B: d 4096, L 36, V 151,936, h 32, k 8, e 128, f 12,288.
    // 2 x 151,936 x 4,096 = 1,244,659,712; attention 36 x (2 x 4096 x 4096
    // + 2 x 4096 x 1024 + 256) = 1,509,958,656; FFN 36 x 3 x 4096 x 12,288
    // = 5,435,817,984; norms 73 x 4096 = 299,008: 8,190,735,360 (8.19 B).
    let (t, a) = counts("qwen3-8b");
    assert_eq!(t, 8_190_735_360.0);
    assert_eq!(a, t);
    near("qwen3-8b against 8.19 B", t, 8.19e9, 0.005);
    // Qwen3-32B: d 5120, L 64, h 64, k 8, e 128, f 25,600. 2 x 151,936 x
    // 5120 = 1,555,824,640; attention 64 x (2 x 5120 x 8192 + 2 x 5120 x
    // 1024 + 256) = 6,039,814,144; FFN 64 x 3 x 5120 x 25,600 =
    // 25,165,824,000; norms 129 x 5120 = 660,480: 32,762,123,264 (the
    // card's 32.8 B; less the two V x d tables, 31.2 B, its non-embedding
    // figure).
    assert_eq!(counts("qwen3-32b").0, 32_762_123_264.0);
}

#[test]
fn qwen3_moe_counts_by_hand() {
    // Qwen3-30B-A3B: d 2048, L 48, h 32, k 4, e 128, E 128, t 8, m 768.
    // 2 x 151,936 x 2048 = 622,329,856; attention 48 x (2 x 2048 x 4096 +
    // 2 x 2048 x 512 + 256) = 905,981,952; experts 48 x 128 x 3 x 2048 x
    // 768 = 28,991,029,248; routers 48 x 2048 x 128 = 12,582,912; norms
    // 97 x 2048 = 198,656: 30,532,122,624 (30.53 B). Active: 8 of 128
    // experts, 48 x 8 x 4,718,592 = 1,811,939,328 in place of the
    // 28,991,029,248: 3,353,032,704.
    let (t, a) = counts("qwen3-30b-a3b");
    assert_eq!(t, 30_532_122_624.0);
    assert_eq!(a, 3_353_032_704.0);
    near("qwen3-30b-a3b against 30.53 B", t, 30.53e9, 0.005);
    // Qwen3-235B-A22B: d 4096, L 94, h 64, k 4, E 128, t 8, m 1536.
    // 1,244,659,712 + attention 94 x (2 x 4096 x 8192 + 2 x 4096 x 512 +
    // 256) = 6,702,521,856 + experts 94 x 128 x 18,874,368 =
    // 227,096,395,776 + routers 94 x 524,288 = 49,283,072 + norms 189 x
    // 4096 = 774,144: 235,093,634,560. Active: 235,093,634,560 -
    // 227,096,395,776 + 94 x 8 x 18,874,368 = 22,190,763,520.
    let (t, a) = counts("qwen3-235b-a22b");
    assert_eq!(t, 235_093_634_560.0);
    assert_eq!(a, 22_190_763_520.0);
}

#[test]
fn llama_3_2_counts_and_kv_by_hand() {
    // Llama 3.2 1B: d 2048, L 16, V 128,256, h 32, k 8, e 64, f 8192, the
    // input embedding and the output head one tied matrix (counted once).
    // Embedding 128,256 x 2048 = 262,668,288; attention 16 x (2 x 2048 x
    // 2048 + 2 x 2048 x 512) = 16 x 10,485,760 = 167,772,160; FFN 16 x 3 x
    // 2048 x 8192 = 805,306,368; norms (2 x 16 + 1) x 2048 = 67,584:
    // 1,235,814,400 (the card's 1.23 B).
    let r = show("llama-3.2-1b");
    let t = json_num(&r, "params");
    assert_eq!(t, 1_235_814_400.0);
    assert_eq!(json_num(&r, "active_params"), t);
    near("llama-3.2-1b against 1.23 B", t, 1.23e9, 0.005);
    // bf16: 2 B a parameter, 2,471,628,800 B.
    assert_eq!(json_num(&r, "weight_bytes"), 2_471_628_800.0);
    // KV a token: K and V, 16 layers x 8 heads x 64 x 2 B = 2 x 16,384 =
    // 32,768 B.
    assert_eq!(json_num(&r, "kv_bytes_per_token"), 32_768.0);
    // Llama 3.2 3B: d 3072, L 28, h 24, k 8, e 128, f 8192, tied.
    // Embedding 128,256 x 3072 = 394,002,432; attention 28 x (2 x 3072 x
    // 3072 + 2 x 3072 x 1024) = 28 x 25,165,824 = 704,643,072; FFN 28 x 3
    // x 3072 x 8192 = 2,113,929,216; norms (2 x 28 + 1) x 3072 = 175,104:
    // 3,212,749,824 (the card's 3.21 B).
    let r = show("llama-3.2-3b");
    let t = json_num(&r, "params");
    assert_eq!(t, 3_212_749_824.0);
    near("llama-3.2-3b against 3.21 B", t, 3.21e9, 0.005);
    // KV a token: 2 x 28 x 8 x 128 x 2 B = 114,688 B.
    assert_eq!(json_num(&r, "kv_bytes_per_token"), 114_688.0);
    // At 8,192 tokens, one sequence: 8,192 x 114,688 = 939,524,096 B.
    let kv = cli_json(&["kv", "--model", "llama-3.2-3b", "--context", "8192"]);
    assert_eq!(json_num(&kv, "kv_bytes"), 939_524_096.0);
}

#[test]
fn gpt_oss_counts_weights_and_fit_by_hand() {
    // gpt-oss-120b: d 2880, L 36, V 201,088, h 64, k 8, e 64, E 128, t 4,
    // m 2880, biases on q, k, v, o, router and experts, one sink a head.
    // 2 x 201,088 x 2880 = 1,158,266,880; attention 36 x (2 x 2880 x 4096
    // + 2 x 2880 x 512 + 4096 + 1024 + 2880 + 64) = 955,805,184; experts
    // 36 x 128 x (3 x 2880^2 + 2 x 2880 + 2880) = 114,704,998,400; routers
    // 36 x (2880 x 128 + 128) = 13,275,648; norms 73 x 2880 = 210,240:
    // 116,829,156,672 (116.83 B).
    let r = show("gpt-oss-120b");
    let t = json_num(&r, "params");
    assert_eq!(t, 116_829_156_672.0);
    near("gpt-oss-120b against 116.83 B", t, 116.83e9, 0.005);
    // Weights: the expert matrices, 36 x 128 x 3 x 2880^2 =
    // 114,661,785,600, in MXFP4 at 4.25 bits (4-bit values and an 8-bit
    // scale per 32): 60,914,073,600 B; the other 2,167,371,072 parameters
    // (expert biases included) in bf16: 4,334,742,144 B. 65,248,815,744 B,
    // the card's 60.8 GiB checkpoint.
    assert_eq!(json_num(&r, "weight_bytes"), 65_248_815_744.0);
    // On one H100 80 GB at 8k: 0.9 x 80e9 - 65,248,815,744 = 6,751,184,256
    // B of KV room; a sequence of 8,192 tokens caches 18 full layers x
    // 8,192 + 18 windowed x 128 = 149,760 token-layers x 2 x 8 x 64 x 2 B
    // = 306,708,480 B: 22 sequences fit.
    let fit = cli_json(&[
        "kv",
        "--model",
        "gpt-oss-120b",
        "--context",
        "8192",
        "--hw",
        "h100-sxm",
    ]);
    assert_eq!(json_num(&fit, "kv_bytes_per_sequence"), 306_708_480.0);
    assert_eq!(json_num(&fit, "max_batch"), 22.0);
    // gpt-oss-20b: L 24, E 32. 1,158,266,880 + attention 24 x 26,550,144 =
    // 637,203,456 + experts 24 x 32 x 24,891,840 = 19,116,933,120 +
    // routers 24 x 92,192 = 2,212,608 + norms 49 x 2880 = 141,120:
    // 20,914,757,184 (20.91 B). Active less the input embedding, the
    // card's rule: 20,914,757,184 - 19,116,933,120 + 24 x 4 x 24,891,840 -
    // 579,133,440 = 3,608,307,264 (its 3.61 B).
    let r = show("gpt-oss-20b");
    let t = json_num(&r, "params");
    assert_eq!(t, 20_914_757_184.0);
    near("gpt-oss-20b against 20.91 B", t, 20.91e9, 0.005);
    assert_eq!(
        json_num(&r, "active_params_without_embedding"),
        3_608_307_264.0
    );
    // Its bf16 KV at 8,192 tokens: 12 full layers x 8,192 + 12 windowed x
    // 128 = 99,840 token-layers x 2,048 B = 204,472,320 B (204.5 MB).
    let kv = cli_json(&["kv", "--model", "gpt-oss-20b", "--context", "8192"]);
    assert_eq!(json_num(&kv, "kv_bytes"), 204_472_320.0);
}

#[test]
fn llama_4_counts_and_chunked_kv_by_hand() {
    // Llama 4 Scout: d 5120, L 48, V 202,048, h 40, k 8, e 128, E 16, t 1,
    // m 8192, one shared expert of m per MoE layer, every layer MoE.
    // 2 x 202,048 x 5120 = 2,068,971,520; attention 48 x 62,914,560 =
    // 3,019,898,880; routed 48 x 16 x 125,829,120 = 96,636,764,160; shared
    // 48 x 125,829,120 = 6,039,797,760; routers 48 x 81,920 = 3,932,160;
    // norms 97 x 5120 = 496,640: 107,769,861,120 (the card's 109 B holds
    // the vision encoder too). Active: 107,769,861,120 - 96,636,764,160 +
    // 48 x 125,829,120 = 17,172,894,720 (17 B).
    let (t, a) = counts("llama-4-scout");
    assert_eq!(t, 107_769_861_120.0);
    assert_eq!(a, 17_172_894_720.0);
    // Maverick: E 128, MoE on every other layer (24), the other 24 dense of
    // f 16,384: 2,068,971,520 + 3,019,898,880 + dense 24 x 3 x 5120 x
    // 16,384 = 6,039,797,760 + routed 24 x 128 x 125,829,120 =
    // 386,547,056,640 + shared 24 x 125,829,120 = 3,019,898,880 + routers
    // 24 x 655,360 = 15,728,640 + norms 496,640 = 400,711,848,960 (400 B).
    // Active: less the routed, plus 24 x 125,829,120: 17,184,691,200.
    let (t, a) = counts("llama-4-maverick");
    assert_eq!(t, 400_711_848_960.0);
    assert_eq!(a, 17_184_691_200.0);
    // KV at 32,768 tokens: the 12 NoPE layers cache all of them, the 36
    // chunked layers at most a chunk of 8,192: (12 x 32,768 + 36 x 8,192)
    // x 2 x 8 x 128 x 2 B = 688,128 x 4,096 = 2,818,572,288 B.
    let kv = cli_json(&["kv", "--model", "llama-4-scout", "--context", "32768"]);
    assert_eq!(json_num(&kv, "kv_bytes"), 2_818_572_288.0);
}

#[test]
fn gemma_3_counts_and_windowed_kv_by_hand() {
    // Gemma 3 27B: d 5376, L 62, V 262,208 (tied), h 32, k 16, e 128, f
    // 21,504 gated, q/k RMSNorm, 4 norms a block. Embedding 262,208 x 5376
    // = 1,409,630,208; attention 62 x (2 x 5376 x 4096 + 2 x 5376 x 2048 +
    // 256) = 4,095,753,728; FFN 62 x 3 x 5376 x 21,504 = 21,502,623,744;
    // norms (4 x 62 + 1) x 5376 = 1,338,624: 27,009,346,304. Less the
    // embedding: 25,599,716,096.
    let r = show("gemma-3-27b");
    assert_eq!(json_num(&r, "params"), 27_009_346_304.0);
    // KV at 8,192 tokens: 10 global layers x 8,192 + 52 local x 1,024 =
    // 135,168 token-layers x 2 x 16 x 128 x 2 B = 1,107,296,256 B.
    let kv = cli_json(&["kv", "--model", "gemma-3-27b", "--context", "8192"]);
    assert_eq!(json_num(&kv, "kv_bytes"), 1_107_296_256.0);
}

#[test]
fn kimi_k2_counts_by_hand() {
    // Kimi K2: DeepSeek-V3's MLA at d 7168, h 64, q rank 1536, kv rank 512,
    // rope 64, nope 128, v 128; L 61, 1 dense (f 18,432), E 384, 1 shared,
    // t 8, m 2048, V 163,840. Attention per layer: q 7168 x 1536 + 1536 +
    // 1536 x 64 x 192 = 29,885,952; kv 7168 x 576 + 512 + 512 x 64 x 256 =
    // 12,517,888; o 64 x 128 x 7168 = 58,720,256; 61 x 101,124,096 =
    // 6,168,569,856. 2 x 163,840 x 7168 = 2,348,810,240; dense 3 x 7168 x
    // 18,432 = 396,361,728; routed 60 x 384 x 44,040,192 =
    // 1,014,686,023,680; shared and routers 60 x (44,040,192 + 7168 x 384 +
    // 384) = 2,807,585,280; norms 123 x 7168 = 881,664:
    // 1,026,408,232,448 (the card's 1T). Active: less the routed, plus 60
    // x 8 x 44,040,192: 32,861,500,928.
    let r = show("kimi-k2");
    assert_eq!(json_num(&r, "params"), 1_026_408_232_448.0);
    assert_eq!(json_num(&r, "active_params"), 32_861_500_928.0);
    // KV: 61 x (512 + 64) x 2 B = 70,272 B a token.
    assert_eq!(json_num(&r, "kv_bytes_per_token"), 70_272.0);
    // It ships in FP8, one byte a parameter, but for the embedding, the
    // head (2,348,810,240) and the routers (60 x 2,752,896 = 165,173,760),
    // which DeepSeek-V3's FP8 layout keeps in bf16: one byte more each.
    assert_eq!(json_num(&r, "weight_bytes"), 1_028_922_216_448.0);
}

/// The published configs import to the figures derived by hand above.
#[test]
fn the_published_configs_import_to_the_same_counts() {
    for (file, total, active) in [
        ("qwen3-32b", 32_762_123_264.0, 32_762_123_264.0),
        ("qwen3-235b-a22b", 235_093_634_560.0, 22_190_763_520.0),
        ("llama-4-scout", 107_769_861_120.0, 17_172_894_720.0),
        ("llama-4-maverick", 400_711_848_960.0, 17_184_691_200.0),
        ("gemma-3-27b", 27_009_346_304.0, 27_009_346_304.0),
        ("kimi-k2", 1_026_408_232_448.0, 32_861_500_928.0),
        ("llama-3.2-1b", 1_235_814_400.0, 1_235_814_400.0),
        ("llama-3.2-3b", 3_212_749_824.0, 3_212_749_824.0),
    ] {
        let (t, a) = counts(&format!("tests/data/hf/{file}.json"));
        assert_eq!((t, a), (total, active), "{file}");
    }
}

#[test]
fn glm_4_5_air_counts_by_hand() {
    // GLM-4.5-Air: d 4096, L 46 (1 dense, f 10,944), V 151,552, h 96, k 8,
    // e 128, q/k/v biases, E 128, 1 shared, t 8, m 1408, a biased router.
    // 2 x 151,552 x 4096 = 1,241,513,984; attention 46 x (2 x 4096 x 12,288
    // + 2 x 4096 x 1024 + 12,288 + 2 x 1024) = 5,017,047,040; dense 3 x
    // 4096 x 10,944 = 134,479,872; routed 45 x 128 x 17,301,504 =
    // 99,656,663,040; shared and routers 45 x (17,301,504 + 4096 x 128 +
    // 128) = 802,166,400; norms 93 x 4096 = 380,928: 106,852,251,264 (the
    // card's 106 B). Active: less the routed, plus 45 x 8 x 17,301,504:
    // 13,424,129,664.
    let (t, a) = counts("tests/data/hf/glm-4.5-air.json");
    assert_eq!(t, 106_852_251_264.0);
    assert_eq!(a, 13_424_129_664.0);
}

#[test]
fn an_nvfp4_checkpoint_keeps_its_ignored_modules_at_16_bits() {
    // nvidia/Kimi-K2.5-NVFP4: Kimi K2's language model (the counts above)
    // under quant_method modelopt, quant_algo NVFP4, with attention and the
    // head in `ignore` and the embedding not a Linear. At 16 bits: the
    // embedding and head 2 x 163,840 x 7168 = 2,348,810,240 and attention
    // 6,168,569,856 parameters, 17,034,760,192 B. The other
    // 1,017,890,852,352 at 4.5 bits (E2M1 and an E4M3 scale per 16):
    // 572,563,604,448 B. 589,598,364,640 B in all.
    let r = show("tests/data/hf/kimi-k2.5-nvfp4.json");
    assert_eq!(json_num(&r, "params"), 1_026_408_232_448.0);
    assert_eq!(json_num(&r, "weight_bytes"), 589_598_364_640.0);
}

//! `kv` against the `kv-cache` golden cases and the KIVI quantization case
//! (../shared/golden/seed_cases.toml; expected values and tolerances are the
//! golden file's), the H200's usable memory, paging and bad input.

use crate::common;
use common::{check, check_flagged, check_si, golden, num};
use roofline::calc::kv::{self, KvCost, KvInputs, MemorySource};
use roofline::catalog::Catalog;
use roofline::error::Error;
use roofline::inputs::{Count, Tokens};
use roofline::spec::hardware::Hardware;
use roofline::spec::model::Model;

const MIB: f64 = 1024.0 * 1024.0;

fn model(id: &str) -> Model {
    Catalog::default().model(id, &[]).unwrap()
}

fn hw(id: &str) -> Hardware {
    Catalog::default().hardware(id, &[]).unwrap()
}

fn inputs(context: u64, batch: u64) -> KvInputs {
    KvInputs {
        context: Tokens(context),
        batch: Some(Count(batch)),
        kv_dtype: None,
        dtype: None,
        reserve: None,
        page: None,
        reserved: None,
        force: false,
        tp: None,
    }
}

fn cost(m: &str, h: Option<&str>, i: &KvInputs) -> KvCost {
    let hw = h.map(hw);
    kv::cost(&model(m), hw.as_ref(), i).unwrap()
}

#[test]
fn llama_3_8b_per_token() {
    let c = cost("llama-3-8b", None, &inputs(8192, 32));
    check("ch-kv-bytes-per-token-layer", c.bytes_per_token_per_layer);
    check("ch-kv-bytes-per-token-all-layers", c.bytes_per_token);
    check("ch-kv-8k-one-layer", c.bytes_per_layer_sequence / MIB);
    assert_eq!(c.kv_bytes, 32.0 * 8192.0 * 131072.0);
}

#[test]
fn llama_3_8b_against_on_chip_memory() {
    // The chapter's H100: 228 KiB of shared memory per SM, 50 MB of L2.
    let c = cost("llama-3-8b", Some("h100-sxm"), &inputs(8192, 1));
    let f = c.fit.as_ref().unwrap();
    assert_eq!(f.smem_per_sm, Some(228.0 * 1024.0));
    let r = c.report(false);
    check("ch-kv-tokens-per-sm-smem", num(&r, "tokens_per_sm_smem"));
    check("ch-kv-8k-vs-smem", num(&r, "layer_sequence_over_smem"));
    check("ch-kv-8k-vs-l2", num(&r, "layer_sequence_over_l2"));
}

#[test]
fn deepseek_v3_mla() {
    // Issue 9: DeepSeek-V3's MLA caches 61 x (512 + 64) x 2 = 70,272 B.
    let c = cost("deepseek-v3", None, &inputs(1, 1));
    assert_eq!(c.bytes_per_token, 70_272.0);
}

#[test]
fn kivi_two_bit() {
    // book-4.2-kivi-bits: the book counts 16-bit to 2-bit elements, 8x; the
    // tool counts KIVI's fp16 scale and zero point per group of 32 too, 3
    // bits an element, 5.33x (a convention, docs/errata.md).
    let mut i = inputs(8192, 1);
    i.kv_dtype = Some("int2".into());
    let c = cost("llama-3-8b", None, &i);
    let r = c.report(false);
    check_flagged(
        "book-4.2-kivi-bits",
        num(&r, "compression_vs_bf16"),
        16.0 / 3.0,
    );
    assert_eq!(num(&r, "kv_bits_per_element"), 3.0);
    assert_eq!(c.bytes_per_token_per_layer, 2048.0 * 3.0 / 8.0);
}

/// book-4.1-paged-waste-*: a contiguous reservation of 1,000 tokens of
/// which the seed's share held token state.
fn check_contiguous_waste(id: &str) {
    let held = (golden(id).input("utilized_pct") * 10.0).round() as u64;
    let mut i = inputs(held, 1);
    i.reserved = Some(Count(1000));
    let c = cost("llama-3-8b", None, &i);
    check_si(id, c.contiguous.unwrap().1);
}

#[test]
fn paged_and_contiguous_waste() {
    check_contiguous_waste("book-4.1-paged-waste-low");
    check_contiguous_waste("book-4.1-paged-waste-high");
    // Paging wastes only the last page: 1000 tokens in 16-token pages.
    let mut i = inputs(1000, 2);
    i.page = Some(Count(16));
    let c = cost("llama-3-8b", None, &i);
    let p = c.paged.unwrap();
    assert_eq!(p.pages, 63);
    assert!((p.waste - 8.0 / 1008.0).abs() < 1e-12);
    assert_eq!(p.bytes, 2.0 * 1008.0 * 131072.0);
}

#[test]
fn h200_fits_against_usable_memory() {
    let c = cost("llama-3-8b", Some("h200-sxm"), &inputs(8192, 32));
    let f = c.fit.unwrap();
    assert_eq!(f.memory_source, MemorySource::Usable);
    assert_eq!(f.memory_bytes, 150_109_880_320.0);
    let weights = 8_030_261_248.0 * 2.0;
    let budget = 150_109_880_320.0 * 0.9 - weights;
    assert!((f.kv_budget_bytes - budget).abs() < 1.0);
    assert_eq!(f.max_batch, (budget / (8192.0 * 131072.0)).floor() as u64);
    assert_eq!(f.max_context, (budget / (32.0 * 131072.0)).floor() as u64);
    // The H100 file has no usable figure: the datasheet's 80 GB.
    let c = cost("llama-3-8b", Some("h100-sxm"), &inputs(8192, 32));
    let f = c.fit.unwrap();
    assert_eq!(f.memory_source, MemorySource::Datasheet);
    assert_eq!(f.memory_bytes, 80e9);
}

#[test]
fn reserve_is_settable() {
    let mut i = inputs(8192, 1);
    i.reserve = Some("20%".into());
    let a = cost("llama-3-8b", Some("h200-sxm"), &i).fit.unwrap();
    i.reserve = Some(serde_json::json!(0.2));
    let b = cost("llama-3-8b", Some("h200-sxm"), &i).fit.unwrap();
    assert_eq!(a.kv_budget_bytes, b.kv_budget_bytes);
    i.reserve = Some("120%".into());
    let e = kv::cost(&model("llama-3-8b"), Some(&hw("h200-sxm")), &i).unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "reserve"),
        "{e}"
    );
}

#[test]
fn sliding_window_caps_the_cache() {
    let c = cost("mistral-7b", None, &inputs(32768, 1));
    let w = model("mistral-7b").sliding_window.map(|w| w.get());
    if let Some(w) = w {
        assert_eq!(c.cached_tokens, w.min(32768));
    }
}

#[test]
fn bad_input() {
    let m = model("llama-3-8b");
    let e = kv::cost(&m, None, &inputs(8192, 0)).unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "batch"),
        "{e}"
    );
    let e = kv::cost(&m, None, &inputs(100_000, 1)).unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "context"),
        "{e}"
    );
    assert!(e.to_string().contains("8,192"), "{e}");
    let mut forced = inputs(100_000, 1);
    forced.force = true;
    assert_eq!(kv::cost(&m, None, &forced).unwrap().beyond_max, Some(8192));
    let mut i = inputs(10, 1);
    i.kv_dtype = Some("nvfp4".into());
    let e = kv::cost(&m, None, &i).unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "kv-dtype"),
        "{e}"
    );
    let mut i = inputs(10, 1);
    i.reserve = Some("5%".into());
    let e = kv::cost(&m, None, &i).unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "reserve"),
        "{e}"
    );
    // A model that cannot fit at all is still an answer: the sizes, `fits`
    // no and by how much (issue 37; weights_beyond_the_device_are_an_answer).
    let f = kv::cost(
        &model("llama-3.1-405b"),
        Some(&hw("h200-sxm")),
        &inputs(10, 1),
    )
    .unwrap()
    .fit
    .unwrap();
    assert!(!f.fits);
    assert_eq!(f.max_batch, 0);
}

#[test]
fn tp_fit_is_plans_split() {
    // `kv --tp 4` holds on a device what `plan --tp 4 --pp 1` puts there:
    // the same weights (one function computes both) and the same KV share.
    use roofline::calc::plan::{self, PlanInputs};
    use roofline::spec::hardware::Mode;
    let (m, h) = (model("llama-3.1-70b"), hw("h200-sxm"));
    let mut i = inputs(8192, 16);
    i.tp = Some(Count(4));
    let f = kv::cost(&m, Some(&h), &i).unwrap().fit.unwrap();
    let p = plan::cost(
        &h,
        &m,
        &PlanInputs {
            devices: Some(Count(4)),
            tp: Some(Count(4)),
            pp: Some(Count(1)),
            dp: Some(Count(1)),
            ep: Some(Count(1)),
            ..Default::default()
        },
        Mode::SpeedOfLight,
    )
    .unwrap();
    assert!((f.weight_bytes - p.weight_bytes).abs() <= 1e-6 * p.weight_bytes);
    assert_eq!(f.kv_share, p.kv_share);
    // 8 KV heads over 4 ranks: 2 each, a quarter; over 16 ranks each still
    // holds one head (an eighth); MLA's latent is every rank's whole.
    assert_eq!(kv::kv_share(&m, 4), 0.25);
    assert_eq!(kv::kv_share(&m, 16), 0.125);
    assert_eq!(kv::kv_share(&model("deepseek-v3"), 8), 1.0);
}

#[test]
fn weights_beyond_the_device_are_an_answer() {
    // Llama 3.1 70B's 141.1 GB of bf16 weights on one H200 (135.1 GB
    // usable less the reserve): the sizes, not an error; nothing fits.
    let f = cost("llama-3.1-70b", Some("h200-sxm"), &inputs(1024, 1))
        .fit
        .unwrap();
    assert!(!f.fits);
    assert_eq!((f.max_batch, f.max_context), (0, 0));
    assert_eq!(f.kv_budget_bytes, 0.0);
    assert!((f.weights_over_bytes - 6_008_520_704.0).abs() < 1.0);
}

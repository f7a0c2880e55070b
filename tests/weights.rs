//! One accounting of weights: `plan` (and so `simulate` and `fleet`) weighs
//! a model as `model show` does, each module at its checkpoint's format and
//! the MoE layers where the layer step puts them; its weights over all
//! devices are `model show`'s plus what the layout replicates. Hand checks
//! of gpt-oss-120b and Llama 4 Maverick from their config.json facts (the
//! `[sources]` of models/gpt-oss-120b.toml and models/llama-4-maverick.toml).

use roofline::calc::model::{self, ModelInputs};
use roofline::calc::plan::{self, PlanInputs, Setup};
use roofline::catalog::Catalog;
use roofline::inputs::Count;
use roofline::spec::hardware::{Hardware, Mode};
use roofline::spec::model::Model;

fn h200() -> Hardware {
    Catalog::default().hardware("h200-sxm", &[]).unwrap()
}

fn model(id: &str) -> Model {
    Catalog::default().model(id, &[]).unwrap()
}

fn inputs(tp: u64, pp: u64, dp: u64, ep: u64) -> PlanInputs {
    PlanInputs {
        devices: Some(Count(tp * pp * dp)),
        tp: Some(Count(tp)),
        pp: Some(Count(pp)),
        dp: Some(Count(dp)),
        ep: Some(Count(ep)),
        ..Default::default()
    }
}

/// The plan of one layout, `None` where the layout is not valid for the
/// model (tp past the KV heads, pp not dividing the layers, ep on a dense
/// model...).
fn plan_of(hw: &Hardware, m: &Model, tp: u64, pp: u64, dp: u64, ep: u64) -> Option<plan::PlanCost> {
    let i = inputs(tp, pp, dp, ep);
    let s = Setup::new(hw, m, &i, Mode::SpeedOfLight).unwrap();
    let (l, devices) = plan::layout(&i).unwrap();
    plan::validate(&s, l, devices).ok()?;
    Some(plan::evaluate(&s, l, plan::workload(&i).unwrap()).unwrap())
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// The done-when test of the accounting: over the whole catalog, for TP,
/// EP and PP in {1, 2, 4, 8} wherever the layout is valid (DP as EP needs:
/// ep divides tp x dp), plan's weights per device of each stage x tp x dp
/// equal `model show`'s weights plus the replicated parts, to 1%. The
/// replicated parts are worked here from `model show`'s modules: norms
/// and routers whole on each TP rank, the non-expert weights once per DP
/// replica, routed experts as many times as tp x dp devices hold them.
#[test]
fn plan_weights_over_all_devices_are_model_shows_plus_what_the_layout_replicates() {
    let hw = h200();
    let mut checked = 0;
    for e in Catalog::default().model_entries().unwrap() {
        let m = model(&e.id);
        let shown = model::cost(&m, &ModelInputs::default()).unwrap();
        let w = shown.modules;
        assert!(
            close(w.total(), shown.weight_bytes, 1e-9),
            "{}: modules sum to the weights",
            m.id
        );
        let routed = m.moe.as_ref().map_or(0, |x| x.routed_experts.get()) as f64;
        for tp in [1u64, 2, 4, 8] {
            for pp in [1u64, 2, 4, 8] {
                for ep in [1u64, 2, 4, 8] {
                    for dp in [(ep / tp).max(1), 2 * (ep / tp).max(1)] {
                        let Some(p) = plan_of(&hw, &m, tp, pp, dp, ep) else {
                            continue;
                        };
                        let (t, d) = (tp as f64, dp as f64);
                        let sum: f64 = p.weights.per_stage.iter().sum::<f64>() * t * d;
                        // Experts a device holds per MoE layer: slots / ep
                        // with expert parallelism, else split like the MLP.
                        let held = if routed == 0.0 {
                            0.0
                        } else if ep > 1 {
                            routed / ep as f64
                        } else {
                            routed / t
                        };
                        let replicated = d * (t - 1.0) * (w.norms + w.router)
                            + (d - 1.0) * (w.total() - w.routed_experts)
                            + if routed > 0.0 {
                                w.routed_experts * (held * t * d / routed - 1.0)
                            } else {
                                0.0
                            };
                        let want = shown.weight_bytes + replicated;
                        let at = format!("{} tp {tp} pp {pp} dp {dp} ep {ep}", m.id);
                        assert!(
                            close(sum, want, 0.01),
                            "{at}: {sum} over all devices, want {want}"
                        );
                        // What plan says: the same sum, the same parts.
                        assert!(close(p.weights.all_devices, sum, 1e-9), "{at}");
                        assert!(close(p.weights.model, shown.weight_bytes, 1e-9), "{at}");
                        assert!(
                            close(p.weights.replicated(), replicated, 0.01),
                            "{at}: plan says {} replicated, want {replicated}",
                            p.weights.replicated()
                        );
                        // The heaviest stage is what a device must hold.
                        let heaviest = p.weights.per_stage.iter().cloned().fold(0.0, f64::max);
                        assert_eq!(p.weight_bytes, heaviest, "{at}");
                        checked += 1;
                    }
                }
            }
        }
    }
    // 20 models: the loop must have met many valid layouts.
    assert!(checked > 500, "only {checked} layouts checked");
}

// gpt-oss-120b's config.json: 36 layers, hidden 2880, vocab 201,088,
// untied; 64 query heads and 8 KV heads of 64, q/k/v/o biases, a sink per
// head; 128 experts of width 2880 (SwiGLU: gate, up, down) with biases
// (gate/up 2 x 2880, down 2880), a biased router; two RMSNorms a layer and
// a final one. The experts are MXFP4 (4 bits and an 8-bit scale per 32:
// 4.25 bits), the rest bf16.
const OSS_EMBED: f64 = 201_088.0 * 2880.0; // and the same again for the head
const OSS_ATTN: f64 = 36.0
    * (2880.0 * 64.0 * 64.0 * 2.0 // q and o
        + 2880.0 * 8.0 * 64.0 * 2.0 // k and v
        + (64.0 * 64.0 + 2.0 * 8.0 * 64.0) // q, k, v biases
        + 2880.0 // o bias
        + 64.0); // sinks
const OSS_EXPERT_W: f64 = 36.0 * 128.0 * 3.0 * 2880.0 * 2880.0;
const OSS_EXPERT_B: f64 = 36.0 * 128.0 * (2.0 * 2880.0 + 2880.0);
const OSS_ROUTER: f64 = 36.0 * (2880.0 * 128.0 + 128.0);
const OSS_NORMS: f64 = 2880.0 * (2.0 * 36.0 + 1.0);

#[test]
fn gpt_oss_120b_by_hand_fits_one_h200_and_splits_over_eight() {
    let bf16 = 2.0;
    let mxfp4 = 4.25 / 8.0;
    let rest = (2.0 * OSS_EMBED + OSS_ATTN + OSS_EXPERT_B + OSS_ROUTER + OSS_NORMS) * bf16;
    let total = rest + OSS_EXPERT_W * mxfp4;
    // 65.25 GB: the figure TensorRT-LLM serves on one H200.
    assert!((total / 1e9 - 65.25).abs() < 0.01, "{total}");
    let m = model("gpt-oss-120b");
    let hw = h200();
    let shown = model::cost(&m, &ModelInputs::default()).unwrap();
    assert!(close(shown.weight_bytes, total, 1e-6), "{}", shown.weight_bytes);
    let one = plan_of(&hw, &m, 1, 1, 1, 1).unwrap();
    assert!(close(one.weight_bytes, total, 1e-6), "{}", one.weight_bytes);
    assert!(one.fits, "{:?}", one.why_not);
    // TP 8: everything split eight ways but the norms and the routers.
    let per = (2.0 * OSS_EMBED + OSS_ATTN) * bf16 / 8.0
        + (OSS_EXPERT_W * mxfp4 + OSS_EXPERT_B * bf16) / 8.0
        + (OSS_ROUTER + OSS_NORMS) * bf16;
    let eight = plan_of(&hw, &m, 8, 1, 1, 1).unwrap();
    assert!(close(eight.weight_bytes, per, 1e-6), "{} vs {per}", eight.weight_bytes);
    assert!(close(eight.weights.tp_copies, 7.0 * (OSS_ROUTER + OSS_NORMS) * bf16, 1e-6));
    // EP 8 over DP 8: each device holds the whole non-expert model and 16
    // experts a layer.
    let dep = plan_of(&hw, &m, 1, 1, 8, 8).unwrap();
    let per = rest - OSS_EXPERT_B * bf16 + (OSS_EXPERT_W * mxfp4 + OSS_EXPERT_B * bf16) / 8.0;
    assert!(close(dep.weight_bytes, per, 1e-6), "{} vs {per}", dep.weight_bytes);
}

// Llama 4 Maverick's config.json text_config: 48 layers, hidden 5120,
// vocab 202,048, untied; 40 query heads and 8 KV heads of 128, no biases;
// interleave_moe_layer_step 2, so 24 MoE layers (the odd ones, from 0)
// and 24 dense of width 16,384; a MoE layer has 128 routed experts and one
// shared, each 8,192 wide (SwiGLU), and a 5120 x 128 router; L2 q/k norm
// (no weights), two RMSNorms a layer and a final one. All bf16.
const MAV_EMBED: f64 = 202_048.0 * 5120.0;
const MAV_ATTN: f64 = 48.0 * (2.0 * 5120.0 * 40.0 * 128.0 + 2.0 * 5120.0 * 8.0 * 128.0);
const MAV_DENSE: f64 = 24.0 * 3.0 * 5120.0 * 16_384.0;
const MAV_EXPERT: f64 = 3.0 * 5120.0 * 8192.0; // one expert of one layer
const MAV_ROUTER: f64 = 24.0 * 5120.0 * 128.0;
const MAV_NORMS: f64 = 5120.0 * (2.0 * 48.0 + 1.0);

#[test]
fn llama_4_maverick_by_hand_counts_its_experts_once() {
    let params = 2.0 * MAV_EMBED
        + MAV_ATTN
        + MAV_DENSE
        + 24.0 * 129.0 * MAV_EXPERT
        + MAV_ROUTER
        + MAV_NORMS;
    // 400.7B parameters, 801.4 GB in bf16 (the card's 400B includes the
    // vision encoder).
    assert!((params * 2.0 / 1e9 - 801.42).abs() < 0.01, "{params}");
    let m = model("llama-4-maverick");
    let hw = h200();
    let shown = model::cost(&m, &ModelInputs::default()).unwrap();
    assert!(close(shown.weight_bytes, params * 2.0, 1e-6));
    // TP 8: 100.2 GB a device, not the 196 GB of experts counted in every
    // layer.
    let split = 2.0 * MAV_EMBED + MAV_ATTN + MAV_DENSE + 24.0 * 129.0 * MAV_EXPERT;
    let per = (split / 8.0 + MAV_ROUTER + MAV_NORMS) * 2.0;
    let p = plan_of(&hw, &m, 8, 1, 1, 1).unwrap();
    assert!(close(p.weight_bytes, per, 1e-6), "{} vs {per}", p.weight_bytes);
    assert!((per / 1e9 - 100.21).abs() < 0.01, "{per}");
    assert!(close(p.weights.all_devices, 8.0 * per, 1e-6));
    // PP 2: each stage holds 24 layers, 12 of them MoE; the first adds the
    // embedding, the last the head (the same size), so the stages weigh
    // the same.
    let stage = (MAV_ATTN / 2.0
        + MAV_DENSE / 2.0
        + 12.0 * 129.0 * MAV_EXPERT
        + MAV_ROUTER / 2.0
        + MAV_EMBED
        + 5120.0 * 2.0 * 24.0)
        * 2.0;
    let p = plan_of(&hw, &m, 1, 2, 1, 1).unwrap();
    for (i, w) in p.weights.per_stage.iter().enumerate() {
        // The final norm (5120 weights) is spread over the layers: 10 KB.
        assert!(close(*w, stage, 1e-6), "stage {i}: {w} vs {stage}");
    }
}

/// Item 3 of issue 54: every catalog model weighs by default what its
/// published checkpoint stores, per module, and says where that comes
/// from. The checkpoint's format is read from the config.json copies in
/// tests/data/hf (tests/data/hf-sources.md): `quantization_config` (fp8
/// block-scaled: DeepSeek-V3, Kimi K2; mxfp4 experts: gpt-oss), else
/// `torch_dtype` (16 bits: bf16 the catalog default).
#[test]
fn every_catalog_model_defaults_to_its_published_checkpoints_precision() {
    let mut compared = 0;
    for e in Catalog::default().model_entries().unwrap() {
        let m = model(&e.id);
        if m.weight_dtype.is_some() {
            assert!(m.sources.contains_key("weight-dtype"), "{}: weight-dtype has no source", m.id);
        }
        for k in m.weight_formats.keys() {
            assert!(
                m.sources.contains_key(&format!("weight-formats.{k}")),
                "{}: weight-formats.{k} has no source",
                m.id
            );
        }
        let Ok(text) = std::fs::read_to_string(format!("tests/data/hf/{}.json", m.id)) else {
            // GPT-3: no checkpoint was published.
            continue;
        };
        let cfg: serde_json::Value = serde_json::from_str(&text).unwrap();
        let quant = cfg.get("quantization_config").cloned().or_else(|| {
            std::fs::read_to_string(format!("tests/data/hf/{}-quantization.json", m.id))
                .ok()
                .map(|t| serde_json::from_str::<serde_json::Value>(&t).unwrap()["quantization_config"].clone())
        });
        let shown = model::cost(&m, &ModelInputs::default()).unwrap();
        match quant.as_ref().and_then(|q| q["quant_method"].as_str()) {
            Some("fp8") => {
                assert_eq!(m.weight_dtype.as_deref(), Some("fp8"), "{}", m.id);
                assert_eq!(quant.as_ref().unwrap()["fmt"], "e4m3", "{}", m.id);
                // The embedding, head and router stay 16-bit; all else fp8:
                // under 1.05 bytes a parameter, more than 1.
                let per = shown.weight_bytes / shown.params.total as f64;
                assert!(per > 1.0 && per < 1.05, "{}: {per} B a weight", m.id);
            }
            Some("mxfp4") => {
                assert_eq!(m.weight_dtype, None, "{}", m.id);
                assert_eq!(
                    m.weight_formats.get("routed-experts").map(String::as_str),
                    Some("mxfp4"),
                    "{}",
                    m.id
                );
                assert!(shown.weights_in.contains("routed experts mxfp4"), "{}", shown.weights_in);
            }
            Some(other) => panic!("{}: a checkpoint in {other} the test does not know", m.id),
            None => {
                let dtype = cfg["torch_dtype"]
                    .as_str()
                    .or_else(|| cfg["text_config"]["torch_dtype"].as_str())
                    .unwrap_or_else(|| panic!("{}: no torch_dtype", m.id));
                // 16-bit checkpoints (Llama 2's is float16: the same bytes)
                // weigh 2 bytes a parameter at the default.
                assert!(matches!(dtype, "bfloat16" | "float16"), "{}: {dtype}", m.id);
                assert_eq!(m.weight_dtype, None, "{}", m.id);
                assert!(m.weight_formats.is_empty(), "{}", m.id);
                assert_eq!(shown.weight_bytes, 2.0 * shown.params.total as f64, "{}", m.id);
            }
        }
        compared += 1;
    }
    assert!(compared >= 19, "{compared} models compared with their config.json");
}

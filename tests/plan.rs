//! `plan`: the seeds' deployments (000 §5.1-§5.2: DeepSeek-V3's prefill and
//! decode units, Llama-3.1-70B on an 8-GPU HGX against a 72-GPU NVL72),
//! the `parallelism` golden cases (../shared/golden/seed_cases.toml) named
//! by id, memory and communication sharding, invalid layouts, the search
//! and disaggregation.

use crate::common;
use common::check;
use roofline::calc::collective::{Fabric, Kind};
use roofline::calc::plan::{self, Objective, PlanInputs, Setup};
use roofline::calc::simulate::slo::{DEFAULT_PERCENTILE, Target};
use roofline::catalog::Catalog;
use roofline::error::Error;
use roofline::inputs::{Count, Tokens};
use roofline::spec::hardware::{Hardware, Mode};
use roofline::spec::model::Model;
use roofline::spec::overrides::Set;

fn hw(id: &str) -> Hardware {
    Catalog::default()
        .hardware(id, &[])
        .expect("hardware loads")
}

/// The H800 the seeds ran DeepSeek-V3 on: the catalog's, or (before it
/// lands) an H100 SXM with NVLink cut to 400 GB/s, as NVIDIA's H800
/// material states.
fn h800() -> Hardware {
    Catalog::default()
        .hardware("h800", &[])
        .unwrap_or_else(|_| {
            let sets: Vec<Set> = [
                "interconnect.0.per-direction-bandwidth=200 GB/s",
                "interconnect.0.bidirectional-bandwidth=400 GB/s",
            ]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
            Catalog::default().hardware("h100-sxm", &sets).unwrap()
        })
}

fn model(id: &str) -> Model {
    Catalog::default().model(id, &[]).expect("model loads")
}

fn close(id: &str, got: f64, want: f64, tol: f64) {
    let slack = (tol * want.abs()).max(1e-9 * want.abs());
    assert!(
        (got - want).abs() <= slack,
        "{id}: got {got}, expected {want} (tolerance {tol})"
    );
}

fn c(n: u64) -> Option<Count> {
    Some(Count(n))
}

fn layout(devices: u64, tp: u64, pp: u64, dp: u64, ep: u64) -> PlanInputs {
    PlanInputs {
        devices: c(devices),
        tp: c(tp),
        pp: c(pp),
        dp: c(dp),
        ep: c(ep),
        ..Default::default()
    }
}

fn field_error(e: Error) -> (String, String) {
    match e {
        Error::Field { field, message } => (field, message),
        other => panic!("expected a field error, got {other}"),
    }
}

#[test]
fn deepseek_v3_prefill_unit() {
    // 000 §5.2: "spans 4 nodes and 32 GPUs, combining 4-way tensor
    // parallelism for attention with 32-way expert parallelism".
    let h = h800();
    let m = model("deepseek-v3");
    let mut i = layout(32, 4, 1, 8, 32);
    i.batch = c(8);
    i.prompt = Some(Tokens(4096));
    let p = plan::cost(&h, &m, &i, Mode::SpeedOfLight).unwrap();
    // A node is the H800's NVLink domain: 8 GPUs, so the 32 span 4 nodes.
    let domain = Fabric::of(&h, Mode::SpeedOfLight).domain().unwrap();
    check("book-5.2-dsv3-prefill-gpus-per-node", domain as f64);
    assert_eq!(p.layout.devices() / domain, 4);
    // 256 routed experts over 32 GPUs: 8 each per MoE layer.
    close(
        "dsv3 prefill experts per device",
        p.experts_per_device,
        8.0,
        0.0,
    );
    // The MLA latent is not split by heads: every TP rank holds all of it.
    close("dsv3 MLA KV share", p.kv_share, 1.0, 0.0);
    // The expert all-to-all crosses nodes (32 > 8); TP stays on NVLink.
    // (The combine: at speed of light the dispatch goes in fp8.)
    assert!(p.decode_comm.ep_combine_s > p.decode_comm.tp_allreduce_s);
    assert!(p.fits, "{:?}", p.why_not);
}

#[test]
fn deepseek_v3_decode_unit() {
    // 000 §5.2: "40 nodes and 320 GPUs with one expert per GPU and 64 GPUs
    // dedicated to hosting redundant and shared experts".
    let h = h800();
    let m = model("deepseek-v3");
    let mut i = layout(320, 4, 1, 80, 320);
    i.redundant_experts = c(64);
    i.batch = c(64);
    let p = plan::cost(&h, &m, &i, Mode::SpeedOfLight).unwrap();
    // The 256 routed experts plus 64 redundant copies over 320 GPUs: one
    // expert per GPU, so the routed experts occupy 256 GPUs.
    let routed = m.moe.as_ref().unwrap().routed_experts.get() as f64;
    assert_eq!(p.experts_per_device, 1.0);
    check(
        "book-5.2-dsv3-decode-routed-gpus",
        routed / p.experts_per_device,
    );
    assert!(p.fits, "{:?}", p.why_not);
    // Decode all-to-alls are small: far cheaper than prefill's.
    assert!(p.decode_comm.ep_alltoall_bytes < 1e8);
}

#[test]
fn llama_70b_hgx_against_nvl72() {
    // 000 §5.1: the NVLink domain grows from 8 GPUs (HGX) to 72 (NVL72), a
    // ninefold change in where the scale-up boundary sits
    // (book-5.1-nvlink-domain-growth). Llama-3.1-70B with TP 16:
    let m = model("llama-3.1-70b");
    let mut i = layout(72, 8, 1, 9, 1);
    i.batch = c(32);
    // TP 8 inside one HGX node and inside the NVL72 alike.
    let hgx = plan::cost(&hw("h200-sxm"), &m, &i, Mode::SpeedOfLight).unwrap();
    let nvl = plan::cost(&hw("gb200"), &m, &i, Mode::SpeedOfLight).unwrap();
    assert!(hgx.fits && nvl.fits);
    // TP 16 would cross the HGX's NVLink boundary: refused without
    // --allow-cross-node, allowed on the NVL72.
    let wide = layout(64, 16, 1, 4, 1);
    let e = plan::cost(&hw("h200-sxm"), &m, &wide, Mode::SpeedOfLight).unwrap_err();
    let (field, msg) = field_error(e);
    assert_eq!(field, "tp");
    assert!(
        msg.contains("scale-up domain of 8") && msg.contains("allow-cross-node"),
        "{msg}"
    );
    let on_nvl = plan::cost(&hw("gb200"), &m, &wide, Mode::SpeedOfLight).unwrap();
    let mut cross = wide.clone();
    cross.allow_cross_node = Some(true);
    let on_hgx = plan::cost(&hw("h200-sxm"), &m, &cross, Mode::SpeedOfLight).unwrap();
    // Across the network each all-reduce is several times slower.
    assert!(
        on_hgx.decode_comm.tp_allreduce_s > 2.5 * on_nvl.decode_comm.tp_allreduce_s,
        "{} vs {}",
        on_hgx.decode_comm.tp_allreduce_s,
        on_nvl.decode_comm.tp_allreduce_s
    );
    // 8 KV heads over TP 16: each rank holds one head, so half the ranks
    // hold copies (1/8 of the KV each, not 1/16).
    close(
        "kv replicated beyond the KV heads",
        on_nvl.kv_share,
        1.0 / 8.0,
        0.0,
    );
}

#[test]
fn memory_shards_by_tp_and_pp() {
    let m = model("llama-3.1-70b");
    let h = hw("h200-sxm");
    let one = plan::cost(&h, &m, &layout(1, 1, 1, 1, 1), Mode::SpeedOfLight).unwrap();
    let tp8 = plan::cost(&h, &m, &layout(8, 8, 1, 1, 1), Mode::SpeedOfLight).unwrap();
    // Everything but the norms splits eight ways.
    close(
        "tp8 weights",
        tp8.weight_bytes,
        one.weight_bytes / 8.0,
        0.001,
    );
    close("tp8 kv", tp8.kv_bytes, one.kv_bytes / 8.0, 1e-12);
    let pp4 = plan::cost(&h, &m, &layout(4, 1, 4, 1, 1), Mode::SpeedOfLight).unwrap();
    // 80 layers over 4 stages, plus the embedding or head on the ends.
    assert_eq!(pp4.layers_per_stage, 20);
    assert!(pp4.weight_bytes < one.weight_bytes / 3.5);
    close("pp4 kv", pp4.kv_bytes, one.kv_bytes / 4.0, 1e-12);
    // One device cannot hold 141 GB of bf16 weights.
    assert!(!one.fits);
    assert!(one.why_not.as_deref().unwrap().contains("usable"));
    assert!(tp8.fits);
}

#[test]
fn bubble_and_communication_counts() {
    let m = model("llama-3.1-70b");
    let h = hw("h200-sxm");
    let mut i = layout(32, 8, 4, 1, 1);
    i.microbatches = c(8);
    i.batch = c(64);
    let p = plan::cost(&h, &m, &i, Mode::SpeedOfLight).unwrap();
    close("bubble (P-1)/(M+P-1)", p.bubble_fraction, 3.0 / 11.0, 1e-12);
    // Two all-reduces per dense layer (after attention and after the MLP),
    // each of batch / M tokens x hidden x 2 B.
    assert_eq!(p.decode_comm.allreduces_per_dense_layer, 2);
    close(
        "tp all-reduce bytes",
        p.decode_comm.tp_allreduce_bytes,
        64.0 / 8.0 * 8192.0 * 2.0,
        0.0,
    );
    // Stages of 8 fill whole HGX nodes: each hand-off crosses the network.
    let nic = roofline::calc::collective::time(
        &Fabric::of(&h, Mode::SpeedOfLight),
        Kind::SendRecv,
        16,
        p.decode_comm.pp_send_bytes,
        None,
    )
    .unwrap();
    close(
        "pp send over the NIC",
        p.decode_comm.pp_send_s,
        nic.time_s,
        1e-12,
    );
    // MoE with EP: one attention all-reduce plus dispatch and combine.
    let ds = plan::cost(
        &h800(),
        &model("deepseek-v3"),
        &layout(32, 4, 1, 8, 32),
        Mode::SpeedOfLight,
    )
    .unwrap();
    assert_eq!(ds.decode_comm.allreduces_per_moe_layer, 1);
    close(
        "moe layer comm",
        ds.decode_comm.moe_layer_s,
        ds.decode_comm.tp_allreduce_s + ds.decode_comm.ep_alltoall_s + ds.decode_comm.ep_combine_s,
        1e-12,
    );
    // Dispatch: each TP rank sends its quarter of the tokens to 8 experts.
    close(
        "dispatch bytes",
        ds.decode_comm.ep_alltoall_bytes,
        1.0 / 4.0 * 8.0 * 7168.0 * 2.0,
        1e-12,
    );
}

#[test]
fn invalid_layouts_name_the_constraint_and_suggest() {
    let h = hw("h200-sxm");
    let llama = model("llama-3.1-70b");
    let ds = model("deepseek-v3");
    let err = |m: &Model, i: PlanInputs| {
        field_error(plan::cost(&h, m, &i, Mode::SpeedOfLight).unwrap_err())
    };
    // TP that divides neither the heads nor the KV heads.
    let (f, msg) = err(&llama, layout(6, 3, 1, 2, 1));
    assert_eq!(f, "tp");
    assert!(
        msg.contains("divides neither") && msg.contains("valid: 1, 2, 4, 8"),
        "{msg}"
    );
    // T x P x D not the devices.
    let (f, msg) = err(&llama, layout(16, 8, 1, 4, 1));
    assert_eq!(f, "dp");
    assert!(
        msg.contains("not the 16 devices") && msg.contains("give dp 2"),
        "{msg}"
    );
    // EP on a dense model.
    let (f, msg) = err(&llama, layout(16, 8, 1, 2, 2));
    assert_eq!(f, "ep");
    assert!(msg.contains("dense") && msg.contains("ep 1"), "{msg}");
    // EP that does not divide T x D.
    let (f, msg) = err(&ds, layout(32, 4, 1, 8, 64));
    assert_eq!(f, "ep");
    assert!(
        msg.contains("tp x dp = 32") && msg.contains("valid: 1, 2, 4, 8, 16, 32"),
        "{msg}"
    );
    // EP that does not divide the experts (256 routed + 3 redundant).
    let mut i = layout(32, 4, 1, 8, 32);
    i.redundant_experts = c(3);
    let (f, msg) = err(&ds, i);
    assert_eq!(f, "ep");
    assert!(
        msg.contains("259 experts") && msg.contains("valid: 1"),
        "{msg}"
    );
    assert!(msg.contains("redundant-experts 0, 32, 64"), "{msg}");
    // TP beyond the scale-up domain.
    let (f, msg) = err(&llama, layout(16, 16, 1, 1, 1));
    assert_eq!(f, "tp");
    assert!(
        msg.contains("allow-cross-node") && msg.contains("1, 2, 4, 8"),
        "{msg}"
    );
    // PP that does not divide the layers.
    let (f, msg) = err(&ds, layout(2, 1, 2, 1, 1));
    assert_eq!(f, "pp");
    assert!(
        msg.contains("61 layers") && msg.contains("valid: 1, 61"),
        "{msg}"
    );
    // Redundant experts on a dense model.
    let mut i = layout(8, 8, 1, 1, 1);
    i.redundant_experts = c(8);
    let (f, _) = err(&llama, i);
    assert_eq!(f, "redundant-experts");
}

#[test]
fn search_ranks_every_valid_layout() {
    let h = h800();
    let m = model("deepseek-v3");
    let mut i = PlanInputs {
        devices: c(1024),
        search: Some(true),
        batch: c(64),
        ..Default::default()
    };
    let s = Setup::new(&h, &m, &i, Mode::SpeedOfLight).unwrap();
    let w = plan::workload(&i).unwrap();
    let start = std::time::Instant::now();
    let found = plan::search(&s, 1024, w, &i).unwrap();
    let took = start.elapsed();
    // tp in {1, 2, 4, 8} (dividing 128 heads, within 8 GPUs), pp 1 (61 is
    // prime), ep any of the 9 divisors of 1,024 that divide 256.
    assert_eq!(found.plans.len(), 36);
    for p in &found.plans {
        assert_eq!(p.layout.devices(), 1024);
        assert!(p.layout.tp <= 8 && p.layout.pp == 1);
    }
    // Best first: fitting plans, most tokens per device.
    for w in found.scores.windows(2) {
        assert!(w[0] >= w[1]);
    }
    assert!(found.plans[0].fits);
    assert!(took.as_secs_f64() < 1.0, "search took {took:?}");
    // Latency ranks by the decode step.
    i.objective = Some(Objective::Latency);
    let fast = plan::search(&s, 1024, w, &i).unwrap();
    let best = fast.plans[0].decode_step_time_s;
    assert!(
        fast.plans
            .iter()
            .filter(|p| p.fits)
            .all(|p| p.decode_step_time_s >= best)
    );
    // Goodput needs a target, and scores layouts that miss it as zero.
    i.objective = Some(Objective::Goodput);
    assert!(plan::search(&s, 1024, w, &i).is_err());
    i.slo_tpot = Some(Target {
        percentile: DEFAULT_PERCENTILE,
        seconds: 0.015,
        named: false,
    });
    let good = plan::search(&s, 1024, w, &i).unwrap();
    assert!(good.plans[0].decode_step_time_s <= 0.015);
    assert!(
        good.verdicts
            .iter()
            .any(|v| v.starts_with("misses the SLO"))
    );
}

#[test]
fn disaggregated_pools() {
    let h = hw("h200-sxm");
    let m = model("llama-3.1-70b");
    let i = PlanInputs {
        disaggregate: Some(true),
        batch: c(16),
        prompt: Some(Tokens(2048)),
        ..Default::default()
    };
    let s = Setup::new(&h, &m, &i, Mode::SpeedOfLight).unwrap();
    let d = plan::disaggregate(&s, 8, 16, plan::workload(&i).unwrap(), &i).unwrap();
    assert_eq!(d.prefill.layout.devices(), 8);
    assert_eq!(d.decode.layout.devices(), 16);
    // 2,048 prompt tokens x 320 KiB per token (2 x 80 x 8 x 128 x 2 B).
    close("kv transfer", d.kv_transfer_bytes, 2048.0 * 327680.0, 1e-12);
    close(
        "kv transfer time",
        d.kv_transfer_s,
        d.kv_transfer_bytes / d.transfer_bandwidth,
        1e-12,
    );
}

#[test]
fn one_device_matches_decode_and_prefill() {
    // A layout of one device is serving's decode step and prefill: plan
    // composes the same typed forward-pass costs, sharded by 1.
    use roofline::calc::{decode, prefill};
    use roofline::inputs::{Fields, from_fields};
    let h = hw("h200-sxm");
    let m = model("llama-3-8b");
    let mut i = layout(1, 1, 1, 1, 1);
    i.batch = c(16);
    i.context = Some(Tokens(2048));
    i.prompt = Some(Tokens(512));
    let p = plan::cost(&h, &m, &i, Mode::SpeedOfLight).unwrap();
    let f: Fields =
        serde_json::from_value(serde_json::json!({"batch": 16, "context": 2048})).unwrap();
    let d = decode::cost(
        &m,
        &h,
        &from_fields::<decode::DecodeInputs>(&f).unwrap(),
        Mode::SpeedOfLight,
    )
    .unwrap();
    // The roofs' step, one time in both (formulas.md, "One time on one
    // device"), and the same energy per token held to it.
    close(
        "plan decode = decode",
        p.decode_stage_compute_s + p.comm_time_s,
        d.step_time_s,
        1e-9,
    );
    close(
        "plan decode step = decode step",
        p.decode_step_time_s,
        d.step_time_s,
        1e-9,
    );
    close(
        "plan decode energy = decode energy",
        p.energy.per_token_j().unwrap(),
        d.energy.per_token_j().unwrap(),
        1e-9,
    );
    assert_eq!(p.comm_time_s, 0.0);
    let f: Fields =
        serde_json::from_value(serde_json::json!({"batch": 16, "prompt": 512})).unwrap();
    let pre = prefill::cost(
        &m,
        &h,
        &from_fields::<prefill::PrefillInputs>(&f).unwrap(),
        Mode::SpeedOfLight,
    )
    .unwrap();
    close(
        "plan prefill = prefill",
        p.prefill_stage_compute_s + p.prefill_comm_time_s,
        pre.time_s,
        1e-9,
    );
    close(
        "plan prefill time = prefill time",
        p.prefill_time_s,
        pre.time_s,
        1e-9,
    );
    close(
        "plan prefill energy = prefill energy",
        p.prefill_energy.per_token_j().unwrap(),
        pre.energy.per_token_j().unwrap(),
        1e-9,
    );
}

#[test]
fn tensor_parallel_decode_is_bounded_by_the_measurements() {
    // validation/results/2026-11-30-h200/h200-tp2.json: Llama-3-8B at TP 2 on two H200s, measured
    // on H200, 2026-11-30 (docs/validation.md, "Tensor-parallel decode and
    // prefill"). The speed of light is below every row; --achievable within
    // 40% (it misses the 25% aim by the single-GPU forward's own gap).
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/validation/results/2026-11-30-h200/h200-tp2.json"
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let h = hw("h200-sxm");
    let model = model("llama-3-8b");
    let at = |b: u64, ctx: u64, prompt: u64, mode: Mode| {
        let mut i = layout(2, 2, 1, 1, 1);
        i.batch = c(b);
        i.context = Some(Tokens(ctx));
        i.prompt = Some(Tokens(prompt));
        plan::cost(&h, &model, &i, mode).unwrap()
    };
    let u = |v: &serde_json::Value| v.as_u64().unwrap();
    let mut rows = 0;
    for r in m["decode"].as_array().unwrap() {
        let (b, ctx, s) = (
            u(&r["batch"]),
            u(&r["context"]),
            r["graph_s"].as_f64().unwrap(),
        );
        let sol = at(b, ctx, 1024, Mode::SpeedOfLight).decode_step_time_s;
        let ach = at(b, ctx, 1024, Mode::Achievable).decode_step_time_s;
        assert!(
            sol < s,
            "decode b{b} c{ctx}: speed of light {sol} not below {s}"
        );
        assert!(
            (0.75..1.4).contains(&(s / ach)),
            "decode b{b} c{ctx}: {s} vs {ach}"
        );
        rows += 1;
    }
    for r in m["prefill"].as_array().unwrap() {
        let (b, p, s) = (
            u(&r["batch"]),
            u(&r["prompt"]),
            r["time_s"].as_f64().unwrap(),
        );
        let sol = at(b, 4096, p, Mode::SpeedOfLight).prefill_time_s;
        let ach = at(b, 4096, p, Mode::Achievable).prefill_time_s;
        assert!(
            sol < s,
            "prefill b{b} p{p}: speed of light {sol} not below {s}"
        );
        assert!(
            (0.75..1.4).contains(&(s / ach)),
            "prefill b{b} p{p}: {s} vs {ach}"
        );
        rows += 1;
    }
    assert_eq!(rows, 9);
}

#[test]
fn why_not_first_groups_thousands() {
    // docs/cli.md: numbers in notes and messages are grouped in thousands
    // as in tables. Llama-3-8B on 8 H200s decodes at thousands of tokens/s
    // per device.
    let j = common::cli_json(&[
        "plan",
        "--model",
        "llama-3-8b",
        "--hw",
        "h200-sxm",
        "--search",
        "--devices",
        "8",
        "--batch",
        "64",
    ]);
    let text = j.to_string();
    let reasons: Vec<&str> = text
        .split('"')
        .filter(|s| s.contains(" vs ") && s.contains("tokens/s per device"))
        .collect();
    assert!(!reasons.is_empty(), "no ranked reasons in {text}");
    for r in reasons {
        let first = r.split(" vs ").next().unwrap();
        let digits = first.split('.').next().unwrap();
        assert!(digits.len() < 4 || digits.contains(','), "not grouped: {r}");
    }
}

#[test]
fn an_eager_tp2_decode_pays_its_all_reduces_host_path() {
    // Llama-3-8B on two H200s at batch 1, eagerly from Python: each rank's
    // host issues the same calls as one GPU's step (sharding changes no
    // call's count) and two all-reduces a layer, 64 calls of 8 KiB at 44 us
    // each (achievable.call.collective-eager); at batch 1 the host's path
    // is far longer than the GPU's work either way, so the TP 2 step is
    // one GPU's eager step plus 64 x 44 us = 2.82 ms. From a CUDA graph the
    // same step is much shorter.
    let h = hw("h200-sxm");
    let m = model("llama-3-8b");
    let run = |launch: &str| {
        let mut i = layout(2, 2, 1, 1, 1);
        i.batch = c(1);
        i.context = Some(Tokens(1024));
        i.launch = Some(launch.to_string());
        plan::cost(&h, &m, &i, Mode::Achievable).unwrap()
    };
    let single: roofline::calc::decode::DecodeInputs =
        serde_json::from_value(serde_json::json!({"batch": 1, "context": 1024, "launch": "eager"}))
            .unwrap();
    let one = roofline::calc::decode::cost(&m, &h, &single, Mode::Achievable)
        .unwrap()
        .step_time_s;
    let (eager, graph) = (run("eager"), run("graph"));
    close(
        "TP 2 eager step less one GPU's",
        eager.decode_step_time_s - one,
        64.0 * 44e-6,
        0.02,
    );
    assert!(
        graph.decode_step_time_s < 0.6 * eager.decode_step_time_s,
        "eager {} against graph {}",
        eager.decode_step_time_s,
        graph.decode_step_time_s
    );
}

/// DeepSeek-V3 prefill as SGLang's large-scale EP deployment ran it: 4
/// nodes of 8 H100s, attention data-parallel over 32, experts over 32
/// (EP 32), 2,000-token prompts, fp8. Measured: 52.3k input tokens a
/// second per node (lmsys.org/blog/2025-05-05-large-scale-ep, "Deploying
/// DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on
/// 96 H100 GPUs", 2025-05-05), 52,300 / 8 = 6,538 per GPU. The speed of
/// light must be at or above it; summing the all-to-all after the compute
/// (and sending each pick across the network in bf16) put it at 4,095.
fn dsv3_prefill_pool() -> (PlanInputs, Hardware) {
    let mut i = layout(32, 1, 1, 32, 32);
    i.batch = c(1);
    i.prompt = Some(Tokens(2000));
    i.dtype = Some("fp8".into());
    i.activations = Some("fp8".into());

    (i, hw("h100-sxm"))
}

#[test]
fn the_32_h100_deepseek_prefill_pool_is_under_the_speed_of_light() {
    let m = model("deepseek-v3");
    let (i, h) = dsv3_prefill_pool();
    let p = plan::cost(&h, &m, &i, Mode::SpeedOfLight).unwrap();
    let per_gpu = 2000.0 / p.prefill_time_s;
    let measured = 52_300.0 / 8.0;
    assert!(
        per_gpu >= measured,
        "{per_gpu} tokens/s per GPU < {measured}"
    );
    // One stage, one microbatch: the longer of compute and communication,
    // not stretched by the board's limit (formulas.md, "One time on one
    // device").
    close(
        "prefill = max(compute, comm)",
        p.prefill_time_s,
        p.prefill_stage_compute_s.max(p.prefill_comm_time_s),
        1e-12,
    );
}

/// The dispatch's network bytes at speed of light, by hand: EP 32 over
/// nodes of 8 is G = 4 domains of 64 experts. A token's 8 picks of 256
/// miss one given other node with probability C(192, 8) / C(256, 8) =
/// 0.096446, so it reaches 3 x (1 - 0.096446) = 2.71066 other nodes, one
/// copy each, where the per-pick exchange sends 8 x 24 / 32 = 6 copies
/// across: 0.451777 of the bytes. The combine carries them in bf16, the
/// dispatch in fp8: half that.
#[test]
fn the_ep_dispatch_at_speed_of_light_sends_one_copy_per_node_in_fp8() {
    let m = model("deepseek-v3");
    let (i, h) = dsv3_prefill_pool();
    let p = plan::cost(&h, &m, &i, Mode::SpeedOfLight).unwrap();
    let c = &p.prefill_comm;
    // 2,000 tokens x 8 picks x 7,168 x 2 bytes
    close(
        "dispatch bytes",
        c.ep_alltoall_bytes,
        2000.0 * 8.0 * 7168.0 * 2.0,
        0.0,
    );
    let fabric = Fabric::of(&h, Mode::SpeedOfLight);
    let per_pick =
        roofline::calc::collective::time(&fabric, Kind::AllToAll, 32, c.ep_alltoall_bytes, None)
            .unwrap()
            .gpu_s;
    close("combine share", c.ep_combine_s / per_pick, 0.451_777, 1e-5);
    close(
        "dispatch in fp8",
        c.ep_alltoall_s / c.ep_combine_s,
        0.5,
        1e-9,
    );
}

/// `--achievable` hides only what the engine declares: SGLang's two-batch
/// overlap puts a pass's EP all-to-alls under its compute (up to the
/// compute), so its prefill is shorter than the same engine's without it
/// by exactly what is hidden; a decode pass of one token cannot be split
/// in two and is not changed.
#[test]
fn achievable_hides_the_all_to_all_the_engine_declares() {
    let m = model("deepseek-v3");
    let h = hw("h200-sxm");
    let cat = Catalog::default();
    let tbo = cat.engine("sglang", &[]).unwrap();
    assert_eq!(
        tbo.overlap.ep_all_to_all,
        roofline::spec::engine::OverlapKind::TwoBatch
    );
    let mut plain = tbo.clone();
    plain.overlap.ep_all_to_all = roofline::spec::engine::OverlapKind::None;
    let mut i = layout(8, 1, 1, 8, 8);
    i.batch = c(1);
    i.prompt = Some(Tokens(2048));
    i.dtype = Some("fp8".into());
    i.activations = Some("fp8".into());
    let run = |e: roofline::spec::engine::Engine| {
        let mut i = i.clone();
        i.engine = Some(std::sync::Arc::new(e));
        plan::cost(&h, &m, &i, Mode::Achievable).unwrap()
    };
    let (a, b) = (run(tbo), run(plain));
    let moe = m.moe_layers() as f64;
    let a2a = moe * (a.prefill_comm.ep_alltoall_s + a.prefill_comm.ep_combine_s);
    assert!(a2a > 0.0);
    let hidden = a2a.min(a.prefill_stage_compute_s);
    close(
        "prefill hidden",
        b.prefill_time_s - a.prefill_time_s,
        hidden,
        1e-9,
    );
    close(
        "plain prefill = compute + comm",
        b.prefill_time_s,
        b.prefill_stage_compute_s + b.prefill_comm_time_s,
        1e-12,
    );
    assert_eq!(a.decode_step_time_s, b.decode_step_time_s);
}

/// Attention data-parallel with expert parallelism (DEP 8, formulas.md,
/// "Plans: attention data-parallel with expert parallelism"): the issue's
/// DeepSeek-V3 decode on eight H200s, 32 sequences a rank at 4,096 tokens
/// of context, fp8, derived by hand from the model's config.json (hidden
/// 7,168, vocabulary 129,280, 61 layers, 256 routed experts, 8 a token,
/// MLA's cache of 512 + 64 elements a token a layer) and NVLink 4's 450
/// GB/s a direction (900 GB/s bidirectional, NVIDIA's H200 datasheet).
/// TensorRT-LLM keeps the LM head whole on each rank; SGLang (without
/// --enable-dp-lm-head) splits its vocabulary over the eight and gathers.
#[test]
fn a_dep8_decode_step_by_hand() {
    let m = model("deepseek-v3");
    let h = hw("h200-sxm");
    let cat = Catalog::default();
    let run = |engine: &str| {
        let mut i = layout(8, 1, 1, 8, 8);
        i.batch = c(32);
        i.context = Some(Tokens(4096));
        i.dtype = Some("fp8".into());
        i.activations = Some("fp8".into());
        i.engine = Some(std::sync::Arc::new(cat.engine(engine, &[]).unwrap()));
        plan::cost(&h, &m, &i, Mode::SpeedOfLight).unwrap()
    };
    let (local, gathered) = (run("trtllm"), run("sglang"));
    for p in [&local, &gathered] {
        assert_eq!(p.layout.attention_dp(), 8);
        // Each rank caches only its own 32 sequences, all 61 layers, the
        // whole latent (bf16).
        close("KV", p.kv_bytes, 32.0 * 4096.0 * 61.0 * 576.0 * 2.0, 1e-12);
        close("experts a device", p.experts_per_device, 256.0 / 8.0, 0.0);
        // Each rank dispatches its own 32 tokens to 8 experts each, and
        // there is no tensor-parallel all-reduce.
        close(
            "dispatch a rank",
            p.decode_comm.ep_alltoall_bytes,
            32.0 * 8.0 * 7168.0 * 2.0,
            1e-12,
        );
        assert_eq!(p.decode_comm.tp_allreduce_s, 0.0);
        assert_eq!(p.decode_comm.allreduces_per_moe_layer, 0);
        // Eight ranks of 32 sequences each.
        close(
            "tokens/s",
            p.tokens_per_s,
            8.0 * 32.0 / p.decode_step_time_s,
            1e-12,
        );
        let w = &p.weights;
        close(
            "weights identity",
            w.all_devices,
            w.model + w.replicated(),
            1e-9,
        );
    }
    assert_eq!(local.decode_comm.lm_head_s, 0.0);
    // Before the split head: each rank's 32 hidden states; after it, its
    // 1/8 of the vocabulary for all 8 x 32 rows.
    let (hidden, logits) = (32.0 * 7168.0 * 2.0, 8.0 * 32.0 * 129_280.0 / 8.0 * 2.0);
    close(
        "gather",
        gathered.decode_comm.lm_head_gather_bytes,
        hidden,
        1e-12,
    );
    close(
        "logits",
        gathered.decode_comm.lm_head_logits_bytes,
        logits,
        1e-12,
    );
    // Two all-gathers over 8 at speed of light: each device receives
    // the other seven ranks' inputs over its 450 GB/s.
    close(
        "LM head all-gathers",
        gathered.decode_comm.lm_head_s,
        7.0 * (hidden + logits) / 450e9,
        1e-9,
    );
    // A rank holds 1/8 of the bf16 head: 7/8 of 129,280 x 7,168 x 2 B
    // less than a rank that holds it whole; over the eight, one copy of
    // the head where the local layout holds eight.
    let head = 129_280.0 * 7168.0 * 2.0;
    close(
        "head per device",
        local.weight_bytes - gathered.weight_bytes,
        head * 7.0 / 8.0,
        1e-9,
    );
    close(
        "head over the group",
        local.weights.all_devices - gathered.weights.all_devices,
        7.0 * head,
        1e-9,
    );
    // At speed of light the gathers run under the step's compute.
    assert!(gathered.decode_step_time_s >= gathered.comm_time_s);
}

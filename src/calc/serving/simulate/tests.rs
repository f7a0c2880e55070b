//! The simulator's truth checks: its iteration prices against `decode`,
//! `prefill` and `plan`; Little's law in its own output; the light-load
//! limits; M/D/1 (Pollaczek-Khinchine) with one sequence at a time; runs
//! that repeat; a hand-derived run on the mock cost.

use super::arrivals::{Arrivals, Request};
use super::cost::{Batch, Forward, Mock, StepCost};
use super::dist::Length;
use super::scheduler::{Config, Outcome, Totals};
use super::*;
use crate::calc::decode::DecodeInputs;
use crate::calc::prefill::PrefillInputs;
use crate::catalog::Catalog;

fn model(id: &str) -> Model {
    Catalog::default().model(id, &[]).unwrap()
}
fn hardware(id: &str) -> Hardware {
    Catalog::default().hardware(id, &[]).unwrap()
}

fn inputs(rate: &str, prompt: u64, output: u64) -> SimulateInputs {
    SimulateInputs {
        rate: Some(Rate(arrivals::parse_rate(rate).unwrap())),
        prompt: Some(Length::Fixed { tokens: prompt }),
        output: Some(Length::Fixed { tokens: output }),
        ..Default::default()
    }
}

fn decode_step(m: &Model, hw: &Hardware, batch: u64, context: u64) -> f64 {
    let i: DecodeInputs = serde_json::from_value(serde_json::json!({
        "batch": batch, "context": context
    }))
    .unwrap();
    // One time, decode's and the simulator's (formulas.md, "One time on
    // one device").
    crate::calc::decode::cost(m, hw, &i, Mode::SpeedOfLight)
        .unwrap()
        .step_time_s
}

fn prefill_time(m: &Model, hw: &Hardware, prompt: u64) -> f64 {
    let i: PrefillInputs = serde_json::from_value(serde_json::json!({ "prompt": prompt })).unwrap();
    crate::calc::prefill::cost(m, hw, &i, Mode::SpeedOfLight)
        .unwrap()
        .time_s
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a / b - 1.0).abs() <= tol
}

/// The simulator's forward for `i` on `m` and `hw` (its instance, one
/// replica, 4,096 tokens and 64 sequences an iteration), handed to
/// `check` with the instance: the set-up the iteration tests share.
fn with_forward<T>(
    (m, hw): (&Model, &Hardware),
    mode: Mode,
    i: &SimulateInputs,
    check: impl FnOnce(&Instance, &mut Forward) -> T,
) -> T {
    let inst = Instance::new(m, hw, mode, i, layout(i).unwrap()).unwrap();
    let rep = plan::Replica::new(&inst.setup, inst.layout).unwrap();
    let mut f = Forward::new(&rep, m, inst.setup.step.precisions, 4096, 64).unwrap();
    check(&inst, &mut f)
}

/// `n` decodes, each of one token over `context`, with no window.
fn decodes(n: u64, context: u64) -> Batch {
    let mut b = Batch::default();
    for _ in 0..n {
        b.add(1, context, true, crate::spec::model::Window::NONE);
    }
    b
}

/// `plan`'s decode step for the instance's layout at `batch` sequences
/// of `context` tokens, in one microbatch.
fn plan_decode_step(inst: &Instance, batch: u64, context: u64) -> f64 {
    let w = plan::Workload {
        batch,
        context,
        prompt: 1024,
        microbatches: Some(1),
    };
    plan::evaluate(&inst.setup, inst.layout, w)
        .unwrap()
        .decode_step_time_s
}

#[test]
fn an_iteration_costs_what_decode_and_prefill_say() {
    for id in ["llama-3-8b", "mixtral-8x7b", "mistral-7b"] {
        let (m, hw) = (model(id), hardware("h200-sxm"));
        let i = SimulateInputs::default();
        with_forward((&m, &hw), Mode::SpeedOfLight, &i, |_, f| {
            let w = m.window();
            // 32 decodes at context 6,000 (past mistral's 4,096 window).
            let mut b = Batch::default();
            for _ in 0..32 {
                b.add(1, 6000, true, w);
            }
            let got = f.seconds(&b).unwrap();
            let want = decode_step(&m, &hw, 32, 6000);
            assert!(close(got, want, 1e-9), "{id} decode: {got} vs {want}");
            // One whole 2,048-token prompt.
            let mut b = Batch::default();
            b.add(2048, 0, true, w);
            let got = f.seconds(&b).unwrap();
            let want = prefill_time(&m, &hw, 2048);
            assert!(close(got, want, 1e-9), "{id} prefill: {got} vs {want}");
        });
    }
}

#[test]
fn under_achievable_a_decode_batch_costs_what_decode_says() {
    let (m, hw) = (model("llama-3-8b"), hardware("h200-sxm"));
    let i = SimulateInputs::default();
    let (got, planned) = with_forward((&m, &hw), Mode::Achievable, &i, |inst, f| {
        (
            f.seconds(&decodes(32, 2048)).unwrap(),
            plan_decode_step(inst, 32, 2048),
        )
    });
    let d: DecodeInputs =
        serde_json::from_value(serde_json::json!({"batch": 32, "context": 2048})).unwrap();
    let want = crate::calc::decode::cost(&m, &hw, &d, Mode::Achievable)
        .unwrap()
        .step_time_s;
    assert!(close(got, planned, 1e-9), "{got} vs plan {planned}");
    assert!(close(got, want, 1e-9), "{got} vs {want}");
}

/// The kept parts of a pass (formulas.md, "Simulation: iteration time")
/// change no answer where the per-operation model's whole-step rules bind:
/// a whole prompt is compute-bound (the sustained rate), and one eager
/// decode waits on the host's path over every kernel.
#[test]
fn under_achievable_kept_parts_price_what_prefill_and_eager_decode_say() {
    let (m, hw) = (model("llama-3-8b"), hardware("h200-sxm"));
    for launch in ["graph", "eager"] {
        let i = SimulateInputs {
            launch: Some(launch.to_string()),
            ..Default::default()
        };
        let (got, got_prefill) = with_forward((&m, &hw), Mode::Achievable, &i, |_, f| {
            let mut b = Batch::default();
            b.add(2048, 0, true, crate::spec::model::Window::NONE);
            (
                f.seconds(&decodes(1, 2048)).unwrap(),
                f.seconds(&b).unwrap(),
            )
        });
        let d: DecodeInputs = serde_json::from_value(serde_json::json!({
            "batch": 1, "context": 2048, "launch": launch
        }))
        .unwrap();
        let want = crate::calc::decode::cost(&m, &hw, &d, Mode::Achievable)
            .unwrap()
            .step_time_s;
        assert!(close(got, want, 1e-9), "{launch} decode: {got} vs {want}");
        let got = got_prefill;
        let p: PrefillInputs = serde_json::from_value(serde_json::json!({
            "prompt": 2048, "launch": launch
        }))
        .unwrap();
        let want = crate::calc::prefill::cost(&m, &hw, &p, Mode::Achievable)
            .unwrap()
            .time_s;
        assert!(close(got, want, 1e-9), "{launch} prefill: {got} vs {want}");
    }
}

#[test]
fn a_tensor_parallel_iteration_costs_what_plan_says() {
    let (m, hw) = (model("llama-3.1-70b"), hardware("h200-sxm"));
    let i = SimulateInputs {
        tp: Some(Count(4)),
        ..Default::default()
    };
    let (got, planned) = with_forward((&m, &hw), Mode::SpeedOfLight, &i, |inst, f| {
        (
            f.seconds(&decodes(16, 4096)).unwrap(),
            plan_decode_step(inst, 16, 4096),
        )
    });
    assert!(close(got, planned, 1e-9), "{got} vs plan {planned}");
}

fn run_default(i: &SimulateInputs) -> SimCost {
    let (m, hw) = (model("llama-3-8b"), hardware("h200-sxm"));
    cost(&m, &hw, i, Mode::SpeedOfLight).unwrap()
}

#[test]
fn littles_law_holds_in_the_output() {
    for (rate, prompt) in [("5/s", 1024), ("25/s", 2048)] {
        let mut i = inputs(rate, prompt, 200);
        i.requests = Some(Count(3000));
        i.prompt = Some(dist::parse("lognormal:1024,0.4").unwrap());
        let s = run_default(&i).summary;
        let l = s.throughput * s.e2e.mean;
        assert!(
            close(s.mean_in_flight, l, 0.01),
            "{rate}: in flight {} vs throughput x E2E {l}",
            s.mean_in_flight
        );
    }
}

#[test]
fn light_load_tends_to_prefill_and_batch_one_decode() {
    let (m, hw) = (model("llama-3-8b"), hardware("h200-sxm"));
    let (p, o) = (1024u64, 64u64);
    let mut i = inputs("0.001/s", p, o);
    i.requests = Some(Count(200));
    let s = cost(&m, &hw, &i, Mode::SpeedOfLight).unwrap().summary;
    let ttft = prefill_time(&m, &hw, p);
    assert!(close(s.ttft.mean, ttft, 0.001), "{} vs {ttft}", s.ttft.mean);
    // Decode k (k = 1 .. o-1) runs over a cache of p + k - 1 tokens.
    let tpot = (1..o)
        .map(|k| decode_step(&m, &hw, 1, p + k - 1))
        .sum::<f64>()
        / (o - 1) as f64;
    assert!(close(s.tpot.mean, tpot, 0.001), "{} vs {tpot}", s.tpot.mean);
}

#[test]
fn one_sequence_at_a_time_is_md1() {
    let (m, hw) = (model("llama-3-8b"), hardware("h200-sxm"));
    let prompt = 2048;
    let service = prefill_time(&m, &hw, prompt);
    for rho in [0.5, 0.8] {
        let rate = rho / service;
        let mut i = inputs(&rate.to_string(), prompt, 1);
        i.max_seqs = Some(Count(1));
        i.requests = Some(Count(100_000));
        i.seed = Some(Count(11));
        let s = cost(&m, &hw, &i, Mode::SpeedOfLight).unwrap().summary;
        // Pollaczek-Khinchine for deterministic service: W = rho S / (2 (1 - rho)).
        let want = service + rho * service / (2.0 * (1.0 - rho));
        assert!(
            close(s.ttft.mean, want, 0.02),
            "rho {rho}: mean TTFT {} vs M/D/1 {want}",
            s.ttft.mean
        );
    }
}

#[test]
fn a_seed_repeats_and_another_differs() {
    let mut i = inputs("20/s", 1024, 128);
    i.requests = Some(Count(500));
    i.prompt = Some(dist::parse("uniform:256..2048").unwrap());
    i.per_request = true;
    let a = run_default(&i);
    let b = run_default(&i);
    assert_eq!(a.outcomes, b.outcomes);
    i.seed = Some(Count(1));
    let c = run_default(&i);
    assert_ne!(a.outcomes, c.outcomes);
}

#[test]
fn a_trace_reproduces_the_run_it_records() {
    let mut i = inputs("30/s", 1024, 64);
    i.requests = Some(Count(400));
    i.output = Some(dist::parse("uniform:10..200").unwrap());
    i.per_request = true;
    let a = run_default(&i);
    let out = a.outcomes.as_ref().unwrap();
    let mut csv = String::from("arrival_s,prompt_tokens,output_tokens\n");
    for o in out {
        csv.push_str(&format!("{:?},{},{}\n", o.arrival_s, o.prompt, o.output));
    }
    let path = std::env::temp_dir().join(format!("roofline-trace-{}.csv", std::process::id()));
    std::fs::write(&path, csv).unwrap();
    let t = SimulateInputs {
        trace: Some(path.to_string_lossy().into_owned()),
        per_request: true,
        ..Default::default()
    };
    let b = run_default(&t);
    std::fs::remove_file(&path).ok();
    assert_eq!(a.outcomes, b.outcomes);
}

/// The scheduler settings every mock run shares: one replica of up to 8
/// sequences and 4,096 tokens an iteration, no prefix hits, no sliding
/// window, drafting as `draft` says.
fn mock_config(draft: Option<crate::calc::speculative::Draft>) -> Config {
    Config {
        max_tokens: 4096,
        max_seqs: 8,
        prefix_hit: 0.0,
        window: crate::spec::model::Window::NONE,
        replicas: 1,
        prefilled: false,
        draft,
    }
}

/// The mock engine: an iteration costs `fixed_s` plus `per_token_s` a
/// token worked.
fn mock(fixed_s: f64, per_token_s: f64) -> Mock {
    Mock {
        fixed_s,
        per_token_s,
        per_seen_s: 0.0,
    }
}

/// `requests` requests of `prompt` and `output` tokens arriving as
/// `arrivals`, with no prefix hits, no targets and drafting as `draft`.
fn mock_workload(
    arrivals: Arrivals,
    (prompt, output): (u64, u64),
    requests: u64,
    draft: Option<crate::calc::speculative::Draft>,
) -> Workload {
    Workload {
        arrivals,
        prompt: Length::Fixed { tokens: prompt },
        output: Length::Fixed { tokens: output },
        prefix_hit: 0.0,
        requests,
        seed: 0,
        slo_ttft: None,
        slo_tpot: None,
        draft,
    }
}

/// The mock engine at one user: prefill and each decode take one
/// iteration of 1 s + 1 ms per token.
#[test]
fn the_mock_closed_loop_by_hand() {
    let (cfg, mock) = (mock_config(None), mock(1.0, 0.001));
    let w = mock_workload(Arrivals::Closed(1), (100, 5), 3, None);
    let reqs = vec![
        Request {
            arrival_s: 0.0,
            prompt: 100,
            output: 5
        };
        3
    ];
    let (out, t) = simulate(cfg, mock, &w, reqs, 10_000, 16, false).unwrap();
    // Prefill: 1.1 s; four decodes of 1.001 s each.
    for (k, o) in out.iter().enumerate() {
        let start = k as f64 * (1.1 + 4.0 * 1.001);
        assert!((o.arrival_s - start).abs() < 1e-9, "{k}: {}", o.arrival_s);
        assert!((o.first_token_s - o.arrival_s - 1.1).abs() < 1e-9);
        assert!((o.finish_s - o.first_token_s - 4.004).abs() < 1e-9);
    }
    assert_eq!(t.iterations, 15);
}

/// A cache of 40 blocks of 16 tokens (640 tokens) and requests of 300
/// tokens that grow to 400: two cannot finish side by side, so the later
/// one is preempted and recomputed, and every request still finishes.
#[test]
fn a_full_cache_preempts_and_recomputes() {
    let (cfg, mock) = (mock_config(None), mock(0.01, 0.0));
    let w = mock_workload(Arrivals::Trace(Vec::new()), (1, 1), 4, None);
    let reqs: Vec<Request> = (0..4)
        .map(|k| Request {
            arrival_s: k as f64 * 0.001,
            prompt: 300,
            output: 100,
        })
        .collect();
    let (out, t) = simulate(cfg, mock, &w, reqs, 640, 16, false).unwrap();
    assert!(t.preemptions > 0);
    assert!(t.kv_peak <= 1.0);
    for o in &out {
        assert!(o.finish_s.is_finite() && o.first_token_s <= o.finish_s);
    }
}

#[test]
fn a_request_that_cannot_fit_is_no_answer() {
    // Llama-3-8B's bf16 KV is 128 KiB a token: an H200 holds under a
    // million tokens beside the weights.
    let (m, hw) = (model("llama-3-8b"), hardware("h200-sxm"));
    let mut i = inputs("1/s", 2_000_000, 10);
    i.requests = Some(Count(3));
    i.force = true;
    let e = cost(&m, &hw, &i, Mode::SpeedOfLight).unwrap_err();
    assert_eq!(e.exit_code(), 1, "{e}");
    assert!(e.to_string().contains("too many"), "{e}");
}

/// The batch sizes counted per size give the nearest-rank percentiles,
/// mean and largest of the list they stand for (the list sorted by hand
/// here: 1, 1, 2, 3, 3, 3, 7; p50 is the 4th value, p90 and p99 the 7th).
#[test]
fn batch_size_counts_match_the_list() {
    let mut b = super::scheduler::BatchSizes::default();
    for s in [3, 1, 7, 3, 2, 1, 3] {
        b.add(s);
    }
    assert_eq!(b.len(), 7);
    assert_eq!(b.max(), 7);
    assert_eq!(b.sum(), 20);
    assert_eq!(b.percentile(50.0), 3.0);
    assert_eq!(b.percentile(90.0), 7.0);
    assert_eq!(b.percentile(99.0), 7.0);
    assert_eq!(b.percentile(10.0), 1.0);
    let mut v: Vec<f64> = [3.0, 1.0, 7.0, 3.0, 2.0, 1.0, 3.0].to_vec();
    v.sort_by(f64::total_cmp);
    for p in [1.0, 14.3, 28.6, 50.0, 71.4, 85.8, 99.9] {
        assert_eq!(b.percentile(p), report::percentile(&v, p), "p{p}");
    }
    assert!(
        super::scheduler::BatchSizes::default()
            .percentile(50.0)
            .is_nan()
    );
}

/// Redundant experts (`--redundant-experts`, as `plan` takes them):
/// DeepSeek-V3 at fp8 in DEP 8 on H200s with 32 redundant experts holds
/// (256 + 32) / 8 = 36 experts a device per MoE layer where it held 32, so
/// each device carries 4 experts more in each of its 58 MoE layers, each
/// expert 3 x 7,168 x 2,048 fp8 weights (config.json; block scales add
/// 0.02%), and its KV room shrinks by those bytes over a token's bf16 KV,
/// 61 layers x 576 elements x 2 B: 4 x 58 x 44,040,192 / 70,272 = 145,397
/// tokens.
#[test]
fn redundant_experts_take_their_bytes_from_the_kv_room() {
    let (m, hw) = (model("deepseek-v3"), hardware("h200-sxm"));
    let mut i = inputs("4/s", 1024, 16);
    i.tp = Some(Count(1));
    i.dp = Some(Count(8));
    i.ep = Some(Count(8));
    i.dtype = Some("fp8".into());
    i.requests = Some(Count(20));
    let plain = cost(&m, &hw, &i, Mode::SpeedOfLight).unwrap();
    i.redundant_experts = Some(Count(32));
    let more = cost(&m, &hw, &i, Mode::SpeedOfLight).unwrap();
    let lost = (plain.kv_tokens - more.kv_tokens) as f64;
    let want = 4.0 * 58.0 * 3.0 * 7168.0 * 2048.0 / (61.0 * 576.0 * 2.0);
    assert!((lost / want - 1.0).abs() < 1e-3, "{lost} vs {want}");
    // A dense model has no experts to copy.
    let mut d = inputs("4/s", 1024, 16);
    d.redundant_experts = Some(Count(8));
    let e = cost(&model("llama-3-8b"), &hw, &d, Mode::SpeedOfLight).unwrap_err();
    assert!(e.to_string().contains("redundant-experts"), "{e}");
}

/// One user, one request of 100 prompt and 9 output tokens on the mock
/// engine (1 s an iteration + 1 ms a token), with `draft`.
fn one_request(draft: Option<crate::calc::speculative::Draft>) -> (Outcome, Totals) {
    let (cfg, mock) = (mock_config(draft), mock(1.0, 0.001));
    let w = mock_workload(Arrivals::Closed(1), (100, 9), 1, draft);
    let reqs = vec![Request {
        arrival_s: 0.0,
        prompt: 100,
        output: 9,
    }];
    let (out, t) = simulate(cfg, mock, &w, reqs, 10_000, 16, false).unwrap();
    (out[0], t)
}

fn draft(text: &str) -> Option<crate::calc::speculative::Draft> {
    Some(crate::calc::speculative::Draft::parse(text).unwrap())
}

/// Every draft accepted (a = 1, g = 1): each decode step verifies 2
/// tokens and keeps both, so the 8 tokens after the first take 4 steps
/// instead of 8, each of 2 tokens (1.002 s against 1.001 s).
#[test]
fn two_tokens_a_step_halve_the_decode_iterations() {
    let (plain, tp) = one_request(None);
    let (spec, ts) = one_request(draft("1,1"));
    // Prefill: 1 + 100 x 0.001 = 1.1 s; then 8 decodes or 4 verifies.
    assert_eq!(tp.iterations, 1 + 8);
    assert_eq!(ts.iterations, 1 + 4);
    for o in [plain, spec] {
        assert!((o.first_token_s - 1.1).abs() < 1e-9);
    }
    assert!((plain.finish_s - plain.first_token_s - 8.0 * 1.001).abs() < 1e-9);
    assert!((spec.finish_s - spec.first_token_s - 4.0 * 1.002).abs() < 1e-9);
}

/// a = 0.5, g = 1: (1 - 0.5^2) / (1 - 0.5) = 1.5 tokens a step, kept as 1,
/// 2, 1, 2, ... (the half carried): the 8 tokens after the first take
/// five verifies of 2 positions (1+2+1+2+1 = 7), then a plain step for the
/// one token still owed (no draft past it): 6 steps. Draft cost 0.5 adds
/// half a plain one-token step (1.001 s) to each verify.
#[test]
fn a_mean_of_one_and_a_half_tokens_and_the_drafts_cost() {
    let (o, t) = one_request(draft("0.5,1"));
    assert_eq!(t.iterations, 1 + 6);
    assert!((o.finish_s - o.first_token_s - (5.0 * 1.002 + 1.001)).abs() < 1e-9);
    let (o, t) = one_request(draft("0.5,1,0.5"));
    assert_eq!(t.iterations, 1 + 6);
    let pass = 1.002 + 0.5 * 1.001;
    assert!((o.finish_s - o.first_token_s - (5.0 * pass + 1.001)).abs() < 1e-9);
}

/// The cache holds the drafted positions while they are verified: with
/// a = 0 (nothing kept beyond the target's own token) and g = 3, the
/// first decode step of a 8-token prompt takes blocks for 8 + 4 = 12
/// tokens (blocks of one token) where a plain step takes 9; a sequence
/// never drafts past the tokens it still owes, so its last step holds
/// prompt + output - 1 = 12 either way.
#[test]
fn the_cache_holds_the_drafted_positions() {
    let run = |d| {
        let (cfg, mock) = (mock_config(d), mock(1.0, 0.0));
        let w = mock_workload(Arrivals::Trace(Vec::new()), (8, 5), 1, d);
        let reqs = vec![Request {
            arrival_s: 0.0,
            prompt: 8,
            output: 5,
        }];
        let mut sim = scheduler::Simulation::new(cfg, mock, &w.arrivals, reqs, 16, 1, 0);
        sim.keep_timeline();
        sim.step_until_no_events().unwrap();
        let (out, t) = sim.finish();
        (out[0], t)
    };
    let (plain, tp) = run(None);
    let (spec, ts) = run(draft("0,3"));
    // Both decode one token a step: 4 steps after the prefill.
    assert_eq!(tp.iterations, 5);
    assert_eq!(ts.iterations, 5);
    assert!((plain.finish_s - spec.finish_s).abs() < 1e-9);
    // KV share after each iteration (the finished one has given its
    // blocks back): 8, 9, 10, 11 of 16 plain; 8, 12, 12, 12 speculating.
    let kv = |t: &Totals| t.timeline.iter().map(|x| x[3] * 16.0).collect::<Vec<_>>();
    assert_eq!(kv(&tp), [8.0, 9.0, 10.0, 11.0, 0.0]);
    assert_eq!(kv(&ts), [8.0, 12.0, 12.0, 12.0, 0.0]);
}

/// A speculating decode pass in the simulator costs what `decode
/// --speculative` says: the verify step of g + 1 tokens a sequence plus
/// g c plain steps, for (1 - a^(g+1)) / (1 - a) tokens.
#[test]
fn a_speculative_pass_costs_what_decode_says() {
    for (id, spec, batch) in [("llama-3-8b", "0.8,3,0.05", 32), ("llama-3-8b", "0.6,5", 4)] {
        let (m, hw) = (model(id), hardware("h200-sxm"));
        let i = SimulateInputs::default();
        let d = crate::calc::speculative::Draft::parse(spec).unwrap();
        let (got, tokens) = with_forward((&m, &hw), Mode::Achievable, &i, |_, f| {
            cost::decode_pass(f, Some(d), batch, 2048, crate::spec::model::Window::NONE).unwrap()
        });
        let parts: Vec<&str> = spec.split(',').collect();
        let mut j = serde_json::json!({
            "batch": batch, "context": 2048,
            "acceptance": parts[0], "draft-tokens": parts[1]
        });
        if let Some(c) = parts.get(2) {
            j["draft-cost"] = (*c).into();
        }
        let di: DecodeInputs = serde_json::from_value(j).unwrap();
        let c = crate::calc::decode::cost(&m, &hw, &di, Mode::Achievable).unwrap();
        let sp = c.speculation.unwrap();
        assert!(
            close(got, sp.pass_s, 1e-9),
            "{spec}: {got} vs {}",
            sp.pass_s
        );
        assert!(close(tokens, sp.expected_tokens, 1e-12));
    }
}

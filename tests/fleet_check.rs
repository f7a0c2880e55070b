//! `fleet`'s answer as a planner acts on it: the printed check command
//! carries every flag of the search and reproduces the verdict; the winner
//! holds at steady state (8,000 requests); `--achievable` searches
//! disaggregated pools with no hand-set NIC figure and `--pareto` shows
//! them; a price per part; the table keeps both targets at 120 columns.

use crate::common;
use std::process::Command;

/// The words of the check command as a POSIX shell reads them (the
/// crate's splitter, which its unit test checks against its quoting).
fn words(line: &str) -> Vec<String> {
    roofline::calc::fleet::check::split(line)
}

/// Runs the check command of a fleet answer (with `--requests` replaced
/// when `requests` is given) and returns simulate's report.
fn run_check(fleet: &serde_json::Value, requests: Option<&str>) -> serde_json::Value {
    let line = fleet["results"]["check_command"]
        .as_str()
        .expect("check_command in the JSON");
    let mut w = words(line);
    assert_eq!(&w[..2], ["roofline", "simulate"], "{line}");
    if let Some(n) = requests {
        let at = w
            .iter()
            .position(|x| x == "--requests")
            .expect("--requests");
        w[at + 1] = n.to_string();
    }
    let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
    common::cli_json(&args)
}

#[test]
fn the_check_command_carries_every_flag_and_reproduces_the_verdict() {
    let mut search = common::words(
        "fleet --model llama-3-8b --hw h200-sxm --rate 20/s --prompt 1024 --output 128 \
         --slo-ttft 1s --slo-tpot 30ms --max-devices 4 --dtype fp8 --activations fp8 \
         --kv-dtype fp8 --block-size 32 --reserve 12% --prefix-hit 10% --price 2.5/h",
    );
    search.extend(["--set", "memory.hbm-bandwidth=4.5 TB/s", "--achievable"]);
    let f = common::cli_json(&search);
    let line = f["results"]["check_command"].as_str().unwrap();
    let w = words(line);
    // Every flag of the search that simulate takes, with its value.
    for pair in [
        ["--dtype", "fp8"],
        ["--activations", "fp8"],
        ["--kv-dtype", "fp8"],
        ["--block-size", "32"],
        ["--reserve", "12%"],
        ["--prefix-hit", "10%"],
        ["--price", "2.5/h"],
        ["--set", "memory.hbm-bandwidth=4.5 TB/s"],
        ["--model", "llama-3-8b"],
        ["--hw", "h200-sxm"],
        ["--slo-ttft", "1s"],
        ["--slo-tpot", "30ms"],
    ] {
        assert!(
            w.windows(2).any(|x| x == pair),
            "{pair:?} missing from: {line}"
        );
    }
    assert!(w.iter().any(|x| x == "--achievable"), "{line}");
    // Its figures are the verdict's within 2% (they are one run).
    let s = run_check(&f, None);
    for (fleet, sim) in [
        ("ttft_s", "ttft_p99_s"),
        ("tpot_s", "tpot_p99_s"),
        ("devices", "devices"),
        (
            "cost_per_million_output_tokens",
            "cost_per_million_output_tokens",
        ),
    ] {
        let (a, b) = (common::json_num(&f, fleet), common::json_num(&s, sim));
        assert!((a / b - 1.0).abs() < 0.02, "{fleet} {a} vs {sim} {b}");
    }
}

/// Llama-3.1-70B in fp8 (weights, activations, KV) on H200s at 20
/// requests a second of 2,048-token prompts and 300-token answers, p99
/// TTFT 2 s and TPOT 50 ms, at speed of light. A split plan of four
/// prefill replicas and one TP 1 decode replica (5 devices) meets the
/// targets over a short run and then falls over: by hand, one H200 holds
/// 141 GB x 0.9 - 70.6 GB of fp8 weights = 56.3 GB of cache, at 80 layers
/// x 8 KV heads x 128 x 2 (K and V) x 1 byte = 163,840 B a token about
/// 344,000 tokens, 156 sequences at the mean context of 2,048 + 150. A
/// step of 156 such sequences reads 70.6 GB of weights and 56.3 GB of
/// cache at 4.8 TB/s, 26 ms, so Little's law asks for 20/s x 299 tokens
/// x 26 ms = 155 sequences in decode: no room left, and any queue feeds
/// back (preemptions recompute prompts, steps grow). The winner must hold
/// whole at 8,000 requests.
#[test]
fn the_winner_holds_at_steady_state_where_a_short_run_would_pass() {
    // `--engine pytorch`: the figures below were set under the plain
    // forward.
    let f = common::cli_json(&common::words(
        "fleet --model llama-3.1-70b --hw h200-sxm --rate 20/s --prompt 2048 --output 300 \
         --slo-ttft 2s --slo-tpot 50ms --dtype fp8 --activations fp8 --kv-dtype fp8 \
         --engine pytorch",
    ));
    // TP 4 on 4 devices: the step's all-reduces run under it at speed of
    // light (formulas.md, "Plans: communication under compute"); with
    // them after it, more than 5 devices were needed.
    assert!(common::json_num(&f, "devices") >= 4.0, "{}", f["results"]);
    assert!(common::json_num(&f, "verdict_requests") >= 1000.0);
    let s = run_check(&f, Some("8000"));
    assert!(
        common::json_num(&s, "ttft_p99_s") <= 2.0,
        "{}",
        s["results"]
    );
    assert!(
        common::json_num(&s, "tpot_p99_s") <= 0.050,
        "{}",
        s["results"]
    );
    // The 5-device split plan, run whole at 8,000 requests, misses TPOT.
    let five = common::cli_json(&common::words(
        "simulate --model llama-3.1-70b --hw h200-sxm --rate 20/s --prompt 2048 --output 300 \
         --max-seqs 256 --max-batched-tokens 2304 --prefill-dp 4 --slo-ttft 2s --slo-tpot 50ms \
         --requests 8000 --dtype fp8 --activations fp8 --kv-dtype fp8 --engine pytorch",
    ));
    assert!(common::json_num(&five, "tpot_p99_s") > 0.050);
}

/// Issue 41's 70B bf16 question: 20 requests a second of 2k in and 300
/// out, against a 2 s TTFT and a 50 ms TPOT.
const QUESTION_70B: &[&str] = &[
    "fleet",
    "--model",
    "llama-3.1-70b",
    "--hw",
    "h200-sxm",
    "--rate",
    "20/s",
    "--prompt",
    "2048",
    "--output",
    "300",
    "--slo-ttft",
    "2s",
    "--slo-tpot",
    "50ms",
    // the figures below were set under the plain forward
    "--engine",
    "pytorch",
];

#[test]
fn achievable_searches_disaggregated_pools_without_a_hand_set_nic_and_pareto_shows_them() {
    let q = [QUESTION_70B, &["--achievable"]].concat();
    let f = common::cli_json(&q);
    let notes = f["notes"].to_string();
    assert!(!notes.contains("were not searched"), "{notes}");
    let plans = f["results"]["plans"].as_array().unwrap();
    assert!(
        plans
            .iter()
            .any(|p| p["layout"] == "disaggregated" && p["meets"] == true),
        "no disaggregated plan met"
    );
    let mut p = q.to_vec();
    p.push("--pareto");
    let f = common::cli_json(&p);
    let rows = f["rows"].as_array().unwrap();
    assert!(
        rows.iter().any(|r| r["inputs"]["prefill_pool"].is_string()),
        "no disaggregated point on the frontier: {rows:?}"
    );
}

#[test]
fn the_check_command_carries_the_engine_its_folder_and_the_step_reserve() {
    // tests/data/enginedir holds vLLM's profile under another id: only the
    // folder names it, so a check without --engine-dir fails to find it.
    let f = common::cli_json(&common::words(
        "fleet --model llama-3-8b --hw h200-sxm --rate 10/s --prompt 1024 --output 128 \
         --slo-ttft 2s --slo-tpot 30ms --max-devices 2 --engine vllm-copy \
         --engine-dir tests/data/enginedir --reserve step",
    ));
    let line = f["results"]["check_command"].as_str().unwrap();
    let w = words(line);
    for pair in [
        ["--engine", "vllm-copy"],
        ["--engine-dir", "tests/data/enginedir"],
        // The search's largest iteration, which it held back on every plan:
        // the default caps' largest (256) beside a whole 2,048-token prompt.
        ["--reserve", "step:2304,256"],
    ] {
        assert!(
            w.windows(2).any(|x| x == pair),
            "{pair:?} missing from: {line}"
        );
    }
    let s = run_check(&f, None);
    for (fleet, sim) in [("ttft_s", "ttft_p99_s"), ("tpot_s", "tpot_p99_s")] {
        let (a, b) = (common::json_num(&f, fleet), common::json_num(&s, sim));
        assert!((a / b - 1.0).abs() < 0.02, "{fleet} {a} vs {sim} {b}");
    }
}

#[test]
fn a_price_per_part_ranks_by_each_parts_price_and_checks_with_it() {
    let q = |prices: &str| {
        common::cli_json(&[
            "fleet",
            "--model",
            "llama-3-8b",
            "--hw",
            "h100-sxm,b200",
            "--joint",
            "--rate",
            "20/s",
            "--prompt",
            "1024",
            "--output",
            "200",
            "--slo-ttft",
            "2s",
            "--slo-tpot",
            "30ms",
            "--objective",
            "cost",
            "--max-devices",
            "8",
            "--price",
            prices,
        ])
    };
    // One device of either meets; the cheaper device-hour wins.
    let cheap_h100 = q("h100-sxm=2/h,b200=5/h");
    assert_eq!(cheap_h100["results"]["hardware"], "h100-sxm");
    let cheap_b200 = q("h100-sxm=6/h,b200=5/h");
    assert_eq!(cheap_b200["results"]["hardware"], "b200");
    // The check command prices the winner's part, and agrees.
    let line = cheap_b200["results"]["check_command"].as_str().unwrap();
    assert!(line.contains("--price 5/h"), "{line}");
    let s = run_check(&cheap_b200, None);
    let (a, b) = (
        common::json_num(&cheap_b200, "cost_per_million_output_tokens"),
        common::json_num(&s, "cost_per_million_output_tokens"),
    );
    assert!((a / b - 1.0).abs() < 0.02, "{a} vs {b}");
    let err = common::cli_err(
        &common::words(
            "fleet --model llama-3-8b --hw h100-sxm,b200 --joint --rate 20/s --prompt 1024 \
             --output 200 --slo-tpot 30ms --objective cost --price h100-sxm=2/h",
        ),
        65,
    );
    assert!(err.contains("no price for b200"), "{err}");
}

/// Compared parts (no `--joint`) each take their own price from a per-part
/// list: each column's cost is its part's alone, as if searched on its own
/// with that one price.
#[test]
fn compared_parts_each_take_their_own_price() {
    let q = |hw: &str, price: &str| {
        common::cli_json(&[
            "fleet",
            "--model",
            "llama-3-8b",
            "--hw",
            hw,
            "--rate",
            "20/s",
            "--prompt",
            "1024",
            "--output",
            "200",
            "--slo-tpot",
            "30ms",
            "--max-devices",
            "8",
            "--price",
            price,
        ])
    };
    let both = q("h100-sxm,b200", "h100-sxm=2/h,b200=5/h");
    let rows = both["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (row, (part, price)) in rows.iter().zip([("h100-sxm", "2/h"), ("b200", "5/h")]) {
        let alone = q(part, price);
        let key = "cost_per_million_output_tokens";
        let (a, b) = (
            row["results"][key].as_f64().unwrap(),
            common::json_num(&alone, key),
        );
        assert!((a / b - 1.0).abs() < 1e-12, "{part}: {a} vs {b}");
    }
}

#[test]
fn at_120_columns_the_table_keeps_both_targets_and_says_why_ranks_skip() {
    let out = Command::new(env!("CARGO_BIN_EXE_roofline"))
        .args(common::words(
            "fleet --model llama-3.1-70b --hw h200-sxm --rate 10/s --prompt 2048 --output 300 \
             --slo-ttft 2s --slo-tpot 50ms",
        ))
        .env("COLUMNS", "120")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text
        .lines()
        .find(|l| l.contains("│ rank"))
        .expect("a table");
    assert!(
        header.contains("TTFT") && header.contains("TPOT"),
        "{header}"
    );
    assert!(text.contains("ranks skip"), "{text}");
}

/// Llama-3.1-70B in bf16 on one H200, prompts alone (a prefill pool):
/// the flat 10% reserve refuses it, the reserve priced from the step fits
/// it. By hand: the weights are 2 B x 70,553,706,496 parameters (2 x
/// 128,256 x 8,192 embedding and LM head; 80 layers of attention, 2 x
/// 8,192^2 + 2 x 8,192 x 1,024, and MLP, 3 x 8,192 x 28,672; norms 161 x
/// 8,192) = 141,107,412,992 B, against 150,109,880,320 B usable x 0.9 =
/// 135.1 GB: no room. Priced from the step (simulate's default caps,
/// 2,048 + 256 = 2,304 tokens and 256 sequences): the runtime's
/// 726,466,560 B (hardware/h200-sxm.toml, measured); activations 2,304
/// tokens x (4 x 8,192 + 2 x 28,672) x 2 B = 415,236,096 B; logits 256 x
/// 128,256 x 4 B = 131,330,048 B. The KV cache gets 150,109,880,320 -
/// 726,466,560 - 141,107,412,992 - 415,236,096 - 131,330,048 =
/// 7,729,434,624 B, at 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 B =
/// 327,680 B a token: 23,588 tokens.
#[test]
fn the_reserve_priced_from_the_step_fits_70b_bf16_on_one_h200_for_prefill() {
    let q = common::words(
        "simulate --model llama-3.1-70b --hw h200-sxm --rate 0.5/s --prompt 2048 --output 1 \
         --requests 100",
    );
    let err = common::cli_err(&q, 1);
    assert!(err.contains("does not fit"), "{err}");
    let mut step = q.to_vec();
    step.extend(["--reserve", "step"]);
    let s = common::cli_json(&step);
    assert_eq!(common::json_num(&s, "kv_capacity_tokens"), 23_588.0);
    // The same step named outright, as fleet's check command names it.
    let mut named = q.to_vec();
    named.extend(["--reserve", "step:2304,256"]);
    let n = common::cli_json(&named);
    assert_eq!(common::json_num(&n, "kv_capacity_tokens"), 23_588.0);
    // A part without the runtime's figure names the field.
    let mut other = q.to_vec();
    other[4] = "b200";
    other.extend(["--reserve", "step"]);
    let err = common::cli_err(&other, 65);
    assert!(err.contains("memory.runtime-bytes"), "{err}");
}

/// docs/capacity-plan.md, section 6: Llama-3.1-70B in bf16 on H200s at 20
/// requests a second, 2,048 in / 300 out, p99 TTFT 2 s and TPOT 50 ms.
/// NVIDIA's AIConfigurator 0.12 answers 16 H200s from kernels measured
/// under TensorRT-LLM (validation/aiconfigurator/
/// llama-3.1-70b-bf16-h200-20rps.txt); speed of light is a floor under
/// any measured answer, so ours takes no more. Priced from the step, the
/// reserve leaves room that the flat 10% does not (one H200 holds the
/// weights), so the winner takes no more devices than with the flat
/// reserve (as many, now that each iteration runs at the board's power
/// limit: the limit, not memory, binds at 20 requests a second).
#[test]
fn beside_the_peer_the_70b_bf16_plan_at_20_per_second() {
    let q = QUESTION_70B;
    let flat = common::cli_json(q);
    let flat_devices = common::json_num(&flat, "devices");
    assert!(flat_devices <= 16.0, "{flat_devices}");
    let mut step = q.to_vec();
    step.extend(["--reserve", "step"]);
    let priced = common::cli_json(&step);
    let step_devices = common::json_num(&priced, "devices");
    // With the all-reduces under the step at speed of light (formulas.md,
    // "Plans: communication under compute") both take TP 8 on one HGX;
    // with them after it the flat reserve took more.
    assert!(
        step_devices <= flat_devices,
        "{step_devices} vs {flat_devices}"
    );
}

/// Issue 52's question: Llama-3.1-70B on H200s at 11.45 requests a
/// second, 2,048 in / 256 out, p99 TTFT 2 s and TPOT 50 ms, measured
/// figures, the plain forward. Its first eight plans met in the search's
/// short run and fell over whole, and the ninth was shown unconfirmed (its
/// check over 8,000 requests missed TPOT at 51.6 ms). The answer is now a
/// plan that held over a whole run, so its check command over 8,000
/// requests meets both targets; or no answer, saying none was confirmed.
#[test]
fn the_70b_answer_is_a_plan_that_held_or_none() {
    let q = common::words(
        "fleet --model llama-3.1-70b --hw h200-sxm --rate 11.45/s --prompt 2048 --output 256 \
         --slo-ttft 2s --slo-tpot 50ms --achievable --engine pytorch",
    );
    let out = common::cli(&q);
    if out.status.code() == Some(1) {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("was confirmed"), "{err}");
        return;
    }
    let f = common::cli_json(&q);
    let notes = f["notes"].to_string();
    assert!(!notes.contains("not yet run whole"), "{notes}");
    assert!(common::json_num(&f, "verdict_requests") >= 1000.0);
    let s = run_check(&f, Some("8000"));
    assert!(
        common::json_num(&s, "ttft_p99_s") <= 2.0,
        "{}",
        s["results"]
    );
    assert!(
        common::json_num(&s, "tpot_p99_s") <= 0.050,
        "{}",
        s["results"]
    );
}

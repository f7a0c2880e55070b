//! Issue 51, "Done when": the serving commands answer with `--achievable`
//! and `--energy-price` on every part a planner can buy, each answer
//! carrying its evidence and band and pricing the energy. Cheap shapes (a
//! 1B model, a few requests, a two-device search): what is checked is that
//! an answer exists with what it must say, not its value.

use crate::common::cli_json;

const PARTS: &[&str] = &[
    "h100-sxm",
    "h200-sxm",
    "b200",
    "b300",
    "gb200",
    "gb300",
    "mi300x",
    "mi355x",
    "tpu7x",
    "trainium3",
    "a100-sxm-80gb",
];

const M: &[&str] = &["--model", "llama-3.2-1b"];

fn commands() -> Vec<(&'static str, Vec<&'static str>)> {
    let w = ["--rate", "5/s", "--prompt", "200", "--output", "50"];
    vec![
        ("decode", vec!["--batch", "8", "--context", "1024"]),
        ("prefill", vec!["--batch", "1", "--prompt", "512"]),
        (
            "plan",
            vec![
                "--devices",
                "2",
                "--tp",
                "2",
                "--batch",
                "8",
                "--context",
                "1024",
            ],
        ),
        ("simulate", [&w[..], &["--requests", "50"]].concat()),
        (
            "fleet",
            [
                &w[..],
                &[
                    "--slo-tpot",
                    "50ms",
                    "--requests",
                    "50",
                    "--max-devices",
                    "2",
                    "--caps",
                    "16",
                ],
            ]
            .concat(),
        ),
    ]
}

#[test]
fn every_serving_command_answers_on_every_part_with_evidence_band_and_cost() {
    for (cmd, args) in commands() {
        for hw in PARTS {
            let mut a = vec![cmd];
            a.extend(M);
            a.extend(args.iter().copied());
            a.extend(["--hw", hw, "--achievable", "--energy-price", "0.1/kWh"]);
            let r = cli_json(&a);
            let notes: Vec<&str> = r["notes"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|n| n.as_str())
                .collect();
            // The evidence note opens with its kind and states a band.
            let evidence = notes.iter().find(|n| n.contains("band ±"));
            assert!(
                evidence.is_some_and(|n| [
                    "measured here",
                    "calibrated by you",
                    "public figures",
                    "transferred from"
                ]
                .iter()
                .any(|k| n.starts_with(k))),
                "{cmd} on {hw}: no evidence note with a band in {notes:?}"
            );
            let cost = r["results"]
                .as_object()
                .unwrap()
                .iter()
                .find(|(k, _)| k.starts_with("cost_per_million"))
                .and_then(|(_, v)| v.as_f64());
            assert!(
                cost.is_some_and(|c| c > 0.0 && c.is_finite()),
                "{cmd} on {hw}: no energy cost in {}",
                r["results"]
            );
        }
    }
}

#[test]
fn two_parts_compare_under_achievable() {
    // The first comparison: every column answers.
    let r = cli_json(&[
        "decode",
        "--model",
        "llama-3-8b",
        "--hw",
        "h100-sxm,b200",
        "--batch",
        "32",
        "--context",
        "8192",
        "--achievable",
    ]);
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{r}");
    for row in rows {
        let t = row["results"]["step_time_s"].as_f64();
        assert!(t.is_some_and(|t| t > 0.0), "no answer in a column: {row}");
    }
}

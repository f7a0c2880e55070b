//! The speed of light below every H100 measurement the project holds
//! (issue 53, the bound with warm caches). The cold bound reads every
//! operand from HBM once a call; a call run back to back may find what it
//! streams still in the L2, so `warm_l2_time_s` (formulas.md, "The speed of
//! light with a warm L2") is the bound for any cache state. Both are held
//! below the GEMMs of validation/results/2026-12-07-h100/calibrate-h100.csv
//! and every decode step and prefill the H100 files in that folder
//! hold; the cold bound below every row not marked as run on warm weights.

use roofline::calc::matmul::{self, MatmulInputs};
use roofline::catalog::Catalog;
use roofline::inputs::Fields;
use roofline::query::{Context, evaluate};
use roofline::spec::hardware::Mode;
use serde_json::Value;

fn file(path: &str) -> Value {
    let p = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

/// Splits one CSV line, quotes honoured.
fn split_csv(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

#[test]
fn every_h100_gemm_is_above_the_bounds() {
    let hw = Catalog::default().hardware("h100-sxm", &[]).unwrap();
    let p = format!(
        "{}/validation/results/2026-12-07-h100/calibrate-h100.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(p).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (op, m, n, k, dt, sec, note) = (
        col("operation"),
        col("m"),
        col("n"),
        col("k"),
        col("dtype"),
        col("seconds"),
        col("note"),
    );
    let mut checked = 0;
    for line in lines {
        let c = split_csv(line);
        if c[op] != "gemm" {
            continue;
        }
        let u = |i: usize| c[i].parse::<u64>().unwrap();
        let meas: f64 = c[sec].parse().unwrap();
        let mut i = MatmulInputs::new(u(m), u(n), u(k));
        i.dtype = Some(c[dt].clone());
        i.tiles = Some(matmul::Tiles(Vec::new()));
        let cost = matmul::cost(&hw, &i, Mode::SpeedOfLight).unwrap();
        let id = format!("{} {}x{}x{} ({})", c[dt], c[m], c[n], c[k], c[note]);
        let warm = cost.warm.expect("the H100 file has the L2's bandwidth");
        assert!(
            warm.time_s <= meas,
            "{id}: warm bound {} s > {meas} s",
            warm.time_s
        );
        if !c[note].contains("warm") {
            assert!(
                cost.time_s <= meas,
                "{id}: cold bound {} s > {meas} s",
                cost.time_s
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 166);
}

/// A measured step: its command, its inputs, the seconds measured.
type Step = (&'static str, Vec<(&'static str, Value)>, f64);

/// The speed of light of a step: (cold, warm) seconds.
fn bounds(command: &str, pairs: &[(&str, Value)]) -> (f64, f64) {
    // A row measured on fewer layers than the model has (Mixtral on one
    // H100) is bounded with its layers.
    let sets: Vec<String> = pairs
        .iter()
        .filter(|(k, _)| *k == "layers")
        .map(|(_, v)| format!("model.layers={v}"))
        .collect();
    let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
    let ctx = Context::new(
        Catalog::default(),
        Context::parse_sets(&sets).unwrap(),
        Mode::SpeedOfLight,
    );
    let mut f = Fields::new();
    for (k, v) in pairs {
        if *k == "dtype" && v == "fp8" {
            f.insert("activations".into(), "fp8".into());
        }
        if *k != "layers" {
            f.insert((*k).into(), v.clone());
        }
    }
    f.insert("hw".into(), "h100-sxm".into());
    if command == "prefill" {
        // Chunks over caches longer than a model's context were measured.
        f.insert("force".into(), true.into());
    }
    let r = evaluate(&ctx, command, &f, &[], false).unwrap().remove(0);
    let cold = if command == "decode" {
        r.results["step_time_s"].as_f64().unwrap()
    } else {
        r.results["time_s"].as_f64().unwrap()
    };
    (cold, r.results["warm_l2_time_s"].as_f64().unwrap())
}

#[test]
fn every_h100_step_is_above_the_bounds() {
    let v2l = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/validation/models/deepseek-v2-lite.toml"
    );
    let oss = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/validation/models/gpt-oss-20b-bf16.toml"
    );
    let mut steps: Vec<Step> = Vec::new();
    let dtype = |r: &Value| r.get("dtype").cloned().unwrap_or("bf16".into());
    for name in [
        "validation/results/2026-12-07-h100/h100-serving-clean.json",
        "validation/results/2026-12-07-h100/h100-small-models.json",
    ] {
        let d = file(name);
        for r in d["decode"].as_array().unwrap() {
            for key in ["graph_s", "eager_s"] {
                steps.push((
                    "decode",
                    vec![
                        ("model", r["model"].clone()),
                        ("batch", r["batch"].clone()),
                        ("context", r["context"].clone()),
                        ("dtype", dtype(r)),
                        ("layers", r["layers"].clone()),
                    ],
                    r[key].as_f64().unwrap(),
                ));
            }
        }
        for r in d["prefill"].as_array().unwrap() {
            steps.push((
                "prefill",
                vec![
                    ("model", r["model"].clone()),
                    ("batch", r["batch"].clone()),
                    ("prompt", r["prompt"].clone()),
                    ("dtype", dtype(r)),
                    ("layers", r["layers"].clone()),
                ],
                r["time_s"].as_f64().unwrap(),
            ));
        }
        for r in d["chunk"].as_array().unwrap() {
            steps.push((
                "prefill",
                vec![
                    ("model", r["model"].clone()),
                    ("batch", r["batch"].clone()),
                    ("prompt", r["new_tokens"].clone()),
                    ("context", r["cached"].clone()),
                    ("dtype", dtype(r)),
                    ("layers", r["layers"].clone()),
                ],
                r["time_s"]
                    .as_f64()
                    .unwrap()
                    .min(r["graph_s"].as_f64().unwrap_or(f64::MAX)),
            ));
        }
    }
    for r in file("validation/results/2026-12-07-h100/h100-qwen3-decode.json")["decode"]
        .as_array()
        .unwrap()
    {
        steps.push((
            "decode",
            vec![
                ("model", "qwen3-8b".into()),
                ("batch", r["batch"].clone()),
                ("context", r["context"].clone()),
            ],
            r["graph_s"].as_f64().unwrap(),
        ));
    }
    for name in [
        "validation/results/2026-12-07-h100/h100a-multitoken-steps.json",
        "validation/results/2026-12-07-h100/h100b-multitoken-steps.json",
    ] {
        for r in file(name)["steps"].as_array().unwrap() {
            let mut i = vec![
                ("model", Value::from("qwen3-8b")),
                ("batch", r["batch"].clone()),
                ("context", r["cached"].clone()),
            ];
            let q = r["new_tokens"].as_u64().unwrap();
            if q > 1 {
                i.push(("acceptance", 0.5.into()));
                i.push(("draft-tokens", (q - 1).into()));
                i.push(("draft-cost", 0.0.into()));
            }
            steps.push(("decode", i, r["graph_s"].as_f64().unwrap()));
        }
    }
    for name in [
        "validation/results/2026-12-07-h100/h100a-mla-steps.json",
        "validation/results/2026-12-07-h100/h100b-mla-steps.json",
    ] {
        let d = file(name);
        for r in d["decode"].as_array().unwrap() {
            steps.push((
                "decode",
                vec![
                    ("model", v2l.into()),
                    ("batch", r["batch"].clone()),
                    ("context", r["context"].clone()),
                ],
                r["graph_s"].as_f64().unwrap(),
            ));
        }
        for r in d["prefill"].as_array().unwrap() {
            steps.push((
                "prefill",
                vec![
                    ("model", v2l.into()),
                    ("batch", r["batch"].clone()),
                    ("prompt", r["prompt"].clone()),
                ],
                r["eager_s"].as_f64().unwrap(),
            ));
        }
    }
    for r in file("validation/results/2026-12-07-h100/h100c-families.json")["prefill"]
        .as_array()
        .unwrap()
    {
        steps.push((
            "prefill",
            vec![
                ("model", oss.into()),
                ("batch", r["batch"].clone()),
                ("prompt", r["prompt"].clone()),
            ],
            r["eager_s"].as_f64().unwrap(),
        ));
    }
    assert!(steps.len() > 150, "{}", steps.len());
    for (command, inputs, meas) in &steps {
        let (cold, warm) = bounds(command, inputs);
        assert!(
            warm <= *meas,
            "{command} {inputs:?}: warm bound {warm} s > {meas} s"
        );
        assert!(
            cold <= *meas,
            "{command} {inputs:?}: cold bound {cold} s > {meas} s"
        );
        assert!(warm <= cold * (1.0 + 1e-12), "{command} {inputs:?}");
    }
}

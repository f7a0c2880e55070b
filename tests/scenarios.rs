//! Every scenario in `scenarios/` runs, and its output is snapshotted, so
//! a saved study that stops working (or changes its numbers) fails here.

use std::process::Command;

#[test]
fn every_scenario_runs() {
    insta::glob!("../scenarios", "*.toml", |path| {
        let out_dir = std::env::temp_dir().join(format!(
            "roofline-scenario-{}-{}",
            std::process::id(),
            path.file_stem().unwrap().to_string_lossy()
        ));
        std::fs::create_dir_all(&out_dir).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_roofline"))
            .arg("run")
            .arg(path)
            .arg("--out-dir")
            .arg(&out_dir)
            .arg("--format")
            .arg("markdown")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", path.display());
        let text = String::from_utf8(out.stdout).unwrap();
        // The command lines name the output folder, which differs per run.
        let text = text.replace(&out_dir.display().to_string(), "OUT");
        insta::assert_snapshot!(text);
        let _ = std::fs::remove_dir_all(&out_dir);
    });
}

#[test]
fn json_is_one_document_with_a_report_per_query() {
    let out = Command::new(env!("CARGO_BIN_EXE_roofline"))
        .args([
            "run",
            "scenarios/lecture-tiling-table.toml",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let q = v["queries"].as_array().unwrap();
    assert_eq!(q.len(), 2);
    // 002 §7.8: BLOCK 128 moves 2.15 GB of HBM traffic at 4096^3 bf16.
    let rows = q[0]["report"]["rows"].as_array().unwrap();
    let at128 = rows
        .iter()
        .find(|r| r["inputs"]["tile"] == 128 || r["inputs"]["tile"] == "128")
        .expect("a row for tile 128");
    let bytes = at128["results"]["tiled_bytes"].as_f64().unwrap();
    assert!((bytes - 2.15e9).abs() / 2.15e9 < 0.005, "{bytes}");
}

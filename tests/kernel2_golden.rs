//! Golden cases of the `fusion` and `launch-overhead` topics
//! (../shared/golden/seed_cases.toml); the matmul topics (`matmul-naive`,
//! `tiled-matmul`, `tile-feasibility`, `wave-quantization`,
//! `tensor-core-util`) are in tests/matmul.rs. Each check names its case id;
//! expected values and tolerances are the golden file's. Cases marked
//! `inconsistent` assert the right number (`computed`) and are listed in
//! docs/errata.md. Cases no command computes are listed at the end with the
//! reason.

use roofline::calc::fusion::{self, FusionOptions};
use roofline::calc::launch::{self, LaunchParams, Overhead};
use roofline::catalog::Catalog;
use roofline::report::Report;
use roofline::spec::hardware::Hardware;

fn hw(id: &str) -> Hardware {
    Catalog::default()
        .hardware(id, &[])
        .expect("hardware loads")
}

fn fixture(name: &str) -> Hardware {
    let path = format!(
        "{}/tests/data/kernel2/{name}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    Catalog::default()
        .hardware(&path, &[])
        .expect("fixture loads")
}

/// |actual - expected| <= tol * |expected|, the golden file's rule.
fn check(id: &str, actual: f64, expected: f64, tol: f64) {
    let ok = (actual - expected).abs() <= tol * expected.abs() + 1e-12 * expected.abs().max(1.0);
    assert!(
        ok,
        "{id}: got {actual}, expected {expected} (tolerance {tol})"
    );
}

fn num(r: &Report, key: &str) -> f64 {
    r.number(key)
        .unwrap_or_else(|| panic!("{} has no numeric `{key}`", r.command))
}

const KIB: f64 = 1024.0;

fn fopts() -> FusionOptions {
    FusionOptions {
        dtype: Some("bf16".into()),
        ..FusionOptions::default()
    }
}

#[test]
fn fused_softmax_002_s7_10() {
    let r = fusion::softmax(&hw("h100-sxm"), 4096, 4096, 5.0, &fopts()).unwrap();
    check(
        "lec-7.10-traversal-bytes",
        num(&r, "traversal_bytes"),
        33.55e6,
        0.001,
    );
    check(
        "lec-7.10-unfused-bytes",
        num(&r, "unfused_bytes"),
        167.8e6,
        0.001,
    );
    check(
        "lec-7.10-unfused-time",
        num(&r, "unfused_time_s") * 1e6,
        50.1,
        0.002,
    );
    check(
        "lec-7.10-fused-bytes",
        num(&r, "fused_bytes"),
        67.1e6,
        0.001,
    );
    check(
        "lec-7.10-fused-time",
        num(&r, "fused_time_s") * 1e6,
        20.0,
        0.003,
    );
    check("lec-7.10-fusion-ratio", num(&r, "speedup"), 2.5, 0.0);
    check("lec-7.10-row-bytes", num(&r, "row_bytes") / KIB, 8.0, 0.0);
    check(
        "lec-7.10-softmax-intensity",
        num(&r, "intensity"),
        1.25,
        0.0,
    );
    check(
        "lec-7.10-softmax-vs-ridge",
        num(&r, "ridge_vs_intensity"),
        236.0,
        0.002,
    );
    // The ratio is independent of S.
    let r = fusion::softmax(&hw("h100-sxm"), 1000, 777, 5.0, &fopts()).unwrap();
    check("softmax 2.5x at any size", num(&r, "speedup"), 2.5, 1e-12);
}

#[test]
fn epilogue_roundtrip_002_s7_10() {
    let r = fusion::epilogue(&hw("h100-sxm"), 32768, 11008, 32, 1.0, &fopts()).unwrap();
    check(
        "lec-7.10-activation-roundtrip-bytes",
        num(&r, "roundtrip_bytes"),
        1.443e9,
        0.001,
    );
    check(
        "lec-7.10-activation-roundtrip-time",
        num(&r, "roundtrip_time_s") * 1e3,
        0.43,
        0.005,
    );
    check(
        "lec-7.10-activation-roundtrip-layers",
        num(&r, "roundtrip_time_s_all_layers") * 1e3,
        13.8,
        0.005,
    );
    check(
        "fusion deletes exactly the round-trip",
        num(&r, "bytes_saved"),
        num(&r, "roundtrip_bytes"),
        1e-12,
    );
}

#[test]
fn merge_attn_states_004() {
    // [32 tokens, 32 heads, 128] bf16: two reads and one write.
    let opts = FusionOptions {
        overhead_s: Some(1e-6),
        ..fopts()
    };
    let r = fusion::chain(&hw("h100-sxm"), 1, 32 * 32 * 128, 2, 1.0, &opts).unwrap();
    check("ch-merge-bytes", num(&r, "fused_bytes"), 786432.0, 0.0);
    check(
        "ch-merge-bytes-MB",
        num(&r, "fused_bytes") / 1e6,
        0.79,
        0.005,
    );
    let no_launch = fusion::chain(&hw("h100-sxm"), 1, 32 * 32 * 128, 2, 1.0, &fopts()).unwrap();
    check(
        "ch-merge-hbm-time",
        num(&no_launch, "fused_time_s") * 1e6,
        0.24,
        0.025,
    );
    check(
        "ch-merge-launch-vs-work",
        num(&r, "launch_vs_work"),
        4.26,
        0.01,
    );
}

#[test]
fn elementwise_chain() {
    // Three single-input elementwise kernels: 3 reads + 3 writes against
    // 1 + 1, so 3x.
    let r = fusion::chain(&hw("h100-sxm"), 3, 1 << 20, 1, 1.0, &fopts()).unwrap();
    check(
        "chain unfused",
        num(&r, "unfused_bytes"),
        6.0 * 2.0 * 1048576.0,
        0.0,
    );
    check(
        "chain fused",
        num(&r, "fused_bytes"),
        2.0 * 2.0 * 1048576.0,
        0.0,
    );
    check("chain speedup", num(&r, "speedup"), 3.0, 1e-12);
}

fn eager(us: f64) -> Overhead {
    Overhead {
        mode: "eager".into(),
        per_kernel_s: us * 1e-6,
        derivation: "--overhead".into(),
    }
}

#[test]
fn exercise_5_decode_launches_002() {
    let p = LaunchParams {
        kernels: Some(490),
        floor_s: Some(4.0e-3),
        fuse_factor: Some(3.0),
        ..LaunchParams::default()
    };
    let r = launch::launch(None, &p, &[eager(5.0)]).unwrap();
    check(
        "lec-ex5-dispatch",
        num(&r, "launch_time_s") * 1e3,
        2.45,
        1e-12,
    );
    check(
        "lec-7.10-decode-launch-time",
        num(&r, "launch_time_s") * 1e3,
        2.45,
        1e-12,
    );
    check("lec-ex5-step", num(&r, "step_time_s") * 1e3, 6.45, 1e-12);
    check(
        "lec-ex5-dispatch-share",
        num(&r, "launch_fraction") * 100.0,
        38.0,
        0.002,
    );
    check(
        "lec-ex5-fused-launches",
        num(&r, "fused_kernels_per_step"),
        163.0,
        0.003,
    );
    check("lec-ex5-saved", num(&r, "saved_time_s") * 1e3, 1.64, 0.004);
    check(
        "lec-ex5-saved-frac",
        num(&r, "saved_fraction") * 100.0,
        25.0,
        0.02,
    );
    // lec-ex5-landing is inconsistent: the text prints 4.65 ms; the right
    // figure is 4.0 + 163 * 0.005 = 4.815 ms (docs/errata.md).
    check(
        "lec-ex5-landing",
        num(&r, "fused_step_time_s") * 1e3,
        4.815,
        1e-9,
    );
    // lec-ex5-vs-floor is inconsistent: the text's 16% follows its 4.65;
    // 4.815 / 4.0 - 1 = 20.375% (docs/errata.md).
    check(
        "lec-ex5-vs-floor",
        num(&r, "fused_vs_floor") * 100.0,
        20.375,
        1e-9,
    );
    // The same with --fused-kernels 163.
    let p = LaunchParams {
        kernels: Some(490),
        floor_s: Some(4.0e-3),
        fused_kernels: Some(163),
        ..LaunchParams::default()
    };
    let r = launch::launch(None, &p, &[eager(5.0)]).unwrap();
    check(
        "lec-ex5-landing (--fused-kernels)",
        num(&r, "fused_step_time_s") * 1e3,
        4.815,
        1e-9,
    );
}

#[test]
fn lecture_launch_cost_from_hardware() {
    // hw-launch-cost-lecture2: h100-sxm's launch.eager is the lecture's 5 us.
    let h = hw("h100-sxm");
    let e = h.launch.as_ref().and_then(|l| l.eager).unwrap().get();
    check("hw-launch-cost-lecture2", e * 1e6, 5.0, 0.0);
}

#[test]
fn v100_cuda_graphs_004() {
    check(
        "ch-launch-overhead-sync",
        launch::overhead_from_timing(9.6e-6, 2.9e-6).unwrap() * 1e6,
        6.7,
        0.001,
    );
    check(
        "ch-launch-overhead-graph",
        launch::overhead_from_timing(3.4e-6, 2.9e-6).unwrap() * 1e6,
        0.5,
        0.001,
    );
    check(
        "ch-launch-overhead-pipelined",
        launch::overhead_from_timing(3.8e-6, 2.9e-6).unwrap() * 1e6,
        0.9,
        0.001,
    );
    assert!(launch::overhead_from_timing(2.0e-6, 2.9e-6).is_err());
    check(
        "ch-v100-launch-blocks",
        launch::grid_blocks(500_000, 512) as f64,
        977.0,
        0.0,
    );
    // The fixture carries the subtracted figures; 12 kernels x 32 layers.
    let p = LaunchParams {
        kernels_per_layer: Some(12),
        layers: Some(32),
        ..LaunchParams::default()
    };
    let v = fixture("v100");
    let l = v.launch.as_ref().unwrap();
    let ov = |m: &str, s: f64| Overhead {
        mode: m.into(),
        per_kernel_s: s,
        derivation: String::new(),
    };
    let modes = [
        ov("eager", l.eager.unwrap().get()),
        ov("synchronised", l.synchronised.unwrap().get()),
        ov("graph", l.graph.unwrap().get()),
    ];
    let r = launch::launch(Some("v100"), &p, &modes).unwrap();
    check(
        "ch-kernels-per-decode-step",
        num(&r, "kernels_per_step"),
        400.0,
        0.05,
    );
    check(
        "ch-launches-per-token",
        num(&r, "kernels_per_step"),
        400.0,
        0.05,
    );
    // ch-launch-step-pipelined and -sync use the text's rounded 400.
    let p = LaunchParams {
        kernels: Some(400),
        ..LaunchParams::default()
    };
    let r = launch::launch(Some("v100"), &p, &modes).unwrap();
    check(
        "ch-launch-step-pipelined",
        num(&r, "launch_time_s") * 1e6,
        360.0,
        0.001,
    );
    let sync = r
        .rows
        .iter()
        .find(|x| x.inputs["mode"] == "synchronised")
        .unwrap();
    check(
        "ch-launch-step-sync",
        sync.results["launch_time_s"].as_f64().unwrap() * 1e3,
        2.7,
        0.01,
    );
}

#[test]
fn h200_measured_launch() {
    // ../shared/ground/h200-measured.json: 7.0 us eager, 0.94 us graph.
    let p = LaunchParams {
        kernels: Some(400),
        ..LaunchParams::default()
    };
    let g = Overhead {
        mode: "graph".into(),
        per_kernel_s: 0.94e-6,
        derivation: String::new(),
    };
    let r = launch::launch(None, &p, &[eager(7.0), g]).unwrap();
    check(
        "H200 eager, 400 launches",
        num(&r, "launch_time_s") * 1e3,
        2.8,
        1e-9,
    );
    let graph = r.rows.iter().find(|x| x.inputs["mode"] == "graph").unwrap();
    check(
        "H200 graph, 400 launches",
        graph.results["launch_time_s"].as_f64().unwrap() * 1e6,
        376.0,
        1e-9,
    );
}

// Golden cases of these topics that no command computes, and why (those
// of the matmul topics are listed in tests/matmul.rs, `SKIPPED`):
// - book-2.1-online-softmax-accesses: access counts of two softmax kernels
//   inside one pass, quoted from a kernel description, not a traffic model.
// - ch-kernels-per-layer: a count of the kernels listed in the text; it is
//   the --kernels-per-layer input (12), exercised above.
// - lec-7.10-training-launches, lec-7.10-launch-bound-threshold: quoted from
//   another lecture, with nothing to compute.

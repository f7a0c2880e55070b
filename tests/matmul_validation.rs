//! `matmul` against the cuBLAS GEMMs measured on an H200
//! (validation/results/2026-11-30-h200/h200-gemm.json, from validation/gemm.py; DRAM bytes in
//! validation/results/2026-11-30-h200/h200-gemm-dram.json, from Nsight Compute through
//! validation/gemm_compare.py). One test per measured shape asserts what
//! issue 12 asks of the L2-aware model (formulas.md, "Matmul through the
//! L2"):
//!
//! - `time_s` at datasheet peaks is a true lower bound: prediction <=
//!   measurement, for every GEMM;
//! - for GEMMs of 100 GFLOP or more the measurement is within 2x of it,
//!   and `--achievable`'s `time_s` is within 25% of the measurement.
//!
//! The DRAM tests check the traffic model itself: the operand reads it
//! predicts with the tile cuBLAS chose are at most what Nsight Compute
//! counted. `every_measurement_has_a_test` keeps the case lists and the
//! committed JSON in step.

use roofline::calc::matmul::{self, MatmulCost, MatmulInputs};
use roofline::catalog::Catalog;
use roofline::inputs::Count;
use roofline::spec::hardware::{Hardware, Mode};
use serde_json::Value;
use std::sync::OnceLock;

/// GEMMs of this many FLOPs or more get the 2x and 25% bands.
const LARGE: f64 = 100e9;

fn h200() -> &'static Hardware {
    static HW: OnceLock<Hardware> = OnceLock::new();
    HW.get_or_init(|| Catalog::default().hardware("h200-sxm", &[]).unwrap())
}

fn load(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/validation/results/2026-11-30-h200/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let v: Value = serde_json::from_str(&text).unwrap();
    v["gemm"].as_array().unwrap().clone()
}

fn times() -> &'static [Value] {
    static T: OnceLock<Vec<Value>> = OnceLock::new();
    T.get_or_init(|| load("h200-gemm.json"))
}

fn dram() -> &'static [Value] {
    static T: OnceLock<Vec<Value>> = OnceLock::new();
    T.get_or_init(|| load("h200-gemm-dram.json"))
}

fn find<'a>(rows: &'a [Value], dtype: &str, m: u64, n: u64, k: u64) -> &'a Value {
    rows.iter()
        .find(|r| {
            r["dtype"] == dtype
                && r["M"] == m
                && r["N"] == n
                && r["K"] == k
                && r.get("error").is_none()
        })
        .unwrap_or_else(|| panic!("no measurement of {dtype} {m}x{n}x{k}"))
}

fn predict(dtype: &str, m: u64, n: u64, k: u64, mode: Mode) -> MatmulCost {
    let mut i = MatmulInputs::new(m, n, k);
    i.dtype = Some(dtype.into());
    i.tiles = Some(matmul::Tiles(Vec::new()));
    matmul::cost(h200(), &i, mode).unwrap()
}

fn time_against_measured(dtype: &str, m: u64, n: u64, k: u64) {
    let meas = find(times(), dtype, m, n, k)["s"].as_f64().unwrap();
    let c = predict(dtype, m, n, k, Mode::SpeedOfLight);
    let id = format!("{dtype} {m}x{n}x{k}");
    assert!(
        c.time_s <= meas,
        "{id}: the lower bound {} s exceeds the measured {meas} s",
        c.time_s
    );
    // The bound follows the L2 traffic, never below each operand once.
    assert!(c.traffic.bytes >= c.minimal_bytes * (1.0 - 1e-12), "{id}");
    // The warm-L2 bound holds too, and never above the cold one
    // (formulas.md, "The speed of light with a warm L2"; issue 53).
    let w = c.warm.expect("the H200 file has the L2's bandwidth");
    assert!(w.time_s <= meas, "{id}: warm bound {} s", w.time_s);
    assert!(w.time_s <= c.time_s * (1.0 + 1e-12), "{id}");
    if c.flops >= LARGE {
        assert!(
            meas <= 2.0 * c.time_s,
            "{id}: measured {meas} s is more than 2x the bound {} s",
            c.time_s
        );
        let a = predict(dtype, m, n, k, Mode::Achievable);
        let r = meas / a.time_s;
        assert!(
            (0.75..=1.25).contains(&r),
            "{id}: --achievable {} s is not within 25% of the measured {meas} s ({r})",
            a.time_s
        );
    }
}

fn dram_against_measured(dtype: &str, m: u64, n: u64, k: u64) {
    let g = find(dram(), dtype, m, n, k);
    let read = g["dram_read_bytes"].as_f64().unwrap();
    let field = |f: &str| Some(Count(g[f].as_u64().unwrap()));
    let mut i = MatmulInputs::new(m, n, k);
    i.dtype = Some(dtype.into());
    i.tiles = Some(matmul::Tiles(Vec::new()));
    i.tile_m = field("tile_m");
    i.tile_n = field("tile_n");
    i.tile_k = field("tile_k");
    i.stages = field("stages");
    let c = matmul::cost(h200(), &i, Mode::SpeedOfLight).unwrap();
    let id = format!("{dtype} {m}x{n}x{k} ({:?})", g["kernels"]);
    // Sector rounding aside (0.1%), the reads are at least the prediction.
    assert!(
        c.traffic.operand_bytes <= read * 1.001,
        "{id}: predicted operand reads {} B exceed the measured {read} B",
        c.traffic.operand_bytes
    );
    // And the L2 level is the closer figure: never more than the
    // single-tile one, which overstates the reads of every large GEMM.
    assert!(c.traffic.operand_bytes <= c.tile.tiled_bytes, "{id}");
}

macro_rules! time_cases {
    ($($name:ident: $d:expr, $m:expr, $n:expr, $k:expr;)*) => {
        $(#[test] fn $name() { time_against_measured($d, $m, $n, $k); })*
        const TIME_CASES: &[(&str, u64, u64, u64)] = &[$(($d, $m, $n, $k)),*];
    };
}

macro_rules! dram_cases {
    ($($name:ident: $d:expr, $m:expr, $n:expr, $k:expr;)*) => {
        $(#[test] fn $name() { dram_against_measured($d, $m, $n, $k); })*
        const DRAM_CASES: &[(&str, u64, u64, u64)] = &[$(($d, $m, $n, $k)),*];
    };
}

time_cases! {
    bf16_1024_1024_1024: "bf16", 1024, 1024, 1024;
    bf16_2048_2048_2048: "bf16", 2048, 2048, 2048;
    bf16_4096_4096_4096: "bf16", 4096, 4096, 4096;
    bf16_8192_8192_8192: "bf16", 8192, 8192, 8192;
    bf16_16384_16384_16384: "bf16", 16384, 16384, 16384;
    bf16_16384_1024_16384: "bf16", 16384, 1024, 16384;
    bf16_1024_16384_16384: "bf16", 1024, 16384, 16384;
    bf16_4096_4096_65536: "bf16", 4096, 4096, 65536;
    bf16_1024_1024_65536: "bf16", 1024, 1024, 65536;
    bf16_16384_16384_1024: "bf16", 16384, 16384, 1024;
    bf16_4096_14336_4096: "bf16", 4096, 14336, 4096;
    bf16_4096_4096_14336: "bf16", 4096, 4096, 14336;
    bf16_1_4096_4096: "bf16", 1, 4096, 4096;
    bf16_2_4096_4096: "bf16", 2, 4096, 4096;
    bf16_4_4096_4096: "bf16", 4, 4096, 4096;
    bf16_8_4096_4096: "bf16", 8, 4096, 4096;
    bf16_16_4096_4096: "bf16", 16, 4096, 4096;
    bf16_32_4096_4096: "bf16", 32, 4096, 4096;
    bf16_64_4096_4096: "bf16", 64, 4096, 4096;
    bf16_128_4096_4096: "bf16", 128, 4096, 4096;
    bf16_256_4096_4096: "bf16", 256, 4096, 4096;
    bf16_512_4096_4096: "bf16", 512, 4096, 4096;
    bf16_1_14336_4096: "bf16", 1, 14336, 4096;
    bf16_2_14336_4096: "bf16", 2, 14336, 4096;
    bf16_4_14336_4096: "bf16", 4, 14336, 4096;
    bf16_8_14336_4096: "bf16", 8, 14336, 4096;
    bf16_16_14336_4096: "bf16", 16, 14336, 4096;
    bf16_32_14336_4096: "bf16", 32, 14336, 4096;
    bf16_64_14336_4096: "bf16", 64, 14336, 4096;
    bf16_128_14336_4096: "bf16", 128, 14336, 4096;
    bf16_256_14336_4096: "bf16", 256, 14336, 4096;
    bf16_512_14336_4096: "bf16", 512, 14336, 4096;
    bf16_1_4096_14336: "bf16", 1, 4096, 14336;
    bf16_2_4096_14336: "bf16", 2, 4096, 14336;
    bf16_4_4096_14336: "bf16", 4, 4096, 14336;
    bf16_8_4096_14336: "bf16", 8, 4096, 14336;
    bf16_16_4096_14336: "bf16", 16, 4096, 14336;
    bf16_32_4096_14336: "bf16", 32, 4096, 14336;
    bf16_64_4096_14336: "bf16", 64, 4096, 14336;
    bf16_128_4096_14336: "bf16", 128, 4096, 14336;
    bf16_256_4096_14336: "bf16", 256, 4096, 14336;
    bf16_512_4096_14336: "bf16", 512, 4096, 14336;
    fp8_4096_4096_4096: "fp8", 4096, 4096, 4096;
    fp8_8192_8192_8192: "fp8", 8192, 8192, 8192;
    fp8_16384_16384_16384: "fp8", 16384, 16384, 16384;
    fp8_16384_1024_16384: "fp8", 16384, 1024, 16384;
    fp8_1024_16384_16384: "fp8", 1024, 16384, 16384;
    fp8_4096_4096_65536: "fp8", 4096, 4096, 65536;
    fp8_16384_16384_1024: "fp8", 16384, 16384, 1024;
    fp8_4096_14336_4096: "fp8", 4096, 14336, 4096;
    fp8_16_14336_4096: "fp8", 16, 14336, 4096;
    fp8_32_14336_4096: "fp8", 32, 14336, 4096;
    fp8_64_14336_4096: "fp8", 64, 14336, 4096;
    fp8_128_14336_4096: "fp8", 128, 14336, 4096;
    fp8_256_14336_4096: "fp8", 256, 14336, 4096;
    fp8_512_14336_4096: "fp8", 512, 14336, 4096;
    fp8_16_4096_4096: "fp8", 16, 4096, 4096;
    fp8_64_4096_4096: "fp8", 64, 4096, 4096;
    fp8_256_4096_4096: "fp8", 256, 4096, 4096;
    fp8_512_4096_4096: "fp8", 512, 4096, 4096;
}

dram_cases! {
    dram_bf16_8192_8192_8192: "bf16", 8192, 8192, 8192;
    dram_bf16_4096_4096_4096: "bf16", 4096, 4096, 4096;
    dram_bf16_16384_1024_16384: "bf16", 16384, 1024, 16384;
    dram_bf16_1024_16384_16384: "bf16", 1024, 16384, 16384;
    dram_bf16_4096_4096_65536: "bf16", 4096, 4096, 65536;
    dram_bf16_1024_1024_65536: "bf16", 1024, 1024, 65536;
    dram_bf16_16384_16384_1024: "bf16", 16384, 16384, 1024;
    dram_bf16_4096_14336_4096: "bf16", 4096, 14336, 4096;
    dram_bf16_1_14336_4096: "bf16", 1, 14336, 4096;
    dram_bf16_64_14336_4096: "bf16", 64, 14336, 4096;
    dram_bf16_512_14336_4096: "bf16", 512, 14336, 4096;
    dram_bf16_512_4096_4096: "bf16", 512, 4096, 4096;
    dram_fp8_8192_8192_8192: "fp8", 8192, 8192, 8192;
    dram_fp8_1024_16384_16384: "fp8", 1024, 16384, 16384;
    dram_fp8_128_14336_4096: "fp8", 128, 14336, 4096;
}

#[test]
fn every_measurement_has_a_test() {
    let key = |r: &Value| {
        (
            r["dtype"].as_str().unwrap().to_string(),
            r["M"].as_u64().unwrap(),
            r["N"].as_u64().unwrap(),
            r["K"].as_u64().unwrap(),
        )
    };
    let listed = |cases: &[(&str, u64, u64, u64)]| -> Vec<_> {
        cases
            .iter()
            .map(|(d, m, n, k)| (d.to_string(), *m, *n, *k))
            .collect()
    };
    let mut measured: Vec<_> = times()
        .iter()
        .filter(|r| r.get("error").is_none())
        .map(key)
        .collect();
    let mut cases = listed(TIME_CASES);
    measured.sort();
    cases.sort();
    assert_eq!(measured, cases, "h200-gemm.json and TIME_CASES differ");
    let mut probed: Vec<_> = dram().iter().map(key).collect();
    let mut cases = listed(DRAM_CASES);
    probed.sort();
    cases.sort();
    assert_eq!(probed, cases, "h200-gemm-dram.json and DRAM_CASES differ");
}

#[test]
fn decode_gemms_stream_the_weights() {
    // M from 1 to 128 against Llama-sized weights: memory-bound at the
    // compulsory level, the weights nearly all of the traffic, and the time
    // the weight bytes over the bandwidth (within the activations' share).
    for (n, k) in [(4096, 4096), (14336, 4096), (4096, 14336)] {
        for m in [1, 8, 32, 128] {
            let c = predict("bf16", m, n, k, Mode::SpeedOfLight);
            let id = format!("bf16 {m}x{n}x{k}");
            assert!(c.weight_streaming, "{id}: not weight-streaming");
            assert_eq!(c.traffic.level, matmul::TrafficLevel::Compulsory, "{id}");
            let weights_time = c.weight_bytes / c.roof.bandwidth;
            assert!(
                c.time_s >= weights_time && c.time_s <= 1.1 * weights_time,
                "{id}: {} s against {weights_time} s of weights",
                c.time_s
            );
            let r = c.report(false);
            assert_eq!(r.results["weight_streaming"], true, "{id}");
            assert!(
                r.notes.iter().any(|n| n.starts_with("weight-streaming")),
                "{id}"
            );
        }
    }
}

#[test]
fn the_issue_8192_cube_is_compute_bound_at_the_l2_level() {
    // Issue 12: 8192^3 bf16 at tile 128 on the H200 answered 3.58 ms
    // memory-bound (the single-tile figure, kept as tile_time_s); through
    // the L2 it is compute-bound at FLOPs / peak = 1.112 ms.
    let mut i = MatmulInputs::new(8192, 8192, 8192).with_tile(128);
    i.tiles = Some(matmul::Tiles(Vec::new()));
    let c = matmul::cost(h200(), &i, Mode::SpeedOfLight).unwrap();
    assert!((c.tile.time.time_s * 1e3 - 3.58).abs() < 0.01);
    assert!((c.time_s * 1e3 - 1.112).abs() < 0.001, "{}", c.time_s);
    assert_eq!(c.bound, roofline::calc::roof::Bound::Compute);
    assert_eq!(c.traffic.level, matmul::TrafficLevel::L2);
    let r = c.report(false);
    assert_eq!(r.results["traffic_level"], "l2");
    assert_eq!(r.results["tile_bound"], "memory");
    assert_eq!(r.results["bound"], "compute");
}

#[test]
fn the_issue_h100_fp8_gemm_is_above_the_warm_bound() {
    // Issue 53: on an H100, an fp8 32x6144x4096 GEMM ran in 7.45 us back
    // to back, under the cold (HBM) speed of light. By hand: each operand
    // once, 32x4096 + 4096x6144 + 32x6144 bytes = 25,493,504 B, 25.5 MB,
    // inside the 50 MB L2; at the L2's 4.23 x 3.35 TB/s = 14.2 TB/s that
    // is 1.795 us; the compute, 2x32x6144x4096 / 1979 TFLOP/s = 0.814 us.
    let hw = Catalog::default().hardware("h100-sxm", &[]).unwrap();
    let mut i = MatmulInputs::new(32, 6144, 4096);
    i.dtype = Some("fp8".into());
    i.tiles = Some(matmul::Tiles(Vec::new()));
    let c = matmul::cost(&hw, &i, Mode::SpeedOfLight).unwrap();
    assert!(c.time_s > 7.45e-6, "the cold bound {} s", c.time_s);
    let w = c.warm.unwrap();
    assert!(w.resident);
    assert_eq!(w.hbm_s, 0.0);
    assert!(
        (w.l2_s - 25_493_504.0 / 14.2e12).abs() < 1e-12,
        "{}",
        w.l2_s
    );
    assert!(
        (w.compute_s - 0.8138e-6).abs() < 0.001e-6,
        "{}",
        w.compute_s
    );
    assert!((w.time_s - 1.7953e-6).abs() < 0.001e-6, "{}", w.time_s);
    assert!(w.time_s <= 7.45e-6);
    // Measured figures price no bound.
    i.launch = Some("none".into());
    assert!(
        matmul::cost(&hw, &i, Mode::Achievable)
            .unwrap()
            .warm
            .is_none()
    );
}

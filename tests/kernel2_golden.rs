//! Golden cases of the `matmul-naive`, `tiled-matmul`, `tile-feasibility`,
//! `wave-quantization` and `tensor-core-util` topics (`fusion` and
//! `launch-overhead` are in tests/fusion.rs and tests/launch.rs) (../shared/golden/seed_cases.toml). Each check names its case id;
//! expected values and tolerances are the golden file's. Cases marked
//! `inconsistent` assert the right number (`computed`) and are listed in
//! docs/errata.md. Cases no command computes are listed at the end with the
//! reason.

use roofline::calc::matmul::{self, MatmulParams};
use roofline::catalog::Catalog;
use roofline::report::Report;
use roofline::spec::hardware::Hardware;

fn hw(id: &str) -> Hardware {
    Catalog::default()
        .hardware(id, &[])
        .expect("hardware loads")
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

fn mm(m: u64, n: u64, k: u64, tile: u64) -> MatmulParams {
    MatmulParams {
        m,
        n,
        k,
        tile_m: tile,
        tile_n: tile,
        ..MatmulParams::default()
    }
}

fn run(p: &MatmulParams) -> Report {
    matmul::matmul(&hw("h100-sxm"), p).expect("matmul")
}

const KIB: f64 = 1024.0;

#[test]
fn naive_matmul_4096_002_s7_8() {
    let r = run(&mm(4096, 4096, 4096, 128));
    check(
        "lec-7.8-naive-intensity",
        num(&r, "naive_intensity"),
        0.5,
        0.0,
    );
    check(
        "lec-7.8-naive-attainable",
        num(&r, "naive_attainable_flops_per_s"),
        1.68e12,
        0.005,
    );
    check(
        "lec-7.8-naive-frac",
        num(&r, "naive_fraction_of_peak") * 100.0,
        0.17,
        0.01,
    );
    check("lec-7.8-4096-flops", num(&r, "flops"), 137.4e9, 0.001);
    check(
        "lec-7.8-4096-naive-bytes",
        num(&r, "naive_bytes"),
        274.9e9,
        0.001,
    );
    check(
        "lec-7.8-4096-naive-time",
        num(&r, "naive_time_s") * 1e3,
        82.0,
        0.005,
    );
    check(
        "lec-7.8-naive-vs-floor",
        num(&r, "naive_vs_floor"),
        590.0,
        0.003,
    );
    // The compute floor the issue quotes (0.139 ms) and the bound.
    check(
        "lec-7.8 floor",
        num(&r, "compute_time_s") * 1e3,
        0.139,
        0.005,
    );
    assert_eq!(r.results["bound"], "memory");
}

#[test]
fn b_mnk_factor_lec_7_8_4096_bmnk() {
    // lec-7.8-4096-bMNK: b*MNK is the tiled formula's prefactor, i.e. the
    // tiled bytes at BM = BN = 2 (1/2 + 1/2 = 1).
    check(
        "lec-7.8-4096-bMNK",
        matmul::tiled_bytes(4096, 4096, 4096, 2, 2, 2.0),
        137.4e9,
        0.001,
    );
}

// The lecture's table, one case id per cell:
//   lec-7.8-tiled-4096-block32-bytes, lec-7.8-tiled-4096-block32-intensity
//   lec-7.8-tiled-4096-block32-attainable, lec-7.8-tiled-4096-block32-time, lec-7.8-tiled-4096-block32-vs-naive
//   lec-7.8-tiled-4096-block64-bytes, lec-7.8-tiled-4096-block64-intensity
//   lec-7.8-tiled-4096-block64-attainable, lec-7.8-tiled-4096-block64-time, lec-7.8-tiled-4096-block64-vs-naive
//   lec-7.8-tiled-4096-block128-bytes, lec-7.8-tiled-4096-block128-intensity
//   lec-7.8-tiled-4096-block128-attainable, lec-7.8-tiled-4096-block128-time, lec-7.8-tiled-4096-block128-vs-naive
//   lec-7.8-tiled-4096-block256-bytes, lec-7.8-tiled-4096-block256-intensity
//   lec-7.8-tiled-4096-block256-attainable, lec-7.8-tiled-4096-block256-time, lec-7.8-tiled-4096-block256-vs-naive
#[test]
fn tiled_table_4096_002_s7_8() {
    // (tile, bytes, bytes tol, intensity, attainable TFLOP/s, time ms)
    let table = [
        ("block32", 32, 8.59e9, 0.006, 16.0, 53.6, 2.56),
        ("block64", 64, 4.29e9, 0.006, 32.0, 107.0, 1.28),
        ("block128", 128, 2.15e9, 0.01, 64.0, 214.0, 0.64),
        ("block256", 256, 1.07e9, 0.006, 128.0, 429.0, 0.32),
    ];
    let table_report = run(&mm(4096, 4096, 4096, 128));
    for (name, tile, bytes, btol, intensity, tflops, ms) in table {
        let id = |q: &str| format!("lec-7.8-tiled-4096-{name}-{q}");
        let r = run(&mm(4096, 4096, 4096, tile));
        check(&id("bytes"), num(&r, "tiled_bytes"), bytes, btol);
        check(&id("intensity"), num(&r, "intensity"), intensity, 0.0);
        check(
            &id("attainable"),
            num(&r, "attainable_flops_per_s") / 1e12,
            tflops,
            0.003,
        );
        check(&id("time"), num(&r, "time_s") * 1e3, ms, 0.005);
        check(&id("vs-naive"), num(&r, "tiled_vs_naive"), tile as f64, 0.0);
        // The same numbers appear in the report's table rows.
        let row = table_report
            .rows
            .iter()
            .find(|x| x.inputs["tile"] == tile)
            .expect("table row");
        check(
            &id("bytes (table row)"),
            row.results["tiled_bytes"].as_f64().unwrap(),
            bytes,
            btol,
        );
        check(
            &id("intensity (table row)"),
            row.results["intensity"].as_f64().unwrap(),
            intensity,
            0.0,
        );
    }
}

#[test]
fn tiled_special_cases_002_s7_8_s7_9() {
    // lec-7.8-naive-as-block1: naive is the degenerate tiling BLOCK = 1.
    let r = run(&mm(4096, 4096, 4096, 1));
    check("lec-7.8-naive-as-block1", num(&r, "intensity"), 0.5, 0.0);
    // lec-7.8-per-program-route: MN/(BM*BN) programs each loading
    // K*(BM+BN) elements.
    let r = run(&mm(4096, 4096, 4096, 128));
    let per_program = num(&r, "programs") * 4096.0 * (128.0 + 128.0) * 2.0;
    check("lec-7.8-per-program-route", per_program, 2.15e9, 0.01);
    check(
        "lec-7.8-per-program-route (formula)",
        num(&r, "tiled_bytes"),
        2.15e9,
        0.01,
    );
    // lec-7.8-smem-tiling-ceiling and -frac: BLOCK = 256.
    let r = run(&mm(4096, 4096, 4096, 256));
    check(
        "lec-7.8-smem-tiling-ceiling",
        num(&r, "attainable_flops_per_s") / 1e12,
        429.0,
        0.001,
    );
    check(
        "lec-7.8-smem-tiling-ceiling-frac",
        num(&r, "attainable_fraction_of_peak") * 100.0,
        43.0,
        0.01,
    );
    // lec-7.9-block16-intensity and -attainable.
    let r = run(&mm(4096, 4096, 4096, 16));
    check("lec-7.9-block16-intensity", num(&r, "intensity"), 8.0, 0.0);
    check(
        "lec-7.9-block16-attainable",
        num(&r, "attainable_flops_per_s") / 1e12,
        27.0,
        0.01,
    );
}

#[test]
fn register_micro_tile_002_s7_8() {
    let r = run(&mm(4096, 4096, 4096, 128));
    check(
        "lec-7.8-regtile-acc-per-thread",
        num(&r, "accumulators_per_thread"),
        64.0,
        0.0,
    );
    check(
        "lec-7.8-regtile-microtile-edge",
        num(&r, "microtile_edge"),
        8.0,
        0.0,
    );
    check(
        "lec-7.8-regtile-intensity",
        num(&r, "microtile_flops_per_smem_element"),
        8.0,
        0.0,
    );
    let t = matmul::micro_tile(128, 128, 256);
    check("lec-7.8-regtile-smem-reads", t.smem_reads, 16.0, 0.0);
    check("lec-7.8-regtile-flops", t.flops, 128.0, 0.0);
}

#[test]
fn decode_shape_002_s7_11() {
    // lec-7.11-decode-intensity-M1: the minimal-traffic intensity at M = 1
    // (each operand once); the tiled intensity is capped near 1 too.
    let r = run(&mm(1, 4096, 4096, 128));
    check(
        "lec-7.11-decode-intensity-M1",
        num(&r, "minimal_intensity"),
        1.0,
        0.001,
    );
    for tile in [16, 64, 128, 256] {
        let r = run(&mm(1, 4096, 4096, tile));
        check(
            "decode intensity ~1 whatever the tile",
            num(&r, "intensity"),
            1.0,
            0.06,
        );
        assert_eq!(r.results["bound"], "memory");
    }
}

#[test]
fn exercise_4_8192_002() {
    let r128 = run(&mm(8192, 8192, 8192, 128));
    let r256 = run(&mm(8192, 8192, 8192, 256));
    let r4096 = run(&mm(4096, 4096, 4096, 128));
    check("lec-ex4-flops", num(&r128, "flops"), 1.1e12, 0.005);
    check(
        "lec-ex4 floor",
        num(&r128, "compute_time_s") * 1e3,
        1.11,
        0.005,
    );
    check(
        "lec-ex4-naive-bytes",
        num(&r128, "naive_bytes"),
        2.2e12,
        0.003,
    );
    check(
        "lec-ex4-naive-time",
        num(&r128, "naive_time_s") * 1e3,
        656.0,
        0.002,
    );
    check(
        "lec-ex4-naive-ratio",
        num(&r128, "naive_time_s") / num(&r4096, "naive_time_s"),
        8.0,
        1e-12,
    );
    check(
        "lec-ex4-block128-bytes",
        num(&r128, "tiled_bytes"),
        17.2e9,
        0.003,
    );
    check(
        "lec-ex4-block128-time",
        num(&r128, "time_s") * 1e3,
        5.13,
        0.003,
    );
    check(
        "lec-ex4-block256-bytes",
        num(&r256, "tiled_bytes"),
        8.59e9,
        0.003,
    );
    check(
        "lec-ex4-block256-time",
        num(&r256, "time_s") * 1e3,
        2.56,
        0.003,
    );
    assert_eq!(
        r256.results["bound"], "memory",
        "lec-ex4: still memory-bound at 256"
    );
}

#[test]
fn book_4092_sgemm_000_s2_2() {
    check(
        "book-2.2-4092-flops",
        matmul::flops(4092, 4092, 4092),
        137.04e9,
        0.001,
    );
    // book-2.2-naive-runtime: FLOPs at the measured 309 GFLOP/s.
    check(
        "book-2.2-naive-runtime",
        matmul::flops(4092, 4092, 4092) / 309e9 * 1e3,
        443.5,
        0.002,
    );
}

#[test]
fn feasibility_002_s7_8() {
    let mut p = mm(4096, 4096, 4096, 128);
    p.stages = 1;
    let r = run(&p);
    check(
        "lec-7.8-feas-smem-single",
        num(&r, "smem_bytes_per_block") / KIB,
        32.0,
        0.0,
    );
    let r = run(&mm(4096, 4096, 4096, 128));
    check(
        "lec-7.8-feas-smem-double",
        num(&r, "smem_bytes_per_block") / KIB,
        64.0,
        0.0,
    );
    check(
        "lec-7.8-feas-acc-128",
        num(&r, "accumulator_bytes") / KIB,
        64.0,
        0.0,
    );
    check(
        "lec-7.8-feas-acc-128-frac",
        num(&r, "accumulator_fraction_of_registers"),
        0.25,
        0.0,
    );
    assert_eq!(r.results["fits"], true);
    let r = run(&mm(4096, 4096, 4096, 256));
    check(
        "lec-7.8-feas-smem-256",
        num(&r, "smem_bytes_per_block") / KIB,
        128.0,
        0.0,
    );
    check(
        "lec-7.8-feas-acc-256",
        num(&r, "accumulator_bytes") / KIB,
        256.0,
        0.0,
    );
    check(
        "lec-7.8-feas-acc-256-frac",
        num(&r, "accumulator_fraction_of_registers"),
        1.0,
        0.0,
    );
    assert_eq!(r.results["smem_fits"], true, "lec-7.8-feas-smem-256 fits");
    assert_eq!(
        r.results["fits"], false,
        "lec-7.8-feas-acc-256: the whole register file"
    );

    // lec-7.8-ridge-block: BLOCK = b * ridge with the lecture's ridge 295.
    check(
        "lec-7.8-ridge-block",
        matmul::ridge_tile(295.0, 2.0),
        590.0,
        0.0,
    );
    check(
        "lec-7.8-ridge-block (report, rounded)",
        num(&r, "ridge_tile").round(),
        590.0,
        0.0,
    );
    check(
        "lec-7.8-ridge-block-acc",
        num(&r, "ridge_tile_accumulator_bytes"),
        1.39e6,
        0.002,
    );
    check(
        "lec-7.8-ridge-block-acc-ratio",
        num(&r, "ridge_tile_accumulator_vs_registers"),
        5.3,
        0.005,
    );
    check(
        "lec-7.8-ridge-block-smem",
        num(&r, "ridge_tile_smem_bytes") / 1e3,
        302.0,
        0.002,
    );
}

#[test]
fn feasibility_book() {
    // book-2.2-smem-tiles-bytes: two 32x32 fp32 tiles.
    check(
        "book-2.2-smem-tiles-bytes",
        matmul::smem_bytes(32, 32, 32, 4.0, 1) / KIB,
        8.0,
        0.0,
    );
    let p = MatmulParams {
        tile_k: Some(32),
        stages: 1,
        dtype: Some("fp32".into()),
        ..mm(4096, 4096, 4096, 32)
    };
    let r = run(&p);
    check(
        "book-2.2-smem-tiles-bytes (command)",
        num(&r, "smem_bytes_per_block") / KIB,
        8.0,
        0.0,
    );
    check(
        "book-2.2-smem-tiles-frac",
        num(&r, "smem_fraction_of_block_default") * 100.0,
        16.7,
        0.003,
    );
    // book-2.3-wgmma-acc-regs and -regs-per-thread: m64n16k16.
    let p = MatmulParams {
        mma: Some("m64n16k16".into()),
        ..mm(4096, 4096, 4096, 128)
    };
    let r = run(&p);
    check(
        "book-2.3-wgmma-acc-regs",
        num(&r, "mma_accumulator_registers"),
        1024.0,
        0.0,
    );
    check(
        "book-2.3-wgmma-regs-per-thread",
        num(&r, "mma_accumulator_registers_per_thread"),
        8.0,
        0.0,
    );
    let p = MatmulParams {
        mma: Some("m64n256k16".into()),
        ..mm(4096, 4096, 4096, 256)
    };
    check(
        "book-2.3-wgmma-n256-regs-per-thread",
        num(&run(&p), "mma_accumulator_registers_per_thread"),
        128.0,
        0.0,
    );
    // book-6.1-smem-carveouts: the carveouts the feasibility check picks
    // from.
    let h = hw("h100-sxm");
    assert_eq!(
        h.execution.as_ref().unwrap().smem_carveouts.len(),
        10,
        "book-6.1-smem-carveouts"
    );
    let r = run(&mm(4096, 4096, 4096, 128));
    check(
        "smallest carveout above 64 KiB + 1 KiB reserved",
        num(&r, "smem_carveout_bytes") / KIB,
        100.0,
        0.0,
    );
}

#[test]
fn waves_002_s7_8_s7_11() {
    let r = run(&mm(4096, 4096, 4096, 128));
    check("lec-7.8-wave-programs", num(&r, "programs"), 1024.0, 0.0);
    check("lec-7.8-wave-full", num(&r, "full_waves"), 7.0, 0.0);
    check("lec-7.8-wave-tail", num(&r, "tail_programs"), 100.0, 0.0);
    check(
        "lec-7.8-wave-idle",
        num(&r, "idle_slots_in_tail"),
        32.0,
        0.0,
    );
    check(
        "lec-7.8-wave-efficiency",
        num(&r, "wave_efficiency") * 100.0,
        96.97,
        0.001,
    );
    check("waves = programs / SMs", num(&r, "waves"), 7.76, 0.001);
    check(
        "lec-7.11-wave-705",
        matmul::wave_efficiency(7.05) * 100.0,
        88.1,
        0.001,
    );
    // ch-rmsnorm-prefill-blocks-per-sm: 2048 blocks over 132 SMs.
    check(
        "ch-rmsnorm-prefill-blocks-per-sm",
        matmul::waves(2048, 132, 1).waves,
        15.52,
        0.01,
    );
    // Two resident programs per SM halve the waves.
    let p = MatmulParams {
        programs_per_sm: 2,
        ..mm(4096, 4096, 4096, 128)
    };
    let r = run(&p);
    check("waves at 2 per SM", num(&r, "waves"), 1024.0 / 264.0, 1e-12);
    check("tail at 2 per SM", num(&r, "tail_programs"), 232.0, 0.0);
}

#[test]
fn tensor_core_rows_004() {
    let p = MatmulParams {
        mma: Some("m16n8k16".into()),
        ..mm(1, 4096, 4096, 128)
    };
    let r = run(&p);
    check("ch-mma-outputs", num(&r, "mma_outputs"), 128.0, 0.0);
    check(
        "ch-mma-m1-padding-rows",
        num(&r, "mma_padded_rows"),
        15.0,
        0.0,
    );
    check(
        "ch-mma-m1-util",
        num(&r, "mma_row_utilisation") * 100.0,
        6.25,
        0.0,
    );
    check(
        "ch-mma-m1-effective-tflops",
        num(&r, "mma_effective_flops_per_s") / 1e12,
        62.0,
        0.005,
    );
    let p = MatmulParams {
        mma: Some("wgmma".into()),
        ..mm(1, 4096, 4096, 128)
    };
    let r = run(&p);
    check(
        "ch-hgmma-m1-wasted-rows",
        num(&r, "mma_padded_rows"),
        63.0,
        0.0,
    );
    check(
        "ch-hgmma-m1-util",
        num(&r, "mma_row_utilisation") * 100.0,
        1.5625,
        0.0,
    );
    // ch-prefill-M: a 2048-token prefill chunk is M = 2048, every row used.
    let p = MatmulParams {
        mma: Some("m16n8k16".into()),
        ..mm(2048, 4096, 4096, 128)
    };
    let r = run(&p);
    check("ch-prefill-M", r.inputs["m"].as_f64().unwrap(), 2048.0, 0.0);
    check(
        "ch-prefill-M utilisation",
        num(&r, "mma_row_utilisation"),
        1.0,
        0.0,
    );
}

#[test]
fn tensor_vs_vector_002_s7_7() {
    let r = run(&mm(4096, 4096, 4096, 128));
    check(
        "lec-7.7-tensor-vs-vector",
        num(&r, "tensor_vs_vector"),
        15.0,
        0.02,
    );
    check(
        "ch-tensor-vs-fp32-datasheet",
        num(&r, "tensor_vs_vector"),
        15.0,
        0.03,
    );
    check(
        "lec-7.7-per-sm-tflops",
        num(&r, "peak_per_sm_flops_per_s") / 1e12,
        7.5,
        0.002,
    );
}

// Golden cases of these topics that no command computes, and why:
// - lec-7.8-l2-gap: 90% - 43% quoted percentages; no model of tuned GEMMs.
// - book-6.1-tcgen05-2sm-tile-per-sm: 2-SM (CTA-pair) MMA tiles are not
//   modelled.
// - ch-h100-bf16-dense-from-sparse, ch-tensor-vs-fp32-prelim,
//   lec-7.13-per-sm-times-sms, lec-7.12-tpu-peak, book-6.1-mxf4-vs-hopper-fp8,
//   book-6.2-trn3-bf16-derive, book-6.2-trn3-mxfp8-derive,
//   book-6.2-trn3-contraction-ratio, book-6.2-trn3-mx-vs-bf16,
//   book-6.2-trn3-fp32-derive: peaks derived for the hardware catalog
//   (hardware files and `hw show`), not by these commands.

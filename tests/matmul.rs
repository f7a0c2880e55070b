//! Golden cases of the `matmul-naive`, `tiled-matmul`, `tile-feasibility`,
//! `wave-quantization` and `tensor-core-util` topics
//! (../shared/golden/seed_cases.toml), through `matmul::cost` and its
//! report. Each check names its case id; expected values and tolerances are
//! the golden file's, never the code's. Cases no command computes are in
//! `SKIPPED` with the reason; `every_case_is_covered_or_skipped` keeps the
//! two lists honest. The last tests pin bugs fixed in the typed-cost
//! conversion (checked arithmetic, the tile table's tensor-core cap).

use crate::common;
use common::{check, check_si};
use roofline::calc::matmul::{self, MatmulCost, MatmulInputs, Tiles};
use roofline::catalog::Catalog;
use roofline::error::Error;
use roofline::inputs::Count;
use roofline::report::Report;
use roofline::spec::hardware::{Hardware, Mode};
use roofline::spec::overrides::Set;

fn hw(id: &str, sets: &[&str]) -> Hardware {
    let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
    Catalog::default()
        .hardware(id, &sets)
        .expect("hardware loads")
}

fn h100() -> Hardware {
    hw("h100-sxm", &[])
}

/// |got - expected| <= tol * |expected|, the golden file's rule.
fn close(id: &str, got: f64, expected: f64, tol: f64) {
    let ok = (got - expected).abs() <= tol * expected.abs() + 1e-12 * expected.abs().max(1.0);
    assert!(ok, "{id}: got {got}, expected {expected} (tolerance {tol})");
}

fn num(r: &Report, key: &str) -> f64 {
    r.number(key)
        .unwrap_or_else(|| panic!("{} has no numeric `{key}`", r.command))
}

/// An M×N×K GEMM at a square tile.
fn sq(m: u64, n: u64, k: u64, tile: u64) -> MatmulInputs {
    MatmulInputs::new(m, n, k).with_tile(tile)
}

fn on(h: &Hardware, i: &MatmulInputs) -> MatmulCost {
    matmul::cost(h, i, Mode::SpeedOfLight).expect("matmul cost")
}

fn cost(i: &MatmulInputs) -> MatmulCost {
    on(&h100(), i)
}

const KIB: f64 = 1024.0;

#[test]
fn naive_matmul_4096_002_s7_8() {
    let c = cost(&sq(4096, 4096, 4096, 128));
    let r = c.report(false);
    check("lec-7.8-naive-intensity", c.naive_intensity);
    check(
        "lec-7.8-naive-attainable",
        num(&r, "naive_attainable_flops_per_s") / 1e12,
    );
    check(
        "lec-7.8-naive-frac",
        num(&r, "naive_fraction_of_peak") * 100.0,
    );
    check("lec-7.8-4096-flops", c.flops);
    check("lec-7.8-4096-naive-bytes", c.naive_bytes);
    check("lec-7.8-4096-naive-time", c.naive_time.time_s * 1e3);
    check("lec-7.8-naive-vs-floor", num(&r, "naive_vs_floor"));
    // The compute floor the lecture quotes beside it (0.139 ms).
    close(
        "lec-7.8 compute floor",
        c.compute_time_s * 1e3,
        0.139,
        0.005,
    );
    // The lecture's verdict is the single-tile one (`tile_bound`); through
    // the L2 the same GEMM is compute-bound (formulas.md, "Matmul through
    // the L2").
    assert_eq!(r.results["tile_bound"], "memory");
    assert_eq!(r.results["bound"], "compute");
}

/// One row of the lecture's tiled table (002 §7.8): the cells' case ids
/// are bytes, intensity, attainable rate, time and the gain over naive.
fn check_tile_row(tile: u64, ids: [&str; 5]) {
    let c = cost(&sq(4096, 4096, 4096, tile));
    let t = c.tile;
    check_si(ids[0], t.tiled_bytes);
    check_si(ids[1], t.intensity);
    check_si(ids[2], t.attainable);
    check_si(ids[3], t.time.time_s);
    check_si(ids[4], t.tiled_vs_naive);
    // The default report carries the table as rows, one per tile: the
    // same computation as the headline.
    let with_table = cost(&MatmulInputs::new(4096, 4096, 4096));
    let (_, row) = with_table
        .table
        .iter()
        .find(|(x, _)| *x == tile)
        .expect("table entry");
    assert_eq!(*row, t, "{}: table row = headline", ids[0]);
    let rows = with_table.report(false);
    let rendered = rows
        .rows
        .iter()
        .find(|x| x.inputs["tile"] == tile)
        .expect("report row");
    check_si(ids[0], rendered.results["tiled_bytes"].as_f64().unwrap());
    check_si(
        ids[2],
        rendered.results["attainable_flops_per_s"].as_f64().unwrap(),
    );
}

#[test]
fn tiled_table_4096_002_s7_8() {
    check_tile_row(
        32,
        [
            "lec-7.8-tiled-4096-block32-bytes",
            "lec-7.8-tiled-4096-block32-intensity",
            "lec-7.8-tiled-4096-block32-attainable",
            "lec-7.8-tiled-4096-block32-time",
            "lec-7.8-tiled-4096-block32-vs-naive",
        ],
    );
    check_tile_row(
        64,
        [
            "lec-7.8-tiled-4096-block64-bytes",
            "lec-7.8-tiled-4096-block64-intensity",
            "lec-7.8-tiled-4096-block64-attainable",
            "lec-7.8-tiled-4096-block64-time",
            "lec-7.8-tiled-4096-block64-vs-naive",
        ],
    );
    check_tile_row(
        128,
        [
            "lec-7.8-tiled-4096-block128-bytes",
            "lec-7.8-tiled-4096-block128-intensity",
            "lec-7.8-tiled-4096-block128-attainable",
            "lec-7.8-tiled-4096-block128-time",
            "lec-7.8-tiled-4096-block128-vs-naive",
        ],
    );
    check_tile_row(
        256,
        [
            "lec-7.8-tiled-4096-block256-bytes",
            "lec-7.8-tiled-4096-block256-intensity",
            "lec-7.8-tiled-4096-block256-attainable",
            "lec-7.8-tiled-4096-block256-time",
            "lec-7.8-tiled-4096-block256-vs-naive",
        ],
    );
}

#[test]
fn tiled_special_cases_002_s7_8_s7_9() {
    // Naive is the degenerate tiling BLOCK = 1.
    let c = cost(&sq(4096, 4096, 4096, 1));
    check("lec-7.8-naive-as-block1", c.tile.intensity);
    // The per-program route (MN/(BM*BN) programs, each loading K*(BM+BN)
    // elements) and the formula route are one number: the tiled bytes
    // over the 1,024 programs the tool counts.
    let c = cost(&sq(4096, 4096, 4096, 128));
    check("lec-7.8-per-program-route", c.tile.tiled_bytes);
    assert_eq!(c.waves.unwrap().waves.programs, 1024);
    // The ceiling of square shared-memory tiling, BLOCK = 256.
    let c = cost(&sq(4096, 4096, 4096, 256));
    check("lec-7.8-smem-tiling-ceiling", c.tile.attainable / 1e12);
    check(
        "lec-7.8-smem-tiling-ceiling-frac",
        num(&c.report(false), "attainable_fraction_of_peak") * 100.0,
    );
    let c = cost(&sq(4096, 4096, 4096, 16));
    check("lec-7.9-block16-intensity", c.tile.intensity);
    check("lec-7.9-block16-attainable", c.tile.attainable / 1e12);
}

#[test]
fn register_micro_tile_002_s7_8() {
    let t = cost(&sq(4096, 4096, 4096, 128)).micro_tile;
    check("lec-7.8-regtile-acc-per-thread", t.accumulators_per_thread);
    check("lec-7.8-regtile-microtile-edge", t.edge);
    check("lec-7.8-regtile-smem-reads", t.smem_reads);
    check("lec-7.8-regtile-flops", t.flops);
    check("lec-7.8-regtile-intensity", t.flops_per_smem_element);
}

#[test]
fn decode_shape_002_s7_11() {
    let c = cost(&sq(1, 4096, 4096, 128));
    check("lec-7.11-decode-intensity-M1", c.minimal_intensity);
    // The tiled intensity is capped near 1 whatever the tile.
    for tile in [16, 64, 128, 256] {
        let c = cost(&sq(1, 4096, 4096, tile));
        close(
            "decode intensity ~1 (002 §7.11)",
            c.tile.intensity,
            1.0,
            0.06,
        );
        assert_eq!(c.tile.time.bound, roofline::calc::roof::Bound::Memory);
    }
}

#[test]
fn exercise_4_8192_002() {
    let r128 = cost(&sq(8192, 8192, 8192, 128));
    let r256 = cost(&sq(8192, 8192, 8192, 256));
    let r4096 = cost(&sq(4096, 4096, 4096, 128));
    check("lec-ex4-flops", r128.flops);
    close("lec-ex4 floor", r128.compute_time_s * 1e3, 1.11, 0.005);
    check("lec-ex4-naive-bytes", r128.naive_bytes);
    check("lec-ex4-naive-time", r128.naive_time.time_s * 1e3);
    // The scaling between two of the tool's answers.
    check(
        "lec-ex4-naive-ratio",
        r128.naive_time.time_s / r4096.naive_time.time_s,
    );
    check("lec-ex4-block128-bytes", r128.tile.tiled_bytes);
    check("lec-ex4-block128-time", r128.tile.time.time_s * 1e3);
    check("lec-ex4-block256-bytes", r256.tile.tiled_bytes);
    check("lec-ex4-block256-time", r256.tile.time.time_s * 1e3);
    assert_eq!(
        r256.tile.time.bound,
        roofline::calc::roof::Bound::Memory,
        "lec-ex4: still memory-bound at 256"
    );
}

#[test]
fn book_4092_sgemm_000_s2_2() {
    let fp32 = |m| MatmulInputs {
        dtype: Some("fp32".into()),
        ..MatmulInputs::new(m, m, m)
    };
    check("book-2.2-4092-flops", cost(&fp32(4092)).flops);
}

#[test]
fn feasibility_002_s7_8() {
    let single = MatmulInputs {
        stages: Some(Count(1)),
        ..sq(4096, 4096, 4096, 128)
    };
    check(
        "lec-7.8-feas-smem-single",
        cost(&single).tile.smem_bytes / KIB,
    );
    let c = cost(&sq(4096, 4096, 4096, 128));
    let r = c.report(false);
    check("lec-7.8-feas-smem-double", c.tile.smem_bytes / KIB);
    check("lec-7.8-feas-acc-128", c.tile.accumulator_bytes / KIB);
    check(
        "lec-7.8-feas-acc-128-frac",
        num(&r, "accumulator_fraction_of_registers"),
    );
    assert_eq!(c.tile.fits, Some(true));
    let c = cost(&sq(4096, 4096, 4096, 256));
    let r = c.report(false);
    check("lec-7.8-feas-smem-256", c.tile.smem_bytes / KIB);
    check("lec-7.8-feas-acc-256", c.tile.accumulator_bytes / KIB);
    check(
        "lec-7.8-feas-acc-256-frac",
        num(&r, "accumulator_fraction_of_registers"),
    );
    assert_eq!(c.tile.smem_fits, Some(true), "lec-7.8-feas-smem-256 fits");
    assert_eq!(
        c.tile.fits,
        Some(false),
        "lec-7.8-feas-acc-256: the whole register file"
    );
    // The tile that reaches the ridge: BLOCK = b * ridge, 590 as a whole
    // tile (590.4 before rounding).
    let rt = c.ridge_tile;
    check("lec-7.8-ridge-block", rt.rounded as f64);
    check("lec-7.8-ridge-block-acc", rt.accumulator_bytes);
    check(
        "lec-7.8-ridge-block-acc-ratio",
        rt.accumulator_vs_registers.unwrap(),
    );
    check("lec-7.8-ridge-block-smem", rt.smem_bytes / 1e3);
}

#[test]
fn feasibility_book() {
    // Two 32x32 fp32 tiles, one stage, against 48 KB per block.
    let p = MatmulInputs {
        tile_k: Some(Count(32)),
        stages: Some(Count(1)),
        dtype: Some("fp32".into()),
        ..sq(4096, 4096, 4096, 32)
    };
    let c = cost(&p);
    check("book-2.2-smem-tiles-bytes", c.tile.smem_bytes / KIB);
    check(
        "book-2.2-smem-tiles-frac",
        num(&c.report(false), "smem_fraction_of_block_default") * 100.0,
    );
    let mma = |shape: &str, tile| MatmulInputs {
        mma: Some(shape.into()),
        ..sq(4096, 4096, 4096, tile)
    };
    let c = cost(&mma("m64n16k16", 128)).mma.unwrap();
    check("book-2.3-wgmma-acc-regs", c.accumulator_registers as f64);
    check(
        "book-2.3-wgmma-regs-per-thread",
        c.accumulator_registers_per_thread,
    );
    let c = cost(&mma("m64n256k16", 256)).mma.unwrap();
    check(
        "book-2.3-wgmma-n256-regs-per-thread",
        c.accumulator_registers_per_thread,
    );
    // The carveouts the feasibility check picks from.
    let c = cost(&sq(4096, 4096, 4096, 128));
    check("book-6.1-smem-carveouts", c.limits.carveouts.len() as f64);
    close(
        "smallest carveout above 64 KiB + 1 KiB reserved",
        c.smem_carveout.unwrap() / KIB,
        100.0,
        0.0,
    );
}

#[test]
fn waves_002_s7_8_s7_11() {
    let w = cost(&sq(4096, 4096, 4096, 128)).waves.unwrap().waves;
    check("lec-7.8-wave-programs", w.programs as f64);
    check("lec-7.8-wave-full", w.full_waves as f64);
    check("lec-7.8-wave-tail", w.tail_programs as f64);
    check("lec-7.8-wave-idle", w.idle_slots as f64);
    check("lec-7.8-wave-efficiency", w.efficiency * 100.0);
    close("waves = programs / SMs", w.waves, 7.76, 0.001);
    // The lecture's 7.05 waves, the seed's input: the last wave launched
    // whole.
    let waves = common::golden("lec-7.11-wave-705").input("waves");
    check_si("lec-7.11-wave-705", matmul::wave_efficiency(waves));
    // The chapter's 2,048 RMSNorm blocks over the H100's 132 SMs.
    let c = common::golden("ch-rmsnorm-prefill-blocks-per-sm");
    let sms = hw("h100-sxm", &[]).execution.unwrap().sms.get();
    assert_eq!(f64::from(sms), c.input("num_sms"));
    let w = matmul::waves(c.input("blocks") as u128, u128::from(sms), 1);
    check("ch-rmsnorm-prefill-blocks-per-sm", w.waves);
    // Two resident programs per SM halve the waves.
    let p = MatmulInputs {
        programs_per_sm: Some(Count(2)),
        ..sq(4096, 4096, 4096, 128)
    };
    let w = cost(&p).waves.unwrap().waves;
    close("waves at 2 per SM", w.waves, 1024.0 / 264.0, 1e-12);
    close("tail at 2 per SM", w.tail_programs as f64, 232.0, 0.0);
}

#[test]
fn tensor_core_rows_004() {
    let mma = |shape: &str, m| MatmulInputs {
        mma: Some(shape.into()),
        ..sq(m, 4096, 4096, 128)
    };
    let c = cost(&mma("m16n8k16", 1)).mma.unwrap();
    check("ch-mma-outputs", c.outputs.unwrap() as f64);
    check("ch-mma-m1-padding-rows", c.padded_rows as f64);
    check("ch-mma-m1-util", c.row_utilisation * 100.0);
    check("ch-mma-m1-effective-tflops", c.effective_peak / 1e12);
    let c = cost(&mma("wgmma", 1)).mma.unwrap();
    check("ch-hgmma-m1-wasted-rows", c.padded_rows as f64);
    check("ch-hgmma-m1-util", c.row_utilisation * 100.0);
    // A 2048-token prefill chunk (M = 2048) uses every row.
    let c = cost(&mma("m16n8k16", 2048)).mma.unwrap();
    close("prefill M = 2048 utilisation", c.row_utilisation, 1.0, 0.0);
}

#[test]
fn tensor_vs_vector_002_s7_7() {
    let c = cost(&sq(4096, 4096, 4096, 128));
    let r = c.report(false);
    check("lec-7.7-tensor-vs-vector", num(&r, "tensor_vs_vector"));
    check("ch-tensor-vs-fp32-datasheet", num(&r, "tensor_vs_vector"));
    check("lec-7.7-per-sm-tflops", c.waves.unwrap().peak_per_sm / 1e12);
}

// ---- fixed bugs ----

#[test]
fn table_rows_apply_the_tensor_core_cap() {
    // m64nNk16 at M = 4000 pads to 4032 rows: the tensor cores offer
    // 4000/4032 of the peak. A 4096 tile is compute-bound, so the cap
    // shows in its attainable rate, in the headline and in its table row.
    let p = MatmulInputs {
        mma: Some("m64nNk16".into()),
        tiles: Some(Tiles(vec![4096])),
        ..sq(4000, 4096, 4096, 4096)
    };
    let c = cost(&p);
    let capped = c.roof.peak * 4000.0 / 4032.0;
    close("headline capped", c.tile.attainable, capped, 1e-12);
    let (_, row) = c.table[0];
    assert_eq!(row, c.tile, "same tile, one answer");
    let r = c.report(false);
    close(
        "table row capped",
        r.rows[0].results["attainable_flops_per_s"]
            .as_f64()
            .unwrap(),
        capped,
        1e-12,
    );
}

fn field_of(e: &Error) -> &str {
    match e {
        Error::Field { field, .. } => field,
        other => panic!("expected a field error, got {other}"),
    }
}

#[test]
fn huge_mma_shape_is_a_field_error() {
    let p = MatmulInputs {
        mma: Some("m4294967296n4294967296k16".into()),
        ..MatmulInputs::new(1, 1, 1)
    };
    let e = matmul::cost(&h100(), &p, Mode::SpeedOfLight).unwrap_err();
    assert_eq!(field_of(&e), "mma", "{e}");
}

#[test]
fn largest_m_with_an_mma_shape_answers() {
    let p = MatmulInputs {
        mma: Some("m64n8k16".into()),
        ..MatmulInputs::new(u64::MAX, 1, 1)
    };
    let c = cost(&p);
    let mma = c.mma.unwrap();
    // 2^64 - 1 = 64 * (2^58 - 1) + 63: one padded row.
    assert_eq!(mma.padded_rows, 1);
    assert!(mma.row_utilisation > 0.0 && mma.row_utilisation <= 1.0);
    assert!(c.tile.time.time_s.is_finite() && c.tile.time.time_s > 0.0);
}

#[test]
fn tile_k_of_a_prime_k_answers_at_once() {
    let p = MatmulInputs {
        tile_k: Some(Count(1_000_000_006)),
        ..MatmulInputs::new(1, 1, 1_000_000_007)
    };
    let start = std::time::Instant::now();
    let e = matmul::cost(&h100(), &p, Mode::SpeedOfLight).unwrap_err();
    assert_eq!(field_of(&e), "tile-k");
    assert!(e.to_string().ends_with("try 1"), "{e}");
    assert!(start.elapsed().as_secs_f64() < 1.0);
}

#[test]
fn inputs_come_from_fields_with_defaults() {
    let f = serde_json::json!({"m": "4096", "n": 4096, "k": "4k"});
    let e = roofline::inputs::from_fields::<MatmulInputs>(f.as_object().unwrap()).unwrap_err();
    assert_eq!(field_of(&e), "k");
    let f = serde_json::json!({"m": "4096", "n": 4096, "k": 4096, "tiles": "none"});
    let p: MatmulInputs = roofline::inputs::from_fields(f.as_object().unwrap()).unwrap();
    let c = cost(&p);
    assert!(c.table.is_empty());
    assert_eq!(
        (c.tile.tile_m, c.tile_k, c.stages, c.threads),
        (128, 64, 2, 256)
    );
    let f = serde_json::json!({"m": 1, "n": 1, "k": 1, "tiles": [32, 64]});
    let p: MatmulInputs = roofline::inputs::from_fields(f.as_object().unwrap()).unwrap();
    assert_eq!(p.tiles, Some(Tiles(vec![32, 64])));
    let f = serde_json::json!({"m": 1, "n": 1});
    let e = roofline::inputs::from_fields::<MatmulInputs>(f.as_object().unwrap()).unwrap_err();
    assert!(
        matches!(&e, Error::MissingInput { field, .. } if field == "k"),
        "{e}"
    );
}

// ---- coverage ----

// The L2 level (formulas.md, "Matmul through the L2"): footprints, the
// fall-backs, and the hardware without an L2. Expected values are worked
// by hand from the formulas, not taken from the code.

#[test]
fn footprints_are_near_square_and_clamped() {
    use matmul::{area_footprint, panel_footprint};
    // 132 tiles of 128^2: sqrt(2,162,688) = 1470.6 a side.
    let (a, b) = area_footprint(8192, 8192, 132.0 * 128.0 * 128.0);
    assert!((a - 1470.608).abs() < 1e-3 && (b - a).abs() < 1e-9);
    // A short M is taken whole, the area over it on N, at most N.
    assert_eq!(
        area_footprint(64, 14336, 132.0 * 64.0 * 128.0),
        (64.0, 14336.0)
    );
    assert_eq!(
        area_footprint(512, 14336, 132.0 * 128.0 * 128.0),
        (512.0, 4224.0)
    );
    // Panels: half each, or all of a short side and the rest.
    assert_eq!(panel_footprint(8192, 8192, 3840.0), (1920.0, 1920.0));
    assert_eq!(panel_footprint(512, 14336, 7680.0), (512.0, 7168.0));
    assert_eq!(panel_footprint(16384, 1024, 1920.0), (960.0, 960.0));
    assert_eq!(panel_footprint(16384, 1024, 3000.0), (1976.0, 1024.0));
}

#[test]
fn l2_level_on_an_h200() {
    let h200 = hw("h200-sxm", &[]);
    // 8192^3 bf16, tile 128: the L2 group (1,920 square: 60 MiB / (2*8192)
    // = 3,840 rows + columns) reads 2*8192^3*(2/1920) = 1.1453 GB, plus
    // the 134.2 MB output.
    let c = on(&h200, &sq(8192, 8192, 8192, 128));
    assert_eq!(c.traffic.level, matmul::TrafficLevel::L2);
    assert_eq!(c.traffic.source, matmul::FootprintSource::Group);
    close(
        "8192^3 L2 operand bytes",
        c.traffic.operand_bytes,
        1.14532e9,
        1e-4,
    );
    close(
        "8192^3 traffic",
        c.traffic.bytes,
        1.14532e9 + 134.2177e6,
        1e-4,
    );
    close("8192^3 time", c.time_s, 1.0995e12 / 989e12, 1e-3);
    // One wave covers a 1024^2 output: each operand once.
    let c = on(&h200, &sq(1024, 1024, 1024, 128));
    assert_eq!(c.traffic.level, matmul::TrafficLevel::Compulsory);
    close("1024^3 traffic", c.traffic.bytes, c.minimal_bytes, 1e-12);
}

#[test]
fn l2_level_falls_back_gracefully() {
    // A 1 MiB L2 holds a slab of (2*64*2) B per row + column: 4,096 rows
    // and columns, so the 132-tile wave (1,471 square, slab 735 KiB) fits;
    // whole-K panels of 4096 do not (128 rows + columns), so the wave sets
    // the traffic.
    let small = hw("h200-sxm", &["memory.levels.2.capacity=1 MiB"]);
    let c = on(&small, &sq(4096, 4096, 4096, 128));
    assert_eq!(c.traffic.wave_slab_fits, Some(true));
    assert_eq!(c.traffic.source, matmul::FootprintSource::Wave);
    // A 256 KiB L2 cannot hold that slab: the footprint shrinks to the
    // panels whose slab fits, 256 KiB / (2*64*2) = 1,024 rows + columns,
    // 512 square, still better than one 128 tile.
    let tiny = hw("h200-sxm", &["memory.levels.2.capacity=256 KiB"]);
    let c = on(&tiny, &sq(4096, 4096, 4096, 128));
    assert_eq!(c.traffic.wave_slab_fits, Some(false));
    assert_eq!(c.traffic.footprint, (512.0, 512.0));
    close(
        "256 KiB L2 operand bytes",
        c.traffic.operand_bytes,
        2.0 * 4096f64.powi(3) * (2.0 / 512.0),
        1e-12,
    );
    // A TPU records no L2 or SMs: the single tile's reads, plus the output.
    let tpu = hw("tpu7x", &[]);
    let c = on(&tpu, &sq(4096, 4096, 4096, 128));
    assert_eq!(c.traffic.level, matmul::TrafficLevel::SmemTile);
    close(
        "tpu7x traffic",
        c.traffic.bytes,
        c.tile.tiled_bytes + c.output_bytes,
        1e-12,
    );
}

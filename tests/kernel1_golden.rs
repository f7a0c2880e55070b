//! The seeds' worked examples for `point`, `coalesce` and `littles-law`,
//! one assertion per golden case of ../shared/golden/seed_cases.toml, named
//! by its id. Expected values and tolerances are the golden file's.

use roofline::calc::coalesce::{Access, Granularity, coalesce};
use roofline::calc::littles_law::{Demand, Latency, littles_law};
use roofline::calc::point::{self, PointInputs, Work};
use roofline::catalog::Catalog;
use roofline::precision;
use roofline::report::Report;
use roofline::spec::hardware::{Hardware, Mode};
use roofline::spec::overrides::Set;

fn hw(what: &str, sets: &[&str]) -> Hardware {
    let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
    Catalog::default()
        .hardware(what, &sets)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn h100() -> Hardware {
    hw("h100-sxm", &[])
}

fn a100() -> Hardware {
    hw("tests/data/occupancy/a100.toml", &[])
}

fn num(r: &Report, k: &str) -> f64 {
    r.number(k)
        .unwrap_or_else(|| panic!("no {k} in {:?}", r.results))
}

/// |got - expected| <= tol x |expected| (plus rounding noise for tol 0).
fn close(id: &str, got: f64, expected: f64, tol: f64) {
    let slack = tol * expected.abs() + 1e-9 * expected.abs();
    assert!(
        (got - expected).abs() <= slack,
        "{id}: got {got}, expected {expected} within {tol}"
    );
}

fn pt(h: &Hardware, dtype: &str, work: Work) -> Report {
    let inputs = match work {
        Work::Intensity(i) => PointInputs::at_intensity(i, dtype),
        Work::Totals { flops, bytes } => PointInputs::totals(flops, bytes, dtype),
    };
    point::cost(h, &inputs, Mode::SpeedOfLight)
        .unwrap()
        .report(false)
}

fn ridge(h: &Hardware, dtype: &str) -> f64 {
    num(
        &pt(h, dtype, Work::Intensity(1.0)),
        "ridge_point_flop_per_byte",
    )
}

// ---------------------------------------------------------------- roofline

#[test]
fn lec_intro_ridge_and_checklist() {
    close("lec-intro-ridge", ridge(&h100(), "bf16"), 295.0, 0.002);
    close(
        "lec-7.13-h100-ridge-table",
        ridge(&h100(), "bf16"),
        295.0,
        0.002,
    );
}

#[test]
fn lec_7_7_fp8_ridge() {
    let fp8 = ridge(&h100(), "fp8");
    close("lec-7.7-fp8-ridge", fp8, 591.0, 0.002);
    close(
        "lec-7.7-fp8-ridge-doubling",
        fp8 / ridge(&h100(), "bf16"),
        2.0,
        0.002,
    );
}

#[test]
fn lec_7_7_elementwise_ceiling() {
    let r = pt(&h100(), "bf16", Work::Intensity(1.0));
    close(
        "lec-7.7-elementwise-ceiling",
        num(&r, "attainable_flops_per_s"),
        3.35e12,
        0.0,
    );
    close(
        "lec-7.7-elementwise-frac",
        num(&r, "fraction_of_peak") * 100.0,
        0.34,
        0.005,
    );
    assert_eq!(r.results["bound"], "memory");
}

fn square(n: f64) -> Work {
    // n x n matmul, operands moved once: 2n^3 FLOPs over 3 n^2 bf16 values.
    Work::Totals {
        flops: 2.0 * n * n * n,
        bytes: 3.0 * n * n * 2.0,
    }
}

#[test]
fn lec_7_7_square_matmul() {
    let r = pt(&h100(), "bf16", square(128.0));
    close(
        "lec-7.7-nn-intensity-formula",
        num(&r, "intensity_flop_per_byte"),
        42.67,
        0.001,
    );
    close(
        "lec-7.7-n128-util",
        num(&r, "fraction_of_peak") * 100.0,
        14.0,
        0.035,
    );
    // lec-7.7-n-cross-ridge: n = 3 b ridge / 2 = 885; at the exact ridge
    // (295.2) the crossing falls between 885 and 886.
    assert_eq!(
        pt(&h100(), "bf16", square(885.0)).results["bound"],
        "memory"
    );
    assert_eq!(
        pt(&h100(), "bf16", square(886.0)).results["bound"],
        "compute"
    );
}

#[test]
fn lec_7_8_decode_and_prefill_intensity() {
    let params = 6.74e9;
    let decode = pt(
        &h100(),
        "bf16",
        Work::Totals {
            flops: 2.0 * params,
            bytes: 2.0 * params,
        },
    );
    close(
        "lec-7.8-decode-intensity",
        num(&decode, "intensity_flop_per_byte"),
        1.0,
        0.0,
    );
    let prefill = pt(
        &h100(),
        "bf16",
        Work::Totals {
            flops: 2.0 * 4096.0 * params,
            bytes: 2.0 * params,
        },
    );
    close(
        "lec-7.8-prefill-intensity",
        num(&prefill, "intensity_flop_per_byte"),
        4100.0,
        0.005,
    );
    assert_eq!(prefill.results["bound"], "compute");
}

#[test]
fn lec_7_8_and_ex4_compute_floors() {
    let r = pt(&h100(), "bf16", square(4096.0));
    close(
        "lec-7.8-4096-compute-floor",
        num(&r, "time_s") * 1e3,
        0.139,
        0.005,
    );
    assert_eq!(num(&r, "time_s"), num(&r, "compute_time_s"));
    let r = pt(&h100(), "bf16", square(8192.0));
    close("lec-ex4-floor", num(&r, "time_s") * 1e3, 1.11, 0.003);
}

#[test]
fn lec_ex4_block256_is_memory_bound() {
    // lec-ex4-block256-bound: a 256 tile at bf16 gives BLOCK / b = 128 FLOP/B.
    let r = pt(&h100(), "bf16", Work::Intensity(256.0 / 2.0));
    close(
        "lec-ex4-block256-bound",
        num(&r, "intensity_flop_per_byte"),
        128.0,
        0.0,
    );
    assert_eq!(r.results["bound"], "memory");
}

#[test]
fn lec_7_11_and_7_13_a100() {
    close("lec-7.11-a100-ridge", ridge(&a100(), "bf16"), 153.0, 0.002);
    close(
        "lec-7.13-a100-ridge-table",
        ridge(&a100(), "bf16"),
        153.0,
        0.002,
    );
    let h = pt(&h100(), "bf16", Work::Intensity(1.0));
    let a = pt(&a100(), "bf16", Work::Intensity(1.0));
    close(
        "lec-7.13-a100-h100-compute",
        num(&h, "peak_flops_per_s") / num(&a, "peak_flops_per_s"),
        3.2,
        0.015,
    );
    close(
        "lec-7.13-a100-h100-bw",
        num(&h, "bandwidth_bytes_per_s") / num(&a, "bandwidth_bytes_per_s"),
        1.6,
        0.03,
    );
    close(
        "lec-7.13-a100-h100-ridge",
        num(&h, "ridge_point_flop_per_byte") / num(&a, "ridge_point_flop_per_byte"),
        1.9,
        0.02,
    );
}

#[test]
fn book_1_2_a100_ridge_at_1_5_tbps() {
    let a = hw(
        "tests/data/occupancy/a100.toml",
        &["memory.hbm-bandwidth=1.5 TB/s"],
    );
    close("book-1.2-a100-ridge", ridge(&a, "bf16"), 208.0, 0.0);
}

#[test]
fn lec_7_12_tpu_v1_ridge() {
    // TPU v1 described by --set on a GPU file: only peak and bandwidth matter.
    let tpu = hw(
        "h100-sxm",
        &["compute.dense.int8=92 TOPS", "memory.hbm-bandwidth=34 GB/s"],
    );
    let t = ridge(&tpu, "int8");
    close("lec-7.12-tpu-ridge", t, 2700.0, 0.005);
    close("lec-7.13-tpu-ridge-table", t, 2700.0, 0.005);
    close(
        "lec-7.12-tpu-ridge-vs-h100",
        t / ridge(&h100(), "bf16"),
        10.0,
        0.1,
    );
}

#[test]
fn book_6_2_mi355x_and_tpu7x_ridges() {
    let mi355x = hw(
        "h100-sxm",
        &[
            "compute.dense.fp8=5 PFLOP/s",
            "compute.dense.fp4=10 PFLOP/s",
            "memory.hbm-bandwidth=8 TB/s",
        ],
    );
    close(
        "book-6.2-mi355x-fp8-ridge",
        ridge(&mi355x, "fp8"),
        625.0,
        0.0,
    );
    close(
        "book-6.2-mi355x-fp4-ridge",
        ridge(&mi355x, "fp4"),
        1250.0,
        0.0,
    );
    let mi300x = hw("h100-sxm", &["compute.dense.fp8=2.6 PFLOP/s"]);
    let peak = |h: &Hardware| num(&pt(h, "fp8", Work::Intensity(1.0)), "peak_flops_per_s");
    close(
        "book-6.2-mi355x-gen-gain",
        peak(&mi355x) / peak(&mi300x),
        1.9,
        0.015,
    );
    let tpu7x = hw(
        "h100-sxm",
        &[
            "compute.dense.bf16=2307 TFLOP/s",
            "compute.dense.fp8=4614 TFLOP/s",
            "memory.hbm-bandwidth=7.38 TB/s",
        ],
    );
    close(
        "book-6.2-tpu7x-bf16-ridge",
        ridge(&tpu7x, "bf16"),
        312.6,
        0.001,
    );
    close(
        "book-6.2-tpu7x-fp8-vs-bf16",
        ridge(&tpu7x, "fp8") / ridge(&tpu7x, "bf16"),
        2.0,
        0.0,
    );
}

// Roofline cases no command computes, and why: book-2.3-cublas-h100-frac,
// book-2.3-deepgemm-frac, book-2.4-fa2-mfu, book-2.4-fa3-util,
// book-2.4-fa3-fp8-util and book-2.4-fa2-h100-tflops divide (or multiply) a
// measured kernel rate by a datasheet peak, and no command takes a measured
// rate; book-6.2-nki-compute-bound-target and book-6.2-nki-mbu-target are
// guidelines, not arithmetic.

// -------------------------------------------------------------- coalescing

fn co(dtype: &str, stride: u64, offset: u64, g: Granularity) -> Report {
    let a = Access {
        stride,
        offset,
        granularity: g,
    };
    coalesce(
        &h100(),
        precision::lookup(dtype).unwrap(),
        Mode::SpeedOfLight,
        &a,
    )
    .unwrap()
}

#[test]
fn lec_7_6_segment_table() {
    use Granularity::Segment;
    // Case ids for segments, bytes moved, efficiency and effective bandwidth;
    // dtype, stride, offset; the table's segments, bytes moved, efficiency,
    // effective GB/s.
    let table = [
        (
            [
                "lec-7.6-aligned-segments",
                "lec-7.6-aligned-moved",
                "lec-7.6-aligned-efficiency",
                "lec-7.6-aligned-eff-bw",
            ],
            ("fp32", 1, 0),
            (1.0, 128.0, 1.0, Some(3350.0)),
        ),
        (
            [
                "lec-7.6-misaligned-segments",
                "lec-7.6-misaligned-moved",
                "lec-7.6-misaligned-efficiency",
                "",
            ],
            ("fp32", 1, 4),
            (2.0, 256.0, 0.5, None),
        ),
        (
            [
                "lec-7.6-stride2-segments",
                "lec-7.6-stride2-moved",
                "lec-7.6-stride2-efficiency",
                "lec-7.6-stride2-eff-bw",
            ],
            ("fp32", 2, 0),
            (2.0, 256.0, 0.5, Some(1675.0)),
        ),
        (
            [
                "lec-7.6-stride32-segments",
                "lec-7.6-stride32-moved",
                "lec-7.6-stride32-efficiency",
                "lec-7.6-stride32-eff-bw",
            ],
            ("fp32", 32, 0),
            (32.0, 4096.0, 0.03125, Some(105.0)),
        ),
        (
            [
                "lec-7.6-stride64-fp16-segments",
                "lec-7.6-stride64-fp16-moved",
                "lec-7.6-stride64-fp16-efficiency",
                "lec-7.6-stride64-fp16-eff-bw",
            ],
            ("fp16", 64, 0),
            (32.0, 4096.0, 0.015625, Some(52.0)),
        ),
    ];
    for (ids, (dtype, stride, offset), (segs, moved, eff, gbps)) in table {
        let r = co(dtype, stride, offset, Segment);
        close(ids[0], num(&r, "units_touched"), segs, 0.0);
        close(ids[1], num(&r, "moved_bytes"), moved, 0.0);
        close(ids[2], num(&r, "efficiency"), eff, 0.0);
        if let Some(g) = gbps {
            let bw = num(&r, "effective_bandwidth_bytes_per_s") / 1e9;
            close(ids[3], bw, g, 0.01);
        }
    }
    // The table's "~1 amortised over a stream" for the misaligned warp.
    let r = co("fp32", 1, 4, Segment);
    close(
        "lec-7.6 misaligned amortised",
        num(&r, "stream_efficiency"),
        1.0,
        0.0,
    );
}

#[test]
fn lec_7_6_full_segment_strides() {
    let r = co("fp16", 1, 0, Granularity::Segment);
    close(
        "lec-7.6-fp16-full-segment-stride",
        num(&r, "full_unit_stride_elems"),
        64.0,
        0.0,
    );
    let r = co("fp32", 1, 0, Granularity::Segment);
    close(
        "lec-7.6-fp32-full-segment-stride",
        num(&r, "full_unit_stride_elems"),
        32.0,
        0.0,
    );
}

#[test]
fn lec_ex3_fp16_column_read() {
    let r = co("fp16", 4096, 0, Granularity::Segment);
    close("lec-ex3-stride-bytes", num(&r, "stride_bytes"), 8192.0, 0.0);
    close("lec-ex3-moved", num(&r, "moved_bytes"), 4096.0, 0.0);
    close("lec-ex3-useful", num(&r, "useful_bytes"), 64.0, 0.0);
    close(
        "lec-ex3-eff-bw",
        num(&r, "effective_bandwidth_bytes_per_s") / 1e9,
        52.0,
        0.01,
    );
    // Staging through shared memory makes the read coalesced: efficiency 1.
    close("lec-ex3-recovery", num(&r, "slowdown"), 64.0, 0.0);
}

#[test]
fn sector_rule_of_the_chapter_and_the_book() {
    use Granularity::Sector;
    let r = co("fp32", 1, 0, Sector);
    close("ch-coalesced-bytes", num(&r, "useful_bytes"), 128.0, 0.0);
    close("ch-coalesced-sectors", num(&r, "units_touched"), 4.0, 0.0);
    close(
        "book-1.2-coalesced-transactions",
        num(&r, "units_touched"),
        4.0,
        0.0,
    );
    let r = co("fp32", 2, 0, Sector);
    close(
        "book-1.2-stride2-efficiency",
        num(&r, "efficiency") * 100.0,
        50.0,
        0.0,
    );
    let r = co("fp32", 32, 0, Sector);
    close("ch-stride32-sectors", num(&r, "units_touched"), 32.0, 0.0);
    close(
        "book-1.2-stride-max-segments",
        num(&r, "units_touched"),
        32.0,
        0.0,
    );
    close("ch-stride32-bytes", num(&r, "moved_bytes"), 1024.0, 0.0);
    close(
        "ch-stride32-efficiency",
        num(&r, "efficiency") * 100.0,
        12.5,
        0.0,
    );
    close(
        "book-1.2-stride-max-efficiency",
        num(&r, "efficiency") * 100.0,
        12.5,
        0.0,
    );
}

// Coalescing cases no command computes, and why: lec-7.6-strided-decode-tps
// (4.0 ms x 32 = 128 ms per token: decode arithmetic), lec-ex3-tile-bytes and
// lec-ex3-tile-frac (the shared-memory staging tile's size), and
// book-2.1-transpose-stride-bytes, book-2.1-naive-transpose-frac,
// book-2.1-tiled-transpose-frac, book-2.1-smem-copy-frac,
// book-2.1-padded-transpose-frac (ratios of measured bandwidths on an old
// GPU with no hardware file).

#[test]
fn dram_granularity_and_default() {
    let h = hw("h100-sxm", &["memory.dram-fetch=64B"]);
    assert_eq!(Granularity::default_for(&h), Granularity::Dram);
    // The A100 fixture records no DRAM fetch unit: sector by default.
    assert_eq!(Granularity::default_for(&a100()), Granularity::Sector);
    let a = Access {
        stride: 32,
        offset: 0,
        granularity: Granularity::Dram,
    };
    let r = coalesce(
        &h,
        precision::lookup("fp32").unwrap(),
        Mode::SpeedOfLight,
        &a,
    )
    .unwrap();
    // ../shared/ground/README.md: strides 32 and 64 fall to about 1/16.
    close(
        "H200 measured stride 32",
        num(&r, "efficiency"),
        1.0 / 16.0,
        0.0,
    );
    let e = coalesce(
        &a100(),
        precision::lookup("fp32").unwrap(),
        Mode::SpeedOfLight,
        &a,
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert!(e.to_string().contains("memory.dram-fetch"), "{e}");
}

#[test]
fn stride_zero_is_an_error() {
    let a = Access {
        stride: 0,
        offset: 0,
        granularity: Granularity::Sector,
    };
    let e = coalesce(
        &h100(),
        precision::lookup("fp32").unwrap(),
        Mode::SpeedOfLight,
        &a,
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert!(e.to_string().contains("--stride"));
}

// ------------------------------------------------------------ Little's law

fn lecture(h: &Hardware, cycles: f64, clock: f64, warps: Option<u64>) -> Report {
    let d = Demand {
        latency: Some(Latency::Cycles(cycles)),
        clock_hz: Some(clock),
        transaction: Some(128.0),
        warps,
        ..Demand::default()
    };
    littles_law(h, &d).unwrap()
}

#[test]
fn lec_7_4_littles_law() {
    let r = lecture(&h100(), 500.0, 1.8e9, None);
    close(
        "lec-7.4-bytes-per-cycle",
        num(&r, "bytes_per_cycle"),
        1861.0,
        0.001,
    );
    close(
        "lec-7.4-bytes-in-flight",
        num(&r, "bytes_in_flight") / 1e6,
        0.93,
        0.005,
    );
    close(
        "lec-7.4-loads-in-flight",
        num(&r, "loads_in_flight"),
        7270.0,
        0.001,
    );
    close("lec-7.4-loads-per-sm", num(&r, "loads_per_sm"), 55.0, 0.01);
    close(
        "lec-7.4-warps-available",
        num(&r, "warps_available"),
        64.0,
        0.0,
    );
    close(
        "lec-7.4-pointer-chase-rate",
        num(&r, "pointer_chase_loads_per_s"),
        3.6e6,
        0.0,
    );
    close(
        "lec-7.4-pointer-chase-bw",
        num(&r, "pointer_chase_bytes_per_s") / 1e6,
        29.0,
        0.01,
    );
    close(
        "lec-7.4-pointer-chase-ratio",
        num(&r, "pointer_chase_slowdown"),
        116_000.0,
        0.005,
    );
    // memory-hierarchy cases the same report answers:
    close(
        "lec-7.3-latency-ns",
        num(&r, "latency_s") * 1e9,
        278.0,
        0.002,
    );
    close(
        "lec-7.3-hbm-per-sm",
        num(&r, "bandwidth_per_sm_bytes_per_s") / 1e9,
        25.4,
        0.002,
    );
    close(
        "lec-7.3-hbm-per-sm-cycle",
        num(&r, "bytes_per_cycle_per_sm"),
        14.1,
        0.002,
    );
    // lec-7.3-sm-shortfall: 4 schedulers x 32 lanes x 4 B a cycle against
    // the SM's share of HBM.
    close(
        "lec-7.3-sm-shortfall",
        4.0 * 32.0 * 4.0 / num(&r, "bytes_per_cycle_per_sm"),
        36.0,
        0.01,
    );
}

#[test]
fn lec_7_4_sensitivity() {
    let at = |c| num(&lecture(&h100(), c, 1.8e9, None), "loads_per_sm");
    close("lec-7.4-sens-400", at(400.0), 44.0, 0.01);
    close("lec-7.4-sens-600", at(600.0), 66.0, 0.01);
}

#[test]
fn lec_ex1_loads_per_warp() {
    // 32 resident warps (exercise 1's occupancy) against 55 loads per SM.
    let r = lecture(&h100(), 500.0, 1.8e9, Some(32));
    close(
        "lec-ex1-loads-per-warp",
        num(&r, "loads_per_warp"),
        2.0,
        0.0,
    );
}

#[test]
fn lec_ex2_a100() {
    let r = lecture(&a100(), 500.0, 1.4e9, None);
    close(
        "lec-ex2-latency-ns",
        num(&r, "latency_s") * 1e9,
        357.0,
        0.002,
    );
    close(
        "lec-ex2-bytes-in-flight",
        num(&r, "bytes_in_flight"),
        728_000.0,
        0.002,
    );
    close(
        "lec-ex2-transactions",
        num(&r, "loads_in_flight"),
        5690.0,
        0.002,
    );
    close("lec-ex2-per-sm", num(&r, "loads_per_sm"), 53.0, 0.01);
}

#[test]
fn negative_latency_is_an_error() {
    let d = Demand {
        latency: Some(Latency::Cycles(-500.0)),
        ..Demand::default()
    };
    let e = littles_law(&h100(), &d).unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert!(e.to_string().contains("--latency"));
}

#[test]
fn defaults_come_from_the_hardware_file() {
    // h100-sxm's own DRAM latency (cycles) and boost clock.
    let h = h100();
    let r = littles_law(&h, &Demand::default()).unwrap();
    let want = h.memory.dram_latency.unwrap().get() / h.compute.clock.unwrap().get();
    close("h100 default latency", num(&r, "latency_s"), want, 1e-12);
}

// Memory-hierarchy cases no command of this set computes: capacities and
// aggregate shared-memory figures (ch-smem-aggregate-capacity,
// ch-smem-aggregate-bw, lec-7.1-regfile-chip, lec-7.1-regfile-per-sm,
// lec-7.3-smem-chip, lec-7.3-smem-bw, lec-7.3-smem-vs-hbm,
// lec-7.3-onchip-total, lec-7.3-weights-vs-onchip, lec-7.3-latency-ratio,
// lec-7.12-tpu-ub-MB, book-2.4-a100-sram-total, book-2.4-sram-vs-hbm,
// book-6.2-mi355x-l2-total, book-6.2-mi355x-per-stack,
// book-6.2-tpu7x-hbm-sum, book-6.2-tpu7x-vreg-bytes, book-6.2-tpuv1-onchip,
// book-6.2-trn3-hbm-per-stack, book-6.2-trn3-sbuf-growth,
// book-6.2-trn3-sbuf-total, book-6.1-min-l1-at-max-carveout) are `hw show`'s
// and the catalog's, not these commands'.

// ------------------------------------------------ validation (docs/validation.md)

#[test]
fn h200_strided_reads_follow_the_64_byte_dram_fetch() {
    // ../shared/ground/h200-measured.json, strided_read_fp32_one_load_per_thread
    // (useful GB/s), measured on H200, 2026-11-29. Strides 1 and 2 are
    // limited by loads in flight (Little's law), not by fetch granularity.
    let h200 = hw("tests/data/occupancy/h200.toml", &[]);
    let fp32 = precision::lookup("fp32").unwrap();
    for (stride, measured) in [(4, 1161.7), (8, 580.4), (16, 290.8)] {
        let a = Access {
            stride,
            offset: 0,
            granularity: Granularity::default_for(&h200),
        };
        let r = coalesce(&h200, fp32, Mode::SpeedOfLight, &a).unwrap();
        let predicted = num(&r, "effective_bandwidth_bytes_per_s") / 1e9;
        let ratio = measured / predicted;
        assert!((0.95..=1.0).contains(&ratio), "stride {stride}: {ratio}");
    }
    // The 32-B sector model would predict stride 16 at 1/8, twice what
    // was measured; the 64-B fetch predicts 1/16.
    let sector = Access {
        stride: 16,
        offset: 0,
        granularity: Granularity::Sector,
    };
    let r = coalesce(&h200, fp32, Mode::SpeedOfLight, &sector).unwrap();
    assert!(290.8 / (num(&r, "effective_bandwidth_bytes_per_s") / 1e9) < 0.5);
}

#[test]
fn h200_stride_1_is_capped_by_loads_in_flight() {
    // One 128-B load per warp, 64 warps on each of 132 SMs, at the measured
    // HBM pointer-chase latency (348.9 ns): Little's law caps the kernel
    // below the datasheet; it measured 1,647 GB/s, about half the cap (the
    // model leaves out the latency growth under load).
    let h200 = hw("tests/data/occupancy/h200.toml", &[]);
    let d = Demand {
        latency: Some(Latency::Seconds(348.9e-9)),
        ..Demand::default()
    };
    let r = littles_law(&h200, &d).unwrap();
    let cap = num(&r, "one_load_per_warp_bandwidth_bytes_per_s");
    close("H200 one-load cap", cap / 1e12, 3.099, 0.001);
    assert!(1647.1e9 < cap);
    assert_eq!(num(&r, "loads_per_warp"), 2.0);
}

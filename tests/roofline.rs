//! `point` against the seeds' roofline cases (002 §7.4-§7.13 and exercise
//! 4, 000 §1.2 and §6.2) by golden id, expected values and tolerances from
//! tests/data/golden/seed_cases.toml; snapshots of its report.

use crate::common;

use common::*;
use roofline::calc::point::{self, PointCost, PointInputs};
use roofline::calc::roof::Bound;
use roofline::render::{Explain, Format, Renderer};
use roofline::spec::hardware::{Hardware, Mode};

fn at(h: &Hardware, dtype: &str, intensity: f64) -> PointCost {
    point::cost(
        h,
        &PointInputs::at_intensity(intensity, dtype),
        Mode::SpeedOfLight,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn totals(h: &Hardware, dtype: &str, flops: f64, bytes: f64) -> PointCost {
    point::cost(
        h,
        &PointInputs::totals(flops, bytes, dtype),
        Mode::SpeedOfLight,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn ridge(h: &Hardware, dtype: &str) -> f64 {
    at(h, dtype, 1.0).roof.ridge()
}

/// An n x n x n matmul whose three bf16 operands move once (002 §7.7):
/// 2n^3 FLOPs over 3 n^2 x 2 bytes.
fn square(h: &Hardware, n: f64) -> PointCost {
    totals(h, "bf16", 2.0 * n * n * n, 3.0 * n * n * 2.0)
}

#[test]
fn lec_intro_ridge_and_checklist() {
    let h = h100();
    check("lec-intro-ridge", ridge(&h, "bf16"));
    check("lec-7.13-h100-ridge-table", ridge(&h, "bf16"));
    let j = cli_json(&["point", "--hw", "h100-sxm", "--intensity", "1"]);
    check("lec-intro-ridge", json_num(&j, "ridge_point_flop_per_byte"));
}

#[test]
fn lec_7_7_fp8_ridge() {
    let h = h100();
    check("lec-7.7-fp8-ridge", ridge(&h, "fp8"));
    check(
        "lec-7.7-fp8-ridge-doubling",
        ridge(&h, "fp8") / ridge(&h, "bf16"),
    );
}

#[test]
fn lec_7_7_elementwise_ceiling() {
    let c = at(&h100(), "bf16", 1.0);
    check("lec-7.7-elementwise-ceiling", c.attainable / 1e12);
    let r = c.report(true);
    check(
        "lec-7.7-elementwise-frac",
        num(&r, "fraction_of_peak") * 100.0,
    );
    assert_eq!(c.bound, Bound::Memory);
}

#[test]
fn lec_7_7_square_matmul() {
    let h = h100();
    let c = square(&h, 128.0);
    check("lec-7.7-nn-intensity-formula", c.intensity);
    check(
        "lec-7.7-n128-util",
        num(&c.report(true), "fraction_of_peak") * 100.0,
    );
    // The largest n the tool still calls memory-bound: the crossing
    // n = 3 b ridge / 2 = 885.7 lies between it and the next.
    let last_memory_bound = (800..1000)
        .filter(|&n| square(&h, n as f64).bound == Bound::Memory)
        .max()
        .unwrap();
    check("lec-7.7-n-cross-ridge", last_memory_bound as f64);
    assert_eq!(square(&h, 886.0).bound, Bound::Compute);
}

#[test]
fn lec_7_8_decode_and_prefill_intensity() {
    // The lecture's per-parameter accounting, with the seed's inputs: 2
    // FLOPs and 2 bytes a weight at decode, 2 x tokens FLOPs a weight at
    // prefill with only the weights moved. `prefill` itself also counts
    // activations and the KV writes (docs/errata.md).
    let h = h100();
    let d = golden("lec-7.8-decode-intensity");
    let decode = totals(
        &h,
        "bf16",
        d.input("flops_per_param"),
        d.input("bytes_per_param"),
    );
    check("lec-7.8-decode-intensity", decode.intensity);
    assert_eq!(decode.bound, Bound::Memory);
    let p = golden("lec-7.8-prefill-intensity");
    let prefill = totals(
        &h,
        "bf16",
        p.input("tokens") * p.input("flops_per_param"),
        p.input("bytes_per_param"),
    );
    check("lec-7.8-prefill-intensity", prefill.intensity);
    assert_eq!(prefill.bound, Bound::Compute);
}

#[test]
fn lec_7_8_and_ex4_compute_floors() {
    let h = h100();
    let t = square(&h, 4096.0).time.unwrap();
    check("lec-7.8-4096-compute-floor", t.time_s * 1e3);
    assert_eq!(t.time_s, t.compute_s);
    check(
        "lec-ex4-floor",
        square(&h, 8192.0).time.unwrap().time_s * 1e3,
    );
}

#[test]
fn lec_ex4_block256_is_memory_bound() {
    // An 8192^3 bf16 matmul tiled at 256: each operand is read N / 256
    // times, 2 x N^2 x 2 B x (N / 256) bytes for 2 N^3 FLOPs. The tool
    // divides them and places the kernel below the ridge.
    let h = h100();
    let n: f64 = 8192.0;
    let c = totals(&h, "bf16", 2.0 * n.powi(3), 2.0 * n * n * 2.0 * (n / 256.0));
    check("lec-ex4-block256-bound", c.intensity);
    assert_eq!(c.bound, Bound::Memory);
    let j = cli_json(&[
        "point",
        "--hw",
        "h100-sxm",
        "--flops",
        "1099511627776",
        "--bytes",
        "8589934592",
    ]);
    check(
        "lec-ex4-block256-bound",
        json_num(&j, "intensity_flop_per_byte"),
    );
    assert_eq!(j["results"]["bound"], "memory");
}

#[test]
fn lec_7_11_and_7_13_a100() {
    let (h, a) = (h100(), hw("a100-sxm-80gb"));
    check("lec-7.11-a100-ridge", ridge(&a, "bf16"));
    check("lec-7.13-a100-ridge-table", ridge(&a, "bf16"));
    // The catalog's datasheet figures, as the tool reports them.
    let (hc, ac) = (at(&h, "bf16", 1.0), at(&a, "bf16", 1.0));
    check("lec-7.13-a100-h100-compute", hc.roof.peak / ac.roof.peak);
    check(
        "lec-7.13-a100-h100-bw",
        hc.roof.bandwidth / ac.roof.bandwidth,
    );
    check(
        "lec-7.13-a100-h100-ridge",
        hc.roof.ridge() / ac.roof.ridge(),
    );
}

#[test]
fn book_1_2_a100_ridge_at_1_5_tbps() {
    let a = hw_with("a100-sxm-80gb", &["memory.hbm-bandwidth=1.5 TB/s"]);
    check("book-1.2-a100-ridge", ridge(&a, "bf16"));
}

#[test]
fn lec_7_12_tpu_v1_ridge() {
    let t = ridge(&hw("tpu-v1"), "int8");
    check("lec-7.12-tpu-ridge", t);
    check("lec-7.13-tpu-ridge-table", t);
    check("lec-7.12-tpu-ridge-vs-h100", t / ridge(&h100(), "bf16"));
}

#[test]
fn book_6_2_mi355x_and_tpu7x_ridges() {
    let mi355x = hw("mi355x");
    check("book-6.2-mi355x-fp8-ridge", ridge(&mi355x, "fp8"));
    check("book-6.2-mi355x-fp4-ridge", ridge(&mi355x, "fp4"));
    let tpu7x = hw("tpu7x");
    check("book-6.2-tpu7x-bf16-ridge", ridge(&tpu7x, "bf16"));
    check(
        "book-6.2-tpu7x-fp8-vs-bf16",
        ridge(&tpu7x, "fp8") / ridge(&tpu7x, "bf16"),
    );
    // The catalog's MI355X and MI300X fp8 peaks, as the tool reports them.
    let gain = at(&mi355x, "fp8", 1.0).roof.peak / at(&hw("mi300x"), "fp8", 1.0).roof.peak;
    check("book-6.2-mi355x-gen-gain", gain);
}

#[test]
fn snapshots() {
    let h = fixture("h200");
    let r = at(&h, "bf16", 1.0).report(false);
    insta::assert_snapshot!(
        "point_table",
        String::from_utf8(Format::Table.renderer().render(&r)).unwrap()
    );
    insta::assert_json_snapshot!("point_json", r);
    let n: f64 = 4096.0;
    let r = totals(&h, "bf16", 2.0 * n.powi(3), 3.0 * n * n * 2.0).report(false);
    insta::assert_snapshot!(
        "point_totals_explain",
        String::from_utf8(Explain.render(&r)).unwrap()
    );
}

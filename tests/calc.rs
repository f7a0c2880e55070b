//! `calc`, `dtype` and `--measured` through the command line: golden cases
//! that had no command (quotients of catalog figures, a measured rate over
//! a peak, number formats), each against the golden file's own number.

use crate::common::{self, check, check_si, cli_err, cli_json, json_num};

fn calc(expr: &str) -> f64 {
    json_num(&cli_json(&["calc", expr]), "value")
}

fn dtype(name: &str, key: &str) -> f64 {
    json_num(&cli_json(&["dtype", name]), key)
}

#[test]
fn measured_rates_over_catalog_peaks() {
    // 716 TFLOP/s of cuBLAS over the H100's 989 dense BF16 (the book, §2.3).
    check_si(
        "book-2.3-cublas-h100-frac",
        calc("716 TFLOP/s / h100-sxm.compute.dense.bf16"),
    );
    // FlashAttention-2's 225 TFLOP/s over the A100's 312 (§2.4).
    check_si(
        "book-2.4-fa2-mfu",
        calc("225 TFLOP/s / a100-sxm-80gb.compute.dense.bf16"),
    );
}

#[test]
fn the_inverse_occupancy_question() {
    // 40% of the H100's 64 warps per SM (lecture §7.5).
    check(
        "lec-7.5-occ40-warps",
        calc("40% * h100-sxm.execution.max-warps-per-sm"),
    );
}

#[test]
fn number_formats_from_dtype() {
    check("book-6.1-mx-block", dtype("mxfp4", "block_size"));
    check("book-6.1-nvfp4-block", dtype("nvfp4", "block_size"));
    check("book-glossary-tf32-bits", dtype("tf32", "element_bits"));
    assert_eq!(dtype("e4m3", "max_normal"), 448.0);
    assert_eq!(dtype("e5m2", "max_normal"), 57344.0);
    assert_eq!(dtype("nvfp4", "bits_per_element"), 4.5);
    assert_eq!(dtype("nvfp4", "scale_bits"), 8.0);
}

#[test]
fn measured_time_gives_mfu_and_mbu() {
    // 137.4 GFLOP in 192 us is 715.6 TFLOP/s, 72.36% of 989; 100.7 MB in
    // 192 us is 524.5 GB/s, 15.66% of 3.35 TB/s (by hand).
    let v = cli_json(&[
        "point",
        "--hw",
        "h100-sxm",
        "--flops",
        "137.4GFLOP",
        "--bytes",
        "100.7MB",
        "--measured",
        "192us",
    ]);
    common::close("mfu", json_num(&v, "mfu"), 137.4e9 / 192e-6 / 989e12, 1e-12);
    common::close(
        "mbu",
        json_num(&v, "mbu"),
        100.7e6 / 192e-6 / 3.35e12,
        1e-12,
    );
}

#[test]
fn bad_expressions_exit_65_naming_the_fault() {
    let e = cli_err(&["calc", "1 TFLOP/s + 1 TB/s"], 65);
    assert!(e.contains("cannot add FLOP/s and B/s"), "{e}");
    let e = cli_err(&["calc", "h100-sxm.compute.dense.bf17"], 65);
    assert!(e.contains("h100-sxm.compute.dense.bf16"), "{e}");
    let e = cli_err(&["calc", "80 GBB"], 65);
    assert!(e.contains("unknown unit `GBB`"), "{e}");
    let e = cli_err(&["dtype", "fp7"], 65);
    assert!(e.contains("unknown number format"), "{e}");
}

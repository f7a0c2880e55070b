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
fn measured_rates_over_catalog_peaks_beyond_the_a100() {
    // DeepGEMM's 1,550 TFLOP/s over the H800's 1,979 dense FP8 (§2.3).
    check_si(
        "book-2.3-deepgemm-frac",
        calc("1550 TFLOP/s / h800.compute.dense.fp8"),
    );
    // FlashAttention-3: 740 TFLOP/s at FP16 and 1.2 PFLOP/s at FP8 over
    // the H100's 989 and 1,979 (§2.4).
    check_si(
        "book-2.4-fa3-util",
        calc("740 TFLOP/s / h100-sxm.compute.dense.fp16"),
    );
    check_si(
        "book-2.4-fa3-fp8-util",
        calc("1.2 PFLOP/s / h100-sxm.compute.dense.fp8"),
    );
    // FlashAttention-2's 35% of the H100's 989: 346 TFLOP/s (§2.4).
    check_si(
        "book-2.4-fa2-h100-tflops",
        calc("35% * h100-sxm.compute.dense.bf16"),
    );
    // The naive kernel's 2 x 4092^3 FLOPs at a measured 309 GFLOP/s (§2.2).
    check_si(
        "book-2.2-naive-runtime",
        calc("2 FLOP * 4092^3 / 309 GFLOP/s"),
    );
}

#[test]
fn quotients_and_differences_of_catalog_figures() {
    // Trainium3's MXFP8 over its BF16, per core: 315 / 79 (§6.2).
    check(
        "book-6.2-trn3-mx-vs-bf16",
        calc("trainium3.compute.dense.fp8 / trainium3.compute.dense.bf16"),
    );
    // "a cache you share with 131 other SMs": the H100's 132 less one.
    check("lec-7.8-other-sms", calc("h100-sxm.execution.sms - 1"));
    // Exercise 3's 32 x 32 bf16 staging tile: 2 KiB, 0.9% of 228 KiB.
    check_si("lec-ex3-tile-bytes", calc("32 * 32 * 2 B"));
    check_si(
        "lec-ex3-tile-frac",
        calc("32 * 32 * 2 B / h100-sxm.memory.levels.shared-memory.capacity"),
    );
}

#[test]
fn fields_of_the_parts_the_sources_use() {
    // "48 for compute capability 12.0 devices" (000 §6.1): the RTX 5090.
    check(
        "hw-blackwell-warps-cc120",
        calc("rtx-5090.execution.max-warps-per-sm"),
    );
    // TPU v4 pods of 4,096 chips (000 §6.2; Google's v4 table).
    check(
        "book-6.2-tpuv4-chips",
        calc("tpu-v4.interconnect.ici.domain-size"),
    );
    // Google's v4 table: 275 TFLOP/s over 1,200 GB/s, a ridge of 229.2.
    common::close(
        "tpu-v4 ridge",
        calc("tpu-v4.compute.dense.bf16 / tpu-v4.memory.hbm-bandwidth"),
        275e12 / 1200e9,
        1e-12,
    );
    // The A100's two parts: 2,039 over 1,555 GB/s.
    common::close(
        "a100 80 over 40",
        calc("a100-sxm-80gb.memory.hbm-bandwidth / a100-sxm-40gb.memory.hbm-bandwidth"),
        2039.0 / 1555.0,
        1e-12,
    );
    // The V100's 125 TFLOP/s FP16 over 900 GB/s: 138.9 FLOP/B.
    let v = cli_json(&["point", "--hw", "v100-sxm2", "--intensity", "1"]);
    common::close(
        "v100 ridge",
        json_num(&v, "ridge_point_flop_per_byte"),
        125e12 / 900e9,
        1e-12,
    );
    // "grew 4x larger than v3's, to 4,096 chips": v3's pod is the v4
    // pod over 4.
    check(
        "book-6.2-tpuv3-chips",
        calc("tpu-v4.interconnect.ici.domain-size / 4"),
    );
    // TPU v4 publishes no TDP: a command that needs it names the field.
    let e = cli_err(&["calc", "tpu-v4.package.tdp-watts"], 65);
    assert!(e.contains("package"), "{e}");
}

#[test]
fn small_products_the_sources_work() {
    // A warpgroup: four warps of the H100's 32 threads (§2.3).
    check(
        "book-2.3-warpgroup-threads",
        calc("4 * h100-sxm.execution.warp-size"),
    );
    // The lecture's b·MNK for a 4096^3 bf16 GEMM: 2 B x 4096^3 = 137.4 GB.
    check_si("lec-7.8-4096-bMNK", calc("2 B * 4096^3"));
    // 128 ms a token (4.0 ms x 32 strided reads) is about 8 tokens a second.
    check("lec-7.6-strided-decode-tps", calc("1 / (4 ms * 32) * 1 s"));
}

#[test]
fn ids_with_dots_read_through_calc() {
    // Llama 3.1's config.json: 80 layers of 8,192 for 70B, 126 of 16,384
    // for 405B.
    assert_eq!(calc("llama-3.1-70b.layers"), 80.0);
    assert_eq!(
        calc("llama-3.1-405b.hidden-size / llama-3.1-70b.hidden-size"),
        2.0
    );
    assert_eq!(calc("llama-3.1-405b.layers - llama-3.1-70b.layers"), 46.0);
    let e = cli_err(&["calc", "llama-3.1-700b.layers"], 65);
    assert!(e.contains("did you mean `llama-3.1-70b.layers`"), "{e}");
}

#[test]
fn the_inverse_occupancy_question() {
    // 40% of the H100's 64 warps per SM (lecture §7.5).
    check(
        "lec-7.5-occ40-warps",
        calc("40% * h100-sxm.execution.max-warps-per-sm"),
    );
    let v = cli_json(&["occupancy", "--hw", "h100-sxm", "--target-occupancy", "40%"]);
    check("lec-7.5-occ40-warps", json_num(&v, "target_warps"));
    // 25.6 warps: 26 whole ones reach 40%.
    assert_eq!(json_num(&v, "warps_needed"), 26.0);
}

fn solve(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["occupancy"];
    a.extend_from_slice(args);
    cli_json(&a)
}

#[test]
fn the_most_registers_for_full_occupancy() {
    // Full occupancy on cc 7.0 (V100) and on the H100: 64 warps of 65,536
    // registers, 16 warps per partition of 16,384, so a warp may have
    // 1,024 registers, 32 a thread (already a multiple of the 256-register
    // unit). One more, 33, allocates 33 x 32 = 1,056 -> 1,280 a warp,
    // 12 warps a partition, 48 of 64 (75%).
    let v = solve(&[
        "--hw",
        "v100-sxm2",
        "--threads",
        "256",
        "--solve",
        "registers",
    ]);
    check(
        "book-1.2-cc70-regs-full-occ",
        json_num(&v, "registers_per_thread"),
    );
    let v = solve(&[
        "--hw",
        "h100-sxm",
        "--threads",
        "256",
        "--solve",
        "registers",
    ]);
    assert_eq!(json_num(&v, "registers_per_thread"), 32.0);
    assert_eq!(json_num(&v, "occupancy"), 1.0);
    // For 50%: 8 warps a partition, 2,048 registers a warp, 64 a thread.
    let v = solve(&[
        "--hw",
        "h100-sxm",
        "--threads",
        "256",
        "--solve",
        "registers",
        "--target-occupancy",
        "50%",
    ]);
    assert_eq!(json_num(&v, "registers_per_thread"), 64.0);
}

#[test]
fn the_most_shared_memory_and_threads_for_a_target() {
    // 50% of 64 warps with 256-thread blocks is 4 blocks: 228 KiB / 4 =
    // 57 KiB a block, less the 1 KiB reservation, 56 KiB (a multiple of
    // the 128 B unit, so no rounding); 56 KiB + 1 B rounds to 57 KiB +
    // 128 B and only 3 blocks fit.
    let v = solve(&[
        "--hw",
        "h100-sxm",
        "--threads",
        "256",
        "--regs",
        "32",
        "--solve",
        "smem",
        "--target-occupancy",
        "50%",
    ]);
    assert_eq!(json_num(&v, "smem_per_block"), 56.0 * 1024.0);
    // Full occupancy: 8 blocks of 228 / 8 = 28.5 KiB, 27.5 KiB dynamic.
    let v = solve(&[
        "--hw",
        "h100-sxm",
        "--threads",
        "256",
        "--regs",
        "32",
        "--solve",
        "smem",
    ]);
    assert_eq!(json_num(&v, "smem_per_block"), 27.5 * 1024.0);
    // 64 registers a thread hold 8 warps a partition, 32 an SM: a 1,024-
    // thread block of 32 warps is the largest, at 50%.
    let v = solve(&[
        "--hw",
        "h100-sxm",
        "--regs",
        "64",
        "--solve",
        "threads",
        "--target-occupancy",
        "50%",
    ]);
    assert_eq!(json_num(&v, "threads_per_block"), 1024.0);
    // Full occupancy at 32 registers: 1,024 threads (2 blocks of 32 warps).
    let v = solve(&["--hw", "h100-sxm", "--regs", "32", "--solve", "threads"]);
    assert_eq!(json_num(&v, "threads_per_block"), 1024.0);
    // No thread count reaches full occupancy at 64 registers: exit 65,
    // naming the target.
    let e = cli_err(
        &[
            "occupancy",
            "--hw",
            "h100-sxm",
            "--regs",
            "64",
            "--solve",
            "threads",
        ],
        65,
    );
    assert!(e.contains("target-occupancy"), "{e}");
}

#[test]
fn the_n_at_which_a_square_matmul_reaches_the_ridge() {
    // 2n^3 / (3 x 2 x n^2) = 295.2 at n = 3 x 2 x 295.2 / 2 = 885.7: the
    // largest n still memory-bound is 885 (lecture §7.7).
    let v = cli_json(&["matmul", "--hw", "h100-sxm", "--solve", "ridge"]);
    check("lec-7.7-n-cross-ridge", json_num(&v, "last_memory_bound_n"));
    common::close(
        "ridge_n",
        json_num(&v, "ridge_n"),
        3.0 * 2.0 * (989e12 / 3.35e12) / 2.0,
        1e-12,
    );
    assert_eq!(json_num(&v, "first_compute_bound_n"), 886.0);
    // FP8: one byte an element and twice the peak, the same n.
    let v = cli_json(&[
        "matmul", "--hw", "h100-sxm", "--solve", "ridge", "--dtype", "fp8",
    ]);
    common::close(
        "ridge_n fp8",
        json_num(&v, "ridge_n"),
        3.0 * (1979e12 / 3.35e12) / 2.0,
        1e-12,
    );
    let e = cli_err(&["matmul", "--solve", "ridge", "--m", "4096"], 65);
    assert!(e.contains("has no part in --solve ridge"), "{e}");
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

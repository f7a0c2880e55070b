//! Occupancy against NVIDIA's calculator (all 200 rows of
//! ../shared/ground/occupancy-sample.csv, copied to tests/data/occupancy/, on the fixture files of
//! tests/data/occupancy/) and the seeds' worked examples, by golden id.

use roofline::calc::occupancy::{Kernel, limits, occupancy};
use roofline::catalog::Catalog;
use roofline::spec::hardware::Hardware;

fn fixture(id: &str) -> Hardware {
    Catalog::default()
        .hardware(&format!("tests/data/occupancy/{id}.toml"), &[])
        .unwrap_or_else(|e| panic!("{e}"))
}

fn h100() -> Hardware {
    Catalog::default().hardware("h100-sxm", &[]).unwrap()
}

fn kernel(threads: u64, regs: u64, smem: u64) -> Kernel {
    Kernel {
        threads,
        regs,
        smem,
        ..Kernel::default()
    }
}

fn num(r: &roofline::report::Report, k: &str) -> f64 {
    r.number(k).unwrap_or_else(|| panic!("no {k}"))
}

const SAMPLE: &str = include_str!("data/occupancy/occupancy-sample.csv");

/// Runs every CSV row whose device is in `devices` and returns how many ran
/// and the rows whose blocks per SM differ from NVIDIA's.
fn check_rows(devices: &[(&str, Hardware)]) -> (usize, Vec<String>) {
    let mut rows = 0;
    let mut wrong = Vec::new();
    for line in SAMPLE.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.trim().split(',').collect();
        let Some((_, hw)) = devices.iter().find(|(n, _)| *n == f[0]) else {
            continue;
        };
        let k = kernel(
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        let want: u64 = f[4].parse().unwrap();
        let got = limits(hw, &k).unwrap().blocks_per_sm();
        if got != want {
            wrong.push(format!("{line}: got {got}"));
        }
        rows += 1;
    }
    (rows, wrong)
}

#[test]
fn all_200_rows_of_nvidias_calculator() {
    let devices: Vec<(&str, Hardware)> = [
        ("H200", "h200"),
        ("A100", "a100"),
        ("B200", "b200"),
        ("RTX5090", "rtx5090"),
        ("V100", "v100"),
    ]
    .into_iter()
    .map(|(name, id)| (name, fixture(id)))
    .collect();
    let (rows, wrong) = check_rows(&devices);
    assert_eq!(rows, 200);
    assert!(
        wrong.is_empty(),
        "{} rows differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

// The built-in catalog files of the three sampled parts that ship with the
// tool must give NVIDIA's answers too, not only the fixtures.
#[test]
fn builtin_catalog_files_match_nvidias_calculator() {
    let cat = Catalog::default();
    let devices: Vec<(&str, Hardware)> = [
        ("H200", "h200-sxm"),
        ("A100", "a100-sxm-80gb"),
        ("B200", "b200"),
    ]
    .into_iter()
    .map(|(name, id)| {
        (
            name,
            cat.hardware(id, &[]).unwrap_or_else(|e| panic!("{e}")),
        )
    })
    .collect();
    let (rows, wrong) = check_rows(&devices);
    assert_eq!(rows, 120);
    assert!(
        wrong.is_empty(),
        "{} rows differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

fn run(hw: &Hardware, k: &Kernel) -> roofline::report::Report {
    occupancy(hw, k).unwrap_or_else(|e| panic!("{e}"))
}

fn textbook(threads: u64, regs: u64, smem: u64) -> Kernel {
    Kernel {
        textbook: true,
        ..kernel(threads, regs, smem)
    }
}

const KIB: u64 = 1024;

// 002 exercise 1: 64 registers, 256 threads, 32 KB of shared memory.
#[test]
fn lec_ex1_textbook() {
    let r = run(&h100(), &textbook(256, 64, 32 * KIB));
    assert_eq!(num(&r, "blocks_by_registers"), 4.0); // lec-ex1-blocks-regs
    assert_eq!(num(&r, "blocks_by_registers") * 256.0, 1024.0); // lec-ex1-threads-regs
    assert_eq!(num(&r, "blocks_by_smem"), 7.0); // lec-ex1-blocks-smem
    assert_eq!(num(&r, "blocks_by_smem") * 256.0, 1792.0); // lec-ex1-threads-smem
    assert_eq!(num(&r, "warps_per_sm"), 32.0); // lec-ex1-warps
    assert_eq!(num(&r, "occupancy"), 0.50); // lec-ex1-occupancy
    assert_eq!(r.results["limiter"], "registers");
}

// The same kernel under NVIDIA's rules: the 1 KiB reservation makes a
// block take 33 KiB, so shared memory holds 6 blocks, not 7; registers
// still bind at 4 blocks, 50%.
#[test]
fn lec_ex1_exact() {
    let r = run(&h100(), &kernel(256, 64, 32 * KIB));
    assert_eq!(num(&r, "blocks_by_registers"), 4.0);
    assert_eq!(num(&r, "blocks_by_smem"), 6.0);
    assert_eq!(num(&r, "occupancy"), 0.50);
}

// 004 "Latency hiding": 256 threads, 64 registers, 64 KiB: 3 blocks, 37.5%,
// by the textbook arithmetic and by NVIDIA's.
#[test]
fn ch_occ_both_modes() {
    for k in [textbook(256, 64, 64 * KIB), kernel(256, 64, 64 * KIB)] {
        let r = run(&h100(), &k);
        assert_eq!(num(&r, "blocks_by_registers"), 4.0); // ch-occ-blocks-regs
        assert_eq!(num(&r, "blocks_by_smem"), 3.0); // ch-occ-blocks-smem
        assert_eq!(num(&r, "blocks_by_threads"), 8.0); // ch-occ-blocks-threads
        assert_eq!(num(&r, "blocks_by_blocks"), 32.0);
        assert_eq!(num(&r, "blocks_per_sm"), 3.0); // ch-occ-resident-blocks
        assert_eq!(num(&r, "warps_per_sm"), 24.0); // ch-occ-warps
        assert_eq!(num(&r, "occupancy"), 0.375); // ch-occ-occupancy
        assert_eq!(r.results["limiter"], "smem");
    }
}

// 002 §7.5 register table: 32, 64, 128 registers per thread.
#[test]
fn lec_7_5_register_table() {
    for (regs, threads, warps, occ) in [
        (32, 2048.0, 64.0, 1.0), // lec-7.5-regs32-threads, lec-7.5-regs32-warps, lec-7.5-regs32-occupancy
        (64, 1024.0, 32.0, 0.5), // lec-7.5-regs64-threads, lec-7.5-regs64-warps, lec-7.5-regs64-occupancy
        (128, 512.0, 16.0, 0.25), // lec-7.5-regs128-threads, lec-7.5-regs128-warps, lec-7.5-regs128-occupancy
    ] {
        for k in [kernel(256, regs, 0), textbook(256, regs, 0)] {
            let r = run(&h100(), &k);
            assert_eq!(num(&r, "threads_per_sm"), threads, "{regs}");
            assert_eq!(num(&r, "warps_per_sm"), warps, "{regs}");
            assert_eq!(num(&r, "occupancy"), occ, "{regs}");
        }
    }
}

// book-1.2-cc70-regs-full-occ: on cc 7.0, 65,536 / 2,048 = 32 registers is
// the most a thread may use at full occupancy.
#[test]
fn book_1_2_cc70_regs_full_occupancy() {
    let v100 = fixture("v100");
    assert_eq!(num(&run(&v100, &kernel(256, 32, 0)), "occupancy"), 1.0);
    assert!(num(&run(&v100, &kernel(256, 33, 0)), "occupancy") < 1.0);
}

// book-6.1-cc120-threads: cc 12.0 holds 48 warps = 1,536 threads per SM.
#[test]
fn book_6_1_cc120_threads() {
    let r = run(&fixture("rtx5090"), &kernel(512, 16, 0));
    assert_eq!(num(&r, "warps_per_sm"), 48.0);
    assert_eq!(num(&r, "threads_per_sm"), 1536.0);
    assert_eq!(num(&r, "occupancy"), 1.0);
}

// lec-7.1-resident-threads: 132 SMs x 2,048 threads = 270,336 (the text's
// "a quarter of a million").
#[test]
fn lec_7_1_resident_threads() {
    let r = run(&h100(), &kernel(256, 32, 0));
    let sms = h100().execution.unwrap().sms.get() as f64;
    let total = num(&r, "threads_per_sm") * sms;
    assert_eq!(total, 270_336.0);
    assert!((total - 250_000.0).abs() <= 0.1 * 250_000.0);
}

// 004 opening: the fused RMSNorm launch at decode, one 512-thread block.
#[test]
fn ch_rmsnorm_decode_grid_of_one() {
    let k = Kernel {
        grid: Some(1),
        ..kernel(512, 32, 0)
    };
    let r = run(&h100(), &k);
    assert_eq!(num(&r, "warps_per_block"), 16.0); // ch-rmsnorm-decode-warps, ch-launch-bounds
    let frac = num(&r, "sm_fraction") * 100.0; // ch-rmsnorm-decode-sm-fraction
    assert!((frac - 0.76).abs() <= 0.005 * 0.76, "{frac}");
    assert_eq!(num(&r, "busy_sm_occupancy"), 0.25); // ch-rmsnorm-decode-occupancy
}

// 004: merge_attn_states, a 128-block grid of 128-thread blocks.
#[test]
fn ch_merge_grid() {
    let k = Kernel {
        grid: Some(128),
        ..kernel(128, 32, 0)
    };
    let r = run(&h100(), &k);
    assert_eq!(num(&r, "warps_per_block"), 4.0); // ch-merge-warps-per-block
    assert_eq!(num(&r, "sms_busy"), 128.0); // ch-merge-max-sms
    assert_eq!(num(&r, "busy_sm_occupancy"), 0.0625); // ch-merge-occupancy-one-block
}

// Golden occupancy cases no command computes, and why:
// - ch-rmsnorm-prefill-grid, ch-rmsnorm-decode-grid, ch-rmsnorm-max-block-small,
//   ch-rmsnorm-max-block-large, ch-rmsnorm-prefill-block-size, ch-rmsnorm-vec-size,
//   ch-rmsnorm-decode-block-size, ch-block-stride-iters, ch-merge-total-threads,
//   ch-merge-grid: a launcher's own arithmetic (gcd, ceil-div of vLLM's launch
//   code), which belongs to `launch` (another helper), not occupancy;
// - lec-7.5-occ40-warps (40% x 64 = 25.6 warps): the inverse question, a
//   multiplication no command asks;
// - book-1.1-vecadd-elements (4 x 256): grid x block, no occupancy in it;
// - book-2.2-volkov-occupancy: a GTX 280, which has no hardware file.

#[test]
fn bad_input_is_an_error() {
    let hw = h100();
    for (k, flag) in [
        (kernel(0, 32, 0), "--threads"),
        (kernel(2000, 32, 0), "--threads"),
        (kernel(256, 300, 0), "--regs"),
        (kernel(256, 32, 228 * KIB), "--smem"),
    ] {
        let e = occupancy(&hw, &k).unwrap_err();
        assert_eq!(e.exit_code(), 65);
        assert!(e.to_string().contains(flag), "{e}");
    }
}

#[test]
fn too_many_registers_per_block_is_zero_blocks() {
    // 1,024 threads x 128 registers = 131,072 > 65,536 per block: NVIDIA's
    // calculator answers 0, and so does the report.
    let r = run(&h100(), &kernel(1024, 128, 0));
    assert_eq!(num(&r, "blocks_per_sm"), 0.0);
    assert_eq!(r.results["limiter"], "registers");
}

#[test]
fn a_tpu_has_no_warps() {
    let mut tpu = h100();
    tpu.id = "tpu".into();
    tpu.kind = roofline::spec::hardware::Kind::Tpu;
    tpu.execution = None;
    let e = occupancy(&tpu, &kernel(256, 32, 0)).unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert!(e.to_string().contains("no SMs, warps"), "{e}");
}

#[test]
fn a_smaller_carveout_holds_fewer_blocks() {
    // 100 KiB asked for: a 32 KiB block (+1 KiB reserved) fits 3 times.
    let k = Kernel {
        carveout: Some(100 * KIB),
        ..kernel(128, 32, 32 * KIB)
    };
    let r = run(&h100(), &k);
    assert_eq!(num(&r, "smem_carveout_bytes"), 102_400.0);
    assert_eq!(num(&r, "blocks_by_smem"), 3.0);
    // 90 KiB rounds up to the 100 KiB carveout.
    let k = Kernel {
        carveout: Some(90 * KIB),
        ..k
    };
    assert_eq!(num(&run(&h100(), &k), "smem_carveout_bytes"), 102_400.0);
}

//! `occupancy` against NVIDIA's calculator (all 200 rows of
//! ../shared/ground/occupancy-sample.csv, copied to tests/data/occupancy/,
//! on the fixture files of tests/data/occupancy/), the seeds' worked
//! examples by golden id (expected values and tolerances from
//! tests/data/golden/seed_cases.toml, never re-typed), bad data, snapshots
//! of the report and properties of `occupancy::cost` over any input.

use crate::common;

use common::*;
use proptest::prelude::*;
use roofline::calc::occupancy::{self, Failure, Limiter, OccupancyCost, OccupancyInputs};
use roofline::inputs::{Bytes, Count};
use roofline::render::{Explain, Format, Renderer};
use roofline::spec::hardware::{Hardware, Mode};

fn occ<'a>(hw: &'a Hardware, k: &OccupancyInputs) -> OccupancyCost<'a> {
    occupancy::cost(hw, k, Mode::SpeedOfLight).unwrap_or_else(|e| panic!("{e}"))
}

fn kernel(threads: u64, regs: u64, smem: u64) -> OccupancyInputs {
    OccupancyInputs::new(threads, regs, smem)
}

fn textbook(threads: u64, regs: u64, smem: u64) -> OccupancyInputs {
    kernel(threads, regs, smem).textbook()
}

const KIB: u64 = 1024;

// ------------------------------------------------ NVIDIA's calculator

const SAMPLE: &str = include_str!("data/occupancy/occupancy-sample.csv");

/// Runs every CSV row whose device is in `devices` and returns how many ran
/// and the rows whose blocks per SM differ from NVIDIA's.
fn calculator_rows(devices: &[(&str, Hardware)]) -> (usize, Vec<String>) {
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
        // A kernel beyond a per-block limit (shared memory above the
        // opt-in) cannot launch: the calculator answers 0, and so must we.
        let got = match occupancy::cost(hw, &k, Mode::SpeedOfLight) {
            Ok(c) => c.blocks_per_sm,
            Err(e) => panic!("{line}: {e}"),
        };
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
    let (rows, wrong) = calculator_rows(&devices);
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
    let devices: Vec<(&str, Hardware)> = [
        ("H200", "h200-sxm"),
        ("A100", "a100-sxm-80gb"),
        ("B200", "b200"),
    ]
    .into_iter()
    .map(|(name, id)| (name, hw(id)))
    .collect();
    let (rows, wrong) = calculator_rows(&devices);
    assert_eq!(rows, 120);
    assert!(
        wrong.is_empty(),
        "{} rows differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

// ------------------------------------------------------------ the seeds

// 002 exercise 1: 64 registers, 256 threads, 32 KB of shared memory, by
// the lecture's arithmetic.
#[test]
fn lec_ex1_textbook() {
    let h = h100();
    let c = occ(&h, &textbook(256, 64, 32 * KIB));
    check("lec-ex1-blocks-regs", c.by_registers as f64);
    check(
        "lec-ex1-threads-regs",
        c.threads_by(Limiter::Registers).unwrap() as f64,
    );
    check("lec-ex1-blocks-smem", c.by_smem.unwrap() as f64);
    check(
        "lec-ex1-threads-smem",
        c.threads_by(Limiter::Smem).unwrap() as f64,
    );
    check("lec-ex1-warps", c.warps_per_sm as f64);
    check("lec-ex1-occupancy", c.occupancy * 100.0);
    assert_eq!(c.limiters.first(), Some(Limiter::Registers));
    // The same figures through the command line.
    let j = cli_json(&[
        "occupancy",
        "--hw",
        "h100-sxm",
        "--threads",
        "256",
        "--regs",
        "64",
        "--smem",
        "32KiB",
        "--textbook",
    ]);
    check("lec-ex1-threads-regs", json_num(&j, "threads_by_registers"));
    check("lec-ex1-threads-smem", json_num(&j, "threads_by_smem"));
    check("lec-ex1-occupancy", json_num(&j, "occupancy") * 100.0);
    assert_eq!(j["results"]["limiter"], "registers");
}

// The same kernel under NVIDIA's rules: the 1 KiB reservation makes a
// block take 33 KiB, so shared memory holds floor(228 / 33) = 6 blocks,
// not 7 (formulas.md, "Occupancy"); registers still bind at 4 blocks.
#[test]
fn lec_ex1_exact() {
    let h = h100();
    let c = occ(&h, &kernel(256, 64, 32 * KIB));
    check("lec-ex1-blocks-regs", c.by_registers as f64);
    assert_eq!(c.smem_per_block, 33 * KIB);
    assert_eq!(c.by_smem, Some(6));
    check("lec-ex1-occupancy", c.occupancy * 100.0);
}

// 004 "Latency hiding": 256 threads, 64 registers, 64 KiB: 3 blocks, 37.5%,
// by the textbook arithmetic and by NVIDIA's.
#[test]
fn ch_occ_both_modes() {
    let h = h100();
    for k in [textbook(256, 64, 64 * KIB), kernel(256, 64, 64 * KIB)] {
        let c = occ(&h, &k);
        check("ch-occ-blocks-regs", c.by_registers as f64);
        check("ch-occ-blocks-smem", c.by_smem.unwrap() as f64);
        check("ch-occ-blocks-threads", c.by_threads as f64);
        check("ch-occ-resident-blocks", c.blocks_per_sm as f64);
        check("ch-occ-warps", c.warps_per_sm as f64);
        check("ch-occ-occupancy", c.occupancy * 100.0);
        assert_eq!(c.limiters.first(), Some(Limiter::Smem));
    }
}

// 002 §7.5 register table: 32, 64, 128 registers per thread, 256-thread
// blocks, no shared memory; the same answers by both arithmetics.
#[test]
fn lec_7_5_register_table() {
    let h = h100();
    for tb in [false, true] {
        let at = |regs| {
            let k = kernel(256, regs, 0);
            occ(&h, &if tb { k.textbook() } else { k })
        };
        let c = at(32);
        check("lec-7.5-regs32-threads", c.threads_per_sm as f64);
        check("lec-7.5-regs32-warps", c.warps_per_sm as f64);
        check("lec-7.5-regs32-occupancy", c.occupancy * 100.0);
        let c = at(64);
        check("lec-7.5-regs64-threads", c.threads_per_sm as f64);
        check("lec-7.5-regs64-warps", c.warps_per_sm as f64);
        check("lec-7.5-regs64-occupancy", c.occupancy * 100.0);
        let c = at(128);
        check("lec-7.5-regs128-threads", c.threads_per_sm as f64);
        check("lec-7.5-regs128-warps", c.warps_per_sm as f64);
        check("lec-7.5-regs128-occupancy", c.occupancy * 100.0);
    }
}

// book-1.2-cc70-regs-full-occ: on cc 7.0 the most registers a thread may
// use and keep full occupancy, found by asking the tool at every count.
#[test]
fn book_1_2_cc70_regs_full_occupancy() {
    let v100 = fixture("v100");
    for tb in [false, true] {
        let most = (1..=255)
            .filter(|&r| {
                let k = kernel(256, r, 0);
                occ(&v100, &if tb { k.textbook() } else { k }).occupancy == 1.0
            })
            .max()
            .unwrap();
        check("book-1.2-cc70-regs-full-occ", most as f64);
    }
}

// book-6.1-cc120-threads: cc 12.0 holds 48 warps = 1,536 threads per SM.
#[test]
fn book_6_1_cc120_threads() {
    let h = fixture("rtx5090");
    let c = occ(&h, &kernel(512, 16, 0));
    check("book-6.1-cc120-threads", c.threads_per_sm as f64);
    assert_eq!(c.occupancy, 1.0);
}

// lec-7.1-resident-threads: 132 SMs x 2,048 threads = 270,336 (the text's
// "a quarter of a million").
#[test]
fn lec_7_1_resident_threads() {
    let h = h100();
    let c = occ(&h, &kernel(256, 32, 0));
    check("lec-7.1-resident-threads", c.threads_per_gpu() as f64);
    let j = cli_json(&[
        "occupancy",
        "--hw",
        "h100-sxm",
        "--threads",
        "256",
        "--regs",
        "32",
    ]);
    check("lec-7.1-resident-threads", json_num(&j, "threads_per_gpu"));
}

// 004 opening: the fused RMSNorm launch at decode, one 512-thread block
// (`__launch_bounds__(512)`).
#[test]
fn ch_rmsnorm_decode_grid_of_one() {
    let h = h100();
    let c = occ(&h, &kernel(512, 32, 0).grid(1));
    check("ch-rmsnorm-decode-warps", c.warps_per_block as f64);
    check("ch-launch-bounds", c.warps_per_block as f64);
    let g = c.grid.unwrap();
    check("ch-rmsnorm-decode-sm-fraction", g.sm_fraction * 100.0);
    check("ch-rmsnorm-decode-occupancy", g.busy_sm_occupancy * 100.0);
}

// 004: merge_attn_states, a 128-block grid of 128-thread blocks.
#[test]
fn ch_merge_grid() {
    let h = h100();
    let c = occ(&h, &kernel(128, 32, 0).grid(128));
    check("ch-merge-warps-per-block", c.warps_per_block as f64);
    let g = c.grid.unwrap();
    check("ch-merge-max-sms", g.sms_busy as f64);
    check("ch-merge-occupancy-one-block", g.busy_sm_occupancy * 100.0);
}

// ------------------------------------------------------- what it refuses

#[test]
fn out_of_range_inputs_name_their_field() {
    let h = h100();
    for (k, field) in [
        (kernel(0, 32, 0), "threads"),
        (kernel(2000, 32, 0), "threads"),
        (kernel(256, 0, 0), "regs"),
        (kernel(256, 300, 0), "regs"),
        (
            OccupancyInputs {
                static_smem: Some(Bytes(60.0 * 1024.0)),
                ..kernel(256, 32, 0)
            },
            "static-smem",
        ),
        (
            OccupancyInputs {
                carveout: Some(Bytes(1e9)),
                ..kernel(256, 32, 0)
            },
            "carveout",
        ),
        (kernel(256, 32, 0).grid(0), "grid"),
    ] {
        let e = occupancy::cost(&h, &k, Mode::SpeedOfLight).unwrap_err();
        assert_eq!(e.exit_code(), 65);
        assert!(
            matches!(&e, roofline::Error::Field { field: f, .. } if f == field),
            "{field}: {e}"
        );
        assert!(!e.to_string().contains("--"), "{e}");
    }
    let e = occupancy::cost(&h, &OccupancyInputs::default(), Mode::SpeedOfLight).unwrap_err();
    assert_eq!(e.exit_code(), 2);
}

#[test]
fn too_many_registers_per_block_is_zero_blocks() {
    // 1,024 threads x 128 registers = 131,072 > 65,536 per block: NVIDIA's
    // calculator answers 0, and so does the tool.
    let h = h100();
    let c = occ(&h, &kernel(1024, 128, 0));
    assert_eq!(c.blocks_per_sm, 0);
    assert!(matches!(c.failure, Some(Failure::Registers { .. })));
    assert_eq!(c.limiters.first(), Some(Limiter::Registers));
    assert_eq!(c.report(false).results["limiter"], "registers");
}

#[test]
fn shared_memory_beyond_the_opt_in_is_zero_blocks() {
    // 228 KiB > h100-sxm's 227 KiB per-block opt-in: NVIDIA's calculator
    // answers 0 blocks (the ground sample has such rows), not an error.
    let h = h100();
    let c = occ(&h, &kernel(256, 32, 228 * KIB));
    assert_eq!(c.blocks_per_sm, 0);
    assert!(matches!(c.failure, Some(Failure::SmemPerBlock { .. })));
    assert_eq!(c.limiters.first(), Some(Limiter::Smem));
    let r = c.report(false);
    assert_eq!(r.results["limiter"], "smem");
    assert_eq!(r.results["blocks_per_sm"], 0);
    assert!(
        r.notes.iter().any(|n| n.contains("cannot launch")),
        "{:?}",
        r.notes
    );
}

#[test]
fn a_tpu_has_no_warps() {
    let mut tpu = h100();
    tpu.id = "tpu".into();
    tpu.kind = roofline::spec::hardware::Kind::Tpu;
    tpu.execution = None;
    let e = occupancy::cost(&tpu, &kernel(256, 32, 0), Mode::SpeedOfLight).unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert!(e.to_string().contains("no SMs, warps"), "{e}");
}

#[test]
fn a_smaller_carveout_holds_fewer_blocks() {
    // 100 KiB asked for: a 32 KiB block (+1 KiB reserved) fits 3 times.
    let h = h100();
    let k = OccupancyInputs {
        carveout: Some(Bytes(100.0 * 1024.0)),
        ..kernel(128, 32, 32 * KIB)
    };
    let c = occ(&h, &k);
    assert_eq!(c.smem_per_sm, 100 * KIB);
    assert_eq!(c.by_smem, Some(3));
    // 90 KiB rounds up to the 100 KiB carveout.
    let k = OccupancyInputs {
        carveout: Some(Bytes(90.0 * 1024.0)),
        ..k
    };
    assert_eq!(occ(&h, &k).smem_per_sm, 100 * KIB);
}

// A reservation no carveout holds: today's answer was 100% occupancy.
#[test]
fn an_absurd_reservation_is_bad_data_or_no_launch() {
    let err = cli_err(
        &[
            "occupancy",
            "--hw",
            "h100-sxm",
            "--threads",
            "256",
            "--regs",
            "32",
            "--set",
            "execution.reserved-smem-per-block=1e30 B",
        ],
        65,
    );
    assert!(err.contains("execution.reserved-smem-per-block"), "{err}");
    // One that fits in 64 bits but not in the SM: zero blocks.
    let h = hw_with("h100-sxm", &["execution.reserved-smem-per-block=200 KiB"]);
    let c = occ(&h, &kernel(256, 32, 32 * KIB));
    assert_eq!(c.blocks_per_sm, 0);
    assert_eq!(c.occupancy, 0.0);
    assert!(matches!(c.failure, Some(Failure::Smem { .. })));
    let r = c.report(false);
    assert!(r.notes[0].starts_with("cannot launch"), "{:?}", r.notes);
}

// A file with fewer threads per SM than one warp: today's answer was a
// null occupancy and exit 0.
#[test]
fn fewer_threads_per_sm_than_a_warp_is_bad_data() {
    let err = cli_err(
        &[
            "occupancy",
            "--hw",
            "tests/data/occupancy/few-threads.toml",
            "--threads",
            "32",
            "--regs",
            "32",
        ],
        65,
    );
    assert!(err.contains("execution.max-threads-per-sm"), "{err}");
}

// ------------------------------------------------------------- snapshots

fn table(r: &roofline::report::Report) -> String {
    String::from_utf8(Format::Table.renderer().render(r)).unwrap()
}

#[test]
fn snapshots() {
    // The H200 fixture, so a catalog edit does not move them.
    let h = fixture("h200");
    let r = occ(&h, &kernel(256, 64, 32 * KIB)).report(false);
    insta::assert_snapshot!("occupancy_table", table(&r));
    insta::assert_json_snapshot!("occupancy_json", r);
    insta::assert_snapshot!(
        "occupancy_explain",
        String::from_utf8(Explain.render(&r)).unwrap()
    );
    let r = occ(&h, &textbook(256, 64, 32 * KIB).grid(100)).report(false);
    insta::assert_snapshot!("occupancy_textbook_grid_table", table(&r));
}

#[test]
fn a_lean_report_has_the_same_values() {
    let h = fixture("h200");
    let c = occ(&h, &kernel(384, 72, 20 * KIB).grid(500));
    let (full, lean) = (c.report(false), c.report(true));
    assert_eq!(full.results, lean.results);
    assert!(lean.quantities.is_empty() && lean.notes.is_empty());
}

// ------------------------------------------------------------ properties

fn any_bytes() -> impl Strategy<Value = Option<Bytes>> {
    prop_oneof![
        Just(None),
        (0u64..300_000).prop_map(|b| Some(Bytes(b as f64))),
        any::<f64>().prop_map(|b| Some(Bytes(b))),
    ]
}

fn any_count() -> impl Strategy<Value = Option<Count>> {
    prop_oneof![
        Just(None),
        (0u64..2048).prop_map(|n| Some(Count(n))),
        any::<u64>().prop_map(|n| Some(Count(n))),
    ]
}

proptest! {
    #[test]
    fn cost_never_panics_and_occupancy_is_a_fraction(
        threads in any_count(),
        regs in any_count(),
        smem in any_bytes(),
        static_smem in any_bytes(),
        carveout in any_bytes(),
        textbook in any::<bool>(),
        grid in any_count(),
        part in 0usize..5,
    ) {
        let h = fixture(["h200", "a100", "b200", "rtx5090", "v100"][part]);
        let k = OccupancyInputs { threads, regs, sgprs: None, smem, static_smem, carveout, textbook, grid, solve: None, target_occupancy: None };
        if let Ok(c) = occupancy::cost(&h, &k, Mode::SpeedOfLight) {
            prop_assert!((0.0..=1.0).contains(&c.occupancy), "{}", c.occupancy);
            prop_assert!(c.warps_per_sm <= c.budget.max_warps);
            prop_assert_eq!(c.blocks_per_sm == 0, c.occupancy == 0.0);
            if let Some(g) = c.grid {
                prop_assert!((0.0..=1.0).contains(&g.busy_sm_occupancy));
                prop_assert!(g.sm_fraction > 0.0 && g.sm_fraction <= 1.0);
                prop_assert!(g.waves.is_none_or(|w| w.is_finite() && w > 0.0));
            }
            let r = c.report(false);
            prop_assert!(r.number("occupancy").is_some());
        }
    }

    #[test]
    fn amd_sgprs_never_panic_and_more_never_hold_more(
        threads in 1u64..=1024,
        regs in 1u64..=512,
        sgprs in 1u64..=107,
        smem in 0u64..=163_840,
        part in 0usize..2,
    ) {
        let h = hw(["mi300x", "mi355x"][part]);
        let k = |s: u64| OccupancyInputs {
            sgprs: Some(Count(s)),
            ..kernel(threads, regs, smem)
        };
        let a = occ(&h, &k(sgprs));
        let b = occ(&h, &k(sgprs + 1));
        prop_assert!(b.blocks_per_sm <= a.blocks_per_sm);
        prop_assert!(a.blocks_per_sm <= occ(&h, &kernel(threads, regs, smem)).blocks_per_sm);
        prop_assert!((0.0..=1.0).contains(&a.occupancy));
        prop_assert!(a.report(false).number("occupancy").is_some());
    }

    #[test]
    fn more_registers_or_smem_never_hold_more_blocks(
        threads in 1u64..=1024,
        regs in 1u64..255,
        smem in 0u64..=100_000,
    ) {
        let h = fixture("h200");
        let a = occ(&h, &kernel(threads, regs, smem));
        let b = occ(&h, &kernel(threads, regs + 1, smem));
        prop_assert!(b.blocks_per_sm <= a.blocks_per_sm);
        let bigger = occ(&h, &kernel(threads, regs, smem + 4096));
        prop_assert!(bigger.blocks_per_sm <= a.blocks_per_sm);
        prop_assert!(a.blocks_per_sm * a.warps_per_block <= 64);
    }
}

// ------------------------------------------------------- AMD Instinct

#[test]
fn amd_llvm_calc_occupancy_worked_example() {
    // The worked example of LLVM's AMDGPU occupancy calculator
    // (llvm-calc-occupancy, https://llvm.org/docs/CommandGuide/llvm-calc-occupancy.html):
    // gfx90a, workgroup of 512, 50 VGPRs, 30 SGPRs -> 8 waves per SIMD,
    // 32 waves per CU, limited by workgroup size, VGPRs and SGPRs alike.
    // gfx942 (MI300X) and gfx950 (MI355X) share gfx90a's rules here: 512
    // unified VGPRs per lane in granules of 8, 8 waves per SIMD, 4 SIMDs.
    for id in ["mi300x", "mi355x"] {
        let h = hw(id);
        let c = occ(&h, &kernel(512, 50, 0));
        assert_eq!(c.warps_per_block, 8, "{id}");
        assert_eq!(c.warps_per_sm, 32, "{id}: 32 waves per CU");
        assert_eq!(c.blocks_per_sm, 4, "{id}");
        assert_eq!(c.occupancy, 1.0, "{id}");
        assert!(c.limiters.contains(Limiter::Registers), "{id}");
        assert!(c.limiters.contains(Limiter::Threads), "{id}");
    }
}

#[test]
fn amd_vgpr_waves_per_simd() {
    // docs/formulas.md, "Occupancy on AMD Instinct": waves per SIMD =
    // min(8, floor(512 / (ceil(v / 8) x 8))); four-wave workgroups (one
    // wave per SIMD) so the 16 workgroup slots do not bind. Hand derivations:
    // 24 -> 512/24 = 21 -> 8; 64 -> 8; 65 -> 512/72 = 7; 100 -> 512/104 = 4;
    // 128 -> 4; 129 -> 512/136 = 3; 256 -> 2; 512 -> 1.
    let h = hw("mi300x");
    for (v, waves_per_simd) in [
        (24, 8),
        (64, 8),
        (65, 7),
        (100, 4),
        (128, 4),
        (129, 3),
        (256, 2),
        (512, 1),
    ] {
        let c = occ(&h, &kernel(256, v, 0));
        assert_eq!(c.warps_per_sm, 4 * waves_per_simd, "{v} VGPRs");
    }
    // 513 VGPRs is beyond the 256 arch + 256 accumulation registers.
    let e = occupancy::cost(&h, &kernel(64, 513, 0), Mode::SpeedOfLight).unwrap_err();
    assert!(
        matches!(&e, roofline::Error::Field { field, .. } if field == "regs"),
        "{e}"
    );
}

#[test]
fn amd_lds_per_cu() {
    // 64 KiB of LDS per CU on CDNA3 (MI300X), 160 KiB on CDNA4 (MI355X):
    // a 256-thread workgroup with 32 VGPRs and 40 KiB of LDS fits once on
    // an MI300X CU (64 / 40) and four times on an MI355X CU (160 / 40).
    let (mi300x, mi355x) = (hw("mi300x"), hw("mi355x"));
    let c = occ(&mi300x, &kernel(256, 32, 40 * KIB));
    assert_eq!(
        (c.blocks_per_sm, c.limiters.first()),
        (1, Some(Limiter::Smem))
    );
    let c = occ(&mi355x, &kernel(256, 32, 40 * KIB));
    assert_eq!(
        (c.blocks_per_sm, c.limiters.first()),
        (4, Some(Limiter::Smem))
    );
    // LDS beyond the CU's is a workgroup that cannot launch: 0, limiter smem.
    let c = occ(&mi300x, &kernel(256, 32, 65 * KIB));
    assert_eq!(c.blocks_per_sm, 0);
    assert!(matches!(c.failure, Some(Failure::SmemPerBlock { .. })));
    // Workgroups of several waves: 16 per CU (barrier slots), tied here
    // with 32 waves / 2; a one-wave workgroup uses no barrier, so 32 fit
    // (LLVM AMDGPU, getMaxWorkGroupsPerCU).
    let c = occ(&mi300x, &kernel(128, 32, 0));
    assert_eq!(c.blocks_per_sm, 16);
    assert!(c.limiters.contains(Limiter::Blocks));
    let c = occ(&mi300x, &kernel(64, 32, 0));
    assert_eq!((c.blocks_per_sm, c.warps_per_sm), (32, 32));
}

#[test]
fn amd_report_speaks_of_cus_and_waves() {
    let h = hw("mi300x");
    let r = occ(&h, &kernel(256, 128, 16 * KIB)).report(false);
    assert_eq!(r.results["blocks_per_sm"], 4);
    assert_eq!(r.results["occupancy"], 0.5);
    assert_eq!(
        r.quantities["blocks_per_sm"].label,
        "resident workgroups per CU"
    );
    assert!(
        r.notes.iter().any(|n| n.starts_with("AMD CDNA rules")),
        "{:?}",
        r.notes
    );
}

fn with_sgprs(k: OccupancyInputs, sgprs: u64) -> OccupancyInputs {
    OccupancyInputs {
        sgprs: Some(Count(sgprs)),
        ..k
    }
}

#[test]
fn amd_sgprs_bind_or_not() {
    // docs/formulas.md, "Occupancy on AMD Instinct": LLVM's gfx9 rule
    // (AMDGPUBaseInfo.cpp, getOccupancyWithNumSGPRs since llvm-project PR
    // #201342): a wave takes ceil(s / 16) x 16 + 16 (trap handler) of its
    // SIMD's 800 SGPRs. Hand derivations, 256-thread workgroups (4 waves)
    // with 64 VGPRs (512 / 64 = 8 waves per SIMD by VGPRs, 8 workgroups):
    //   30 SGPRs: 32 + 16 = 48, floor(800 / 48) = 16 per SIMD, 64 per CU,
    //             64 / 4 = 16 workgroups: SGPRs do not bind, 8 (registers).
    //   96 SGPRs: 96 + 16 = 112, floor(800 / 112) = 7 (7.14) per SIMD,
    //             28 per CU, 7 workgroups: SGPRs bind, 28 / 32 = 87.5%.
    //  100 SGPRs: ceil(100 / 16) = 7 -> 112, + 16 = 128, floor(800 / 128)
    //             = 6 (6.25), 24 per CU, 6 workgroups, 75%.
    //  108 SGPRs (the most: 102 addressable + 6 special): 112 + 16 = 128, 6.
    // gfx942 and gfx950 are both ISA version 9: the same on both parts.
    for id in ["mi300x", "mi355x"] {
        let h = hw(id);
        let base = kernel(256, 64, 0);
        let c = occ(&h, &with_sgprs(base.clone(), 30));
        assert_eq!(c.by_sgprs, Some(16), "{id}");
        assert_eq!(c.blocks_per_sm, 8, "{id}");
        assert!(!c.limiters.contains(Limiter::Sgprs), "{id}");
        assert_eq!(c.limiters.first(), Some(Limiter::Registers), "{id}");
        for (sgprs, per_wave, blocks, occupancy) in [
            (96, 112, 7, 0.875),
            (100, 128, 6, 0.75),
            (108, 128, 6, 0.75),
        ] {
            let c = occ(&h, &with_sgprs(base.clone(), sgprs));
            assert_eq!(c.sgprs_per_wave, Some(per_wave), "{id} {sgprs}");
            assert_eq!(c.by_sgprs, Some(blocks), "{id} {sgprs}");
            assert_eq!(c.blocks_per_sm, blocks, "{id} {sgprs}");
            assert_eq!(c.occupancy, occupancy, "{id} {sgprs}");
            assert_eq!(c.limiters.first(), Some(Limiter::Sgprs), "{id} {sgprs}");
            assert!(!c.limiters.contains(Limiter::Registers), "{id} {sgprs}");
            let r = c.report(false);
            assert_eq!(r.results["limiter"], "sgprs");
            assert_eq!(r.results["blocks_by_sgprs"], blocks);
            assert!(
                r.notes.iter().any(|n| n.starts_with("SGPRs bound")),
                "{:?}",
                r.notes
            );
        }
    }
}

#[test]
fn amd_sgprs_match_llvm_and_rocm() {
    // LLVM's own test of the rule, llvm/test/MC/AMDGPU/occupancy_mcexpr.s
    // (occupancy_numsgpr_gfx9_trap_*: 800 SGPRs, granule 16, trap handler
    // 16): 65 SGPRs -> 8 waves per SIMD, 81 -> 7, 97 -> 6, 1 -> the cap.
    // One-wave workgroups, so workgroups per CU = 4 SIMDs x waves per SIMD,
    // at most 32. ROCm measured the 7 on gfx942 (ROCm/rocm-systems PR
    // #10618): one-wave workgroups with 92 SGPRs, 28 per CU, not 32.
    let h = hw("mi300x");
    for (sgprs, waves_per_simd) in [(1, 8), (65, 8), (80, 8), (81, 7), (92, 7), (97, 6)] {
        let c = occ(&h, &with_sgprs(kernel(64, 32, 0), sgprs));
        assert_eq!(c.warps_per_sm, 4 * waves_per_simd, "{sgprs} SGPRs");
        assert_eq!(c.blocks_per_sm, 4 * waves_per_simd, "{sgprs} SGPRs");
    }
}

#[test]
fn amd_sgprs_not_given_do_not_limit() {
    let h = hw("mi300x");
    let c = occ(&h, &kernel(64, 32, 0));
    assert_eq!((c.by_sgprs, c.sgprs_per_wave), (None, None));
    assert_eq!(c.blocks_per_sm, 32);
    let r = c.report(false);
    assert!(r.results["blocks_by_sgprs"].is_null());
    assert!(r.results["threads_by_sgprs"].is_null());
    assert!(!r.inputs.contains_key("sgprs"));
    // The most for 8 waves per SIMD: floor(800 / 8) = 100, less the trap
    // handler's 16 = 84, rounded down to 16 = 80 (LLVM getMaxNumSGPRs).
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("SGPRs not given") && n.contains("up to 80 per wave")),
        "{:?}",
        r.notes
    );
    // NVIDIA reports carry no SGPR keys at all.
    let r = occ(&h100(), &kernel(256, 32, 0)).report(false);
    assert!(!r.results.contains_key("blocks_by_sgprs"));
}

#[test]
fn sgprs_out_of_range_or_on_nvidia_are_field_errors() {
    // More than 102 addressable + 6 special is a kernel LLVM refuses to
    // compile: an error naming the field and the limit, on both parts.
    for id in ["mi300x", "mi355x"] {
        for sgprs in [0, 109, 1000] {
            let e = occupancy::cost(
                &hw(id),
                &with_sgprs(kernel(256, 32, 0), sgprs),
                Mode::SpeedOfLight,
            )
            .unwrap_err();
            assert_eq!(e.exit_code(), 65, "{e}");
            assert!(
                matches!(&e, roofline::Error::Field { field, .. } if field == "sgprs"),
                "{e}"
            );
            if sgprs > 0 {
                assert!(e.to_string().contains("1 to 108"), "{e}");
            }
        }
    }
    // NVIDIA GPUs have no SGPRs.
    let e = occupancy::cost(
        &h100(),
        &with_sgprs(kernel(256, 32, 0), 32),
        Mode::SpeedOfLight,
    )
    .unwrap_err();
    assert!(
        matches!(&e, roofline::Error::Field { field, .. } if field == "sgprs"),
        "{e}"
    );
    assert!(e.to_string().contains("no SGPRs"), "{e}");
    // An AMD file without the SGPR fields cannot answer for SGPRs.
    let mut h = hw("mi300x");
    h.execution.as_mut().unwrap().sgprs_per_simd = None;
    let e =
        occupancy::cost(&h, &with_sgprs(kernel(256, 32, 0), 32), Mode::SpeedOfLight).unwrap_err();
    assert!(e.to_string().contains("sgprs-per-simd"), "{e}");
    assert!(occupancy::cost(&h, &kernel(256, 32, 0), Mode::SpeedOfLight).is_ok());
}

#[test]
fn amd_lds_granule_of_gfx950() {
    // LLVM AMDGPUUsage, COMPUTE_PGM_RSRC2.LDS_SIZE: GFX950 allocates LDS in
    // 320-dword (1,280 B) blocks, GFX7-GFX11 (gfx942) in 128-dword (512 B)
    // ones. Hand derivations, 256-thread workgroups with 32 VGPRs:
    //   MI355X, 32 KiB: ceil(32,768 / 1,280) = 26 blocks = 33,280 B,
    //     floor(163,840 / 33,280) = 4 workgroups (512 B blocks: 5), 50%.
    //   MI300X, 32 KiB: 64 blocks of 512 B, floor(65,536 / 32,768) = 2.
    //   MI355X, 160 KiB: 128 blocks exactly, one workgroup fits.
    let (mi300x, mi355x) = (hw("mi300x"), hw("mi355x"));
    let c = occ(&mi355x, &kernel(256, 32, 32 * KIB));
    assert_eq!(c.smem_per_block, 33_280);
    assert_eq!(c.by_smem, Some(4));
    assert_eq!((c.blocks_per_sm, c.occupancy), (4, 0.5));
    assert_eq!(c.limiters.first(), Some(Limiter::Smem));
    let c = occ(&mi300x, &kernel(256, 32, 32 * KIB));
    assert_eq!((c.smem_per_block, c.by_smem), (32 * KIB, Some(2)));
    let c = occ(&mi355x, &kernel(256, 32, 160 * KIB));
    assert_eq!((c.smem_per_block, c.blocks_per_sm), (160 * KIB, 1));
}

#[test]
fn a_tpu_is_still_refused() {
    let e = occupancy::cost(&hw("tpu7x"), &kernel(256, 32, 0), Mode::SpeedOfLight).unwrap_err();
    assert_eq!(e.exit_code(), 65, "{e}");
}

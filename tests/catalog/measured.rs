//! The catalog's measured figures: the H200's measured section and the
//! occupancy calculator's device descriptions (../shared/ground/), usable
//! memory beside the datasheet's, public achievable matmul and HBM
//! measurements beyond the H200, and what `--set` may do to a measured
//! figure.

use super::*;

/// The H200's measured section (../shared/ground/h200-measured.json).
#[test]
fn h200_measured_figures() {
    let h = hw("h200-sxm");
    let a = h.achievable.as_ref().unwrap();
    close(
        "hbm.read_only_GBps",
        a.hbm_bandwidth.unwrap().get(),
        4202.7e9,
        0.0,
    );
    // The dense rates are the per-operation model's full-wave rates, fitted
    // (validation/results/2026-12-01-h200/calibrate-h200.csv): between the 0.3 s burst of 8192^3
    // there (693 and 1,238 TFLOP/s) and the ground file's best (790.2 and
    // 1,430.1); the sustained 8 s loop (651, 1,166) lies below them.
    let within = |what: &str, v: f64, lo: f64, hi: f64| {
        assert!(lo <= v && v <= hi, "{what}: {v} outside {lo}..{hi}")
    };
    within("bf16 rate", a.dense.get("bf16").unwrap(), 693e12, 790.2e12);
    within("fp8 rate", a.dense.get("fp8").unwrap(), 1238e12, 1430.1e12);
    close(
        "bf16 sustained",
        a.sustained.get("bf16").unwrap(),
        651e12,
        0.0,
    );
    close(
        "fp8 sustained",
        a.sustained.get("fp8").unwrap(),
        1166e12,
        0.0,
    );
    let l = a.launch.as_ref().unwrap();
    close("launch eager", l.eager.unwrap().get(), 7.0e-6, 0.0);
    close("launch graph", l.graph.unwrap().get(), 0.94e-6, 0.0);
    close("launch sync", l.synchronised.unwrap().get(), 16.1e-6, 0.0);
    close("L1 chase", a.l1_latency.unwrap().get(), 21.6e-9, 0.0);
    close("L2 chase", a.l2_latency.unwrap().get(), 147.7e-9, 0.0);
    close("HBM chase", a.dram_latency.unwrap().get(), 348.9e-9, 0.0);
    close(
        "nccl sendrecv",
        a.link_bandwidth["nvlink4"].get(),
        370e9,
        0.0,
    );
    close("dram fetch", h.memory.dram_fetch.unwrap().get(), 64.0, 0.0);
    for s in h
        .sources
        .iter()
        .filter(|(k, _)| k.starts_with("achievable."))
    {
        // One figure is the vendor's own: NCCL's LL128 bandwidth share,
        // cited with its file and releases.
        let vendor = s.0 == "achievable.collective-protocol.ll128-share"
            && s.1.contains("src/graph/tuning.cc")
            && s.1.contains("v2.28.9-1");
        assert!(
            vendor
                || s.1.starts_with("measured on an H200")
                || s.1.starts_with("measured on two H200s"),
            "{}: {}",
            s.0,
            s.1
        );
    }
}

/// The occupancy calculator's device descriptions (../shared/ground/README.md).
#[test]
fn nvidia_parts_match_the_occupancy_calculator_devices() {
    // (id, SMs, threads/SM, regs/SM, smem/SM, opt-in, reserved, blocks/SM)
    let rows = [
        ("h200-sxm", 132, 2048, 65536, 233472.0, 232448.0, 1024.0, 32),
        (
            "a100-sxm-80gb",
            108,
            2048,
            65536,
            167936.0,
            166912.0,
            1024.0,
            32,
        ),
        ("b200", 148, 2048, 65536, 233472.0, 232448.0, 1024.0, 32),
        ("h100-sxm", 132, 2048, 65536, 233472.0, 232448.0, 1024.0, 32),
    ];
    for (id, sms, thr, regs, smem, optin, reserved, blocks) in rows {
        let h = hw(id);
        let ex = h.execution.as_ref().unwrap();
        assert_eq!(ex.sms.get(), sms, "{id}");
        assert_eq!(ex.max_threads_per_sm.unwrap().get(), thr, "{id}");
        assert_eq!(ex.registers_per_sm.unwrap().get(), regs, "{id}");
        assert_eq!(ex.smem_per_sm.unwrap().get(), smem, "{id}");
        assert_eq!(ex.smem_per_block_optin.unwrap().get(), optin, "{id}");
        assert_eq!(ex.reserved_smem_per_block.unwrap().get(), reserved, "{id}");
        assert_eq!(ex.max_blocks_per_sm.unwrap().get(), blocks, "{id}");
        assert_eq!(ex.register_allocation_unit.unwrap().get(), 256, "{id}");
        assert_eq!(
            ex.register_allocation_granularity.as_deref(),
            Some("warp"),
            "{id}"
        );
        assert_eq!(ex.warp_allocation_granularity.unwrap().get(), 4, "{id}");
        assert_eq!(ex.smem_allocation_unit.unwrap().get(), 128.0, "{id}");
        let last = ex.smem_carveouts.last().unwrap().get();
        assert_eq!(
            last, smem,
            "{id}: the largest carveout is the SM's shared memory"
        );
    }
}

/// The H200's usable memory: the runtime's total beside the datasheet's.
#[test]
fn usable_capacity_beside_the_datasheet() {
    let h = hw("h200-sxm");
    assert_eq!(h.usable_capacity(), Some(150_109_880_320.0));
    let r = report(&h, None, None);
    close("datasheet", num(&r, "hbm_capacity_bytes"), 141e9, 0.0);
    close(
        "runtime",
        num(&r, "usable_capacity_bytes"),
        150_109_880_320.0,
        0.0,
    );
    assert_eq!(hw("h100-sxm").usable_capacity(), None);
}

/// Public maximum-achievable matmul measurements (stas00/ml-engineering's
/// MAMF table) in the files, so --achievable gives them.
#[test]
fn achievable_matmul_rates_beyond_the_h200() {
    for (id, dtype, want) in [
        ("h100-sxm", "bf16", 794.5e12),
        ("h100-sxm", "fp8", 1402.6e12),
        ("b200", "bf16", 1745.0e12),
        ("b200", "fp8", 3432.5e12),
        ("gb200", "bf16", 1822.0e12),
        ("gb200", "fp8", 3615.6e12),
        ("mi300x", "bf16", 668.4e12),
        ("mi355x", "bf16", 1565.0e12),
        ("a100-sxm-80gb", "bf16", 271.2e12),
    ] {
        let h = hw(id);
        let r = show_with(
            &h,
            HwShowInputs {
                dtype: Some(dtype.into()),
                ..Default::default()
            },
            Mode::Achievable,
        );
        close(
            &format!("{id} {dtype} MAMF"),
            num(&r, "peak_flops_per_s"),
            want,
            0.0,
        );
        assert!(
            h.source(&format!("achievable.dense.{dtype}"))
                .unwrap()
                .contains("ml-engineering"),
            "{id}: cites its measurement"
        );
        // A published bandwidth measurement gives the measured ridge; none
        // leaves the memory figures out, and the report says so.
        let measured_bw = h.achievable.as_ref().unwrap().hbm_bandwidth.is_some();
        assert_eq!(
            r.number("ridge_point_flop_per_byte").is_some(),
            measured_bw,
            "{id}"
        );
        assert_eq!(
            r.notes
                .iter()
                .any(|n| n.contains("no measured memory bandwidth")),
            !measured_bw,
            "{id}"
        );
    }
    for id in ["h800", "a100-sxm-40gb", "rtx-5090"] {
        let e = cost(&hw(id), &HwShowInputs::default(), Mode::Achievable)
            .err()
            .unwrap_or_else(|| panic!("{id} has no measured figures"));
        assert!(e.to_string().contains("achievable"), "{id}: {e}");
    }
}

/// Public measurements of achievable HBM bandwidth (each file's
/// `[sources]` names the document, the kernel and how its bytes are
/// counted), so the memory roof of `--achievable` works beyond the H200.
/// Expected values are the published numbers as printed there.
#[test]
fn achievable_hbm_bandwidth_beyond_the_h200() {
    // (id, published figure in B/s, a word the source must contain)
    for (id, want, cites) in [
        // Azure AI-benchmarking-guide, ND H100 v5: BabelStream Triad 2.97 TB/s
        ("h100-sxm", 2.97e12, "ND_H100_v5_results.md"),
        // Azure, ND A100 v4 (A100-SXM4-80GB): Triad 1.70 TB/s
        ("a100-sxm-80gb", 1.70e12, "ND_A100_v4_results.md"),
        // Azure, ND MI300X v5: Triad 4.10 TB/s
        ("mi300x", 4.10e12, "ND_MI300X_v5_results.md"),
        // OpenCL-Benchmark, NVIDIA B200: coalesced read 6,668.71 GB/s
        ("b200", 6668.71e9, "OpenCL-Benchmark"),
        // OpenCL-Benchmark, AMD Instinct MI355X: coalesced read 4,903.01 GB/s
        ("mi355x", 4903.01e9, "OpenCL-Benchmark"),
    ] {
        let h = hw(id);
        let got = h.bandwidth(Mode::Achievable).unwrap();
        close(&format!("{id} achievable HBM"), got, want, 0.0);
        assert!(got < h.bandwidth(Mode::SpeedOfLight).unwrap(), "{id}");
        let src = h.source("achievable.hbm-bandwidth").unwrap();
        assert!(
            src.starts_with("measured, public: ") && src.contains(cites),
            "{id}: {src}"
        );
        // The measured roof is the one --achievable puts under a point.
        let r = show_with(&h, HwShowInputs::default(), Mode::Achievable);
        close(
            &format!("{id} measured ridge"),
            num(&r, "ridge_point_flop_per_byte"),
            h.achievable.as_ref().unwrap().dense.get("bf16").unwrap() / want,
            1e-12,
        );
    }
    // Bytes in flight under --achievable: the measured bandwidth over the
    // H100 file's datasheet latency is said to be so; the H200's chase is
    // measured.
    let no_latency = |id: &str| {
        show_with(&hw(id), HwShowInputs::default(), Mode::Achievable)
            .notes
            .iter()
            .any(|n| n.contains("no measured memory latency"))
    };
    // Every part with an achievable stream now carries a latency (measured
    // or transferred by a rule), so none is left to say so.
    assert!(!no_latency("h200-sxm"));
    assert!(!no_latency("h100-sxm"));
    // No published measurement: the roof is an error naming the field.
    for id in ["h800", "a100-sxm-40gb", "rtx-5090"] {
        let e = hw(id).bandwidth(Mode::Achievable).unwrap_err().to_string();
        assert!(e.contains("achievable.hbm-bandwidth"), "{id}: {e}");
    }
}

/// A datasheet what-if may fall below a measured figure (the book's
/// 1.5 TB/s A100 against the measured 1.70 TB/s); a measured figure set
/// above the datasheet is still a unit slip and refused.
#[test]
fn measured_figures_under_set() {
    let book = hw_set("a100-sxm-80gb", &["memory.hbm-bandwidth=1.5 TB/s"]);
    close(
        "book a100 datasheet",
        book.bandwidth(Mode::SpeedOfLight).unwrap(),
        1.5e12,
        0.0,
    );
    close(
        "book a100 measured",
        book.bandwidth(Mode::Achievable).unwrap(),
        1.70e12,
        0.0,
    );
    let sets: Vec<Set> = vec!["achievable.hbm-bandwidth=2970 TB/s".parse().unwrap()];
    let e = Catalog::default()
        .hardware("h100-sxm", &sets)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("achievable.hbm-bandwidth") && e.contains("exceeds"),
        "{e}"
    );
}

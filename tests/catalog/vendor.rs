//! The catalog against its vendors' own pages (the catalog corrected in
//! issue 12): interconnect directions, Blackwell, Blackwell Ultra,
//! Trainium3 and the H800 as NVIDIA and AWS state them, board power and
//! FLOP/s per watt, the 2:4 sparse peaks, and each part's default
//! precision.

use super::*;

#[test]
fn interconnect_directions_are_unambiguous() {
    // (id, tier name, bidirectional, per direction, domain)
    let rows = [
        ("h100-sxm", "nvlink4", 900e9, 450e9, 8),
        ("h200-sxm", "nvlink4", 900e9, 450e9, 8),
        ("b200", "nvlink5", 1.8e12, 900e9, 8),
        ("gb200", "nvlink5", 1.8e12, 900e9, 72),
        ("tpu7x", "ici", 1.2e12, 600e9, 9216),
        ("h800", "nvlink4", 400e9, 200e9, 8),
    ];
    for (id, name, both, one, domain) in rows {
        let h = hw(id);
        let l = h.interconnect.iter().find(|l| l.name == name).unwrap();
        close(id, l.bidirectional_bandwidth.unwrap().get(), both, 0.0);
        close(id, l.per_direction_bandwidth.unwrap().get(), one, 0.0);
        assert_eq!(l.domain_size.unwrap().get(), domain, "{id}");
    }
}

/// The Blackwell Ultra files against NVIDIA's developer blog and docs
/// (hardware/b300.toml, hardware/gb300.toml): the chip's 160 SMs of 4 tensor
/// cores and 128 FP32 lanes, 15 PFLOP/s dense NVFP4 over 8 TB/s, 288 GB;
/// the NVL72's 72 x 1.8 TB/s is its 130 TB/s of NVSwitch bandwidth.
#[test]
fn blackwell_ultra_against_nvidia_pages() {
    for id in ["b300", "gb300"] {
        let r = report(&hw(id), None, None);
        assert_eq!(num(&r, "sms"), 160.0, "{id}");
        assert_eq!(num(&r, "tensor_cores"), 640.0, "{id}");
        assert_eq!(num(&r, "fp32_lanes"), 20_480.0, "{id}");
        assert_eq!(num(&r, "peak_flops_per_s"), 15e15, "{id}");
        assert_eq!(num(&r, "hbm_bandwidth_bytes_per_s"), 8e12, "{id}");
        assert_eq!(num(&r, "hbm_capacity_bytes"), 288e9, "{id}");
        assert_eq!(num(&r, "ridge_point_flop_per_byte"), 1875.0, "{id}");
        assert_eq!(num(&r, "transistors"), 208e9, "{id}");
        // BF16 is a third party's figure (Glenn Lockwood's B300 table) or
        // derived from one, said so in its source.
        let h = hw(id);
        assert!(h.compute.dense.get("bf16").is_some(), "{id}");
        assert!(
            ["third-party", "derived"]
                .iter()
                .any(|k| h.sources["compute.dense.bf16"].starts_with(k)),
            "{id}"
        );
    }
    let g = report(&hw("gb300"), None, None);
    assert_eq!(num(&g, "tdp_watts"), 1400.0);
    let link = &hw("gb300").interconnect[0];
    let per_gpu = link.bidirectional_bandwidth.unwrap().get();
    let domain = f64::from(link.domain_size.unwrap().get());
    let aggregate = link.aggregate_bandwidth.unwrap().get();
    assert!((domain * per_gpu / aggregate - 1.0).abs() < 0.005);
    // The HGX board's power is no NVIDIA page's: a third party's figure,
    // said so in its source.
    assert!(hw("b300").sources["package.tdp-watts"].starts_with("third-party"));
}

#[test]
fn default_dtypes() {
    // bf16 wherever the part has a bf16 peak; TPU v1 is integer-only, and
    // the Blackwell Ultra files carry only the NVFP4 peak NVIDIA's pages
    // state.
    for e in Catalog::default().hardware_entries().unwrap() {
        let h = hw(&e.id);
        let want = match e.id.as_str() {
            "tpu-v1" => "int8",
            "b300" | "gb300" => "fp4",
            // Volta has no BF16; the RTX 5090's only sourced tensor peak is
            // FP16 (RTX Blackwell whitepaper).
            "v100-sxm2" | "rtx-5090" => "fp16",
            _ => "bf16",
        };
        assert_eq!(h.default_dtype, want, "{}", e.id);
        // B300 and GB300 default to their chip's NVFP4 figure but carry a
        // third party's BF16 beside it.
        assert_eq!(
            h.compute.dense.get("bf16").is_some(),
            want == "bf16" || matches!(e.id.as_str(), "b300" | "gb300"),
            "{}",
            e.id
        );
    }
}

/// AWS Neuron documentation, Trainium3 Architecture: 4.9 TB/s of HBM,
/// NeuronLink-v4 at 2.56 TB/s per device, chip peaks of 671 TFLOP/s BF16,
/// 2,517 MXFP8 and 183 FP32 beside the Tensor Engines' per-core rates.
#[test]
fn trainium3_against_aws_architecture_page() {
    let t = hw("trainium3");
    close(
        "AWS Trainium3: 4.9 TB/s",
        t.memory.hbm_bandwidth.unwrap().get(),
        4.9e12,
        0.0,
    );
    let nl = t
        .interconnect
        .iter()
        .find(|l| l.name == "neuronlink-v4")
        .unwrap();
    close(
        "AWS Trainium3: NeuronLink-v4 2.56 TB/s per device",
        nl.bidirectional_bandwidth.unwrap().get(),
        2.56e12,
        0.0,
    );
    let chip = t.compute.chip.as_ref().unwrap();
    close("chip bf16", chip.get("bf16").unwrap(), 671e12, 0.0);
    close("chip mxfp8", chip.get("fp8").unwrap(), 2517e12, 0.0);
    close("chip fp32", chip.get("fp32").unwrap(), 183e12, 0.0);
    assert_eq!(t.compute.fp8_format.as_deref(), Some("mxfp8"));
    let r = report(&t, None, None);
    close(
        "tensor engines x 8",
        num(&r, "peak_flops_per_s"),
        8.0 * 79e12,
        0.0,
    );
    close("chip peak", num(&r, "chip_peak_flops_per_s"), 671e12, 0.0);
    assert!(r.label("peak_flops_per_s").contains("cores"), "labelled");
    assert!(r.notes.iter().any(|n| n.contains("MXFP8")), "{:?}", r.notes);
    // 144 GiB shows as 144 GiB, not 154.6 GB.
    assert_eq!(
        r.unit("hbm_capacity_bytes"),
        roofline::report::Unit::BytesIec
    );
    close("144 GiB", num(&r, "hbm_capacity_bytes"), 144.0 * GIB, 0.0);
    assert_eq!(
        report(&hw("h100-sxm"), None, None).unit("hbm_capacity_bytes"),
        roofline::report::Unit::Bytes,
        "80 GB stays decimal"
    );
}

/// NVIDIA's tables: the HGX/DGX B200 datasheet's 64 TB/s for 8 GPUs (8 TB/s
/// each) and the GB200 NVL72 datasheet's 576 TB/s for 72 (8 TB/s) and
/// 3,240 TFLOP/s FP64 for 72 (45 each; the 40 is the HGX B200 at 1,000 W).
#[test]
fn blackwell_against_nvidia_tables() {
    close(
        "DGX B200: 64 TB/s / 8",
        hw("b200").memory.hbm_bandwidth.unwrap().get(),
        64e12 / 8.0,
        0.0,
    );
    let g = hw("gb200");
    close(
        "GB200 NVL72: 576 TB/s / 72",
        g.memory.hbm_bandwidth.unwrap().get(),
        576e12 / 72.0,
        0.0,
    );
    close(
        "GB200 NVL72: FP64 3,240 TFLOP/s / 72",
        g.compute.dense.get("fp64").unwrap(),
        3240e12 / 72.0,
        0.0,
    );
    close("GB200 board power", g.board_power().unwrap(), 1200.0, 0.0);
}

/// Board power and FLOP/s per watt for every part that publishes power.
#[test]
fn board_power_and_flops_per_watt() {
    for (id, watts) in [
        ("h100-sxm", 700.0),
        ("h200-sxm", 700.0),
        ("h800", 700.0),
        ("a100-sxm-80gb", 400.0),
        ("b200", 1000.0),
        ("gb200", 1200.0),
        ("mi300x", 750.0),
        ("mi355x", 1400.0),
        ("tpu-v1", 75.0),
    ] {
        let h = hw(id);
        close(id, h.board_power().unwrap(), watts, 0.0);
        let r = report(&h, None, None);
        close(
            &format!("{id} FLOP/s per W"),
            num(&r, "flops_per_watt"),
            num(&r, "peak_flops_per_s") / watts,
            0.0,
        );
    }
    close(
        "h100 bf16 per W",
        num(&report(&hw("h100-sxm"), None, None), "flops_per_watt"),
        989e12 / 700.0,
        0.0,
    );
    // Google and AWS publish no chip power: the files carry reported
    // figures (a pod's 10 MW over its 9,216 chips; "above 1,000 watts"),
    // said so in their sources.
    close(
        "tpu7x bf16 per W",
        num(&report(&hw("tpu7x"), None, None), "flops_per_watt"),
        2307e12 / 1085.0,
        1e-12,
    );
    for id in ["tpu7x", "trainium3"] {
        assert!(hw(id).sources["package.tdp-watts"].starts_with("third-party"));
    }
}

/// --sparse uses the 2:4 peaks where the file has them.
#[test]
fn sparse_peaks() {
    let sparse = |id: &str, dtype: &str| {
        cost(
            &hw(id),
            &HwShowInputs {
                dtype: Some(dtype.into()),
                sparse: Some(roofline::calc::hw::Switch(true)),
                ..Default::default()
            },
            Mode::SpeedOfLight,
        )
        .map(|c| c.peak)
    };
    close(
        "h100 bf16 sparse",
        sparse("h100-sxm", "bf16").unwrap(),
        1979e12,
        0.0,
    );
    close(
        "mi355x fp8 sparse",
        sparse("mi355x", "fp8").unwrap(),
        10e15,
        0.0,
    );
    let e = sparse("h100-sxm", "fp64").unwrap_err().to_string();
    assert!(e.contains("no sparse fp64"), "{e}");
    let e = sparse("tpu7x", "bf16").unwrap_err().to_string();
    assert!(e.contains("no 2:4 sparse"), "{e}");
}

/// The H800: an H100 SXM with NVLink cut to 400 GB/s and FP64 to 1 TFLOP/s
/// (NVIDIA's H800 datasheet).
#[test]
fn h800_is_an_h100_with_nvlink_cut() {
    let h = hw("h800");
    let h100 = hw("h100-sxm");
    close("H800 FP64", h.compute.dense.get("fp64").unwrap(), 1e12, 0.0);
    for key in ["bf16", "fp8", "tf32", "fp32"] {
        assert_eq!(
            h.compute.dense.get(key),
            h100.compute.dense.get(key),
            "{key}"
        );
    }
    assert_eq!(h.memory.hbm_bandwidth, h100.memory.hbm_bandwidth);
    assert_eq!(h.memory.hbm_capacity, h100.memory.hbm_capacity);
    assert_eq!(
        h.execution.as_ref().unwrap().sms,
        h100.execution.as_ref().unwrap().sms
    );
    close(
        "H800 NVLink",
        h.interconnect[0].bidirectional_bandwidth.unwrap().get(),
        400e9,
        0.0,
    );
    assert!(
        h.source("interconnect.0.bidirectional-bandwidth")
            .unwrap()
            .contains("H800")
    );
}

//! `collective`: bus bytes per algorithm, the fabric tiers, the speed of
//! light below every NCCL measurement we hold (../shared/ground/), the
//! measured calibration within 25% of them, and the collective and
//! scale-up-domain golden cases (../shared/golden/seed_cases.toml), each
//! named by its id.

use crate::common;
use common::{check, check_si};
use roofline::calc::collective::{self, CollectiveInputs, Fabric, Kind};
use roofline::catalog::Catalog;
use roofline::inputs::{Bytes, Count};
use roofline::spec::hardware::{Hardware, Mode};
use roofline::spec::overrides::Set;

fn hw(id: &str) -> Hardware {
    Catalog::default()
        .hardware(id, &[])
        .expect("hardware loads")
}

fn hw_with(id: &str, sets: &[&str]) -> Hardware {
    let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
    Catalog::default()
        .hardware(id, &sets)
        .expect("hardware loads")
}

/// |got - want| <= tol x |want|, the golden file's rule.
fn close(id: &str, got: f64, want: f64, tol: f64) {
    let slack = (tol * want.abs()).max(1e-9 * want.abs());
    assert!(
        (got - want).abs() <= slack,
        "{id}: got {got}, expected {want} (tolerance {tol})"
    );
}

fn run(h: &Hardware, kind: Kind, n: u64, bytes: f64, mode: Mode) -> collective::CollectiveCost {
    collective::cost(
        h,
        &CollectiveInputs {
            kind,
            devices: Count(n),
            bytes: Bytes(bytes),
            latency: None,
            // The graph-captured calls the calibration was fitted to.
            launch: Some("graph".into()),
            engine: None,
        },
        mode,
    )
    .unwrap()
}

const GIB: f64 = 1073741824.0;

#[test]
fn bus_bytes_follow_the_ring_formulas() {
    let h = hw("h200-sxm");
    let n = 8.0;
    let v = GIB;
    let cases = [
        (Kind::AllReduce, 2.0 * (n - 1.0) / n * v),
        (Kind::AllGather, (n - 1.0) / n * (n * v)),
        (Kind::ReduceScatter, (n - 1.0) / n * v),
        (Kind::AllToAll, (n - 1.0) / n * v),
        (Kind::SendRecv, v),
    ];
    for (kind, want) in cases {
        let c = run(&h, kind, 8, v, Mode::SpeedOfLight);
        close(kind.as_str(), c.bus_bytes, want, 1e-12);
        // One NVLink hop: 450 GB/s each way, no latency at speed of light.
        close(kind.as_str(), c.bandwidth, 450e9, 1e-12);
        close(kind.as_str(), c.time_s, want / 450e9, 1e-12);
        assert_eq!(c.phases.len(), 1, "{}", kind.as_str());
    }
}

#[test]
fn wider_than_the_domain_runs_hierarchically() {
    let h = hw("h200-sxm");
    // 32 GPUs: 4 HGX nodes of 8. Reduce-scatter in the node, all-reduce of
    // an eighth across the 4 nodes over each GPU's own NIC, all-gather back.
    let c = run(&h, Kind::AllReduce, 32, GIB, Mode::SpeedOfLight);
    assert_eq!(c.phases.len(), 3);
    let intra = 2.0 * 7.0 / 8.0 * GIB;
    let inter = 2.0 * 3.0 / 4.0 * GIB / 8.0;
    close("scale-up bus", c.scale_up_bus_bytes, intra, 1e-12);
    close("scale-out bus", c.scale_out_bus_bytes, inter, 1e-12);
    close("time", c.time_s, intra / 450e9 + inter / 50e9, 1e-12);
    assert!(c.algorithm.starts_with("hierarchical"), "{}", c.algorithm);
    // An all-to-all sends (n-d)/n of its input over the network and the rest
    // over NVLink at the same time.
    let a = run(&h, Kind::AllToAll, 32, GIB, Mode::SpeedOfLight);
    close("a2a out", a.scale_out_bus_bytes, 24.0 / 32.0 * GIB, 1e-12);
    close("a2a up", a.scale_up_bus_bytes, 7.0 / 32.0 * GIB, 1e-12);
    close("a2a time", a.time_s, 24.0 / 32.0 * GIB / 50e9, 1e-12);
}

#[test]
fn uneven_domains_and_missing_links_are_errors() {
    let h = hw("h200-sxm");
    let e = collective::cost(
        &h,
        &CollectiveInputs {
            kind: Kind::AllReduce,
            devices: Count(12),
            bytes: Bytes(GIB),
            latency: None,
            launch: None,
            engine: None,
        },
        Mode::SpeedOfLight,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("multiple of 8"), "{e}");
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/collective/no-link-bandwidth.toml"
    );
    let e = collective::time(
        &Fabric::of(&hw(fixture), Mode::SpeedOfLight),
        Kind::AllReduce,
        4,
        GIB,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("interconnect.0.per-direction-bandwidth"), "{e}");
    // No measured NIC figure: --achievable across nodes says which is missing.
    let e = collective::time(
        &Fabric::of(&h, Mode::Achievable),
        Kind::AllReduce,
        16,
        GIB,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("achievable.link-bandwidth.nic"), "{e}");
}

#[test]
fn full_mesh_uses_one_link_per_peer() {
    // MI300X: 448 GB/s each way over 7 Infinity Fabric links, 64 GB/s each.
    let h = hw("mi300x");
    let c = run(&h, Kind::AllReduce, 4, GIB, Mode::SpeedOfLight);
    close("mi300x 4 GPUs", c.bandwidth, 3.0 * 64e9, 1e-12);
    let c = run(&h, Kind::AllReduce, 8, GIB, Mode::SpeedOfLight);
    close("mi300x 8 GPUs", c.bandwidth, 448e9, 1e-12);
    let p = run(&h, Kind::SendRecv, 2, GIB, Mode::SpeedOfLight);
    close("mi300x p2p", p.bandwidth, 64e9, 1e-12);
}

#[test]
fn torus_uses_both_directions_of_every_axis() {
    // Google's 1,200 GB/s per chip (bidirectional) is 6 links of 200 GB/s
    // over the 3D torus; a 4x4x4 slice runs rings on 3 axes, both ways:
    // 6 x 100 GB/s each way, 600 GB/s.
    let h = hw("tpu7x");
    let c = run(&h, Kind::AllReduce, 64, GIB, Mode::SpeedOfLight);
    close("tpu7x ICI each way", c.bandwidth, 1.2e12 / 2.0, 1e-12);
    assert!(c.algorithm.contains("4x4x4"), "{}", c.algorithm);
    close(
        "tpu7x all-reduce 64",
        c.time_s,
        2.0 * 63.0 / 64.0 * GIB / 600e9,
        1e-12,
    );
    // A 1-D ring of 4 uses one axis, both directions.
    let r = run(&h, Kind::AllGather, 4, GIB, Mode::SpeedOfLight);
    assert!(r.algorithm.contains("1x1x4") || r.algorithm.contains("torus"));
    // hw-tpu7x-pod-chips: one ICI domain holds 9,216 chips; one more has no
    // scale-out tier to go to.
    let full = run(&h, Kind::AllReduce, 9216, GIB, Mode::SpeedOfLight);
    assert_eq!(full.phases.len(), 1, "hw-tpu7x-pod-chips");
    let e = collective::time(
        &Fabric::of(&h, Mode::SpeedOfLight),
        Kind::AllReduce,
        9217,
        GIB,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("at most 9,216"), "hw-tpu7x-pod-chips: {e}");
}

/// The NCCL rows of tests/data/ground/h200-measured.json (a copy of the ground file): (op, bytes per
/// rank, seconds), two H200s over NVLink, measured on H200, 2026-11-29.
fn measured() -> Vec<(Kind, f64, f64, bool)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ground/h200-measured.json"
    );
    let small = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/ground/nccl-small-2gpu.json"
    );
    let kind = |op: &str| match op {
        "all_reduce" => Kind::AllReduce,
        "all_gather" => Kind::AllGather,
        "reduce_scatter" => Kind::ReduceScatter,
        "all_to_all" => Kind::AllToAll,
        "sendrecv" => Kind::SendRecv,
        other => panic!("unknown op {other}"),
    };
    let mut out = Vec::new();
    // The files sit beside the repository in the workspace; a checkout
    // without them skips (the numbers are also in docs/validation.md).
    if let Ok(text) = std::fs::read_to_string(path) {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for r in v["nccl_2gpu_nvlink"].as_array().unwrap() {
            out.push((
                kind(r["op"].as_str().unwrap()),
                r["bytes_per_rank"].as_f64().unwrap(),
                r["s"].as_f64().unwrap(),
                true,
            ));
        }
    }
    if let Ok(text) = std::fs::read_to_string(small) {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for r in v.as_array().unwrap() {
            out.push((
                kind(r["op"].as_str().unwrap()),
                r["bytes"].as_f64().unwrap(),
                r["s"].as_f64().unwrap(),
                r["mode"] == "graph",
            ));
        }
    }
    out
}

#[test]
fn speed_of_light_is_below_every_measurement() {
    let h = hw("h200-sxm");
    let rows = measured();
    for (kind, bytes, s, _) in &rows {
        let c = run(&h, *kind, 2, *bytes, Mode::SpeedOfLight);
        assert!(
            c.time_s < *s,
            "{} of {bytes} B: speed of light {} s is not below the measured {s} s",
            kind.as_str(),
            c.time_s
        );
    }
}

#[test]
fn achievable_is_within_a_quarter_of_large_and_graph_measurements() {
    // The calibration (18.5 us per call, bus bandwidth at 1 GiB) against
    // every row it is meant for: messages of 64 MiB and more, where the
    // wire dominates, and the CUDA-graph small all-reduces, where the call
    // latency does. Eager small calls pay ~44 us of Python call path the
    // model leaves out (docs/validation.md).
    let h = hw("h200-sxm");
    let mut checked = 0;
    for (kind, bytes, s, timed_on_device) in measured() {
        if !(timed_on_device && (bytes >= 64.0 * 1048576.0 || bytes <= 1048576.0)) {
            continue;
        }
        if bytes <= 1048576.0 && kind != Kind::AllReduce {
            continue;
        }
        if bytes == 1048576.0 {
            continue; // the eager-floor row of h200-measured.json
        }
        let c = run(&h, kind, 2, bytes, Mode::Achievable);
        let ratio = c.time_s / s;
        assert!(
            (0.75..=1.25).contains(&ratio),
            "{} of {bytes} B: predicted {} s against {s} s (ratio {ratio})",
            kind.as_str(),
            c.time_s
        );
        checked += 1;
    }
    if checked > 0 {
        assert!(checked >= 18, "checked {checked} rows");
    }
}

#[test]
fn nvlink_golden_cases() {
    // hw-hgx-h200-nvlink: 900 GB/s per GPU on the HGX H200, both directions
    // added; a collective uses 450 GB/s each way.
    let h200 = hw("h200-sxm");
    let c = run(&h200, Kind::AllReduce, 8, GIB, Mode::SpeedOfLight);
    check_si("hw-hgx-h200-nvlink", c.bandwidth * 2.0);
    // hw-blackwell-nvlink-per-gpu: 1.8 TB/s per GPU on NVLink 5.
    let gb = hw("gb200");
    let g = run(&gb, Kind::AllReduce, 72, GIB, Mode::SpeedOfLight);
    check_si("hw-blackwell-nvlink-per-gpu", g.bandwidth * 2.0);
    // book-5.1-nvlink-per-gpu-growth: 900 GB/s -> 1.8 TB/s is 2x.
    check("book-5.1-nvlink-per-gpu-growth", g.bandwidth / c.bandwidth);
    // book-5.1-nvlink-domain-growth, book-6.1-nvl72-vs-8gpu: the scale-up
    // domain grows from 8 to 72 GPUs, ninefold.
    let d8 = Fabric::of(&h200, Mode::SpeedOfLight).domain().unwrap() as f64;
    let d72 = Fabric::of(&gb, Mode::SpeedOfLight).domain().unwrap() as f64;
    check("book-5.1-nvlink-domain-growth", d72 / d8);
    check("book-6.1-nvl72-vs-8gpu", d72 / d8);
    // ... so a 72-GPU all-reduce stays on NVLink on the NVL72 and crosses
    // the network on HGX nodes.
    assert_eq!(g.phases.len(), 1, "book-5.1-nvlink-domain-growth");
    let hgx = run(&h200, Kind::AllReduce, 72, GIB, Mode::SpeedOfLight);
    assert_eq!(hgx.phases.len(), 3, "book-5.1-nvlink-domain-growth");
    // book-5.1-nvl72-aggregate, book-6.1-nvl72-aggregate-check: 72 GPUs x
    // 1.8 TB/s = 129.6 TB/s, the "130 TB/s" of the switch (0.5%).
    let agg = d72 * g.bandwidth * 2.0;
    check("book-5.1-nvl72-aggregate", agg / 1e12);
    check("book-6.1-nvl72-aggregate-check", agg / 1e12);
    // hw-blackwell-nvl72-aggregate: the file's figure.
    let link = &gb.interconnect[0];
    check(
        "hw-blackwell-nvl72-aggregate",
        link.aggregate_bandwidth.unwrap().get() / 1e12,
    );
    // hw-blackwell-nvlink-max-gpus, book-6.1-nvl72-racks: 576 GPUs in one
    // NVLink 5 domain, 8 racks of 72; a 576-GPU domain keeps a 576-GPU
    // all-reduce on NVLink.
    let max = link.max_domain_size.unwrap().get();
    check("hw-blackwell-nvlink-max-gpus", f64::from(max));
    check("book-6.1-nvl72-racks", f64::from(max) / d72);
    let big = hw_with("gb200", &["interconnect.0.domain-size=576"]);
    let b = run(&big, Kind::AllReduce, 576, GIB, Mode::SpeedOfLight);
    assert_eq!(b.phases.len(), 1, "hw-blackwell-nvlink-max-gpus");
    // A domain above max-domain-size is refused when loading.
    let sets: Vec<Set> = vec!["interconnect.0.domain-size=1152".parse().unwrap()];
    assert!(
        Catalog::default().hardware("gb200", &sets).is_err(),
        "hw-blackwell-nvlink-max-gpus"
    );
}

#[test]
fn simple_latency_is_the_median_residual_of_the_256_mib_rows() {
    // A hand derivation from the ground rows, independent of the model:
    // each collective's bus efficiency is its bus bandwidth at 1 GiB over
    // send/recv's 370 GB/s; at 256 MiB the time less the bus bytes over
    // that bandwidth is a residual; the file's simple-latency is the
    // median of the five residuals (formulas.md, "Collectives", protocols).
    let rows = measured();
    if rows.is_empty() {
        return;
    }
    let bus = |k: Kind, v: f64| match k {
        Kind::ReduceScatter | Kind::AllToAll => v / 2.0,
        _ => v,
    };
    let at = |k: Kind, v: f64| {
        rows.iter()
            .find(|r| r.0 == k && r.1 == v && r.3)
            .map(|r| r.2)
            .unwrap()
    };
    let link = GIB / at(Kind::SendRecv, GIB);
    let mut residuals: Vec<f64> = Kind::ALL
        .iter()
        .map(|&k| {
            let eff = bus(k, GIB) / at(k, GIB) / link;
            let v = 256.0 * 1048576.0;
            at(k, v) - bus(k, v) / (link * eff)
        })
        .collect();
    residuals.sort_by(f64::total_cmp);
    let h = hw("h200-sxm");
    let p = h
        .achievable
        .as_ref()
        .and_then(|a| a.collective_protocol.as_ref())
        .unwrap();
    close(
        "simple-latency",
        p.simple_latency.unwrap().get(),
        residuals[2],
        0.005,
    );
}

#[test]
fn the_faster_protocol_and_the_longer_of_host_and_gpu() {
    let h = hw("h200-sxm");
    let eager = |kind: Kind, bytes: f64| {
        collective::cost(
            &h,
            &CollectiveInputs {
                kind,
                devices: Count(2),
                bytes: Bytes(bytes),
                latency: None,
                launch: Some("eager".into()),
                engine: None,
            },
            Mode::Achievable,
        )
        .unwrap()
    };
    // 8 MiB all-reduce: LL128, 18.5 us + 8 MiB / (370 GB/s x 0.8949 x 0.92)
    // = 18.5 + 27.5 us, above the 44 us host path.
    let c = eager(Kind::AllReduce, 8.0 * 1048576.0);
    assert_eq!(c.phases[0].protocol, Some("LL128"));
    close(
        "8 MiB",
        c.time_s,
        18.5e-6 + 8388608.0 / (370e9 * 0.8949 * 0.92),
        1e-6,
    );
    assert_eq!(c.host_s, Some(44e-6));
    // 1 GiB: Simple, 79.8 us + 1 GiB / (370 GB/s x 0.8949).
    let c = eager(Kind::AllReduce, GIB);
    assert_eq!(c.phases[0].protocol, Some("Simple"));
    close("1 GiB", c.time_s, 79.8e-6 + GIB / (370e9 * 0.8949), 1e-6);
    // 64 KiB: the host path binds.
    let c = eager(Kind::AllReduce, 65536.0);
    close("64 KiB", c.time_s, 44e-6, 1e-9);
    assert!(c.gpu_s < c.time_s);
    // Graph-captured calls have no host path apart.
    let g = run(&h, Kind::AllReduce, 2, 65536.0, Mode::Achievable);
    assert_eq!(g.host_s, None);
    assert_eq!(g.time_s, g.gpu_s);
}

#[test]
fn a_protocol_figure_without_the_other_is_refused() {
    let e = Catalog::default()
        .hardware(
            "h800",
            &["achievable.collective-protocol.simple-latency=80us"
                .parse::<Set>()
                .unwrap()],
        )
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("ll128-share"), "{e}");
}

/// RCCL runs no LL128 on the MI300X (gfx942): ROCm/rccl tag rocm-6.2.0,
/// src/graph/tuning.cc, "Enable LL128 by default only on gfx90a". Its
/// mid-size all-reduce is then Simple's, as Azure's rccl-tests on 8 MI300X
/// measured it (AI-benchmarking-guide, Azure_Results/ND_MI300X_v5_results.md,
/// 'RCCL Bandwidth', commit 3de0c29, 2025-02-07): bus bandwidth 171.46 GB/s
/// at 16 MiB and 266.34 GB/s at 64 MiB, so 16 MiB x 2 x 7/8 / 171.46 GB/s
/// = 171.2 us and 440.9 us. With LL128 carried from the H200 the file gave
/// 119.2 us at 16 MiB (30% fast).
#[test]
fn mi300x_all_reduce_follows_rccl_measured_curve() {
    let h = hw("mi300x");
    let src = h
        .source("achievable.collective-protocol.ll128-share")
        .unwrap();
    assert!(
        src.contains("rocm-6.2.0") && src.contains("tuning.cc"),
        "{src}"
    );
    for (bytes, bus) in [(16.0 * 1048576.0, 171.46e9), (64.0 * 1048576.0, 266.34e9)] {
        let measured = bytes * 2.0 * 7.0 / 8.0 / bus;
        let c = run(&h, Kind::AllReduce, 8, bytes, Mode::Achievable);
        assert_eq!(c.phases[0].protocol, Some("Simple"), "{bytes}");
        close(&format!("mi300x {bytes} B"), c.time_s, measured, 0.05);
    }
}

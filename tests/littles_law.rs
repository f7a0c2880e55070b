//! `littles-law` against the seeds' worked examples (002 §7.3, §7.4,
//! exercises 1-2) by golden id, with expected values and tolerances from
//! tests/data/golden/seed_cases.toml; the H200 measurements; bad input;
//! snapshots; and properties of `littles_law::cost` over any input.

use crate::common;

use common::*;
use proptest::prelude::*;
use roofline::calc::littles_law::{self, Latency, LittlesLawCost, LittlesLawInputs};
use roofline::inputs::{Bytes, Count, Hz};
use roofline::render::{Explain, Format, Renderer};
use roofline::spec::hardware::{Hardware, Mode};

fn law<'a>(h: &'a Hardware, i: &LittlesLawInputs) -> LittlesLawCost<'a> {
    littles_law::cost(h, i, Mode::SpeedOfLight).unwrap_or_else(|e| panic!("{e}"))
}

/// The lecture's assumptions: `cycles` of latency at `clock`, 128-B loads.
fn lecture(h: &Hardware, cycles: f64, clock: f64) -> LittlesLawCost<'_> {
    law(h, &LittlesLawInputs::lecture(cycles, clock))
}

#[test]
fn lec_7_4_littles_law() {
    let h = h100();
    let c = lecture(&h, 500.0, 1.8e9);
    check("lec-7.4-bytes-per-cycle", c.bytes_per_cycle.unwrap());
    check("lec-7.4-bytes-in-flight", c.bytes_in_flight / 1e6);
    check("lec-7.4-loads-in-flight", c.loads_in_flight);
    let sm = c.per_sm.unwrap();
    check("lec-7.4-loads-per-sm", sm.loads_per_sm);
    check(
        "lec-7.4-warps-available",
        sm.warps_available.unwrap() as f64,
    );
    check("lec-7.4-pointer-chase-rate", c.chase_loads_per_s);
    check("lec-7.4-pointer-chase-bw", c.chase_bytes_per_s / 1e6);
    check("lec-7.4-pointer-chase-ratio", c.chase_slowdown());
}

// 002 §7.3: the memory-hierarchy figures the same question answers.
#[test]
fn lec_7_3_memory_hierarchy() {
    let h = h100();
    let c = lecture(&h, 500.0, 1.8e9);
    check("lec-7.3-latency-ns", c.latency_s * 1e9);
    let sm = c.per_sm.unwrap();
    check("lec-7.3-hbm-per-sm", sm.bandwidth_per_sm / 1e9);
    check(
        "lec-7.3-hbm-per-sm-cycle",
        sm.bytes_per_cycle_per_sm.unwrap(),
    );
    // 128 FP32 lanes x 4 B a cycle against the SM's 14.1 B of HBM.
    check("lec-7.3-sm-shortfall", c.sm_shortfall().unwrap());
    // 500 cycles of HBM against the file's 30 cycles of shared memory.
    check("lec-7.3-latency-ratio", c.smem_latency_ratio().unwrap());
    // Through the command line.
    let j = cli_json(&[
        "littles-law",
        "--hw",
        "h100-sxm",
        "--latency",
        "500 cycles",
        "--clock",
        "1.8 GHz",
    ]);
    check("lec-7.3-sm-shortfall", json_num(&j, "sm_shortfall"));
    check("lec-7.3-latency-ratio", json_num(&j, "smem_latency_ratio"));
    check("lec-7.4-loads-per-sm", json_num(&j, "loads_per_sm"));
}

#[test]
fn lec_7_4_sensitivity() {
    let h = h100();
    let at = |c| lecture(&h, c, 1.8e9).per_sm.unwrap().loads_per_sm;
    check("lec-7.4-sens-400", at(400.0));
    check("lec-7.4-sens-600", at(600.0));
}

#[test]
fn lec_ex1_loads_per_warp() {
    // 32 resident warps (exercise 1's occupancy) against 55 loads per SM.
    let h = h100();
    let i = LittlesLawInputs {
        warps: Some(Count(32)),
        ..LittlesLawInputs::lecture(500.0, 1.8e9)
    };
    let c = law(&h, &i);
    check(
        "lec-ex1-loads-per-warp",
        c.per_sm.unwrap().loads_per_warp.unwrap(),
    );
}

#[test]
fn lec_ex2_a100() {
    let h = hw("a100-sxm-80gb");
    let c = lecture(&h, 500.0, 1.4e9);
    check("lec-ex2-latency-ns", c.latency_s * 1e9);
    check("lec-ex2-bytes-in-flight", c.bytes_in_flight);
    check("lec-ex2-transactions", c.loads_in_flight);
    check("lec-ex2-per-sm", c.per_sm.unwrap().loads_per_sm);
}

#[test]
fn defaults_come_from_the_hardware_file() {
    // h100-sxm's own DRAM latency (cycles) and boost clock.
    let h = h100();
    let c = law(&h, &LittlesLawInputs::default());
    let want = h.memory.dram_latency.unwrap().get() / h.compute.clock.unwrap().get();
    close("h100 default latency", c.latency_s, want, 1e-12);
    assert_eq!(c.transaction, h.memory.segment.unwrap().get());
}

#[test]
fn bad_input_names_the_field() {
    let h = h100();
    for (i, field) in [
        (
            LittlesLawInputs {
                latency: Some(Latency::Cycles(-500.0)),
                ..Default::default()
            },
            "latency",
        ),
        (
            LittlesLawInputs {
                clock: Some(Hz(0.0)),
                ..Default::default()
            },
            "clock",
        ),
        (
            LittlesLawInputs {
                transaction: Some(Bytes(0.0)),
                ..Default::default()
            },
            "transaction",
        ),
        (
            LittlesLawInputs {
                warps: Some(Count(0)),
                ..Default::default()
            },
            "warps",
        ),
    ] {
        let e = littles_law::cost(&h, &i, Mode::SpeedOfLight).unwrap_err();
        assert_eq!(e.exit_code(), 65);
        assert!(
            matches!(&e, roofline::Error::Field { field: f, .. } if f == field),
            "{field}: {e}"
        );
    }
    let err = cli_err(
        &["littles-law", "--hw", "h100-sxm", "--latency", "5 GB"],
        65,
    );
    assert!(err.contains("--latency"), "{err}");
}

// ------------------------------------------------ validation (docs/validation.md)

#[test]
fn h200_stride_1_is_capped_by_loads_in_flight() {
    // One 128-B load per warp, 64 warps on each of 132 SMs, at the measured
    // HBM pointer-chase latency (348.9 ns): Little's law caps the kernel
    // below the datasheet; it measured 1,647 GB/s, about half the cap (the
    // model leaves out the latency growth under load).
    let h200 = fixture("h200");
    let i = LittlesLawInputs {
        latency: Some(Latency::Seconds(348.9e-9)),
        ..Default::default()
    };
    let c = law(&h200, &i);
    let sm = c.per_sm.unwrap();
    let cap = sm.one_load_per_warp_bandwidth.unwrap();
    // 64 x 132 x 128 B / 348.9 ns.
    close("H200 one-load cap", cap / 1e12, 3.099, 0.001);
    assert!(1647.1e9 < cap);
    assert_eq!(sm.loads_per_warp, Some(2.0));
}

// ------------------------------------------------------------- snapshots

#[test]
fn snapshots() {
    let h = fixture("h200");
    let r = law(
        &h,
        &LittlesLawInputs {
            latency: Some(Latency::Cycles(500.0)),
            clock: Some(Hz(1.8e9)),
            ..Default::default()
        },
    )
    .report(false);
    insta::assert_snapshot!(
        "littles_law_table",
        String::from_utf8(Format::Table.renderer().render(&r)).unwrap()
    );
    insta::assert_json_snapshot!("littles_law_json", r);
    insta::assert_snapshot!(
        "littles_law_explain",
        String::from_utf8(Explain.render(&r)).unwrap()
    );
}

// ------------------------------------------------------------ properties

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        1e-12f64..1e6,
        any::<f64>(),
        Just(0.0),
        Just(f64::MIN_POSITIVE),
        Just(f64::MAX),
    ]
}

proptest! {
    #[test]
    fn cost_never_panics_and_times_are_positive(
        cycles in prop::option::of(any_f64()),
        seconds in any::<bool>(),
        clock in prop::option::of(any_f64()),
        transaction in prop::option::of(any_f64()),
        warps in prop::option::of(any::<u64>()),
        pointer in prop::option::of(any_f64()),
        part in 0usize..3,
        achievable in any::<bool>(),
    ) {
        let h = fixture(["h200", "a100", "v100"][part]);
        let i = LittlesLawInputs {
            latency: cycles.map(|c| if seconds { Latency::Seconds(c) } else { Latency::Cycles(c) }),
            clock: clock.map(Hz),
            transaction: transaction.map(Bytes),
            warps: warps.map(Count),
            pointer: pointer.map(Bytes),
        };
        let mode = if achievable { Mode::Achievable } else { Mode::SpeedOfLight };
        if let Ok(c) = littles_law::cost(&h, &i, mode) {
            for t in [c.latency_s, c.bytes_in_flight, c.loads_in_flight, c.chase_loads_per_s, c.chase_bytes_per_s] {
                prop_assert!(t.is_finite() && t > 0.0, "{t}");
            }
            if let Some(sm) = c.per_sm {
                prop_assert!(sm.loads_per_sm.is_finite());
                if let Some(b) = sm.one_load_per_warp_bandwidth {
                    prop_assert!(b <= c.bandwidth);
                }
            }
            let _ = c.report(false);
        }
    }
}

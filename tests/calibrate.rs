//! `calibrate` on the committed H200 measurement files
//! (`validation/results/2026-12-01-h200/calibrate-h200.csv` and its second run): the fit predicts
//! the points it held out, its figures agree with measurements taken in
//! other sessions, a second run fits the same figures, and the file it
//! writes answers `decode --achievable` as the shipped H200 file does on
//! the serving measurements (`validation/results/2026-12-01-h200/h200-serving-fidelity.json`).

use roofline::calc::calibrate::{self, Calibrated, Inputs};
use roofline::calc::decode::{self, DecodeInputs};
use roofline::catalog::Catalog;
use roofline::spec::hardware::{Hardware, Mode};
use std::rc::Rc;

fn fit(file: &str, base: &str, force: bool) -> roofline::error::Result<Calibrated> {
    let cat = Catalog::default();
    let hw = cat.hardware(base, &[]).unwrap();
    let (text, _) = cat.hardware_text(base).unwrap();
    let csv = std::fs::read_to_string(file).unwrap();
    let model = |id: &str| cat.model(id, &[]).map(Rc::new);
    calibrate::calibrate(&Inputs {
        base: &hw,
        base_text: &text,
        csv: &csv,
        file,
        id: "h200-test",
        force,
        model: &model,
    })
}

/// The committed file's fit, made once for all the tests here.
fn h200() -> &'static Calibrated {
    static FIT: std::sync::OnceLock<Calibrated> = std::sync::OnceLock::new();
    FIT.get_or_init(|| {
        fit(
            "validation/results/2026-12-01-h200/calibrate-h200.csv",
            "h200-sxm",
            false,
        )
        .unwrap()
    })
}

#[test]
fn the_h200_fit_predicts_the_points_it_held_out() {
    let c = h200();
    // A quarter of the 160 graph GEMMs and the attention rows, and every
    // decode step.
    assert!(c.held_out.points >= 40, "{}", c.held_out.points);
    // Issue 17's median target for the per-operation model, 10%, and no
    // worse than the shipped file on the same points (the worst is the
    // FlashAttention-2 prefill row the shipped cuDNN curve misses: the
    // file's attention figures are kept, too few rows check them).
    assert!(c.held_out.median_error <= 0.10, "{:?}", c.held_out);
    assert!(
        c.held_out.median_error <= c.held_out.shipped_median_error,
        "{:?}",
        c.held_out
    );
    assert!(
        c.held_out.worst_error <= c.held_out.shipped_worst_error + 1e-9,
        "{:?}",
        c.held_out
    );
    // The file carries the same figures it printed.
    let cal = c.hardware.calibration.as_ref().unwrap();
    assert_eq!(cal.points, Some(c.held_out.points as u64));
    assert_eq!(cal.sha256, c.sha256);
    assert_eq!(cal.device, "NVIDIA H200");
}

#[test]
fn held_out_rows_are_the_third_of_every_four() {
    let c = h200();
    let rows = &c.measurements.rows;
    let mut expected = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for r in rows {
        // Whole steps are all held out: no figure is fitted on one.
        if matches!(r.op.name(), "decode_step" | "prefill_step") {
            expected.push(r.line);
            continue;
        }
        let eligible = match r.op.name() {
            "gemm" | "kernel_sweep" => format!("{:?}", r.launch) == "Graph",
            "attention_prefill" | "attention_decode" => true,
            _ => false,
        };
        if eligible {
            let i = seen.entry((r.op.name(), r.dtype.clone())).or_insert(0);
            *i += 1;
            if *i % 4 == 3 {
                expected.push(r.line);
            }
        }
    }
    let got: Vec<usize> = c.checks.iter().map(|k| k.line).collect();
    assert_eq!(got, expected);
}

fn achievable(hw: &Hardware) -> &roofline::spec::hardware::Achievable {
    hw.achievable.as_ref().unwrap()
}

#[test]
fn fitted_figures_agree_with_other_sessions_measurements() {
    let c = h200();
    let shipped = Catalog::default().hardware("h200-sxm", &[]).unwrap();
    let (a, s) = (achievable(&c.hardware), achievable(&shipped));
    let near = |x: f64, y: f64, tol: f64, what: &str| {
        assert!((x / y - 1.0).abs() <= tol, "{what}: {x} against {y}");
    };
    // The stream and the graph launch of the ground measurements
    // (2026-11-29), which the shipped file cites.
    near(
        a.hbm_bandwidth.unwrap().get(),
        s.hbm_bandwidth.unwrap().get(),
        0.03,
        "hbm",
    );
    near(
        a.launch.as_ref().unwrap().graph.unwrap().get(),
        s.launch.as_ref().unwrap().graph.unwrap().get(),
        0.25,
        "graph launch",
    );
    // Issue 17's 8-second bf16 loop of an earlier session: 665 TFLOP/s at
    // 1,467 MHz and 691 W.
    near(
        a.sustained.get("bf16").unwrap(),
        665e12,
        0.05,
        "sustained bf16",
    );
}

/// The 60 GEMMs another session timed (validation/results/2026-11-30-h200/h200-gemm.json,
/// 2026-11-30: square, tall, wide, deep, shallow and decode shapes, bf16
/// and fp8), predicted by `matmul --achievable --launch graph` on `hw`.
fn other_session_gemm_errors(hw: &Hardware) -> Vec<f64> {
    use roofline::calc::matmul::{self, MatmulInputs};
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("validation/results/2026-11-30-h200/h200-gemm.json").unwrap(),
    )
    .unwrap();
    let mut e = Vec::new();
    for g in v["gemm"].as_array().unwrap() {
        let Some(t) = g["s"].as_f64() else { continue };
        let inputs: MatmulInputs = serde_json::from_value(serde_json::json!({
            "m": g["M"], "n": g["N"], "k": g["K"], "dtype": g["dtype"], "launch": "graph",
        }))
        .unwrap();
        let p = matmul::cost(hw, &inputs, Mode::Achievable).unwrap().time_s;
        e.push((p - t).abs() / t);
    }
    e.sort_by(f64::total_cmp);
    e
}

#[test]
fn the_fit_predicts_another_sessions_gemms() {
    let e = other_session_gemm_errors(&h200().hardware);
    assert!(e.len() >= 50, "{}", e.len());
    // Issue 17's bar for GEMMs: median 8% (there for 100 GFLOP and more;
    // here every shape, down to 16 x 4096 x 4096).
    let median = e[e.len() / 2];
    assert!(median <= 0.08, "median {median}, all {e:?}");
}

#[test]
fn a_second_run_fits_the_same_figures() {
    let (a, b) = (
        h200(),
        fit(
            "validation/results/2026-12-01-h200/calibrate-h200-run2.csv",
            "h200-sxm",
            false,
        )
        .unwrap(),
    );
    let (x, y) = (achievable(&a.hardware), achievable(&b.hardware));
    let near = |p: f64, q: f64, tol: f64, what: &str| {
        assert!((p / q - 1.0).abs() <= tol, "{what}: {p} against {q}");
    };
    near(
        x.hbm_bandwidth.unwrap().get(),
        y.hbm_bandwidth.unwrap().get(),
        0.02,
        "hbm",
    );
    for d in ["bf16", "fp8"] {
        near(x.dense.get(d).unwrap(), y.dense.get(d).unwrap(), 0.04, d);
        near(
            x.sustained.get(d).unwrap(),
            y.sustained.get(d).unwrap(),
            0.03,
            d,
        );
    }
    near(
        x.kernel_overhead.unwrap().get(),
        y.kernel_overhead.unwrap().get(),
        0.25,
        "kernel overhead",
    );
}

#[test]
fn another_device_is_refused_unless_forced() {
    let e = fit("tests/data/calibrate/other-device.csv", "h200-sxm", false).unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert!(e.to_string().contains("NVIDIA H100 80GB HBM3"), "{e}");
    let c = fit("tests/data/calibrate/other-device.csv", "h200-sxm", true).unwrap();
    assert!(!c.device_matches);
}

/// Median relative error of `decode --achievable` (CUDA graph) over the
/// measured serving decode steps.
fn decode_median_error(hw: &Hardware) -> f64 {
    let cat = Catalog::default();
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("validation/results/2026-12-01-h200/h200-serving-fidelity.json")
            .unwrap(),
    )
    .unwrap();
    let mut errs = Vec::new();
    for d in v["decode"].as_array().unwrap() {
        let model = cat.model(d["model"].as_str().unwrap(), &[]).unwrap();
        if d["layers"].as_u64() != Some(model.layers.get()) {
            continue;
        }
        let dtype = d["dtype"].as_str().unwrap();
        let inputs: DecodeInputs = serde_json::from_value(serde_json::json!({
            "batch": d["batch"], "context": d["context"], "dtype": dtype,
            "activations": dtype, "launch": "graph",
        }))
        .unwrap();
        let t = decode::cost(&model, hw, &inputs, Mode::Achievable)
            .unwrap()
            .step_time_s;
        let m = d["graph_s"].as_f64().unwrap();
        errs.push((t - m).abs() / m);
    }
    errs.sort_by(f64::total_cmp);
    assert!(errs.len() >= 20, "{}", errs.len());
    errs[errs.len() / 2]
}

#[test]
fn the_calibrated_file_answers_decode_as_the_shipped_one_does() {
    let dir = std::env::temp_dir().join(format!("roofline-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("h200-test.toml");
    std::fs::write(&path, &h200().toml).unwrap();
    let cat = Catalog::default();
    let cal = cat.hardware(path.to_str().unwrap(), &[]).unwrap();
    let shipped = cat.hardware("h200-sxm", &[]).unwrap();
    let (c, s) = (decode_median_error(&cal), decode_median_error(&shipped));
    // The bar: the fit from the script's own output reproduces the
    // shipped figures' error within a point or two.
    assert!((c - s).abs() <= 0.02, "calibrated {c}, shipped {s}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The host rows (`host_*`) of a calibrate.py file alone, as
/// `calibrate.py --only host` writes them.
fn host_rows(file: &str) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    for l in lines.filter(|l| l.starts_with("host_")) {
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[test]
fn host_figures_calibrated_on_a_machine_predict_its_eager_steps() {
    // validation/results/2026-12-01-h200/calibrate-h200-host-{1,2}.csv: `calibrate.py --only
    // launch,host`, two processes on the machine of
    // validation/results/2026-12-01-h200/h200-host-probe-d.json (a later lease whose host ran 1.5
    // to 2.5 times slower than the one the shipped figures were measured
    // on; with those the same steps are 40% fast). Calibrated from the host
    // rows alone, the eager steps of a third process on that machine, held
    // out: what holds (its host changes speed within a process).
    let cat = Catalog::default();
    let base = cat.hardware("h200-sxm", &[]).unwrap();
    let (text, _) = cat.hardware_text("h200-sxm").unwrap();
    let steps: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("validation/results/2026-12-01-h200/h200-host-probe-d.json")
            .unwrap(),
    )
    .unwrap();
    let model = |id: &str| cat.model(id, &[]).map(Rc::new);
    for (file, median, worst) in [
        (
            "validation/results/2026-12-01-h200/calibrate-h200-host-1.csv",
            0.20,
            1.05,
        ),
        (
            "validation/results/2026-12-01-h200/calibrate-h200-host-2.csv",
            0.20,
            0.52,
        ),
    ] {
        let csv = host_rows(file);
        let c = calibrate::calibrate(&Inputs {
            base: &base,
            base_text: &text,
            csv: &csv,
            file,
            id: "h200-host",
            force: false,
            model: &model,
        })
        .unwrap();
        let call = achievable(&c.hardware).call.as_ref().unwrap();
        assert!(call.interleave.unwrap() > 1.0, "{:?}", call.interleave);
        let mut e = Vec::new();
        for r in steps["steps"].as_array().unwrap() {
            if r["kind"] != "decode" {
                continue;
            }
            let fp8 = r["dtype"] == "fp8";
            let inputs: DecodeInputs = serde_json::from_value(serde_json::json!({
                "batch": r["batch"], "context": r["context"], "launch": "eager",
                "dtype": if fp8 { "fp8" } else { "bf16" },
                "activations": if fp8 { "fp8" } else { "bf16" },
            }))
            .unwrap();
            let m = cat.model(r["model"].as_str().unwrap(), &[]).unwrap();
            let t = decode::cost(&m, &c.hardware, &inputs, Mode::Achievable)
                .unwrap()
                .step_time_s;
            e.push((t / r["eager_s"].as_f64().unwrap() - 1.0).abs());
        }
        e.sort_by(f64::total_cmp);
        let n = e.len();
        let med = if n % 2 == 1 {
            e[n / 2]
        } else {
            0.5 * (e[n / 2 - 1] + e[n / 2])
        };
        let w = e[n - 1];
        eprintln!(
            "{file}: {} steps, median {:.1}%, worst {:.1}%",
            e.len(),
            med * 100.0,
            w * 100.0
        );
        assert!(med <= median && w <= worst, "{file}: {med} {w}");
    }
}

#[test]
fn kernel_classes_from_the_profiled_steps_give_the_shipped_figures() {
    // validation/results/2026-12-01-h200/calibrate-h200-kernels.csv: the profiler's kernels of four
    // Llama-3-8B decode steps as calibrate rows (validation/kernel_classes.py
    // --csv). The fit, done here in Rust, lands on the figures the Python
    // script's medians gave the hardware file.
    let c = fit(
        "validation/results/2026-12-01-h200/calibrate-h200-kernels.csv",
        "h200-sxm",
        false,
    )
    .unwrap();
    let shipped = Catalog::default().hardware("h200-sxm", &[]).unwrap();
    let k = shipped
        .achievable
        .as_ref()
        .and_then(|a| a.kernel_fixed.as_ref())
        .unwrap();
    let want = [
        ("norm", k.norm),
        ("pointwise", k.pointwise),
        ("kv-write", k.kv_write),
        ("attention", k.attention),
        ("combine", k.combine),
        ("copy", k.copy),
    ];
    assert_eq!(c.figures.kernel_fixed.len(), 6);
    for (class, v, n) in &c.figures.kernel_fixed {
        let (_, w) = want.iter().find(|(key, _)| *key == class.key()).unwrap();
        let w = w.unwrap().get();
        assert!(
            (v - w).abs() < 1e-12,
            "{}: fitted {v}, shipped {w}",
            class.key()
        );
        assert!(*n >= 64, "{}: {n} kernels", class.key());
    }
    // The file it writes carries them, each with its source.
    let a = c.hardware.achievable.as_ref().unwrap();
    assert!(a.kernel_fixed.as_ref().unwrap().norm.is_some());
    assert!(
        c.toml
            .contains("\"achievable.kernel-fixed.norm\" = \"measured")
    );
}

#[test]
fn default_backend_attention_of_another_lease_fits_near_the_shipped_curve() {
    // validation/results/2026-12-02-h200/calibrate-h200-attention.csv (2026-12-02 00:46 UTC): the
    // prefill attention calibrate.py times now, the default SDPA dispatch a
    // forward makes (cuDNN's kernel), eager calls at S = 1k to 16k. The
    // shipped curve was fitted in another process on first graph replays of
    // the same kernel (validation/results/2026-12-02-h200/h200-power-mix-summary.json): the two
    // efficiency curves, peak x S / (S + half), meet within 8% where
    // attention matters (S = 4k to 16k). The FlashAttention-2 rows of
    // calibrate-h200.csv gave half of it at 4k to 16k.
    let c = fit(
        "validation/results/2026-12-02-h200/calibrate-h200-attention.csv",
        "h200-sxm",
        false,
    )
    .unwrap();
    let shipped = Catalog::default().hardware("h200-sxm", &[]).unwrap();
    let curve = |hw: &Hardware, s: f64| {
        let at = achievable(hw).attention.as_ref().unwrap();
        let half = at.half_length.unwrap().get() as f64;
        at.peak_fraction.unwrap() * s / (s + half)
    };
    let fitted_curve = |c: &Calibrated, s: f64| {
        let (p, h) = c.fitted.attention.unwrap();
        p * s / (s + h as f64)
    };
    for s in [4096.0, 8192.0, 16384.0] {
        let (fitted, want) = (fitted_curve(&c, s), curve(&shipped, s));
        assert!(
            (fitted / want - 1.0).abs() <= 0.08,
            "S = {s}: fitted {fitted:.3}, shipped {want:.3}"
        );
    }
    let old = fitted_curve(h200(), 8192.0);
    assert!(old < 0.7 * curve(&shipped, 8192.0), "FA2 fit {old:.3}");
    // Neither file holds out more than one attention_prefill row and has no
    // prefill step: too little to show a curve of two parameters helps, so
    // both keep the shipped curve, and say so.
    for c in [&c, h200()] {
        let d = c
            .decisions
            .iter()
            .find(|d| d.figure == "achievable.attention")
            .unwrap();
        assert!(!d.accepted && d.why.contains("too few"), "{d:?}");
        assert_eq!(curve(&c.hardware, 8192.0), curve(&shipped, 8192.0));
    }
}

/// The shipped H200's power figures: `[achievable.power-limit]` (fitted by
/// hand from validation/results/2026-12-02-h200/h200-power-mix-summary.json, sources in the file)
/// and the two `package` powers its solve reads.
fn power_figures(hw: &Hardware) -> [f64; 6] {
    let f = achievable(hw).power_limit.as_ref().unwrap();
    let p = hw.package.as_ref().unwrap();
    [
        f.gemm_watts.unwrap(),
        f.attention_watts.unwrap(),
        f.attention_clock_exponent.unwrap(),
        f.wait_watts.unwrap(),
        p.compute_watts.unwrap(),
        p.stream_watts.unwrap(),
    ]
}

const POWER_NAMES: [&str; 6] = [
    "gemm-watts",
    "attention-watts",
    "attention-clock-exponent",
    "wait-watts",
    "package.compute-watts",
    "package.stream-watts",
];

fn assert_power_near(c: &Calibrated, tol: [f64; 6]) {
    let shipped = Catalog::default().hardware("h200-sxm", &[]).unwrap();
    let (got, want) = (power_figures(&c.hardware), power_figures(&shipped));
    for i in 0..6 {
        eprintln!(
            "{}: fitted {:.4}, shipped {:.4}",
            POWER_NAMES[i], got[i], want[i]
        );
        assert!(
            (got[i] / want[i] - 1.0).abs() <= tol[i],
            "{}: fitted {}, shipped {}",
            POWER_NAMES[i],
            got[i],
            want[i]
        );
    }
}

/// The held-out power loops of `c`: GEMM loops with a spin that no figure
/// was taken from, through the calibrated file's power-limit solve from
/// their first call; each within `time`, `clock` and `watts` (shares).
fn assert_gemm_loops_predicted(c: &Calibrated, time: f64, clock: f64, watts: f64) -> usize {
    let held: Vec<_> = c
        .power_checks
        .iter()
        .filter(|k| k.held_out && k.operation == "power_gemm")
        .collect();
    for k in &held {
        let (t, f, w) = k.errors();
        eprintln!(
            "line {} {}: time {:+.1}%, clock {:.0} against {:.0} MHz, {:.1} against {:.1} W",
            k.line,
            k.shape,
            100.0 * (k.predicted_s / k.measured_s - 1.0),
            k.predicted_mhz,
            k.measured_mhz,
            k.predicted_w,
            k.measured_w
        );
        assert!(
            t <= time && f <= clock && w <= watts,
            "line {}: {t} {f} {w}",
            k.line
        );
    }
    held.len()
}

#[test]
fn the_power_loops_reproduce_the_hand_fit() {
    // validation/results/2026-12-02-h200/calibrate-h200-power.csv: the loops of
    // validation/results/2026-12-02-h200/h200-power-mix-summary.json the shipped figures were
    // fitted on by hand (and the copy loop of h200-power-summary.json),
    // converted to rows by validation/probes/power_mix_rows.py. The fit, with no
    // hand in it, lands on the hand fit: gemm-watts within 1% (the hand fit
    // took the spins' time as their cycles at 1,980 MHz, the rows at the
    // spin loop's measured time a cycle: 964.7 W against 960), the others
    // within 0.5% (wait, stream and compute watts are the same readings).
    let c = fit(
        "validation/results/2026-12-02-h200/calibrate-h200-power.csv",
        "h200-sxm",
        false,
    )
    .unwrap();
    assert_power_near(&c, [0.01, 0.005, 0.01, 0.005, 0.005, 0.001]);
    // Held out: the 400k and 1.2M-cycle loops, between the burst loop and
    // the limit: settled time within 3%, clock within 6%, power within
    // 2.5% (the 1.2M-cycle loop read 677 W with its clock already down at
    // 1,818 MHz; the solve holds the limit, 691.6 W, at 1,920).
    assert_eq!(assert_gemm_loops_predicted(&c, 0.03, 0.06, 0.025), 2);
    // The S = 2k attention loop is held out too (its clock fell 4%): the
    // single attention power overstates it, 13% slow (docs/validation.md).
    let a = c
        .power_checks
        .iter()
        .find(|k| k.operation == "power_attention" && k.held_out)
        .unwrap();
    assert!(a.shape.contains("S=2048"), "{}", a.shape);
    // The file written carries the figures with their derivation.
    assert!(
        c.toml
            .contains("\"achievable.power-limit.gemm-watts\" = \"measured: roofline calibrate")
    );
    assert!(
        c.toml
            .contains("\"package.compute-watts\" = \"measured: roofline calibrate")
    );
}

#[test]
fn a_fresh_lease_fits_near_the_shipped_power_figures() {
    // validation/results/2026-12-02-h200/calibrate-h200-power-2.csv: calibrate.py --only power in
    // another process, three hours after the hand fit's loops (the row date,
    // 2026-12-02T03:21:30Z by the device's clock), fitted here
    // against the hand fit: the watts within 3% (972.3 W
    // against 960 for the GEMMs, the largest drift), the limit's within 1%,
    // the copy loop's within 3% (662 W over 6 s against 677 W over 10 s),
    // the attention exponent within 6% (0.925 against 0.88: a 15 MHz step
    // of the clock's reading moves it by about 0.03).
    let c = fit(
        "validation/results/2026-12-02-h200/calibrate-h200-power-2.csv",
        "h200-sxm",
        false,
    )
    .unwrap();
    assert_power_near(&c, [0.03, 0.03, 0.06, 0.05, 0.01, 0.03]);
    // Three held-out GEMM loops: the two between burst and limit, and the
    // longest spin, at the burst clock (its power the mix of the two):
    // settled time within 4%, clock within 7%, power within 3.5% (the
    // 1.2M-cycle-like loop read 669 W with its clock down at 1,840 MHz).
    assert_eq!(assert_gemm_loops_predicted(&c, 0.04, 0.07, 0.035), 3);
}

#[test]
fn files_without_power_rows_keep_the_base_power_limit() {
    let c = h200();
    assert!(!c.figures.power.any());
    let shipped = Catalog::default().hardware("h200-sxm", &[]).unwrap();
    assert_eq!(power_figures(&c.hardware), power_figures(&shipped));
    assert!(c.power_checks.is_empty());
}

#[test]
fn a_part_without_power_figures_gets_them_from_the_loops() {
    // A B200's file has no [achievable.power-limit] and no package powers:
    // the loops give them (here the H200's, forced onto it), so the step's
    // power-limit solve has what it needs once the sustained rate is there.
    let c = fit(
        "validation/results/2026-12-02-h200/calibrate-h200-power.csv",
        "b200",
        true,
    )
    .unwrap();
    let hw = &c.hardware;
    let p = hw.package.as_ref().unwrap();
    assert!(p.compute_watts.is_some() && p.stream_watts.is_some());
    assert!(
        achievable(hw)
            .power_limit
            .as_ref()
            .unwrap()
            .gemm_watts
            .is_some()
    );
    let base = Catalog::default().hardware("h800", &[]).unwrap();
    assert!(
        base.package
            .as_ref()
            .is_none_or(|p| p.compute_watts.is_none())
    );
    let rate = achievable(hw).dense.get("bf16").unwrap();
    use roofline::calc::step::power_limit::PowerLimit;
    assert!(PowerLimit::of(hw, rate, Some(0.85 * rate)).is_some());
}

#[test]
fn bad_power_rows_name_file_line_and_field() {
    use roofline::calc::calibrate::measurements::parse;
    use roofline::error::Error;
    let head = "operation,m,n,k,dtype,launch,seconds,burst_seconds,wait_seconds,power_w,sm_clock_mhz,device,driver,date";
    for (row, field) in [
        // No board power.
        (
            "power_gemm,8192,8192,8192,bf16,graph,2e-3,2e-3,1e-3,,1980,G,1,d",
            "power_w",
        ),
        // A spin longer than the call it is part of.
        (
            "power_gemm,8192,8192,8192,bf16,graph,2e-3,2e-3,3e-3,500,1980,G,1,d",
            "wait_seconds",
        ),
        // A clock of zero.
        (
            "power_wait,,,,fp32,graph,5e-4,5e-4,,120,0,G,1,d",
            "sm_clock_mhz",
        ),
        // A first call with a unit.
        (
            "power_wait,,,,fp32,graph,5e-4,0.5 ms,,120,1980,G,1,d",
            "burst_seconds",
        ),
    ] {
        let e = parse(&format!("{head}\n{row}\n"), "p.csv").unwrap_err();
        assert_eq!(e.exit_code(), 65);
        match &e {
            Error::Data {
                file,
                line,
                field: f,
                ..
            } => {
                assert_eq!(file, "p.csv");
                assert_eq!(*line, Some(2));
                assert_eq!(f.as_deref(), Some(field), "{e}");
            }
            e => panic!("not a data error: {e}"),
        }
    }
}

/// The validation set's families priced on `hw`: the table of
/// validation/achievable-error.toml (tests/achievable_errors.rs), the 60
/// GEMMs of another session (validation/results/2026-11-30-h200/h200-gemm.json), and the eager
/// decode steps of `eager` (the host-probe files of the machine the
/// calibration file's host rows were measured on).
fn validation_families(hw: &Hardware, eager: &[&str]) -> Vec<(String, u64, f64, f64)> {
    use crate::achievable_errors::{families, stats};
    let mut out: Vec<(String, u64, f64, f64)> = families(hw)
        .into_iter()
        .filter(|c| c.answer != "decode-eager")
        .map(|c| {
            let (n, m, w) = stats(c.errors);
            (c.answer.to_string(), n, m, w)
        })
        .collect();
    let (n, m, w) = stats(other_session_gemm_errors(hw));
    out.push(("matmul-other-day".into(), n, m, w));
    let (n, m, w) = stats(eager_step_errors(hw, eager));
    out.push(("decode-eager".into(), n, m, w));
    out
}

/// `decode --achievable --launch eager` against the eager steps of the
/// host-probe files named.
fn eager_step_errors(hw: &Hardware, files: &[&str]) -> Vec<f64> {
    let cat = Catalog::default();
    let mut e = Vec::new();
    for f in files {
        if f.ends_with(".csv") {
            e.extend(csv_eager_step_errors(hw, f));
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        for r in v["steps"].as_array().unwrap() {
            if r["kind"] != "decode" {
                continue;
            }
            let dtype = r["dtype"].as_str().unwrap();
            let inputs: DecodeInputs = serde_json::from_value(serde_json::json!({
                "batch": r["batch"], "context": r["context"], "launch": "eager",
                "dtype": dtype, "activations": dtype,
            }))
            .unwrap();
            let m = cat.model(r["model"].as_str().unwrap(), &[]).unwrap();
            let t = decode::cost(&m, hw, &inputs, Mode::Achievable)
                .unwrap()
                .step_time_s;
            let meas = r["eager_s"].as_f64().unwrap();
            e.push((t - meas) / meas);
        }
    }
    e
}

/// `decode --achievable --launch eager` against the eager decode_step rows
/// of a calibrate.py file (signed errors).
fn csv_eager_step_errors(hw: &Hardware, file: &str) -> Vec<f64> {
    use roofline::calc::calibrate::measurements::{self, LaunchMode, Operation};
    let cat = Catalog::default();
    let rows = measurements::parse(&std::fs::read_to_string(file).unwrap(), file)
        .unwrap()
        .rows;
    let mut e = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.op == Operation::DecodeStep && r.launch == LaunchMode::Eager)
    {
        let m = cat.model(r.model.as_deref().unwrap(), &[]).unwrap();
        let inputs: DecodeInputs = serde_json::from_value(serde_json::json!({
            "batch": r.batch, "context": r.context, "launch": "eager",
            "dtype": r.dtype, "activations": r.dtype,
        }))
        .unwrap();
        let t = decode::cost(&m, hw, &inputs, Mode::Achievable)
            .unwrap()
            .step_time_s;
        e.push((t - r.seconds) / r.seconds);
    }
    e
}

/// Whether `c` took `figure` with nothing to check it on.
fn c_decisions_unchecked(c: &Calibrated, figure: &str) -> bool {
    c.decisions
        .iter()
        .any(|d| d.figure == figure && d.accepted && d.why.contains("nothing checked it"))
}

/// The machine whose host path the shipped figures were measured on.
const FAST_HOST: [&str; 3] = [
    "validation/results/2026-12-01-h200/h200-host-probe-a.json",
    "validation/results/2026-12-01-h200/h200-host-probe-b.json",
    "validation/results/2026-12-01-h200/h200-host-probe-c.json",
];
/// The later lease of calibrate-h200-host-{1,2}.csv, whose host ran 1.5 to
/// 2.5 times slower.
const SLOW_HOST: [&str; 1] = ["validation/results/2026-12-01-h200/h200-host-probe-d.json"];
/// Two calibrate.py runs, fresh processes one after the other on one H200
/// (2026-12-02, validation/results/2026-12-02-h200/calibrate-h200-rep-{1,2}-log.txt).
const REP: [&str; 2] = [
    "validation/results/2026-12-02-h200/calibrate-h200-rep-1.csv",
    "validation/results/2026-12-02-h200/calibrate-h200-rep-2.csv",
];

#[test]
fn calibrated_files_price_the_validation_set_no_worse_than_shipped() {
    let cat = Catalog::default();
    let shipped = cat.hardware("h200-sxm", &[]).unwrap();
    let all = |hw: &Hardware, eager: &[&str]| {
        let fams = validation_families(hw, eager);
        let mut e: Vec<f64> = Vec::new();
        for c in crate::achievable_errors::families(hw) {
            if c.answer != "decode-eager" {
                e.extend(c.errors);
            }
        }
        e.extend(other_session_gemm_errors(hw));
        e.extend(eager_step_errors(hw, eager));
        (fams, crate::achievable_errors::stats(e))
    };
    let mut bad = Vec::new();
    for (file, eager) in [
        (
            "validation/results/2026-12-01-h200/calibrate-h200.csv",
            &FAST_HOST[..],
        ),
        (
            "validation/results/2026-12-01-h200/calibrate-h200-run2.csv",
            &FAST_HOST[..],
        ),
        (
            "validation/results/2026-12-02-h200/calibrate-h200-attention.csv",
            &FAST_HOST[..],
        ),
        (
            "validation/results/2026-12-01-h200/calibrate-h200-kernels.csv",
            &FAST_HOST[..],
        ),
        (
            "validation/results/2026-12-01-h200/calibrate-h200-host-1.csv",
            &SLOW_HOST[..],
        ),
        (
            "validation/results/2026-12-01-h200/calibrate-h200-host-2.csv",
            &SLOW_HOST[..],
        ),
        (
            "validation/results/2026-12-01-h200/calibrate-h200-host-e.csv",
            &["validation/results/2026-12-01-h200/h200-host-probe-e.json"][..],
        ),
        (
            "validation/results/2026-12-02-h200/calibrate-h200-power.csv",
            &FAST_HOST[..],
        ),
        (
            "validation/results/2026-12-02-h200/calibrate-h200-power-1.csv",
            &FAST_HOST[..],
        ),
        (
            "validation/results/2026-12-02-h200/calibrate-h200-power-2.csv",
            &FAST_HOST[..],
        ),
        // A fresh lease's host is not the shipped figures' machine: its eager
        // steps are the other run's (another process on the same lease).
        (
            "validation/results/2026-12-02-h200/calibrate-h200-rep-1.csv",
            &[REP[1]][..],
        ),
        (
            "validation/results/2026-12-02-h200/calibrate-h200-rep-2.csv",
            &[REP[0]][..],
        ),
        // calibrate.py after the suite refactor, on a lease whose host ran
        // eager decode steps twice as slow as the others (20 ms at batch 1
        // against 9-12 ms): no other process ran on that lease, so its
        // eager steps are its own decode_step rows, which calibrate checks
        // figures on and never fits.
        (
            "validation/results/2026-12-03-h200/calibrate-h200-fresh.csv",
            &["validation/results/2026-12-03-h200/calibrate-h200-fresh.csv"][..],
        ),
    ] {
        let c = match fit(file, "h200-sxm", false) {
            Ok(c) => c,
            Err(e) => {
                bad.push(format!("{file}: refused: {e}"));
                continue;
            }
        };
        for d in &c.decisions {
            eprintln!(
                "  {} {}: {} (base {}): {}",
                if d.accepted { "fitted" } else { "kept  " },
                d.figure,
                d.fitted,
                d.prior,
                d.why
            );
        }
        let (fs, (_, sm, _)) = all(&shipped, eager);
        let (fc, (n, cm, _)) = all(&c.hardware, eager);
        let cal = c.clone();
        eprintln!(
            "{file}: all {n} points, median {:.1}% calibrated against {:.1}% shipped",
            100.0 * cm,
            100.0 * sm
        );
        if cm > sm + 0.005 {
            bad.push(format!("{file}: median {cm:.4} against shipped {sm:.4}"));
        }
        for (s, c) in fs.iter().zip(&fc) {
            eprintln!(
                "  {:18} {:4} median {:5.1}% / {:5.1}%  worst {:6.1}% / {:6.1}%",
                s.0,
                s.1,
                100.0 * c.2,
                100.0 * s.2,
                100.0 * c.3,
                100.0 * s.3
            );
            // A file of host rows and no eager steps has nothing to check
            // its host figures on: calibrate takes them as measured and
            // says so. The one such file measured in a process whose host
            // differed from its steps' process (host-e: an interleave of
            // 1.62 against the probe's 1.38 to 1.46, docs/validation.md)
            // is the exception, and must say so.
            let unchecked = s.0 == "decode-eager"
                && file.ends_with("host-e.csv")
                && c_decisions_unchecked(&cal, "achievable.call");
            if c.2 > s.2 + 0.03 && !unchecked {
                bad.push(format!(
                    "{file}: {} median {:.4} against shipped {:.4}",
                    s.0, c.2, s.2
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn two_fresh_runs_give_files_that_price_the_validation_set_alike() {
    // The bar: two calibrate.py runs on one GPU give files whose
    // predictions differ by under 3% on the validation set (the median over
    // its points of |t1 / t2 - 1|), each family within 3% too.
    let a = fit(REP[0], "h200-sxm", false).unwrap();
    let b = fit(REP[1], "h200-sxm", false).unwrap();
    let fa = crate::achievable_errors::families(&a.hardware);
    let fb = crate::achievable_errors::families(&b.hardware);
    let mut all = Vec::new();
    for (x, y) in fa.iter().zip(&fb) {
        let d: Vec<f64> = x
            .errors
            .iter()
            .zip(&y.errors)
            .map(|(p, q)| ((1.0 + p) / (1.0 + q) - 1.0).abs())
            .collect();
        let (n, med, worst) = crate::achievable_errors::stats(d.clone());
        eprintln!(
            "{:14} {n:4} points: the two files differ by median {:.2}%, worst {:.2}%",
            x.answer,
            100.0 * med,
            100.0 * worst
        );
        assert!(med < 0.03, "{}: {med}", x.answer);
        all.extend(d);
    }
    let (n, med, worst) = crate::achievable_errors::stats(all);
    eprintln!(
        "all {n} points: median {:.2}%, worst {:.2}%",
        100.0 * med,
        100.0 * worst
    );
    assert!(med < 0.03, "{med}");
}

fn fit_text(csv: &str) -> roofline::error::Result<Calibrated> {
    let cat = Catalog::default();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let (text, _) = cat.hardware_text("h200-sxm").unwrap();
    let model = |id: &str| cat.model(id, &[]).map(Rc::new);
    calibrate::calibrate(&Inputs {
        base: &hw,
        base_text: &text,
        csv,
        file: "short.csv",
        id: "h200-short",
        force: false,
        model: &model,
    })
}

#[test]
fn a_run_cut_short_calibrates_what_it_holds_and_a_file_of_nothing_is_refused() {
    // The first 11 rows of a run (the stream, the launches, two small
    // GEMMs by launch mode): the stream and launch costs are fitted, the
    // GEMM rates kept (no GEMM of 100 GFLOP), and the file written parses
    // as a hardware file.
    let text =
        std::fs::read_to_string("validation/results/2026-12-02-h200/calibrate-h200-rep-1.csv")
            .unwrap();
    let short: String = text.lines().take(12).map(|l| format!("{l}\n")).collect();
    let c = fit_text(&short).unwrap();
    let shipped = Catalog::default().hardware("h200-sxm", &[]).unwrap();
    assert_eq!(
        achievable(&c.hardware).dense.get("bf16"),
        achievable(&shipped).dense.get("bf16")
    );
    assert!(
        c.decisions
            .iter()
            .any(|d| d.figure == "achievable.hbm-bandwidth" && d.accepted)
    );
    let path = std::env::temp_dir().join(format!("h200-short-{}.toml", std::process::id()));
    std::fs::write(&path, &c.toml).unwrap();
    assert!(
        Catalog::default()
            .hardware(path.to_str().unwrap(), &[])
            .is_ok()
    );
    std::fs::remove_file(&path).ok();
    // Two small graph GEMMs alone identify nothing: refused, exit 65, naming
    // what each figure needs.
    let head = text.lines().next().unwrap();
    let gemms: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("gemm,") && l.contains(",graph,"))
        .take(2)
        .collect();
    let tiny = format!("{head}\n{}\n", gemms.join("\n"));
    let e = fit_text(&tiny).unwrap_err();
    assert_eq!(e.exit_code(), 65);
    let msg = e.to_string();
    assert!(
        msg.contains("identify no figure") && msg.contains("100 GFLOP"),
        "{msg}"
    );
}

#[test]
fn host_only_files_write_files_hw_accepts() {
    // calibrate-h200-host-{1,2}.csv (calibrate.py --only launch,host) were
    // refused before: their two small GEMMs set the burst rate below the
    // sustained one. Now each writes a file --hw reads.
    for file in [
        "validation/results/2026-12-01-h200/calibrate-h200-host-1.csv",
        "validation/results/2026-12-01-h200/calibrate-h200-host-2.csv",
    ] {
        let c = fit(file, "h200-sxm", false).unwrap();
        let path = std::env::temp_dir().join(format!("h200-host-{}.toml", std::process::id()));
        std::fs::write(&path, &c.toml).unwrap();
        assert!(
            Catalog::default()
                .hardware(path.to_str().unwrap(), &[])
                .is_ok(),
            "{file}"
        );
        std::fs::remove_file(&path).ok();
    }
}

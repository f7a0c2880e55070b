//! `launch`: kernel-launch overhead per step against a time floor, eager
//! launches against synchronised ones and CUDA-graph replay, and what
//! fusing to fewer launches saves (formulas.md, "Launch overhead";
//! 002 §7.10 and exercise 5; 004 "Launch overhead").

use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Row, Unit};
use crate::units::{self, number, seconds};

/// One way of issuing kernels and its fixed cost per kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Overhead {
    /// `eager`, `synchronised` or `graph`.
    pub mode: String,
    /// Seconds of overhead per kernel.
    pub per_kernel_s: f64,
    /// Where it came from (a flag, a hardware field, a subtraction).
    pub derivation: String,
}

/// Overhead from a timing that includes the kernel's own execution:
/// measured per-kernel time minus execution time (004's V100 figures:
/// 9.6 - 2.9 = 6.7 us synchronised).
pub fn overhead_from_timing(total_s: f64, exec_s: f64) -> Result<f64> {
    let o = total_s - exec_s;
    if o < 0.0 {
        return Err(Error::input(
            "--kernel-time",
            format!(
                "the kernel's execution ({}) exceeds the measured per-kernel time ({})",
                seconds(exec_s),
                seconds(total_s)
            ),
        ));
    }
    Ok(o)
}

/// Thread blocks of a one-element-per-thread launch: ceil(elements /
/// threads per block) (004's V100 benchmark: 500,000 elements at 512 a
/// block is 977 blocks).
pub fn grid_blocks(elements: u64, threads_per_block: u64) -> u64 {
    elements.div_ceil(threads_per_block.max(1))
}

/// Inputs of `launch`.
#[derive(Debug, Clone, Default)]
pub struct LaunchParams {
    /// Kernels per step, when given directly.
    pub kernels: Option<u64>,
    /// Kernels per layer, with `layers`, when counted.
    pub kernels_per_layer: Option<u64>,
    /// Layers.
    pub layers: Option<u64>,
    /// Kernels outside the layers (final norm, LM head, sampling).
    pub extra_kernels: u64,
    /// The step's time floor without launches (e.g. the weight-read time).
    pub floor_s: Option<f64>,
    /// Kernels after fusion.
    pub fused_kernels: Option<u64>,
    /// Fusion cuts the kernel count by this factor (rounded).
    pub fuse_factor: Option<f64>,
}

fn check_overhead(o: &Overhead) -> Result<()> {
    if !o.per_kernel_s.is_finite() || o.per_kernel_s < 0.0 {
        let flag = match o.mode.as_str() {
            "synchronised" => "--sync-overhead",
            "graph" => "--graph-overhead",
            _ => "--overhead",
        };
        return Err(Error::input(flag, "must be zero or more"));
    }
    Ok(())
}

/// `launch`: `overheads[0]` is the one the headline results use; every
/// mode gets a row when there is more than one.
pub fn launch(hw: Option<&str>, p: &LaunchParams, overheads: &[Overhead]) -> Result<Report> {
    let Some(main) = overheads.first() else {
        return Err(Error::usage(
            "--overhead",
            "give a per-kernel overhead (--overhead \"5 us\") or --hw with a launch.eager figure",
        ));
    };
    for o in overheads {
        check_overhead(o)?;
    }
    let (kernels, kernels_derive) = match (p.kernels, p.kernels_per_layer, p.layers) {
        (Some(k), None, None) => (k, String::new()),
        (None, Some(kl), Some(l)) => {
            let k = kl
                .checked_mul(l)
                .and_then(|x| x.checked_add(p.extra_kernels))
                .ok_or_else(|| Error::input("--kernels-per-layer", "kernel count overflows"))?;
            let d = if p.extra_kernels > 0 {
                format!("{kl} * {l} + {}", p.extra_kernels)
            } else {
                format!("{kl} * {l}")
            };
            (k, d)
        }
        (Some(_), _, _) => {
            return Err(Error::usage(
                "--kernels",
                "give either --kernels or --kernels-per-layer with --layers, not both",
            ));
        }
        _ => {
            return Err(Error::usage(
                "--kernels",
                "give --kernels N, or --kernels-per-layer K with --layers L",
            ));
        }
    };
    if kernels == 0 {
        return Err(Error::input("--kernels", "must be at least 1"));
    }
    let floor = p.floor_s.unwrap_or(0.0);
    if !floor.is_finite() || floor < 0.0 {
        return Err(Error::input("--floor", "must be zero or more"));
    }

    let mut r = Report::new("launch");
    r.hardware = hw.map(String::from);
    if let Some(k) = p.kernels {
        r.input("kernels", k);
    }
    if let Some(kl) = p.kernels_per_layer {
        r.input("kernels_per_layer", kl);
        r.input("layers", p.layers.unwrap_or(0));
        r.input("extra_kernels", p.extra_kernels);
    }
    // An input is what the user typed: a figure looked up in a hardware
    // file or derived from measured timings is a result only.
    if main.derivation.starts_with("--overhead") {
        r.input("overhead_s", main.per_kernel_s);
    }
    if p.floor_s.is_some() {
        r.input("floor_s", floor);
    }
    let mut q = Quantity::new("kernels per step", Unit::Count);
    if !kernels_derive.is_empty() {
        q = q
            .formula("kernels per layer * layers + extra")
            .derive(kernels_derive);
    }
    r.result("kernels_per_step", kernels, q);
    r.result(
        "overhead_per_kernel_s",
        main.per_kernel_s,
        Quantity::new(format!("{} overhead per kernel", main.mode), Unit::Seconds)
            .derive(main.derivation.clone()),
    );
    let o = main.per_kernel_s;
    let lt = kernels as f64 * o;
    r.result(
        "launch_time_s",
        lt,
        Quantity::new("launch time per step", Unit::Seconds)
            .formula("kernels * overhead")
            .derive(format!("{kernels} * {}", seconds(o))),
    );
    let st = floor + lt;
    r.result(
        "step_time_s",
        st,
        Quantity::new("step time", Unit::Seconds)
            .formula("floor + launch time")
            .derive(format!("{} + {}", seconds(floor), seconds(lt))),
    );
    let frac = if st > 0.0 { lt / st } else { 0.0 };
    r.result(
        "launch_fraction",
        frac,
        Quantity::new("launch share of the step", Unit::Fraction)
            .formula("launch time / step time")
            .derive(format!("{} / {}", seconds(lt), seconds(st))),
    );
    if p.floor_s.is_none() {
        r.note("no --floor: the step is launch time alone");
    } else if lt > floor {
        r.note(format!(
            "launch-bound: dispatch ({}) exceeds the {} floor",
            seconds(lt),
            seconds(floor)
        ));
    }

    let fused = match (p.fused_kernels, p.fuse_factor) {
        (Some(_), Some(_)) => {
            return Err(Error::usage(
                "--fused-kernels",
                "give either --fused-kernels or --fuse-factor, not both",
            ));
        }
        (Some(f), None) => Some((f, String::new())),
        (None, Some(x)) => {
            if !x.is_finite() || x < 1.0 {
                return Err(Error::input("--fuse-factor", "must be at least 1"));
            }
            let f = (kernels as f64 / x).round().max(1.0) as u64;
            Some((f, format!("round({kernels} / {})", number(x))))
        }
        (None, None) => None,
    };
    if let Some((fk, fd)) = fused {
        if fk == 0 {
            return Err(Error::input("--fused-kernels", "must be at least 1"));
        }
        if fk > kernels {
            return Err(Error::input(
                "--fused-kernels",
                format!("{fk} is more than the {kernels} kernels before fusion"),
            ));
        }
        if let Some(x) = p.fuse_factor {
            r.input("fuse_factor", x);
        } else {
            r.input("fused_kernels", fk);
        }
        r.result(
            "fused_kernels_per_step",
            fk,
            Quantity::new("kernels after fusion", Unit::Count)
                .formula(if fd.is_empty() {
                    ""
                } else {
                    "round(kernels / fuse factor)"
                })
                .derive(fd),
        );
        let removed = kernels - fk;
        let saved = removed as f64 * o;
        r.result(
            "saved_time_s",
            saved,
            Quantity::new("launch time saved", Unit::Seconds)
                .formula("(kernels - fused kernels) * overhead")
                .derive(format!(
                    "({kernels} - {fk}) * {} = {removed} * {}",
                    seconds(o),
                    seconds(o)
                )),
        );
        r.result(
            "saved_fraction",
            if st > 0.0 { saved / st } else { 0.0 },
            Quantity::new("step-time cut", Unit::Fraction)
                .formula("saved / step time")
                .derive(format!("{} / {}", seconds(saved), seconds(st))),
        );
        let flt = fk as f64 * o;
        r.result(
            "fused_launch_time_s",
            flt,
            Quantity::new("launch time after fusion", Unit::Seconds)
                .formula("fused kernels * overhead")
                .derive(format!("{fk} * {}", seconds(o))),
        );
        let fst = floor + flt;
        r.result(
            "fused_step_time_s",
            fst,
            Quantity::new("step time after fusion", Unit::Seconds)
                .formula("floor + fused kernels * overhead")
                .derive(format!("{} + {fk} * {}", seconds(floor), seconds(o))),
        );
        if floor > 0.0 {
            r.result(
                "fused_vs_floor",
                fst / floor - 1.0,
                Quantity::new("above the floor after fusion", Unit::Fraction)
                    .formula("fused step time / floor - 1")
                    .derive(format!("{} / {} - 1", seconds(fst), seconds(floor))),
            );
        }
    }

    if overheads.len() > 1 {
        r.describe("mode", Quantity::new("mode", Unit::None));
        r.describe(
            "per_kernel_s",
            Quantity::new("overhead per kernel", Unit::Seconds),
        );
        for ov in overheads {
            let lt = kernels as f64 * ov.per_kernel_s;
            let st = floor + lt;
            let mut row = Row::default();
            row.inputs.insert("mode".into(), ov.mode.clone().into());
            row.results
                .insert("per_kernel_s".into(), ov.per_kernel_s.into());
            row.results.insert("launch_time_s".into(), lt.into());
            row.results.insert("step_time_s".into(), st.into());
            row.results.insert(
                "launch_fraction".into(),
                (if st > 0.0 { lt / st } else { 0.0 }).into(),
            );
            r.rows.push(row);
        }
        if let Some(g) = overheads.iter().find(|x| x.mode == "graph")
            && g.per_kernel_s > 0.0
        {
            r.note(format!(
                "a CUDA graph cuts the per-kernel overhead {}x ({} -> {})",
                units::sig(o / g.per_kernel_s, 3),
                seconds(o),
                seconds(g.per_kernel_s)
            ));
        }
    }
    Ok(r)
}

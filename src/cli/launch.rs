//! `launch`: launch overhead per step, eager against synchronised and
//! CUDA-graph launches, and what fusing to fewer kernels saves.

use super::Ctx;
use clap::Args;
use roofline::calc::launch::{self, LaunchParams, Overhead};
use roofline::error::{Error, Result};
use roofline::report::Report;
use roofline::spec::hardware::{Hardware, Launch, Mode};
use roofline::units::{self, Dim};

const AFTER: &str = "\
Examples:
  roofline launch --kernels 490 --overhead \"5 us\" --floor \"4.0 ms\"
  roofline launch --kernels 490 --overhead \"5 us\" --floor \"4.0 ms\" --fused-kernels 163
  roofline launch --hw h100-sxm --kernels 490 --floor \"4.0 ms\" --fuse-factor 3
  roofline launch --kernels-per-layer 12 --layers 32 --overhead \"0.9 us\" --sync-overhead \"6.7 us\" --graph-overhead \"0.5 us\"
  roofline launch --kernels 400 --kernel-time \"2.9 us\" --measured \"3.8 us\" --measured-sync \"9.6 us\" --measured-graph \"3.4 us\"

Overheads come from the flags, else from the hardware file (launch.eager,
launch.synchronised, launch.graph; with --achievable, achievable.launch).";

/// `launch` flags.
#[derive(Debug, Args)]
#[command(after_help = AFTER)]
pub struct LaunchArgs {
    /// Hardware whose launch figures to use (id, path, or a list).
    #[arg(long)]
    pub hw: Option<String>,
    /// Kernels launched per step.
    #[arg(value_parser = crate::cli::count, long)]
    pub kernels: Option<u64>,
    /// Kernels per layer (with --layers) instead of --kernels.
    #[arg(value_parser = crate::cli::count, long)]
    pub kernels_per_layer: Option<u64>,
    /// Layers (with --kernels-per-layer).
    #[arg(value_parser = crate::cli::count, long)]
    pub layers: Option<u64>,
    /// Kernels outside the layers (final norm, LM head, sampling).
    #[arg(value_parser = crate::cli::count, long, default_value_t = 0)]
    pub extra_kernels: u64,
    /// Eager overhead per kernel, e.g. "5 us".
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub overhead: Option<String>,
    /// Overhead per kernel when each launch is synchronised.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub sync_overhead: Option<String>,
    /// Overhead per kernel replayed from a CUDA graph.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub graph_overhead: Option<String>,
    /// The kernel's own execution time, subtracted from --measured*.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub kernel_time: Option<String>,
    /// Measured time per kernel, eager, execution included.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub measured: Option<String>,
    /// Measured time per kernel, synchronised, execution included.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub measured_sync: Option<String>,
    /// Measured time per kernel as a CUDA graph, execution included.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub measured_graph: Option<String>,
    /// The step's time without launches (e.g. the weight-read floor).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub floor: Option<String>,
    /// Kernels after fusion.
    #[arg(value_parser = crate::cli::count, long)]
    pub fused_kernels: Option<u64>,
    /// Fusion cuts the kernel count by this factor.
    #[arg(long)]
    pub fuse_factor: Option<f64>,
}

fn time(flag: &str, v: Option<&str>) -> Result<Option<f64>> {
    let Some(t) = v else { return Ok(None) };
    let s = units::parse(t, Dim::Seconds).map_err(|e| Error::input(flag, e))?;
    if s < 0.0 {
        return Err(Error::input(
            flag,
            format!("`{t}` is negative; must be zero or more"),
        ));
    }
    Ok(Some(s))
}

struct Mode3 {
    name: &'static str,
    flag: &'static str,
    measured_flag: &'static str,
    pick: fn(&Launch) -> Option<f64>,
    field: &'static str,
}

const MODES: [Mode3; 3] = [
    Mode3 {
        name: "eager",
        flag: "--overhead",
        measured_flag: "--measured",
        pick: |l| l.eager.map(|s| s.get()),
        field: "eager",
    },
    Mode3 {
        name: "synchronised",
        flag: "--sync-overhead",
        measured_flag: "--measured-sync",
        pick: |l| l.synchronised.map(|s| s.get()),
        field: "synchronised",
    },
    Mode3 {
        name: "graph",
        flag: "--graph-overhead",
        measured_flag: "--measured-graph",
        pick: |l| l.graph.map(|s| s.get()),
        field: "graph",
    },
];

fn overheads(a: &LaunchArgs, hw: Option<&Hardware>, mode: Mode) -> Result<Vec<Overhead>> {
    let exec = time("--kernel-time", a.kernel_time.as_deref())?;
    let flags = [
        (a.overhead.as_deref(), a.measured.as_deref()),
        (a.sync_overhead.as_deref(), a.measured_sync.as_deref()),
        (a.graph_overhead.as_deref(), a.measured_graph.as_deref()),
    ];
    let mut out = Vec::new();
    for (m, (direct, measured)) in MODES.iter().zip(flags) {
        let o = if let Some(v) = time(m.flag, direct)? {
            Some((v, format!("{} {}", m.flag, units::seconds(v))))
        } else if let Some(total) = time(m.measured_flag, measured)? {
            let e = exec.ok_or_else(|| {
                Error::usage(
                    m.measured_flag,
                    "needs --kernel-time, the execution time to subtract",
                )
            })?;
            let v = launch::overhead_from_timing(total, e)?;
            Some((
                v,
                format!(
                    "measured - kernel time = {} - {}",
                    units::seconds(total),
                    units::seconds(e)
                ),
            ))
        } else if let Some(h) = hw {
            let (sec, prefix) = match mode {
                Mode::SpeedOfLight => (h.launch.as_ref(), "launch"),
                Mode::Achievable => (
                    h.achievable.as_ref().and_then(|x| x.launch.as_ref()),
                    "achievable.launch",
                ),
            };
            match sec.and_then(m.pick) {
                Some(v) => {
                    let field = format!("{prefix}.{}", m.field);
                    let from = h
                        .source(&field)
                        .map_or_else(String::new, |s| format!(" ({s})"));
                    Some((v, format!("{}: {field}{from}", h.id)))
                }
                None if m.name == "eager" => {
                    return Err(h.missing(
                        &format!("{prefix}.eager"),
                        "the per-kernel launch overhead",
                        Some("5 us"),
                    ));
                }
                None => None,
            }
        } else {
            None
        };
        if let Some((v, d)) = o {
            out.push(Overhead {
                mode: m.name.into(),
                per_kernel_s: v,
                derivation: d,
            });
        }
    }
    if out.first().is_some_and(|o| o.mode != "eager") {
        return Err(Error::usage(
            "--overhead",
            "the eager overhead is needed for the headline figures; give --overhead or --measured",
        ));
    }
    Ok(out)
}

/// Runs `launch` once per hardware (or once without).
pub fn run(a: &LaunchArgs, ctx: &Ctx) -> Result<Vec<Report>> {
    let p = LaunchParams {
        kernels: a.kernels,
        kernels_per_layer: a.kernels_per_layer,
        layers: a.layers,
        extra_kernels: a.extra_kernels,
        floor_s: time("--floor", a.floor.as_deref())?,
        fused_kernels: a.fused_kernels,
        fuse_factor: a.fuse_factor,
    };
    match &a.hw {
        None => Ok(vec![launch::launch(
            None,
            &p,
            &overheads(a, None, ctx.mode)?,
        )?]),
        Some(list) => ctx
            .hardware(list)?
            .iter()
            .map(|h| launch::launch(Some(&h.id), &p, &overheads(a, Some(h), ctx.mode)?))
            .collect(),
    }
}

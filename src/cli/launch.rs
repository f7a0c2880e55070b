//! `launch`: launch overhead per step, eager against synchronised and
//! CUDA-graph launches, and what fusing to fewer kernels saves. A query
//! over its fields; where the overheads come from is the library's
//! business (`calc::launch::overheads`).

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

const AFTER: &str = "\
Examples:
  roofline launch --kernels 490 --overhead \"5 us\" --floor \"4.0 ms\"
  roofline launch --kernels 490 --overhead \"5 us\" --floor \"4.0 ms\" --fused-kernels 163
  roofline launch --hw h100-sxm --kernels 490 --floor \"4.0 ms\" --fuse-factor 3
  roofline launch --kernels-per-layer 12 --layers 32 --overhead \"0.9 us\" --sync-overhead \"6.7 us\" --graph-overhead \"0.5 us\"
  roofline launch --kernels 400 --kernel-time \"2.9 us\" --measured \"3.8 us\" --measured-sync \"9.6 us\" --measured-graph \"3.4 us\"
  roofline launch --overhead \"5 us\" --floor \"4.0 ms\" --sweep kernels=100..1600

Overheads come from the flags, else from measured timings less --kernel-time,
else from the hardware file (launch.eager, launch.synchronised, launch.graph;
with --achievable, achievable.launch).";

/// `launch` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = AFTER)]
pub struct LaunchArgs {
    /// Hardware whose launch figures to use (id, path, or a list).
    #[arg(long)]
    pub hw: Option<String>,
    /// Kernels launched per step.
    #[arg(long, conflicts_with_all = ["kernels_per_layer", "layers", "extra_kernels"])]
    pub kernels: Option<String>,
    /// Kernels per layer (with --layers) instead of --kernels.
    #[arg(long)]
    pub kernels_per_layer: Option<String>,
    /// Layers (with --kernels-per-layer).
    #[arg(long)]
    pub layers: Option<String>,
    /// Kernels outside the layers: final norm, LM head, sampling (with
    /// --kernels-per-layer; default 0).
    #[arg(long)]
    pub extra_kernels: Option<String>,
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
    /// The step's time without launches (e.g. the weight-read floor;
    /// default 0).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub floor: Option<String>,
    /// Kernels after fusion.
    #[arg(long, conflicts_with = "fuse_factor")]
    pub fused_kernels: Option<String>,
    /// Fusion cuts the kernel count by this factor (rounded).
    #[arg(long)]
    pub fuse_factor: Option<String>,
}

impl Query for LaunchArgs {
    fn command(&self) -> &'static str {
        "launch"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

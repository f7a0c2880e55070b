//! `collective KIND`: one collective's time on the hardware's fabric tiers.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `collective` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline collective all-reduce --hw h200-sxm --devices 8 --bytes 1GiB
  roofline collective all-reduce --hw h200-sxm --devices 2 --bytes 64KiB --achievable
  roofline collective all-to-all --hw h200-sxm --devices 32 --bytes 7MiB   # spans 4 HGX nodes
  roofline collective all-gather --hw tpu7x --devices 64 --bytes 256MiB    # a 4x4x4 ICI torus
  roofline collective all-reduce --hw h100-sxm,gb200 --devices 72 --bytes 1GiB
  roofline collective all-reduce --hw h200-sxm --devices 8 --sweep bytes=1KiB..1048576KiB --format csv")]
pub struct CollectiveArgs {
    /// A measured time (e.g. 1.2ms): the achieved rates and their shares
    /// of the roofs (mfu, mbu).
    #[arg(long, allow_hyphen_values = true)]
    pub measured: Option<String>,
    /// all-reduce, all-gather, reduce-scatter, all-to-all or send-recv.
    #[arg(value_parser = ["all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv"])]
    pub kind: String,
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several.
    #[arg(long)]
    pub hw: String,
    /// Serving engine id or path (default pytorch: NCCL); an engine with a
    /// custom all-reduce prices it inside an NVLink domain.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Devices taking part.
    #[arg(long, required = true)]
    pub devices: Option<String>,
    /// Each rank's input buffer as NCCL counts it (e.g. 1GiB): for
    /// all-gather the piece each rank contributes, for reduce-scatter the
    /// whole vector.
    #[arg(long, required = true)]
    pub bytes: Option<String>,
    /// A fixed latency per phase (e.g. 20us), replacing the default (the
    /// file's hop latency at speed of light; with --achievable NCCL's
    /// measured per-call latency for the launch mode).
    #[arg(long)]
    pub latency: Option<String>,
    /// With --achievable: how the collective is called, none, graph (18.5
    /// us per call on the H200 pair) or eager (44 us) [default: eager].
    #[arg(long)]
    pub launch: Option<String>,
}

impl Query for CollectiveArgs {
    fn command(&self) -> &'static str {
        "collective"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

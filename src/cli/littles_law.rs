//! `littles-law`: loads in flight needed to saturate memory.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `littles-law` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline littles-law --hw h100-sxm --latency \"500 cycles\" --clock 1.8GHz     (the lecture's §7.4: 0.93 MB, 55 loads per SM)
  roofline littles-law --hw h100-sxm --latency 500cycles --clock 1.8GHz --warps 32   (exercise 1: 2 loads per warp)
  roofline littles-law --hw h100-sxm --latency 350ns
  roofline littles-law --hw h100-sxm --clock 1.8GHz --sweep latency=400,500,600

Defaults: the hardware file's DRAM latency and boost clock; the lecture's
500 cycles at 1.8 GHz are assumptions to pass explicitly.")]
pub struct LittlesLawArgs {
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several.
    #[arg(long)]
    pub hw: String,
    /// Load latency, in cycles ("500 cycles"; a bare number is cycles) or
    /// as a time ("350 ns") (default: the file's DRAM latency).
    #[arg(long, allow_hyphen_values = true)]
    pub latency: Option<String>,
    /// Clock that converts cycles to time (default: the file's boost clock).
    #[arg(long)]
    pub clock: Option<String>,
    /// Bytes per load (default: the file's segment, 128 B).
    #[arg(long)]
    pub transaction: Option<String>,
    /// Resident warps per SM sharing the loads (default: the warp budget).
    #[arg(long)]
    pub warps: Option<String>,
    /// Bytes per dependent load in the pointer chase (default 8 B).
    #[arg(long)]
    pub pointer: Option<String>,
}

impl Query for LittlesLawArgs {
    fn command(&self) -> &'static str {
        "littles-law"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

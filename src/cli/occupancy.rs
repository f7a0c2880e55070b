//! `occupancy`: resident blocks per SM and the binding limit.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `occupancy` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline occupancy --hw h100-sxm --threads 256 --regs 64 --smem 32KiB
  roofline occupancy --hw h100-sxm --threads 256 --regs 64 --smem 32KiB --textbook   # the lecture's exercise 1: 50%
  roofline occupancy --hw h100-sxm --threads 256 --regs 64 --smem 64KiB              # the inference-engineer chapter: 3 blocks, 37.5%
  roofline occupancy --hw h100-sxm --threads 512 --regs 32 --smem 0 --grid 1         # a 1-block decode launch
  roofline occupancy --hw h100-sxm --threads 256 --regs 64 --smem 0 --sweep regs=32,64,128
  roofline occupancy --hw mi300x --threads 256 --regs 64 --sgprs 96                 # SGPRs bind: 7 waves per SIMD
  roofline occupancy --hw h100-sxm --target-occupancy 40%                            # 25.6 of 64 warps: 26 whole warps
  roofline occupancy --hw h100-sxm --threads 256 --solve registers                   # full occupancy: at most 32 registers
  roofline occupancy --hw h100-sxm --threads 256 --regs 32 --solve smem --target-occupancy 50%
  roofline occupancy --hw h100-sxm --regs 64 --solve threads --target-occupancy 50%

Shared-memory sizes take units (32KiB, 48 KiB); a bare number is bytes.
By default a block gets the SM's largest shared-memory carveout, as NVIDIA's
occupancy calculator assumes; --carveout asks for a smaller one.
--solve finds the most registers per thread, threads per block or dynamic
shared memory that still reach --target-occupancy (default 100%), leaving
that flag out; --target-occupancy alone gives the warps per SM it takes.")]
pub struct OccupancyArgs {
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several.
    #[arg(long)]
    pub hw: String,
    /// Threads per block.
    #[arg(long, required_unless_present_any = ["solve", "target_occupancy"])]
    pub threads: Option<String>,
    /// Registers per thread (on AMD parts: VGPRs per lane, arch and AGPRs
    /// together).
    #[arg(long, required_unless_present_any = ["solve", "target_occupancy"])]
    pub regs: Option<String>,
    /// Scalar registers per wave, as the compiler reports them (AMD parts
    /// only; without it SGPRs do not limit).
    #[arg(long)]
    pub sgprs: Option<String>,
    /// Dynamic shared memory per block (e.g. 32KiB; a bare number is bytes;
    /// default 0).
    #[arg(long)]
    pub smem: Option<String>,
    /// Static shared memory per block (default 0).
    #[arg(long)]
    pub static_smem: Option<String>,
    /// Preferred shared-memory carveout per SM (e.g. 100KiB); rounded up to
    /// one the SM supports (default: the largest).
    #[arg(long)]
    pub carveout: Option<String>,
    /// The lecture's simplified arithmetic: no allocation granularity, no
    /// reserved shared memory.
    #[arg(long)]
    pub textbook: bool,
    /// Blocks in the grid: how many SMs the launch keeps busy and how full.
    #[arg(long)]
    pub grid: Option<String>,
    /// Solve for the most of one resource that still reaches
    /// --target-occupancy: registers (per thread), threads (per block) or
    /// smem (dynamic, per block).
    #[arg(long, value_name = "RESOURCE", value_parser = ["registers", "threads", "smem"])]
    pub solve: Option<String>,
    /// The occupancy to reach (40% or 0.4; default 100% with --solve);
    /// alone, the warps per SM it takes.
    #[arg(long, value_name = "SHARE")]
    pub target_occupancy: Option<String>,
}

impl Query for OccupancyArgs {
    fn command(&self) -> &'static str {
        "occupancy"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

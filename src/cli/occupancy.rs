//! `occupancy`: resident blocks per SM and the binding limit.

use super::Ctx;
use clap::Args;
use roofline::calc::occupancy::{self, Kernel};
use roofline::error::{Error, Result};
use roofline::report::Report;
use roofline::units::{self, Dim};

/// `occupancy` flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  roofline occupancy --hw h100-sxm --threads 256 --regs 64 --smem 32KiB
  roofline occupancy --hw h100-sxm --threads 256 --regs 64 --smem 32KiB --textbook   (002 exercise 1: 50%)
  roofline occupancy --hw h100-sxm --threads 256 --regs 64 --smem 64KiB              (004: 3 blocks, 37.5%)
  roofline occupancy --hw h100-sxm --threads 512 --regs 32 --smem 0 --grid 1         (a 1-block decode launch)
  roofline occupancy --hw h100-sxm --threads 256 --regs 64 --smem 0 --sweep regs=32,64,128

Shared-memory sizes take units (32KiB, 48 KiB); a bare number is bytes.
By default a block gets the SM's largest shared-memory carveout, as NVIDIA's
occupancy calculator assumes; --carveout asks for a smaller one.")]
pub struct OccupancyArgs {
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several.
    #[arg(long)]
    pub hw: String,
    /// Threads per block.
    #[arg(value_parser = crate::cli::count, long)]
    pub threads: u64,
    /// Registers per thread.
    #[arg(value_parser = crate::cli::count, long)]
    pub regs: u64,
    /// Dynamic shared memory per block (e.g. 32KiB; a bare number is bytes).
    #[arg(long, default_value = "0")]
    pub smem: String,
    /// Static shared memory per block.
    #[arg(long, default_value = "0")]
    pub static_smem: String,
    /// Preferred shared-memory carveout per SM (e.g. 100KiB); rounded up to
    /// one the SM supports.
    #[arg(long)]
    pub carveout: Option<String>,
    /// The seeds' simplified arithmetic: no allocation granularity, no
    /// reserved shared memory.
    #[arg(long)]
    pub textbook: bool,
    /// Blocks in the grid: how many SMs the launch keeps busy and how full.
    #[arg(value_parser = crate::cli::count, long)]
    pub grid: Option<u64>,
}

fn bytes(flag: &str, text: &str) -> Result<u64> {
    let v = units::parse(text, Dim::Bytes).map_err(|e| Error::input(flag, e))?;
    if v < 0.0 || v.fract() != 0.0 || v > 1e15 {
        return Err(Error::input(
            flag,
            format!("`{text}`: expected a whole number of bytes, zero or more"),
        ));
    }
    Ok(v as u64)
}

/// Runs `occupancy`.
pub fn run(a: &OccupancyArgs, ctx: &Ctx) -> Result<Vec<Report>> {
    let k = Kernel {
        threads: a.threads,
        regs: a.regs,
        smem: bytes("--smem", &a.smem)?,
        static_smem: bytes("--static-smem", &a.static_smem)?,
        carveout: a
            .carveout
            .as_deref()
            .map(|c| bytes("--carveout", c))
            .transpose()?,
        textbook: a.textbook,
        grid: a.grid,
    };
    ctx.hardware(&a.hw)?
        .iter()
        .map(|hw| occupancy::occupancy(hw, &k))
        .collect()
}

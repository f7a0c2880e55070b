//! `coalesce`: bytes moved for bytes used by one warp's strided load.

use super::Ctx;
use clap::{Args, ValueEnum};
use roofline::calc::coalesce::{self, Access, Granularity};
use roofline::error::{Error, Result};
use roofline::precision;
use roofline::report::Report;
use roofline::units::{self, Dim};

/// Granularities on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GranularityArg {
    /// The 128-B segment (the lecture's model).
    Segment,
    /// The 32-B L1/L2 sector.
    Sector,
    /// The hardware's DRAM fetch unit (memory.dram-fetch).
    Dram,
}

/// `coalesce` flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  roofline coalesce --hw h100-sxm --dtype fp32 --stride 32 --granularity segment   (1/32, ~105 GB/s)
  roofline coalesce --hw h100-sxm --dtype fp32 --stride 1 --offset 4 --granularity segment   (misaligned)
  roofline coalesce --hw h100-sxm --dtype fp32 --stride 32 --granularity sector    (1,024 B moved for 128)
  roofline coalesce --hw h100-sxm --dtype fp16 --stride 64 --granularity segment   (1/64, ~52 GB/s)
  roofline coalesce --hw h100-sxm --dtype fp32 --sweep stride=1..64 --set memory.dram-fetch=64B

Default granularity: the hardware's DRAM fetch unit where its file records
one (memory.dram-fetch), else the 32-B sector.")]
pub struct CoalesceArgs {
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several.
    #[arg(long)]
    pub hw: String,
    /// Element type (default: the hardware's default-dtype).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Distance between adjacent lanes' elements, in elements (1 = contiguous).
    #[arg(value_parser = crate::cli::count, long, default_value_t = 1)]
    pub stride: u64,
    /// Byte offset of lane 0's element from an aligned boundary.
    #[arg(long, default_value = "0")]
    pub offset: String,
    /// The unit memory moves in (default: dram where known, else sector).
    #[arg(long, value_enum)]
    pub granularity: Option<GranularityArg>,
}

/// Runs `coalesce`.
pub fn run(a: &CoalesceArgs, ctx: &Ctx) -> Result<Vec<Report>> {
    let off = units::parse(&a.offset, Dim::Bytes).map_err(|e| Error::input("--offset", e))?;
    if off < 0.0 || off.fract() != 0.0 || off > 1e15 {
        return Err(Error::input(
            "--offset",
            format!(
                "`{}`: expected a whole number of bytes, zero or more",
                a.offset
            ),
        ));
    }
    ctx.hardware(&a.hw)?
        .iter()
        .map(|hw| {
            let p = precision::lookup(a.dtype.as_deref().unwrap_or(&hw.default_dtype))?;
            let granularity = match a.granularity {
                Some(GranularityArg::Segment) => Granularity::Segment,
                Some(GranularityArg::Sector) => Granularity::Sector,
                Some(GranularityArg::Dram) => Granularity::Dram,
                None => Granularity::default_for(hw),
            };
            let access = Access {
                stride: a.stride,
                offset: off as u64,
                granularity,
            };
            coalesce::coalesce(hw, p, ctx.mode, &access)
        })
        .collect()
}

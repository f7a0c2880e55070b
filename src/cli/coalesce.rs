//! `coalesce`: bytes moved for bytes used by one warp's strided load.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `coalesce` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
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
    /// Distance between adjacent lanes' elements, in elements (1 = contiguous;
    /// the default).
    #[arg(long)]
    pub stride: Option<String>,
    /// Byte offset of lane 0's element from an aligned boundary (default 0).
    #[arg(long)]
    pub offset: Option<String>,
    /// The unit memory moves in: segment (128 B), sector (32 B) or dram (the
    /// file's memory.dram-fetch). Default: dram where known, else sector.
    #[arg(long)]
    pub granularity: Option<String>,
}

impl Query for CoalesceArgs {
    fn command(&self) -> &'static str {
        "coalesce"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

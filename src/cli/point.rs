//! `point`: a kernel's place on the roofline.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `point` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline point --hw h100-sxm --intensity 1              # batch-1 decode: 3.35 TFLOP/s, 0.34% of peak
  roofline point --hw h100-sxm --flops 137.4GFLOP --bytes 100.7MB   # a 4096^3 bf16 matmul
  roofline point --hw h100-sxm,h200-sxm --intensity 128 --dtype fp8
  roofline point --hw h100-sxm --sweep intensity=1..4096 --format csv
  roofline point --hw h200-sxm --intensity 300 --achievable --explain")]
pub struct PointArgs {
    /// A measured time (e.g. 1.2ms): the achieved rates and their shares
    /// of the roofs (mfu, mbu).
    #[arg(long, allow_hyphen_values = true)]
    pub measured: Option<String>,
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several.
    #[arg(long)]
    pub hw: String,
    /// Arithmetic intensity in FLOP per byte (or give --flops and --bytes).
    #[arg(long, conflicts_with_all = ["flops", "bytes"])]
    pub intensity: Option<String>,
    /// Total FLOPs (e.g. 137.4TFLOP, or a bare count); needs --bytes.
    #[arg(long, requires = "bytes")]
    pub flops: Option<String>,
    /// Bytes moved to and from device memory (e.g. 100MB); needs --flops.
    #[arg(long, requires = "flops")]
    pub bytes: Option<String>,
    /// Precision (default: the hardware's default-dtype).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Use the 2:4 structured-sparsity peak (an error where the file has
    /// none at the precision).
    #[arg(long)]
    pub sparse: bool,
    /// Prices for cost per token.
    #[command(flatten)]
    #[serde(flatten)]
    pub prices: super::price::PriceArgs,
}

impl Query for PointArgs {
    fn command(&self) -> &'static str {
        "point"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

//! `point`: a kernel's place on the roofline.

use super::Ctx;
use clap::Args;
use roofline::calc::point::{self, Work};
use roofline::error::{Error, Result};
use roofline::report::Report;
use roofline::units::{self, Dim};

/// `point` flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  roofline point --hw h100-sxm --intensity 1              (batch-1 decode: 3.35 TFLOP/s, 0.34% of peak)
  roofline point --hw h100-sxm --flops 137.4GFLOP --bytes 100.7MB   (a 4096^3 bf16 matmul)
  roofline point --hw h100-sxm,h200-sxm --intensity 128 --dtype fp8
  roofline point --hw h100-sxm --sweep intensity=1..4096 --format csv
  roofline point --hw h200-sxm --intensity 300 --achievable --explain")]
pub struct PointArgs {
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
}

fn intensity(text: &str) -> Result<f64> {
    text.trim()
        .trim_end_matches("FLOP/B")
        .trim()
        .parse::<f64>()
        .map_err(|_| {
            Error::input(
                "--intensity",
                format!("`{text}` is not a number (FLOP per byte)"),
            )
        })
}

/// Runs `point`.
pub fn run(a: &PointArgs, ctx: &Ctx) -> Result<Vec<Report>> {
    let work = match (&a.intensity, &a.flops, &a.bytes) {
        (Some(i), _, _) => Work::Intensity(intensity(i)?),
        (None, Some(f), Some(b)) => Work::Totals {
            flops: units::parse(f, Dim::Flop).map_err(|e| Error::input("--flops", e))?,
            bytes: units::parse(b, Dim::Bytes).map_err(|e| Error::input("--bytes", e))?,
        },
        _ => {
            return Err(Error::usage(
                "--intensity",
                "give --intensity, or --flops and --bytes",
            ));
        }
    };
    ctx.hardware(&a.hw)?
        .iter()
        .map(|hw| {
            let p = hw.precision(a.dtype.as_deref())?;
            point::point(hw, p, ctx.mode, work)
        })
        .collect()
}

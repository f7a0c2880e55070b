//! `hw list` and `hw show`.

use super::Ctx;
use clap::Subcommand;
use roofline::calc::hw::{self, ShowOptions};
use roofline::error::Result;
use roofline::report::Report;
use roofline::units::{self, Dim};

/// `hw` subcommands.
#[derive(Debug, Subcommand)]
pub enum HwCommand {
    /// List the accelerators in the catalog (built-in and --hw-dir).
    List,
    /// Show one accelerator's numbers and derived figures.
    #[command(after_help = "Examples:
  roofline hw show h100-sxm
  roofline hw show h100-sxm --dtype fp8 --format json
  roofline hw show h100-sxm,h200-sxm          (one row each)
  roofline hw show my-gpu.toml --explain
  roofline hw show h100-sxm --clock 1.8GHz    (the lecture's working clock)")]
    Show {
        /// Catalog id or path to a .toml file; a comma-separated list
        /// compares several.
        #[arg(value_name = "HW")]
        hw: String,
        /// Precision for the headline ridge point (default: the file's).
        #[arg(long)]
        dtype: Option<String>,
        /// Clock for per-cycle figures (default: the file's boost clock).
        #[arg(long)]
        clock: Option<String>,
    },
}

/// Runs an `hw` subcommand.
pub fn run(c: &HwCommand, ctx: &Ctx) -> Result<Vec<Report>> {
    match c {
        HwCommand::List => {
            let all = ctx
                .catalog
                .hardware_entries()?
                .into_iter()
                .map(|e| ctx.hardware(&e.id).map(|mut v| v.remove(0)))
                .collect::<Result<Vec<_>>>()?;
            Ok(vec![hw::list(&all)])
        }
        HwCommand::Show { hw, dtype, clock } => {
            let clock_hz = clock
                .as_deref()
                .map(|c| units::parse(c, Dim::Hz).map_err(|e| roofline::Error::input("--clock", e)))
                .transpose()?;
            if clock_hz.is_some_and(|c| c <= 0.0) {
                return Err(roofline::Error::input(
                    "--clock",
                    "must be greater than zero",
                ));
            }
            let opts = ShowOptions {
                dtype: dtype.clone(),
                clock_hz,
                mode: ctx.mode,
            };
            ctx.hardware(hw)?
                .iter()
                .map(|h| hw::show(h, &opts))
                .collect()
        }
    }
}

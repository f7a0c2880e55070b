//! `littles-law`: loads in flight needed to saturate memory.

use super::Ctx;
use clap::Args;
use roofline::calc::littles_law::{self, Demand, Latency};
use roofline::error::{Error, Result};
use roofline::report::Report;
use roofline::units::{self, Dim, UnitError};

/// `littles-law` flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  roofline littles-law --hw h100-sxm --latency \"500 cycles\" --clock 1.8GHz     (002 §7.4: 0.93 MB, 55 loads per SM)
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
    /// as a time ("350 ns").
    #[arg(long, allow_hyphen_values = true)]
    pub latency: Option<String>,
    /// Clock that converts cycles to time (default: the file's boost clock).
    #[arg(long)]
    pub clock: Option<String>,
    /// Bytes per load (default: the file's segment, 128 B).
    #[arg(long)]
    pub transaction: Option<String>,
    /// Resident warps per SM sharing the loads (default: the warp budget).
    #[arg(value_parser = crate::cli::count, long)]
    pub warps: Option<u64>,
    /// Bytes per dependent load in the pointer chase (default 8 B).
    #[arg(long)]
    pub pointer: Option<String>,
}

fn latency(text: &str) -> Result<Latency> {
    match units::parse(text, Dim::Cycles) {
        Ok(c) => Ok(Latency::Cycles(c)),
        Err(UnitError::WrongUnit { .. }) => units::parse(text, Dim::Seconds)
            .map(Latency::Seconds)
            .map_err(|_| {
                Error::input(
                    "--latency",
                    format!("`{text}`: expected cycles (\"500 cycles\") or a time (\"350 ns\")"),
                )
            }),
        Err(e) => Err(Error::input("--latency", e)),
    }
}

/// Runs `littles-law`.
pub fn run(a: &LittlesLawArgs, ctx: &Ctx) -> Result<Vec<Report>> {
    let bytes = |flag: &str, t: &Option<String>| {
        t.as_deref()
            .map(|v| units::parse(v, Dim::Bytes).map_err(|e| Error::input(flag, e)))
            .transpose()
    };
    let d = Demand {
        latency: a.latency.as_deref().map(latency).transpose()?,
        clock_hz: a
            .clock
            .as_deref()
            .map(|c| units::parse(c, Dim::Hz).map_err(|e| Error::input("--clock", e)))
            .transpose()?,
        transaction: bytes("--transaction", &a.transaction)?,
        warps: a.warps,
        pointer: bytes("--pointer", &a.pointer)?,
        mode: ctx.mode,
    };
    ctx.hardware(&a.hw)?
        .iter()
        .map(|hw| littles_law::littles_law(hw, &d))
        .collect()
}

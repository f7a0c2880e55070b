//! `hw list` and `hw show`. `hw show` is a query over fields: a list of
//! parts compares them and `--sweep dtype=bf16,fp8` varies an input, both
//! through the sweep engine.

use super::query::{Query, flag_fields};
use clap::{Args, Subcommand};
use roofline::error::Result;
use roofline::inputs::Fields;
use roofline::query::Context;
use roofline::report::Report;
use serde::Serialize;

/// `hw` subcommands.
#[derive(Debug, Subcommand)]
pub enum HwCommand {
    /// List the accelerators in the catalog (built-in and --hw-dir).
    ///
    /// --explain gives each accelerator's listed figures with the field
    /// each is read from and its source.
    #[command(after_help = "Examples:
  roofline hw list
  roofline hw list --format csv
  roofline hw list --explain
  roofline hw list --set memory.hbm-bandwidth=\"4.8 TB/s\"   (a what-if, where it validates)")]
    List(super::list::HwListArgs),
    /// Show one accelerator's numbers and derived figures.
    Show(HwShowArgs),
    /// Print a commented template for your own hardware file, made from
    /// one in the catalog: `roofline hw new --from h100-sxm > my-gpu.toml`.
    New(NewArgs),
}

/// `hw new` and `model new` flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  roofline hw new --from h100-sxm > my-gpu.toml
  roofline hw show my-gpu.toml                 (after setting its id)
  roofline model new --from llama-3-8b > my-model.toml

The template is the file with a comment per section saying what each field
means and its unit, no [sources] table (every value then cites your file),
and id = \"change-me\", which the loader refuses until you set it (to the
file's name, so --hw-dir finds it by that id).")]
pub struct NewArgs {
    /// The catalog id (or a path to a .toml) whose values start the file.
    #[arg(long, value_name = "ID")]
    pub from: String,
}

/// The template `hw new` or `model new` prints.
pub fn new(kind: &str, a: &NewArgs, ctx: &Context) -> Result<Vec<u8>> {
    Ok(ctx.catalog.template(kind, &a.from)?.into_bytes())
}

/// `hw show` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline hw show h100-sxm
  roofline hw show h100-sxm --dtype fp8 --format json
  roofline hw show h100-sxm,mi355x            (one row each, with FLOP/s per watt)
  roofline hw show h100-sxm --sweep dtype=bf16,fp8
  roofline hw show h100-sxm --sparse          (the 2:4 sparse peak)
  roofline hw show h200-sxm --achievable      (measured rates and latency)
  roofline hw show my-gpu.toml --explain
  roofline hw show h100-sxm --clock 1.8GHz    (the lecture's working clock)")]
pub struct HwShowArgs {
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several.
    #[arg(value_name = "HW")]
    pub hw: String,
    /// Precision for the headline peak and ridge point (default: the
    /// file's default-dtype).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Clock for per-cycle figures (default: the file's boost clock).
    #[arg(long)]
    pub clock: Option<String>,
    /// Use the 2:4 structured-sparsity peak (an error where the file has
    /// none at the precision).
    #[arg(long)]
    pub sparse: bool,
}

impl Query for HwShowArgs {
    fn command(&self) -> &'static str {
        "hw show"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

/// Runs an `hw` subcommand; `explain` asks `hw list` for one report per
/// accelerator.
pub fn run(c: &HwCommand, ctx: &Context, explain: bool) -> Result<Vec<Report>> {
    match c {
        HwCommand::List(_) => {
            roofline::query::evaluate(ctx, "hw list", &Fields::new(), &[], explain)
        }
        HwCommand::Show(a) => super::query::run(a, ctx, &[], false),
        HwCommand::New(_) => Err(roofline::Error::usage(
            "--sweep",
            "`hw new` prints a template and takes no sweep",
        )),
    }
}

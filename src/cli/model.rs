//! `model list` and `model show`. `model show` is a query over its fields
//! (`model`, `dtype`, `kv-dtype`), so `--sweep` and model lists work the
//! same as for the other commands; a swept field of the model file
//! (`--sweep layers=16,32`) is applied as a `--set` at each point.

use super::query::{Query, flag_fields};
use clap::{Args, Subcommand};
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `model show` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline model show llama-3-8b
  roofline model show llama-3-8b --format markdown
  roofline model show llama-3-8b --sweep dtype=bf16,fp8,int4
  roofline model show llama-3-8b --sweep layers=16,32,64   (a field of the file, as --set)
  roofline model show llama-3-8b,mistral-7b --kv-dtype fp8
  roofline model show path/to/config.json      (a Hugging Face config)")]
pub struct ShowArgs {
    /// Catalog id, a model .toml, or a Hugging Face config.json; a
    /// comma-separated list compares several.
    #[arg(value_name = "MODEL")]
    pub model: String,
    /// Weight precision (default bf16).
    #[arg(long)]
    pub dtype: Option<String>,
    /// KV-cache precision, as for `kv`: fp32, bf16 (default), fp16, fp8,
    /// int8, int4, int2.
    #[arg(long)]
    pub kv_dtype: Option<String>,
}

/// `model` subcommands.
#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// List the models in the catalog (built-in and --model-dir).
    ///
    /// --explain derives each model's parameter count from its layer
    /// shapes, and cites its layers.
    #[command(after_help = "Examples:
  roofline model list
  roofline model list --format json
  roofline model list --explain
  roofline model list --set layers=16          (a what-if, where it validates)")]
    List(super::list::ModelListArgs),
    /// Show a model's parameters, weight bytes and KV bytes per token.
    Show(ShowArgs),
    /// Print a commented template for your own model file, made from one
    /// in the catalog: `roofline model new --from llama-3-8b > my-model.toml`.
    New(super::hw::NewArgs),
}

impl Query for ShowArgs {
    fn command(&self) -> &'static str {
        "model show"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

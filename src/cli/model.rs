//! `model list` and `model show`.

use super::Ctx;
use clap::Subcommand;
use roofline::calc::model;
use roofline::error::Result;
use roofline::precision;
use roofline::report::Report;

/// `model` subcommands.
#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// List the models in the catalog (built-in and --model-dir).
    List,
    /// Show a model's parameters, weight bytes and KV bytes per token.
    #[command(after_help = "Examples:
  roofline model show llama-3-8b
  roofline model show llama-3-8b --format markdown
  roofline model show llama-3-8b --sweep dtype=bf16,fp8,int4
  roofline model show path/to/config.json      (a Hugging Face config)")]
    Show {
        /// Catalog id, a model .toml, or a Hugging Face config.json; a
        /// comma-separated list compares several.
        #[arg(value_name = "MODEL")]
        model: String,
        /// Weight precision.
        #[arg(long, default_value = "bf16")]
        dtype: String,
        /// KV-cache precision.
        #[arg(long, default_value = "bf16")]
        kv_dtype: String,
    },
}

/// Runs a `model` subcommand.
pub fn run(c: &ModelCommand, ctx: &Ctx) -> Result<Vec<Report>> {
    match c {
        ModelCommand::List => {
            let all = ctx
                .catalog
                .model_entries()?
                .into_iter()
                .map(|e| ctx.models(&e.id).map(|mut v| v.remove(0)))
                .collect::<Result<Vec<_>>>()?;
            Ok(vec![model::list(&all)?])
        }
        ModelCommand::Show {
            model: m,
            dtype,
            kv_dtype,
        } => {
            let p = precision::lookup(dtype)?;
            let kv = precision::lookup(kv_dtype).map_err(|_| {
                roofline::Error::input("--kv-dtype", format!("unknown precision `{kv_dtype}`"))
            })?;
            ctx.models(m)?
                .iter()
                .map(|x| model::show(x, p, kv))
                .collect()
        }
    }
}

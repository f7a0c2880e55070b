//! `model list` and `model show`. `model show` is a query over its fields
//! (`model`, `dtype`, `kv-dtype`), so `--sweep` and model lists work the
//! same as for the other commands; a swept field of the model file
//! (`--sweep layers=16,32`) is applied as a `--set` at each point.

use super::Ctx;
use super::query::{Query, calc_inputs, flag_fields};
use clap::{Args, Subcommand};
use roofline::calc::model::{self, ModelInputs};
use roofline::error::Result;
use roofline::inputs::Fields;
use roofline::report::Report;
use serde::Serialize;

/// `model show` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline model show llama-3-8b
  roofline model show llama-3-8b --format markdown
  roofline model show llama-3-8b --sweep dtype=bf16,fp8,int4
  roofline model show llama-3-8b --sweep layers=16,32,64   # a field of the file, as --set
  roofline model show llama-3-8b,mistral-7b --kv-dtype fp8
  roofline model show path/to/config.json      # a Hugging Face config")]
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

/// The model file's top-level fields that `--sweep` varies as a `--set`
/// (a table's fields are swept by their dotted path, `attention.heads`).
const MODEL_TOP_LEVEL: &[&str] = &[
    "layers",
    "hidden-size",
    "vocab-size",
    "tied-embeddings",
    "max-context",
    "weight-dtype",
    "sliding-window",
    "norm",
    "position-embedding",
    "linear-bias",
];

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
  roofline model list --set layers=16          # a what-if, where it validates")]
    List(super::list::ModelListArgs),
    /// Show a model's parameters, weight bytes and KV bytes per token.
    Show(ShowArgs),
    /// Print a commented template for your own model file, made from one
    /// in the catalog: `roofline model new --from llama-3-8b > my-model.toml`.
    New(super::hw::NewArgs),
}

impl Query for ShowArgs {
    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }

    fn eval(&self, ctx: &Ctx, fields: &Fields, lean: bool) -> Result<Report> {
        // A swept top-level field of the model file (`--sweep layers=16,32`)
        // is a `--set` of that field at each point, as a dotted path is.
        let file_field = |k: &str| MODEL_TOP_LEVEL.contains(&k);
        if !fields.keys().any(|k| file_field(k)) {
            let m = ctx.point_model(fields)?;
            let inputs: ModelInputs = calc_inputs(fields)?;
            return Ok(model::cost(&m, &inputs)?.report(lean));
        }
        let Some(serde_json::Value::String(id)) = fields.get("model") else {
            return Err(roofline::Error::usage(
                "--model",
                "give the model: an id (see `roofline model list`) or a path",
            ));
        };
        let mut sets = ctx.sets.clone();
        for (k, v) in fields.iter().filter(|(k, _)| file_field(k)) {
            let value = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            sets.push(format!("{k}={value}").parse()?);
        }
        let m = ctx.catalog.model(id, &sets)?;
        let inputs: ModelInputs =
            roofline::inputs::from_fields_where(fields, |k| matches!(k, "dtype" | "kv-dtype"))?;
        Ok(model::cost(&m, &inputs)?.report(lean))
    }
}

/// Runs `model list`; `explain` asks for one report per model.
pub fn list(ctx: &Ctx, explain: bool) -> Result<Vec<Report>> {
    ctx.read.set((false, true));
    super::list::run(
        ctx,
        "model",
        explain,
        ctx.catalog.model_entries()?,
        |id, sets| ctx.catalog.model(id, sets),
        model::list_entry,
        model::listing,
    )
}

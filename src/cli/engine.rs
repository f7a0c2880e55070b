//! `engine list` and `engine show`: the serving-engine profiles (built-in
//! and `--engine-dir`) a step can run on.

use super::query::{Query, flag_fields};
use clap::{Args, Subcommand};
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `engine show` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline engine show vllm
  roofline engine show trtllm --explain      # every field's source
  roofline engine show pytorch --set engine.moe.dispatch=grouped")]
pub struct ShowArgs {
    /// Catalog id or an engine .toml.
    #[arg(value_name = "ENGINE")]
    pub engine: String,
}

/// `engine list` flags (none).
#[derive(Debug, Args, Serialize)]
pub struct ListArgs {}

/// `engine` subcommands.
#[derive(Debug, Subcommand)]
pub enum EngineCommand {
    /// List the serving engines (built-in and --engine-dir).
    #[command(after_help = "Examples:
  roofline engine list
  roofline engine list --format json")]
    List(ListArgs),
    /// Show an engine's profile: what its kernels fuse, its expert
    /// dispatch, attention kernel, all-reduce and graph capture.
    Show(ShowArgs),
}

impl Query for ShowArgs {
    fn command(&self) -> &'static str {
        "engine show"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

//! `prefill`: a prompt's FLOPs, bytes and time to first token.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `prefill` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 8192
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 8192 --chunk 512
  roofline prefill --model llama-3-8b --hw h100-sxm --prompt 8192 --explain   # the fp32 scores against L2
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 2048 --achievable
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 512 --context 4096 --achievable
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 512 --sweep prompt=512..8192
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 4096 --achievable --price 2.50/h   # J and cost per prompt token")]
pub struct PrefillArgs {
    /// A measured time (e.g. 1.2ms): the achieved rates and their shares
    /// of the roofs (mfu, mbu).
    #[arg(long, allow_hyphen_values = true)]
    pub measured: Option<String>,
    /// Model id (`roofline model list`) or path to a model .toml or a Hugging Face config.json; a comma-separated list compares.
    #[arg(long)]
    pub model: String,
    /// Hardware id or path; a comma-separated list compares.
    #[arg(long)]
    pub hw: String,
    /// Serving engine id or path to a .toml file (default pytorch): which
    /// kernels a step runs (`roofline engine list`).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Prompt tokens per sequence.
    #[arg(long, required = true)]
    pub prompt: Option<String>,
    /// Sequences (default 1).
    #[arg(long)]
    pub batch: Option<String>,
    /// Tokens per chunk (chunked prefill; default: the whole prompt).
    #[arg(long)]
    pub chunk: Option<String>,
    /// Tokens already cached per sequence before the prompt (a prefix-cache
    /// hit, a chunk continuing a long prompt, a speculative verify pass):
    /// attention reads them (default 0).
    #[arg(long)]
    pub context: Option<String>,
    /// Weight precision (default: the hardware's default-dtype).
    #[arg(long)]
    pub dtype: Option<String>,
    /// KV precision (default bf16).
    #[arg(long)]
    pub kv_dtype: Option<String>,
    /// Activation precision (default: the hardware's default-dtype).
    #[arg(long)]
    pub activations: Option<String>,
    /// Launch overhead per kernel: none (default: speed of light), eager or
    /// graph (the default with --achievable).
    #[arg(long)]
    pub launch: Option<String>,
    /// Kernels per forward (default: from the layer structure).
    #[arg(long)]
    pub kernels: Option<String>,
    /// Allow a prompt beyond the model's maximum context.
    #[arg(long)]
    pub force: bool,
    /// Prices for cost per token.
    #[command(flatten)]
    #[serde(flatten)]
    pub prices: super::price::PriceArgs,
}

impl Query for PrefillArgs {
    fn command(&self) -> &'static str {
        "prefill"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

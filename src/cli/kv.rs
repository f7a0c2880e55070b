//! `kv`: the KV cache of a model, and with `--hw` what fits beside the
//! weights.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `kv` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline kv --model llama-3-8b --context 8192 --batch 32      # 4 KiB per token per layer; 4.3 GB
  roofline kv --model llama-3-8b --context 8192 --batch 32 --hw h200-sxm   # max batch and context beside the weights
  roofline kv --model deepseek-v3 --context 1                   # MLA: 70,272 B per token in bf16
  roofline kv --model llama-3-8b --context 8192 --kv-dtype int2 # KIVI 2-bit with fp16 scales: 3 bits an element
  roofline kv --model llama-3-8b --context 1000 --page 16 --reserved 4096
  roofline kv --model llama-3-8b --context 4096 --hw h100-sxm --sweep batch=1..256
  roofline kv --model llama-3.1-70b --context 8192 --batch 16 --hw h200-sxm --tp 4  # per device")]
pub struct KvArgs {
    /// Model id (`roofline model list`) or path to a model .toml or a Hugging Face config.json; a comma-separated list compares.
    #[arg(long)]
    pub model: String,
    /// Tokens per sequence.
    #[arg(long, required = true)]
    pub context: Option<String>,
    /// Sequences (default 1).
    #[arg(long)]
    pub batch: Option<String>,
    /// KV precision: fp32, bf16 (default), fp16, fp8, int8, int4, int2
    /// (integers with KIVI's fp16 scale and zero point per 32 elements).
    #[arg(long)]
    pub kv_dtype: Option<String>,
    /// Hardware to fit on: max batch and max context beside the weights.
    #[arg(long)]
    pub hw: Option<String>,
    /// Weight precision for the fit (default: the hardware's default-dtype).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Memory held back for activations and the runtime (default 10%).
    #[arg(long)]
    pub reserve: Option<String>,
    /// Tokens per KV page: the waste of the last partly filled page.
    #[arg(long)]
    pub page: Option<String>,
    /// Tokens a contiguous allocator reserves per sequence: its waste.
    #[arg(long)]
    pub reserved: Option<String>,
    /// Allow a context beyond the model's maximum.
    #[arg(long)]
    pub force: bool,
    /// Tensor-parallel ranks to split the model over for the fit: each
    /// device holds 1/tp of the sharded weights and ceil(kv heads / tp) of
    /// the KV heads (default 1).
    #[arg(long)]
    pub tp: Option<String>,
}

impl Query for KvArgs {
    fn command(&self) -> &'static str {
        "kv"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

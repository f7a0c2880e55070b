//! `decode`: one decode step of a model on a device.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `decode` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
// The batch, or a time-per-token target the largest batch meeting it is
// searched for.
#[command(group(clap::ArgGroup::new("batch-or-slo").args(["batch", "slo_tpot"]).required(true).multiple(true)))]
#[command(after_help = "Examples:
  roofline decode --model llama-2-7b --hw h100-sxm --batch 1 --context 1024   # about 4 ms at about 1 FLOP/B
  roofline decode --model llama-3-8b --hw h200-sxm --batch 32 --context 4096 --achievable
  roofline decode --model llama-3-8b --hw h200-sxm --batch 1 --context 1024 --launch eager
  roofline decode --model llama-3-8b --hw h200-sxm --batch 1 --context 2048 --sweep batch=1..512 --format csv
  roofline decode --model llama-3-8b --hw h200-sxm --batch 1 --context 2048 --slo-tpot 20ms
  roofline decode --model llama-3-8b --hw h200-sxm --batch 64 --context 2048 --prompt 1024 --output 256 --slo-ttft 200ms
  roofline decode --model deepseek-v3 --hw b200 --batch 1 --context 4096 --dtype fp8 --activations fp8   # exits 1: 671 GB do not fit one B200
  roofline decode --model llama-3-8b --hw h200-sxm --batch 8 --context 2048 --speculative 0.8,4,0.05
  roofline decode --model llama-3-8b --hw h200-sxm --batch 64 --context 2048 --achievable --price 2.50/h --energy-price 0.10/kWh --pue 1.3
  roofline decode --model llama-3-8b --hw h200-sxm --batch 1 --context 1024 --achievable --sweep batch=1..512 --y energy_per_token_j --chart energy.svg
  roofline decode --model llama-3.1-70b --hw h200-sxm --batch 16 --context 4096 --tp 8   # one step of 8 devices: plan --tp 8 --pp 1's decode")]
pub struct DecodeArgs {
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
    /// Sequences decoded together.
    #[arg(long)]
    pub batch: Option<String>,
    /// Tokens already in each sequence's KV cache.
    #[arg(long, required = true)]
    pub context: Option<String>,
    /// Weight precision (default: the hardware's default-dtype): bf16, fp8,
    /// int8, int4, mxfp8, mxfp6, mxfp4, nvfp4, ...
    #[arg(long)]
    pub dtype: Option<String>,
    /// KV precision: bf16 (default), fp16, fp8, int8, int4, int2, fp32.
    #[arg(long)]
    pub kv_dtype: Option<String>,
    /// Activation precision (default: the hardware's default-dtype); the
    /// matmuls run at the peak of the wider of weights and activations.
    #[arg(long)]
    pub activations: Option<String>,
    /// Launch overhead per kernel: none (default: speed of light), eager or
    /// graph (the default with --achievable).
    #[arg(long)]
    pub launch: Option<String>,
    /// Kernels per step (default: from the layer structure).
    #[arg(long)]
    pub kernels: Option<String>,
    /// Speculative decoding in one flag: ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST]
    /// (e.g. 0.8,4,0.05), the same as the three flags below.
    #[arg(long, value_name = "A,G[,C]", conflicts_with_all = ["acceptance", "draft_tokens", "draft_cost"])]
    pub speculative: Option<String>,
    /// Speculative decoding: probability a drafted token is accepted.
    #[arg(long)]
    pub acceptance: Option<String>,
    /// Speculative decoding: tokens drafted per pass (default 4).
    #[arg(long)]
    pub draft_tokens: Option<String>,
    /// Speculative decoding: a drafted token's cost as a share of a step.
    #[arg(long)]
    pub draft_cost: Option<String>,
    /// Time-per-output-token target: the largest batch meeting it (20ms;
    /// p99=20ms is accepted as in simulate: a step has one time).
    #[arg(long)]
    pub slo_tpot: Option<String>,
    /// Time-to-first-token target, for goodput (needs --prompt, --output;
    /// a time, or PERCENTILE=TIME as in simulate).
    #[arg(long)]
    pub slo_ttft: Option<String>,
    /// Prompt tokens per request, for goodput with prefill in the loop.
    #[arg(long)]
    pub prompt: Option<String>,
    /// Output tokens per request, for goodput.
    #[arg(long)]
    pub output: Option<String>,
    /// Memory held back for activations and the runtime (default 10%).
    #[arg(long)]
    pub reserve: Option<String>,
    /// Allow a context beyond the model's maximum.
    #[arg(long)]
    pub force: bool,
    /// Tensor-parallel ranks the step runs on: each device holds 1/tp of
    /// the sharded weights and ceil(kv heads / tp) of the KV heads, with
    /// two all-reduces per layer, priced as `plan --tp N --pp 1` (default 1).
    #[arg(long)]
    pub tp: Option<String>,
    /// Prices for cost per token.
    #[command(flatten)]
    #[serde(flatten)]
    pub prices: super::price::PriceArgs,
}

impl Query for DecodeArgs {
    fn command(&self) -> &'static str {
        "decode"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

//! The flags `simulate`, `fleet` and `plan` share, declared once and
//! flattened into each (`#[command(flatten)]`, `#[serde(flatten)]`): the
//! deployment's engine, precisions, launch and reserve, and the serving
//! workload of `simulate` and `fleet`.

use clap::Args;
use serde::Serialize;

/// How each step runs: the engine, the precisions, the launch overhead and
/// the memory held back.
#[derive(Debug, Clone, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct DeployArgs {
    /// Serving engine id or path (default vllm; pytorch for the plain
    /// forward): the kernels each step runs and its all-reduce (`roofline
    /// engine list`).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Weight precision (default: the hardware's default-dtype).
    #[arg(long)]
    pub dtype: Option<String>,
    /// KV-cache precision (default bf16).
    #[arg(long)]
    pub kv_dtype: Option<String>,
    /// Activation precision (default: the hardware's default-dtype); fp8
    /// weights need fp8 activations to run at the fp8 peak.
    #[arg(long)]
    pub activations: Option<String>,
    /// Launch overhead per kernel: none (the default: speed of light),
    /// eager or graph (the default with --achievable).
    #[arg(long)]
    pub launch: Option<String>,
    /// Memory held back for activations and the runtime: a share (default
    /// 10%), or step: the runtime's measured footprint and the largest
    /// iteration's activations and logits (step:TOKENS,SEQS names it).
    #[arg(long)]
    pub reserve: Option<String>,
}

/// The serving workload `simulate` and `fleet` run: Poisson arrivals, the
/// lengths, the targets, the random stream and the KV blocks, with the
/// deployment's flags.
#[derive(Debug, Clone, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct WorkloadArgs {
    /// Poisson arrivals: requests per second (12/s, 720/min).
    #[arg(long)]
    pub rate: Option<String>,
    /// Prompt tokens: N, lognormal:MEAN,SIGMA or uniform:A..B.
    #[arg(long)]
    pub prompt: Option<String>,
    /// Output tokens: N, lognormal:MEAN,SIGMA or uniform:A..B.
    #[arg(long)]
    pub output: Option<String>,
    /// Share of each prompt already in the prefix cache (50% or 0.5).
    #[arg(long)]
    pub prefix_hit: Option<String>,
    /// Time-to-first-token target: 2s (p99) or p50=500ms.
    #[arg(long)]
    pub slo_ttft: Option<String>,
    /// Time-per-output-token target: 50ms (p99) or p90=40ms.
    #[arg(long)]
    pub slo_tpot: Option<String>,
    /// Seed of the random stream (default 0).
    #[arg(long)]
    pub seed: Option<String>,
    /// Tokens per KV block (default 16, vLLM's block_size).
    #[arg(long)]
    pub block_size: Option<String>,
    /// Redundant copies of hot experts over each expert group (default 0),
    /// as plan takes them.
    #[arg(long)]
    pub redundant_experts: Option<String>,
    /// Speculative decoding (MTP, EAGLE) on every decode step:
    /// ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST] (e.g. 0.8,3,0.05), as decode
    /// --speculative takes it.
    #[arg(long)]
    pub speculative: Option<String>,
    /// Allow requests beyond the model's maximum context.
    #[arg(long)]
    pub force: bool,
    /// The engine, precisions, launch and reserve.
    #[command(flatten)]
    #[serde(flatten)]
    pub deploy: DeployArgs,
}

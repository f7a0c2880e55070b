//! `plan`: a parallel layout's memory, communication and times; a search
//! over every valid layout; separate prefill and decode pools.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `plan` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 32
  roofline plan --model llama-3.1-70b --hw gb200 --devices 72 --tp 8 --dp 9 --batch 32
  roofline plan --model deepseek-v3 --hw h200-sxm --devices 32 --tp 4 --dp 8 --ep 32 --batch 16 --prompt 4096
  roofline plan --model deepseek-v3 --hw h200-sxm --devices 320 --tp 4 --dp 80 --ep 320 --redundant-experts 64 --batch 64
  roofline plan --model deepseek-v3 --hw h200-sxm --search --devices 1024 --objective throughput --batch 64
  roofline plan --model llama-3.1-70b --hw h200-sxm --search --devices 16 --objective goodput --slo-ttft 500ms --slo-tpot 50ms --batch 32
  roofline plan --model llama-3.1-70b --hw h200-sxm --disaggregate --prefill-devices 8 --decode-devices 16 --batch 32")]
pub struct PlanArgs {
    /// Model id (`roofline model list`) or path to a model .toml or a Hugging Face config.json.
    #[arg(long)]
    pub model: String,
    /// Hardware id or path; a comma-separated list compares several.
    #[arg(long)]
    pub hw: String,
    /// Devices in all (tp x pp x dp); required with --search.
    #[arg(long)]
    pub devices: Option<String>,
    /// Tensor-parallel degree (default 1).
    #[arg(long)]
    pub tp: Option<String>,
    /// Pipeline stages (default 1).
    #[arg(long)]
    pub pp: Option<String>,
    /// Data-parallel replicas (default: devices / (tp x pp)).
    #[arg(long)]
    pub dp: Option<String>,
    /// Expert-parallel degree of the MoE layers; divides tp x dp (default 1).
    #[arg(long)]
    pub ep: Option<String>,
    /// Redundant copies of hot experts over the expert group (default 0).
    #[arg(long)]
    pub redundant_experts: Option<String>,
    /// Sequences in flight per data-parallel replica (default 1).
    #[arg(long)]
    pub batch: Option<String>,
    /// Context tokens per sequence at the decode step (default 4096).
    #[arg(long)]
    pub context: Option<String>,
    /// Prompt tokens per sequence for prefill (default 1024).
    #[arg(long)]
    pub prompt: Option<String>,
    /// Pipeline microbatches (default: pp).
    #[arg(long)]
    pub microbatches: Option<String>,
    /// The engine, precisions, launch and reserve.
    #[command(flatten)]
    #[serde(flatten)]
    pub deploy: super::workload::DeployArgs,
    /// Let tensor parallelism cross the scale-up domain.
    #[arg(long)]
    pub allow_cross_node: bool,
    /// Enumerate every valid layout of --devices and rank them.
    #[arg(long, conflicts_with = "disaggregate")]
    pub search: bool,
    /// What --search ranks by: latency, throughput or goodput (default
    /// throughput).
    #[arg(long)]
    pub objective: Option<String>,
    /// Time-to-first-token target for goodput (e.g. 500ms; p99=500ms is
    /// accepted as in simulate: a step has one time).
    #[arg(long)]
    pub slo_ttft: Option<String>,
    /// Time-per-output-token target for goodput (e.g. 50ms, or p99=50ms).
    #[arg(long)]
    pub slo_tpot: Option<String>,
    /// Lay out separate prefill and decode pools.
    #[arg(long, requires_all = ["prefill_devices", "decode_devices"])]
    pub disaggregate: bool,
    /// Devices of the prefill pool.
    #[arg(long, requires = "disaggregate")]
    pub prefill_devices: Option<String>,
    /// Devices of the decode pool.
    #[arg(long, requires = "disaggregate")]
    pub decode_devices: Option<String>,
    /// Prices for cost per token.
    #[command(flatten)]
    #[serde(flatten)]
    pub prices: super::price::PriceArgs,
}

impl Query for PlanArgs {
    fn command(&self) -> &'static str {
        "plan"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

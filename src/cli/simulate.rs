//! `simulate`: one serving deployment, request by request.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `simulate` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline simulate --model llama-3-8b --hw h200-sxm --rate 12/s --prompt 2048 --output 256
  roofline simulate --model llama-3-8b --hw h200-sxm --rate 20/s --prompt lognormal:1024,0.4 --output uniform:100..500 --slo-ttft 2s --slo-tpot p50=30ms
  roofline simulate --model llama-3.1-70b --hw h200-sxm --tp 4 --concurrency 64 --prompt 1024 --output 300 --requests 2000
  roofline simulate --model llama-3-8b --hw h200-sxm --trace my-requests.csv --per-request --format csv
  roofline simulate --model llama-3-8b --hw h200-sxm --rate 30/s --prompt 2048 --output 256 --prefix-hit 50% --chart load.svg
  roofline simulate --model llama-3-8b --hw h200-sxm --rate 20/s --prompt 6000 --output 256 --prefill-dp 3 --dp 2 --slo-tpot 20ms

Arrivals: --rate (Poisson), --concurrency (closed loop) or --trace FILE (CSV with a
header naming arrival_s, prompt_tokens, output_tokens). Lengths: N, lognormal:MEAN,SIGMA
or uniform:A..B. SLOs: a bare time is a p99 target (2s); name the percentile as p50=500ms.
Disaggregated (any --prefill-* flag): prompts run on a prefill pool, their KV cache
crosses the scale-out fabric, and a decode pool runs decode-only steps.")]
pub struct SimulateArgs {
    /// Model id (`roofline model list`) or path to a model .toml or a Hugging Face config.json.
    #[arg(long)]
    pub model: String,
    /// Hardware id or path.
    #[arg(long)]
    pub hw: String,
    /// A closed loop: this many users, each sending its next request when
    /// the last one finishes.
    #[arg(long)]
    pub concurrency: Option<String>,
    /// A CSV trace: arrival_s, prompt_tokens, output_tokens per row.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<String>,
    /// The workload, and the engine, precisions, launch and reserve.
    #[command(flatten)]
    #[serde(flatten)]
    pub workload: super::workload::WorkloadArgs,
    /// Requests to simulate (default 10,000; a trace: its rows).
    #[arg(long)]
    pub requests: Option<String>,
    /// Token budget of one iteration (default 2,048 + max-seqs: a 2,048-token
    /// prompt whole beside a full batch of decodes).
    #[arg(long)]
    pub max_batched_tokens: Option<String>,
    /// Sequences one iteration holds (default 256, vLLM's max_num_seqs).
    #[arg(long)]
    pub max_seqs: Option<String>,
    /// Tensor parallelism of a replica (default 1).
    #[arg(long)]
    pub tp: Option<String>,
    /// Pipeline stages of a replica (default 1).
    #[arg(long)]
    pub pp: Option<String>,
    /// Expert parallelism (default 1).
    #[arg(long)]
    pub ep: Option<String>,
    /// Data-parallel replicas, requests routed among them at random
    /// (default 1).
    #[arg(long)]
    pub dp: Option<String>,
    /// Disaggregated: replicas of a separate prefill pool; --tp/--pp/--ep/--dp
    /// and --hw are then the decode pool's.
    #[arg(long, help_heading = "Disaggregated pools")]
    pub prefill_dp: Option<String>,
    /// Tensor parallelism of a prefill replica (default 1).
    #[arg(long, help_heading = "Disaggregated pools")]
    pub prefill_tp: Option<String>,
    /// Pipeline stages of a prefill replica (default 1).
    #[arg(long, help_heading = "Disaggregated pools")]
    pub prefill_pp: Option<String>,
    /// Expert parallelism of a prefill replica (default 1).
    #[arg(long, help_heading = "Disaggregated pools")]
    pub prefill_ep: Option<String>,
    /// The prefill pool's part (default: --hw).
    #[arg(long, help_heading = "Disaggregated pools")]
    pub prefill_hw: Option<String>,
    /// Token budget of a prefill iteration (default 2,048).
    #[arg(long, help_heading = "Disaggregated pools")]
    pub prefill_max_batched_tokens: Option<String>,
    /// One row per request (arrival, queue, TTFT, TPOT, E2E).
    #[arg(long)]
    pub per_request: bool,
    /// Set by --chart: keep the state over time.
    #[arg(skip)]
    pub timeline: bool,
    /// Prices for cost per token.
    #[command(flatten)]
    #[serde(flatten)]
    pub prices: super::price::PriceArgs,
}

impl Query for SimulateArgs {
    fn command(&self) -> &'static str {
        "simulate"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

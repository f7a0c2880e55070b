//! `fleet`: the fewest devices that meet the SLOs, and the frontier.

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `fleet` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline fleet --model llama-3.1-70b --hw h200-sxm,b200 --rate 40/s --prompt 2048 --output 300 --slo-ttft 2s --slo-tpot 50ms
  roofline fleet --model llama-3.1-70b --hw h200-sxm,b200 --joint --rate 40/s --prompt 2048 --output 300 --slo-ttft 2s --slo-tpot 50ms
  roofline fleet --model llama-3-8b --hw h200-sxm --rate 100/s --prompt lognormal:1024,0.5 --output 200 --slo-ttft p50=300ms --slo-tpot 30ms
  roofline fleet --model llama-3-8b --hw h200-sxm --rate 20/s --prompt 1024 --output 200 --slo-ttft 2s --slo-tpot 30ms --objective cost --price 3.50/h --energy-price 0.12/kWh
  roofline fleet --model llama-3.1-70b --hw h200-sxm --rate 10/s --prompt 2048 --output 300 --slo-tpot 50ms --pareto --chart frontier.svg
  roofline fleet --model llama-3-8b --hw h200-sxm,a100-sxm-80gb --joint --rate 8/s --prompt 8000 --output 192 --slo-ttft 2s --slo-tpot 4ms --max-devices 16 --requests 300

Every verdict is simulated (simulate's engine, one replica at the rate / replicas).
Beside aggregated replicas it searches disaggregated prefill and decode pools (each
its own part, layout and replicas; the KV cache moved over the scale-out NICs).
Several parts (--hw a,b) are searched one by one and answered side by side;
--joint searches them together, so one deployment may mix them.
SLOs: a bare time is a p99 target; name the percentile as p50=500ms.")]
pub struct FleetArgs {
    /// Model id (`roofline model list`) or path to a model .toml or a Hugging Face config.json.
    #[arg(long)]
    pub model: String,
    /// Hardware ids or paths, comma-separated: each part's own search, side
    /// by side (--joint searches them together).
    #[arg(long)]
    pub hw: String,
    /// Search the listed parts together: one deployment may mix them (a
    /// prefill pool of one part, a decode pool of another).
    #[arg(long)]
    pub joint: bool,
    /// The workload, and the engine, precisions, launch and reserve.
    #[command(flatten)]
    #[serde(flatten)]
    pub workload: super::workload::WorkloadArgs,
    /// Requests each simulated verdict runs (default 1,000).
    #[arg(long)]
    pub requests: Option<String>,
    /// The most devices a deployment may take (default 1,024).
    #[arg(long)]
    pub max_devices: Option<String>,
    /// Batch caps searched (default 16,32,64,128,256).
    #[arg(long)]
    pub caps: Option<String>,
    /// Token budgets searched (default 2,048 + the cap).
    #[arg(long)]
    pub budgets: Option<String>,
    /// What to minimise: devices (the default), energy (per output token)
    /// or cost (per million output tokens; needs --price and/or
    /// --energy-price).
    #[arg(long)]
    pub objective: Option<String>,
    /// Print the frontier of tokens/s per device against tokens/s per user
    /// (draw it with --chart).
    #[arg(long)]
    pub pareto: bool,
    /// Prices for cost per token.
    #[command(flatten)]
    #[serde(flatten)]
    pub prices: super::price::PriceArgs,
}

impl Query for FleetArgs {
    fn command(&self) -> &'static str {
        "fleet"
    }

    fn fields(&self) -> Result<Fields> {
        // The parts are compared (one search each) unless `joint` is set,
        // which the query reads (the same rule for Python and scenarios).
        flag_fields(self)
    }
}

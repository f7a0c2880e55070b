//! `speculative`: tokens per target pass and speedup of draft-then-verify
//! decoding (Leviathan et al. 2023).

use super::query::{Query, flag_fields};
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `speculative` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline speculative --acceptance 0.8 --draft-tokens 4          (3.36 tokens per pass)
  roofline speculative --acceptance 0.8 --draft-tokens 4 --draft-cost 0.05
  roofline speculative --acceptance 0.7 --draft-tokens 4 --sweep draft-tokens=1..16 --format csv
  roofline speculative --acceptance 0.8 --draft-tokens 4 --sweep acceptance=0.5,0.6,0.7,0.8,0.9")]
pub struct SpeculativeArgs {
    /// Probability a drafted token is accepted (0 to 1).
    #[arg(long)]
    pub acceptance: Option<String>,
    /// Tokens the draft proposes per pass (g).
    #[arg(long)]
    pub draft_tokens: Option<String>,
    /// Cost of one drafted token as a share of a target pass (c; default 0).
    #[arg(long)]
    pub draft_cost: Option<String>,
}

impl Query for SpeculativeArgs {
    fn command(&self) -> &'static str {
        "speculative"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

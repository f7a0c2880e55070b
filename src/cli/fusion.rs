//! `fusion softmax|chain|epilogue`: traffic and time of an unfused chain
//! against the fused kernel. Each pattern is a query over its fields; the
//! hardware defaults to the lecture's reference part.

use super::query::{Query, flag_fields};
use clap::{Args, Subcommand};
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// Examples for `fusion --help`.
pub const AFTER: &str = "\
Examples:
  roofline fusion softmax --rows 4096 --cols 4096 --dtype bf16 --hw h100-sxm
  roofline fusion chain --ops 3 --elements 134217728
  roofline fusion epilogue --tokens 32768 --width 11008 --layers 32";

/// Flags every fusion pattern takes.
#[derive(Debug, Clone, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Common {
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several (default: h100-sxm, the lecture's reference part).
    #[arg(long)]
    pub hw: Option<String>,
    /// Precision of the tensors (default: the hardware's).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Launch overhead per kernel, added to both sides, e.g. "5 us".
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub overhead: Option<String>,
}

/// `fusion softmax` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline fusion softmax --rows 4096 --cols 4096 --dtype bf16 --hw h100-sxm
  roofline fusion softmax --rows 4096 --cols 4096 --explain
  roofline fusion softmax --rows 4096 --cols 4096 --sweep cols=1024..16384 --format csv")]
pub struct SoftmaxArgs {
    /// Rows of the matrix (S for an S x S score matrix).
    #[arg(long)]
    pub rows: Option<String>,
    /// Columns (the softmax runs along a row).
    #[arg(long)]
    pub cols: Option<String>,
    /// Operations per element (default 5: max, subtract, exp, sum, divide).
    #[arg(long)]
    pub ops_per_element: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub common: Common,
}

/// `fusion chain` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline fusion chain --ops 3 --elements 134217728 --dtype bf16
  roofline fusion chain --ops 1 --inputs 2 --elements 131072 --overhead \"1 us\"   (a merge kernel: launch vs work)")]
pub struct ChainArgs {
    /// Elementwise kernels in the chain.
    #[arg(long)]
    pub ops: Option<String>,
    /// Elements of each tensor.
    #[arg(long)]
    pub elements: Option<String>,
    /// Tensors each kernel reads, the first being the previous output
    /// (default 1).
    #[arg(long)]
    pub inputs: Option<String>,
    /// FLOPs per element per kernel (default 1).
    #[arg(long)]
    pub flops_per_op: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub common: Common,
}

/// `fusion epilogue` flags.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline fusion epilogue --tokens 32768 --width 11008
  roofline fusion epilogue --tokens 32768 --width 11008 --layers 32 --explain")]
pub struct EpilogueArgs {
    /// Tokens (rows of the GEMM output).
    #[arg(long)]
    pub tokens: Option<String>,
    /// Width of the GEMM output (d_ff for an up-projection).
    #[arg(long)]
    pub width: Option<String>,
    /// Layers, for the total (default 1).
    #[arg(long)]
    pub layers: Option<String>,
    /// Activation operations per element (default 1).
    #[arg(long)]
    pub ops_per_element: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub common: Common,
}

/// `fusion` patterns.
#[derive(Debug, Subcommand)]
pub enum FusionCommand {
    /// Safe softmax: three kernels (5 traversals) against one (2).
    Softmax(SoftmaxArgs),
    /// A chain of elementwise kernels against one fused kernel.
    Chain(ChainArgs),
    /// An activation grafted onto a GEMM's epilogue.
    Epilogue(EpilogueArgs),
}

impl FusionCommand {
    /// The pattern as a query.
    pub fn query(&self) -> &dyn Query {
        match self {
            FusionCommand::Softmax(a) => a,
            FusionCommand::Chain(a) => a,
            FusionCommand::Epilogue(a) => a,
        }
    }
}

/// Each pattern is a query over its own flags.
macro_rules! pattern_query {
    ($args:ty, $name:literal) => {
        impl Query for $args {
            fn command(&self) -> &'static str {
                $name
            }

            fn fields(&self) -> Result<Fields> {
                flag_fields(self)
            }
        }
    };
}

pattern_query!(SoftmaxArgs, "fusion softmax");
pattern_query!(ChainArgs, "fusion chain");
pattern_query!(EpilogueArgs, "fusion epilogue");

//! `fusion softmax|chain|epilogue`: traffic and time of an unfused chain
//! against the fused kernel.

use super::Ctx;
use clap::{Args, Subcommand};
use roofline::calc::fusion::{self, FusionOptions};
use roofline::error::{Error, Result};
use roofline::report::Report;
use roofline::spec::hardware::Hardware;
use roofline::units::{self, Dim};

/// Examples for `fusion --help`.
pub const AFTER: &str = "\
Examples:
  roofline fusion softmax --rows 4096 --cols 4096 --dtype bf16 --hw h100-sxm
  roofline fusion chain --ops 3 --elements 134217728
  roofline fusion epilogue --tokens 32768 --width 11008 --layers 32";

/// Flags every fusion pattern takes.
#[derive(Debug, Clone, Args)]
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

/// `fusion` patterns.
#[derive(Debug, Subcommand)]
pub enum FusionCommand {
    /// Safe softmax: three kernels (5 traversals) against one (2).
    #[command(after_help = "Examples:
  roofline fusion softmax --rows 4096 --cols 4096 --dtype bf16 --hw h100-sxm
  roofline fusion softmax --rows 4096 --cols 4096 --explain
  roofline fusion softmax --rows 4096 --cols 4096 --sweep cols=1024..16384 --format csv")]
    Softmax {
        /// Rows of the matrix (S for an S x S score matrix).
        #[arg(value_parser = crate::cli::count, long)]
        rows: u64,
        /// Columns (the softmax runs along a row).
        #[arg(value_parser = crate::cli::count, long)]
        cols: u64,
        /// Operations per element (max, subtract, exp, sum, divide).
        #[arg(long, default_value_t = 5.0)]
        ops_per_element: f64,
        #[command(flatten)]
        common: Common,
    },
    /// A chain of elementwise kernels against one fused kernel.
    #[command(after_help = "Examples:
  roofline fusion chain --ops 3 --elements 134217728 --dtype bf16
  roofline fusion chain --ops 1 --inputs 2 --elements 131072 --overhead \"1 us\"   (a merge kernel: launch vs work)")]
    Chain {
        /// Elementwise kernels in the chain.
        #[arg(value_parser = crate::cli::count, long)]
        ops: u64,
        /// Elements of each tensor.
        #[arg(value_parser = crate::cli::count, long)]
        elements: u64,
        /// Tensors each kernel reads (the first is the previous output).
        #[arg(value_parser = crate::cli::count, long, default_value_t = 1)]
        inputs: u64,
        /// FLOPs per element per kernel.
        #[arg(long, default_value_t = 1.0)]
        flops_per_op: f64,
        #[command(flatten)]
        common: Common,
    },
    /// An activation grafted onto a GEMM's epilogue.
    #[command(after_help = "Examples:
  roofline fusion epilogue --tokens 32768 --width 11008
  roofline fusion epilogue --tokens 32768 --width 11008 --layers 32 --explain")]
    Epilogue {
        /// Tokens (rows of the GEMM output).
        #[arg(value_parser = crate::cli::count, long)]
        tokens: u64,
        /// Width of the GEMM output (d_ff for an up-projection).
        #[arg(value_parser = crate::cli::count, long)]
        width: u64,
        /// Layers, for the total.
        #[arg(value_parser = crate::cli::count, long, default_value_t = 1)]
        layers: u64,
        /// Activation operations per element.
        #[arg(long, default_value_t = 1.0)]
        ops_per_element: f64,
        #[command(flatten)]
        common: Common,
    },
}

fn options(c: &Common, ctx: &Ctx) -> Result<FusionOptions> {
    let overhead_s = c
        .overhead
        .as_deref()
        .map(|t| units::parse(t, Dim::Seconds).map_err(|e| Error::input("--overhead", e)))
        .transpose()?;
    if let (Some(o), Some(t)) = (overhead_s, c.overhead.as_deref())
        && o < 0.0
    {
        return Err(Error::input(
            "--overhead",
            format!("`{t}` is negative; must be zero or more"),
        ));
    }
    Ok(FusionOptions {
        dtype: c.dtype.clone(),
        mode: ctx.mode,
        overhead_s,
    })
}

/// Runs a `fusion` pattern once per hardware.
pub fn run(c: &FusionCommand, ctx: &Ctx) -> Result<Vec<Report>> {
    match c {
        FusionCommand::Softmax {
            rows,
            cols,
            ops_per_element,
            common,
        } => each(common, ctx, |h, o| {
            fusion::softmax(h, *rows, *cols, *ops_per_element, o)
        }),
        FusionCommand::Chain {
            ops,
            elements,
            inputs,
            flops_per_op,
            common,
        } => each(common, ctx, |h, o| {
            fusion::chain(h, *ops, *elements, *inputs, *flops_per_op, o)
        }),
        FusionCommand::Epilogue {
            tokens,
            width,
            layers,
            ops_per_element,
            common,
        } => each(common, ctx, |h, o| {
            fusion::epilogue(h, *tokens, *width, *layers, *ops_per_element, o)
        }),
    }
}

/// Runs one fusion pattern on each `--hw` (or the default hardware).
fn each(
    common: &Common,
    ctx: &Ctx,
    f: impl Fn(&Hardware, &FusionOptions) -> Result<Report>,
) -> Result<Vec<Report>> {
    let o = options(common, ctx)?;
    let hw = common.hw.as_deref();
    Ctx::noted_default(
        hw,
        ctx.hardware_or_default(hw)?
            .iter()
            .map(|h| f(h, &o))
            .collect(),
    )
}

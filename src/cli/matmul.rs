//! `matmul`: naive, tiled and L2-level GEMM traffic, the lower-bound time,
//! feasibility, waves and tensor-core row utilisation, as a query over
//! input fields.

use super::query::{Query, flag_fields};

use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

const AFTER: &str = "\
Examples:
  roofline matmul --hw h100-sxm --m 4096 --n 4096 --k 4096 --tile 128
  roofline matmul --m 8192 --n 8192 --k 8192 --tile 256 --explain
  roofline matmul --m 1 --n 4096 --k 4096 --tile 128 --mma m16n8k16   # decode: 6.25% of MMA rows
  roofline matmul --m 4096 --n 4096 --k 4096 --sweep tile=32..256 --format csv
  roofline matmul --m 4096 --n 4096 --k 4096 --tiles none --format csv  # results, no table
  roofline matmul --hw h200-sxm --m 8192 --n 8192 --k 8192 --achievable --price 2.50/h   # at the 700 W limit
  roofline matmul --hw h100-sxm --solve ridge                     # the n at which a square bf16 matmul reaches the ridge: 885.7

time_s is a lower bound: max(FLOPs / peak, traffic / bandwidth), the traffic
counting the L2 (resident programs share A and B panels), never below each
operand once plus the output; traffic_level names the level that sets it and
tile_time_s keeps the single-tile time. With --achievable, time_s adds the
output write to the compute time.

--tile T sets --tile-m and --tile-n; a tile larger than the matrix is clamped to it.
tile-k defaults to 64 and stages to 2 (double buffering); waves assume one
resident program per SM (--programs-per-sm).";

/// `matmul` flags. Every input is a field of
/// [`roofline::calc::matmul::MatmulInputs`]; defaults live there.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = AFTER)]
pub struct MatmulArgs {
    /// A measured time (e.g. 1.2ms): the achieved rates and their shares
    /// of the roofs (mfu, mbu).
    #[arg(long, allow_hyphen_values = true)]
    pub measured: Option<String>,
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several (default: h100-sxm, the lecture's reference part).
    #[arg(long)]
    pub hw: Option<String>,
    /// Rows of A and C (tokens in a linear layer); required.
    #[arg(long, required_unless_present = "solve")]
    pub m: Option<String>,
    /// Columns of B and C; required.
    #[arg(long, required_unless_present = "solve")]
    pub n: Option<String>,
    /// The contraction dimension; required.
    #[arg(long, required_unless_present = "solve")]
    pub k: Option<String>,
    /// Square tile: sets --tile-m and --tile-n [default: 128].
    #[arg(long)]
    pub tile: Option<String>,
    /// Tile rows (BLOCK_M); overrides --tile.
    #[arg(long)]
    pub tile_m: Option<String>,
    /// Tile columns (BLOCK_N); overrides --tile.
    #[arg(long)]
    pub tile_n: Option<String>,
    /// K chunk per loop step (BLOCK_K); must divide K [default: 64, halved
    /// until it divides K].
    #[arg(long)]
    pub tile_k: Option<String>,
    /// Shared-memory pipeline stages (2 = double buffering) [default: 2].
    #[arg(long)]
    pub stages: Option<String>,
    /// Precision of A and B (default: the hardware's).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Programs resident per SM, for waves [default: 1].
    #[arg(long)]
    pub programs_per_sm: Option<String>,
    /// Threads per program, for the register micro-tile [default: 256].
    #[arg(long)]
    pub threads: Option<String>,
    /// Tensor-core instruction shape for row utilisation: m16n8k16,
    /// m64nNk16 (wgmma), m64n256k16, ...
    #[arg(long, value_name = "SHAPE")]
    pub mma: Option<String>,
    /// Square tiles for the table rows, comma-separated, or `none` (then
    /// --format csv prints the results instead of the table) [default:
    /// 32,64,128,256].
    #[arg(long, value_name = "LIST")]
    pub tiles: Option<String>,
    /// Solve instead of costing a shape: `ridge`, the n at which a square
    /// n x n x n matmul (minimal traffic) reaches the part's ridge at
    /// --dtype; takes no shape.
    #[arg(long, value_name = "WHAT", value_parser = ["ridge"])]
    pub solve: Option<String>,
    /// With --achievable: the launch, none, graph or eager [default: eager,
    /// one call from Python].
    #[arg(long)]
    pub launch: Option<String>,
    /// Prices for cost per token.
    #[command(flatten)]
    #[serde(flatten)]
    pub prices: super::price::PriceArgs,
}

impl Query for MatmulArgs {
    fn command(&self) -> &'static str {
        "matmul"
    }

    fn fields(&self) -> Result<Fields> {
        flag_fields(self)
    }
}

//! `matmul`: naive and tiled GEMM traffic, feasibility, waves and
//! tensor-core row utilisation.

use super::Ctx;
use clap::Args;
use roofline::calc::matmul::{self, MatmulParams};
use roofline::error::{Error, Result};
use roofline::report::Report;

const AFTER: &str = "\
Examples:
  roofline matmul --hw h100-sxm --m 4096 --n 4096 --k 4096 --tile 128
  roofline matmul --m 8192 --n 8192 --k 8192 --tile 256 --explain
  roofline matmul --m 1 --n 4096 --k 4096 --tile 128 --mma m16n8k16   (decode: 6.25% of MMA rows)
  roofline matmul --m 4096 --n 4096 --k 4096 --sweep tile=32..256 --format csv
  roofline matmul --m 4096 --n 4096 --k 4096 --tiles none --format csv  (results, no table)

--tile T sets --tile-m and --tile-n; a tile larger than the matrix is clamped to it.
tile-k defaults to 64 and stages to 2 (double buffering); waves assume one
resident program per SM (--programs-per-sm).";

/// `matmul` flags.
#[derive(Debug, Args)]
#[command(after_help = AFTER)]
pub struct MatmulArgs {
    /// Catalog id or path to a .toml file; a comma-separated list compares
    /// several (default: h100-sxm, the lecture's reference part).
    #[arg(long)]
    pub hw: Option<String>,
    /// Rows of A and C (tokens in a linear layer).
    #[arg(value_parser = crate::cli::count, long)]
    pub m: u64,
    /// Columns of B and C.
    #[arg(value_parser = crate::cli::count, long)]
    pub n: u64,
    /// The contraction dimension.
    #[arg(value_parser = crate::cli::count, long)]
    pub k: u64,
    /// Square tile: sets --tile-m and --tile-n.
    #[arg(value_parser = crate::cli::count, long, default_value_t = 128)]
    pub tile: u64,
    /// Tile rows (BLOCK_M); overrides --tile.
    #[arg(value_parser = crate::cli::count, long)]
    pub tile_m: Option<u64>,
    /// Tile columns (BLOCK_N); overrides --tile.
    #[arg(value_parser = crate::cli::count, long)]
    pub tile_n: Option<u64>,
    /// K chunk per loop step (BLOCK_K); must divide K [default: 64].
    #[arg(value_parser = crate::cli::count, long)]
    pub tile_k: Option<u64>,
    /// Shared-memory pipeline stages (2 = double buffering).
    #[arg(value_parser = crate::cli::count, long, default_value_t = 2)]
    pub stages: u64,
    /// Precision of A and B (default: the hardware's).
    #[arg(long)]
    pub dtype: Option<String>,
    /// Programs resident per SM, for waves.
    #[arg(value_parser = crate::cli::count, long, default_value_t = 1)]
    pub programs_per_sm: u64,
    /// Threads per program, for the register micro-tile.
    #[arg(value_parser = crate::cli::count, long, default_value_t = 256)]
    pub threads: u64,
    /// Tensor-core instruction shape for row utilisation: m16n8k16,
    /// m64nNk16 (wgmma), m64n256k16, ...
    #[arg(long, value_name = "SHAPE")]
    pub mma: Option<String>,
    /// Square tiles for the table rows, comma-separated, or `none` (then
    /// --format csv prints the results instead of the table).
    #[arg(long, default_value = "32,64,128,256", value_name = "LIST")]
    pub tiles: String,
}

fn tiles(list: &str) -> Result<Vec<u64>> {
    if list.trim() == "none" {
        return Ok(Vec::new());
    }
    list.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| match t.parse::<u64>() {
            Ok(0) => Err(Error::input("--tiles", "a tile of 0; tiles are at least 1")),
            Ok(v) => Ok(v),
            Err(_) => Err(Error::input(
                "--tiles",
                format!("`{t}` is not a tile size; expected e.g. 32,64,128,256 or none"),
            )),
        })
        .collect()
}

/// Runs `matmul` once per hardware.
pub fn run(a: &MatmulArgs, ctx: &Ctx) -> Result<Vec<Report>> {
    if a.tile == 0 {
        return Err(Error::input("--tile", "must be at least 1"));
    }
    let p = MatmulParams {
        m: a.m,
        n: a.n,
        k: a.k,
        tile_m: a.tile_m.unwrap_or(a.tile),
        tile_n: a.tile_n.unwrap_or(a.tile),
        tile_k: a.tile_k,
        stages: a.stages,
        programs_per_sm: a.programs_per_sm,
        threads: a.threads,
        mma: a.mma.clone(),
        dtype: a.dtype.clone(),
        mode: ctx.mode,
        table_tiles: tiles(&a.tiles)?,
    };
    let hw = a.hw.as_deref();
    Ctx::noted_default(
        hw,
        ctx.hardware_or_default(hw)?
            .iter()
            .map(|h| matmul::matmul(h, &p))
            .collect(),
    )
}

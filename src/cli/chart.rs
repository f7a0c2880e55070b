//! `chart KIND ... --out FILE` and the global `--chart FILE` of a sweep:
//! the flags become chart data through the library, the library draws the
//! bytes, and the binary writes them (to standard output for `--out -`).

use super::query::{as_flags, put};
use super::{Global, context};
use clap::{Args, Subcommand};
use roofline::calc::decode::DecodeInputs;
use roofline::calc::matmul::MatmulInputs;
use roofline::chart::{
    self, Chart, ChartFormat, DecodeData, OccupancyData, RooflineData, SweepData, TilesData,
    roofline::KernelMark,
};
use roofline::error::{Error, Result};
use roofline::inputs::{Fields, from_fields};
use roofline::query::Context;
use roofline::report::Report;
use std::path::{Path, PathBuf};

/// The kinds of chart.
#[derive(Debug, Subcommand)]
pub enum ChartCommand {
    /// Log-log roofline: one roof per accelerator and precision, ridge
    /// points marked, kernels as labelled intensities; with --achievable
    /// the measured roofs dashed beside the datasheet ones.
    #[command(after_help = "Examples:
  roofline chart roofline --hw h100-sxm,b200,mi355x,tpu7x,trainium3 --out my-roofline.svg
  roofline chart roofline --hw h100-sxm,b200 --dtype bf16,fp8 --point \"decode:1\" --point \"prefill 4K:4100\" --out my-roofline.png
  roofline chart roofline --hw h200-sxm --dtype bf16,fp8 --achievable --out my-h200.svg")]
    Roofline(RooflineArgs),
    /// Occupancy against registers per thread, block size and shared
    /// memory per block (the three graphs of NVIDIA's occupancy
    /// calculator), the given configuration marked.
    #[command(after_help = "Example:
  roofline chart occupancy --hw h100-sxm --threads 256 --regs 64 --smem 32KiB --out my-occupancy.svg")]
    Occupancy(OccupancyArgs),
    /// A tiled matmul's HBM traffic and time against the square tile
    /// size, with the compute floor and the shared-memory and register
    /// limits.
    #[command(after_help = "Example:
  roofline chart tiles --hw h100-sxm --m 4096 --n 4096 --k 4096 --out my-tiles.svg")]
    Tiles(TilesArgs),
    /// Decode throughput per device against speed per user as the batch
    /// grows (1, 2, 4, ... until the KV cache is full), one curve per
    /// accelerator; memory- and compute-bound steps marked apart.
    #[command(after_help = "Example:
  roofline chart decode --model llama-3-8b --hw h100-sxm,h200-sxm,b200,mi355x --out my-decode.svg")]
    Decode(DecodeArgs),
}

/// `chart decode` flags.
#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// The model: catalog id or path.
    #[arg(long)]
    pub model: String,
    /// Accelerators: comma-separated catalog ids or .toml paths.
    #[arg(long)]
    pub hw: String,
    /// Tokens cached per sequence [default: 2048].
    #[arg(long)]
    pub context: Option<String>,
    /// Weight precision (default: the hardware's default-dtype).
    #[arg(long)]
    pub dtype: Option<String>,
    /// KV precision (default bf16).
    #[arg(long)]
    pub kv_dtype: Option<String>,
    /// Launch overhead: none, eager or graph (as `decode --launch`).
    #[arg(long)]
    pub launch: Option<String>,
    /// The largest batch drawn [default: 1024]; a curve ends earlier where
    /// the KV cache is full.
    #[arg(long)]
    pub max_batch: Option<String>,
    /// The file to write: .svg or .png; `-` writes SVG to standard output.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `chart roofline` flags.
#[derive(Debug, Args)]
pub struct RooflineArgs {
    /// Accelerators: comma-separated catalog ids or .toml paths.
    #[arg(long)]
    pub hw: String,
    /// Precisions, comma-separated (default: each part's default-dtype).
    #[arg(long)]
    pub dtype: Option<String>,
    /// A kernel to mark: LABEL:INTENSITY in FLOP/byte, or LABEL:FLOPS/BYTES
    /// with units (repeatable), e.g. "decode:1", "prefill 4K:4100",
    /// "gemm:137.4GFLOP/2.15GB".
    #[arg(long = "point", value_name = "LABEL:INTENSITY")]
    pub points: Vec<String>,
    /// A kernel to mark from a saved answer: the JSON of `roofline point`,
    /// `matmul` or `fusion ... --format json` (repeatable).
    #[arg(long = "from", value_name = "FILE.json")]
    pub from: Vec<PathBuf>,
    /// The file to write: .svg or .png (at least 1,000 px wide); `-` writes
    /// SVG to standard output.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `chart occupancy` flags.
#[derive(Debug, Args)]
pub struct OccupancyArgs {
    /// An NVIDIA GPU: catalog id or .toml path.
    #[arg(long)]
    pub hw: String,
    /// Threads per block [default: 256].
    #[arg(long)]
    pub threads: Option<String>,
    /// Registers per thread [default: 32].
    #[arg(long)]
    pub regs: Option<String>,
    /// Dynamic shared memory per block (e.g. 32KiB; a bare number is
    /// bytes) [default: 0].
    #[arg(long)]
    pub smem: Option<String>,
    /// The file to write: .svg or .png; `-` writes SVG to standard output.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `chart tiles` flags.
#[derive(Debug, Args)]
pub struct TilesArgs {
    /// Accelerator: catalog id or .toml path [default: h100-sxm].
    #[arg(long)]
    pub hw: Option<String>,
    /// Rows of A and C.
    #[arg(long)]
    pub m: Option<String>,
    /// Columns of B and C.
    #[arg(long)]
    pub n: Option<String>,
    /// The contraction dimension.
    #[arg(long)]
    pub k: Option<String>,
    /// K chunk per loop step [default: 64, halved until it divides K].
    #[arg(long)]
    pub tile_k: Option<String>,
    /// Shared-memory pipeline stages [default: 2].
    #[arg(long)]
    pub stages: Option<String>,
    /// Precision of A and B (default: the hardware's).
    #[arg(long)]
    pub dtype: Option<String>,
    /// The file to write: .svg or .png; `-` writes SVG to standard output.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// A drawn chart and where it goes.
pub struct ChartOut {
    /// The file (`-` for standard output).
    pub path: PathBuf,
    /// SVG text or PNG bytes.
    pub bytes: Vec<u8>,
    /// What was left out and why, for standard error.
    pub notes: Vec<String>,
}

/// Runs `chart KIND`, or returns `None` when the parsed command line is
/// not one.
pub fn run_chart(cli: &super::Cli, argv: &[String]) -> Option<anyhow::Result<ChartOut>> {
    let super::Command::Chart(super::OnDemand(cmd)) = &*cli.command else {
        return None;
    };
    // The file is checked before the chart is drawn.
    let checked = super::output::check(argv, &super::targets(cli));
    Some(
        checked
            .and_then(|()| draw(cmd, &cli.global))
            .map_err(|e| as_flags(e).into()),
    )
}

/// Draws `chart KIND`.
pub fn draw(cmd: &ChartCommand, g: &Global) -> Result<ChartOut> {
    if g.chart.is_some() || g.y.is_some() {
        return Err(Error::usage(
            "--chart",
            "`chart KIND` writes its chart with --out; --chart and --y draw a --sweep of another command",
        ));
    }
    if !g.sweep.is_empty() {
        return Err(Error::usage(
            "--sweep",
            "a chart draws its own ranges; sweep a command and add --chart FILE to draw the sweep",
        ));
    }
    let ctx = context(g)?;
    let (chart, out) = match cmd {
        ChartCommand::Roofline(a) => {
            let format = ChartFormat::from_path(&a.out, "out")?;
            let hw = ctx.hardware(&a.hw)?;
            let dtypes: Vec<String> = a
                .dtype
                .as_deref()
                .map(|d| {
                    d.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default();
            let mut kernels = a
                .points
                .iter()
                .map(|p| KernelMark::parse(p))
                .collect::<Result<Vec<_>>>()?;
            for f in &a.from {
                let name = f.display().to_string();
                let text = std::fs::read_to_string(f).map_err(|e| Error::Io {
                    path: name.clone(),
                    source: e,
                })?;
                let json: serde_json::Value = serde_json::from_str(&text)
                    .map_err(|e| Error::field("from", format!("{name}: not JSON ({e})")))?;
                kernels.push(KernelMark::from_report(&json, &name)?);
            }
            let data = RooflineData::build(
                &hw,
                &dtypes,
                kernels,
                ctx.mode == roofline::spec::hardware::Mode::Achievable,
            )?;
            ((Chart::Roofline(data), format), &a.out)
        }
        ChartCommand::Occupancy(a) => {
            let format = ChartFormat::from_path(&a.out, "out")?;
            let mut f = Fields::new();
            put(&mut f, "threads", a.threads.as_deref());
            put(&mut f, "regs", a.regs.as_deref());
            put(&mut f, "smem", a.smem.as_deref());
            let hw = single(&ctx, &a.hw)?;
            let data = OccupancyData::build(&hw, &from_fields(&f)?)?;
            ((Chart::Occupancy(data), format), &a.out)
        }
        ChartCommand::Tiles(a) => {
            let format = ChartFormat::from_path(&a.out, "out")?;
            let mut f = Fields::new();
            put(&mut f, "m", a.m.as_deref());
            put(&mut f, "n", a.n.as_deref());
            put(&mut f, "k", a.k.as_deref());
            put(&mut f, "tile-k", a.tile_k.as_deref());
            put(&mut f, "stages", a.stages.as_deref());
            put(&mut f, "dtype", a.dtype.as_deref());
            let hw = single(&ctx, a.hw.as_deref().unwrap_or(super::DEFAULT_HW))?;
            let inputs: MatmulInputs = from_fields(&f)?;
            let data = TilesData::build(&hw, &inputs, ctx.mode)?;
            ((Chart::Tiles(data), format), &a.out)
        }
        ChartCommand::Decode(a) => {
            let format = ChartFormat::from_path(&a.out, "out")?;
            let mut f = Fields::new();
            put(&mut f, "batch", Some("1"));
            put(
                &mut f,
                "context",
                Some(a.context.as_deref().unwrap_or("2048")),
            );
            put(&mut f, "dtype", a.dtype.as_deref());
            put(&mut f, "kv-dtype", a.kv_dtype.as_deref());
            put(&mut f, "launch", a.launch.as_deref());
            let inputs: DecodeInputs = from_fields(&f)?;
            let max_batch = match a.max_batch.as_deref() {
                None => 1024,
                Some(t) => {
                    roofline::inputs::parse_count(t).map_err(|e| Error::field("max-batch", e))?
                }
            };
            let mut models = ctx.models(&a.model)?;
            if models.len() > 1 {
                return Err(Error::input(
                    "--model",
                    "this chart is of one model; give one id",
                ));
            }
            let hw = ctx.hardware(&a.hw)?;
            let model = models.remove(0);
            let mut data = DecodeData::build(&model, &hw, &inputs, max_batch, ctx.mode)?;
            // What reading the model assumed (a Hugging Face config without
            // num_key_value_heads) shapes the chart too.
            data.notes.extend(model.notes.iter().cloned());
            ((Chart::Decode(data), format), &a.out)
        }
    };
    ctx.check_sets_used()?;
    let notes = match &chart.0 {
        Chart::Roofline(d) => d.notes.clone(),
        Chart::Decode(d) => d.notes.clone(),
        _ => Vec::new(),
    };
    Ok(ChartOut {
        path: out.clone(),
        bytes: chart::render(&chart.0, chart.1)?,
        notes,
    })
}

/// One accelerator: a list is refused (these charts are of one part).
fn single(ctx: &Context, list: &str) -> Result<roofline::spec::hardware::Hardware> {
    let mut hw = ctx.hardware(list)?;
    if hw.len() > 1 {
        return Err(Error::input(
            "--hw",
            "this chart is of one accelerator; give one id (chart roofline compares several)",
        ));
    }
    Ok(hw.remove(0))
}

/// The chart flags judged by themselves: checked before a query runs, so
/// a slip is said before a million-point sweep is worked (and streamed),
/// not after (issue 55).
pub fn check_flags(g: &Global) -> Result<()> {
    let Some(path) = &g.chart else {
        if g.y.is_some() {
            return Err(Error::usage(
                "--y",
                "--y chooses what --chart FILE draws; give --chart too",
            ));
        }
        return Ok(());
    };
    if path == Path::new("-") && matches!(g.format, super::FormatArg::Json | super::FormatArg::Csv)
    {
        return Err(Error::usage(
            "--chart",
            "`--chart -` writes the chart to standard output, where the JSON or CSV goes too; give --chart a file name",
        ));
    }
    Ok(())
}

/// The chart of a sweep for the global `--chart FILE`: the results named
/// by `--y` (or the command's usual ones) against the swept input.
pub fn sweep_chart(g: &Global, reports: &[Report]) -> anyhow::Result<Option<ChartOut>> {
    check_flags(g)?;
    let Some(path) = &g.chart else {
        return Ok(None);
    };
    let inner = || -> Result<ChartOut> {
        let format = ChartFormat::from_path(path, "chart")?;
        // One report is drawn as it is: a sweep's kept rows are not copied.
        let report = if reports.len() == 1 {
            std::borrow::Cow::Borrowed(&reports[0])
        } else {
            std::borrow::Cow::Owned(super::combine_points(reports.to_vec()))
        };
        let keys: Vec<String> =
            g.y.as_deref()
                .map(|y| {
                    y.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default();
        let data = SweepData::from_report(&report, &keys)?;
        Ok(ChartOut {
            path: path.clone(),
            bytes: chart::render(&Chart::Sweep(data), format)?,
            notes: Vec::new(),
        })
    };
    inner().map(Some).map_err(|e| as_flags(e).into())
}

/// Writes a chart; standard output for `-`. Notes go to standard error.
pub fn write(out: &ChartOut) -> Result<()> {
    use std::io::Write;
    for n in &out.notes {
        eprintln!("note: {n}");
    }
    if out.path == Path::new("-") {
        let mut o = super::output::stdout();
        return match o.write_all(&out.bytes).and_then(|()| o.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Write {
                path: "standard output".into(),
                source: e,
            }),
            _ => Ok(()),
        };
    }
    super::output::write_atomic(&out.path, &out.bytes).map_err(|e| Error::Write {
        path: format!("the chart to {}", out.path.display()),
        source: e,
    })
}

//! Command-line definitions (clap) and the glue that turns parsed arguments
//! into library calls. Each command's glue is in its own file.

mod expand;
mod fleet;
mod fusion;
mod hw;
mod launch;
mod list;
mod matmul;
mod model;
pub mod query;

mod calc;
mod calibrate;
pub mod chart;
mod coalesce;
mod collective;
mod confine;
mod declared;
mod decode;
mod dtype;
mod engine;
pub mod entry;
mod kv;
mod littles_law;
mod occupancy;
pub mod output;
mod plan;
mod point;
mod prefill;
mod price;
pub mod run;
mod shell;
mod simulate;
mod speculative;
mod tree;

use clap::{Args, Parser, Subcommand, ValueEnum};
use roofline::catalog::Catalog;
use roofline::error::{Error, Result};
use roofline::query::Context;
use roofline::render::Format;
use roofline::report::Report;
use roofline::spec::hardware::Mode;
use std::path::PathBuf;

use query::Query;
use tree::OnDemand;

const ABOUT: &str =
    "An analytical performance-model calculator for accelerator kernels and LLM inference.";

const AFTER: &str = "\
Examples:
  roofline hw list
  roofline hw show h100-sxm --dtype fp8 --format json
  roofline hw show h100-sxm --set memory.hbm-bandwidth=\"4.8 TB/s\"
  roofline model show llama-3-8b --sweep dtype=bf16,fp8,int4

Exit codes: 0 success, 1 no answer, 2 bad usage, 65 bad data, 74 I/O error.";

/// The whole command line.
#[derive(Debug, Parser)]
#[command(name = "roofline", version, about = ABOUT, after_help = AFTER)]
pub struct Cli {
    /// Flags every command takes.
    #[command(flatten)]
    pub global: Global,
    /// The command.
    #[command(subcommand)]
    pub command: tree::Root<Command>,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Boxed tables.
    Table,
    /// One JSON object, base units.
    Json,
    /// Comma-separated values, base units.
    Csv,
    /// Markdown tables.
    Markdown,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Markdown => Format::Markdown,
        }
    }
}

/// Flags shared by every command.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Common options")]
pub struct Global {
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    /// Print each result's derivation with the numbers substituted.
    #[arg(long, global = true)]
    pub explain: bool,
    /// Override a hardware or model field for a what-if, e.g.
    /// memory.hbm-bandwidth="4.8 TB/s" (kebab-case path, as in the files).
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Vary an input (a flag's name without dashes): NAME=a,b,c (list),
    /// NAME=lo..hi (powers of two) or NAME=lo..hi:step (linear); repeat for
    /// a grid. One row per point.
    #[arg(long, global = true, value_name = "NAME=VALUES")]
    pub sweep: Vec<String>,
    /// Tables show every intermediate result, not only the answer and the
    /// figures that decide it (JSON and CSV always carry every result).
    #[arg(long, global = true)]
    pub all: bool,
    /// Use the hardware file's measured (achievable) figures instead of the
    /// datasheet's speed-of-light ones.
    #[arg(long, global = true)]
    pub achievable: bool,
    /// Extra folder of hardware files (overrides built-ins with the same id).
    #[arg(long, global = true, env = "ROOFLINE_HW_DIR", value_name = "DIR")]
    pub hw_dir: Option<PathBuf>,
    /// Extra folder of model files.
    #[arg(long, global = true, env = "ROOFLINE_MODEL_DIR", value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// Extra folder of engine files (overrides built-ins with the same id).
    #[arg(long, global = true, env = "ROOFLINE_ENGINE_DIR", value_name = "DIR")]
    pub engine_dir: Option<PathBuf>,
    /// Also draw to FILE (.svg or .png): a --sweep against its swept input,
    /// one series per --hw or --model item; simulate draws its run over
    /// time, fleet --pareto its frontier, without a sweep.
    #[arg(long, global = true, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    /// The results --chart draws, comma-separated JSON keys (default: the
    /// command's headline result).
    #[arg(long, global = true, value_name = "KEYS")]
    pub y: Option<String>,
}

/// The commands. Each one's flags are built only when the command line
/// names it or needs the whole tree ([`tree`]).
// One value a process, parsed once: the variants' sizes cost nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The hardware catalog: list accelerators or show one's numbers.
    #[command(subcommand)]
    Hw(OnDemand<hw::HwCommand>),
    /// The model catalog: list models or show one's parameters and KV size.
    #[command(subcommand)]
    Model(OnDemand<model::ModelCommand>),
    /// The serving engines: list them or show one's profile (the kernels
    /// a step runs, its all-reduce).
    #[command(subcommand)]
    Engine(OnDemand<engine::EngineCommand>),
    /// Where a kernel sits on the roofline: ridge point, attainable
    /// throughput, bound and time.
    Point(OnDemand<point::PointArgs>),
    /// Resident blocks per SM under each limit, the binding one, occupancy
    /// (NVIDIA's occupancy-calculator rules; --textbook for the lecture's
    /// simplified arithmetic).
    Occupancy(OnDemand<occupancy::OccupancyArgs>),
    /// Bytes moved for bytes used by one warp's strided load, at a segment,
    /// sector or DRAM-fetch granularity.
    Coalesce(OnDemand<coalesce::CoalesceArgs>),
    /// Little's law: bytes and loads in flight to saturate memory, per SM
    /// against the warp budget; the pointer-chase corollary.
    LittlesLaw(OnDemand<littles_law::LittlesLawArgs>),
    /// Naive and tiled matmul: traffic, intensity, time, tile feasibility,
    /// waves, tensor-core row utilisation.
    Matmul(OnDemand<matmul::MatmulArgs>),
    /// Traffic and time of an unfused chain against the fused kernel.
    #[command(subcommand, after_help = fusion::AFTER)]
    Fusion(OnDemand<fusion::FusionCommand>),
    /// Launch overhead per step, eager against CUDA graphs, and what fusing
    /// to fewer kernels saves.
    Launch(OnDemand<launch::LaunchArgs>),
    /// One collective (all-reduce, all-gather, reduce-scatter, all-to-all,
    /// send-recv) over N devices on the fabric tiers: bus bytes, bandwidth
    /// and latency terms, time, algorithm.
    Collective(OnDemand<collective::CollectiveArgs>),
    // A parallel layout: its summary and flags are declared in the library.
    #[command(about = roofline::query::declared::PLAN.summary)]
    Plan(OnDemand<plan::PlanArgs>),
    /// KV-cache bytes per token, layer, sequence and batch; with --hw the
    /// batch and context that fit beside the weights.
    Kv(OnDemand<kv::KvArgs>),
    // One decode step: its summary and flags are declared in the library.
    #[command(about = roofline::query::declared::DECODE.summary)]
    Decode(OnDemand<decode::DecodeArgs>),
    // A prompt's prefill: its summary and flags are declared in the library.
    #[command(about = roofline::query::declared::PREFILL.summary)]
    Prefill(OnDemand<prefill::PrefillArgs>),
    /// Speculative decoding: tokens per target pass and speedup.
    Speculative(OnDemand<speculative::SpeculativeArgs>),
    /// Fit a part's achievable figures from a calibrate.py measurement file
    /// and write a hardware file with them; prints the error on held-out
    /// points.
    Calibrate(OnDemand<calibrate::CalibrateArgs>),
    // One serving deployment: its summary and flags are declared in the
    // library.
    #[command(about = roofline::query::declared::SIMULATE.summary)]
    Simulate(OnDemand<simulate::SimulateArgs>),
    // The fewest devices meeting the targets: its summary and flags are
    // declared in the library.
    #[command(about = roofline::query::declared::FLEET.summary)]
    Fleet(OnDemand<fleet::FleetArgs>),
    /// A units-aware calculator over the catalog's fields:
    /// `h100-sxm.compute.dense.bf16 / a100-sxm-80gb.compute.dense.bf16`.
    Calc(OnDemand<calc::CalcArgs>),
    /// A number format's bits per element (block scales included),
    /// exponent and mantissa bits, bias, range and block scale.
    Dtype(OnDemand<dtype::DtypeArgs>),
    /// Draw a chart to an SVG or PNG file: roofline, occupancy, tiles.
    #[command(subcommand)]
    Chart(OnDemand<chart::ChartCommand>),
    /// Run a scenario file: a saved study of queries, sweeps and charts.
    Run(OnDemand<run::RunArgs>),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(OnDemand<shell::CompletionsArgs>),
    /// Print the man page (roff): `roofline man | man -l -`; --dir DIR
    /// writes one page per command.
    Man(OnDemand<shell::ManArgs>),
}

/// What a command line produces: reports to render, or a finished
/// document (a scenario).
pub enum Output {
    /// Reports, rendered in the chosen format.
    Reports(Vec<Report>),
    /// Bytes already rendered.
    Bytes(Vec<u8>),
}

/// Refuses a shared flag that a command printing a finished document
/// would ignore (`hw new --set ...`, `run FILE --sweep ...`), rather than
/// leave the user to think it applied.
fn unused_flags(cli: &Cli) -> Result<()> {
    let g = &cli.global;
    let (what, takes, format_explain_all) = match &*cli.command {
        Command::Hw(OnDemand(hw::HwCommand::New(_)))
        | Command::Model(OnDemand(model::ModelCommand::New(_))) => (
            "`new` prints a template",
            "it takes --from and a folder (--hw-dir, --model-dir); edit the file it prints for a what-if",
            false,
        ),
        Command::Completions(_) | Command::Man(_) => (
            "`completions` and `man` print a script or a page",
            "they take no other flag",
            false,
        ),
        Command::Calibrate(_) => (
            "`calibrate` fits the measurements onto the base part's file as it is",
            "give the base as --hw and the measurements as FILE",
            true,
        ),
        Command::Run(_) => (
            "`run` runs a scenario's own queries",
            "put what-ifs, sweeps and charts in the scenario's queries (`set = [...]`, `sweep = [...]`, `chart = ...`; docs/scenarios.md)",
            true,
        ),
        _ => return Ok(()),
    };
    let given = [
        (
            "--format",
            !format_explain_all && g.format != FormatArg::Table,
        ),
        ("--explain", !format_explain_all && g.explain),
        ("--all", !format_explain_all && g.all),
        ("--achievable", !format_explain_all && g.achievable),
        ("--set", !g.set.is_empty()),
        ("--sweep", !g.sweep.is_empty()),
        ("--chart", g.chart.is_some()),
        ("--y", g.y.is_some()),
    ];
    match given.iter().find(|(_, on)| *on) {
        Some((flag, _)) => Err(Error::usage(
            *flag,
            format!("{what} and would ignore {flag}; {takes}"),
        )),
        None => Ok(()),
    }
}

/// The files a parsed command line writes; standard output (`-`) is not
/// one.
pub fn targets(cli: &Cli) -> Vec<output::Target> {
    use chart::ChartCommand as C;
    use output::{Kind, Target};
    let mut out = Vec::new();
    let mut push = |flag, path: &std::path::Path, kind| {
        if path.as_os_str() != "-" {
            out.push(Target {
                flag,
                path: path.to_path_buf(),
                kind,
            });
        }
    };
    if let Some(p) = &cli.global.chart {
        push("--chart", p, Kind::Chart);
    }
    match &*cli.command {
        Command::Chart(OnDemand(c)) => {
            let p = match c {
                C::Roofline(a) => &a.out,
                C::Occupancy(a) => &a.out,
                C::Tiles(a) => &a.out,
                C::Decode(a) => &a.out,
            };
            push("--out", p, Kind::Chart);
        }
        Command::Calibrate(OnDemand(a)) => {
            if let Some(p) = &a.out {
                push("--out", p, Kind::Hardware);
            }
        }
        Command::Man(OnDemand(a)) => {
            if let Some(p) = &a.dir {
                push("--dir", p, Kind::Folder);
            }
        }
        Command::Run(OnDemand(a)) => {
            if let Some(p) = &a.out_dir {
                push("--out-dir", p, Kind::Folder);
            }
        }
        _ => {}
    }
    out
}

/// Runs a command line, scenarios included, from its parse by [`parse`]
/// (given, so that `main` parses it once).
pub fn execute(
    argv: &[String],
    parsed: Result<Cli, clap::Error>,
) -> anyhow::Result<(Global, Output)> {
    output::preflight(argv, parsed.as_ref().ok().map(targets))?;
    if let Ok(cli) = &parsed {
        unused_flags(cli)?;
        let bytes = match &*cli.command {
            Command::Run(OnDemand(a)) => Some(run::run(a, &cli.global)?),
            Command::Completions(OnDemand(a)) => Some(shell::completions(a)),
            Command::Hw(OnDemand(hw::HwCommand::New(a))) => {
                Some(hw::new("hw", a, &context(&cli.global)?)?)
            }
            Command::Model(OnDemand(model::ModelCommand::New(a))) => {
                Some(hw::new("model", a, &context(&cli.global)?)?)
            }
            Command::Man(OnDemand(a)) => Some(shell::man_command(a)?),
            _ => None,
        };
        if let Some(bytes) = bytes {
            return Ok((cli.global.clone(), Output::Bytes(bytes)));
        }
    }
    let (g, reports) = run_parsed(argv, parsed)?;
    Ok((g, Output::Reports(reports)))
}

/// Parses a command line. Every subcommand accepts negative numbers as
/// values, so `--intensity -1` is reported as an out-of-range value (exit
/// 65) rather than as an unknown flag.
pub fn parse(argv: &[String]) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    fn negatives(c: clap::Command) -> clap::Command {
        c.allow_negative_numbers(true).mut_subcommands(negatives)
    }
    let matches = match negatives(tree::for_argv(argv)).try_get_matches_from(argv) {
        // A swept input need not also be given: the required ones are
        // checked by the calculation, point by point.
        Err(e) if e.kind() == clap::error::ErrorKind::MissingRequiredArgument && sweeps(argv) => {
            relaxed(negatives(tree::for_argv(argv))).try_get_matches_from(argv)?
        }
        m => m?,
    };
    Cli::from_arg_matches(&matches)
}

/// Whether the command line sweeps anything.
fn sweeps(argv: &[String]) -> bool {
    argv.iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--sweep" || a.starts_with("--sweep="))
}

/// The command tree with nothing required: usage lines show what is, and a
/// sweep may stand for it. A flag required unless another is given
/// (`matmul --k` unless `--solve`, `occupancy --regs`) is relaxed too:
/// otherwise a sweep of it fell back to parsing the whole command line
/// again at every point ([`expand`]), 100-200 us a point where the sweep
/// itself costs a few.
fn relaxed(mut c: clap::Command) -> clap::Command {
    let args: Vec<clap::Id> = c
        .get_arguments()
        .filter(|a| !a.is_positional())
        .map(|a| a.get_id().clone())
        .collect();
    for id in args {
        c = c.mut_arg(id, |a| {
            a.required(false)
                .required_unless_present(clap::builder::Resettable::<clap::Id>::Reset)
        });
    }
    let groups: Vec<clap::Id> = c
        .get_groups()
        .filter(|g| g.is_required_set())
        .map(|g| g.get_id().clone())
        .collect();
    for id in groups {
        c = c.mut_group(id, |g| g.required(false));
    }
    c.mut_subcommands(relaxed)
}

/// The hardware `matmul` and `fusion` use when `--hw` is not given.
const DEFAULT_HW: &str = roofline::query::DEFAULT_HW;

/// The library's context for a command line: the catalog with the
/// user's folders, the `--set`s and the mode; errors shown inside a
/// report name flags.
pub fn context(g: &Global) -> Result<Context> {
    let catalog = Catalog {
        hw_dirs: g.hw_dir.iter().cloned().collect(),
        model_dirs: g.model_dir.iter().cloned().collect(),
        engine_dirs: g.engine_dir.iter().cloned().collect(),
        dir_names: dir_names(g),
        ..Catalog::default()
    };
    let mode = if g.achievable {
        Mode::Achievable
    } else {
        Mode::SpeedOfLight
    };
    let mut ctx = Context::new(catalog, Context::parse_sets(&g.set)?, mode);
    ctx.rename = query::as_flags;
    Ok(ctx)
}

/// Names each user folder by where it came from: the environment variable
/// when it holds that folder, else the flag.
fn dir_names(g: &Global) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for (dir, var, flag) in [
        (&g.hw_dir, "ROOFLINE_HW_DIR", "--hw-dir"),
        (&g.model_dir, "ROOFLINE_MODEL_DIR", "--model-dir"),
        (&g.engine_dir, "ROOFLINE_ENGINE_DIR", "--engine-dir"),
    ] {
        if let Some(d) = dir {
            let from_env = std::env::var_os(var).is_some_and(|v| std::path::Path::new(&v) == d);
            out.push((d.clone(), if from_env { var } else { flag }.to_string()));
        }
    }
    out
}

/// Not an error: the output was written as it was worked (a streamed
/// sweep), so there is nothing left to print. `main` exits 0 on it.
#[derive(Debug)]
pub struct Streamed;

impl std::fmt::Display for Streamed {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("the output was streamed")
    }
}

impl std::error::Error for Streamed {}

/// Parses `argv` and runs it; returns the shared flags and the reports to
/// print (one, or one per point with `--explain`).
pub fn run(argv: &[String]) -> anyhow::Result<(Global, Vec<Report>)> {
    run_parsed(argv, parse(argv))
}

/// [`run`] from the command line's parse.
fn run_parsed(
    argv: &[String],
    parsed: Result<Cli, clap::Error>,
) -> anyhow::Result<(Global, Vec<Report>)> {
    let (mut global, mut reports) = run_reports(argv, parsed)?;
    // `simulate --chart` without a sweep draws its run over time.
    if global.chart.is_some()
        && global.sweep.is_empty()
        && global.y.is_none()
        && reports.first().is_some_and(|r| r.command == "simulate")
    {
        global.y = Some("running,kv_use,latest_ttft_s".into());
    }
    if global.chart.is_some()
        && global.y.is_none()
        && reports.first().is_some_and(|r| r.command == "fleet")
    {
        global.y = Some("tokens_per_s_per_device".into());
    }
    // `--chart FILE` draws the sweep before anything is printed.
    if let Some(out) = chart::sweep_chart(&global, &reports)? {
        chart::write(&out)?;
        charted(&global, &out.path, &mut reports);
    }
    Ok((global, reports))
}

/// What a table says of the chart just written: its path, and, for
/// `simulate`'s run over time, the points left to the chart (the JSON and
/// CSV rows carry them; `--all` prints them) so that the terminal shows
/// the summary, not a thousand-row series.
fn charted(g: &Global, path: &std::path::Path, reports: &mut [Report]) {
    if !matches!(g.format, FormatArg::Table | FormatArg::Markdown)
        || path == std::path::Path::new("-")
    {
        return;
    }
    let Some(r) = reports.first_mut() else {
        return;
    };
    if r.command == "simulate" && r.axes == ["time_s"] && !g.all {
        let n = r.rows.len();
        r.rows.clear();
        r.rows_kind = None;
        r.axes.clear();
        r.note(format!(
            "the chart is in {}: the run over time, {} points (--format json or csv gives them, --all prints them)",
            path.display(),
            roofline::units::grouped(n as u128)
        ));
    } else {
        r.note(format!("the chart is in {}", path.display()));
    }
}

fn run_reports(
    argv: &[String],
    parsed: Result<Cli, clap::Error>,
) -> anyhow::Result<(Global, Vec<Report>)> {
    let mut cli = match parsed {
        Ok(cli) => cli,
        // Sweeps are expanded into flags only so that a required flag can
        // be swept without being given; any other slip (a flag the
        // command does not take) is reported as typed.
        Err(e) if e.kind() == clap::error::ErrorKind::MissingRequiredArgument => {
            return expand::run(argv);
        }
        Err(e) => return Err(e.into()),
    };
    if cli.command.is_list() {
        list::check_global(&cli.global)?;
        if cli.global.explain && cli.global.format == FormatArg::Csv {
            return Err(Error::usage(
                "--explain",
                "a list's derivations are text, with --format table or markdown; JSON and CSV give the listed figures",
            )
            .into());
        }
        let ctx = context(&cli.global)?;
        let reports = run_command(&cli, &ctx)?;
        return Ok((cli.global, reports));
    }
    if let Command::Simulate(OnDemand(a)) = &mut *cli.command
        && cli.global.chart.is_some()
        && cli.global.sweep.is_empty()
    {
        a.keep_timeline();
    }
    if let Some(q) = cli.command.query() {
        chart::check_flags(&cli.global)?;
        let ctx = context(&cli.global)?;
        let g = &cli.global;
        // A sweep printed as CSV or JSON is written as it is worked, in
        // bounded memory (a chart of it keeps only the points it draws); a
        // derivation needs every point whole.
        let stream = !g.sweep.is_empty()
            && !g.explain
            && matches!(g.format, FormatArg::Csv | FormatArg::Json)
            && g.chart.as_deref() != Some(std::path::Path::new("-"));
        if !stream {
            held_rows(g)?;
        }
        let mut sink: Option<Box<dyn roofline::report::RowSink>> = stream.then(|| {
            let out = std::io::BufWriter::with_capacity(1 << 16, output::stdout());
            if g.format == FormatArg::Csv {
                Box::new(roofline::render::CsvStream::new(out))
                    as Box<dyn roofline::report::RowSink>
            } else {
                Box::new(roofline::render::JsonStream::new(out))
            }
        });
        let (reports, streamed) = query::run_into(
            q,
            &ctx,
            &g.sweep,
            g.explain,
            sink.as_deref_mut()
                .map(|s| -> &mut dyn roofline::report::RowSink { s }),
            g.chart.is_some(),
        )
        .map_err(query::as_flags)?;
        let mut reports = reports;
        // What the chart left out is said beside the chart, not in the data.
        let thinned: Vec<String> = reports
            .first_mut()
            .map(|r| {
                r.notes
                    .extract_if(.., |n| n.starts_with("the chart draws"))
                    .collect()
            })
            .unwrap_or_default();
        if streamed && let (Some(sink), Some(tail)) = (sink.as_mut(), reports.first()) {
            sink.finish(tail)?;
            if let Some(mut out) = chart::sweep_chart(g, &reports)? {
                out.notes.extend(thinned);
                chart::write(&out)?;
            }
            return Err(Streamed.into());
        }
        return Ok((cli.global, reports));
    }
    expand::run(argv)
}

/// The most rows a table or Markdown sweep holds before printing: a row
/// of `decode` is about 3.7 KB held (`point` 1.6 KB; measured with
/// /usr/bin/time -v on 100,000-point sweeps), so 50,000 stay under 200 MB.
pub const MAX_HELD_ROWS: usize = 50_000;
/// The most points `--explain` derives: each is about 15 KB of text.
pub const MAX_EXPLAINED: usize = 10_000;

/// Refuses a sweep too long to be held whole (a table, Markdown, or
/// `--explain`, which print only once every point is worked) before any
/// point is: CSV and JSON stream any length in bounded memory.
fn held_rows(g: &Global) -> Result<()> {
    let axes = g
        .sweep
        .iter()
        .map(|s| roofline::sweep::parse(s).map(roofline::sweep::Axis::from))
        .collect::<Result<Vec<_>>>()?;
    // The grid's own bounds (its points, the files it loads) are said
    // first: they hold whatever the format.
    let n = roofline::sweep::grid_size(&axes)?;
    roofline::sweep::check_files(
        axes.iter().filter(|a| {
            matches!(a.name.as_str(), "hw" | "model" | "engine") || a.name.contains('.')
        }),
    )?;
    let (max, what, instead) = if g.explain {
        (
            MAX_EXPLAINED,
            "--explain derives every point in full",
            "leave out --explain and use --format json (its quantities carry the formulas) or csv",
        )
    } else {
        (
            MAX_HELD_ROWS,
            "a table or Markdown is printed once every row is held",
            "use --format csv or --format json",
        )
    };
    if n > max {
        return Err(Error::input(
            "--sweep",
            format!(
                "{} points: {what}, at most {}; {instead}, which stream any sweep in bounded memory",
                roofline::units::grouped(n as u128),
                roofline::units::grouped(max as u128)
            ),
        ));
    }
    Ok(())
}

/// Combines the per-point reports of a command that still expands its
/// sweeps by rewriting the command line: the axes are the inputs that
/// differ between points, and the hardware or model where they differ.
pub fn combine_points(reports: Vec<Report>) -> Report {
    let mut axes: Vec<String> = Vec::new();
    if let Some(first) = reports.first() {
        if reports.iter().any(|r| r.hardware != first.hardware) {
            axes.push("hardware".into());
        }
        if reports.iter().any(|r| r.model != first.model) {
            axes.push("model".into());
        }
        for k in first.inputs.keys() {
            if reports
                .iter()
                .any(|r| r.inputs.get(k) != first.inputs.get(k))
            {
                axes.push(k.to_string());
            }
        }
    }
    Report::combine(reports, &axes, &[])
}

/// Whether a list command gives one report per entry, for `--explain`
/// (JSON carries the table, CSV refuses `--explain`).
fn list_explain(g: &Global) -> bool {
    g.explain && g.format != FormatArg::Json
}

impl Command {
    /// Whether it is `hw list` or `model list`.
    fn is_list(&self) -> bool {
        matches!(
            self,
            Command::Hw(OnDemand(hw::HwCommand::List(_)))
                | Command::Model(OnDemand(model::ModelCommand::List(_)))
        )
    }

    /// The command as a query over fields, once it has been converted to
    /// one.
    fn query(&self) -> Option<&dyn Query> {
        match self {
            Command::Point(OnDemand(a)) => Some(a),
            Command::Collective(OnDemand(a)) => Some(a),
            Command::Plan(OnDemand(a)) => Some(a),
            Command::Kv(OnDemand(a)) => Some(a),
            Command::Decode(OnDemand(a)) => Some(a),
            Command::Prefill(OnDemand(a)) => Some(a),
            Command::Speculative(OnDemand(a)) => Some(a),
            Command::Simulate(OnDemand(a)) => Some(a),
            Command::Fleet(OnDemand(a)) => Some(a),
            Command::Hw(OnDemand(hw::HwCommand::Show(a))) => Some(a),
            Command::Matmul(OnDemand(a)) => Some(a),
            Command::Fusion(OnDemand(c)) => Some(c.query()),
            Command::Launch(OnDemand(a)) => Some(a),
            Command::Model(OnDemand(model::ModelCommand::Show(a))) => Some(a),
            Command::Engine(OnDemand(engine::EngineCommand::Show(a))) => Some(a),
            Command::Occupancy(OnDemand(a)) => Some(a),
            Command::Coalesce(OnDemand(a)) => Some(a),
            Command::LittlesLaw(OnDemand(a)) => Some(a),
            Command::Calc(OnDemand(a)) => Some(a),
            Command::Dtype(OnDemand(a)) => Some(a),
            _ => None,
        }
    }
}

/// Runs one parsed command line (no sweeps) and returns its reports.
fn dispatch(cli: &Cli) -> Result<Vec<Report>> {
    let ctx = context(&cli.global)?;
    run_command(cli, &ctx)
}

fn run_command(cli: &Cli, ctx: &Context) -> Result<Vec<Report>> {
    match &*cli.command {
        Command::Hw(OnDemand(c)) => hw::run(c, ctx, list_explain(&cli.global)),
        Command::Model(OnDemand(model::ModelCommand::List(_))) => roofline::query::evaluate(
            ctx,
            "model list",
            &roofline::inputs::Fields::new(),
            &[],
            list_explain(&cli.global),
        ),
        Command::Model(OnDemand(model::ModelCommand::New(_))) => Err(Error::usage(
            "--sweep",
            "`model new` prints a template and takes no sweep",
        )),
        Command::Model(OnDemand(model::ModelCommand::Show(a))) => query::run(a, ctx, &[], false),
        Command::Engine(OnDemand(engine::EngineCommand::Show(a))) => query::run(a, ctx, &[], false),
        Command::Engine(OnDemand(engine::EngineCommand::List(_))) => roofline::query::evaluate(
            ctx,
            "engine list",
            &roofline::inputs::Fields::new(),
            &[],
            false,
        ),
        Command::Matmul(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Fusion(OnDemand(c)) => query::run(c.query(), ctx, &[], false),
        Command::Launch(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Point(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Collective(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Plan(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Kv(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Decode(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Prefill(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Speculative(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Simulate(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Fleet(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Occupancy(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Coalesce(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::LittlesLaw(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Calc(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Dtype(OnDemand(a)) => query::run(a, ctx, &[], false),
        Command::Calibrate(OnDemand(a)) => calibrate::run(a, ctx),
        // main draws a chart itself; a scenario's chart query gets here,
        // writes its file and reports nothing.
        Command::Chart(OnDemand(c)) => {
            chart::write(&chart::draw(c, &cli.global)?)?;
            Ok(Vec::new())
        }
        Command::Run(_) | Command::Completions(_) | Command::Man(_) => Err(Error::usage(
            "--sweep",
            "this command takes no sweep; put sweeps inside a scenario's queries",
        )),
    }
}

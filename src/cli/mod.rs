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

mod calibrate;
pub mod chart;
mod coalesce;
mod collective;
mod confine;
mod decode;
mod kv;
mod littles_law;
mod occupancy;
mod plan;
mod point;
mod prefill;
pub mod run;
mod shell;
mod simulate;
mod speculative;

use clap::{Args, Parser, Subcommand, ValueEnum};
use roofline::catalog::Catalog;
use roofline::error::{Error, Result};
use roofline::render::Format;
use roofline::report::Report;
use roofline::spec::hardware::{Hardware, Mode};
use roofline::spec::model::Model;
use roofline::spec::overrides::Set;
use std::path::PathBuf;
use std::rc::Rc;

use query::Query;

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
    pub command: Command,
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
    /// With --sweep: also draw the sweep to FILE (.svg or .png), one series
    /// per --hw or --model item, against the swept input.
    #[arg(long, global = true, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    /// The results --chart draws, comma-separated JSON keys (default: the
    /// command's headline result).
    #[arg(long, global = true, value_name = "KEYS")]
    pub y: Option<String>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The hardware catalog: list accelerators or show one's numbers.
    #[command(subcommand)]
    Hw(hw::HwCommand),
    /// The model catalog: list models or show one's parameters and KV size.
    #[command(subcommand)]
    Model(model::ModelCommand),
    /// Where a kernel sits on the roofline: ridge point, attainable
    /// throughput, bound and time.
    Point(point::PointArgs),
    /// Resident blocks per SM under each limit, the binding one, occupancy
    /// (NVIDIA's occupancy-calculator rules; --textbook for the lecture's
    /// simplified arithmetic).
    Occupancy(occupancy::OccupancyArgs),
    /// Bytes moved for bytes used by one warp's strided load, at a segment,
    /// sector or DRAM-fetch granularity.
    Coalesce(coalesce::CoalesceArgs),
    /// Little's law: bytes and loads in flight to saturate memory, per SM
    /// against the warp budget; the pointer-chase corollary.
    LittlesLaw(littles_law::LittlesLawArgs),
    /// Naive and tiled matmul: traffic, intensity, time, tile feasibility,
    /// waves, tensor-core row utilisation.
    Matmul(matmul::MatmulArgs),
    /// Traffic and time of an unfused chain against the fused kernel.
    #[command(subcommand, after_help = fusion::AFTER)]
    Fusion(fusion::FusionCommand),
    /// Launch overhead per step, eager against CUDA graphs, and what fusing
    /// to fewer kernels saves.
    Launch(launch::LaunchArgs),
    /// One collective (all-reduce, all-gather, reduce-scatter, all-to-all,
    /// send-recv) over N devices on the fabric tiers: bus bytes, bandwidth
    /// and latency terms, time, algorithm.
    Collective(collective::CollectiveArgs),
    /// A parallel layout (TP, PP, DP, EP) of a model: memory per device,
    /// communication, prefill and decode times; --search ranks every valid
    /// layout; --disaggregate sizes prefill and decode pools.
    Plan(plan::PlanArgs),
    /// KV-cache bytes per token, layer, sequence and batch; with --hw the
    /// batch and context that fit beside the weights.
    Kv(kv::KvArgs),
    /// One decode step: bytes, FLOPs, bound, step time, tokens per second;
    /// MoE, launch overhead, speculative decoding, SLO capacity.
    Decode(decode::DecodeArgs),
    /// A prompt's prefill: FLOPs, bytes, bound, time to first token;
    /// chunked, and against materialised attention scores.
    Prefill(prefill::PrefillArgs),
    /// Speculative decoding: tokens per target pass and speedup.
    Speculative(speculative::SpeculativeArgs),
    /// Fit a part's achievable figures from a calibrate.py measurement file
    /// and write a hardware file with them; prints the error on held-out
    /// points.
    Calibrate(calibrate::CalibrateArgs),
    /// One serving deployment request by request: continuous batching,
    /// chunked prefill, paged KV with preemption; latency percentiles,
    /// throughput, goodput under SLOs.
    Simulate(simulate::SimulateArgs),
    /// The fewest devices that serve a request rate within TTFT and TPOT
    /// targets: layouts, batch caps and parts searched by simulation;
    /// --pareto traces tokens/s per device against tokens/s per user.
    Fleet(fleet::FleetArgs),
    /// Draw a chart to an SVG or PNG file: roofline, occupancy, tiles.
    #[command(subcommand)]
    Chart(chart::ChartCommand),
    /// Run a scenario file: a saved study of queries, sweeps and charts.
    Run(run::RunArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff): `roofline man | man -l -`; --dir DIR
    /// writes one page per command.
    Man(shell::ManArgs),
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
    let (what, takes, format_explain_all) = match &cli.command {
        Command::Hw(hw::HwCommand::New(_)) | Command::Model(model::ModelCommand::New(_)) => (
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

/// Parses and runs a command line, scenarios included.
pub fn execute(argv: &[String]) -> anyhow::Result<(Global, Output)> {
    if let Ok(cli) = parse(argv) {
        unused_flags(&cli)?;
        let bytes = match &cli.command {
            Command::Run(a) => Some(run::run(a, &cli.global)?),
            Command::Completions(a) => Some(shell::completions(a)),
            Command::Hw(hw::HwCommand::New(a)) => Some(hw::new("hw", a, &Ctx::new(&cli.global)?)?),
            Command::Model(model::ModelCommand::New(a)) => {
                Some(hw::new("model", a, &Ctx::new(&cli.global)?)?)
            }
            Command::Man(a) => Some(shell::man_command(a)?),
            _ => None,
        };
        if let Some(bytes) = bytes {
            return Ok((cli.global, Output::Bytes(bytes)));
        }
    }
    let (g, reports) = run(argv)?;
    Ok((g, Output::Reports(reports)))
}

/// Parses a command line. Every subcommand accepts negative numbers as
/// values, so `--intensity -1` is reported as an out-of-range value (exit
/// 65) rather than as an unknown flag.
pub fn parse(argv: &[String]) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    fn negatives(c: clap::Command) -> clap::Command {
        c.allow_negative_numbers(true).mut_subcommands(negatives)
    }
    let matches = match negatives(Cli::command()).try_get_matches_from(argv) {
        // A swept input need not also be given: the required ones are
        // checked by the calculation, point by point.
        Err(e) if e.kind() == clap::error::ErrorKind::MissingRequiredArgument && sweeps(argv) => {
            relaxed(negatives(Cli::command())).try_get_matches_from(argv)?
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
/// sweep may stand for it.
fn relaxed(mut c: clap::Command) -> clap::Command {
    let args: Vec<clap::Id> = c
        .get_arguments()
        .filter(|a| a.is_required_set() && !a.is_positional())
        .map(|a| a.get_id().clone())
        .collect();
    for id in args {
        c = c.mut_arg(id, |a| a.required(false));
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
const DEFAULT_HW: &str = "h100-sxm";

/// What every command's glue gets: the catalog, the overrides, the mode.
pub struct Ctx {
    /// Built-in files and the user's folders.
    pub catalog: Catalog,
    /// `--set` overrides.
    pub sets: Vec<Set>,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// Whether the command read a hardware file, and a model file: a `--set`
    /// for a kind of file the command never reads is an error, not a no-op.
    read: std::cell::Cell<(bool, bool)>,
    /// Hardware loaded for sweep points, by id and per-point `--set`s, so a
    /// sweep parses each file once.
    hw_cache: std::cell::RefCell<std::collections::HashMap<String, Rc<Hardware>>>,
    /// Models loaded for sweep points, likewise.
    model_cache: std::cell::RefCell<std::collections::HashMap<String, Rc<Model>>>,
}

impl Ctx {
    fn new(g: &Global) -> Result<Self> {
        let sets = g
            .set
            .iter()
            .map(|s| s.parse())
            .collect::<Result<Vec<Set>>>()?;
        Ok(Ctx {
            catalog: Catalog {
                hw_dirs: g.hw_dir.iter().cloned().collect(),
                model_dirs: g.model_dir.iter().cloned().collect(),
                dir_names: dir_names(g),
            },
            sets,
            read: std::cell::Cell::new((false, false)),
            hw_cache: Default::default(),
            model_cache: Default::default(),
            mode: if g.achievable {
                Mode::Achievable
            } else {
                Mode::SpeedOfLight
            },
        })
    }

    /// Loads each hardware of a comma-separated list of ids or paths.
    pub fn hardware(&self, list: &str) -> Result<Vec<Hardware>> {
        let (_, m) = self.read.get();
        self.read.set((true, m));
        let items = split(list)
            .map(|h| {
                self.catalog
                    .hardware(h, &self.sets)
                    .map_err(|e| blame_set(e, &self.sets))
            })
            .collect::<Result<Vec<_>>>()?;
        if items.is_empty() {
            return Err(roofline::Error::input(
                "--hw",
                "no hardware named; give an id or a path",
            ));
        }
        Ok(items)
    }

    /// Adds a note to each report when `--hw` was not given.
    pub fn noted_default(list: Option<&str>, reports: Result<Vec<Report>>) -> Result<Vec<Report>> {
        let mut reports = reports?;
        if list.is_none() {
            for r in &mut reports {
                r.note(format!(
                    "hardware: {DEFAULT_HW}, the default (the lecture's worked examples use it); choose another with --hw"
                ));
            }
        }
        Ok(reports)
    }

    /// The `--set`s of a point: the command line's, then the point's own
    /// dotted fields (a swept `--set` path), and the cache key they make.
    fn point_sets(
        &self,
        id: &str,
        fields: &roofline::inputs::Fields,
    ) -> Result<(Vec<Set>, String)> {
        let mut sets = self.sets.clone();
        let mut key = id.to_string();
        for (k, v) in fields.iter().filter(|(k, _)| k.contains('.')) {
            let value = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            sets.push(format!("{k}={value}").parse()?);
            key.push_str(&format!("\n{k}={value}"));
        }
        Ok((sets, key))
    }

    /// The hardware of one point: its `hw` field, or `default` when the
    /// command has one; loaded once per id and `--set`.
    pub fn point_hardware(
        &self,
        fields: &roofline::inputs::Fields,
        default: Option<&str>,
    ) -> Result<Rc<Hardware>> {
        let (_, m) = self.read.get();
        self.read.set((true, m));
        let id = match fields.get("hw") {
            Some(serde_json::Value::String(s)) => s.as_str(),
            _ => default.ok_or_else(|| {
                Error::usage(
                    "--hw",
                    "give the hardware: an id (see `roofline hw list`) or a path",
                )
            })?,
        };
        self.cached(&self.hw_cache, id, fields, |id, sets| {
            self.catalog.hardware(id, sets)
        })
    }

    /// The model of one point: its `model` field; loaded once per id and
    /// `--set`.
    pub fn point_model(&self, fields: &roofline::inputs::Fields) -> Result<Rc<Model>> {
        let (h, _) = self.read.get();
        self.read.set((h, true));
        let Some(serde_json::Value::String(id)) = fields.get("model") else {
            return Err(Error::usage(
                "--model",
                "give the model: an id (see `roofline model list`) or a path",
            ));
        };
        self.cached(&self.model_cache, id, fields, |id, sets| {
            self.catalog.model(id, sets)
        })
    }

    /// A file loaded once per id and per point's `--set`s.
    fn cached<T>(
        &self,
        cache: &std::cell::RefCell<std::collections::HashMap<String, Rc<T>>>,
        id: &str,
        fields: &roofline::inputs::Fields,
        load: impl Fn(&str, &[Set]) -> Result<T>,
    ) -> Result<Rc<T>> {
        // Most points add no `--set` of their own: look the id up as it is.
        if !fields.keys().any(|k| k.contains('.'))
            && let Some(x) = cache.borrow().get(id)
        {
            return Ok(x.clone());
        }
        let (sets, key) = self.point_sets(id, fields)?;
        if let Some(x) = cache.borrow().get(&key) {
            return Ok(x.clone());
        }
        let x = Rc::new(load(id, &sets).map_err(|e| blame_set(e, &sets))?);
        cache.borrow_mut().insert(key, x.clone());
        Ok(x)
    }

    /// Loads each model of a comma-separated list of ids or paths.
    pub fn models(&self, list: &str) -> Result<Vec<Model>> {
        let (h, _) = self.read.get();
        self.read.set((h, true));
        let items = split(list)
            .map(|m| {
                self.catalog
                    .model(m, &self.sets)
                    .map_err(|e| blame_set(e, &self.sets))
            })
            .collect::<Result<Vec<_>>>()?;
        if items.is_empty() {
            return Err(roofline::Error::input(
                "--model",
                "no model named; give an id or a path",
            ));
        }
        Ok(items)
    }

    /// Fails on a `--set` aimed at a kind of file the command did not read,
    /// and on `--achievable` where no hardware file is read.
    fn check_sets_used(&self) -> Result<()> {
        let (hw, model) = self.read.get();
        if self.mode == Mode::Achievable && !hw {
            return Err(roofline::Error::usage(
                "--achievable",
                "this command reads no hardware file, so there are no measured figures to use",
            ));
        }
        for s in &self.sets {
            let for_model = roofline::spec::overrides::is_model_path(&s.path);
            if (for_model && !model) || (!for_model && !hw) {
                let why = if for_model {
                    "is a model field, and this command reads no model"
                } else {
                    "is not a model field, and this command reads no hardware file"
                };
                return Err(roofline::Error::input(
                    "--set",
                    format!("`{}` {why}", s.path),
                ));
            }
        }
        Ok(())
    }

    /// The `--set`s as typed, `path=value, path=value`.
    fn sets_text(&self) -> String {
        self.sets
            .iter()
            .map(|s| format!("{}={}", s.path, s.value))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Rejects a result that overflowed to infinity or lost its value.
    fn check_finite(reports: &[Report]) -> Result<()> {
        // serde_json turns an infinite or NaN f64 into null. A count may be
        // null on purpose (no limit), but a time, a size, a rate or a ratio
        // never is.
        const MEASURES: &[&str] = &[
            "_s",
            "bytes",
            "flops",
            "_hz",
            "fraction",
            "speedup",
            "intensity",
            "flop_per_byte",
            "efficiency",
        ];
        let bad = |k: &str, v: &serde_json::Value| {
            v.as_f64().is_some_and(|x| !x.is_finite())
                || (v.is_null() && MEASURES.iter().any(|m| k.ends_with(m)))
        };
        for r in reports {
            let rows = r.rows.iter().flat_map(|row| row.results.iter());
            if let Some((k, _)) = r.results.iter().chain(rows).find(|(k, v)| bad(k, v)) {
                return Err(roofline::Error::Unsupported(format!(
                    "`{k}` overflowed to infinity; the inputs are too large to compute with"
                )));
            }
        }
        Ok(())
    }
}

/// Names each user folder by where it came from: the environment variable
/// when it holds that folder, else the flag.
fn dir_names(g: &Global) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for (dir, var, flag) in [
        (&g.hw_dir, "ROOFLINE_HW_DIR", "--hw-dir"),
        (&g.model_dir, "ROOFLINE_MODEL_DIR", "--model-dir"),
    ] {
        if let Some(d) = dir {
            let from_env = std::env::var_os(var).is_some_and(|v| std::path::Path::new(&v) == d);
            out.push((d.clone(), if from_env { var } else { flag }.to_string()));
        }
    }
    out
}

/// A `--set` path naming no field of the file is the flag's slip, not the
/// file's: the error names the `--set` as typed, the table and the nearest
/// field (`--set memory.hbm-bandwith=...: no field hbm-bandwith in
/// [memory]; did you mean hbm-bandwidth?`).
pub fn blame_set(e: Error, sets: &[Set]) -> Error {
    match e {
        Error::At { point, error } => Error::At {
            point,
            error: Box::new(blame_set(*error, sets)),
        },
        Error::Data {
            field: Some(field),
            message,
            file,
            line,
            col,
        } => {
            let unknown = message
                .strip_prefix("unknown field `")
                .and_then(|m| m.split_once('`'));
            let set = sets.iter().rev().find(|s| s.path == field);
            let (Some((name, rest)), Some(set)) = (unknown, set) else {
                return Error::Data {
                    field: Some(field),
                    message,
                    file,
                    line,
                    col,
                };
            };
            // serde lists the fields it expected, each in backticks.
            let known: Vec<&str> = rest
                .split_once("expected")
                .map(|(_, l)| l.split('`').skip(1).step_by(2).collect())
                .unwrap_or_default();
            let table = field
                .rsplit_once('.')
                .map_or("the top level".to_string(), |(t, _)| format!("[{t}]"));
            let hint = match roofline::error::nearest(name, known.iter().copied()) {
                Some(n) => format!("; did you mean {n}?"),
                None if !known.is_empty() => format!("; it has {}", known.join(", ")),
                None => String::new(),
            };
            Error::Data {
                file: format!("--set {}={}", set.path, set.value),
                line: None,
                col: None,
                field: None,
                message: format!("no field {name} in {table}{hint}"),
            }
        }
        e => e,
    }
}

/// A library message naming the `force` or `hw` field names the flag
/// (`--force`, `--hw`).
pub fn fields_as_flags(e: Error) -> Error {
    match e {
        Error::Field { field, message } => Error::Field {
            field,
            message: message
                .replace("`force`", "--force")
                .replace("(`hw`)", "(--hw)"),
        },
        e => e,
    }
}

fn split(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty())
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
    let (mut global, reports) = run_reports(argv)?;
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
    }
    Ok((global, reports))
}

fn run_reports(argv: &[String]) -> anyhow::Result<(Global, Vec<Report>)> {
    let mut cli = match parse(argv) {
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
        let ctx = Ctx::new(&cli.global)?;
        let reports = run_command(&cli, &ctx)?;
        return Ok((cli.global, reports));
    }
    if let Command::Simulate(a) = &mut cli.command {
        a.timeline = cli.global.chart.is_some() && cli.global.sweep.is_empty();
    }
    if let Some(q) = cli.command.query() {
        let ctx = Ctx::new(&cli.global)?;
        let g = &cli.global;
        // A sweep printed as CSV or JSON is written as it is worked, in
        // bounded memory (a chart of it keeps only the points it draws); a
        // derivation needs every point whole.
        let stream = !g.sweep.is_empty()
            && !g.explain
            && matches!(g.format, FormatArg::Csv | FormatArg::Json)
            && g.chart.as_deref() != Some(std::path::Path::new("-"));
        let mut sink: Option<Box<dyn roofline::report::RowSink>> = stream.then(|| {
            let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout());
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
        let mut reports = ctx.finish(reports)?;
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
            Command::Hw(hw::HwCommand::List(_)) | Command::Model(model::ModelCommand::List(_))
        )
    }

    /// The command as a query over fields, once it has been converted to
    /// one.
    fn query(&self) -> Option<&dyn Query> {
        match self {
            Command::Point(a) => Some(a),
            Command::Collective(a) => Some(a),
            Command::Plan(a) => Some(a),
            Command::Kv(a) => Some(a),
            Command::Decode(a) => Some(a),
            Command::Prefill(a) => Some(a),
            Command::Speculative(a) => Some(a),
            Command::Simulate(a) => Some(a),
            Command::Fleet(a) => Some(a),
            Command::Hw(hw::HwCommand::Show(a)) => Some(a),
            Command::Matmul(a) => Some(a),
            Command::Fusion(c) => Some(c.query()),
            Command::Launch(a) => Some(a),
            Command::Model(model::ModelCommand::Show(a)) => Some(a),
            Command::Occupancy(a) => Some(a),
            Command::Coalesce(a) => Some(a),
            Command::LittlesLaw(a) => Some(a),
            _ => None,
        }
    }
}

impl Ctx {
    /// The checks and notes every command's reports get: `--set`s and
    /// `--achievable` actually used, no result overflowed, what-ifs noted.
    fn finish(&self, mut reports: Vec<Report>) -> Result<Vec<Report>> {
        self.check_sets_used()?;
        Ctx::check_finite(&reports)?;
        // What reading a model assumed (a Hugging Face config without
        // num_key_value_heads read as multi-head attention) changes every
        // answer about it, not only `model show`'s.
        let mut assumed: Vec<(String, Vec<String>)> = Vec::new();
        let mut ids = std::collections::BTreeSet::new();
        for m in self.model_cache.borrow().values() {
            ids.insert(m.id.clone());
            if !m.notes.is_empty() && !assumed.iter().any(|(id, _)| *id == m.id) {
                assumed.push((m.id.clone(), m.notes.clone()));
            }
        }
        assumed.sort();
        // Beside other models, the note says which one it is about.
        let several = ids.len() > 1;
        for (id, notes) in &assumed {
            for n in notes {
                let n = if several {
                    format!("{id}: {n}")
                } else {
                    n.clone()
                };
                for r in &mut reports {
                    if !r.notes.contains(&n) {
                        r.note(n.clone());
                    }
                }
            }
        }
        if !self.sets.is_empty() {
            let list = self.sets_text();
            for r in &mut reports {
                r.note(format!("what-if: --set {list} replaces the file's figures"));
            }
        }
        if self.mode == Mode::Achievable {
            self.quote_errors(&mut reports);
        }
        Ok(reports)
    }

    /// Every `--achievable` answer says how good it is: the validated error
    /// of its kind on its part, a calibrated file's held-out error, or that
    /// nothing was measured (`calc::accuracy`).
    fn quote_errors(&self, reports: &mut [Report]) {
        let mut hws: Vec<Rc<Hardware>> = self.hw_cache.borrow().values().cloned().collect();
        hws.sort_by(|a, b| a.id.cmp(&b.id));
        hws.dedup_by(|a, b| a.id == b.id);
        for r in reports.iter_mut() {
            let launch = r.inputs.get("launch").and_then(|v| v.as_str());
            let Some(kind) = roofline::calc::accuracy::kind(&r.command, launch) else {
                continue;
            };
            let one = r
                .hardware
                .as_ref()
                .and_then(|id| hws.iter().find(|h| &h.id == id));
            let notes: Vec<String> = match one {
                Some(h) => vec![roofline::calc::accuracy::quote(kind, h)],
                None => hws
                    .iter()
                    .map(|h| format!("{}: {}", h.id, roofline::calc::accuracy::quote(kind, h)))
                    .collect(),
            };
            for n in notes {
                if !r.notes.contains(&n) {
                    r.note(n);
                }
            }
        }
    }
}

/// Runs one parsed command line (no sweeps) and returns its reports.
fn dispatch(cli: &Cli) -> Result<Vec<Report>> {
    let ctx = Ctx::new(&cli.global)?;
    if cli.command.is_list() {
        // A list states where its --set applied itself.
        return run_command(cli, &ctx);
    }
    let reports = run_command(cli, &ctx)?;
    ctx.finish(reports)
}

fn run_command(cli: &Cli, ctx: &Ctx) -> Result<Vec<Report>> {
    match &cli.command {
        Command::Hw(c) => hw::run(c, ctx, list_explain(&cli.global)),
        Command::Model(model::ModelCommand::List(_)) => model::list(ctx, list_explain(&cli.global)),
        Command::Model(model::ModelCommand::New(_)) => Err(Error::usage(
            "--sweep",
            "`model new` prints a template and takes no sweep",
        )),
        Command::Model(model::ModelCommand::Show(a)) => {
            query::run(a, ctx, &[], false).map_err(query::as_flags)
        }
        Command::Matmul(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Fusion(c) => query::run(c.query(), ctx, &[], false).map_err(query::as_flags),
        Command::Launch(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Point(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Collective(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Plan(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Kv(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Decode(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Prefill(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Speculative(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Simulate(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Fleet(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Occupancy(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Coalesce(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::LittlesLaw(a) => query::run(a, ctx, &[], false).map_err(query::as_flags),
        Command::Calibrate(a) => calibrate::run(a, ctx),
        // main draws a chart itself; a scenario's chart query gets here,
        // writes its file and reports nothing.
        Command::Chart(c) => {
            chart::write(&chart::draw(c, &cli.global)?)?;
            Ok(Vec::new())
        }
        Command::Run(_) | Command::Completions(_) | Command::Man(_) => Err(Error::usage(
            "--sweep",
            "this command takes no sweep; put sweeps inside a scenario's queries",
        )),
    }
}

//! `hw list` and `model list`: one report per catalog entry, each deriving
//! the figures the list shows (the field each is read from and its
//! source), for `--explain`; the table, JSON, CSV and Markdown are made
//! from those same reports. A list takes only the shared flags it uses:
//! the others (`--sweep`, `--all`, `--achievable`, `--chart`, `--y`, the
//! other kind's folder) are refused as unknown arguments, not ignored.

use super::Ctx;
use clap::builder::TypedValueParser;
use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use roofline::catalog::Entry;
use roofline::error::{Error, Result};
use roofline::report::Report;
use roofline::spec::overrides::Set;

/// The shared flags every list refuses, as (argument id, long name): the
/// ids are those of [`super::Global`]'s fields.
const REFUSED: &[(&str, &str)] = &[
    ("sweep", "sweep"),
    ("all", "all"),
    ("achievable", "achievable"),
    ("chart", "chart"),
    ("y", "y"),
];

/// Adds a hidden argument for each refused flag. A subcommand's own
/// argument stops clap from giving it the global one of the same id, and
/// this one's value parser reports it as an unknown argument (exit 2), so
/// the flag is neither accepted nor shown in `--help`.
fn refuse(cmd: Command, other_dir: (&'static str, &'static str), tip: &'static str) -> Command {
    REFUSED
        .iter()
        .chain(std::iter::once(&other_dir))
        .fold(cmd, |cmd, (id, long)| {
            cmd.arg(
                Arg::new(*id)
                    .long(*long)
                    .hide(true)
                    // `--sweep` and `--sweep=x` alike reach the parser.
                    .num_args(0..=1)
                    .require_equals(true)
                    .default_missing_value("")
                    .action(ArgAction::Set)
                    .value_parser(Refused { long, tip }),
            )
        })
}

/// The value parser of a refused flag: always clap's unknown-argument
/// error, worded as clap words it, with a tip naming what the list takes.
#[derive(Clone)]
struct Refused {
    long: &'static str,
    tip: &'static str,
}

impl TypedValueParser for Refused {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &Command,
        _: Option<&Arg>,
        _: &std::ffi::OsStr,
    ) -> std::result::Result<String, clap::Error> {
        let usage = cmd.clone().render_usage();
        Err(clap::Error::raw(
            ErrorKind::UnknownArgument,
            format!(
                "unexpected argument '--{}' found\n\n  tip: {}\n\n{usage}\n\nFor more information, try '--help'.\n",
                self.long, self.tip
            ),
        ))
    }
}

/// `hw list` flags: the shared --format, --explain, --set and --hw-dir.
#[derive(Debug, Clone, Copy, Default)]
pub struct HwListArgs;

/// `model list` flags: the shared --format, --explain, --set and
/// --model-dir.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModelListArgs;

macro_rules! list_args {
    ($t:ty, $other:expr, $tip:expr) => {
        impl FromArgMatches for $t {
            fn from_arg_matches(_: &ArgMatches) -> std::result::Result<Self, clap::Error> {
                Ok(Self)
            }
            fn update_from_arg_matches(
                &mut self,
                _: &ArgMatches,
            ) -> std::result::Result<(), clap::Error> {
                Ok(())
            }
        }
        impl Args for $t {
            fn augment_args(cmd: Command) -> Command {
                refuse(cmd, $other, $tip)
            }
            fn augment_args_for_update(cmd: Command) -> Command {
                refuse(cmd, $other, $tip)
            }
        }
    };
}

list_args!(
    HwListArgs,
    ("model_dir", "model-dir"),
    "`hw list` takes --format, --explain, --set and --hw-dir; `roofline hw show ID` takes the rest"
);
list_args!(
    ModelListArgs,
    ("hw_dir", "hw-dir"),
    "`model list` takes --format, --explain, --set and --model-dir; `roofline model show ID` takes the rest"
);

/// A refused flag given before the command's name (`roofline --all hw
/// list`), where clap still takes it as the global one.
pub fn check_global(g: &super::Global) -> Result<()> {
    let given = [
        ("--sweep", !g.sweep.is_empty()),
        ("--all", g.all),
        ("--achievable", g.achievable),
        ("--chart", g.chart.is_some()),
        ("--y", g.y.is_some()),
    ];
    match given.iter().find(|(_, on)| *on) {
        Some((flag, _)) => Err(Error::usage(
            *flag,
            "a list takes only --format, --explain, --set and its folder (--hw-dir, --model-dir)",
        )),
        None => Ok(()),
    }
}

/// Runs a list command over `entries` (`kind` is `hw` or `model`): loads
/// each file with the `--set`s (and without, to tell what they change),
/// makes its report with `entry`, and returns those reports for
/// `--explain`, else the one table `table` makes of them.
///
/// A file that does not load is left out with a note giving its path, line
/// and error, so one bad file in a folder does not hide the rest. A `--set`
/// applies to each file it validates for; a file it does not validate for
/// is listed with its own figures and a note saying why, and a `--set` that
/// validates for none is an error.
pub fn run<T>(
    ctx: &Ctx,
    kind: &str,
    explain: bool,
    entries: Vec<Entry>,
    load: impl Fn(&str, &[Set]) -> Result<T>,
    entry: impl Fn(&T) -> Result<Report>,
    table: impl FnOnce(Vec<Report>) -> Report,
) -> Result<Vec<Report>> {
    ctx.check_sets_used()?;
    let sets = &ctx.sets;
    let what_if = ctx.sets_text();
    let mut reports = Vec::new();
    // The table's notes; those `--explain` adds after the last entry (an
    // entry's own notes are in its report); the entries --set left alone.
    let mut notes = Vec::new();
    let mut list_notes = Vec::new();
    let mut kept = Vec::new();
    let mut refusal = None;
    let mut changed = false;
    // A file that does not load, and one that loads but whose figures
    // cannot be worked out (its error names it), are left out differently.
    let make = |id: &str, sets: &[Set]| match load(id, sets) {
        Ok(x) => entry(&x).map_err(|e| Box::new((format!("left out {e}"), e))),
        Err(e) => Err(Box::new((
            format!("left out {id}, which does not load: {e}"),
            e,
        ))),
    };
    for e in entries {
        let plain = make(&e.id, &[]);
        let with_sets = (!sets.is_empty()).then(|| make(&e.id, sets));
        match (with_sets, plain) {
            (None, Ok(r)) => reports.push(r),
            (Some(Ok(mut r)), plain) => {
                changed |= plain.map_or(true, |p| p.results != r.results);
                r.note(format!(
                    "what-if: --set {what_if} replaces the file's figures"
                ));
                reports.push(r);
            }
            (Some(Err(failed)), Ok(mut p)) => {
                let (_, err) = *failed;
                let why = format!(
                    "listed with its own figures, since --set does not validate for it: {err}"
                );
                notes.push(format!("{}: {why}", e.id));
                p.note(why);
                refusal.get_or_insert(err);
                kept.push(e.id);
                reports.push(p);
            }
            (_, Err(failed)) => {
                let (n, _) = *failed;
                notes.push(n.clone());
                list_notes.push(n);
            }
        }
    }
    if !sets.is_empty() {
        let applied = reports.len() - kept.len();
        if let (0, Some(err)) = (applied, refusal) {
            // A path no file has is the flag's typo: say so, with the nearest field.
            let err = match super::blame_set(err, sets) {
                e @ Error::Data { field: None, .. } if e.to_string().starts_with("--set ") => {
                    return Err(e);
                }
                e => e,
            };
            return Err(Error::input(
                "--set",
                format!("`{what_if}` validates for none of the listed files; the first: {err}"),
            ));
        }
        if !explain {
            notes.push(if kept.is_empty() {
                format!("what-if: --set {what_if} replaces the file's figures")
            } else {
                format!(
                    "what-if: --set {what_if} replaces the file's figures of {applied} of the {} listed; {} keep their own (above)",
                    reports.len(),
                    kept.join(", ")
                )
            });
        }
        if !changed {
            let paths: Vec<&str> = sets.iter().map(|s| s.path.as_str()).collect();
            let n = format!(
                "--set {} changes none of the figures `{kind} list` shows; `roofline {kind} show ID` with the same --set shows what it changes",
                paths.join(", ")
            );
            notes.push(n.clone());
            list_notes.push(n);
        }
    }
    if explain && !reports.is_empty() {
        let last = reports.len() - 1;
        for n in list_notes {
            reports[last].note(n);
        }
        return Ok(reports);
    }
    let mut t = table(reports);
    for n in notes {
        t.note(n);
    }
    Ok(vec![t])
}

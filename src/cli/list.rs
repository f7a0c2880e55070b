//! `hw list` and `model list`: one report per catalog entry, each deriving
//! the figures the list shows (the field each is read from and its
//! source), for `--explain`; the table, JSON, CSV and Markdown are made
//! from those same reports. A list takes only the shared flags it uses:
//! the others (`--sweep`, `--all`, `--achievable`, `--chart`, `--y`, the
//! other kind's folder) are refused as unknown arguments, not ignored.

use clap::builder::TypedValueParser;
use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use roofline::error::{Error, Result};

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

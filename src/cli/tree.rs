//! clap's command tree, built only as far as a command line needs it.
//! Building every command's flags (and the shared flags clap copies into
//! each) was most of a query's start-up; a command line that names its
//! command (`roofline decode ...`) gets a tree of that one command, and
//! `--version` a tree of none. `--help` (or no command) gets the other
//! commands as shells: their names and one-line help, no flags. Whatever
//! else (`roofline help decode`, a mistyped command or flag, which clap
//! answers with suggestions drawn from every command) gets the whole tree.

use clap::{ArgMatches, Args, Command, CommandFactory, FromArgMatches, Subcommand};
use std::cell::RefCell;

/// How much of the tree a command line needs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Want {
    /// Every command with its flags, as clap's own `Cli::command()` builds.
    Whole,
    /// Every command as a shell (the root's `--help`, or no command).
    Shells,
    /// No command (`--version`).
    Bare,
    /// This one command, with its flags, and no other: the root's shared
    /// flags are then copied into one command rather than into each.
    One(String),
}

thread_local! {
    /// What [`for_argv`] is building.
    static ONLY: RefCell<Want> = const { RefCell::new(Want::Whole) };
}

/// A command's flags (or its subcommands), added to its shell only when the
/// tree is built whole or for that command. It parses, and derefs, as `T`.
#[derive(Debug, Clone)]
pub struct OnDemand<T>(pub T);

/// `FromArgMatches` for a newtype over a subcommand enum: the matches are
/// the enum's.
macro_rules! from_arg_matches_of_newtype {
    ($t:ident) => {
        impl<T: FromArgMatches> FromArgMatches for $t<T> {
            fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
                T::from_arg_matches(m).map(Self)
            }
            fn from_arg_matches_mut(m: &mut ArgMatches) -> Result<Self, clap::Error> {
                T::from_arg_matches_mut(m).map(Self)
            }
            fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
                self.0.update_from_arg_matches(m)
            }
            fn update_from_arg_matches_mut(
                &mut self,
                m: &mut ArgMatches,
            ) -> Result<(), clap::Error> {
                self.0.update_from_arg_matches_mut(m)
            }
        }
    };
}

impl<T> std::ops::Deref for OnDemand<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for OnDemand<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

fn wanted(cmd: &Command) -> bool {
    ONLY.with_borrow(|only| match only {
        Want::Whole => true,
        Want::One(name) => name == cmd.get_name(),
        Want::Shells | Want::Bare => false,
    })
}

impl<T: Args> Args for OnDemand<T> {
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
    fn augment_args(cmd: Command) -> Command {
        if wanted(&cmd) {
            T::augment_args(cmd)
        } else {
            cmd
        }
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        if wanted(&cmd) {
            T::augment_args_for_update(cmd)
        } else {
            cmd
        }
    }
}

impl<T: Subcommand> Subcommand for OnDemand<T> {
    fn augment_subcommands(cmd: Command) -> Command {
        if wanted(&cmd) {
            T::augment_subcommands(cmd)
        } else {
            cmd
        }
    }
    fn augment_subcommands_for_update(cmd: Command) -> Command {
        if wanted(&cmd) {
            T::augment_subcommands_for_update(cmd)
        } else {
            cmd
        }
    }
    fn has_subcommand(name: &str) -> bool {
        T::has_subcommand(name)
    }
}

from_arg_matches_of_newtype!(OnDemand);

/// The root's commands: all of them, or (for a command line that names
/// one) only that one, so that clap copies the shared flags into one
/// command rather than into every shell. It parses, and derefs, as `T`.
#[derive(Debug)]
pub struct Root<T>(pub T);

impl<T> std::ops::Deref for Root<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Root<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Subcommand> Subcommand for Root<T> {
    fn augment_subcommands(cmd: Command) -> Command {
        match ONLY.with_borrow(Clone::clone) {
            Want::Whole | Want::Shells => T::augment_subcommands(cmd),
            Want::Bare => cmd,
            Want::One(name) => {
                let mut all = T::augment_subcommands(Command::new(""));
                match all.get_subcommands_mut().find(|c| c.get_name() == name) {
                    Some(one) => cmd.subcommand(std::mem::replace(one, Command::new(""))),
                    None => T::augment_subcommands(cmd),
                }
            }
        }
    }
    fn augment_subcommands_for_update(cmd: Command) -> Command {
        T::augment_subcommands_for_update(cmd)
    }
    fn has_subcommand(name: &str) -> bool {
        T::has_subcommand(name)
    }
}

from_arg_matches_of_newtype!(Root);

/// The command tree `argv` needs: the command it names alone, built; every
/// command built where that is not certain.
pub fn for_argv(argv: &[String]) -> Command {
    let want = named(argv);
    let charts = want == Want::Whole || want == Want::One("chart".into());
    ONLY.set(want);
    let cmd = super::Cli::command();
    ONLY.set(Want::Whole);
    if charts {
        without_sweep_flags(cmd)
    } else {
        cmd
    }
}

/// `chart KIND` refuses the shared flags that draw another command's sweep
/// (`--sweep`, `--chart`, `--y`: it draws its own ranges to `--out`), so
/// its help leaves them out. clap copies shared flags into a command when
/// the tree is built, so the tree is built first; they still parse, and
/// the refusal says what to do instead.
pub fn without_sweep_flags(mut cmd: Command) -> Command {
    if cmd.find_subcommand("chart").is_none() {
        return cmd;
    }
    cmd.build();
    cmd.mut_subcommand("chart", |chart| {
        let kinds: Vec<String> = chart
            .get_subcommands()
            .map(|k| k.get_name().to_string())
            .collect();
        let hide = |a: clap::Arg| {
            if matches!(a.get_id().as_str(), "sweep" | "chart" | "y") {
                a.hide(true)
            } else {
                a
            }
        };
        kinds.into_iter().fold(chart.mut_args(hide), |c, k| {
            c.mut_subcommand(k, |kind| kind.mut_args(hide))
        })
    })
}

/// The command `argv` runs, if clap will surely find it: the first word
/// that is neither a shared flag nor a shared flag's value, when it is a
/// command's name. A root-level `--help` (or no command at all) needs the
/// commands' names only, `--version` none. Anything else (a flag or word
/// clap may answer with a suggestion from any command's flags, `help`,
/// `--`) needs the whole tree.
fn named(argv: &[String]) -> Want {
    want(argv).unwrap_or(Want::Whole)
}

fn want(argv: &[String]) -> Option<Want> {
    let global = super::Global::augment_args(Command::new("global"));
    let mut args = argv.iter().skip(1);
    while let Some(a) = args.next() {
        if matches!(a.as_str(), "-h" | "--help") {
            return Some(Want::Shells);
        }
        if matches!(a.as_str(), "-V" | "--version") {
            return Some(Want::Bare);
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            let arg = global
                .get_arguments()
                .find(|g| g.get_long() == Some(name))?;
            if !inline && arg.get_action().takes_values() {
                args.next()?;
            }
            continue;
        }
        if a.starts_with('-') {
            return None;
        }
        return super::Command::has_subcommand(a).then(|| Want::One(a.clone()));
    }
    Some(Want::Shells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        std::iter::once("roofline")
            .chain(line.split_whitespace())
            .map(String::from)
            .collect()
    }

    #[test]
    fn the_named_command_is_found_past_shared_flags_and_their_values() {
        let one = |name: &str| Want::One(name.into());
        for (line, want) in [
            ("decode --batch 8", one("decode")),
            ("--format json decode --batch 8", one("decode")),
            ("--format=json --achievable hw list", one("hw")),
            ("--set a=1 --set b=2 plan", one("plan")),
            ("--y decode plan", one("plan")),
            ("--version", Want::Bare),
            ("--format json -V", Want::Bare),
            ("--format json --help", Want::Shells),
            ("-h --version", Want::Shells),
            ("", Want::Shells),
            ("help decode", Want::Whole),
            ("decod --batch 8", Want::Whole),
            ("--batch 8 decode", Want::Whole),
            ("-x decode", Want::Whole),
            ("-- decode", Want::Whole),
            ("--format", Want::Whole),
        ] {
            assert_eq!(named(&argv(line)), want, "{line}");
        }
    }

    /// What clap prints for a command line, from a tree.
    fn answer(tree: Command, line: &[String]) -> String {
        match tree.try_get_matches_from(line) {
            Ok(_) => "parsed".into(),
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        }
    }

    /// Each command (and each of its subcommands) built alone answers its
    /// help, a bad flag and a missing value as it does in the whole tree,
    /// and so do the root's help and version; no other command is built
    /// beside it, and the root's help has every command as a shell.
    #[test]
    fn a_command_built_alone_answers_as_in_the_whole_tree() {
        let whole = super::super::Cli::command();
        let mut lines: Vec<String> = vec![String::new(), "--help".into(), "-V".into()];
        for c in whole.get_subcommands() {
            let name = c.get_name();
            lines.push(name.into());
            for sub in c.get_subcommands() {
                lines.push(format!("{name} {}", sub.get_name()));
            }
        }
        assert!(lines.len() > 30, "{lines:?}");
        for line in lines {
            for tail in ["--help", "-h", "--no-such-flag", "--format", "--format xml"] {
                let full = argv(&format!("{line} {tail}"));
                assert_eq!(
                    answer(for_argv(&full), &full),
                    answer(without_sweep_flags(super::super::Cli::command()), &full),
                    "{line} {tail}"
                );
            }
            let alone = for_argv(&argv(&line));
            // A built tree (chart's, whose help hides the sweep flags) has
            // clap's own `help` beside the command.
            let names: Vec<&str> = alone
                .get_subcommands()
                .map(|c| c.get_name())
                .filter(|n| *n != "help" || line.split_whitespace().next() == Some("help"))
                .collect();
            match line.split_whitespace().next() {
                Some("--help") | None => {
                    assert_eq!(names.len(), whole.get_subcommands().count(), "{line}");
                    for shell in alone.get_subcommands() {
                        assert_eq!(shell.get_arguments().count(), 0, "{}", shell.get_name());
                        assert_eq!(shell.get_subcommands().count(), 0, "{}", shell.get_name());
                    }
                }
                Some("-V") => assert!(names.is_empty(), "{names:?}"),
                Some(first) => assert_eq!(names, [first], "{line}"),
            }
        }
    }
}

//! clap's command tree, built only as far as a command line needs it.
//! Building every command's flags (and the shared flags clap copies into
//! each) was most of a query's start-up; a command line that names its
//! command (`roofline decode ...`) gets a tree whose other commands are
//! shells: their names and one-line help, no flags. Whatever else
//! (`roofline help decode`, a mistyped command or flag, which clap answers
//! with suggestions drawn from every command) gets the whole tree.

use clap::{ArgMatches, Args, Command, CommandFactory, FromArgMatches, Subcommand};
use std::cell::RefCell;

thread_local! {
    /// The one command whose flags are built (`""`: none); `None` builds
    /// every command's, as clap's own `Cli::command()` does.
    static ONLY: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A command's flags (or its subcommands), added to its shell only when the
/// tree is built whole or for that command. It parses, and derefs, as `T`.
#[derive(Debug, Clone)]
pub struct OnDemand<T>(pub T);

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
    ONLY.with_borrow(|only| only.as_deref().is_none_or(|name| name == cmd.get_name()))
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

impl<T: FromArgMatches> FromArgMatches for OnDemand<T> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(m).map(Self)
    }
    fn from_arg_matches_mut(m: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(m).map(Self)
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(m)
    }
    fn update_from_arg_matches_mut(&mut self, m: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(m)
    }
}

/// The command tree `argv` needs: the command it names built, the others
/// shells; every command built where that is not certain.
pub fn for_argv(argv: &[String]) -> Command {
    let only = named(argv);
    ONLY.set(only);
    let cmd = super::Cli::command();
    ONLY.set(None);
    cmd
}

/// The command `argv` runs, if clap will surely find it: the first word
/// that is neither a shared flag nor a shared flag's value, when it is a
/// command's name. `Some("")`: a root-level `--help` or `--version` (or no
/// command at all), which needs no command's flags. `None`: anything
/// else (a flag or word clap may answer with a suggestion from any
/// command's flags, `help`, `--`).
fn named(argv: &[String]) -> Option<String> {
    let global = super::Global::augment_args(Command::new("global"));
    let mut args = argv.iter().skip(1);
    while let Some(a) = args.next() {
        if matches!(a.as_str(), "-h" | "--help" | "-V" | "--version") {
            return Some(String::new());
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
        return super::Command::has_subcommand(a).then(|| a.clone());
    }
    Some(String::new())
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
        for (line, want) in [
            ("decode --batch 8", Some("decode")),
            ("--format json decode --batch 8", Some("decode")),
            ("--format=json --achievable hw list", Some("hw")),
            ("--set a=1 --set b=2 plan", Some("plan")),
            ("--y decode plan", Some("plan")),
            ("--version", Some("")),
            ("--format json --help", Some("")),
            ("", Some("")),
            ("help decode", None),
            ("decod --batch 8", None),
            ("--batch 8 decode", None),
            ("-x decode", None),
            ("-- decode", None),
            ("--format", None),
        ] {
            assert_eq!(named(&argv(line)).as_deref(), want, "{line}");
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
    /// and so do the root's help and version; the other commands stay
    /// shells.
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
                    answer(super::super::Cli::command(), &full),
                    "{line} {tail}"
                );
            }
            let alone = for_argv(&argv(&line));
            let first = line.split_whitespace().next().unwrap_or("");
            for other in alone.get_subcommands().filter(|c| c.get_name() != first) {
                assert_eq!(other.get_arguments().count(), 0, "{}", other.get_name());
                assert_eq!(other.get_subcommands().count(), 0, "{}", other.get_name());
            }
        }
    }
}

//! clap's arguments built from a command's declared inputs
//! ([`roofline::query::declared`]), and the fields read back from them:
//! the command line's side of the one declaration.

use clap::builder::{Resettable, Str};
use clap::{Arg, ArgAction, ArgGroup, ArgMatches, Command};
use roofline::inputs::Fields;
use roofline::query::declared::{Declared, Flag};
use serde_json::Value;

/// clap's id of an input: the name with `_` for `-`, as the derive names a
/// field.
fn id(name: &str) -> String {
    name.replace('-', "_")
}

/// One input as clap's argument.
fn arg(f: &Flag) -> Arg {
    let mut a = Arg::new(id(f.name))
        .long(f.name)
        .help(f.help)
        .required(f.required);
    a = if f.switch {
        a.action(ArgAction::SetTrue)
    } else {
        a.action(ArgAction::Set)
            .value_name(
                f.value_name
                    .map_or_else(|| id(f.name).to_uppercase(), String::from),
            )
            .allow_hyphen_values(f.hyphen_values)
    };
    if !f.conflicts.is_empty() {
        a = a.conflicts_with_all(f.conflicts.iter().map(|c| id(c)));
    }
    for r in f.requires {
        a = a.requires(id(r));
    }
    a
}

/// `cmd` with `flags` (each under its heading).
fn add<'a>(mut cmd: Command, flags: impl Iterator<Item = &'a Flag>) -> Command {
    let before = cmd
        .get_next_help_heading()
        .map(|h| Str::from(h.to_string()));
    for f in flags {
        let heading = f.heading.map(Str::from).or_else(|| before.clone());
        cmd = cmd.next_help_heading(Resettable::from(heading));
        cmd = cmd.arg(arg(f));
    }
    cmd.next_help_heading(Resettable::from(before))
}

/// `cmd` with one declared group of inputs (the prices, which commands
/// not declared here flatten into their own flags).
pub fn augment_group(cmd: Command, group: &[Flag]) -> Command {
    add(cmd, group.iter())
}

/// `cmd` with the declared inputs of `d` (under their headings, as they
/// are listed) and the group of which one is needed.
pub fn augment(cmd: Command, d: &Declared) -> Command {
    let mut cmd = add(cmd, d.flags());
    if !d.one_of.is_empty() {
        cmd = cmd.group(
            ArgGroup::new(d.one_of.join("-or-"))
                .args(d.one_of.iter().map(|n| id(n)))
                .required(true)
                .multiple(true),
        );
    }
    cmd
}

/// The fields the command line gave for `d`.
pub fn fields(m: &ArgMatches, d: &Declared) -> Fields {
    read(m, d.flags())
}

/// The fields the command line gave for one declared group.
pub fn group_fields(m: &ArgMatches, group: &[Flag]) -> Fields {
    read(m, group.iter())
}

/// The fields the command line gave: every value (text trimmed), and a
/// switch only when it is on.
fn read<'a>(m: &ArgMatches, flags: impl Iterator<Item = &'a Flag>) -> Fields {
    let mut out = Fields::new();
    for f in flags {
        let id = id(f.name);
        if f.switch {
            if m.get_flag(&id) {
                out.insert(f.name.into(), Value::Bool(true));
            }
        } else if let Some(v) = m.get_one::<String>(&id) {
            out.insert(f.name.into(), Value::from(v.trim()));
        }
    }
    out
}

/// A command's flags as its declaration gives them: its name, the fields
/// given, and the examples `--help` ends with.
macro_rules! declared_args {
    ($(#[$meta:meta])* $name:ident = $decl:path, $examples:expr) => {
        $(#[$meta])*
        #[derive(Debug, Clone)]
        pub struct $name {
            fields: roofline::inputs::Fields,
        }

        impl clap::FromArgMatches for $name {
            fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
                Ok(Self {
                    fields: super::declared::fields(m, &$decl),
                })
            }
            fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
                self.fields = super::declared::fields(m, &$decl);
                Ok(())
            }
        }

        impl clap::Args for $name {
            fn augment_args(cmd: clap::Command) -> clap::Command {
                super::declared::augment(cmd, &$decl).after_help($examples)
            }
            fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
                Self::augment_args(cmd)
            }
        }

        impl super::query::Query for $name {
            fn command(&self) -> &'static str {
                $decl.command
            }
            fn fields(&self) -> roofline::error::Result<roofline::inputs::Fields> {
                Ok(self.fields.clone())
            }
        }
    };
}
pub(crate) use declared_args;

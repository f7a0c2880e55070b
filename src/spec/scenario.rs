//! Scenario files: a saved study that reruns with one command
//! (`roofline run FILE`). A scenario has a title, notes and a list of
//! queries; each query names a command and gives its inputs as the
//! library's fields (the same names as the command's flags), with sweeps,
//! comparisons (a list of accelerators or models) and what-ifs. The format
//! is documented in `docs/scenarios.md`.
//!
//! ```toml
//! title = "The lecture's tiling table"
//!
//! [[query]]
//! title = "4096^3 bf16 on an H100"
//! command = "matmul"
//! hw = "h100-sxm"
//! m = 4096
//! n = 4096
//! k = 4096
//! sweep = ["tile=32..256"]
//! ```

use super::{Origin, from_toml, locate};
use crate::error::{Error, Result};
use indexmap::IndexMap;
use serde::Deserialize;

/// Keys of a query that are not inputs of its command.
pub const RESERVED: &[&str] = &[
    "title",
    "command",
    "notes",
    "sweep",
    "set",
    "achievable",
    "all",
];

/// A parsed scenario file.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// What the study is.
    pub title: String,
    /// Notes printed under the title.
    pub notes: Vec<String>,
    /// The queries, in order.
    pub queries: Vec<Query>,
}

/// One query of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// Its heading (default: the command).
    pub title: Option<String>,
    /// The command, as typed after `roofline` (`matmul`, `hw show`,
    /// `fusion softmax`).
    pub command: String,
    /// Notes printed under its heading.
    pub notes: Vec<String>,
    /// The command's inputs by field name, in file order.
    pub fields: IndexMap<String, Value>,
    /// `--sweep` specs (`tile=32..256`).
    pub sweep: Vec<String>,
    /// `--set` what-ifs (`memory.hbm-bandwidth=4.8 TB/s`).
    pub set: Vec<String>,
    /// Measured figures instead of the datasheet's.
    pub achievable: bool,
    /// Tables show every result, not only the headline.
    pub all: bool,
}

/// An input value as a scenario gives it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Text or a number, passed as typed.
    Text(String),
    /// A switch (`textbook = true`).
    Switch(bool),
    /// A list: a comparison of accelerators or models.
    List(Vec<String>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    title: String,
    #[serde(default)]
    notes: Notes,
    #[serde(default)]
    query: Vec<RawQuery>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
enum Notes {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl From<Notes> for Vec<String> {
    fn from(n: Notes) -> Self {
        match n {
            Notes::None => Vec::new(),
            Notes::One(s) => vec![s],
            Notes::Many(v) => v,
        }
    }
}

#[derive(Debug, Deserialize)]
struct RawQuery {
    title: Option<String>,
    command: String,
    #[serde(default)]
    notes: Notes,
    #[serde(default)]
    sweep: Specs,
    #[serde(default)]
    set: Specs,
    #[serde(default)]
    achievable: bool,
    #[serde(default)]
    all: bool,
    #[serde(flatten)]
    fields: IndexMap<String, toml::Value>,
}

/// `sweep = "tile=32..256"`, a list of such specs, or a table
/// `{ tile = "32..256" }`.
#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
enum Specs {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
    Table(IndexMap<String, toml::Value>),
}

fn scalar(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        _ => None,
    }
}

/// Parses a scenario file's text; `origin` names it in errors, which give
/// the line and the field.
pub fn parse(src: &str, origin: &Origin) -> Result<Scenario> {
    let file: File = from_toml(src, origin)?;
    let err = |path: String, message: String| Error::Data {
        file: origin.name.clone(),
        line: locate(src, &path),
        col: None,
        field: Some(path),
        message,
    };
    let mut queries = Vec::new();
    for (i, q) in file.query.into_iter().enumerate() {
        let specs = |s: Specs, key: &str| -> Result<Vec<String>> {
            Ok(match s {
                Specs::None => Vec::new(),
                Specs::One(s) => vec![s],
                Specs::Many(v) => v,
                Specs::Table(t) => t
                    .into_iter()
                    .map(|(k, v)| {
                        scalar(&v).map(|v| format!("{k}={v}")).ok_or_else(|| {
                            err(
                                format!("query.{i}.{key}.{k}"),
                                "expected text or a number".into(),
                            )
                        })
                    })
                    .collect::<Result<_>>()?,
            })
        };
        let command = q.command.split_whitespace().collect::<Vec<_>>().join(" ");
        if command.is_empty() {
            return Err(err(
                format!("query.{i}.command"),
                "the command is empty; e.g. command = \"matmul\"".into(),
            ));
        }
        // The TOML reader sorts a table's keys; put them back in file order
        // so the command line reads as written.
        let mut raw: Vec<(String, toml::Value)> = q.fields.into_iter().collect();
        raw.sort_by_key(|(k, _)| locate(src, &format!("query.{i}.{k}")).unwrap_or(usize::MAX));
        let mut fields = IndexMap::new();
        for (k, v) in raw {
            let value = match &v {
                toml::Value::Boolean(b) => Value::Switch(*b),
                toml::Value::Array(items) => Value::List(
                    items
                        .iter()
                        .map(|x| {
                            scalar(x).ok_or_else(|| {
                                err(
                                    format!("query.{i}.{k}"),
                                    "a list holds text or numbers".into(),
                                )
                            })
                        })
                        .collect::<Result<_>>()?,
                ),
                other => Value::Text(scalar(other).ok_or_else(|| {
                    err(
                        format!("query.{i}.{k}"),
                        "expected text, a number, a boolean or a list".into(),
                    )
                })?),
            };
            fields.insert(k, value);
        }
        queries.push(Query {
            title: q.title,
            command,
            notes: q.notes.into(),
            fields,
            sweep: specs(q.sweep, "sweep")?,
            set: specs(q.set, "set")?,
            achievable: q.achievable,
            all: q.all,
        });
    }
    if queries.is_empty() {
        return Err(Error::Data {
            file: origin.name.clone(),
            line: None,
            col: None,
            field: Some("query".into()),
            message: "a scenario needs at least one [[query]]".into(),
        });
    }
    Ok(Scenario {
        title: file.title,
        notes: file.notes.into(),
        queries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin {
        Origin {
            name: "s.toml".into(),
            overridden: false,
        }
    }

    #[test]
    fn queries_keep_their_fields_in_order() {
        let s = parse(
            r#"
title = "t"
notes = "n"

[[query]]
command = "matmul"
hw = ["h100-sxm", "b200"]
m = 4096
textbook = true
sweep = { tile = "32..256" }
"#,
            &origin(),
        )
        .unwrap();
        assert_eq!(s.notes, ["n"]);
        let q = &s.queries[0];
        assert_eq!(q.command, "matmul");
        assert_eq!(q.fields.keys().collect::<Vec<_>>(), ["hw", "m", "textbook"]);
        assert_eq!(
            q.fields["hw"],
            Value::List(vec!["h100-sxm".into(), "b200".into()])
        );
        assert_eq!(q.fields["m"], Value::Text("4096".into()));
        assert_eq!(q.fields["textbook"], Value::Switch(true));
        assert_eq!(q.sweep, ["tile=32..256"]);
    }

    #[test]
    fn errors_name_the_line_and_field() {
        let e = parse(
            "title = \"t\"\n\n[[query]]\ncommand = \"point\"\nhw = { a = 1 }\n",
            &origin(),
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("s.toml:5"), "{text}");
        assert!(text.contains("query.0.hw"), "{text}");
        let e = parse("title = \"t\"\n", &origin()).unwrap_err();
        assert!(e.to_string().contains("at least one"), "{e}");
        let e = parse(
            "title = \"t\"\nbogus = 1\n[[query]]\ncommand = \"point\"\n",
            &origin(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
        assert_eq!(e.exit_code(), 65);
    }
}

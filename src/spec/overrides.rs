//! `--set key=value`: what-if overrides applied to a data file's TOML text
//! before it is parsed, so an overridden value is validated exactly like one
//! written in the file. Keys are the file's kebab-case paths
//! (`memory.hbm-bandwidth`); a number indexes a list of tables
//! (`interconnect.0.domain-size`).

use crate::error::{Error, Result};
use std::str::FromStr;

/// One `--set` assignment.
#[derive(Debug, Clone, PartialEq)]
pub struct Set {
    /// The dotted kebab-case path.
    pub path: String,
    /// The value as typed.
    pub value: String,
}

impl FromStr for Set {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let (k, v) = s.split_once('=').ok_or_else(|| {
            Error::input(
                "--set",
                format!("`{s}`: expected KEY=VALUE, e.g. memory.hbm-bandwidth=\"4.8 TB/s\""),
            )
        })?;
        let path = k.trim();
        if path.is_empty() || path.split('.').any(str::is_empty) {
            return Err(Error::input(
                "--set",
                format!("`{s}`: the key path is empty or has an empty part"),
            ));
        }
        if path.contains('_') {
            return Err(Error::input(
                "--set",
                format!(
                    "`{path}`: keys are kebab-case, as in the files (`{}`)",
                    path.replace('_', "-")
                ),
            ));
        }
        Ok(Set {
            path: path.to_string(),
            value: v.trim().to_string(),
        })
    }
}

/// The top-level fields of the model schema that no hardware file has: a
/// `--set` path starting with one goes to the model. `id`, `name`,
/// `summary` and `sources`, which both kinds of file have, go to the
/// model only under the `model.` prefix.
pub const MODEL_ROOTS: &[&str] = &[
    "layers",
    "hidden-size",
    "vocab-size",
    "tied-embeddings",
    "max-context",
    "sliding-window",
    "layer-types",
    "norms-per-layer",
    "weight-dtype",
    "weight-formats",
    "card-params",
    "card-active-params",
    "family",
    "norm",
    "position-embedding",
    "linear-bias",
    "attention",
    "ffn",
    "moe",
];

/// The prefix that sends any `--set` path to the model
/// (`model.weight-formats.routed-experts=nvfp4`, `model.name=...`).
pub const MODEL_PREFIX: &str = "model.";

/// Which kind of file a `--set` path belongs to: a path under the
/// `model.` prefix, or whose first part is a top-level field of the model
/// schema ([`MODEL_ROOTS`]), goes to the model.
pub fn is_model_path(path: &str) -> bool {
    if path.starts_with(MODEL_PREFIX) {
        return true;
    }
    let root = path.split('.').next().unwrap_or("");
    MODEL_ROOTS.contains(&root)
}

/// The path inside the file: a model path without its `model.` prefix.
pub fn file_path(path: &str) -> &str {
    path.strip_prefix(MODEL_PREFIX).unwrap_or(path)
}

/// Whether a `--set` path is an engine file's (`engine.moe.dispatch`):
/// its first part is `engine`, which no hardware or model file has.
pub fn is_engine_path(path: &str) -> bool {
    path.starts_with("engine.")
}

/// Which kind of file a `--set` path belongs to, as a word for messages.
pub fn is_hardware_path(path: &str) -> bool {
    !is_model_path(path) && !is_engine_path(path)
}

fn to_value(raw: &str) -> toml_edit::Value {
    // A TOML literal (number, boolean, quoted string, array) is taken as is;
    // anything else ("4.8 TB/s") is a string.
    match toml_edit::Value::from_str(raw) {
        Ok(v) => v,
        Err(_) => toml_edit::Value::from(raw.trim_matches('"')),
    }
}

/// Applies the assignments to TOML text (the file `file`) and returns the
/// new text.
pub fn apply(src: &str, file: &str, sets: &[&Set]) -> Result<String> {
    if sets.is_empty() {
        return Ok(src.to_string());
    }
    apply_to_doc(parse(src, file)?, sets)
}

/// The text of the file `file` as a document the assignments can be
/// applied to; an error names the file, line and field.
pub fn parse(src: &str, file: &str) -> Result<toml_edit::DocumentMut> {
    toml_edit::DocumentMut::from_str(src).map_err(|e| super::edit_error(src, file, &e))
}

/// Applies the assignments to a parsed document ([`parse`]) and returns
/// the new text.
pub fn apply_to_doc(mut doc: toml_edit::DocumentMut, sets: &[&Set]) -> Result<String> {
    for set in sets {
        let parts: Vec<&str> = set.path.split('.').collect();
        let mut item: &mut toml_edit::Item = doc.as_item_mut();
        for (i, part) in parts.iter().enumerate() {
            let last = i.saturating_add(1) == parts.len();
            if let Ok(idx) = part.parse::<usize>() {
                let Some(aot) = item.as_array_of_tables_mut() else {
                    return Err(Error::input(
                        "--set",
                        format!(
                            "`{}`: `{part}` indexes something that is not a list",
                            set.path
                        ),
                    ));
                };
                let len = aot.len();
                let Some(t) = aot.get_mut(idx) else {
                    return Err(Error::input(
                        "--set",
                        format!(
                            "`{}`: index {idx} is past the list's {len} entries",
                            set.path
                        ),
                    ));
                };
                if last {
                    return Err(Error::input(
                        "--set",
                        format!("`{}`: name a field of the list entry", set.path),
                    ));
                }
                // Continue inside the indexed table.
                let rest = parts[i.saturating_add(1)..].join(".");
                set_in_table(t, &rest, &set.value, &set.path)?;
                break;
            }
            if last {
                let table = item.as_table_like_mut().ok_or_else(|| {
                    Error::input(
                        "--set",
                        format!("`{}`: `{part}`'s parent is not a table", set.path),
                    )
                })?;
                table.insert(part, toml_edit::Item::Value(to_value(&set.value)));
            } else {
                let table = item.as_table_like_mut().ok_or_else(|| {
                    Error::input(
                        "--set",
                        format!("`{}`: `{part}`'s parent is not a table", set.path),
                    )
                })?;
                if table.get(part).is_none() {
                    table.insert(part, toml_edit::Item::Table(toml_edit::Table::new()));
                }
                item = table.get_mut(part).expect("inserted above");
            }
        }
    }
    Ok(doc.to_string())
}

/// Applies the assignments to a file's already parsed tree, as [`apply`]
/// does to its text, so a sweep that sets another value at each point
/// parses the file once. `None` where the tree cannot follow the text
/// exactly: a list index (the tree does not tell `[[x]]` from `x = [..]`),
/// a path through a value, a datetime or inline table as the value. The
/// caller then applies to the text, which also names any error.
pub fn apply_to_tree(tree: &mut toml::Table, sets: &[&Set]) -> Option<()> {
    for set in sets {
        let mut parts = set.path.split('.').peekable();
        let mut table = &mut *tree;
        while let Some(part) = parts.next() {
            if part.parse::<usize>().is_ok() {
                return None;
            }
            if parts.peek().is_none() {
                table.insert(part.to_string(), tree_value(to_value(&set.value))?);
                break;
            }
            table = table
                .entry(part)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()?;
        }
    }
    Some(())
}

/// A `--set` value as the tree holds it; `None` for the kinds [`apply`]
/// alone handles.
fn tree_value(v: toml_edit::Value) -> Option<toml::Value> {
    use toml_edit::Value as V;
    Some(match v {
        V::String(s) => toml::Value::String(s.into_value()),
        V::Integer(i) => toml::Value::Integer(i.into_value()),
        V::Float(f) => toml::Value::Float(f.into_value()),
        V::Boolean(b) => toml::Value::Boolean(b.into_value()),
        V::Array(a) => toml::Value::Array(a.into_iter().map(tree_value).collect::<Option<_>>()?),
        V::Datetime(_) | V::InlineTable(_) => return None,
    })
}

fn set_in_table(t: &mut toml_edit::Table, rest: &str, value: &str, full: &str) -> Result<()> {
    let mut parts = rest.split('.').peekable();
    let mut table: &mut dyn toml_edit::TableLike = t;
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            table.insert(part, toml_edit::Item::Value(to_value(value)));
            return Ok(());
        }
        if table.get(part).is_none() {
            table.insert(part, toml_edit::Item::Table(toml_edit::Table::new()));
        }
        table = table
            .get_mut(part)
            .and_then(toml_edit::Item::as_table_like_mut)
            .ok_or_else(|| Error::input("--set", format!("`{full}`: `{part}` is not a table")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_assignments() {
        let s: Set = "memory.hbm-bandwidth=4.8 TB/s".parse().unwrap();
        assert_eq!(s.path, "memory.hbm-bandwidth");
        assert_eq!(s.value, "4.8 TB/s");
        assert!("nokey".parse::<Set>().is_err());
        assert!("a..b=1".parse::<Set>().is_err());
        assert!("memory.hbm_bandwidth=1".parse::<Set>().is_err());
    }

    #[test]
    fn applies_strings_numbers_and_list_entries() {
        let src =
            "[memory]\nhbm-bandwidth = \"3.35 TB/s\"\n\n[[interconnect]]\nname = \"nvlink\"\n";
        let a: Set = "memory.hbm-bandwidth=4.8 TB/s".parse().unwrap();
        let b: Set = "interconnect.0.domain-size=72".parse().unwrap();
        let out = apply(src, "hw.toml", &[&a, &b]).unwrap();
        assert!(out.contains("hbm-bandwidth = \"4.8 TB/s\""), "{out}");
        assert!(out.contains("domain-size = 72"), "{out}");
        let c: Set = "interconnect.3.domain-size=72".parse().unwrap();
        assert!(apply(src, "hw.toml", &[&c]).is_err());
    }

    #[test]
    fn model_paths_are_recognised() {
        assert!(is_model_path("attention.kv-heads"));
        assert!(!is_model_path("memory.hbm-bandwidth"));
    }
}

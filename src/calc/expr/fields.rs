//! A data file's field by its `--set` path (`memory.hbm-bandwidth`,
//! `memory.levels.1.capacity`, `interconnect.0.domain-size`), read from the
//! file's parsed tree as `calc` uses it. A list of tables is indexed by
//! number or by an entry's `name` (`memory.levels.shared-memory.capacity`).

use super::parse::{Fail, quantity};
use super::quantity::{Dims, Value};

/// A field's value and where the file says it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldValue {
    /// The value in base units.
    pub value: Value,
    /// The file's `[sources]` entry for the path, if any.
    pub source: Option<String>,
}

/// Every path to a value in `tree` (lists of tables by index), for
/// suggestions.
pub fn paths(tree: &toml::Table) -> Vec<String> {
    fn walk(prefix: &str, v: &toml::Value, out: &mut Vec<String>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    walk(&join(prefix, k), v, out);
                }
            }
            toml::Value::Array(a) if a.iter().all(toml::Value::is_table) && !a.is_empty() => {
                for (i, v) in a.iter().enumerate() {
                    walk(&join(prefix, &i.to_string()), v, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }
    fn join(p: &str, k: &str) -> String {
        if p.is_empty() {
            k.to_string()
        } else {
            format!("{p}.{k}")
        }
    }
    let mut out = Vec::new();
    for (k, v) in tree {
        if k != "sources" {
            walk(k, v, &mut out);
        }
    }
    out
}

/// The value at `path` in the file `tree` (named `id` in messages).
pub fn field(tree: &toml::Table, id: &str, path: &str) -> Result<FieldValue, Fail> {
    let mut cur = toml::Value::Table(tree.clone());
    let mut canonical: Vec<String> = Vec::new();
    for part in path.split('.') {
        let next = match &cur {
            toml::Value::Table(t) => t.get(part).map(|v| (v.clone(), part.to_string())),
            toml::Value::Array(a) => match part.parse::<usize>() {
                Ok(i) => a.get(i).map(|v| (v.clone(), part.to_string())),
                Err(_) => a
                    .iter()
                    .position(|e| e.get("name").and_then(toml::Value::as_str) == Some(part))
                    .map(|i| (a[i].clone(), i.to_string())),
            },
            _ => None,
        };
        let Some((next, key)) = next else {
            let all = paths(tree);
            let hint = crate::catalog::suggest(path, all.iter().map(String::as_str))
                .map(|s| format!(" (did you mean `{id}.{s}`?)"))
                .unwrap_or_default();
            return Err(format!("`{id}` has no field `{path}`{hint}"));
        };
        canonical.push(key);
        cur = next;
    }
    let name = format!("{id}.{path}");
    let value = match &cur {
        toml::Value::String(s) => quantity(s)
            .ok_or_else(|| format!("`{name}` is the text \"{s}\", not a number with a unit"))?,
        toml::Value::Integer(i) => of_name(path, *i as f64),
        toml::Value::Float(x) => of_name(path, *x),
        toml::Value::Boolean(b) => return Err(format!("`{name}` is a switch ({b}), not a number")),
        toml::Value::Array(a) => {
            return Err(format!(
                "`{name}` is a list of {}; pick one entry by its index, `{name}.0`",
                a.len()
            ));
        }
        toml::Value::Table(t) => {
            let keys: Vec<&str> = t.keys().map(String::as_str).collect();
            return Err(format!(
                "`{name}` is a table; pick one of its fields: {}",
                keys.join(", ")
            ));
        }
        toml::Value::Datetime(_) => return Err(format!("`{name}` is a date, not a number")),
    };
    let source = tree
        .get("sources")
        .and_then(|s| s.get(canonical.join(".")))
        .and_then(toml::Value::as_str)
        .map(str::to_string);
    Ok(FieldValue { value, source })
}

/// A bare number in a file is a count, except where the field's name
/// gives its unit (`tdp-watts`, `bytes-per-cycle`).
fn of_name(path: &str, v: f64) -> Value {
    let last = path.rsplit('.').next().unwrap_or(path);
    let dims = if last.ends_with("-watts") {
        Dims([0, 0, -1, 1])
    } else if last.starts_with("bytes-per-") || last.ends_with("-bytes") {
        Dims([1, 0, 0, 0])
    } else {
        Dims::NONE
    };
    Value {
        value: v,
        dims,
        ratio: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
id = "gpu"
[memory]
hbm-bandwidth = "3.35 TB/s"
[[memory.levels]]
name = "shared-memory"
capacity = "228 KiB"
[package]
tdp-watts = 700
[sources]
"memory.hbm-bandwidth" = "datasheet"
"memory.levels.0.capacity" = "whitepaper"
"#;

    #[test]
    fn paths_by_index_and_name_with_sources() {
        let t: toml::Table = toml::from_str(FILE).unwrap();
        let f = field(&t, "gpu", "memory.hbm-bandwidth").unwrap();
        assert_eq!(f.value.value, 3.35e12);
        assert_eq!(f.source.as_deref(), Some("datasheet"));
        let by_name = field(&t, "gpu", "memory.levels.shared-memory.capacity").unwrap();
        assert_eq!(by_name.value.value, 228.0 * 1024.0);
        assert_eq!(by_name.source.as_deref(), Some("whitepaper"));
        assert_eq!(
            field(&t, "gpu", "memory.levels.0.capacity").unwrap(),
            by_name
        );
        assert_eq!(
            field(&t, "gpu", "package.tdp-watts").unwrap().value.dims,
            Dims([0, 0, -1, 1])
        );
    }

    #[test]
    fn a_wrong_path_suggests_the_nearest() {
        let t: toml::Table = toml::from_str(FILE).unwrap();
        let e = field(&t, "gpu", "memory.hbm-bandwith").unwrap_err();
        assert!(e.contains("did you mean `gpu.memory.hbm-bandwidth`"), "{e}");
        assert!(field(&t, "gpu", "id").unwrap_err().contains("text"));
        assert!(field(&t, "gpu", "memory").unwrap_err().contains("table"));
    }
}

//! Serde types and validation for the data files: hardware, models,
//! engines.
//!
//! Quantity fields are newtypes that parse their unit while the TOML is
//! being read, so a wrong or missing unit is reported with the file's line
//! and column. Checks that need several fields (a per-direction bandwidth
//! above the bidirectional one) run after parsing and locate the field's line
//! from its key path.

pub mod engine;
pub mod hardware;
pub mod hf;
pub mod model;
pub mod overrides;
pub mod scenario;
pub mod template;

use crate::error::Error;
use crate::units::{self, Dim};
use serde::de::{self, Deserializer, Visitor};
use std::fmt;

macro_rules! quantity_type {
    ($(#[$doc:meta])* $name:ident, $dim:expr, $allow_zero:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
        pub struct $name(pub f64);

        impl $name {
            /// The value in base units.
            pub fn get(self) -> f64 {
                self.0
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(QuantityVisitor { dim: $dim, allow_zero: $allow_zero })
                    .map($name)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_f64(self.0)
            }
        }
    };
}

quantity_type!(
    /// A positive size in bytes ("80 GB", "228 KiB", or a bare byte count).
    Bytes, Dim::Bytes, false
);
quantity_type!(
    /// A size in bytes that may be zero (reserved shared memory, a carveout).
    BytesOrZero, Dim::Bytes, true
);
quantity_type!(
    /// A positive bandwidth ("3.35 TB/s").
    BytesPerSec, Dim::BytesPerSec, false
);
quantity_type!(
    /// A positive compute rate ("989 TFLOP/s").
    FlopPerSec, Dim::FlopPerSec, false
);
quantity_type!(
    /// A positive frequency ("1.98 GHz").
    Hz, Dim::Hz, false
);
quantity_type!(
    /// A positive time ("5 us").
    Seconds, Dim::Seconds, false
);
quantity_type!(
    /// A time that may be zero: a launch cost a runtime does not pay (a
    /// compiled whole-graph step launches no kernel from the host).
    SecondsOrZero, Dim::Seconds, true
);
quantity_type!(
    /// A positive energy ("612 pJ").
    Joules, Dim::Joules, false
);
quantity_type!(
    /// A positive number of clock cycles ("30 cycles").
    Cycles, Dim::Cycles, false
);

struct QuantityVisitor {
    dim: Dim,
    allow_zero: bool,
}

impl QuantityVisitor {
    fn check<E: de::Error>(&self, v: f64, text: &str) -> Result<f64, E> {
        if !v.is_finite() {
            return Err(E::custom(format!("`{text}` is not a finite number")));
        }
        if v < 0.0 || (v == 0.0 && !self.allow_zero) {
            let must = if self.allow_zero {
                "zero or more"
            } else {
                "greater than zero"
            };
            return Err(E::custom(format!("`{text}` must be {must}")));
        }
        units::plausible(self.dim, v, text).map_err(E::custom)
    }
}

impl<'de> Visitor<'de> for QuantityVisitor {
    type Value = f64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a quantity with a unit ({})", self.dim.accepted())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        let x = units::parse(v, self.dim).map_err(E::custom)?;
        self.check(x, v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        if !v.is_finite() {
            return Err(E::custom(format!("`{v}` is not a finite number")));
        }
        if !self.dim.bare_ok() {
            return Err(E::custom(format!(
                "`{v}` has no unit; write it as a string with one of {}",
                self.dim.accepted()
            )));
        }
        self.check(v, &v.to_string())
    }
}

/// Plain numbers of a data file (no unit), each checked against the
/// plausible range of its kind where it is read, as quantities are
/// (docs/data-schemas.md, "Plausible ranges"): `#[serde(default,
/// deserialize_with = "crate::spec::plain::watts")]` on an `Option<f64>`.
pub mod plain {
    use crate::units;
    use serde::de::{self, Deserializer, Visitor};
    use std::fmt;

    /// The most a board, a node or a site draws: 1 GW (a large site; a
    /// board draws tens of watts to a few kilowatts).
    pub const MAX_WATTS: f64 = 1e9;
    /// The least non-zero power: 1 mW.
    pub const MIN_WATTS: f64 = 1e-3;

    struct Plain {
        what: &'static str,
        min: f64,
        max: f64,
        shown: &'static str,
    }

    impl Visitor<'_> for Plain {
        type Value = f64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a number ({})", self.what)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
            self.visit_f64(v as f64)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
            self.visit_f64(v as f64)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
            let m = v.abs();
            if !units::usable(v) {
                return Err(E::custom(format!(
                    "`{v}` is not a finite number of normal size"
                )));
            }
            if m > self.max || (m != 0.0 && m < self.min) {
                return Err(E::custom(format!(
                    "`{v}` is outside the plausible range: {} is {}",
                    self.what, self.shown
                )));
            }
            Ok(v)
        }
    }

    fn opt<'de, D: Deserializer<'de>>(d: D, p: Plain) -> Result<Option<f64>, D::Error> {
        d.deserialize_any(p).map(Some)
    }

    /// A power in watts.
    pub fn watts<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        opt(
            d,
            Plain {
                what: "a power in watts",
                min: MIN_WATTS,
                max: MAX_WATTS,
                shown: "1 mW to 1 GW",
            },
        )
    }

    /// A dimensionless figure (a share, a ratio, an exponent, a relative
    /// error): [`units::NUMBER`].
    pub fn number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        opt(
            d,
            Plain {
                what: "a dimensionless figure",
                min: units::NUMBER.min,
                max: units::NUMBER.max,
                shown: units::NUMBER.shown,
            },
        )
    }

    /// [`number`] for a field that must be given.
    pub fn number_req<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        number(d).map(|v| v.unwrap_or(0.0))
    }

    struct Count;

    impl Visitor<'_> for Count {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a whole number")
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
            let v = u64::try_from(v)
                .map_err(|_| E::custom(format!("`{v}` is negative; expected a whole number")))?;
            self.visit_u64(v)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
            crate::inputs::bounded_count(v).map_err(E::custom)
        }
    }

    /// A count: at most 2^53 ([`crate::inputs::MAX_COUNT`]).
    pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(Count)
    }

    /// An optional [`count`] of at least 1.
    pub fn opt_nonzero<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<std::num::NonZeroU64>, D::Error> {
        let v = count(d)?;
        std::num::NonZeroU64::new(v)
            .map(Some)
            .ok_or_else(|| de::Error::custom("`0`: give a whole number of at least 1"))
    }

    /// An optional [`count`].
    pub fn opt_count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        count(d).map(Some)
    }
}

/// Where a file's text came from, for error messages.
#[derive(Debug, Clone)]
pub struct Origin {
    /// What to call it in messages: a path, or `built-in hardware/h100-sxm.toml`.
    pub name: String,
    /// Whether the text has `--set` overrides applied.
    pub overridden: bool,
}

/// The message for a file that still carries a template's placeholder id.
fn placeholder_message(file: &str) -> String {
    let stem = std::path::Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("my-gpu");
    format!(
        "`{}` is the template's placeholder; give the file its own id, its file name without .toml (`id = \"{stem}\"`)",
        template::PLACEHOLDER_ID
    )
}

/// 1-based line and column of a byte offset.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    // Offsets and counts here are bounded by the text's length.
    let line = before.matches('\n').count().saturating_add(1);
    let col = before
        .rfind('\n')
        .map_or(offset, |i| offset.saturating_sub(i).saturating_sub(1))
        .saturating_add(1);
    (line, col)
}

/// Parses TOML text into `T`, turning parse errors into a data error that
/// names the file, the line, the column and the field.
pub fn from_toml<T: serde::de::DeserializeOwned>(src: &str, origin: &Origin) -> Result<T, Error> {
    toml::from_str(src).map_err(|e| toml_error(src, origin, &e))
}

/// [`from_toml`], with a look at the parsed document before it is
/// deserialized: a check over the text's keys (that each `[sources]` key
/// names a field) costs no second parse of the text.
pub fn from_toml_with<T: serde::de::DeserializeOwned, R>(
    src: &str,
    origin: &Origin,
    look: impl FnOnce(&toml::de::DeTable<'_>) -> R,
) -> Result<(T, R), Error> {
    let doc = toml::de::DeTable::parse(src).map_err(|e| toml_error(src, origin, &e))?;
    let seen = look(doc.get_ref());
    let t = serde::Deserialize::deserialize(toml::de::Deserializer::from(doc))
        .map_err(|e| toml_error(src, origin, &e))?;
    Ok((t, seen))
}

/// Whether a dotted kebab-case key path (numbers index arrays of tables)
/// names a key of a parsed document.
pub fn has_path(doc: &toml::de::DeTable<'_>, path: &str) -> bool {
    let mut table = doc;
    let mut parts = path.split('.');
    let mut next = parts.next();
    while let Some(key) = next {
        let Some(value) = table.get(key) else {
            return false;
        };
        next = parts.next();
        let Some(part) = next else {
            return true;
        };
        let value = match value.get_ref() {
            toml::de::DeValue::Array(items) => {
                let Some(item) = part.parse::<usize>().ok().and_then(|i| items.get(i)) else {
                    return false;
                };
                next = parts.next();
                item.get_ref()
            }
            v => v,
        };
        let toml::de::DeValue::Table(t) = value else {
            return false;
        };
        table = t;
    }
    true
}

/// A `toml_edit` parse error as a data error naming the file, the line,
/// the column and the field, in words: never the error's own rendering,
/// which reprints the user's line under a caret.
pub fn edit_error(src: &str, file: &str, e: &toml_edit::TomlError) -> Error {
    let (line, col) = e.span().map(|s| line_col(src, s.start)).unzip();
    Error::Data {
        file: file.to_string(),
        line,
        col,
        field: e.span().and_then(|s| path_at(src, s.start)),
        message: crate::units::in_words(e.message().trim()),
    }
}

/// A TOML parse or deserialization error as a data error that names the
/// file, the line, the column and the field.
fn toml_error(src: &str, origin: &Origin, e: &toml::de::Error) -> Error {
    let (mut line, mut col) = e.span().map(|s| line_col(src, s.start)).unzip();
    let mut field = e.span().and_then(|s| path_at(src, s.start));
    let mut message = crate::units::in_words(e.message().trim());
    // A missing field is reported at the table that lacks it: name that
    // table's path and the field, never whichever key the span starts
    // at (the file's first, `id`).
    if let Some(name) = message
        .strip_prefix("missing field `")
        .and_then(|m| m.strip_suffix('`'))
    {
        let table = e.span().and_then(|s| table_at(src, s.start));
        field = Some(match &table {
            Some(t) => format!("{t}.{name}"),
            None => name.to_string(),
        });
        if table.is_none() {
            line = None;
        }
        col = None;
        message = "missing; the file needs it (docs/data-schemas.md lists every field)".into();
    }
    if origin.overridden {
        message.push_str(" (after applying --set)");
    }
    Error::Data {
        file: origin.name.clone(),
        line,
        col,
        field,
        message,
    }
}

/// The table whose header starts the line at a byte offset (`compute` for
/// `[compute]`, `memory.levels.1` for the second `[[memory.levels]]`);
/// `None` at the top level.
fn table_at(src: &str, offset: usize) -> Option<String> {
    let start = src
        .get(..offset)?
        .rfind('\n')
        .map_or(0, |i| i.saturating_add(1));
    let line = src[start..].lines().next()?.trim();
    if let Some(name) = line.strip_prefix("[[") {
        let name = name.split("]]").next()?.trim();
        let before = src[..start]
            .lines()
            .filter(|l| {
                l.trim()
                    .strip_prefix("[[")
                    .and_then(|n| n.split("]]").next())
                    .is_some_and(|n| n.trim() == name)
            })
            .count();
        return Some(format!("{name}.{before}"));
    }
    let name = line.strip_prefix('[')?.split(']').next()?.trim();
    Some(name.to_string())
}

/// The dotted key path whose key or value covers a byte offset, so parse
/// errors can name the field.
pub fn path_at(src: &str, offset: usize) -> Option<String> {
    fn walk(t: &dyn toml_edit::TableLike, prefix: &str, offset: usize) -> Option<String> {
        for (k, item) in t.iter() {
            let path = if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            };
            let key_span = t.key(k).and_then(toml_edit::Key::span);
            let covers = |sp: Option<std::ops::Range<usize>>| {
                sp.is_some_and(|s| {
                    s.start <= offset && offset < s.end.max(s.start.saturating_add(1))
                })
            };
            if let Some(aot) = item.as_array_of_tables() {
                for (i, sub) in aot.iter().enumerate() {
                    if let Some(p) = walk(sub, &format!("{path}.{i}"), offset) {
                        return Some(p);
                    }
                }
            } else if let Some(sub) = item.as_table_like() {
                if let Some(p) = walk(sub, &path, offset) {
                    return Some(p);
                }
                if covers(key_span.clone()) {
                    return Some(path);
                }
            } else if covers(key_span) || covers(item.span()) {
                return Some(path);
            }
        }
        None
    }
    let doc = toml_edit::Document::parse(src).ok()?;
    walk(doc.as_table(), "", offset)
}

/// Finds the line of a dotted kebab-case key path in TOML text, for errors
/// found after parsing. Numeric parts index arrays of tables.
pub fn locate(src: &str, path: &str) -> Option<usize> {
    let doc = toml_edit::Document::parse(src).ok()?;
    locate_in(&doc, path).map(|offset| line_col(src, offset).0)
}

/// The byte offset of a key path in a parsed document, if it is there.
pub fn locate_in(doc: &toml_edit::Document<&str>, path: &str) -> Option<usize> {
    let mut table: &dyn toml_edit::TableLike = doc.as_table();
    let mut span = None;
    let parts: Vec<&str> = path.split('.').collect();
    let mut i = 0;
    while i < parts.len() {
        let (key, item) = table.get_key_value(parts[i])?;
        span = key.span().or(span);
        i = i.saturating_add(1);
        if i == parts.len() {
            break;
        }
        if let Some(aot) = item.as_array_of_tables() {
            let idx: usize = parts[i].parse().ok()?;
            let t = aot.get(idx)?;
            span = t.span().or(span);
            table = t;
            i = i.saturating_add(1);
        } else if let Some(t) = item.as_table_like() {
            table = t;
        } else {
            return None;
        }
    }
    Some(span.map_or(0, |s| s.start))
}

/// A validation error for a field, located in the file where possible.
pub fn field_error(src: &str, origin: &Origin, field: &str, message: impl Into<String>) -> Error {
    Error::Data {
        file: origin.name.clone(),
        line: locate(src, field),
        col: None,
        field: Some(field.to_string()),
        message: message.into(),
    }
}

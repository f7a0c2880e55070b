//! JSON: the report as one pretty-printed object, base units throughout.

use super::Renderer;
use crate::report::{Key, Map, Report, Row, RowSink, Unit};
use serde::ser::{Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::Value;

/// Renders JSON.
pub struct Json;

impl Renderer for Json {
    fn render(&self, report: &Report) -> Vec<u8> {
        let counts: rustc_hash::FxHashSet<&str> = report
            .quantities
            .iter()
            .filter(|(_, q)| matches!(q.unit, Unit::Count | Unit::Cycles))
            .map(|(k, _)| k.as_ref())
            .collect();
        let mut out = Vec::with_capacity(256 + report.rows.len() * 512);
        let _ = serde_json::to_writer_pretty(
            &mut out,
            &Shown {
                r: report,
                counts: &counts,
            },
        );
        out.push(b'\n');
        out
    }
}

/// The report as JSON shows it: the report's own shape, with whole-number
/// counts (units `count` and `cycles`) written as integers (`"sms": 132`,
/// not `132.0`). Serialized in place, so a sweep of a hundred thousand
/// rows is not copied first.
struct Shown<'a> {
    r: &'a Report,
    counts: &'a rustc_hash::FxHashSet<&'a str>,
}

/// A map of inputs or results with counts as integers.
struct Counted<'a> {
    map: &'a Map<Value>,
    counts: &'a rustc_hash::FxHashSet<&'a str>,
}

/// Results given as values in the order of their keys
/// ([`RowSink::row_values`]), with counts as integers.
struct CountedPairs<'a> {
    keys: &'a [Key],
    values: &'a [Value],
    counts: &'a rustc_hash::FxHashSet<&'a str>,
}

/// One row: its inputs and results (or the values given for them), and
/// for a point of a sweep or comparison its error (null where it
/// answered).
struct ShownRow<'a> {
    row: &'a Row,
    values: Option<(&'a [Key], &'a [Value])>,
    counts: &'a rustc_hash::FxHashSet<&'a str>,
    errors: bool,
}

/// The entries of a map with counts as integers.
fn counted<'a, S: Serializer>(
    s: S,
    len: usize,
    entries: impl Iterator<Item = (&'a Key, &'a Value)>,
    counts: &rustc_hash::FxHashSet<&str>,
) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(len))?;
    for (k, v) in entries {
        match v.as_f64() {
            Some(x)
                if v.is_f64()
                    && x.fract() == 0.0
                    && x.abs() < 9.007_199_254_740_992e15
                    && counts.contains(k.as_ref()) =>
            {
                m.serialize_entry(k, &(x as i64))?;
            }
            _ => m.serialize_entry(k, v)?,
        }
    }
    m.end()
}

impl Serialize for Counted<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        counted(s, self.map.len(), self.map.iter(), self.counts)
    }
}

impl Serialize for CountedPairs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let entries = self.keys.iter().zip(self.values);
        counted(s, self.values.len(), entries, self.counts)
    }
}

impl Serialize for ShownRow<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Row", 2)?;
        st.serialize_field(
            "inputs",
            &Counted {
                map: &self.row.inputs,
                counts: self.counts,
            },
        )?;
        match self.values {
            Some((keys, values)) => st.serialize_field(
                "results",
                &CountedPairs {
                    keys,
                    values,
                    counts: self.counts,
                },
            )?,
            None => st.serialize_field(
                "results",
                &Counted {
                    map: &self.row.results,
                    counts: self.counts,
                },
            )?,
        }
        if self.errors {
            st.serialize_field("error", &self.row.error)?;
        }
        st.end()
    }
}

impl Serialize for Shown<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.r;
        let c = self.counts;
        let mut st = s.serialize_struct("Report", 10)?;
        st.serialize_field("command", &r.command)?;
        if let Some(h) = &r.hardware {
            st.serialize_field("hardware", h)?;
        }
        if let Some(m) = &r.model {
            st.serialize_field("model", m)?;
        }
        st.serialize_field(
            "inputs",
            &Counted {
                map: &r.inputs,
                counts: c,
            },
        )?;
        st.serialize_field(
            "results",
            &Counted {
                map: &r.results,
                counts: c,
            },
        )?;
        st.serialize_field("quantities", &r.quantities)?;
        if !r.axes.is_empty() {
            st.serialize_field("axes", &r.axes)?;
        }
        if let Some(k) = &r.rows_kind {
            st.serialize_field("rows_kind", k)?;
        }
        if !r.rows.is_empty() {
            let rows: Vec<ShownRow> = r
                .rows
                .iter()
                .map(|row| ShownRow {
                    row,
                    values: None,
                    counts: c,
                    errors: r.rows_are_points(),
                })
                .collect();
            st.serialize_field("rows", &rows)?;
        }
        st.serialize_field("notes", &r.notes)?;
        st.end()
    }
}

/// The unit-`count` and `cycles` keys of a report's quantities, written as
/// integers.
fn count_keys(q: &Map<crate::report::Quantity>) -> rustc_hash::FxHashSet<String> {
    q.iter()
        .filter(|(_, q)| matches!(q.unit, Unit::Count | Unit::Cycles))
        .map(|(k, _)| k.to_string())
        .collect()
}

/// A sweep written as JSON row by row as its points are worked
/// ([`RowSink`]): the report's object with `rows` streamed, and the
/// quantities and notes (known only at the end) after them. The report's
/// `inputs` are the first answering point's; a row's `inputs` are its axes
/// and any input whose value differs from those.
pub struct JsonStream<W: std::io::Write> {
    out: W,
    counts: rustc_hash::FxHashSet<String>,
    rows: usize,
}

impl<W: std::io::Write> JsonStream<W> {
    /// A stream writing to `out`.
    pub fn new(out: W) -> Self {
        JsonStream {
            out,
            counts: Default::default(),
            rows: 0,
        }
    }
}

/// Writes `"key": value,` at the object's first level, pretty-printed as
/// the whole report would be.
fn entry(out: &mut impl std::io::Write, key: &str, v: &impl Serialize) -> crate::error::Result<()> {
    let text = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".into());
    let text = text.replace('\n', "\n  ");
    writeln!(out, "  {}: {text},", Value::from(key)).map_err(super::csv::stdout_error)
}

impl<W: std::io::Write> JsonStream<W> {
    /// Writes one row (its results given as values, where they are).
    fn write_row(
        &mut self,
        row: &Row,
        values: Option<(&[Key], &[Value])>,
    ) -> crate::error::Result<()> {
        let counts: rustc_hash::FxHashSet<&str> = self.counts.iter().map(String::as_str).collect();
        let shown = ShownRow {
            row,
            values,
            counts: &counts,
            errors: true,
        };
        let text = serde_json::to_string_pretty(&shown).unwrap_or_else(|_| "null".into());
        let sep = if self.rows == 0 { "\n" } else { ",\n" };
        self.rows += 1;
        write!(self.out, "{sep}    {}", text.replace('\n', "\n    "))
            .map_err(super::csv::stdout_error)
    }
}

impl<W: std::io::Write> RowSink for JsonStream<W> {
    fn start(&mut self, head: &Report) -> crate::error::Result<()> {
        self.counts = count_keys(&head.quantities);
        let counts: rustc_hash::FxHashSet<&str> = self.counts.iter().map(String::as_str).collect();
        let out = &mut self.out;
        out.write_all(b"{\n").map_err(super::csv::stdout_error)?;
        entry(out, "command", &head.command)?;
        if let Some(h) = &head.hardware {
            entry(out, "hardware", h)?;
        }
        if let Some(m) = &head.model {
            entry(out, "model", m)?;
        }
        let inputs = Counted {
            map: &head.inputs,
            counts: &counts,
        };
        entry(out, "inputs", &inputs)?;
        entry(out, "results", &serde_json::Map::new())?;
        entry(out, "axes", &head.axes)?;
        entry(out, "rows_kind", &head.rows_kind)?;
        self.out
            .write_all(b"  \"rows\": [")
            .map_err(super::csv::stdout_error)
    }

    fn row(&mut self, row: &Row) -> crate::error::Result<()> {
        self.write_row(row, None)
    }

    fn row_values(
        &mut self,
        row: Row,
        keys: &[Key],
        values: Vec<Value>,
    ) -> crate::error::Result<()> {
        let keys = &keys[..values.len().min(keys.len())];
        self.write_row(&row, Some((keys, &values)))
    }

    fn finish(&mut self, tail: &Report) -> crate::error::Result<()> {
        self.out
            .write_all(b"\n  ],\n")
            .map_err(super::csv::stdout_error)?;
        entry(&mut self.out, "quantities", &tail.quantities)?;
        let notes = serde_json::to_string_pretty(&tail.notes).unwrap_or_default();
        write!(
            self.out,
            "  \"notes\": {}\n}}\n",
            notes.replace('\n', "\n  ")
        )
        .and_then(|()| self.out.flush())
        .map_err(super::csv::stdout_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Quantity, Unit};

    #[test]
    fn a_row_given_as_values_is_the_row_its_map_gives() {
        let mut head = Report::new("t");
        head.axes = vec!["k".into()];
        head.result("sms", 132.0, Quantity::new("SMs", Unit::Count));
        let keys: Vec<Key> = vec!["sms".into(), "time_s".into()];
        let rows = |by_values: bool| {
            let mut out = Vec::new();
            let mut s = JsonStream::new(&mut out);
            s.start(&head).unwrap();
            for k in [1.0, 2.0] {
                let mut row = Row::default();
                row.inputs.insert("k".into(), k.into());
                let values: Vec<Value> = vec![132.0.into(), (k * 0.25).into()];
                if by_values {
                    s.row_values(row, &keys, values).unwrap();
                } else {
                    row.results = keys.iter().cloned().zip(values).collect();
                    s.row(&row).unwrap();
                }
            }
            s.finish(&head).unwrap();
            String::from_utf8(out).unwrap()
        };
        let by_map = rows(false);
        assert!(by_map.contains("\"sms\": 132,"), "{by_map}");
        assert_eq!(rows(true), by_map);
    }

    #[test]
    fn counts_are_integers() {
        let mut r = Report::new("hw show");
        r.result("sms", 132.0, Quantity::new("SMs", Unit::Count));
        r.result("ratio", 2.0, Quantity::new("r", Unit::Ratio));
        let s = String::from_utf8(Json.render(&r)).unwrap();
        assert!(s.contains("\"sms\": 132,"), "{s}");
        assert!(s.contains("\"ratio\": 2.0"), "{s}");
    }

    #[test]
    fn results_are_bare_base_unit_values() {
        let mut r = Report::new("point");
        r.hardware = Some("h100-sxm".into());
        r.input("intensity", 1.0);
        r.result(
            "time_s",
            2.5e-3,
            Quantity::new("time", Unit::Seconds).formula("max(a, b)"),
        );
        r.result("bound", "memory", Quantity::new("bound", Unit::None));
        let v: serde_json::Value = serde_json::from_slice(&Json.render(&r)).unwrap();
        assert_eq!(v["results"]["time_s"], 2.5e-3);
        assert_eq!(v["results"]["bound"], "memory");
        assert_eq!(v["quantities"]["time_s"]["formula"], "max(a, b)");
        assert_eq!(v["quantities"]["time_s"]["unit"], "s");
        assert!(v.get("rows").is_none());
        insta::assert_snapshot!(String::from_utf8(Json.render(&r)).unwrap());
    }
}

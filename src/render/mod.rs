//! Report -> bytes, one file per output format. Each renderer is a pure
//! function of the report, so each is tested without I/O.

mod csv;
mod explain;
mod html;
mod json;
mod markdown;
mod table;

use crate::report::Report;

pub use self::csv::{Csv, CsvStream};
pub use self::explain::{Explain, explain_all};
pub use self::html::Html;
pub use self::json::{Json, JsonStream};
pub use self::markdown::Markdown;
pub use self::table::Table;

/// Turns a report into the bytes of one output format.
pub trait Renderer {
    /// Renders the report.
    fn render(&self, report: &Report) -> Vec<u8>;
}

/// A report whose failed rows show their errors as a column of results,
/// for the renderers made for people (tables, Markdown); the report as it
/// is when every row answered.
pub(crate) fn with_errors(report: &Report) -> std::borrow::Cow<'_, Report> {
    if !report.rows.iter().any(|r| r.error.is_some()) {
        return std::borrow::Cow::Borrowed(report);
    }
    let mut r = report.clone();
    for row in &mut r.rows {
        let e = row
            .error
            .as_deref()
            .map_or(serde_json::Value::Null, serde_json::Value::from);
        row.results.insert("error".into(), e);
    }
    r.quantities
        .entry("error".into())
        .or_insert_with(|| crate::report::Quantity::new("error", crate::report::Unit::None));
    if !r.headline.is_empty() && !r.headline.iter().any(|h| h == "error") {
        r.headline.push("error".into());
    }
    std::borrow::Cow::Owned(r)
}

/// The formats `--format` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Boxed tables for a terminal.
    #[default]
    Table,
    /// One JSON object.
    Json,
    /// Comma-separated values.
    Csv,
    /// GitHub-flavoured Markdown tables.
    Markdown,
}

impl Format {
    /// The renderer for this format.
    pub fn renderer(self) -> Box<dyn Renderer> {
        match self {
            Format::Table => Box::new(Table),
            Format::Json => Box::new(Json),
            Format::Csv => Box::new(Csv),
            Format::Markdown => Box::new(Markdown),
        }
    }
}

/// The result keys a side-by-side comparison shows, in order: headline
/// keys some item has a figure for (a quantity no item has is left out),
/// each section gathered where it first appears.
pub(crate) fn comparison_keys<'a>(report: &Report, outs: &'a [String]) -> Vec<&'a String> {
    let group_of = |k: &str| report.quantities.get(k).and_then(|q| q.group.as_deref());
    let keys: Vec<&String> = outs
        .iter()
        .filter(|k| report.in_headline(k))
        .filter(|k| {
            report
                .rows
                .iter()
                .any(|r| r.results.get(k.as_str()).is_some_and(|v| !v.is_null()))
        })
        .collect();
    let first_seen = |g: Option<&str>| keys.iter().position(|k| group_of(k) == g);
    let rank: Vec<_> = keys.iter().map(|k| first_seen(group_of(k))).collect();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| rank[i]);
    order.into_iter().map(|i| keys[i]).collect()
}

/// The column keys of a report's rows: inputs first, then results, in the
/// order they first appear; a result keyed like an input is not repeated.
pub(crate) fn row_columns(report: &Report) -> (Vec<String>, Vec<String>) {
    let mut ins: indexmap::IndexSet<&str> = indexmap::IndexSet::new();
    let mut outs: indexmap::IndexSet<&str> = indexmap::IndexSet::new();
    for row in &report.rows {
        // Rows of one report almost always share their keys; only look
        // each key up when a row has a different count.
        if row.inputs.len() != ins.len() || ins.is_empty() {
            ins.extend(row.inputs.keys().map(|k| k.as_ref()));
        }
        if row.results.len() != outs.len() || outs.is_empty() {
            outs.extend(row.results.keys().map(|k| k.as_ref()));
        }
    }
    (
        ins.iter().map(|k| String::from(*k)).collect(),
        outs.into_iter()
            .filter(|k| !ins.contains(k))
            .map(String::from)
            .collect(),
    )
}

/// For a sweep or comparison: the row results that are the same at every
/// point, in the same unit (a table states them once, above the rows), and
/// the columns that vary. A table inside one answer folds nothing.
pub(crate) fn folded(
    report: &Report,
    outs: Vec<String>,
) -> (Vec<(String, serde_json::Value)>, Vec<String>) {
    if !report.rows_are_points() || report.rows.len() < 2 {
        return (Vec::new(), outs);
    }
    let first = &report.rows[0];
    let mut same = Vec::new();
    let mut vary = Vec::new();
    for k in outs {
        let v = first.results.get(k.as_str());
        let unit = first.unit(&k, report);
        if v.is_some()
            && report
                .rows
                .iter()
                .all(|r| r.results.get(k.as_str()) == v && r.unit(&k, report) == unit)
        {
            same.push((k, v.cloned().unwrap_or_default()));
        } else {
            vary.push(k);
        }
    }
    (same, vary)
}

/// A person's name for an input key: underscores to spaces, and the unit
/// suffix dropped since the value is formatted with its unit.
pub(crate) fn input_label(key: &str) -> String {
    // A swept file field is named by its --set path, as typed.
    if key.contains('.') {
        return key.replace('_', "-");
    }
    let mut k = key;
    for suffix in ["_bytes_per_s", "_flops_per_s", "_hz", "_s"] {
        if let Some(stem) = k.strip_suffix(suffix)
            && !stem.is_empty()
        {
            k = stem;
            break;
        }
    }
    k.replace('_', " ")
}

/// The heading line: command, hardware, model.
pub(crate) fn title(report: &Report) -> String {
    let mut t = report.command.clone();
    for x in [&report.hardware, &report.model].into_iter().flatten() {
        t.push_str(" · ");
        t.push_str(x);
    }
    t
}

/// Formats an input value for people: inputs are in base units, keyed with
/// the unit in the name where it matters.
pub(crate) fn format_input(key: &str, v: &serde_json::Value, report: &Report) -> String {
    use crate::report::Unit;
    if let Some(q) = report.quantities.get(key) {
        return q.unit.format_value(v);
    }
    // A length typed as text (`--prompt 1024`, kept as typed for the
    // command line it rebuilds) reads grouped, as the counts beside it.
    if let Some(t) = v.as_str()
        && !t.is_empty()
        && t.bytes().all(|b| b.is_ascii_digit())
        && let Ok(n) = t.parse::<u128>()
    {
        return crate::units::grouped(n);
    }
    // An arrival rate (`simulate`, `fleet`) is requests per second.
    if key == "rate"
        && let Some(x) = v.as_f64()
    {
        return format!("{} requests/s", crate::units::sig_grouped(x, 6));
    }
    // The rates first: `_bytes_per_s` also ends in `_s`.
    let unit = if key.ends_with("bytes_per_s") {
        Unit::BytesPerSec
    } else if key.ends_with("flops_per_s") {
        Unit::FlopPerSec
    } else if key.ends_with("_s") {
        Unit::Seconds
    } else if key.ends_with("_hz") {
        Unit::Hz
    } else if key.ends_with("_bytes") || key == "bytes" {
        Unit::Bytes
    } else if v.as_f64().is_some_and(|x| x.fract() == 0.0) {
        Unit::Count
    } else {
        Unit::None
    };
    unit.format_value(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_typed_as_text_reads_grouped() {
        // Issue 37: fleet's `prompt (input)` printed 1024 beside 4,145.
        let r = Report::new("t");
        let v = |s: &str| serde_json::Value::from(s);
        assert_eq!(format_input("prompt", &v("1024"), &r), "1,024");
        assert_eq!(format_input("prompt", &v("200"), &r), "200");
        assert_eq!(
            format_input("prompt", &v("lognormal:1024,0.5"), &r),
            "lognormal:1024,0.5"
        );
        assert_eq!(format_input("model", &v("h100-sxm"), &r), "h100-sxm");
    }

    #[test]
    fn a_bandwidth_input_is_a_rate_not_a_time() {
        let r = Report::new("t");
        let v = serde_json::Value::from(3.35e12);
        assert_eq!(format_input("bandwidth_bytes_per_s", &v, &r), "3.35 TB/s");
        assert_eq!(format_input("peak_flops_per_s", &v, &r), "3.35 TFLOP/s");
        assert_eq!(
            format_input("overhead_s", &serde_json::Value::from(5e-6), &r),
            "5 us"
        );
    }
}

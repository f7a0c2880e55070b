//! HTML: the answer as the terminal table shows it, for a notebook
//! (`_repr_html_` in the Python package) and the web page. Every value
//! cell carries its JSON key and its base-unit value unrounded
//! (`data-key="step_time_s" data-value="0.0103..."`), so a script or a
//! test reads the exact number behind the formatted one. Markup only:
//! classes (`roofline-report`, `results`, `rows`, `notes`) leave the look
//! to the page.

use super::{Renderer, folded, format_input, input_label, row_columns, title};
use crate::report::{Report, Row, RowsKind};
use serde_json::Value;
use std::fmt::Write;

/// Renders an HTML fragment (no `<html>` or `<body>`).
#[derive(Debug, Clone, Copy)]
pub struct Html {
    /// Show every result, not only the headline (`--all`).
    pub all: bool,
    /// Rows shown at most; the rest are counted in a line below the table.
    pub max_rows: usize,
}

impl Default for Html {
    fn default() -> Self {
        Html {
            all: false,
            max_rows: 500,
        }
    }
}

/// Escapes text for an element's content or a quoted attribute.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A value as the JSON report writes it (a string without its quotes).
fn raw(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// A `<td>` holding `text`, keyed by `key` with the base value `v`.
fn cell(key: &str, v: &Value, text: &str) -> String {
    format!(
        "<td data-key=\"{}\" data-value=\"{}\">{}</td>",
        esc(key),
        esc(&raw(v)),
        esc(text)
    )
}

impl Html {
    fn shows(&self, report: &Report, key: &str) -> bool {
        self.all || report.in_headline(key)
    }

    fn results(&self, report: &Report, out: &mut String) {
        let (_, outs) = row_columns(report);
        let (same, _) = folded(report, outs);
        let same: Vec<_> = same
            .into_iter()
            .filter(|(k, _)| self.shows(report, k) && !side_by_side(report))
            .collect();
        let results: Vec<_> = report
            .results
            .iter()
            .filter(|(k, v)| self.shows(report, k) && !v.is_array() && !v.is_object())
            .collect();
        if results.is_empty() && report.inputs.is_empty() && same.is_empty() {
            return;
        }
        out.push_str("<table class=\"results\">\n<thead><tr><th>quantity</th><th>value</th></tr></thead>\n<tbody>\n");
        for (k, v) in &report.inputs {
            let _ = writeln!(
                out,
                "<tr class=\"input\"><th>{} (input)</th>{}</tr>",
                esc(&input_label(k)),
                cell(k, v, &format_input(k, v, report))
            );
        }
        let mut section: Option<&str> = None;
        for (k, v) in results {
            let k: &str = k.as_ref();
            let group = report.quantities.get(k).and_then(|q| q.group.as_deref());
            if group.is_some() && group != section {
                let _ = writeln!(
                    out,
                    "<tr class=\"section\"><th colspan=\"2\">{}</th></tr>",
                    esc(group.unwrap_or_default())
                );
                section = group;
            }
            let _ = writeln!(
                out,
                "<tr><th>{}</th>{}</tr>",
                esc(&report.label(k)),
                cell(k, v, &report.unit(k).format_value(v))
            );
        }
        if !same.is_empty() {
            out.push_str("<tr class=\"section\"><th colspan=\"2\">same at every point</th></tr>\n");
            for (k, v) in &same {
                let _ = writeln!(
                    out,
                    "<tr><th>{}</th>{}</tr>",
                    esc(&report.label(k)),
                    cell(k, v, &report.unit(k).format_value(v))
                );
            }
        }
        out.push_str("</tbody>\n</table>\n");
    }

    /// A comparison with the items as columns, as the terminal prints it.
    fn comparison(&self, report: &Report, out: &mut String) {
        let axis = &report.axes[0];
        let (ins, outs) = row_columns(report);
        out.push_str("<table class=\"rows comparison\">\n<thead><tr><th>quantity</th>");
        for r in &report.rows {
            let name = r.inputs.get(axis.as_str()).map_or("-".into(), raw);
            let _ = write!(out, "<th>{}</th>", esc(&name));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        let line = |out: &mut String, label: String, value: &dyn Fn(&Row) -> String| {
            let _ = write!(out, "<tr><th>{}</th>", esc(&label));
            for r in &report.rows {
                out.push_str(&value(r));
            }
            out.push_str("</tr>\n");
        };
        for k in ins.iter().filter(|k| *k != axis) {
            line(out, format!("{} (input)", input_label(k)), &|r| {
                r.inputs.get(k.as_str()).map_or("<td>-</td>".into(), |v| {
                    cell(k, v, &format_input(k, v, report))
                })
            });
        }
        for k in outs.iter().filter(|k| self.shows(report, k)) {
            if !report
                .rows
                .iter()
                .any(|r| r.results.get(k.as_str()).is_some_and(|v| !v.is_null()))
            {
                continue;
            }
            line(out, report.label(k), &|r| {
                r.results.get(k.as_str()).map_or("<td>-</td>".into(), |v| {
                    cell(k, v, &r.unit(k, report).format_value(v))
                })
            });
        }
        out.push_str("</tbody>\n</table>\n");
    }

    fn rows(&self, report: &Report, out: &mut String) {
        if report.rows.is_empty() {
            return;
        }
        if side_by_side(report) {
            return self.comparison(report, out);
        }
        let (ins, outs) = row_columns(report);
        let (_, outs) = folded(report, outs);
        let outs: Vec<String> = outs
            .into_iter()
            .filter(|k| !report.rows_are_points() || self.shows(report, k))
            .collect();
        out.push_str("<table class=\"rows\">\n<thead><tr>");
        for k in &ins {
            let _ = write!(out, "<th>{}</th>", esc(&input_label(k)));
        }
        for k in &outs {
            let _ = write!(out, "<th>{}</th>", esc(&report.label(k)));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in report.rows.iter().take(self.max_rows) {
            out.push_str("<tr>");
            for k in &ins {
                out.push_str(
                    &row.inputs.get(k.as_str()).map_or("<td>-</td>".into(), |v| {
                        cell(k, v, &format_input(k, v, report))
                    }),
                );
            }
            for k in &outs {
                out.push_str(
                    &row.results
                        .get(k.as_str())
                        .map_or("<td>-</td>".into(), |v| {
                            cell(k, v, &row.unit(k, report).format_value(v))
                        }),
                );
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n");
        if report.rows.len() > self.max_rows {
            let _ = writeln!(
                out,
                "<p class=\"more\">{} more rows (the JSON holds every one)</p>",
                crate::units::number((report.rows.len() - self.max_rows) as f64)
            );
        }
    }
}

/// Whether the rows compare a few accelerators or models and nothing else
/// varies: then they read best side by side, one column each.
fn side_by_side(report: &Report) -> bool {
    report.rows_kind == Some(RowsKind::Comparison)
        && report.axes.len() == 1
        && (2..=12).contains(&report.rows.len())
}

impl Renderer for Html {
    fn render(&self, report: &Report) -> Vec<u8> {
        let mut out = String::from("<div class=\"roofline-report\">\n");
        let _ = writeln!(out, "<h3>{}</h3>", esc(&title(report)));
        self.results(report, &mut out);
        self.rows(report, &mut out);
        if !report.notes.is_empty() {
            out.push_str("<ul class=\"notes\">\n");
            for n in &report.notes {
                let _ = writeln!(out, "<li>{}</li>", esc(n));
            }
            out.push_str("</ul>\n");
        }
        if !self.all {
            let h = super::table::hidden(report);
            if h > 0 {
                let _ = writeln!(
                    out,
                    "<p class=\"hidden\">{h} more results: all shows every one, explain their derivations</p>"
                );
            }
        }
        out.push_str("</div>\n");
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_carry_key_and_exact_value_and_text_is_escaped() {
        let mut r = super::super::table::tests::sample();
        r.note("a < b & c");
        let html = String::from_utf8(Html::default().render(&r)).unwrap();
        assert!(html.contains("a &lt; b &amp; c"), "{html}");
        // Every value cell of the JSON report's results appears with its
        // key; the value is the JSON number, not the formatted one.
        let json: serde_json::Value =
            serde_json::from_slice(&super::super::Json.render(&r)).unwrap();
        for (k, v) in json["results"].as_object().unwrap() {
            if r.in_headline(k) && !v.is_array() && !v.is_object() {
                let needle = format!("data-key=\"{k}\" data-value=\"{}\"", esc(&raw(v)));
                assert!(html.contains(&needle), "{needle} in {html}");
            }
        }
    }
}

//! HTML: the same tables as the terminal renderer, as `<table>` elements
//! for the web page. Beside the text a table shows, every value cell
//! carries where its value sits in the JSON report (`data-path`, e.g.
//! `results.step_time_s` or `rows.1.results.tokens_per_s`), its key
//! (`data-key`) and the value itself as the JSON report writes it,
//! unrounded and in base units (`data-value`), so a page's numbers can be
//! read exactly. The notes are left to the page (they are the report's
//! `notes`); a fragment, not a document.

use super::table::{hidden, side_by_side, table_left_out};
use super::{Renderer, comparison_keys, folded, format_input, input_label, row_columns, title};
use crate::report::{Report, Row};
use serde_json::Value;
use std::fmt::Write;

/// Renders HTML table fragments.
pub struct Html;

/// Escapes text for an element or a double-quoted attribute.
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

/// A value as the JSON report writes it: numbers in serde_json's own
/// shortest round-trip text, strings without their quotes.
fn raw(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// One value cell.
fn cell(out: &mut String, path: &str, key: &str, v: &Value, text: &str) {
    let _ = write!(
        out,
        "<td data-path=\"{}\" data-key=\"{}\" data-value=\"{}\">{}</td>",
        esc(path),
        esc(key),
        esc(&raw(v)),
        esc(text)
    );
}

/// A cell for a value a row lacks.
fn dash(out: &mut String) {
    out.push_str("<td class=\"none\">-</td>");
}

/// A section heading row spanning `cols` columns.
fn heading(out: &mut String, group: &str, cols: usize) {
    let _ = write!(
        out,
        "<tr class=\"section\"><th scope=\"rowgroup\" colspan=\"{cols}\">{}</th></tr>",
        esc(group)
    );
}

/// The answer's own inputs and results, label beside value.
fn results_table(report: &Report, out: &mut String) {
    let (_, outs) = row_columns(report);
    let (same, _) = folded(report, outs);
    let same: Vec<_> = same
        .into_iter()
        .filter(|(k, _)| report.in_headline(k) && !side_by_side(report))
        .collect();
    if report.results.is_empty() && report.inputs.is_empty() && same.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<div class=\"table-wrap\"><table class=\"report results\"><caption>{}</caption>\
         <thead><tr><th scope=\"col\">quantity</th><th scope=\"col\">value</th></tr></thead><tbody>",
        esc(&title(report))
    );
    for (k, v) in &report.inputs {
        let k: &str = k.as_ref();
        let _ = write!(
            out,
            "<tr class=\"input\"><th scope=\"row\">{}</th>",
            esc(&input_label(k))
        );
        cell(
            out,
            &format!("inputs.{k}"),
            k,
            v,
            &format_input(k, v, report),
        );
        out.push_str("</tr>");
    }
    let mut section: Option<&str> = None;
    for (k, v) in report
        .results
        .iter()
        .filter(|(k, v)| report.in_headline(k) && !v.is_array() && !v.is_object())
    {
        let k: &str = k.as_ref();
        let group = report.quantities.get(k).and_then(|q| q.group.as_deref());
        if group.is_some() && group != section {
            heading(out, group.unwrap_or_default(), 2);
            section = group;
        }
        let _ = write!(out, "<tr><th scope=\"row\">{}</th>", esc(&report.label(k)));
        cell(
            out,
            &format!("results.{k}"),
            k,
            v,
            &report.unit(k).format_value(v),
        );
        out.push_str("</tr>");
    }
    if !same.is_empty() {
        heading(out, "same at every point", 2);
        for (k, v) in &same {
            let _ = write!(out, "<tr><th scope=\"row\">{}</th>", esc(&report.label(k)));
            cell(
                out,
                &format!("rows.0.results.{k}"),
                k,
                v,
                &report.unit(k).format_value(v),
            );
            out.push_str("</tr>");
        }
    }
    out.push_str("</tbody></table></div>");
}

/// An item's name in a comparison's heading.
fn item_name(row: &Row, axis: &str) -> String {
    row.inputs.get(axis).map_or("-".into(), |v| {
        v.as_str().map_or_else(|| v.to_string(), String::from)
    })
}

/// A comparison, items as columns and quantities as rows.
fn comparison_table(report: &Report, out: &mut String) {
    let axis = report.axes[0].as_str();
    let (ins, outs) = row_columns(report);
    let cols = report.rows.len() + 1;
    out.push_str(
        "<div class=\"table-wrap\"><table class=\"report comparison\"><thead><tr><th scope=\"col\">quantity</th>",
    );
    for (i, r) in report.rows.iter().enumerate() {
        let name = item_name(r, axis);
        let _ = write!(
            out,
            "<th scope=\"col\" data-path=\"rows.{i}.inputs.{}\" data-key=\"{}\" data-value=\"{}\">{}</th>",
            esc(axis),
            esc(axis),
            esc(&name),
            esc(&name)
        );
    }
    out.push_str("</tr></thead><tbody>");
    for k in ins.iter().filter(|k| *k != axis) {
        let _ = write!(
            out,
            "<tr class=\"input\"><th scope=\"row\">{}</th>",
            esc(&input_label(k))
        );
        for (i, r) in report.rows.iter().enumerate() {
            match r.inputs.get(k.as_str()) {
                Some(v) => cell(
                    out,
                    &format!("rows.{i}.inputs.{k}"),
                    k,
                    v,
                    &format_input(k, v, report),
                ),
                None => dash(out),
            }
        }
        out.push_str("</tr>");
    }
    let group_of = |k: &str| report.quantities.get(k).and_then(|q| q.group.as_deref());
    // As the terminal table: a quantity no item has is left out, and each
    // section gathers its quantities where it first appears.
    let keys = comparison_keys(report, &outs);
    let mut section: Option<&str> = None;
    for k in keys {
        let group = group_of(k);
        if group.is_some() && group != section {
            heading(out, group.unwrap_or_default(), cols);
            section = group;
        }
        let _ = write!(out, "<tr><th scope=\"row\">{}</th>", esc(&report.label(k)));
        for (i, r) in report.rows.iter().enumerate() {
            match r.results.get(k.as_str()) {
                Some(v) => cell(
                    out,
                    &format!("rows.{i}.results.{k}"),
                    k,
                    v,
                    &r.unit(k, report).format_value(v),
                ),
                None => dash(out),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
}

/// The rows: a comparison side by side, otherwise one line per row.
fn rows_table(report: &Report, out: &mut String) {
    if report.rows.is_empty() || table_left_out(report) {
        return;
    }
    if side_by_side(report) {
        comparison_table(report, out);
        return;
    }
    let (ins, outs) = row_columns(report);
    let (_, outs) = folded(report, outs);
    let outs: Vec<String> = outs
        .into_iter()
        .filter(|k| !report.rows_are_points() || report.in_headline(k))
        .collect();
    if ins.is_empty() && outs.is_empty() {
        return;
    }
    out.push_str("<div class=\"table-wrap\"><table class=\"report rows\"><thead><tr>");
    for k in &ins {
        let _ = write!(out, "<th scope=\"col\">{}</th>", esc(&input_label(k)));
    }
    for k in &outs {
        let _ = write!(out, "<th scope=\"col\">{}</th>", esc(&report.label(k)));
    }
    out.push_str("</tr></thead><tbody>");
    for (i, r) in report.rows.iter().enumerate() {
        let _ = write!(out, "<tr data-row=\"{i}\">");
        for k in &ins {
            match r.inputs.get(k.as_str()) {
                Some(v) => cell(
                    out,
                    &format!("rows.{i}.inputs.{k}"),
                    k,
                    v,
                    &format_input(k, v, report),
                ),
                None => dash(out),
            }
        }
        for k in &outs {
            match r.results.get(k.as_str()) {
                Some(v) => cell(
                    out,
                    &format!("rows.{i}.results.{k}"),
                    k,
                    v,
                    &r.unit(k, report).format_value(v),
                ),
                None => dash(out),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
}

impl Renderer for Html {
    fn render(&self, report: &Report) -> Vec<u8> {
        let mut out = String::new();
        results_table(report, &mut out);
        rows_table(report, &mut out);
        let h = hidden(report);
        if h > 0 {
            let table = if table_left_out(report) {
                " and the table"
            } else {
                ""
            };
            let _ = write!(
                out,
                "<p class=\"more\">{h} more results{table}: every result (--all) shows each one, the derivations (--explain) how it follows.</p>"
            );
        }
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(r: &Report) -> String {
        String::from_utf8(Html.render(r)).unwrap()
    }

    #[test]
    fn a_cell_carries_its_path_key_and_unrounded_value() {
        let r = super::super::table::tests::sample();
        let html = page(&r);
        // 3.35e12 is shown rounded with its unit, carried as JSON writes it.
        assert!(
            html.contains(
                "<td data-path=\"results.attainable_flops_per_s\" data-key=\"attainable_flops_per_s\" data-value=\"3350000000000.0\">3.35 TFLOP/s</td>"
            ),
            "{html}"
        );
        assert!(
            html.contains(
                "data-path=\"inputs.intensity\" data-key=\"intensity\" data-value=\"1.0\""
            ),
            "{html}"
        );
        assert!(
            html.contains(
                "data-path=\"rows.0.inputs.dtype\" data-key=\"dtype\" data-value=\"fp8\""
            ),
            "{html}"
        );
    }

    #[test]
    fn text_is_escaped() {
        let mut r = Report::new("point");
        r.hardware = Some("<b>&".into());
        r.result(
            "bound",
            "a \"quoted\" <tag>",
            crate::report::Quantity::new("bound", crate::report::Unit::None),
        );
        let html = page(&r);
        assert!(html.contains("point · &lt;b&gt;&amp;"), "{html}");
        assert!(
            html.contains("data-value=\"a &quot;quoted&quot; &lt;tag&gt;\""),
            "{html}"
        );
        assert!(!html.contains("<tag>"), "{html}");
    }

    #[test]
    fn a_comparison_puts_items_side_by_side() {
        let mut r = Report::new("point");
        r.axes = vec!["hardware".into()];
        r.rows_kind = Some(crate::report::RowsKind::Comparison);
        for (hw, v) in [("a", 1.5), ("b", 2.0)] {
            let mut row = Row::default();
            row.inputs.insert("hardware".into(), hw.into());
            row.results.insert("time_s".into(), v.into());
            r.rows.push(row);
        }
        r.describe(
            "time_s",
            crate::report::Quantity::new("time", crate::report::Unit::Seconds),
        );
        let html = page(&r);
        assert!(html.contains("class=\"report comparison\""), "{html}");
        assert!(
            html.contains("data-path=\"rows.1.results.time_s\" data-key=\"time_s\" data-value=\"2.0\">2 s</td>"),
            "{html}"
        );
    }
}

//! Boxed tables for a terminal: results as label/value pairs, rows as a
//! table with a column per input and result, then the notes.

use super::{Renderer, folded, format_input, input_label, row_columns, title};
use crate::report::Report;
use comfy_table::{ContentArrangement, Table as Grid, presets::UTF8_FULL_CONDENSED};

/// Renders tables for people.
pub struct Table;

/// A section heading row: the section's name in capitals, so it stands out
/// without colour.
fn heading(group: &str) -> String {
    format!("[{}]", group.to_uppercase())
}

pub(crate) fn results_grid(report: &Report, preset: comfy_table::TableStyle) -> Option<Grid> {
    let (_, outs) = row_columns(report);
    let (same, _) = folded(report, outs);
    if report.results.is_empty() && report.inputs.is_empty() && same.is_empty() {
        return None;
    }
    let mut g = Grid::new();
    g.load_style(preset)
        .set_content_arrangement(ContentArrangement::Disabled);
    g.set_header(vec!["quantity", "value"]);
    for (k, v) in &report.inputs {
        g.add_row(vec![
            format!("{} (input)", input_label(k)),
            format_input(k, v, report),
        ]);
    }
    let mut section: Option<&str> = None;
    for (k, v) in &report.results {
        let group = report.quantities.get(k).and_then(|q| q.group.as_deref());
        if group.is_some() && group != section {
            g.add_row(vec![heading(group.unwrap_or_default()), String::new()]);
            section = group;
        }
        g.add_row(vec![report.label(k), report.unit(k).format_value(v)]);
    }
    if !same.is_empty() {
        g.add_row(vec!["[SAME AT EVERY POINT]".to_string(), String::new()]);
        for (k, v) in &same {
            g.add_row(vec![report.label(k), report.unit(k).format_value(v)]);
        }
    }
    Some(g)
}

pub(crate) fn rows_grid(report: &Report, preset: comfy_table::TableStyle) -> Option<Grid> {
    if report.rows.is_empty() {
        return None;
    }
    let (ins, outs) = row_columns(report);
    let (_, outs) = folded(report, outs);
    if ins.is_empty() && outs.is_empty() {
        return None;
    }
    let mut g = Grid::new();
    g.load_style(preset)
        .set_content_arrangement(ContentArrangement::Disabled);
    let mut header: Vec<String> = ins.iter().map(|k| input_label(k)).collect();
    header.extend(outs.iter().map(|k| report.label(k)));
    g.set_header(header);
    for row in &report.rows {
        let mut cells: Vec<String> = ins
            .iter()
            .map(|k| {
                row.inputs
                    .get(k)
                    .map_or("-".into(), |v| format_input(k, v, report))
            })
            .collect();
        cells.extend(outs.iter().map(|k| {
            row.results
                .get(k)
                .map_or("-".into(), |v| report.unit(k).format_value(v))
        }));
        g.add_row(cells);
    }
    Some(g)
}

impl Renderer for Table {
    fn render(&self, report: &Report) -> Vec<u8> {
        let mut out = format!("{}\n", title(report));
        if let Some(g) = results_grid(report, UTF8_FULL_CONDENSED) {
            out.push_str(&g.to_string());
            out.push('\n');
        }
        if let Some(g) = rows_grid(report, UTF8_FULL_CONDENSED) {
            out.push_str(&g.to_string());
            out.push('\n');
        }
        for n in &report.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        out.into_bytes()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::{Quantity, Row, Unit};

    pub(crate) fn sample() -> Report {
        let mut r = Report::new("point");
        r.hardware = Some("h100-sxm".into());
        r.input("intensity", 1.0);
        r.result(
            "attainable_flops_per_s",
            3.35e12,
            Quantity::new("attainable", Unit::FlopPerSec)
                .formula("min(peak, I * bandwidth)")
                .derive("min(989 TFLOP/s, 1 FLOP/B * 3.35 TB/s)"),
        );
        r.result("bound", "memory", Quantity::new("bound", Unit::None));
        let mut row = Row::default();
        row.inputs.insert("dtype".into(), "fp8".into());
        row.results
            .insert("attainable_flops_per_s".into(), 3.35e12.into());
        r.rows.push(row);
        r.note("memory-bound: 295 x below the ridge");
        r
    }

    #[test]
    fn snapshot() {
        insta::assert_snapshot!(String::from_utf8(Table.render(&sample())).unwrap());
    }
}

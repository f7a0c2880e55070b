//! Boxed tables for a terminal: results as label/value pairs, rows as a
//! table with a column per input and result, then the notes.

use super::{Renderer, folded, format_input, input_label, row_columns, title};
use crate::report::{Report, RowsKind};
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
    let same: Vec<_> = same
        .into_iter()
        .filter(|(k, _)| report.in_headline(k) && !side_by_side(report))
        .collect();
    if report.results.is_empty() && report.inputs.is_empty() && same.is_empty() {
        return None;
    }
    let mut g = Grid::new();
    g.load_style(preset)
        .set_content_arrangement(ContentArrangement::Dynamic);
    g.set_header(vec!["quantity", "value"]);
    for (k, v) in &report.inputs {
        g.add_row(vec![
            format!("{} (input)", input_label(k)),
            format_input(k, v, report),
        ]);
    }
    let mut section: Option<&str> = None;
    // A list or an object (plan's `plans`) is data for scripts; the table
    // shows it as its rows.
    for (k, v) in report
        .results
        .iter()
        .filter(|(k, v)| report.in_headline(k) && !v.is_array() && !v.is_object())
    {
        let group = report
            .quantities
            .get(AsRef::<str>::as_ref(k))
            .and_then(|q| q.group.as_deref());
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

/// Whether the rows compare a few accelerators or models (and nothing
/// else varies): then they read best side by side, one column each.
fn side_by_side(report: &Report) -> bool {
    report.rows_kind == Some(RowsKind::Comparison)
        && report.axes.len() == 1
        && (2..=12).contains(&report.rows.len())
}

/// A comparison with the items as columns and the quantities as rows; a
/// quantity an item lacks shows `-`.
fn comparison_grid(report: &Report, preset: comfy_table::TableStyle) -> Grid {
    let axis = &report.axes[0];
    let (ins, outs) = row_columns(report);
    let mut g = Grid::new();
    g.load_style(preset)
        .set_content_arrangement(ContentArrangement::Dynamic);
    let mut header = vec![String::from("quantity")];
    header.extend(report.rows.iter().map(|r| {
        r.inputs.get(axis.as_str()).map_or("-".into(), |v| {
            v.as_str().map_or_else(|| v.to_string(), String::from)
        })
    }));
    g.set_header(header);
    for k in ins.iter().filter(|k| *k != axis) {
        let mut cells = vec![format!("{} (input)", input_label(k))];
        cells.extend(report.rows.iter().map(|r| {
            r.inputs
                .get(k.as_str())
                .map_or("-".into(), |v| format_input(k, v, report))
        }));
        g.add_row(cells);
    }
    let mut section: Option<&str> = None;
    for k in outs.iter().filter(|k| report.in_headline(k)) {
        let group = report
            .quantities
            .get(AsRef::<str>::as_ref(k))
            .and_then(|q| q.group.as_deref());
        if group.is_some() && group != section {
            let mut cells = vec![heading(group.unwrap_or_default())];
            cells.extend(report.rows.iter().map(|_| String::new()));
            g.add_row(cells);
            section = group;
        }
        let mut cells = vec![report.label(k)];
        cells.extend(report.rows.iter().map(|r| {
            r.results
                .get(k.as_str())
                .map_or("-".into(), |v| r.unit(k, report).format_value(v))
        }));
        g.add_row(cells);
    }
    g
}

pub(crate) fn rows_grid(report: &Report, preset: comfy_table::TableStyle) -> Option<Grid> {
    if report.rows.is_empty() {
        return None;
    }
    if side_by_side(report) {
        return Some(comparison_grid(report, preset));
    }
    let (ins, outs) = row_columns(report);
    let (_, outs) = folded(report, outs);
    // A table inside one answer (the lecture's tile table) keeps its
    // columns; a sweep shows the headline's.
    let outs: Vec<String> = outs
        .into_iter()
        .filter(|k| !report.rows_are_points() || report.in_headline(k))
        .collect();
    if ins.is_empty() && outs.is_empty() {
        return None;
    }
    let mut g = Grid::new();
    g.load_style(preset)
        .set_content_arrangement(ContentArrangement::Dynamic);
    let mut header: Vec<String> = ins.iter().map(|k| input_label(k)).collect();
    header.extend(outs.iter().map(|k| report.label(k)));
    g.set_header(header);
    for row in &report.rows {
        let mut cells: Vec<String> = ins
            .iter()
            .map(|k| {
                row.inputs
                    .get(k.as_str())
                    .map_or("-".into(), |v| format_input(k, v, report))
            })
            .collect();
        cells.extend(outs.iter().map(|k| {
            row.results
                .get(k.as_str())
                .map_or("-".into(), |v| row.unit(k, report).format_value(v))
        }));
        g.add_row(cells);
    }
    Some(g)
}

/// How many results the default table leaves out, for the closing hint.
pub(crate) fn hidden(report: &Report) -> usize {
    if report.headline.is_empty() {
        return 0;
    }
    let (_, outs) = row_columns(report);
    let outs: Vec<String> = if report.rows_are_points() {
        outs
    } else {
        Vec::new()
    };
    report
        .results
        .iter()
        .filter(|(_, v)| !v.is_array() && !v.is_object())
        .map(|(k, _)| k.as_ref())
        .chain(outs.iter().map(String::as_str))
        .filter(|k| !report.in_headline(k))
        .collect::<indexmap::IndexSet<_>>()
        .len()
}

impl Renderer for Table {
    fn render(&self, report: &Report) -> Vec<u8> {
        let mut out = format!("{}\n", title(report));
        // A comparison is one side-by-side table; its shared inputs lead it.
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
        let h = hidden(report);
        if h > 0 {
            out.push_str(&format!(
                "({h} more results: --all shows every one, --explain their derivations)\n"
            ));
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

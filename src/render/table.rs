//! Boxed tables for a terminal: results as label/value pairs, rows as a
//! table with a column per input and result, then the notes.

use super::{Renderer, comparison_keys, folded, format_input, input_label, row_columns, title};
use crate::report::{Report, RowsKind};
use comfy_table::{
    ColumnConstraint, ContentArrangement, Table as Grid, Width, presets::UTF8_FULL_CONDENSED,
};
use unicode_width::UnicodeWidthStr;

/// Renders tables for people.
pub struct Table;

/// A section heading row: the section's name in capitals, so it stands out
/// without colour.
fn heading(group: &str) -> String {
    format!("[{}]", group.to_uppercase())
}

/// The widest line a cell shows, in columns. The table library counts
/// widths in 16 bits, so a cell of 65,534 columns (a hardware file's
/// `name`, a kernel's, a long `calc` line) would overflow it; past this a
/// line is cut and ends in `…` (in Markdown too; JSON and CSV keep it
/// whole).
pub(crate) const MAX_CELL: usize = 1000;

/// `text` with each line cut to [`MAX_CELL`] columns.
pub(crate) fn clip(text: impl Into<String>) -> String {
    let text = text.into();
    if UnicodeWidthStr::width(text.as_str()) <= MAX_CELL {
        return text;
    }
    text.split('\n')
        .map(|line| {
            if UnicodeWidthStr::width(line) <= MAX_CELL {
                return line.to_string();
            }
            let mut out = String::new();
            let mut w = 0;
            for c in line.chars() {
                let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
                if w + cw > MAX_CELL - 1 {
                    break;
                }
                w += cw;
                out.push(c);
            }
            out.push('…');
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn add_row<S: Into<String>>(g: &mut Grid, cells: Vec<S>) {
    g.add_row(cells.into_iter().map(clip).collect::<Vec<_>>());
}

fn set_header<S: Into<String>>(g: &mut Grid, cells: Vec<S>) {
    g.set_header(cells.into_iter().map(clip).collect::<Vec<_>>());
}

/// Columns a terminal that reports no width (0 under `script`, in some
/// containers and CI logs) is taken to have: the classic terminal's.
const FALLBACK_WIDTH: u16 = 80;

/// The width tables and notes are fitted to: `COLUMNS` when it holds a
/// positive number, else the terminal's, else [`FALLBACK_WIDTH`] for a
/// terminal that reports none; `None` when the output is not a terminal
/// (a pipe or a file keeps every column whole).
pub(crate) fn width() -> Option<u16> {
    use std::io::IsTerminal;
    let columns = std::env::var("COLUMNS").ok();
    choose_width(columns.as_deref(), std::io::stdout().is_terminal(), || {
        Grid::new().width()
    })
}

/// [`width`]'s rule, with the environment and the terminal's report given.
fn choose_width(
    columns: Option<&str>,
    tty: bool,
    reported: impl FnOnce() -> Option<u16>,
) -> Option<u16> {
    if let Some(n) = columns
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|&n| n > 0)
    {
        return Some(n);
    }
    if !tty {
        return None;
    }
    Some(reported().filter(|&w| w > 0).unwrap_or(FALLBACK_WIDTH))
}

/// An empty grid in a style, fitted to [`width`] (Markdown never wraps: a
/// cell's lines would become rows of their own).
fn grid(preset: comfy_table::TableStyle, markdown: bool) -> Grid {
    let mut g = Grid::new();
    g.load_style(preset);
    match width() {
        Some(w) if !markdown => {
            g.set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(w);
        }
        _ => {
            g.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    g
}

/// Wraps a line of prose (a note) at `width` columns, later lines indented
/// by `indent` spaces; a word longer than the line is left whole.
pub(crate) fn wrap(text: &str, width: Option<u16>, indent: usize) -> String {
    let Some(width) = width.map(usize::from) else {
        return text.to_string();
    };
    // The line's own leading spaces (`  = ...`) are kept.
    let body = text.trim_start_matches(' ');
    let lead = text.len() - body.len();
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..lead]);
    let mut col = lead;
    let mut first = true;
    for word in body.split(' ') {
        let w = UnicodeWidthStr::width(word);
        if !first && col > indent && col + 1 + w > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            col = indent;
        } else if !first {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += w;
        first = false;
    }
    out
}

pub(crate) fn results_grid(
    report: &Report,
    preset: comfy_table::TableStyle,
    markdown: bool,
) -> Option<Grid> {
    let (_, outs) = row_columns(report);
    let (same, _) = folded(report, outs);
    let same: Vec<_> = same
        .into_iter()
        .filter(|(k, _)| report.in_headline(k) && !side_by_side(report))
        .collect();
    if report.results.is_empty() && report.inputs.is_empty() && same.is_empty() {
        return None;
    }
    let mut g = grid(preset, markdown);
    set_header(&mut g, vec!["quantity", "value"]);
    for (k, v) in &report.inputs {
        add_row(
            &mut g,
            vec![
                format!("{} (input)", input_label(k)),
                format_input(k, v, report),
            ],
        );
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
            add_row(
                &mut g,
                vec![heading(group.unwrap_or_default()), String::new()],
            );
            section = group;
        }
        add_row(
            &mut g,
            vec![report.label(k), report.unit(k).format_value(v)],
        );
    }
    if !same.is_empty() {
        add_row(
            &mut g,
            vec!["[SAME AT EVERY POINT]".to_string(), String::new()],
        );
        for (k, v) in &same {
            add_row(
                &mut g,
                vec![report.label(k), report.unit(k).format_value(v)],
            );
        }
    }
    keep_short_cells_whole(&mut g);
    Some(g)
}

/// Cells no wider than this (an id, a figure with its unit) never wrap.
const SHORT_CELL: usize = 16;

/// Per column, the narrowest it can be without breaking a word of its
/// heading or of a long cell, or splitting a short cell (an id, a figure
/// with its unit).
fn least_widths(header: &[String], body: &[Vec<String>]) -> Vec<usize> {
    let word = |c: &str| {
        c.split_whitespace()
            .map(UnicodeWidthStr::width)
            .max()
            .unwrap_or(0)
    };
    let mut least: Vec<usize> = header.iter().map(|h| word(h)).collect();
    for row in body {
        for (i, c) in row.iter().enumerate() {
            if least.len() <= i {
                least.resize(i + 1, 0);
            }
            let w = c.lines().map(UnicodeWidthStr::width).max().unwrap_or(0);
            least[i] = least[i].max(if w <= SHORT_CELL { w } else { word(c) });
        }
    }
    least
}

/// The width a table of columns this wide takes: each its padding and a
/// rule, and the closing rule.
fn table_width(columns: &[usize]) -> usize {
    columns.iter().map(|w| w + 3).sum::<usize>() + 1
}

/// Keeps short cells on one line when a table is narrowed to the
/// terminal, so `a100-sxm-80gb` and `2.039 TB/s` stay whole and long text
/// (names, summaries, labels) wraps instead, between words: no column is
/// narrowed below its longest word.
fn keep_short_cells_whole(g: &mut Grid) {
    let text = |r: &comfy_table::Row| r.cell_iter().map(|c| c.content()).collect::<Vec<_>>();
    let header = g.header().map(text).unwrap_or_default();
    let body: Vec<Vec<String>> = g.row_iter().map(text).collect();
    for (i, w) in least_widths(&header, &body).into_iter().enumerate() {
        if w > 0
            && let Some(c) = g.column_mut(i)
        {
            // The width counts the cell's padding, one column each side.
            c.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(
                u16::try_from(w + 2).unwrap_or(u16::MAX),
            )));
        }
    }
}

/// Removes the last columns (never the first `keep`) while the table
/// cannot fit `width` columns without breaking a word, returning their
/// headings.
fn drop_to_fit(
    header: &mut Vec<String>,
    body: &mut [Vec<String>],
    width: usize,
    keep: usize,
) -> Vec<String> {
    let words = least_widths(header, body);
    let mut n = header.len();
    while n > keep.max(1) && table_width(&words[..n.min(words.len())]) > width {
        n -= 1;
    }
    let dropped: Vec<String> = header.drain(n..).collect();
    for row in body.iter_mut() {
        row.truncate(n);
    }
    dropped
}

/// Whether the rows compare a few accelerators or models (and nothing
/// else varies): then they read best side by side, one column each.
pub(crate) fn side_by_side(report: &Report) -> bool {
    report.rows_kind == Some(RowsKind::Comparison)
        && report.axes.len() == 1
        && (2..=12).contains(&report.rows.len())
}

/// A comparison with the items as columns and the quantities as rows; a
/// quantity an item lacks shows `-`.
fn comparison_grid(report: &Report, preset: comfy_table::TableStyle, markdown: bool) -> Grid {
    let axis = &report.axes[0];
    let (ins, outs) = row_columns(report);
    let mut g = grid(preset, markdown);
    let mut header = vec![String::from("quantity")];
    header.extend(report.rows.iter().map(|r| {
        r.inputs.get(axis.as_str()).map_or("-".into(), |v| {
            v.as_str().map_or_else(|| v.to_string(), String::from)
        })
    }));
    set_header(&mut g, header);
    for k in ins.iter().filter(|k| *k != axis) {
        let mut cells = vec![format!("{} (input)", input_label(k))];
        cells.extend(report.rows.iter().map(|r| {
            r.inputs
                .get(k.as_str())
                .map_or("-".into(), |v| format_input(k, v, report))
        }));
        add_row(&mut g, cells);
    }
    let group_of = |k: &str| report.quantities.get(k).and_then(|q| q.group.as_deref());
    // Items with figures the first lacks (an MI355X's LDS after an H100)
    // join their own section, not a second one of the same name.
    // A quantity no item has a figure for (an AMD-only limit beside
    // NVIDIA parts given no SGPRs) is a row of dashes: left out.
    let keys = comparison_keys(report, &outs);
    let mut section: Option<&str> = None;
    for k in keys {
        let group = group_of(k);
        if group.is_some() && group != section {
            let mut cells = vec![heading(group.unwrap_or_default())];
            cells.extend(report.rows.iter().map(|_| String::new()));
            add_row(&mut g, cells);
            section = group;
        }
        let mut cells = vec![report.label(k)];
        cells.extend(report.rows.iter().map(|r| {
            r.results
                .get(k.as_str())
                .map_or("-".into(), |v| r.unit(k, report).format_value(v))
        }));
        add_row(&mut g, cells);
    }
    keep_short_cells_whole(&mut g);
    g
}

/// Rows above which a sweep's table is laid out here rather than by
/// comfy-table: the same look, a fraction of the time, no fitting to the
/// terminal (nobody reads ten thousand rows in a narrow window).
const LARGE: usize = 1000;

/// The rows as a table's text.
pub(crate) fn rows_text(
    report: &Report,
    preset: comfy_table::TableStyle,
    markdown: bool,
) -> Option<String> {
    if report.rows.is_empty() || table_left_out(report) {
        return None;
    }
    if side_by_side(report) {
        return Some(comparison_grid(report, preset, markdown).to_string());
    }
    let (ins, outs) = row_columns(report);
    let (_, outs) = folded(report, outs);
    // A table inside one answer (the lecture's tile table) keeps its
    // columns; a sweep shows the headline's.
    let outs: Vec<String> = outs
        .into_iter()
        .filter(|k| !report.rows_are_points() || report.in_headline(k))
        .filter(|k| in_row_headline(report, k))
        .collect();
    let mut outs = outs;
    if row_headline_applies(report) {
        // The default columns in the order the report names them.
        let at = |k: &String| report.row_headline.iter().position(|h| h == k);
        outs.sort_by_key(at);
    }
    let ins: Vec<String> = ins
        .into_iter()
        .filter(|k| in_row_headline(report, k))
        .collect();
    if ins.is_empty() && outs.is_empty() {
        return None;
    }
    let mut header: Vec<String> = ins.iter().map(|k| input_label(k)).collect();
    header.extend(outs.iter().map(|k| report.label(k)));
    let cells = |row: &crate::report::Row| {
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
        cells
    };
    if report.rows.len() > LARGE {
        let body: Vec<Vec<String>> = report.rows.iter().map(cells).collect();
        return Some(plain_grid(&header, &body, markdown));
    }
    let mut g = grid(preset, markdown);
    let mut body: Vec<Vec<String>> = report.rows.iter().map(cells).collect();
    // A terminal too narrow for a long-text column (hw list's summaries)
    // gets the table without it rather than a column a few letters wide.
    let dropped = match g.width() {
        Some(w) if !markdown => {
            let mut d = drop_long_text(&mut header, &mut body, usize::from(w));
            d.extend(drop_to_fit(
                &mut header,
                &mut body,
                usize::from(w),
                ins.len(),
            ));
            d
        }
        _ => Vec::new(),
    };
    set_header(&mut g, header);
    for row in body {
        add_row(&mut g, row);
    }
    keep_short_cells_whole(&mut g);
    let mut text = g.to_string();
    if !dropped.is_empty() {
        text.push('\n');
        text.push_str(&wrap(
            &format!(
                "({} left out to fit the terminal; a wider window, --format markdown, csv or json shows {})",
                dropped.join(", "),
                if dropped.len() == 1 { "it" } else { "them" }
            ),
            width(),
            1,
        ));
    }
    Some(text)
}

/// Whether a default table shows a column of the table inside the answer:
/// every column, unless the report names the few that decide it and
/// `--all` (which clears the headline) is not given.
fn in_row_headline(report: &Report, key: &str) -> bool {
    !row_headline_applies(report) || report.row_headline.iter().any(|k| k == key)
}

/// Whether a default table shows only some of the rows' columns.
fn row_headline_applies(report: &Report) -> bool {
    !report.row_headline.is_empty() && !report.headline.is_empty()
}

/// Cells wider than this are long text: a summary, not a figure.
const LONG_TEXT: usize = 40;
/// The narrowest a long-text column is worth showing.
const LONG_TEXT_MIN: usize = 24;

/// Removes the long-text columns when the others leave them fewer than
/// [`LONG_TEXT_MIN`] columns of a `width`-column terminal, returning their
/// headings.
fn drop_long_text(header: &mut Vec<String>, body: &mut [Vec<String>], width: usize) -> Vec<String> {
    let widest = |i: usize| {
        body.iter()
            .filter_map(|r| r.get(i))
            .map(|c| UnicodeWidthStr::width(c.as_str()))
            .max()
            .unwrap_or(0)
    };
    let long: Vec<usize> = (0..header.len())
        .filter(|&i| widest(i) > LONG_TEXT)
        .collect();
    if long.is_empty() {
        return Vec::new();
    }
    // Each column takes its padding and one rule; the table one more rule.
    let others: usize = (0..header.len())
        .filter(|i| !long.contains(i))
        .map(|i| widest(i).max(1) + 3)
        .sum::<usize>()
        + 1;
    if others + long.len() * (LONG_TEXT_MIN + 3) <= width {
        return Vec::new();
    }
    let mut dropped = Vec::new();
    for &i in long.iter().rev() {
        dropped.push(header.remove(i));
        for row in body.iter_mut() {
            if i < row.len() {
                row.remove(i);
            }
        }
    }
    dropped.reverse();
    dropped
}

/// A table laid out by hand in comfy-table's condensed UTF-8 style (or as
/// Markdown): left-aligned cells padded by one space.
fn plain_grid(header: &[String], body: &[Vec<String>], markdown: bool) -> String {
    use unicode_width::UnicodeWidthStr;
    let mut w: Vec<usize> = header.iter().map(|h| h.width()).collect();
    for row in body {
        for (i, c) in row.iter().enumerate() {
            w[i] = w[i].max(c.width());
        }
    }
    let mut out = String::with_capacity((body.len() + 4) * (w.iter().sum::<usize>() + 4 * w.len()));
    let rule = |out: &mut String, l: &str, fill: &str, mid: &str, r: &str| {
        out.push_str(l);
        for (i, wi) in w.iter().enumerate() {
            if i > 0 {
                out.push_str(mid);
            }
            for _ in 0..wi + 2 {
                out.push_str(fill);
            }
        }
        out.push_str(r);
        out.push('\n');
    };
    let line = |out: &mut String, cells: &[String], outer: &str, inner: &str| {
        out.push_str(outer);
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                out.push_str(inner);
            }
            out.push(' ');
            out.push_str(c);
            for _ in c.width()..w[i] + 1 {
                out.push(' ');
            }
        }
        out.push_str(outer);
        out.push('\n');
    };
    if markdown {
        line(&mut out, header, "|", "|");
        rule(&mut out, "|", "-", "|", "|");
        for row in body {
            line(&mut out, row, "|", "|");
        }
    } else {
        rule(&mut out, "┌", "─", "┬", "┐");
        line(&mut out, header, "│", "┆");
        rule(&mut out, "╞", "═", "╪", "╡");
        for row in body {
            line(&mut out, row, "│", "┆");
        }
        rule(&mut out, "└", "─", "┴", "┘");
    }
    out.pop();
    out
}

/// Whether the default table leaves the table inside the answer to `--all`.
pub(crate) fn table_left_out(report: &Report) -> bool {
    report.rows_beyond_headline && !report.rows_are_points() && !report.headline.is_empty()
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
        let report = &*super::with_errors(report);
        let mut out = format!("{}\n", title(report));
        // A comparison is one side-by-side table; its shared inputs lead it.
        if let Some(g) = results_grid(report, UTF8_FULL_CONDENSED, false) {
            out.push_str(&g.to_string());
            out.push('\n');
        }
        if let Some(g) = rows_text(report, UTF8_FULL_CONDENSED, false) {
            out.push_str(&g);
            out.push('\n');
        }
        let w = width();
        for n in &report.notes {
            out.push_str(&wrap(&format!("note: {n}"), w, 6));
            out.push('\n');
        }
        let h = hidden(report);
        if h > 0 {
            let table = if table_left_out(report) {
                " and the table"
            } else if row_headline_applies(report) {
                " and the table's other columns"
            } else {
                ""
            };
            out.push_str(&wrap(
                &format!(
                    "({h} more results{table}: --all shows every one, --explain their derivations)"
                ),
                w,
                1,
            ));
            out.push('\n');
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
    fn a_terminal_of_width_zero_gets_eighty_columns_and_columns_wins() {
        // `script` gives a terminal that reports 0 columns.
        assert_eq!(choose_width(None, true, || Some(0)), Some(80));
        assert_eq!(choose_width(None, true, || None), Some(80));
        assert_eq!(choose_width(None, true, || Some(132)), Some(132));
        assert_eq!(choose_width(Some("100"), true, || Some(0)), Some(100));
        assert_eq!(choose_width(Some("100"), false, || None), Some(100));
        // A pipe without COLUMNS keeps every column whole.
        assert_eq!(choose_width(None, false, || None), None);
        assert_eq!(choose_width(Some("0"), false, || None), None);
        assert_eq!(choose_width(Some("wide"), true, || Some(0)), Some(80));
    }

    #[test]
    fn notes_wrap_between_words_with_a_hanging_indent() {
        let note = "note: speed of light: datasheet peak and bandwidth, no launch overhead";
        let text = wrap(note, Some(30), 6);
        assert!(text.lines().all(|l| l.chars().count() <= 30), "{text}");
        assert!(
            text.lines()
                .skip(1)
                .all(|l| l.starts_with("      ") && !l.starts_with("       "))
        );
        // Wrapping only moves line breaks: the words are the note's.
        assert_eq!(
            text.split_whitespace().collect::<Vec<_>>(),
            note.split_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(wrap(note, None, 6), note);
    }

    #[test]
    fn a_narrow_table_breaks_no_word() {
        let mut g = Grid::new();
        g.load_style(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(40);
        g.set_header(vec![
            "rank",
            "communication per decode step",
            "time to first token",
        ]);
        g.add_row(vec!["1", "326.2 us", "906.6 ms"]);
        keep_short_cells_whole(&mut g);
        let text = g.to_string();
        for word in ["communication", "per", "decode", "step", "first", "token"] {
            assert!(
                text.split(|c: char| !c.is_alphanumeric())
                    .any(|w| w == word),
                "{word} broken in\n{text}"
            );
        }
    }

    #[test]
    fn a_narrow_terminal_leaves_long_text_out() {
        let summary = "Hopper, 132 SMs, 80 GB HBM3 at 3.35 TB/s, 989 TFLOP/s dense BF16";
        let table = || {
            (
                vec!["id".to_string(), "peak".into(), "summary".into()],
                vec![vec![
                    "h100-sxm".to_string(),
                    "989 TFLOP/s".into(),
                    summary.into(),
                ]],
            )
        };
        // id 8 + 3, peak 11 + 3, one rule: 26 columns; the summary needs 27.
        let (mut h, mut b) = table();
        assert_eq!(drop_long_text(&mut h, &mut b, 53), Vec::<String>::new());
        assert_eq!(h.len(), 3);
        let (mut h, mut b) = table();
        assert_eq!(
            drop_long_text(&mut h, &mut b, 52),
            vec!["summary".to_string()]
        );
        assert_eq!(h, vec!["id".to_string(), "peak".into()]);
        assert_eq!(b[0], vec!["h100-sxm".to_string(), "989 TFLOP/s".into()]);
    }

    #[test]
    fn a_narrow_table_wraps_long_text_not_ids_or_figures() {
        let mut g = Grid::new();
        g.load_style(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(42);
        // 42 columns leave the summary its longest word, `TFLOP/s`.
        g.set_header(vec!["id", "peak", "summary"]);
        g.add_row(vec![
            "a100-sxm-80gb",
            "312 TFLOP/s",
            "Ampere, 108 SMs, 80 GB HBM2e at 2,039 GB/s, 312 TFLOP/s dense BF16",
        ]);
        keep_short_cells_whole(&mut g);
        let text = g.to_string();
        assert!(text.contains("a100-sxm-80gb"), "{text}");
        assert!(text.contains("312 TFLOP/s"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 42), "{text}");
    }

    #[test]
    fn a_large_table_looks_like_a_small_one() {
        let header = vec!["a".to_string(), "bb".to_string()];
        let body = vec![vec!["1".to_string(), "22".to_string()]];
        let mut g = Grid::new();
        g.load_style(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Disabled);
        g.set_header(header.clone());
        g.add_row(body[0].clone());
        assert_eq!(plain_grid(&header, &body, false), g.to_string());
        let mut m = Grid::new();
        m.load_style(comfy_table::presets::ASCII_MARKDOWN)
            .set_content_arrangement(ContentArrangement::Disabled);
        m.set_header(header.clone());
        m.add_row(body[0].clone());
        assert_eq!(plain_grid(&header, &body, true), m.to_string());
    }

    #[test]
    fn snapshot() {
        insta::assert_snapshot!(String::from_utf8(Table.render(&sample())).unwrap());
    }

    #[test]
    fn a_cell_wider_than_sixteen_bits_is_cut_not_a_panic() {
        // A 65,534-letter name once overflowed the table library's 16-bit
        // widths (issue 55).
        let mut r = sample();
        let long = "x".repeat(65_534);
        r.result("name", long.as_str(), Quantity::new(&long, Unit::None));
        r.rows[0]
            .inputs
            .insert(long.clone().into(), long.as_str().into());
        for md in [false, true] {
            let text = if md {
                String::from_utf8(super::super::markdown::Markdown.render(&r)).unwrap()
            } else {
                String::from_utf8(Table.render(&r)).unwrap()
            };
            assert!(text.contains(&format!("{}…", "x".repeat(MAX_CELL - 1))));
            assert!(!text.contains(&"x".repeat(MAX_CELL)));
        }
        assert_eq!(clip("short"), "short");
        assert_eq!(clip("é".repeat(2000)).chars().count(), MAX_CELL);
    }
}

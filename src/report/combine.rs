//! Reports made of whole reports: a catalog listing, and the comparison
//! or sweep that [`Report::combine`] gathers.

use super::{Gather, Quantity, Report, Row, Unit};
use serde_json::Value;

impl Report {
    /// A catalog listing made of one report per entry (`hw list`'s, one
    /// per accelerator): a row each, its input `id` the entry's hardware or
    /// model, its results the `columns` (key, heading, unit) the entry has.
    /// A figure an entry states in another unit (a capacity in GiB beside
    /// others in GB) keeps that unit in its row. Derivations and notes stay
    /// with the entries.
    pub fn listing(command: &str, entries: Vec<Report>, columns: &[(&str, &str, Unit)]) -> Report {
        let mut r = Report::new(command);
        r.describe("id", Quantity::new("id", Unit::None));
        for (key, label, unit) in columns {
            r.describe(key.to_string(), Quantity::new(*label, *unit));
        }
        for mut e in entries {
            let mut row = Row::default();
            let id = e.hardware.take().or(e.model.take()).unwrap_or_default();
            row.inputs.insert("id".into(), id.into());
            for (key, _, unit) in columns {
                if let Some(v) = e.results.shift_remove(*key) {
                    let own = e.unit(key);
                    if own != *unit {
                        row.units.insert(key.to_string().into(), own);
                    }
                    row.results.insert(key.to_string().into(), v);
                }
            }
            r.rows.push(row);
        }
        r
    }

    /// Combines whole answers of the same command into one report whose
    /// rows are theirs, every result in every row. `axes` names what varies
    /// (`hardware`, `model`, or the swept inputs); an axis's value is the
    /// point's resolved input of that name where it has one, else its
    /// result of that name (which then leaves the row's results, so no
    /// column is repeated), else the point's value as typed. The first
    /// report describes the columns; notes are those every full point
    /// shares, and in a comparison each item's others, prefixed with the
    /// items that have them.
    pub fn combine(reports: Vec<Report>, axes: &[String], points: &[Vec<Value>]) -> Report {
        let mut g = Gather::new(axes, reports.len());
        for (i, r) in reports.into_iter().enumerate() {
            let point: Vec<(&str, &Value)> = points.get(i).map_or_else(Vec::new, |p| {
                axes.iter().map(String::as_str).zip(p.iter()).collect()
            });
            g.push(r, &point);
        }
        g.finish()
    }
}

/// Whether `note` names `item` as a word of its own (`h100-sxm's fp8`,
/// `80 GB of h100-sxm`), not inside another (`hf` in `half`).
pub(super) fn names(note: &str, item: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '-' || c == '_' || c == '.';
    note.match_indices(item).any(|(i, _)| {
        let before = note[..i].chars().next_back();
        let after = note[i + item.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(|c| part(c) && c != '.')
    })
}

/// A comparison item's name: its axis values (`h100-sxm`, or
/// `h100-sxm / llama-3-8b` for a grid of both).
pub(super) fn item_label(axes: &[String], row: &Row) -> String {
    axes.iter()
        .filter_map(|a| row.inputs.get(a.as_str()))
        .map(|v| v.as_str().map_or_else(|| v.to_string(), String::from))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// Moves the table inside one answer into its results, for a comparison:
/// row `fp8`'s `dense_flops_per_s` becomes `fp8_dense_flops_per_s`,
/// labelled `fp8 dense peak`, in the row's own unit, in section
/// `precisions` (named after the table's first column).
pub(super) fn table_as_results(r: &mut Report) {
    let rows = std::mem::take(&mut r.rows);
    r.rows_kind = None;
    for row in rows {
        let Some((col, id)) = row.inputs.first() else {
            continue;
        };
        let id = id.as_str().map_or_else(|| id.to_string(), String::from);
        let group = format!("{col}s");
        for (k, v) in row.results {
            let key = format!("{id}_{k}");
            if !r.lean
                && let Some(q) = r.quantities.get(k.as_ref())
            {
                let mut q = q.clone();
                q.label = format!("{id} {}", q.label);
                q.unit = row.units.get(k.as_ref()).copied().unwrap_or(q.unit);
                q.group = Some(group.clone());
                r.quantities.insert(key.clone().into(), q);
            }
            r.results.insert(key.into(), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::RowsKind;

    #[test]
    fn a_note_names_an_item_only_as_a_word_of_its_own() {
        assert!(names(
            "fit against 80 GB of h100-sxm (the datasheet)",
            "h100-sxm"
        ));
        assert!(names("h100-sxm's fp8 peak", "h100-sxm"));
        assert!(names("the part is h100-sxm.", "h100-sxm"));
        assert!(!names("a half-full cache", "hf"));
        assert!(!names("a100-sxm-80gb is bigger", "a100-sxm"));
    }

    #[test]
    fn a_comparison_keeps_each_item_s_own_notes_with_its_name() {
        let item = |hw: &str, notes: &[&str]| {
            let mut r = Report::new("t");
            r.hardware = Some(hw.into());
            r.result("x", 1.0, Quantity::new("x", Unit::Count));
            for n in notes {
                r.note(*n);
            }
            r
        };
        let axes = ["hardware".to_string()];
        let r = Report::combine(
            vec![
                item("a", &["shared", "limited by registers"]),
                item("b", &["shared", "limited by waves"]),
                item("c", &["shared", "limited by registers", "c's own words"]),
            ],
            &axes,
            &[],
        );
        assert_eq!(
            r.notes,
            [
                "shared",
                "a, c: limited by registers",
                "b: limited by waves",
                "c's own words"
            ]
        );
    }

    #[test]
    fn combine_keeps_shared_inputs_and_varies_the_rest() {
        let mk = |hw: &str, bw: f64| {
            let mut r = Report::new("point");
            r.hardware = Some(hw.into());
            r.input("intensity", 1.0);
            r.result("time_s", bw, Quantity::new("time", Unit::Seconds));
            r.note("shared note");
            r
        };
        let axes = vec!["hardware".to_string()];
        let c = Report::combine(vec![mk("a", 1.0), mk("b", 2.0)], &axes, &[]);
        assert_eq!(c.hardware, None);
        assert_eq!(c.rows_kind, Some(RowsKind::Comparison));
        assert_eq!(c.inputs.get("intensity"), Some(&Value::from(1.0)));
        assert_eq!(c.rows.len(), 2);
        assert_eq!(c.rows[1].inputs.get("hardware"), Some(&Value::from("b")));
        assert_eq!(c.rows[1].results.get("time_s"), Some(&Value::from(2.0)));
        // A result equal at every point still sits in every row.
        let same = Report::combine(vec![mk("a", 1.0), mk("b", 1.0)], &axes, &[]);
        assert!(same.results.is_empty());
        assert_eq!(same.rows[0].results.get("time_s"), Some(&Value::from(1.0)));
        assert_eq!(c.notes, vec!["shared note".to_string()]);
    }

    #[test]
    fn a_swept_input_that_is_also_a_result_is_one_column() {
        // `model show --sweep layers=16,32`: the point's results hold the
        // layers too; the row keeps the input, at the worked value.
        let mk = |layers: f64| {
            let mut r = Report::new("model show");
            r.result("layers", layers, Quantity::new("layers (L)", Unit::Count));
            r.result("params", layers * 2.0, Quantity::new("params", Unit::Count));
            r
        };
        let axes = vec!["layers".to_string()];
        let points = vec![vec![Value::from("16")], vec![Value::from("32")]];
        let c = Report::combine(vec![mk(16.0), mk(32.0)], &axes, &points);
        assert_eq!(c.rows[1].inputs.get("layers"), Some(&Value::from(32.0)));
        assert!(c.rows.iter().all(|r| !r.results.contains_key("layers")));
        assert_eq!(c.rows[1].results.get("params"), Some(&Value::from(64.0)));
    }

    #[test]
    fn a_listing_keys_rows_by_id_and_keeps_each_entry_unit() {
        let mk = |id: &str, bytes: f64, unit: Unit| {
            let mut r = Report::new("hw list");
            r.hardware = Some(id.into());
            r.result(
                "cap",
                bytes,
                Quantity::new("capacity", unit).source(Some("a datasheet")),
            );
            r.result("extra", 1.0, Quantity::new("not listed", Unit::Count));
            r.note("an entry's note");
            r
        };
        let l = Report::listing(
            "hw list",
            vec![
                mk("a", 80e9, Unit::Bytes),
                mk("b", 192.0 * 1024f64.powi(3), Unit::BytesIec),
            ],
            &[("cap", "memory", Unit::Bytes)],
        );
        assert_eq!(l.rows[1].inputs.get("id"), Some(&Value::from("b")));
        assert_eq!(l.rows[1].unit("cap", &l), Unit::BytesIec);
        assert_eq!(l.rows[0].unit("cap", &l), Unit::Bytes);
        assert!(l.rows.iter().all(|r| !r.results.contains_key("extra")));
        assert_eq!(l.label("cap"), "memory");
        assert_eq!(l.quantities["cap"].source, None);
        assert!(l.notes.is_empty());
    }
}

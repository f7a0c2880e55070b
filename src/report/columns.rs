//! A streamed sweep's lean points as values alone. Every point of a sweep
//! records the same results in the same order, so once the first point
//! has named them ([`Columns`]) a later point's report need not hash ~90
//! keys into a map only for the row to be written out and dropped: it
//! pushes its values in order ([`Flat`]), and the CSV writer takes them by
//! position. A point whose results leave that order (a result the first
//! point did not have, one out of place) moves its values into the map
//! ([`super::Report::spill`]) and goes on as before, so the rows written
//! are the same either way.

use super::{Key, Map};
use serde_json::Value;
use std::cell::RefCell;
use std::sync::Arc;

/// The results a sweep's first answering point gave, in order, and its
/// command: the columns its later lean points fill by position.
#[derive(Debug, PartialEq)]
pub(crate) struct Columns {
    /// The command whose reports fill them (a report of another command
    /// made within a point keeps its own map).
    pub(crate) command: String,
    /// The result keys, in order (distinct, as a map's keys are).
    pub(crate) keys: Vec<Key>,
}

/// A lean point's results: the first `values.len()` of its sweep's
/// [`Columns`], in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Flat {
    pub(crate) columns: Arc<Columns>,
    pub(crate) values: Vec<Value>,
}

thread_local! {
    /// The columns of the streamed sweep under way ([`ColumnsGuard`]).
    static COLUMNS: RefCell<Option<Arc<Columns>>> = const { RefCell::new(None) };
}

/// Sets the columns lean reports of `columns.command` fill while it
/// lives; dropped (the sweep done, or stopped by an error), lean reports
/// keep maps again.
pub(crate) struct ColumnsGuard(());

impl ColumnsGuard {
    pub(crate) fn set(columns: Columns) -> Self {
        COLUMNS.with(|c| *c.borrow_mut() = Some(Arc::new(columns)));
        ColumnsGuard(())
    }
}

impl Drop for ColumnsGuard {
    fn drop(&mut self) {
        COLUMNS.with(|c| *c.borrow_mut() = None);
    }
}

/// An empty [`Flat`] for a lean report of `command`, when a streamed
/// sweep of that command is under way.
pub(crate) fn flat_for(command: &str) -> Option<Flat> {
    COLUMNS.with(|c| {
        let c = c.borrow();
        let columns = c.as_ref().filter(|c| c.command == command)?;
        Some(Flat {
            columns: Arc::clone(columns),
            values: Vec::with_capacity(columns.keys.len()),
        })
    })
}

/// Whether two keys are the same: the same literal (the same call site
/// records a point's result every time) is found without reading it.
fn same(a: &Key, b: &Key) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a == b
}

impl Flat {
    /// Whether `key` is the next column.
    pub(crate) fn next_is(&self, key: &Key) -> bool {
        self.columns
            .keys
            .get(self.values.len())
            .is_some_and(|k| same(k, key))
    }

    /// The (key, value) pairs held, in order.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (&Key, &Value)> {
        self.columns.keys.iter().zip(&self.values)
    }

    /// The value of `key`, if held.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.pairs()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    /// The values as a map of their keys.
    pub(crate) fn into_map(self) -> Map<Value> {
        let keys = &self.columns.keys;
        let mut m = Map::with_capacity_and_hasher(keys.len(), Default::default());
        m.extend(keys.iter().cloned().zip(self.values));
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Quantity, Report, Unit};

    fn q() -> Quantity {
        Quantity::new("x", Unit::Count)
    }

    fn keys(r: &Report) -> Vec<String> {
        r.result_pairs().map(|(k, _)| k.to_string()).collect()
    }

    #[test]
    fn a_lean_point_in_its_sweep_s_order_holds_values_alone() {
        let _g = ColumnsGuard::set(Columns {
            command: "t".into(),
            keys: vec!["a".into(), "b".into()],
        });
        let mut r = Report::new_lean("t", true);
        r.result("a", 1.0, q);
        r.result("b", 2.0, q);
        assert!(r.results.is_empty());
        assert_eq!(r.flat.as_ref().map(|f| f.values.len()), Some(2));
        assert_eq!(r.number("b"), Some(2.0));
        assert_eq!(keys(&r), ["a", "b"]);
        // A full report, or one of another command, keeps its map.
        let mut full = Report::new_lean("t", false);
        full.result("a", 1.0, q);
        assert!(full.flat.is_none() && full.results.len() == 1);
        assert!(Report::new_lean("u", true).flat.is_none());
    }

    #[test]
    fn a_result_out_of_order_moves_the_values_into_the_map() {
        let _g = ColumnsGuard::set(Columns {
            command: "t".into(),
            keys: vec!["a".into(), "b".into(), "c".into()],
        });
        let mut r = Report::new_lean("t", true);
        r.result("a", 1.0, q);
        r.result("c", 3.0, q);
        r.result("a", 4.0, q);
        assert!(r.flat.is_none());
        // As a map would hold them: `a` overwritten in its place.
        assert_eq!(keys(&r), ["a", "c"]);
        assert_eq!(r.number("a"), Some(4.0));
    }

    #[test]
    fn the_columns_end_with_their_guard() {
        {
            let _g = ColumnsGuard::set(Columns {
                command: "t".into(),
                keys: vec!["a".into()],
            });
            assert!(Report::new_lean("t", true).flat.is_some());
        }
        assert!(Report::new_lean("t", true).flat.is_none());
    }
}

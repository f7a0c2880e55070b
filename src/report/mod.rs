//! The one result shape every calculation returns. Every output format,
//! `--explain`, charts and scenario files are made from it.
//!
//! `results` holds bare values in base units (so `jq .results.time_s`
//! works); `quantities` says, for each result, its label, unit, formula and
//! the derivation with numbers substituted; `rows` carries sweeps and
//! comparisons, one object per point.
//!
//! The rooms: this file holds the report and its parts; `unit` how values
//! are measured and formatted, `combine` listings and comparisons made of
//! whole reports, `gather` the point-by-point building of a sweep's report
//! and the streaming of its rows.

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

mod columns;
mod combine;
mod gather;
mod kept;
mod unit;

pub(crate) use columns::{Columns, ColumnsGuard, Flat};

pub(crate) use gather::Gather;
pub use gather::RowSink;
pub use kept::ChartRows;
pub use unit::Unit;

/// What a result means: label, unit, formula and the substituted
/// derivation.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Quantity {
    /// What a person calls it ("ridge point").
    pub label: String,
    /// Its unit.
    pub unit: Unit,
    /// The formula in symbols, empty for inputs read from a file.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub formula: String,
    /// The formula with the numbers substituted.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub derivation: String,
    /// Where the number comes from (a seed section, a datasheet, measured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The section a long report lists it under (`memory`, `execution`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

impl Quantity {
    /// A quantity with a label and a unit.
    pub fn new(label: impl Into<String>, unit: Unit) -> Self {
        Quantity {
            label: label.into(),
            unit,
            formula: String::new(),
            derivation: String::new(),
            source: None,
            group: None,
        }
    }

    /// Adds the formula.
    pub fn formula(mut self, f: impl Into<String>) -> Self {
        self.formula = f.into();
        self
    }

    /// Adds the substituted derivation.
    pub fn derive(mut self, d: impl Into<String>) -> Self {
        self.derivation = d.into();
        self
    }

    /// Puts it in a section.
    pub fn group(mut self, g: impl Into<String>) -> Self {
        self.group = Some(g.into());
        self
    }

    /// Adds the source.
    pub fn source(mut self, s: Option<&str>) -> Self {
        self.source = s.map(Into::into);
        self
    }
}

/// A key of a report's inputs or results: a literal (`"time_s"`, no
/// allocation, which a sweep of a million points notices) or a name built
/// at run time (`"l2_bytes"` from a memory level).
pub type Key = std::borrow::Cow<'static, str>;

/// A report's map from keys to values: insertion-ordered, with a fast
/// non-cryptographic hash (a sweep builds one per point).
pub type Map<V> = IndexMap<Key, V, rustc_hash::FxBuildHasher>;

thread_local! {
    /// How many inputs and results the points of the sweep under way have,
    /// so each lean point's maps are made the right size at once.
    static SIZE_HINT: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Sets the sizes lean reports start their inputs and results at (0: no
/// hint).
pub(crate) fn set_size_hint(inputs: usize, results: usize) {
    SIZE_HINT.with(|h| h.set((inputs, results)));
}

/// Something that describes a result: a [`Quantity`], or a closure that
/// makes one, so a sweep's lean points skip formatting derivations.
pub trait Describe {
    /// The quantity.
    fn quantity(self) -> Quantity;
}

impl Describe for Quantity {
    fn quantity(self) -> Quantity {
        self
    }
}

impl<F: FnOnce() -> Quantity> Describe for F {
    fn quantity(self) -> Quantity {
        self()
    }
}

/// One point of a sweep or one item of a comparison.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Row {
    /// The inputs that vary (and those that identify the row).
    pub inputs: Map<Value>,
    /// The row's results.
    pub results: Map<Value>,
    /// Units of this row's results where they differ from the report's
    /// (a capacity one vendor states in GiB and another in GB).
    #[serde(skip)]
    pub units: Map<Unit>,
    /// Why this point has no answer, where it failed: a sweep carries on
    /// past a failing point, and its row says why (CSV and JSON always have
    /// the `error` column, empty where the point answered).
    #[serde(skip)]
    pub error: Option<String>,
}

impl Row {
    /// The unit a result of this row is shown in.
    pub fn unit(&self, key: &str, report: &Report) -> Unit {
        self.units
            .get(key)
            .copied()
            .unwrap_or_else(|| report.unit(key))
    }
}

/// What a report's `rows` are.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RowsKind {
    /// Points of a sweep (one whole answer each; `axes` names what varies).
    Sweep,
    /// Items of a comparison (one per accelerator or model).
    Comparison,
    /// A table inside one answer (matmul's tiles, hw show's precisions).
    Table,
}

/// A calculation's answer.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Report {
    /// The command that produced it (`hw show`, `point`).
    pub command: String,
    /// Hardware id, where used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hardware: Option<String>,
    /// Model id, where used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Resolved inputs in base units.
    pub inputs: Map<Value>,
    /// Answers in base units.
    pub results: Map<Value>,
    /// What each result (and row column) means.
    pub quantities: Map<Quantity>,
    /// The inputs that vary across `rows`, outermost first (`hardware` for a
    /// comparison).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub axes: Vec<String>,
    /// What `rows` are, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_kind: Option<RowsKind>,
    /// Sweep points, comparison items or a table inside the answer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<Row>,
    /// A streamed sweep's rows went out as they were made; these are the
    /// points its chart draws, kept as numbers ([`ChartRows`]).
    #[serde(skip)]
    pub chart_rows: Option<ChartRows>,
    /// Verdicts and assumptions.
    pub notes: Vec<String>,
    /// A lean report records values only: no quantities, no notes. A sweep
    /// builds its inner points this way.
    #[serde(skip)]
    pub lean: bool,
    /// The results a table shows by default (the answer and the few figures
    /// that decide it); empty means all. `--all` shows every result; JSON
    /// and CSV always carry them all.
    #[serde(skip)]
    pub headline: Vec<String>,
    /// Whether the table inside the answer (matmul's tiles) is an
    /// intermediate a default table leaves to `--all`.
    #[serde(skip)]
    pub rows_beyond_headline: bool,
    /// Whether the rows are records a script wants one line each
    /// (`simulate --per-request`): CSV prints them alone, without the
    /// answer's own columns.
    #[serde(skip)]
    pub rows_are_records: bool,
    /// Whether a comparison keeps the table inside the answer as results
    /// of its own (`hw show`'s precisions: `fp8_dense_flops_per_s`), one
    /// per row and column, since a comparison's rows are its items.
    #[serde(skip)]
    pub table_in_comparison: bool,
    /// The columns of the table inside the answer a default table shows
    /// (plan search's rank, layout, objective, what binds, fits); empty
    /// means all. `--all` shows every column.
    #[serde(skip)]
    pub row_headline: Vec<String>,
    /// A lean point of a streamed sweep whose results come in the order
    /// its first answering point's did: their values alone ([`Flat`]),
    /// `results` staying empty until a result comes out of that order.
    #[serde(skip)]
    pub(crate) flat: Option<Flat>,
}

impl Report {
    /// An empty report for a command.
    pub fn new(command: impl Into<String>) -> Self {
        Report {
            command: command.into(),
            ..Default::default()
        }
    }

    /// An empty report; a lean one records values only.
    pub fn new_lean(command: impl Into<String>, lean: bool) -> Self {
        let (inputs, results) = if lean {
            SIZE_HINT.with(|h| h.get())
        } else {
            (0, 0)
        };
        let command = command.into();
        let flat = if lean {
            columns::flat_for(&command)
        } else {
            None
        };
        let results = if flat.is_some() { 0 } else { results };
        Report {
            command,
            lean,
            inputs: Map::with_capacity_and_hasher(inputs, Default::default()),
            results: Map::with_capacity_and_hasher(results, Default::default()),
            flat,
            ..Default::default()
        }
    }

    /// Records an input.
    pub fn input(&mut self, key: impl Into<Key>, value: impl Into<Value>) {
        self.inputs.insert(key.into(), value.into());
    }

    /// Records a result and what it means (the description is only made
    /// when the report is not lean).
    pub fn result(&mut self, key: impl Into<Key>, value: impl Into<Value>, q: impl Describe) {
        let key = key.into();
        if !self.lean {
            self.quantities.insert(key.clone(), q.quantity());
        }
        if let Some(flat) = &mut self.flat {
            if flat.next_is(&key) {
                flat.values.push(value.into());
                return;
            }
            self.spill();
        }
        self.results.insert(key, value.into());
    }

    /// Moves a lean point's values ([`Report::flat`]) into `results`, for
    /// a result out of its sweep's order or a reader that wants the map.
    pub(crate) fn spill(&mut self) {
        if let Some(flat) = self.flat.take() {
            let mut results = flat.into_map();
            results.extend(std::mem::take(&mut self.results));
            self.results = results;
        }
    }

    /// The results as (key, value) pairs, in order, whichever way they
    /// are held.
    #[cfg(test)]
    pub(crate) fn result_pairs(&self) -> impl Iterator<Item = (&Key, &Value)> {
        let flat = self.flat.iter().flat_map(Flat::pairs);
        flat.chain(self.results.iter())
    }

    /// Describes a key that appears only in rows or inputs; a key that is
    /// also a result keeps the result's description (and its derivation).
    pub fn describe(&mut self, key: impl Into<Key>, q: impl Describe) {
        let key = key.into();
        if !self.lean && !self.quantities.contains_key(&key) {
            self.quantities.insert(key, q.quantity());
        }
    }

    /// Names the results a table shows by default.
    pub fn headline(&mut self, keys: &[&str]) {
        if !self.lean {
            self.headline = keys.iter().map(|k| (*k).to_string()).collect();
        }
    }

    /// Whether a table shows `key` by default.
    pub fn in_headline(&self, key: &str) -> bool {
        self.headline.is_empty() || self.headline.iter().any(|k| k == key)
    }

    /// Adds a note.
    pub fn note(&mut self, n: impl Into<String>) {
        if !self.lean {
            self.notes.push(n.into());
        }
    }

    /// Adds a note made only when the report is not lean.
    pub fn note_with(&mut self, n: impl FnOnce() -> String) {
        if !self.lean {
            self.notes.push(n());
        }
    }

    /// Puts every result recorded since the first `from` results into
    /// section `group` (those already in a section keep theirs).
    pub fn group_since(&mut self, from: usize, group: &str) {
        let keys: Vec<Key> = self.results.keys().skip(from).cloned().collect();
        for k in keys {
            if let Some(q) = self.quantities.get_mut(&k) {
                q.group.get_or_insert_with(|| group.to_string());
            }
        }
    }

    /// Orders results by section, in the order given; results in no section
    /// come first and each section keeps its own order.
    pub fn order_groups(&mut self, order: &[&str]) {
        self.spill();
        let rank = |q: Option<&Quantity>| match q.and_then(|q| q.group.as_deref()) {
            None => 0,
            Some(g) => order
                .iter()
                .position(|o| *o == g)
                .map_or(order.len() + 1, |i| i + 1),
        };
        let quantities = &self.quantities;
        let mut entries: Vec<(Key, Value)> =
            std::mem::take(&mut self.results).into_iter().collect();
        entries.sort_by_key(|(k, _)| rank(quantities.get(k.as_ref())));
        self.results = entries.into_iter().collect();
    }

    /// A result as a number, if it is one.
    pub fn number(&self, key: &str) -> Option<f64> {
        match &self.flat {
            Some(flat) => flat.get(key).or_else(|| self.results.get(key)),
            None => self.results.get(key),
        }
        .and_then(Value::as_f64)
    }

    /// The label of a key, or the key itself.
    pub fn label(&self, key: &str) -> String {
        self.quantities
            .get(key)
            .map_or_else(|| key.replace('_', " "), |q| q.label.clone())
    }

    /// The unit of a key.
    pub fn unit(&self, key: &str) -> Unit {
        self.quantities.get(key).map_or(Unit::None, |q| q.unit)
    }

    /// Whether `rows` are whole answers (a sweep or a comparison) rather
    /// than a table inside one answer.
    pub fn rows_are_points(&self) -> bool {
        matches!(self.rows_kind, Some(RowsKind::Sweep | RowsKind::Comparison))
    }
}

//! The one result shape every calculation returns. Every output format,
//! `--explain`, charts and scenario files are made from it.
//!
//! `results` holds bare values in base units (so `jq .results.time_s`
//! works); `quantities` says, for each result, its label, unit, formula and
//! the derivation with numbers substituted; `rows` carries sweeps and
//! comparisons, one object per point.

use crate::units;
use indexmap::IndexMap;
use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::Value;

/// How a value is measured, which decides how tables format it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Unit {
    /// Bytes, formatted with SI prefixes (HBM, weights, traffic).
    #[serde(rename = "B")]
    Bytes,
    /// Bytes, formatted with IEC prefixes (on-chip SRAM).
    #[serde(rename = "B (IEC)")]
    BytesIec,
    /// Bytes per second.
    #[serde(rename = "B/s")]
    BytesPerSec,
    /// Bytes per clock cycle.
    #[serde(rename = "B/cycle")]
    BytesPerCycle,
    /// Floating-point operations.
    #[serde(rename = "FLOP")]
    Flop,
    /// Floating-point operations per second.
    #[serde(rename = "FLOP/s")]
    FlopPerSec,
    /// Floating-point operations per second per watt of board power.
    #[serde(rename = "FLOP/s/W")]
    FlopPerSecPerWatt,
    /// Arithmetic intensity.
    #[serde(rename = "FLOP/B")]
    FlopPerByte,
    /// Integer operations (int8, int4 arithmetic: not floating point).
    #[serde(rename = "OP")]
    Op,
    /// Integer operations per second: int8/int4 peaks, printed as OP/s
    /// (TOPS in datasheets).
    #[serde(rename = "OP/s")]
    OpPerSec,
    /// Integer operations per byte.
    #[serde(rename = "OP/B")]
    OpPerByte,
    /// Integer operations per second per watt of board power.
    #[serde(rename = "OP/s/W")]
    OpPerSecPerWatt,
    /// Seconds.
    #[serde(rename = "s")]
    Seconds,
    /// Hertz.
    #[serde(rename = "Hz")]
    Hz,
    /// Clock cycles.
    #[serde(rename = "cycles")]
    Cycles,
    /// A count (parameters, blocks, warps).
    #[serde(rename = "count")]
    Count,
    /// A fraction from 0 to 1, shown as a percentage.
    #[serde(rename = "fraction")]
    Fraction,
    /// A dimensionless ratio, shown as "2.5x".
    #[serde(rename = "x")]
    Ratio,
    /// Bits.
    #[serde(rename = "bits")]
    Bits,
    /// Watts of board power.
    #[serde(rename = "W")]
    Watts,
    /// Joules, formatted J, mJ, uJ, nJ, pJ.
    #[serde(rename = "J")]
    Joules,
    /// Joules per floating-point operation, formatted in pJ/FLOP.
    #[serde(rename = "J/FLOP")]
    JoulesPerFlop,
    /// Joules per byte, formatted in pJ/B.
    #[serde(rename = "J/B")]
    JoulesPerByte,
    /// Tokens per kilowatt-hour.
    #[serde(rename = "tokens/kWh")]
    TokensPerKwh,
    /// Text, a boolean or a structured value.
    #[serde(rename = "")]
    None,
}

impl Unit {
    /// The integer-operation twin of a FLOP unit when `integer` (an int8 or
    /// int4 computation): FLOP -> OP, FLOP/s -> OP/s, FLOP/B -> OP/B,
    /// FLOP/s/W -> OP/s/W; any other unit as it is. JSON keys stay as they are (`_flops_per_s`).
    pub fn ops_if(self, integer: bool) -> Unit {
        match (self, integer) {
            (Unit::Flop, true) => Unit::Op,
            (Unit::FlopPerSec, true) => Unit::OpPerSec,
            (Unit::FlopPerByte, true) => Unit::OpPerByte,
            (Unit::FlopPerSecPerWatt, true) => Unit::OpPerSecPerWatt,
            (u, _) => u,
        }
    }

    /// Formats a base-unit number for people.
    pub fn format(self, v: f64) -> String {
        match self {
            Unit::Bytes => units::si(v, "B"),
            // A capacity stated in decimal units (NVIDIA's "50 MB" of L2,
            // AMD's 8 x 4 MB) reads better in them than as 47.68 MiB.
            Unit::BytesIec if reads_decimal(v) => units::si(v, "B"),
            Unit::BytesIec => units::iec_bytes(v),
            Unit::BytesPerSec => units::si(v, "B/s"),
            Unit::BytesPerCycle => format!("{} B/cycle", plain(v)),
            Unit::Flop => units::si(v, "FLOP"),
            Unit::FlopPerSec => units::si(v, "FLOP/s"),
            Unit::FlopPerSecPerWatt => units::si(v, "FLOP/s/W"),
            Unit::OpPerSecPerWatt => units::si(v, "OP/s/W"),
            Unit::FlopPerByte => format!("{} FLOP/B", plain(v)),
            Unit::Op => units::si(v, "OP"),
            Unit::OpPerSec => units::si(v, "OP/s"),
            Unit::OpPerByte => format!("{} OP/B", plain(v)),
            Unit::Seconds => units::seconds(v),
            Unit::Hz => units::si(v, "Hz"),
            Unit::Cycles => format!("{} cycles", units::number(v)),
            Unit::Count => units::number(v),
            Unit::Fraction => format!("{}%", units::percent(v)),
            Unit::Ratio => format!("{}x", plain(v)),
            Unit::Bits => format!("{} bits", units::sig(v, 4)),
            Unit::Watts => units::si(v, "W"),
            Unit::Joules => units::joules(v),
            Unit::JoulesPerFlop => format!("{} pJ/FLOP", units::sig(v * 1e12, 4)),
            Unit::JoulesPerByte => format!("{} pJ/B", units::sig(v * 1e12, 4)),
            Unit::TokensPerKwh => format!("{} tokens/kWh", units::si(v, "").trim_end()),
            Unit::None => units::sig(v, 4),
        }
    }

    /// Formats any JSON value for people.
    pub fn format_value(self, v: &Value) -> String {
        match v {
            Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), |x| self.format(x)),
            Value::String(s) => s.clone(),
            Value::Bool(b) => {
                if *b {
                    "yes".into()
                } else {
                    "no".into()
                }
            }
            Value::Null => "-".into(),
            other => other.to_string(),
        }
    }
}

/// Whether a byte count is a whole number of the decimal unit it would
/// be printed in (32 MB) but not of the binary one (30.52 MiB).
fn reads_decimal(v: f64) -> bool {
    let whole_in = |base: f64| {
        let mut scale = 1.0;
        while scale * base <= v.abs() && scale < base.powi(6) {
            scale *= base;
        }
        scale > 1.0 && (v / scale).fract() == 0.0
    };
    whole_in(1000.0) && !whole_in(1024.0)
}

/// A number without a prefix: four significant digits, grouped in
/// thousands from 1,000 up.
fn plain(v: f64) -> String {
    if v.abs() >= 1000.0 && v.abs() < 1e15 {
        units::number(v)
    } else {
        units::sig(v, 4)
    }
}

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
    /// How many results the points of the sweep under way have, so each
    /// lean point's map is made the right size at once.
    static RESULTS_HINT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Sets the size lean reports start their results at (0: no hint).
pub(crate) fn set_results_hint(n: usize) {
    RESULTS_HINT.with(|h| h.set(n));
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
    /// points its chart draws, kept as numbers ([`crate::chart::ChartRows`]).
    #[serde(skip)]
    pub chart_rows: Option<crate::chart::ChartRows>,
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
        let hint = if lean {
            RESULTS_HINT.with(|h| h.get())
        } else {
            0
        };
        Report {
            command: command.into(),
            lean,
            results: Map::with_capacity_and_hasher(hint, Default::default()),
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
        self.results.insert(key, value.into());
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
        self.results.get(key).and_then(Value::as_f64)
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
fn names(note: &str, item: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '-' || c == '_' || c == '.';
    note.match_indices(item).any(|(i, _)| {
        let before = note[..i].chars().next_back();
        let after = note[i + item.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(|c| part(c) && c != '.')
    })
}

/// A comparison item's name: its axis values (`h100-sxm`, or
/// `h100-sxm / llama-3-8b` for a grid of both).
fn item_label(axes: &[String], row: &Row) -> String {
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
fn table_as_results(r: &mut Report) {
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

/// Where a streamed sweep's rows go as they are worked: CSV and JSON write
/// each row at once, so a grid of a million points is never held whole.
///
/// A streamed report states the first answering point's inputs once, in
/// `head.inputs`; a row carries its axes and any input whose value differs
/// from that one.
pub trait RowSink {
    /// Before the first row: the command, the ids, the first answering
    /// point's inputs, the axes, the kind of rows and the quantities known
    /// so far.
    fn start(&mut self, head: &Report) -> crate::error::Result<()>;
    /// One point's row, in grid order.
    fn row(&mut self, row: &Row) -> crate::error::Result<()>;
    /// After the last row: the report less its rows (every quantity, the
    /// shared notes).
    fn finish(&mut self, tail: &Report) -> crate::error::Result<()>;
}

/// Builds the combined report of a sweep or comparison point by point, so
/// a grid of a million points keeps one row each and never a whole report;
/// with a [`RowSink`], it keeps none.
pub(crate) struct Gather<'a> {
    axes: &'a [String],
    /// Where rows go as they are made, when streaming.
    sink: Option<&'a mut dyn RowSink>,
    out: Report,
    /// The first point's inputs (less the axes): shared until a point
    /// differs, then `varying`.
    candidates: Map<Value>,
    varying: Vec<bool>,
    /// Which candidates the point being gathered has.
    present: Vec<bool>,
    /// Each full point's label and notes, for a comparison: the notes not
    /// every item shares are stated with the items they belong to.
    item_notes: Vec<(String, Vec<String>)>,
    seen: bool,
    /// Whether the sink has been given the report's head.
    started: bool,
    /// When streaming, whether the next row is also kept (the points a
    /// chart of the sweep draws).
    keep: bool,
    /// The first answering point's results, whose keys a streamed CSV's
    /// header names.
    first_results: Map<Value>,
    /// Each unit class's per-row units (see [`Gather::push_in`]), taken
    /// from its first, full point and lent to its lean ones.
    class_units: FxHashMap<Vec<usize>, Map<Unit>>,
}

impl<'a> Gather<'a> {
    pub(crate) fn new(axes: &'a [String], n: usize) -> Self {
        Self::with_sink(axes, n, None)
    }

    /// A gather that hands each row to `sink` rather than keeping it.
    pub(crate) fn with_sink(
        axes: &'a [String],
        n: usize,
        sink: Option<&'a mut dyn RowSink>,
    ) -> Self {
        let mut out = Report::new("");
        out.axes = axes.to_vec();
        out.rows_kind = Some(if axes.iter().all(|a| a == "hardware" || a == "model") {
            RowsKind::Comparison
        } else {
            RowsKind::Sweep
        });
        if sink.is_none() {
            out.rows.reserve_exact(n);
        }
        Gather {
            axes,
            sink,
            out,
            candidates: Default::default(),
            varying: Vec::new(),
            present: Vec::new(),
            item_notes: Vec::new(),
            seen: false,
            started: false,
            keep: false,
            first_results: Map::default(),
            class_units: FxHashMap::default(),
        }
    }

    pub(crate) fn push(&mut self, r: Report, point: &[(&str, &Value)]) {
        // Without a sink nothing can fail.
        let _ = self.push_in(r, point, None);
    }

    /// Gathers a point of unit class `class` (the values of the axes that
    /// can change a result's unit, such as the precision): a lean point
    /// takes the per-row units its class's full point had.
    pub(crate) fn push_in(
        &mut self,
        r: Report,
        point: &[(&str, &Value)],
        class: Option<&[usize]>,
    ) -> crate::error::Result<()> {
        let row = self.make_row(r, point, class);
        self.emit(row, true)
    }

    /// The row of an answering point, its inputs diffed against the first
    /// one's; the first answering point also sets the report's head.
    pub(crate) fn make_row(
        &mut self,
        r: Report,
        point: &[(&str, &Value)],
        class: Option<&[usize]>,
    ) -> Row {
        let first = !self.seen;
        let mut r = r;
        if self.out.rows_kind == Some(RowsKind::Comparison) && r.table_in_comparison {
            table_as_results(&mut r);
        }
        let Report {
            command,
            hardware,
            model,
            inputs,
            mut results,
            quantities,
            notes,
            headline,
            lean,
            ..
        } = r;
        let mut row = Row::default();
        for (j, a) in self.axes.iter().enumerate() {
            let v = match a.as_str() {
                "hardware" => hardware.clone().map(Value::from),
                "model" => model.clone().map(Value::from),
                _ => {
                    // A swept input that is also a result (a model file's
                    // `layers`, decode's `kernels`) is one column, the
                    // input's, at the value the point was worked at.
                    let result = results.shift_remove(a.as_str());
                    inputs.get(a.as_str()).cloned().or(result)
                }
            };
            let v = v.or_else(|| point.get(j).map(|(_, v)| (*v).clone()));
            row.inputs
                .insert(a.clone().into(), v.unwrap_or(Value::Null));
        }
        if !self.seen {
            self.seen = true;
            self.out.command = command;
            if !self.axes.iter().any(|a| a == "hardware") {
                self.out.hardware = hardware;
            }
            if !self.axes.iter().any(|a| a == "model") {
                self.out.model = model;
            }
            self.out.headline = headline;
            if self.out.rows_kind == Some(RowsKind::Comparison) && !lean {
                self.item_notes
                    .push((item_label(self.axes, &row), notes.clone()));
            }
            self.out.notes = notes;
            self.out.quantities = quantities;
            for (k, v) in inputs {
                if !row.inputs.contains_key(k.as_ref()) {
                    self.candidates.insert(k, v);
                }
            }
            self.varying = vec![false; self.candidates.len()];
            self.present = vec![false; self.candidates.len()];
        } else {
            // A point's inputs that differ from the first point's stay in
            // its row; the shared ones are stated once at the end.
            let mut matched = 0;
            self.present.iter_mut().for_each(|p| *p = false);
            for (k, v) in inputs {
                if row.inputs.contains_key(k.as_ref()) {
                    continue;
                }
                match self.candidates.get_index_of(k.as_ref()) {
                    Some(c) => {
                        matched += 1;
                        self.present[c] = true;
                        if self.candidates[c] != v {
                            self.varying[c] = true;
                            row.inputs.insert(k, v);
                        }
                    }
                    None => {
                        row.inputs.insert(k, v);
                    }
                }
            }
            // An input the first point has and this one lacks (a clock one
            // accelerator's file does not give) is null in this row.
            if matched < self.candidates.len() {
                for (c, (k, _)) in self.candidates.iter().enumerate() {
                    if !self.present[c] {
                        self.varying[c] = true;
                        row.inputs.insert(k.clone(), Value::Null);
                    }
                }
            }
            if !lean {
                for (k, q) in quantities {
                    match self.out.quantities.get(k.as_ref()) {
                        Some(first) if first.unit != q.unit => {
                            row.units.insert(k, q.unit);
                        }
                        Some(_) => {}
                        None => {
                            self.out.quantities.insert(k, q);
                        }
                    }
                }
                // The notes stated once are those every full point has.
                self.out.notes.retain(|n| notes.contains(n));
                if self.out.rows_kind == Some(RowsKind::Comparison) {
                    self.item_notes.push((item_label(self.axes, &row), notes));
                }
            }
        }
        if let Some(class) = class {
            if lean {
                if let Some(u) = self.class_units.get(class) {
                    row.units.clone_from(u);
                }
            } else if !self.class_units.contains_key(class) {
                self.class_units.insert(class.to_vec(), row.units.clone());
            }
        }
        // An item that answered with its error (a comparison's part the
        // model does not fit) states it where every failed point does.
        if let Some(Value::String(e)) = results.get("error") {
            row.error = Some(e.clone());
            results.shift_remove("error");
        }
        if first && self.sink.is_some() {
            self.first_results.clone_from(&results);
        }
        row.results = results;
        row
    }

    /// Whether a point has answered yet (the report's head is known).
    pub(crate) fn seen(&self) -> bool {
        self.seen
    }

    /// A point that failed: its row holds its axes and the error. The first
    /// answering point must come first ([`Gather::seen`]); points that
    /// failed before it are pushed after it, in their order, by the caller.
    pub(crate) fn push_error(
        &mut self,
        point: &[(&str, &Value)],
        error: String,
    ) -> crate::error::Result<()> {
        let mut row = Row::default();
        for (a, (_, v)) in self.axes.iter().zip(point) {
            row.inputs.insert(a.clone().into(), (*v).clone());
        }
        row.error = Some(error);
        self.emit(row, false)
    }

    /// Keeps a row, or hands it to the sink (starting it at the first
    /// answered one).
    pub(crate) fn emit(&mut self, row: Row, answered: bool) -> crate::error::Result<()> {
        if answered {
            self.start()?;
        }
        match self.sink.as_mut() {
            None => {
                self.out.rows.push(row);
                Ok(())
            }
            Some(sink) => {
                sink.row(&row)?;
                if self.keep {
                    // A row kept beside a stream is for a chart, which
                    // draws numbers: it is kept as its axis values and
                    // one number per result.
                    let axes = self.axes;
                    self.out
                        .chart_rows
                        .get_or_insert_with(|| crate::chart::ChartRows::new(axes))
                        .push(&row);
                }
                Ok(())
            }
        }
    }

    /// When streaming, whether the rows that follow are also kept.
    pub(crate) fn keep(&mut self, keep: bool) {
        self.keep = keep;
    }

    /// Gives the sink the report's head, once, after the first answering
    /// point's row is made ([`Gather::make_row`]).
    pub(crate) fn start(&mut self) -> crate::error::Result<()> {
        if self.started || !self.seen {
            return Ok(());
        }
        self.started = true;
        let Some(sink) = self.sink.as_mut() else {
            return Ok(());
        };
        let mut head = Report::new(self.out.command.clone());
        head.hardware.clone_from(&self.out.hardware);
        head.model.clone_from(&self.out.model);
        head.inputs = self.candidates.clone();
        head.axes.clone_from(&self.out.axes);
        head.rows_kind = self.out.rows_kind;
        head.quantities = self.out.quantities.clone();
        head.results = std::mem::take(&mut self.first_results);
        sink.start(&head)
    }

    /// The combined report; when streaming, the report less its rows (the
    /// caller gives it to the sink as the tail once it has added its own
    /// notes).
    pub(crate) fn finish(mut self) -> Report {
        // A note only some items of a comparison have (one part's
        // limiter, another's missing figure) is kept, prefixed with those
        // items, rather than dropped or stated for all.
        let mut own: IndexMap<String, Vec<String>> = IndexMap::new();
        for (item, notes) in std::mem::take(&mut self.item_notes) {
            for n in notes {
                if !self.out.notes.contains(&n) {
                    let items = own.entry(n).or_default();
                    if !items.contains(&item) {
                        items.push(item.clone());
                    }
                }
            }
        }
        for (n, items) in own {
            // A note that already names its one item needs no prefix.
            if items.len() == 1 && names(&n, &items[0]) {
                self.out.notes.push(n);
            } else {
                self.out.notes.push(format!("{}: {n}", items.join(", ")));
            }
        }
        if self.sink.is_some() {
            // Streamed rows are gone: the first point's inputs are the
            // report's, and each row said where it differed.
            self.out.inputs = std::mem::take(&mut self.candidates);
            return self.out;
        }
        for (c, (k, v)) in self.candidates.into_iter().enumerate() {
            if self.varying[c] {
                // Points that matched the first one's value did not store
                // it: give every row its own (a failed row has none).
                for row in &mut self.out.rows {
                    if row.error.is_none() && !row.inputs.contains_key(k.as_ref()) {
                        row.inputs.insert(k.clone(), v.clone());
                    }
                }
            } else {
                self.out.inputs.insert(k, v);
            }
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn capacities_print_in_the_unit_they_are_whole_in() {
        // NVIDIA's 50 MB and AMD's 8 x 4 MB of L2 are decimal; an SM's
        // 228 KiB and a TPU core's 64 MiB are binary.
        assert_eq!(Unit::BytesIec.format(50e6), "50 MB");
        assert_eq!(Unit::BytesIec.format(32e6), "32 MB");
        assert_eq!(Unit::BytesIec.format(228.0 * 1024.0), "228 KiB");
        assert_eq!(Unit::BytesIec.format(64.0 * 1024.0 * 1024.0), "64 MiB");
        assert_eq!(Unit::BytesIec.format(192.0 * 1024f64.powi(3)), "192 GiB");
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

    #[test]
    fn units_format_for_people() {
        assert_eq!(Unit::Fraction.format(0.003383), "0.3383%");
        assert_eq!(Unit::Ratio.format(2.5), "2.5x");
        assert_eq!(Unit::BytesIec.format(233472.0), "228 KiB");
        assert_eq!(Unit::BytesIec.format(50e6), "50 MB");
        assert_eq!(Unit::BytesIec.format(33024.0), "32.25 KiB");
        assert_eq!(Unit::FlopPerByte.format(295.22), "295.2 FLOP/B");
        assert_eq!(Unit::Count.format(131072.0), "131,072");
        assert_eq!(Unit::FlopPerByte.format(1365.33), "1,365 FLOP/B");
        assert_eq!(Unit::Ratio.format(590.4), "590.4x");
    }
}

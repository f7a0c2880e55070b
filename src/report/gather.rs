//! Building a sweep's or comparison's report point by point ([`Gather`]),
//! and where streamed rows go ([`RowSink`]).

use super::combine::{item_label, names, table_as_results};
use super::{Columns, Key, Map, Report, Row, RowsKind, Unit};
use indexmap::IndexMap;
use rustc_hash::FxHashMap;
use serde_json::Value;

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
    /// One point's row whose results are `values`, the first
    /// `values.len()` of `keys` in order: `keys` are the head's results
    /// (the first answering point's), the same slice at every call of a
    /// sweep. A sink that takes them by position saves a map per point;
    /// by default the row is given them as its results.
    fn row_values(
        &mut self,
        mut row: Row,
        keys: &[Key],
        values: Vec<Value>,
    ) -> crate::error::Result<()> {
        row.results = keys.iter().cloned().zip(values).collect();
        self.row(&row)
    }
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
        let mut r = r;
        let Some(flat) = r.flat.take() else {
            let row = self.make_row(r, point, class);
            return self.emit(row, true);
        };
        let mut row = self.make_row(r, point, class);
        match self.sink.as_mut() {
            Some(sink) if !self.keep && self.started => {
                sink.row_values(row, &flat.columns.keys, flat.values)
            }
            _ => {
                row.results = flat.into_map();
                self.emit(row, true)
            }
        }
    }

    /// The columns a streamed sweep's later lean points may fill by
    /// position ([`Columns`]): the first answering point's results, when
    /// none of them is an axis or the error (each a column of its own,
    /// taken out of the results by [`Gather::make_row`]).
    pub(crate) fn columns(&self, first: &Report) -> Option<Columns> {
        let own_column = |k: &Key| k == "error" || self.axes.iter().any(|a| a == k.as_ref());
        if self.sink.is_none() || first.results.keys().any(own_column) {
            return None;
        }
        Some(Columns {
            command: first.command.clone(),
            keys: first.results.keys().cloned().collect(),
        })
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
            mut inputs,
            mut results,
            quantities,
            notes,
            headline,
            lean,
            ..
        } = r;
        // A later point whose inputs hold the axes (a sweep over inputs:
        // every decode grid, matmul's k) keeps its own inputs map as the
        // row's, the axes moved first in order (where the loop below puts
        // them), less the inputs that match the first point's.
        let in_place = self.seen
            && self.axes.iter().enumerate().all(|(j, a)| {
                a != "hardware"
                    && a != "model"
                    && (inputs
                        .get_index(j)
                        .is_some_and(|(k, _)| k.as_ref() == a.as_str())
                        || inputs.contains_key(a.as_str()))
            });
        if in_place {
            for (j, a) in self.axes.iter().enumerate() {
                if let Some(i) = inputs.get_index_of(a.as_str())
                    && i != j
                {
                    inputs.move_index(i, j);
                }
            }
        }
        let mut row = if in_place {
            for a in self.axes {
                // One column, the input's (as below).
                results.shift_remove(a.as_str());
            }
            self.diff_in_place(&mut inputs);
            Row {
                inputs: std::mem::take(&mut inputs),
                ..Row::default()
            }
        } else {
            Row {
                inputs: Map::with_capacity_and_hasher(self.axes.len(), Default::default()),
                ..Row::default()
            }
        };
        for (j, a) in self.axes.iter().enumerate().filter(|_| !in_place) {
            // The point's own key is moved into the row where it has one
            // (a literal: no copy of the axis name at every point).
            let mut key = None;
            let v = match a.as_str() {
                "hardware" => hardware.clone().map(Value::from),
                "model" => model.clone().map(Value::from),
                _ => {
                    // A swept input that is also a result (a model file's
                    // `layers`, decode's `kernels`) is one column, the
                    // input's, at the value the point was worked at.
                    let result = results.shift_remove(a.as_str());
                    // Taken in place rather than removed (a removal shifts
                    // every later input): the loops below pass over the
                    // axes' keys.
                    match inputs.get_full_mut(a.as_str()) {
                        Some((_, k, v)) => {
                            key = Some(k.clone());
                            Some(std::mem::take(v))
                        }
                        None => result,
                    }
                }
            };
            let v = v.or_else(|| point.get(j).map(|(_, v)| (*v).clone()));
            row.inputs.insert(
                key.unwrap_or_else(|| a.clone().into()),
                v.unwrap_or(Value::Null),
            );
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
            if !in_place {
                // A point's inputs that differ from the first point's stay in
                // its row; the shared ones are stated once at the end.
                let mut matched = 0;
                self.present.iter_mut().for_each(|p| *p = false);
                // The points of a sweep record their inputs in one order: the
                // candidate after the last one matched is tried before a hash.
                let mut next = 0;
                for (k, v) in inputs {
                    // The row holds the axes alone so far (keys are unique).
                    if self.axes.iter().any(|a| a.as_str() == k.as_ref()) {
                        continue;
                    }
                    let c = match self.candidates.get_index(next) {
                        Some((ck, _)) if *ck == k => Some(next),
                        _ => self.candidates.get_index_of(k.as_ref()),
                    };
                    match c {
                        Some(c) => {
                            next = c + 1;
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
                self.null_missing(matched, &mut row);
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

    /// Keeps in `inputs` (a later point's, its axes first) the axes and
    /// the inputs that differ from the first point's, in their order, as
    /// [`Gather::make_row`]'s loop over them does; then the first point's
    /// inputs this one lacks, as nulls.
    fn diff_in_place(&mut self, inputs: &mut Map<Value>) {
        let axes = self.axes.len();
        let (candidates, present, varying) =
            (&self.candidates, &mut self.present, &mut self.varying);
        present.iter_mut().for_each(|p| *p = false);
        let (mut i, mut next, mut matched) = (0usize, 0usize, 0usize);
        inputs.retain(|k, v| {
            i += 1;
            if i <= axes {
                return true;
            }
            let c = match candidates.get_index(next) {
                Some((ck, _)) if ck == k => Some(next),
                _ => candidates.get_index_of(k.as_ref()),
            };
            match c {
                Some(c) => {
                    next = c + 1;
                    matched += 1;
                    present[c] = true;
                    if candidates[c] != *v {
                        varying[c] = true;
                        true
                    } else {
                        false
                    }
                }
                None => true,
            }
        });
        if matched < self.candidates.len() {
            for (c, (k, _)) in self.candidates.iter().enumerate() {
                if !self.present[c] {
                    self.varying[c] = true;
                    inputs.insert(k.clone(), Value::Null);
                }
            }
        }
    }

    /// An input the first point has and this one lacks (a clock one
    /// accelerator's file does not give) is null in this row.
    fn null_missing(&mut self, matched: usize, row: &mut Row) {
        if matched < self.candidates.len() {
            for (c, (k, _)) in self.candidates.iter().enumerate() {
                if !self.present[c] {
                    self.varying[c] = true;
                    row.inputs.insert(k.clone(), Value::Null);
                }
            }
        }
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
                        .get_or_insert_with(|| super::ChartRows::new(axes))
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

//! CSV: one header line and one line per row (or a single line for a
//! report without rows); plain numbers in base units.

use super::{Renderer, row_columns};
use crate::error::Result;
use crate::report::{Key, Report, Row, RowSink};
use serde_json::Value;

/// Renders CSV.
pub struct Csv;

/// Quotes a field if it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_field(&mut out, s);
    out
}

/// Appends a field, quoted if it holds a comma, a quote or a line break.
fn push_field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

fn cell(v: Option<&Value>) -> String {
    let mut s = String::new();
    push_cell(&mut s, v);
    s
}

/// Appends one cell to a line, without an intermediate string.
fn push_cell(out: &mut String, v: Option<&Value>) {
    match v {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => push_field(out, s),
        Some(Value::Number(n)) => push_number(out, n),
        Some(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        Some(other) => out.push_str(&field(&other.to_string())),
    }
}

/// Appends a number as serde_json's `Display` writes it (itoa for an
/// integer, zmij for a float), except that a whole float prints without a
/// fraction (`132`, not `132.0`), as JSON prints counts, up to the 64-bit
/// range (a 2.25 PFLOP/s peak reads `2250000000000000` like a 989 TFLOP/s
/// one). Written straight into the line: a sweep's cells are most of its
/// time.
fn push_number(out: &mut String, n: &serde_json::Number) {
    if let Some(u) = n.as_u64() {
        out.push_str(itoa::Buffer::new().format(u));
    } else if let Some(i) = n.as_i64() {
        out.push_str(itoa::Buffer::new().format(i));
    } else if let Some(x) = n.as_f64() {
        // Whole and inside the i64 range: the cast there and back is exact
        // (a cheaper test than `fract`).
        if x.abs() < 9.2e18 && (x as i64) as f64 == x {
            out.push_str(itoa::Buffer::new().format(x as i64));
        } else {
            out.push_str(zmij::Buffer::new().format_finite(x));
        }
    }
}

/// A row's value for column `i` named `key`: rows of one sweep hold their
/// keys in the same order, so the value at the same position is checked
/// first and the hash lookup is the fallback.
fn at<'a>(map: &'a crate::report::Map<Value>, i: usize, key: &str) -> Option<&'a Value> {
    match map.get_index(i) {
        Some((k, v)) if k.as_ref() == key => Some(v),
        _ => map.get(key),
    }
}

impl Renderer for Csv {
    fn render(&self, report: &Report) -> Vec<u8> {
        let mut out = String::new();
        let mut line = |cells: Vec<String>| {
            out.push_str(&cells.join(","));
            out.push('\n');
        };
        if report.rows_are_records && !report.rows.is_empty() {
            // Every key any record has, in order of first appearance (a
            // record may leave one out).
            let mut keys: Vec<&str> = Vec::new();
            for row in &report.rows {
                for k in row.inputs.keys().chain(row.results.keys()) {
                    if !keys.contains(&k.as_ref()) {
                        keys.push(k.as_ref());
                    }
                }
            }
            line(keys.iter().map(|k| field(k)).collect());
            for row in &report.rows {
                line(
                    keys.iter()
                        .map(|k| cell(row.inputs.get(*k).or_else(|| row.results.get(*k))))
                        .collect(),
                );
            }
            return out.into_bytes();
        }
        // One answer is one line, even when it holds a table (matmul's
        // tiles, hw show's precisions): the headline is what a script wants,
        // and a sweep gives the table as lines.
        if report.rows.is_empty() || report.rows_kind == Some(crate::report::RowsKind::Table) {
            // A list or an object (plan's `plans`) has no CSV cell.
            let scalar = |v: &Value| !v.is_array() && !v.is_object();
            // A result keyed like an input is the input's column: no
            // column name appears twice.
            let pairs: Vec<(&str, &Value)> = report
                .inputs
                .iter()
                .chain(
                    report
                        .results
                        .iter()
                        .filter(|(k, _)| !report.inputs.contains_key(k.as_ref())),
                )
                .filter(|(_, v)| scalar(v))
                .map(|(k, v)| (k.as_ref(), v))
                .collect();
            line(pairs.iter().map(|(k, _)| field(k)).collect());
            line(pairs.iter().map(|(_, v)| cell(Some(v))).collect());
        } else {
            let (ins, outs) = row_columns(report);
            let shared: Vec<&str> = report.inputs.keys().map(|k| k.as_ref()).collect();
            // The shared inputs come first; a row column keyed like one of
            // them is not repeated.
            let ins: Vec<String> = ins
                .into_iter()
                .filter(|k| !report.inputs.contains_key(k.as_str()))
                .collect();
            let outs: Vec<String> = outs
                .into_iter()
                .filter(|k| !report.inputs.contains_key(k.as_str()))
                .collect();
            let mut header: Vec<String> = shared.iter().map(|k| field(k)).collect();
            header.extend(ins.iter().map(|k| field(k)));
            // Every row carries every result, so the columns are the same
            // whatever the values. A sweep's rows hold all its results; a
            // shared result whose key is also a row column (matmul's
            // headline tile against its tile table) is left to the rows, so
            // no column name appears twice. A table inside one answer
            // (tiles, precisions, launch modes) does not repeat the
            // headline.
            let shared_results: Vec<(&crate::report::Key, &Value)> = if report.rows_are_points() {
                report
                    .results
                    .iter()
                    .filter(|(k, _)| {
                        !outs.iter().any(|o| o == k.as_ref())
                            && !ins.iter().any(|i| i == k.as_ref())
                            && !report.inputs.contains_key(k.as_ref())
                    })
                    .collect()
            } else {
                Vec::new()
            };
            header.extend(shared_results.iter().map(|(k, _)| field(k)));
            header.extend(outs.iter().map(|k| field(k)));
            // A sweep's or comparison's points each may fail: the column is
            // always there, empty where the point answered.
            let errors = report.rows_are_points();
            if errors {
                header.push("error".into());
            }
            line(header);
            // The shared part of every line is the same: write it once.
            let mut prefix = String::new();
            for v in report.inputs.values() {
                push_cell(&mut prefix, Some(v));
                prefix.push(',');
            }
            let mut lines = String::with_capacity(report.rows.len() * 16 * (outs.len() + 1));
            for row in &report.rows {
                lines.push_str(&prefix);
                let mut first = true;
                let mut sep = |l: &mut String| {
                    if !std::mem::take(&mut first) {
                        l.push(',');
                    }
                };
                for (i, k) in ins.iter().enumerate() {
                    sep(&mut lines);
                    push_cell(&mut lines, at(&row.inputs, i, k));
                }
                for (_, v) in &shared_results {
                    sep(&mut lines);
                    push_cell(&mut lines, Some(v));
                }
                for (i, k) in outs.iter().enumerate() {
                    sep(&mut lines);
                    push_cell(&mut lines, at(&row.results, i, k));
                }
                if errors {
                    sep(&mut lines);
                    if let Some(e) = &row.error {
                        lines.push_str(&field(e));
                    }
                }
                lines.push('\n');
            }
            out.push_str(&lines);
        }
        out.into_bytes()
    }
}

/// A sweep written as CSV row by row as its points are worked
/// ([`RowSink`]): the header comes from the first answering point (its
/// inputs, the axes, its results, then `error`), so no row is kept.
pub struct CsvStream<W: std::io::Write> {
    out: W,
    /// The first answering point's inputs, the value of a shared column
    /// where a row does not differ.
    shared: Vec<(String, Value)>,
    /// Those inputs' cells, each followed by its comma: the start of every
    /// line whose inputs do not differ. Where each cell starts, one more
    /// for the end of the last.
    shared_cells: String,
    shared_starts: Vec<usize>,
    axes: Vec<String>,
    results: Vec<String>,
    line: String,
    /// The line written before `line` (without its newline), each result
    /// column's number in it, and where each result column's cell (with
    /// its comma) starts in it, one more for the end of the last: a
    /// sweep's column often holds one value row after row (the peak, the
    /// tile, the ridge), so a run of cells equal to the previous line's is
    /// copied from it in one piece rather than written again.
    prev: String,
    prev_numbers: Vec<Option<serde_json::Number>>,
    prev_starts: Vec<usize>,
    starts: Vec<usize>,
    /// For rows given as values ([`RowSink::row_values`]): each result
    /// column's position among the keys, and those keys (as a pointer
    /// and a length: a sweep gives the same slice every time).
    positions: Vec<Option<usize>>,
    positions_of: (usize, usize),
}

impl<W: std::io::Write> CsvStream<W> {
    /// A stream writing to `out`.
    pub fn new(out: W) -> Self {
        CsvStream {
            out,
            shared: Vec::new(),
            shared_cells: String::new(),
            shared_starts: Vec::new(),
            axes: Vec::new(),
            results: Vec::new(),
            line: String::new(),
            prev: String::new(),
            prev_numbers: Vec::new(),
            prev_starts: Vec::new(),
            starts: Vec::new(),
            positions: Vec::new(),
            positions_of: (0, 0),
        }
    }

    /// Writes a row whose result for column `i` (named `key`) is
    /// `result(i, key)`.
    fn write_row<'v>(
        &mut self,
        row: &Row,
        result: impl Fn(usize, &str) -> Option<&'v Value>,
    ) -> Result<()> {
        let mut line = std::mem::take(&mut self.line);
        // A row's inputs are its axes and any input that differs from the
        // first point's: most rows have none of the latter.
        let differs = row
            .inputs
            .keys()
            .any(|k| !self.axes.iter().any(|a| a == k.as_ref()));
        if differs {
            // The row's own value where it has one (a row holds few
            // inputs: found by reading them), else the first point's cell,
            // copied with its neighbours in one piece.
            let mut run = 0..0;
            for (j, (k, _)) in self.shared.iter().enumerate() {
                match row.inputs.iter().find(|(o, _)| o.as_ref() == k.as_str()) {
                    Some((_, v)) => {
                        line.push_str(&self.shared_cells[run]);
                        run = self.shared_starts[j + 1]..self.shared_starts[j + 1];
                        push_cell(&mut line, Some(v));
                        line.push(',');
                    }
                    None => run.end = self.shared_starts[j + 1],
                }
            }
            line.push_str(&self.shared_cells[run]);
        } else {
            line.push_str(&self.shared_cells);
        }
        for (i, k) in self.axes.iter().enumerate() {
            push_cell(&mut line, at(&row.inputs, i, k));
            line.push(',');
        }
        // The cells equal to the previous line's, not yet copied: the
        // range of `prev` they span.
        let mut run = 0..0;
        let mut starts = std::mem::take(&mut self.starts);
        starts.clear();
        for (i, k) in self.results.iter().enumerate() {
            let v = result(i, k);
            let (was, now) = (&mut self.prev_numbers[i], v);
            if let (Some(Value::Number(n)), Some(p)) = (now, &*was)
                && p == n
            {
                let (from, to) = (self.prev_starts[i], self.prev_starts[i + 1]);
                if run.end != from {
                    line.push_str(&self.prev[run.clone()]);
                    run = from..from;
                }
                starts.push(line.len() + from - run.start);
                run.end = to;
                continue;
            }
            line.push_str(&self.prev[run.clone()]);
            run = 0..0;
            starts.push(line.len());
            match now {
                Some(Value::Number(n)) => {
                    push_number(&mut line, n);
                    *was = Some(n.clone());
                }
                _ => {
                    push_cell(&mut line, now);
                    *was = None;
                }
            }
            line.push(',');
        }
        line.push_str(&self.prev[run.clone()]);
        starts.push(line.len());
        self.starts = std::mem::replace(&mut self.prev_starts, starts);
        if let Some(e) = &row.error {
            push_field(&mut line, e);
        }
        self.line = line;
        self.flush_line()
    }

    fn flush_line(&mut self) -> Result<()> {
        self.line.push('\n');
        let r = self.out.write_all(self.line.as_bytes());
        // Kept as the previous line, whose cells the next may copy.
        std::mem::swap(&mut self.line, &mut self.prev);
        self.line.clear();
        r.map_err(stdout_error)
    }
}

/// Drops a row's values, freeing only those that hold memory: most are
/// numbers, and a call of `Value`'s drop for each was a tenth of a CSV
/// sweep's time.
fn drop_values(values: Vec<Value>) {
    for v in values {
        match v {
            Value::Null | Value::Bool(_) | Value::Number(_) => std::mem::forget(v),
            other => drop(other),
        }
    }
}

/// A failure writing standard output (exit 74; a closed pipe is the
/// caller's to forgive).
pub(crate) fn stdout_error(e: std::io::Error) -> crate::error::Error {
    crate::error::Error::Write {
        path: "standard output".into(),
        source: e,
    }
}

impl<W: std::io::Write> RowSink for CsvStream<W> {
    fn start(&mut self, head: &Report) -> Result<()> {
        let scalar = |v: &Value| !v.is_array() && !v.is_object();
        self.axes.clone_from(&head.axes);
        self.shared = head
            .inputs
            .iter()
            .filter(|(k, v)| scalar(v) && !self.axes.iter().any(|a| a == k.as_ref()))
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        self.results = head
            .results
            .keys()
            .map(|k| k.to_string())
            .filter(|k| !self.axes.contains(k) && !self.shared.iter().any(|(s, _)| s == k))
            .collect();
        let mut header: Vec<String> = self.shared.iter().map(|(k, _)| field(k)).collect();
        header.extend(self.axes.iter().map(|k| field(k)));
        header.extend(self.results.iter().map(|k| field(k)));
        header.push("error".into());
        self.line = header.join(",");
        self.shared_cells.clear();
        self.shared_starts.clear();
        for (_, v) in &self.shared {
            self.shared_starts.push(self.shared_cells.len());
            push_cell(&mut self.shared_cells, Some(v));
            self.shared_cells.push(',');
        }
        self.shared_starts.push(self.shared_cells.len());
        self.prev_numbers = vec![None; self.results.len()];
        self.prev_starts.clear();
        self.flush_line()
    }

    fn row(&mut self, row: &Row) -> Result<()> {
        self.write_row(row, |i, k| at(&row.results, i, k))
    }

    fn row_values(&mut self, row: Row, keys: &[Key], values: Vec<Value>) -> Result<()> {
        if self.positions_of != (keys.as_ptr() as usize, keys.len()) {
            self.positions_of = (keys.as_ptr() as usize, keys.len());
            self.positions = self
                .results
                .iter()
                .map(|r| keys.iter().position(|k| k.as_ref() == r.as_str()))
                .collect();
        }
        let positions = std::mem::take(&mut self.positions);
        let written = self.write_row(&row, |i, _| values.get(positions[i]?));
        self.positions = positions;
        drop_values(values);
        written
    }

    fn finish(&mut self, _tail: &Report) -> Result<()> {
        self.out.flush().map_err(stdout_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Quantity, Row, Unit};

    #[test]
    fn whole_numbers_have_no_fraction_at_any_size() {
        let cell = |x: f64| cell(Some(&Value::from(x)));
        assert_eq!(cell(989e12), "989000000000000");
        assert_eq!(cell(2.25e15), "2250000000000000");
        assert_eq!(cell(1.5), "1.5");
        // Beyond 64 bits the number is printed as serde_json writes it.
        assert_eq!(cell(1e20), "1e+20");
        // Each kind of number as serde_json's own Display writes it.
        for v in [
            Value::from(0.1),
            Value::from(-2.5e-7),
            Value::from(1.0e300),
            Value::from(u64::MAX),
            Value::from(i64::MIN),
            Value::from(-0.0),
            Value::from(f64::MIN_POSITIVE),
        ] {
            let Value::Number(n) = &v else { unreachable!() };
            let want = if n
                .as_f64()
                .is_some_and(|x| x.fract() == 0.0 && x.abs() < 9.2e18 && n.is_f64())
            {
                format!("{}", n.as_f64().unwrap() as i64)
            } else {
                n.to_string()
            };
            assert_eq!(super::cell(Some(&v)), want, "{v}");
        }
    }

    #[test]
    fn a_row_given_as_values_is_the_line_its_map_gives() {
        let mut head = Report::new("t");
        head.input("m", 4.0);
        head.axes = vec!["k".into()];
        let keys: Vec<Key> = vec!["x".into(), "bound".into(), "y".into()];
        for k in &keys {
            head.results.insert(k.clone(), Value::Null);
        }
        let lines = |by_values: bool| {
            let mut out = Vec::new();
            let mut s = CsvStream::new(&mut out);
            s.start(&head).unwrap();
            for (k, x) in [(1.0, 0.5), (2.0, 0.5), (3.0, 1e-9)] {
                let mut row = Row::default();
                row.inputs.insert("k".into(), k.into());
                // The last point leaves `y` out.
                let mut values: Vec<Value> = vec![x.into(), "memory".into(), (k * 3.5).into()];
                values.truncate(if k == 3.0 { 2 } else { 3 });
                if by_values {
                    s.row_values(row, &keys, values).unwrap();
                } else {
                    row.results = keys.iter().cloned().zip(values).collect();
                    s.row(&row).unwrap();
                }
            }
            String::from_utf8(out).unwrap()
        };
        let want =
            "m,k,x,bound,y,error\n4,1,0.5,memory,3.5,\n4,2,0.5,memory,7,\n4,3,1e-9,memory,,\n";
        assert_eq!(lines(false), want);
        assert_eq!(lines(true), want);
    }

    #[test]
    fn quoting() {
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("plain"), "plain");
    }

    #[test]
    fn no_column_name_appears_twice() {
        let mut r = Report::new("t");
        r.input("dtype", "bf16");
        r.rows_kind = Some(crate::report::RowsKind::Sweep);
        for n in [1.0, 2.0] {
            let mut row = Row::default();
            row.inputs.insert("n".into(), n.into());
            row.results.insert("n".into(), n.into());
            row.results.insert("dtype".into(), "bf16".into());
            row.results.insert("x".into(), (n * 10.0).into());
            r.rows.push(row);
        }
        let s = String::from_utf8(Csv.render(&r)).unwrap();
        // A sweep's points carry the error column, empty where they answered.
        assert_eq!(s, "dtype,n,x,error\nbf16,1,10,\nbf16,2,20,\n");
        let mut one = Report::new("t");
        one.input("n", 1.0);
        one.result("n", 1.0, Quantity::new("n", Unit::Count));
        one.result("x", 2.0, Quantity::new("x", Unit::Count));
        assert_eq!(String::from_utf8(Csv.render(&one)).unwrap(), "n,x\n1,2\n");
    }

    #[test]
    fn rows_become_lines() {
        let mut r = Report::new("model show");
        r.input("model_id", "llama-3-8b");
        r.describe("weight_bytes", Quantity::new("weights", Unit::Bytes));
        for (d, b) in [("bf16", 16.06e9), ("fp8", 8.03e9)] {
            let mut row = Row::default();
            row.inputs.insert("dtype".into(), d.into());
            row.results.insert("weight_bytes".into(), b.into());
            r.rows.push(row);
        }
        let s = String::from_utf8(Csv.render(&r)).unwrap();
        assert_eq!(
            s,
            "model_id,dtype,weight_bytes\nllama-3-8b,bf16,16060000000\nllama-3-8b,fp8,8030000000\n"
        );
    }
}

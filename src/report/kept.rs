//! The points a chart of a streamed sweep keeps, as numbers. A streamed
//! sweep writes its rows out as it works them; the few thousand a chart
//! draws ([`crate::sweep::chart_strides`]) are kept here rather than as
//! whole rows: per point its axis values and one number per result, so
//! the chart costs a few bytes a point, not a map of every result.

use super::{Key, Map, Row, Unit};
use serde_json::Value;

/// Kept points, in sweep order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartRows {
    /// The report's axes, whose values each point keeps.
    pub axes: Vec<String>,
    /// Result keys in the order first seen.
    pub keys: Vec<Key>,
    /// Per point, the value of each axis (`null` where the row has none).
    pub inputs: Vec<Vec<Value>>,
    /// Per point, one number per key (NaN where the point has no number
    /// there: a text result, a failed point); a point made before a key
    /// was first seen is shorter.
    pub values: Vec<Vec<f64>>,
    /// Per point, the units of its results that differ from the report's
    /// (a capacity one vendor states in GiB), where any do.
    pub units: Vec<Option<Box<Map<Unit>>>>,
}

impl ChartRows {
    /// Empty, for a report with these axes.
    pub fn new(axes: &[String]) -> Self {
        ChartRows {
            axes: axes.to_vec(),
            ..Default::default()
        }
    }

    /// Keeps a row's axis values and numeric results.
    pub fn push(&mut self, row: &Row) {
        self.inputs.push(
            self.axes
                .iter()
                .map(|a| row.inputs.get(a.as_str()).cloned().unwrap_or(Value::Null))
                .collect(),
        );
        let mut values = vec![f64::NAN; self.keys.len()];
        for (k, v) in &row.results {
            let Some(x) = v.as_f64().filter(|_| v.is_number()) else {
                continue;
            };
            let i = match self.keys.iter().position(|key| key == k) {
                Some(i) => i,
                None => {
                    self.keys.push(k.clone());
                    values.resize(self.keys.len(), f64::NAN);
                    self.keys.len().saturating_sub(1)
                }
            };
            values[i] = x;
        }
        // Text results are keys too, so `--y` on one is told it is no number.
        for k in row.results.keys() {
            if !self.keys.contains(k) {
                self.keys.push(k.clone());
                values.push(f64::NAN);
            }
        }
        values.shrink_to_fit();
        self.values.push(values);
        self.units
            .push((!row.units.is_empty()).then(|| Box::new(row.units.clone())));
    }

    /// How many points.
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Point `i`'s value of axis `key`.
    pub fn input(&self, i: usize, key: &str) -> Option<&Value> {
        let j = self.axes.iter().position(|a| a == key)?;
        self.inputs.get(i)?.get(j).filter(|v| !v.is_null())
    }

    /// Point `i`'s number for result `key`.
    pub fn result(&self, i: usize, key: &str) -> Option<f64> {
        let j = self.keys.iter().position(|k| k == key)?;
        self.values.get(i)?.get(j).copied().filter(|x| !x.is_nan())
    }

    /// Point `i`'s own unit for `key`, where it differs from the report's.
    pub fn unit(&self, i: usize, key: &str) -> Option<Unit> {
        self.units.get(i)?.as_ref()?.get(key).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_keeps_its_axes_and_numbers_only() {
        let mut row = Row::default();
        row.inputs.insert("batch".into(), Value::from("8"));
        row.inputs.insert("dtype".into(), Value::from("fp8"));
        row.results.insert("time_s".into(), Value::from(0.5));
        row.results.insert("bound".into(), Value::from("memory"));
        let mut kept = ChartRows::new(&["batch".into()]);
        kept.push(&row);
        kept.push(&Row::default());
        assert_eq!(kept.len(), 2);
        assert_eq!(kept.input(0, "batch"), Some(&Value::from("8")));
        // Only the axes are kept, not every input.
        assert_eq!(kept.input(0, "dtype"), None);
        assert_eq!(kept.result(0, "time_s"), Some(0.5));
        // A text result is a key without a number.
        assert!(kept.keys.iter().any(|k| k == "bound"));
        assert_eq!(kept.result(0, "bound"), None);
        // A failed point has no numbers.
        assert_eq!(kept.result(1, "time_s"), None);
        assert_eq!(kept.input(1, "batch"), None);
    }
}

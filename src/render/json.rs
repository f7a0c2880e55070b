//! JSON: the report as one pretty-printed object, base units throughout.

use super::Renderer;
use crate::report::Report;

/// Renders JSON.
pub struct Json;

impl Renderer for Json {
    fn render(&self, report: &Report) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(&with_integer_counts(report)).unwrap_or_default();
        out.push(b'\n');
        out
    }
}

/// A copy of the report whose whole-number counts (units `count` and
/// `cycles`) are JSON integers: `"sms": 132`, not `132.0`.
fn with_integer_counts(report: &Report) -> std::borrow::Cow<'_, Report> {
    use crate::report::Unit;
    use serde_json::Value;
    let counts: Vec<&String> = report
        .quantities
        .iter()
        .filter(|(_, q)| matches!(q.unit, Unit::Count | Unit::Cycles))
        .map(|(k, _)| k)
        .collect();
    if counts.is_empty() {
        return std::borrow::Cow::Borrowed(report);
    }
    let fix = |map: &mut indexmap::IndexMap<String, Value>| {
        for k in &counts {
            if let Some(v) = map.get_mut(k.as_str())
                && let Some(x) = v.as_f64()
                && v.is_f64()
                && x.fract() == 0.0
                && x.abs() < 9.007_199_254_740_992e15
            {
                *v = if x < 0.0 {
                    Value::from(x as i64)
                } else {
                    Value::from(x as u64)
                };
            }
        }
    };
    let mut r = report.clone();
    fix(&mut r.inputs);
    fix(&mut r.results);
    for row in &mut r.rows {
        fix(&mut row.inputs);
        fix(&mut row.results);
    }
    std::borrow::Cow::Owned(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Quantity, Unit};

    #[test]
    fn counts_are_integers() {
        let mut r = Report::new("hw show");
        r.result("sms", 132.0, Quantity::new("SMs", Unit::Count));
        r.result("ratio", 2.0, Quantity::new("r", Unit::Ratio));
        let s = String::from_utf8(Json.render(&r)).unwrap();
        assert!(s.contains("\"sms\": 132,"), "{s}");
        assert!(s.contains("\"ratio\": 2.0"), "{s}");
    }

    #[test]
    fn results_are_bare_base_unit_values() {
        let mut r = Report::new("point");
        r.hardware = Some("h100-sxm".into());
        r.input("intensity", 1.0);
        r.result(
            "time_s",
            2.5e-3,
            Quantity::new("time", Unit::Seconds).formula("max(a, b)"),
        );
        r.result("bound", "memory", Quantity::new("bound", Unit::None));
        let v: serde_json::Value = serde_json::from_slice(&Json.render(&r)).unwrap();
        assert_eq!(v["results"]["time_s"], 2.5e-3);
        assert_eq!(v["results"]["bound"], "memory");
        assert_eq!(v["quantities"]["time_s"]["formula"], "max(a, b)");
        assert_eq!(v["quantities"]["time_s"]["unit"], "s");
        assert!(v.get("rows").is_none());
        insta::assert_snapshot!(String::from_utf8(Json.render(&r)).unwrap());
    }
}

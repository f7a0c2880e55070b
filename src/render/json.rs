//! JSON: the report as one pretty-printed object, base units throughout.

use super::Renderer;
use crate::report::Report;

/// Renders JSON.
pub struct Json;

impl Renderer for Json {
    fn render(&self, report: &Report) -> Vec<u8> {
        let mut out =
            serde_json::to_vec_pretty(&super::with_integer_counts(report)).unwrap_or_default();
        out.push(b'\n');
        out
    }
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

//! `--explain`: each result's derivation with the numbers substituted, in
//! the order the calculation worked it, ending in the value.

use super::{Renderer, format_input, title};
use crate::report::Report;

/// Renders the derivation.
pub struct Explain;

/// The derivations of several reports (the points of a sweep), one after
/// the other; `fenced` wraps them in a Markdown code block.
pub fn explain_all(reports: &[Report], fenced: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if fenced {
        out.extend(b"```text\n");
    }
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend(Explain.render(r));
    }
    if fenced {
        out.extend(b"```\n");
    }
    out
}

impl Renderer for Explain {
    fn render(&self, report: &Report) -> Vec<u8> {
        // Long formulas, sources and notes wrap at the terminal's width.
        let w = super::table::width();
        let line = |out: &mut String, text: String, indent: usize| {
            out.push_str(&super::table::wrap(&text, w, indent));
            out.push('\n');
        };
        let mut out = format!("{}\n", title(report));
        if !report.inputs.is_empty() {
            out.push_str("inputs:\n");
            for (k, v) in &report.inputs {
                out.push_str(&format!("  {} = {}\n", k, format_input(k, v, report)));
            }
        }
        out.push('\n');
        for (k, v) in &report.results {
            let q = report.quantities.get(k);
            let value = report.unit(k).format_value(v);
            line(&mut out, format!("{} ({k})", report.label(k)), 2);
            if let Some(q) = q {
                if !q.formula.is_empty() {
                    line(&mut out, format!("  = {}", q.formula), 4);
                }
                if !q.derivation.is_empty() {
                    line(&mut out, format!("  = {}", q.derivation), 4);
                }
            }
            line(&mut out, format!("  = {value}"), 4);
            if let Some(s) = q.and_then(|q| q.source.as_deref()) {
                line(&mut out, format!("  source: {s}"), 10);
            }
        }
        if !report.rows.is_empty() {
            out.push('\n');
            out.push_str(&String::from_utf8_lossy(&super::Table.render(&Report {
                notes: vec![],
                results: Default::default(),
                inputs: Default::default(),
                ..report.clone()
            })));
        }
        for n in &report.notes {
            line(&mut out, format!("note: {n}"), 6);
        }
        out.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot() {
        let r = super::super::table::tests::sample();
        insta::assert_snapshot!(String::from_utf8(Explain.render(&r)).unwrap());
    }
}

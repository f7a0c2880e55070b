//! `model list`: one entry per model (family, name, derived parameter
//! count, layers, attention) and the listing of them, grouped by family.

use super::report::param_results;
use super::{breakdown, params};
use crate::error::Result;
use crate::report::{Quantity, Report, Unit};
use crate::spec::model::Model;

/// One model's `model list` entry: its name, the parameter count derived
/// from the layer shapes (as `model show` derives it), the layers and the
/// attention variant with their sources (what `model list --explain`
/// prints). An error where a count overflows.
pub fn list_entry(m: &Model) -> Result<Report> {
    let p = params(m)?;
    let mut r = Report::new("model list");
    r.model = Some(m.id.clone());
    if let Some(f) = &m.family {
        r.result("family", f.as_str(), Quantity::new("family", Unit::None));
    }
    r.result("name", m.name.as_str(), Quantity::new("name", Unit::None));
    param_results(&mut r, &breakdown(m, &p), &p, m.moe.is_some());
    r.result(
        "layers",
        m.layers.get(),
        Quantity::new("layers (L)", Unit::Count).source(m.source("layers")),
    );
    r.result(
        "attention",
        m.attention.kind.as_str(),
        Quantity::new("attention", Unit::None).source(m.source("attention.kind")),
    );
    if let Some(s) = &m.summary {
        r.result("summary", s.as_str(), Quantity::new("summary", Unit::None));
    }
    Ok(r)
}

/// The `model list` table of [`list_entry`] reports: one row per model.
pub fn listing(entries: Vec<Report>) -> Report {
    Report::listing(
        "model list",
        entries,
        &[
            ("family", "family", Unit::None),
            ("name", "name", Unit::None),
            ("params", "parameters", Unit::Count),
            ("active_params", "active", Unit::Count),
            ("layers", "layers", Unit::Count),
            ("attention", "attention", Unit::None),
            ("summary", "summary", Unit::None),
        ],
    )
}

/// `model list`: one row per model, grouped by family (in the family's
/// name order, the models of a family by id; models without a family
/// last, by id). A model whose counts overflow is left out with its
/// error, so one bad file does not hide the others.
pub fn list(items: &[Model]) -> Result<Report> {
    let mut notes = Vec::new();
    let mut ordered: Vec<&Model> = items.iter().collect();
    ordered.sort_by(|a, b| {
        (a.family.is_none(), &a.family, &a.id).cmp(&(b.family.is_none(), &b.family, &b.id))
    });
    let entries = ordered
        .into_iter()
        .filter_map(|m| {
            list_entry(m)
                .map_err(|e| notes.push(format!("left out {e}")))
                .ok()
        })
        .collect();
    let mut r = listing(entries);
    for n in notes {
        r.note(n);
    }
    Ok(r)
}

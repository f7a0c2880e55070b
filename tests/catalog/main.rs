//! The catalog against the seeds: every `hardware-spec`, `model-spec` and
//! `memory-hierarchy` case of `../shared/golden/seed_cases.toml` that is about
//! a catalog number or a figure derived from one, and the ridge points the
//! catalog issue names. Expected values are the golden file's (in base
//! units), never the tool's output (cases about parts outside the catalog
//! are listed in tests/golden.rs's `SKIPPED`, which checks that every case
//! is covered or skipped). This file holds the helpers; each module beside
//! it is one theme.

use crate::common;
mod hierarchy;
mod measured;
mod models;
mod seeds;
mod vendor;

use common::{check, check_flagged, check_rounded, check_si};
use roofline::calc::hw::{HwShowInputs, cost};
use roofline::calc::model;
use roofline::catalog::Catalog;
use roofline::inputs::Hz;
use roofline::report::Report;
use roofline::spec::hardware::{Hardware, Mode};
use roofline::spec::model::Model;
use roofline::spec::overrides::Set;

const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

fn hw_set(id: &str, sets: &[&str]) -> Hardware {
    let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
    Catalog::default()
        .hardware(id, &sets)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn hw(id: &str) -> Hardware {
    hw_set(id, &[])
}

fn model(id: &str) -> Model {
    Catalog::default()
        .model(id, &[])
        .unwrap_or_else(|e| panic!("{e}"))
}

fn report(h: &Hardware, dtype: Option<&str>, clock_hz: Option<f64>) -> Report {
    let inputs = HwShowInputs {
        dtype: dtype.map(String::from),
        clock: clock_hz.map(Hz),
        ..Default::default()
    };
    cost(h, &inputs, Mode::SpeedOfLight)
        .unwrap_or_else(|e| panic!("{e}"))
        .report(false)
}

fn num(r: &Report, key: &str) -> f64 {
    r.number(key).unwrap_or_else(|| {
        panic!(
            "{} has no result `{key}`",
            r.hardware.as_deref().unwrap_or("?")
        )
    })
}

/// |got - want| <= tol x |want| (tol 0 means equal up to float rounding).
fn close(id: &str, got: f64, want: f64, tol: f64) {
    let slack = (tol * want.abs()).max(1e-9 * want.abs());
    assert!(
        (got - want).abs() <= slack,
        "{id}: got {got}, expected {want} (tolerance {tol})"
    );
}

fn model_report(id: &str) -> Report {
    model::cost(&model(id), &model::ModelInputs::default())
        .unwrap()
        .report(false)
}

/// Golden case `id` against result `key` of `hw show HW` (base units).
fn check_show(id: &str, h: &str, key: &str) {
    let r = report(&hw(h), None, None);
    check_si(id, num(&r, key));
}

/// [`check_show`] over a table of (golden case, part, report key).
fn check_shows(rows: &[(&str, &str, &str)]) {
    for (id, h, key) in rows {
        check_show(id, h, key);
    }
}

/// Peaks at a named precision, dense or sparse, per device (Trainium's are
/// stated per NeuronCore: `per_core`).
fn dense(h: &str, p: &str) -> f64 {
    hw(h)
        .compute
        .dense
        .get(p)
        .unwrap_or_else(|| panic!("{h} has no dense {p}"))
}

fn sparse(h: &str, p: &str) -> f64 {
    hw(h)
        .compute
        .sparse
        .as_ref()
        .and_then(|s| s.get(p))
        .unwrap_or_else(|| panic!("{h} has no sparse {p}"))
}

fn show_with(h: &Hardware, inputs: HwShowInputs, mode: Mode) -> Report {
    cost(h, &inputs, mode)
        .unwrap_or_else(|e| panic!("{e}"))
        .report(false)
}

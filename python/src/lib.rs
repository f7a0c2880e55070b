//! `roofline._roofline`: the native module under the `roofline` Python
//! package. It only converts: keyword arguments become the library's
//! input fields (`kv_dtype=` is the field `kv-dtype`), the library's one
//! dispatch ([`roofline::query::evaluate`]) answers, and its reports come
//! back as [`Report`] objects whose dicts carry the JSON report's keys and
//! base-unit values. Errors become one exception class per kind
//! ([`errors`]). Docstrings are these `///` comments.

mod commands;
mod convert;
mod errors;
mod report;
mod specs;

use pyo3::prelude::*;

/// A sweep builds and drops many small maps (one per point); mimalloc
/// does that in about half of glibc malloc's time (python/bench/bench.py).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The native module.
#[pymodule]
fn _roofline(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<report::Report>()?;
    m.add_class::<report::Chart>()?;
    m.add_class::<specs::Hardware>()?;
    m.add_class::<specs::Model>()?;
    m.add_function(wrap_pyfunction!(specs::hardware, m)?)?;
    m.add_function(wrap_pyfunction!(specs::model, m)?)?;
    m.add_function(wrap_pyfunction!(specs::hardware_ids, m)?)?;
    m.add_function(wrap_pyfunction!(specs::model_ids, m)?)?;
    m.add_function(wrap_pyfunction!(report::roofline_chart, m)?)?;
    commands::register(m)?;
    errors::register(m)?;
    Ok(())
}

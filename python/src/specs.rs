//! Hardware and models as Python objects: a catalog id or a path, and the
//! edits (`--set`s) made to it. Passing one as `hw=` or `model=` is the
//! CLI's `--hw ID --set PATH=VALUE`: the same numbers, the same what-if
//! note.

use crate::errors::OrRaise;
use crate::report::Report;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use roofline::catalog::Catalog;

/// One accelerator: a catalog id or a path to a TOML file, with edits.
///
/// Made by `roofline.hardware(ID_OR_PATH)`; `.set({...})` returns an
/// edited copy. Pass it wherever a command takes `hw`.
#[pyclass(frozen, module = "roofline")]
#[derive(Clone)]
pub struct Hardware {
    pub what: String,
    pub sets: Vec<String>,
}

/// One model: a catalog id, a TOML file or a Hugging Face config.json,
/// with edits.
///
/// Made by `roofline.model(ID_OR_PATH)`; `.set({...})` returns an edited
/// copy. Pass it wherever a command takes `model`.
#[pyclass(frozen, module = "roofline")]
#[derive(Clone)]
pub struct Model {
    pub what: String,
    pub sets: Vec<String>,
}

/// Loads a file as the commands would, so a bad id or edit fails here.
fn check(py: Python<'_>, kind: &str, what: &str, sets: &[String]) -> PyResult<()> {
    let sets = crate::convert::parse_sets(py, sets)?;
    let hw = kind == "hw";
    // Each object takes its own fields: a model field on hardware, or a
    // hardware field on a model, says where it belongs.
    if let Some(s) = sets
        .iter()
        .find(|s| roofline::spec::overrides::is_model_path(&s.path) == hw)
    {
        return Err(crate::errors::DataError::new_err(if hw {
            format!(
                "`{}` is a model field; edit it on a roofline.model(...)",
                s.path
            )
        } else {
            format!(
                "`{}` is not a model field; edit hardware on a roofline.hardware(...)",
                s.path
            )
        }));
    }
    let c = Catalog::default();
    if hw {
        c.hardware(what, &sets).map(|_| ()).or_raise(py)
    } else {
        c.model(what, &sets).map(|_| ()).or_raise(py)
    }
}

fn with_sets(
    py: Python<'_>,
    kind: &str,
    what: &str,
    sets: &[String],
    changes: &Bound<'_, PyAny>,
) -> PyResult<Vec<String>> {
    let mut all = sets.to_vec();
    all.extend(crate::convert::set_texts(Some(changes))?);
    check(py, kind, what, &all)?;
    Ok(all)
}

/// Loads a hardware file by catalog id (see `hardware_ids()`) or path.
///
/// Args:
///     what: A catalog id such as "h200-sxm", or a path to a .toml file.
///
/// Returns:
///     Hardware: pass it as `hw=`; `.set({...})` edits a copy.
///
/// Raises:
///     DataError: the id is unknown (the message names the nearest) or the file does not validate.
///     FileError: the path cannot be read.
#[pyfunction]
pub fn hardware(py: Python<'_>, what: &str) -> PyResult<Hardware> {
    check(py, "hw", what, &[])?;
    Ok(Hardware {
        what: what.to_string(),
        sets: Vec::new(),
    })
}

/// Loads a model by catalog id (see `model_ids()`), a .toml file or a
/// Hugging Face config.json.
///
/// Args:
///     what: A catalog id such as "llama-3-8b", or a path.
///
/// Returns:
///     Model: pass it as `model=`; `.set({...})` edits a copy.
///
/// Raises:
///     DataError: the id is unknown or the file does not validate.
///     FileError: the path cannot be read.
#[pyfunction]
pub fn model(py: Python<'_>, what: &str) -> PyResult<Model> {
    check(py, "model", what, &[])?;
    Ok(Model {
        what: what.to_string(),
        sets: Vec::new(),
    })
}

/// The ids of the built-in hardware catalog.
///
/// Returns:
///     list[str]: ids such as "h100-sxm", each usable as `hw=`.
#[pyfunction]
pub fn hardware_ids(py: Python<'_>) -> PyResult<Vec<String>> {
    let e = Catalog::default().hardware_entries().or_raise(py)?;
    Ok(e.into_iter().map(|e| e.id).collect())
}

/// The ids of the built-in model catalog.
///
/// Returns:
///     list[str]: ids such as "llama-3-8b", each usable as `model=`.
#[pyfunction]
pub fn model_ids(py: Python<'_>) -> PyResult<Vec<String>> {
    let e = Catalog::default().model_entries().or_raise(py)?;
    Ok(e.into_iter().map(|e| e.id).collect())
}

fn repr(kind: &str, what: &str, sets: &[String]) -> String {
    if sets.is_empty() {
        return format!("roofline.{kind}({what:?})");
    }
    let items: Vec<String> = sets
        .iter()
        .map(|s| {
            let (k, v) = s.split_once('=').unwrap_or((s, ""));
            format!("{k:?}: {v:?}")
        })
        .collect();
    format!("roofline.{kind}({what:?}).set({{{}}})", items.join(", "))
}

/// The methods `Hardware` and `Model` share, written once: the id, the
/// edits, an edited copy (`set`, checked as the commands would load it),
/// `show` (the `... show` command with this spec) and `repr`. Each takes
/// its own doc comments for `set` and `show`, which name its fields.
macro_rules! spec_methods {
    (
        $ty:ident, kind: $kind:literal, ctor: $ctor:literal, show: $command:literal,
        $(#[$set_doc:meta])* set;
        $(#[$show_doc:meta])* show;
    ) => {
        #[pymethods]
        impl $ty {
            /// The id or path it was loaded by.
            #[getter]
            fn id(&self) -> &str {
                &self.what
            }

            /// The edits, as `path=value` texts (the CLI's `--set`).
            #[getter]
            fn edits(&self) -> Vec<String> {
                self.sets.clone()
            }

            $(#[$set_doc])*
            fn set(&self, py: Python<'_>, changes: &Bound<'_, PyAny>) -> PyResult<$ty> {
                Ok($ty {
                    what: self.what.clone(),
                    sets: with_sets(py, $kind, &self.what, &self.sets, changes)?,
                })
            }

            $(#[$show_doc])*
            #[pyo3(signature = (**kwargs))]
            fn show(slf: &Bound<'_, Self>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Report> {
                let kw = kwargs.cloned().unwrap_or_else(|| PyDict::new(slf.py()));
                kw.set_item($kind, slf)?;
                crate::commands::run_kwargs(slf.py(), $command, &kw)
            }

            fn __repr__(&self) -> String {
                repr($ctor, &self.what, &self.sets)
            }
        }
    };
}

spec_methods! {
    Hardware, kind: "hw", ctor: "hardware", show: "hw show",
    /// An edited copy: fields of the hardware file by their kebab-case
    /// path, values with units.
    ///
    /// Args:
    ///     changes: {"memory.hbm-bandwidth": "5 TB/s"}, or a list of "path=value".
    ///
    /// Returns:
    ///     Hardware: the copy; this one is unchanged.
    ///
    /// Raises:
    ///     DataError: a path the file has no field for, or a value that does not validate.
    set;
    /// Its numbers and derived figures: `hw_show(hw=self, ...)`.
    show;
}

spec_methods! {
    Model, kind: "model", ctor: "model", show: "model show",
    /// An edited copy: fields of the model file by their kebab-case path.
    ///
    /// Args:
    ///     changes: {"layers": 16}, {"attention.kv-heads": 2}, or a list of "path=value".
    ///
    /// Returns:
    ///     Model: the copy; this one is unchanged.
    ///
    /// Raises:
    ///     DataError: a path the file has no field for, or a value that does not validate.
    set;
    /// Its parameters, weight bytes and KV bytes per token: `model_show(model=self, ...)`.
    show;
}

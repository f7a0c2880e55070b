//! One exception class per kind of error, under one base that subclasses
//! `ValueError`: the groups `Error::exit_code()` makes (65 bad data, 1 no
//! answer, 2 bad usage, 74 I/O). Each exception carries `exit_code`, the
//! CLI's exit status for the same error, and `field` where one is named.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use roofline::Error;

create_exception!(
    roofline,
    RooflineError,
    PyValueError,
    "Every error roofline raises: a value that does not validate, a question with no answer, inputs missing or clashing, a file that cannot be read."
);
create_exception!(
    roofline,
    DataError,
    RooflineError,
    "A file or value that does not validate: a wrong unit, a value out of range, an unknown id or field (the CLI's exit code 65)."
);
create_exception!(
    roofline,
    NoAnswerError,
    RooflineError,
    "A well-formed question with no answer, such as a model that fits on no layout (the CLI's exit code 1)."
);
create_exception!(
    roofline,
    UsageError,
    RooflineError,
    "Inputs missing or given together where the command needs one or the other (the CLI's exit code 2)."
);
create_exception!(
    roofline,
    FileError,
    RooflineError,
    "A hardware or model file that cannot be read (the CLI's exit code 74)."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("RooflineError", py.get_type::<RooflineError>())?;
    m.add("DataError", py.get_type::<DataError>())?;
    m.add("NoAnswerError", py.get_type::<NoAnswerError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    m.add("FileError", py.get_type::<FileError>())?;
    Ok(())
}

/// The field an error names, past any sweep point.
fn field(e: &Error) -> Option<String> {
    match e.root() {
        Error::Field { field, .. } | Error::MissingInput { field, .. } => Some(field.clone()),
        Error::Data { field, .. } => field.clone(),
        Error::MissingField { field, .. } => Some(field.clone()),
        Error::Input { flag, .. } | Error::Usage { flag, .. } => {
            Some(flag.trim_start_matches('-').replace('-', "_"))
        }
        _ => None,
    }
}

/// The message, with an I/O error's cause (`cannot read x.toml: No such
/// file or directory`).
fn message(e: &Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

/// The Python exception for a library error.
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let code = e.exit_code();
    let msg = message(&e);
    let err = match code {
        1 => NoAnswerError::new_err(msg),
        2 => UsageError::new_err(msg),
        74 => FileError::new_err(msg),
        _ => DataError::new_err(msg),
    };
    let value = err.value(py);
    let _ = value.setattr("exit_code", code);
    let _ = value.setattr("field", field(&e));
    err
}

/// A library result as a Python one.
pub trait OrRaise<T> {
    /// Raises the library's error as its Python exception.
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}

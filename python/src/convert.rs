//! Python values <-> the JSON values fields and reports are made of.
//! A keyword argument is a number in base units, text with a unit
//! (`"4.8 TB/s"`), a switch, a [`Hardware`]/[`Model`], or a list of
//! these (an axis); a report's values come back as floats, ints, strings,
//! lists and dicts, as `json.loads` of the CLI's `--format json` gives.

use crate::errors::DataError;
use crate::specs::{Hardware, Model};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use roofline::spec::overrides::Set;
use serde_json::Value;

/// What a field's Python value turns into: the value, and the `--set`s an
/// edited hardware or model carries.
pub struct Converted {
    pub value: Value,
    pub sets: Vec<String>,
}

fn bad(name: &str, what: &str) -> PyErr {
    DataError::new_err(format!("field `{name}`: {what}"))
}

/// One Python value as a field's JSON value; `name` is the field, for
/// errors. `nested` refuses a list inside a list.
pub fn field_value(name: &str, v: &Bound<'_, PyAny>, nested: bool) -> PyResult<Converted> {
    let plain = |value| Converted {
        value,
        sets: Vec::new(),
    };
    if v.is_instance_of::<PyBool>() {
        return Ok(plain(Value::Bool(v.extract()?)));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(plain(Value::String(v.extract()?)));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(plain(Value::from(i)));
        }
        if let Ok(u) = v.extract::<u64>() {
            return Ok(plain(Value::from(u)));
        }
        // Beyond 64 bits: the nearest float, which the field's own range
        // check then refuses or accepts.
        let f: f64 = v.extract()?;
        return finite(name, f).map(plain);
    }
    if v.is_instance_of::<PyFloat>() {
        return finite(name, v.extract()?).map(plain);
    }
    if let Ok(h) = v.cast::<Hardware>() {
        let h = h.get();
        return Ok(Converted {
            value: Value::String(h.what.clone()),
            sets: h.sets.clone(),
        });
    }
    if let Ok(m) = v.cast::<Model>() {
        let m = m.get();
        return Ok(Converted {
            value: Value::String(m.what.clone()),
            sets: m.sets.clone(),
        });
    }
    let listish = v.is_instance_of::<PyList>()
        || v.is_instance_of::<PyTuple>()
        || v.hasattr("__iter__")? && !v.is_instance_of::<PyDict>();
    if listish {
        if nested {
            return Err(bad(name, "a list inside a list; give one list of values"));
        }
        let mut values = Vec::new();
        let mut sets: Vec<String> = Vec::new();
        for (i, item) in v.try_iter()?.enumerate() {
            let c = field_value(name, &item?, true)?;
            if i > 0 && c.sets != sets {
                return Err(bad(
                    name,
                    "edited hardware or models in one list must carry the same edits; compare edits with a list-valued dotted field instead (`memory.hbm-bandwidth=[...]`)",
                ));
            }
            sets = c.sets;
            values.push(c.value);
        }
        return Ok(Converted {
            value: Value::Array(values),
            sets,
        });
    }
    // numpy scalars and the like: anything that is a float.
    if let Ok(f) = v.extract::<f64>() {
        return finite(name, f).map(plain);
    }
    Err(bad(
        name,
        &format!(
            "expected a number, text with a unit, True/False, or a list of these; got {}",
            v.get_type().name()?
        ),
    ))
}

fn finite(name: &str, f: f64) -> PyResult<Value> {
    if !f.is_finite() {
        return Err(bad(name, &format!("{f} is not a finite number")));
    }
    Ok(Value::from(f))
}

/// A JSON value as a Python object.
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for x in items {
                list.append(to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let d = PyDict::new(py);
            for (k, x) in map {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// `set=` as `path=value` texts: a dict (`{"memory.hbm-bandwidth": "5
/// TB/s"}`) or a list of `"path=value"`.
pub fn set_texts(set: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    let Some(set) = set else {
        return Ok(Vec::new());
    };
    if set.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(d) = set.cast::<PyDict>() {
        let mut out = Vec::new();
        for (k, v) in d.iter() {
            let k: String = k.extract()?;
            let v = if v.is_instance_of::<PyString>() {
                v.extract::<String>()?
            } else {
                v.str()?.to_string()
            };
            out.push(format!("{k}={v}"));
        }
        return Ok(out);
    }
    if set.is_instance_of::<PyString>() {
        return Ok(vec![set.extract()?]);
    }
    set.try_iter()?
        .map(|s| s?.extract::<String>())
        .collect::<PyResult<Vec<_>>>()
}

/// Parses `path=value` texts as the library's overrides.
pub fn parse_sets(py: Python<'_>, texts: &[String]) -> PyResult<Vec<Set>> {
    use crate::errors::OrRaise;
    roofline::query::Context::parse_sets(texts).or_raise(py)
}

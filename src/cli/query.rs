//! Commands whose inputs are fields. The flags become a field map once and
//! `--sweep`s become axes; the library's dispatch does the rest
//! ([`roofline::query::evaluate`]). Errors about a field are reported as
//! the flag of the same name.

use roofline::error::{Error, Result};
use roofline::inputs::Fields;
use roofline::query::Context;
use roofline::report::{Report, RowSink};
use roofline::sweep::{self, Axis};
use serde_json::Value;

/// A command whose flags become fields for the library's dispatch
/// ([`roofline::query::evaluate`]).
pub trait Query {
    /// The command's name, as [`roofline::query::COMMANDS`] lists it.
    fn command(&self) -> &'static str;
    /// The fields its flags give, kebab-case as typed; `hw` and `model`
    /// hold the ids (a comma-separated list compares several).
    fn fields(&self) -> Result<Fields>;
}

/// The fields a command's flags give, from its argument struct's own
/// kebab-case `Serialize`, so each flag is named once: every flag given
/// (text trimmed), and a switch only when it is on.
pub fn flag_fields<T: serde::Serialize>(args: &T) -> Result<Fields> {
    let value = serde_json::to_value(args)
        .map_err(|e| Error::Unsupported(format!("the flags do not form fields: {e}")))?;
    let Value::Object(map) = value else {
        return Err(Error::Unsupported("the flags do not form fields".into()));
    };
    Ok(map
        .into_iter()
        .filter(|(_, v)| !matches!(v, Value::Null | Value::Bool(false)))
        .map(|(k, v)| match v {
            Value::String(s) if s.trim().len() != s.len() => (k, Value::from(s.trim())),
            v => (k, v),
        })
        .collect())
}

/// Inserts a flag's value under its field name when it was given.
pub fn put(f: &mut Fields, name: &str, v: Option<impl Into<Value>>) {
    if let Some(v) = v {
        f.insert(name.into(), v.into());
    }
}

/// Runs a query through the library: one report, or with `explain` one
/// full report per point. Errors are named as flags.
pub fn run(q: &dyn Query, ctx: &Context, sweeps: &[String], explain: bool) -> Result<Vec<Report>> {
    run_into(q, ctx, sweeps, explain, None, false).map(|(r, _)| r)
}

/// [`run`]; with a `sink`, a sweep's rows go to it as they are worked
/// ([`roofline::query::evaluate_into`]): the report returned then has no
/// rows, and the second value says so.
pub fn run_into(
    q: &dyn Query,
    ctx: &Context,
    sweeps: &[String],
    explain: bool,
    sink: Option<&mut dyn RowSink>,
    chart: bool,
) -> Result<(Vec<Report>, bool)> {
    let fields = q.fields().map_err(as_flags)?;
    let axes = sweeps
        .iter()
        .map(|s| sweep::parse(s).map(Axis::from))
        .collect::<Result<Vec<Axis>>>()?;
    roofline::query::evaluate_into(ctx, q.command(), &fields, &axes, explain, sink, chart)
        .map_err(as_flags)
}

pub use roofline::query::as_flags;

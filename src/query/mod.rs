//! Queries: a command's name and its input fields -> reports. This is the
//! one path every shell takes: the command line turns its flags into
//! fields, a scenario file gives them as TOML, the Python package as
//! keyword arguments and the web page as JSON; all of them call
//! [`evaluate`] with a [`Context`] (the catalog, `--set` overrides and the
//! mode).
//!
//! Fields are kebab-case, named as scenario files name them (`batch`,
//! `kv-dtype`, `hw`, `model`); a value is a number in base units, text
//! with a unit (`"4.8 TB/s"`) or a switch. A field holding a list, a
//! comma-separated `hw` or `model`, and each [`Axis`] given become the
//! axes of a grid, evaluated point by point ([`crate::sweep::evaluate`]).
//!
//! ```
//! use roofline::query::{self, Context};
//! use roofline::inputs::Fields;
//!
//! let ctx = Context::default();
//! let mut fields = Fields::new();
//! fields.insert("hw".into(), "h100-sxm".into());
//! fields.insert("intensity".into(), 1.into());
//! let reports = query::evaluate(&ctx, "point", &fields, &[], false)?;
//! // Batch-1 decode runs at the memory roof: 3.35 TB/s x 1 FLOP/B.
//! let attainable = reports[0].results["attainable_flops_per_s"].as_f64().unwrap();
//! assert!((attainable - 3.35e12).abs() < 1e9, "{attainable}");
//! # Ok::<(), roofline::Error>(())
//! ```

mod commands;
mod context;
pub mod declared;
mod flags;
mod list;

pub use commands::DEFAULT_HW;
pub use context::Context;
pub use flags::as_flags;

use crate::error::{Error, Result};
use crate::inputs::Fields;
use crate::report::{Report, RowSink};
use crate::sweep::{self, Axis};
use serde_json::Value;

/// Every command [`evaluate`] takes, as the command line spells it.
pub const COMMANDS: &[&str] = &[
    "hw list",
    "hw show",
    "model list",
    "model show",
    "engine list",
    "engine show",
    "point",
    "occupancy",
    "coalesce",
    "littles-law",
    "matmul",
    "fusion softmax",
    "fusion chain",
    "fusion epilogue",
    "launch",
    "kv",
    "decode",
    "prefill",
    "speculative",
    "collective",
    "plan",
    "simulate",
    "fleet",
    "calc",
    "dtype",
];

/// The error for a command name [`evaluate`] does not know.
fn unknown_command(name: &str) -> Error {
    let hint = crate::error::nearest(name, COMMANDS.iter().copied())
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default();
    Error::Unsupported(format!(
        "unknown command `{name}`{hint}; expected one of: {}",
        COMMANDS.join(", ")
    ))
}

/// Evaluates `command` over `fields` and the extra `sweeps`, then applies
/// the checks every answer gets ([`Context::finish`]).
///
/// Returns one report: a single answer, or with axes (a list-valued
/// field, a comma-separated `hw` or `model`, a sweep) one row per point.
/// With `each_point`, one full report per point instead (for the
/// derivations `--explain` prints). `hw list` and `model list` take no
/// fields; `each_point` gives one report per entry.
pub fn evaluate(
    ctx: &Context,
    command: &str,
    fields: &Fields,
    sweeps: &[Axis],
    each_point: bool,
) -> Result<Vec<Report>> {
    evaluate_into(ctx, command, fields, sweeps, each_point, None, false).map(|(r, _)| r)
}

/// [`evaluate`]; with a `sink`, a sweep's rows go to it as they are worked
/// (a comparison and `each_point` still collect): the report returned then
/// has no rows, and the second value says so. With `chart`, a streamed
/// report keeps the rows a chart draws ([`sweep::chart_strides`]).
pub fn evaluate_into(
    ctx: &Context,
    command: &str,
    fields: &Fields,
    sweeps: &[Axis],
    each_point: bool,
    sink: Option<&mut dyn RowSink>,
    chart: bool,
) -> Result<(Vec<Report>, bool)> {
    if let Some(kind) = command
        .strip_suffix(" list")
        .filter(|k| matches!(*k, "hw" | "model"))
    {
        if let Some(k) = fields.keys().next() {
            return Err(Error::field(
                k.clone(),
                format!("`{command}` takes no inputs; it lists the catalog"),
            ));
        }
        if !sweeps.is_empty() {
            return Err(Error::usage(
                "--sweep",
                format!("`{command}` takes no sweep"),
            ));
        }
        // A list states where its `--set`s applied itself.
        let r = if kind == "hw" {
            list::hardware(ctx, each_point)
        } else {
            list::models(ctx, each_point)
        };
        return r.map(|r| (r, false));
    }
    if !COMMANDS.contains(&command) {
        return Err(unknown_command(command));
    }
    let (reports, streamed) = grid(ctx, command, fields, sweeps, each_point, sink, chart)?;
    Ok((ctx.finish(reports)?, streamed))
}

/// Evaluates one point of `command` (every field has one value), without
/// the checks [`evaluate`] adds; `lean` asks for values only (a sweep's
/// inner points).
pub fn point(ctx: &Context, command: &str, fields: &Fields, lean: bool) -> Result<Report> {
    commands::point(ctx, command, fields, lean)
}

/// Splits the fields into the base point and the axes, then evaluates
/// every point of the grid.
fn grid(
    ctx: &Context,
    command: &str,
    fields: &Fields,
    sweeps: &[Axis],
    each_point: bool,
    sink: Option<&mut dyn RowSink>,
    chart: bool,
) -> Result<(Vec<Report>, bool)> {
    let mut base = fields.clone();
    // `fleet` compares the parts it is given, one search each, as `decode`
    // does; with `joint` its list is one search's input (a deployment may
    // mix the parts), not a comparison.
    if command == "fleet"
        && matches!(base.remove("joint"), Some(Value::Bool(true)))
        && let Some(v) = base.remove("hw")
    {
        base.insert("parts".into(), v);
    }
    let mut axes: Vec<Axis> = Vec::new();
    for (key, flag, what) in [("hw", "--hw", "hardware"), ("model", "--model", "model")] {
        // Compared parts are the outermost axes, whether listed or
        // comma-separated.
        if let Some(Value::Array(_)) = base.get(key) {
            let Some(Value::Array(values)) = base.remove(key) else {
                continue;
            };
            if values.is_empty() {
                return Err(Error::input(
                    flag,
                    format!("no {what} named; give an id or a path"),
                ));
            }
            axes.push(Axis {
                name: key.into(),
                values: values.into(),
            });
            continue;
        }
        if let Some(Value::String(list)) = base.get(key) {
            let items: Vec<Value> = context::split(list).map(Value::from).collect();
            if items.is_empty() {
                return Err(Error::input(
                    flag,
                    format!("no {what} named; give an id or a path"),
                ));
            }
            if items.len() > 1 {
                base.remove(key);
                axes.push(Axis {
                    name: key.into(),
                    values: items.into(),
                });
            } else {
                base.insert(key.into(), items[0].clone());
            }
        }
    }
    // A list of `fleet`'s joint parts (Python's `hw=[...]`, a scenario's
    // `hw = [...]`, with `joint`) is the one search the comma-separated
    // `--hw --joint` is, not an axis of one search per part.
    let listed: Vec<String> = base
        .iter()
        .filter(|(k, v)| v.is_array() && !(command == "fleet" && k.as_str() == "parts"))
        .map(|(k, _)| k.clone())
        .collect();
    for k in listed {
        let Some(Value::Array(values)) = base.remove(&k) else {
            continue;
        };
        if values.is_empty() {
            return Err(Error::field(k, "an empty list; give at least one value"));
        }
        axes.push(Axis::list(k, values));
    }
    for sw in sweeps {
        if axes.iter().any(|a| a.name == sw.name) {
            return Err(Error::input(
                "--sweep",
                format!(
                    "`{}` is swept twice (or is also a list); give all its values in one --sweep",
                    sw.name
                ),
            ));
        }
        base.remove(&sw.name);
        axes.push(sw.clone());
    }
    let swept: Vec<String> = axes.iter().map(|a| a.name.clone()).collect();
    let named = |e: Error| unknown_sweep(e, &swept);
    if axes.is_empty() {
        return Ok((vec![point(ctx, command, &base, false)?], false));
    }
    sweep::check_files(
        axes.iter()
            .filter(|a| commands::is_file_axis(command, &a.name)),
    )?;
    preload(ctx, command, &base, &axes).map_err(ctx.rename)?;
    bound_fleet_sweep(command, &axes)?;
    // One point's answer: a result that overflowed or lost its value is
    // that point's error; a swept name the command never read is the
    // whole sweep's.
    let mut checked = false;
    // A field's own value refused where the sweep does not vary it, or a
    // check across fields none of which the sweep varies (`tp` against
    // the model's heads), fails every point alike: it is kept here and ends the sweep at its first
    // point (a `--sweep` error is what stops a sweep at once), then
    // returned in place of that stop.
    let whole: std::cell::Cell<Option<Error>> = std::cell::Cell::new(None);
    let stop = |e: Error| match whole.take() {
        Some(w) => w,
        None => named(e),
    };
    let missing_checked = std::cell::Cell::new(false);
    let base_fields = base.clone();
    let mut point_eval = |f: &Fields, lean: bool| -> Result<Report> {
        let r = match point(ctx, command, f, lean) {
            Err(e)
                if crate::inputs::value_error(&e)
                    .is_some_and(|field| !swept.iter().any(|s| s == field))
                    || crate::inputs::depends_on(&e).is_some_and(|reads| {
                        !swept.iter().any(|s| {
                            reads.contains(&s.as_str()) || commands::is_file_axis(command, s)
                        })
                    }) =>
            {
                whole.set(Some((ctx.rename)(e)));
                return Err(Error::input("--sweep", "stopped at its first point"));
            }
            Err(e) if axes.iter().any(|a| a.unit_refused(&e)) => {
                whole.set(Some((ctx.rename)(e)));
                return Err(Error::input("--sweep", "stopped at its first point"));
            }
            // A point that found no file: where no value of a swept file
            // axis can be found, every point fails so (checked once, and
            // only once a point has read the file, so a command that
            // reads none still says so).
            Err(e @ (Error::UnknownId { .. } | Error::NotAModel { .. } | Error::Io { .. }))
                if !missing_checked.replace(true)
                    && let Some(m) = swept_files_missing(ctx, &base_fields, &axes) =>
            {
                drop(e);
                whole.set(Some((ctx.rename)(m)));
                return Err(Error::input("--sweep", "stopped at its first point"));
            }
            r => r.map_err(|e| (ctx.rename)(unknown_sweep(e, &swept)))?,
        };
        if !checked {
            check_axes_read(ctx, &axes)?;
            // A point that answered has read every kind of file the
            // command reads, so a flag none of them uses (`--achievable`
            // with no hardware file) is said now, before the other points
            // are worked and streamed (issue 55).
            if let Err(e) = ctx.check_sets_used() {
                whole.set(Some(e));
                return Err(Error::input("--sweep", "stopped at its first point"));
            }
            checked = true;
        }
        Context::check_finite(std::slice::from_ref(&r))?;
        Ok(r)
    };
    // One map serves every point: each point overwrites the swept fields.
    let mut f = base;
    if each_point {
        let n = sweep::grid_size(&axes)?;
        let mut out = Vec::with_capacity(n);
        sweep::evaluate(&axes, |p, _| {
            apply(&mut f, p);
            out.push(point_eval(&f, false)?);
            Ok(Report::new_lean("", true))
        })
        .map_err(stop)?;
        return Ok((out, false));
    }
    // A comparison has few items and each may describe its figures in its
    // own units, so every item is built in full (a sweep builds the first
    // point of each accelerator or precision in full itself).
    let comparison = axes.iter().all(|a| a.name == "hw" || a.name == "model");
    if comparison {
        let r = compare(ctx, command, &axes, f).map_err(stop)?;
        check_axes_read(ctx, &axes)?;
        return Ok((vec![r], false));
    }
    let streamed = sink.is_some();
    let strides = (streamed && chart).then(|| sweep::chart_strides(&axes));
    let mut r = sweep::evaluate_into(&axes, sink, strides.as_deref(), |p, lean| {
        apply(&mut f, p);
        point_eval(&f, lean)
    })
    .map_err(stop)?;
    if let Some(st) = strides.as_ref().filter(|st| st.iter().any(|&s| s > 1)) {
        let n = sweep::grid_size(&axes)?;
        let every: Vec<String> = axes
            .iter()
            .zip(st)
            .filter(|(_, s)| **s > 1)
            .map(|(a, s)| format!("every {} of `{}`", crate::units::number(*s as f64), a.name))
            .collect();
        r.note(format!(
            "the chart draws {} of the {} points ({}, and each axis's last), more than it has pixels; the printed rows are all of them",
            crate::units::number(r.chart_rows.as_ref().map_or(0, |c| c.len()) as f64),
            crate::units::number(n as f64),
            every.join(", ")
        ));
    }
    Ok((vec![r], streamed))
}

/// Loads the hardware, model and engine a sweep does not vary, once,
/// before its first point: an unknown id or a file that does not read
/// fails every point the same way, so it is reported at once rather than
/// after a million points (issue 55). A file's bad data is as fatal only
/// where the sweep varies no field of a file (a swept `--set` could mend
/// it); other errors are left to the points, which may answer them
/// differently.
fn preload(ctx: &Context, command: &str, base: &Fields, axes: &[Axis]) -> Result<()> {
    let fixed = |k: &str| base.contains_key(k) && !axes.iter().any(|a| a.name == k);
    let files_vary = axes
        .iter()
        .any(|a| commands::is_file_axis(command, &a.name));
    let fatal = |r: Result<()>| match r {
        Err(e @ (Error::UnknownId { .. } | Error::NotAModel { .. } | Error::Io { .. })) => Err(e),
        Err(e @ Error::Data { .. }) if !files_vary => Err(e),
        _ => Ok(()),
    };
    if fixed("hw") {
        fatal(ctx.point_hardware(base, None).map(|_| ()))?;
    }
    if fixed("model") {
        fatal(ctx.point_model(base).map(|_| ()))?;
    }
    if fixed("engine") {
        fatal(ctx.point_engine(base).map(|_| ()))?;
    }
    Ok(())
}

/// A swept part, model or engine none of whose values can be found: it
/// fails every point alike (`--sweep model=nope` beside a million
/// batches), so the sweep says so once, before its points. An axis with
/// one value that loads leaves the others to fail as rows of their own.
fn swept_files_missing(ctx: &Context, base: &Fields, axes: &[Axis]) -> Option<Error> {
    for a in axes {
        let load = |f: &Fields| match a.name.as_str() {
            "hw" => Some(ctx.point_hardware(f, None).map(|_| ())),
            "model" => Some(ctx.point_model(f).map(|_| ())),
            "engine" => Some(ctx.point_engine(f).map(|_| ())),
            _ => None,
        };
        let mut first = None;
        let mut f = base.clone();
        for j in 0..a.values.len() {
            f.insert(a.name.clone(), a.values.get(j).unwrap_or(Value::Null));
            match load(&f) {
                Some(Err(
                    e @ (Error::UnknownId { .. } | Error::NotAModel { .. } | Error::Io { .. }),
                )) => {
                    first.get_or_insert(e);
                }
                _ => {
                    first = None;
                    break;
                }
            }
        }
        if first.is_some() {
            return first;
        }
    }
    None
}

/// The most points a `fleet` sweep may have: each point is a whole fleet
/// search (hundreds of simulated replicas, about a second in the release
/// build), so a thousand-point sweep would run for many minutes.
const MAX_FLEET_POINTS: usize = 64;

/// Refuses a `fleet` sweep of more than [`MAX_FLEET_POINTS`] points,
/// saying why.
fn bound_fleet_sweep(command: &str, axes: &[Axis]) -> Result<()> {
    if command != "fleet" {
        return Ok(());
    }
    let n = sweep::grid_size(axes)?;
    if n > MAX_FLEET_POINTS {
        return Err(Error::input(
            "--sweep",
            format!(
                "{} points, each a whole fleet search (about a second or more each); fleet sweeps at most {MAX_FLEET_POINTS} points: give fewer values, or a coarser step",
                crate::units::number(n as f64)
            ),
        ));
    }
    Ok(())
}

/// A comparison of parts or models: an item with no answer (a model that
/// does not fit one of the parts) is its column's `error`, so the others
/// still answer; only a comparison where no item answers fails, with the
/// first item's error.
fn compare(ctx: &Context, command: &str, axes: &[Axis], mut f: Fields) -> Result<Report> {
    let mut answers = Vec::new();
    sweep::evaluate(axes, |p, _| {
        apply(&mut f, p);
        // Every item that fails is an item with its error, but an error
        // about the whole command (bad usage, I/O) stops here.
        let r = point(ctx, command, &f, false)
            .and_then(|r| Context::check_finite(std::slice::from_ref(&r)).map(|()| r))
            .map_err(ctx.rename);
        match r {
            Err(e) if matches!(e.exit_code(), 2 | 74) => return Err(e),
            r => answers.push(r),
        }
        Ok(Report::new_lean("", true))
    })?;
    let failed = answers.iter().any(Result::is_err);
    let template = answers.iter().find_map(|r| r.as_ref().ok()).cloned();
    let mut answers = answers.into_iter();
    sweep::evaluate(axes, |p, _| {
        let answer = answers
            .next()
            .unwrap_or_else(|| point(ctx, command, &f, false));
        let (Some(t), true) = (&template, failed) else {
            return answer;
        };
        let mut r = answer.unwrap_or_else(|e| unanswered(t, p, &f, &e));
        r.headline.push("error".into());
        Ok(r)
    })
}

/// The report of a comparison's item that has no answer: the error, short
/// in its cell (`does not fit: needs 141.1 GB ..., has 135.1 GB`) and in
/// full in a note, where the remedy is.
fn unanswered(template: &Report, point: &[(&str, &Value)], given: &Fields, e: &Error) -> Report {
    let mut r = template.clone();
    // The inputs given are this item's too; those the item would have
    // chosen itself (a part's default precision) are not known.
    r.inputs
        .retain(|k, _| given.contains_key(k.replace('_', "-").as_str()));
    r.results.clear();
    r.notes.clear();
    for (k, v) in point {
        let id = v.as_str().map(str::to_string);
        match *k {
            "hw" => r.hardware = id,
            "model" => r.model = id,
            _ => {}
        }
    }
    let full = e.to_string();
    let head = full.split(';').next().unwrap_or_default();
    let mut parts = head.split(": ");
    let short = match (parts.next(), parts.next()) {
        (Some(what), Some(why)) if what.contains(" does not fit") => format!("does not fit: {why}"),
        _ => head.to_string(),
    };
    r.result(
        "error",
        short,
        crate::report::Quantity::new("no answer", crate::report::Unit::None),
    );
    r.note(full);
    r
}

/// A swept `hw`, `model` or file path (`memory.hbm-bandwidth`) that the
/// command never read would print identical rows under an invented
/// column: refused, as a sweep of a name the command does not take is.
fn check_axes_read(ctx: &Context, axes: &[Axis]) -> Result<()> {
    let (hw, model) = ctx.read_flags();
    for a in axes {
        let for_model = a.name == "model"
            || (a.name.contains('.') && crate::spec::overrides::is_model_path(&a.name));
        let for_hw = a.name == "hw" || (a.name.contains('.') && !for_model);
        let what = if for_model && !model {
            "model"
        } else if for_hw && !hw {
            "hardware file"
        } else {
            continue;
        };
        return Err(Error::input(
            "--sweep",
            format!(
                "`{}` is not an input of this command: it reads no {what}",
                a.name
            ),
        ));
    }
    Ok(())
}

/// Sets a point's values in the fields, reusing their slots.
fn apply(f: &mut Fields, point: &[(&str, &Value)]) {
    for (k, v) in point {
        match f.get_mut(*k) {
            Some(slot) => slot.clone_from(v),
            None => {
                f.insert((*k).to_string(), (*v).clone());
            }
        }
    }
}

/// A sweep of a name the command does not take is a usage slip, reported
/// against `--sweep` with the fields it does take.
fn unknown_sweep(e: Error, swept: &[String]) -> Error {
    if let Error::Field { field, message } = e.root()
        && swept.contains(field)
        && message.starts_with("unknown field")
    {
        let takes = message
            .split_once("expected")
            .map_or(String::new(), |(_, t)| format!("; it takes{t}"));
        return Error::input(
            "--sweep",
            format!(
                "`{field}` is not an input of this command{takes}; a field of a hardware or model file is swept by its --set path (e.g. memory.hbm-bandwidth=3..8:1TB/s)"
            ),
        );
    }
    e
}

#[cfg(test)]
mod tests;

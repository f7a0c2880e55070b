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
mod flags;
mod list;

pub use commands::DEFAULT_HW;
pub use context::Context;
pub use flags::as_flags;

use crate::error::{Error, Result};
use crate::inputs::Fields;
use crate::report::Report;
use crate::sweep::{self, Axis};
use serde_json::Value;

/// Every command [`evaluate`] takes, as the command line spells it.
pub const COMMANDS: &[&str] = &[
    "hw list",
    "hw show",
    "model list",
    "model show",
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
        return if kind == "hw" {
            list::hardware(ctx, each_point)
        } else {
            list::models(ctx, each_point)
        };
    }
    if !COMMANDS.contains(&command) {
        return Err(unknown_command(command));
    }
    let reports = grid(ctx, command, fields, sweeps, each_point)?;
    ctx.finish(reports)
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
) -> Result<Vec<Report>> {
    let mut base = fields.clone();
    let mut axes: Vec<Axis> = Vec::new();
    for (key, flag, what) in [("hw", "--hw", "hardware"), ("model", "--model", "model")] {
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
                    values: items,
                });
            } else {
                base.insert(key.into(), items[0].clone());
            }
        }
    }
    let listed: Vec<String> = base
        .iter()
        .filter(|(_, v)| v.is_array())
        .map(|(k, _)| k.clone())
        .collect();
    for k in listed {
        let Some(Value::Array(values)) = base.remove(&k) else {
            continue;
        };
        if values.is_empty() {
            return Err(Error::field(k, "an empty list; give at least one value"));
        }
        axes.push(Axis { name: k, values });
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
        return Ok(vec![point(ctx, command, &base, false)?]);
    }
    // One map serves every point: each point overwrites the swept fields.
    let mut f = base;
    if each_point {
        let n = sweep::grid_size(&axes)?;
        let mut out = Vec::with_capacity(n);
        sweep::evaluate(&axes, |p, _| {
            apply(&mut f, p);
            out.push(point(ctx, command, &f, false)?);
            Ok(Report::new_lean("", true))
        })
        .map_err(named)?;
        return Ok(out);
    }
    // A comparison has few items and each may describe its figures in its
    // own units, so every item is built in full (a sweep builds the first
    // point of each accelerator or precision in full itself).
    let comparison = axes.iter().all(|a| a.name == "hw" || a.name == "model");
    Ok(vec![
        sweep::evaluate(&axes, |p, lean| {
            apply(&mut f, p);
            point(ctx, command, &f, lean && !comparison)
        })
        .map_err(named)?,
    ])
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

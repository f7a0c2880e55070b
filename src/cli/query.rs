//! Commands whose inputs are fields. The flags become a field map once;
//! `--hw`/`--model` lists and `--sweep`s become the axes of a grid; the
//! library evaluates the typed calculation at every point
//! ([`roofline::sweep::evaluate`]). Errors about a field are reported as
//! the flag of the same name.

use super::Ctx;
use roofline::error::{Error, Result};
use roofline::inputs::Fields;
use roofline::report::{Report, RowSink};
use roofline::sweep::{self, Axis};
use serde_json::Value;

/// A command the sweep engine can evaluate point by point.
pub trait Query {
    /// The fields its flags give, kebab-case as typed; `hw` and `model`
    /// hold the ids (a comma-separated list compares several).
    fn fields(&self) -> Result<Fields>;
    /// One point: every field has one value.
    fn eval(&self, ctx: &Ctx, fields: &Fields, lean: bool) -> Result<Report>;
}

/// The fields a calculation's inputs are built from: the point's fields
/// less the hardware, the model and `--set` paths, which the context
/// resolves.
pub fn calc_fields(fields: &Fields) -> Fields {
    fields
        .iter()
        .filter(|(k, _)| is_calc_field(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Whether a point's field is an input of the calculation (not the
/// hardware, the model or a swept `--set` path).
fn is_calc_field(k: &str) -> bool {
    !matches!(k, "hw" | "model") && !k.contains('.')
}

/// The calculation's inputs from a point's fields, without copying them.
pub fn calc_inputs<T: serde::de::DeserializeOwned>(fields: &Fields) -> Result<T> {
    roofline::inputs::from_fields_where(fields, is_calc_field)
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

/// Runs a query: one report, or with `explain` one full report per point.
pub fn run(q: &dyn Query, ctx: &Ctx, sweeps: &[String], explain: bool) -> Result<Vec<Report>> {
    run_into(q, ctx, sweeps, explain, None, false).map(|(r, _)| r)
}

/// [`run`]; with a `sink`, a sweep's rows go to it as they are worked (a comparison
/// and `explain` still collect): the report returned then has no rows, and
/// the second value says so. With `chart`, the streamed report keeps the
/// rows a chart draws ([`sweep::chart_strides`]).
pub fn run_into(
    q: &dyn Query,
    ctx: &Ctx,
    sweeps: &[String],
    explain: bool,
    sink: Option<&mut dyn RowSink>,
    chart: bool,
) -> Result<(Vec<Report>, bool)> {
    let mut base = q.fields()?;
    let mut axes: Vec<Axis> = Vec::new();
    for (key, flag, what) in [("hw", "--hw", "hardware"), ("model", "--model", "model")] {
        if let Some(Value::String(list)) = base.get(key) {
            let items: Vec<Value> = list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(Value::from)
                .collect();
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
    for s in sweeps {
        let sw = sweep::parse(s)?;
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
        axes.push(sw.into());
    }
    let swept: Vec<String> = axes.iter().map(|a| a.name.clone()).collect();
    let named = |e: Error| unknown_sweep(e, &swept);
    if axes.is_empty() {
        let r = q.eval(ctx, &base, false)?;
        return Ok((vec![r], false));
    }
    // One point's answer: a result that overflowed or lost its value is
    // that point's error; a swept name the command never read is the
    // whole sweep's.
    let mut checked = false;
    let mut point_eval = |f: &Fields, lean: bool| -> Result<Report> {
        let r = q
            .eval(ctx, f, lean)
            .map_err(|e| as_flags(unknown_sweep(e, &swept)))?;
        if !checked {
            check_axes_read(ctx, &axes)?;
            checked = true;
        }
        Ctx::check_finite(std::slice::from_ref(&r))?;
        Ok(r)
    };
    // One map serves every point: each point overwrites the swept fields.
    let mut f = base;
    if explain {
        let n = sweep::grid_size(&axes)?;
        let mut out = Vec::with_capacity(n);
        sweep::evaluate(&axes, |point, _| {
            apply(&mut f, point);
            out.push(point_eval(&f, false)?);
            Ok(Report::new_lean("", true))
        })
        .map_err(named)?;
        return Ok((out, false));
    }
    // A comparison has few items and each may describe its figures in its
    // own units, so every item is built in full (a sweep builds the first
    // point of each accelerator or precision in full itself).
    let comparison = axes.iter().all(|a| a.name == "hw" || a.name == "model");
    if comparison {
        let r = compare(q, ctx, &axes, f).map_err(named)?;
        check_axes_read(ctx, &axes)?;
        return Ok((vec![r], false));
    }
    let sink = if comparison { None } else { sink };
    let streamed = sink.is_some();
    let strides = (streamed && chart).then(|| sweep::chart_strides(&axes));
    let r = sweep::evaluate_into(&axes, sink, strides.as_deref(), |point, lean| {
        apply(&mut f, point);
        point_eval(&f, lean && !comparison)
    })
    .map_err(named)?;
    let mut r = r;
    if let Some(st) = strides.as_ref().filter(|st| st.iter().any(|&s| s > 1)) {
        let n = sweep::grid_size(&axes)?;
        let every: Vec<String> = axes
            .iter()
            .zip(st)
            .filter(|(_, s)| **s > 1)
            .map(|(a, s)| {
                format!(
                    "every {} of `{}`",
                    roofline::units::number(*s as f64),
                    a.name
                )
            })
            .collect();
        r.note(format!(
            "the chart draws {} of the {} points ({}, and each axis's last), more than it has pixels; the printed rows are all of them",
            roofline::units::number(r.rows.len() as f64),
            roofline::units::number(n as f64),
            every.join(", ")
        ));
    }
    Ok((vec![r], streamed))
}

/// A comparison of parts or models: an item with no answer (a model that
/// does not fit one of the parts) is its column's `error`, so the others
/// still answer; only a comparison where no item answers fails, with the
/// first item's error.
fn compare(q: &dyn Query, ctx: &Ctx, axes: &[Axis], mut f: Fields) -> Result<Report> {
    let mut answers = Vec::new();
    sweep::evaluate(axes, |point, _| {
        apply(&mut f, point);
        // Every item that fails is an item with its error (issue 27), but
        // an error about the whole command (bad usage, I/O) stops here.
        let r = q
            .eval(ctx, &f, false)
            .and_then(|r| Ctx::check_finite(std::slice::from_ref(&r)).map(|()| r))
            .map_err(as_flags);
        match r {
            Err(e) if matches!(e.exit_code(), 2 | 74) => return Err(e),
            r => answers.push(r),
        }
        Ok(Report::new_lean("", true))
    })?;
    let failed = answers.iter().any(Result::is_err);
    let template = answers.iter().find_map(|r| r.as_ref().ok()).cloned();
    let mut answers = answers.into_iter();
    sweep::evaluate(axes, |point, _| {
        let answer = answers.next().unwrap_or_else(|| q.eval(ctx, &f, false));
        let (Some(t), true) = (&template, failed) else {
            return answer;
        };
        let mut r = answer.unwrap_or_else(|e| unanswered(t, point, &f, &e));
        r.headline.push("error".into());
        Ok(r)
    })
}

/// The report of a comparison's item that has no answer: the error, short
/// in its cell (`does not fit: needs 141.1 GB ..., has 135.1 GB`) and in
/// full in a note, where the remedy is.
fn unanswered(template: &Report, point: &[(&str, &Value)], given: &Fields, e: &Error) -> Report {
    let mut r = template.clone();
    // The inputs typed on the command line are this item's too; those
    // the item would have chosen itself (a part's default precision) are
    // not known.
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
        roofline::report::Quantity::new("no answer", roofline::report::Unit::None),
    );
    r.note(full);
    r
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

/// A swept `hw`, `model` or file path (`memory.hbm-bandwidth`) that the
/// command never read would print identical rows under an invented
/// column: refused, as a sweep of a name the command does not take is.
fn check_axes_read(ctx: &Ctx, axes: &[Axis]) -> Result<()> {
    let (hw, model) = ctx.read.get();
    for a in axes {
        let for_model = a.name == "model"
            || (a.name.contains('.') && roofline::spec::overrides::is_model_path(&a.name));
        let for_hw = a.name == "hw" || (a.name.contains('.') && !for_model);
        let what = if for_model && !model {
            "a model"
        } else if for_hw && !hw {
            "a hardware file"
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

/// The error as the command line says it: a field is named as its flag.
pub fn as_flags(e: Error) -> Error {
    match e {
        Error::Field { field, message } => Error::Input {
            flag: format!("--{field}"),
            message,
        },
        Error::MissingInput { field, message } => {
            let bare = message == format!("give `{field}`");
            Error::Usage {
                flag: format!("--{field}"),
                message: if bare {
                    // The flag is already named; say what is wrong with it.
                    "required, and not given (--help says what it takes)".to_string()
                } else {
                    message
                        .replace(
                            "give an intensity, or flops and bytes",
                            "give --intensity, or --flops and --bytes",
                        )
                        .replace(&format!("give `{field}`"), &format!("give --{field}"))
                },
            }
        }
        Error::At { point, error } => Error::At {
            point,
            error: Box::new(as_flags(*error)),
        },
        e => e,
    }
}

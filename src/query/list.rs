//! `hw list` and `model list`: one report per catalog entry, each deriving
//! the figures the list shows (the field each is read from and its
//! source), for `--explain`; the table, JSON, CSV and Markdown are made
//! from those same reports.

use super::Context;
use crate::catalog::Entry;
use crate::error::{Error, Result};
use crate::report::Report;
use crate::spec::overrides::Set;

/// Lists the hardware catalog; `each` asks for one report per entry.
pub fn hardware(ctx: &Context, each: bool) -> Result<Vec<Report>> {
    ctx.mark_read(true, false);
    run(
        ctx,
        "hw",
        each,
        ctx.catalog.hardware_entries()?,
        |id, sets| ctx.catalog.hardware(id, sets),
        |h| Ok(crate::calc::hw::list_entry(h)),
        crate::calc::hw::listing,
    )
}

/// Lists the model catalog; `each` asks for one report per entry.
pub fn models(ctx: &Context, each: bool) -> Result<Vec<Report>> {
    ctx.mark_read(false, true);
    run(
        ctx,
        "model",
        each,
        ctx.catalog.model_entries()?,
        |id, sets| ctx.catalog.model(id, sets),
        crate::calc::model::list_entry,
        crate::calc::model::listing,
    )
}

/// Runs a list command over `entries` (`kind` is `hw` or `model`): loads
/// each file with the `--set`s (and without, to tell what they change),
/// makes its report with `entry`, and returns those reports for
/// `--explain`, else the one table `table` makes of them.
///
/// A file that does not load is left out with a note giving its path, line
/// and error, so one bad file in a folder does not hide the rest. A `--set`
/// applies to each file it validates for; a file it does not validate for
/// is listed with its own figures and a note saying why, and a `--set` that
/// validates for none is an error.
fn run<T>(
    ctx: &Context,
    kind: &str,
    explain: bool,
    entries: Vec<Entry>,
    load: impl Fn(&str, &[Set]) -> Result<T>,
    entry: impl Fn(&T) -> Result<Report>,
    table: impl FnOnce(Vec<Report>) -> Report,
) -> Result<Vec<Report>> {
    ctx.check_sets_used()?;
    let sets = &ctx.sets;
    let what_if = ctx.sets_text();
    let mut reports = Vec::new();
    // The table's notes; those `--explain` adds after the last entry (an
    // entry's own notes are in its report); the entries --set left alone.
    let mut notes = Vec::new();
    let mut list_notes = Vec::new();
    let mut kept = Vec::new();
    let mut refusal = None;
    let mut changed = false;
    // A file that does not load, and one that loads but whose figures
    // cannot be worked out (its error names it), are left out differently.
    let make = |id: &str, sets: &[Set]| match load(id, sets) {
        Ok(x) => entry(&x).map_err(|e| Box::new((format!("left out {e}"), e))),
        Err(e) => Err(Box::new((
            format!("left out {id}, which does not load: {e}"),
            e,
        ))),
    };
    for e in entries {
        let plain = make(&e.id, &[]);
        let with_sets = (!sets.is_empty()).then(|| make(&e.id, sets));
        match (with_sets, plain) {
            (None, Ok(r)) => reports.push(r),
            (Some(Ok(mut r)), plain) => {
                changed |= plain.map_or(true, |p| p.results != r.results);
                r.note(format!(
                    "what-if: --set {what_if} replaces the file's figures"
                ));
                reports.push(r);
            }
            (Some(Err(failed)), Ok(mut p)) => {
                let (_, err) = *failed;
                let why = format!(
                    "listed with its own figures, since --set does not validate for it: {err}"
                );
                notes.push(format!("{}: {why}", e.id));
                p.note(why);
                refusal.get_or_insert(err);
                kept.push(e.id);
                reports.push(p);
            }
            (_, Err(failed)) => {
                let (n, _) = *failed;
                notes.push(n.clone());
                list_notes.push(n);
            }
        }
    }
    if !sets.is_empty() {
        let applied = reports.len() - kept.len();
        if let (0, Some(err)) = (applied, refusal) {
            // A path no file has is the flag's typo: say so, with the nearest field.
            let err = match super::context::blame_set(err, sets) {
                e @ Error::Data { field: None, .. } if e.to_string().starts_with("--set ") => {
                    return Err(e);
                }
                e => e,
            };
            return Err(Error::input(
                "--set",
                format!("`{what_if}` validates for none of the listed files; the first: {err}"),
            ));
        }
        if !explain {
            notes.push(if kept.is_empty() {
                format!("what-if: --set {what_if} replaces the file's figures")
            } else {
                format!(
                    "what-if: --set {what_if} replaces the file's figures of {applied} of the {} listed; {} keep their own (above)",
                    reports.len(),
                    kept.join(", ")
                )
            });
        }
        if !changed {
            let paths: Vec<&str> = sets.iter().map(|s| s.path.as_str()).collect();
            let n = format!(
                "--set {} changes none of the figures `{kind} list` shows; `roofline {kind} show ID` with the same --set shows what it changes",
                paths.join(", ")
            );
            notes.push(n.clone());
            list_notes.push(n);
        }
    }
    if explain && !reports.is_empty() {
        let last = reports.len() - 1;
        for n in list_notes {
            reports[last].note(n);
        }
        return Ok(reports);
    }
    let mut t = table(reports);
    for n in notes {
        t.note(n);
    }
    Ok(vec![t])
}

//! What every query is evaluated against: the catalog, the `--set`
//! overrides, the mode, and the hardware and model files a sweep has
//! already loaded. The checks every command's reports get (each `--set`
//! used, no result overflowed, what-ifs noted) live here too.

use crate::catalog::{Catalog, Loaded};
use crate::error::{Error, Result};
use crate::inputs::Fields;
use crate::report::{Key, Report};
use crate::spec::engine::{DEFAULT_ENGINE, Engine};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::spec::overrides::Set;
use std::any::TypeId;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// The catalog, overrides and mode a query runs with; it caches each file
/// a sweep loads, so a sweep parses a file once per id and `--set`.
#[derive(Debug)]
pub struct Context {
    /// Built-in files, the user's folders and pasted texts.
    pub catalog: Catalog,
    /// `--set` overrides, applied to every hardware and model file read.
    pub sets: Vec<Set>,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// Whether a hardware file, and a model file, were read: a `--set`
    /// for a kind of file the command never reads is an error, not a no-op.
    read: Cell<(bool, bool)>,
    /// How a shell names an error shown inside a report (a comparison's
    /// failed item): the command line says `--batch` where the library
    /// says `batch`. The identity by default.
    pub rename: fn(Error) -> Error,
    hw_cache: RefCell<HashMap<String, Rc<Hardware>>>,
    engine_cache: RefCell<HashMap<String, std::sync::Arc<Engine>>>,
    /// Whether an engine file was read.
    engine_read: Cell<bool>,
    model_cache: RefCell<HashMap<String, Rc<Model>>>,
    /// Each file read, by kind and id, so a point with its own `--set`s
    /// neither reads nor parses it again.
    files: RefCell<HashMap<(TypeId, String), Rc<Loaded>>>,
    /// Loads that failed, by kind (the type loaded) and cache key: a sweep whose points all
    /// fail the same way pays for the error once.
    failed: RefCell<HashMap<(TypeId, String), Error>>,
    /// How a shell names a point's error in a sweep's error column (the
    /// command line names a field as its flag); the error as it is by
    /// default.
    namer: fn(Error) -> Error,
    /// The decode set-ups a sweep's points share (their model, device and
    /// choices the same).
    pub(crate) decode_setups: RefCell<crate::calc::decode::Shared>,
}

impl Default for Context {
    fn default() -> Self {
        Context::new(Catalog::default(), Vec::new(), Mode::SpeedOfLight)
    }
}

impl Context {
    /// A context over `catalog` with the overrides `sets`.
    pub fn new(catalog: Catalog, sets: Vec<Set>, mode: Mode) -> Self {
        Context {
            catalog,
            sets,
            mode,
            read: Cell::new((false, false)),
            rename: |e| e,
            hw_cache: Default::default(),
            engine_cache: Default::default(),
            engine_read: Cell::new(false),
            model_cache: Default::default(),
            files: Default::default(),
            failed: Default::default(),
            namer: |e| e,
            decode_setups: Default::default(),
        }
    }

    /// The context with `namer` naming each sweep point's error as the
    /// shell does (a field as its flag, say), for the rows that carry it.
    pub fn with_namer(mut self, namer: fn(Error) -> Error) -> Self {
        self.namer = namer;
        self
    }

    /// A point's error as the shell names it ([`Context::with_namer`]).
    pub fn name_error(&self, e: Error) -> Error {
        (self.namer)(e)
    }

    /// Parses `path=value` overrides (`memory.hbm-bandwidth=4.8 TB/s`).
    pub fn parse_sets<S: AsRef<str>>(sets: &[S]) -> Result<Vec<Set>> {
        sets.iter().map(|s| s.as_ref().parse()).collect()
    }

    /// Records that the command read hardware and/or model files (a list
    /// reads them itself).
    pub fn mark_read(&self, hw: bool, model: bool) {
        let (h, m) = self.read.get();
        self.read.set((h || hw, m || model));
    }

    /// Whether a hardware file, and a model file, have been read.
    pub fn read_flags(&self) -> (bool, bool) {
        self.read.get()
    }

    /// Loads each hardware of a comma-separated list of ids or paths.
    pub fn hardware(&self, list: &str) -> Result<Vec<Hardware>> {
        self.mark_read(true, false);
        let items = split(list)
            .map(|h| {
                self.catalog
                    .hardware(h, &self.sets)
                    .map_err(|e| blame_set(e, &self.sets))
            })
            .collect::<Result<Vec<_>>>()?;
        if items.is_empty() {
            return Err(Error::input(
                "--hw",
                "no hardware named; give an id or a path",
            ));
        }
        Ok(items)
    }

    /// Loads each model of a comma-separated list of ids or paths.
    pub fn models(&self, list: &str) -> Result<Vec<Model>> {
        self.mark_read(false, true);
        let items = split(list)
            .map(|m| {
                self.catalog
                    .model(m, &self.sets)
                    .map_err(|e| blame_set(e, &self.sets))
            })
            .collect::<Result<Vec<_>>>()?;
        if items.is_empty() {
            return Err(Error::input(
                "--model",
                "no model named; give an id or a path",
            ));
        }
        Ok(items)
    }

    /// The `--set`s of a point: the context's, then the point's own
    /// dotted fields (a swept `--set` path).
    fn point_sets(&self, fields: &Fields, file_field: &dyn Fn(&str) -> bool) -> Result<Vec<Set>> {
        let mut sets = self.sets.clone();
        for (k, v) in fields.iter().filter(|(k, _)| file_field(k)) {
            sets.push(format!("{k}={}", set_value(v)).parse()?);
        }
        Ok(sets)
    }

    /// The cache key of a point's file: its id and the point's own `--set`s
    /// as text, made without parsing them (a cached point parses nothing).
    fn point_key(id: &str, fields: &Fields, file_field: &dyn Fn(&str) -> bool) -> String {
        let mut key = id.to_string();
        for (k, v) in fields.iter().filter(|(k, _)| file_field(k)) {
            key.push('\n');
            key.push_str(k);
            key.push('=');
            key.push_str(&set_value(v));
        }
        key
    }

    /// The hardware of one point: its `hw` field, or `default` when the
    /// command has one; loaded once per id and `--set`.
    pub fn point_hardware(&self, fields: &Fields, default: Option<&str>) -> Result<Rc<Hardware>> {
        self.mark_read(true, false);
        let id = match fields.get("hw") {
            Some(serde_json::Value::String(s)) => s.as_str(),
            _ => default.ok_or_else(|| {
                Error::usage(
                    "--hw",
                    "give the hardware: an id (see `roofline hw list`) or a path",
                )
            })?,
        };
        self.cached(
            &self.hw_cache,
            id,
            fields,
            &|k| k.contains('.'),
            |id| self.catalog.read_hardware(id),
            |file, id, sets| self.catalog.hardware_from(file, id, sets),
        )
    }

    /// The engine of one point: its `engine` field (an id or a path), or
    /// the default engine; loaded once per id and `--set engine.*`.
    pub fn point_engine(&self, fields: &Fields) -> Result<std::sync::Arc<Engine>> {
        self.point_engine_or(fields, DEFAULT_ENGINE)
    }

    /// [`Context::point_engine`] with `default` where the point names none
    /// (the serving commands' [`crate::spec::engine::SERVING_ENGINE`]).
    pub fn point_engine_or(
        &self,
        fields: &Fields,
        default: &str,
    ) -> Result<std::sync::Arc<Engine>> {
        self.engine_read.set(true);
        let id = match fields.get("engine") {
            // An empty id is a slip (an unset shell variable), not a
            // request for the default: refused, naming the default.
            Some(serde_json::Value::String(s)) if s.trim().is_empty() => {
                return Err(Error::field(
                    "engine",
                    format!(
                        "an empty engine id; give one (`roofline engine list` names them), or leave it out for {default}"
                    ),
                ));
            }
            Some(serde_json::Value::String(s)) => s.trim(),
            _ => default,
        };
        let engine_field = |k: &str| crate::spec::overrides::is_engine_path(k);
        let key = Self::point_key(id, fields, &engine_field);
        if let Some(e) = self.engine_cache.borrow().get(&key) {
            return Ok(e.clone());
        }
        let sets = self.point_sets(fields, &engine_field)?;
        let e = std::sync::Arc::new(self.catalog.engine(id, &sets)?);
        if self.engine_cache.borrow().len() < MAX_LOADS {
            self.engine_cache.borrow_mut().insert(key, e.clone());
        }
        Ok(e)
    }

    /// Whether an engine file has been read.
    pub fn engine_read(&self) -> bool {
        self.engine_read.get()
    }

    /// The model of one point: its `model` field; loaded once per id and
    /// `--set`.
    pub fn point_model(&self, fields: &Fields) -> Result<Rc<Model>> {
        self.point_model_where(fields, |k| k.contains('.'))
    }

    /// [`Context::point_model`], where the point's fields that
    /// `file_field` picks are `--set`s of the model file (`model show`
    /// takes its top-level fields, `layers`, so).
    pub fn point_model_where(
        &self,
        fields: &Fields,
        file_field: impl Fn(&str) -> bool,
    ) -> Result<Rc<Model>> {
        self.mark_read(false, true);
        let Some(serde_json::Value::String(id)) = fields.get("model") else {
            return Err(Error::usage(
                "--model",
                "give the model: an id (see `roofline model list`) or a path",
            ));
        };
        self.cached(
            &self.model_cache,
            id,
            fields,
            &file_field,
            |id| self.catalog.read_model(id),
            |file, id, sets| self.catalog.model_from(file, id, sets),
        )
    }

    /// A file loaded once per id and per point's `--set`s, its text read
    /// once per id; a failed load is remembered as well as a good one.
    /// At most [`MAX_LOADS`] loads are kept, so a grid of many distinct
    /// `--set`s holds no more than that.
    fn cached<T: 'static>(
        &self,
        cache: &RefCell<HashMap<String, Rc<T>>>,
        id: &str,
        fields: &Fields,
        file_field: &dyn Fn(&str) -> bool,
        read: impl Fn(&str) -> Result<Loaded>,
        load: impl Fn(&Loaded, &str, &[Set]) -> Result<T>,
    ) -> Result<Rc<T>> {
        // Most points add no `--set` of their own: look the id up as it is.
        if !fields.keys().any(|k| file_field(k))
            && let Some(x) = cache.borrow().get(id)
        {
            return Ok(x.clone());
        }
        let key = Self::point_key(id, fields, file_field);
        if let Some(x) = cache.borrow().get(&key) {
            return Ok(x.clone());
        }
        let kind = TypeId::of::<T>();
        let failed_key = (kind, key);
        if let Some(e) = self.failed.borrow().get(&failed_key) {
            return Err(e.clone());
        }
        let sets = self.point_sets(fields, file_field)?;
        let file_key = (kind, id.to_string());
        let file = self.files.borrow().get(&file_key).cloned();
        let file = match file {
            Some(f) => f,
            None => {
                let f = Rc::new(read(id).map_err(|e| blame_set(e, &sets))?);
                self.files.borrow_mut().insert(file_key, f.clone());
                f
            }
        };
        let (_, key) = failed_key;
        match load(&file, id, &sets).map_err(|e| blame_set(e, &sets)) {
            Ok(x) => {
                let x = Rc::new(x);
                if cache.borrow().len() < MAX_LOADS {
                    cache.borrow_mut().insert(key, x.clone());
                }
                Ok(x)
            }
            Err(e) => {
                let mut failed = self.failed.borrow_mut();
                if failed.len() < MAX_LOADS {
                    failed.insert((kind, key), e.clone());
                }
                Err(e)
            }
        }
    }

    /// Fails on a `--set` aimed at a kind of file the command did not read,
    /// and on `--achievable` where no hardware file is read.
    pub fn check_sets_used(&self) -> Result<()> {
        let (hw, model) = self.read.get();
        if self.mode == Mode::Achievable && !hw {
            return Err(Error::usage(
                "--achievable",
                "this command reads no hardware file, so there are no measured figures to use",
            ));
        }
        for s in &self.sets {
            if crate::spec::overrides::is_engine_path(&s.path) {
                if !self.engine_read.get() {
                    return Err(Error::input(
                        "--set",
                        format!(
                            "`{}` is an engine field, and this command prices no step with an engine",
                            s.path
                        ),
                    ));
                }
                continue;
            }
            let for_model = crate::spec::overrides::is_model_path(&s.path);
            if (for_model && !model) || (!for_model && !hw) {
                let why = if for_model {
                    "is a model field, and this command reads no model"
                } else {
                    "is not a model field, and this command reads no hardware file"
                };
                return Err(Error::input("--set", format!("`{}` {why}", s.path)));
            }
        }
        Ok(())
    }

    /// The `--set`s as typed, `path=value, path=value`.
    pub fn sets_text(&self) -> String {
        self.sets
            .iter()
            .map(|s| format!("{}={}", s.path, s.value))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Rejects a result that overflowed to infinity or lost its value.
    pub(crate) fn check_finite(reports: &[Report]) -> Result<()> {
        // serde_json turns an infinite or NaN f64 into null. A count may be
        // null on purpose (no limit), but a time, a size, a rate or a ratio
        // never is.
        const MEASURES: &[&str] = &[
            "_s",
            "bytes",
            "flops",
            "_hz",
            "fraction",
            "speedup",
            "intensity",
            "flop_per_byte",
            "efficiency",
        ];
        fn first_bad<'a>(
            mut pairs: impl Iterator<Item = (&'a Key, &'a serde_json::Value)>,
        ) -> Option<&'a Key> {
            pairs
                .find(|(k, v)| match v {
                    serde_json::Value::Null => MEASURES.iter().any(|m| k.ends_with(m)),
                    serde_json::Value::Number(n) => n.as_f64().is_some_and(|x| !x.is_finite()),
                    _ => false,
                })
                .map(|(k, _)| k)
        }
        for r in reports {
            let found = r
                .flat
                .as_ref()
                .and_then(|f| first_bad(f.pairs()))
                .or_else(|| first_bad(r.results.iter()))
                .or_else(|| r.rows.iter().find_map(|row| first_bad(row.results.iter())));
            if let Some(k) = found {
                return Err(Error::Unsupported(format!(
                    "`{k}` overflowed to infinity; the inputs are too large to compute with"
                )));
            }
        }
        Ok(())
    }

    /// The checks and notes every command's reports get: `--set`s and
    /// `--achievable` actually used, no result overflowed, what-ifs noted.
    pub fn finish(&self, mut reports: Vec<Report>) -> Result<Vec<Report>> {
        self.check_sets_used()?;
        Context::check_finite(&reports)?;
        // What reading a model assumed (a Hugging Face config without
        // num_key_value_heads read as multi-head attention) changes every
        // answer about it, not only `model show`'s.
        let mut assumed: Vec<(String, Vec<String>)> = Vec::new();
        let mut ids = std::collections::BTreeSet::new();
        for m in self.model_cache.borrow().values() {
            ids.insert(m.id.clone());
            if !m.notes.is_empty() && !assumed.iter().any(|(id, _)| *id == m.id) {
                assumed.push((m.id.clone(), m.notes.clone()));
            }
        }
        assumed.sort();
        // Beside other models, the note says which one it is about.
        let several = ids.len() > 1;
        for (id, notes) in &assumed {
            for n in notes {
                let n = if several {
                    format!("{id}: {n}")
                } else {
                    n.clone()
                };
                for r in &mut reports {
                    if !r.notes.contains(&n) {
                        r.note(n.clone());
                    }
                }
            }
        }
        if !self.sets.is_empty() {
            let list = self.sets_text();
            for r in &mut reports {
                r.note(format!("what-if: --set {list} replaces the file's figures"));
            }
        }
        if self.mode == Mode::Achievable {
            self.quote_errors(&mut reports);
        }
        Ok(reports)
    }

    /// Every achievable answer says how good it is: the validated error
    /// of its kind on its part, a calibrated file's held-out error, or that
    /// nothing was measured (`calc::accuracy`).
    fn quote_errors(&self, reports: &mut [Report]) {
        let mut hws: Vec<Rc<Hardware>> = self.hw_cache.borrow().values().cloned().collect();
        hws.sort_by(|a, b| a.id.cmp(&b.id));
        hws.dedup_by(|a, b| a.id == b.id);
        for r in reports.iter_mut() {
            let launch = r.inputs.get("launch").and_then(|v| v.as_str());
            // A tensor-parallel decode step is plan's (calc::decode::tp),
            // validated as plan's are.
            let tp = r.inputs.get("tp").and_then(|v| v.as_u64()).unwrap_or(1);
            let command = if r.command == "decode" && tp > 1 {
                "plan"
            } else {
                r.command.as_str()
            };
            let Some(kind) = crate::calc::accuracy::kind(command, launch) else {
                continue;
            };
            let one = r
                .hardware
                .as_ref()
                .and_then(|id| hws.iter().find(|h| &h.id == id));
            let notes: Vec<String> = match one {
                Some(h) => vec![crate::calc::accuracy::quote(kind, h)],
                None => hws
                    .iter()
                    .map(|h| format!("{}: {}", h.id, crate::calc::accuracy::quote(kind, h)))
                    .collect(),
            };
            for n in notes {
                if !r.notes.contains(&n) {
                    r.note(n);
                }
            }
        }
    }
}

/// Most loads of each kind (good, and failed) a context keeps: as many as
/// a grid may have distinct files (`sweep::MAX_FILES`), so each loads
/// once; a caller evaluating points one by one past that loads the rest
/// afresh rather than hold them all.
const MAX_LOADS: usize = crate::sweep::MAX_FILES;

/// The items of a comma-separated list, trimmed, empty ones dropped.
pub(crate) fn split(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// A `--set` path naming no field of the file is the flag's slip, not the
/// file's: the error names the `--set` as typed, the table and the nearest
/// field (`--set memory.hbm-bandwith=...: no field hbm-bandwith in
/// [memory]; did you mean hbm-bandwidth?`).
pub(crate) fn blame_set(e: Error, sets: &[Set]) -> Error {
    match e {
        Error::At { point, error } => Error::At {
            point,
            error: Box::new(blame_set(*error, sets)),
        },
        Error::Data {
            field: Some(field),
            message,
            file,
            line,
            col,
        } => {
            let unknown = message
                .strip_prefix("unknown field `")
                .and_then(|m| m.split_once('`'));
            let set = sets.iter().rev().find(|s| s.path == field);
            let (Some((name, rest)), Some(set)) = (unknown, set) else {
                return Error::Data {
                    field: Some(field),
                    message,
                    file,
                    line,
                    col,
                };
            };
            // serde lists the fields it expected, each in backticks.
            let known: Vec<&str> = rest
                .split_once("expected")
                .map(|(_, l)| l.split('`').skip(1).step_by(2).collect())
                .unwrap_or_default();
            let table = field
                .rsplit_once('.')
                .map_or("the top level".to_string(), |(t, _)| format!("[{t}]"));
            let hint = match crate::error::nearest(name, known.iter().copied()) {
                Some(n) => format!("; did you mean {n}?"),
                None if !known.is_empty() => format!("; it has {}", known.join(", ")),
                None => String::new(),
            };
            Error::Data {
                file: format!("--set {}={}", set.path, set.value),
                line: None,
                col: None,
                field: None,
                message: format!("no field {name} in {table}{hint}"),
            }
        }
        e => e,
    }
}

/// A swept field's value as a `--set` value: a string as it is, any other
/// JSON value as its text.
fn set_value(v: &serde_json::Value) -> std::borrow::Cow<'_, str> {
    match v.as_str() {
        Some(s) => s.into(),
        None => v.to_string().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_once_and_each_failed_load_kept_once() {
        let ctx = Context::default();
        let mut fields = Fields::new();
        fields.insert("model".into(), "llama-3-8b".into());
        // Two bad values, each met four times; one good value twice.
        for v in ["1EB", "2EB", "1EB", "2EB", "1EB", "2EB", "1EB", "2EB"] {
            fields.insert("compute.dense.bf16".into(), v.into());
            let e = ctx.point_hardware(&fields, Some("h200-sxm")).unwrap_err();
            assert!(e.to_string().contains(&format!("`{v}`")), "{e}");
            assert!(e.to_string().contains("h200-sxm.toml:"), "{e}");
        }
        for _ in 0..2 {
            fields.insert("compute.dense.bf16".into(), "1 PFLOP/s".into());
            let hw = ctx.point_hardware(&fields, Some("h200-sxm")).unwrap();
            assert_eq!(hw.compute.dense.bf16.map(|r| r.get()), Some(1e15));
        }
        assert_eq!(ctx.failed.borrow().len(), 2);
        assert_eq!(ctx.hw_cache.borrow().len(), 1);
        assert_eq!(ctx.files.borrow().len(), 1);
    }
}

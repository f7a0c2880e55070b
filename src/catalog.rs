//! The catalog: built-in hardware and model files embedded in the binary,
//! plus a user's own folders (`--hw-dir`, `ROOFLINE_HW_DIR`, and the model
//! equivalents) and single files by path. Files are parsed only when a query
//! asks for them.

use crate::error::{Error, Result, nearest};
use crate::spec::Origin;
use crate::spec::engine::Engine;
use crate::spec::hardware::Hardware;
use crate::spec::model::Model;
use crate::spec::overrides::{self, Set};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/builtin.rs"));
}

/// The built-in scenarios (`scenarios/*.toml`), as (name, TOML text), by
/// name: `roofline run NAME` runs one from any folder.
pub fn builtin_scenarios() -> &'static [(&'static str, &'static str)] {
    builtin::SCENARIOS
}

/// Where a catalog entry's text lives.
#[derive(Debug, Clone)]
enum Source {
    /// The TOML text, and the JSON copy build.rs made of it where the TOML
    /// loader would accept the file as it stands.
    Builtin(&'static str, Option<&'static str>),
    Text(std::sync::Arc<str>),
    #[cfg(feature = "fs")]
    File(PathBuf),
}

/// One entry, not yet parsed.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The id (the file stem).
    pub id: String,
    source: Source,
}

impl Entry {
    /// `built-in` or the file's path.
    pub fn origin_name(&self, kind: &str) -> String {
        match &self.source {
            Source::Builtin(..) => format!("built-in {kind}/{}.toml", self.id),
            Source::Text(_) => format!("{kind}/{} (given as text)", self.id),
            #[cfg(feature = "fs")]
            Source::File(p) => p.display().to_string(),
        }
    }

    /// The text; a built-in file's is the binary's own, not a copy.
    fn text(&self) -> Result<Cow<'static, str>> {
        match &self.source {
            Source::Builtin(s, _) => Ok(Cow::Borrowed(s)),
            Source::Text(s) => Ok(Cow::Owned(s.to_string())),
            #[cfg(feature = "fs")]
            Source::File(p) => read(p).map(Cow::Owned),
        }
    }
}

#[cfg(feature = "fs")]
fn read(p: &Path) -> Result<String> {
    std::fs::read_to_string(p).map_err(|source| Error::Io {
        path: p.display().to_string(),
        source,
    })
}

/// Without the `fs` feature (the web build) nothing is read from disk.
#[cfg(not(feature = "fs"))]
fn read(p: &Path) -> Result<String> {
    Err(no_files(p))
}

#[cfg(not(feature = "fs"))]
fn no_files(p: &Path) -> Error {
    Error::Io {
        path: p.display().to_string(),
        source: std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "this build reads no files; give the file's text instead",
        ),
    }
}

/// A file found by id must carry that id, so `hw list` and `hw show` agree
/// on what a folder's file is called.
fn same_id(id: &str, asked: &str, file: &str) -> Result<()> {
    if is_path(asked) || id.eq_ignore_ascii_case(asked) {
        return Ok(());
    }
    Err(Error::Data {
        file: file.to_string(),
        line: None,
        col: None,
        field: Some("id".into()),
        message: format!(
            "the file's id `{id}` differs from its file name `{asked}`; rename one to match"
        ),
    })
}

/// What `--explain` cites for a value a `--set` replaced.
fn what_if(s: &Set) -> String {
    format!("what-if: --set {}={}", s.path, s.value)
}

/// The built-in files plus the user's folders.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Extra hardware folders, later ones overriding earlier ones.
    pub hw_dirs: Vec<PathBuf>,
    /// Extra model folders.
    pub model_dirs: Vec<PathBuf>,
    /// What to call a folder in messages: the flag or environment variable
    /// it came from (`--hw-dir`, `ROOFLINE_HW_DIR`). A folder not listed
    /// is named by its path alone.
    pub dir_names: Vec<(PathBuf, String)>,
    /// Hardware files given as text rather than read from disk (pasted
    /// into the web page, edited from Python), as (id, TOML text); they
    /// override built-ins with the same id, and folders override them.
    pub hw_texts: Vec<(String, String)>,
    /// Model files given as text, as (id, text): TOML, or a Hugging Face
    /// `config.json` when the id ends in `.json`.
    pub model_texts: Vec<(String, String)>,
    /// Extra engine folders (`--engine-dir`, `ROOFLINE_ENGINE_DIR`).
    pub engine_dirs: Vec<PathBuf>,
    /// Engine files given as text, as (id, TOML text).
    pub engine_texts: Vec<(String, String)>,
}

/// The id among `ids` a mistyped `wanted` most likely means. Ids are
/// compared lowercased; an id holding every dash- or dot-separated part of
/// `wanted`, in order (`llama-3-70b` in `llama-3.1-70b`), is preferred to
/// one a few edits away (`llama-2-7b`), the shortest such first.
pub fn suggest<'a>(wanted: &str, ids: impl IntoIterator<Item = &'a str> + Clone) -> Option<String> {
    let wanted = wanted.to_ascii_lowercase();
    let parts = |s: &str| -> Vec<String> {
        s.split(['-', '.', '_'])
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    let want = parts(&wanted);
    let holds = |id: &str| {
        let have = parts(id);
        let mut it = have.iter();
        !want.is_empty() && want.iter().all(|w| it.any(|h| h == w))
    };
    let best = ids
        .clone()
        .into_iter()
        .filter(|id| holds(&id.to_ascii_lowercase()))
        .min_by_key(|id| id.len());
    if let Some(b) = best {
        return Some(b.to_string());
    }
    let lower: Vec<String> = ids.into_iter().map(str::to_ascii_lowercase).collect();
    nearest(&wanted, lower.iter().map(String::as_str))
}

/// Whether `what` is written as a Hugging Face repository is
/// (`meta-llama/Meta-Llama-3-8B`): one `owner/name`, no file extension,
/// not a relative or absolute path.
fn looks_like_a_repo(what: &str) -> bool {
    let Some((owner, name)) = what.split_once('/') else {
        return false;
    };
    !owner.is_empty()
        && !name.is_empty()
        && !name.contains('/')
        && !what.contains('\\')
        && !owner.starts_with(['.', '~'])
        && !what.ends_with(".toml")
        && !what.ends_with(".json")
}

/// The `n` ids among `ids` nearest to a repository's name (`owner/name`):
/// most dash- or dot-separated parts in common with the name, lowercased,
/// then the closest in length.
pub fn nearest_ids<'a>(wanted: &str, ids: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<String> {
    let name = wanted.rsplit('/').next().unwrap_or(wanted).to_ascii_lowercase();
    let parts = |s: &str| -> Vec<String> {
        s.to_ascii_lowercase()
            .split(['-', '.', '_'])
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    let want = parts(&name);
    let mut scored: Vec<(usize, usize, &str)> = ids
        .into_iter()
        .map(|id| {
            let shared = parts(id).iter().filter(|p| want.contains(p)).count();
            (shared, id.len().abs_diff(name.len()), id)
        })
        .filter(|(shared, _, _)| *shared > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(b.2)));
    scored.into_iter().take(n).map(|(_, _, id)| id.to_string()).collect()
}

fn entries(
    builtin: &'static [(&'static str, &'static str, Option<&'static str>)],
    texts: &[(String, String)],
    dirs: &[PathBuf],
    names: &[(PathBuf, String)],
) -> Result<Vec<Entry>> {
    let mut out: Vec<Entry> = builtin
        .iter()
        .map(|(id, text, json)| Entry {
            id: (*id).to_string(),
            source: Source::Builtin(text, *json),
        })
        .collect();
    for (id, text) in texts {
        out.retain(|e| e.id != *id);
        out.push(Entry {
            id: id.clone(),
            source: Source::Text(text.as_str().into()),
        });
    }
    #[cfg(not(feature = "fs"))]
    if let Some(dir) = dirs.first() {
        let _ = names;
        return Err(no_files(dir));
    }
    #[cfg(feature = "fs")]
    for dir in dirs {
        let rd = std::fs::read_dir(dir).map_err(|source| {
            let from = names
                .iter()
                .find(|(p, _)| p == dir)
                .map_or(String::new(), |(_, n)| format!(" (the folder {n} names)"));
            Error::Io {
                path: format!("{}{from}", dir.display()),
                source,
            }
        })?;
        let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
        files.sort();
        for p in files {
            let Some(id) = p.file_stem().and_then(|s| s.to_str()).map(String::from) else {
                continue;
            };
            out.retain(|e| e.id != id);
            out.push(Entry {
                id,
                source: Source::File(p),
            });
        }
    }
    Ok(out)
}

/// Whether a `--hw`/`--model` value is a path rather than an id.
pub fn is_path(s: &str) -> bool {
    s.contains('/') || s.contains('\\') || s.ends_with(".toml") || s.ends_with(".json")
}

impl Catalog {
    /// Hardware entries: built-in, then the user's folders.
    pub fn hardware_entries(&self) -> Result<Vec<Entry>> {
        entries(
            builtin::HARDWARE,
            &self.hw_texts,
            &self.hw_dirs,
            &self.dir_names,
        )
    }

    /// Model entries: built-in, then the user's folders.
    pub fn model_entries(&self) -> Result<Vec<Entry>> {
        entries(
            builtin::MODELS,
            &self.model_texts,
            &self.model_dirs,
            &self.dir_names,
        )
    }

    /// Engine entries: built-in, then the user's folders.
    pub fn engine_entries(&self) -> Result<Vec<Entry>> {
        entries(
            builtin::ENGINES,
            &self.engine_texts,
            &self.engine_dirs,
            &self.dir_names,
        )
    }

    /// Loads an engine by id or path, applying the `--set engine.KEY=VALUE`
    /// overrides (the `engine.` prefix taken off).
    pub fn engine(&self, what: &str, sets: &[Set]) -> Result<Engine> {
        let (text, name) =
            if let Some((id, text)) = self.engine_texts.iter().find(|(id, _)| id == what) {
                (
                    Cow::Owned(text.clone()),
                    format!("engines/{id} (given as text)"),
                )
            } else if is_path(what) {
                let p = Path::new(what);
                (Cow::Owned(read(p)?), p.display().to_string())
            } else {
                let e = self.find("engine", self.engine_entries()?, what)?;
                (e.text()?, e.origin_name("engines"))
            };
        let mine: Vec<Set> = sets
            .iter()
            .filter(|s| overrides::is_engine_path(&s.path))
            .map(|s| Set {
                path: s.path["engine.".len().min(s.path.len())..].to_string(),
                value: s.value.clone(),
            })
            .collect();
        let refs: Vec<&Set> = mine.iter().collect();
        let origin = Origin {
            name: name.clone(),
            overridden: !refs.is_empty(),
        };
        let src = overrides::apply(&text, &name, &refs)?;
        let set_paths: Vec<&str> = mine.iter().map(|s| s.path.as_str()).collect();
        let mut e = Engine::parse_with(&src, &origin, &set_paths).map_err(|e| match e {
            // A field a --set added to the file names the --set.
            Error::Data {
                field: Some(f),
                message,
                ..
            } if mine.iter().any(|s| s.path == f) && message.contains("unknown field") => {
                Error::Data {
                    file: format!("--set engine.{f}"),
                    line: None,
                    col: None,
                    field: None,
                    message: format!("no field {f} in the engine file ({message})"),
                }
            }
            e => e,
        })?;
        same_id(&e.id, what, &name)?;
        for s in &mine {
            e.sources.insert(
                s.path.clone(),
                format!("what-if: --set engine.{}={}", s.path, s.value),
            );
        }
        Ok(e)
    }

    fn find(&self, kind: &'static str, list: Vec<Entry>, id: &str) -> Result<Entry> {
        // Ids are matched without regard to case (`H100-SXM`); an exact
        // match wins where two files differ only in case.
        if let Some(e) = list
            .iter()
            .find(|e| e.id == id)
            .or_else(|| list.iter().find(|e| e.id.eq_ignore_ascii_case(id)))
        {
            return Ok(e.clone());
        }
        let ids: Vec<String> = list.iter().map(|e| e.id.clone()).collect();
        Err(Error::UnknownId {
            kind,
            id: id.into(),
            suggestion: suggest(id, ids.iter().map(String::as_str)),
            available: ids,
        })
    }

    fn text(&self, kind: &'static str, what: &str) -> Result<(Cow<'static, str>, String)> {
        self.load(kind, what).map(|l| (l.text, l.name))
    }

    /// A file, unparsed: its text, the name messages give it, and a
    /// built-in file's JSON copy.
    fn load(&self, kind: &'static str, what: &str) -> Result<Loaded> {
        // A text given by id (`my-gpu`, `config.json`) is found before a
        // path of the same name would be read.
        let texts = if kind == "hardware" {
            &self.hw_texts
        } else {
            &self.model_texts
        };
        if let Some((id, text)) = texts.iter().find(|(id, _)| id == what) {
            return Ok(Loaded::new(
                Cow::Owned(text.clone()),
                format!("{kind}/{id} (given as text)"),
                Vec::new(),
            ));
        }
        if is_path(what) {
            let p = Path::new(what);
            if kind == "models" && looks_like_a_repo(what) && !p.exists() {
                let list = self.model_entries()?;
                return Err(Error::NotAModel {
                    id: what.to_string(),
                    nearest: nearest_ids(what, list.iter().map(|e| e.id.as_str()), 3),
                });
            }
            return Ok(Loaded::new(
                Cow::Owned(read(p)?),
                p.display().to_string(),
                Vec::new(),
            ));
        }
        let list = if kind == "hardware" {
            self.hardware_entries()?
        } else {
            self.model_entries()?
        };
        let e = self.find(
            if kind == "hardware" {
                "hardware"
            } else {
                "model"
            },
            list,
            what,
        )?;
        let mut loaded = Loaded::new(e.text()?, e.origin_name(kind), Vec::new());
        if let Source::Builtin(_, json) = e.source {
            loaded.json = json;
        }
        Ok(loaded)
    }

    /// A hardware file's text and the name messages give it, by id or
    /// path (`calibrate` writes a new file from its base's text).
    pub fn hardware_text(&self, what: &str) -> Result<(String, String)> {
        self.text("hardware", what)
            .map(|(text, name)| (text.into_owned(), name))
    }

    /// A model file's text and the name messages give it, by id or path
    /// (`calc` reads its fields).
    pub fn model_text(&self, what: &str) -> Result<(String, String)> {
        self.text("models", what)
            .map(|(text, name)| (text.into_owned(), name))
    }

    /// A commented template for a user's own file, made from a catalog
    /// entry or file (`kind` is `hw` or `model`): `hw new --from ID`. The
    /// source is parsed first, so a template is only made from a file that
    /// loads.
    pub fn template(&self, kind: &str, from: &str) -> Result<String> {
        let (src, _) = if kind == "hw" {
            self.hardware(from, &[])?;
            self.text("hardware", from)?
        } else {
            if from.ends_with(".json") {
                return Err(Error::input(
                    "--from",
                    "make a template from a model .toml or a catalog id; a config.json is read as it is (`model show path/to/config.json`)",
                ));
            }
            self.model(from, &[])?;
            self.text("models", from)?
        };
        Ok(crate::spec::template::make(kind, &src, from))
    }

    /// Loads hardware by id or path, applying the hardware `--set`s.
    pub fn hardware(&self, what: &str, sets: &[Set]) -> Result<Hardware> {
        self.hardware_from(&self.read_hardware(what)?, what, sets)
    }

    /// A hardware file by id or path, read and parsed once, for
    /// [`Catalog::hardware_from`].
    pub fn read_hardware(&self, what: &str) -> Result<Loaded> {
        self.load("hardware", what)
    }

    /// The hardware of a file [`Catalog::read_hardware`] read, applying the
    /// hardware `--set`s: to the parsed tree where that can follow the
    /// text exactly and the result is valid, else to the text, which also
    /// names any error.
    pub fn hardware_from(&self, file: &Loaded, what: &str, sets: &[Set]) -> Result<Hardware> {
        let mine: Vec<&Set> = sets
            .iter()
            .filter(|s| overrides::is_hardware_path(&s.path))
            .collect();
        let origin = Origin {
            name: file.name.clone(),
            overridden: !mine.is_empty(),
        };
        // A measured figure given with --set is checked against the
        // datasheet like one in a file (a datasheet what-if alone is not).
        let measured = mine.iter().any(|s| s.path.starts_with("achievable"));
        let fast = file
            .json(&mine)
            .and_then(|json| Hardware::from_json(json, &origin))
            .or_else(|| {
                let hw = Hardware::from_tree(file.tree(&mine)?, &origin)?;
                (!measured || hw.check_measured("", &origin).is_ok()).then_some(hw)
            });
        let mut hw = match fast {
            Some(hw) => hw,
            None => {
                let src = file.applied(&mine)?;
                let hw = Hardware::parse(&src, &origin).map_err(|e| new_table(e, file, &mine))?;
                if measured {
                    hw.check_measured(&src, &origin)?;
                }
                hw
            }
        };
        same_id(&hw.id, what, &file.name)?;
        for s in mine {
            hw.sources.insert(s.path.clone(), what_if(s));
        }
        Ok(hw)
    }

    /// Loads a model by id or path (a `.toml` model file, or a Hugging Face
    /// `config.json`), applying the model `--set`s.
    pub fn model(&self, what: &str, sets: &[Set]) -> Result<Model> {
        self.model_from(&self.read_model(what)?, what, sets)
    }

    /// A model file by id or path, read (a `config.json` imported) and
    /// parsed once, for [`Catalog::model_from`].
    pub fn read_model(&self, what: &str) -> Result<Loaded> {
        let loaded = self.load("models", what)?;
        if what.ends_with(".json") {
            let i = crate::spec::hf::import(&loaded.text, &loaded.name)?;
            Ok(Loaded::new(i.toml.into(), loaded.name, i.notes))
        } else {
            Ok(loaded)
        }
    }

    /// The model of a file [`Catalog::read_model`] read, applying the model
    /// `--set`s as [`Catalog::hardware_from`] does.
    pub fn model_from(&self, file: &Loaded, what: &str, sets: &[Set]) -> Result<Model> {
        // A `model.` prefix only routes the key; the file's path follows it.
        let owned: Vec<Set> = sets
            .iter()
            .filter(|s| overrides::is_model_path(&s.path))
            .map(|s| Set {
                path: overrides::file_path(&s.path).to_string(),
                value: s.value.clone(),
            })
            .collect();
        let mine: Vec<&Set> = owned.iter().collect();
        let imported = what.ends_with(".json");
        let origin = Origin {
            name: file.name.clone(),
            overridden: !mine.is_empty(),
        };
        let fast = file
            .json(&mine)
            .and_then(|json| Model::from_json(json, &origin))
            .or_else(|| Model::from_tree(file.tree(&mine)?, &origin));
        let mut m = match fast {
            Some(m) => m,
            None => {
                let src = file.applied(&mine)?;
                Model::parse(&src, &origin)
                    .map_err(|e| new_table(e, file, &mine))
                    .map_err(|e| match e {
                        // Lines of the TOML made from a config.json mean
                        // nothing to the user: name the model field instead.
                        Error::Data {
                            file,
                            field,
                            message,
                            ..
                        } if imported => Error::Data {
                            file,
                            line: None,
                            col: None,
                            field,
                            message: format!("{message} (in the model imported from this config)"),
                        },
                        other => other,
                    })?
            }
        };
        same_id(&m.id, what, &file.name)?;
        m.notes.extend(file.notes.iter().cloned());
        for s in mine {
            m.sources.insert(s.path.clone(), what_if(s));
        }
        Ok(m)
    }
}

/// A data file read once: its text (for a `config.json`, the TOML made
/// from it), the name messages give it, what importing it assumed, and its
/// parsed tree, so each point of a sweep applies its own `--set`s without
/// reading or parsing the file again.
#[derive(Debug, Clone)]
pub struct Loaded {
    text: Cow<'static, str>,
    name: String,
    notes: Vec<String>,
    /// A built-in file's JSON copy (build.rs), read in place of the text
    /// by a load without `--set`s.
    json: Option<&'static str>,
    /// Parsed at the first load that has `--set`s (a query without any
    /// parses the text once, as before); `None` where the text does not
    /// parse: every load then goes through the text, which names the error.
    tree: std::sync::OnceLock<Option<toml::Table>>,
    /// The text as a document `--set`s are applied to, parsed at the first
    /// load that needs it.
    doc: std::sync::OnceLock<Result<toml_edit::DocumentMut>>,
}

impl Loaded {
    fn new(text: Cow<'static, str>, name: String, notes: Vec<String>) -> Self {
        Loaded {
            text,
            name,
            notes,
            json: None,
            tree: std::sync::OnceLock::new(),
            doc: std::sync::OnceLock::new(),
        }
    }

    /// The JSON copy, for a load without `sets`.
    fn json(&self, sets: &[&Set]) -> Option<&'static str> {
        // The web module (which has a size budget) reads the TOML, without
        // the JSON reader's code for the file types; build.rs makes it no
        // copies.
        if cfg!(target_arch = "wasm32") {
            return None;
        }
        self.json.filter(|_| sets.is_empty())
    }

    /// The text with `sets` applied (`overrides::apply`), its document
    /// parsed once.
    fn applied(&self, sets: &[&Set]) -> Result<Cow<'_, str>> {
        if sets.is_empty() {
            return Ok(Cow::Borrowed(&self.text));
        }
        let doc = self
            .doc
            .get_or_init(|| overrides::parse(&self.text, &self.name));
        overrides::apply_to_doc(doc.as_ref().map_err(Clone::clone)?.clone(), sets).map(Cow::Owned)
    }

    /// Whether the file itself has the table at a dotted path.
    fn has_table(&self, path: &str) -> bool {
        let doc = self
            .doc
            .get_or_init(|| overrides::parse(&self.text, &self.name));
        doc.as_ref().is_ok_and(|doc| {
            let mut item = doc.as_item();
            path.split('.').all(|part| match item.get(part) {
                Some(next) => {
                    item = next;
                    true
                }
                None => false,
            })
        })
    }

    /// A copy of the tree with `sets` applied, where they are some and the
    /// tree can take them as the text would (`overrides::apply_to_tree`).
    fn tree(&self, sets: &[&Set]) -> Option<toml::Table> {
        if sets.is_empty() {
            return None;
        }
        let mut tree = self
            .tree
            .get_or_init(|| toml::from_str(&self.text).ok())
            .clone()?;
        overrides::apply_to_tree(&mut tree, sets)?;
        Some(tree)
    }
}

/// A field missing from a table that only a `--set` made (`--set
/// execution.sms=10` on a TPU, whose file has no `[execution]`): say so,
/// rather than blame the field as if the file had left it out.
fn new_table(e: Error, loaded: &Loaded, sets: &[&Set]) -> Error {
    let Error::Data {
        file,
        line,
        col,
        field: Some(field),
        message,
    } = e
    else {
        return e;
    };
    let table = field.rsplit_once('.').map(|(t, _)| t.to_string());
    let made = table.as_deref().filter(|t| {
        !loaded.has_table(t) && sets.iter().any(|s| s.path.starts_with(&format!("{t}.")))
    });
    match made {
        // The line would be one of the made table's, not the file's.
        Some(t) if message.starts_with("missing") => Error::Data {
            file,
            line: None,
            col: None,
            field: Some(field),
            message: format!(
                "missing: the file has no [{t}] table, so the --set made one holding only what it sets, and the table needs this field too (docs/data-schemas.md)"
            ),
        },
        _ => Error::Data {
            file,
            line,
            col,
            field: Some(field),
            message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_id_suggests_the_nearest() {
        let e = Catalog::default().hardware("h100-smx", &[]).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("did you mean `h100-sxm`"), "{msg}");
        assert_eq!(e.exit_code(), 65);
    }

    /// Every built-in hardware and model file has a JSON copy, and loads
    /// from it to the value its TOML gives, bit for bit (the Debug form
    /// prints each float's shortest exact digits and each map in order).
    #[test]
    fn built_in_files_load_from_their_json_copies_as_from_their_text() {
        let origin = |kind: &str, id: &str| Origin {
            name: format!("built-in {kind}/{id}.toml"),
            overridden: false,
        };
        for (id, text, json) in builtin::HARDWARE {
            let json = json.unwrap_or_else(|| panic!("hardware/{id}.toml has no JSON copy"));
            let o = origin("hardware", id);
            let fast = Hardware::from_json(json, &o).expect("loads from JSON");
            let slow = Hardware::parse(text, &o).expect("loads from TOML");
            assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "hardware/{id}");
        }
        for (id, text, json) in builtin::MODELS {
            let json = json.unwrap_or_else(|| panic!("models/{id}.toml has no JSON copy"));
            let o = origin("models", id);
            let fast = Model::from_json(json, &o).expect("loads from JSON");
            let slow = Model::parse(text, &o).expect("loads from TOML");
            assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "models/{id}");
        }
        assert!(builtin::HARDWARE.len() > 10 && builtin::MODELS.len() > 5);
    }

    /// A load through the catalog takes the JSON copy only without
    /// `--set`s; a `--set` goes through the TOML as before.
    #[test]
    fn the_json_copy_serves_loads_without_sets() {
        let cat = Catalog::default();
        let file = cat.read_hardware("h200-sxm").unwrap();
        assert!(file.json(&[]).is_some());
        let set = Set {
            path: "memory.hbm-bandwidth".into(),
            value: "1 TB/s".into(),
        };
        assert!(file.json(&[&set]).is_none());
        let hw = cat.hardware_from(&file, "h200-sxm", &[set]).unwrap();
        assert_eq!(hw.memory.hbm_bandwidth.map(|b| b.get()), Some(1e12));
        assert!(cat.read_model("llama-3-8b").unwrap().json(&[]).is_some());
    }

    /// The file with its tree set aside, so every load goes through the
    /// text: the path every load took before trees were kept.
    fn text_only(mut f: Loaded) -> Loaded {
        f.tree = std::sync::OnceLock::from(None);
        f
    }

    fn outcome<T: std::fmt::Debug>(r: Result<T>) -> String {
        match r {
            Ok(x) => format!("{x:?}"),
            Err(e) => format!("error {}: {e}", e.exit_code()),
        }
    }

    #[test]
    fn sets_applied_to_the_tree_load_what_the_text_loads() {
        let c = Catalog::default();
        let hw_sets = [
            "memory.hbm-bandwidth=4.8 TB/s",
            "compute.dense.bf16=1 PFLOP/s",
            "compute.dense.bf16=1e308EB",
            "compute.dense.bf16=-3 TB/s",
            "memory.hbm-bandwith=1 TB/s",
            "execution.sms=10",
            "execution.sms=0",
            "execution.sms=18446744073709551615",
            "power.idle=100 W",
            "sources.memory.hbm-bandwidth=a what-if",
            "achievable.hbm-bandwidth=4 TB/s",
            "achievable.hbm-bandwidth=40 TB/s",
            "achievable.gemm.tiles=[\"128x64\", \"64x8\"]",
            "interconnect.0.domain-size=72",
            "default-dtype=fp8",
            "launch={ eager = \"5 us\" }",
            "memory.levels=1",
        ];
        let model_sets = [
            "layers=40",
            "layers=0",
            "attention.kv-heads=4",
            "attention.kv-heads=5",
            "hidden-size=1e308",
            "max-context=1_000",
            "sliding-window=4096",
            "moe.experts=8",
            "weight-dtype=fp8",
            "weight-dtype=fp7",
        ];
        let mut took_tree = 0;
        for e in c.hardware_entries().unwrap() {
            let f = c.read_hardware(&e.id).unwrap();
            let slow = text_only(f.clone());
            for set in hw_sets {
                let sets = [set.parse::<Set>().unwrap()];
                let a = outcome(c.hardware_from(&f, &e.id, &sets));
                let b = outcome(c.hardware_from(&slow, &e.id, &sets));
                assert_eq!(a, b, "{} with --set {set}", e.id);
                took_tree += usize::from(f.tree(&[&sets[0]]).is_some());
            }
        }
        for e in c.model_entries().unwrap() {
            let f = c.read_model(&e.id).unwrap();
            let slow = text_only(f.clone());
            for pair in model_sets.windows(2) {
                let sets: Vec<Set> = pair.iter().map(|s| s.parse().unwrap()).collect();
                let a = outcome(c.model_from(&f, &e.id, &sets));
                let b = outcome(c.model_from(&slow, &e.id, &sets));
                assert_eq!(a, b, "{} with --set {pair:?}", e.id);
            }
        }
        // The comparison means something only if most loads took the tree.
        assert!(
            took_tree > 10 * c.hardware_entries().unwrap().len(),
            "{took_tree}"
        );
    }

    #[test]
    fn every_builtin_file_loads() {
        let c = Catalog::default();
        for e in c.hardware_entries().unwrap() {
            let hw = c.hardware(&e.id, &[]).unwrap_or_else(|err| panic!("{err}"));
            assert_eq!(hw.id, e.id, "id must match the file name");
        }
        for e in c.model_entries().unwrap() {
            let m = c.model(&e.id, &[]).unwrap_or_else(|err| panic!("{err}"));
            assert_eq!(m.id, e.id, "id must match the file name");
        }
    }
}

//! The catalog: built-in hardware and model files embedded in the binary,
//! plus a user's own folders (`--hw-dir`, `ROOFLINE_HW_DIR`, and the model
//! equivalents) and single files by path. Files are parsed only when a query
//! asks for them.

use crate::error::{Error, Result, nearest};
use crate::spec::Origin;
use crate::spec::hardware::Hardware;
use crate::spec::model::Model;
use crate::spec::overrides::{self, Set};
use std::path::{Path, PathBuf};

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/builtin.rs"));
}

/// Where a catalog entry's text lives.
#[derive(Debug, Clone)]
enum Source {
    Builtin(&'static str),
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
            Source::Builtin(_) => format!("built-in {kind}/{}.toml", self.id),
            Source::Text(_) => format!("{kind}/{} (given as text)", self.id),
            #[cfg(feature = "fs")]
            Source::File(p) => p.display().to_string(),
        }
    }

    fn text(&self) -> Result<String> {
        match &self.source {
            Source::Builtin(s) => Ok((*s).to_string()),
            Source::Text(s) => Ok(s.to_string()),
            #[cfg(feature = "fs")]
            Source::File(p) => read(p),
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

fn entries(
    builtin: &'static [(&'static str, &'static str)],
    texts: &[(String, String)],
    dirs: &[PathBuf],
    names: &[(PathBuf, String)],
) -> Result<Vec<Entry>> {
    let mut out: Vec<Entry> = builtin
        .iter()
        .map(|(id, text)| Entry {
            id: (*id).to_string(),
            source: Source::Builtin(text),
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

    fn text(&self, kind: &'static str, what: &str) -> Result<(String, String)> {
        // A text given by id (`my-gpu`, `config.json`) is found before a
        // path of the same name would be read.
        let texts = if kind == "hardware" {
            &self.hw_texts
        } else {
            &self.model_texts
        };
        if let Some((id, text)) = texts.iter().find(|(id, _)| id == what) {
            return Ok((text.clone(), format!("{kind}/{id} (given as text)")));
        }
        if is_path(what) {
            let p = Path::new(what);
            return Ok((read(p)?, p.display().to_string()));
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
        Ok((e.text()?, e.origin_name(kind)))
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
        let (src, name) = self.text("hardware", what)?;
        let mine: Vec<&Set> = sets
            .iter()
            .filter(|s| !overrides::is_model_path(&s.path))
            .collect();
        let original = src;
        let src = overrides::apply(&original, &mine)?;
        let origin = Origin {
            name: name.clone(),
            overridden: !mine.is_empty(),
        };
        let mut hw = Hardware::parse(&src, &origin).map_err(|e| new_table(e, &original, &mine))?;
        // A measured figure given with --set is checked against the
        // datasheet like one in a file (a datasheet what-if alone is not).
        if mine.iter().any(|s| s.path.starts_with("achievable")) {
            hw.check_measured(&src, &origin)?;
        }
        same_id(&hw.id, what, &name)?;
        for s in mine {
            hw.sources.insert(s.path.clone(), what_if(s));
        }
        Ok(hw)
    }

    /// Loads a model by id or path (a `.toml` model file, or a Hugging Face
    /// `config.json`), applying the model `--set`s.
    pub fn model(&self, what: &str, sets: &[Set]) -> Result<Model> {
        let (src, name) = self.text("models", what)?;
        let mine: Vec<&Set> = sets
            .iter()
            .filter(|s| overrides::is_model_path(&s.path))
            .collect();
        let (src, notes) = if what.ends_with(".json") {
            let i = crate::spec::hf::import(&src, &name)?;
            (i.toml, i.notes)
        } else {
            (src, Vec::new())
        };
        let original = src;
        let src = overrides::apply(&original, &mine)?;
        let imported = what.ends_with(".json");
        let m = Model::parse(
            &src,
            &Origin {
                name: name.clone(),
                overridden: !mine.is_empty(),
            },
        )
        .map_err(|e| new_table(e, &original, &mine))
        .map_err(|e| match e {
            // Lines of the TOML made from a config.json mean nothing to the
            // user: name the model field instead.
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
        })?;
        same_id(&m.id, what, &name)?;
        let mut m = m;
        m.notes.extend(notes);
        for s in mine {
            m.sources.insert(s.path.clone(), what_if(s));
        }
        Ok(m)
    }
}

/// A field missing from a table that only a `--set` made (`--set
/// execution.sms=10` on a TPU, whose file has no `[execution]`): say so,
/// rather than blame the field as if the file had left it out.
fn new_table(e: Error, original: &str, sets: &[&Set]) -> Error {
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
        let had = original
            .parse::<toml_edit::DocumentMut>()
            .ok()
            .is_some_and(|doc| {
                let mut item = doc.as_item();
                t.split('.').all(|part| match item.get(part) {
                    Some(next) => {
                        item = next;
                        true
                    }
                    None => false,
                })
            });
        !had && sets.iter().any(|s| s.path.starts_with(&format!("{t}.")))
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

//! The `simulate` command that checks a plan: the search's own model,
//! parts, workload, precisions, caps, prices, `--set`s and mode, with the
//! plan's layout, so that typing it runs the deployment the verdict ran
//! (formulas.md, "Fleet: the check command").

use crate::inputs::Fields;
use crate::spec::hardware::Mode;
use serde_json::Value;

/// How the search's inputs were named, for the check command: set by the
/// layer that reads the fields ([`crate::query`]); a library caller that
/// leaves it empty gets the model's and parts' ids and no extra flags.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Check {
    /// The model as given (an id or a path).
    pub model: Option<String>,
    /// Each part as given, by its id.
    pub parts: Vec<(String, String)>,
    /// Flags `simulate` takes beside the layout and the workload, as
    /// typed: (`dtype`, Some("fp8")), (`force`, None).
    pub flags: Vec<(String, Option<String>)>,
    /// `--set PATH=VALUE`s, as typed.
    pub sets: Vec<String>,
    /// `--achievable`.
    pub mode: Mode,
    /// The user's folders the search read files from, as (flag, path):
    /// (`hw-dir`, "my-parts"), (`engine-dir`, "engines"), so that the
    /// check finds the same hardware, model and engine files.
    pub dirs: Vec<(String, String)>,
}

/// The fields the check command writes itself (from the workload and the
/// plan), or that are the search's own.
const WRITTEN: &[&str] = &[
    "rate", "prompt", "output", "slo-ttft", "slo-tpot", "requests", "seed", "parts", "hw", "model",
];

impl Check {
    /// The check's names from a point's fields (the search's fields, its
    /// own among them), the `--set`s and the mode; `parts` pairs each
    /// part's id with its name as given.
    pub fn of(
        fields: &Fields,
        sets: &[crate::spec::overrides::Set],
        mode: Mode,
        parts: Vec<(String, String)>,
    ) -> Self {
        let mut flags = Vec::new();
        let mut dotted = Vec::new();
        for (k, v) in fields {
            if k.contains('.') {
                dotted.push(format!("{k}={}", text(v)));
                continue;
            }
            if WRITTEN.contains(&k.as_str()) || super::OWN_FIELDS.contains(&k.as_str()) {
                continue;
            }
            match v {
                Value::Bool(true) => flags.push((k.clone(), None)),
                Value::Bool(false) | Value::Null => {}
                v => flags.push((k.clone(), Some(text(v)))),
            }
        }
        let mut all: Vec<String> = sets
            .iter()
            .map(|s| format!("{}={}", s.path, s.value))
            .collect();
        all.extend(dotted);
        Check {
            model: fields
                .get("model")
                .and_then(Value::as_str)
                .map(String::from),
            parts,
            flags,
            sets: all,
            mode,
            dirs: Vec::new(),
        }
    }

    /// The check with the user's folders: each hardware, model and engine
    /// folder of the catalog the search read, flag by flag.
    pub fn with_dirs(mut self, catalog: &crate::catalog::Catalog) -> Self {
        for (flag, dirs) in [
            ("hw-dir", &catalog.hw_dirs),
            ("model-dir", &catalog.model_dirs),
            ("engine-dir", &catalog.engine_dirs),
        ] {
            for d in dirs {
                self.dirs
                    .push((flag.to_string(), d.to_string_lossy().into_owned()));
            }
        }
        self
    }

    /// A part's name as given (its id when none was recorded).
    pub fn part<'a>(&'a self, id: &'a str) -> &'a str {
        self.parts
            .iter()
            .find(|(i, _)| i == id)
            .map_or(id, |(_, g)| g.as_str())
    }

    /// The check with `--reserve step` made `--reserve step:TOKENS,SEQS`:
    /// the search's largest iteration, which it held back on every plan,
    /// where the plan's own caps would hold back less.
    pub fn with_step(mut self, (tokens, seqs): (u64, u64)) -> Self {
        for (k, v) in &mut self.flags {
            if k == "reserve"
                && let Some(text) = v
                && matches!(
                    crate::calc::plan::step_reserve(&Value::from(text.as_str())),
                    Ok(Some(None))
                )
            {
                *v = Some(format!("step:{tokens},{seqs}"));
            }
        }
        self
    }

    /// The extra flags, `--set`s and mode as command-line words, the
    /// price replaced by `price` where the search priced each part apart.
    pub fn words(&self, price: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        for (k, v) in &self.flags {
            let v = match (k.as_str(), price) {
                ("price", Some(p)) => Some(p.to_string()),
                _ => v.clone(),
            };
            out.push(format!("--{k}"));
            if let Some(v) = v {
                out.push(v);
            }
        }
        if price.is_some() && !self.flags.iter().any(|(k, _)| k == "price") {
            out.push("--price".into());
            out.push(price.unwrap_or_default().into());
        }
        for s in &self.sets {
            out.push("--set".into());
            out.push(s.clone());
        }
        if self.mode == Mode::Achievable {
            out.push("--achievable".into());
        }
        for (flag, dir) in &self.dirs {
            out.push(format!("--{flag}"));
            out.push(dir.clone());
        }
        out
    }
}

/// A field's value as typed.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join(","),
        v => v.to_string(),
    }
}

/// A word as a POSIX shell reads it back: bare when it holds only safe
/// characters, else in single quotes.
pub fn quote(w: &str) -> String {
    let safe = !w.is_empty()
        && w.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '/' | ':' | ',' | '=' | '%' | '+' | '@')
        });
    if safe {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// Splits a line [`quote`] wrote back into its words.
pub fn split(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut any = false;
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            '\\' if !quoted => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                    any = true;
                }
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_split_back_to_themselves() {
        let words = [
            "--set",
            "memory.hbm-bandwidth=4.8 TB/s",
            "it's",
            "--dtype",
            "fp8",
            "a\"b",
        ];
        let line = words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
        assert_eq!(split(&line), words);
    }
}

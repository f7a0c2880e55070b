//! The library's error type and the exit code each kind of error maps to.
//!
//! Exit codes (documented in `docs/cli.md`): 0 success (including answers
//! that say no), 1 a question with no answer, 2 bad usage, 65 bad data,
//! 74 an I/O failure.

use std::fmt;

/// Everything that can go wrong between reading input and producing a report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or value that does not validate: malformed TOML, an unknown
    /// field, a wrong unit, a value out of range.
    #[error("{}", data_message(file, *line, *col, field.as_deref(), message))]
    Data {
        /// The file (or `--set`, or the flag) the value came from.
        file: String,
        /// 1-based line, where known.
        line: Option<usize>,
        /// 1-based column, where known.
        col: Option<usize>,
        /// The kebab-case field path, where known.
        field: Option<String>,
        /// What was wrong and what was expected.
        message: String,
    },
    /// An id that is not in the catalog.
    #[error("unknown {kind} `{}`{}; available: {}", crate::units::excerpt(id, 40), suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default(), available.join(", "))]
    UnknownId {
        /// `hardware` or `model`.
        kind: &'static str,
        /// What was asked for.
        id: String,
        /// The nearest known id, if any is close.
        suggestion: Option<String>,
        /// Every known id.
        available: Vec<String>,
    },
    /// A model named as a Hugging Face repository is (`owner/name`): not a
    /// catalog id, and no such file.
    #[error("no model `{}`: not a catalog id and no such file; a catalog id looks like `llama-3-8b` (`roofline model list` lists them), and a Hugging Face model's config.json works as a path (`--model path/to/config.json`){}", crate::units::excerpt(id, 60), if nearest.is_empty() { String::new() } else { format!("; nearest catalog ids: {}", nearest.join(", ")) })]
    NotAModel {
        /// What was asked for.
        id: String,
        /// The catalog ids nearest to it, nearest first.
        nearest: Vec<String>,
    },
    /// A field the command needs that the file does not carry.
    #[error("{owner} has no `{field}`, which this command needs ({why}); supply it with --set {field}=VALUE{}", example.as_ref().map(|e| format!(", e.g. --set {field}=\"{e}\"")).unwrap_or_default())]
    MissingField {
        /// The hardware or model id.
        owner: String,
        /// The kebab-case path.
        field: String,
        /// What it is needed for.
        why: String,
        /// An example value.
        example: Option<String>,
    },
    /// A feature or precision the accelerator or model does not have.
    #[error("{0}")]
    Unsupported(String),
    /// A flag value that does not validate (a zero size, a bad sweep).
    #[error("invalid value for {flag}: {message}")]
    Input {
        /// The flag, e.g. `--threads`.
        flag: String,
        /// What was wrong and what was expected.
        message: String,
    },
    /// An input field of a calculation that does not validate. The library
    /// names the field (`m`, `tile-k`); the command line reports it as the
    /// flag of the same name, a scenario file as its own line.
    #[error("field `{field}`: {message}")]
    Field {
        /// The kebab-case input field.
        field: String,
        /// What was wrong and what was expected.
        message: String,
    },
    /// An input a calculation needs that was not given (exit 2, as a
    /// missing flag is).
    #[error("field `{field}`: {message}")]
    MissingInput {
        /// The kebab-case input field.
        field: String,
        /// What to give.
        message: String,
    },
    /// An error at one point of a sweep or comparison.
    #[error("at {point}: {error}")]
    At {
        /// The point, as `name=value` pairs.
        point: String,
        /// What went wrong there.
        error: Box<Error>,
    },
    /// Flags missing or given together where the command needs one or the
    /// other (exit 2, like the argument parser's own usage errors).
    #[error("{flag}: {message}")]
    Usage {
        /// The flag concerned.
        flag: String,
        /// What to give instead.
        message: String,
    },
    /// A well-formed question that has no answer (a model that cannot fit).
    #[error("{0}")]
    NoAnswer(String),
    /// Reading or writing failed.
    #[error("cannot read {path}")]
    Io {
        /// The path involved.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Writing a file (a chart) failed.
    #[error("cannot write {path}")]
    Write {
        /// The path involved.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

fn data_message(
    file: &str,
    line: Option<usize>,
    col: Option<usize>,
    field: Option<&str>,
    message: &str,
) -> String {
    let mut s = String::from(file);
    if let Some(l) = line {
        s.push_str(&format!(":{l}"));
        if let Some(c) = col {
            s.push_str(&format!(":{c}"));
        }
    }
    s.push_str(": ");
    if let Some(f) = field {
        s.push_str(&format!("field `{f}`: "));
    }
    s.push_str(message);
    s
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Data { .. }
            | Error::UnknownId { .. }
            | Error::NotAModel { .. }
            | Error::MissingField { .. }
            | Error::Unsupported(_)
            | Error::Input { .. }
            | Error::Field { .. } => 65,
            Error::At { error, .. } => error.exit_code(),
            Error::NoAnswer(_) => 1,
            Error::Usage { .. } | Error::MissingInput { .. } => 2,
            Error::Io { .. } | Error::Write { .. } => 74,
        }
    }

    /// Shorthand for a usage error: a missing or clashing flag.
    pub fn usage(flag: impl Into<String>, message: impl fmt::Display) -> Self {
        Error::Usage {
            flag: flag.into(),
            message: message.to_string(),
        }
    }

    /// Shorthand for bad data at a line of a line-by-line file (a trace,
    /// a measurement file): file, line and field named, no column.
    pub fn at_line(file: &str, line: usize, field: &str, message: impl fmt::Display) -> Self {
        Error::Data {
            file: file.to_string(),
            line: Some(line),
            col: None,
            field: Some(field.to_string()),
            message: message.to_string(),
        }
    }

    /// Shorthand for an invalid input field.
    pub fn field(field: impl Into<String>, message: impl fmt::Display) -> Self {
        Error::Field {
            field: field.into(),
            message: message.to_string(),
        }
    }

    /// Shorthand for a missing input.
    pub fn missing_input(field: impl Into<String>, message: impl fmt::Display) -> Self {
        Error::MissingInput {
            field: field.into(),
            message: message.to_string(),
        }
    }

    /// The innermost error, past any sweep-point context.
    pub fn root(&self) -> &Error {
        match self {
            Error::At { error, .. } => error.root(),
            e => e,
        }
    }

    /// Shorthand for an invalid flag value.
    pub fn input(flag: impl Into<String>, message: impl fmt::Display) -> Self {
        Error::Input {
            flag: flag.into(),
            message: message.to_string(),
        }
    }
}

/// A copy of an error, for a sweep that remembers a file's failed load
/// rather than parse it again at every point. An I/O error keeps its kind
/// and message.
impl Clone for Error {
    fn clone(&self) -> Self {
        let io = |e: &std::io::Error| std::io::Error::new(e.kind(), e.to_string());
        match self {
            Error::Data {
                file,
                line,
                col,
                field,
                message,
            } => Error::Data {
                file: file.clone(),
                line: *line,
                col: *col,
                field: field.clone(),
                message: message.clone(),
            },
            Error::UnknownId {
                kind,
                id,
                suggestion,
                available,
            } => Error::UnknownId {
                kind,
                id: id.clone(),
                suggestion: suggestion.clone(),
                available: available.clone(),
            },
            Error::NotAModel { id, nearest } => Error::NotAModel {
                id: id.clone(),
                nearest: nearest.clone(),
            },
            Error::MissingField {
                owner,
                field,
                why,
                example,
            } => Error::MissingField {
                owner: owner.clone(),
                field: field.clone(),
                why: why.clone(),
                example: example.clone(),
            },
            Error::Unsupported(m) => Error::Unsupported(m.clone()),
            Error::Input { flag, message } => Error::input(flag.clone(), message),
            Error::Field { field, message } => Error::field(field.clone(), message),
            Error::MissingInput { field, message } => Error::missing_input(field.clone(), message),
            Error::At { point, error } => Error::At {
                point: point.clone(),
                error: error.clone(),
            },
            Error::Usage { flag, message } => Error::usage(flag.clone(), message),
            Error::NoAnswer(m) => Error::NoAnswer(m.clone()),
            Error::Io { path, source } => Error::Io {
                path: path.clone(),
                source: io(source),
            },
            Error::Write { path, source } => Error::Write {
                path: path.clone(),
                source: io(source),
            },
        }
    }
}

/// Result with the library's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The id among `candidates` closest to `wanted`, if it is close enough to be
/// a likely typo (edit distance at most a third of its length, or a prefix).
pub fn nearest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = if c.starts_with(wanted) || wanted.starts_with(c) {
            0
        } else {
            edit_distance(wanted, c)
        };
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.filter(|(d, c)| *d <= (c.len().max(3)) / 3)
        .map(|(_, c)| c.to_string())
}

/// Levenshtein distance between two names, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_finds_typos() {
        let ids = ["h100-sxm", "h200-sxm", "a100-sxm-80gb"];
        assert_eq!(nearest("h100-smx", ids).as_deref(), Some("h100-sxm"));
        assert_eq!(nearest("h100", ids).as_deref(), Some("h100-sxm"));
        assert_eq!(nearest("tpu-v9000-ultra", ids), None);
    }

    #[test]
    fn data_error_names_file_line_field() {
        let e = Error::Data {
            file: "my.toml".into(),
            line: Some(3),
            col: Some(7),
            field: Some("memory.hbm-bandwidth".into()),
            message: "missing unit".into(),
        };
        assert_eq!(
            e.to_string(),
            "my.toml:3:7: field `memory.hbm-bandwidth`: missing unit"
        );
        assert_eq!(e.exit_code(), 65);
    }
}

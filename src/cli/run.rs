//! `run FILE`: runs a scenario file. Each query becomes the command line
//! it stands for (its fields are the command's flags) and runs exactly as
//! typed would, so a scenario and the shell always agree; errors point at
//! the file, the line and the field.

use super::{FormatArg, Global};
use clap::{Args, CommandFactory};
use roofline::error::Error;
use roofline::render::{Format, explain_all};
use roofline::report::Report;
use roofline::spec::Origin;
use roofline::spec::scenario::{self, Query, RESERVED, Value};
use std::path::{Path, PathBuf};

/// `run` flags.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  roofline run --list
  roofline run homework-lecture-exercises   # a built-in scenario, by name, from any folder
  roofline run scenarios/lecture-tiling-table.toml
  roofline run scenarios/homework-lecture-exercises.toml --format markdown
  roofline run scenarios/datasheet-checklist.toml --format json

The format is described in docs/scenarios.md. Paths in a scenario (user
hardware or model files) are relative to the scenario's folder; charts are
written under --out-dir.")]
pub struct RunArgs {
    /// The scenario file (TOML), or the name of a built-in scenario
    /// (`homework-lecture-exercises`; --list names them).
    #[arg(value_name = "FILE|NAME", required_unless_present = "list")]
    pub file: Option<PathBuf>,
    /// List the built-in scenarios, which run by name from any folder.
    #[arg(long, conflicts_with = "file")]
    pub list: bool,
    /// Folder charts are written to (default: the current folder). A
    /// scenario writes nowhere else.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// A folder the scenario may also read hardware, model or report files
    /// from (besides its own folder, --hw-dir and --model-dir); repeat for
    /// several.
    #[arg(long = "allow-path", value_name = "DIR")]
    pub allow_path: Vec<PathBuf>,
}

/// One query's answer.
struct Answer {
    title: String,
    all: bool,
    command_line: String,
    notes: Vec<String>,
    reports: Vec<Report>,
}

/// Runs the scenario and renders every answer in the chosen format.
pub fn run(a: &RunArgs, g: &Global) -> anyhow::Result<Vec<u8>> {
    let Some(file) = &a.file else {
        return Ok(list(g.format == FormatArg::Json));
    };
    let (name, src) = source(file)?;
    let origin = Origin {
        name: name.clone(),
        overridden: false,
    };
    let sc = scenario::parse(&src, &origin)?;
    if g.format == FormatArg::Csv {
        return Err(Error::usage(
            "--format",
            "a scenario prints several reports, which CSV cannot hold; use table, markdown or json",
        )
        .into());
    }
    let base = file.parent().unwrap_or(Path::new("."));
    let out_dir = a.out_dir.clone().unwrap_or_default();
    if !out_dir.as_os_str().is_empty() {
        std::fs::create_dir_all(&out_dir).map_err(|e| Error::Write {
            path: out_dir.display().to_string(),
            source: e,
        })?;
    }
    let mut allowed: Vec<&Path> = a.allow_path.iter().map(PathBuf::as_path).collect();
    allowed.extend(g.hw_dir.as_deref());
    allowed.extend(g.model_dir.as_deref());
    let confine = super::confine::Confine::new(&out_dir, base, &allowed);
    // Every query's paths are checked before the first one runs, so a
    // scenario that would write or read outside its folders does nothing.
    let argvs = sc
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| argv(q, i, g, &confine, &src, &origin))
        .collect::<Result<Vec<_>, Error>>()?;
    // Every file a query writes is checked too (its extension, its folder,
    // that it is no file a query reads), and no two queries write one.
    let mut outputs: Vec<Vec<PathBuf>> = Vec::new();
    for (i, (q, argv)) in sc.queries.iter().zip(&argvs).enumerate() {
        let parsed = super::parse(argv);
        super::output::preflight(argv, parsed.as_ref().ok().map(super::targets))
            .map_err(|e| locate(e.into(), q, i, &src, &origin))?;
        let mine: Vec<PathBuf> = parsed
            .map(|c| super::targets(&c).into_iter().map(|t| t.path).collect())
            .unwrap_or_default();
        for p in &mine {
            if let Some(j) = outputs
                .iter()
                .position(|earlier| earlier.iter().any(|e| same_output(e, p)))
            {
                let key = if q.fields.contains_key("out") {
                    "out"
                } else {
                    "chart"
                };
                return Err(Error::Data {
                    file: origin.name.clone(),
                    line: roofline::spec::locate(&src, &format!("query.{i}.{key}")),
                    col: None,
                    field: Some(format!("query.{i}.{key}")),
                    message: format!(
                        "query {j} writes {} too; give each query's file its own name (the later one would replace the earlier)",
                        p.display()
                    ),
                }
                .into());
            }
        }
        outputs.push(mine);
    }
    let mut answers = Vec::new();
    let total = sc.queries.len();
    for ((i, q), argv) in sc.queries.iter().enumerate().zip(argvs) {
        let (_, reports) = match super::run(&argv) {
            Ok(r) => r,
            Err(e) => {
                let mut e = locate(e, q, i, &src, &origin);
                let written: Vec<String> = outputs[..i]
                    .iter()
                    .flatten()
                    .map(|p| p.display().to_string())
                    .collect();
                if !written.is_empty() {
                    let code = e
                        .downcast_ref::<Coded>()
                        .map(|c| c.1)
                        .or_else(|| {
                            e.chain()
                                .find_map(|c| c.downcast_ref::<Error>())
                                .map(Error::exit_code)
                        })
                        .unwrap_or(1);
                    e = anyhow::Error::new(Coded(
                        format!(
                            "{e:#}\n(the queries before it wrote {}, which are left in place)",
                            written.join(", ")
                        ),
                        code,
                    ));
                }
                // The queries that answered are still the user's: they are
                // printed, then the error (exit non-zero).
                if !answers.is_empty() {
                    return Err(e.context(Partial {
                        done: render(&sc, &answers, g),
                        answered: answers.len(),
                        total,
                    }));
                }
                return Err(e);
            }
        };
        answers.push(Answer {
            all: q.all,
            title: q.title.clone().unwrap_or_else(|| q.command.clone()),
            command_line: shell_line(&argv),
            notes: q.notes.clone(),
            reports,
        });
    }
    Ok(render(&sc, &answers, g))
}

/// Whether two queries' outputs are one file: the same path as written,
/// or, where it exists, the same file.
fn same_output(a: &Path, b: &Path) -> bool {
    a == b || super::output::same_file(a, b)
}

/// The built-in scenarios, a name and a title a line; with `json`, a list
/// of `{"name", "title"}` objects.
fn list(json: bool) -> Vec<u8> {
    let all = roofline::catalog::builtin_scenarios();
    let titled: Vec<(&str, String)> = all
        .iter()
        .map(|(name, text)| {
            let title = toml::from_str::<toml::Table>(text)
                .ok()
                .and_then(|t| t.get("title").and_then(|v| v.as_str()).map(String::from))
                .unwrap_or_default();
            (*name, title)
        })
        .collect();
    if json {
        let doc: Vec<_> = titled
            .iter()
            .map(|(name, title)| serde_json::json!({ "name": name, "title": title }))
            .collect();
        let mut out = serde_json::to_vec_pretty(&doc).unwrap_or_default();
        out.push(b'\n');
        return out;
    }
    let mut out = String::from("Built-in scenarios (roofline run NAME):\n");
    let w = titled.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (name, title) in titled {
        out.push_str(&format!("  {name:<w$}  {title}\n"));
    }
    out.into_bytes()
}

/// A scenario's name and text: the file at `file`, else the built-in
/// scenario of that name (`homework-lecture-exercises`, with or without
/// `.toml`, or as `scenarios/NAME.toml` from another folder).
fn source(file: &Path) -> Result<(String, String), Error> {
    let name = file.display().to_string();
    match std::fs::read_to_string(file) {
        Ok(src) => Ok((name, src)),
        Err(e) => {
            // A built-in id may hold dots (`serving-capacity-llama-3.1-70b`):
            // only `.toml` is an extension here.
            let file_name = file.file_name().and_then(|s| s.to_str()).unwrap_or("");
            let stem = file_name.strip_suffix(".toml").unwrap_or(file_name);
            let dir = file.parent().and_then(Path::to_str).unwrap_or("");
            let named = matches!(dir, "" | "scenarios");
            let builtin = roofline::catalog::builtin_scenarios();
            if e.kind() == std::io::ErrorKind::NotFound
                && named
                && let Some((n, text)) = builtin.iter().find(|(n, _)| *n == stem)
            {
                return Ok((format!("built-in scenarios/{n}.toml"), (*text).to_string()));
            }
            let names: Vec<&str> = builtin.iter().map(|(n, _)| *n).collect();
            let path = if named {
                format!(
                    "{name} (neither a file nor a built-in scenario: {})",
                    names.join(", ")
                )
            } else {
                name
            };
            Err(Error::Io { path, source: e })
        }
    }
}

/// The command line a query stands for.
fn argv(
    q: &Query,
    i: usize,
    g: &Global,
    confine: &super::confine::Confine,
    src: &str,
    origin: &Origin,
) -> Result<Vec<String>, Error> {
    let err = |key: &str, message: String| Error::Data {
        file: origin.name.clone(),
        line: roofline::spec::locate(src, &format!("query.{i}.{key}")),
        col: None,
        field: Some(format!("query.{i}.{key}")),
        message,
    };
    let root = super::Cli::command();
    let words: Vec<&str> = q.command.split(' ').collect();
    let mut cmd = &root;
    for (i, w) in words.iter().enumerate() {
        // A whole command line typed as the command: its flags belong in
        // fields of their own.
        if i > 0 && (w.starts_with('-') || !cmd.has_subcommands()) {
            let name = words[..i].join(" ");
            return Err(err(
                "command",
                format!(
                    "`{}`: the command is `{name}` alone; give its inputs as fields of the query (`--hw h100-sxm` is `hw = \"h100-sxm\"`; docs/scenarios.md)",
                    q.command
                ),
            ));
        }
        cmd = cmd.find_subcommand(w).ok_or_else(|| {
            let known: Vec<&str> = cmd
                .get_subcommands()
                .map(|c| c.get_name())
                .filter(|n| !matches!(*n, "run" | "help" | "completions" | "man" | "calibrate"))
                .collect();
            let hint = roofline::error::nearest(w, known.iter().copied())
                .map(|n| format!(" (did you mean `{n}`?)"))
                .unwrap_or_default();
            err(
                "command",
                format!(
                    "unknown command `{}`{hint}; expected one of: {}",
                    q.command,
                    known.join(", ")
                ),
            )
        })?;
    }
    if cmd.has_subcommands() {
        let known: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
        return Err(err(
            "command",
            format!(
                "`{}` needs one of: {}",
                q.command,
                known
                    .iter()
                    .map(|k| format!("{} {k}", q.command))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    if q.command == "run" {
        return Err(err(
            "command",
            "a scenario cannot run another scenario".into(),
        ));
    }
    if matches!(q.command.as_str(), "man" | "completions") {
        return Err(err(
            "command",
            format!(
                "`{}` answers no query (it writes the shell's files); run it from the shell",
                q.command
            ),
        ));
    }
    let mut out: Vec<String> = std::iter::once("roofline".to_string())
        .chain(words.iter().map(|w| w.to_string()))
        .collect();
    let mut flags: Vec<String> = Vec::new();
    for (key, value) in &q.fields {
        if RESERVED.contains(&key.as_str()) {
            continue;
        }
        // A sweep drawn as a chart: the options every command takes.
        if matches!(key.as_str(), "chart" | "y") {
            let text = match value {
                Value::Text(t) => resolve(key, t, confine).map_err(|m| err(key, m))?,
                Value::List(items) => items.join(","),
                Value::Switch(_) => {
                    return Err(err(
                        key,
                        format!("`{key}` takes a file name or result keys"),
                    ));
                }
            };
            flags.push(format!("--{key}"));
            flags.push(text);
            continue;
        }
        let arg = cmd
            .get_arguments()
            .find(|a| {
                a.get_long() == Some(key.as_str()) || (a.is_positional() && a.get_id() == key)
            })
            .filter(|a| !a.is_global_set());
        let Some(arg) = arg else {
            let inputs: Vec<String> = cmd
                .get_arguments()
                .filter(|a| !a.is_global_set() && a.get_id() != "help")
                .map(|a| a.get_long().unwrap_or(a.get_id().as_str()).to_string())
                .collect();
            return Err(err(
                key,
                format!(
                    "`{}` has no input `{key}`; it takes: {}",
                    q.command,
                    inputs.join(", ")
                ),
            ));
        };
        let text = match value {
            Value::Switch(true) if !arg.get_action().takes_values() => {
                flags.push(format!("--{key}"));
                continue;
            }
            Value::Switch(false) if !arg.get_action().takes_values() => continue,
            Value::Switch(b) => b.to_string(),
            Value::Text(s) => resolve(key, s, confine).map_err(|m| err(key, m))?,
            Value::List(items) => items
                .iter()
                .map(|s| resolve(key, s, confine))
                .collect::<Result<Vec<_>, String>>()
                .map_err(|m| err(key, m))?
                .join(","),
        };
        if arg.get_action().takes_values() && !arg.is_positional() {
            flags.push(format!("--{key}"));
            flags.push(text);
        } else if arg.is_positional() {
            out.push(text);
        } else {
            return Err(err(key, format!("`{key}` is a switch: true or false")));
        }
    }
    out.extend(flags);
    for s in &q.sweep {
        // A swept hardware, model, engine or any other path is read (or
        // written) where the field's would be.
        let s = match s.split_once('=') {
            Some((name, list)) if PATH_FIELDS.iter().any(|(k, _)| *k == name.trim()) => {
                let name = name.trim();
                let items = if PATH_FIELDS.contains(&(name, PathField::Write)) {
                    vec![resolve(name, list.trim(), confine)]
                } else {
                    list.split(',')
                        .map(|v| resolve(name, v.trim(), confine))
                        .collect()
                };
                let items = items
                    .into_iter()
                    .collect::<Result<Vec<_>, String>>()
                    .map_err(|m| err("sweep", m))?;
                format!("{name}={}", items.join(","))
            }
            _ => s.clone(),
        };
        out.push("--sweep".into());
        out.push(s);
    }
    for s in &q.set {
        out.push("--set".into());
        out.push(s.clone());
    }
    if q.achievable || g.achievable {
        out.push("--achievable".into());
    }
    if g.explain && g.format != FormatArg::Json {
        out.push("--explain".into());
    }
    Ok(out)
}

/// How a scenario field names a file: one it writes, one it reads, or an
/// id that is a file only when it looks like a path (`my.toml`, `a/b`).
#[derive(Clone, Copy, PartialEq)]
enum PathField {
    Write,
    Read,
    IdOrRead,
}

/// Every path-valued field a query can carry, as a field or a sweep's
/// name: the one list [`resolve`] checks, so a field added to a command
/// is confined by adding it here (the test in tests/robustness.rs walks
/// each one, absolute, `../` and through a symbolic link).
const PATH_FIELDS: &[(&str, PathField)] = &[
    ("out", PathField::Write),
    ("chart", PathField::Write),
    ("dir", PathField::Write),
    ("trace", PathField::Read),
    ("file", PathField::Read),
    ("from", PathField::Read),
    ("hw", PathField::IdOrRead),
    ("model", PathField::IdOrRead),
    ("engine", PathField::IdOrRead),
    ("prefill-hw", PathField::IdOrRead),
];

/// A path in a scenario is relative to its folder and stays in the
/// folders it may read; a file it writes is relative to the output folder
/// and stays in it ([`super::confine`]). A list (`a.toml,b`) is checked
/// item by item.
fn resolve(key: &str, value: &str, confine: &super::confine::Confine) -> Result<String, String> {
    let Some(&(_, kind)) = PATH_FIELDS.iter().find(|(k, _)| *k == key) else {
        return Ok(value.to_string());
    };
    if kind == PathField::Write {
        return confine.write(value);
    }
    value
        .split(',')
        .map(|v| {
            let v = v.trim();
            if kind == PathField::Read || roofline::catalog::is_path(v) {
                confine.read(v)
            } else {
                Ok(v.to_string())
            }
        })
        .collect::<Result<Vec<_>, String>>()
        .map(|v| v.join(","))
}

/// Points an error at the query's field where it names one.
fn locate(e: anyhow::Error, q: &Query, i: usize, src: &str, origin: &Origin) -> anyhow::Error {
    let field_of = |flag: &str| {
        let key = flag.trim_start_matches('-').to_string();
        q.fields.contains_key(&key).then_some(key)
    };
    let found = e
        .chain()
        .find_map(|c| c.downcast_ref::<Error>())
        .map(Error::root);
    let (key, message) = match found {
        Some(Error::Input { flag, message }) | Some(Error::Usage { flag, message }) => {
            (field_of(flag), message.clone())
        }
        Some(Error::Field { field, message }) | Some(Error::MissingInput { field, message }) => {
            (field_of(field), message.clone())
        }
        _ => (None, format!("{e:#}")),
    };
    let (key, message, code_source) = match missing_fields(&e) {
        Some(m) => (None, m, Some(2)),
        None => (key, message, found.map(|e| e.exit_code())),
    };
    let key = key.unwrap_or_else(|| "command".into());
    let code_source = code_source.unwrap_or(65);
    let data = Error::Data {
        file: origin.name.clone(),
        line: roofline::spec::locate(src, &format!("query.{i}.{key}")),
        col: None,
        field: Some(format!("query.{i}.{key}")),
        message: if key == "command" {
            format!("`{}`: {message}", q.command)
        } else {
            message
        },
    };
    // Keep the inner error's exit code (a missing input stays 2, an
    // unwritable chart 74): report the located message with that code.
    if code_source == data.exit_code() {
        data.into()
    } else {
        anyhow::Error::new(Coded(data.to_string(), code_source))
    }
}

/// The inputs a query lacks, from the parser's "required arguments were not
/// provided", as its fields: `needs context` (`batch or slo-tpot`).
fn missing_fields(e: &anyhow::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let c = e.downcast_ref::<clap::Error>()?;
    if c.kind() != ErrorKind::MissingRequiredArgument {
        return None;
    }
    let Some(ContextValue::Strings(args)) = c.get(ContextKind::InvalidArg) else {
        return None;
    };
    let field = |a: &str| {
        a.trim_matches(|c| c == '<' || c == '>')
            .split('|')
            .map(|p| {
                p.trim_start_matches('-')
                    .split(' ')
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let names: Vec<String> = args.iter().map(|a| format!("`{}`", field(a))).collect();
    Some(format!(
        "needs {}, which the query does not give",
        names.join(" and ")
    ))
}

/// A located message that keeps the exit code of the error it came from.
#[derive(Debug)]
pub struct Coded(pub String, pub u8);

/// A scenario stopped by a failing query after others answered: `done` is
/// their rendered answers, which `main` prints before the error.
#[derive(Debug)]
pub struct Partial {
    /// The answers before the failing query, rendered.
    pub done: Vec<u8>,
    /// How many queries answered.
    pub answered: usize,
    /// Queries in the scenario.
    pub total: usize,
}

impl std::fmt::Display for Partial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "query {} of {} failed (the {} before it answered, above)",
            self.answered + 1,
            self.total,
            self.answered
        )
    }
}

impl std::fmt::Display for Coded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Coded {}

/// The command line as a person would type it.
fn shell_line(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if a.is_empty()
                || a.contains([' ', '"', '\'', '$', '*', '|', '&', ';', '(', ')', '<', '>'])
            {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn render(sc: &scenario::Scenario, answers: &[Answer], g: &Global) -> Vec<u8> {
    if g.format == FormatArg::Json {
        let doc = serde_json::json!({
            "title": sc.title,
            "notes": sc.notes,
            "queries": answers.iter().map(|a| serde_json::json!({
                "title": a.title,
                "command": a.command_line,
                "notes": a.notes,
                "report": a.reports.first(),
            })).collect::<Vec<_>>(),
        });
        let mut out = serde_json::to_vec_pretty(&doc).unwrap_or_default();
        out.push(b'\n');
        return out;
    }
    let md = g.format == FormatArg::Markdown;
    let mut out = String::new();
    out.push_str(&format!("# {}\n\n", sc.title));
    for n in &sc.notes {
        out.push_str(n.trim());
        out.push_str("\n\n");
    }
    for a in answers {
        out.push_str(&format!("## {}\n\n", a.title));
        if md {
            out.push_str(&format!("`{}`\n\n", a.command_line));
        } else {
            out.push_str(&format!("$ {}\n\n", a.command_line));
        }
        for n in &a.notes {
            out.push_str(n.trim());
            out.push_str("\n\n");
        }
        let body = if g.explain {
            explain_all(&a.reports, md)
        } else {
            let mut r = if a.reports.len() == 1 {
                a.reports[0].clone()
            } else {
                super::combine_points(a.reports.clone())
            };
            if g.all || a.all {
                r.headline.clear();
            }
            Format::from(g.format).renderer().render(&r)
        };
        out.push_str(&String::from_utf8_lossy(&body));
        out.push('\n');
    }
    out.into_bytes()
}

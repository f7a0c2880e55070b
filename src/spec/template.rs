//! Commented templates for a user's own data files (`hw new --from ID`,
//! `model new --from ID`): an existing file's values with its comments and
//! `[sources]` removed, each section preceded by a comment saying what its
//! fields mean and their units, and the `id` set to a placeholder the
//! loader refuses until it is changed.
//!
//! The field descriptions are read from `docs/data-schemas.md`, embedded at
//! build time, so the template and the reference never disagree.

use std::fmt::Write;

/// The id a template carries; a file still holding it is refused, naming
/// the field, so a user cannot forget to give the file its own name.
pub const PLACEHOLDER_ID: &str = "change-me";

const SCHEMAS: &str = include_str!("../../docs/data-schemas.md");

/// One documented field: its key (as the schema's table writes it, with
/// any `<precision>` placeholder), unit and meaning.
struct Field {
    key: String,
    unit: String,
    meaning: String,
}

/// The documented fields of one part of the schema, keyed by the section
/// they belong to: `""` for a file's top level, `compute`, `memory.levels`,
/// `attention`, ...
fn fields(part: &str) -> Vec<(String, Field)> {
    let (start, end) = if part == "hardware" {
        ("## Hardware files", "## Unit conventions")
    } else {
        ("## Model files", "### Hugging Face")
    };
    let body = SCHEMAS
        .split_once(start)
        .map_or("", |(_, rest)| rest.split(end).next().unwrap_or(""));
    let mut section = String::new();
    let mut out = Vec::new();
    for line in body.lines() {
        let line = line.trim();
        if let Some(h) = line.strip_prefix("### ") {
            // "### `[compute]`", "### `[[interconnect]]` (scale-up first)",
            // "### Identity", "### `[package]` and `[host]`".
            section = h
                .split('`')
                .nth(1)
                .map(|s| s.trim_matches(['[', ']']).to_string())
                .unwrap_or_default();
            if section == "package" {
                // Its rows carry their own prefixes (package.x, host.x).
                section.clear();
            }
            continue;
        }
        if line.starts_with("Each `[[memory.levels]]`") {
            section = "memory.levels".into();
            continue;
        }
        let Some(row) = line.strip_prefix("| `") else {
            continue;
        };
        let cells: Vec<&str> = row.trim_end_matches('|').split(" | ").collect();
        if cells.len() < 2 {
            continue;
        }
        let keys = cells[0].replace('`', "");
        let unit = cells[1].replace('`', "");
        let meaning = cells.get(2).map_or(String::new(), |m| m.replace('`', ""));
        // A row may name several keys (`fp8-format`, `fp4-format`) of one
        // section: they are described together.
        let full: Vec<String> = keys
            .split(", ")
            .map(|k| {
                if section.is_empty() {
                    k.trim().to_string()
                } else {
                    format!("{section}.{}", k.trim())
                }
            })
            .collect();
        let (sec, _) = split_key(&full[0]);
        let leaves: Vec<String> = full.iter().map(|k| split_key(k).1).collect();
        out.push((
            sec,
            Field {
                key: leaves.join(", "),
                unit,
                meaning,
            },
        ));
    }
    out
}

/// A documented key's section and leaf: `dense.<precision>` belongs to
/// `compute` as `dense.<precision>`, `attention.kind` to `attention`,
/// `memory.levels.name` to `memory.levels`.
fn split_key(full: &str) -> (String, String) {
    match full.rsplit_once('.') {
        Some((s, l)) if !l.starts_with('<') => (s.to_string(), l.to_string()),
        Some((s, l)) => match s.rsplit_once('.') {
            Some((s2, l2)) => (s2.to_string(), format!("{l2}.{l}")),
            None => (String::new(), full.to_string()),
        },
        None => (String::new(), full.to_string()),
    }
}

/// Wraps `text` into comment lines no wider than about 78 columns, the
/// first starting `first`, the rest `rest`.
fn comment(out: &mut String, first: &str, rest: &str, text: &str) {
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.len().saturating_add(1).saturating_add(word.len()) > 78 {
            out.push_str(line.trim_end());
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

fn describe(out: &mut String, part: &[(String, Field)], section: &str) {
    for (_, f) in part.iter().filter(|(s, _)| s == section) {
        let text = if f.meaning.is_empty() {
            format!("{} ({})", f.key, f.unit)
        } else {
            format!("{} ({}): {}", f.key, f.unit, f.meaning)
        };
        comment(out, "#   ", "#       ", &text);
    }
}

/// Strips a trailing `# comment` from a TOML line, leaving `#` inside
/// quoted strings alone.
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' => return line[..i].trim_end(),
            None => {}
        }
    }
    line.trim_end()
}

/// The table a header line opens (`[compute.dense]` -> `compute.dense`).
fn header(line: &str) -> Option<&str> {
    let t = line.trim();
    t.starts_with('[')
        .then(|| t.trim_matches(['[', ']']).trim())
}

/// A commented template made from a data file's text. `kind` is `hw` or
/// `model`; `from` the id or path it was made from, for the opening
/// comment.
pub fn make(kind: &str, src: &str, from: &str) -> String {
    let hardware = kind == "hw";
    let part = fields(if hardware { "hardware" } else { "model" });
    let mut out = String::new();
    let what = if hardware { "hardware" } else { "model" };
    let show = if hardware { "hw show" } else { "model show" };
    comment(
        &mut out,
        "# ",
        "# ",
        &format!(
            "A {what} file for roofline, made by `roofline {kind} new --from {from}`. \
             The values are {from}'s (`roofline {show} {from} --explain` says where each \
             came from); change those that differ and delete those you do not know: a \
             command that needs a missing number says which and how to give it. {units}",
            units = if hardware {
                "Quantities carry their unit in the string (\"3.35 TB/s\", \"228 KiB\", \
                 \"1.98 GHz\"; SI prefixes are powers of 1000, KiB/MiB/GiB powers of \
                 1024); counts are bare integers."
            } else {
                "Sizes are bare integers (counts of elements, not bytes); parameter \
                 counts, weight bytes and KV bytes are derived from them, never typed in."
            }
        ),
    );
    let example = if hardware {
        "\"memory.hbm-bandwidth\" = \"my measurement, 2026-11-30\""
    } else {
        "\"ffn.intermediate-size\" = \"the model's config.json\""
    };
    out.push_str("#\n");
    comment(
        &mut out,
        "# ",
        "# ",
        &format!(
            "Without a [sources] table every value cites this file. To cite your own \
             sources add one at the end, keyed by field path: {example}. \
             Reference for every field: docs/data-schemas.md."
        ),
    );
    out.push_str("#\n# Top level:\n");
    describe(&mut out, &part, "");
    out.push('\n');
    let mut described: Vec<String> = vec![String::new()];
    let mut in_sources = false;
    let mut blank = true;
    for line in src.lines() {
        let code = strip_comment(line);
        if let Some(h) = header(code) {
            in_sources = h == "sources";
            if in_sources {
                continue;
            }
            // The section a header belongs to: `memory.levels` for
            // `[[memory.levels]]`, `compute` for `[compute.dense]`.
            let sec = if part.iter().any(|(s, _)| s == h) {
                h.to_string()
            } else {
                h.split('.').next().unwrap_or(h).to_string()
            };
            if !blank {
                out.push('\n');
            }
            if !described.contains(&sec) {
                described.push(sec.clone());
                if part.iter().any(|(s, _)| *s == sec) {
                    let _ = writeln!(out, "# [{sec}]:");
                    describe(&mut out, &part, &sec);
                }
            }
            out.push_str(code.trim());
            out.push('\n');
            blank = false;
            continue;
        }
        if in_sources {
            continue;
        }
        if code.trim().is_empty() {
            if !blank && !line.trim_start().starts_with('#') {
                out.push('\n');
                blank = true;
            }
            continue;
        }
        blank = false;
        if let Some((k, _)) = code.split_once('=')
            && k.trim() == "id"
        {
            let _ = writeln!(
                out,
                "id = \"{PLACEHOLDER_ID}\"   # give the file its own id (its file name without .toml)"
            );
            continue;
        }
        out.push_str(code);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    // The sections the source file does not have, so a user can add them.
    let mut absent: Vec<&str> = Vec::new();
    for (sec, _) in &part {
        if !sec.is_empty() && !described.iter().any(|d| d == sec) && !absent.contains(&sec.as_str())
        {
            absent.push(sec);
        }
    }
    if !absent.is_empty() {
        out.push_str("\n# Sections this file does not have, which you may add:\n");
        for sec in absent {
            let _ = writeln!(out, "# [{sec}]:");
            describe(&mut out, &part, sec);
        }
    }
    out
}

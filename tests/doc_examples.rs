//! Every example a user is shown must run: each `roofline ...` line inside
//! a code block of README.md and docs/*.md, and each example in the
//! commands' `--help`, is run and must exit 0. Lines naming a placeholder
//! file or folder (`my-gpu.toml`, `./my-hardware`, `path/to/...`) are skipped;
//! a `>` redirect or a `|` pipe ends the command run.
//!
//! Each runs in a scratch folder that sees the repository's files (through
//! links) but not `docs/`, so an example that writes a file (a chart, a
//! man page) writes it there and never over a committed one.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_roofline"));
    c.current_dir(scratch());
    c
}

/// The scratch folder examples run in, made once per test process.
fn scratch() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let dir =
            std::env::temp_dir().join(format!("roofline-doc-examples-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("make the scratch folder");
        for e in std::fs::read_dir(&root)
            .expect("read the repository")
            .flatten()
        {
            let name = e.file_name();
            if matches!(name.to_str(), Some("target" | ".git" | "docs")) {
                continue;
            }
            #[cfg(unix)]
            std::os::unix::fs::symlink(e.path(), dir.join(&name))
                .expect("link into the scratch folder");
            #[cfg(not(unix))]
            let _ = name;
        }
        dir
    })
    .clone()
}

/// Splits a shell-like line into words, honouring double quotes; stops at
/// a `#` comment or a `(` remark.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            '#' | '(' if !quoted && cur.is_empty() => break,
            '>' | '|' if !quoted => break,
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

fn runnable(line: &str) -> Option<Vec<String>> {
    let line = line.trim().strip_prefix("roofline ")?;
    if line.contains("my-")
        || line.contains("path/to/")
        || line.contains('<')
        || line.contains("...")
    {
        return None;
    }
    let w = words(line);
    (!w.is_empty()).then_some(w)
}

fn check(lines: impl IntoIterator<Item = String>, whence: &str) -> usize {
    let mut n = 0;
    for line in lines {
        let Some(args) = runnable(&line) else {
            continue;
        };
        let out = bin().args(&args).output().expect("run roofline");
        assert!(
            out.status.success(),
            "{whence}: `roofline {}` exited {:?}: {}",
            args.join(" "),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        n += 1;
    }
    n
}

fn code_lines(text: &str) -> Vec<String> {
    let mut inside = false;
    let mut out = Vec::new();
    for l in text.lines() {
        if l.trim_start().starts_with("```") {
            inside = !inside;
        } else if inside {
            out.push(l.to_string());
        }
    }
    out
}

#[test]
fn readme_and_docs_examples_run() {
    let mut n = 0;
    for f in [
        "README.md",
        "docs/cli.md",
        "docs/formulas.md",
        "docs/validation.md",
        "docs/data-schemas.md",
    ] {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        n += check(code_lines(&text), f);
    }
    assert!(n > 30, "only {n} examples found");
}

#[test]
fn help_examples_run() {
    let commands: &[&[&str]] = &[
        &["hw", "show"],
        &["model", "show"],
        &["point"],
        &["occupancy"],
        &["coalesce"],
        &["littles-law"],
        &["matmul"],
        &["fusion", "softmax"],
        &["fusion", "chain"],
        &["fusion", "epilogue"],
        &["launch"],
    ];
    let mut n = 0;
    for c in commands {
        let out = bin().args(*c).arg("--help").output().expect("run --help");
        let help = String::from_utf8_lossy(&out.stdout).to_string();
        n += check(
            help.lines().map(String::from),
            &format!("{} --help", c.join(" ")),
        );
    }
    assert!(n >= 11, "only {n} help examples found");
}

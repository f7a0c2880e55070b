//! Every example a user is shown must run: each `roofline ...` line inside
//! a code block of README.md and docs/*.md, and each example in the
//! commands' `--help`, is run and must exit 0. Lines naming a placeholder
//! file or folder (`my-gpu.toml`, `./my-hardware`, `path/to/...`) are skipped.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_roofline"))
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

fn run_lines(lines: impl IntoIterator<Item = String>, whence: &str) -> usize {
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
        n += run_lines(code_lines(&text), f);
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
        n += run_lines(
            help.lines().map(String::from),
            &format!("{} --help", c.join(" ")),
        );
    }
    assert!(n >= 11, "only {n} help examples found");
}

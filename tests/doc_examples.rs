//! Every example a user is shown must paste into a shell and run: each
//! `roofline ...` line inside a code block of README.md and docs/*.md, and
//! each example line of every command's `--help`, is given to `sh -c`
//! exactly as written (a trailing `\` joins the next line; remarks are `#`
//! comments) with the built binary first on PATH, and must exit 0, or the
//! status its remark names (`# exits 65`: an example of a refusal). Lines
//! naming a placeholder file or folder (`my-gpu.toml`, `./my-hardware`,
//! `path/to/...`, `<id>`) are left out. Each runs in a scratch folder that
//! links the repository's files, with a scratch HOME, so examples that
//! write files write there.

use std::path::Path;
use std::process::{Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The example lines of a text: the lines that start with `roofline `
/// (after indentation or a `$ ` prompt), continuation lines joined.
fn examples(lines: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending: Option<String> = None;
    for l in lines {
        let t = l.trim();
        if let Some(mut p) = pending.take() {
            p.push(' ');
            p.push_str(t.trim_end_matches('\\').trim());
            if t.ends_with('\\') {
                pending = Some(p);
            } else {
                out.push(p);
            }
            continue;
        }
        let t = t.strip_prefix("$ ").unwrap_or(t);
        if !t.starts_with("roofline ") {
            continue;
        }
        if t.ends_with('\\') {
            pending = Some(t.trim_end_matches('\\').trim().to_string());
        } else {
            out.push(t.to_string());
        }
    }
    out
}

fn placeholder(line: &str) -> bool {
    // The command part, before any `#` remark.
    let cmd = line.split(" #").next().unwrap_or(line);
    cmd.contains("my-") || cmd.contains("path/to/") || cmd.contains('<') || cmd.contains("...")
}

/// A scratch folder holding links to every top-level entry of the
/// repository but docs/, and a scratch HOME inside it.
fn scratch() -> &'static Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("doc-examples-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("home")).unwrap();
        // docs/ is not linked: the gallery's examples write their charts
        // into a scratch docs/charts, never over the committed ones.
        std::fs::create_dir_all(dir.join("docs/charts")).unwrap();
        for e in std::fs::read_dir(ROOT).unwrap() {
            let e = e.unwrap();
            let name = e.file_name();
            if name == "target" || name == "docs" || name.to_string_lossy().starts_with('.') {
                continue;
            }
            let link = dir.join(&name);
            if !link.exists() {
                std::os::unix::fs::symlink(e.path(), link).unwrap();
            }
        }
        dir
    })
}

/// Runs `line` through `sh -c` in the scratch folder with the test
/// binary's folder first on PATH. The folder a `> ~/...` redirect writes
/// into is made first, as a user following the example would have it.
fn paste(line: &str) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_roofline"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = scratch().join("home");
    if let Some(target) = line.split("> ~/").nth(1) {
        let target = target.split_whitespace().next().unwrap_or("");
        if let Some(parent) = home.join(target).parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
    }
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(scratch())
        .env("PATH", path)
        .env("HOME", &home)
        .env_remove("ROOFLINE_HW_DIR")
        .env_remove("ROOFLINE_MODEL_DIR")
        // Tables fit the terminal's COLUMNS where it is set; a transcript
        // shows the width a pipe gets.
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .output()
        .expect("run sh")
}

/// The exit status an example expects: 0, or N where its remark says
/// `exits N`.
fn expected_status(line: &str) -> i32 {
    line.split(" #")
        .nth(1)
        .and_then(|r| r.split("exits ").nth(1))
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn run_lines(lines: impl IntoIterator<Item = String>, whence: &str) -> usize {
    let todo: Vec<String> = examples(lines)
        .into_iter()
        .filter(|l| !placeholder(l))
        .collect();
    // A few at a time: the serving simulations take seconds each in a
    // debug build.
    let workers = std::thread::available_parallelism().map_or(4, |n| n.get().max(4));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(line) = todo.get(i) else { break };
                    let out = paste(line);
                    if out.status.code() != Some(expected_status(line)) {
                        failed.lock().unwrap().push(format!(
                            "{whence}: `{line}` exited {:?}: {}",
                            out.status.code(),
                            String::from_utf8_lossy(&out.stderr).trim()
                        ));
                    }
                }
            });
        }
    });
    let failed = failed.into_inner().unwrap();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    todo.len()
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
fn the_scanner_joins_continuations_and_keeps_remarks() {
    let lines = [
        "  roofline hw show h100-sxm   # the H100".to_string(),
        "$ roofline point --hw h100-sxm \\".to_string(),
        "    --intensity 10".to_string(),
        "not roofline".to_string(),
    ];
    assert_eq!(
        examples(lines),
        [
            "roofline hw show h100-sxm   # the H100",
            "roofline point --hw h100-sxm --intensity 10"
        ]
    );
    // A remark in parentheses is a shell syntax error: the test would
    // report it.
    assert!(!paste("roofline hw list (the catalog)").status.success());
    assert!(paste("roofline hw list # the catalog").status.success());
    assert_eq!(expected_status("roofline plan --tp 3   # exits 65: no"), 65);
    assert_eq!(expected_status("roofline hw list # 5 exits"), 0);
}

/// The ```toml blocks of a text that are scenario files (they hold a
/// `[[query]]`).
fn scenario_blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for l in text.lines() {
        let t = l.trim_start();
        match cur.as_mut() {
            None if t.starts_with("```toml") => cur = Some(String::new()),
            Some(_) if t.starts_with("```") => {
                let block = cur.take().unwrap();
                if block.contains("[[query]]") {
                    out.push(block);
                }
            }
            Some(b) => {
                b.push_str(l);
                b.push('\n');
            }
            None => {}
        }
    }
    out
}

#[test]
fn scenario_format_examples_run_as_copied() {
    let text = std::fs::read_to_string(format!("{ROOT}/docs/scenarios.md")).unwrap();
    let blocks = scenario_blocks(&text);
    assert!(
        !blocks.is_empty(),
        "docs/scenarios.md shows no scenario file"
    );
    for (i, b) in blocks.iter().enumerate() {
        let file = scratch().join(format!("doc-scenario-{i}.toml"));
        std::fs::write(&file, b).unwrap();
        let out = paste(&format!(
            "roofline run {} --out-dir {}",
            file.display(),
            scratch().join("home").display()
        ));
        assert!(
            out.status.success(),
            "docs/scenarios.md scenario {i} fails as copied: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn readme_and_docs_examples_run() {
    let mut files = vec![format!("{ROOT}/README.md")];
    for e in std::fs::read_dir(format!("{ROOT}/docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p.display().to_string());
        }
    }
    files.sort();
    let mut n = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        n += run_lines(code_lines(&text), f);
    }
    assert!(n > 30, "only {n} examples found");
}

/// The transcripts of a text: each `$ roofline ...` line of a code block
/// with the lines below it up to the next `$ ` line or the block's end.
fn transcripts(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    let mut cur: Option<(String, Vec<&str>)> = None;
    let mut flush = |cur: &mut Option<(String, Vec<&str>)>| {
        if let Some((cmd, shown)) = cur.take() {
            let shown = shown.join("\n");
            if !shown.trim().is_empty() {
                out.push((cmd, shown.trim_end().to_string()));
            }
        }
    };
    for l in text.lines() {
        if l.trim_start().starts_with("```") {
            flush(&mut cur);
            inside = !inside;
        } else if !inside {
        } else if let Some(c) = l.strip_prefix("$ ") {
            flush(&mut cur);
            if c.starts_with("roofline ") && !c.ends_with('\\') {
                cur = Some((c.to_string(), Vec::new()));
            }
        } else if let Some((_, shown)) = cur.as_mut() {
            shown.push(l);
        }
    }
    flush(&mut cur);
    out
}

/// A transcript in README.md or docs/*.md prints what it shows: its
/// standard output, or its standard error where the remark names a
/// refusal (`# exits 65`). One that abbreviates (`...`) shows a part
/// and is left out.
#[test]
fn transcripts_print_what_they_show() {
    let mut files = vec![format!("{ROOT}/README.md")];
    for e in std::fs::read_dir(format!("{ROOT}/docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p.display().to_string());
        }
    }
    files.sort();
    let mut n = 0;
    let mut wrong = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (cmd, shown) in transcripts(&text) {
            if shown.contains("...") || placeholder(&cmd) {
                continue;
            }
            n += 1;
            let out = paste(&cmd);
            let printed = if expected_status(&cmd) == 0 {
                out.stdout
            } else {
                out.stderr
            };
            let printed = String::from_utf8_lossy(&printed);
            if printed.trim_end() != shown {
                wrong.push(format!(
                    "{f}: `{cmd}` shows\n{shown}\nbut prints\n{}",
                    printed.trim_end()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    assert!(n >= 5, "only {n} transcripts found");
}

#[test]
fn the_transcript_scanner_pairs_commands_with_what_follows() {
    let text = "```\n$ roofline hw list\na\nb\n$ roofline kv --help\n```\n$ roofline x\n";
    assert_eq!(
        transcripts(text),
        [("roofline hw list".to_string(), "a\nb".to_string())]
    );
}

/// The subcommands `roofline [path] --help` lists under "Commands:".
fn subcommands(path: &[String]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_roofline"))
        .args(path)
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout).to_string();
    let mut inside = false;
    let mut out = Vec::new();
    for l in help.lines() {
        if l.starts_with("Commands:") {
            inside = true;
        } else if inside && l.starts_with("  ") {
            let name = l.split_whitespace().next().unwrap().to_string();
            if name != "help" {
                out.push(name);
            }
        } else if inside && !l.trim().is_empty() {
            break;
        }
    }
    out
}

#[test]
fn help_examples_run() {
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    let mut n = 0;
    let mut commands = 0;
    while let Some(path) = todo.pop() {
        for s in subcommands(&path) {
            let mut p = path.clone();
            p.push(s);
            todo.push(p);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_roofline"))
            .args(&path)
            .arg("--help")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout).to_string();
        // Lines of the "Commands:" list are not examples (`chart` has a
        // subcommand named `roofline`).
        let mut listing = false;
        let lines: Vec<String> = help
            .lines()
            .filter(|l| {
                if l.starts_with("Commands:") {
                    listing = true;
                } else if l.trim().is_empty() {
                    listing = false;
                }
                !listing
            })
            .map(String::from)
            .collect();
        n += run_lines(lines, &format!("roofline {} --help", path.join(" ")));
        commands += 1;
    }
    assert!(commands > 20, "only {commands} commands found");
    assert!(n >= 20, "only {n} help examples found");
}

/// One invocation of every command, with the inputs it requires.
const COMMANDS: &[(&str, &str)] = &[
    ("hw show", "hw show h100-sxm"),
    ("hw list", "hw list"),
    ("model show", "model show llama-3-8b"),
    ("model list", "model list"),
    ("point", "point --hw h100-sxm --intensity 10"),
    (
        "occupancy",
        "occupancy --hw h100-sxm --threads 256 --regs 32",
    ),
    ("coalesce", "coalesce --hw h100-sxm --stride 2"),
    (
        "littles-law",
        "littles-law --hw h200-sxm --latency 500cycles --clock 1.8GHz",
    ),
    ("matmul", "matmul --hw h100-sxm --m 64 --n 64 --k 64"),
    ("fusion", "fusion softmax --hw h100-sxm --rows 4 --cols 4"),
    ("launch", "launch --kernels 10"),
    (
        "collective",
        "collective all-reduce --hw h200-sxm --devices 8 --bytes 1MiB",
    ),
    ("plan", "plan --model llama-3-8b --hw h200-sxm --devices 8"),
    ("kv", "kv --model llama-3-8b --context 100"),
    (
        "decode",
        "decode --model llama-3-8b --hw h200-sxm --batch 1 --context 100",
    ),
    (
        "prefill",
        "prefill --model llama-3-8b --hw h200-sxm --prompt 100",
    ),
    (
        "speculative",
        "speculative --acceptance 0.8 --draft-tokens 4",
    ),
    ("chart", "chart roofline --hw h100-sxm --out chart.svg"),
    ("run", "run scenarios/lecture-tiling-table.toml"),
];

/// The backticked names in README's sentence "`FLAG` ... all but `a`, `b`
/// ... (" or "... which".
fn readme_exceptions(flag: &str) -> Vec<String> {
    let text = std::fs::read_to_string(format!("{ROOT}/README.md")).unwrap();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let from = flat
        .find(&format!("`{flag}"))
        .unwrap_or_else(|| panic!("README does not mention {flag}"));
    let rest = &flat[from..];
    let list = rest.split("all but ").nth(1).expect("an `all but` list");
    let list = list.split(['(', ';']).next().unwrap();
    let list = list.split(", which").next().unwrap();
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}

#[test]
fn readme_names_the_commands_that_refuse_sweep_and_achievable() {
    for (flag, extra) in [
        ("--sweep name=values", "--sweep tile=32,64"),
        ("--achievable", "--achievable"),
    ] {
        let said = readme_exceptions(flag);
        let mut refused = Vec::new();
        for (name, line) in COMMANDS {
            let out = paste(&format!("roofline {line} {extra}"));
            // 2 is a usage error: the flag is not taken. Anything else is the
            // command's own answer to the inputs (a sweep of an input it lacks
            // is refused with 65, a bad value).
            if out.status.code() == Some(2) {
                refused.push(name.to_string());
            }
        }
        assert_eq!(said, refused, "README's exceptions to {flag}");
    }
}

/// README names every built-in part (`hw list`) and every engine (`engine
/// list`): a file added to hardware/ or engines/ must reach the page a new
/// user reads first (issue 54).
#[test]
fn readme_names_every_part_and_engine() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    for dir in ["hardware", "engines"] {
        let mut ids: Vec<String> = std::fs::read_dir(Path::new(ROOT).join(dir))
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.strip_suffix(".toml").map(str::to_string)
            })
            .collect();
        ids.sort();
        assert!(!ids.is_empty(), "{dir}");
        for id in ids {
            assert!(
                readme.contains(&format!("`{id}`")),
                "README.md does not name {dir}/{id}.toml"
            );
        }
    }
    assert!(readme.contains("roofline calibrate"), "README.md: no pointer to calibrate");
}

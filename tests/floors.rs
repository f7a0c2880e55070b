//! The floors of docs/architecture.md, read from the source: no module
//! names one on a floor above it, `cli/chart.rs` and `cli/output.rs` do
//! not call each other (nor `chart.rs` back into `entry.rs`), and the
//! library has one launch-mode type. The imports are read as text: every
//! `crate::...` path in a file's code (comments and its test module, at
//! the end of the file, left out).

use std::path::{Path, PathBuf};

/// Every .rs file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A file's code lines: comments and the test module left out, and no
/// file that is only tests (`tests.rs`, `testing.rs`).
fn code(path: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy();
    if name == "tests.rs" || name == "testing.rs" {
        return Vec::new();
    }
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(str::to_string)
        .collect()
}

/// The top-level modules (`crate::NAME`) and calc modules
/// (`crate::calc::NAME`, `crate::calc::FLOOR::NAME`) a file names.
fn names(path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for line in code(path) {
        let mut rest = line.as_str();
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let word = |s: &str| {
                s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("")
                    .to_string()
            };
            let top = word(rest);
            if top == "calc" {
                let mut after = &rest["calc::".len().min(rest.len())..];
                let mut m = word(after);
                if ["kernels", "forward", "serving"].contains(&m.as_str())
                    && after[m.len()..].starts_with("::")
                {
                    after = &after[m.len() + 2..];
                    m = word(after);
                }
                out.push(format!("calc::{m}"));
            } else {
                out.push(top);
            }
        }
    }
    out
}

/// The floor of a calc module by its short name: 0 the ground, 1 the
/// kernels, 2 the model and its step, 3 the serving commands.
fn calc_floor(module: &str) -> Option<u8> {
    const KERNELS: &[&str] = &[
        "coalesce",
        "fusion",
        "launch",
        "littles_law",
        "matmul",
        "occupancy",
        "point",
    ];
    const FORWARD: &[&str] = &["collective", "kv", "model", "step"];
    const SERVING: &[&str] = &[
        "calibrate",
        "decode",
        "fleet",
        "plan",
        "power",
        "prefill",
        "simulate",
        "speculative",
    ];
    if KERNELS.contains(&module) {
        Some(1)
    } else if FORWARD.contains(&module) {
        Some(2)
    } else if SERVING.contains(&module) {
        Some(3)
    } else {
        None
    }
}

/// The floor of a file under src/calc/.
fn file_floor(path: &Path) -> u8 {
    let s = path.to_string_lossy();
    if s.contains("/calc/kernels/") {
        1
    } else if s.contains("/calc/forward/") {
        2
    } else if s.contains("/calc/serving/") {
        3
    } else {
        0
    }
}

/// Outside calc/: the modules below the library's upper floors name none
/// of those floors.
#[test]
fn no_module_names_a_floor_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // Each folder or file, and the top-level modules it must not name.
    let above: &[(&str, &[&str])] = &[
        (
            "units.rs",
            &["error", "inputs", "precision", "spec", "report"],
        ),
        ("error.rs", &["inputs", "precision", "spec", "report"]),
        ("inputs.rs", &["spec", "report", "catalog", "calc"]),
        ("precision.rs", &["spec", "report", "catalog", "calc"]),
        ("spec", &["report", "catalog", "calc", "sweep"]),
        (
            "report",
            &["catalog", "calc", "sweep", "query", "render", "chart"],
        ),
        ("catalog.rs", &["calc", "sweep", "query", "render", "chart"]),
        ("calc", &["sweep", "query", "render", "chart"]),
        ("sweep.rs", &["query", "render", "chart"]),
        ("render", &["query", "chart"]),
        ("chart", &["query", "render"]),
    ];
    let mut bad = Vec::new();
    for (place, forbidden) in above {
        let p = root.join(place);
        let files = if p.is_dir() { rust_files(&p) } else { vec![p] };
        assert!(!files.is_empty(), "{place}");
        for f in files {
            for n in names(&f) {
                if forbidden.contains(&n.as_str()) {
                    bad.push(format!("{} names crate::{n}", f.display()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Inside calc/: the ground, the kernels, the model and its step, the
/// serving commands. A file names no module of a floor above its own,
/// but for the arrows listed here, which are still to be moved: each is
/// checked to be there, so the list shrinks as they go.
#[test]
fn calc_floors_point_down() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/calc");
    // (file, module it names): the kernels' and the datasheet's energy
    // uses serving's power model (`power::PowerModel`, `Energy`), and the
    // KV count on a tensor-parallel group uses plan's split.
    let known: &[(&str, &str)] = &[
        ("hw/report.rs", "calc::power"),
        ("kernels/matmul/mod.rs", "calc::power"),
        ("kernels/point.rs", "calc::power"),
        ("forward/kv.rs", "calc::plan"),
    ];
    let mut up = Vec::new();
    for f in rust_files(&root) {
        let own = file_floor(&f);
        for n in names(&f) {
            let Some(m) = n.strip_prefix("calc::") else {
                continue;
            };
            if calc_floor(m).is_some_and(|to| to > own) {
                let rel = f.strip_prefix(&root).unwrap().to_string_lossy().to_string();
                let arrow = (rel, n.clone());
                if !up.contains(&arrow) {
                    up.push(arrow);
                }
            }
        }
    }
    let mut want: Vec<(String, String)> = known
        .iter()
        .map(|(f, n)| (f.to_string(), n.to_string()))
        .collect();
    up.sort();
    want.sort();
    assert_eq!(up, want, "the arrows that run up a floor inside calc/");
}

/// `cli/output.rs` (file-system code and where standard output goes)
/// calls neither `chart.rs` nor `entry.rs`, and `chart.rs` does not call
/// back into `entry.rs`, which runs it.
#[test]
fn the_cli_files_do_not_call_each_other_in_a_circle() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let text = |f: &str| code(&cli.join(f)).join("\n");
    let output = text("output.rs");
    assert!(!output.contains("super::chart"));
    assert!(!output.contains("super::entry"));
    assert!(!text("chart.rs").contains("super::entry"));
    assert!(text("chart.rs").contains("super::output"));
}

/// One launch-mode type in the library: `calc::launch::LaunchMode`.
#[test]
fn one_launch_mode_type() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for f in rust_files(&root) {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let l = line.trim_start();
            let Some(rest) = l
                .strip_prefix("pub enum ")
                .or_else(|| l.strip_prefix("pub(crate) enum "))
                .or_else(|| l.strip_prefix("enum "))
            else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.contains("Launch") || name.contains("CallMode") {
                let rel = f.strip_prefix(&root).unwrap().display().to_string();
                found.push(format!("{rel}: {name}"));
            }
        }
    }
    assert_eq!(found, ["calc/kernels/launch.rs: LaunchMode"]);
}

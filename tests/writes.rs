//! Every file the binary writes is written whole or not at all (issue 42):
//! a full disk, stood for by a file-size limit, leaves the old file as it
//! was; the file `--hw` is read from is never the one written; a path or
//! extension that cannot be written is refused before any work; a
//! scenario refuses two queries writing one file and, failing part-way,
//! names what its earlier queries wrote. The expectations are the issue's
//! statement of each case, not the program's output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_roofline")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("roofline-writes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Runs the binary under a file-size limit of `blocks` 512-byte blocks
/// (POSIX `ulimit -f`), with SIGXFSZ ignored so that a write past the
/// limit fails as a full disk's does (EFBIG) instead of killing the
/// process.
fn limited(dir: &Path, blocks: u32, args: &[&str]) -> Output {
    let mut line = format!("trap '' XFSZ; ulimit -f {blocks}; exec '{}'", bin());
    for a in args {
        line.push_str(&format!(" '{a}'"));
    }
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The names in a folder, hidden ones included, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn csv() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("validation/results/2026-12-01-h200/calibrate-h200.csv")
        .display()
        .to_string()
}

#[test]
fn a_full_disk_leaves_the_old_hardware_file_whole() {
    let d = tmp("full-hw");
    // A hardware file of about 35 KB (calibrate's output is the base's
    // text plus its figures), 4 KiB allowed: the write cannot finish.
    let old = "# an older calibrated file\n".repeat(1400);
    std::fs::write(d.join("cal.toml"), &old).unwrap();
    let o = limited(
        &d,
        8,
        &["calibrate", "--hw", "h200-sxm", &csv(), "--out", "cal.toml"],
    );
    assert_eq!(o.status.code(), Some(74), "{}", stderr(&o));
    assert!(stderr(&o).contains("cal.toml"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(d.join("cal.toml")).unwrap(), old);
    assert_eq!(names(&d), ["cal.toml"], "no temporary file is left");
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_full_disk_leaves_the_old_chart_whole() {
    let d = tmp("full-chart");
    let old = "<svg>an older chart</svg>\n".repeat(800);
    std::fs::write(d.join("c.svg"), &old).unwrap();
    // A sweep's chart and a `chart KIND` both.
    let sweep = [
        "point",
        "--hw",
        "h100-sxm",
        "--sweep",
        "intensity=1..1000",
        "--chart",
        "c.svg",
    ];
    let kind = ["chart", "roofline", "--hw", "h100-sxm", "--out", "c.svg"];
    for args in [&sweep[..], &kind[..]] {
        let o = limited(&d, 8, args);
        assert_eq!(o.status.code(), Some(74), "{args:?}: {}", stderr(&o));
        assert_eq!(std::fs::read_to_string(d.join("c.svg")).unwrap(), old);
        assert_eq!(names(&d), ["c.svg"]);
    }
    // Without the limit the chart replaces the file.
    let o = run_in(&d, &kind);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(d.join("c.svg"))
            .unwrap()
            .contains("<svg")
    );
    assert_ne!(std::fs::read_to_string(d.join("c.svg")).unwrap(), old);
    assert_eq!(names(&d), ["c.svg"]);
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn man_pages_under_a_full_disk_leave_no_half_page() {
    let d = tmp("full-man");
    std::fs::create_dir_all(d.join("man")).unwrap();
    let old = ".TH OLD 1\n".repeat(2000);
    std::fs::write(d.join("man/roofline.1"), &old).unwrap();
    let o = limited(&d, 2, &["man", "--dir", "man"]);
    assert_eq!(o.status.code(), Some(74), "{}", stderr(&o));
    // Each page is whole or absent: the old main page (written first, and
    // bigger than the limit) is untouched, and no temporary file is left.
    assert_eq!(
        std::fs::read_to_string(d.join("man/roofline.1")).unwrap(),
        old
    );
    assert!(names(&d.join("man")).iter().all(|n| !n.starts_with('.')));
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn calibrate_never_overwrites_its_base() {
    let d = tmp("base");
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("hardware/h200-sxm.toml"),
    )
    .unwrap();
    std::fs::write(d.join("mine.toml"), &base).unwrap();
    let o = run_in(
        &d,
        &[
            "calibrate",
            "--hw",
            "mine.toml",
            &csv(),
            "--out",
            "mine.toml",
        ],
    );
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--hw"), "{}", stderr(&o));
    // The same file by id through --hw-dir.
    std::fs::write(d.join("h200-sxm.toml"), &base).unwrap();
    let o = run_in(
        &d,
        &[
            "calibrate",
            "--hw-dir",
            ".",
            "--hw",
            "h200-sxm",
            &csv(),
            "--out",
            "./h200-sxm.toml",
        ],
    );
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(d.join("mine.toml")).unwrap(), base);
    assert_eq!(
        std::fs::read_to_string(d.join("h200-sxm.toml")).unwrap(),
        base
    );
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_chart_over_an_input_is_refused() {
    let d = tmp("over-input");
    std::fs::write(d.join("k.json"), "{}").unwrap();
    let o = run_in(
        &d,
        &[
            "chart", "roofline", "--hw", "h100-sxm", "--from", "k.json", "--out", "k.json",
        ],
    );
    // The extension is refused first; a chart named like its input is
    // refused too.
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    std::fs::write(d.join("k.svg"), "{}").unwrap();
    let o = run_in(
        &d,
        &[
            "chart", "roofline", "--hw", "h100-sxm", "--from", "k.svg", "--out", "k.svg",
        ],
    );
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert!(stderr(&o).contains("--from"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(d.join("k.svg")).unwrap(), "{}");
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_bad_output_is_refused_before_any_work() {
    let d = tmp("before");
    // A streamed sweep would print its rows before drawing: nothing is
    // printed, nothing written.
    for (chart, code) in [("x.jpg", 65), ("missing/x.svg", 74), (".", 65)] {
        let o = run_in(
            &d,
            &[
                "prefill",
                "--model",
                "llama-3-8b",
                "--hw",
                "h100-sxm",
                "--sweep",
                "prompt=1..100000",
                "--format",
                "csv",
                "--chart",
                chart,
            ],
        );
        assert_eq!(o.status.code(), Some(code), "{chart}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{chart}: rows were printed");
        assert!(stderr(&o).contains("--chart") || stderr(&o).contains(chart));
    }
    // calibrate's --out is checked before the file is read or fitted.
    let o = run_in(
        &d,
        &[
            "calibrate",
            "--hw",
            "h200-sxm",
            "no-such.csv",
            "--out",
            "x.json",
        ],
    );
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert!(stderr(&o).contains(".toml"), "{}", stderr(&o));
    assert!(names(&d).is_empty());
    std::fs::remove_dir_all(d).unwrap();
}

const TWO_CHARTS: &str = r#"title = "Two charts"
[[query]]
command = "chart roofline"
hw = "h100-sxm"
out = "a.svg"
[[query]]
command = "point"
hw = "h100-sxm"
intensity = "1"
sweep = ["intensity=1,2"]
chart = "SECOND"
"#;

#[test]
fn a_scenario_refuses_two_queries_with_one_output() {
    let d = tmp("scenario-dup");
    std::fs::write(d.join("s.toml"), TWO_CHARTS.replace("SECOND", "a.svg")).unwrap();
    let o = run_in(&d, &["run", "s.toml", "--out-dir", "out"]);
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert!(stderr(&o).contains("query.1.chart"), "{}", stderr(&o));
    assert!(names(&d.join("out")).is_empty(), "nothing is written");
    // A bad extension in a later query: nothing is written either.
    std::fs::write(d.join("s.toml"), TWO_CHARTS.replace("SECOND", "b.jpg")).unwrap();
    let o = run_in(&d, &["run", "s.toml", "--out-dir", "out"]);
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    assert!(names(&d.join("out")).is_empty(), "nothing is written");
    std::fs::remove_dir_all(d).unwrap();
}

#[test]
fn a_scenario_failing_part_way_names_what_it_wrote() {
    let d = tmp("scenario-part");
    // The second query's sweep gives a bad intensity.
    let text = TWO_CHARTS
        .replace("SECOND", "b.svg")
        .replace("intensity=1,2", "intensity=-1,2");
    std::fs::write(d.join("s.toml"), text).unwrap();
    let o = run_in(&d, &["run", "s.toml", "--out-dir", "out"]);
    assert_eq!(o.status.code(), Some(65), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("query.1"), "{err}");
    assert!(
        err.contains("a.svg"),
        "the first query's chart is named: {err}"
    );
    assert_eq!(names(&d.join("out")), ["a.svg"]);
    std::fs::remove_dir_all(d).unwrap();
}

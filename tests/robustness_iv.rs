//! Issue 55 ("Robustness IV"), reproducer by reproducer: each input there
//! read outside a scenario's folder, aborted, panicked, ran long before
//! failing, or answered an impossible value with exit 0. Each must now
//! exit with the project's code for bad input (65 bad data, 2 usage) and a
//! message naming what was wrong, or answer. The expected codes and
//! message fragments come from that rule and the statement of
//! each case, not from the program's output.

use crate::common::words;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary in `dir` (the current folder when `None`), killed
/// after 120 s: a hang fails the test instead of stalling the suite. Its
/// output goes to files, so a long one (a 65,534-letter name) never fills
/// a pipe no one reads yet.
fn roofline_in(args: &[&str], dir: Option<&Path>) -> Output {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let base = std::env::temp_dir().join(format!(
        "roofline-robust4-out-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::SeqCst)
    ));
    let (out_p, err_p) = (base.with_extension("out"), base.with_extension("err"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_roofline"));
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_p).unwrap())
        .stderr(std::fs::File::create(&err_p).unwrap());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("hung: roofline {}", shown(args));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let o = Output {
        status,
        stdout: std::fs::read(&out_p).unwrap(),
        stderr: std::fs::read(&err_p).unwrap(),
    };
    let _ = std::fs::remove_file(out_p);
    let _ = std::fs::remove_file(err_p);
    o
}

fn shown(args: &[&str]) -> String {
    args.join(" ").chars().take(200).collect()
}

/// The run exits `code` without a panic, and its error holds every
/// fragment.
fn expect(args: &[&str], code: i32, fragments: &[&str]) -> Output {
    let out = roofline_in(args, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "roofline {}\nstderr: {err}",
        shown(args)
    );
    assert!(!err.contains("panicked"), "{err}");
    for f in fragments {
        assert!(
            err.contains(f),
            "roofline {}: `{f}` not in {err}",
            shown(args)
        );
    }
    out
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("roofline-robust4-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A line a file outside the scenario's folder holds: an error that
/// quotes it has read where it may not.
const SECRET: &str = "root:x:0:0:root:/root:/bin/bash";

/// How a path-valued field leaves its folder.
#[derive(Clone, Copy, Debug)]
enum Escape {
    Absolute,
    Parent,
    Symlink,
}

/// Item 1: every path-valued field a query can carry, as a field and as a
/// sweep, absolute, `../` and through a symbolic link, is refused (65)
/// before anything runs, and nothing outside is read or written.
#[test]
fn every_path_field_of_a_scenario_is_confined() {
    let d = tmp("confine");
    let sc = d.join("sc");
    let out = d.join("out");
    let outside = d.join("elsewhere");
    for dir in [&sc, &out, &outside] {
        std::fs::create_dir_all(dir).unwrap();
    }
    // The outside files: each a file its field would read.
    let engine = std::fs::read_to_string("engines/vllm.toml").unwrap();
    for (name, text) in [
        ("f.toml", format!("# {SECRET}\n{engine}")),
        ("f.csv", format!("{SECRET}\n")),
        ("f.json", format!("{SECRET}\n")),
    ] {
        std::fs::write(outside.join(name), text).unwrap();
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, sc.join("link")).unwrap();
        std::os::unix::fs::symlink(&outside, out.join("link")).unwrap();
    }
    // field, whether the scenario writes it, the file it names, and a
    // query that takes it as a field.
    let fields: &[(&str, bool, &str, &str)] = &[
        ("hw", false, "f.toml", "command = \"hw show\""),
        ("model", false, "f.toml", "command = \"model show\""),
        ("engine", false, "f.toml", "command = \"engine show\""),
        (
            "prefill-hw",
            false,
            "f.toml",
            "command = \"simulate\"\nmodel = \"llama-3-8b\"\nhw = \"h200-sxm\"\nrate = \"1/s\"\nprompt = 64\noutput = 8\nrequests = 4",
        ),
        (
            "trace",
            false,
            "f.csv",
            "command = \"simulate\"\nmodel = \"llama-3-8b\"\nhw = \"h200-sxm\"\nrequests = 4",
        ),
        (
            "file",
            false,
            "f.csv",
            "command = \"calibrate\"\nhw = \"h200-sxm\"",
        ),
        (
            "from",
            false,
            "f.json",
            "command = \"chart roofline\"\nhw = \"h100-sxm\"\nout = \"c.svg\"",
        ),
        (
            "out",
            true,
            "x.svg",
            "command = \"chart roofline\"\nhw = \"h100-sxm\"",
        ),
        (
            "chart",
            true,
            "x.svg",
            "command = \"point\"\nhw = \"h100-sxm\"\nsweep = [\"intensity=1,2\"]",
        ),
    ];
    let mut escapes = vec![Escape::Absolute, Escape::Parent];
    if cfg!(unix) {
        escapes.push(Escape::Symlink);
    }
    for &(field, writes, file, query) in fields {
        for &how in &escapes {
            let path = match how {
                Escape::Absolute => outside.join(file).display().to_string(),
                Escape::Parent if writes => format!("../elsewhere/{file}"),
                Escape::Parent => format!("../elsewhere/{file}"),
                Escape::Symlink => format!("link/{file}"),
            };
            let as_field = format!("{query}\n{field} = {path:?}");
            // The same path as a sweep's value, in a query that takes it
            // (the check comes before the command reads its flags).
            let as_sweep = format!(
                "command = \"point\"\nhw = \"h100-sxm\"\nintensity = 1\nsweep = [\"{field}={}\"]",
                path.replace('\\', "\\\\")
            );
            for (kind, q) in [("field", &as_field), ("sweep", &as_sweep)] {
                let f = sc.join("s.toml");
                std::fs::write(&f, format!("title = \"t\"\n\n[[query]]\n{q}\n")).unwrap();
                let o = roofline_in(
                    &[
                        "run",
                        f.to_str().unwrap(),
                        "--out-dir",
                        out.to_str().unwrap(),
                    ],
                    Some(&d),
                );
                let err = String::from_utf8_lossy(&o.stderr);
                assert_eq!(
                    o.status.code(),
                    Some(65),
                    "{field} as a {kind}, {how:?} ({path}): {err}"
                );
                assert!(
                    err.contains(if writes {
                        "output folder"
                    } else {
                        "--allow-path"
                    }),
                    "{field} as a {kind}, {how:?}: {err}"
                );
                assert!(
                    !err.contains(SECRET),
                    "{field}: quoted a file outside: {err}"
                );
                assert!(
                    !outside.join("x.svg").exists(),
                    "{field} as a {kind}, {how:?}: wrote outside"
                );
            }
        }
    }
    // A relative engine path is the scenario folder's, from any working
    // folder.
    std::fs::write(sc.join("mine.toml"), &engine).unwrap();
    let f = sc.join("s.toml");
    std::fs::write(
        &f,
        "title = \"t\"\n\n[[query]]\ncommand = \"engine show\"\nengine = \"mine.toml\"\n",
    )
    .unwrap();
    let o = roofline_in(
        &[
            "run",
            f.to_str().unwrap(),
            "--out-dir",
            out.to_str().unwrap(),
        ],
        Some(Path::new("/")),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Item 2: nesting past the bound is an error (65), not SIGABRT (134).
#[test]
fn calc_nesting_is_an_error_not_an_abort() {
    for expr in [
        format!("{}1", "-".repeat(15_000)),
        format!("{}1{}", "(".repeat(7_000), ")".repeat(7_000)),
        format!("{}2", "2^".repeat(20_000)),
    ] {
        expect(&["calc", &expr], 65, &["nests more than 200 levels"]);
    }
}

/// Item 3: a cell wider than 16 bits of columns, from a hardware or an
/// engine file's name or a long `calc` line, is cut, not a panic (101).
#[test]
fn wide_cells_are_cut_not_a_panic() {
    let long = "x".repeat(65_534);
    let hw_name = format!("name={long}");
    let engine_name = format!("engine.name={long}");
    let spaced = format!("1{}+ 1", " ".repeat(70_000));
    for args in [
        vec!["hw", "show", "h100-sxm", "--set", hw_name.as_str()],
        vec!["engine", "show", "vllm", "--set", engine_name.as_str()],
        vec!["calc", spaced.as_str()],
    ] {
        let o = expect(&args, 0, &[]);
        // The table's cell is cut at 1,000 columns, ending in an ellipsis.
        let text = String::from_utf8_lossy(&o.stdout);
        let cut = format!("{}…", if args[0] == "calc" { " " } else { "x" }.repeat(10));
        assert!(
            text.contains(&cut),
            "no cut cell in {}",
            &text[..text.len().min(500)]
        );
    }
}

/// Item 4: an unknown id that every point would fail on is reported
/// before the sweep: no row is printed.
#[test]
fn an_error_no_swept_value_changes_comes_before_the_sweep() {
    for args in [
        &words("kv --model nope --context 8192 --sweep batch=1..999999:1 --format csv")[..],
        &words("point --hw nope --intensity 8 --sweep flops=1..999999:1 --format csv")[..],
    ] {
        let o = expect(args, 65, &["nope"]);
        assert!(o.stdout.is_empty(), "rows were printed before the error");
    }
}

/// Item 5: numbers outside their plausible range, from a file or a flag,
/// are refused (65) naming the field.
#[test]
fn implausible_numbers_are_refused_naming_the_field() {
    let hw = ["hw", "show", "h100-sxm", "--set"];
    for v in ["-1", "nan", "0"] {
        let set = format!("memory.levels.1.bytes-per-cycle={v}");
        let mut a = hw.to_vec();
        a.push(&set);
        expect(&a, 65, &["memory.levels.1.bytes-per-cycle"]);
    }
    let kv = words("kv --model llama-3-8b --context 8192 --hw h200-sxm --tp");
    // plan's rules: the heads must divide, the group stay in the domain.
    for (tp, says) in [("1000000", "tp"), ("3", "divides neither")] {
        let mut a = kv.to_vec();
        a.push(tp);
        expect(&a, 65, &[says]);
        let plan = [
            "plan",
            "--model",
            "llama-3-8b",
            "--hw",
            "h200-sxm",
            "--tp",
            tp,
            "--pp",
            "1",
        ];
        expect(&plan, 65, &[says]);
    }
    expect(
        &[
            "engine",
            "show",
            "vllm",
            "--set",
            "engine.all-reduce.latency=1e308 s",
        ],
        65,
        &["all-reduce.latency", "1e9 s"],
    );
    expect(
        &words("engine show vllm --set engine.all-reduce.one-shot-devices=0"),
        65,
        &["all-reduce.one-shot-devices"],
    );
    let d = tmp("card");
    let model = std::fs::read_to_string("models/llama-3-8b.toml")
        .unwrap()
        .replacen("\nname = ", "\ncard-params = 4.9e-324\nname = ", 1);
    assert!(model.contains("card-params"));
    let p = d.join("m.toml");
    std::fs::write(&p, model).unwrap();
    expect(
        &["model", "show", p.to_str().unwrap()],
        65,
        &["card-params"],
    );
    expect(
        &words("launch --hw h100-sxm --kernels 400 --overhead 1e308us"),
        65,
        &["--overhead", "1e9 s"],
    );
    expect(
        &words("prefill --model llama-3-8b --hw h200-sxm --prompt 4096 --measured 1e308ns"),
        65,
        &["--measured", "1e9 s"],
    );
    expect(
        &words("speculative --acceptance 0.8 --draft-tokens 4 --draft-cost 1e308"),
        65,
        &["--draft-cost"],
    );
    expect(
        &words(
            "decode --model llama-3-8b --hw h200-sxm --batch 8 --context 2048 --acceptance 0.8 \
             --draft-cost 1e308",
        ),
        65,
        &["--draft-cost"],
    );
    expect(
        &words("occupancy --hw h100-sxm --threads 256 --regs 32 --target-occupancy 1e-320"),
        65,
        &["--target-occupancy", "0.1%"],
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Item 7: a malformed file read with `--set` is named by its path and
/// line, and its line is not reprinted under a caret.
#[test]
fn a_malformed_file_with_set_is_named_by_path_and_line_not_quoted() {
    let d = tmp("quote");
    let text = std::fs::read_to_string("hardware/h100-sxm.toml")
        .unwrap()
        .replacen("\n[memory]\n", "\n[memory]\nbogus = = 1\n", 1);
    let line = text.lines().position(|l| l == "bogus = = 1").unwrap() + 1;
    let p = d.join("bad.toml");
    std::fs::write(&p, &text).unwrap();
    let path = p.to_str().unwrap();
    for args in [
        vec!["hw", "show", path],
        vec!["hw", "show", path, "--set", "clock.boost=1GHz"],
    ] {
        let o = expect(&args, 65, &[&format!("{path}:{line}")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("bogus = = 1"), "reprinted the line: {err}");
        assert!(!err.contains("--set:"), "named --set, not the file: {err}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Item 8: input that was parsed and dropped is used or refused.
#[test]
fn ignored_input_is_refused() {
    expect(
        &words(
            "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 32 \
             --reserve step:100000000,1",
        ),
        65,
        &["--reserve", "step shape"],
    );
    expect(&["engine", "show", ""], 65, &["empty engine id"]);
    expect(
        &[
            "decode",
            "--model",
            "llama-3-8b",
            "--hw",
            "h200-sxm",
            "--batch",
            "8",
            "--context",
            "2048",
            "--engine",
            "",
        ],
        65,
        &["--engine", "empty engine id"],
    );
}

/// Item 9: a sweep over fleet searches is bounded, with the reason.
#[test]
fn a_fleet_sweep_is_bounded() {
    expect(
        &words(
            "fleet --model llama-3.1-70b --hw h200-sxm --rate 40/s --prompt 2048 --output 300 \
             --slo-tpot 50ms --sweep budgets=1..1000:1",
        ),
        65,
        &["--sweep", "at most 64 points"],
    );
}

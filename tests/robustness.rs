//! The crash corpus of issue 27, case by case: every input there panicked,
//! hung, ran out of memory or answered with a non-answer. Each must now
//! exit with the code the project's rule gives bad input (65 bad data,
//! 2 usage) and a message naming what was wrong, or answer properly. The
//! expected codes and message fragments come from that rule and from the
//! issue's statement of each case, not from the program's output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn roofline(args: &[&str]) -> Output {
    roofline_in(args, None)
}

/// Runs the binary, killed after 60 s: a hang fails the test instead of
/// stalling the suite.
fn roofline_in(args: &[&str], dir: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_roofline"));
    cmd.args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("hung: roofline {}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn expect(args: &[&str], code: i32, fragments: &[&str]) {
    let out = roofline(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "roofline {}\nstderr: {err}",
        args.join(" ")
    );
    assert!(!err.contains("panicked"), "{err}");
    for f in fragments {
        assert!(
            err.contains(f),
            "roofline {}: `{f}` not in {err}",
            args.join(" ")
        );
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("roofline-robust-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const PLAN: &[&str] = &["plan", "--model", "llama-3.1-70b", "--hw", "h200-sxm"];

fn with(base: &[&str], more: &[&str]) -> Vec<String> {
    base.iter().chain(more).map(|s| s.to_string()).collect()
}

fn expect_v(args: Vec<String>, code: i32, fragments: &[&str]) {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    expect(&a, code, fragments);
}

#[test]
fn huge_counts_are_refused_naming_the_flag() {
    let tp = ["--devices", "8", "--tp", "8"];
    expect_v(
        with(PLAN, &[&tp[..], &["--batch", "1e19"]].concat()),
        65,
        &["--batch"],
    );
    expect_v(
        with(
            PLAN,
            &[
                &tp[..],
                &["--batch", "32", "--prompt", "12345678901234567890"],
            ]
            .concat(),
        ),
        65,
        &["--prompt"],
    );
    expect_v(
        with(
            PLAN,
            &[
                &tp[..],
                &["--batch", "32", "--microbatches", "18446744073709551615"],
            ]
            .concat(),
        ),
        65,
        &["--microbatches"],
    );
    for (hw, n) in [
        ("h200-sxm", "18446744073709551615"),
        ("trainium3", "12345678901234567890"),
    ] {
        expect(
            &[
                "collective",
                "all-reduce",
                "--hw",
                hw,
                "--devices",
                n,
                "--bytes",
                "1GiB",
            ],
            65,
            &["--devices"],
        );
    }
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
            "18446744073709551615",
            "--force",
        ],
        65,
        &["--context"],
    );
}

#[test]
fn counts_at_the_bound_answer_or_refuse_without_overflow() {
    // 2^53 itself is accepted at the boundary; whatever the calculation
    // makes of it, it must not panic.
    let n = "9007199254740992";
    for args in [
        with(
            PLAN,
            &["--devices", "8", "--tp", "8", "--batch", n, "--prompt", n],
        ),
        with(
            PLAN,
            &[
                "--devices",
                "8",
                "--tp",
                "8",
                "--batch",
                "32",
                "--microbatches",
                n,
            ],
        ),
        with(PLAN, &["--devices", n, "--tp", "8", "--batch", "32"]),
        with(PLAN, &["--devices", n, "--batch", "32", "--search"]),
        vec![
            "collective",
            "all-reduce",
            "--hw",
            "trainium3",
            "--devices",
            n,
            "--bytes",
            "1GiB",
        ]
        .into_iter()
        .map(String::from)
        .collect(),
    ] {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = roofline(&a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 1 | 65)),
            "{}: {err}",
            args.join(" ")
        );
    }
}

#[test]
fn a_model_file_with_a_huge_layer_count_names_the_field() {
    let d = tmp("layers");
    let src = std::fs::read_to_string("models/llama-3.1-405b.toml").unwrap();
    let text = src.replacen("\nlayers = 126", "\nlayers = 0x7fffffffffffffff", 1);
    assert_ne!(text, src, "the fixture's layer count moved");
    let f = d.join("huge.toml");
    std::fs::write(&f, text).unwrap();
    expect(
        &[
            "decode",
            "--model",
            f.to_str().unwrap(),
            "--hw",
            "h200-sxm",
            "--batch",
            "8",
            "--context",
            "2048",
        ],
        65,
        &["layers"],
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn charts_refuse_what_they_cannot_draw() {
    let d = tmp("charts");
    let out = d.join("x.svg");
    let out = out.to_str().unwrap();
    expect(
        &[
            "chart",
            "occupancy",
            "--hw",
            "h100-sxm",
            "--smem",
            "1TB",
            "--out",
            out,
        ],
        65,
        &["--smem"],
    );
    for p in ["p:1e307", "p:1e-306", "p:1e-320", "g:1e308FLOP/1B"] {
        expect(
            &[
                "chart", "roofline", "--hw", "h100-sxm", "--point", p, "--out", out,
            ],
            65,
            &["--point"],
        );
    }
    assert!(!Path::new(out).exists(), "a refused chart wrote its file");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn tiny_inputs_are_refused_not_answered_as_zero() {
    expect(
        &[
            "point",
            "--hw",
            "h100-sxm",
            "--flops",
            "1e-320FLOP",
            "--bytes",
            "1e-320B",
        ],
        65,
        &["too small"],
    );
    expect(
        &[
            "collective",
            "all-reduce",
            "--hw",
            "h200-sxm",
            "--devices",
            "8",
            "--bytes",
            "1e-320B",
        ],
        65,
        &["--bytes", "too small"],
    );
    expect(
        &["hw", "show", "h200-sxm", "--clock", "1e-320MHz"],
        65,
        &["--clock", "too small"],
    );
    expect(
        &["littles-law", "--hw", "h100-sxm", "--pointer", "4.9e-324"],
        65,
        &["--pointer"],
    );
    // The bandwidth is named, as an input too small, not a result too large.
    expect(
        &[
            "hw",
            "show",
            "h200-sxm",
            "--set",
            "memory.hbm-bandwidth=1e-320 GB/s",
        ],
        65,
        &["memory.hbm-bandwidth", "too small"],
    );
}

#[test]
fn targets_of_zero_or_below_are_refused() {
    expect_v(
        with(
            PLAN,
            &[
                "--devices",
                "8",
                "--objective",
                "goodput",
                "--slo-tpot",
                "0us",
                "--slo-ttft",
                "0s",
            ],
        ),
        65,
        &["--slo-"],
    );
    expect_v(
        with(
            PLAN,
            &["--devices", "8", "--objective", "goodput", "--slo-tpot=-1s"],
        ),
        65,
        &["--slo-tpot"],
    );
}

#[test]
fn sweeps_of_inputs_the_command_does_not_read_are_refused() {
    expect(
        &[
            "speculative",
            "--acceptance",
            "0.8",
            "--draft-tokens",
            "4",
            "--sweep",
            "model=a,b",
        ],
        65,
        &["--sweep", "model"],
    );
    expect(
        &[
            "collective",
            "all-reduce",
            "--hw",
            "h200-sxm",
            "--devices",
            "8",
            "--bytes",
            "1GiB",
            "--sweep",
            "model=x,y",
        ],
        65,
        &["--sweep", "model"],
    );
    expect(
        &["model", "show", "llama-3-8b", "--sweep", "hw=NaN,1"],
        65,
        &["--sweep", "hw"],
    );
}

#[test]
fn a_step_has_at_least_one_kernel() {
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
            "--kernels",
            "0",
        ],
        65,
        &["--kernels"],
    );
}

#[test]
fn messages_say_what_is_wrong() {
    // A sweep's tiny value is shown in scientific notation, not as a
    // 330-character decimal, and refused where the sweep is parsed.
    let out = roofline(&[
        "occupancy",
        "--hw",
        "h100-sxm",
        "--threads",
        "256",
        "--regs",
        "32",
        "--sweep",
        "carveout=1e-320..1e-300",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(65), "{err}");
    assert!(err.len() < 300, "{err}");
    // The precision asked for is the one named.
    expect(
        &["hw", "show", "tpu-v1", "--dtype", "int4"],
        65,
        &["no peak for int4"],
    );
    // `.svg` is a hidden file's name with no stem, not a missing extension.
    let out = roofline(&["chart", "roofline", "--hw", "h100-sxm", "--out", ".svg"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(65), "{err}");
    assert!(!err.contains("has no extension"), "{err}");
    // Nothing to draw says why.
    let d = tmp("nothing");
    let out = roofline(&[
        "chart",
        "decode",
        "--model",
        "llama-2-7b",
        "--hw",
        "tpu-v1",
        "--out",
        d.join("x.svg").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.trim_end().ends_with("nothing to draw:"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_chart_on_standard_output_beside_json_is_refused() {
    expect(
        &[
            "point",
            "--hw",
            "h100-sxm",
            "--sweep",
            "intensity=1,2",
            "--chart",
            "-",
            "--format",
            "json",
        ],
        2,
        &["--chart"],
    );
}

#[test]
fn a_failing_point_is_a_row_and_only_an_all_failing_sweep_fails() {
    let out = roofline(&[
        "point",
        "--hw",
        "h100-sxm,tpu-v1",
        "--dtype",
        "fp8",
        "--intensity",
        "10",
        "--format",
        "csv",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with(",error"), "{text}");
    assert!(
        lines[1].ends_with(','),
        "the answering row's error is empty: {text}"
    );
    assert!(
        lines[2].contains("tpu-v1") && lines[2].contains("fp8"),
        "{text}"
    );
    // A streamed sweep carries the column too.
    let out = roofline(&[
        "point",
        "--hw",
        "h100-sxm",
        "--sweep",
        "intensity=1,2",
        "--format",
        "csv",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().next().unwrap().ends_with(",error"), "{text}");
    let out = roofline(&[
        "point",
        "--hw",
        "h100-sxm",
        "--sweep",
        "intensity=1,2",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["error"].is_null()),
        "{v}"
    );
    // Every point failing: the first point's code.
    expect(
        &[
            "point",
            "--hw",
            "tpu-v1",
            "--dtype",
            "fp8",
            "--sweep",
            "intensity=1,2",
            "--format",
            "csv",
        ],
        65,
        &["intensity=1"],
    );
}

/// A scenario in its own folder with one query.
fn scenario(dir: &Path, query: &str) -> PathBuf {
    let sc = dir.join("sc");
    std::fs::create_dir_all(&sc).unwrap();
    let f = sc.join("s.toml");
    std::fs::write(&f, format!("title = \"t\"\n\n[[query]]\n{query}\n")).unwrap();
    f
}

fn run_scenario(dir: &Path, f: &Path, more: &[&str]) -> Output {
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut args = vec![
        "run",
        f.to_str().unwrap(),
        "--out-dir",
        out_dir.to_str().unwrap(),
    ];
    args.extend(more);
    roofline_in(&args, Some(dir))
}

const CHART: &str = "command = \"chart roofline\"\nhw = \"h100-sxm\"\n";

#[test]
fn a_scenario_cannot_write_outside_its_output_folder() {
    let d = tmp("escape-write");
    let abs = d.join("abs.svg");
    let cases = [
        ("../escaped.svg".to_string(), d.join("escaped.svg")),
        ("sub/../../escaped2.svg".to_string(), d.join("escaped2.svg")),
        (abs.display().to_string(), abs.clone()),
    ];
    for (out, target) in &cases {
        let f = scenario(&d, &format!("{CHART}out = {:?}", out));
        let o = run_scenario(&d, &f, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(65), "{out}: {err}");
        assert!(err.contains("query.0.out"), "{err}");
        assert!(!target.exists(), "{out} was written");
    }
    // A second query that escapes stops the run before the first writes.
    let f = scenario(
        &d,
        &format!("{CHART}out = \"fine.svg\"\n\n[[query]]\n{CHART}out = \"../late.svg\""),
    );
    let o = run_scenario(&d, &f, &[]);
    assert_eq!(o.status.code(), Some(65));
    assert!(
        !d.join("out/fine.svg").exists(),
        "the run wrote before refusing"
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&d, d.join("out/link")).unwrap();
        let f = scenario(&d, &format!("{CHART}out = \"link/linked.svg\""));
        let o = run_scenario(&d, &f, &[]);
        assert_eq!(
            o.status.code(),
            Some(65),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!d.join("linked.svg").exists());
    }
    // Inside the folder is fine.
    let f = scenario(&d, &format!("{CHART}out = \"sub-ok.svg\""));
    let o = run_scenario(&d, &f, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(d.join("out/sub-ok.svg").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_scenario_reads_only_its_folder_and_allowed_ones() {
    let d = tmp("escape-read");
    let hw = std::fs::read_to_string("hardware/h100-sxm.toml").unwrap();
    std::fs::create_dir_all(d.join("elsewhere")).unwrap();
    std::fs::write(d.join("elsewhere/mine.toml"), &hw).unwrap();
    let abs = d.join("elsewhere/mine.toml").display().to_string();
    for path in ["../elsewhere/mine.toml", abs.as_str()] {
        for query in [
            format!("command = \"hw show\"\nhw = {path:?}"),
            format!("command = \"point\"\nhw = {path:?}\nintensity = 10"),
        ] {
            let f = scenario(&d, &query);
            let o = run_scenario(&d, &f, &[]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(65), "{query}: {err}");
            assert!(err.contains("--allow-path"), "{err}");
        }
    }
    // A sweep over hardware files is read under the same rule.
    let f = scenario(
        &d,
        &format!(
            "command = \"point\"\nhw = \"h100-sxm\"\nintensity = 10\nsweep = [\"hw=h100-sxm,{abs}\"]"
        ),
    );
    let o = run_scenario(&d, &f, &[]);
    assert_eq!(
        o.status.code(),
        Some(65),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Allowed with --allow-path.
    let f = scenario(
        &d,
        &format!("command = \"point\"\nhw = {abs:?}\nintensity = 10"),
    );
    let allow = d.join("elsewhere").display().to_string();
    let o = run_scenario(&d, &f, &["--allow-path", &allow]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Issue 42: a trace, a prefill part and calibrate's measurement file
/// were read from anywhere (`trace = "/etc/passwd"` printed its first
/// line); `man`'s `dir` wrote anywhere. Each is now confined, and a trace
/// beside the scenario is found from another working folder.
#[test]
fn a_scenario_confines_traces_prefill_parts_measurements_and_man_pages() {
    let d = tmp("escape-42");
    let sim = "command = \"simulate\"\nmodel = \"llama-3-8b\"\nhw = \"h200-sxm\"\nrequests = 4";
    std::fs::create_dir_all(d.join("elsewhere")).unwrap();
    let secret = d.join("elsewhere/secret.csv");
    std::fs::write(&secret, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
    let abs = secret.display().to_string();
    for query in [
        format!("{sim}\ntrace = {abs:?}"),
        format!("{sim}\nrate = \"1/s\"\nprompt = 64\noutput = 8\nprefill-hw = {abs:?}"),
        format!("command = \"calibrate\"\nhw = \"h200-sxm\"\nfile = {abs:?}"),
        "command = \"man\"\ndir = \"../escaped\"".to_string(),
    ] {
        let f = scenario(&d, &query);
        let o = run_scenario(&d, &f, &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(65), "{query}: {err}");
        assert!(
            !err.contains("root:x"),
            "quoted a file it may not read: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!d.join("escaped").exists(), "man wrote outside --out-dir");
    // `man` is refused as a query, not blamed on a sweep it was not given.
    let f = scenario(&d, "command = \"man\"");
    let err = String::from_utf8_lossy(&run_scenario(&d, &f, &[]).stderr).to_string();
    assert!(
        err.contains("run it from the shell") && !err.contains("sweep"),
        "{err}"
    );
    // A trace beside the scenario resolves against the scenario's folder.
    std::fs::create_dir_all(d.join("sc")).unwrap();
    std::fs::write(
        d.join("sc/t.csv"),
        "arrival_s,prompt_tokens,output_tokens\n0,64,8\n0.5,64,8\n",
    )
    .unwrap();
    let f = scenario(&d, &format!("{sim}\ntrace = \"t.csv\""));
    let o = roofline_in(
        &["run", f.to_str().unwrap(), "--out-dir", d.to_str().unwrap()],
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

//! The command-line fuzz in one process: the inputs of `fuzz_command_lines`
//! (tests/fuzz_gen.rs: the crash corpus, then generated command lines and
//! mutated files) run through the binary's own entry
//! ([`cli::entry::main_captured`], the `main` of src/main.rs with the
//! output discarded and the error captured) instead of a process each, so
//! that 10^6 inputs take hours, not days. Each input must satisfy what the
//! process-spawning driver asks ([`fuzz_gen::judge`]): a documented exit
//! code, no panic (caught here with `catch_unwind`), no file written or
//! quoted outside a scenario's folder, no line of a user's file reprinted.
//! The spawning driver stays: only it sees an abort and an exit code as a
//! user does; here an abort (a stack overflow) ends the run, and the input
//! that caused it is left in `current-input.txt`, written before each
//! input runs. A watchdog thread stops the run on an input past the time
//! limit, naming it.
//!
//! Settings (environment): `ROOFLINE_FUZZ_INPUTS` (how many generated
//! inputs; without it, `ROOFLINE_FUZZ_SECS` seconds, default 10),
//! `ROOFLINE_FUZZ_SEED`, `ROOFLINE_FUZZ_LIMIT_SECS` (an input past it is a
//! hang; default 300, as the spawning driver's), `ROOFLINE_FUZZ_SLOW_SECS`
//! (an input past it is listed in `slow.txt`; default 10) and
//! `ROOFLINE_FUZZ_DIR` (the working folder; it keeps `current-input.txt`,
//! `progress.txt`, `slow.txt` and `findings.txt`). docs/validation.md has the long run's command.

#[allow(dead_code, unused_imports)]
#[path = "../../src/cli/mod.rs"]
mod cli;

#[path = "../fuzz_gen.rs"]
mod fuzz_gen;

use fuzz_gen::{Rng, corpus, generate, judge};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

/// The input now running (its number), and when it started (ms since the
/// run began, plus one; zero between inputs), for the watchdog.
static RUNNING: AtomicU64 = AtomicU64::new(0);
static STARTED: AtomicU64 = AtomicU64::new(0);
/// The last panic's message and place, from the panic hook.
static PANIC: Mutex<String> = Mutex::new(String::new());

/// An argument list as a shell line, each word quoted where it needs it.
fn shell(args: &[String]) -> String {
    let words: Vec<String> = args
        .iter()
        .map(|a| {
            if !a.is_empty()
                && a.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+%@".contains(&b))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect();
    format!("roofline {}", words.join(" "))
}

/// The resident memory of this process in MiB, to show that a long run
/// does not grow.
fn rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| (pages * 4096) >> 20)
}

fn append(path: &Path, text: &str) {
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(text.as_bytes());
    }
}

fn main() {
    let seed = env_u64("ROOFLINE_FUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            | 1
    });
    let inputs = env_u64("ROOFLINE_FUZZ_INPUTS");
    let budget = Duration::from_secs(env_u64("ROOFLINE_FUZZ_SECS").unwrap_or(10));
    let limit = Duration::from_secs(env_u64("ROOFLINE_FUZZ_LIMIT_SECS").unwrap_or(300));
    // Inputs slower than this are listed (not failed) in `slow.txt`, so a
    // long run shows every slow class, not only its slowest input.
    let slow = Duration::from_secs(env_u64("ROOFLINE_FUZZ_SLOW_SECS").unwrap_or(10));
    let dir: PathBuf = std::env::var_os("ROOFLINE_FUZZ_DIR").map_or_else(
        || std::env::temp_dir().join(format!("roofline-fuzz-cli-{}", std::process::id())),
        PathBuf::from,
    );
    std::fs::create_dir_all(dir.join("out")).expect("the fuzz folder");
    let dir = dir.canonicalize().expect("the fuzz folder");
    // A relative path an input names (`--out-dir 1..0`) lands in a scratch
    // folder, never in the repository: the spawning driver runs its
    // children there too.
    let cwd = dir.join("cwd");
    std::fs::create_dir_all(&cwd).expect("the scratch folder");
    std::env::set_current_dir(&cwd).expect("the scratch folder");
    let current = dir.join("current-input.txt");
    let progress = dir.join("progress.txt");
    let findings = dir.join("findings.txt");
    let slow_list = dir.join("slow.txt");

    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut p) = PANIC.lock() {
            *p = info.to_string();
        }
    }));

    let start = Instant::now();
    {
        let current = current.clone();
        let findings = findings.clone();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(200));
                let began = STARTED.load(Ordering::SeqCst);
                if began == 0 {
                    continue;
                }
                let ran = start
                    .elapsed()
                    .saturating_sub(Duration::from_millis(began - 1));
                if ran > limit {
                    let input = std::fs::read_to_string(&current).unwrap_or_default();
                    let msg = format!(
                        "hung: input {} ran past {limit:?} (seed {seed}):\n{input}\n",
                        RUNNING.load(Ordering::SeqCst)
                    );
                    append(&findings, &msg);
                    eprintln!("{msg}");
                    std::process::exit(3);
                }
            }
        });
    }

    let mut r = Rng(seed);
    let mut corpus = corpus(&dir).into_iter();
    let mut n: u64 = 0;
    let mut failed = 0u64;
    let mut codes = [0u64; 256];
    let mut slowest = (Duration::ZERO, String::new());
    let mut generated = 0u64;
    loop {
        let args = match corpus.next() {
            Some(a) => a,
            None => {
                let more = match inputs {
                    Some(k) => generated < k,
                    None => start.elapsed() < budget,
                };
                if !more {
                    break;
                }
                generated += 1;
                // Files are named by a slot that is reused, so that a
                // long run keeps a bounded folder.
                generate(&mut r, &dir, (n % 64) as usize)
            }
        };
        n += 1;
        let line = shell(&args);
        let _ = std::fs::write(&current, format!("seed {seed}, input {n}\n{line}\n"));
        let mut argv = vec!["roofline".to_string()];
        argv.extend(args.iter().cloned());
        let mut err = Vec::new();
        RUNNING.store(n, Ordering::SeqCst);
        let t0 = Instant::now();
        STARTED.store(start.elapsed().as_millis() as u64 + 1, Ordering::SeqCst);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            cli::entry::main_captured(&argv, &mut err)
        }));
        STARTED.store(0, Ordering::SeqCst);
        let took = t0.elapsed();
        if took > slowest.0 {
            slowest = (took, line.clone());
        }
        let err = String::from_utf8_lossy(&err);
        if took > slow {
            // The exit code and the error's first line tell a slow answer
            // from a slow failure, whose file slot is reused soon after.
            let code = result.as_ref().map_or(-1, |c| i32::from(*c));
            append(
                &slow_list,
                &format!(
                    "{:.1} s, exit {code}, input {n}: {line}\n    {}\n",
                    took.as_secs_f64(),
                    err.lines().next().unwrap_or("")
                ),
            );
        }
        let verdict = match result {
            Ok(code) => {
                codes[code as usize] += 1;
                judge(&args, Some(i32::from(code)), &err, &dir)
            }
            Err(_) => Err(format!(
                "panicked: {}",
                PANIC.lock().map(|p| p.clone()).unwrap_or_default()
            )),
        };
        if let Err(why) = verdict {
            failed += 1;
            let msg = format!("seed {seed}, input {n}: {line}\n{why}\n\n");
            append(&findings, &msg);
            eprint!("{msg}");
            // The escaped file would fail every input after it.
            let _ = std::fs::remove_file("/tmp/roofline-fuzz-escaped.svg");
            let _ = std::fs::remove_file(dir.join("escaped.svg"));
            let _ = std::fs::remove_file(dir.join("escaped.toml"));
        }
        if n.is_multiple_of(10_000) {
            append(
                &progress,
                &format!(
                    "{n} inputs in {:.0} s, {failed} failed, {} MiB resident\n",
                    start.elapsed().as_secs_f64(),
                    rss_mib()
                ),
            );
        }
    }
    let tally: Vec<String> = codes
        .iter()
        .enumerate()
        .filter(|(_, k)| **k > 0)
        .map(|(c, k)| format!("exit {c}: {k}"))
        .collect();
    let summary = format!(
        "fuzz_cli: {n} inputs ({generated} generated) in {:.1} s (seed {seed}), {failed} failed; {}; slowest {:.2?}: {}; {} MiB resident\n",
        start.elapsed().as_secs_f64(),
        tally.join(", "),
        slowest.0,
        slowest.1.chars().take(300).collect::<String>(),
        rss_mib()
    );
    append(&progress, &summary);
    eprint!("{summary}");
    if failed > 0 {
        eprintln!("findings in {}", findings.display());
        std::process::exit(1);
    }
    if std::env::var_os("ROOFLINE_FUZZ_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Whole-process benchmarks: the built `roofline` binary started, run and
//! reaped, as a user's shell runs it, so start-up (loading the binary,
//! building the command-line parser, parsing the one catalog file a query
//! needs) is in the figure. SPEC ("Speed") asks for a single query under
//! 10 ms on a 2-core machine, about 2 ms as the aim; a process that does
//! nothing is the floor.

use criterion::{Criterion, criterion_group, criterion_main};
mod process;
use process::run;
use std::time::Duration;

fn startup(c: &mut Criterion) {
    let bin = env!("CARGO_BIN_EXE_roofline");
    let mut g = c.benchmark_group("whole process");
    g.sample_size(50);
    g.measurement_time(Duration::from_secs(3));
    // The floor: starting a process that does nothing.
    if cfg!(unix) && std::path::Path::new("/bin/true").exists() {
        g.bench_function("/bin/true (process start)", |b| {
            b.iter(|| run("/bin/true", &[]))
        });
    }
    // One decode query, timed as given and with --achievable.
    let decode = [
        "decode",
        "--model",
        "llama-3-8b",
        "--hw",
        "h200-sxm",
        "--batch",
        "8",
        "--context",
        "2048",
    ];
    let decode_achievable = [&decode[..], &["--achievable"]].concat();
    let queries: [(&str, &[&str]); 7] = [
        ("roofline --version", &["--version"]),
        ("decode llama-3-8b h200-sxm batch 8 context 2048", &decode),
        (
            "decode llama-3-8b h200-sxm batch 8 context 2048 --achievable",
            &decode_achievable,
        ),
        (
            "prefill llama-3-8b h100-sxm prompt 8192",
            &[
                "prefill",
                "--model",
                "llama-3-8b",
                "--hw",
                "h100-sxm",
                "--prompt",
                "8192",
            ],
        ),
        (
            "matmul h200-sxm 8192^3 tile 128",
            &[
                "matmul", "--hw", "h200-sxm", "--m", "8192", "--n", "8192", "--k", "8192",
                "--tile", "128",
            ],
        ),
        (
            "point h100-sxm intensity 100",
            &["point", "--hw", "h100-sxm", "--intensity", "100"],
        ),
        ("hw list (every built-in file)", &["hw", "list"]),
    ];
    for (name, args) in queries {
        g.bench_function(name, |b| b.iter(|| run(bin, args)));
    }
    g.finish();
}

criterion_group!(benches, startup);
criterion_main!(benches);

//! Whole-process benchmarks of sweeps: the built `roofline` binary started,
//! a grid worked and written as CSV to a discarded pipe, and the process
//! reaped, as a user's shell runs it. SPEC ("Speed") budgets a
//! 10,000-point sweep of any calculator at 50 ms and a 100,000-point grid
//! at 0.5 s on the 2-core machine. The two command lines are the ones that
//! had slipped past their budgets (9.5 s and 1.9 s of CPU) while a swept
//! flag the command requires (`occupancy --regs`, `matmul --k`) sent every
//! point through a fresh parse of the command line.

use criterion::{Criterion, criterion_group, criterion_main};
mod process;
use process::run;
use std::time::Duration;

fn sweeps(c: &mut Criterion) {
    let bin = env!("CARGO_BIN_EXE_roofline");
    let mut g = c.benchmark_group("whole-process sweep");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(5));
    // 240 register counts x 417 shared-memory sizes = 100,080 points.
    let occupancy = [
        "occupancy",
        "--hw",
        "h100-sxm",
        "--threads",
        "256",
        "--sweep",
        "regs=16..255:1",
        "--sweep",
        "smem=0..212992:512B",
        "--format",
        "csv",
    ];
    g.bench_function("occupancy grid 100,080 points csv", |b| {
        b.iter(|| run(bin, &occupancy))
    });
    let matmul = [
        "matmul",
        "--hw",
        "h100-sxm",
        "--m",
        "4096",
        "--n",
        "4096",
        "--sweep",
        "k=1..10000:1",
        "--format",
        "csv",
    ];
    g.bench_function("matmul sweep of k 10,000 points csv", |b| {
        b.iter(|| run(bin, &matmul))
    });
    g.finish();
}

criterion_group!(benches, sweeps);
criterion_main!(benches);

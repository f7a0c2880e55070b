//! The `roofline` binary: parse arguments, run the library, write the
//! bytes it returns. Exit codes: 0 success, 1 no answer, 2 bad usage,
//! 65 bad data, 74 I/O failure; a closed pipe is not an error. The whole
//! run is [`cli::entry::main`], which the in-process fuzz driver
//! (tests/fuzz_cli) calls too.

mod cli;

// A sweep's rows allocate many small maps; mimalloc is cheaper at that
// than glibc's allocator (benches/sweep_process.rs).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    ExitCode::from(cli::entry::main(&argv))
}

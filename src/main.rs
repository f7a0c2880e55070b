//! The `roofline` binary: parse arguments, run the library, write the
//! bytes it returns. Exit codes: 0 success, 1 no answer, 2 bad usage,
//! 65 bad data, 74 I/O failure; a closed pipe is not an error.

mod cli;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use roofline::render::{Format, explain_all};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    // The command line is parsed once: building clap's command tree is
    // most of a query's start-up.
    let parsed = cli::parse(&argv);
    if let Ok(c) = &parsed
        && let Some(chart) = cli::chart::run_chart(c, &argv)
    {
        return match chart {
            Ok(out) => write_chart(&out).err().unwrap_or(ExitCode::SUCCESS),
            Err(e) => fail(&e),
        };
    }
    let (global, output) = match cli::execute(&argv, parsed) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let mut reports = match output {
        cli::Output::Bytes(bytes) => return write(&bytes),
        cli::Output::Reports(r) => r,
    };
    if global.all {
        for r in &mut reports {
            r.headline.clear();
        }
    }
    // JSON already carries every derivation; CSV has nowhere to put one.
    let explain = global.explain && global.format != cli::FormatArg::Json;
    if explain && global.format == cli::FormatArg::Csv {
        eprintln!(
            "error: --explain has no CSV form; use --format json for the derivations as data"
        );
        return ExitCode::from(2);
    }
    let bytes = if explain {
        explain_all(&reports, global.format == cli::FormatArg::Markdown)
    } else {
        let report = if reports.len() == 1 {
            reports.into_iter().next().expect("one report")
        } else {
            cli::combine_points(reports)
        };
        let bytes = Format::from(global.format).renderer().render(&report);
        // The process ends next: a sweep's hundred thousand rows are left
        // for the operating system to reclaim rather than freed one by one.
        std::mem::forget(report);
        bytes
    };
    write(&bytes)
}

/// Writes the output; a closed pipe is not an error.
fn write(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: writing output: {e}");
            ExitCode::from(74)
        }
    }
}

/// Writes a chart; a failure is an I/O error (exit 74).
fn write_chart(out: &cli::chart::ChartOut) -> Result<(), ExitCode> {
    cli::chart::write(out).map_err(|e| fail(&e.into()))
}

/// Whether clap refused a flag's value rather than the command line's
/// shape: a value that fails to parse (`--m -5`, `--threads 1e99`) or a
/// choice not in a flag's list (`--format xml`) is bad data (65), as the
/// library's own value checks are; an unknown command, flag or positional
/// kind (`collective allreduce`), a missing argument or a flag given twice
/// stays bad usage (2).
fn value_error(c: &clap::Error) -> bool {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    match c.kind() {
        ErrorKind::ValueValidation => true,
        ErrorKind::InvalidValue => matches!(
            c.get(ContextKind::InvalidArg),
            Some(ContextValue::String(a)) if a.starts_with("--")
        ),
        _ => false,
    }
}

fn fail(e: &anyhow::Error) -> ExitCode {
    if e.downcast_ref::<cli::Streamed>().is_some() {
        return ExitCode::SUCCESS;
    }
    // A scenario's queries that answered before one failed are printed
    // first; the error and its code follow.
    if let Some(p) = e.downcast_ref::<cli::run::Partial>() {
        // A failed write is left to the error below; a closed pipe is not one.
        let _ = write(&p.done);
    }
    // A closed pipe while a sweep streams is not an error.
    if e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    }) {
        return ExitCode::SUCCESS;
    }
    if let Some(c) = e.downcast_ref::<clap::Error>() {
        // clap prints --help and --version to stdout with code 0, usage
        // errors to stderr with code 2.
        let _ = c.print();
        if value_error(c) {
            return ExitCode::from(65);
        }
        return ExitCode::from(c.exit_code() as u8);
    }
    eprintln!("error: {e:#}");
    if let Some(c) = e.downcast_ref::<cli::run::Coded>() {
        return ExitCode::from(c.1);
    }
    let code = e
        .chain()
        .find_map(|c| c.downcast_ref::<roofline::Error>())
        .map_or(1, roofline::Error::exit_code);
    ExitCode::from(code)
}

//! The binary's whole run as one call: parse, run, write, and turn an
//! error into its exit code. `main` calls it with the real standard
//! output and error; the in-process fuzz driver (tests/fuzz_cli) calls it
//! with the output discarded and the error captured, so that a long fuzz
//! run pays for the work, not for a process per input.

use super::output::{DISCARD, stdout};
use roofline::render::{Format, explain_all};
use std::io::Write;

/// Where an error message goes: standard error, or a buffer.
enum Errors<'a> {
    Stderr,
    // Only the fuzz driver (tests/fuzz_cli) captures errors.
    #[allow(dead_code)]
    Buffer(&'a mut Vec<u8>),
}

impl Errors<'_> {
    fn line(&mut self, s: &str) {
        match self {
            Errors::Stderr => eprintln!("{s}"),
            Errors::Buffer(b) => {
                let _ = writeln!(b, "{s}");
            }
        }
    }
}

/// Runs a command line as the binary does; returns its exit code.
pub fn main(argv: &[String]) -> u8 {
    run(argv, &mut Errors::Stderr)
}

/// Runs a command line in this process with its output discarded and its
/// error messages appended to `err`; returns the exit code the binary
/// would give.
#[allow(dead_code)] // called by tests/fuzz_cli, not by the binary
pub fn main_captured(argv: &[String], err: &mut Vec<u8>) -> u8 {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            DISCARD.set(false);
        }
    }
    DISCARD.set(true);
    let _reset = Reset;
    run(argv, &mut Errors::Buffer(err))
}

fn run(argv: &[String], err: &mut Errors) -> u8 {
    // The command line is parsed once: building clap's command tree is
    // most of a query's start-up.
    let parsed = super::parse(argv);
    if let Ok(c) = &parsed
        && let Some(chart) = super::chart::run_chart(c, argv)
    {
        return match chart {
            Ok(out) => match super::chart::write(&out) {
                Ok(()) => 0,
                Err(e) => fail(&e.into(), err),
            },
            Err(e) => fail(&e, err),
        };
    }
    let (global, output) = match super::execute(argv, parsed) {
        Ok(r) => r,
        Err(e) => return fail(&e, err),
    };
    let mut reports = match output {
        super::Output::Bytes(bytes) => return write(&bytes, err),
        super::Output::Reports(r) => r,
    };
    if global.all {
        for r in &mut reports {
            r.headline.clear();
        }
    }
    // JSON already carries every derivation; CSV has nowhere to put one.
    let explain = global.explain && global.format != super::FormatArg::Json;
    if explain && global.format == super::FormatArg::Csv {
        err.line("error: --explain has no CSV form; use --format json for the derivations as data");
        return 2;
    }
    let bytes = if explain {
        explain_all(&reports, global.format == super::FormatArg::Markdown)
    } else {
        let report = if reports.len() == 1 {
            reports.into_iter().next().expect("one report")
        } else {
            super::combine_points(reports)
        };
        let bytes = Format::from(global.format).renderer().render(&report);
        // The process ends next: a sweep's hundred thousand rows are left
        // for the operating system to reclaim rather than freed one by one.
        // A run in process (the fuzz driver) frees them: it goes on.
        if matches!(err, Errors::Stderr) {
            std::mem::forget(report);
        }
        bytes
    };
    write(&bytes, err)
}

/// Writes the output; a closed pipe is not an error.
fn write(bytes: &[u8], err: &mut Errors) -> u8 {
    let mut out = stdout();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            err.line(&format!("error: writing output: {e}"));
            74
        }
    }
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

fn fail(e: &anyhow::Error, err: &mut Errors) -> u8 {
    if e.downcast_ref::<super::Streamed>().is_some() {
        return 0;
    }
    // A scenario's queries that answered before one failed are printed
    // first; the error and its code follow.
    if let Some(p) = e.downcast_ref::<super::run::Partial>() {
        // A failed write is left to the error below; a closed pipe is not one.
        let _ = write(&p.done, err);
    }
    // A closed pipe while a sweep streams is not an error.
    if e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    }) {
        return 0;
    }
    if let Some(c) = e.downcast_ref::<clap::Error>() {
        // clap prints --help and --version to stdout with code 0, usage
        // errors to stderr with code 2.
        match err {
            Errors::Stderr => {
                let _ = c.print();
            }
            Errors::Buffer(b) if c.use_stderr() => {
                let _ = write!(b, "{}", c.render());
            }
            Errors::Buffer(_) => {}
        }
        if value_error(c) {
            return 65;
        }
        return c.exit_code() as u8;
    }
    err.line(&format!("error: {e:#}"));
    if let Some(c) = e.downcast_ref::<super::run::Coded>() {
        return c.1;
    }
    e.chain()
        .find_map(|c| c.downcast_ref::<roofline::Error>())
        .map_or(1, roofline::Error::exit_code)
}

//! What the whole-process benchmarks share: running the built binary once,
//! its output thrown away, as a user's shell runs it.

use std::process::{Command, Stdio};

/// Runs the binary once with `args`, its output thrown away.
pub fn run(bin: &str, args: &[&str]) {
    let status = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the binary starts");
    assert!(status.success(), "{bin} {args:?}: {status}");
}

//! A reader that stops early (`roofline ... | head`) is not an error: the
//! tool exits 0 and prints nothing to stderr.

use std::process::{Command, Stdio};

#[test]
fn closed_stdout_exits_zero() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_roofline"))
        .args([
            "hw",
            "show",
            "h100-sxm",
            "--format",
            "json",
            "--sweep",
            "clock=1..400:1GHz",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn roofline");
    // Close our end of the pipe before the child writes its ~200 KB.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "status {:?}, stderr {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

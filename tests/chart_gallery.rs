//! The gallery is current: every `roofline` line in docs/gallery.md runs,
//! and the chart it draws (into a scratch folder) is byte for byte the SVG
//! committed under docs/charts/.

use std::process::Command;

/// Splits a command line into words, honouring double quotes.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[test]
fn gallery_charts_are_what_their_commands_draw() {
    let doc = std::fs::read_to_string("docs/gallery.md").unwrap();
    let scratch = std::env::temp_dir().join(format!("roofline-gallery-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut n = 0;
    for line in doc
        .lines()
        .filter_map(|l| l.trim().strip_prefix("roofline "))
    {
        let mut args = words(line);
        let i = args
            .iter()
            .position(|a| a == "--out" || a == "--chart")
            .unwrap_or_else(|| panic!("no --out or --chart in `{line}`"));
        let committed = args[i + 1].clone();
        assert!(committed.starts_with("docs/charts/"), "{committed}");
        let drawn = scratch.join(committed.trim_start_matches("docs/charts/"));
        args[i + 1] = drawn.display().to_string();
        let out = Command::new(env!("CARGO_BIN_EXE_roofline"))
            .args(&args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`roofline {line}`: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want = std::fs::read_to_string(&committed).unwrap();
        let got = std::fs::read_to_string(&drawn).unwrap();
        assert!(
            want == got,
            "{committed} is not what `roofline {line}` draws now; rerun it"
        );
        n += 1;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(n >= 6, "only {n} gallery commands");
}

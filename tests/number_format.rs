//! Numbers in notes and error messages read as they do in tables: grouped
//! in thousands from 1,000 up (`2,706`, not `2706`). Each case is a command
//! whose notes or error carry a large number; every note line and the error
//! are scanned for a run of four or more digits standing alone.

use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_roofline"))
        .args(args)
        .output()
        .unwrap();
    let mut text = String::from_utf8(out.stdout).unwrap();
    text.push_str(&String::from_utf8(out.stderr).unwrap());
    text
}

/// The lines a person reads as prose: notes and errors.
fn prose(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|l| l.starts_with("note: ") || l.starts_with("error: "))
        .collect()
}

/// Runs of four or more digits that are a whole number on their own: not
/// part of a word (`h100`, `m16n8k16`), a decimal fraction, an exponent or
/// a grouped number.
fn ungrouped(line: &str) -> Vec<String> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let before = start.checked_sub(1).map(|j| b[j]);
        let after = b.get(i).copied();
        let in_word = |c: Option<u8>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_');
        let glued = before.is_some_and(|c| c == b'.' || c == b',' || c == b'-');
        if i - start >= 4 && !in_word(before) && !in_word(after) && !glued {
            out.push(line[start..i].to_string());
        }
    }
    out
}

#[test]
fn the_scanner_finds_what_a_table_would_group() {
    assert_eq!(ungrouped("intensity 1365 FLOP/B"), ["1365"]);
    assert!(ungrouped("intensity 1,365 FLOP/B; h100-sxm m16n8k16 1.2345 9.5e-1234").is_empty());
}

#[test]
fn numbers_in_notes_and_errors_are_grouped_in_thousands() {
    let cases: &[&[&str]] = &[
        // 3,052-wide L2 footprint, intensity 1,112.
        &[
            "matmul", "--hw", "h100-sxm", "--m", "4096", "--n", "4096", "--k", "4096",
        ],
        // The 4,096 x 14,336 weights of a decode-shaped matmul.
        &[
            "matmul", "--hw", "h100-sxm", "--m", "1", "--n", "14336", "--k", "4096",
        ],
        // Mistral-7B's 4,096-token window over a 32,768-token context.
        &["kv", "--model", "mistral-7b", "--context", "32768"],
        // 1,024 threads allocate 262,144 registers; the SM has 65,536.
        &[
            "occupancy",
            "--hw",
            "h100-sxm",
            "--threads",
            "1024",
            "--regs",
            "255",
        ],
        // Llama-2's 4,096-token maximum context.
        &[
            "decode",
            "--model",
            "llama-2-7b",
            "--hw",
            "h100-sxm",
            "--batch",
            "1",
            "--context",
            "8192",
            "--force",
        ],
        // The intensity of a 4,096^3 bf16 matmul's compulsory traffic.
        &[
            "point",
            "--hw",
            "h100-sxm",
            "--flops",
            "137.4GFLOP",
            "--bytes",
            "100.7MB",
        ],
        // The TPU v1's ridge, 2,706 OP/B.
        &["point", "--hw", "tpu-v1", "--intensity", "10"],
        // Errors: 1,024 devices, 1,030 devices.
        &[
            "plan",
            "--model",
            "llama-3.1-70b",
            "--hw",
            "h100-sxm",
            "--devices",
            "1024",
            "--tp",
            "8",
            "--pp",
            "1",
            "--dp",
            "64",
        ],
        &[
            "collective",
            "all-reduce",
            "--hw",
            "h100-sxm",
            "--devices",
            "1030",
            "--bytes",
            "1GB",
        ],
        &[
            "matmul", "--hw", "h100-sxm", "--m", "64", "--n", "64", "--k", "4100", "--tile-k", "64",
        ],
    ];
    for args in cases {
        let out = run(args);
        let lines = prose(&out);
        assert!(
            !lines.is_empty(),
            "{args:?} printed no note or error:\n{out}"
        );
        for l in lines {
            assert!(ungrouped(l).is_empty(), "{args:?}: {l}");
        }
    }
}

#[test]
fn a_large_count_in_a_note_reads_as_in_the_table() {
    // Little's law at a 1.8 MHz clock (a unit slip for GHz): 3.35 TB/s x
    // 479 cycles / 1.8 MHz = 891.5 MB in flight, / 128 B = 6,964,627 loads,
    // / 132 SMs = 52,762 per SM; / 64 warps = 825 loads each.
    let out = run(&["littles-law", "--hw", "h100-sxm", "--clock", "1.8MHz"]);
    assert!(
        out.contains(
            "note: 52,762 loads per SM exceed 64 warps: each warp needs 825 independent loads"
        ),
        "{out}"
    );
    assert!(
        out.contains("│ loads in flight per SM                           ┆ 52,762"),
        "{out}"
    );
}

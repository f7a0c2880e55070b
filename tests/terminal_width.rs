//! At a terminal width of 80 (`COLUMNS=80`) every line of the tour's
//! answers fits: tables narrow without breaking a word (leaving out the
//! columns that cannot fit, with a line saying so), and notes and
//! derivations wrap. Only a single word wider than the line (a URL) may
//! pass it.

use std::process::Command;

const COMMANDS: &[&str] = &[
    "hw list",
    "model list",
    "hw show h100-sxm,mi355x,tpu7x",
    "hw show h100-sxm --explain",
    "point --hw h100-sxm --intensity 1",
    "occupancy --hw h100-sxm --threads 256 --regs 64 --smem 32KiB",
    "matmul --hw h200-sxm --m 8192 --n 8192 --k 8192 --tile 128",
    "decode --model llama-3-8b --hw h100-sxm,h200-sxm,b200 --batch 32 --context 8192",
    "decode --model llama-3-8b --hw h200-sxm --batch 1 --context 2048 --sweep batch=1..512",
    "decode --model llama-3.1-70b --hw h200-sxm,mi355x,b200 --batch 64 --context 4096",
    "plan --model llama-3.1-70b --hw h200-sxm --search --devices 16 --batch 32 --objective latency",
    "plan --model deepseek-v3 --hw h200-sxm --search --devices 1024 --objective throughput --batch 64",
    "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 32",
    "collective all-reduce --hw h200-sxm --devices 8 --bytes 1GiB",
    "prefill --model llama-3-8b --hw h100-sxm --prompt 8192",
];

#[test]
fn every_line_fits_80_columns() {
    for c in COMMANDS {
        let out = Command::new(env!("CARGO_BIN_EXE_roofline"))
            .args(c.split(' '))
            .env("COLUMNS", "80")
            .output()
            .expect("run roofline");
        assert!(out.status.success(), "{c}: {:?}", out.status);
        let text = String::from_utf8(out.stdout).unwrap();
        for line in text.lines() {
            let width = line.chars().count();
            let one_long_word = line.split_whitespace().count() == 1
                || line.split_whitespace().any(|w| w.chars().count() > 60);
            assert!(
                width <= 80 || one_long_word,
                "`roofline {c}`: a line of {width} columns:\n{line}\n\n{text}"
            );
        }
    }
}

#[test]
fn plan_search_defaults_to_the_columns_that_decide_it() {
    let run = |all: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_roofline"));
        c.args("plan --model llama-3.1-70b --hw h200-sxm --search --devices 16 --batch 32 --objective latency".split(' '));
        if all {
            c.arg("--all");
        }
        String::from_utf8(c.env("COLUMNS", "80").output().unwrap().stdout).unwrap()
    };
    let concise = run(false);
    let header = concise.lines().find(|l| l.contains("rank")).unwrap();
    for col in ["rank", "layout", "decode step", "what binds", "fits"] {
        assert!(
            header.contains(col) || concise.contains(col),
            "{col}:\n{concise}"
        );
    }
    assert!(!concise.contains("why not first"), "{concise}");
    assert!(run(true).contains("why not first"));
}

#[test]
fn a_four_part_hw_show_fits_160_columns() {
    // Issue 37, item 7: a four-part comparison was 201 columns wide in a
    // terminal; at 160 every line (table, notes) fits.
    for parts in [
        "h100-sxm,h200-sxm,b200,mi355x",
        "gb300,b300,mi355x,tpu7x",
        "gb200,h800,mi300x,trainium3",
    ] {
        for all in [false, true] {
            let mut c = Command::new(env!("CARGO_BIN_EXE_roofline"));
            c.args(["hw", "show", parts]);
            if all {
                c.arg("--all");
            }
            let out = c.env("COLUMNS", "160").output().expect("run roofline");
            assert!(out.status.success(), "{parts}: {:?}", out.status);
            let text = String::from_utf8(out.stdout).unwrap();
            for line in text.lines() {
                let width = line.chars().count();
                assert!(
                    width <= 160,
                    "`hw show {parts}`: a line of {width} columns:\n{line}"
                );
            }
        }
    }
}

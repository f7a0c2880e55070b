//! Every golden case of `tests/data/golden/seed_cases.toml` (the copy of
//! the workspace's seed cases) is asserted through [`common::check`]: its
//! id is the first argument of a call to `check`, `check_si`,
//! `check_flagged` or a `check_*` wrapper of a test file, which compares
//! the tool's answer with the number the golden file carries, at its
//! tolerance. A case no command or library call computes is listed in
//! `SKIPPED` with the reason; no case is both.

use crate::common;
use common::cases;
use std::collections::{BTreeMap, BTreeSet};

/// The test files' sources, by file name; a test crate that is a folder
/// (`tests/NAME/main.rs` and its modules) is one source, its files joined,
/// so a checker defined in one module counts where another calls it.
fn sources() -> BTreeMap<String, String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).expect("tests/ reads") {
        let p = e.unwrap().path();
        let name: String = p.file_name().unwrap().to_string_lossy().into();
        if p.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            out.insert(name, text);
        } else if p.join("main.rs").is_file() {
            let mut files: Vec<_> = std::fs::read_dir(&p)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|f| f.extension().is_some_and(|x| x == "rs"))
                .collect();
            files.sort();
            let text = files
                .iter()
                .map(|f| std::fs::read_to_string(f).unwrap())
                .collect::<Vec<_>>()
                .join("\n");
            out.insert(format!("{name}/"), text);
        }
    }
    assert!(out.len() > 20, "tests/*.rs not found");
    out
}

/// Rust source with comments and string contents blanked, literals kept
/// as `"..."` tokens: (code, literals in order of appearance).
fn tokens(src: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut ident = String::new();
    let mut chars = src.chars().peekable();
    let flush = |ident: &mut String, out: &mut Vec<Tok>| {
        if !ident.is_empty() {
            out.push(Tok::Ident(std::mem::take(ident)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                flush(&mut ident, &mut out);
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                flush(&mut ident, &mut out);
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            '"' => {
                flush(&mut ident, &mut out);
                let mut lit = String::new();
                while let Some(n) = chars.next() {
                    match n {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        n => lit.push(n),
                    }
                }
                out.push(Tok::Str(lit));
            }
            c if c.is_alphanumeric() || c == '_' => ident.push(c),
            c => {
                flush(&mut ident, &mut out);
                if !c.is_whitespace() {
                    out.push(Tok::Punct(c));
                }
            }
        }
    }
    flush(&mut ident, &mut out);
    out
}

#[derive(Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
}

fn is_checker(name: &str) -> bool {
    name == "check" || name.starts_with("check_")
}

/// Ids passed as the first argument of a `check*(` call, outside
/// comments; every other string literal inside such a call (the golden ids
/// among them count too); and the names of the `check_*` functions a file defines,
/// with whether their body calls another checker.
fn checked_ids(src: &str) -> (BTreeSet<String>, BTreeSet<String>, Vec<(String, bool)>) {
    let t = tokens(src);
    let mut ids = BTreeSet::new();
    let mut others = BTreeSet::new();
    let mut wrappers = Vec::new();
    for (i, tok) in t.iter().enumerate() {
        let Tok::Ident(name) = tok else { continue };
        if !is_checker(name) {
            continue;
        }
        let is_def = i > 0 && t[i - 1] == Tok::Ident("fn".into());
        if is_def {
            // The body: from the first `{` after the name to its match.
            let mut depth = 0;
            let mut calls = false;
            let mut started = false;
            for (j, b) in t.iter().enumerate().skip(i + 1) {
                match b {
                    Tok::Punct('{') => {
                        depth += 1;
                        started = true;
                    }
                    Tok::Punct('}') => {
                        depth -= 1;
                        if started && depth == 0 {
                            break;
                        }
                    }
                    Tok::Ident(n)
                        if started && is_checker(n) && t.get(j + 1) == Some(&Tok::Punct('(')) =>
                    {
                        calls = true
                    }
                    _ => {}
                }
            }
            wrappers.push((name.clone(), calls));
        } else if t.get(i + 1) == Some(&Tok::Punct('(')) {
            if let Some(Tok::Str(id)) = t.get(i + 2) {
                ids.insert(id.clone());
            }
            // Further literals of the call: a wrapper that checks several
            // cases at once takes their ids as an array.
            let mut depth = 0;
            for b in &t[i + 1..] {
                match b {
                    Tok::Punct('(') => depth += 1,
                    Tok::Punct(')') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Tok::Str(lit) => {
                        others.insert(lit.clone());
                    }
                    _ => {}
                }
            }
        }
    }
    (ids, others, wrappers)
}

#[test]
fn the_scanner_ignores_comments_and_other_calls() {
    let src = r#"
        // check("a", 1.0)
        /* check("b", 1.0) */
        close("c", 1.0, 1.0, 0.0);
        check("d", x);
        check_si ( "e", y );
        fn check_show(id: &str) { check_si(id, 1.0) }
        fn check_nothing(id: &str) { close(id, 1.0, 1.0, 0.0) }
    "#;
    let (ids, others, wrappers) = checked_ids(src);
    assert_eq!(ids.into_iter().collect::<Vec<_>>(), ["d", "e"]);
    assert!(others.contains("d") && !others.contains("c"));
    assert_eq!(
        wrappers,
        [("check_show".into(), true), ("check_nothing".into(), false)]
    );
}

#[test]
fn every_checker_routes_to_the_golden_file() {
    for (file, src) in sources() {
        for (name, calls) in checked_ids(&src).2 {
            assert!(
                calls || file == "golden.rs",
                "{file}: `{name}` is named like a golden checker but calls none"
            );
        }
    }
}

#[test]
fn every_golden_case_is_checked_or_skipped() {
    let mut checked: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (file, src) in sources() {
        if file == "golden.rs" {
            continue;
        }
        let (ids, others, _) = checked_ids(&src);
        for id in ids {
            checked.entry(id).or_default().push(file.clone());
        }
        for id in others {
            if cases().iter().any(|c| c.id == id) {
                checked.entry(id).or_default().push(file.clone());
            }
        }
    }
    for id in checked.keys() {
        assert!(
            cases().iter().any(|c| &c.id == id),
            "`{id}` is checked ({:?}) but is no golden case",
            checked[id]
        );
    }
    let mut missing = Vec::new();
    for c in cases() {
        let skip = SKIPPED.iter().any(|(s, _)| *s == c.id);
        let done = checked.contains_key(&c.id);
        assert!(!(skip && done), "{} is both checked and skipped", c.id);
        if !skip && !done {
            missing.push(c.id.as_str());
        }
    }
    let mut seen = BTreeSet::new();
    for (s, why) in SKIPPED {
        assert!(seen.insert(*s), "{s} skipped twice");
        assert!(
            cases().iter().any(|c| c.id == *s),
            "skipped `{s}` is no case"
        );
        assert!(why.len() > 10, "{s}: say why it is skipped");
    }
    assert!(
        missing.is_empty(),
        "{} golden cases checked nowhere and not skipped: {missing:?}",
        missing.len()
    );
    assert!(cases().len() >= 528);
}

#[test]
fn validation_md_states_the_counts_the_tests_hold() {
    // docs/validation.md: "Today N cases are asserted and M skipped".
    let doc = include_str!("../docs/validation.md").replace('\n', " ");
    let at = doc.find("Today ").expect("validation.md states the counts");
    let words: Vec<&str> = doc[at..].split_whitespace().take(8).collect();
    let asserted: usize = words[1].parse().expect("a count after `Today`");
    let skipped: usize = words[6].parse().expect("a count before `skipped`");
    assert_eq!(words[7].trim_end_matches(','), "skipped", "{words:?}");
    assert_eq!(skipped, SKIPPED.len(), "docs/validation.md's skipped count");
    assert_eq!(
        asserted,
        cases().len() - SKIPPED.len(),
        "docs/validation.md's asserted count"
    );
}

/// Cases no command or library call computes, with why.
const SKIPPED: &[(&str, &str)] = &[
    (
        "hw-h100-hbm-latency-assumed",
        "the lecture's assumed 500 cycles, passed as an input (--set memory.dram-latency); the file carries the measured 479",
    ),
    (
        "hw-h100-clock-assumed",
        "the lecture's assumed 1.8 GHz, passed as an input (--clock); the file carries the 1.98 GHz boost clock",
    ),
    (
        "ch-butterfly-steps",
        "log2 of a shuffle group: warp-shuffle reductions are not modelled",
    ),
    (
        "ch-merge-pack-size",
        "vLLM merge-kernel index arithmetic (16 / sizeof); no command models thread indexing",
    ),
    (
        "ch-merge-threads-per-head",
        "vLLM merge-kernel index arithmetic; no command models thread indexing",
    ),
    (
        "ch-merge-thread5-token-head",
        "vLLM merge-kernel index arithmetic; no command models thread indexing",
    ),
    (
        "ch-merge-thread5-pack",
        "vLLM merge-kernel index arithmetic; no command models thread indexing",
    ),
    (
        "ch-merge-thread5-offset",
        "vLLM merge-kernel index arithmetic; no command models thread indexing",
    ),
    (
        "ch-merge-num-threads",
        "a constexpr of the vLLM kernel's source",
    ),
    (
        "lec-7.2-divergence-worst",
        "branch divergence is not modelled",
    ),
    (
        "lec-7.2-divergence-prob",
        "a probability of lane agreement; branch divergence is not modelled",
    ),
    (
        "lec-7.7-elementwise-flop-share",
        "quoted from Lecture 2; its inputs are not in the seeds",
    ),
    (
        "lec-7.10-training-launches",
        "quoted from Lecture 2, with nothing to compute",
    ),
    (
        "lec-7.10-launch-bound-threshold",
        "quoted from Lecture 2; its inputs are not in the seeds",
    ),
    (
        "book-1.1-vecadd-third-offset",
        "blockDim x blockIdx, index arithmetic no command reports",
    ),
    (
        "book-1.1-vecadd-second-offset",
        "blockDim x blockIdx, index arithmetic no command reports",
    ),
    (
        "book-2.1-transpose-elems-per-thread",
        "a transpose kernel's work split; no command models it",
    ),
    (
        "book-2.1-bank-conflict-ways",
        "shared-memory bank conflicts are not modelled",
    ),
    (
        "book-2.1-padded-width",
        "tile + 1 padding; bank conflicts are not modelled",
    ),
    (
        "book-2.1-reduce-total-speedup",
        "a ratio of measured G80 kernel rates; the G80 is not a catalog part",
    ),
    (
        "book-2.1-reduce-factor-product",
        "a product of quoted speedups",
    ),
    ("book-2.1-reduce-factor-ratio", "a ratio of quoted speedups"),
    (
        "book-2.1-reduce-final-frac",
        "a measured G80 rate over its peak; the G80 is not a catalog part",
    ),
    (
        "book-2.1-reduce-32M-frac",
        "a measured G80 rate over its peak; the G80 is not a catalog part",
    ),
    (
        "book-2.1-reduce0-time",
        "bytes over a measured G80 rate; the G80 is not a catalog part",
    ),
    (
        "book-2.1-online-softmax-accesses",
        "4 / 3 memory passes of safe against online softmax; `fusion softmax` counts fused against unfused traversals, not the online variant",
    ),
    (
        "book-2.2-boehm-naive-frac",
        "a measured A6000 kernel over cuBLAS; the A6000 is not a catalog part",
    ),
    (
        "book-2.2-boehm-2dtile-frac",
        "a measured A6000 kernel over cuBLAS; the A6000 is not a catalog part",
    ),
    (
        "book-2.2-boehm-warptile-frac",
        "a measured A6000 kernel over cuBLAS; the A6000 is not a catalog part",
    ),
    (
        "book-2.2-boehm-smemtile-frac",
        "a measured A6000 kernel over cuBLAS; the A6000 is not a catalog part",
    ),
    (
        "book-2.2-boehm-1dblocktile-frac",
        "a measured A6000 kernel over cuBLAS; the A6000 is not a catalog part",
    ),
    (
        "book-2.2-coalesce-speedup",
        "a ratio of two measured A6000 kernels",
    ),
    (
        "book-2.3-h100-worklog-start-frac",
        "a ratio of two measured H100 kernels",
    ),
    (
        "book-2.3-h100-worklog-final",
        "a measured rate times a quoted 1.07",
    ),
    (
        "book-2.3-a6000-tf32-implied",
        "an A6000 rate times a quoted factor; the A6000 is not a catalog part",
    ),
    (
        "book-2.3-a6000-bf16-implied",
        "an A6000 rate times a quoted factor; the A6000 is not a catalog part",
    ),
    (
        "book-3.2-cute-B10",
        "a CuTe layout evaluation; layouts are not modelled",
    ),
    (
        "book-3.2-cute-B01",
        "a CuTe layout evaluation; layouts are not modelled",
    ),
    (
        "book-3.2-cute-compose",
        "a CuTe layout composition; layouts are not modelled",
    ),
    (
        "book-3.2-cute-coalesce",
        "a CuTe layout coalescing; layouts are not modelled",
    ),
    (
        "book-3.2-tileir-iota",
        "a Tile IR example's tile size, an input",
    ),
    (
        "book-3.4-buffer-rotation-h100",
        "2 x L2, a benchmarking rule of thumb no command reports",
    ),
    ("book-3.4-gemm-iters", "a benchmarking methodology count"),
    (
        "book-4.4-tokens-per-run",
        "38 tokens in 9 runs counted from the book's trace; `speculative` computes expected tokens from an acceptance rate",
    ),
    (
        "book-4.4-figure-tokens",
        "one drafted round's outcome (3 of 5 accepted, plus one); `speculative` computes an expectation, not a round",
    ),
    (
        "book-5.2-dsv3-prefill-tp",
        "DeepSeek's deployment layout: the plan's input (--tp 4), not an answer",
    ),
    (
        "book-5.2-dsv3-prefill-ep",
        "DeepSeek's deployment layout: the plan's input (--ep 32), not an answer",
    ),
    (
        "book-5.2-dsv3-decode-gpus",
        "DeepSeek's deployment size: the plan's input (--devices 320), not an answer",
    ),
    (
        "book-5.4-burstgpt-rate",
        "requests over days of a trace; no command reads the BurstGPT trace",
    ),
    (
        "hw-h100-l2-vs-global-ratio",
        "a measured L2/HBM bandwidth ratio (Luo et al.); the catalog has no L2 bandwidth figure for the H100",
    ),
    (
        "hw-h100-prelim-bf16-tensor",
        "the H100 whitepaper's preliminary figure, superseded by the datasheet's 989 TFLOP/s in the file",
    ),
    (
        "hw-h100-prelim-bf16-nontensor",
        "a preliminary non-tensor figure; the catalog stores tensor peaks and the FP32 vector peak",
    ),
    (
        "hw-h100-prelim-fp32-nontensor",
        "the preliminary whitepaper figure; the file carries the datasheet's 67 TFLOP/s",
    ),
    (
        "hw-v100-launch-exec",
        "a V100 measurement; the V100 is not in the catalog (launch issue)",
    ),
    (
        "hw-v100-launch-sync",
        "a V100 measurement; the V100 is not in the catalog (launch issue)",
    ),
    (
        "hw-v100-launch-overlap",
        "a V100 measurement; the V100 is not in the catalog (launch issue)",
    ),
    (
        "hw-v100-launch-graph",
        "a V100 measurement; the V100 is not in the catalog (launch issue)",
    ),
    (
        "hw-m2050-copy-bw",
        "a Tesla M2050 measurement; not a catalog part",
    ),
    ("hw-g80-bw", "the G80; not a catalog part"),
    (
        "hw-a6000-cublas-fp32",
        "an RTX A6000 measurement; not a catalog part",
    ),
    (
        "hw-ualink-accelerators",
        "a UALink 1.0 pod limit; no catalog part uses UALink",
    ),
    (
        "hw-h800-smem-bytes-per-clk",
        "Luo et al.'s measured 127.9 B/clk/SM on an H800 PCIe: the input of ch-smem-aggregate-bw's what-if (--set), not an answer",
    ),
    (
        "hw-h800-clock",
        "Luo et al.'s 1,755 MHz H800 PCIe clock: the input of ch-smem-aggregate-bw's what-if (--clock), not an answer",
    ),
    (
        "hw-a100-bw-kipply",
        "the book's rounded 1.5 TB/s A100: the input of book-1.2-a100-ridge's what-if (--set); the catalog's 40 GB part is the datasheet's 1,555 GB/s",
    ),
    (
        "book-6.1-tcgen05-count",
        "a count of PTX instructions, not a hardware figure",
    ),
    (
        "book-2.1-naive-transpose-frac",
        "a ratio of two measured bandwidths on an old GPU with no hardware file",
    ),
    (
        "book-2.1-tiled-transpose-frac",
        "a ratio of two measured bandwidths on an old GPU with no hardware file",
    ),
    (
        "book-2.1-smem-copy-frac",
        "a ratio of two measured bandwidths on an old GPU with no hardware file",
    ),
    (
        "book-2.1-padded-transpose-frac",
        "a ratio of two measured bandwidths on an old GPU with no hardware file",
    ),
    (
        "lec-7.8-l2-gap",
        "90% - 43%: two quoted percentages; there is no model of tuned GEMMs",
    ),
    (
        "book-6.1-tcgen05-2sm-tile-per-sm",
        "2-SM (CTA-pair) MMA tiles are not modelled",
    ),
    (
        "ch-prefill-M",
        "M = tokens: the GEMM's M is an input (`m`), nothing to compute",
    ),
    (
        "ch-tensor-vs-fp32-prelim",
        "preliminary whitepaper peaks; the catalog carries the datasheet's",
    ),
    (
        "book-6.1-mxf4-vs-hopper-fp8",
        "a quoted ratio of peaks from the catalog",
    ),
    (
        "book-6.2-trn3-contraction-ratio",
        "a ratio of array widths, not a matmul figure",
    ),
    (
        "ch-rmsnorm-prefill-grid",
        "vLLM's launcher: one block per token",
    ),
    (
        "ch-rmsnorm-decode-grid",
        "vLLM's launcher: one block per token",
    ),
    (
        "ch-rmsnorm-max-block-small",
        "vLLM's launcher's block-size rule",
    ),
    (
        "ch-rmsnorm-max-block-large",
        "vLLM's launcher's block-size rule",
    ),
    (
        "ch-rmsnorm-prefill-block-size",
        "vLLM's launcher's block-size rule (a gcd)",
    ),
    (
        "ch-block-stride-iters",
        "a kernel's loop count, hidden / threads",
    ),
    ("ch-rmsnorm-vec-size", "vLLM's vector width, a gcd"),
    (
        "ch-rmsnorm-decode-block-size",
        "vLLM's launcher's block-size rule",
    ),
    (
        "ch-merge-total-threads",
        "a launcher's product of tokens, heads and threads per head",
    ),
    ("ch-merge-grid", "a launcher's ceil-division"),
    (
        "book-1.1-vecadd-elements",
        "grid x block, no occupancy in it",
    ),
    (
        "book-2.2-volkov-occupancy",
        "a GTX 280, which has no hardware file",
    ),
    (
        "book-6.2-nki-compute-bound-target",
        "a guideline, not arithmetic",
    ),
    ("book-6.2-nki-mbu-target", "a guideline, not arithmetic"),
    (
        "book-4.2-dsv2-kv-factor",
        "1 / (1 - 93.3%) restates DeepSeek-V2's reported reduction against DeepSeek 67B, a model outside the catalog",
    ),
    (
        "lec-intro-slo-batch",
        "quoted from an earlier lecture (B = 164 under its SLO); its inputs are not in the seeds",
    ),
    (
        "lec-intro-memory-batch",
        "quoted from an earlier lecture (B = 199 by memory); its inputs are not in the seeds",
    ),
    (
        "lec-7.11-decode-batch-max",
        "quoted from Lecture 2's accounting (~116); its inputs are not in the seeds",
    ),
    (
        "book-4.1-cb-figure-steps",
        "a figure's step counts (11 against 8): the four requests' lengths are not in the seeds (only the two totals), and `simulate` has no request-level (static) batching to set against its continuous batching's `iterations`",
    ),
];

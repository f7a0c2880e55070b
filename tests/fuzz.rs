//! No input may panic: property tests feed the unit parser and the data-file
//! loaders arbitrary text and mutations of real files, and require an `Ok`
//! or an `Err`, never a panic. Each property runs [`cases`] inputs.
//!
//! `fuzz_command_lines` builds whole command lines (and the hardware, model,
//! Hugging Face, trace, calibration and scenario files they read) from the
//! crash corpus of issue 27 and mutations of working commands, `simulate`,
//! `fleet` and `calibrate` among them, runs the binary on each and
//! requires one of the documented exit codes, no panic and no hang; a
//! scenario must not write outside its output folder nor quote a file
//! outside its own. It runs
//! for `ROOFLINE_FUZZ_SECS` seconds (default 10); `.ci/run` gives it 90;
//! docs/validation.md says how to run it longer.

use proptest::prelude::*;
use roofline::spec::Origin;
use roofline::spec::hardware::Hardware;
use roofline::spec::model::Model;
use roofline::units::{self, Dim};

/// Inputs per property: 2,000, or `ROOFLINE_FUZZ_CASES` (a long run sets
/// 10^6; docs/validation.md).
fn cases() -> u32 {
    std::env::var("ROOFLINE_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000)
}
#[path = "fuzz_gen.rs"]
mod fuzz_gen;

use fuzz_gen::*;

fn origin() -> Origin {
    Origin {
        name: "fuzz.toml".into(),
        overridden: false,
    }
}

const DIMS: [Dim; 7] = [
    Dim::Bytes,
    Dim::BytesPerSec,
    Dim::Flop,
    Dim::FlopPerSec,
    Dim::Hz,
    Dim::Cycles,
    Dim::Seconds,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn unit_parser_never_panics(s in "\\PC{0,24}", d in 0usize..7) {
        let _ = units::parse(&s, DIMS[d]);
    }

    #[test]
    fn unit_parser_results_are_finite(n in "[-+]?[0-9]{0,4}(\\.[0-9]{0,3})?([eE][-+]?[0-9]{1,3})?", u in "(| )(B|KiB|GB|TB/s|GHz|us|ms|cycles|TFLOP/s|x)", d in 0usize..7) {
        if let Ok(v) = units::parse(&format!("{n}{u}"), DIMS[d]) {
            prop_assert!(v.is_finite());
        }
    }

    #[test]
    fn hardware_loader_never_panics_on_text(s in "\\PC{0,200}") {
        let _ = Hardware::parse(&s, &origin());
        let _ = Model::parse(&s, &origin());
    }

    #[test]
    fn hardware_loader_never_panics_on_mutated_files(pos in 0usize..4000, len in 0usize..8, junk in "\\PC{0,6}") {
        for base in [H100, LLAMA] {
            let mut cut = pos.min(base.len());
            while !base.is_char_boundary(cut) { cut -= 1; }
            let mut end = (cut + len).min(base.len());
            while !base.is_char_boundary(end) { end -= 1; }
            let text = format!("{}{}{}", &base[..cut], junk, &base[end..]);
            let _ = Hardware::parse(&text, &origin());
            let _ = Model::parse(&text, &origin());
        }
    }

    #[test]
    fn loaders_never_panic_on_replaced_values(line in 0usize..200, value in prop_oneof![
        Just("0".to_string()), Just("-1".to_string()), Just("nan".to_string()), Just("inf".to_string()),
        Just("18446744073709551616".to_string()), Just("\"1e308 EB\"".to_string()), Just("\"\"".to_string()),
        Just("[]".to_string()), Just("true".to_string()), Just("\"-3 TB/s\"".to_string()), Just("4294967296".to_string()),
    ]) {
        for base in [H100, LLAMA] {
            let lines: Vec<&str> = base.lines().collect();
            let i = line % lines.len();
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            if let Some((k, _)) = lines[i].split_once('=') {
                out[i] = format!("{k}= {value}");
            }
            let text = out.join("\n");
            let _ = Hardware::parse(&text, &origin());
            let _ = Model::parse(&text, &origin());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Nesting from 1 to 10^6 levels (log-uniform, so the deep end is
    /// reached): the parser and evaluator answer or refuse with an error
    /// naming the bound, never abort on a stack overflow.
    #[test]
    fn calc_nesting_up_to_a_million_is_an_error_not_an_abort(kind in 0usize..6, exp in 0.0f64..=6.0) {
        use roofline::calc::expr::{CalcInputs, cost, parse::MAX_DEPTH};
        let n = 10f64.powf(exp).round() as usize;
        let r = cost(&CalcInputs { expr: nested(kind, n) }, &mut |f| Err(format!("no field {f}")));
        if n > 2 * MAX_DEPTH {
            let e = r.expect_err("a line nested past the bound was answered");
            prop_assert!(e.to_string().contains("nests more than"), "{e}");
        }
    }
}

#[test]
fn calc_nesting_of_a_million_is_an_error() {
    use roofline::calc::expr::{CalcInputs, cost};
    for kind in 0..6 {
        let r = cost(
            &CalcInputs {
                expr: nested(kind, 1_000_000),
            },
            &mut |f| Err(format!("no field {f}")),
        );
        assert!(r.unwrap_err().to_string().contains("nests more than"));
    }
}

/// The parameter count of a dense, untied, bias-free GQA model with a
/// SwiGLU FFN and RMSNorm, in checked 128-bit arithmetic (None beyond
/// 128 bits): the reference the tool's 64-bit count must equal, or fail
/// where it exceeds 64 bits.
fn reference_total(
    l: u128,
    d: u128,
    v: u128,
    h: u128,
    kv: u128,
    dh: u128,
    ff: u128,
) -> Option<u128> {
    let mul = |xs: &[u128]| xs.iter().try_fold(1u128, |a, &x| a.checked_mul(x));
    let add = |xs: &[u128]| xs.iter().try_fold(0u128, |a, &x| a.checked_add(x));
    let embedding_and_head = mul(&[2, v, d])?;
    let attention = add(&[mul(&[2, d, h, dh])?, mul(&[2, d, kv, dh])?])?;
    let ffn = mul(&[3, d, ff])?;
    let norms = mul(&[d, add(&[mul(&[2, l])?, 1])?])?;
    add(&[
        embedding_and_head,
        mul(&[l, add(&[attention, ffn])?])?,
        norms,
    ])
}

fn edge() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 1u64..5_000,
        1 => 1u64..=u64::from(u32::MAX),
        1 => 1u64..=i64::MAX as u64,
        1 => Just(i64::MAX as u64),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Sizes up to the largest TOML integer: every generated file parses,
    /// and the count is either exact or an error naming a field; it never
    /// wraps.
    #[test]
    fn model_counts_do_not_overflow_silently(
        layers in edge(), hidden in edge(), vocab in edge(), kv in 1u64..16, group in 1u64..8,
        head_dim in edge(), ff in edge(),
    ) {
        let heads = kv * group;
        let text = LLAMA
            .replacen("layers = 32", &format!("layers = {layers}"), 1)
            .replacen("hidden-size = 4096", &format!("hidden-size = {hidden}"), 1)
            .replacen("vocab-size = 128256", &format!("vocab-size = {vocab}"), 1)
            .replacen("heads = 32", &format!("heads = {heads}"), 1)
            .replacen("kv-heads = 8", &format!("kv-heads = {kv}"), 1)
            .replacen("head-dim = 128", &format!("head-dim = {head_dim}"), 1)
            .replacen("intermediate-size = 14336", &format!("intermediate-size = {ff}"), 1);
        let m = Model::parse(&text, &origin());
        // A count above 2^53 is refused where it enters, naming its field.
        let bound = roofline::inputs::MAX_COUNT;
        if [layers, hidden, vocab, heads, kv, head_dim, ff].iter().any(|&c| c > bound) {
            prop_assert!(
                matches!(&m, Err(roofline::Error::Data { field: Some(_), .. })),
                "a count above 2^53 was not refused by field: {:?}",
                m.as_ref().err()
            );
            return Ok(());
        }
        prop_assert!(m.is_ok(), "generated file did not parse: {:?}", m.err());
        let m = m.unwrap();
        let [l, d, v, h, k, dh, f] = [layers, hidden, vocab, heads, kv, head_dim, ff]
            .map(u128::from);
        let exact = reference_total(l, d, v, h, k, dh, f);
        match (roofline::calc::model::params(&m), exact) {
            (Ok(p), Some(t)) => prop_assert_eq!(u128::from(p.total), t),
            (Ok(p), None) => prop_assert!(false, "counted {} beyond 128 bits", p.total),
            (Err(e), Some(t)) => {
                prop_assert!(t > u128::from(u64::MAX), "{t} fits in 64 bits, yet: {e}");
                prop_assert_eq!(e.exit_code(), 65);
                prop_assert!(matches!(&e, roofline::Error::Data { field: Some(_), .. }), "{e}");
            }
            (Err(e), None) => prop_assert!(matches!(&e, roofline::Error::Data { field: Some(_), .. }), "{e}"),
        }
    }
}

/// The longest one command line may run before it counts as hung. A grid
/// whose every point fails is the slowest honest case: in the debug
/// binary this test runs, 458,752 points whose hardware and model files
/// both fail took 35 s of CPU (68 s wall at a load of 5 on 2 cores), so
/// the 1,000,000-point cap is about 75 s of CPU, two or three times that
/// on a loaded machine; a hang runs forever.
const LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// Runs the binary; `None` when it ran past `limit`.
fn run_bounded(args: &[String], limit: std::time::Duration) -> Option<std::process::Output> {
    use std::process::{Command, Stdio};
    // A relative path the generator made (`--out-dir 1..0`) lands in a
    // scratch folder, never in the repository.
    let cwd = std::env::temp_dir().join(format!("roofline-fuzz-cwd-{}", std::process::id()));
    std::fs::create_dir_all(&cwd).ok()?;
    let mut child = Command::new(env!("CARGO_BIN_EXE_roofline"))
        .current_dir(&cwd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let start = std::time::Instant::now();
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            return child.wait_with_output().ok();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Whole command lines, the corpus first, then generated ones until the
/// time budget is spent. Every one ends with a documented exit code and
/// no panic within [`LIMIT`]; a failure prints the seed and the command
/// line.
#[test]
fn fuzz_command_lines() {
    let secs: u64 = std::env::var("ROOFLINE_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let seed: u64 = std::env::var("ROOFLINE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        });
    let dir = std::env::temp_dir().join(format!("roofline-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let mut r = Rng(seed);
    let budget = std::time::Duration::from_secs(secs);
    let start = std::time::Instant::now();
    let mut n = 0usize;
    let mut corpus = corpus(&dir).into_iter();
    loop {
        let args = match corpus.next() {
            Some(a) => a,
            None if start.elapsed() < budget => generate(&mut r, &dir, n),
            None => break,
        };
        n += 1;
        let shown = args.join(" ");
        let o = run_bounded(&args, LIMIT)
            .unwrap_or_else(|| panic!("hung (seed {seed}, case {n}): roofline {shown}"));
        let err = String::from_utf8_lossy(&o.stderr);
        if let Err(why) = judge(&args, o.status.code(), &err, &dir) {
            panic!("seed {seed}, case {n}: roofline {shown}\n{why}");
        }
    }
    eprintln!(
        "fuzz_command_lines: {n} command lines in {:.0?} (seed {seed})",
        start.elapsed()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

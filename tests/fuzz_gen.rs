//! The command lines and files the fuzz drivers run: the crash corpus,
//! working lines per command, and the mutations (edge values, added flags
//! and sweeps, mutated hardware, model, engine, Hugging Face, trace,
//! calibration and scenario files). Shared by the process-spawning driver
//! (tests/fuzz.rs, `fuzz_command_lines`) and the in-process one
//! (tests/fuzz_cli), which run the same inputs and judge them alike
//! ([`judge`]).

#![allow(dead_code)]

pub const H100: &str = include_str!("../hardware/h100-sxm.toml");
pub const LLAMA: &str = include_str!("../models/llama-3-8b.toml");

/// A `calc` line nested `n` levels by one of the constructions that once
/// overflowed the stack (issue 55), or a mix of them.
pub fn nested(kind: usize, n: usize) -> String {
    match kind {
        0 => format!("{}1", "-".repeat(n)),
        1 => format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        2 => format!("{}2", "2^".repeat(n)),
        3 => format!("1{}", "+1".repeat(n)),
        4 => format!("{}1 GB{}", "max(".repeat(n), ")".repeat(n)),
        _ => format!("{}1{}", "-(2^".repeat(n), ")".repeat(n)),
    }
}

/// The crash corpus of issue 27, and lines found since: each once panicked,
/// hung or blew up.
pub const CORPUS: &[&str] = &[
    "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 1e19",
    "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 32 --prompt 12345678901234567890",
    "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 32 --microbatches 18446744073709551615",
    "collective all-reduce --hw h200-sxm --devices 18446744073709551615 --bytes 1GiB",
    "collective all-reduce --hw trainium3 --devices 12345678901234567890 --bytes 1GiB",
    "decode --model llama-3-8b --hw h200-sxm --batch 8 --context 18446744073709551615 --force",
    "chart occupancy --hw h100-sxm --smem 1TB --out OUT/x.svg",
    "chart roofline --hw h100-sxm --point p:1e307 --out OUT/x.svg",
    "chart roofline --hw h100-sxm --point p:1e-306 --out OUT/x.svg",
    "chart roofline --hw h100-sxm --point p:1e-320 --out OUT/x.svg",
    "chart roofline --hw h100-sxm --point g:1e308FLOP/1B --out OUT/x.svg",
    "plan --model llama-3.1-70b --hw h200-sxm --devices 18446744073709551615 --tp 8 --batch 32",
    "point --flops 1e-320FLOP --bytes 1e-320B --hw h100-sxm",
    "collective all-reduce --hw h200-sxm --devices 8 --bytes 1e-320B",
    "hw show h200-sxm --clock 1e-320MHz",
    "littles-law --hw h100-sxm --pointer 4.9e-324",
    "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --objective goodput --slo-tpot 0us --slo-ttft 0s",
    "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --objective goodput --slo-tpot=-1s",
    "collective all-reduce --hw h200-sxm --devices 8 --bytes 1GiB --sweep model=x,y",
    "model show llama-3-8b --sweep hw=NaN,1",
    "decode --model llama-3-8b --hw h200-sxm --batch 8 --context 2048 --kernels 0",
    "point --hw h100-sxm --sweep intensity=1,2 --chart - --format json",
    "chart decode --model llama-2-7b --hw tpu-v1 --out OUT/x.svg",
    "occupancy --hw h100-sxm --threads 256 --regs 32 --sweep carveout=1e-320..1e-300",
    "hw show tpu-v1 --dtype int4",
    "hw show h200-sxm --set memory.hbm-bandwidth=1e-320GB/s",
    "chart roofline --hw h100-sxm --out .svg",
    // Every one of 64 x 1,024 points failing on a file field: once past the
    // 30 s bound in the debug binary, parsing the file at each point.
    "decode --model llama-3-8b --hw h200-sxm --batch 8 --context 2048 --sweep dtype=1..12345678901234567890 --sweep compute.dense.bf16=1..1e308EB",
    "decode --model llama-3-8b --hw h200-sxm --batch 8 --context 2048 --sweep compute.dense.bf16=1..1e308EB --sweep memory.hbm-bandwidth=1..1e30EB",
    // Every one of 64 x 1,024 x 7 points fails (458,752 points: 9 s in the
    // debug binary on an idle machine, past 30 s under three builds).
    "decode --model llama-3-8b --hw h200-sxm --batch 8 --context 2048 --sweep dtype=1..12345678901234567890 --sweep compute.dense.bf16=1..1e308EB --sweep context=1..64",
    // Issue 55: each answered an impossible value with exit 0, or ran long
    // before failing.
    "hw show h100-sxm --set memory.levels.1.bytes-per-cycle=-1",
    "hw show h100-sxm --set memory.levels.1.bytes-per-cycle=nan",
    "kv --model llama-3-8b --context 8192 --hw h200-sxm --tp 1000000",
    "engine show vllm --set engine.all-reduce.one-shot-devices=0",
    "launch --hw h100-sxm --kernels 400 --overhead 1e308us",
    "prefill --model llama-3-8b --hw h200-sxm --prompt 4096 --measured 1e308ns",
    "speculative --acceptance 0.8 --draft-tokens 4 --draft-cost 1e308",
    "occupancy --hw h100-sxm --threads 256 --regs 32 --target-occupancy 1e-320",
    "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 32 --reserve step:100000000,1",
    "point --hw nope --intensity 8 --sweep flops=1..999999:1 --format csv",
];

/// Working command lines the generator mutates: one or more per command.
pub const BASES: &[&str] = &[
    "point --hw h100-sxm --intensity 10",
    "point --hw h100-sxm --flops 137GFLOP --bytes 2GB --dtype fp8",
    "occupancy --hw h100-sxm --threads 256 --regs 32 --smem 48KiB",
    "coalesce --hw h100-sxm --stride 2",
    "littles-law --hw h100-sxm --pointer 600",
    "matmul --hw h100-sxm --m 4096 --n 4096 --k 4096 --tile 128",
    "launch --hw h100-sxm --kernels 400",
    "collective all-reduce --hw h200-sxm --devices 8 --bytes 1GiB",
    "collective all-gather --hw trainium3 --devices 64 --bytes 256MiB",
    "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 32",
    "plan --model llama-3-8b --hw h200-sxm --devices 16 --search --batch 8",
    "kv --model llama-3-8b --hw h200-sxm --batch 8 --context 8192",
    "decode --model llama-3-8b --hw h200-sxm --batch 8 --context 2048",
    "decode --model mixtral-8x7b --hw h200-sxm --batch 8 --context 2048",
    "prefill --model llama-3-8b --hw h200-sxm --prompt 4096",
    "speculative --acceptance 0.8 --draft-tokens 4",
    "hw show h100-sxm",
    "model show llama-3-8b",
    "fusion softmax --hw h100-sxm --rows 4096 --cols 4096",
    "chart roofline --hw h100-sxm,b200 --point decode:1 --out OUT/c.svg",
    "chart occupancy --hw h100-sxm --threads 256 --out OUT/c.svg",
    // Serving: runs over requests, the fleet search, a trace, and the
    // calibration fit (TRACE and CAL become copies of the files below,
    // often mutated).
    "simulate --model llama-3-8b --hw h200-sxm --rate 10/s --prompt 512 --output 64 --requests 200",
    "simulate --model llama-3-8b --hw h200-sxm --concurrency 8 --prompt lognormal:512,0.5 --output 64 --requests 200 --price 2/h",
    "simulate --model llama-3-8b --hw h200-sxm --trace TRACE --requests 200",
    "fleet --model llama-3-8b --hw h200-sxm --rate 10/s --prompt 512 --output 64 --slo-tpot 50ms --requests 200",
    "fleet --model llama-3-8b --hw h200-sxm --trace TRACE --slo-tpot 50ms --requests 200 --objective cost --price 2/h",
    "calibrate --hw h200-sxm CAL",
    "calibrate --hw h200-sxm CAL --out OUT/cal.toml",
    // Issue 55's classes: expressions, engines, flags with a plausible
    // range, a plan reserve, a fleet sweep (ENG becomes a mutated engine
    // file; NEST a deeply nested expression; WIDE a 65,534-letter name).
    "calc NEST",
    "calc h100-sxm.memory.hbm-capacity / h100-sxm.memory.hbm-bandwidth",
    "engine show ENG",
    "engine show vllm --set engine.name=WIDE",
    "hw show h100-sxm --set name=WIDE",
    "decode --model llama-3-8b --hw h200-sxm --batch 8 --context 2048 --engine ENG",
    "launch --hw h100-sxm --kernels 400 --overhead 5us",
    "prefill --model llama-3-8b --hw h200-sxm --prompt 4096 --measured 40ms",
    "speculative --acceptance 0.8 --draft-tokens 4 --draft-cost 0.1",
    "occupancy --hw h100-sxm --threads 256 --regs 32 --target-occupancy 50%",
    "kv --model llama-3-8b --hw h200-sxm --context 8192 --tp 2",
    "plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 32 --reserve step",
    "fleet --model llama-3-8b --hw h200-sxm --rate 10/s --prompt 512 --output 64 --slo-tpot 50ms --requests 50 --sweep budgets=1..1000:1",
    "kv --model nope --context 8192 --sweep batch=1..999999:1 --format csv",
];

/// An engine file the serving lines read, mutated.
pub const ENGINE: &str = include_str!("../engines/vllm.toml");

/// A `calc` line nested by one of the constructions of [`nested`], at a
/// depth from 1 to 10^4: one argument of a command line holds at most
/// 128 KiB on Linux, which deeper lines pass (the property test above
/// calls the parser with up to 10^6 levels).
pub fn nest(r: &mut Rng) -> String {
    let depth = 10usize.pow(r.below(5) as u32);
    nested(r.below(6), depth)
}

/// The trace and the measurement file the serving lines read, mutated.
pub const TRACE: &str = include_str!("data/simulate/trace.csv");
pub const CAL: &str = include_str!("../validation/results/2026-12-01-h200/calibrate-h200.csv");

/// Values that have broken parsers and arithmetic before.
pub const EDGES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "1e19",
    "1e308",
    "1e-320",
    "4.9e-324",
    "nan",
    "inf",
    "-inf",
    "18446744073709551615",
    "18446744073709551616",
    "9007199254740992",
    "9007199254740993",
    "12345678901234567890",
    "9223372036854775807",
    "4294967296",
    "0x10",
    "1_000",
    "1,5",
    "",
    " ",
    "1e-320B",
    "1TB",
    "1e308EB",
    "-3 TB/s",
    "0us",
    "-1s",
    "1e-320MHz",
    "1e300GHz",
    "bf16",
    "fp8",
    "int4",
    "int8",
    "fp4",
    "bogus",
    "../x",
    "/etc/passwd",
    "a:b",
    "p:0",
    "1..0",
    "1e-320/s",
    "1e25/s",
    "10/s",
    "1e-320/h",
    "1e308/h",
    "2/h",
    "1e-320/Wh",
    "0.1/kWh",
    "50ms",
    "1e308s",
    "lognormal:2048,0.5",
    "uniform:1..0",
    "1,2,1000000",
    "1e308us",
    "1e308ns",
    "1e-320",
    "step:100000000,1",
    "step:2304,256",
    "step",
    "1e308 s",
];

/// Flags a mutation may add, with any edge value.
pub const FLAGS: &[&str] = &[
    "--batch",
    "--context",
    "--prompt",
    "--devices",
    "--tp",
    "--pp",
    "--dp",
    "--ep",
    "--microbatches",
    "--bytes",
    "--flops",
    "--intensity",
    "--threads",
    "--regs",
    "--smem",
    "--dtype",
    "--kernels",
    "--clock",
    "--set",
    "--sweep",
    "--format",
    "--achievable",
    "--explain",
    "--all",
    "--chart",
    "--y",
    "--slo-tpot",
    "--slo-ttft",
    "--m",
    "--n",
    "--k",
    "--tile",
    "--stride",
    "--max-batch",
    "--point",
    "--hw",
    "--rate",
    "--requests",
    "--concurrency",
    "--output",
    "--price",
    "--energy-price",
    "--pue",
    "--prefix-hit",
    "--max-seqs",
    "--caps",
    "--budgets",
    "--objective",
    "--seed",
    "--trace",
    "--out",
    "--force",
    "--engine",
    "--overhead",
    "--measured",
    "--draft-cost",
    "--target-occupancy",
    "--reserve",
    "--acceptance",
];

pub const SWEEP_NAMES: &[&str] = &[
    "batch",
    "context",
    "intensity",
    "devices",
    "dtype",
    "hw",
    "model",
    "threads",
    "smem",
    "memory.hbm-bandwidth",
    "compute.dense.bf16",
    "layers",
    "bogus",
    "kernels",
    "tile",
    "rate",
    "requests",
    "prompt",
    "output",
    "max-seqs",
    "price",
];

pub const SETS: &[&str] = &[
    "memory.hbm-bandwidth",
    "memory.hbm-capacity",
    "compute.dense.bf16",
    "clock.boost",
    "layers",
    "hidden-size",
    "attention.heads",
    "vocab-size",
    "sm.count",
    "memory.levels.1.bytes-per-cycle",
    "engine.all-reduce.latency",
    "engine.all-reduce.one-shot-devices",
    "name",
];

/// xorshift64*: the fuzz needs no cryptographic randomness, only a seed a
/// failure can be replayed from.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// A sweep value list: ranges and lists of edge values.
pub fn sweep_values(r: &mut Rng) -> String {
    match r.below(4) {
        0 => format!("{}..{}", r.pick(EDGES), r.pick(EDGES)),
        1 => format!("{}..{}:{}", r.pick(EDGES), r.pick(EDGES), r.pick(EDGES)),
        2 => "1..64".into(),
        _ => format!("{},{}", r.pick(EDGES), r.pick(EDGES)),
    }
}

/// A mutated copy of a file: one `key = value` line's value replaced.
pub fn mutate_toml(base: &str, r: &mut Rng) -> String {
    let mut lines: Vec<String> = base.lines().map(String::from).collect();
    for _ in 0..=r.below(3) {
        let i = r.below(lines.len());
        if let Some((k, _)) = lines[i].split_once('=') {
            let v = r.pick(EDGES);
            let v = if v.parse::<f64>().is_ok() && r.below(2) == 0 {
                v.to_string()
            } else {
                format!("{v:?}")
            };
            lines[i] = format!("{k}= {v}");
        }
    }
    lines.join("\n")
}

/// A mutated copy of a CSV file: a cell replaced by an edge value, a
/// line cut short, or a header name changed; sometimes left as it is.
pub fn mutate_csv(base: &str, r: &mut Rng) -> String {
    let mut lines: Vec<String> = base.lines().map(String::from).collect();
    for _ in 0..r.below(3) {
        let i = r.below(lines.len());
        let mut cells: Vec<String> = lines[i].split(',').map(String::from).collect();
        match r.below(3) {
            0 => {
                let c = r.below(cells.len());
                cells[c] = r.pick(EDGES).to_string();
            }
            1 => cells.truncate(r.below(cells.len())),
            _ => cells.push(r.pick(EDGES).to_string()),
        }
        lines[i] = cells.join(",");
    }
    lines.join("\n")
}

/// One generated command line; files it names are written under `dir`.
pub fn generate(r: &mut Rng, dir: &std::path::Path, n: usize) -> Vec<String> {
    let out = dir.display().to_string();
    let line = if r.below(8) == 0 {
        r.pick(CORPUS)
    } else {
        r.pick(BASES)
    };
    let line = if line.contains("TRACE") {
        let p = dir.join(format!("{n}-trace.csv"));
        let _ = std::fs::write(&p, mutate_csv(TRACE, r));
        line.replace("TRACE", &p.display().to_string())
    } else if line.contains("CAL") {
        let p = dir.join(format!("{n}-cal.csv"));
        let _ = std::fs::write(&p, mutate_csv(CAL, r));
        line.replace("CAL", &p.display().to_string())
    } else if line.contains("ENG") {
        let p = dir.join(format!("{n}-engine.toml"));
        let _ = std::fs::write(&p, mutate_toml(ENGINE, r));
        line.replace("ENG", &p.display().to_string())
    } else if line.contains("NEST") {
        // One word: the expression holds no space.
        return vec!["calc".into(), nest(r)];
    } else if line.contains("WIDE") {
        line.replace("WIDE", &"x".repeat(65_534))
    } else {
        line.to_string()
    };
    let mut words: Vec<String> = line
        .replace("OUT", &out)
        .split(' ')
        .map(String::from)
        .collect();
    for _ in 0..r.below(4) {
        match r.below(7) {
            // Replace a flag's value.
            0 | 1 => {
                let vals: Vec<usize> = (1..words.len())
                    .filter(|&i| words[i - 1].starts_with("--"))
                    .collect();
                if !vals.is_empty() {
                    let i = vals[r.below(vals.len())];
                    words[i] = r.pick(EDGES).to_string();
                }
            }
            2 => {
                let f = r.pick(FLAGS);
                words.push(f.into());
                let v = match f {
                    "--sweep" => format!("{}={}", r.pick(SWEEP_NAMES), sweep_values(r)),
                    "--set" => format!("{}={}", r.pick(SETS), r.pick(EDGES)),
                    "--format" => r.pick(&["json", "csv", "markdown", "table"]).into(),
                    "--chart" => format!("{out}/s{}.svg", n % 4),
                    "--out" => format!("{out}/o{}.{}", n % 4, r.pick(&["toml", "svg", "jpg"])),
                    "--trace" => {
                        let p = dir.join(format!("{n}-t.csv"));
                        let _ = std::fs::write(&p, mutate_csv(TRACE, r));
                        p.display().to_string()
                    }
                    "--achievable" | "--explain" | "--all" | "--force" => continue,
                    _ => r.pick(EDGES).into(),
                };
                words.push(v);
            }
            3 => {
                words.push("--sweep".into());
                words.push(format!("{}={}", r.pick(SWEEP_NAMES), sweep_values(r)));
            }
            // A mutated hardware or model file in place of the id.
            4 => {
                let (flag, base, name) = if r.below(2) == 0 {
                    ("--hw", H100, "hw.toml")
                } else {
                    ("--model", LLAMA, "model.toml")
                };
                if let Some(i) = words.iter().position(|w| w == flag) {
                    let p = dir.join(format!("{n}-{name}"));
                    let _ = std::fs::write(&p, mutate_toml(base, r));
                    if i + 1 < words.len() {
                        words[i + 1] = p.display().to_string();
                    }
                }
            }
            // A mutated Hugging Face config in place of the model.
            5 => {
                if let Some(i) = words.iter().position(|w| w == "--model") {
                    let keys = [
                        "num_hidden_layers",
                        "hidden_size",
                        "vocab_size",
                        "num_attention_heads",
                        "num_key_value_heads",
                        "intermediate_size",
                        "max_position_embeddings",
                    ];
                    let mut v: serde_json::Value = serde_json::from_str(HF).unwrap();
                    let k = keys[r.below(keys.len())];
                    let e = r.pick(EDGES);
                    v[k] = serde_json::from_str(e).unwrap_or_else(|_| serde_json::Value::from(e));
                    let p = dir.join(format!("{n}-config.json"));
                    let _ = std::fs::write(&p, v.to_string());
                    if i + 1 < words.len() {
                        words[i + 1] = p.display().to_string();
                    }
                }
            }
            // A scenario of the command line's query, possibly escaping.
            _ => {
                let sc = dir.join(format!("{n}-s.toml"));
                let outv = r.pick(&[
                    "ok.svg",
                    "../escaped.svg",
                    "/tmp/roofline-fuzz-escaped.svg",
                    "a/../../b.svg",
                ]);
                let hw = r.pick(&["h100-sxm", "../hw.toml", "/etc/passwd", "hw.toml"]);
                // A file a query reads: beside the scenario, or outside
                // its folder (which must be refused, never quoted).
                let read = r.pick(&["f.csv", "../f.csv", "/etc/passwd", "sub/../f.csv"]);
                let read_toml = r.pick(&["e.toml", "../e.toml", "/etc/passwd", "link/e.toml"]);
                let _ = std::fs::write(dir.join("e.toml"), ENGINE);
                #[cfg(unix)]
                let _ = std::os::unix::fs::symlink("/etc", dir.join("link"));
                let second = match r.below(3) {
                    0 => format!(
                        "command = \"point\"\nhw = \"h100-sxm\"\nintensity = {:?}\n",
                        r.pick(EDGES)
                    ),
                    1 => {
                        let _ = std::fs::write(dir.join("f.csv"), mutate_csv(TRACE, r));
                        format!(
                            "command = \"simulate\"\nmodel = \"llama-3-8b\"\nhw = \"h200-sxm\"\ntrace = {read:?}\nrequests = {:?}\n",
                            r.pick(EDGES)
                        )
                    }
                    _ => {
                        let _ = std::fs::write(dir.join("f.csv"), mutate_csv(CAL, r));
                        format!(
                            "command = \"calibrate\"\nhw = \"h200-sxm\"\nfile = {read:?}\nout = {:?}\n",
                            r.pick(&["c.toml", "ok.svg", "../escaped.toml", "c.json"])
                        )
                    }
                };
                // An engine or a part read by path, as a field or a sweep.
                let third = match r.below(3) {
                    0 => format!("command = \"engine show\"\nengine = {read_toml:?}\n"),
                    1 => format!(
                        "command = \"point\"\nhw = \"h100-sxm\"\nintensity = 1\nsweep = [\"{}={read_toml}\"]\n",
                        r.pick(&["engine", "prefill-hw", "hw", "model", "trace", "from"])
                    ),
                    _ => format!(
                        "command = \"simulate\"\nmodel = \"llama-3-8b\"\nhw = \"h200-sxm\"\nrate = \"1/s\"\nprompt = 64\noutput = 8\nrequests = 4\nprefill-hw = {read_toml:?}\n"
                    ),
                };
                let text = format!(
                    "title = \"f\"\n\n[[query]]\ncommand = \"chart roofline\"\nhw = {hw:?}\nout = {outv:?}\n\n[[query]]\n{second}\n[[query]]\n{third}"
                );
                let _ = std::fs::write(&sc, text);
                words = vec![
                    "run".into(),
                    sc.display().to_string(),
                    "--out-dir".into(),
                    format!("{out}/out"),
                ];
            }
        }
    }
    words
}

pub const HF: &str = include_str!("data/hf/llama-3-8b.json");

/// The exit codes the binary documents: 0 success, 1 no answer, 2 bad
/// usage, 65 bad data, 74 I/O.
pub const EXIT_CODES: [i32; 5] = [0, 1, 2, 65, 74];

/// The corpus as argument lists, `OUT` replaced by `dir`.
pub fn corpus(dir: &std::path::Path) -> Vec<Vec<String>> {
    let out = dir.display().to_string();
    CORPUS
        .iter()
        .map(|l| {
            l.replace("OUT", &out)
                .split(' ')
                .map(String::from)
                .collect()
        })
        .collect()
}

/// What one run must satisfy, whichever driver ran it: a documented exit
/// code, no panic, nothing written outside a scenario's folder, no error
/// that reprints a line of the user's file or quotes a file a scenario
/// may not read. `Err` says which rule broke.
pub fn judge(
    args: &[String],
    code: Option<i32>,
    err: &str,
    dir: &std::path::Path,
) -> Result<(), String> {
    if !code.is_some_and(|c| EXIT_CODES.contains(&c)) || err.contains("panicked") {
        return Err(format!("exit {code:?}\n{err}"));
    }
    if std::path::Path::new("/tmp/roofline-fuzz-escaped.svg").exists()
        || dir.join("escaped.svg").exists()
        || dir.join("escaped.toml").exists()
    {
        return Err("a scenario wrote outside its folder".into());
    }
    // No error reprints a line of the user's file under a caret.
    if err.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("| ")
            || t == "|"
            || t.split_once(" | ")
                .is_some_and(|(n, _)| n.trim().parse::<u32>().is_ok())
    }) {
        return Err(format!("an error quoted a file's line:\n{err}"));
    }
    // A scenario reads only its own folders, and no error quotes a file
    // it was not allowed to read.
    if args.first().is_some_and(|a| a == "run") && err.contains("root:x:0:0") {
        return Err(format!(
            "a scenario quoted a file outside its folder:\n{err}"
        ));
    }
    Ok(())
}

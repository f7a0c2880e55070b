//! Each step command's inputs (`decode`, `prefill`, `plan`, `simulate`,
//! `fleet`), declared once as plain data: the one list that the command
//! line's flags (`src/cli/declared.rs` builds clap's arguments from it),
//! the library's fields (a flag is the field of the same name; the
//! command's typed inputs, `DecodeInputs`, `PrefillInputs`, `PlanInputs`,
//! `SimulateInputs` and fleet's `FleetOptions`, take the rest after the
//! query's own), the Python functions' keywords and docstrings
//! (`python/build.rs` writes them from this file) and the web page's form
//! (`web/tools/commands.mjs` reads the command line's `--help`) all come
//! from. Tests compare each of the four with this list.
//!
//! A flag's value is text: each is parsed, and refused with its message,
//! where the library reads its field (`--speculative A,G[,C]`, `--caps`,
//! `--rate`, ...), so a scenario file and Python say the same.
//!
//! This file stands alone (no `crate::` paths), so that the Python
//! package's build script includes it as it is.

/// One input of a command: a flag `--name`, the field `name`, the Python
/// keyword `name` with `_` for `-`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    /// Kebab-case, as a scenario file and the command line name it.
    pub name: &'static str,
    /// What it takes, as `--help` says it (other inputs named as flags,
    /// `--prompt`; no closing period).
    pub help: &'static str,
    /// The Python docstring's wording, where it differs from the command
    /// line's (Python takes objects and lists where the command line
    /// takes ids); `None`: the help with `--flag` written `flag`.
    pub python: Option<&'static str>,
    /// A switch (on when given) rather than a value.
    pub switch: bool,
    /// The command line requires it.
    pub required: bool,
    /// The value's name in `--help` (default: the name in capitals).
    pub value_name: Option<&'static str>,
    /// A value may start with `-`.
    pub hyphen_values: bool,
    /// Flags it may not be given with.
    pub conflicts: &'static [&'static str],
    /// Flags it needs.
    pub requires: &'static [&'static str],
    /// The `--help` section it is listed under (default: Options).
    pub heading: Option<&'static str>,
}

impl Flag {
    /// A value flag with its help; the rest as most flags are.
    const fn value(name: &'static str, help: &'static str) -> Flag {
        Flag {
            name,
            help,
            python: None,
            switch: false,
            required: false,
            value_name: None,
            hyphen_values: false,
            conflicts: &[],
            requires: &[],
            heading: None,
        }
    }

    /// A switch.
    const fn switch(name: &'static str, help: &'static str) -> Flag {
        Flag {
            switch: true,
            ..Flag::value(name, help)
        }
    }

    /// Required by the command line.
    const fn required(self) -> Flag {
        Flag {
            required: true,
            ..self
        }
    }

    /// Worded otherwise in Python's docstring.
    const fn python(self, text: &'static str) -> Flag {
        Flag {
            python: Some(text),
            ..self
        }
    }

    /// Listed in `--help` under `heading`.
    const fn under(self, heading: &'static str) -> Flag {
        Flag {
            heading: Some(heading),
            ..self
        }
    }

    /// Its value named `name` in `--help`.
    const fn value_named(self, name: &'static str) -> Flag {
        Flag {
            value_name: Some(name),
            ..self
        }
    }

    /// Whether the web page offers it: the page reads no files, so an
    /// input whose value is a `FILE` is the command line's and Python's
    /// only (`web/tools/commands.mjs` leaves it out by its value name).
    pub fn on_page(&self) -> bool {
        self.value_name != Some("FILE")
    }

    /// The Python keyword: the name with `_` for `-`.
    pub fn keyword(&self) -> String {
        self.name.replace('-', "_")
    }

    /// The Python docstring's line for it (without the keyword), a
    /// sentence: the Python wording, or the help with each `--flag`
    /// written as its keyword.
    pub fn python_help(&self) -> String {
        let text = match self.python {
            Some(t) => t.to_string(),
            None => {
                let mut out = String::with_capacity(self.help.len());
                let mut rest = self.help;
                while let Some(i) = rest.find("--") {
                    out.push_str(&rest[..i]);
                    rest = &rest[i + 2..];
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                        .unwrap_or(rest.len());
                    out.push_str(&rest[..end].replace('-', "_"));
                    rest = &rest[end..];
                }
                out.push_str(rest);
                out
            }
        };
        if text.ends_with('.') {
            text
        } else {
            text + "."
        }
    }
}

/// A command's declared inputs.
#[derive(Debug, Clone, Copy)]
pub struct Declared {
    /// The command, as the command line spells it.
    pub command: &'static str,
    /// Its one-line summary (`--help`'s first line, the docstring's).
    pub summary: &'static str,
    /// The docstring's summary, where it differs (`search=True` for
    /// `--search`); `None`: the summary.
    pub python_summary: Option<&'static str>,
    /// Its inputs, in `--help`'s order: its own, then the shared groups.
    pub groups: &'static [&'static [Flag]],
    /// Inputs of which the command line needs at least one.
    pub one_of: &'static [&'static str],
}

impl Declared {
    /// Every input, in order.
    pub fn flags(&self) -> impl Iterator<Item = &'static Flag> + use<> {
        let groups: &'static [&'static [Flag]] = self.groups;
        groups.iter().flat_map(|g| g.iter())
    }

    /// The input named `name`.
    pub fn flag(&self, name: &str) -> Option<&'static Flag> {
        self.flags().find(|f| f.name == name)
    }

    /// The docstring's first line, a sentence.
    pub fn python_summary(&self) -> String {
        format!("{}.", self.python_summary.unwrap_or(self.summary))
    }
}

/// The price inputs every command with an energy answer takes
/// (formulas.md, "Cost per token"), listed under `Cost`.
pub const PRICES: &[Flag] = &[
    Flag {
        value_name: Some("AMOUNT/h"),
        heading: Some("Cost"),
        ..Flag::value(
            "price",
            "Price of one device for an hour, as AMOUNT/h (2.50/h; also /min, /s): gives cost per million tokens. A plain number in your currency",
        )
        .python(
            "Price of one device for an hour: \"2.50/h\" (also /min, /s); gives cost per million tokens, in your currency",
        )
    },
    Flag {
        value_name: Some("AMOUNT/kWh"),
        heading: Some("Cost"),
        ..Flag::value(
            "energy-price",
            "Price of energy, as AMOUNT/kWh (0.10/kWh; also /MWh, /Wh): adds the energy bill to the cost and reports its share",
        )
        .python(
            "Price of energy: \"0.10/kWh\" (also /MWh, /Wh); adds the energy bill to the cost and reports its share",
        )
    },
    Flag {
        requires: &["energy-price"],
        heading: Some("Cost"),
        ..Flag::value(
            "pue",
            "Power usage effectiveness, at least 1 (default 1): scales the energy bill only (facility energy over device energy)",
        )
        .python("Power usage effectiveness, at least 1 (default 1): scales the energy bill only")
    },
];

/// A measured time, for the achieved rates (the query's own field).
const MEASURED: Flag = Flag {
    hyphen_values: true,
    ..Flag::value(
        "measured",
        "A measured time (e.g. 1.2ms): the achieved rates and their shares of the roofs (mfu, mbu)",
    )
};

const MODEL: Flag = Flag::value(
    "model",
    "Model id (`roofline model list`) or path to a model .toml or a Hugging Face config.json; a comma-separated list compares",
)
.required()
.python("Model id, path or roofline.Model; a list compares");

const HW: Flag = Flag::value("hw", "Hardware id or path; a comma-separated list compares")
    .required()
    .python("Hardware id, path or roofline.Hardware; a list compares");

const STEP_ENGINE: Flag = Flag::value(
    "engine",
    "Serving engine id or path to a .toml file (default pytorch): which kernels a step runs (`roofline engine list`)",
);

const LAUNCH: Flag = Flag::value(
    "launch",
    "Launch overhead per kernel: none (default: speed of light), eager or graph (the default with --achievable)",
);

/// `decode`: one decode step.
pub const DECODE: Declared = Declared {
    command: "decode",
    summary: "One decode step: bytes, FLOPs, bound, step time, tokens per second; MoE, launch overhead, speculative decoding, SLO capacity",
    python_summary: None,
    groups: &[
        &[
            MEASURED,
            MODEL,
            HW,
            STEP_ENGINE,
            Flag::value("batch", "Sequences decoded together"),
            Flag::value("context", "Tokens already in each sequence's KV cache").required(),
            Flag::value(
                "dtype",
                "Weight precision (default: the hardware's default-dtype): bf16, fp8, int8, int4, mxfp8, mxfp6, mxfp4, nvfp4, ...",
            ),
            Flag::value(
                "kv-dtype",
                "KV precision: bf16 (default), fp16, fp8, int8, int4, int2, fp32",
            ),
            Flag::value(
                "activations",
                "Activation precision (default: the hardware's default-dtype); the matmuls run at the peak of the wider of weights and activations",
            ),
            LAUNCH,
            Flag::value(
                "kernels",
                "Kernels per step (default: from the layer structure)",
            ),
            Flag {
                value_name: Some("A,G[,C]"),
                conflicts: &["acceptance", "draft-tokens", "draft-cost"],
                ..Flag::value(
                    "speculative",
                    "Speculative decoding in one flag: ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST] (e.g. 0.8,4,0.05), the same as the three flags below",
                )
                .python(
                    "Speculative decoding in one field: ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST] (e.g. 0.8,4,0.05), the same as acceptance, draft_tokens and draft_cost",
                )
            },
            Flag::value(
                "acceptance",
                "Speculative decoding: probability a drafted token is accepted",
            ),
            Flag::value(
                "draft-tokens",
                "Speculative decoding: tokens drafted per pass (default 4)",
            ),
            Flag::value(
                "draft-cost",
                "Speculative decoding: a drafted token's cost as a share of a step",
            ),
            Flag::value(
                "slo-tpot",
                "Time-per-output-token target: the largest batch meeting it (20ms; p99=20ms is accepted as in simulate: a step has one time)",
            ),
            Flag::value(
                "slo-ttft",
                "Time-to-first-token target, for goodput (needs --prompt, --output; a time, or PERCENTILE=TIME as in simulate)",
            ),
            Flag::value(
                "prompt",
                "Prompt tokens per request, for goodput with prefill in the loop",
            ),
            Flag::value("output", "Output tokens per request, for goodput"),
            Flag::value(
                "reserve",
                "Memory held back for activations and the runtime (default 10%)",
            ),
            Flag::switch("force", "Allow a context beyond the model's maximum"),
            Flag::value(
                "tp",
                "Tensor-parallel ranks the step runs on: each device holds 1/tp of the sharded weights and ceil(kv heads / tp) of the KV heads, with two all-reduces per layer, priced as `plan --tp N --pp 1` (default 1)",
            )
            .python(
                "Tensor-parallel ranks the step runs on: each device holds 1/tp of the sharded weights and ceil(kv heads / tp) of the KV heads, with two all-reduces per layer, priced as plan(tp=N, pp=1) (default 1)",
            ),
        ],
        PRICES,
    ],
    // The batch, or a time-per-token target the largest batch meeting it
    // is searched for.
    one_of: &["batch", "slo-tpot"],
};

/// `prefill`: a prompt's prefill.
pub const PREFILL: Declared = Declared {
    command: "prefill",
    summary: "A prompt's prefill: FLOPs, bytes, bound, time to first token; chunked, and against materialised attention scores",
    python_summary: None,
    groups: &[
        &[
            MEASURED,
            MODEL,
            HW,
            STEP_ENGINE,
            Flag::value("prompt", "Prompt tokens per sequence").required(),
            Flag::value("batch", "Sequences (default 1)"),
            Flag::value(
                "chunk",
                "Tokens per chunk (chunked prefill; default: the whole prompt)",
            ),
            Flag::value(
                "context",
                "Tokens already cached per sequence before the prompt (a prefix-cache hit, a chunk continuing a long prompt, a speculative verify pass): attention reads them (default 0)",
            ),
            Flag::value(
                "dtype",
                "Weight precision (default: the hardware's default-dtype)",
            ),
            Flag::value("kv-dtype", "KV precision (default bf16)"),
            Flag::value(
                "activations",
                "Activation precision (default: the hardware's default-dtype)",
            ),
            LAUNCH,
            Flag::value(
                "kernels",
                "Kernels per forward (default: from the layer structure)",
            ),
            Flag::switch("force", "Allow a prompt beyond the model's maximum context"),
        ],
        PRICES,
    ],
    one_of: &[],
};

/// The model of a serving command (one model; `decode`'s compares a list).
const SERVING_MODEL: Flag = Flag::value(
    "model",
    "Model id (`roofline model list`) or path to a model .toml or a Hugging Face config.json",
)
.required()
.python("Model id, path or roofline.Model");

/// How each step of `plan`, `simulate` and `fleet` runs: the engine, the
/// precisions, the launch overhead and the memory held back.
const DEPLOY: &[Flag] = &[
    Flag::value(
        "engine",
        "Serving engine id or path (default vllm; pytorch for the plain forward): the kernels each step runs and its all-reduce (`roofline engine list`)",
    ),
    Flag::value(
        "dtype",
        "Weight precision (default: the hardware's default-dtype)",
    ),
    Flag::value("kv-dtype", "KV-cache precision (default bf16)"),
    Flag::value(
        "activations",
        "Activation precision (default: the hardware's default-dtype); fp8 weights need fp8 activations to run at the fp8 peak",
    ),
    Flag::value(
        "launch",
        "Launch overhead per kernel: none (the default: speed of light), eager or graph (the default with --achievable)",
    ),
    Flag::value(
        "reserve",
        "Memory held back for activations and the runtime: a share (default 10%), or step: the runtime's measured footprint and the largest iteration's activations and logits (step:TOKENS,SEQS names it)",
    ),
];

/// The serving workload `simulate` and `fleet` run: Poisson arrivals, the
/// lengths, the targets, the random stream, the KV blocks, the experts and
/// speculative decoding, then the deployment ([`DEPLOY`]).
const WORKLOAD: &[Flag] = &[
    Flag::value(
        "rate",
        "Poisson arrivals: requests per second (12/s, 720/min)",
    ),
    Flag::value(
        "prompt",
        "Prompt tokens: N, lognormal:MEAN,SIGMA or uniform:A..B",
    ),
    Flag::value(
        "output",
        "Output tokens: N, lognormal:MEAN,SIGMA or uniform:A..B",
    ),
    Flag::value(
        "prefix-hit",
        "Share of each prompt already in the prefix cache (50% or 0.5)",
    ),
    Flag::value(
        "slo-ttft",
        "Time-to-first-token target: 2s (p99) or p50=500ms",
    ),
    Flag::value(
        "slo-tpot",
        "Time-per-output-token target: 50ms (p99) or p90=40ms",
    ),
    Flag::value("seed", "Seed of the random stream (default 0)"),
    Flag::value(
        "block-size",
        "Tokens per KV block (default 16, vLLM's block_size)",
    ),
    Flag::value(
        "redundant-experts",
        "Redundant copies of hot experts over each expert group (default 0), as plan takes them",
    ),
    Flag::value(
        "speculative",
        "Speculative decoding (MTP, EAGLE) on every decode step: ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST] (e.g. 0.8,3,0.05), as decode --speculative takes it",
    )
    .python(
        "Speculative decoding (MTP, EAGLE) on every decode step: \"ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST]\" (\"0.8,3,0.05\"), as decode's speculative takes it",
    ),
    Flag::switch("force", "Allow requests beyond the model's maximum context"),
];

/// `plan`: a parallel layout, a search over layouts, or disaggregated
/// pools.
pub const PLAN: Declared = Declared {
    command: "plan",
    summary: "A parallel layout (TP, PP, DP, EP) of a model: memory per device, communication, prefill and decode times; --search ranks every valid layout; --disaggregate sizes prefill and decode pools",
    python_summary: Some(
        "A parallel layout (TP, PP, DP, EP) of a model: memory per device, communication, prefill and decode times; search=True ranks every valid layout; disaggregate=True sizes prefill and decode pools",
    ),
    groups: &[
        &[
            SERVING_MODEL,
            Flag::value(
                "hw",
                "Hardware id or path; a comma-separated list compares several",
            )
            .required()
            .python("Hardware id, path or roofline.Hardware; a list compares several"),
            Flag::value(
                "devices",
                "Devices in all (tp x pp x dp); required with --search",
            ),
            Flag::value("tp", "Tensor-parallel degree (default 1)"),
            Flag::value("pp", "Pipeline stages (default 1)"),
            Flag::value(
                "dp",
                "Data-parallel replicas (default: devices / (tp x pp))",
            ),
            Flag::value(
                "ep",
                "Expert-parallel degree of the MoE layers; divides tp x dp (default 1)",
            ),
            Flag::value(
                "redundant-experts",
                "Redundant copies of hot experts over the expert group (default 0)",
            ),
            Flag::value(
                "batch",
                "Sequences in flight per data-parallel replica (default 1)",
            ),
            Flag::value(
                "context",
                "Context tokens per sequence at the decode step (default 4096)",
            ),
            Flag::value(
                "prompt",
                "Prompt tokens per sequence for prefill (default 1024)",
            ),
            Flag::value("microbatches", "Pipeline microbatches (default: pp)"),
        ],
        DEPLOY,
        &[
            Flag::switch(
                "allow-cross-node",
                "Let tensor parallelism cross the scale-up domain",
            ),
            Flag {
                conflicts: &["disaggregate"],
                ..Flag::switch(
                    "search",
                    "Enumerate every valid layout of --devices and rank them",
                )
            },
            Flag::value(
                "objective",
                "What --search ranks by: latency, throughput or goodput (default throughput)",
            ),
            Flag::value(
                "slo-ttft",
                "Time-to-first-token target for goodput (e.g. 500ms; p99=500ms is accepted as in simulate: a step has one time)",
            ),
            Flag::value(
                "slo-tpot",
                "Time-per-output-token target for goodput (e.g. 50ms, or p99=50ms)",
            ),
            Flag {
                requires: &["prefill-devices", "decode-devices"],
                ..Flag::switch("disaggregate", "Lay out separate prefill and decode pools")
            },
            Flag {
                requires: &["disaggregate"],
                ..Flag::value("prefill-devices", "Devices of the prefill pool")
            },
            Flag {
                requires: &["disaggregate"],
                ..Flag::value("decode-devices", "Devices of the decode pool")
            },
        ],
        PRICES,
    ],
    one_of: &[],
};

/// The section of `simulate --help` that lists a separate prefill pool.
const POOLS: &str = "Disaggregated pools";

/// `simulate`: one serving deployment, request by request.
pub const SIMULATE: Declared = Declared {
    command: "simulate",
    summary: "One serving deployment request by request: continuous batching, chunked prefill, paged KV with preemption; latency percentiles, throughput, goodput under SLOs",
    python_summary: None,
    groups: &[
        &[
            SERVING_MODEL,
            Flag::value("hw", "Hardware id or path")
                .required()
                .python("Hardware id, path or roofline.Hardware"),
            Flag::value(
                "concurrency",
                "A closed loop: this many users, each sending its next request when the last one finishes",
            ),
            Flag::value(
                "trace",
                "A CSV trace: arrival_s, prompt_tokens, output_tokens per row",
            )
            .value_named("FILE"),
        ],
        WORKLOAD,
        DEPLOY,
        &[
            Flag::value(
                "requests",
                "Requests to simulate (default 10,000; a trace: its rows)",
            ),
            Flag::value(
                "max-batched-tokens",
                "Token budget of one iteration (default 2,048 + max-seqs: a 2,048-token prompt whole beside a full batch of decodes)",
            ),
            Flag::value(
                "max-seqs",
                "Sequences one iteration holds (default 256, vLLM's max_num_seqs)",
            ),
            Flag::value("tp", "Tensor parallelism of a replica (default 1)"),
            Flag::value("pp", "Pipeline stages of a replica (default 1)"),
            Flag::value("ep", "Expert parallelism (default 1)"),
            Flag::value(
                "dp",
                "Data-parallel replicas, requests routed among them at random (default 1)",
            ),
            Flag::switch(
                "per-request",
                "One row per request (arrival, queue, TTFT, TPOT, E2E)",
            ),
            Flag::value(
                "prefill-dp",
                "Disaggregated: replicas of a separate prefill pool; --tp/--pp/--ep/--dp and --hw are then the decode pool's",
            )
            .under(POOLS),
            Flag::value(
                "prefill-tp",
                "Tensor parallelism of a prefill replica (default 1)",
            )
            .under(POOLS),
            Flag::value(
                "prefill-pp",
                "Pipeline stages of a prefill replica (default 1)",
            )
            .under(POOLS),
            Flag::value(
                "prefill-ep",
                "Expert parallelism of a prefill replica (default 1)",
            )
            .under(POOLS),
            Flag::value("prefill-hw", "The prefill pool's part (default: --hw)")
                .under(POOLS)
                .python("The prefill pool's part: id, path or roofline.Hardware (default: hw)"),
            Flag::value(
                "prefill-max-batched-tokens",
                "Token budget of a prefill iteration (default 2,048)",
            )
            .under(POOLS),
        ],
        PRICES,
    ],
    one_of: &[],
};

/// `fleet`: the fewest devices that meet the targets, and the frontier.
pub const FLEET: Declared = Declared {
    command: "fleet",
    summary: "The fewest devices that serve a request rate within TTFT and TPOT targets: layouts, batch caps and parts searched by simulation; --pareto traces tokens/s per device against tokens/s per user",
    python_summary: Some(
        "The fewest devices that serve a request rate within TTFT and TPOT targets: layouts, batch caps and parts searched by simulation; pareto=True traces tokens/s per device against tokens/s per user",
    ),
    groups: &[
        &[
            SERVING_MODEL,
            Flag::value(
                "hw",
                "Hardware ids or paths, comma-separated: each part's own search, side by side (--joint searches them together)",
            )
            .required()
            .python(
                "Hardware ids, paths or roofline.Hardware, as a list or comma-separated: each part's own search, side by side (joint=True searches them together)",
            ),
            Flag::switch(
                "joint",
                "Search the listed parts together: one deployment may mix them (a prefill pool of one part, a decode pool of another)",
            ),
        ],
        WORKLOAD,
        DEPLOY,
        &[
            Flag::value(
                "requests",
                "Requests each simulated verdict runs (default 1,000)",
            ),
            Flag::value(
                "max-devices",
                "The most devices a deployment may take (default 1,024)",
            ),
            Flag::value("caps", "Batch caps searched (default 16,32,64,128,256)"),
            Flag::value("budgets", "Token budgets searched (default 2,048 + the cap)"),
            Flag::value(
                "objective",
                "What to minimise: devices (the default), energy (per output token) or cost (per million output tokens; needs --price and/or --energy-price)",
            ),
            Flag::switch(
                "pareto",
                "Print the frontier of tokens/s per device against tokens/s per user (draw it with --chart)",
            ),
        ],
        PRICES,
    ],
    one_of: &[],
};

/// Every command whose inputs are declared here.
pub const DECLARED: &[Declared] = &[DECODE, PREFILL, PLAN, SIMULATE, FLEET];

/// The declared inputs of `command`, as the command line spells it.
pub fn declared(command: &str) -> Option<&'static Declared> {
    DECLARED.iter().find(|d| d.command == command)
}

//! `decode`: one decode step of a model on a device (formulas.md, "Serving:
//! decode step"; 002 §7.3-§7.4, 004 "launch overhead"). The step is a
//! forward of one new token per sequence over a cache of `context` tokens,
//! built from typed per-op costs ([`super::step`]) and timed on one
//! [`Roof`]: max(FLOPs / peak, bytes / bandwidth), plus launch overhead
//! when asked. With speculative decoding a pass verifies g+1 tokens per
//! sequence; with a time-per-output-token target the largest batch that
//! meets it is found by bisection.

use super::kv::{self, KvPrecision};
use super::matmul::efficiency::GemmModel;
use super::power;
use super::roof::{self, Roof, RoofTime};
use super::simulate::slo::Target;
use super::speculative;
use super::step::price::{CachedAttention, HostPath, Launch, Priced, Pricer};
use super::step::report as step_price;
use super::step::{self, Precisions, Shape, Step};
use crate::error::{Error, Result};
use crate::inputs::{Count, Number, Tokens, at_least_one, positive};
use crate::precision::{self, Precision};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units::{self, si};
use serde::{Deserialize, Serialize};

/// `decode`'s inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DecodeInputs {
    /// Sequences decoded together; without it, with `slo_tpot`, the largest
    /// batch meeting the target.
    pub batch: Option<Count>,
    /// Tokens already in each sequence's KV cache.
    pub context: Tokens,
    /// Weight precision (default: the hardware's default-dtype).
    pub dtype: Option<String>,
    /// KV precision (default bf16).
    pub kv_dtype: Option<String>,
    /// Activation precision (default: the hardware's default-dtype); the
    /// matmuls run at the peak of the wider of weights and activations.
    pub activations: Option<String>,
    /// Launch overhead: `none` (speed of light; the default), `eager` or
    /// `graph` (the default with --achievable).
    pub launch: Option<String>,
    /// Kernels per step (default: from the layer structure).
    pub kernels: Option<Count>,
    /// Speculative decoding: the acceptance rate a.
    pub acceptance: Option<Number>,
    /// Speculative decoding: tokens drafted per pass g (default 4).
    pub draft_tokens: Option<Count>,
    /// Speculative decoding: a drafted token's cost as a share of a
    /// target step c (default 0).
    pub draft_cost: Option<Number>,
    /// Time-per-output-token target: find the largest batch meeting it
    /// (`20ms`, or `p99=20ms`: a step has one time, so every percentile
    /// of it is that time).
    pub slo_tpot: Option<Target>,
    /// Time-to-first-token target, for goodput (the same syntax).
    pub slo_ttft: Option<Target>,
    /// Prompt tokens per request, for goodput (prefill in the loop).
    pub prompt: Option<Tokens>,
    /// Output tokens per request, for goodput.
    pub output: Option<Tokens>,
    /// Share of memory held back for activations and the runtime.
    pub reserve: Option<serde_json::Value>,
    /// Allow a context beyond the model's maximum.
    #[serde(default)]
    pub force: bool,
}

/// Launch overhead mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchMode {
    /// No overhead: the speed of light.
    None,
    /// Kernels launched eagerly one after another.
    Eager,
    /// Kernels replayed from a CUDA graph.
    Graph,
}

impl LaunchMode {
    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            LaunchMode::None => "none",
            LaunchMode::Eager => "eager",
            LaunchMode::Graph => "graph",
        }
    }
}

/// The precisions and roof a step runs on, and its launch overhead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setup {
    /// Weight precision.
    pub weights: &'static str,
    /// Activation precision.
    pub activations: &'static str,
    /// The compute key the matmuls run at.
    pub compute: &'static str,
    /// KV precision.
    pub kv: KvPrecision,
    /// Bytes per element of each tensor kind.
    pub precisions: Precisions,
    /// The roof at the compute precision.
    pub roof: Roof,
    /// Datasheet or measured.
    pub mode: Mode,
    /// Launch mode.
    pub launch: LaunchMode,
    /// Seconds per kernel.
    pub per_kernel_s: f64,
    /// Whether the launch overhead is the file's measured
    /// `achievable.launch` figure.
    pub launch_measured: bool,
    /// Kernels per forward.
    pub kernels: f64,
    /// Whether the kernel count was given.
    pub kernels_given: bool,
    /// Where the peak, the bandwidth and the launch overhead come from:
    /// the file's field and its source.
    pub sources: [Option<String>; 3],
    /// The per-operation model (`--achievable` only).
    #[serde(skip)]
    pub pricer: Option<Pricer>,
    /// Figures the per-operation model found missing and did without
    /// (field names), for the notes.
    #[serde(skip)]
    pub missing: Vec<&'static str>,
}

/// The precision, launch and kernel choices a step is set up with (each
/// `None` takes its default).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Choices<'a> {
    /// Weight precision.
    pub dtype: Option<&'a str>,
    /// Activation precision.
    pub activations: Option<&'a str>,
    /// KV precision.
    pub kv_dtype: Option<&'a str>,
    /// `none`, `eager` or `graph`.
    pub launch: Option<&'a str>,
    /// Kernels per forward.
    pub kernels: Option<Count>,
}

/// Resolves precisions, the roof and launch overhead for `m` on `hw`.
pub fn setup(m: &Model, hw: &Hardware, mode: Mode, c: Choices) -> Result<Setup> {
    let Choices {
        dtype,
        activations,
        kv_dtype,
        launch,
        kernels,
    } = c;
    let named = |field: &str, e: Error| match e {
        Error::Input { message, .. } => Error::field(field, message),
        e => e,
    };
    // A quantized checkpoint's own weight precision comes before the
    // hardware's default.
    let dtype = dtype.or(m.weight_dtype.as_deref());
    let w = precision::lookup(dtype.unwrap_or(&hw.default_dtype)).map_err(|e| named("dtype", e))?;
    let a = precision::lookup(activations.unwrap_or(&hw.default_dtype))
        .map_err(|e| named("activations", e))?;
    let kv = kv::kv_precision(kv_dtype.unwrap_or("bf16"))?;
    // A matmul runs at the precision of its wider operand: int4 weights
    // against bf16 activations run at the bf16 peak (weight-only); fp8
    // weights against fp8 activations at the fp8 peak.
    let compute: &'static Precision = if w.bits > a.bits + 0.5 { w } else { a };
    let compute = precision::lookup(compute.compute)?;
    let p = hw.precision(Some(compute.name))?;
    let roof = Roof::of(hw, p, mode)?;
    // The default launch mode, not one the user asked for, gets a hint on
    // how to do without it when the file lacks its figure.
    let defaulted = launch.is_none();
    let launch = match launch.map(|s| s.trim().to_ascii_lowercase()) {
        None => match mode {
            Mode::SpeedOfLight => LaunchMode::None,
            Mode::Achievable => LaunchMode::Graph,
        },
        Some(s) => match s.as_str() {
            "none" => LaunchMode::None,
            "eager" => LaunchMode::Eager,
            "graph" => LaunchMode::Graph,
            _ => {
                return Err(Error::field(
                    "launch",
                    format!("`{s}`: expected none, eager or graph"),
                ));
            }
        },
    };
    let table = match mode {
        Mode::SpeedOfLight => hw.launch.as_ref(),
        Mode::Achievable => hw
            .achievable
            .as_ref()
            .and_then(|x| x.launch.as_ref())
            .or(hw.launch.as_ref()),
    };
    let per_kernel_s = match launch {
        LaunchMode::None => 0.0,
        LaunchMode::Eager => table
            .and_then(|l| l.eager)
            .map(|s| s.get())
            .ok_or_else(|| hw.missing("launch.eager", "eager launch overhead", Some("7 us")))?,
        LaunchMode::Graph => table
            .and_then(|l| l.graph)
            .map(|s| s.get())
            .ok_or_else(|| {
                let why = if defaulted && mode == Mode::Achievable {
                    "CUDA-graph launch overhead, the default with --achievable; --launch none leaves launch overhead out"
                } else {
                    "CUDA-graph launch overhead"
                };
                hw.missing("launch.graph", why, Some("1 us"))
            })?,
    };
    // Measured only when it comes from the file's `achievable.launch`; the
    // plain `launch` section it falls back to may be a course's estimate.
    let launch_measured = mode == Mode::Achievable
        && hw
            .achievable
            .as_ref()
            .and_then(|x| x.launch.as_ref())
            .and_then(|l| match launch {
                LaunchMode::None => None,
                LaunchMode::Eager => l.eager,
                LaunchMode::Graph => l.graph,
            })
            .is_some();
    let launch_key = match launch {
        LaunchMode::None => None,
        LaunchMode::Eager => Some("eager"),
        LaunchMode::Graph => Some("graph"),
    };
    let prefix = match mode {
        Mode::SpeedOfLight => "",
        Mode::Achievable => "achievable.",
    };
    // Built with push_str, not format!: every sweep point resolves them.
    let named = |mut field: String| {
        if let Some(s) = hw.source(&field) {
            field.reserve(2 + s.len());
            field.push_str(": ");
            field.push_str(s);
        }
        Some(field)
    };
    let launch_field = launch_key.map(|k| {
        let measured = format!("achievable.launch.{k}");
        if mode == Mode::Achievable && hw.source(&measured).is_some() {
            measured
        } else {
            format!("launch.{k}")
        }
    });
    let sources = [
        named(match mode {
            Mode::SpeedOfLight => format!("compute.dense.{}", p.compute),
            Mode::Achievable => format!("achievable.dense.{}", p.compute),
        }),
        named(format!(
            "{prefix}{}",
            if prefix.is_empty() {
                "memory.hbm-bandwidth"
            } else {
                "hbm-bandwidth"
            }
        )),
        launch_field.and_then(named),
    ];
    let (kernels, given) = match kernels {
        // A step launches at least one kernel.
        Some(k) => (at_least_one("kernels", k.0)? as f64, true),
        None => (step::kernels(m), false),
    };
    let mut missing = Vec::new();
    let pricer = (mode == Mode::Achievable).then(|| {
        pricer(
            hw,
            &roof,
            p.compute,
            kv.name,
            launch,
            per_kernel_s,
            Precisions {
                weight: w.bytes(),
                activation: a.bytes(),
                kv: kv.bytes(),
            },
            &mut missing,
        )
    });
    Ok(Setup {
        weights: w.name,
        activations: a.name,
        compute: p.name,
        kv: *kv,
        precisions: Precisions {
            weight: w.bytes(),
            activation: a.bytes(),
            kv: kv.bytes(),
        },
        roof,
        mode,
        launch,
        per_kernel_s,
        launch_measured,
        kernels,
        kernels_given: given,
        sources,
        pricer,
        missing,
    })
}

/// The per-operation model of `hw` at compute precision `compute` and the
/// launch mode chosen: the measured rates, the file's `achievable` figures
/// (formulas.md, "Achievable: a forward operation by operation"). Optional
/// figures the file lacks are named in `missing`.
#[allow(clippy::too_many_arguments)]
pub fn pricer(
    hw: &Hardware,
    roof: &Roof,
    compute: &str,
    kv: &str,
    launch: LaunchMode,
    per_kernel_s: f64,
    precisions: Precisions,
    missing: &mut Vec<&'static str>,
) -> Pricer {
    let a = hw.achievable.as_ref();
    // Attention multiplies queries by the cached keys and values: it runs
    // at the cache's precision (an 8-bit cache at the 8-bit rate) and at 16
    // bits otherwise (integer caches dequantize to 16 bits), whatever the
    // weights and activations of the projections.
    let attention_dtype = if kv == "fp8" { "fp8" } else { "bf16" };
    let (attention_rate, attention_sustained) = if attention_dtype == compute {
        (roof.peak, a.and_then(|a| a.sustained.get(compute)))
    } else {
        let p = hw.precision(Some(attention_dtype)).ok();
        (
            p.and_then(|p| hw.peak(p, Mode::Achievable).ok())
                .unwrap_or(roof.peak),
            a.and_then(|a| a.sustained.get(attention_dtype)),
        )
    };
    let overhead = a.and_then(|a| a.kernel_overhead).map(|s| s.get());
    if overhead.is_none() {
        missing.push("achievable.kernel-overhead");
    }
    let sustained = a.and_then(|a| a.sustained.get(compute));
    if sustained.is_none() {
        missing.push("achievable.sustained");
    }
    let attention = a
        .and_then(|a| a.attention.as_ref())
        .and_then(|at| Some((at.peak_fraction?, at.half_length?.get() as f64)));
    if attention.is_none() {
        missing.push("achievable.attention");
    }
    let query_tile = a
        .and_then(|a| a.attention.as_ref())
        .and_then(|at| at.query_tile)
        .map_or(1, |t| t.get());
    let cached_attention = a.and_then(|a| a.attention.as_ref()).and_then(|at| {
        Some(CachedAttention {
            curve: (
                at.cached_peak_fraction?,
                at.cached_half_length?.get() as f64,
            ),
            query_tile: at.cached_query_tile.map_or(query_tile, |t| t.get()),
            split_query_tile: at.cached_split_query_tile.map(|t| t.get()),
        })
    });
    let gemm = GemmModel::of(hw);
    if gemm.tiles.is_empty() {
        missing.push("achievable.gemm");
    }
    // An eager step from Python pays each kernel's host path, the measured
    // cost of one eager call; the bare launch where the file lacks it.
    let (launch, per_kernel_s) = match launch {
        LaunchMode::None => (Launch::None, 0.0),
        LaunchMode::Graph => (Launch::Graph, per_kernel_s),
        LaunchMode::Eager => (
            Launch::Eager,
            match a.and_then(|a| a.call.as_ref()).and_then(|c| c.matmul_eager) {
                Some(c) => c.get(),
                None => {
                    missing.push("achievable.call.matmul-eager");
                    per_kernel_s
                }
            },
        ),
    };
    // Each call's host path by its class; a file without the class figures
    // prices every call as a GEMM's.
    // Each measured alone, times the cost of interleaving them.
    let call = a.and_then(|a| a.call.as_ref());
    let x = call.and_then(|c| c.interleave).unwrap_or(1.0);
    let host = HostPath {
        gemm_s: x * per_kernel_s,
        kernel_s: x * call
            .and_then(|c| c.kernel_eager)
            .map_or(per_kernel_s, |s| s.get()),
        attention_s: x * call
            .and_then(|c| c.attention_eager)
            .map_or(per_kernel_s, |s| s.get()),
        cached_attention_s: x * call
            .and_then(|c| c.cached_attention_eager)
            .map_or(per_kernel_s * step::ATTENTION_KERNELS, |s| s.get()),
    };
    Pricer {
        rate: roof.peak,
        sustained,
        bandwidth: roof.bandwidth,
        launch,
        per_kernel_s,
        host,
        overhead_s: overhead.unwrap_or(0.0),
        gemm,
        attention,
        query_tile,
        cached_attention,
        attention_rate,
        attention_sustained,
        precisions,
    }
}

impl Setup {
    /// The launch overhead in words for an `--achievable` note: measured,
    /// from the file's plain `launch` section, or none.
    pub fn launch_words(&self) -> String {
        if let (LaunchMode::Eager, Some(p)) = (self.launch, &self.pricer)
            && !self.missing.contains(&"achievable.call.matmul-eager")
        {
            let h = &p.host;
            return format!(
                "eager: the host's path per call from Python where longer than the GPU's work ({} a GEMM call, {} an elementwise kernel, {} an attention call, {} a cached-prefix attention op, interleaved)",
                units::seconds(h.gemm_s),
                units::seconds(h.kernel_s),
                units::seconds(h.attention_s),
                units::seconds(h.cached_attention_s)
            );
        }
        match self.launch {
            LaunchMode::None => "no launch overhead (--launch none)".into(),
            l if self.launch_measured => format!(
                "{} per kernel ({} launch)",
                units::seconds(self.per_kernel_s),
                l.as_str()
            ),
            l => format!(
                "{} per kernel (launch.{}: the file's figure, not a measurement)",
                units::seconds(self.per_kernel_s),
                l.as_str()
            ),
        }
    }

    /// Records the peak, the bandwidth (each with the file field it came
    /// from) and the ridge point.
    pub fn record_roof(&self, r: &mut Report) {
        r.result("peak_flops_per_s", self.roof.peak, || {
            Quantity::new(
                format!("peak ({})", self.compute),
                self.roof.unit(Unit::FlopPerSec),
            )
            .source(self.sources[0].as_deref())
        });
        r.result("bandwidth_bytes_per_s", self.roof.bandwidth, || {
            Quantity::new("memory bandwidth", Unit::BytesPerSec).source(self.sources[1].as_deref())
        });
        roof::ridge(r, &self.roof);
    }
}

/// A timed forward: the step, its roofline time, launch overhead and the
/// total.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    /// The ops and their sums.
    pub step: Step,
    /// max(compute, memory) over the whole step (the speed of light's
    /// time; under `--achievable` the one-roof figure beside the
    /// per-operation sum).
    pub roof: RoofTime,
    /// Speed of light: kernels x seconds per kernel. Per operation: every
    /// kernel's overhead and launch (or host wait).
    pub launch_s: f64,
    /// roof + launch, or the per-operation sum.
    pub total_s: f64,
    /// The per-operation prices (`--achievable`).
    pub priced: Option<Priced>,
}

/// Times a forward of `shape` under `s`.
pub fn timed(m: &Model, s: &Setup, shape: Shape) -> Result<Timed> {
    let step = step::forward(m, shape, &s.precisions)?;
    Ok(time_step(s, step))
}

/// Times a forward already built: the speed of light on one roof, or the
/// per-operation sum under `--achievable`.
pub fn time_step(s: &Setup, step: Step) -> Timed {
    let t = s.roof.time(step.flops(), step.bytes());
    match &s.pricer {
        Some(p) => {
            let scale = if s.kernels_given {
                let structural = step.achievable_kernels();
                if structural > 0.0 {
                    s.kernels / structural
                } else {
                    1.0
                }
            } else {
                1.0
            };
            let priced = p.price(&step, scale);
            Timed {
                step,
                roof: t,
                launch_s: priced.overhead_s,
                total_s: priced.time_s,
                priced: Some(priced),
            }
        }
        None => {
            let launch_s = s.kernels * s.per_kernel_s;
            Timed {
                step,
                roof: t,
                launch_s,
                total_s: t.time_s + launch_s,
                priced: None,
            }
        }
    }
}

/// Speculative decoding applied to the step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Speculation {
    /// a.
    pub acceptance: f64,
    /// g.
    pub draft_tokens: u64,
    /// c.
    pub draft_cost: f64,
    /// (1 - a^(g+1)) / (1 - a).
    pub expected_tokens: f64,
    /// The plain one-token step, total.
    pub plain_step_s: f64,
    /// verify pass + g c plain steps.
    pub pass_s: f64,
    /// plain step / (pass / expected tokens).
    pub speedup: f64,
}

/// What limits the largest batch meeting a time-per-token target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SloBound {
    /// One more sequence's KV cache does not fit beside the weights.
    Memory,
    /// One more sequence makes a token take longer than the target.
    TimePerToken,
    /// The search's own upper end (no memory capacity to bound it).
    SearchLimit,
}

impl SloBound {
    /// The words a table shows.
    pub fn as_str(self) -> &'static str {
        match self {
            SloBound::Memory => "memory",
            SloBound::TimePerToken => "time per token",
            SloBound::SearchLimit => "search limit",
        }
    }
}

/// The largest batch meeting a time-per-output-token target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slo {
    /// The target.
    pub tpot_s: f64,
    /// The largest batch meeting it (0: none does).
    pub batch: u64,
    /// The upper end searched (memory's max batch, where known).
    pub searched_to: u64,
    /// Its time per output token.
    pub batch_tpot_s: f64,
    /// What sets the batch: the memory (the next batch's KV does not fit)
    /// or the time per token (the next batch misses the target).
    pub bound: SloBound,
    /// The next batch's time per output token, where it fits.
    pub next_tpot_s: Option<f64>,
    /// Device throughput there.
    pub tokens_per_s: f64,
}

/// Requests with prefill in the loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Goodput {
    /// Prompt tokens.
    pub prompt: u64,
    /// Output tokens.
    pub output: u64,
    /// Prefill of one prompt (time to first token).
    pub ttft_s: f64,
    /// ttft + output x time per output token.
    pub request_latency_s: f64,
    /// batch / (output x step + batch x ttft).
    pub requests_per_s: f64,
    /// Whether the SLOs given are met.
    pub meets_slo: bool,
}

/// Every figure `decode` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeCost {
    /// The hardware's id.
    pub hardware: String,
    /// The model's id.
    pub model: String,
    /// Sequences.
    pub batch: u64,
    /// Tokens cached per sequence.
    pub context: u64,
    /// Precisions, roof and launch.
    pub setup: Setup,
    /// The step (a speculative pass when speculating).
    pub timed: Timed,
    /// Every weight of the model at the weight precision.
    pub model_weight_bytes: f64,
    /// Tokens each sequence gains per step.
    pub tokens_per_step: f64,
    /// Step time (a pass, drafts included).
    pub step_time_s: f64,
    /// Speculative decoding, if asked.
    pub speculation: Option<Speculation>,
    /// The SLO search, if asked.
    pub slo: Option<Slo>,
    /// Goodput, if asked.
    pub goodput: Option<Goodput>,
    /// KV + weights against memory, where the file has a capacity.
    pub memory: Option<MemoryFit>,
    /// The model's maximum when the context passes it (forced).
    pub beyond_max: Option<u64>,
    /// Whether the batch is the time-per-token search's answer (no batch
    /// was given).
    pub batch_searched: bool,
    /// Board power and energy per output token (formulas.md, "Power and
    /// energy").
    pub energy: super::power::Energy,
}

/// Weights and KV against device memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryFit {
    /// Bytes left for KV after weights and reserve.
    pub kv_budget_bytes: f64,
    /// The KV of this batch.
    pub kv_bytes: f64,
    /// Whether it fits.
    pub fits: bool,
    /// Sequences of this context that fit.
    pub max_batch: u64,
    /// Usable or datasheet memory.
    pub source: kv::MemorySource,
}

/// `decode`'s cost.
pub fn cost(m: &Model, hw: &Hardware, inputs: &DecodeInputs, mode: Mode) -> Result<DecodeCost> {
    let given_batch = match inputs.batch {
        Some(b) => Some(at_least_one("batch", b.0)?),
        None if inputs.slo_tpot.is_some() => None,
        None => {
            return Err(Error::missing_input(
                "batch",
                "give `batch`, or a time-per-token target (`slo-tpot`) to search for the largest batch meeting it",
            ));
        }
    };
    let context = inputs.context.0;
    let beyond_max = kv::check_context(m, context, inputs.force)?;
    let s = setup(
        m,
        hw,
        mode,
        Choices {
            dtype: inputs.dtype.as_deref(),
            activations: inputs.activations.as_deref(),
            kv_dtype: inputs.kv_dtype.as_deref(),
            launch: inputs.launch.as_deref(),
            kernels: inputs.kernels,
        },
    )?;
    let params = super::model::params(m)?.total as f64;
    let model_weight_bytes = params * s.precisions.weight;

    // Memory: weights that cannot fit at all are no answer (exit 1).
    let memory = match kv::device_memory(hw) {
        Err(_) => None,
        Ok(_) => {
            let b = kv::budget(m, hw, inputs.dtype.as_deref(), inputs.reserve.as_ref())?;
            let (source, left) = (b.source, b.kv_budget_bytes);
            let cached = m
                .sliding_window
                .map_or(context + 1, |w| (context + 1).min(w.get()));
            let per_seq = super::model::kv_elements_per_token_per_layer(m)? as f64
                * s.precisions.kv
                * m.layers.get() as f64
                * cached as f64;
            // The batch's KV is filled in once the batch is known (it may
            // be the answer of the time-per-token search).
            Some((
                MemoryFit {
                    kv_budget_bytes: left,
                    kv_bytes: 0.0,
                    fits: true,
                    max_batch: (left / per_seq).floor().min(u64::MAX as f64) as u64,
                    source,
                },
                per_seq,
            ))
        }
    };

    let spec = match inputs.acceptance {
        None => {
            if inputs.draft_tokens.is_some() || inputs.draft_cost.is_some() {
                return Err(Error::missing_input(
                    "acceptance",
                    "speculative decoding needs the acceptance rate as well",
                ));
            }
            None
        }
        Some(a) => {
            let a = speculative::acceptance(a.0)?;
            let g = at_least_one("draft-tokens", inputs.draft_tokens.map_or(4, |g| g.0))?;
            if g > 1024 {
                return Err(Error::field(
                    "draft-tokens",
                    "at most 1024 drafted tokens per pass",
                ));
            }
            let c =
                crate::inputs::non_negative("draft-cost", inputs.draft_cost.map_or(0.0, |c| c.0))?;
            Some((a, g, c))
        }
    };

    // One step (or speculative pass) at a batch: the timed forward, the
    // pass time and tokens per sequence per pass.
    let at = |b: u64| -> Result<(Timed, f64, f64, Option<Speculation>)> {
        let plain = timed(
            m,
            &s,
            Shape {
                batch: b,
                new: 1,
                past: context,
                lm_head_tokens: 1,
            },
        )?;
        match spec {
            None => {
                let t = plain.total_s;
                Ok((plain, t, 1.0, None))
            }
            Some((a, g, c)) => {
                let verify = timed(
                    m,
                    &s,
                    Shape {
                        batch: b,
                        new: g + 1,
                        past: context,
                        lm_head_tokens: g + 1,
                    },
                )?;
                let e = speculative::expected_tokens(a, g);
                let pass = verify.total_s + g as f64 * c * plain.total_s;
                let sp = Speculation {
                    acceptance: a,
                    draft_tokens: g,
                    draft_cost: c,
                    expected_tokens: e,
                    plain_step_s: plain.total_s,
                    pass_s: pass,
                    speedup: plain.total_s / (pass / e),
                };
                Ok((verify, pass, e, Some(sp)))
            }
        }
    };
    let slo = match inputs.slo_tpot {
        None => None,
        Some(target) => {
            let target = positive("slo-tpot", target.seconds)?;
            let hi = memory.as_ref().map_or(1 << 20, |(f, _)| f.max_batch.max(1));
            let tpot = |b: u64| -> Result<f64> {
                let (_, pass, e, _) = at(b)?;
                Ok(pass / e)
            };
            let (best, best_tpot) = if tpot(1)? > target {
                (0, tpot(1)?)
            } else if tpot(hi)? <= target {
                (hi, tpot(hi)?)
            } else {
                // Invariant: lo meets the target, hi does not.
                let (mut lo, mut hi) = (1u64, hi);
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if tpot(mid)? <= target {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                (lo, tpot(lo)?)
            };
            // What stops the batch growing: at the top of the search, the
            // memory (or the search's own limit); below it, the next batch's
            // time per token.
            let (bound, next_tpot_s) = if best == hi && best > 0 {
                match memory {
                    Some(_) => (SloBound::Memory, None),
                    None => (SloBound::SearchLimit, None),
                }
            } else {
                (SloBound::TimePerToken, Some(tpot(best + 1)?))
            };
            Some(Slo {
                tpot_s: target,
                batch: best,
                searched_to: hi,
                batch_tpot_s: best_tpot,
                bound,
                next_tpot_s,
                tokens_per_s: if best == 0 {
                    0.0
                } else {
                    best as f64 / best_tpot
                },
            })
        }
    };

    let batch_searched = given_batch.is_none();
    // Without a batch, the step is worked at the search's answer (batch 1
    // where none meets the target).
    let batch = given_batch.unwrap_or_else(|| slo.as_ref().map_or(1, |s| s.batch.max(1)));
    let memory = memory.map(|(mut f, per_seq)| {
        f.kv_bytes = per_seq * batch as f64;
        f.fits = f.kv_bytes <= f.kv_budget_bytes;
        f
    });
    let (t, step_time_s, tokens_per_step, speculation) = at(batch)?;
    // A speculative pass is the verify forward plus g draft steps, each
    // taken to draw what a plain step of the target draws for c of its
    // time (the draft model's own figures are not known).
    let drafts = match &speculation {
        Some(sp) => Some((
            timed(
                m,
                &s,
                Shape {
                    batch,
                    new: 1,
                    past: context,
                    lm_head_tokens: 1,
                },
            )?,
            sp.draft_tokens as f64 * sp.draft_cost,
        )),
        None => None,
    };
    let energy = power::Energy::new(
        power::PowerModel::of(hw, s.compute).map(|pm| {
            let pass = power::of_timed(&pm, &t);
            match &drafts {
                Some((plain, k)) => {
                    power::Draw::sum([pass, power::of_timed(&pm, plain).scaled(*k)])
                }
                None => pass,
            }
        }),
        step_time_s,
        mode,
        1.0,
        batch as f64 * tokens_per_step,
        power::Per::Output,
    );

    let goodput = match (inputs.output, inputs.prompt) {
        (None, None) => None,
        (Some(_), None) => {
            return Err(Error::missing_input(
                "prompt",
                "goodput needs the prompt length as well as output",
            ));
        }
        (None, Some(_)) => {
            return Err(Error::missing_input(
                "output",
                "goodput needs the output length as well as prompt",
            ));
        }
        (Some(out), Some(prompt)) => {
            let out = at_least_one("output", out.0)?;
            let prompt = at_least_one("prompt", prompt.0)?;
            let pre = timed(
                m,
                &s,
                Shape {
                    batch: 1,
                    new: prompt,
                    past: 0,
                    lm_head_tokens: 1,
                },
            )?;
            let ttft = pre.total_s;
            let tpot = step_time_s / tokens_per_step;
            let b = batch as f64;
            let steps = out as f64 / tokens_per_step;
            let ttft_ok = inputs.slo_ttft.is_none_or(|x| ttft <= x.seconds);
            let tpot_ok = inputs.slo_tpot.is_none_or(|x| tpot <= x.seconds);
            Some(Goodput {
                prompt,
                output: out,
                ttft_s: ttft,
                request_latency_s: ttft + out as f64 * tpot,
                requests_per_s: b / (steps * step_time_s + b * ttft),
                meets_slo: ttft_ok && tpot_ok,
            })
        }
    };
    if inputs.slo_ttft.is_some() && goodput.is_none() {
        return Err(Error::missing_input(
            "prompt",
            "slo-ttft needs prompt and output to put prefill in the loop",
        ));
    }

    Ok(DecodeCost {
        hardware: hw.id.clone(),
        model: m.id.clone(),
        batch,
        context,
        setup: s,
        timed: t,
        model_weight_bytes,
        tokens_per_step,
        step_time_s,
        speculation,
        slo,
        goodput,
        memory,
        beyond_max,
        batch_searched,
        energy,
    })
}

impl DecodeCost {
    /// Tokens per second per device.
    pub fn tokens_per_s(&self) -> f64 {
        self.batch as f64 * self.tokens_per_step / self.step_time_s
    }
    /// Tokens per second each sequence sees.
    pub fn tokens_per_s_per_user(&self) -> f64 {
        self.tokens_per_step / self.step_time_s
    }

    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("decode", lean);
        let s = &self.setup;
        let st = &self.timed.step;
        let t = &self.timed.roof;
        // At an int8 compute precision the work counts operations.
        let u = |unit: Unit| s.roof.unit(unit);
        r.hardware = Some(self.hardware.clone());
        r.model = Some(self.model.clone());
        if self.batch_searched {
            // The batch is an answer (the time-per-token search's), not an
            // input; the step's figures are worked at it.
            r.result("batch", self.batch, || {
                Quantity::new(
                    "batch (searched: the largest meeting --slo-tpot)",
                    Unit::Count,
                )
            });
        } else {
            r.input("batch", self.batch);
        }
        r.input("context", self.context);
        r.input("dtype", s.weights);
        r.input("activations", s.activations);
        r.input("kv_dtype", s.kv.name);
        r.input("launch", s.launch.as_str());
        if s.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        let mut headline = vec![
            "weight_bytes",
            "kv_bytes",
            "flops",
            "experts_touched_per_layer",
            "intensity",
            "bound",
            "launch_time_s",
            "step_time_s",
            "tokens_per_s",
            "tokens_per_s_per_user",
            "expected_tokens_per_pass",
            "speculative_speedup",
            "fits",
            "slo_batch",
            "slo_bound",
            "slo_tokens_per_s",
            "ttft_s",
            "goodput_requests_per_s",
            "power_w",
            "energy_per_token_j",
            "cost_per_million_output_tokens",
            "cost_per_million_input_tokens",
            "energy_cost_share",
        ];
        if s.launch == LaunchMode::None {
            headline.retain(|k| *k != "launch_time_s");
        }
        r.headline(&headline);
        let weight_bytes = st.weight_bytes();
        r.result("weight_bytes", weight_bytes, || {
            Quantity::new("weights read", Unit::Bytes)
                .formula(
                    "every matrix once (embedding: one row per token; MoE: the experts touched)",
                )
                .derive(step::describe_weights(st))
        });
        let kv_token = self.timed.step.kv_bytes_per_token;
        r.result("kv_bytes", st.kv_read_bytes(), || {
            Quantity::new("KV cache read", Unit::Bytes)
                .formula("batch x cached tokens x KV per token (read once)")
                .derive(format!(
                    "{} x {} x {}",
                    self.batch,
                    units::grouped(u128::from(self.timed.step.cached_tokens)),
                    units::iec_bytes(kv_token)
                ))
        });
        r.result("kv_write_bytes", st.kv_write_bytes(), || {
            Quantity::new("new keys and values written", Unit::Bytes)
                .formula("batch x new tokens x KV per token")
        });
        r.result("activation_bytes", st.activation_bytes(), || {
            Quantity::new("activations in and out", Unit::Bytes)
                .formula("each matmul's input read and output written")
        });
        let bytes = st.bytes();
        r.result("bytes", bytes, || {
            Quantity::new("bytes moved", Unit::Bytes)
                .formula("weights + KV read + KV written + activations")
                .derive(format!(
                    "{} + {} + {} + {}",
                    si(weight_bytes, "B"),
                    si(st.kv_read_bytes(), "B"),
                    si(st.kv_write_bytes(), "B"),
                    si(st.activation_bytes(), "B")
                ))
        });
        let flops = st.flops();
        r.result("flops", flops, || {
            Quantity::new(if s.roof.integer { "OPs" } else { "FLOPs" }, u(Unit::Flop))
                .formula("matmuls 2 x tokens x weights + attention 2 x heads x (d_qk + d_v) x pairs + LM head")
                .derive(format!(
                    "{} matmul + {} attention",
                    u(Unit::Flop).format(st.flops_of(step::OpKind::Matmul)),
                    u(Unit::Flop).format(st.flops_of(step::OpKind::Attention))
                ))
        });
        if let Some(e) = st.experts_touched {
            r.result("experts_touched_per_layer", e, || {
                Quantity::new("routed experts read per MoE layer", Unit::Count)
                    .formula("E x (1 - (1 - k/E)^tokens), uniform routing")
            });
        }
        let intensity = flops / bytes;
        r.result("intensity", intensity, || {
            Quantity::new("arithmetic intensity", u(Unit::FlopPerByte))
                .formula("FLOPs / bytes")
                .derive(format!(
                    "{} / {}",
                    u(Unit::Flop).format(flops),
                    si(bytes, "B")
                ))
        });
        s.record_roof(&mut r);
        roof::attainable(&mut r, &roof::ATTAINABLE, &s.roof, intensity);
        r.result("bound", t.bound.as_str(), || {
            Quantity::new("bound", Unit::None).formula("the larger of the two times")
        });
        r.result("compute_time_s", t.compute_s, || {
            Quantity::new("compute time", Unit::Seconds)
                .formula("FLOPs / peak")
                .derive(format!(
                    "{} / {}",
                    u(Unit::Flop).format(flops),
                    s.roof.peak_text()
                ))
        });
        r.result("memory_time_s", t.memory_s, || {
            Quantity::new("memory time", Unit::Seconds)
                .formula("bytes / bandwidth")
                .derive(format!(
                    "{} / {}",
                    si(bytes, "B"),
                    si(s.roof.bandwidth, "B/s")
                ))
        });
        let priced = self.timed.priced.as_ref();
        match priced {
            None => {
                r.result("kernels", s.kernels, || {
                    let q = Quantity::new("kernels per step", Unit::Count);
                    if s.kernels_given {
                        q.formula("given")
                    } else {
                        q.formula("layers x 12 (dense) or 16 + 3 per shared expert (MoE) + 4 (embedding, final norm, LM head, sampling)")
                    }
                });
                r.result("launch_time_s", self.timed.launch_s, || {
                    Quantity::new(
                        format!("launch overhead ({})", s.launch.as_str()),
                        Unit::Seconds,
                    )
                    .source(s.sources[2].as_deref())
                    .formula("kernels x overhead per kernel")
                    .derive(format!(
                        "{} x {}",
                        s.kernels,
                        units::seconds(s.per_kernel_s)
                    ))
                });
            }
            Some(p) => step_price::record(&mut r, p, s.kernels_given, s.launch.as_str()),
        }
        let label = match (s.mode, s.launch) {
            (Mode::SpeedOfLight, LaunchMode::None) => "step time (speed of light: a lower bound)",
            (Mode::SpeedOfLight, _) => "step time (speed of light + launch overhead)",
            (Mode::Achievable, _) => "step time (achievable: measured figures)",
        };
        let spec = self.speculation.as_ref();
        r.result("step_time_s", self.step_time_s, || {
            let q = Quantity::new(label, Unit::Seconds);
            match (spec, priced) {
                (None, Some(p)) => q
                    .formula("sum over operations of max(compute, memory) + kernels x (overhead + launch)")
                    .derive(step_price::derivation(p)),
                (None, None) => q.formula("max(compute, memory) + launch").derive(format!(
                    "max({}, {}) + {}",
                    units::seconds(t.compute_s),
                    units::seconds(t.memory_s),
                    units::seconds(self.timed.launch_s)
                )),
                (Some(sp), _) => q
                    .formula("verify pass of g+1 tokens + g x c x plain step")
                    .derive(format!(
                        "{} + {} x {} x {}",
                        units::seconds(self.timed.total_s),
                        sp.draft_tokens,
                        units::sig(sp.draft_cost, 4),
                        units::seconds(sp.plain_step_s)
                    )),
            }
        });
        let tps = self.tokens_per_s();
        r.result("tokens_per_s", tps, || {
            Quantity::new("tokens per second per device", Unit::Count)
                .formula("batch x tokens per step / step time")
                .derive(format!(
                    "{} x {} / {}",
                    self.batch,
                    units::sig(self.tokens_per_step, 4),
                    units::seconds(self.step_time_s)
                ))
        });
        r.result(
            "tokens_per_s_per_user",
            self.tokens_per_s_per_user(),
            || {
                Quantity::new("tokens per second per sequence", Unit::Count)
                    .formula("tokens per step / step time")
            },
        );
        r.result("model_weight_bytes", self.model_weight_bytes, || {
            Quantity::new("all the model's weights", Unit::Bytes).formula("params x bits / 8")
        });
        if let Some(sp) = spec {
            r.result("expected_tokens_per_pass", sp.expected_tokens, || {
                Quantity::new("tokens per sequence per pass", Unit::Count)
                    .formula("(1 - a^(g+1)) / (1 - a)")
                    .source(Some("Leviathan et al. 2023"))
            });
            r.result("plain_step_time_s", sp.plain_step_s, || {
                Quantity::new("plain one-token step", Unit::Seconds)
            });
            r.result("speculative_speedup", sp.speedup, || {
                Quantity::new("speedup over plain decoding", Unit::Ratio)
                    .formula("plain step / (pass / tokens per pass)")
                    .derive(format!(
                        "{} / ({} / {})",
                        units::seconds(sp.plain_step_s),
                        units::seconds(sp.pass_s),
                        units::sig(sp.expected_tokens, 4)
                    ))
            });
        }
        if let Some(f) = &self.memory {
            r.result("fits", f.fits, || {
                Quantity::new("weights and KV fit", Unit::None)
                    .formula("KV of the batch <= memory x (1 - reserve) - weights")
            });
            r.result("max_batch", f.max_batch as f64, || {
                Quantity::new("sequences of this context that fit", Unit::Count)
                    .formula("floor(KV budget / KV per sequence)")
            });
        }
        if let Some(slo) = &self.slo {
            r.result("slo_batch", slo.batch as f64, || {
                Quantity::new(
                    format!(
                        "largest batch with time per token <= {}",
                        units::seconds(slo.tpot_s)
                    ),
                    Unit::Count,
                )
                .formula(format!("bisection over batch 1..{}", slo.searched_to))
            });
            r.result("slo_tokens_per_s", slo.tokens_per_s, || {
                Quantity::new("tokens per second per device there", Unit::Count)
                    .formula("slo batch / time per token")
            });
            r.result("slo_time_per_token_s", slo.batch_tpot_s, || {
                Quantity::new("time per output token there", Unit::Seconds)
            });
            r.result("slo_bound", slo.bound.as_str(), || {
                Quantity::new("what sets that batch", Unit::None).formula(
                    "memory when the search reaches the sequences that fit, else the next batch's time per token",
                )
            });
        }
        if let Some(g) = &self.goodput {
            r.result("ttft_s", g.ttft_s, || {
                Quantity::new(
                    format!(
                        "time to first token ({} prompt tokens)",
                        units::whole(g.prompt)
                    ),
                    Unit::Seconds,
                )
                .formula("prefill of one prompt")
            });
            r.result("request_latency_s", g.request_latency_s, || {
                Quantity::new(
                    format!("request latency ({} output tokens)", units::whole(g.output)),
                    Unit::Seconds,
                )
                .formula("ttft + output x time per token")
            });
            r.result("requests_per_s", g.requests_per_s, || {
                Quantity::new("requests per second per device", Unit::Count)
                    .formula("batch / (output steps x step time + batch x ttft)")
            });
            r.result(
                "goodput_requests_per_s",
                if g.meets_slo { g.requests_per_s } else { 0.0 },
                || {
                    Quantity::new("requests per second meeting the SLOs", Unit::Count).formula(
                        "requests per second if ttft and time per token meet their targets, else 0",
                    )
                },
            );
        }
        self.energy.record(&mut r);
        // Notes.
        let d = self.model_weight_bytes - weight_bytes;
        r.note_with(|| {
            if d > 0.0 {
                format!(
                    "the step reads {} of the model's {} of weights: the embedding table is gathered (one row per token), not streamed{}",
                    si(weight_bytes, "B"),
                    si(self.model_weight_bytes, "B"),
                    if st.experts_touched.is_some() {
                        ", and only the routed experts the batch touches are read"
                    } else {
                        ""
                    }
                )
            } else {
                format!(
                    "the step reads {} of weights ({} in the model; the LM head shares the embedding's matrix)",
                    si(weight_bytes, "B"),
                    si(self.model_weight_bytes, "B")
                )
            }
        });
        if st.experts_touched.is_some() {
            r.note("MoE: experts touched assume uniform routing, each token choosing its top-k independently; real routers are skewed, so fewer distinct experts are read at mid batch");
        }
        match (s.mode, s.launch) {
            (Mode::SpeedOfLight, LaunchMode::None) => r.note(
                "speed of light: datasheet peak and bandwidth, no launch overhead; a lower bound no real step beats (--launch graph or eager adds dispatch; --achievable uses measured figures)",
            ),
            (Mode::SpeedOfLight, _) => {
                r.note("speed of light plus the file's launch overhead per kernel")
            }
            (Mode::Achievable, _) => {}
        }
        if s.mode == Mode::Achievable {
            r.note_with(|| {
                format!(
                    "achievable: each operation on its own roofline, summed (the file's measured {} bandwidth, {} {} matmul rate by GEMM shape, kernel overhead and {}); a calibrated estimate, not a bound",
                    si(s.roof.bandwidth, "B/s"),
                    s.roof.peak_text(),
                    s.compute,
                    s.launch_words()
                )
            });
            if let Some(p) = priced {
                step_price::notes(&mut r, p, s.pricer.as_ref(), &s.missing);
            }
        }
        if s.weights != s.activations {
            r.note_with(|| {
                format!(
                    "weights in {}, activations in {}: the matmuls run at the {} peak",
                    s.weights, s.activations, s.compute
                )
            });
        }
        if s.activations == "fp8" || s.weights == "fp8" {
            r.note(
                "fp8 ranges: E4M3 up to 448, E5M2 up to 57,344 (formulas.md, Serving: fp8 ranges)",
            );
        }
        if let Some(f) = &self.memory
            && !f.fits
        {
            r.note_with(|| {
                format!(
                    "the KV cache of this batch ({}) exceeds the {} left beside the weights: at most {} sequences of this context fit",
                    si(f.kv_bytes, "B"),
                    si(f.kv_budget_bytes, "B"),
                    units::whole(f.max_batch)
                )
            });
        }
        if let Some(max) = self.beyond_max {
            r.note_with(|| {
                format!(
                    "context beyond the model's maximum of {} (forced)",
                    units::whole(max)
                )
            });
        }
        if let Some(slo) = &self.slo
            && slo.batch > 0
        {
            r.note_with(|| {
                let why = match (slo.bound, slo.next_tpot_s) {
                    (SloBound::Memory, _) => format!(
                        "memory: {} sequences of {} tokens do not fit beside the weights, so time per token ({} at {}) is not what binds",
                        units::whole(slo.batch + 1),
                        units::whole(self.context),
                        units::seconds(slo.batch_tpot_s),
                        units::whole(slo.batch)
                    ),
                    (SloBound::TimePerToken, Some(next)) => format!(
                        "time per token: batch {} takes {} ({} at {})",
                        units::whole(slo.batch + 1),
                        units::seconds(next),
                        units::seconds(slo.batch_tpot_s),
                        units::whole(slo.batch)
                    ),
                    _ => format!(
                        "the search's upper end, batch {}: the file gives no memory capacity to bound it",
                        units::whole(slo.searched_to)
                    ),
                };
                let searched = if self.batch_searched {
                    "; the step above is worked at that batch"
                } else {
                    ""
                };
                format!(
                    "the largest batch meeting {} per token is {}, set by {why}{searched}",
                    units::seconds(slo.tpot_s),
                    units::whole(slo.batch)
                )
            });
        }
        if let Some(slo) = &self.slo
            && slo.batch == 0
        {
            r.note_with(|| {
                format!(
                    "no batch meets {} per token: batch 1 takes {}",
                    units::seconds(slo.tpot_s),
                    units::seconds(slo.batch_tpot_s)
                )
            });
        }
        r
    }
}

/// The largest normal value of a float format with `e` exponent and `m`
/// mantissa bits: IEEE-like formats (E5M2) keep the top exponent for
/// infinities and NaN; E4M3 (the OCP "FN" variant) keeps only the all-ones
/// mantissa of the top exponent for NaN (000 §2.3; formulas.md, "Serving:
/// fp8 ranges").
pub fn float_max_normal(e: u32, m: u32, ieee: bool) -> f64 {
    let bias = (1i32 << (e - 1)) - 1;
    let all_ones = (1i32 << e) - 1;
    let (exp, mant) = if ieee {
        (all_ones - 1, (1u64 << m) - 1)
    } else {
        (all_ones, (1u64 << m) - 2)
    };
    (1.0 + mant as f64 / (1u64 << m) as f64) * 2f64.powi(exp - bias)
}

#[cfg(test)]
mod tests {
    use super::float_max_normal;

    #[test]
    fn fp8_ranges() {
        assert_eq!(float_max_normal(4, 3, false), 448.0);
        assert_eq!(float_max_normal(5, 2, true), 57344.0);
        assert_eq!(float_max_normal(5, 10, true), 65504.0);
    }
}

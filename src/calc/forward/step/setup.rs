//! The set-up a step is priced under: precisions resolved against the model
//! and the device, the roof at the compute precision, the launch mode and
//! its overhead per kernel, the sources of each figure, and (with
//! `--achievable`) the per-operation model from [`pricer()`].
//! `prefill` and `plan` resolve their steps through it too.

use super::pricer::pricer;
use crate::calc::kv::{self, KvPrecision};
use crate::calc::roof::{self, Roof};
use crate::calc::step::price::Pricer;
use crate::calc::step::{self, Precisions};
use crate::error::{Error, Result};
use crate::inputs::{Count, at_least_one};
use crate::precision::{self, Precision};
use crate::report::{Quantity, Report, Unit};
use crate::spec::engine::Engine;
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units;
use serde::Serialize;

pub use crate::calc::launch::LaunchMode;

/// The note a report gives where fp8 weights run as W8A8 by default.
pub const W8A8_NOTE: &str = "fp8 weights run as W8A8 (activations quantized to fp8, the matmuls at the fp8 peak), as serving engines run FP8 checkpoints; --activations bf16 prices weight-only fp8 at the bf16 peak";

/// The precisions and roof a step runs on, and its launch overhead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setup {
    /// Weight precision.
    pub weights: &'static str,
    /// Activation precision.
    pub activations: &'static str,
    /// The weights' precision in words, each module at its own
    /// ([`crate::calc::model::weights_in`]).
    pub weights_in: String,
    /// Whether the activations are fp8 because the weights are and the
    /// part has fp8 matrix units (W8A8, not asked for).
    pub w8a8_default: bool,
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
    /// The engine the step runs on (formulas.md, "Engines: how a profile
    /// turns into kernels").
    #[serde(skip)]
    pub engine: std::sync::Arc<Engine>,
    /// The device's L2, where its file records its capacity and bandwidth
    /// (the warm-cache bound).
    #[serde(skip)]
    pub l2: Option<crate::calc::warm::L2>,
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
    /// The engine (the plain PyTorch forward when `None`).
    pub engine: Option<&'a Engine>,
}

/// Resolves precisions, the roof and launch overhead for `m` on `hw`.
pub fn setup(m: &Model, hw: &Hardware, mode: Mode, c: Choices) -> Result<Setup> {
    let Choices {
        dtype,
        activations,
        kv_dtype,
        launch,
        kernels,
        engine,
    } = c;
    let engine = std::sync::Arc::new(engine.unwrap_or(crate::calc::step::plain_engine()).clone());
    let named = |field: &str, e: Error| match e {
        Error::Input { message, .. } => Error::field(field, message),
        e => e,
    };
    // A quantized checkpoint's own weight precision comes before the
    // hardware's default.
    let dtype = dtype.or(m.weight_dtype.as_deref());
    let w = precision::lookup(dtype.unwrap_or(&hw.default_dtype)).map_err(|e| named("dtype", e))?;
    // fp8 weights run as W8A8 where the part has fp8 matrix units, as
    // serving engines run FP8 checkpoints (formulas.md, "Serving: weight
    // and activation precision"); --activations bf16 asks for weight-only.
    let w8a8 = activations.is_none() && w.name == "fp8" && hw.compute.dense.get("fp8").is_some();
    let a_name = match activations {
        Some(a) => a,
        None if w8a8 => "fp8",
        None => &hw.default_dtype,
    };
    let a = precision::lookup(a_name).map_err(|e| named("activations", e))?;
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
            // The engine says whether its decode replays from a graph.
            Mode::Achievable if engine.graphs.decode => LaunchMode::Graph,
            Mode::Achievable => LaunchMode::Eager,
        },
        Some(s) => LaunchMode::of_choice(&s).ok_or_else(|| {
            Error::field("launch", format!("`{s}`: expected none, eager or graph"))
        })?,
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
        // Not a step's choice (`of_choice` gives none, eager or graph); the
        // file's figure should one ask for it.
        LaunchMode::Synchronised => table
            .and_then(|l| LaunchMode::Synchronised.in_file(l))
            .ok_or_else(|| {
                hw.missing(
                    "launch.synchronised",
                    "synchronised launch overhead",
                    Some("10 us"),
                )
            })?,
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
            .and_then(|l| launch.in_file(l))
            .is_some();
    // Each source is made in one allocation: every sweep point resolves
    // them, though only a full report shows them.
    let named = |field: &str| {
        let source = hw.source(field);
        let mut s = String::with_capacity(field.len() + source.map_or(0, |s| s.len() + 2));
        s.push_str(field);
        if let Some(source) = source {
            s.push_str(": ");
            s.push_str(source);
        }
        Some(s)
    };
    let launch_field = match launch {
        LaunchMode::None => None,
        LaunchMode::Eager => Some(("achievable.launch.eager", "launch.eager")),
        LaunchMode::Synchronised => Some(("achievable.launch.synchronised", "launch.synchronised")),
        LaunchMode::Graph => Some(("achievable.launch.graph", "launch.graph")),
    }
    .map(|(measured, plain)| {
        if mode == Mode::Achievable && hw.source(measured).is_some() {
            measured
        } else {
            plain
        }
    });
    let peak_field = match mode {
        Mode::SpeedOfLight => ["compute.dense.", p.compute].concat(),
        Mode::Achievable => ["achievable.dense.", p.compute].concat(),
    };
    let sources = [
        named(&peak_field),
        named(match mode {
            Mode::SpeedOfLight => "memory.hbm-bandwidth",
            Mode::Achievable => "achievable.hbm-bandwidth",
        }),
        launch_field.and_then(named),
    ];
    let (kernels, given) = match kernels {
        // A step launches at least one kernel.
        Some(k) => (at_least_one("kernels", k.0)? as f64, true),
        None => (step::kernels(m), false),
    };
    let mut missing = Vec::new();
    let head = lm_head_precision(w, a, hw);
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
            head,
            &mut missing,
        )
    });
    // An engine's own attention kernel replaces the measured curve's peak
    // fraction (its half length kept).
    let mut pricer = pricer;
    if let (Some(p), Some(pf)) = (pricer.as_mut(), engine.attention.peak_fraction) {
        if let Some((_, half)) = p.attention {
            p.attention = Some((pf, half));
        }
        if let Some(c) = p.cached_attention.as_mut() {
            c.curve.0 = pf;
        }
    }
    Ok(Setup {
        weights: w.name,
        activations: a.name,
        w8a8_default: w8a8,
        weights_in: crate::calc::model::weights_in(m, w.name),
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
        engine,
        l2: crate::calc::warm::L2::of(hw),
    })
}

/// The precision a weight-quantized forward (weights under 16 bits) keeps
/// its LM head at: 16 bits, as vLLM and the measured forwards leave it
/// (formulas.md, "Achievable: a forward operation by operation", the LM
/// head): the activations' precision where it is a 16-bit one, bf16 (fp16
/// where the device lacks it) otherwise. `None` where the weights
/// are 16 bits or wider, or the device has neither 16-bit rate.
pub fn lm_head_precision(
    weights: &Precision,
    activations: &'static Precision,
    hw: &Hardware,
) -> Option<&'static Precision> {
    if weights.bits >= 16.0 {
        return None;
    }
    if activations.bits == 16.0 {
        return Some(activations);
    }
    ["bf16", "fp16"]
        .into_iter()
        .filter_map(|k| precision::lookup(k).ok())
        .find(|p| hw.compute.dense.get(p.compute).is_some())
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

    /// Weight, activation and KV precision and the launch mode, by name.
    pub fn precision_names(&self) -> [&'static str; 4] {
        [
            self.weights,
            self.activations,
            self.kv.name,
            self.launch.as_str(),
        ]
    }

    /// Records the precisions and the launch mode as inputs
    /// ([`record_precisions`]).
    pub fn record_precisions(&self, r: &mut Report) {
        record_precisions(r, self.precision_names(), self.mode);
        if self.weights_in != self.weights {
            r.input("dtype", self.weights_in.as_str());
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

    /// At datasheet figures, records the bound with a warm L2 of `calls`
    /// forwards of `flops` that stream `streamed` bytes of weights and
    /// cache and move `bytes` in all, and the note saying what the speed of
    /// light assumes about the L2 (formulas.md, "The speed of light with a
    /// warm L2"); nothing with measured figures.
    pub fn record_warm(&self, r: &mut Report, flops: f64, streamed: f64, bytes: f64, calls: f64) {
        if self.mode != Mode::SpeedOfLight {
            return;
        }
        match self.l2 {
            Some(l2) => {
                let w = crate::calc::warm::warm(&self.roof, l2, flops, streamed, bytes, calls);
                crate::calc::warm::record(r, &self.roof, &w, "device time", streamed, bytes);
            }
            None => crate::calc::warm::note_cold(r),
        }
    }
}

/// Records weight, activation and KV precision and the launch mode as
/// inputs (`names` as [`Setup::precision_names`] gives them), and
/// `achievable` where the times are the measured figures'.
pub fn record_precisions(r: &mut Report, names: [&str; 4], mode: Mode) {
    let [weights, activations, kv, launch] = names;
    r.input("dtype", weights);
    r.input("activations", activations);
    r.input("kv_dtype", kv);
    r.input("launch", launch);
    if mode == Mode::Achievable {
        r.input("achievable", true);
    }
}

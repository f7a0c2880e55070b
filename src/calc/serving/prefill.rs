//! `prefill`: processing a prompt of S tokens, the time to first token
//! (formulas.md, "Serving: prefill"; 004 "KV cache"). The same forward as
//! decode ([`crate::calc::step::forward`]) with S new tokens and no cache: FLOPs
//! 2 x parameters x tokens plus causal attention, weights read once, the
//! prompt's keys and values written, the LM head on the last token only.
//! Chunked prefill runs the prompt as a sequence of chunks over a growing
//! cache. What a naive attention that materialises the fp32 scores would
//! move is reported beside the fused (flash) figure.

use crate::calc::kv;
use crate::calc::roof::{Bound, RoofTime};
use crate::calc::step::price::Priced;
use crate::calc::step::report as step_price;
use crate::calc::step::{self, LaunchMode, OpKind, Setup, Shape, Timed};
use crate::error::{Error, Result};
use crate::inputs::{Count, Tokens, at_least_one, mul};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units::{self, si};
use serde::{Deserialize, Serialize};

/// `prefill`'s inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PrefillInputs {
    /// Prompt tokens per sequence.
    pub prompt: Tokens,
    /// Sequences (default 1).
    pub batch: Option<Count>,
    /// Tokens per chunk (default: the whole prompt at once).
    pub chunk: Option<Tokens>,
    /// Tokens already cached per sequence before the prompt (default 0):
    /// attention reads them.
    pub context: Option<Count>,
    /// Weight precision.
    pub dtype: Option<String>,
    /// KV precision (default bf16).
    pub kv_dtype: Option<String>,
    /// Activation precision.
    pub activations: Option<String>,
    /// Launch overhead: none, eager or graph.
    pub launch: Option<String>,
    /// Kernels per forward (default: from the layer structure).
    pub kernels: Option<Count>,
    /// Allow a prompt beyond the model's maximum context.
    #[serde(default)]
    pub force: bool,
    /// The engine the forward runs on (the plain PyTorch forward when
    /// `None`).
    #[serde(skip)]
    pub engine: Option<std::sync::Arc<crate::spec::engine::Engine>>,
}

/// The most chunks a prefill is split into.
pub const MAX_CHUNKS: u64 = 1_000_000;

/// Every figure `prefill` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct PrefillCost {
    /// The hardware's id.
    pub hardware: String,
    /// The model's id.
    pub model: String,
    /// Prompt tokens.
    pub prompt: u64,
    /// Sequences.
    pub batch: u64,
    /// Tokens per chunk (the prompt when unchunked).
    pub chunk: u64,
    /// Tokens cached before the prompt.
    pub context: u64,
    /// The chunk asked for where it holds the whole prompt (so the
    /// prefill is unchunked, and a note says why).
    pub chunk_beyond_prompt: Option<u64>,
    /// Precisions, roof, launch.
    pub setup: Setup,
    /// Each chunk, timed (one when unchunked).
    pub chunks: Vec<Timed>,
    /// Total FLOPs.
    pub flops: f64,
    /// Total bytes.
    pub bytes: f64,
    /// Weights read, all chunks.
    pub weight_bytes: f64,
    /// KV written.
    pub kv_write_bytes: f64,
    /// KV read by later chunks.
    pub kv_read_bytes: f64,
    /// Activation bytes.
    pub activation_bytes: f64,
    /// Attention FLOPs.
    pub attention_flops: f64,
    /// Summed roof times.
    pub compute_s: f64,
    /// Summed memory times.
    pub memory_s: f64,
    /// Summed launch overhead.
    pub launch_s: f64,
    /// Time to first token.
    pub time_s: f64,
    /// Memory or compute, by the totals.
    pub bound: Bound,
    /// One head's fp32 score matrix, S x S x 4.
    pub scores_bytes_per_head: f64,
    /// Query heads.
    pub heads: u64,
    /// L2 capacity, where known.
    pub l2_bytes: Option<f64>,
    /// Time if attention materialised its fp32 scores and probabilities.
    pub materialised: RoofTime,
    /// The bytes that adds.
    pub materialised_extra_bytes: f64,
    /// The model's maximum when the prompt passes it (forced).
    pub beyond_max: Option<u64>,
    /// Board power and energy per prompt token (formulas.md, "Power and
    /// energy").
    pub energy: crate::calc::power::Energy,
}

/// `prefill`'s cost.
pub fn cost(m: &Model, hw: &Hardware, inputs: &PrefillInputs, mode: Mode) -> Result<PrefillCost> {
    let prompt = at_least_one("prompt", inputs.prompt.0)?;
    let batch = at_least_one("batch", inputs.batch.map_or(1, |b| b.0))?;
    let chunk = at_least_one("chunk", inputs.chunk.map_or(prompt, |c| c.0))?.min(prompt);
    let context = inputs.context.map_or(0, |c| c.0);
    let total = context
        .checked_add(prompt)
        .ok_or_else(|| Error::field("context", "context + prompt overflows"))?;
    let beyond_max = kv::check_context(m, total, inputs.force).map_err(|e| match e {
        Error::Field { message, .. } => {
            Error::field(if context > 0 { "context" } else { "prompt" }, message)
        }
        e => e,
    })?;
    mul("prompt", &[batch, prompt, total])?;
    let n_chunks = prompt.div_ceil(chunk);
    if n_chunks > MAX_CHUNKS {
        return Err(Error::field(
            "chunk",
            format!(
                "{} chunks is more than the {} modelled; give a larger chunk",
                units::whole(n_chunks),
                units::whole(MAX_CHUNKS)
            ),
        ));
    }
    let s = step::setup(
        m,
        hw,
        mode,
        step::Choices {
            dtype: inputs.dtype.as_deref(),
            activations: inputs.activations.as_deref(),
            kv_dtype: inputs.kv_dtype.as_deref(),
            // decode's defaults: none at speed of light, graph with --achievable
            launch: inputs.launch.as_deref(),
            kernels: inputs.kernels,
            engine: inputs.engine.as_deref(),
        },
    )?;
    // Weights that cannot fit on the device at all are no answer (exit 1).
    if kv::device_memory(hw).is_ok() {
        kv::budget(m, hw, inputs.dtype.as_deref(), None)?;
    }
    let mut chunks = Vec::with_capacity(n_chunks as usize);
    for k in 0..n_chunks {
        let done = k * chunk;
        let past = context + done;
        let new = chunk.min(prompt - done);
        let last = k + 1 == n_chunks;
        chunks.push(step::timed(
            m,
            &s,
            Shape {
                batch,
                new,
                past,
                lm_head_tokens: u64::from(last),
            },
        )?);
    }
    let sum = |f: &dyn Fn(&Timed) -> f64| chunks.iter().map(f).sum::<f64>();
    let flops = sum(&|t| t.step.flops());
    let bytes = sum(&|t| t.step.bytes());
    let compute_s = sum(&|t| t.roof.compute_s);
    let memory_s = sum(&|t| t.roof.memory_s);
    let launch_s = sum(&|t| t.launch_s);
    let time_s = sum(&|t| t.total_s);
    let heads = m.attention.heads.get();
    let scores = prompt as f64 * total as f64 * 4.0;
    // Scores written, read by softmax, probabilities written, read by PV:
    // four fp32 passes over h x S x S per layer and sequence.
    let extra = 4.0 * scores * heads as f64 * m.layers.get() as f64 * batch as f64;
    let materialised = s.roof.time(flops, bytes + extra);
    let materialised_bandwidth = s.roof.bandwidth;
    let l2 = hw
        .memory
        .levels
        .iter()
        .find(|l| l.name == "l2")
        .map(|l| l.capacity.get());
    // One time (formulas.md, "One time on one device"): each chunk's draw
    // held to its own time; where some would pass the limit, their
    // stretched draws summed are the note's estimate.
    let mut energy = crate::calc::power::Energy::new(
        Err(String::new()),
        time_s,
        mode,
        1.0,
        prompt as f64 * batch as f64,
        crate::calc::power::Per::Prompt,
    );
    match crate::calc::power::PowerModel::of(hw, s.compute) {
        Ok(pm) => {
            let (held, raw): (Vec<_>, Vec<_>) = chunks
                .iter()
                .map(|c| {
                    let d = crate::calc::power::of_timed(&pm, c);
                    (pm.held(d), d)
                })
                .unzip();
            let raw = crate::calc::power::Draw::sum(raw);
            energy.draw = Ok(crate::calc::power::Draw::sum(held));
            energy.estimate = Some(raw).filter(crate::calc::power::Draw::limited);
        }
        Err(field) => energy.draw = Err(field),
    }
    Ok(PrefillCost {
        hardware: hw.id.clone(),
        model: m.id.clone(),
        prompt,
        batch,
        chunk,
        context,
        chunk_beyond_prompt: inputs.chunk.map(|c| c.0).filter(|&c| c >= prompt),
        weight_bytes: sum(&|t| t.step.weight_bytes()),
        kv_write_bytes: sum(&|t| t.step.kv_write_bytes()),
        kv_read_bytes: sum(&|t| t.step.kv_read_bytes()),
        activation_bytes: sum(&|t| t.step.activation_bytes()),
        attention_flops: sum(&|t| t.step.flops_of(OpKind::Attention)),
        bound: if compute_s >= memory_s {
            Bound::Compute
        } else {
            Bound::Memory
        },
        setup: s,
        chunks,
        flops,
        bytes,
        compute_s,
        memory_s,
        launch_s,
        time_s,
        scores_bytes_per_head: scores,
        heads,
        l2_bytes: l2,
        // Per operation, the scores' extra bytes stream on top of the
        // fused time (attention turns memory-bound).
        materialised: match mode {
            Mode::SpeedOfLight => RoofTime {
                time_s: materialised.time_s + launch_s,
                ..materialised
            },
            Mode::Achievable => RoofTime {
                time_s: time_s + extra / materialised_bandwidth,
                ..materialised
            },
        },
        materialised_extra_bytes: extra,
        beyond_max,
        energy,
    })
}

impl PrefillCost {
    /// The chunks' per-operation prices summed op by op (`--achievable`).
    pub fn priced(&self) -> Option<Priced> {
        let mut it = self.chunks.iter().filter_map(|c| c.priced.as_ref());
        let mut total = it.next()?.clone();
        for p in it {
            for (a, b) in total.ops.iter_mut().zip(&p.ops) {
                a.compute_s += b.compute_s;
                a.memory_s += b.memory_s;
                a.overhead_s += b.overhead_s;
                a.time_s += b.time_s;
                a.kernels += b.kernels;
            }
            total.time_s += p.time_s;
            total.overhead_s += p.overhead_s;
            total.kernels += p.kernels;
            total.sustained |= p.sustained;
        }
        Some(total)
    }

    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("prefill", lean);
        let s = &self.setup;
        r.hardware = Some(self.hardware.clone());
        r.model = Some(self.model.clone());
        r.input("prompt", self.prompt);
        r.input("batch", self.batch);
        if self.context > 0 {
            r.input("context", self.context);
        }
        if self.chunks.len() > 1 {
            r.input("chunk", self.chunk);
        }
        if let Some(c) = self.chunk_beyond_prompt {
            r.note_with(|| {
                format!(
                    "a chunk of {} tokens holds the whole {}-token prompt: one chunk, the same as no --chunk",
                    units::whole(c),
                    units::whole(self.prompt)
                )
            });
        }
        s.record_precisions(&mut r);
        r.headline(&[
            "flops",
            "bytes",
            "chunks",
            "intensity",
            "bound",
            "time_s",
            "warm_l2_time_s",
            "tokens_per_s",
            "scores_bytes_per_head",
            "materialised_time_s",
            "power_w",
            "energy_per_token_j",
            "cost_per_million_input_tokens",
            "input_energy_cost_share",
        ]);
        let tokens = self.prompt as f64 * self.batch as f64;
        // At an int8 compute precision the work counts operations.
        let u = |unit: Unit| s.roof.unit(unit);
        let ops = u(Unit::Flop);
        let integer = s.roof.integer;
        r.result("flops", self.flops, || {
            Quantity::new(if integer { "OPs" } else { "FLOPs" }, ops)
                .formula("2 x weights x tokens + causal attention (about half of 4 S^2 d per layer) + LM head on the last token")
                .derive(format!(
                    "{} matmul + {} attention",
                    ops.format(self.flops - self.attention_flops),
                    ops.format(self.attention_flops)
                ))
        });
        r.result("attention_flops", self.attention_flops, || {
            Quantity::new(
                if integer {
                    "attention OPs"
                } else {
                    "attention FLOPs"
                },
                ops,
            )
            .formula("2 x heads x (d_qk + d_v) x layers x batch x S (S + 1) / 2")
        });
        r.result("weight_bytes", self.weight_bytes, || {
            Quantity::new("weights read", Unit::Bytes)
                .formula("once per chunk (embedding rows gathered)")
        });
        r.result("kv_write_bytes", self.kv_write_bytes, || {
            Quantity::new("keys and values written", Unit::Bytes)
                .formula("batch x prompt x KV per token")
        });
        if self.chunks.len() > 1 {
            r.result("kv_bytes", self.kv_read_bytes, || {
                Quantity::new("KV read by later chunks", Unit::Bytes)
                    .formula("sum over chunks of batch x tokens before it x KV per token")
            });
            r.result("chunks", self.chunks.len() as f64, || {
                Quantity::new("chunks", Unit::Count).formula("ceil(prompt / chunk)")
            });
        }
        r.result("activation_bytes", self.activation_bytes, || {
            Quantity::new("activations in and out", Unit::Bytes)
        });
        r.result("bytes", self.bytes, || {
            Quantity::new("bytes moved", Unit::Bytes).formula("weights + KV + activations")
        });
        crate::calc::roof::intensity(&mut r, &s.roof, self.flops, self.bytes);
        s.record_roof(&mut r);
        r.result("bound", self.bound.as_str(), || {
            Quantity::new("bound", Unit::None).formula("the larger of the summed times")
        });
        r.result("compute_time_s", self.compute_s, || {
            Quantity::new("compute time", Unit::Seconds).formula("FLOPs / peak, per chunk, summed")
        });
        r.result("memory_time_s", self.memory_s, || {
            Quantity::new("memory time", Unit::Seconds)
                .formula("bytes / bandwidth, per chunk, summed")
        });
        s.record_warm(
            &mut r,
            self.flops,
            self.weight_bytes + self.kv_read_bytes,
            self.bytes,
            self.chunks.len() as f64,
        );
        let priced = self.priced();
        match &priced {
            Some(p) => step_price::record(&mut r, p, s.kernels_given, s.launch.as_str()),
            None if s.launch != LaunchMode::None => {
                r.result("launch_time_s", self.launch_s, || {
                    Quantity::new("launch overhead", Unit::Seconds)
                        .formula("chunks x kernels x overhead per kernel")
                });
            }
            None => {}
        }
        let label = match (s.mode, s.launch) {
            (Mode::SpeedOfLight, LaunchMode::None) => {
                "time to first token (speed of light: a lower bound)"
            }
            (Mode::SpeedOfLight, _) => "time to first token (speed of light + launch)",
            (Mode::Achievable, _) => "time to first token (achievable: measured figures)",
        };
        r.result("time_s", self.time_s, || match &priced {
            Some(p) => Quantity::new(label, Unit::Seconds)
                .formula("sum over chunks and operations of max(compute, memory) + kernels x (overhead + launch)")
                .derive(step_price::derivation(p)),
            None => Quantity::new(label, Unit::Seconds)
                .formula("sum over chunks of max(compute, memory) + launch"),
        });
        r.result("tokens_per_s", tokens / self.time_s, || {
            Quantity::new("prompt tokens per second", Unit::Count).formula("batch x prompt / time")
        });
        r.result("scores_bytes_per_head", self.scores_bytes_per_head, || {
            Quantity::new("one head's fp32 scores", Unit::Bytes)
                .formula("S^2 x 4")
                .derive(format!("{}^2 x 4", self.prompt))
        });
        r.result(
            "scores_bytes_per_layer",
            self.scores_bytes_per_head * self.heads as f64,
            || {
                Quantity::new("fp32 scores, all heads of a layer", Unit::Bytes)
                    .formula("heads x S^2 x 4")
                    .derive(format!("{} x {}^2 x 4", self.heads, self.prompt))
            },
        );
        if let Some(l2) = self.l2_bytes {
            r.result("scores_over_l2", self.scores_bytes_per_head / l2, || {
                Quantity::new("one head's scores over L2", Unit::Ratio)
                    .formula("S^2 x 4 / L2")
                    .derive(format!(
                        "{} / {}",
                        si(self.scores_bytes_per_head, "B"),
                        si(l2, "B")
                    ))
            });
        }
        r.result("materialised_time_s", self.materialised.time_s, || {
            Quantity::new("time if the scores were materialised", Unit::Seconds)
                .formula(
                    "max(FLOPs / peak, (bytes + 4 x heads x S^2 x 4 x layers x batch) / bandwidth)",
                )
                .derive(format!(
                    "extra {} of fp32 scores and probabilities",
                    si(self.materialised_extra_bytes, "B")
                ))
        });
        self.energy.record(&mut r);
        match (s.mode, s.launch) {
            (Mode::SpeedOfLight, LaunchMode::None) => r.note(
                "speed of light: datasheet peak and bandwidth, fused (flash) attention; a lower bound no real prefill beats",
            ),
            (Mode::SpeedOfLight, _) => {
                r.note("speed of light plus the file's launch overhead per kernel")
            }
            (Mode::Achievable, _) => {
                r.note_with(|| {
                    format!(
                        "achievable: each operation on its own roofline, summed (the file's measured bandwidth, matmul rate by GEMM shape, flash attention's efficiency by length, kernel overhead and {}); an estimate, not a bound",
                        s.launch_words()
                    )
                });
                if let Some(p) = &priced {
                    step_price::notes(&mut r, p, s.pricer.as_ref(), &s.missing);
                }
            }
        }
        r.note_with(|| {
            format!(
                "a naive attention writes and rereads the fp32 scores and probabilities ({} per head, {}x L2 per head where known): {} against {} fused",
                si(self.scores_bytes_per_head, "B"),
                self.l2_bytes
                    .map_or_else(|| "?".into(), |l2| units::sig_grouped(self.scores_bytes_per_head / l2, 3)),
                units::seconds(self.materialised.time_s),
                units::seconds(self.time_s)
            )
        });
        kv::note_beyond_max(
            &mut r,
            self.beyond_max,
            "prompt beyond the model's maximum context of",
        );
        r
    }
}

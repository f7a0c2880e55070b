//! A forward priced operation by operation (formulas.md, "Achievable: a
//! forward operation by operation"). Each operation runs on its own
//! roofline, one after another: a projection's GEMMs by their shape
//! ([`GemmModel`]), attention at flash attention's efficiency for its
//! length (prefill) or at memory speed (decode), lookups and elementwise
//! kernels at memory speed; each kernel adds its fixed GPU overhead and its
//! launch, and eagerly launched kernels wait for the host when they are
//! shorter than its path. The step is the sum. Work that is compute-bound
//! as a whole runs at the sustained (power-limited) rate where the file
//! has one. A [`Pricer`] is resolved once and prices many steps: a sweep
//! or a simulator resolves one `step::Setup` (which holds the pricer
//! under `--achievable`) and calls `step::timed(model, &setup, shape)`
//! per iteration, a forward of `batch` sequences with `new` tokens over
//! `past` cached ones.

use super::power_limit::{Mix, PowerLimit};
use super::{KernelClass, Op, OpKind, Precisions, Step};
use crate::calc::launch::LaunchMode;
use crate::calc::matmul::efficiency::{GemmModel, reduces};
use crate::spec::Seconds;
use crate::spec::engine::AttentionMask;
use crate::spec::hardware::{Achievable, KernelFixed as Figures};

/// Everything the per-operation model needs of the device, resolved once.
#[derive(Debug, Clone, PartialEq)]
pub struct Pricer {
    /// Burst matmul rate at the compute precision, FLOP/s.
    pub rate: f64,
    /// Sustained (power-limited) rate at the compute precision, if known.
    pub sustained: Option<f64>,
    /// Device-memory bandwidth, B/s.
    pub bandwidth: f64,
    /// Launch mode.
    pub launch: LaunchMode,
    /// Per kernel: the graph launch, or the host's path per eager GEMM call.
    pub per_kernel_s: f64,
    /// Eagerly, the GPU's idle time before each kernel and copy while the
    /// host runs ahead (`achievable.launch.eager-gap`; 0 without it).
    pub eager_gap_s: f64,
    /// Eagerly: the host's path per call of each class (formulas.md,
    /// "Achievable: a forward operation by operation", the host's path).
    pub host: HostPath,
    /// Fixed GPU time per GEMM kernel beyond its launch.
    pub overhead_s: f64,
    /// Fixed GPU time per kernel by class (`overhead_s` for a class the
    /// file leaves out).
    pub fixed: KernelFixed,
    /// The GEMM library's tiling.
    pub gemm: GemmModel,
    /// Flash attention's (peak fraction, half length), if known.
    pub attention: Option<(f64, f64)>,
    /// Queries per attention tile (1: no padding modelled).
    pub query_tile: u64,
    /// The kernel that attends several new tokens over a cached prefix, if
    /// the file has its figures (the prefill figures otherwise).
    pub cached_attention: Option<CachedAttention>,
    /// The kernel an explicit mask tensor sends such a pass to: (its share
    /// of the dense rate per padded FLOP, its query tile), if the file has
    /// them (the cached kernel's figures otherwise).
    pub tensor_mask: Option<(f64, u64)>,
    /// MLA's latent GEMMs over an odd key count, if the file measured
    /// them (formulas.md, "MLA decode, absorbed", odd key counts).
    pub latent_odd: Option<LatentOddFigures>,
    /// PyTorch's grouped GEMM on this part (`achievable.grouped-gemm`:
    /// stream fraction, compute fraction), for an engine whose grouped GEMM
    /// is that kernel.
    pub grouped: (Option<f64>, Option<f64>),
    /// Burst rate of attention's products, at the KV cache's precision.
    pub attention_rate: f64,
    /// Sustained rate at that precision, if known.
    pub attention_sustained: Option<f64>,
    /// Bytes per element of each tensor kind.
    pub precisions: Precisions,
    /// The GPU's time per element of an elementwise kernel on PyTorch's
    /// strided (non-vectorized) path, seconds, if the file has it
    /// (`achievable.strided-element`).
    pub strided_element_s: Option<f64>,
    /// The GPU's time per element of a scatter-add, seconds, if the file
    /// has it (`achievable.scatter-add-element`).
    pub scatter_add_element_s: Option<f64>,
    /// The board's power limit over a step, where the file has its
    /// figures: it replaces the sustained-or-burst rule.
    pub power: Option<PowerLimit>,
    /// Under the power limit, a GEMM's time at the burst clock as a share
    /// of its fitted (back-to-back) time (`power-limit.gemm-burst-fraction`;
    /// 1 without it or without the limit's figures).
    pub gemm_burst: f64,
    /// The LM head's precision where a weight-quantized forward keeps it
    /// at 16 bits (formulas.md, "Achievable: a forward operation by
    /// operation", the LM head); `None` prices it with the projections.
    pub head: Option<HeadPrecision>,
    /// The compute precisions the device has a dense matmul rate for
    /// (`compute.dense`): a grouped GEMM whose 4-bit weights lack theirs
    /// dequantizes them as it loads them.
    pub math: Vec<&'static str>,
}

/// The LM head of a weight-quantized forward, kept at 16 bits: its bytes
/// per weight and per activation and its rates at that precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadPrecision {
    /// The compute key it runs at (`bf16`).
    pub compute: &'static str,
    /// Bytes per weight.
    pub weight: f64,
    /// Bytes per activation (its input and its logits).
    pub activation: f64,
    /// Burst rate at its precision, FLOP/s.
    pub rate: f64,
    /// Sustained rate at its precision, if known.
    pub sustained: Option<f64>,
    /// Its GEMM burst fraction under the power limit (1 without it).
    pub gemm_burst: f64,
}

/// The host's path of one call from Python by its class, seconds: a GEMM
/// (its split-K reduction rides in the same call), one kernel of a norm,
/// rotary embedding, activation, cast, residual add or cache write, and an
/// attention call. Without class figures every call costs the GEMM's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HostPath {
    /// One GEMM call.
    pub gemm_s: f64,
    /// One elementwise kernel's call.
    pub kernel_s: f64,
    /// One attention call.
    pub attention_s: f64,
    /// The whole attention op of a pass of several new tokens over a
    /// cached prefix (its two cache writes into the cache's slices and the
    /// masked attention call, with their views).
    pub cached_attention_s: f64,
}

/// Fixed GPU time of one kernel by class beyond its work, seconds
/// (formulas.md, "Achievable: a forward operation by operation", kernel
/// classes): `achievable.kernel-fixed`, with `kernel-overhead` for a class
/// the file leaves out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelFixed {
    /// A GEMM or its split-K reduction (`kernel-overhead`).
    pub gemm_s: f64,
    /// A row-wise norm.
    pub norm_s: f64,
    /// A pointwise kernel.
    pub pointwise_s: f64,
    /// One cache write.
    pub kv_write_s: f64,
    /// The attention kernel.
    pub attention_s: f64,
    /// A split attention's combine kernel.
    pub combine_s: f64,
    /// A device-to-device copy.
    pub copy_s: f64,
    /// Whether the file measured the combine kernel a decode attention
    /// launches when it splits the keys (then a decode step whose grid
    /// leaves SMs idle counts it).
    pub decode_splits: bool,
}

impl KernelFixed {
    /// Every class at `s` (a file without class figures).
    pub fn uniform(s: f64) -> KernelFixed {
        KernelFixed {
            gemm_s: s,
            norm_s: s,
            pointwise_s: s,
            kv_write_s: s,
            attention_s: s,
            combine_s: s,
            copy_s: s,
            decode_splits: false,
        }
    }

    /// The file's class figures over `overhead` (`kernel-overhead`).
    pub fn of(a: Option<&Achievable>, overhead: f64) -> KernelFixed {
        let k = a.and_then(|a| a.kernel_fixed.as_ref());
        let get = |f: fn(&Figures) -> Option<Seconds>| k.and_then(f).map_or(overhead, |s| s.get());
        KernelFixed {
            gemm_s: overhead,
            norm_s: get(|k| k.norm),
            pointwise_s: get(|k| k.pointwise),
            kv_write_s: get(|k| k.kv_write),
            attention_s: get(|k| k.attention),
            combine_s: get(|k| k.combine),
            copy_s: get(|k| k.copy),
            decode_splits: k.is_some_and(|k| k.combine.is_some()),
        }
    }
}

/// What cuBLAS's misaligned kernels reach on MLA's latent GEMMs over an
/// odd key count: shares of the dense rate, and the score elements between
/// which it runs the scores GEMM as fp32 SIMT.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatentOddFigures {
    /// The scores GEMM on align-1 tensor-op kernels.
    pub scores: f64,
    /// The values GEMM.
    pub values: f64,
    /// The scores GEMM on the SIMT kernel, and the score elements it was
    /// seen between (inclusive).
    pub simt: Option<(f64, f64, f64)>,
}

/// The attention kernel of a pass of several new tokens per sequence over a
/// cached prefix (formulas.md, "Achievable: a forward operation by
/// operation", attention over a cache): its efficiency curve, its query
/// tile, and the split-KV variant it switches to when its grid would leave
/// the SMs idle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CachedAttention {
    /// (peak fraction, half length) of its efficiency curve.
    pub curve: (f64, f64),
    /// Queries per tile.
    pub query_tile: u64,
    /// Queries per tile of the split-KV variant, if known.
    pub split_query_tile: Option<u64>,
}

/// FlashAttention-2 splits the keys of a pass over several CTAs when its
/// grid (batch x heads x query blocks of the split kernel) is below 80% of
/// the CTAs the device holds at two per SM (`num_splits_heuristic` in its
/// `flash_api.cpp`, called with `multiProcessorCount * 2`).
const SPLIT_BELOW_CTAS_PER_SM: f64 = 2.0 * 0.8;

/// One operation's achievable time.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct OpTime {
    /// The op's name.
    pub name: &'static str,
    /// Compute terms summed over its kernels and repetitions, seconds.
    pub compute_s: f64,
    /// Memory terms summed, seconds.
    pub memory_s: f64,
    /// Kernel overhead and launch (or host wait), seconds.
    pub overhead_s: f64,
    /// The op's time, seconds.
    pub time_s: f64,
    /// Kernels it launches in all.
    pub kernels: f64,
    /// Whether its compute term exceeds its memory term.
    pub compute_bound: bool,
}

/// A forward's achievable time.
#[derive(Debug, Clone, PartialEq)]
pub struct Priced {
    /// Each operation, the step's ops then the elementwise kernels.
    pub ops: Vec<OpTime>,
    /// The sum, seconds.
    pub time_s: f64,
    /// Of which kernel overhead and launch, seconds.
    pub overhead_s: f64,
    /// Kernels launched.
    pub kernels: f64,
    /// Whether the sustained rate was used (under the power limit: the
    /// clock dropped).
    pub sustained: bool,
    /// Under the power limit, the clock the board holds over the step as
    /// a fraction of the burst clock.
    pub clock: Option<f64>,
}

/// Sums over some of a step's ops that add into the step's time (see
/// [`Pricer::part`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Part {
    /// Their time at the burst rate, seconds.
    pub time_s: f64,
    /// Of which in compute-bound ops, seconds.
    pub bound_s: f64,
    /// Their time at the sustained rate, seconds.
    pub sustained_s: f64,
    /// Kernels they launch.
    pub kernels: f64,
    /// The host's path over their calls when launched eagerly, seconds.
    pub host_s: f64,
    /// Their burst time by class of work, for the power limit.
    pub mix: Mix,
}

impl std::ops::AddAssign for Part {
    fn add_assign(&mut self, o: Part) {
        self.time_s += o.time_s;
        self.bound_s += o.bound_s;
        self.sustained_s += o.sustained_s;
        self.kernels += o.kernels;
        self.host_s += o.host_s;
        self.mix += o.mix;
    }
}

impl Priced {
    /// The time of the ops named `name`.
    pub fn op(&self, name: &str) -> Option<&OpTime> {
        self.ops.iter().find(|o| o.name == name)
    }
}

impl Pricer {
    /// The GEMMs' rate at the burst clock: under the power limit the
    /// fitted rate over `gemm_burst` (the figures come from back-to-back
    /// loops the limit already slows), the fitted rate otherwise
    /// (formulas.md, "Achievable: the power limit over a step").
    fn burst_rate(&self) -> f64 {
        self.burst_of(self.rate, self.gemm_burst)
    }

    fn burst_of(&self, rate: f64, fraction: f64) -> f64 {
        if self.power.is_some() && fraction > 0.0 {
            rate / fraction
        } else {
            rate
        }
    }

    /// The GEMM rate and (weight, activation) bytes per element of `op`
    /// when the step's ops run at `rate`: the LM head of a weight-quantized
    /// forward at its own 16-bit figures, every other op at the step's.
    fn gemm_terms(&self, op: &Op, rate: f64, sustained: bool, wb: f64) -> (f64, f64, f64) {
        match &self.head {
            Some(h) if op.name == super::LM_HEAD => {
                let r = if sustained {
                    h.sustained.filter(|s| *s < h.rate).unwrap_or(h.rate)
                } else {
                    self.burst_of(h.rate, h.gemm_burst)
                };
                (r, h.weight, h.activation)
            }
            _ => (rate, wb, self.precisions.activation),
        }
    }

    /// Flash attention's share of the rate at `length` keys per query.
    pub fn attention_efficiency(&self, length: f64) -> f64 {
        curve(self.attention, length)
    }

    /// The attention kernel a pass of `new` tokens per sequence over
    /// `cached` ones runs: its efficiency curve and query tile. Several new
    /// tokens over a cached prefix take the cached kernel where the file
    /// has one; a prefill from an empty cache the prefill kernel.
    /// With `blocks(tile)` the grid a query tile gives, the kernel also
    /// says how many kernels it launches beyond the one (the split-KV
    /// variant's combine).
    fn attention_kernel(
        &self,
        cached: u64,
        blocks: impl Fn(u64) -> f64,
    ) -> (Option<(f64, f64)>, u64, f64) {
        match self.cached_attention {
            Some(c) if cached > 0 => match c.split_query_tile {
                Some(t) if blocks(t) < SPLIT_BELOW_CTAS_PER_SM * self.gemm.sms.max(1) as f64 => {
                    (Some(c.curve), t, 1.0)
                }
                _ => (Some(c.curve), c.query_tile, 0.0),
            },
            _ => (self.attention, self.query_tile, 0.0),
        }
    }

    /// Prices `step`; `kernel_scale` multiplies every op's kernel count (a
    /// `--kernels` total over the structural one; 1 otherwise).
    pub fn price(&self, step: &Step, kernel_scale: f64) -> Priced {
        let burst = self.pass(step, self.burst_rate(), kernel_scale, false);
        if let Some(pl) = &self.power {
            return self.limited(pl, step, burst);
        }
        let bound: f64 = burst
            .ops
            .iter()
            .filter(|o| o.compute_bound)
            .map(|o| o.time_s)
            .sum();
        if self.holds_sustained(bound, burst.time_s) {
            self.pass(
                step,
                self.sustained.unwrap_or(self.rate),
                kernel_scale,
                true,
            )
        } else {
            burst
        }
    }

    /// `burst` (the step priced at the burst rate) under the power limit:
    /// the clock the board holds over it, each compute-bound op stretched
    /// to that clock (formulas.md, "Achievable: the power limit over a
    /// step").
    fn limited(&self, pl: &PowerLimit, step: &Step, mut burst: Priced) -> Priced {
        let mut mix = Mix::default();
        let mut gpu = 0.0;
        for (o, op) in burst.ops.iter().zip(step.ops.iter().chain(&step.extra)) {
            add_to_mix(&mut mix, o, op.kind == OpKind::Attention);
            gpu += o.time_s;
        }
        // Eagerly, a GPU ahead of a slower host waits for it.
        mix.wait_s += (burst.time_s - gpu).max(0.0);
        let x = pl.clock(&mix);
        let mut time_s = 0.0;
        for (o, op) in burst.ops.iter_mut().zip(step.ops.iter().chain(&step.extra)) {
            if o.compute_bound && x < 1.0 {
                let k = pl.stretch(x, op.kind == OpKind::Attention);
                let work = o.time_s - o.overhead_s;
                o.compute_s *= k;
                o.time_s = o.overhead_s + work * k;
            }
            time_s += o.time_s;
        }
        let host = (burst.time_s - gpu).max(0.0) + gpu;
        burst.time_s = time_s.max(host);
        burst.sustained = x < 1.0;
        burst.clock = Some(x);
        burst
    }

    /// Whether a step of `time_s` at the burst rate, `bound_s` of it in
    /// compute-bound ops, runs at the sustained rate: work that is
    /// compute-bound as a whole holds the board at its power limit when it
    /// repeats back to back.
    fn holds_sustained(&self, bound_s: f64, time_s: f64) -> bool {
        self.sustained.is_some_and(|s| s < self.rate) && bound_s > 0.5 * time_s
    }

    /// A step's (time, overhead) once eager launch is counted: the host
    /// runs ahead of the GPU, queueing kernels, so the step takes the
    /// longer of the GPU's work and the host's path over every call.
    fn with_host(&self, time_s: f64, overhead_s: f64, host: f64) -> (f64, f64) {
        if self.launch == LaunchMode::Eager && host > time_s {
            (host, overhead_s + host - time_s)
        } else {
            (time_s, overhead_s)
        }
    }

    fn pass(&self, step: &Step, rate: f64, kernel_scale: f64, sustained: bool) -> Priced {
        let mut ops = Vec::with_capacity(step.ops.len() + step.extra.len());
        let (mut time_s, mut overhead_s, mut kernels, mut host) = (0.0, 0.0, 0.0, 0.0);
        for op in step.ops.iter().chain(&step.extra) {
            let t = self.op(op, step, rate, sustained, kernel_scale);
            time_s += t.time_s;
            overhead_s += t.overhead_s;
            kernels += t.kernels;
            host += self.host_of(op, step) * kernel_scale;
            ops.push(t);
        }
        let (time_s, overhead_s) = self.with_host(time_s, overhead_s, host);
        Priced {
            ops,
            time_s,
            overhead_s,
            kernels,
            sustained,
            clock: None,
        }
    }

    /// What the ops of `step` (its `ops` and `extra`) add to a step's time,
    /// at both rates: a step's [`Part`]s add, and [`Pricer::time_of`] of
    /// their sum is [`Pricer::price`]'s time of the step they make up. A
    /// simulator prices the ops that depend only on the token count once.
    pub fn part(&self, step: &Step) -> Part {
        let mut part = Part::default();
        let sustained = self.sustained.filter(|s| *s < self.rate);
        for op in step.ops.iter().chain(&step.extra) {
            let b = self.op(op, step, self.burst_rate(), false, 1.0);
            add_to_mix(&mut part.mix, &b, op.kind == OpKind::Attention);
            part.time_s += b.time_s;
            part.kernels += b.kernels;
            part.host_s += self.host_of(op, step);
            if b.compute_bound {
                part.bound_s += b.time_s;
            }
            if let Some(s) = sustained {
                part.sustained_s += self.op(op, step, s, true, 1.0).time_s;
            }
        }
        part
    }

    /// The time of a step made of `part`, seconds (see [`Pricer::part`]).
    pub fn time_of(&self, part: &Part) -> f64 {
        self.time_with_wait(part, 0.0)
    }

    /// The time of a step made of `part` and `wait_s` more during which
    /// the GPU waits (a plan's collectives between its kernels), seconds:
    /// the wait included.
    pub fn time_with_wait(&self, part: &Part, wait_s: f64) -> f64 {
        self.time_with_calls(part, wait_s, wait_s)
    }

    /// The time of a step made of `part` with `wait_s` more on the GPU's
    /// timeline (a plan's collectives) and, launched eagerly, `host_wait_s`
    /// more on the host's path (those calls' host path): the longer
    /// timeline, seconds. With `host_wait_s = wait_s` the collectives hold
    /// both, as [`Pricer::time_with_wait`] counts them. From a graph the
    /// host's path is not on the clock.
    pub fn time_with_calls(&self, part: &Part, wait_s: f64, host_wait_s: f64) -> f64 {
        if self.launch == LaunchMode::Eager {
            let gpu_compute = if let Some(pl) = &self.power {
                // The GPU idles while the host is behind.
                let host = part.host_s + host_wait_s;
                let idle = (host - part.time_s - wait_s).max(0.0);
                let mut mix = part.mix;
                mix.wait_s += wait_s + idle;
                let x = pl.clock(&mix);
                return (pl.time(&mix, x) - idle).max(host);
            } else if self.holds_sustained(part.bound_s, part.time_s.max(part.host_s)) {
                part.sustained_s
            } else {
                part.time_s
            };
            return (gpu_compute + wait_s).max(part.host_s + host_wait_s);
        }
        if let Some(pl) = &self.power {
            let mut mix = part.mix;
            mix.wait_s += wait_s;
            let host = self.with_host(part.time_s, 0.0, part.host_s).0;
            mix.wait_s += host - part.time_s;
            let x = pl.clock(&mix);
            return (pl.time(&mix, x) - (host - part.time_s)).max(host + wait_s);
        }
        wait_s + self.time_without_limit(part)
    }

    fn time_without_limit(&self, part: &Part) -> f64 {
        let burst = self.with_host(part.time_s, 0.0, part.host_s).0;
        if self.holds_sustained(part.bound_s, burst) {
            self.with_host(part.sustained_s, 0.0, part.host_s).0
        } else {
            burst
        }
    }

    /// The host's path over one op's calls, all repetitions, when launched
    /// eagerly (0 otherwise): a call per structural kernel, priced by its
    /// class. A GEMM's split-K reduction and a split attention's combine
    /// are launched by the library inside the call, not from Python.
    fn host_of(&self, op: &Op, step: &Step) -> f64 {
        if self.launch != LaunchMode::Eager {
            return 0.0;
        }
        let h = &self.host;
        let calls = op.kernels.max(0.0);
        let per = match op.kind {
            OpKind::Matmul => {
                // A grouped GEMM is one call over all its groups.
                let gemms: f64 = op
                    .gemms
                    .iter()
                    .flatten()
                    .map(|g| if op.grouped.is_some() { 1.0 } else { g.groups })
                    .sum();
                let gemms = gemms.min(calls);
                gemms * h.gemm_s + (calls - gemms) * h.kernel_s
            }
            OpKind::Attention if step.shape.new > 1 && step.cached_tokens > 0 => {
                h.cached_attention_s * calls / super::ATTENTION_KERNELS
            }
            OpKind::Attention if calls > 0.0 => {
                op.host_call_s.unwrap_or(h.attention_s) + (calls - 1.0) * h.kernel_s
            }
            _ if calls > 0.0 && op.host_call_s.is_some() => op.host_call_s.unwrap_or(0.0),
            _ => calls * h.kernel_s,
        };
        per * op.count.max(0.0)
    }

    /// One op: its GPU time per repetition, plus per-kernel costs, times
    /// its repetitions.
    fn op(&self, op: &Op, step: &Step, rate: f64, sustained: bool, kernel_scale: f64) -> OpTime {
        let (shape, cached) = (step.shape, step.cached_tokens);
        let n = op.count.max(0.0);
        let bw = self.bandwidth;
        let kernels = op.kernels * kernel_scale;
        let zero = OpTime {
            name: op.name,
            compute_s: 0.0,
            memory_s: 0.0,
            overhead_s: 0.0,
            time_s: 0.0,
            kernels: 0.0,
            compute_bound: false,
        };
        if n == 0.0 {
            return zero;
        }
        let flops = op.flops / n;
        let bytes = op.bytes() / n;
        // Kernels the library launches inside the op's calls: split-K
        // reductions (a GEMM's fixed time), split attention's combine.
        let (mut extra_gemm, mut extra_combine) = (0.0, 0.0);
        let (compute, memory, gpu) = match op.kind {
            OpKind::Matmul if op.gemms[0].is_some() => {
                let shapes = || op.gemms.iter().flatten();
                let weight_elems: f64 = shapes().map(|g| g.n as f64 * g.k as f64 * g.groups).sum();
                // The op's own weight bytes per element (block scales of a
                // quantized format included).
                let wb = if weight_elems > 0.0 {
                    op.weight_bytes / n / weight_elems
                } else {
                    self.precisions.weight
                };
                let (rate, wb, ab) = self.gemm_terms(op, rate, sustained, wb);
                // A grouped GEMM streams at its engine's share of the
                // bandwidth, and launches no split-K reduction; where the
                // engine's kernel is PyTorch's, the part's own measured
                // figures take the place of the engine's (formulas.md,
                // "Engines: how a profile turns into kernels").
                // 4-bit weights the device has no math for are dequantized
                // as the kernel loads them, at the engine's share for that.
                let part = |g: &super::GroupedGemm, i: usize| {
                    let f = if i == 0 {
                        self.grouped.0
                    } else {
                        self.grouped.1
                    };
                    f.filter(|_| g.part_figures)
                };
                let gbw = op.grouped.map_or(bw, |g| match g.dequant {
                    Some((c, f)) if !self.math.contains(&c) => bw * f,
                    _ => bw * part(&g, 0).unwrap_or(g.stream_fraction),
                });
                let rate = op
                    .grouped
                    .and_then(|g| part(&g, 1))
                    .map_or(rate, |c| rate * c);
                let (mut c, mut m, mut t) = (0.0, 0.0, 0.0);
                for g in shapes() {
                    let read =
                        (g.n as f64 * g.k as f64 * wb + g.m as f64 * g.k as f64 * ab) * g.groups;
                    let write = g.m as f64 * g.n as f64 * ab * g.groups;
                    let gt = self
                        .gemm
                        .time((g.m, g.n, g.k), g.groups, rate, gbw, read, write);
                    c += gt.compute_s;
                    m += gt.read_s + gt.write_s;
                    t += gt.time_s;
                    if op.grouped.is_none() && reduces(&gt, wb) {
                        extra_gemm += 1.0;
                    }
                }
                (c, m, t)
            }
            OpKind::Attention => {
                // Prefill (several new tokens) runs flash attention at its
                // efficiency for the keys each query sees; decode streams
                // the cache.
                let tensor = match self.tensor_mask {
                    Some(t)
                        if shape.new > 1 && cached > 0 && step.mask == AttentionMask::Tensor =>
                    {
                        Some(t)
                    }
                    _ => None,
                };
                let (eff, pad) = if let Some((fraction, tile)) = tensor {
                    // An explicit mask tensor: cuDNN's kernel, one CTA a
                    // tile of queries of a sequence and head, no split of
                    // the keys: its tiles run in whole waves over the SMs
                    // (formulas.md, "A multi-token step").
                    let q = shape.new;
                    let tile = tile.max(1);
                    let blocks = shape.batch as f64 * step.heads * q.div_ceil(tile) as f64;
                    let sms = self.gemm.sms.max(1) as f64;
                    let waves = (blocks / sms).ceil() * sms / blocks.max(1.0);
                    (
                        fraction,
                        (q.div_ceil(tile) * tile) as f64 / q as f64 * waves,
                    )
                } else if let Some(per_flop) = step.flex.filter(|_| shape.new > 1) {
                    // FlexAttention: its FLOPs are the tiles it computes,
                    // already padded (formulas.md, "Engines: attention
                    // paths", FlexAttention).
                    (1.0 / per_flop, 1.0)
                } else if let Some((tile, fraction)) = step.mla_kernel.filter(|_| cached > 0) {
                    // MLA's absorbed kernel over a cache (FlashMLA's
                    // shape): a CTA computes `tile` rows of a sequence's
                    // heads x new tokens against the shared latent, fewer
                    // padded to it; the keys split and combined as a
                    // decode kernel's (formulas.md, "MLA decode, absorbed").
                    let rows = (step.heads * shape.new as f64).max(1.0);
                    let tile = tile as f64;
                    let blocks = shape.batch as f64 * (rows / tile).ceil();
                    if self.fixed.decode_splits
                        && blocks < SPLIT_BELOW_CTAS_PER_SM * self.gemm.sms.max(1) as f64
                    {
                        extra_combine += 1.0;
                    }
                    (fraction, (rows / tile).ceil() * tile / rows)
                } else if shape.new > 1 {
                    let q = shape.new;
                    let grid =
                        |t: u64| shape.batch as f64 * step.heads * q.div_ceil(t.max(1)) as f64;
                    let (figures, tile, combine) = self.attention_kernel(cached, grid);
                    extra_combine += combine;
                    let tile = tile.max(1);
                    (
                        curve(figures, (cached + q) as f64),
                        (q.div_ceil(tile) * tile) as f64 / q as f64,
                    )
                } else {
                    // A decode kernel over batch x KV heads blocks splits
                    // the keys when they would leave the SMs idle, and
                    // combines the parts in a kernel of its own.
                    let blocks = shape.batch as f64 * step.kv_heads;
                    if self.fixed.decode_splits
                        && blocks < SPLIT_BELOW_CTAS_PER_SM * self.gemm.sms.max(1) as f64
                    {
                        extra_combine += 1.0;
                    }
                    (1.0, 1.0)
                };
                let rate = match self.attention_sustained {
                    Some(s) if sustained => s.min(self.attention_rate),
                    _ => self.attention_rate,
                };
                let mut c = flops * pad / (rate * eff);
                // MLA's latent GEMMs over an odd key count: each at its
                // misaligned kernel's share of the rate.
                if let (Some(o), Some(f)) = (op.latent_odd, self.latent_odd) {
                    let scores = match f.simt {
                        Some((share, from, to)) if (from..=to).contains(&o.elements) => share,
                        _ => f.scores,
                    };
                    // Fitted against the burst rate: a kernel at a few
                    // percent of it draws far from the power limit.
                    c = (o.scores_flops / scores + o.values_flops / f.values)
                        / n
                        / self.attention_rate;
                }
                let m = bytes / bw;
                (c, m, c.max(m))
            }
            _ => {
                let c = flops / rate;
                // A strided kernel runs at the slower of its bytes and its
                // element rate (formulas.md, "Achievable: a forward
                // operation by operation", strided kernels).
                let strided: f64 = match self.strided_element_s {
                    Some(ps) => op
                        .strided
                        .iter()
                        .flatten()
                        .map(|s| (s.elements / n * ps - s.bytes / n / bw).max(0.0))
                        .sum(),
                    None => 0.0,
                };
                let scatter = match (self.scatter_add_element_s, op.scatter) {
                    (Some(ps), Some(s)) => (s.elements / n * ps - s.bytes / n / bw).max(0.0),
                    _ => 0.0,
                };
                let m = bytes / bw + strided + scatter;
                (c, m, c.max(m))
            }
        };
        let f = &self.fixed;
        let own = match op.class {
            KernelClass::Gemm => kernels * f.gemm_s,
            KernelClass::Norm => kernels * f.norm_s,
            KernelClass::Pointwise => kernels * f.pointwise_s,
            // The attention kernel, then its cache writes.
            KernelClass::Attention if op.kernels > 0.0 => {
                kernel_scale * (f.attention_s + (op.kernels - 1.0).max(0.0) * f.kv_write_s)
            }
            KernelClass::Attention => 0.0,
        };
        let copies = op.copies.max(0.0);
        let copy_s = copies * op.copy_bytes / bw;
        let fixed = own + extra_gemm * f.gemm_s + extra_combine * f.combine_s + copies * f.copy_s;
        let kernels = kernels + extra_gemm + extra_combine;
        let launch = match self.launch {
            LaunchMode::None => 0.0,
            // Eager: the host's path is added over the whole step (`pass`);
            // on the GPU each kernel and copy waits for its dispatch.
            LaunchMode::Eager => (kernels + copies) * self.eager_gap_s,
            // A copy in a graph is a node of its own, spaced as a kernel; a
            // launch waited for is paid serially the same way.
            LaunchMode::Graph | LaunchMode::Synchronised => (kernels + copies) * self.per_kernel_s,
        };
        let overhead = fixed + launch;
        let rep = gpu + copy_s + overhead;
        OpTime {
            name: op.name,
            compute_s: compute * n,
            memory_s: (memory + copy_s) * n,
            overhead_s: overhead * n,
            time_s: rep * n,
            kernels: kernels * n,
            // MLA's misaligned latent GEMMs run at a few percent of the
            // tensor rate: they do not draw the power of compute-bound
            // work, whatever bounds them.
            compute_bound: compute > memory && op.latent_odd.is_none(),
        }
    }
}

/// Adds op `o` (priced at the burst clock) to `mix`: its work by class, its
/// fixed times and launch as waits.
fn add_to_mix(mix: &mut Mix, o: &OpTime, attention: bool) {
    let work = o.time_s - o.overhead_s;
    mix.wait_s += o.overhead_s;
    match (o.compute_bound, attention) {
        (true, true) => mix.attention_s += work,
        (true, false) => mix.gemm_s += work,
        (false, _) => mix.stream_s += work,
    }
}

/// An attention kernel's share of the rate at `length` keys per query:
/// peak x length / (length + half), 1 without figures.
fn curve(figures: Option<(f64, f64)>, length: f64) -> f64 {
    match figures {
        Some((peak, half)) => peak * length / (length + half),
        None => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use crate::calc::decode::{self, DecodeInputs};
    use crate::catalog::Catalog;
    use crate::spec::hardware::Mode;
    use crate::spec::overrides::Set;

    /// Llama-3-8B decode at T = 1,024 on the H200 replayed from a graph,
    /// priced per operation, with `sets` applied to the hardware file.
    fn priced(batch: u64, sets: &[&str]) -> super::Priced {
        let cat = Catalog::default();
        let m = cat.model("llama-3-8b", &[]).unwrap();
        let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
        let hw = cat.hardware("h200-sxm", &sets).unwrap();
        let mut f = crate::inputs::Fields::new();
        f.insert("batch".into(), batch.into());
        f.insert("context".into(), 1024.into());
        f.insert("launch".into(), "graph".into());
        let i: DecodeInputs = crate::inputs::from_fields(&f).unwrap();
        let c = decode::cost(&m, &hw, &i, Mode::Achievable).unwrap();
        c.timed.priced.unwrap()
    }

    const BW: f64 = 4202.7e9; // achievable.hbm-bandwidth
    const LAUNCH: f64 = 0.94e-6; // achievable.launch.graph

    #[test]
    fn norms_and_pointwise_kernels_pay_their_class_figures() {
        // 32 layers of 2 RMSNorms over one token's 4,096 bf16 values (read
        // and written: 4 x 4,096 x 2 B a layer), each 5.7 us
        // (kernel-fixed.norm) and the 0.94 us replay.
        let p = priced(1, &[]);
        let o = p.op("layer-norms").unwrap();
        let by_hand = 32.0 * (2.0 * (5.7e-6 + LAUNCH) + 4.0 * 4096.0 * 2.0 / BW);
        assert!((o.time_s - by_hand).abs() < 1e-12, "{} {by_hand}", o.time_s);
        // Rotary's three kernels are pointwise (1.3 us each) over 40 heads
        // of 128 at 20 bytes an element, the widening (6 of them) at the
        // slower of its bytes and 2.77 ps an element (strided-element).
        let r = p.op("rotary").unwrap();
        let e = 40.0 * 128.0;
        let widen = (e * 2.77e-12 - e * 6.0 / BW).max(0.0);
        let rotary = 32.0 * (3.0 * (1.3e-6 + LAUNCH) + e * 20.0 / BW + widen);
        assert!((r.time_s - rotary).abs() < 1e-12, "{} {rotary}", r.time_s);
    }

    #[test]
    fn the_output_projection_copies_the_residual_in_bf16() {
        // addmm copies the residual into its output first: one copy a
        // layer at kernel-fixed.copy, so 1 us less of it takes 32 us off.
        let bf = priced(1, &[]).op("o").unwrap().time_s;
        let less = priced(1, &["achievable.kernel-fixed.copy=0.2us"]);
        let d = bf - less.op("o").unwrap().time_s;
        assert!((d - 32.0e-6).abs() < 1e-12, "{d}");
        // fp8 projections add the residual in a kernel of their own: no copy.
        let fp8 = |sets: &[&str]| {
            let cat = Catalog::default();
            let m = cat.model("llama-3-8b", &[]).unwrap();
            let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
            let hw = cat.hardware("h200-sxm", &sets).unwrap();
            let mut f = crate::inputs::Fields::new();
            f.insert("batch".into(), 1u64.into());
            f.insert("context".into(), 1024.into());
            f.insert("launch".into(), "graph".into());
            f.insert("dtype".into(), "fp8".into());
            f.insert("activations".into(), "fp8".into());
            let i: DecodeInputs = crate::inputs::from_fields(&f).unwrap();
            let c = decode::cost(&m, &hw, &i, Mode::Achievable).unwrap();
            c.timed.priced.unwrap().op("o").unwrap().time_s
        };
        assert_eq!(fp8(&[]), fp8(&["achievable.kernel-fixed.copy=0.2us"]));
    }

    #[test]
    fn decode_attention_combines_its_split_keys_below_the_sm_threshold() {
        // Batch x 8 KV heads against 0.8 x 2 x 132 = 211.2 blocks: batch 26
        // (208 blocks) splits and runs the combine kernel, batch 27 (216)
        // does not. Kernels a layer: the attention kernel, two cache
        // writes, and the combine where it splits.
        let k = |b| priced(b, &[]).op("attention").unwrap().kernels / 32.0;
        assert_eq!(k(1), 4.0);
        assert_eq!(k(26), 4.0);
        assert_eq!(k(27), 3.0);
        assert_eq!(k(32), 3.0);
    }
}

#[cfg(test)]
mod prefill_tests {
    use crate::calc::step::Shape;
    use crate::calc::step::{self as decode, Choices};
    use crate::catalog::Catalog;
    use crate::spec::hardware::Mode;
    use crate::spec::overrides::Set;

    /// A Llama-3-8B bf16 prefill of 2,048 tokens on the H200 with no
    /// launch cost, priced per operation, with `sets` on the hardware file.
    fn prefill(sets: &[&str]) -> (super::Priced, super::Pricer) {
        prefill_at(None, None, sets)
    }

    /// [`prefill`] with weights and activations at `dtype` and `act`.
    fn prefill_at(
        dtype: Option<&str>,
        act: Option<&str>,
        sets: &[&str],
    ) -> (super::Priced, super::Pricer) {
        prefill_of("llama-3-8b", dtype, act, sets)
    }

    /// [`prefill_at`] of model `model`.
    fn prefill_of(
        model: &str,
        dtype: Option<&str>,
        act: Option<&str>,
        sets: &[&str],
    ) -> (super::Priced, super::Pricer) {
        let cat = Catalog::default();
        let m = cat.model(model, &[]).unwrap();
        let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
        let hw = cat.hardware("h200-sxm", &sets).unwrap();
        let c = Choices {
            dtype,
            activations: act,
            kv_dtype: None,
            launch: Some("none"),
            kernels: None,
            engine: None,
        };
        let s = decode::setup(&m, &hw, Mode::Achievable, c).unwrap();
        let shape = Shape {
            batch: 1,
            new: 2048,
            past: 0,
            lm_head_tokens: 1,
        };
        let t = decode::timed(&m, &s, shape).unwrap();
        (t.priced.unwrap(), s.pricer.unwrap())
    }

    const BW: f64 = 4202.7e9; // achievable.hbm-bandwidth

    #[test]
    fn expert_dispatch_by_hand() {
        // Mixtral-8x7B, 2,048 tokens, top 2 of 8, d = 4,096, 32 layers:
        // r = 2,048 x 2 x 4,096 x 32 routed elements; 7 x r x 2 bytes
        // streamed, the scale's r elements at 2.77 ps (its 2 x r x 2 bytes
        // counted once), the scatter-add's r at 7.92 ps (its 3 x r x 2).
        let (p, _) = prefill_of("mixtral-8x7b", None, None, &[]);
        let r = 2048.0 * 2.0 * 4096.0 * 32.0;
        let by_hand = 7.0 * r * 2.0 / BW
            + (r * 2.77e-12 - 2.0 * r * 2.0 / BW)
            + (r * 7.92e-12 - 3.0 * r * 2.0 / BW);
        let d = p.op("expert-dispatch").unwrap();
        assert!((d.time_s - by_hand).abs() < 1e-9, "{} {by_hand}", d.time_s);
        assert!((by_hand - 6.25e-3).abs() < 0.01e-3);
    }

    #[test]
    fn the_gated_activation_runs_at_the_strided_element_rate() {
        // SiLU over the gate half and its product with the up half, 2,048
        // x 14,336 elements each a layer: each the slower of its bytes (4
        // and 6 an element) and 2.77 ps an element, plus 1.3 us
        // (kernel-fixed.pointwise), 32 layers.
        let (p, _) = prefill(&[]);
        let e = 2048.0 * 14336.0;
        let silu = (e * 4.0 / BW).max(e * 2.77e-12) + 1.3e-6;
        let mul = (e * 6.0 / BW).max(e * 2.77e-12) + 1.3e-6;
        let by_hand = 32.0 * (silu + mul);
        let a = p.op("activation").unwrap();
        assert!((a.time_s - by_hand).abs() < 1e-9, "{} {by_hand}", a.time_s);
        // Where the bytes are the slower, the rule changes nothing: at
        // 0.1 ps an element both stream their 10 bytes an element.
        let (fast, _) = prefill(&["achievable.strided-element=0.1ps"]);
        let streamed = 32.0 * (e * 10.0 / BW + 2.0 * 1.3e-6);
        let f = fast.op("activation").unwrap().time_s;
        assert!((f - streamed).abs() < 1e-9, "{f} {streamed}");
    }

    #[test]
    fn rotary_widening_is_strided_its_other_kernels_stream() {
        // q and k, 2,048 x 40 x 128 elements a layer: the widening (read 2,
        // write 4) at 2.77 ps an element, the complex multiply (8 + 8 per
        // pair) and the narrowing (4 + 2) at the bandwidth; three kernels
        // at 1.3 us.
        let (p, _) = prefill(&[]);
        let e = 2048.0 * 40.0 * 128.0;
        let widen = (e * 6.0 / BW).max(e * 2.77e-12);
        let by_hand = 32.0 * (widen + e * 14.0 / BW + 3.0 * 1.3e-6);
        let r = p.op("rotary").unwrap().time_s;
        assert!((r - by_hand).abs() < 1e-9, "{r} {by_hand}");
    }

    #[test]
    fn under_the_power_limit_gemms_start_from_their_burst_share() {
        // The feed-forward's compute term: its fitted time x 0.9
        // (power-limit.gemm-burst-fraction) stretched by clock^-beta at
        // the clock the step holds.
        let (one, _) = prefill(&["achievable.power-limit.gemm-burst-fraction=1"]);
        let (p, pr) = prefill(&[]);
        let pl = pr.power.unwrap();
        let (x1, x) = (one.clock.unwrap(), p.clock.unwrap());
        let fitted = one.op("ffn").unwrap().compute_s / pl.stretch(x1, false);
        let by_hand = 0.9 * fitted * pl.stretch(x, false);
        let c = p.op("ffn").unwrap().compute_s;
        assert!(
            (c - by_hand).abs() < 1e-9 * by_hand.max(1.0),
            "{c} {by_hand}"
        );
        assert!(c < one.op("ffn").unwrap().compute_s);
    }

    #[test]
    fn fp8_gemms_start_from_the_fp8_burst_share() {
        // The same by hand in an fp8 forward, at the fp8 share (0.84,
        // validation/gemm_burst_h200.py), not the bf16 one.
        let fp8 = Some("fp8");
        let (one, _) = prefill_at(
            fp8,
            fp8,
            &["achievable.power-limit.gemm-burst-fraction.fp8=1"],
        );
        let (p, pr) = prefill_at(fp8, fp8, &[]);
        assert_eq!(pr.gemm_burst, 0.84);
        let pl = pr.power.unwrap();
        let (x1, x) = (one.clock.unwrap(), p.clock.unwrap());
        let fitted = one.op("ffn").unwrap().compute_s / pl.stretch(x1, false);
        let by_hand = 0.84 * fitted * pl.stretch(x, false);
        let c = p.op("ffn").unwrap().compute_s;
        assert!(
            (c - by_hand).abs() < 1e-9 * by_hand.max(1.0),
            "{c} {by_hand}"
        );
        // One number still serves every precision (files written before
        // the table).
        let (all, pa) = prefill_at(
            fp8,
            fp8,
            &["achievable.power-limit.gemm-burst-fraction=0.84"],
        );
        assert_eq!(pa.gemm_burst, 0.84);
        assert_eq!(all.time_s, p.time_s);
    }

    #[test]
    fn a_weight_quantized_forward_keeps_its_lm_head_at_16_bits() {
        // The profiled fp8 prefill ran its LM head on the bf16 kernel
        // (nvjet_sm90_tst_256x8, not the fp8 qqtst ones) in 248.6 us, the
        // bf16 forward's in 248.5 us (validation/results/2026-12-02-h200/h200-prefill-ops.json):
        // both forwards price it alike, within 3% of the profile.
        let head = |d: Option<&'static str>, a: Option<&'static str>| {
            prefill_at(d, a, &[]).0.op("lm-head").unwrap().time_s
        };
        let bf16 = head(None, None);
        for (d, a) in [
            (Some("fp8"), Some("fp8")),
            (Some("fp8"), None),
            (Some("int4"), None),
        ] {
            let t = head(d, a);
            assert!((t - bf16).abs() < 1e-12, "{d:?} {a:?}: {t} {bf16}");
        }
        assert!((bf16 / 248.6e-6 - 1.0).abs() < 0.03, "{bf16}");
        // At batch 1 it streams its 128,256 x 4,096 bf16 weights: at
        // least 1.05 GB at the bandwidth, twice what fp8 weights take.
        assert!(bf16 > 128256.0 * 4096.0 * 2.0 / BW);
    }

    #[test]
    fn an_eager_kernel_waits_for_its_dispatch() {
        // Each of a layer's two norm kernels waits the eager gap
        // (achievable.launch.eager-gap) on the GPU: 64 of them over 32
        // layers, so a gap 1 us longer adds 64 us.
        let norms = |sets: &[&str]| {
            let cat = Catalog::default();
            let m = cat.model("llama-3-8b", &[]).unwrap();
            let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
            let hw = cat.hardware("h200-sxm", &sets).unwrap();
            let c = Choices {
                launch: Some("eager"),
                ..Choices::default()
            };
            let s = decode::setup(&m, &hw, Mode::Achievable, c).unwrap();
            let shape = Shape {
                batch: 1,
                new: 2048,
                past: 0,
                lm_head_tokens: 1,
            };
            let t = decode::timed(&m, &s, shape).unwrap();
            t.priced.unwrap().op("layer-norms").unwrap().time_s
        };
        let gap = norms(&["achievable.launch.eager-gap=2.5us"]) - norms(&[]);
        assert!((gap - 64.0 * 1e-6).abs() < 1e-12, "{gap}");
    }
}

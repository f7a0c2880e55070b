//! The `achievable` section: measured figures beside the datasheet ones
//! (bandwidth, peaks, per-call costs, bus efficiency, GEMM tiling,
//! attention efficiency).

use super::{Launch, Peaks};
use crate::spec::{BytesPerSec, Seconds};
use indexmap::IndexMap;
use serde::Deserialize;
use std::num::{NonZeroU32, NonZeroU64};

/// Measured figures beside the datasheet ones.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Achievable {
    /// What kind of evidence the section's figures are, taken together
    /// (the weakest of its figures; each figure's own kind is in
    /// `[sources]`): every `--achievable` answer states it with its error
    /// band (`calc::accuracy`). Absent: the figures are measured.
    #[serde(default)]
    pub evidence: Option<Evidence>,
    /// Sustained device-memory bandwidth (stream).
    pub hbm_bandwidth: Option<BytesPerSec>,
    /// Best measured matmul rates per precision.
    #[serde(default)]
    pub dense: Peaks,
    /// Measured launch costs.
    #[serde(default)]
    pub launch: Option<Launch>,
    /// Measured pointer-chase latencies.
    pub l1_latency: Option<Seconds>,
    /// Measured L2 latency.
    pub l2_latency: Option<Seconds>,
    /// Measured device-memory latency.
    pub dram_latency: Option<Seconds>,
    /// Measured fabric bandwidth one way, keyed by the `interconnect` name
    /// (`nvlink4`); no more than that link's per-direction figure.
    #[serde(default)]
    pub link_bandwidth: IndexMap<String, BytesPerSec>,
    /// Fixed GPU time of every kernel beyond its launch, in every launch
    /// mode: the ramp-up of a grid, its tail, a last wave smaller than the
    /// SM count. The per-operation model adds `kernel-overhead` once per
    /// kernel an operation launches (formulas.md, "Achievable: a forward
    /// operation by operation"); fitted as the intercept of time against
    /// bytes for memory-bound GEMMs replayed from a CUDA graph, less
    /// `launch.graph`.
    pub kernel_overhead: Option<Seconds>,
    /// Fixed GPU time of one kernel by class, beyond its work, for the
    /// kernels between a forward's GEMMs (formulas.md, "Achievable: a
    /// forward operation by operation", kernel classes); a class the file
    /// leaves out costs `kernel-overhead`.
    #[serde(default)]
    pub kernel_fixed: Option<KernelFixed>,
    /// The GPU's time per element of an elementwise kernel that cannot
    /// take the vectorized path (an input that is a strided view, such as
    /// one half of a fused gate/up output, or one being widened): such a
    /// kernel computes every element's offset, and runs at this rate when
    /// it is slower than streaming its bytes at `hbm-bandwidth`
    /// (formulas.md, "Achievable: a forward operation by operation",
    /// strided kernels).
    pub strided_element: Option<Seconds>,
    /// The GPU's time per element of a scatter-add (`index_add_`: a
    /// mixture-of-experts forward adding each expert's rows back into the
    /// output), which adds through atomics: such a kernel runs at this
    /// rate when it is slower than streaming its bytes (formulas.md,
    /// "Achievable: a forward operation by operation", expert dispatch).
    pub scatter_add_element: Option<Seconds>,
    /// Dense matmul rates a long compute-bound loop holds under the
    /// board's power limit, per precision (the clock drops below its
    /// boost; the source names the clock and power seen). With
    /// `power-limit` it sets how GEMMs stretch as the clock drops; without
    /// it, compute-bound operations of a step that is compute-bound as a
    /// whole (prefill, large batches: work that repeats back to back) run
    /// at this rate instead of `dense`, and a single matmul or a step bound
    /// by memory keeps `dense`. No more than `dense` of the same precision.
    #[serde(default)]
    pub sustained: Peaks,
    /// Board power by class of work at the burst clock, for the power
    /// limit over a step (formulas.md, "Achievable: the power limit over a
    /// step"); without it the older rule picks `sustained` or `dense`.
    #[serde(default)]
    pub power_limit: Option<PowerLimitFigures>,
    /// Fixed costs of one call, per launch mode, that are not per kernel.
    #[serde(default)]
    pub call: Option<Call>,
    /// Bus bandwidth each collective reaches on the scale-up link at large
    /// sizes, as a share of `link-bandwidth`.
    #[serde(default)]
    pub bus_efficiency: Option<BusEfficiency>,
    /// NCCL's protocols on the scale-up link (formulas.md, "Collectives",
    /// protocols): with it a collective's GPU time is the faster of a
    /// small-message protocol and a large-message one, and an eager call's
    /// host path binds only where it is longer than that GPU time.
    #[serde(default)]
    pub collective_protocol: Option<CollectiveProtocol>,
    /// How the vendor GEMM library tiles a matmul.
    #[serde(default)]
    pub gemm: Option<GemmTiling>,
    /// Flash attention's compute efficiency by sequence length.
    #[serde(default)]
    pub attention: Option<AttentionEfficiency>,
    /// PyTorch's grouped GEMM (`torch._grouped_mm`, the routed experts of
    /// a grouped dispatch) on this part, as `validation/calibrate.py`
    /// measures it (formulas.md, "Engines: how a profile turns into
    /// kernels", grouped experts).
    #[serde(default)]
    pub grouped_gemm: Option<GroupedGemmFigures>,
}

/// PyTorch's grouped GEMM on a part: for an engine whose grouped GEMM is
/// that kernel (its profile sets `moe.grouped.weight-stream-fraction`),
/// these take the place of the engine's figure, which was measured on
/// another part.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct GroupedGemmFigures {
    /// The share (0 to 1] of `hbm-bandwidth` its memory terms run at.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub stream_fraction: Option<f64>,
    /// The share (0 to 1] of the dense GEMM model's rate (the same tiles,
    /// waves and `dense` rate) its compute term runs at.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub compute_fraction: Option<f64>,
}

/// Board power of each class of a step's work at the burst clock
/// (formulas.md, "Achievable: the power limit over a step"). With
/// `package.compute-watts` (the power the board holds at its limit) and
/// `package.stream-watts` (memory-bound kernels) they say how far the clock
/// drops when a step repeats back to back.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct PowerLimitFigures {
    /// Back-to-back GEMMs at the burst clock, W (above the limit: the
    /// board holds it only for a short burst).
    #[serde(default, deserialize_with = "crate::spec::plain::watts")]
    pub gemm_watts: Option<f64>,
    /// Causal flash attention of a long prefill at the burst clock, W.
    #[serde(default, deserialize_with = "crate::spec::plain::watts")]
    pub attention_watts: Option<f64>,
    /// How attention's time grows as the clock drops: time x clock^beta
    /// is constant (1: bound by the clock alone).
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub attention_clock_exponent: Option<f64>,
    /// A GPU waiting at the burst clock (a spin kernel: gaps between
    /// kernels, a collective's wait), W.
    #[serde(default, deserialize_with = "crate::spec::plain::watts")]
    pub wait_watts: Option<f64>,
    /// A GEMM's time at the burst clock (on a board at rest) as a share of
    /// its time back to back, the state the GEMM figures (`dense`, `gemm`)
    /// are fitted in: a step under the power limit starts its GEMMs from
    /// this share of their fitted time and stretches them as its clock
    /// drops, so the limit is not counted twice (formulas.md,
    /// "Achievable: the power limit over a step"). Per precision (a table
    /// keyed as `sustained` is: the fp8 kernels gain more at rest than the
    /// bf16 ones), or one number for every precision; a precision without
    /// a figure takes 1.
    pub gemm_burst_fraction: Option<Shares>,
}

/// A share per precision (`bf16 = 0.9`), or one number for every
/// precision (the form files written before the table keep).
#[derive(Debug, Clone, PartialEq)]
pub enum Shares {
    /// The same share at every precision.
    All(f64),
    /// A share per compute key; a key left out has none.
    Per(ShareTable),
}

/// Shares keyed by compute precision, as [`Peaks`] keys its rates.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ShareTable {
    /// FP64.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub fp64: Option<f64>,
    /// FP32.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub fp32: Option<f64>,
    /// TF32.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub tf32: Option<f64>,
    /// BF16.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub bf16: Option<f64>,
    /// FP16.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub fp16: Option<f64>,
    /// FP8.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub fp8: Option<f64>,
    /// FP6.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub fp6: Option<f64>,
    /// FP4.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub fp4: Option<f64>,
    /// INT8.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub int8: Option<f64>,
    /// INT4.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub int4: Option<f64>,
}

impl Shares {
    /// The share at compute key `key` (`bf16`), if the file gives one.
    pub fn get(&self, key: &str) -> Option<f64> {
        let t = match self {
            Shares::All(v) => return Some(*v),
            Shares::Per(t) => t,
        };
        match key {
            "fp64" => t.fp64,
            "fp32" => t.fp32,
            "tf32" => t.tf32,
            "bf16" => t.bf16,
            "fp16" => t.fp16,
            "fp8" => t.fp8,
            "fp6" => t.fp6,
            "fp4" => t.fp4,
            "int8" => t.int8,
            "int4" => t.int4,
            _ => None,
        }
    }

    /// Every (key, share) the file gives: `("", v)` for one number.
    pub fn entries(&self) -> Vec<(&'static str, f64)> {
        match self {
            Shares::All(v) => vec![("", *v)],
            Shares::Per(_) => [
                "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4",
            ]
            .into_iter()
            .filter_map(|k| self.get(k).map(|v| (k, v)))
            .collect(),
        }
    }
}

impl<'de> Deserialize<'de> for Shares {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Shares;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, or a table of numbers by precision (bf16 = 0.9)")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Shares, E> {
                Ok(Shares::All(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Shares, E> {
                Ok(Shares::All(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Shares, E> {
                Ok(Shares::All(v as f64))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, m: A) -> Result<Shares, A::Error> {
                ShareTable::deserialize(serde::de::value::MapAccessDeserializer::new(m))
                    .map(Shares::Per)
            }
        }
        d.deserialize_any(V)
    }
}

/// Fixed GPU time of one kernel by class beyond the bytes it moves at
/// `hbm-bandwidth` (formulas.md, "Achievable: a forward operation by
/// operation"): measured as a profiled step's device time per kernel of
/// the class less its work. GEMMs and their split-K reductions keep
/// `kernel-overhead`, which their fit holds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct KernelFixed {
    /// A row-wise norm (RMSNorm: one block a row reduces it).
    pub norm: Option<Seconds>,
    /// A pointwise kernel: rotary embedding's parts, an activation, a
    /// cast, a residual add, an embedding gather.
    pub pointwise: Option<Seconds>,
    /// One write of the new tokens' keys or values into the cache.
    pub kv_write: Option<Seconds>,
    /// The attention kernel itself.
    pub attention: Option<Seconds>,
    /// The kernel that combines a split-KV attention's partial results.
    pub combine: Option<Seconds>,
    /// A device-to-device copy: a 16-bit projection that folds the
    /// residual in (`addmm`) first copies the residual into its output.
    pub copy: Option<Seconds>,
}

/// Fixed costs of one call beyond its kernels' work (formulas.md,
/// "Achievable: per-call costs"). Each is a measured floor: where a
/// figure is rounded it is rounded down.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Call {
    /// One matmul called eagerly from Python and timed on its own (CUDA
    /// events around the call): the host path from the call to the
    /// kernel's start (dispatch, launch), added once to a `matmul
    /// --launch eager` answer. Fitted as the eager time less the
    /// graph-replayed time of the same GEMM.
    pub matmul_eager: Option<Seconds>,
    /// One elementwise kernel (a norm, rotary embedding's parts, an
    /// activation, a cast, a residual add, a cache write) called eagerly
    /// from Python as a forward calls it, back to back: its host path per
    /// kernel, for eager steps. Without it such calls cost `matmul-eager`.
    pub kernel_eager: Option<Seconds>,
    /// One attention call (`scaled_dot_product_attention`) called eagerly
    /// as a forward calls it, back to back: its host path, for eager steps.
    /// Without it the call costs `matmul-eager`.
    pub attention_eager: Option<Seconds>,
    /// The attention op of a pass of several new tokens over a cached
    /// prefix (a chunk, a verify pass) called eagerly as a forward calls
    /// it, back to back: its two writes into the cache's slices and the
    /// masked attention call, with their views; its host path, for eager
    /// steps. Without it the op's three calls cost `matmul-eager` each.
    pub cached_attention_eager: Option<Seconds>,
    /// The host path of calls interleaved in a layer's order over the sum
    /// of their paths called back to back alone (a call after a different
    /// one costs more than after itself): it multiplies every call's path
    /// in an eager step (1 without it).
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub interleave: Option<f64>,
    /// One NCCL collective called eagerly from Python and timed on its own:
    /// its latency term under `collective --launch eager` (host path,
    /// NCCL's launch and its protocol's handshake together). Fitted as the
    /// intercept of eager time against bytes. With `collective-protocol`
    /// it is the host's path alone, running alongside the GPU's time.
    pub collective_eager: Option<Seconds>,
    /// One NCCL collective captured in a CUDA graph: its latency term under
    /// `--launch graph` and inside a step or a plan. Fitted as the
    /// intercept of graph-replayed time against bytes.
    pub collective_graph: Option<Seconds>,
}

/// NCCL's two protocols on the scale-up link (formulas.md,
/// "Collectives", protocols). The small-message protocol (LL128) pays
/// `call.collective-graph` and reaches `ll128-share` of a collective's bus
/// bandwidth; the large-message one (Simple) reaches all of it and pays
/// `simple-latency`. NCCL picks the faster for each size.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct CollectiveProtocol {
    /// Fixed GPU time of one call on the large-message protocol.
    pub simple_latency: Option<Seconds>,
    /// The small-message protocol's bandwidth as a share (0 to 1] of the
    /// large-message protocol's.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub ll128_share: Option<f64>,
}

/// Bus bandwidth per collective as a share (0 to 1] of the link's
/// measured `link-bandwidth` (formulas.md, "Collectives", calibration).
/// Fitted at the largest size measured, where the latency term is
/// negligible: bus bytes / (time - latency) / link-bandwidth.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct BusEfficiency {
    /// All-reduce.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub all_reduce: Option<f64>,
    /// All-gather.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub all_gather: Option<f64>,
    /// Reduce-scatter.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub reduce_scatter: Option<f64>,
    /// All-to-all.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub all_to_all: Option<f64>,
    /// Send/recv.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub send_recv: Option<f64>,
}

impl BusEfficiency {
    /// The five shares in `collective::Kind` order (all-reduce, all-gather,
    /// reduce-scatter, all-to-all, send-recv), with the field names.
    pub fn entries(&self) -> [(&'static str, Option<f64>); 5] {
        [
            ("all-reduce", self.all_reduce),
            ("all-gather", self.all_gather),
            ("reduce-scatter", self.reduce_scatter),
            ("all-to-all", self.all_to_all),
            ("send-recv", self.send_recv),
        ]
    }
}

/// The tiling structure of the vendor GEMM library (formulas.md,
/// "Achievable: GEMM efficiency by shape"). A matmul's compute time is
/// FLOPs / (rate x padding x waves), taking the tile and K split that
/// give the shortest time, as the library's heuristic aims to: padding =
/// M N / (ceil(M/tm) tm ceil(N/tn) tn), waves = tiles x splits /
/// (ceil(tiles x splits / SMs) x SMs).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct GemmTiling {
    /// Output tiles (rows x columns of C per CTA, `"256x128"`) the library
    /// chooses among, from the profiler's kernel names.
    #[serde(default)]
    pub tiles: Vec<String>,
    /// The most ways the library splits K when the tiles of M x N leave
    /// SMs idle (1: it never splits).
    pub split_k: Option<NonZeroU32>,
    /// The smallest tile that runs at the full rate (`"128x128"`): a tile
    /// reusing each operand element less, tm tn / (tm + tn) against this
    /// tile's, reaches that share of the rate; absent: every tile runs at
    /// the full rate.
    pub full_rate_tile: Option<String>,
    /// Where the library splits a weight-streaming (memory-bound) GEMM
    /// over K, from the profiler's kernel names: by rows M, the least K/N
    /// that splits (`[[achievable.gemm.stream-split]]`, M ascending);
    /// absent: such a GEMM splits as a compute-bound one would.
    #[serde(default)]
    pub stream_split: Vec<StreamSplit>,
    /// K at or below which a weight-streaming GEMM is never split.
    #[serde(default, deserialize_with = "crate::spec::plain::opt_count")]
    pub stream_split_k_above: Option<u64>,
    /// `tiles` parsed, once: every point of an `--achievable` sweep
    /// resolves the GEMM model (the fields are not changed after loading).
    #[serde(skip)]
    parsed: std::sync::OnceLock<std::result::Result<Vec<(u64, u64)>, String>>,
}

/// One row of `[[achievable.gemm.stream-split]]`: GEMMs of at most `rows`
/// rows (and more than the previous row's) split K where K / N is at least
/// `k-over-n`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct StreamSplit {
    /// The most rows M this row covers.
    #[serde(deserialize_with = "crate::spec::plain::count")]
    pub rows: u64,
    /// The least K / N that splits.
    #[serde(deserialize_with = "crate::spec::plain::number_req")]
    pub k_over_n: f64,
}

impl GemmTiling {
    /// The tiles as (rows, columns); `Err` names the first malformed entry.
    pub fn parsed(&self) -> std::result::Result<&[(u64, u64)], String> {
        self.parsed
            .get_or_init(|| self.tiles.iter().map(|t| tile(t)).collect())
            .as_deref()
            .map_err(Clone::clone)
    }

    /// `full-rate-tile` as (rows, columns), if given.
    pub fn full_rate(&self) -> std::result::Result<Option<(u64, u64)>, String> {
        self.full_rate_tile.as_deref().map(tile).transpose()
    }
}

/// One `"256x128"` tile as (rows, columns).
fn tile(t: &str) -> std::result::Result<(u64, u64), String> {
    let (a, b) = t
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{t}`: expected rows x columns, as `256x128`"))?;
    let n = |s: &str| s.trim().parse::<u64>().ok().filter(|&v| v > 0);
    match (n(a), n(b)) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(format!(
            "`{t}`: expected two positive whole numbers, as `256x128`"
        )),
    }
}

/// Flash attention's share of the dense rate by sequence length S
/// (formulas.md, "Achievable: attention"): efficiency(S) = peak-fraction x
/// S / (S + half-length). Prefill attention runs at dense x
/// efficiency(S); decode attention, far below the ridge, streams the KV
/// cache at `hbm-bandwidth` and needs neither figure.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AttentionEfficiency {
    /// The share (0 to 1] of the dense rate approached at long sequences.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub peak_fraction: Option<f64>,
    /// The sequence length, in tokens, at which the efficiency is half of
    /// `peak-fraction`.
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub half_length: Option<NonZeroU64>,
    /// Queries per tile of the attention kernel when several tokens per
    /// sequence are new (a chunk, a verify pass): fewer queries than this
    /// are padded up to it, so q new tokens cost ceil(q / tile) x tile
    /// queries' compute. One new token (decode) runs a split-KV decode
    /// kernel and is not padded.
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub query_tile: Option<NonZeroU64>,
    /// The share of the dense rate approached at long spans by the kernel
    /// that attends several new tokens per sequence over a cached prefix
    /// (a chunk, a prefix-cache hit, a speculative verify pass); the
    /// prefill figures apply where the file has none.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub cached_peak_fraction: Option<f64>,
    /// That kernel's half length: efficiency(S) = cached-peak-fraction x
    /// S / (S + cached-half-length) for S keys each query sees.
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub cached_half_length: Option<NonZeroU64>,
    /// Queries per tile of that kernel (q new tokens of a sequence and head
    /// are padded up to it).
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub cached_query_tile: Option<NonZeroU64>,
    /// Queries per tile of that kernel's split-KV variant, which it runs
    /// when batch x heads x query blocks would leave the SMs idle.
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub cached_split_query_tile: Option<NonZeroU64>,
    /// The share of the dense rate the kernel that attends several new
    /// tokens over a cache under an explicit mask tensor runs at, per
    /// padded FLOP (cuDNN's, where PyTorch sends a boolean mask with
    /// grouped heads): it does not split the keys, so its tiles run in
    /// whole waves over the SMs (formulas.md, "A multi-token step").
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub tensor_mask_peak_fraction: Option<f64>,
    /// That kernel's queries per tile (q new tokens of a sequence and head
    /// are padded up to it).
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub tensor_mask_query_tile: Option<NonZeroU64>,
    /// MLA's absorbed attention as batched GEMMs over the latent (the
    /// `eager` path) when the key count is odd: the scores' rows are not
    /// 16-byte aligned and cuBLAS runs pre-Hopper align-1 tensor-op
    /// kernels. The scores GEMM's share of the dense rate (formulas.md,
    /// "MLA decode, absorbed", odd key counts).
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub latent_odd_scores_fraction: Option<f64>,
    /// The values GEMM's share of the dense rate there (its input rows
    /// misaligned).
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub latent_odd_values_fraction: Option<f64>,
    /// The scores GEMM's share of the dense rate where cuBLAS runs an fp32
    /// SIMT kernel instead (`magma_sgemmEx`), between
    /// `latent-odd-simt-from` and `latent-odd-simt-to` score elements.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub latent_odd_simt_fraction: Option<f64>,
    /// The fewest score elements (sequences x heads x keys) the SIMT
    /// kernel was seen at.
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub latent_odd_simt_from: Option<NonZeroU64>,
    /// The most score elements it was seen at.
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub latent_odd_simt_to: Option<NonZeroU64>,
}

/// The kind of evidence behind a file's `achievable` figures
/// (formulas.md, "Achievable figures carried between parts").
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Evidence {
    /// `measured` (on this part, here), `public` (published measurements,
    /// cited), `transferred` (from a measured sibling by a named rule).
    pub kind: EvidenceKind,
    /// The measured sibling a transfer starts from (`h200-sxm`).
    pub from: Option<String>,
    /// The transfer rule's name, as docs/formulas.md heads it.
    pub rule: Option<String>,
}

/// See [`Evidence::kind`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvidenceKind {
    /// Measured on this part with validation/.
    #[default]
    Measured,
    /// Published measurements on this part, each cited.
    Public,
    /// Carried from a measured sibling by a rule.
    Transferred,
}

//! Engine files (`engines/*.toml`): how a serving engine executes a step
//! (formulas.md, "Engines: how a profile turns into kernels"). Which
//! operations one kernel fuses, how experts are dispatched, the attention
//! kernel, the all-reduce algorithm by message size and device count, and
//! whether decode steps replay from a CUDA graph. The step model reads
//! these fields; no calculation names an engine.
//!
//! Every field the file sets carries a `[sources]` entry (the engine's
//! source file or documentation, a measurement under `validation/`, or a
//! cited table); a file without one is refused.

use super::{Bytes, Origin, Seconds};
use crate::error::{Error, Result};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// The engine a command prices with when none is named: the plain PyTorch
/// forward `validation/` measures.
pub const DEFAULT_ENGINE: &str = "pytorch";

/// The engine the serving commands (`plan`, `simulate`, `fleet`) price
/// with when none is named: a serving engine, as deployments run
/// (`--engine pytorch` gives the plain forward).
pub const SERVING_ENGINE: &str = "vllm";

/// One engine file.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Engine {
    /// The id (the file stem).
    pub id: String,
    /// A display name.
    pub name: String,
    /// One line on what it is.
    #[serde(default)]
    pub summary: Option<String>,
    /// The engine's version the file describes.
    #[serde(default)]
    pub version: Option<String>,
    /// Operations one kernel does together.
    #[serde(default)]
    pub fusion: Fusion,
    /// How a mixture-of-experts layer runs.
    #[serde(default)]
    pub moe: MoeExec,
    /// The attention kernel.
    #[serde(default)]
    pub attention: AttentionExec,
    /// The all-reduce a tensor-parallel step uses.
    #[serde(default)]
    pub all_reduce: AllReduce,
    /// CUDA-graph capture.
    #[serde(default)]
    pub graphs: Graphs,
    /// Communication the engine runs under compute.
    #[serde(default)]
    pub overlap: Overlap,
    /// How attention data-parallel ranks (an expert group wider than
    /// tensor parallelism) run the LM head.
    #[serde(default)]
    pub dp_attention: DpAttention,
    /// Where each figure comes from, by dotted field path.
    #[serde(default)]
    pub sources: IndexMap<String, String>,
}

/// Operations one kernel does together (each `false`: a kernel of its own,
/// as a plain PyTorch forward runs it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Fusion {
    /// The residual add done inside the RMSNorm that follows it (one
    /// kernel reads both and writes both), not folded into the projection
    /// before it.
    #[serde(default)]
    pub norm_residual: bool,
    /// Rotary embedding as one kernel over q and k in place, not widen,
    /// multiply, narrow.
    #[serde(default)]
    pub rotary: bool,
    /// The gated activation (SiLU of the gate times up) as one kernel over
    /// the gate/up GEMM's output.
    #[serde(default)]
    pub gate_up_activation: bool,
    /// q, k and v as one GEMM (`false`: q, then k and v as two GEMMs).
    #[serde(default = "yes")]
    pub qkv: bool,
    /// The new tokens' keys and values written into the cache by one
    /// kernel (`false`: one for the keys, one for the values).
    #[serde(default)]
    pub kv_write: bool,
    /// The engine's own RMSNorm kernels make one pass over each row (one
    /// block a token reads it, reduces and writes), so each costs what an
    /// elementwise kernel does (`kernel-fixed.pointwise`) rather than
    /// PyTorch's norm kernel (`kernel-fixed.norm`).
    #[serde(default)]
    pub norm_one_pass: bool,
}

impl Fusion {
    /// The fusions this profile makes, by the short names `engine list`
    /// and the step notes print.
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.norm_residual, "norm+residual"),
            (self.rotary, "rotary"),
            (self.gate_up_activation, "gate-up+activation"),
            (self.qkv, "qkv"),
            (self.kv_write, "kv-write"),
            (self.norm_one_pass, "one-pass norm"),
        ]
        .into_iter()
        .filter_map(|(on, n)| on.then_some(n))
        .collect()
    }
}

fn yes() -> bool {
    true
}

/// How the routed experts of a layer run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dispatch {
    /// A loop over the touched experts: each expert's rows gathered, its
    /// GEMMs, its rows scaled and added back (kernels per expert).
    #[default]
    Loop,
    /// The token x k picks sorted by expert and each GEMM run once over
    /// all experts as a grouped GEMM.
    Grouped,
}

impl Dispatch {
    /// Its name in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Dispatch::Loop => "loop",
            Dispatch::Grouped => "grouped",
        }
    }
}

/// A mixture-of-experts layer's execution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MoeExec {
    /// `loop` or `grouped`.
    #[serde(default)]
    pub dispatch: Dispatch,
    /// The kernels and figures of a grouped dispatch.
    #[serde(default)]
    pub grouped: Grouped,
}

/// What a grouped dispatch launches per MoE layer beyond the router GEMM,
/// and what its grouped GEMMs reach. A count the file leaves out makes a
/// grouped step fail naming the field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Grouped {
    /// Top-k over the router logits and the routing weights' softmax.
    #[serde(default)]
    pub routing_kernels: Option<u32>,
    /// Sorting the picks by expert, counting them, the group offsets, and
    /// the gather of the rows in expert order where the GEMM does not
    /// gather them itself.
    #[serde(default)]
    pub permute_kernels: Option<u32>,
    /// Scaling by the routing weights, putting the rows back in token
    /// order and summing a token's k rows, where the GEMMs do not.
    #[serde(default)]
    pub combine_kernels: Option<u32>,
    /// Kernels each grouped GEMM call launches (a set-up kernel and the
    /// GEMM, or the GEMM alone).
    #[serde(default)]
    pub gemm_kernels: Option<u32>,
    /// The gate/up GEMM reads its rows in expert order itself (no gather
    /// kernel, no permuted copy).
    #[serde(default)]
    pub gather_in_gemm: bool,
    /// The down GEMM scales each row by its routing weight.
    #[serde(default)]
    pub scale_in_gemm: bool,
    /// The down GEMM writes each row at its token's place (no un-permute).
    #[serde(default)]
    pub scatter_in_gemm: bool,
    /// The share of the device's achievable bandwidth a grouped GEMM
    /// streams its weights at (without it: the dense GEMM model's).
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub weight_stream_fraction: Option<f64>,
    /// The share of the achievable bandwidth a grouped GEMM streams weights
    /// at when they are in a 4-bit format the device has no math for and
    /// the kernel dequantizes them to the activations' precision as it
    /// loads them (MXFP4 experts on Hopper); without it, as any other.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub dequant_stream_fraction: Option<f64>,
}

/// The attention kernel.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AttentionExec {
    /// Its name (`sdpa`, `flash-attention-3`, ...), shown by `--explain`.
    #[serde(default)]
    pub kernel: Option<String>,
    /// Its share of the attention rate at long lengths, in place of the
    /// hardware file's measured flash-attention peak fraction.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub peak_fraction: Option<f64>,
    /// How the scores are computed (formulas.md, "Engines: attention
    /// paths"): one fused kernel (`flash`, the default) or written out
    /// (`eager`).
    #[serde(default)]
    pub path: AttentionPath,
    /// How a pass of several new tokens over a cache (a verify pass, a
    /// chunk) masks its queries (formulas.md, "A multi-token step"):
    /// PyTorch's lower-right causal bias (`lower-right`, the default: SDPA
    /// runs FlashAttention-2's kernel) or an explicit boolean mask tensor
    /// (`tensor`: SDPA runs cuDNN's kernel).
    #[serde(default)]
    pub mask: AttentionMask,
    /// MLA's absorbed decode kernel on the flash path (FlashMLA,
    /// FlashAttention-3's MLA path; formulas.md, "MLA decode, absorbed"):
    /// the rows, a sequence's query heads times its new tokens, one CTA
    /// computes; fewer are padded to it.
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub mla_query_tile: Option<std::num::NonZeroU64>,
    /// That kernel's share of the attention rate per padded FLOP where it
    /// is compute-bound (it streams the latent at the device's achievable
    /// bandwidth).
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub mla_peak_fraction: Option<f64>,
    /// FlexAttention's block (`flex` path): the block mask marks which
    /// block x block tiles of queries and keys hold a visible pair, and
    /// the kernel computes every pair of those tiles (formulas.md,
    /// "Engines: attention paths", FlexAttention).
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub flex_block: Option<std::num::NonZeroU64>,
    /// The flex kernel's share of the attention rate at long spans, per
    /// FLOP of the tiles it computes.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub flex_peak_fraction: Option<f64>,
    /// The span (keys a query tile computes) at which it reaches half of
    /// that: efficiency = peak x span / (span + half length).
    #[serde(default, deserialize_with = "crate::spec::plain::opt_nonzero")]
    pub flex_half_length: Option<std::num::NonZeroU64>,
    /// Launched eagerly, the host's path of one compiled flex_attention
    /// call from Python, seconds (formulas.md, "Engines: attention paths",
    /// the flex path's host): in place of `achievable.call.attention-eager`.
    #[serde(default)]
    pub flex_call_eager: Option<Seconds>,
    /// Launched eagerly, the host's path of the sink renormalisation after
    /// that call (the LSE returned, the ops by the log-sum-exp, the output
    /// copied), one layer, seconds: in place of a call per kernel.
    #[serde(default)]
    pub flex_sink_eager: Option<Seconds>,
}

/// How a multi-token pass over a cache masks its queries (formulas.md, "A
/// multi-token step").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttentionMask {
    /// `torch.nn.attention.bias.causal_lower_right`: PyTorch sends it to
    /// FlashAttention-2's kernel (`achievable.attention.cached-*`).
    #[default]
    LowerRight,
    /// A boolean mask tensor (as a forward that builds its own mask passes
    /// it): PyTorch sends it with grouped heads to cuDNN's kernel
    /// (`achievable.attention.tensor-mask-*`); FlashAttention takes no
    /// mask tensor and the memory-efficient kernel no grouped heads.
    Tensor,
}

impl AttentionMask {
    /// Its name in files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            AttentionMask::LowerRight => "lower-right",
            AttentionMask::Tensor => "tensor",
        }
    }
}

/// How an engine computes attention (formulas.md, "Engines: attention
/// paths").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttentionPath {
    /// One fused kernel keeps the scores on chip: SDPA's flash or cuDNN
    /// kernels, FlashAttention, FlashInfer, TensorRT-LLM's. A sink logit is
    /// folded into its softmax (FlashAttention-3's and TensorRT-LLM's sink
    /// kernels), costing FLOPs and no bytes.
    #[default]
    Flash,
    /// The scores written out, as transformers' `eager_attention_forward`
    /// runs them: keys and values copied to every query head
    /// (`repeat_kv`), a batched GEMM for the scores, the scale, the mask,
    /// the sink column concatenated, its max subtracted, a softmax, a
    /// batched GEMM over the values and the output made contiguous.
    Eager,
    /// PyTorch's FlexAttention as transformers' `flex_attention_forward`
    /// runs it: one compiled Triton kernel over the tiles a block mask
    /// marks, the output made contiguous, and where the model has sinks
    /// the output renormalised by the kernel's log-sum-exp (a concatenation,
    /// a logsumexp, an exponent and a multiply over the output).
    Flex,
}

impl AttentionPath {
    /// Its name in files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            AttentionPath::Flash => "flash",
            AttentionPath::Eager => "eager",
            AttentionPath::Flex => "flex",
        }
    }
}

/// The all-reduce algorithm.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AllReduceAlgorithm {
    /// NCCL's ring or tree, as the hardware's fabric prices it.
    #[default]
    Nccl,
    /// The engine's own kernel inside one NVLink domain: one-shot (each
    /// device reads every peer's buffer and reduces) up to a size,
    /// two-shot (reduce-scatter then all-gather through peer memory)
    /// above it, NCCL past the largest size or the most devices.
    Custom,
}

/// The all-reduce a tensor-parallel step uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AllReduce {
    /// `nccl` or `custom`.
    #[serde(default)]
    pub algorithm: AllReduceAlgorithm,
    /// Largest message the one-shot kernel takes, by device count: the
    /// first entry at or above the count applies.
    #[serde(default)]
    pub one_shot_max_bytes: Option<Bytes>,
    /// Device count above which one-shot stops at `one-shot-max-bytes-large`.
    #[serde(default)]
    pub one_shot_max_bytes_large: Option<Bytes>,
    /// Devices up to which `one-shot-max-bytes` applies (above it,
    /// `one-shot-max-bytes-large`).
    #[serde(default)]
    pub one_shot_devices: Option<u32>,
    /// Largest message the custom kernel takes at all (NCCL above).
    #[serde(default)]
    pub max_bytes: Option<Bytes>,
    /// Most devices the custom kernel runs over (NCCL above).
    #[serde(default)]
    pub max_devices: Option<u32>,
    /// The custom kernel's fixed time per pass (its barrier over peer
    /// memory and launch), seconds: one pass one-shot, two two-shot.
    #[serde(default)]
    pub latency: Option<Seconds>,
}

/// CUDA-graph capture.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Graphs {
    /// Decode steps replay from a CUDA graph (the default launch with
    /// `--achievable` when `--launch` is not given; eager otherwise).
    #[serde(default = "yes")]
    pub decode: bool,
}

impl Default for Graphs {
    fn default() -> Self {
        Graphs { decode: true }
    }
}

/// How an engine hides communication under compute (formulas.md, "Plans:
/// communication under compute").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Overlap {
    /// The expert-parallel dispatch and combine all-to-alls.
    #[serde(default)]
    pub ep_all_to_all: OverlapKind,
}

/// Whether and how a collective runs under compute.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverlapKind {
    /// After the compute that needs it, one after another.
    #[default]
    None,
    /// The batch split in two microbatches, one's communication under the
    /// other's compute: a pass of at least two tokens takes the longer of
    /// its compute and that communication.
    TwoBatch,
}

/// Attention data-parallel with expert parallelism (formulas.md, "Plans:
/// attention data-parallel with expert parallelism").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DpAttention {
    /// Where the LM head's vocabulary lives.
    #[serde(default)]
    pub lm_head: LmHead,
}

/// How the ranks of an attention data-parallel group run the LM head.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LmHead {
    /// Each rank holds the whole head (split only by its own tensor
    /// parallelism) and computes its own sequences' logits: no collective.
    #[default]
    Local,
    /// The head's vocabulary split over every rank of the group: the
    /// ranks' hidden states all-gathered before it, the logits all-gathered
    /// after it, each rank keeping its own rows.
    Gathered,
}

impl Default for Engine {
    /// A plain PyTorch forward: nothing fused beyond the QKV GEMM, experts
    /// in a loop, NCCL, decode from graphs (what `engines/pytorch.toml`
    /// says, less its grouped-dispatch figures).
    fn default() -> Self {
        Engine {
            id: DEFAULT_ENGINE.into(),
            name: "PyTorch".into(),
            summary: None,
            version: None,
            fusion: Fusion {
                qkv: true,
                ..Fusion::default()
            },
            moe: MoeExec::default(),
            attention: AttentionExec::default(),
            all_reduce: AllReduce::default(),
            graphs: Graphs::default(),
            overlap: Overlap::default(),
            dp_attention: DpAttention::default(),
            sources: IndexMap::new(),
        }
    }
}

impl Engine {
    /// Parses and validates an engine file's text.
    pub fn parse(src: &str, origin: &Origin) -> Result<Self> {
        Engine::parse_with(src, origin, &[])
    }

    /// [`Engine::parse`] of a text `--set`s changed: the fields at `set`
    /// need no source of their own (the what-if is theirs).
    pub fn parse_with(src: &str, origin: &Origin, set: &[&str]) -> Result<Self> {
        let e: Engine = super::from_toml(src, origin)?;
        let doc = toml_edit::Document::parse(src)
            .map_err(|x| super::edit_error(src, &origin.name, &x))?;
        e.validate(&doc, src, origin, set)?;
        Ok(e)
    }

    fn validate(
        &self,
        doc: &toml_edit::Document<&str>,
        src: &str,
        origin: &Origin,
        set: &[&str],
    ) -> Result<()> {
        let err = |field: &str, message: String| super::field_error(src, origin, field, message);
        // Every field the file sets cites where it comes from.
        let mut leaves = Vec::new();
        collect_leaves(doc.as_table(), "", &mut leaves);
        for path in &leaves {
            let root = path.split('.').next().unwrap_or("");
            if matches!(root, "id" | "name" | "summary" | "version" | "sources") {
                continue;
            }
            if !self.sources.contains_key(path) && !set.contains(&path.as_str()) {
                return Err(err(
                    path,
                    format!(
                        "`{path}` has no source; add `\"{path}\" = \"...\"` under [sources] (the engine's code or docs, a measurement, or a cited table)"
                    ),
                ));
            }
        }
        for key in self.sources.keys() {
            if !origin.overridden && super::locate_in(doc, key).is_none() {
                return Err(err(
                    "sources",
                    format!("source given for `{key}`, which is not a field of this file"),
                ));
            }
        }
        let frac = |name: &str, v: Option<f64>| -> Result<()> {
            match v {
                Some(x) if !(x > 0.0 && x <= 1.0) => {
                    Err(err(name, format!("{x} is not a fraction in (0, 1]")))
                }
                _ => Ok(()),
            }
        };
        frac(
            "moe.grouped.weight-stream-fraction",
            self.moe.grouped.weight_stream_fraction,
        )?;
        frac(
            "moe.grouped.dequant-stream-fraction",
            self.moe.grouped.dequant_stream_fraction,
        )?;
        frac("attention.peak-fraction", self.attention.peak_fraction)?;
        frac(
            "attention.mla-peak-fraction",
            self.attention.mla_peak_fraction,
        )?;
        frac(
            "attention.flex-peak-fraction",
            self.attention.flex_peak_fraction,
        )?;
        // Device counts the custom all-reduce applies up to: at least one
        // device, and no more than the largest count an input may give.
        for (name, v) in [
            (
                "all-reduce.one-shot-devices",
                self.all_reduce.one_shot_devices,
            ),
            ("all-reduce.max-devices", self.all_reduce.max_devices),
        ] {
            if let Some(n) = v
                && n == 0
            {
                return Err(err(
                    name,
                    "0 devices: give a whole number of at least 1".into(),
                ));
            }
        }
        Ok(())
    }

    /// The grouped dispatch's kernel counts, or an error naming the first
    /// the file leaves out and how to set it.
    pub fn grouped_kernels(&self) -> Result<[f64; 4]> {
        let g = &self.moe.grouped;
        let need = |v: Option<u32>, key: &str| {
            v.map(f64::from).ok_or_else(|| {
                Error::Unsupported(format!(
                    "engine `{}` dispatches experts grouped but has no `moe.grouped.{key}`; set it with --set engine.moe.grouped.{key}=N",
                    self.id
                ))
            })
        };
        Ok([
            need(g.routing_kernels, "routing-kernels")?,
            need(g.permute_kernels, "permute-kernels")?,
            need(g.combine_kernels, "combine-kernels")?,
            need(g.gemm_kernels, "gemm-kernels")?,
        ])
    }

    /// The source of a field, if the file gives one.
    pub fn source(&self, path: &str) -> Option<&str> {
        self.sources.get(path).map(String::as_str)
    }
}

/// Every leaf key path of a table (dotted; nested tables descended).
fn collect_leaves(t: &toml_edit::Table, prefix: &str, out: &mut Vec<String>) {
    for (k, item) in t.iter() {
        let path = if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        };
        match item {
            toml_edit::Item::Table(sub) => collect_leaves(sub, &path, out),
            toml_edit::Item::Value(toml_edit::Value::InlineTable(sub)) => {
                let sub = sub.clone().into_table();
                collect_leaves(&sub, &path, out)
            }
            _ => out.push(path),
        }
    }
}

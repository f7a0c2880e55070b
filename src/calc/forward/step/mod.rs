//! A forward pass as typed per-operation costs (formulas.md, "Serving: a
//! forward pass"). Decode and prefill are both forwards: `batch` sequences,
//! each adding `new` tokens on top of `past` cached ones. Each operation
//! (a projection as a matmul, attention over the cache, the MoE experts the
//! batch touches, the LM head, the embedding gather) carries its FLOPs and
//! the bytes it moves, split by kind; the step sums them and a
//! [`Roof`](crate::calc::roof::Roof) times the sum: the speed of light. Each op
//! also carries its GEMM shapes, its repetitions and the kernels it
//! launches, and the step the elementwise kernels between the matmuls, so
//! that [`price`] can time it operation by operation (`--achievable`).
//! Nothing here reads a report.

mod attention_extra;
pub mod elementwise;
pub mod power_limit;
pub mod price;
mod pricer;
pub mod report;
mod setup;
mod timed;

pub use pricer::pricer;
pub use setup::{Choices, LaunchMode, Setup, W8A8_NOTE, record_precisions, setup};
pub use timed::{Timed, time_step, timed, timed_with};

use crate::calc::matmul;
use crate::calc::model::{self, Params};
use crate::error::Result;
use crate::spec::engine::{AttentionMask, AttentionPath, Dispatch, Engine};
use crate::spec::model::{AttentionKind, Model};

/// What an operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// A weight matmul: activations (M = tokens) against a K x N matrix.
    Matmul,
    /// Attention's score and value products over the KV cache.
    Attention,
    /// A table lookup: one embedding row per token.
    Gather,
    /// An elementwise or reduction kernel between the matmuls (a norm,
    /// rotary embedding, an activation, a residual add, a cast): memory
    /// traffic only, priced by `--achievable` alone.
    Elementwise,
}

/// What the kernels of an op are, for their fixed time (formulas.md,
/// "Achievable: a forward operation by operation", kernel classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelClass {
    /// GEMMs (and their split-K reductions): `kernel-overhead`.
    Gemm,
    /// Row-wise norms.
    Norm,
    /// Pointwise kernels (rotary, activation, casts, adds, a gather).
    Pointwise,
    /// The attention kernel, then cache writes for the rest of the op's
    /// kernels.
    Attention,
}

/// One GEMM of an op's repetition: `groups` independent GEMMs of m x n x k
/// (MoE experts run as groups; a dense projection is one group).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gemm {
    /// Rows of the activations (tokens).
    pub m: u64,
    /// Output columns.
    pub n: u64,
    /// The reduction dimension.
    pub k: u64,
    /// Independent GEMMs of this shape.
    pub groups: f64,
}

/// One operation of a forward pass, repeated `count` times (once per
/// layer, say); its figures are for all repetitions together.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    /// What it computes (`qkv`, `attention`, `lm-head`).
    pub name: &'static str,
    /// Its kind.
    pub kind: OpKind,
    /// Floating-point operations.
    pub flops: f64,
    /// Weight bytes read.
    pub weight_bytes: f64,
    /// KV-cache bytes read.
    pub kv_read_bytes: f64,
    /// KV-cache bytes written (the new tokens' keys and values).
    pub kv_write_bytes: f64,
    /// Activation bytes read and written (inputs and outputs of the op).
    pub activation_bytes: f64,
    /// Repetitions (layers) the figures above add up.
    pub count: f64,
    /// Kernels one repetition launches (the per-operation model's count).
    pub kernels: f64,
    /// The GEMMs of one repetition, in order (a feed-forward has gate/up
    /// then down); none for attention and lookups.
    pub gemms: [Option<Gemm>; 2],
    /// What its kernels are.
    pub class: KernelClass,
    /// Device-to-device copies one repetition makes inside its calls, not
    /// counted among its kernels: a 16-bit projection that folds the
    /// residual in (`addmm`) copies the residual into its output first.
    pub copies: f64,
    /// Bytes each of those copies reads and writes together.
    pub copy_bytes: f64,
    /// Kernels among the op's that take PyTorch's strided (non-vectorized)
    /// elementwise path, all repetitions: priced at the slower of their
    /// bytes and their elements at `achievable.strided-element`.
    pub strided: [Option<Strided>; 2],
    /// Elements the op adds back through a scatter-add (all repetitions):
    /// priced at the slower of their bytes and their elements at
    /// `achievable.scatter-add-element`.
    pub scatter: Option<Strided>,
    /// The op's GEMMs each run as ONE grouped kernel over their groups
    /// (an engine's grouped expert dispatch), at this share of the
    /// bandwidth for their memory terms; `None`: one kernel a group.
    pub grouped: Option<GroupedGemm>,
    /// MLA's absorbed attention as batched GEMMs over an odd key count:
    /// the two latent GEMMs run misaligned kernels (formulas.md, "MLA
    /// decode, absorbed", odd key counts).
    pub latent_odd: Option<LatentOdd>,
    /// Launched eagerly, the host's path of one repetition's own call as
    /// measured whole (a compiled call, or a run of small ops), seconds, in
    /// place of its class's figure: for attention its attention call (its
    /// cache writes keep the kernel figure), for another op all its calls.
    pub host_call_s: Option<f64>,
}

/// The latent GEMMs of MLA's absorbed attention over an odd key count, all
/// repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatentOdd {
    /// The scores GEMM's FLOPs (queries x (latent + rotary) x keys).
    pub scores_flops: f64,
    /// The values GEMM's FLOPs (scores x the latent's r columns).
    pub values_flops: f64,
    /// Score elements of one repetition (sequences x heads x new tokens x
    /// keys): cuBLAS chooses its kernel by the size.
    pub elements: f64,
}

/// A grouped GEMM's figures (formulas.md, "Engines: how a profile turns
/// into kernels", grouped experts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupedGemm {
    /// The share of the achievable bandwidth its memory terms run at.
    pub stream_fraction: f64,
    /// Whether the kernel is PyTorch's grouped GEMM (the engine carries a
    /// `weight-stream-fraction` measured for it), so that a part's own
    /// `achievable.grouped-gemm` figures take the place of the engine's.
    pub part_figures: bool,
    /// Where its weights are in a format whose math the device may lack
    /// (`weight-formats.routed-experts`, e.g. mxfp4): that format's compute
    /// precision and the engine's share for a kernel that dequantizes them
    /// as it loads them (`moe.grouped.dequant-stream-fraction`), used in
    /// place of `stream_fraction` on a device without that math.
    pub dequant: Option<(&'static str, f64)>,
}

/// One kernel kind of an elementwise op on the strided path: the elements
/// it computes and the bytes it moves, all repetitions (the bytes are
/// among the op's `activation_bytes`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Strided {
    /// Elements computed (each one's offset worked out).
    pub elements: f64,
    /// Bytes read and written.
    pub bytes: f64,
}

impl Op {
    /// A weight matmul of `tokens` rows against a `k` x `n` matrix repeated
    /// `count` times: FLOPs from [`matmul::flops`], the weights read once
    /// per repetition, the input read and the output written once.
    pub fn matmul(
        name: &'static str,
        tokens: u64,
        n: u64,
        k: u64,
        count: f64,
        p: &Precisions,
    ) -> Op {
        Op {
            name,
            kind: OpKind::Matmul,
            flops: matmul::flops(tokens, n, k) * count,
            weight_bytes: k as f64 * n as f64 * p.weight * count,
            kv_read_bytes: 0.0,
            kv_write_bytes: 0.0,
            activation_bytes: (tokens as f64) * (k + n) as f64 * p.activation * count,
            count,
            kernels: 1.0,
            gemms: [
                Some(Gemm {
                    m: tokens,
                    n,
                    k,
                    groups: 1.0,
                }),
                None,
            ],
            class: KernelClass::Gemm,
            copies: 0.0,
            copy_bytes: 0.0,
            strided: [None, None],
            scatter: None,
            grouped: None,
            latent_odd: None,
            host_call_s: None,
        }
    }

    /// The projection with the residual folded into its output (`addmm`):
    /// with 16-bit activations the call first copies the residual (tokens x
    /// n) into its output, one device-to-device copy a repetition (the
    /// profiler counted two a dense layer in bf16, none in fp8, whose
    /// residual adds are kernels of their own: validation/kernel_classes.py).
    fn with_residual(mut self, tokens: u64, n: u64, p: &Precisions) -> Op {
        if p.activation >= 2.0 - 1e-9 {
            self.copies = 1.0;
            self.copy_bytes = 2.0 * tokens as f64 * n as f64 * p.activation;
        }
        self
    }

    /// An op with no GEMM: memory traffic (and attention's FLOPs).
    pub fn plain(name: &'static str, kind: OpKind, count: f64, kernels: f64) -> Op {
        Op {
            name,
            kind,
            flops: 0.0,
            weight_bytes: 0.0,
            kv_read_bytes: 0.0,
            kv_write_bytes: 0.0,
            activation_bytes: 0.0,
            count,
            kernels,
            gemms: [None, None],
            class: match kind {
                OpKind::Matmul => KernelClass::Gemm,
                OpKind::Attention => KernelClass::Attention,
                OpKind::Gather | OpKind::Elementwise => KernelClass::Pointwise,
            },
            copies: 0.0,
            copy_bytes: 0.0,
            strided: [None, None],
            scatter: None,
            grouped: None,
            latent_odd: None,
            host_call_s: None,
        }
    }

    /// Elements the op computes on the strided elementwise path.
    pub fn strided_elements(&self) -> f64 {
        self.strided.iter().flatten().map(|s| s.elements).sum()
    }

    /// Every byte the op moves.
    pub fn bytes(&self) -> f64 {
        self.weight_bytes + self.kv_read_bytes + self.kv_write_bytes + self.activation_bytes
    }
}

/// Bytes per element of each kind of tensor.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Precisions {
    /// Weights (block scales included).
    pub weight: f64,
    /// Activations.
    pub activation: f64,
    /// KV cache (scales and zero points included).
    pub kv: f64,
}

/// The shape of a forward pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// Sequences.
    pub batch: u64,
    /// New tokens per sequence (1 for plain decode, g+1 to verify a
    /// speculative draft, the prompt or a chunk of it for prefill).
    pub new: u64,
    /// Tokens already cached per sequence (before this pass).
    pub past: u64,
    /// Tokens per sequence the LM head runs on (every new token in decode;
    /// the last one in prefill).
    pub lm_head_tokens: u64,
}

/// A forward pass: its operations and their sums.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The operations, in the order a layer runs them.
    pub ops: Vec<Op>,
    /// Expected distinct routed experts one MoE layer reads (MoE only).
    pub experts_touched: Option<f64>,
    /// Kernels launched, from the layer structure.
    pub kernels: f64,
    /// KV bytes per token, all layers.
    pub kv_bytes_per_token: f64,
    /// Tokens of cache each sequence reads (a sliding window caps it).
    pub cached_tokens: u64,
    /// The elementwise kernels between the matmuls (norms, rotary, the
    /// activation, residual adds, casts): left out of the speed of light,
    /// which takes them as fused away; `--achievable` prices them.
    pub extra: Vec<Op>,
    /// The shape the step was built for.
    pub shape: Shape,
    /// Query heads the device's attention runs (the model's, divided by
    /// tensor parallelism): with the batch and the query tiles they make
    /// the attention kernel's grid.
    pub heads: f64,
    /// Key-value heads the device's attention reads (divided likewise): a
    /// decode attention kernel's grid is batch x these.
    pub kv_heads: f64,
    /// How a pass of several new tokens over a cache masks its queries
    /// (the engine's `attention.mask`): it chooses the kernel.
    pub mask: AttentionMask,
    /// MLA's absorbed attention on the flash path over a cache, where the
    /// engine names its kernel: (rows a CTA computes, share of the
    /// attention rate per padded FLOP) (formulas.md, "MLA decode,
    /// absorbed").
    pub mla_kernel: Option<(u64, f64)>,
    /// FlexAttention's time per FLOP over the attention rate (the `flex`
    /// path, a pass of several new tokens): 1 / its efficiency, weighted
    /// over the layer kinds.
    pub flex: Option<f64>,
}

/// Each op's weight bytes, for a derivation: `embedding 16.4 KB + qkv ...`.
pub fn describe_weights(s: &Step) -> String {
    s.ops
        .iter()
        .filter(|o| o.weight_bytes > 0.0)
        .map(|o| format!("{} {}", o.name, crate::units::si(o.weight_bytes, "B")))
        .collect::<Vec<_>>()
        .join(" + ")
}

impl Step {
    /// Total FLOPs.
    pub fn flops(&self) -> f64 {
        self.ops.iter().map(|o| o.flops).sum()
    }
    /// Total bytes moved.
    pub fn bytes(&self) -> f64 {
        self.ops.iter().map(Op::bytes).sum()
    }
    /// Weight bytes read (gathered embedding rows included).
    pub fn weight_bytes(&self) -> f64 {
        self.ops.iter().map(|o| o.weight_bytes).sum()
    }
    /// KV-cache bytes read.
    pub fn kv_read_bytes(&self) -> f64 {
        self.ops.iter().map(|o| o.kv_read_bytes).sum()
    }
    /// KV-cache bytes written.
    pub fn kv_write_bytes(&self) -> f64 {
        self.ops.iter().map(|o| o.kv_write_bytes).sum()
    }
    /// Activation bytes.
    pub fn activation_bytes(&self) -> f64 {
        self.ops.iter().map(|o| o.activation_bytes).sum()
    }
    /// Kernels the per-operation model counts: every op's and every
    /// elementwise kernel's, over their repetitions.
    pub fn achievable_kernels(&self) -> f64 {
        self.ops
            .iter()
            .chain(&self.extra)
            .map(|o| o.kernels * o.count)
            .sum()
    }
    /// The FLOPs of the ops of one kind.
    pub fn flops_of(&self, kind: OpKind) -> f64 {
        self.ops
            .iter()
            .filter(|o| o.kind == kind)
            .map(|o| o.flops)
            .sum()
    }
}

/// Kernels of one dense layer in an unfused forward: input norm, QKV
/// projection, rotary embedding, KV-cache write, attention, output
/// projection, residual add, norm, gate and up projections, activation,
/// down projection, residual add (004 "launch overhead": about a dozen).
pub const KERNELS_PER_DENSE_LAYER: u64 = 12;
/// Kernels of one MoE layer: the dense layer's 12 less its 3 FFN kernels,
/// plus router matmul, top-k, permute, grouped gate/up, activation,
/// grouped down and combine.
pub const KERNELS_PER_MOE_LAYER: u64 = 16;
/// A shared expert's gate/up, activation and down.
pub const KERNELS_PER_SHARED_EXPERT: u64 = 3;
/// Embedding gather, final norm, LM head and sampling.
pub const KERNELS_OUTSIDE_LAYERS: u64 = 4;

/// The LM head's op name: a weight-quantized forward's per-operation model
/// prices it at 16 bits (formulas.md, "Achievable: a forward operation by
/// operation", the LM head).
pub const LM_HEAD: &str = "lm-head";

/// Kernels of attention in the per-operation model: the attention kernel
/// and the two cache writes (keys and values).
pub const ATTENTION_KERNELS: f64 = 3.0;
/// Kernels of one MoE layer's routing outside the experts, as a PyTorch
/// forward runs it: top-k, softmax of the picked logits, the zeroed output
/// and the residual add.
pub const MOE_ROUTING_KERNELS: f64 = 4.0;
/// Kernels per touched expert in a PyTorch forward that loops over the
/// experts: gather its rows, gate/up, SiLU, times up, down, gather the
/// routing weights, scale, scatter-add back. A grouped-GEMM engine launches
/// fewer; `--kernels` overrides the total. Each pays the fixed time of a
/// GEMM call (`routed-experts`): the small-index gather and scatter-add
/// kernels PyTorch runs at a few rows an expert take 2 to 6 us
/// (validation/results/2026-12-02-h200/h200-moe-prefill-ops.json, decode); the activation's and
/// the dispatch's bytes are `expert-activation`'s and `expert-dispatch`'s.
pub const KERNELS_PER_TOUCHED_EXPERT: f64 = 8.0;

/// A feed-forward's GEMMs: gate and up fused (or up alone when not gated),
/// then down, over `groups` experts of `rows` rows each.
fn ffn_gemms(rows: u64, d: u64, ff: u64, mats: u64, groups: f64) -> [Option<Gemm>; 2] {
    [
        Some(Gemm {
            m: rows,
            n: (mats - 1) * ff,
            k: d,
            groups,
        }),
        Some(Gemm {
            m: rows,
            n: d,
            k: ff,
            groups,
        }),
    ]
}

/// Kernels per forward from the layer structure.
/// Counted in f64: a file's counts (up to 2^53 each) multiply past 64 bits.
pub fn kernels(m: &Model) -> f64 {
    let layers = m.layers.get() as f64;
    let per_moe = |moe: &crate::spec::model::Moe| {
        KERNELS_PER_MOE_LAYER as f64 + KERNELS_PER_SHARED_EXPERT as f64 * moe.shared_experts as f64
    };
    let body = match &m.moe {
        None => layers * KERNELS_PER_DENSE_LAYER as f64,
        Some(moe) => {
            let dense = m.dense_ffn_layers() as f64;
            dense * KERNELS_PER_DENSE_LAYER as f64 + (layers - dense) * per_moe(moe)
        }
    };
    body + KERNELS_OUTSIDE_LAYERS as f64
}

/// Expected distinct experts `tokens` tokens touch when each picks `k` of
/// `e` uniformly at random: e x (1 - (1 - k/e)^tokens) (formulas.md,
/// "Serving: MoE experts touched"). Real routers are not uniform; this is
/// the assumption the reports state.
pub fn experts_touched(e: u64, k: u64, tokens: u64) -> f64 {
    let e = e as f64;
    let miss = 1.0 - k as f64 / e;
    e * (1.0 - miss.powf(tokens as f64))
}

/// Query-key pairs of one sequence's attention when `new` tokens join
/// `past` cached ones under a causal mask: new x past + new (new + 1) / 2.
pub fn causal_pairs(new: u64, past: u64) -> f64 {
    let n = new as f64;
    n * past as f64 + n * (n + 1.0) / 2.0
}

/// The forward pass of `m` at `shape` and precisions `p`, as the default
/// engine runs it (a plain PyTorch forward, experts in a loop).
pub fn forward(m: &Model, shape: Shape, p: &Precisions) -> Result<Step> {
    forward_with(m, shape, p, || model::params(m))
}

/// [`forward`], with the model's parameter counts from `params` (a sweep
/// counts them once, not at every point).
pub fn forward_with(
    m: &Model,
    shape: Shape,
    p: &Precisions,
    params: impl FnOnce() -> Result<Params>,
) -> Result<Step> {
    forward_on(m, shape, p, plain_engine(), params)
}

/// The compute precision of the routed experts' own 4-bit format
/// (`weight-formats.routed-experts`), the weights a grouped kernel may
/// have to dequantize on a device without that math (formulas.md,
/// "Engines: how a profile turns into kernels", grouped experts).
fn dequant_format(m: &Model) -> Option<&'static str> {
    let f = m.weight_formats.get("routed-experts")?;
    let p = crate::precision::lookup(f).ok()?;
    (p.bits < 8.0 && p.compute != "bf16").then_some(p.compute)
}

/// The engine [`forward`] runs on: nothing fused beyond QKV, experts in a
/// loop ([`Engine::default`]).
pub fn plain_engine() -> &'static Engine {
    static PLAIN: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    PLAIN.get_or_init(Engine::default)
}

/// The forward pass of `m` at `shape` as engine `e` runs it: which
/// operations its kernels fuse and how it dispatches experts (formulas.md,
/// "Engines: how a profile turns into kernels").
pub fn forward_engine(m: &Model, shape: Shape, p: &Precisions, e: &Engine) -> Result<Step> {
    forward_on(m, shape, p, e, || model::params(m))
}

/// [`forward_engine`], with the model's parameter counts from `params`.
pub fn forward_on(
    m: &Model,
    shape: Shape,
    p: &Precisions,
    eng: &Engine,
    params: impl FnOnce() -> Result<Params>,
) -> Result<Step> {
    let Shape {
        batch,
        new,
        past,
        lm_head_tokens,
    } = shape;
    let tokens = crate::inputs::mul("batch", &[batch, new])?;
    let params: Params = params()?;
    let d = m.hidden_size.get();
    let layers = m.layers.get();
    let lf = layers as f64;
    let a = &m.attention;
    let h = a.heads.get();
    let mut ops = Vec::with_capacity(12);

    // Embedding: one row gathered per token, not the table streamed. A row
    // two tokens share is read once, so a step reads at most the whole
    // table however large the batch (weights are read once per step).
    let rows = tokens.min(m.vocab_size.get());
    ops.push(Op {
        weight_bytes: rows as f64 * d as f64 * p.weight,
        activation_bytes: tokens as f64 * d as f64 * p.activation,
        ..Op::plain("embedding", OpKind::Gather, 1.0, 1.0)
    });

    // Attention projections as matmuls. MLA's down and up projections are
    // counted by their parameters (a matmul of that many weights).
    let attn_params = params.attention as f64 / lf;
    if a.kind == AttentionKind::Mla {
        let n = (attn_params / d as f64).round() as u64;
        ops.push(Op::matmul(
            "attention-projections",
            tokens,
            n.max(1),
            d,
            lf,
            p,
        ));
    } else {
        let dh = m.head_dim();
        let kv = m.kv_heads();
        if eng.fusion.qkv {
            ops.push(Op::matmul("qkv", tokens, (h + 2 * kv) * dh, d, lf, p));
        } else {
            // q, then k and v as two GEMMs of one shape.
            ops.push(Op::matmul("q", tokens, h * dh, d, lf, p));
            let mut kv_op = Op::matmul("kv", tokens, 2 * kv * dh, d, lf, p);
            kv_op.gemms[0] = Some(Gemm {
                m: tokens,
                n: kv * dh,
                k: d,
                groups: 2.0,
            });
            kv_op.kernels = 2.0;
            ops.push(kv_op);
        }
        let o = Op::matmul("o", tokens, d, h * dh, lf, p);
        // An engine that adds the residual inside the next norm does not
        // fold it into the projection.
        ops.push(if eng.fusion.norm_residual {
            o
        } else {
            o.with_residual(tokens, d, p)
        });
    }

    // Attention over the cache: scores (QK^T) and values (PV).
    let (qk_dim, v_dim) = if a.kind == AttentionKind::Mla {
        let r = a.kv_lora_rank.map_or(0, |x| x.get());
        let rope = a.qk_rope_head_dim.map_or(0, |x| x.get());
        (r + rope, r)
    } else {
        (m.head_dim(), m.head_dim())
    };
    let kv_token_layer = model::kv_elements_per_token_per_layer(m)? as f64 * p.kv;
    // A sliding window caps a windowed layer's span at the window; with
    // layer-types the full layers read every token (the mean of the two).
    let win = m.window();
    let seen_mean = win.seen(past);
    let seen = seen_mean.round() as u64;
    let pairs = win.pairs(new, past, causal_pairs);
    let attn_flops = 2.0 * h as f64 * (qk_dim + v_dim) as f64 * pairs * batch as f64 * lf
        + attention_extra::sink_flops(m, tokens);
    // One attention kernel and the two cache writes (keys, values), or one
    // where the engine writes both in one kernel.
    let attention_kernels = ATTENTION_KERNELS - if eng.fusion.kv_write { 1.0 } else { 0.0 };
    let mut attention = Op {
        flops: attn_flops,
        kv_read_bytes: batch as f64 * seen_mean * kv_token_layer * lf,
        kv_write_bytes: tokens as f64 * kv_token_layer * lf,
        activation_bytes: tokens as f64 * h as f64 * (qk_dim + v_dim) as f64 * p.activation * lf,
        ..Op::plain("attention", OpKind::Attention, lf, attention_kernels)
    };
    // The engine's attention path: written-out scores move the score
    // matrix and the copied keys and values, and launch the kernels
    // between the two GEMMs (formulas.md, "Engines: attention paths").
    let mut eager_between = None;
    if eng.attention.path == AttentionPath::Eager
        && let Some(e) = attention_extra::eager(m, batch, new, seen_mean, kv_token_layer, p)
    {
        attention.flops = e.flops + attention_extra::sink_flops(m, tokens);
        attention.activation_bytes += e.gemm_bytes;
        attention.kernels += e.gemm_kernels;
        attention.latent_odd = e.latent_odd;
        eager_between = Some(e.between);
    }
    // FlexAttention (a pass of several new tokens): every tile the block
    // mask marks, at the flex kernel's efficiency for its span.
    let mut flex = None;
    if eng.attention.path == AttentionPath::Flex && new > 1 && a.kind != AttentionKind::Mla {
        let f = attention_extra::flex(m, batch, new, past, eng, p)?;
        attention.flops = f.flops + attention_extra::sink_flops(m, tokens);
        attention.host_call_s = f.call_host_s;
        flex = Some(f.per_flop);
        eager_between = Some(f.between);
    }
    ops.push(attention);

    // Feed-forward: dense layers, then MoE layers.
    let mats: u64 = if m.ffn.gated() { 3 } else { 2 };
    let mut experts = None;
    let mut bias_between = None;
    let (dense_layers, moe) = (m.dense_ffn_layers(), m.moe.as_ref());
    if dense_layers > 0 {
        let ff = m.ffn.intermediate_size.get();
        ops.push(Op::matmul(
            "ffn",
            tokens,
            mats * ff,
            d,
            dense_layers as f64,
            p,
        ));
        // One matmul of mats x ff columns: gate, up and down together; run
        // as two GEMMs (gate and up fused, then down).
        if let Some(o) = ops.last_mut() {
            o.activation_bytes =
                tokens as f64 * (2 * d + mats * ff) as f64 * p.activation * dense_layers as f64;
            o.gemms = ffn_gemms(tokens, d, ff, mats, 1.0);
            o.kernels = 2.0;
            // Its down projection folds the residual in (unless the
            // engine adds it inside the next norm).
            if !eng.fusion.norm_residual {
                *o = o.clone().with_residual(tokens, d, p);
            }
        }
    }
    if let Some(moe) = moe {
        let moe_layers = m.moe_layers() as f64;
        let e = moe.routed_experts.get();
        let k = moe.experts_per_token.get();
        let ff = moe.expert_intermediate_size.get();
        let expert_params = (mats * d * ff) as f64;
        ops.push(Op::matmul("router", tokens, e, d, moe_layers, p));
        if moe.shared_experts > 0 {
            let s = moe.shared_experts;
            ops.push(Op::matmul(
                "shared-experts",
                tokens,
                s * mats * ff,
                d,
                moe_layers,
                p,
            ));
            if let Some(o) = ops.last_mut() {
                o.gemms = ffn_gemms(tokens, d, s * ff, mats, 1.0);
                o.kernels = 2.0;
            }
        }
        let touched = experts_touched(e, k, tokens);
        experts = Some(touched);
        // Each touched expert runs its rows (tokens x k spread over the
        // touched experts) as a GEMM group of its own.
        let rows = ((tokens as f64 * k as f64) / touched.max(1.0)).ceil() as u64;
        let grouped = eng.moe.dispatch == Dispatch::Grouped;
        // A grouped dispatch runs each GEMM once over every touched
        // expert: two kernels a layer here; its routing, permute and
        // combine kernels are `expert-dispatch`'s.
        let kernels = if grouped {
            eng.grouped_kernels()?;
            2.0
        } else {
            MOE_ROUTING_KERNELS + KERNELS_PER_TOUCHED_EXPERT * touched
        };
        ops.push(Op {
            grouped: grouped.then(|| GroupedGemm {
                stream_fraction: eng.moe.grouped.weight_stream_fraction.unwrap_or(1.0),
                part_figures: eng.moe.grouped.weight_stream_fraction.is_some(),
                dequant: dequant_format(m).zip(eng.moe.grouped.dequant_stream_fraction),
            }),
            flops: 2.0 * tokens as f64 * k as f64 * expert_params * moe_layers,
            weight_bytes: touched * expert_params * p.weight * moe_layers,
            activation_bytes: tokens as f64
                * k as f64
                * (2 * d + mats * ff) as f64
                * p.activation
                * moe_layers,
            gemms: ffn_gemms(rows.max(1), d, ff, mats, touched.max(1.0)),
            ..Op::plain("routed-experts", OpKind::Matmul, moe_layers, kernels)
        });
        if moe.expert_bias {
            let (bias, between) = attention_extra::expert_bias(
                tokens, k, touched, d, ff, mats, moe_layers, grouped, p,
            );
            ops.push(bias);
            bias_between = between;
        }
    }

    // Norms: their weights are read (tiny), their FLOPs negligible.
    // Their kernels are among the elementwise ones (`extra`).
    ops.push(Op {
        weight_bytes: params.norms as f64 * p.weight,
        ..Op::plain("norms", OpKind::Gather, 1.0, 0.0)
    });

    // LM head: a full matmul over the vocabulary for every token that
    // samples (tied or not, the whole matrix is read).
    if lm_head_tokens > 0 {
        let head_tokens = crate::inputs::mul("batch", &[batch, lm_head_tokens])?;
        ops.push(Op::matmul(
            LM_HEAD,
            head_tokens,
            m.vocab_size.get(),
            d,
            1.0,
            p,
        ));
    }

    let mut extra = elementwise::kernels_between_on(m, shape, tokens, p, eng)?;
    extra.extend(attention_extra::qk_norm(m, tokens, eng));
    extra.extend(eager_between);
    extra.extend(bias_between);
    // An explicit mask tensor over a cached prefix: PyTorch turns it into
    // the kernel's bias (3 kernels and a copy a layer beyond the lower-right
    // bias's, torch.profiler in validation/results/2026-12-07-h100-families/
    // multitoken-log.txt: 760 kernels and 110 copies against 652 and 74 over
    // 36 layers). The copy's bytes were not measured; its fixed time is
    // priced.
    if eng.attention.mask == AttentionMask::Tensor && new > 1 && past > 0 {
        extra.push(Op {
            class: KernelClass::Pointwise,
            copies: 1.0,
            ..Op::plain(
                "attention-mask",
                OpKind::Elementwise,
                lf,
                MASK_TENSOR_KERNELS,
            )
        });
    }
    attention_extra::apply_formats(m, &mut ops, p);
    Ok(Step {
        ops,
        experts_touched: experts,
        kernels: kernels(m),
        kv_bytes_per_token: kv_token_layer * lf,
        cached_tokens: seen,
        extra,
        shape,
        heads: h as f64,
        kv_heads: m.kv_heads() as f64,
        mask: eng.attention.mask,
        mla_kernel: match (
            a.kind,
            eng.attention.path,
            eng.attention.mla_query_tile,
            eng.attention.mla_peak_fraction,
        ) {
            (AttentionKind::Mla, AttentionPath::Flash, Some(t), Some(f)) => Some((t.get(), f)),
            _ => None,
        },
        flex,
    })
}

/// Kernels a layer an explicit attention mask tensor adds to a pass over a
/// cached prefix (see `forward_on`).
pub const MASK_TENSOR_KERNELS: f64 = 3.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn experts_touched_limits() {
        // Mixtral at batch 4: about 5.5 of 8 experts (issue 9).
        let x = experts_touched(8, 2, 4);
        assert!((x - 5.47).abs() < 0.01, "{x}");
        assert!((experts_touched(256, 8, 1) - 8.0).abs() < 1e-9);
        assert!(experts_touched(256, 8, 100_000) > 255.99);
    }

    #[test]
    fn a_window_caps_a_prefill_s_pairs() {
        // By hand: 4,096 new tokens, no cache, a 128-token window: the
        // first 128 queries see 1..128 keys (8,256 pairs), the other 3,968
        // see 128 each (507,904): 516,160.
        let w = crate::spec::model::Window {
            tokens: 128,
            share: 1.0,
        };
        assert_eq!(w.pairs(4096, 0, causal_pairs), 516_160.0);
        // 10 new after 120 cached: 8 queries see 121..128 keys (996), 2
        // see 128 (256).
        assert_eq!(w.pairs(10, 120, causal_pairs), 1252.0);
        // A cache past the window: every query sees the window.
        assert_eq!(w.pairs(4, 500, causal_pairs), 512.0);
        assert_eq!(w.pairs(1, 50, causal_pairs), 51.0);
    }

    #[test]
    fn causal_pairs_half_square() {
        assert_eq!(causal_pairs(4, 0), 10.0);
        assert_eq!(causal_pairs(1, 100), 101.0);
    }
}

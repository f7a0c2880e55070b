//! `kv`: the KV cache of a model at a context and a batch, per token, per
//! layer, per sequence and in total; quantized caches with their scale
//! overhead (KIVI); paged and contiguous allocation waste; and, given a
//! device, how many sequences or tokens fit beside the weights
//! (formulas.md, "Serving: KV cache"; 004 "KV cache"; 000 §4.1, §4.2).

use crate::error::{Error, Result};
use crate::inputs::{Count, Tokens, at_least_one, mul};
use crate::precision::{self, Precision};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::Hardware;
use crate::spec::model::Model;
use crate::units::{self, grouped, si};
use serde::{Deserialize, Serialize};

/// A precision the KV cache can be stored in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KvPrecision {
    /// The name typed on the command line.
    pub name: &'static str,
    /// Bits of one element's value.
    pub data_bits: f64,
    /// Elements sharing one fp16 scale and one fp16 zero point (KIVI's
    /// asymmetric integer quantization); none for float formats.
    pub group: Option<u64>,
    /// How it is laid out, for reports.
    pub layout: &'static str,
}

/// KIVI's group: 32 elements share an fp16 scale and an fp16 zero point
/// (keys grouped per channel, values per token; 000 §4.2).
pub const KIVI_GROUP: u64 = 32;

/// The KV precisions the commands model.
pub const KV_PRECISIONS: &[KvPrecision] = &[
    KvPrecision {
        name: "fp32",
        data_bits: 32.0,
        group: None,
        layout: "IEEE binary32",
    },
    KvPrecision {
        name: "bf16",
        data_bits: 16.0,
        group: None,
        layout: "bf16, no scales",
    },
    KvPrecision {
        name: "fp16",
        data_bits: 16.0,
        group: None,
        layout: "fp16, no scales",
    },
    KvPrecision {
        name: "fp8",
        data_bits: 8.0,
        group: None,
        layout: "E4M3 with a per-tensor scale (negligible)",
    },
    KvPrecision {
        name: "int8",
        data_bits: 8.0,
        group: Some(KIVI_GROUP),
        layout: "8-bit integers, an fp16 scale and zero point per 32 elements",
    },
    KvPrecision {
        name: "int4",
        data_bits: 4.0,
        group: Some(KIVI_GROUP),
        layout: "4-bit integers, an fp16 scale and zero point per 32 elements",
    },
    KvPrecision {
        name: "int2",
        data_bits: 2.0,
        group: Some(KIVI_GROUP),
        layout: "2-bit integers (KIVI), an fp16 scale and zero point per 32 elements",
    },
];

impl KvPrecision {
    /// Bits per element with the scale and zero point spread over the
    /// group: data + 2 x 16 / group.
    pub fn bits(&self) -> f64 {
        self.data_bits + self.group.map_or(0.0, |g| 32.0 / g as f64)
    }
    /// Bytes per element, overhead included.
    pub fn bytes(&self) -> f64 {
        self.bits() / 8.0
    }
}

/// Other names of KV precisions (alias, name); no alias is itself a name.
const KV_ALIASES: [(&str, &str); 7] = [
    ("e4m3", "fp8"),
    ("e5m2", "fp8"),
    ("fp8-e4m3", "fp8"),
    ("fp8-e5m2", "fp8"),
    ("bfloat16", "bf16"),
    ("float16", "fp16"),
    ("half", "fp16"),
];

/// Looks a KV precision up; an error names the field and lists the ones
/// modelled.
pub fn kv_precision(name: &str) -> Result<&'static KvPrecision> {
    // The registry's own spelling needs no alias (none is a registry name).
    if let Some(p) = KV_PRECISIONS.iter().find(|p| p.name == name) {
        return Ok(p);
    }
    let n = crate::precision::canonical(name, &KV_ALIASES);
    KV_PRECISIONS
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(n))
        .ok_or_else(|| {
            let known: Vec<&str> = KV_PRECISIONS.iter().map(|p| p.name).collect();
            Error::field(
                "kv-dtype",
                format!(
                    "the KV cache cannot be modelled in `{name}`; it takes {}",
                    known.join(", ")
                ),
            )
        })
}

/// A share given as `10%` or `0.1`.
pub fn parse_share(field: &str, v: &serde_json::Value) -> Result<f64> {
    let x = match v {
        serde_json::Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        serde_json::Value::String(s) => {
            let t = s.trim();
            match t.strip_suffix('%') {
                Some(p) => p
                    .trim()
                    .parse::<f64>()
                    .map(|x| x / 100.0)
                    .unwrap_or(f64::NAN),
                None => t.parse::<f64>().unwrap_or(f64::NAN),
            }
        }
        _ => f64::NAN,
    };
    let shown = || {
        crate::units::excerpt(
            &v.as_str().map_or_else(|| v.to_string(), str::to_string),
            40,
        )
    };
    if !x.is_finite() || !(0.0..1.0).contains(&x) {
        return Err(Error::field(
            field,
            format!(
                "`{}` is not a share from 0 up to (not including) 100%; give e.g. 10% or 0.1",
                shown()
            ),
        ));
    }
    // A subnormal share is a slip (every product with it rounds away).
    if !crate::units::usable(x) {
        return Err(Error::field(
            field,
            format!(
                "`{}` is too small to compute with (below 2.2e-308, the smallest normal double); give 0 for none",
                shown()
            ),
        ));
    }
    Ok(x)
}

/// `kv`'s inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct KvInputs {
    /// Tokens per sequence.
    pub context: Tokens,
    /// Sequences (default 1).
    pub batch: Option<Count>,
    /// KV precision (default bf16).
    pub kv_dtype: Option<String>,
    /// Weight precision, for the fit beside the weights (default: the
    /// hardware's default-dtype, else bf16).
    pub dtype: Option<String>,
    /// Share of device memory held back for activations and the runtime
    /// (default 10%).
    pub reserve: Option<serde_json::Value>,
    /// Tokens per KV page (paged allocation).
    pub page: Option<Count>,
    /// Tokens a contiguous allocator reserves per sequence (its maximum
    /// length), to compare with paging.
    pub reserved: Option<Count>,
    /// Allow a context beyond the model's maximum.
    #[serde(default)]
    pub force: bool,
    /// Tensor-parallel ranks the model is split over, for the fit: each
    /// device holds its share of the weights and of the KV heads
    /// (default 1).
    #[serde(default)]
    pub tp: Option<Count>,
}

/// Share of a model's KV cache one of `tp` tensor-parallel ranks holds:
/// ceil(kv heads / tp) of the kv heads (a rank holds at least one head, so
/// beyond the KV heads they are replicated); MLA's latent is shared by all
/// heads, so every rank holds all of it (formulas.md, "Plans", memory).
/// `plan` and `kv --tp` both use it.
pub fn kv_share(m: &Model, tp: u64) -> f64 {
    if m.attention.kind == crate::spec::model::AttentionKind::Mla {
        return 1.0;
    }
    let kv_heads = m.kv_heads();
    kv_heads.div_ceil(tp.max(1)) as f64 / kv_heads as f64
}

/// The default reserve for activations and the runtime.
pub const DEFAULT_RESERVE: f64 = 0.10;

/// Which memory figure a fit used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemorySource {
    /// `memory.usable-capacity`: measured usable memory.
    Usable,
    /// `memory.hbm-capacity`: the datasheet.
    Datasheet,
}

/// The device memory to fit against: usable where the file has it, else
/// the datasheet capacity.
pub fn device_memory(hw: &Hardware) -> Result<(f64, MemorySource)> {
    if let Some(u) = hw.usable_capacity() {
        return Ok((u, MemorySource::Usable));
    }
    hw.memory
        .hbm_capacity
        .map(|c| (c.get(), MemorySource::Datasheet))
        .ok_or_else(|| hw.missing("memory.hbm-capacity", "fitting the KV cache", Some("80 GB")))
}

/// What fits on one device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fit {
    /// The hardware's id.
    pub hardware: String,
    /// Device memory used for the fit.
    pub memory_bytes: f64,
    /// Usable or datasheet.
    pub memory_source: MemorySource,
    /// Share held back.
    pub reserve: f64,
    /// Weight bytes at the weight precision.
    pub weight_bytes: f64,
    /// The weight precision.
    pub dtype: &'static str,
    /// memory x (1 - reserve) - weights, or 0 where the weights alone do
    /// not fit.
    pub kv_budget_bytes: f64,
    /// Tensor-parallel ranks (1: one device).
    pub tp: u64,
    /// Share of the KV cache one device holds ([`kv_share`]).
    pub kv_share: f64,
    /// The batch's KV on one device.
    pub kv_bytes_per_device: f64,
    /// Whether the weights and the batch's KV fit.
    pub fits: bool,
    /// By how much the weights alone exceed the memory less the reserve
    /// (0 where they fit).
    pub weights_over_bytes: f64,
    /// Sequences of `context` tokens that fit.
    pub max_batch: u64,
    /// Tokens per sequence that fit at `batch`.
    pub max_context: u64,
    /// Shared memory per SM, where known.
    pub smem_per_sm: Option<f64>,
    /// L2 capacity, where known.
    pub l2_bytes: Option<f64>,
    /// The memory figure's field and the file's source for it.
    pub memory_field_source: String,
}

/// Every figure `kv` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KvCost {
    /// The model's id.
    pub model: String,
    /// Tokens per sequence.
    pub context: u64,
    /// Tokens cached per sequence per layer (a sliding window caps it; with
    /// layer-types, those of a full layer).
    pub cached_tokens: u64,
    /// Layers whose window caps their cache.
    pub windowed_layers: u64,
    /// Tokens a windowed layer caches per sequence.
    pub window_cached: u64,
    /// Sequences.
    pub batch: u64,
    /// The KV precision.
    pub kv_dtype: KvPrecision,
    /// Elements per token per layer (2 x kv heads x head dim; MLA: latent
    /// + rotary key).
    pub elements_per_token_per_layer: u64,
    /// Layers.
    pub layers: u64,
    /// Bytes per token per layer.
    pub bytes_per_token_per_layer: f64,
    /// Bytes per token, all layers.
    pub bytes_per_token: f64,
    /// One sequence, one layer.
    pub bytes_per_layer_sequence: f64,
    /// One sequence, all layers.
    pub bytes_per_sequence: f64,
    /// The batch.
    pub kv_bytes: f64,
    /// Tokens per page, and the paged figures.
    pub paged: Option<Paged>,
    /// A contiguous reservation's utilisation and waste.
    pub contiguous: Option<(u64, f64)>,
    /// The fit on a device.
    pub fit: Option<Fit>,
    /// Whether the context exceeds the model's maximum (allowed by force).
    pub beyond_max: Option<u64>,
}

/// Paged allocation of one sequence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Paged {
    /// Tokens per page.
    pub page: u64,
    /// Pages per sequence: ceil(cached / page).
    pub pages: u64,
    /// Bytes allocated for the batch.
    pub bytes: f64,
    /// Share of the allocation the last, partly filled page wastes.
    pub waste: f64,
}

/// `kv`'s cost: the cache of `m` under `inputs`, and with `hw` the fit.
pub fn cost(m: &Model, hw: Option<&Hardware>, inputs: &KvInputs) -> Result<KvCost> {
    let context = at_least_one("context", inputs.context.0)?;
    let batch = at_least_one("batch", inputs.batch.map_or(1, |b| b.0))?;
    let beyond_max = check_context(m, context, inputs.force)
        .map_err(|e| crate::inputs::refused_by(CONTEXT_READS, e))?;
    let kv = kv_precision(inputs.kv_dtype.as_deref().unwrap_or("bf16"))?;
    let elements = crate::calc::model::kv_elements_per_token_per_layer(m)?;
    let layers = m.layers.get();
    let cached = m.sliding_window.map_or(context, |w| context.min(w.get()));
    // Windowed layers cache at most the window; with layer-types the
    // others cache every token (formulas.md, "Serving: KV cache").
    let windowed = m.windowed_layers();
    let full = layers - windowed;
    let cached = if windowed == layers { cached } else { context };
    let window_cached = m.sliding_window.map_or(context, |w| context.min(w.get()));
    mul("batch", &[batch, cached, layers, elements])?;
    let per_token_layer = elements as f64 * kv.bytes();
    let per_token = per_token_layer * layers as f64;
    let token_layers = m.cached_token_layers(context);
    let per_seq = per_token_layer * token_layers;
    let per_layer_seq = per_seq / layers as f64;
    let paged = match inputs.page {
        None => None,
        Some(p) => {
            let page = at_least_one("page", p.0)?;
            // Each layer's pages: full layers over the context, windowed
            // ones over the window.
            let full_pages = context.div_ceil(page);
            let win_pages = window_cached.div_ceil(page);
            let pages = if windowed == layers {
                win_pages
            } else {
                full_pages
            };
            let alloc_token_layers = page as f64
                * (full as f64 * full_pages as f64 + windowed as f64 * win_pages as f64);
            Some(Paged {
                page,
                pages,
                bytes: alloc_token_layers * per_token_layer * batch as f64,
                waste: (alloc_token_layers - token_layers) / alloc_token_layers,
            })
        }
    };
    let contiguous = match inputs.reserved {
        None => None,
        Some(r) => {
            let r = at_least_one("reserved", r.0)?;
            if r < context {
                return Err(Error::field(
                    "reserved",
                    format!(
                        "a reservation of {} tokens is shorter than the {}-token context",
                        grouped(u128::from(r)),
                        grouped(u128::from(context))
                    ),
                ));
            }
            Some((r, 1.0 - context as f64 / r as f64))
        }
    };
    if hw.is_none() {
        for (field, given) in [
            ("reserve", inputs.reserve.is_some()),
            ("dtype", inputs.dtype.is_some()),
            ("tp", inputs.tp.is_some()),
        ] {
            if given {
                return Err(Error::field(
                    field,
                    "applies to the fit on a device; give the hardware (`hw`) as well",
                ));
            }
        }
    }
    let fit = match hw {
        None => None,
        Some(hw) => {
            let seq_bytes = paged.map_or(per_seq, |p| p.bytes / batch as f64);
            Some(fit(m, hw, inputs, per_token_layer, seq_bytes, batch)?)
        }
    };
    Ok(KvCost {
        model: m.id.clone(),
        context,
        cached_tokens: cached,
        windowed_layers: windowed,
        window_cached,
        batch,
        kv_dtype: *kv,
        elements_per_token_per_layer: elements,
        layers,
        bytes_per_token_per_layer: per_token_layer,
        bytes_per_token: per_token,
        bytes_per_layer_sequence: per_layer_seq,
        bytes_per_sequence: per_seq,
        kv_bytes: per_seq * batch as f64,
        paged,
        contiguous,
        fit,
        beyond_max,
    })
}

/// What [`check_context`]'s refusal of the `context` field reads: a sweep
/// that varies none of them fails every point alike and says so once.
pub const CONTEXT_READS: &[&str] = &["context", "model", "force"];

/// A context beyond the model's maximum is an error unless forced; with
/// force, the maximum is returned for a note.
pub fn check_context(m: &Model, context: u64, force: bool) -> Result<Option<u64>> {
    match m.max_context {
        Some(max) if context > max.get() => {
            if force {
                Ok(Some(max.get()))
            } else {
                Err(Error::field(
                    "context",
                    format!(
                        "{} tokens is beyond {}'s maximum context of {}; `force` models it anyway",
                        grouped(u128::from(context)),
                        m.id,
                        grouped(u128::from(max.get()))
                    ),
                ))
            }
        }
        _ => Ok(None),
    }
}

/// Notes a forced length beyond the model's maximum ([`check_context`]'s
/// answer): `what` names the length and the maximum, e.g. "context beyond
/// the model's maximum of".
pub fn note_beyond_max(r: &mut Report, beyond_max: Option<u64>, what: &str) {
    if let Some(max) = beyond_max {
        r.note_with(|| format!("{what} {} (forced)", units::whole(max)));
    }
}

/// Device memory less the reserve and the weights: what the KV cache gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Device memory fitted against.
    pub memory_bytes: f64,
    /// Usable or datasheet.
    pub source: MemorySource,
    /// Share held back.
    pub reserve: f64,
    /// The weight precision.
    pub precision: &'static Precision,
    /// Weight bytes.
    pub weight_bytes: f64,
    /// memory x (1 - reserve) - weights.
    pub kv_budget_bytes: f64,
}

/// The weights of `m` at `dtype` on `hw`, and the bytes left for the KV
/// cache after the reserve; a model whose weights alone do not fit is a
/// question with no answer (exit 1) that says by how much.
pub fn budget(
    m: &Model,
    hw: &Hardware,
    dtype: Option<&str>,
    reserve: Option<&serde_json::Value>,
) -> Result<Budget> {
    let b = budget_on(m, hw, dtype, reserve, 1)?;
    let left = b.kv_budget_bytes;
    if left <= 0.0 {
        let available = b.memory_bytes * (1.0 - b.reserve);
        return Err(Error::NoAnswer(format!(
            "{} does not fit on one {}: needs {}, has {}: its weights in {} are {} more than the {} {} less the {}% reserve; split it across devices (`roofline plan`), or use a narrower --dtype",
            m.id,
            hw.id,
            si(b.weight_bytes, "B"),
            si(available, "B"),
            b.precision.name,
            si(-left, "B"),
            match b.source {
                MemorySource::Usable => "usable",
                MemorySource::Datasheet => "datasheet",
            },
            si(b.memory_bytes, "B"),
            units::percent(b.reserve),
        )));
    }
    Ok(b)
}

/// [`budget`] on one of `tp` tensor-parallel ranks (its share of the
/// weights, [`crate::calc::plan::tp_device_bytes`]), answered even where
/// the weights do not fit: then the budget is negative, by how much they
/// exceed the memory less the reserve.
pub fn budget_on(
    m: &Model,
    hw: &Hardware,
    dtype: Option<&str>,
    reserve: Option<&serde_json::Value>,
    tp: u64,
) -> Result<Budget> {
    let (memory, source) = device_memory(hw)?;
    let reserve = match reserve {
        None => DEFAULT_RESERVE,
        Some(v) => parse_share("reserve", v)?,
    };
    // The model's own weight precision (a quantized checkpoint) comes
    // before the hardware's default.
    let dtype = dtype.or(m.weight_dtype.as_deref());
    let p = precision::lookup(dtype.unwrap_or(&hw.default_dtype)).map_err(|_| {
        Error::field(
            "dtype",
            format!("unknown precision `{}`", dtype.unwrap_or("")),
        )
    })?;
    // Each module at its own format where the checkpoint mixes them; a TP
    // rank holds its share of the parameters at the same mix.
    let params = crate::calc::model::params(m)?;
    let split = crate::calc::model::weight_split(m, &params, p.bytes())?;
    let weights = if tp > 1 {
        crate::calc::plan::tp_device_bytes(m, &split, tp)
    } else {
        split.total()
    };
    let available = memory * (1.0 - reserve);
    Ok(Budget {
        memory_bytes: memory,
        source,
        reserve,
        precision: p,
        weight_bytes: weights,
        kv_budget_bytes: available - weights,
    })
}

fn fit(
    m: &Model,
    hw: &Hardware,
    inputs: &KvInputs,
    per_token_layer: f64,
    per_seq: f64,
    batch: u64,
) -> Result<Fit> {
    let tp = inputs.tp.map_or(Ok(1), |t| at_least_one("tp", t.0))?;
    // The split `plan --tp N --pp 1` would make, refused where plan
    // refuses it (heads that do not divide, a group past the domain).
    if tp > 1 {
        use crate::calc::collective::{Fabric, LaunchMode};
        let fabric = Fabric::called(
            hw,
            crate::spec::hardware::Mode::SpeedOfLight,
            LaunchMode::None,
        );
        crate::calc::plan::tensor_parallel(m, &hw.id, fabric.domain(), tp, false)?;
    }
    let b = budget_on(m, hw, inputs.dtype.as_deref(), inputs.reserve.as_ref(), tp)?;
    let (memory, source, reserve, p, weights) = (
        b.memory_bytes,
        b.source,
        b.reserve,
        b.precision,
        b.weight_bytes,
    );
    // Weights that alone exceed the memory leave nothing for the KV: the
    // sizes are still the answer, with what does not fit said (exit 0).
    let weights_over = (-b.kv_budget_bytes).max(0.0);
    let left = b.kv_budget_bytes.max(0.0);
    // Each device holds its share of every sequence's KV heads.
    let share = kv_share(m, tp);
    let per_token_layer = per_token_layer * share;
    let per_seq = per_seq * share;
    let kv_device = per_seq * batch as f64;
    let max_batch = (left / per_seq).floor();
    let layers = m.layers.get() as f64;
    let per_token = per_token_layer * layers;
    let mut max_context = (left / (per_token * batch as f64)).floor();
    if let Some(w) = m.sliding_window {
        let w = w.get() as f64;
        let windowed = m.windowed_layers() as f64;
        let full = layers - windowed;
        if max_context >= w {
            // Past the window the windowed layers stop growing: the full
            // layers alone take the rest; with none, it never runs out.
            let per_seq_budget = left / batch as f64 / per_token_layer;
            max_context = if full > 0.0 {
                ((per_seq_budget - windowed * w) / full).floor()
            } else {
                m.max_context
                    .map_or(f64::from(u32::MAX), |c| c.get() as f64)
            };
        }
    }
    if let Some(page) = inputs.page {
        let page = page.0 as f64;
        max_context = (max_context / page).floor() * page;
    }
    let smem = hw
        .execution
        .as_ref()
        .and_then(|e| e.smem_per_sm)
        .map(|b| b.get());
    let l2 = hw
        .memory
        .levels
        .iter()
        .find(|l| l.name == "l2")
        .map(|l| l.capacity.get());
    Ok(Fit {
        hardware: hw.id.clone(),
        memory_bytes: memory,
        memory_source: source,
        reserve,
        weight_bytes: weights,
        dtype: p.name,
        kv_budget_bytes: left,
        tp,
        kv_share: share,
        kv_bytes_per_device: kv_device,
        fits: weights_over == 0.0 && kv_device <= left,
        weights_over_bytes: weights_over,
        max_batch: max_batch.min(u64::MAX as f64) as u64,
        max_context: max_context.min(u64::MAX as f64) as u64,
        smem_per_sm: smem,
        l2_bytes: l2,
        memory_field_source: {
            let field = match source {
                MemorySource::Usable => "memory.usable-capacity",
                MemorySource::Datasheet => "memory.hbm-capacity",
            };
            match hw.source(field) {
                Some(s) => format!("{field}: {s}"),
                None => field.to_string(),
            }
        },
    })
}

impl KvCost {
    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("kv", lean);
        r.model = Some(self.model.clone());
        r.input("context", self.context);
        r.input("batch", self.batch);
        r.input("kv_dtype", self.kv_dtype.name);
        let mut headline = vec![
            "kv_bytes_per_token_per_layer",
            "kv_bytes_per_token",
            "kv_bytes_per_sequence",
            "kv_bytes",
            "compression_vs_bf16",
            "paged_waste",
            "contiguous_waste",
            "memory_bytes",
        ];
        // The weights and the device's share decide a split or a miss:
        // shown then, beside the verdict.
        if self.fit.as_ref().is_some_and(|f| f.tp > 1 || !f.fits) {
            headline.extend(["weight_bytes", "kv_bytes_per_device", "fits"]);
        }
        headline.extend(["kv_budget_bytes", "max_batch", "max_context"]);
        r.headline(&headline);
        let kv = &self.kv_dtype;
        r.result("kv_bits_per_element", kv.bits(), || {
            let q = Quantity::new("KV bits per element", Unit::Bits);
            match kv.group {
                Some(g) => q
                    .formula("data bits + (16-bit scale + 16-bit zero point) / group")
                    .derive(format!("{} + 32 / {g}", kv.data_bits)),
                None => q.formula(kv.layout),
            }
        });
        r.result(
            "kv_bytes_per_token_per_layer",
            self.bytes_per_token_per_layer,
            || {
                Quantity::new("KV per token per layer", Unit::Bytes)
                    .formula("elements per token per layer x bits / 8")
                    .derive(format!(
                        "{} x {} / 8",
                        self.elements_per_token_per_layer,
                        units::sig(kv.bits(), 4)
                    ))
            },
        );
        r.result("kv_bytes_per_token", self.bytes_per_token, || {
            Quantity::new("KV per token", Unit::Bytes)
                .formula("per token per layer x layers")
                .derive(format!(
                    "{} x {}",
                    si(self.bytes_per_token_per_layer, "B"),
                    self.layers
                ))
        });
        let mixed = self.windowed_layers > 0 && self.windowed_layers < self.layers;
        let full_layers = self.layers - self.windowed_layers;
        r.result(
            "kv_bytes_per_layer_sequence",
            self.bytes_per_layer_sequence,
            || {
                if mixed {
                    Quantity::new("KV of one sequence, one layer (mean)", Unit::Bytes)
                        .formula("KV of one sequence / layers")
                        .derive(format!(
                            "{} / {}",
                            si(self.bytes_per_sequence, "B"),
                            self.layers
                        ))
                } else {
                    Quantity::new("KV of one sequence, one layer", Unit::Bytes)
                        .formula("per token per layer x cached tokens")
                        .derive(format!(
                            "{} x {}",
                            si(self.bytes_per_token_per_layer, "B"),
                            grouped(u128::from(self.cached_tokens))
                        ))
                }
            },
        );
        r.result("kv_bytes_per_sequence", self.bytes_per_sequence, || {
            if mixed {
                Quantity::new("KV of one sequence", Unit::Bytes)
                    .formula("per token per layer x (full layers x context + windowed layers x min(context, window))")
                    .derive(format!(
                        "{} x ({} x {} + {} x {})",
                        si(self.bytes_per_token_per_layer, "B"),
                        full_layers,
                        grouped(u128::from(self.context)),
                        self.windowed_layers,
                        grouped(u128::from(self.window_cached))
                    ))
            } else {
                Quantity::new("KV of one sequence", Unit::Bytes)
                    .formula("per token x cached tokens")
                    .derive(format!(
                        "{} x {}",
                        si(self.bytes_per_token, "B"),
                        grouped(u128::from(self.cached_tokens))
                    ))
            }
        });
        r.result("kv_bytes", self.kv_bytes, || {
            Quantity::new("KV of the batch", Unit::Bytes)
                .formula("per sequence x batch")
                .derive(format!(
                    "{} x {}",
                    si(self.bytes_per_sequence, "B"),
                    self.batch
                ))
        });
        if kv.bits() != 16.0 {
            r.result("compression_vs_bf16", 16.0 / kv.bits(), || {
                Quantity::new("smaller than bf16", Unit::Ratio)
                    .formula("16 / bits per element (scales included)")
                    .derive(format!("16 / {}", units::sig(kv.bits(), 4)))
            });
        }
        if let Some(p) = &self.paged {
            r.result("pages_per_sequence", p.pages as f64, || {
                Quantity::new("pages per sequence", Unit::Count)
                    .formula("ceil(cached tokens / page)")
                    .derive(format!("ceil({} / {})", self.cached_tokens, p.page))
            });
            r.result("paged_kv_bytes", p.bytes, || {
                Quantity::new("KV allocated in pages", Unit::Bytes)
                    .formula("pages x page x per token x batch")
            });
            r.result("paged_waste", p.waste, || {
                Quantity::new("wasted in the last page", Unit::Fraction)
                    .formula("(pages x page - cached tokens) / (pages x page)")
                    .derive(format!(
                        "({} x {} - {}) / ({} x {})",
                        p.pages, p.page, self.cached_tokens, p.pages, p.page
                    ))
            });
        }
        if let Some((res, waste)) = self.contiguous {
            r.result("contiguous_waste", waste, || {
                Quantity::new("wasted by a contiguous reservation", Unit::Fraction)
                    .formula("1 - context / reserved tokens")
                    .derive(format!("1 - {} / {res}", self.context))
            });
        }
        if let Some(f) = &self.fit {
            r.hardware = Some(f.hardware.clone());
            r.result("memory_bytes", f.memory_bytes, || {
                Quantity::new(
                    match f.memory_source {
                        MemorySource::Usable => "device memory (usable, measured)",
                        MemorySource::Datasheet => "device memory (datasheet)",
                    },
                    Unit::Bytes,
                )
                .source(Some(&f.memory_field_source))
            });
            if f.tp > 1 {
                r.input("tp", f.tp);
            }
            r.result("weight_bytes", f.weight_bytes, || {
                if f.tp > 1 {
                    Quantity::new(format!("weights per device in {}", f.dtype), Unit::Bytes)
                        .formula(
                            "(params - norms) / tp + norms, x bits / 8 (plan's split of one stage)",
                        )
                } else {
                    Quantity::new(format!("weights in {}", f.dtype), Unit::Bytes)
                        .formula("params x bits / 8")
                }
            });
            if f.tp > 1 {
                r.result("kv_share", f.kv_share, || {
                    Quantity::new("share of the KV one device holds", Unit::Fraction).formula(
                        "ceil(kv heads / tp) / kv heads (MLA: 1, the latent is every head's)",
                    )
                });
            }
            if f.tp > 1 {
                r.result("kv_bytes_per_device", f.kv_bytes_per_device, || {
                    Quantity::new("KV of the batch on one device", Unit::Bytes)
                        .formula("KV of the batch x share per device")
                        .derive(format!(
                            "{} x {}",
                            si(self.kv_bytes, "B"),
                            units::sig(f.kv_share, 4)
                        ))
                });
            }
            r.result("fits", f.fits, || {
                Quantity::new("weights and KV fit", Unit::None)
                    .formula("weights + KV per device <= memory x (1 - reserve)")
            });
            r.result("kv_budget_bytes", f.kv_budget_bytes, || {
                Quantity::new("memory for the KV cache", Unit::Bytes)
                    .formula("max(0, memory x (1 - reserve) - weights)")
                    .derive(format!(
                        "{} x (1 - {}) - {}",
                        si(f.memory_bytes, "B"),
                        units::sig(f.reserve, 3),
                        si(f.weight_bytes, "B")
                    ))
            });
            r.result("max_batch", f.max_batch as f64, || {
                Quantity::new(
                    format!(
                        "sequences of {} tokens that fit",
                        grouped(u128::from(self.context))
                    ),
                    Unit::Count,
                )
                .formula("floor(KV budget / KV per sequence)")
                .derive(format!(
                    "floor({} / {})",
                    si(f.kv_budget_bytes, "B"),
                    si(self.bytes_per_sequence, "B")
                ))
            });
            r.result("max_context", f.max_context as f64, || {
                Quantity::new(
                    format!(
                        "tokens per sequence that fit at batch {}",
                        grouped(u128::from(self.batch))
                    ),
                    Unit::Count,
                )
                .formula("floor(KV budget / (KV per token x batch))")
                .derive(format!(
                    "floor({} / ({} x {}))",
                    si(f.kv_budget_bytes, "B"),
                    si(self.bytes_per_token, "B"),
                    self.batch
                ))
            });
            if let Some(s) = f.smem_per_sm {
                r.result(
                    "tokens_per_sm_smem",
                    (s / self.bytes_per_token_per_layer).floor(),
                    || {
                        Quantity::new(
                            "tokens of one layer's KV in one SM's shared memory",
                            Unit::Count,
                        )
                        .formula("floor(shared memory per SM / KV per token per layer)")
                        .derive(format!(
                            "floor({} / {})",
                            units::iec_bytes(s),
                            si(self.bytes_per_token_per_layer, "B")
                        ))
                    },
                );
                r.result(
                    "layer_sequence_over_smem",
                    self.bytes_per_layer_sequence / s,
                    || {
                        Quantity::new(
                            "one layer's sequence KV over one SM's shared memory",
                            Unit::Ratio,
                        )
                        .formula("KV of one sequence, one layer / shared memory per SM")
                    },
                );
            }
            if let Some(l2) = f.l2_bytes {
                r.result(
                    "layer_sequence_over_l2",
                    self.bytes_per_layer_sequence / l2,
                    || {
                        Quantity::new("one layer's sequence KV over L2", Unit::Ratio)
                            .formula("KV of one sequence, one layer / L2 capacity")
                            .derive(format!(
                                "{} / {}",
                                si(self.bytes_per_layer_sequence, "B"),
                                si(l2, "B")
                            ))
                    },
                );
            }
            r.note_with(|| {
                format!(
                    "fit against {} of {} ({}), less a {}% reserve for activations and the runtime (--reserve)",
                    si(f.memory_bytes, "B"),
                    f.hardware,
                    match f.memory_source {
                        MemorySource::Usable => "the memory the runtime reports, measured",
                        MemorySource::Datasheet => "the datasheet capacity; the runtime offers somewhat less",
                    },
                    units::percent(f.reserve)
                )
            });
            if f.weights_over_bytes > 0.0 {
                r.note_with(|| {
                    format!(
                        "does not fit: {}'s weights{} in {} ({}) are {} more than {}'s {} less the {}% reserve, leaving nothing for the KV cache; split it over more devices (--tp, or `roofline plan`), or use a narrower --dtype",
                        self.model,
                        if f.tp > 1 { " per device" } else { "" },
                        f.dtype,
                        si(f.weight_bytes, "B"),
                        si(f.weights_over_bytes, "B"),
                        f.hardware,
                        si(f.memory_bytes, "B"),
                        units::percent(f.reserve)
                    )
                });
            } else if !f.fits {
                r.note_with(|| {
                    format!(
                        "does not fit: the batch's KV ({} per device) exceeds the {} left beside the weights; at most {} sequences of this context fit",
                        si(f.kv_bytes_per_device, "B"),
                        si(f.kv_budget_bytes, "B"),
                        grouped(u128::from(f.max_batch))
                    )
                });
            }
            if f.tp > 1 {
                r.note_with(|| {
                    format!(
                        "split over {} tensor-parallel ranks: each holds 1/{} of the sharded weights (norms replicated) and ceil(kv heads / {}) of the KV heads, {}% of the cache, as `plan --tp {} --pp 1` does",
                        f.tp,
                        f.tp,
                        f.tp,
                        units::percent(f.kv_share),
                        f.tp
                    )
                });
            }
        }
        if kv.group.is_some() {
            r.note("quantized KV as KIVI (the Learn Kernels book (000), §4.2): keys grouped per channel, values per token, 32 elements to an fp16 scale and zero point; KIVI also keeps the most recent tokens in fp16, not counted here");
        }
        if mixed && self.window_cached < self.context {
            r.note_with(|| {
                format!(
                    "sliding window on {} of {} layers: each caches the last {} of the {} tokens; the other {} cache all of them",
                    self.windowed_layers,
                    self.layers,
                    grouped(u128::from(self.window_cached)),
                    grouped(u128::from(self.context)),
                    full_layers
                )
            });
        }
        if self.cached_tokens < self.context {
            r.note_with(|| {
                format!(
                    "sliding window: each layer caches the last {} of the {} tokens",
                    grouped(u128::from(self.cached_tokens)),
                    grouped(u128::from(self.context))
                )
            });
        }
        note_beyond_max(
            &mut r,
            self.beyond_max,
            "context beyond the model's maximum of",
        );
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kv_precisions_read_in_any_case_and_by_alias() {
        // The exact-name fast path is sound only if no alias is a name.
        for (a, _) in KV_ALIASES {
            assert!(
                KV_PRECISIONS
                    .iter()
                    .all(|p| !p.name.eq_ignore_ascii_case(a)),
                "{a}"
            );
        }
        assert_eq!(kv_precision("FP8").unwrap().name, "fp8");
        assert_eq!(kv_precision(" e5m2").unwrap().name, "fp8");
        assert_eq!(kv_precision("Half").unwrap().name, "fp16");
        assert!(kv_precision("float32").is_err());
    }
}

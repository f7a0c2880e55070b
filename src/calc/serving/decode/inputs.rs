//! `decode`'s typed inputs: what a TOML case, `--set` or the CLI's flags
//! give a decode step before anything is resolved against a model and a
//! device.

use crate::calc::simulate::slo::Target;
use crate::error::{Error, Result};
use crate::inputs::{Count, Fields, Number, Tokens};
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
    /// Speculative decoding: the acceptance rate a, one rate a drafted
    /// position (`0.9/0.7/0.5`) or a mean accepted length (`length=2.6`).
    pub acceptance: Option<crate::calc::speculative::AcceptanceField>,
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
    /// Tensor-parallel ranks the step runs on (default 1: one device);
    /// more is `plan`'s layout tp x 1 x 1 ([`super::tp`]).
    #[serde(default)]
    pub tp: Option<Count>,
    /// The engine the step runs on (the query's `engine` field, resolved
    /// against the catalog; the plain PyTorch forward when `None`).
    #[serde(skip)]
    pub engine: Option<std::sync::Arc<crate::spec::engine::Engine>>,
}

/// The parts of `speculative = "A,G[,C]"`, decode's one-field form of
/// `acceptance`, `draft-tokens` and `draft-cost`.
pub const SPECULATIVE_PARTS: [&str; 3] = ["acceptance", "draft-tokens", "draft-cost"];

/// A decode point's fields with `speculative = "A,G[,C]"` split into its
/// parts, and the error namer that turns a part's error back into one of
/// `speculative`; `None` where the point has no `speculative`. Giving the
/// parts both ways is a usage error.
#[allow(clippy::type_complexity)]
pub fn speculative_fields(fields: &Fields) -> Result<Option<(Fields, fn(Error) -> Error)>> {
    let spec = fields
        .get("speculative")
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
    let Some(spec) = spec else {
        return Ok(None);
    };
    if let Some(k) = SPECULATIVE_PARTS.iter().find(|k| fields.contains_key(**k)) {
        return Err(Error::usage(
            "--speculative",
            format!(
                "give the three parts in `speculative` or as fields, not both (`{k}` is also given)"
            ),
        ));
    }
    let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.is_empty()) {
        return Err(Error::field(
            "speculative",
            format!("`{spec}`: expected ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST], e.g. 0.8,4,0.05"),
        ));
    }
    let mut f = fields.clone();
    f.remove("speculative");
    for (k, v) in SPECULATIVE_PARTS.iter().zip(&parts) {
        f.insert((*k).into(), serde_json::Value::from(*v));
    }
    // An error in a part names the one field given.
    fn named(e: Error) -> Error {
        match e {
            Error::Field { field, message } if SPECULATIVE_PARTS.contains(&field.as_str()) => {
                Error::field(
                    "speculative",
                    format!("its {} {message}", field.replace('-', " ")),
                )
            }
            e => e,
        }
    }
    Ok(Some((f, named)))
}

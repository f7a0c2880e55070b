//! What the per-operation achievable model predicts for one measured row,
//! from a hardware file (the calibrated one, for held-out points). The
//! terms are the model's own (formulas.md, "Achievable: a forward operation
//! by operation"): an operation's compute and memory terms on its roof,
//! plus the fixed overhead of each kernel and its launch; a decode step is
//! `decode --achievable` itself.

use super::measurements::{LaunchMode, Operation, Row};
use crate::calc::decode::{self, DecodeInputs};
use crate::calc::matmul::{self, MatmulInputs};
use crate::calc::prefill::{self, PrefillInputs};
use crate::error::{Error, Result};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;

/// A held-out row against its prediction.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Check {
    /// Line in the measurement file.
    pub line: usize,
    /// The row's operation.
    pub operation: &'static str,
    /// Its shape in words.
    pub shape: String,
    /// Measured seconds.
    pub measured_s: f64,
    /// Predicted seconds.
    pub predicted_s: f64,
    /// |predicted - measured| / measured.
    pub error: f64,
    /// What the base file predicts.
    pub shipped_s: f64,
    /// Its error.
    pub shipped_error: f64,
}

/// The shape of a row in words (`gemm bf16 1x4096x4096`).
pub fn shape_words(r: &Row) -> String {
    let o = |v: Option<u64>| v.map_or("?".into(), |v| v.to_string());
    match r.op {
        Operation::Gemm | Operation::ComputeShort | Operation::ComputeSustained => {
            format!("{} {}x{}x{}", r.dtype, o(r.m), o(r.n), o(r.k))
        }
        Operation::GroupedGemm => format!(
            "{} {} x {}x{}x{}",
            r.dtype,
            o(r.batch),
            o(r.m),
            o(r.n),
            o(r.k)
        ),
        Operation::AttentionPrefill => format!(
            "{} B={} S={} heads {}/{}",
            r.dtype,
            o(r.batch),
            o(r.seq),
            o(r.heads),
            o(r.kv_heads)
        ),
        Operation::AttentionDecode => format!(
            "{} B={} T={} heads {}/{}",
            r.dtype,
            o(r.batch),
            o(r.context),
            o(r.heads),
            o(r.kv_heads)
        ),
        Operation::PrefillStep => format!(
            "{} {} B={} S={} {}",
            r.model.as_deref().unwrap_or("?"),
            r.dtype,
            o(r.batch),
            o(r.seq),
            r.launch.as_str()
        ),
        Operation::KernelSweep => format!(
            "{} {} x {}x{}x{}",
            r.dtype,
            o(r.kernels),
            o(r.m),
            o(r.n),
            o(r.k)
        ),
        Operation::DecodeStep => format!(
            "{} {} B={} T={} {}",
            r.model.as_deref().unwrap_or("?"),
            r.dtype,
            o(r.batch),
            o(r.context),
            r.launch.as_str()
        ),
        _ => format!("{} {} bytes", r.dtype, r.bytes.unwrap_or(0.0)),
    }
}

/// `matmul --achievable` of m x n x k in `dtype` with `launch`.
fn matmul_time(hw: &Hardware, r: &Row, n: Option<u64>, launch: &str) -> Result<f64> {
    let inputs: MatmulInputs = serde_json::from_value(serde_json::json!({
        "m": r.m, "n": n, "k": r.k, "dtype": r.dtype, "launch": launch,
    }))
    .map_err(|e| Error::input(r.op.name(), e.to_string()))?;
    Ok(matmul::cost(hw, &inputs, Mode::Achievable)?.time_s)
}

/// A grouped GEMM row as a step prices its routed experts' GEMM
/// (formulas.md, "Engines: how a profile turns into kernels", grouped
/// experts): the GEMM model over its `batch` groups, the memory terms at
/// `achievable.grouped-gemm.stream-fraction` x `bw`, the compute term at its
/// `compute-fraction` x `rate` (1 where the file has none), no split-K
/// reduction, and `per_kernel` (fixed time and graph launch) for each of
/// its kernels.
pub fn grouped_time(hw: &Hardware, r: &Row, rate: f64, bw: f64, per_kernel: f64) -> f64 {
    let g = hw.achievable.as_ref().and_then(|a| a.grouped_gemm.as_ref());
    let sf = g.and_then(|g| g.stream_fraction).unwrap_or(1.0);
    let cf = g.and_then(|g| g.compute_fraction).unwrap_or(1.0);
    let (m, n, k) = (r.m.unwrap_or(1), r.n.unwrap_or(1), r.k.unwrap_or(1));
    let groups = r.batch.unwrap_or(1) as f64;
    let eb = if r.dtype == "fp8" { 1.0 } else { 2.0 };
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    let read = (nf * kf + mf * kf) * eb * groups;
    let write = mf * nf * 2.0 * groups;
    let t = crate::calc::matmul::efficiency::GemmModel::of(hw).time(
        (m, n, k),
        groups,
        rate * cf,
        bw * sf,
        read,
        write,
    );
    t.time_s + r.kernels.unwrap_or(2) as f64 * per_kernel
}

/// The model's time for row `r` on `hw`; `model` is the row's catalog
/// model (decode steps). `None` where the row is not one the model prices
/// (a launch, a compute loop).
pub fn predict(r: &Row, hw: &Hardware, model: Option<&Model>) -> Result<Option<f64>> {
    let a = hw.achievable.as_ref();
    let missing = |f: &str| Error::MissingField {
        owner: hw.id.clone(),
        field: f.into(),
        why: "to predict the held-out measurements".into(),
        example: None,
    };
    let bw = a
        .and_then(|a| a.hbm_bandwidth)
        .map(|b| b.get())
        .ok_or_else(|| missing("achievable.hbm-bandwidth"))?;
    let overhead = a.and_then(|a| a.kernel_overhead).map_or(0.0, |s| s.get());
    let launch = a.and_then(|a| a.launch.as_ref());
    let graph = launch.and_then(|l| l.graph).map_or(0.0, |s| s.get());
    let eager_call = a
        .and_then(|a| a.call.as_ref())
        .and_then(|c| c.matmul_eager)
        .map(|s| s.get())
        .or_else(|| launch.and_then(|l| l.eager).map(|s| s.get()))
        .unwrap_or(0.0);
    let rate = |d: &str| {
        a.and_then(|a| a.dense.get(d))
            .ok_or_else(|| missing(&format!("achievable.dense.{d}")))
    };
    Ok(match r.op {
        Operation::Gemm if r.launch == LaunchMode::Graph => {
            // `matmul --achievable --launch graph` itself.
            rate(&r.dtype)?;
            Some(matmul_time(hw, r, r.n, "graph")?)
        }
        Operation::GroupedGemm if r.launch == LaunchMode::Graph => {
            Some(grouped_time(hw, r, rate(&r.dtype)?, bw, overhead + graph))
        }
        Operation::KernelSweep if r.launch == LaunchMode::Graph => {
            // Each of the kernels is one GEMM of the sweep's shape.
            rate(&r.dtype)?;
            let k = r.kernels.unwrap_or(1) as f64;
            Some(k * matmul_time(hw, r, r.n, "graph")?)
        }
        Operation::PrefillStep => {
            let Some(m) = model else { return Ok(None) };
            if r.layers.is_some_and(|l| l != m.layers.get()) {
                return Ok(None);
            }
            let inputs: PrefillInputs = serde_json::from_value(serde_json::json!({
                "prompt": r.seq,
                "batch": r.batch,
                "dtype": r.dtype,
                "activations": r.dtype,
                "launch": if r.launch == LaunchMode::Graph { "graph" } else { "eager" },
                "force": true,
            }))
            .map_err(|e| Error::input("prefill_step", e.to_string()))?;
            Some(prefill::cost(m, hw, &inputs, Mode::Achievable)?.time_s)
        }
        Operation::AttentionPrefill => {
            let (Some(flops), Some(s)) = (r.flops, r.seq) else {
                return Ok(None);
            };
            let eff = a
                .and_then(|a| a.attention.as_ref())
                .and_then(|at| {
                    Some(at.peak_fraction? * s as f64 / (s as f64 + at.half_length?.get() as f64))
                })
                .unwrap_or(1.0);
            let compute = flops / (rate(&r.dtype)? * eff);
            let memory = r.bytes.unwrap_or(0.0) / bw;
            // Timed alone with events around one eager call: its host path
            // is in the clock.
            Some(compute.max(memory) + overhead + eager_call)
        }
        Operation::AttentionDecode => r.bytes.map(|b| b / bw + overhead + graph),
        Operation::HbmRead | Operation::HbmCopy => r.bytes.map(|b| b / bw),
        Operation::DecodeStep => {
            let Some(m) = model else { return Ok(None) };
            if r.layers.is_some_and(|l| l != m.layers.get()) {
                return Ok(None);
            }
            let launch = match r.launch {
                LaunchMode::Graph => "graph",
                _ => "eager",
            };
            let inputs: DecodeInputs = serde_json::from_value(serde_json::json!({
                "batch": r.batch,
                "context": r.context,
                "dtype": r.dtype,
                "activations": r.dtype,
                "launch": launch,
            }))
            .map_err(|e| Error::input("decode_step", e.to_string()))?;
            let c = decode::cost(m, hw, &inputs, Mode::Achievable)?;
            Some(c.step_time_s)
        }
        _ => None,
    })
}

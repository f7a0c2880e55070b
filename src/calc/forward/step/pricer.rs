//! The per-operation model a step is priced with under `--achievable`
//! (formulas.md, "Achievable: a forward operation by operation"): the
//! hardware file's measured rates and `achievable` figures gathered into a
//! [`Pricer`], with the figures it lacks named for the notes.

use super::setup::LaunchMode;
use crate::calc::matmul::efficiency::GemmModel;
use crate::calc::roof::Roof;
use crate::calc::step::price::{CachedAttention, HeadPrecision, HostPath, Pricer};
use crate::calc::step::{self, Precisions};
use crate::precision::{self, Precision};
use crate::spec::hardware::{Hardware, Mode};

/// The per-operation model of `hw` at compute precision `compute` and the
/// launch mode chosen: the measured rates, the file's `achievable` figures
/// (formulas.md, "Achievable: a forward operation by operation"), with the
/// LM head at `head` where a weight-quantized forward keeps it wider.
/// Optional figures the file lacks are named in `missing`.
#[allow(clippy::too_many_arguments)]
pub fn pricer(
    hw: &Hardware,
    roof: &Roof,
    compute: &str,
    kv: &str,
    launch: LaunchMode,
    per_kernel_s: f64,
    precisions: Precisions,
    head: Option<&'static Precision>,
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
    let tensor_mask = a.and_then(|a| a.attention.as_ref()).and_then(|at| {
        Some((
            at.tensor_mask_peak_fraction?,
            at.tensor_mask_query_tile?.get(),
        ))
    });
    let latent_odd = a.and_then(|a| a.attention.as_ref()).and_then(|at| {
        Some(crate::calc::step::price::LatentOddFigures {
            scores: at.latent_odd_scores_fraction?,
            values: at.latent_odd_values_fraction?,
            simt: match (
                at.latent_odd_simt_fraction,
                at.latent_odd_simt_from,
                at.latent_odd_simt_to,
            ) {
                (Some(s), Some(f), Some(t)) => Some((s, f.get() as f64, t.get() as f64)),
                _ => None,
            },
        })
    });
    let grouped = a
        .and_then(|a| a.grouped_gemm.as_ref())
        .map_or((None, None), |g| (g.stream_fraction, g.compute_fraction));
    let gemm = GemmModel::of(hw);
    if gemm.tiles.is_empty() {
        missing.push("achievable.gemm");
    }
    // An eager step from Python pays each kernel's host path, the measured
    // cost of one eager call; the bare launch where the file lacks it.
    let per_kernel_s = match launch {
        LaunchMode::None => 0.0,
        LaunchMode::Graph | LaunchMode::Synchronised => per_kernel_s,
        LaunchMode::Eager => match a.and_then(|a| a.call.as_ref()).and_then(|c| c.matmul_eager) {
            Some(c) => c.get(),
            None => {
                missing.push("achievable.call.matmul-eager");
                per_kernel_s
            }
        },
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
    let strided_element_s = a.and_then(|a| a.strided_element).map(|s| s.get());

    if strided_element_s.is_none() {
        missing.push("achievable.strided-element");
    }
    let scatter_add_element_s = a.and_then(|a| a.scatter_add_element).map(|s| s.get());
    let power = crate::calc::step::power_limit::PowerLimit::of(hw, roof.peak, sustained);
    // A GEMM's share of its back-to-back time at rest, at its precision.
    let burst_at = |key: &str| match &power {
        Some(_) => a
            .and_then(|a| a.power_limit.as_ref())
            .and_then(|f| f.gemm_burst_fraction.as_ref())
            .and_then(|f| f.get(key))
            .unwrap_or(1.0),
        None => 1.0,
    };
    let gemm_burst = burst_at(compute);
    // The LM head a weight-quantized forward keeps at 16 bits, at its own
    // rates; where the device lacks that precision's rate it is priced
    // with the projections.
    let head = head.and_then(|p| {
        let rate = if p.compute == compute {
            roof.peak
        } else {
            hw.peak(precision::lookup(p.compute).ok()?, Mode::Achievable)
                .ok()?
        };
        Some(HeadPrecision {
            compute: p.compute,
            weight: p.bytes(),
            activation: p.bytes(),
            rate,
            sustained: a.and_then(|a| a.sustained.get(p.compute)),
            gemm_burst: burst_at(p.compute),
        })
    });
    // Eagerly, the GPU's wait for each queued kernel's dispatch.
    let eager_gap_s = match launch {
        LaunchMode::Eager => a
            .and_then(|a| a.launch.as_ref())
            .and_then(|l| l.eager_gap)
            .map_or(0.0, |s| s.get()),
        _ => 0.0,
    };
    let math = [
        "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4",
    ]
    .into_iter()
    .filter(|k| hw.compute.dense.get(k).is_some())
    .collect();
    Pricer {
        math,
        eager_gap_s,
        power,
        rate: roof.peak,
        sustained,
        bandwidth: roof.bandwidth,
        launch,
        per_kernel_s,
        host,
        overhead_s: overhead.unwrap_or(0.0),
        fixed: step::price::KernelFixed::of(a, overhead.unwrap_or(0.0)),
        gemm,
        attention,
        query_tile,
        cached_attention,
        tensor_mask,
        latent_odd,
        grouped,
        attention_rate,
        attention_sustained,
        precisions,
        strided_element_s,
        scatter_add_element_s,
        gemm_burst,
        head,
    }
}

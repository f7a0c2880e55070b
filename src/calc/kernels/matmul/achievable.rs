//! `matmul --achievable`: one GEMM priced by its shape (formulas.md,
//! "Achievable: GEMM efficiency by shape") with one kernel's fixed costs by
//! launch mode.

use super::*;

/// A GEMM priced by its shape under measured figures (formulas.md,
/// "Achievable: GEMM efficiency by shape"): the library's tile and K split,
/// the compute and memory terms, the kernel's fixed overhead and its launch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shaped {
    /// The shape's time before per-kernel costs.
    pub gemm: efficiency::GemmTime,
    /// Launch mode: `none`, `graph` or `eager`.
    pub launch: &'static str,
    /// Kernels: the GEMM and, for a split 16-bit GEMM bound by its
    /// weights, the reduction.
    pub kernels: f64,
    /// Kernel overhead and launch (eager: the host's path where longer).
    pub overhead_s: f64,
    /// Where the per-kernel figures come from.
    pub overhead_source: String,
    /// The time.
    pub time_s: f64,
    /// Compute when the compute term exceeds the reads.
    pub bound: Bound,
}

/// Prices one GEMM by its shape; `traffic` is the L2-aware HBM traffic,
/// the output included.
pub(super) fn shaped(
    hw: &Hardware,
    roof: &Roof,
    (m, n, k): (u64, u64, u64),
    b: f64,
    traffic: f64,
    inputs: &MatmulInputs,
) -> Result<Shaped> {
    let a = hw.achievable.as_ref();
    let launch = match inputs.launch.as_deref().map(str::trim) {
        None => "eager",
        Some(l) if l.eq_ignore_ascii_case("none") => "none",
        Some(l) if l.eq_ignore_ascii_case("graph") => "graph",
        Some(l) if l.eq_ignore_ascii_case("eager") => "eager",
        Some(l) => {
            return Err(Error::field(
                "launch",
                format!("`{l}`: expected none, graph or eager"),
            ));
        }
    };
    let model = efficiency::GemmModel::of(hw);
    // The output is written once in the epilogue; the rest is read.
    let output = 2.0_f64.max(b) * m as f64 * n as f64;
    let read =
        (traffic - b * m as f64 * n as f64).max(b * (m as f64 * k as f64 + k as f64 * n as f64));
    let g = model.time((m, n, k), 1.0, roof.peak, roof.bandwidth, read, output);
    let kernels = if super::efficiency::reduces(&g, b) {
        2.0
    } else {
        1.0
    };
    let overhead = a.and_then(|a| a.kernel_overhead).map_or(0.0, |s| s.get());
    let fields = |f: &str| -> Result<f64> {
        let v = match f {
            "achievable.launch.graph" => a
                .and_then(|a| a.launch.as_ref())
                .and_then(|l| l.graph)
                .map(|s| s.get()),
            _ => a
                .and_then(|a| a.call.as_ref())
                .and_then(|c| c.matmul_eager)
                .map(|s| s.get()),
        };
        v.ok_or_else(|| {
            hw.missing(
                f,
                if f.ends_with("graph") {
                    "the CUDA-graph launch cost of one kernel (matmul --achievable --launch graph)"
                } else {
                    "the host path of one matmul called eagerly (matmul --achievable, whose default is --launch eager; --launch none or graph does without)"
                },
                Some(if f.ends_with("graph") { "1 us" } else { "20 us" }),
            )
        })
    };
    let gpu = g.time_s + kernels * overhead;
    let (time_s, field) = match launch {
        "none" => (gpu, None),
        "graph" => {
            let l = fields("achievable.launch.graph")?;
            (gpu + kernels * l, Some("achievable.launch.graph"))
        }
        _ => {
            // One call from Python launches the GEMM and its split-K
            // reduction both (the measured host path is of such a call), so
            // the host's path is paid once, as the step model pays it.
            let h = fields("achievable.call.matmul-eager")?;
            (gpu.max(h), Some("achievable.call.matmul-eager"))
        }
    };
    let src = |f: &str| {
        hw.source(f)
            .map_or_else(|| f.to_string(), |s| format!("{f}: {s}"))
    };
    let mut overhead_source = src("achievable.kernel-overhead");
    if let Some(f) = field {
        overhead_source = format!("{overhead_source}; {}", src(f));
    }
    Ok(Shaped {
        overhead_s: time_s - g.time_s,
        bound: if g.compute_s > g.read_s {
            Bound::Compute
        } else {
            Bound::Memory
        },
        gemm: g,
        launch,
        kernels,
        overhead_source,
        time_s,
    })
}

//! The `[achievable]` figures from measurement rows (formulas.md,
//! "Calibration: fitting the achievable figures"). Each figure comes from
//! the rows that measure it directly; none is tuned to another's error.

use super::measurements::{KernelClass, LaunchMode, Operation, Row};

/// What a fit found. A figure the rows do not measure is `None` and the
/// base file's value stays.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Figures {
    /// Read-only stream bandwidth, B/s.
    pub hbm_bandwidth: Option<f64>,
    /// Best GEMM rate per precision, FLOP/s.
    pub dense: Vec<(String, f64)>,
    /// Rate a long loop held, per precision, FLOP/s, with the mean SM clock
    /// (MHz) and board power (W) over it where sampled.
    pub sustained: Vec<(String, f64, Option<f64>, Option<f64>)>,
    /// Per kernel, launched eagerly back to back, s.
    pub launch_eager: Option<f64>,
    /// Per kernel, launched and synchronised, s.
    pub launch_synchronised: Option<f64>,
    /// Per kernel, replayed from a graph, s.
    pub launch_graph: Option<f64>,
    /// Fixed GPU time of a kernel beyond its launch, s.
    pub kernel_overhead: Option<f64>,
    /// The kernel-count sweep's slope (s a kernel: overhead plus the
    /// graph launch) and its rows.
    pub overhead_sweep: Option<(f64, usize)>,
    /// The stream row the bandwidth is read from: (line, operation).
    pub stream_row: Option<(usize, &'static str)>,
    /// Precisions whose sustained rate was capped at the calibrated burst
    /// rate (the base file's exceeded it).
    pub sustained_capped: Vec<String>,
    /// Host path of one eager matmul call, s.
    pub matmul_eager: Option<f64>,
    /// Whether `matmul_eager` came from `host_gemm` rows (else from
    /// host-bound small GEMMs).
    pub matmul_eager_from_host_rows: bool,
    /// Host path per elementwise kernel's call, alone, s.
    pub kernel_eager: Option<f64>,
    /// Host path of one decode attention call, alone, s.
    pub attention_eager: Option<f64>,
    /// Host path of the attention op of a pass over a cached prefix,
    /// alone, s.
    pub cached_attention_eager: Option<f64>,
    /// The cost of the host calls interleaved over their cost alone.
    pub interleave: Option<f64>,
    /// Flash attention's (peak fraction, half length in tokens).
    pub attention: Option<(f64, u64)>,
    /// The GEMM search's (median error, rows): set when `dense` and
    /// `kernel_overhead` were searched with the model (`refine`).
    pub gemm_fit: Option<(f64, usize)>,
    /// The attention search's (median error, rows).
    pub attention_fit: Option<(f64, usize)>,
    /// PyTorch's grouped GEMM: (stream fraction, compute fraction).
    pub grouped: Option<(f64, f64)>,
    /// The grouped search's (median error, rows).
    pub grouped_fit: Option<(f64, usize)>,
    /// Fixed time of a kernel by class (`kernel-fixed`), s, with the kernels
    /// it is the median over.
    pub kernel_fixed: Vec<(KernelClass, f64, u64)>,
    /// The power limit's figures from the power loops.
    pub power: super::power::PowerFit,
}

/// The median (the middle two averaged); None for none.
pub fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    })
}

/// Least squares y = a + b x over the points; None for fewer than two
/// distinct x.
#[cfg(test)]
fn line(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    weighted_line(points, |_| 1.0)
}

/// Least squares y = a + b x with weight w(y) per point: `1 / y^2` makes
/// it minimise relative errors, so long and short points count alike.
fn weighted_line(points: &[(f64, f64)], w: impl Fn(f64) -> f64) -> Option<(f64, f64)> {
    if points.len() < 2 {
        return None;
    }
    let sw: f64 = points.iter().map(|p| w(p.1)).sum();
    let mx = points.iter().map(|p| w(p.1) * p.0).sum::<f64>() / sw;
    let my = points.iter().map(|p| w(p.1) * p.1).sum::<f64>() / sw;
    let sxx: f64 = points.iter().map(|p| w(p.1) * (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = points
        .iter()
        .map(|p| w(p.1) * (p.0 - mx) * (p.1 - my))
        .sum();
    let b = sxy / sxx;
    Some((my - b * mx, b))
}

/// Rounds a measured floor down to `step` (launch costs are floors: the
/// speed of light must stay below every measurement).
pub fn floor_to(x: f64, step: f64) -> f64 {
    (x / step).floor() * step
}

/// GEMM operand bytes read (weights and activations) for a row: the
/// script's inputs are `dtype`, its output bf16.
pub fn gemm_read_write(r: &Row) -> (f64, f64) {
    let (m, n, k) = (
        r.m.unwrap_or(0) as f64,
        r.n.unwrap_or(0) as f64,
        r.k.unwrap_or(0) as f64,
    );
    let eb = element_bytes(&r.dtype);
    (eb * (m * k + n * k), 2.0 * m * n)
}

/// Bytes per element of a precision.
pub fn element_bytes(dtype: &str) -> f64 {
    match dtype {
        "fp8" | "int8" => 1.0,
        "fp32" | "tf32" => 4.0,
        _ => 2.0,
    }
}

/// The median of `(value, count)` pairs, each value counted `count` times
/// (the middle two averaged for an even total), without expanding them.
fn weighted_median(mut v: Vec<(f64, u64)>) -> Option<f64> {
    v.retain(|(_, n)| *n > 0);
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: u128 = v.iter().map(|(_, n)| u128::from(*n)).sum();
    if total == 0 {
        return None;
    }
    // The value at 0-based position i of the expanded list.
    let at = |i: u128| {
        let mut seen = 0u128;
        for (x, n) in &v {
            seen += u128::from(*n);
            if i < seen {
                return *x;
            }
        }
        v[v.len() - 1].0
    };
    Some(if total % 2 == 1 {
        at(total / 2)
    } else {
        0.5 * (at(total / 2 - 1) + at(total / 2))
    })
}

/// Each kernel class's fixed time from its `kernel_*` rows (formulas.md,
/// "Calibration: fitting the achievable figures"): a row's mean duration
/// less its bytes at `bandwidth`, the median over the class's kernels
/// (each row counted as many times as its kernels ran), rounded down to
/// 0.1 us; none below zero.
pub fn kernel_fixed(rows: &[&Row], bandwidth: f64) -> Vec<(KernelClass, f64, u64)> {
    let mut out = Vec::new();
    for class in KernelClass::ALL {
        let pts: Vec<(f64, u64)> = rows
            .iter()
            .filter(|r| r.op == Operation::Kernel(class))
            .map(|r| {
                let work = r.bytes.unwrap_or(0.0) / bandwidth;
                (r.seconds - work, r.kernels.unwrap_or(1))
            })
            .collect();
        let n = pts.iter().map(|p| p.1).fold(0u64, u64::saturating_add);
        if let Some(m) = weighted_median(pts) {
            out.push((class, floor_to(m.max(0.0), 1e-7), n));
        }
    }
    out
}

/// A GEMM the rate is fitted on does at least this many FLOPs (issue 17's
/// bar for compute-bound GEMMs: their time is the rate's, not the
/// launch's or the overhead's).
pub const LARGE_GEMM_FLOPS: f64 = 1e11;

/// A sweep identifies the overhead with at least this many kernel counts.
pub const MIN_SWEEP_COUNTS: usize = 3;

/// A graph GEMM of [`LARGE_GEMM_FLOPS`] or more.
pub fn is_large_gemm(r: &Row) -> bool {
    r.op == Operation::Gemm
        && r.launch == LaunchMode::Graph
        && matches!((r.m, r.n, r.k), (Some(m), Some(n), Some(k))
            if 2.0 * m as f64 * n as f64 * k as f64 >= LARGE_GEMM_FLOPS)
}

/// The stream the bandwidth is read from: of the hbm_read, hbm_copy and
/// eagerly launched power_stream rows (a graph's copies run on the copy
/// engines, not as a kernel), the one with the longest steady state (the
/// longest time a call; a tie within 10% goes to the faster), as (bytes
/// over time, line, operation).
fn stream(rows: &[&Row]) -> Option<(f64, usize, &'static str)> {
    let of: Vec<(f64, f64, usize, &'static str)> = rows
        .iter()
        .filter(|r| match r.op {
            Operation::HbmRead | Operation::HbmCopy => true,
            Operation::PowerStream => r.launch == LaunchMode::Eager,
            _ => false,
        })
        .filter_map(|r| Some((r.bytes? / r.seconds, r.seconds, r.line, r.op.name())))
        .collect();
    let longest = of.iter().map(|x| x.1).fold(0.0, f64::max);
    of.into_iter()
        .filter(|x| x.1 >= 0.9 * longest)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|x| (x.0, x.2, x.3))
}

/// Fits the figures from `rows` (the fitting set: held-out rows excluded).
pub fn fit(rows: &[&Row]) -> Figures {
    let mut f = Figures::default();
    if let Some((b, line, op)) = stream(rows) {
        f.hbm_bandwidth = Some(b);
        f.stream_row = Some((line, op));
    }
    let gemm_rate = |r: &Row| Some(2.0 * r.m? as f64 * r.n? as f64 * r.k? as f64 / r.seconds);
    let mut dtypes: Vec<String> = rows
        .iter()
        .filter(|r| r.op == Operation::Gemm)
        .map(|r| r.dtype.clone())
        .collect();
    dtypes.sort();
    dtypes.dedup();
    for d in &dtypes {
        let best = rows
            .iter()
            .filter(|r| is_large_gemm(r) && &r.dtype == d)
            .filter_map(|r| gemm_rate(r))
            .max_by(f64::total_cmp);
        if let Some(b) = best {
            f.dense.push((d.clone(), b));
        }
    }
    for r in rows.iter().filter(|r| r.op == Operation::ComputeSustained) {
        let Some(rate) = r.flops.map(|fl| fl / r.seconds).or_else(|| gemm_rate(r)) else {
            continue;
        };
        // A long loop cannot beat the best burst; where noise says it
        // does, the burst figure stands.
        let cap = f
            .dense
            .iter()
            .find(|(d, _)| *d == r.dtype)
            .map_or(rate, |x| x.1);
        if !f.sustained.iter().any(|s| s.0 == r.dtype) {
            f.sustained
                .push((r.dtype.clone(), rate.min(cap), r.sm_clock_mhz, r.power_w));
        }
    }
    let launch_of = |mode: LaunchMode| {
        median(
            rows.iter()
                .filter(|r| r.op == Operation::Launch && r.launch == mode)
                .map(|r| r.seconds)
                .collect(),
        )
        .map(|s| floor_to(s, 1e-8))
    };
    f.launch_eager = launch_of(LaunchMode::Eager);
    f.launch_synchronised = launch_of(LaunchMode::Synchronised);
    f.launch_graph = launch_of(LaunchMode::Graph);

    // Kernel overhead: the slope of a sweep's time against its kernel
    // count at fixed work (bytes and FLOPs the same in every row), robust to
    // an outlying row: the median of the pairwise slopes (Theil-Sen). The
    // slope is a kernel's overhead and its graph launch together.
    let sweep: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.op == Operation::KernelSweep && r.launch == LaunchMode::Graph)
        .filter_map(|r| Some((r.kernels? as f64, r.seconds)))
        .collect();
    let mut counts: Vec<u64> = sweep.iter().map(|p| p.0 as u64).collect();
    counts.sort_unstable();
    counts.dedup();
    if counts.len() >= MIN_SWEEP_COUNTS {
        let mut slopes = Vec::new();
        for (i, a) in sweep.iter().enumerate() {
            for b in &sweep[i + 1..] {
                if a.0 != b.0 {
                    slopes.push((b.1 - a.1) / (b.0 - a.0));
                }
            }
        }
        if let Some(s) = median(slopes) {
            f.overhead_sweep = Some((s, sweep.len()));
        }
    }

    // The host path of one eager matmul: the `host_gemm` rows where the
    // file has them (a GEMM call as the forward makes it), else small GEMMs
    // called back to back from Python, which are host-bound, so their time
    // per call is the host's path (their graph time is well below).
    let host_gemm: Vec<f64> = rows
        .iter()
        .filter(|r| r.op == Operation::HostGemm)
        .map(|r| r.seconds)
        .collect();
    let host_bound: Vec<f64> = rows
        .iter()
        .filter(|e| e.op == Operation::Gemm && e.launch == LaunchMode::Eager)
        .filter(|e| {
            rows.iter().any(|g| {
                g.op == Operation::Gemm
                    && g.launch == LaunchMode::Graph
                    && (g.m, g.n, g.k) == (e.m, e.n, e.k)
                    && g.dtype == e.dtype
                    && g.seconds < 0.8 * e.seconds
            })
        })
        .map(|e| e.seconds)
        .collect();
    f.matmul_eager_from_host_rows = !host_gemm.is_empty();
    let calls = if host_gemm.is_empty() {
        host_bound
    } else {
        host_gemm
    };
    f.matmul_eager = median(calls).map(|d| floor_to(d, 1e-7));

    // The host's path by call class (formulas.md, "Achievable: a forward
    // operation by operation"): each class's single calls back to back, and
    // the cost of the same calls interleaved (`host_layer`: each once, back
    // to back) over the sum of their costs alone.
    let host = |op: Operation| rows.iter().filter(move |r| r.op == op);
    let (t, k) = host(Operation::HostKernel).fold((0.0, 0.0), |(t, k), r| {
        (t + r.seconds, k + r.kernels.unwrap_or(1) as f64)
    });
    f.kernel_eager = (k > 0.0).then(|| floor_to(t / k, 1e-7));
    f.attention_eager = median(host(Operation::HostAttention).map(|r| r.seconds).collect())
        .map(|t| floor_to(t, 1e-7));
    f.cached_attention_eager = median(
        host(Operation::HostCachedAttention)
            .map(|r| r.seconds)
            .collect(),
    )
    .map(|t| floor_to(t, 1e-7));
    let alone: f64 = rows
        .iter()
        .filter(|r| {
            matches!(
                r.op,
                Operation::HostGemm
                    | Operation::HostKernel
                    | Operation::HostAttention
                    | Operation::HostCachedAttention
            )
        })
        .map(|r| r.seconds)
        .sum();
    let layer = median(host(Operation::HostLayer).map(|r| r.seconds).collect());
    if let Some(layer) = layer
        && alone > 0.0
    {
        f.interleave = Some((layer / alone * 1000.0).floor() / 1000.0);
    }

    f.power = super::power::fit(rows);

    // Flash attention: efficiency(S) = peak x S / (S + half), fitted as the
    // line 1/eff = 1/peak + (half/peak) / S.
    let pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.op == Operation::AttentionPrefill)
        .filter_map(|r| {
            let rate = f.dense.iter().find(|(d, _)| *d == r.dtype)?.1;
            let eff = r.flops? / r.seconds / rate;
            Some((1.0 / r.seq? as f64, 1.0 / eff))
        })
        .collect();
    if let Some((a, b)) = weighted_line(&pts, |y| 1.0 / (y * y))
        && a > 0.0
        && b >= 0.0
    {
        let peak = 1.0 / a;
        let half = (b / a).round().max(1.0) as u64;
        if peak <= 1.0 {
            f.attention = Some((peak, half));
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_through_two_points() {
        let (a, b) = line(&[(1.0, 3.0), (3.0, 7.0)]).unwrap();
        assert!((a - 1.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12);
    }

    #[test]
    fn floors_round_down() {
        assert!((floor_to(1.0843e-6, 1e-8) - 1.08e-6).abs() < 1e-15);
    }

    #[test]
    fn host_paths_by_class_scaled_by_interleaving() {
        // Alone: 10 + 30 + 20 + 30 + 90 = 180 us; the cycle 216 us: 1.2.
        // Kernels: (10 + 30) / (1 + 3) = 10 us; attention 30; a cached
        // pass's attention 90.
        let text = "operation,kernels,dtype,launch,seconds,device,driver,date\n\
            host_kernel,1,bf16,eager,10e-6,GPU,1,d\n\
            host_kernel,3,bf16,eager,30e-6,GPU,1,d\n\
            host_gemm,,bf16,eager,20e-6,GPU,1,d\n\
            host_attention,,bf16,eager,30e-6,GPU,1,d\n\
            host_cached_attention,,bf16,eager,90e-6,GPU,1,d\n\
            host_layer,,bf16,eager,216e-6,GPU,1,d\n";
        let m = super::super::measurements::parse(text, "h.csv").unwrap();
        let rows: Vec<&Row> = m.rows.iter().collect();
        let f = fit(&rows);
        let near = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-9;
        assert!(near(f.interleave, 1.2), "{:?}", f.interleave);
        assert!(near(f.kernel_eager, 10e-6), "{:?}", f.kernel_eager);
        assert!(near(f.attention_eager, 30e-6), "{:?}", f.attention_eager);
        assert!(near(f.cached_attention_eager, 90e-6));
        // The one host_gemm row is the matmul call's path.
        assert!(near(f.matmul_eager, 20e-6), "{:?}", f.matmul_eager);
        // A host_kernel row without its kernels is refused.
        let bad = "operation,kernels,dtype,launch,seconds,device,driver,date\n\
            host_kernel,,bf16,eager,10e-6,GPU,1,d\n";
        assert!(super::super::measurements::parse(bad, "h.csv").is_err());
    }

    #[test]
    fn kernel_classes_by_their_median_over_kernels() {
        // Norms: 6 us (2 kernels) and 5 us (1): the median of 6, 6 and 5 us,
        // less a byte's work, rounded down to 5.9 us.
        let text = "operation,kernels,bytes,dtype,launch,seconds,device,driver,date\n\
            kernel_norm,2,1,bf16,eager,6e-6,GPU,1,d\n\
            kernel_norm,1,1,bf16,eager,5e-6,GPU,1,d\n\
            kernel_copy,3,4202.7,bf16,eager,2.25e-6,GPU,1,d\n\
            kernel_copy,3,1,bf16,eager,1e-6,GPU,1,d\n";
        let m = super::super::measurements::parse(text, "k.csv").unwrap();
        let rows: Vec<&Row> = m.rows.iter().collect();
        let k = kernel_fixed(&rows, 4202.7e6);
        let get = |c| k.iter().find(|x| x.0 == c).map(|x| (x.1, x.2));
        let (norm, n) = get(KernelClass::Norm).unwrap();
        assert!((norm - 5.9e-6).abs() < 1e-12 && n == 3, "{norm} {n}");
        // Copies: 1.25 us and 1 us, three each: the middle two average
        // 1.125 us, rounded down to 1.1.
        let (copy, _) = get(KernelClass::Copy).unwrap();
        assert!((copy - 1.1e-6).abs() < 1e-12, "{copy}");
        assert!(get(KernelClass::Pointwise).is_none());
        assert_eq!(weighted_median(vec![(1.0, u64::MAX), (2.0, 1)]), Some(1.0));
        // A kernel row needs its kernels and its bytes.
        let bad = "operation,kernels,dtype,launch,seconds,device,driver,date\n\
            kernel_norm,2,bf16,eager,6e-6,GPU,1,d\n";
        assert!(super::super::measurements::parse(bad, "k.csv").is_err());
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(vec![]), None);
    }
}

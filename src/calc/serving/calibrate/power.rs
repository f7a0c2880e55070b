//! The power limit's figures from calibrate.py's power loops (formulas.md,
//! "Calibration: fitting the achievable figures", the power limit): what
//! each class of work draws at the burst clock, attention's clock exponent,
//! the power the board holds at its limit and that of a memory stream; and
//! the loops no figure was taken from, predicted by the step's power-limit
//! solve (`calc::step::power_limit`) on the calibrated file.

use super::measurements::{Operation, Row};
use crate::calc::step::power_limit::{Mix, PowerLimit};
use crate::spec::hardware::Hardware;

/// A loop at or above this share of the burst clock ran at it (nvidia-smi
/// reports the clock in 15 MHz steps: 1% is two of them at 2 GHz).
pub const AT_BURST: f64 = 0.99;

/// An attention loop whose clock fell to this share or below fits the
/// exponent: for a smaller fall, the time ratio it is the logarithm of is
/// within the timing's noise.
pub const FELL: f64 = 0.95;

/// The GEMM power at the burst clock, from one gapped loop that held it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct GemmWatts {
    /// The figure, W.
    pub watts: f64,
    /// The row's line.
    pub line: usize,
    /// Its mean power, W.
    pub power_w: f64,
    /// Its settled call (GEMM and spin), s.
    pub call_s: f64,
    /// The spin's part of it, s.
    pub wait_s: f64,
}

/// One attention loop the figures are fitted on.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct AttentionLoop {
    /// The row's line.
    pub line: usize,
    /// Its sequence length.
    pub seq: u64,
    /// Mean power, W, and SM clock, MHz.
    pub power_w: f64,
    /// Mean SM clock over the settled part, MHz.
    pub clock_mhz: f64,
    /// Settled and first call, s.
    pub settled_s: f64,
    /// The first call, s.
    pub burst_s: f64,
    /// Its power taken to the burst clock, W.
    pub burst_w: f64,
    /// Its exponent.
    pub exponent: f64,
}

/// What the power loops give. Every field `None` (or empty) where the file
/// has no such rows: the base file's figure stays.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct PowerFit {
    /// The highest SM clock any power loop held, MHz: the burst clock.
    pub burst_mhz: Option<f64>,
    /// A waiting GPU (the median `power_wait` row), W, with its rows.
    pub wait_w: Option<(f64, usize)>,
    /// A memory stream (the median `power_stream` row), W, with its rows.
    pub stream_w: Option<(f64, usize)>,
    /// What the board holds at its limit: the median back-to-back
    /// `power_gemm` row whose clock fell, W, with its rows.
    pub compute_w: Option<(f64, usize)>,
    /// GEMMs at the burst clock.
    pub gemm: Option<GemmWatts>,
    /// Why no GEMM figure was written, where rows were there for one.
    pub gemm_refused: Option<String>,
    /// Attention at the burst clock (the mean over `loops`), W.
    pub attention_w: Option<f64>,
    /// Attention's clock exponent (the mean over `loops`, at most 1).
    pub attention_exponent: Option<f64>,
    /// The attention loops fitted on.
    pub loops: Vec<AttentionLoop>,
    /// Lines of the rows a figure was taken from.
    pub fitted: Vec<usize>,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some(0.5 * (v[n / 2 - 1] + v[n / 2])),
    }
}

fn is_power(op: Operation) -> bool {
    matches!(
        op,
        Operation::PowerWait
            | Operation::PowerStream
            | Operation::PowerGemm
            | Operation::PowerAttention
    )
}

/// Fits the figures from the power rows among `rows` (parsing made sure
/// each has its power, clock and times).
pub fn fit(rows: &[&Row]) -> PowerFit {
    let mut f = PowerFit::default();
    let power: Vec<&Row> = rows.iter().copied().filter(|r| is_power(r.op)).collect();
    let Some(burst) = power
        .iter()
        .filter_map(|r| r.sm_clock_mhz)
        .max_by(f64::total_cmp)
    else {
        return f;
    };
    f.burst_mhz = Some(burst);
    let clock = |r: &Row| r.sm_clock_mhz.unwrap_or(0.0);
    let watts = |r: &Row| r.power_w.unwrap_or(0.0);
    let by = |op: Operation, keep: &dyn Fn(&Row) -> bool, fitted: &mut Vec<usize>| {
        let of: Vec<&&Row> = power.iter().filter(|r| r.op == op && keep(r)).collect();
        fitted.extend(of.iter().map(|r| r.line));
        median(of.iter().map(|r| watts(r)).collect()).map(|w| (w, of.len()))
    };
    let mut fitted = Vec::new();
    f.wait_w = by(Operation::PowerWait, &|_| true, &mut fitted);
    f.stream_w = by(Operation::PowerStream, &|_| true, &mut fitted);
    f.compute_w = by(
        Operation::PowerGemm,
        &|r| r.wait_seconds == Some(0.0) && clock(r) < AT_BURST * burst,
        &mut fitted,
    );
    // GEMMs at the burst clock: a loop with spins that held it, less the
    // spins' power over their time; of several, the one whose GEMMs take
    // the largest share of the call (the spins' figure weighs least).
    if let Some((pw, _)) = f.wait_w {
        let share = |r: &Row| 1.0 - r.wait_seconds.unwrap_or(0.0) / r.seconds;
        f.gemm = power
            .iter()
            .filter(|r| {
                r.op == Operation::PowerGemm
                    && r.wait_seconds.is_some_and(|w| w > 0.0)
                    && clock(r) >= AT_BURST * burst
            })
            .max_by(|a, b| share(a).total_cmp(&share(b)))
            .map(|r| {
                let (t, tw) = (r.seconds, r.wait_seconds.unwrap_or(0.0));
                GemmWatts {
                    watts: (watts(r) * t - pw * tw) / (t - tw),
                    line: r.line,
                    power_w: watts(r),
                    call_s: t,
                    wait_s: tw,
                }
            });
        fitted.extend(f.gemm.map(|g| g.line));
    }
    // Attention: each loop whose clock fell gives its power at the burst
    // clock (power proportional to the clock) and the exponent of its
    // time in the clock.
    for r in power.iter().filter(|r| r.op == Operation::PowerAttention) {
        let (fc, tb) = (clock(r), r.burst_seconds.unwrap_or(r.seconds));
        if fc > FELL * burst {
            continue;
        }
        f.loops.push(AttentionLoop {
            line: r.line,
            seq: r.seq.unwrap_or(0),
            power_w: watts(r),
            clock_mhz: fc,
            settled_s: r.seconds,
            burst_s: tb,
            burst_w: watts(r) * burst / fc,
            exponent: (r.seconds / tb).ln() / (burst / fc).ln(),
        });
        fitted.push(r.line);
    }
    if !f.loops.is_empty() {
        let n = f.loops.len() as f64;
        f.attention_w = Some(f.loops.iter().map(|l| l.burst_w).sum::<f64>() / n);
        let b = f.loops.iter().map(|l| l.exponent).sum::<f64>() / n;
        // A clock-bound loop's time grows no faster than the clock falls.
        f.attention_exponent = (b > 0.0).then_some(b.min(1.0));
    }
    fitted.sort_unstable();
    fitted.dedup();
    f.fitted = fitted;
    f
}

impl PowerFit {
    /// Drops the GEMM figure where it is not above what the board holds
    /// (`compute_w`, else the base file's): the board never limited those
    /// GEMMs, so the step's solve has nothing to act on.
    pub fn settle(&mut self, base_compute_w: Option<f64>) {
        let limit = self.compute_w.map(|c| c.0).or(base_compute_w);
        if let (Some(g), Some(l)) = (self.gemm, limit)
            && g.watts <= l
        {
            self.gemm_refused = Some(format!(
                "the GEMMs at the burst clock drew {:.1} W (line {}), not above the {l:.1} W the board holds at its limit: power-limit.gemm-watts left as the base file has it",
                g.watts, g.line
            ));
            self.fitted.retain(|l| *l != g.line);
            self.gemm = None;
        }
    }

    /// Whether any figure came from the rows.
    pub fn any(&self) -> bool {
        self.wait_w.is_some()
            || self.stream_w.is_some()
            || self.compute_w.is_some()
            || self.gemm.is_some()
            || self.attention_w.is_some()
    }
}

/// A power loop against what the calibrated file's power-limit solve
/// gives for it, from its first call's time split by class.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PowerCheck {
    /// Line in the measurement file.
    pub line: usize,
    /// The row's operation.
    pub operation: &'static str,
    /// The loop in words.
    pub shape: String,
    /// Whether no figure was taken from it.
    pub held_out: bool,
    /// Settled call, measured and predicted, s.
    pub measured_s: f64,
    /// The solve's call at its clock, s.
    pub predicted_s: f64,
    /// SM clock, measured and predicted, MHz.
    pub measured_mhz: f64,
    /// The solve's clock, MHz.
    pub predicted_mhz: f64,
    /// Board power, measured and predicted, W.
    pub measured_w: f64,
    /// The solve's time-weighted power, W.
    pub predicted_w: f64,
}

impl PowerCheck {
    /// Relative errors of (time, clock, power).
    pub fn errors(&self) -> (f64, f64, f64) {
        let e = |p: f64, m: f64| (p - m).abs() / m;
        (
            e(self.predicted_s, self.measured_s),
            e(self.predicted_mhz, self.measured_mhz),
            e(self.predicted_w, self.measured_w),
        )
    }
}

/// Every GEMM and attention power loop of `rows` through `hw`'s solve;
/// empty where `hw` lacks a figure the solve needs or the rows a burst
/// clock.
pub fn check(rows: &[Row], hw: &Hardware, fit: &PowerFit) -> Vec<PowerCheck> {
    let Some(burst) = fit.burst_mhz else {
        return Vec::new();
    };
    let a = hw.achievable.as_ref();
    let mut out = Vec::new();
    for r in rows {
        let attention = match r.op {
            Operation::PowerGemm => false,
            Operation::PowerAttention => true,
            _ => continue,
        };
        let rate = a.and_then(|a| a.dense.get(&r.dtype));
        let sustained = a.and_then(|a| a.sustained.get(&r.dtype));
        let Some(p) = rate.and_then(|rate| PowerLimit::of(hw, rate, sustained)) else {
            continue;
        };
        let tb = r.burst_seconds.unwrap_or(r.seconds);
        let wait = r.wait_seconds.unwrap_or(0.0).min(tb);
        let m = if attention {
            Mix {
                attention_s: tb,
                ..Mix::default()
            }
        } else {
            Mix {
                gemm_s: tb - wait,
                wait_s: wait,
                ..Mix::default()
            }
        };
        let x = p.clock(&m);
        let (g, at) = (
            m.gemm_s * p.stretch(x, false),
            m.attention_s * p.stretch(x, true),
        );
        let t = p.time(&m, x);
        let w = (p.gemm_w * x * g + p.attention_w * x * at + p.wait_w * m.wait_s) / t;
        let shape = match r.op {
            Operation::PowerGemm => format!(
                "{} {}x{}x{}, spin {:.0}% of the first call",
                r.dtype,
                r.m.unwrap_or(0),
                r.n.unwrap_or(0),
                r.k.unwrap_or(0),
                100.0 * wait / tb
            ),
            _ => format!("{} S={}", r.dtype, r.seq.unwrap_or(0)),
        };
        out.push(PowerCheck {
            line: r.line,
            operation: r.op.name(),
            shape,
            held_out: !fit.fitted.contains(&r.line),
            measured_s: r.seconds,
            predicted_s: t,
            measured_mhz: r.sm_clock_mhz.unwrap_or(0.0),
            predicted_mhz: x * burst,
            measured_w: r.power_w.unwrap_or(0.0),
            predicted_w: w,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::calibrate::measurements::parse;

    const HEAD: &str = "operation,m,n,k,batch,seq,heads,kv_heads,head_dim,bytes,dtype,launch,seconds,burst_seconds,wait_seconds,power_w,sm_clock_mhz,device,driver,date";

    fn fit_of(rows: &str) -> PowerFit {
        let m = parse(&format!("{HEAD}\n{rows}"), "p.csv").unwrap();
        let r: Vec<&Row> = m.rows.iter().collect();
        fit(&r)
    }

    #[test]
    fn each_figure_by_hand() {
        // Spins 100 W; GEMMs of 1 ms with a 1 ms spin at 2,000 MHz, 500 W:
        // (500 x 2 - 100 x 1) / 1 = 900 W. Back to back at 1,500 MHz and
        // 700 W: the limit. Attention settled at 1,600 MHz, 12 ms against
        // 10 ms first, 650 W: 650 x 2000 / 1600 = 812.5 W, exponent
        // ln 1.2 / ln 1.25 = 0.817.
        let f = fit_of(
            "power_wait,,,,,,,,,,fp32,graph,1e-3,1e-3,,100,2000,G,1,d\n\
             power_gemm,8,8,8,,,,,,,bf16,graph,2e-3,2e-3,1e-3,500,2000,G,1,d\n\
             power_gemm,8,8,8,,,,,,,bf16,graph,1.2e-3,1e-3,0,700,1500,G,1,d\n\
             power_attention,,,,1,8192,32,8,128,,bf16,graph,12e-3,10e-3,,650,1600,G,1,d\n\
             power_attention,,,,1,2048,32,8,128,,bf16,graph,5e-3,4.9e-3,,680,1960,G,1,d\n\
             power_stream,,,,,,,,,1e9,fp32,graph,3e-4,3e-4,,600,2000,G,1,d\n",
        );
        assert_eq!(f.burst_mhz, Some(2000.0));
        assert_eq!(f.wait_w, Some((100.0, 1)));
        assert_eq!(f.stream_w, Some((600.0, 1)));
        assert_eq!(f.compute_w, Some((700.0, 1)));
        assert!((f.gemm.unwrap().watts - 900.0).abs() < 1e-9);
        assert!((f.attention_w.unwrap() - 812.5).abs() < 1e-9);
        let b = 1.2f64.ln() / 1.25f64.ln();
        assert!((f.attention_exponent.unwrap() - b).abs() < 1e-12);
        // The 2k loop's clock fell 2%: not fitted on, so held out.
        assert_eq!(f.fitted, vec![2, 3, 4, 5, 7]);
    }

    #[test]
    fn no_power_rows_no_figures() {
        let f = fit_of("hbm_read,,,,,,,,,1e9,fp32,eager,1e-3,,,,,G,1,d\n");
        assert!(!f.any());
        assert_eq!(f.burst_mhz, None);
    }

    #[test]
    fn gemms_that_never_reach_the_limit_leave_the_figure() {
        let mut f = fit_of(
            "power_wait,,,,,,,,,,fp32,graph,1e-3,1e-3,,100,2000,G,1,d\n\
             power_gemm,8,8,8,,,,,,,bf16,graph,2e-3,2e-3,1e-3,300,2000,G,1,d\n",
        );
        assert!((f.gemm.unwrap().watts - 500.0).abs() < 1e-9);
        f.settle(Some(692.8));
        assert!(f.gemm.is_none());
        assert!(f.gemm_refused.as_deref().unwrap().contains("line 3"));
    }
}

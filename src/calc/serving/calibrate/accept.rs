//! Accept only what helps (formulas.md, "Calibration: accepting a
//! figure"): each fitted figure is tried on top of those already taken,
//! and kept only where the held-out rows and whole steps whose prediction
//! it changes are, by their median relative error, no worse than under the
//! figure in force (the base file's, at first). A direct reading (a
//! stream, a launch cost, a host call) that no checked row depends on is
//! taken as measured; a model parameter (a GEMM rate, the kernel overhead,
//! attention's curve) that none checks is kept at the base's value.

use super::fit::{Figures, median};
use super::measurements::{Measurements, OPERATIONS};
use crate::error::Error;
use crate::spec::hardware::Hardware;

/// A figure's held-out error may rise by this much (a share) and still
/// count as no worse: below the timing noise of one row, and what keeps a
/// figure that changes predictions only in their last digits.
pub const TOLERANCE: f64 = 1e-4;

/// A model parameter is taken only where at least this many checked rows
/// depend on it: one held-out row does not show a curve helps (a file of
/// five attention rows holds out one).
pub const MIN_PARAMETER_ROWS: usize = 3;

/// How far the host's path moves between processes on one machine (the
/// same calls timed in two processes of one lease ran 1.1 to 1.35 times
/// apart; docs/validation.md, "Host path"): host figures are taken from a
/// file's eager steps only where the base misses them by more than this,
/// and the fitted ones do better; a smaller miss is the process's noise,
/// and fitting it would make the next process's answers worse.
pub const HOST_SPREAD: f64 = 0.15;

/// One fitted figure's fate.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Decision {
    /// Its key in the hardware file (`achievable.dense.bf16`).
    pub figure: String,
    /// The fitted value, in words.
    pub fitted: String,
    /// The base file's value, in words.
    pub prior: String,
    /// Whether it went into the file.
    pub accepted: bool,
    /// Checked rows whose prediction it changed.
    pub rows: usize,
    /// Their median error under the figure in force before, and under it.
    pub errors: Option<(f64, f64)>,
    /// Why, in words.
    pub why: String,
}

/// The figures taken so far and their predictions of the checked rows.
pub struct Gate<'a> {
    current: Hardware,
    predicted: Vec<Option<f64>>,
    measured: &'a [f64],
    decisions: Vec<Decision>,
    /// The base's error a figure must improve on before it is taken (0:
    /// any; [`HOST_SPREAD`] for the host's path).
    pub floor: f64,
}

/// A note where `v` lies outside `lo` to `hi` times the base's `prior`.
pub fn plausible(v: f64, prior: Option<f64>, lo: f64, hi: f64) -> Option<String> {
    let p = prior.filter(|p| *p > 0.0)?;
    let x = v / p;
    (!(lo..=hi).contains(&x)).then(|| {
        format!("{x:.2} times the base's value, outside the plausible {lo:.2} to {hi:.2} times")
    })
}

impl<'a> Gate<'a> {
    /// Starts from the base file and its predictions of the checked rows
    /// (measured `measured`).
    pub fn new(base: Hardware, predicted: Vec<Option<f64>>, measured: &'a [f64]) -> Self {
        Gate {
            current: base,
            predicted,
            measured,
            decisions: Vec::new(),
            floor: 0.0,
        }
    }

    /// The file with every figure taken so far.
    pub fn current(&self) -> &Hardware {
        &self.current
    }

    /// Tries `figure` (in force in `hw`, whose predictions of the checked
    /// rows are `predicted`): taken when the rows it changes are no worse;
    /// `direct` says whether it is a reading (taken when nothing checks
    /// it) or a model parameter (kept). `outside` notes a value outside its
    /// plausible range.
    #[allow(clippy::too_many_arguments)]
    pub fn try_figure(
        &mut self,
        figure: &str,
        fitted: String,
        prior: String,
        outside: Option<String>,
        hw: &Hardware,
        direct: bool,
        predicted: Vec<Option<f64>>,
    ) -> bool {
        let mut before = Vec::new();
        let mut after = Vec::new();
        for ((a, b), m) in self.predicted.iter().zip(&predicted).zip(self.measured) {
            if let (Some(a), Some(b)) = (a, b)
                && (a - b).abs() > 1e-9 * a.abs()
            {
                before.push((a - m).abs() / m);
                after.push((b - m).abs() / m);
            }
        }
        let rows = before.len();
        let errors = median(before).zip(median(after));
        let (accepted, mut why) = match errors {
            Some(_) if !direct && rows < MIN_PARAMETER_ROWS => (
                false,
                format!(
                    "a model parameter only {rows} checked row(s) depend on, fewer than {MIN_PARAMETER_ROWS}: too few to show it helps"
                ),
            ),
            Some((e0, e1)) if self.floor > 0.0 && e0 <= self.floor => (
                false,
                format!(
                    "the {rows} checked rows it changes are {:.1}% off with the figures in force, within the {:.0}% the host's path moves between processes ({:.1}% with it)",
                    100.0 * e0,
                    100.0 * self.floor,
                    100.0 * e1
                ),
            ),
            Some((e0, e1)) if e1 <= e0 + TOLERANCE => (
                true,
                format!(
                    "held-out median error over the {rows} checked rows it changes {:.1}% -> {:.1}%",
                    100.0 * e0,
                    100.0 * e1
                ),
            ),
            Some((e0, e1)) => (
                false,
                format!(
                    "it would make the held-out median error over the {rows} checked rows it changes worse, {:.1}% -> {:.1}%",
                    100.0 * e0,
                    100.0 * e1
                ),
            ),
            None if direct => (
                true,
                "a direct reading; no held-out row or whole step of the file depends on it, so nothing checked it".to_string(),
            ),
            None => (
                false,
                "a model parameter no held-out row or whole step of the file depends on, so nothing shows it helps".to_string(),
            ),
        };
        if let Some(o) = outside {
            why = format!("{why}; {o}");
        }
        if accepted {
            self.current = hw.clone();
            self.predicted = predicted;
        }
        self.decisions.push(Decision {
            figure: figure.to_string(),
            fitted,
            prior,
            accepted,
            rows,
            errors,
            why,
        });
        accepted
    }

    /// The decisions made.
    pub fn finish(self) -> Vec<Decision> {
        self.decisions
    }
}

/// `f` with each sustained rate in force (its own, else the base file's)
/// at most the burst rate in force, so the file written is one `--hw`
/// accepts: a base's sustained rate above a lower calibrated burst rate is
/// written as that burst rate (`sustained_capped` names it).
pub fn capped(f: &Figures, base: &Hardware) -> Figures {
    let mut out = f.clone();
    let a = base.achievable.as_ref();
    for d in ["bf16", "fp16", "fp8", "fp32", "tf32", "int8"] {
        let burst = f
            .dense
            .iter()
            .find(|x| x.0 == d)
            .map(|x| x.1)
            .or_else(|| a.and_then(|a| a.dense.get(d)));
        let sustained = f
            .sustained
            .iter()
            .find(|x| x.0 == d)
            .map(|x| x.1)
            .or_else(|| a.and_then(|a| a.sustained.get(d)));
        if let (Some(b), Some(s)) = (burst, sustained)
            && s > b
        {
            out.sustained.retain(|x| x.0 != d);
            out.sustained.push((d.to_string(), b, None, None));
            out.sustained_capped.push(d.to_string());
        }
    }
    out
}

/// The refusal of a file whose rows identify no figure: what it holds and
/// what each figure needs.
pub fn nothing_to_fit(m: &Measurements, file: &str) -> Error {
    let mut held: Vec<String> = Vec::new();
    for (name, op) in OPERATIONS {
        let n = m.rows.iter().filter(|r| r.op == op).count();
        if n > 0 {
            held.push(format!("{n} {name}"));
        }
    }
    Error::at_line(
        file,
        1,
        "operation",
        format!(
            "its {} rows ({}) identify no figure; calibrate needs at least one of: an hbm_read, hbm_copy or eager power_stream row (the stream bandwidth), launch rows (launch costs), two graph gemm rows of 100 GFLOP or more per precision (its GEMM rate), kernel_sweep rows at three or more kernel counts (the kernel overhead), three attention_prefill rows (attention's curve), kernel_* rows (kernel classes), host_* rows (the host's path), a compute_sustained row, or power_* rows (the power limit); validation/calibrate.py writes them all",
            m.rows.len(),
            held.join(", ")
        ),
    )
}

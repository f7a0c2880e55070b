//! `calibrate`: the `[achievable]` figures of a part from a measurement
//! file of `validation/calibrate.py`, fitted on part of its rows and
//! checked on the rest (formulas.md, "Calibration: fitting the achievable
//! figures").
//!
//! Typed inputs (the base part, the file's text) -> [`Calibrated`] (the
//! figures, the held-out checks, the new file's text) -> a report. The
//! split is fixed, not random: within each operation and precision, every
//! fourth row (the third of each four) is held out, so the same file always
//! gives the same fit. Rows measured only once (the stream, the launch
//! costs, the compute loops) are fitted on, never held out: the held-out
//! error is that of the figures that come from many rows (GEMM rates and
//! the kernel overhead, attention) and of whole decode steps, which no
//! figure is fitted on.

pub mod fit;
pub mod measurements;
pub mod predict;
pub mod refine;
pub mod write;

use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Unit};
use crate::spec::Origin;
use crate::spec::hardware::Hardware;
use crate::spec::model::Model;
use fit::Figures;
use measurements::{LaunchMode, Measurements, Operation, Row};
use predict::Check;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
pub use write::HeldOut;

/// What held-out rows are, in words (written into the file).
pub const HELD_OUT_RULE: &str = "every fourth gemm (graph), attention_prefill, attention_decode and decode_step row of each precision (the third of each four), predicted from figures fitted on the rest";

/// The inputs of one calibration.
pub struct Inputs<'a> {
    /// The base part, parsed.
    pub base: &'a Hardware,
    /// Its text.
    pub base_text: &'a str,
    /// The measurement file's text.
    pub csv: &'a str,
    /// The measurement file as named to the user.
    pub file: &'a str,
    /// The id of the file written (its file stem).
    pub id: &'a str,
    /// Accept a device name that does not match the base part.
    pub force: bool,
    /// Resolves a catalog model id named by a decode_step row.
    pub model: &'a dyn Fn(&str) -> Result<std::rc::Rc<Model>>,
}

/// A finished calibration.
#[derive(Debug, Clone)]
pub struct Calibrated {
    /// The base part's id.
    pub base: String,
    /// The measurement file's rows.
    pub measurements: Measurements,
    /// Its SHA-256.
    pub sha256: String,
    /// The fitted figures.
    pub figures: Figures,
    /// The held-out rows against their predictions.
    pub checks: Vec<Check>,
    /// Their summary.
    pub held_out: HeldOut,
    /// The calibrated hardware file's text.
    pub toml: String,
    /// The calibrated hardware, parsed from that text.
    pub hardware: Hardware,
    /// Whether the device name matched the base part (false only with
    /// `force`).
    pub device_matches: bool,
}

/// The product token of a device name: its first word holding a digit
/// that is not a memory size (`H200` of "NVIDIA H200", `MI300X` of "AMD
/// Instinct MI300X", `4090` of "NVIDIA GeForce RTX 4090").
fn product_token(name: &str) -> Option<String> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .find(|w| {
            w.chars().any(|c| c.is_ascii_digit())
                && !(w.ends_with("gb") && w[..w.len() - 2].chars().all(|c| c.is_ascii_digit()))
        })
}

/// Whether the runtime's device name is the base part: its product token
/// appears among the base's id and name words.
pub fn device_matches(device: &str, base: &Hardware) -> bool {
    let Some(tok) = product_token(device) else {
        return false;
    };
    let words: Vec<String> = base
        .id
        .split(|c: char| !c.is_ascii_alphanumeric())
        .chain(base.name.split(|c: char| !c.is_ascii_alphanumeric()))
        .map(str::to_ascii_lowercase)
        .collect();
    words.contains(&tok)
}

fn held_out(rows: &[Row]) -> Vec<bool> {
    let mut seen: BTreeMap<(Operation, String), usize> = BTreeMap::new();
    rows.iter()
        .map(|r| {
            let eligible = match r.op {
                Operation::Gemm => r.launch == LaunchMode::Graph,
                Operation::AttentionPrefill
                | Operation::AttentionDecode
                | Operation::DecodeStep => true,
                _ => false,
            };
            if !eligible {
                return false;
            }
            let i = seen.entry((r.op, r.dtype.clone())).or_default();
            *i += 1;
            *i % 4 == 3
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn summary(checks: &[Check]) -> HeldOut {
    let mut e: Vec<f64> = checks.iter().map(|c| c.error).collect();
    e.sort_by(f64::total_cmp);
    let n = e.len();
    let median = match n {
        0 => 0.0,
        _ if n % 2 == 1 => e[n / 2],
        _ => 0.5 * (e[n / 2 - 1] + e[n / 2]),
    };
    HeldOut {
        points: n,
        median_error: median,
        worst_error: e.last().copied().unwrap_or(0.0),
    }
}

/// Fits `inputs`' measurements, checks the held-out rows and writes the
/// calibrated file.
pub fn calibrate(inputs: &Inputs) -> Result<Calibrated> {
    let m = measurements::parse(inputs.csv, inputs.file)?;
    let base = inputs.base;
    let row_err =
        |r: &Row, field: &str, message: String| Error::at_line(inputs.file, r.line, field, message);
    let matches = device_matches(&m.provenance.device, base);
    if !matches && !inputs.force {
        let first = &m.rows[0];
        return Err(row_err(
            first,
            "device",
            format!(
                "measured on `{}`, which is not the base part `{}` ({}); give the part it was measured on as --hw, or --force to fit this base anyway",
                m.provenance.device, base.id, base.name
            ),
        ));
    }
    // Every precision the rows name must be one the base part has a
    // datasheet peak for (a measured rate is checked against it).
    let mut models: BTreeMap<String, std::rc::Rc<Model>> = BTreeMap::new();
    for r in &m.rows {
        if matches!(
            r.op,
            Operation::Gemm
                | Operation::AttentionPrefill
                | Operation::ComputeShort
                | Operation::ComputeSustained
        ) && base.compute.dense.get(&r.dtype).is_none()
        {
            return Err(row_err(
                r,
                "dtype",
                format!(
                    "`{}` has no {} peak in its hardware file, so a {} rate cannot be checked against it",
                    base.id, r.dtype, r.dtype
                ),
            ));
        }
        if let Some(id) = &r.model
            && !models.contains_key(id)
        {
            let model = (inputs.model)(id).map_err(|e| {
                row_err(
                    r,
                    "model",
                    format!("`{id}` is not a model the catalog knows ({e})"),
                )
            })?;
            models.insert(id.clone(), model);
        }
    }
    let sha256 = hex(&Sha256::digest(inputs.csv.as_bytes()));
    let held = held_out(&m.rows);
    let fitting: Vec<&Row> = m
        .rows
        .iter()
        .zip(&held)
        .filter(|(_, h)| !**h)
        .map(|(r, _)| r)
        .collect();
    let mut figures = fit::fit(&fitting);
    // Each kernel class's work is its bytes at the stream bandwidth: the
    // file's, else the base file's.
    if let Some(bw) = figures.hbm_bandwidth.or_else(|| {
        base.achievable
            .as_ref()
            .and_then(|a| a.hbm_bandwidth)
            .map(|b| b.get())
    }) {
        figures.kernel_fixed = fit::kernel_fixed(&fitting, bw);
    }
    let origin = write::Origin {
        base: &base.id,
        file: inputs.file,
        sha256: &sha256,
        provenance: &m.provenance,
        held_out_rule: HELD_OUT_RULE,
    };
    let out_name = format!("{}.toml", inputs.id);
    let parse = |text: &str| {
        Hardware::parse(
            text,
            &Origin {
                name: out_name.clone(),
                overridden: false,
            },
        )
    };
    let first = write::text(inputs.base_text, inputs.id, &figures, &origin, None)?;
    let mut hw = parse(&first)?;
    // The GEMM rate and kernel overhead, and attention's two figures, are
    // the model's parameters: searched for its least error on the fitting
    // rows, then written back.
    if let Some((e, n)) = refine::gemm(&mut hw, &fitting)? {
        let a = hw.achievable.as_ref();
        for (d, r) in figures.dense.iter_mut() {
            if let Some(v) = a.and_then(|a| a.dense.get(d)) {
                *r = v;
            }
        }
        figures.kernel_overhead = a.and_then(|a| a.kernel_overhead).map(|s| s.get());
        figures.gemm_fit = Some((e, n));
    }
    if let Some((e, n)) = refine::attention(&mut hw, &fitting)? {
        figures.attention = hw
            .achievable
            .as_ref()
            .and_then(|a| a.attention.as_ref())
            .and_then(|at| Some((at.peak_fraction?, at.half_length?.get())));
        figures.attention_fit = Some((e, n));
    }
    let second = write::text(inputs.base_text, inputs.id, &figures, &origin, None)?;
    let hw = parse(&second)?;
    let mut checks = Vec::new();
    for (r, _) in m.rows.iter().zip(&held).filter(|(_, h)| **h) {
        let model = r.model.as_ref().and_then(|id| models.get(id)).map(|m| &**m);
        if let Some(p) = predict::predict(r, &hw, model)? {
            checks.push(Check {
                line: r.line,
                operation: r.op.name(),
                shape: predict::shape_words(r),
                measured_s: r.seconds,
                predicted_s: p,
                error: (p - r.seconds).abs() / r.seconds,
            });
        }
    }
    let held_out = summary(&checks);
    let toml = write::text(
        inputs.base_text,
        inputs.id,
        &figures,
        &origin,
        Some(held_out),
    )?;
    let hardware = parse(&toml)?;
    Ok(Calibrated {
        base: base.id.clone(),
        measurements: m,
        sha256,
        figures,
        checks,
        held_out,
        toml,
        hardware,
        device_matches: matches,
    })
}

impl Calibrated {
    /// The report: the fitted figures, the held-out error, the worst
    /// points.
    pub fn report(&self) -> Report {
        let mut r = Report::new("calibrate");
        r.hardware = Some(self.hardware.id.clone());
        r.input("base", self.base.clone());
        r.input("device", self.measurements.provenance.device.clone());
        r.input("driver", self.measurements.provenance.driver.clone());
        r.input("date", self.measurements.provenance.date.clone());
        r.input("sha256", self.sha256.clone());
        r.input("rows", self.measurements.rows.len() as u64);
        let q = |what: &str, unit: Unit| Quantity::new(what, unit);
        r.result(
            "points",
            self.held_out.points as u64,
            q("held-out measurements predicted", Unit::Count),
        );
        r.result(
            "median_error",
            self.held_out.median_error,
            q(
                "median relative error on the held-out points",
                Unit::Fraction,
            ),
        );
        r.result(
            "worst_error",
            self.held_out.worst_error,
            q(
                "worst relative error on the held-out points",
                Unit::Fraction,
            ),
        );
        // The error per kind of point: a decode step is not a GEMM.
        let mut kinds: Vec<&str> = self.checks.iter().map(|c| c.operation).collect();
        kinds.sort_unstable();
        kinds.dedup();
        for k in kinds {
            let of: Vec<Check> = self
                .checks
                .iter()
                .filter(|c| c.operation == k)
                .cloned()
                .collect();
            let s = summary(&of);
            r.result(
                format!("{k}_points"),
                s.points as u64,
                q(&format!("held-out {k} points"), Unit::Count),
            );
            r.result(
                format!("{k}_median_error"),
                s.median_error,
                q(&format!("median error, {k}"), Unit::Fraction),
            );
            r.result(
                format!("{k}_worst_error"),
                s.worst_error,
                q(&format!("worst error, {k}"), Unit::Fraction),
            );
        }
        let f = &self.figures;
        if let Some(b) = f.hbm_bandwidth {
            r.result(
                "hbm_bandwidth_bytes_per_s",
                b,
                q("stream read bandwidth", Unit::BytesPerSec),
            );
        }
        for (d, v) in &f.dense {
            r.result(
                format!("dense_{d}_flops_per_s"),
                *v,
                q(
                    &format!("{d} GEMM rate of a full wave of unpadded tiles (fitted)"),
                    Unit::FlopPerSec,
                ),
            );
        }
        for (d, v, _, _) in &f.sustained {
            r.result(
                format!("sustained_{d}_flops_per_s"),
                *v,
                q(&format!("{d} rate a long loop held"), Unit::FlopPerSec),
            );
        }
        for (k, v, what) in [
            ("launch_eager_s", f.launch_eager, "launch, eager"),
            (
                "launch_synchronised_s",
                f.launch_synchronised,
                "launch, synchronised",
            ),
            ("launch_graph_s", f.launch_graph, "launch, CUDA graph"),
            (
                "kernel_overhead_s",
                f.kernel_overhead,
                "fixed GPU time per kernel",
            ),
            (
                "matmul_eager_s",
                f.matmul_eager,
                "host path of one eager matmul",
            ),
            (
                "kernel_eager_s",
                f.kernel_eager,
                "host path per eager elementwise kernel, alone",
            ),
            (
                "attention_eager_s",
                f.attention_eager,
                "host path of one eager attention call, alone",
            ),
            (
                "cached_attention_eager_s",
                f.cached_attention_eager,
                "host path of an eager pass's attention over a cached prefix, alone",
            ),
        ] {
            if let Some(v) = v {
                r.result(k, v, q(what, Unit::Seconds));
            }
        }
        for (class, v, _) in &f.kernel_fixed {
            r.result(
                format!("kernel_fixed_{}_s", class.key().replace('-', "_")),
                *v,
                q(
                    &format!("fixed time of a {} kernel", class.key()),
                    Unit::Seconds,
                ),
            );
        }
        if let Some(x) = f.interleave {
            r.result(
                "call_interleave",
                x,
                q(
                    "host path of calls interleaved over their paths alone",
                    Unit::Ratio,
                ),
            );
        }
        if let Some((p, h)) = f.attention {
            r.result(
                "attention_peak_fraction",
                p,
                q(
                    "flash attention's share of the dense rate at long sequences",
                    Unit::Fraction,
                ),
            );
            r.result(
                "attention_half_length",
                h,
                q("sequence length at half that share", Unit::Count),
            );
        }
        r.headline(&["points", "median_error", "worst_error"]);
        if !self.device_matches {
            r.note(format!(
                "--force: measured on `{}`, fitted onto `{}`",
                self.measurements.provenance.device, self.base
            ));
        }
        let mut worst: Vec<&Check> = self.checks.iter().collect();
        worst.sort_by(|a, b| b.error.total_cmp(&a.error));
        for c in worst.iter().take(3) {
            r.note(format!(
                "held out, line {}: {} {} measured {:.3e} s, predicted {:.3e} s ({:+.1}%)",
                c.line,
                c.operation,
                c.shape,
                c.measured_s,
                c.predicted_s,
                100.0 * (c.predicted_s - c.measured_s) / c.measured_s
            ));
        }
        r.note(format!(
            "kept from `{}`: the pointer-chase latencies, GEMM tiles and K split, link bandwidth, bus efficiency and collective call costs (calibrate.py runs on one GPU and reads no kernel names)",
            self.base
        ));
        r
    }
}

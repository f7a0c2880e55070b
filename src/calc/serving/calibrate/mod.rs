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

pub mod accept;
pub mod fit;
pub mod measurements;
pub mod power;
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
pub const HELD_OUT_RULE: &str = "every fourth gemm (graph), grouped_gemm (graph), attention_prefill, attention_decode and kernel_sweep row of each precision (the third of each four), and every decode_step and prefill_step row (no figure is fitted on a whole step), predicted from figures fitted on the rest";

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
    /// The GEMM and attention power loops through the calibrated file's
    /// power-limit solve.
    pub power_checks: Vec<power::PowerCheck>,
    /// Each measured figure: taken, or kept at the base's value, and why.
    pub decisions: Vec<accept::Decision>,
    /// What else the output says (bounds applied, caps).
    pub notes: Vec<String>,
    /// Every figure as fitted, taken or not (`figures` holds those taken).
    pub fitted: Figures,
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
                Operation::Gemm | Operation::GroupedGemm | Operation::KernelSweep => {
                    r.launch == LaunchMode::Graph
                }
                Operation::AttentionPrefill | Operation::AttentionDecode => true,
                Operation::DecodeStep | Operation::PrefillStep => return true,
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
    let of = |e: Vec<f64>| {
        (
            fit::median(e.clone()).unwrap_or(0.0),
            e.into_iter().fold(0.0, f64::max),
        )
    };
    let (median, worst) = of(checks.iter().map(|c| c.error).collect());
    let (sm, sw) = of(checks.iter().map(|c| c.shipped_error).collect());
    HeldOut {
        points: checks.len(),
        median_error: median,
        worst_error: worst,
        shipped_median_error: sm,
        shipped_worst_error: sw,
    }
}

/// Fits `inputs`' measurements, checks the held-out rows and writes the
/// calibrated file: each figure fitted from the rows that identify it,
/// bounded, and taken only where the held-out rows and whole steps it
/// changes are no worse for it (`accept`).
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
                crate::units::excerpt(&m.provenance.device, 40),
                base.id,
                base.name
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
                | Operation::GroupedGemm
                | Operation::AttentionPrefill
                | Operation::ComputeShort
                | Operation::ComputeSustained
                | Operation::KernelSweep
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
            && matches!(r.op, Operation::DecodeStep | Operation::PrefillStep)
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
    let checked: Vec<&Row> = m
        .rows
        .iter()
        .zip(&held)
        .filter(|(_, h)| **h)
        .map(|(r, _)| r)
        .collect();
    let mut fitted = fit::fit(&fitting);
    fitted
        .power
        .settle(base.package.as_ref().and_then(|p| p.compute_watts));
    let mut notes = Vec::new();
    // Physical bounds: no stream above the datasheet's bandwidth.
    let sheet_bw = base.memory.hbm_bandwidth.map(|b| b.get());
    if let (Some(b), Some(sheet)) = (fitted.hbm_bandwidth, sheet_bw)
        && b > sheet
    {
        notes.push(format!(
            "the stream measured {:.1} GB/s, above the datasheet's {:.1} GB/s: taken as the datasheet's",
            b / 1e9,
            sheet / 1e9
        ));
        fitted.hbm_bandwidth = Some(sheet);
    }
    let kept: Vec<String> = Vec::new();
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
    let write_with = |f: &Figures, held: Option<HeldOut>, kept: &[String]| -> Result<String> {
        let o = write::Origin {
            base: &base.id,
            file: inputs.file,
            sha256: &sha256,
            provenance: &m.provenance,
            held_out_rule: HELD_OUT_RULE,
            kept,
        };
        write::text(
            inputs.base_text,
            inputs.id,
            &accept::capped(f, base),
            &o,
            held,
        )
    };
    let build = |f: &Figures| -> Result<Hardware> { parse(&write_with(f, None, &kept)?) };
    let price = |hw: &Hardware| -> Vec<Option<f64>> {
        checked
            .iter()
            .map(|r| {
                let model = r.model.as_ref().and_then(|id| models.get(id)).map(|m| &**m);
                predict::predict(r, hw, model).ok().flatten()
            })
            .collect()
    };
    let measured: Vec<f64> = checked.iter().map(|r| r.seconds).collect();
    let shipped = price(base);
    let mut gate = accept::Gate::new(base.clone(), shipped.clone(), &measured);
    let mut acc = Figures::default();
    // Every value fitted, taken or not (the report's and tests' record).
    let mut tried = fitted.clone();
    let prior = base.achievable.as_ref();
    let us = |s: Option<f64>| s.map_or("none".to_string(), |s| format!("{:.2} us", s * 1e6));

    // The stream.
    if let Some(b) = fitted.hbm_bandwidth {
        let mut c = acc.clone();
        c.hbm_bandwidth = Some(b);
        c.stream_row = fitted.stream_row;
        let p = prior.and_then(|a| a.hbm_bandwidth).map(|b| b.get());
        let hw = build(&c)?;
        if gate.try_figure(
            "achievable.hbm-bandwidth",
            format!("{:.1} GB/s", b / 1e9),
            p.map_or("none".into(), |p| format!("{:.1} GB/s", p / 1e9)),
            accept::plausible(b, p, 0.75, 1.25),
            &hw,
            true,
            price(&hw),
        ) {
            acc = c;
        }
    }
    // Launch costs, each mode its own reading.
    let pl = prior.and_then(|a| a.launch.as_ref());
    for (key, v, p) in [
        (
            "achievable.launch.graph",
            fitted.launch_graph,
            pl.and_then(|l| l.graph),
        ),
        (
            "achievable.launch.eager",
            fitted.launch_eager,
            pl.and_then(|l| l.eager),
        ),
        (
            "achievable.launch.synchronised",
            fitted.launch_synchronised,
            pl.and_then(|l| l.synchronised),
        ),
    ] {
        let Some(v) = v else { continue };
        let mut c = acc.clone();
        match key {
            "achievable.launch.graph" => c.launch_graph = Some(v),
            "achievable.launch.eager" => c.launch_eager = Some(v),
            _ => c.launch_synchronised = Some(v),
        }
        let p = p.map(|s| s.get());
        let hw = build(&c)?;
        if gate.try_figure(
            key,
            us(Some(v)),
            us(p),
            accept::plausible(v, p, 1.0 / 3.0, 3.0),
            &hw,
            true,
            price(&hw),
        ) {
            acc = c;
        }
    }
    // Kernel overhead from the kernel-count sweep: its slope less the graph
    // launch now in force.
    if let Some((slope, n)) = fitted.overhead_sweep {
        let graph = acc
            .launch_graph
            .or_else(|| pl.and_then(|l| l.graph).map(|s| s.get()))
            .unwrap_or(0.0);
        let v = fit::floor_to((slope - graph).max(0.0), 1e-8);
        let mut c = acc.clone();
        c.kernel_overhead = Some(v);
        c.overhead_sweep = Some((slope, n));
        let p = prior.and_then(|a| a.kernel_overhead).map(|s| s.get());
        let hw = build(&c)?;
        if gate.try_figure(
            "achievable.kernel-overhead",
            us(Some(v)),
            us(p),
            accept::plausible(v, p, 0.25, 4.0),
            &hw,
            false,
            price(&hw),
        ) {
            acc = c;
        }
    }
    // GEMM rates, each precision from its large compute-bound GEMMs.
    for (d, _) in fitted.dense.clone() {
        let mut hw = gate.current().clone();
        let Some((rate, e, n)) = refine::gemm(&mut hw, &fitting, &d)? else {
            continue;
        };
        tried.dense.retain(|x| x.0 != d);
        tried.dense.push((d.clone(), rate));
        let mut c = acc.clone();
        c.dense.retain(|x| x.0 != d);
        c.dense.push((d.clone(), rate));
        c.gemm_fit = Some((e, n));
        let p = prior.and_then(|a| a.dense.get(&d));
        let hw = build(&c)?;
        if gate.try_figure(
            &format!("achievable.dense.{d}"),
            format!("{:.1} TFLOP/s", rate / 1e12),
            p.map_or("none".into(), |p| format!("{:.1} TFLOP/s", p / 1e12)),
            accept::plausible(rate, p, 0.5, 2.0),
            &hw,
            false,
            price(&hw),
        ) {
            acc = c;
        }
    }
    // Flash attention's curve.
    {
        let mut hw = gate.current().clone();
        if let Some((e, n)) = refine::attention(&mut hw, &fitting)? {
            let at = hw.achievable.as_ref().and_then(|a| a.attention.as_ref());
            if let Some((pf, h)) =
                at.and_then(|at| Some((at.peak_fraction?, at.half_length?.get())))
            {
                tried.attention = Some((pf, h));
                let mut c = acc.clone();
                c.attention = Some((pf, h));
                c.attention_fit = Some((e, n));
                let p = prior
                    .and_then(|a| a.attention.as_ref())
                    .and_then(|at| Some((at.peak_fraction?, at.half_length?.get())));
                let hw = build(&c)?;
                if gate.try_figure(
                    "achievable.attention",
                    format!("peak {pf:.3}, half length {h}"),
                    p.map_or("none".into(), |(a, b)| {
                        format!("peak {a:.3}, half length {b}")
                    }),
                    p.and_then(|(a, _)| accept::plausible(pf, Some(a), 0.5, 2.0)),
                    &hw,
                    false,
                    price(&hw),
                ) {
                    acc = c;
                }
            }
        }
    }
    // PyTorch's grouped GEMM, over the GEMM rate and stream in force.
    {
        let mut hw = gate.current().clone();
        if let Some((sf, cf, e, n)) = refine::grouped(&mut hw, &fitting)? {
            tried.grouped = Some((sf, cf));
            let mut c = acc.clone();
            c.grouped = Some((sf, cf));
            c.grouped_fit = Some((e, n));
            let p = prior
                .and_then(|a| a.grouped_gemm.as_ref())
                .and_then(|g| Some((g.stream_fraction?, g.compute_fraction?)));
            let words = |(s, c): (f64, f64)| format!("stream {s:.3}, compute {c:.3}");
            let hw = build(&c)?;
            if gate.try_figure(
                "achievable.grouped-gemm",
                words((sf, cf)),
                p.map_or("none (the engine's weight-stream-fraction)".into(), words),
                p.and_then(|(a, _)| accept::plausible(sf, Some(a), 0.5, 2.0)),
                &hw,
                false,
                price(&hw),
            ) {
                acc = c;
            }
        }
    }
    // Kernel classes: each its profiled kernels' median less their bytes
    // at the stream bandwidth in force.
    let bw = acc
        .hbm_bandwidth
        .or_else(|| prior.and_then(|a| a.hbm_bandwidth).map(|b| b.get()));
    if let Some(bw) = bw {
        let k = fit::kernel_fixed(&fitting, bw);
        if !k.is_empty() {
            let mut c = acc.clone();
            c.kernel_fixed = k.clone();
            let hw = build(&c)?;
            let words: Vec<String> = k
                .iter()
                .map(|(cl, v, _)| format!("{} {:.1} us", cl.key(), v * 1e6))
                .collect();
            if gate.try_figure(
                "achievable.kernel-fixed",
                words.join(", "),
                "the base's".into(),
                None,
                &hw,
                true,
                price(&hw),
            ) {
                acc = c;
            }
        }
    }
    // The host's path by call class: one machine's host, taken together.
    if fitted.matmul_eager.is_some()
        || fitted.kernel_eager.is_some()
        || fitted.attention_eager.is_some()
        || fitted.cached_attention_eager.is_some()
        || fitted.interleave.is_some()
    {
        let mut c = acc.clone();
        c.matmul_eager = fitted.matmul_eager;
        c.matmul_eager_from_host_rows = fitted.matmul_eager_from_host_rows;
        c.kernel_eager = fitted.kernel_eager;
        c.attention_eager = fitted.attention_eager;
        c.cached_attention_eager = fitted.cached_attention_eager;
        c.interleave = fitted.interleave;
        let pc = prior.and_then(|a| a.call.as_ref());
        let hw = build(&c)?;
        gate.floor = accept::HOST_SPREAD;
        let words = |m: Option<f64>, k: Option<f64>, i: Option<f64>| {
            format!(
                "matmul-eager {}, kernel-eager {}, interleave {}",
                us(m),
                us(k),
                i.map_or("none".into(), |i| format!("{i:.3}"))
            )
        };
        if gate.try_figure(
            "achievable.call",
            words(c.matmul_eager, c.kernel_eager, c.interleave),
            words(
                pc.and_then(|p| p.matmul_eager).map(|s| s.get()),
                pc.and_then(|p| p.kernel_eager).map(|s| s.get()),
                pc.and_then(|p| p.interleave),
            ),
            c.matmul_eager.and_then(|v| {
                accept::plausible(
                    v,
                    pc.and_then(|p| p.matmul_eager).map(|s| s.get()),
                    1.0 / 3.0,
                    3.0,
                )
            }),
            &hw,
            true,
            price(&hw),
        ) {
            acc = c;
        }
        gate.floor = 0.0;
    }
    // Sustained rates (the power-limited clock), at most the burst rate.
    for s in fitted.sustained.clone() {
        let mut c = acc.clone();
        let burst = c
            .dense
            .iter()
            .find(|x| x.0 == s.0)
            .map(|x| x.1)
            .or_else(|| prior.and_then(|a| a.dense.get(&s.0)));
        let mut s = s;
        if let Some(b) = burst {
            s.1 = s.1.min(b);
        }
        c.sustained.retain(|x| x.0 != s.0);
        c.sustained.push(s.clone());
        let p = prior.and_then(|a| a.sustained.get(&s.0));
        let hw = build(&c)?;
        if gate.try_figure(
            &format!("achievable.sustained.{}", s.0),
            format!("{:.1} TFLOP/s", s.1 / 1e12),
            p.map_or("none".into(), |p| format!("{:.1} TFLOP/s", p / 1e12)),
            accept::plausible(s.1, p, 0.5, 2.0),
            &hw,
            true,
            price(&hw),
        ) {
            acc = c;
        }
    }
    // The power limit's figures, checked on their own held-out loops.
    if fitted.power.any() {
        let mut c = acc.clone();
        c.power = fitted.power.clone();
        let hw = build(&c)?;
        if gate.try_figure(
            "achievable.power-limit",
            "from the power loops".into(),
            "the base's".into(),
            None,
            &hw,
            true,
            price(&hw),
        ) {
            acc = c;
        }
    }
    let decisions = gate.finish();
    if decisions.is_empty() {
        return Err(accept::nothing_to_fit(&m, inputs.file));
    }
    for d in &accept::capped(&acc, base).sustained_capped {
        {
            notes.push(format!(
                "achievable.sustained.{d}: the base's rate exceeded the calibrated burst rate achievable.dense.{d}; capped at it"
            ));
        }
    }
    let kept: Vec<String> = decisions
        .iter()
        .filter(|d| !d.accepted)
        .map(|d| format!("{}: {}", d.figure, d.why))
        .collect();
    let hw = parse(&write_with(&acc, None, &kept)?)?;
    let predicted = price(&hw);
    let mut checks = Vec::new();
    for (i, r) in checked.iter().enumerate() {
        if let (Some(p), Some(s)) = (predicted[i], shipped[i]) {
            checks.push(Check {
                line: r.line,
                operation: r.op.name(),
                shape: predict::shape_words(r),
                measured_s: r.seconds,
                predicted_s: p,
                error: (p - r.seconds).abs() / r.seconds,
                shipped_s: s,
                shipped_error: (s - r.seconds).abs() / r.seconds,
            });
        }
    }
    let held_out = summary(&checks);
    let power_checks = power::check(&m.rows, &hw, &acc.power);
    let toml = write_with(&acc, Some(held_out), &kept)?;
    let hardware = parse(&toml)?;
    Ok(Calibrated {
        base: base.id.clone(),
        measurements: m,
        sha256,
        figures: accept::capped(&acc, base),
        checks,
        held_out,
        toml,
        hardware,
        device_matches: matches,
        power_checks,
        decisions,
        notes,
        fitted: tried,
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
        r.result(
            "shipped_median_error",
            self.held_out.shipped_median_error,
            q(
                &format!(
                    "median relative error on the same points with `{}` as shipped",
                    self.base
                ),
                Unit::Fraction,
            ),
        );
        r.result(
            "shipped_worst_error",
            self.held_out.shipped_worst_error,
            q(
                &format!(
                    "worst relative error on the same points with `{}` as shipped",
                    self.base
                ),
                Unit::Fraction,
            ),
        );
        let taken = self.decisions.iter().filter(|d| d.accepted).count();
        r.result(
            "figures_fitted",
            taken as u64,
            q(
                "measured figures taken into the file (each no worse on the held-out rows it changes)",
                Unit::Count,
            ),
        );
        r.result(
            "figures_kept",
            (self.decisions.len() - taken) as u64,
            q(
                "measured figures kept at the base's value (they made held-out rows worse, or nothing checked them)",
                Unit::Count,
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
            r.result(
                format!("{k}_shipped_median_error"),
                s.shipped_median_error,
                q(
                    &format!("median error, {k}, base file as shipped"),
                    Unit::Fraction,
                ),
            );
            r.result(
                format!("{k}_shipped_worst_error"),
                s.shipped_worst_error,
                q(
                    &format!("worst error, {k}, base file as shipped"),
                    Unit::Fraction,
                ),
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
        self.power_report(&mut r);
        // A file of power loops alone has no held-out operation: its
        // figures and their check lead.
        let mut head = vec![
            "points",
            "median_error",
            "worst_error",
            "shipped_median_error",
            "shipped_worst_error",
        ];
        if self.figures.power.any() {
            if self.checks.is_empty() {
                head.clear();
            }
            head.extend(
                [
                    "power_gemm_watts",
                    "power_attention_watts",
                    "power_attention_clock_exponent",
                    "power_wait_watts",
                    "power_time_worst_error",
                    "power_clock_worst_error",
                ]
                .into_iter()
                .filter(|k| r.results.contains_key(*k)),
            );
        }
        r.headline(&head);
        if !self.device_matches {
            r.note(format!(
                "--force: measured on `{}`, fitted onto `{}`",
                self.measurements.provenance.device, self.base
            ));
        }
        for d in &self.decisions {
            r.note(if d.accepted {
                format!(
                    "fitted {} = {} (base {}): {}",
                    d.figure, d.fitted, d.prior, d.why
                )
            } else {
                format!(
                    "kept {} at the base's {} (fitted {}): {}",
                    d.figure, d.prior, d.fitted, d.why
                )
            });
        }
        for n in &self.notes {
            r.note(n.clone());
        }
        let mut worst: Vec<&Check> = self.checks.iter().collect();
        worst.sort_by(|a, b| b.error.total_cmp(&a.error));
        for c in worst.iter().take(3) {
            r.note(format!(
                "held out, line {}: {} {} measured {:.3e} s, predicted {:.3e} s ({:+.1}%; as shipped {:+.1}%)",
                c.line,
                c.operation,
                c.shape,
                c.measured_s,
                c.predicted_s,
                100.0 * (c.predicted_s - c.measured_s) / c.measured_s,
                100.0 * (c.shipped_s - c.measured_s) / c.measured_s
            ));
        }
        r.note(format!(
            "kept from `{}`: the pointer-chase latencies, GEMM tiles and K split, link bandwidth, bus efficiency and collective call costs (calibrate.py runs on one GPU and reads no kernel names){}",
            self.base,
            if self.figures.power.any() {
                ""
            } else {
                "; the power limit's figures (the file has no power_* rows: calibrate.py --only power measures them)"
            }
        ));
        r
    }

    /// The power limit's figures, each with its derivation for
    /// `--explain`, and the power loops against the solve.
    fn power_report(&self, r: &mut Report) {
        let p = &self.figures.power;
        let Some(burst) = p.burst_mhz else {
            return;
        };
        let q = |what: &str, unit: Unit| Quantity::new(what, unit);
        r.result(
            "power_burst_clock_hz",
            burst * 1e6,
            q(
                "the highest SM clock a power loop held (the burst clock)",
                Unit::Hz,
            ),
        );
        let pw = p.wait_w.map(|w| w.0);
        if let Some((w, n)) = p.wait_w {
            r.result(
                "power_wait_watts",
                w,
                q(
                    "a GPU waiting at the burst clock (spin kernels)",
                    Unit::Watts,
                )
                .formula("the median power_wait row's board power")
                .derive(format!("{w:.1} W over {n} row(s)")),
            );
        }
        if let Some(g) = p.gemm {
            r.result(
                "power_gemm_watts",
                g.watts,
                q("GEMMs at the burst clock", Unit::Watts)
                    .formula("(P x T - P_wait x T_wait) / (T - T_wait), the gapped power_gemm loop that held the burst clock, its GEMMs' largest share")
                    .derive(format!(
                        "({:.1} W x {:.4} ms - {:.1} W x {:.4} ms) / {:.4} ms = {:.1} W (line {})",
                        g.power_w,
                        g.call_s * 1e3,
                        pw.unwrap_or(0.0),
                        g.wait_s * 1e3,
                        (g.call_s - g.wait_s) * 1e3,
                        g.watts,
                        g.line
                    )),
            );
        }
        if let Some(why) = &p.gemm_refused {
            r.note(why.clone());
        }
        let each = |f: &dyn Fn(&power::AttentionLoop) -> String| {
            p.loops.iter().map(f).collect::<Vec<_>>().join(", ")
        };
        if let (Some(a), Some(b)) = (p.attention_w, p.attention_exponent) {
            r.result(
                "power_attention_watts",
                a,
                q("causal attention at the burst clock", Unit::Watts)
                    .formula(format!(
                        "mean of P x f_burst / f over the power_attention loops whose clock fell to {:.0}% of f_burst or below",
                        100.0 * power::FELL
                    ))
                    .derive(format!(
                        "mean of {} = {a:.1} W",
                        each(&|l| format!(
                            "{:.1} x {burst:.0} / {:.0} (S = {})",
                            l.power_w, l.clock_mhz, l.seq
                        ))
                    )),
            );
            r.result(
                "power_attention_clock_exponent",
                b,
                q("attention's time against the clock: time x clock^b constant", Unit::Ratio)
                    .formula("mean of ln(T_settled / T_first) / ln(f_burst / f) over the same loops, at most 1")
                    .derive(format!(
                        "mean of {} = {b:.3}",
                        each(&|l| format!(
                            "ln({:.4} / {:.4}) / ln({burst:.0} / {:.0}) = {:.3}",
                            l.settled_s * 1e3,
                            l.burst_s * 1e3,
                            l.clock_mhz,
                            l.exponent
                        ))
                    )),
            );
        }
        if let Some((w, n)) = p.compute_w {
            r.result(
                "power_compute_watts",
                w,
                q("what the board holds at its limit (package.compute-watts)", Unit::Watts)
                    .formula("the median power_gemm row of GEMMs back to back whose clock fell below the burst clock")
                    .derive(format!("{w:.1} W over {n} row(s)")),
            );
        }
        if let Some((w, n)) = p.stream_w {
            r.result(
                "power_stream_watts",
                w,
                q("a memory stream (package.stream-watts)", Unit::Watts)
                    .formula("the median power_stream row's board power")
                    .derive(format!("{w:.1} W over {n} row(s)")),
            );
        }
        let held: Vec<&power::PowerCheck> =
            self.power_checks.iter().filter(|c| c.held_out).collect();
        if !held.is_empty() {
            let worst = |i: usize| {
                held.iter()
                    .map(|c| {
                        let e = c.errors();
                        [e.0, e.1, e.2][i]
                    })
                    .fold(0.0, f64::max)
            };
            r.result(
                "power_points",
                held.len() as u64,
                q(
                    "power loops no figure was taken from, through the power-limit solve",
                    Unit::Count,
                ),
            );
            for (i, k, what) in [
                (
                    0,
                    "power_time_worst_error",
                    "held-out power loops: worst error of the settled call",
                ),
                (
                    1,
                    "power_clock_worst_error",
                    "held-out power loops: worst error of the SM clock",
                ),
                (
                    2,
                    "power_watts_worst_error",
                    "held-out power loops: worst error of the board power",
                ),
            ] {
                r.result(k, worst(i), q(what, Unit::Fraction));
            }
        }
        for c in &self.power_checks {
            r.note(format!(
                "power loop, line {} ({}): {} {}: settled {:.4} ms against {:.4} ms, {:.0} MHz against {:.0}, {:.1} W against {:.1} (measured against the power-limit solve)",
                c.line,
                if c.held_out { "held out" } else { "fitted on" },
                c.operation,
                c.shape,
                c.measured_s * 1e3,
                c.predicted_s * 1e3,
                c.measured_mhz,
                c.predicted_mhz,
                c.measured_w,
                c.predicted_w
            ));
        }
    }
}

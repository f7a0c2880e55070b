//! `launch`: kernel-launch overhead per step against a time floor, eager
//! launches against synchronised ones and CUDA-graph replay, and what
//! fusing to fewer launches saves (formulas.md, "Launch overhead";
//! 002 §7.10 and exercise 5; 004 "Launch overhead").
//!
//! Where each mode's overhead comes from is decided here, in this order:
//! the overhead given (`overhead`, `sync-overhead`, `graph-overhead`), a
//! measured per-kernel time less the kernel's execution (`measured*` with
//! `kernel-time`), the hardware file's `launch` section (with
//! [`Mode::Achievable`], `achievable.launch`).

use crate::error::{Error, Result};
use crate::inputs::{Count, Number, Seconds, at_least_one, finite_result, non_negative, positive};
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::spec::hardware::{Hardware, Launch, Mode};
use crate::units::{self, number, seconds};
use serde::{Deserialize, Serialize};

/// A way of issuing kernels: the one launch-mode type of the library. The
/// `launch` command compares eager, synchronised and graph launches; a
/// step (`decode`, `prefill`, `plan`, `simulate`) and a collective take
/// none, eager or graph; `calibrate` reads eager, synchronised and graph
/// measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaunchMode {
    /// No launch overhead: the speed of light (a kernel's own fixed
    /// overhead still counts under `--achievable`).
    None,
    /// Launched back to back without waiting: the CPU's issue cost. A
    /// step's host runs ahead of the GPU: the step takes the longer of the
    /// two.
    Eager,
    /// Each launch waited for before the next.
    Synchronised,
    /// Replayed from a captured CUDA graph.
    Graph,
}

impl LaunchMode {
    /// Every mode the `launch` command compares, the headline one (eager)
    /// first.
    pub const ALL: [LaunchMode; 3] = [
        LaunchMode::Eager,
        LaunchMode::Synchronised,
        LaunchMode::Graph,
    ];

    /// `none`, `eager`, `synchronised` or `graph`: as reports print it and
    /// as the hardware file's `launch` section names it.
    pub fn as_str(self) -> &'static str {
        match self {
            LaunchMode::None => "none",
            LaunchMode::Eager => "eager",
            LaunchMode::Synchronised => "synchronised",
            LaunchMode::Graph => "graph",
        }
    }

    /// A step's or a collective's `launch` choice: `none`, `eager` or
    /// `graph`, any case, spaces around it ignored; `None` for anything
    /// else (each caller's error names what it expected).
    pub fn of_choice(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Some(LaunchMode::None),
            "eager" => Some(LaunchMode::Eager),
            "graph" => Some(LaunchMode::Graph),
            _ => None,
        }
    }

    /// The input field that gives this mode's overhead (`none` has none:
    /// the `launch` choice itself).
    pub fn overhead_field(self) -> &'static str {
        match self {
            LaunchMode::None => "launch",
            LaunchMode::Eager => "overhead",
            LaunchMode::Synchronised => "sync-overhead",
            LaunchMode::Graph => "graph-overhead",
        }
    }

    /// The input field that gives this mode's measured per-kernel time.
    pub fn measured_field(self) -> &'static str {
        match self {
            LaunchMode::None => "launch",
            LaunchMode::Eager => "measured",
            LaunchMode::Synchronised => "measured-sync",
            LaunchMode::Graph => "measured-graph",
        }
    }

    /// This mode's figure, seconds per kernel, in a hardware file's
    /// `launch` (or `achievable.launch`) section; `none` has none.
    pub fn in_file(self, l: &Launch) -> Option<f64> {
        match self {
            LaunchMode::None => None,
            LaunchMode::Eager => l.eager,
            LaunchMode::Synchronised => l.synchronised,
            LaunchMode::Graph => l.graph,
        }
        .map(|s| s.get())
    }
}

/// Where an overhead came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OverheadSource {
    /// Given as an input.
    Given,
    /// A measured per-kernel time less the kernel's own execution.
    Measured {
        /// The measured time per kernel, execution included.
        total_s: f64,
        /// The kernel's execution time.
        kernel_s: f64,
    },
    /// A hardware file's figure.
    Hardware {
        /// The hardware's id.
        hardware: String,
        /// The field (`launch.eager`, `achievable.launch.graph`).
        field: String,
        /// The file's source for it.
        source: Option<String>,
    },
}

/// One way of issuing kernels and its fixed cost per kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overhead {
    /// The mode.
    pub mode: LaunchMode,
    /// Seconds of overhead per kernel.
    pub per_kernel_s: f64,
    /// Where it came from.
    pub source: OverheadSource,
}

impl Overhead {
    /// An overhead given as an input.
    pub fn given(mode: LaunchMode, per_kernel_s: f64) -> Self {
        Overhead {
            mode,
            per_kernel_s,
            source: OverheadSource::Given,
        }
    }

    /// How the figure was reached, in words (empty when it was given).
    pub fn derivation(&self) -> String {
        match &self.source {
            OverheadSource::Given => String::new(),
            OverheadSource::Measured { total_s, kernel_s } => format!(
                "measured - kernel time = {} - {}",
                seconds(*total_s),
                seconds(*kernel_s)
            ),
            OverheadSource::Hardware {
                hardware,
                field,
                source,
            } => {
                let from = source
                    .as_deref()
                    .map_or_else(String::new, |s| format!(" ({s})"));
                format!("{hardware}: {field}{from}")
            }
        }
    }
}

/// Overhead from a timing that includes the kernel's own execution:
/// measured per-kernel time minus execution time (004's V100 figures:
/// 9.6 - 2.9 = 6.7 us synchronised). The difference must be above zero.
pub fn overhead_from_timing(total_s: f64, exec_s: f64) -> Result<f64> {
    let o = total_s - exec_s;
    if !o.is_finite() || o <= 0.0 {
        return Err(Error::field(
            "kernel-time",
            format!(
                "the kernel's execution ({}) is not shorter than the measured per-kernel time ({})",
                seconds(exec_s),
                seconds(total_s)
            ),
        ));
    }
    Ok(o)
}

/// Thread blocks of a one-element-per-thread launch: ceil(elements /
/// threads per block) (004's V100 benchmark: 500,000 elements at 512 a
/// block is 977 blocks).
pub fn grid_blocks(elements: u64, threads_per_block: u64) -> u64 {
    elements.div_ceil(threads_per_block.max(1))
}

/// `launch`'s inputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LaunchInputs {
    /// Kernels launched per step.
    pub kernels: Option<Count>,
    /// Kernels per layer (with `layers`) instead of `kernels`.
    pub kernels_per_layer: Option<Count>,
    /// Layers (with `kernels-per-layer`).
    pub layers: Option<Count>,
    /// Kernels outside the layers: final norm, LM head, sampling (with
    /// `kernels-per-layer`; default 0).
    pub extra_kernels: Option<Count>,
    /// Eager overhead per kernel.
    pub overhead: Option<Seconds>,
    /// Overhead per kernel when each launch is synchronised.
    pub sync_overhead: Option<Seconds>,
    /// Overhead per kernel replayed from a CUDA graph.
    pub graph_overhead: Option<Seconds>,
    /// The kernel's own execution time, subtracted from `measured*`.
    pub kernel_time: Option<Seconds>,
    /// Measured time per kernel, eager, execution included.
    pub measured: Option<Seconds>,
    /// Measured time per kernel, synchronised, execution included.
    pub measured_sync: Option<Seconds>,
    /// Measured time per kernel as a CUDA graph, execution included.
    pub measured_graph: Option<Seconds>,
    /// The step's time without launches (e.g. the weight-read floor).
    pub floor: Option<Seconds>,
    /// Kernels after fusion.
    pub fused_kernels: Option<Count>,
    /// Fusion cuts the kernel count by this factor (rounded).
    pub fuse_factor: Option<Number>,
}

impl LaunchInputs {
    fn given(&self, m: LaunchMode) -> Option<Seconds> {
        match m {
            LaunchMode::None => None,
            LaunchMode::Eager => self.overhead,
            LaunchMode::Synchronised => self.sync_overhead,
            LaunchMode::Graph => self.graph_overhead,
        }
    }

    fn measured(&self, m: LaunchMode) -> Option<Seconds> {
        match m {
            LaunchMode::None => None,
            LaunchMode::Eager => self.measured,
            LaunchMode::Synchronised => self.measured_sync,
            LaunchMode::Graph => self.measured_graph,
        }
    }
}

/// Each mode's overhead that some source gives, eager first: the input,
/// else a measured time less `kernel-time`, else the hardware file's
/// `launch` (with [`Mode::Achievable`], `achievable.launch`) section. The
/// eager overhead is required; a hardware file without it is an error
/// naming the field.
pub fn overheads(hw: Option<&Hardware>, i: &LaunchInputs, mode: Mode) -> Result<Vec<Overhead>> {
    let exec = i
        .kernel_time
        .map(|t| non_negative("kernel-time", t.0))
        .transpose()?;
    let mut out = Vec::new();
    for m in LaunchMode::ALL {
        let o = if let Some(v) = i.given(m) {
            Some(Overhead::given(m, positive(m.overhead_field(), v.0)?))
        } else if let Some(total) = i.measured(m) {
            let total = positive(m.measured_field(), total.0)?;
            let e = exec.ok_or_else(|| {
                Error::missing_input(
                    "kernel-time",
                    "give `kernel-time`, the kernel's execution time to subtract from the measured times",
                )
            })?;
            Some(Overhead {
                mode: m,
                per_kernel_s: overhead_from_timing(total, e)?,
                source: OverheadSource::Measured {
                    total_s: total,
                    kernel_s: e,
                },
            })
        } else if let Some(h) = hw {
            let (section, prefix) = match mode {
                Mode::SpeedOfLight => (h.launch.as_ref(), "launch"),
                Mode::Achievable => (
                    h.achievable.as_ref().and_then(|x| x.launch.as_ref()),
                    "achievable.launch",
                ),
            };
            let field = format!("{prefix}.{}", m.as_str());
            match section.and_then(|l| m.in_file(l)) {
                Some(v) => Some(Overhead {
                    mode: m,
                    per_kernel_s: v,
                    source: OverheadSource::Hardware {
                        hardware: h.id.clone(),
                        source: h.source(&field).map(String::from),
                        field,
                    },
                }),
                None if m == LaunchMode::Eager => {
                    return Err(h.missing(&field, "the per-kernel launch overhead", Some("5 us")));
                }
                None => None,
            }
        } else {
            None
        };
        out.extend(o);
    }
    match out.first() {
        None => Err(Error::missing_input(
            "overhead",
            "give `overhead` (the eager overhead per kernel, e.g. 5 us), or a hardware file with a launch.eager figure",
        )),
        Some(o) if o.mode != LaunchMode::Eager => Err(Error::missing_input(
            "overhead",
            "give `overhead` (or `measured` with `kernel-time`): the eager overhead is needed for the headline figures",
        )),
        Some(_) => Ok(out),
    }
}

/// How the kernels per step were given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kernels {
    /// Directly.
    Given(u64),
    /// Per layer, times layers, plus kernels outside the layers.
    PerLayer {
        /// Kernels per layer.
        per_layer: u64,
        /// Layers.
        layers: u64,
        /// Kernels outside the layers.
        extra: u64,
    },
}

impl Kernels {
    /// The kernels per step the inputs give, validated.
    pub fn of(i: &LaunchInputs) -> Result<Self> {
        let n = |c: Option<Count>| c.map(|c| c.0);
        match (n(i.kernels), n(i.kernels_per_layer), n(i.layers)) {
            (Some(k), None, None) => {
                if i.extra_kernels.is_some() {
                    return Err(Error::field(
                        "extra-kernels",
                        "counts with `kernels-per-layer` and `layers`; with `kernels`, include them there",
                    ));
                }
                Ok(Kernels::Given(at_least_one("kernels", k)?))
            }
            (None, Some(kl), Some(l)) => Ok(Kernels::PerLayer {
                per_layer: at_least_one("kernels-per-layer", kl)?,
                layers: at_least_one("layers", l)?,
                extra: n(i.extra_kernels).unwrap_or(0),
            }),
            (Some(_), _, _) => Err(Error::field(
                "kernels",
                "give either `kernels` or `kernels-per-layer` with `layers`, not both",
            )),
            (None, Some(_), None) => Err(Error::missing_input(
                "layers",
                "give `layers` with `kernels-per-layer`",
            )),
            (None, None, Some(_)) => Err(Error::missing_input(
                "kernels-per-layer",
                "give `kernels-per-layer` with `layers`",
            )),
            (None, None, None) => Err(Error::missing_input(
                "kernels",
                "give `kernels`, or `kernels-per-layer` with `layers`",
            )),
        }
    }

    /// Kernels per step: the count, or per layer x layers + extra.
    pub fn per_step(self) -> Result<u64> {
        match self {
            Kernels::Given(k) => Ok(k),
            Kernels::PerLayer {
                per_layer,
                layers,
                extra,
            } => crate::inputs::mul("kernels-per-layer", &[per_layer, layers])?
                .checked_add(extra)
                .ok_or_else(|| {
                    Error::field(
                        "extra-kernels",
                        "the kernel count is too large for a 64-bit count",
                    )
                }),
        }
    }
}

/// One mode's step: a row of the table when more than one is known.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeStep {
    /// The overhead and where it came from.
    pub overhead: Overhead,
    /// kernels x overhead.
    pub launch_time_s: f64,
    /// floor + launch time.
    pub step_time_s: f64,
    /// launch time / step time.
    pub launch_fraction: f64,
}

/// How fusion was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FusedBy {
    /// The kernel count after fusion, given.
    Kernels,
    /// A factor the count is divided by (rounded).
    Factor(f64),
}

/// The step after fusing to fewer kernels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fused {
    /// How the fused count was given.
    pub by: FusedBy,
    /// Kernels after fusion.
    pub kernels: u64,
    /// (kernels - fused kernels) x overhead.
    pub saved_time_s: f64,
    /// saved / step time.
    pub saved_fraction: f64,
    /// fused kernels x overhead.
    pub launch_time_s: f64,
    /// floor + fused launch time.
    pub step_time_s: f64,
    /// fused step time / floor - 1, when there is a floor above zero.
    pub vs_floor: Option<f64>,
}

/// Launch overhead per step: every figure `launch` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaunchCost {
    /// The hardware whose figures were used, if any.
    pub hardware: Option<String>,
    /// How the kernels per step were given.
    pub kernels: Kernels,
    /// Kernels per step.
    pub kernels_per_step: u64,
    /// The step's floor, when given.
    pub floor_s: Option<f64>,
    /// Every mode with a known overhead, eager (the headline) first.
    pub modes: Vec<ModeStep>,
    /// The step after fusion, when asked for.
    pub fused: Option<Fused>,
}

impl LaunchCost {
    /// The headline (eager) step.
    pub fn eager(&self) -> &ModeStep {
        &self.modes[0]
    }
}

fn step(kernels: u64, floor: f64, o: Overhead) -> Result<ModeStep> {
    let launch_time_s = finite_result("launch_time_s", kernels as f64 * o.per_kernel_s, true)?;
    let step_time_s = finite_result("step_time_s", floor + launch_time_s, true)?;
    Ok(ModeStep {
        overhead: o,
        launch_time_s,
        step_time_s,
        launch_fraction: launch_time_s / step_time_s,
    })
}

/// `launch`'s cost on `hw` (or on the inputs alone): the overheads
/// resolved by [`overheads`], then [`cost_with`].
pub fn cost(hw: Option<&Hardware>, i: &LaunchInputs, mode: Mode) -> Result<LaunchCost> {
    // The kernel count is checked before the overheads are looked up.
    Kernels::of(i)?;
    let o = overheads(hw, i, mode)?;
    cost_with(hw.map(|h| h.id.as_str()), i, o)
}

/// `launch`'s cost with the overheads already resolved; `overheads[0]` is
/// the headline one and must be eager.
pub fn cost_with(
    hardware: Option<&str>,
    i: &LaunchInputs,
    overheads: Vec<Overhead>,
) -> Result<LaunchCost> {
    let kernels = Kernels::of(i)?;
    let n = kernels.per_step()?;
    if overheads
        .first()
        .is_none_or(|o| o.mode != LaunchMode::Eager)
    {
        return Err(Error::missing_input(
            "overhead",
            "give `overhead`: the eager overhead is needed for the headline figures",
        ));
    }
    for o in &overheads {
        positive(o.mode.overhead_field(), o.per_kernel_s)?;
    }
    let floor_s = i.floor.map(|f| non_negative("floor", f.0)).transpose()?;
    let floor = floor_s.unwrap_or(0.0);
    let modes = overheads
        .into_iter()
        .map(|o| step(n, floor, o))
        .collect::<Result<Vec<_>>>()?;
    let eager = &modes[0];
    let o = eager.overhead.per_kernel_s;
    let by = match (i.fused_kernels, i.fuse_factor) {
        (Some(_), Some(_)) => {
            return Err(Error::field(
                "fused-kernels",
                "give either `fused-kernels` or `fuse-factor`, not both",
            ));
        }
        (Some(f), None) => Some((FusedBy::Kernels, f.0)),
        (None, Some(x)) => {
            let x = x.0;
            if !x.is_finite() || x < 1.0 {
                return Err(Error::field("fuse-factor", "must be at least 1"));
            }
            Some((FusedBy::Factor(x), (n as f64 / x).round().max(1.0) as u64))
        }
        (None, None) => None,
    };
    let fused = match by {
        None => None,
        Some((by, fk)) => {
            let fk = at_least_one("fused-kernels", fk)?;
            if fk > n {
                return Err(Error::field(
                    "fused-kernels",
                    format!(
                        "{} is more than the {} kernels before fusion",
                        units::whole(fk),
                        units::whole(n)
                    ),
                ));
            }
            let saved_time_s = finite_result("saved_time_s", (n - fk) as f64 * o, false)?;
            let launch_time_s = fk as f64 * o;
            let step_time_s = floor + launch_time_s;
            Some(Fused {
                by,
                kernels: fk,
                saved_time_s,
                saved_fraction: saved_time_s / eager.step_time_s,
                launch_time_s,
                step_time_s,
                vs_floor: (floor > 0.0).then(|| step_time_s / floor - 1.0),
            })
        }
    };
    Ok(LaunchCost {
        hardware: hardware.map(String::from),
        kernels,
        kernels_per_step: n,
        floor_s,
        modes,
        fused,
    })
}

impl LaunchCost {
    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("launch", lean);
        r.hardware = self.hardware.clone();
        let n = self.kernels_per_step;
        match self.kernels {
            Kernels::Given(k) => r.input("kernels", k),
            Kernels::PerLayer {
                per_layer,
                layers,
                extra,
            } => {
                r.input("kernels_per_layer", per_layer);
                r.input("layers", layers);
                r.input("extra_kernels", extra);
            }
        }
        let eager = self.eager();
        let o = eager.overhead.per_kernel_s;
        // An input is what was given: a figure looked up in a hardware
        // file or derived from measured timings is a result only.
        if eager.overhead.source == OverheadSource::Given {
            r.input("overhead_s", o);
        }
        let floor = self.floor_s.unwrap_or(0.0);
        if let Some(f) = self.floor_s {
            r.input("floor_s", f);
        }
        r.result("kernels_per_step", n, || {
            let q = Quantity::new("kernels per step", Unit::Count);
            match self.kernels {
                Kernels::Given(_) => q,
                Kernels::PerLayer {
                    per_layer,
                    layers,
                    extra,
                } => q
                    .formula("kernels per layer * layers + extra")
                    .derive(if extra > 0 {
                        format!("{per_layer} * {layers} + {extra}")
                    } else {
                        format!("{per_layer} * {layers}")
                    }),
            }
        });
        r.result("overhead_per_kernel_s", o, || {
            // With several modes the same key heads the modes' column.
            let label = if self.modes.len() > 1 {
                "overhead per kernel".to_string()
            } else {
                format!("{} overhead per kernel", eager.overhead.mode.as_str())
            };
            Quantity::new(label, Unit::Seconds).derive(eager.overhead.derivation())
        });
        let (lt, st) = (eager.launch_time_s, eager.step_time_s);
        r.result("launch_time_s", lt, || {
            Quantity::new("launch time per step", Unit::Seconds)
                .formula("kernels * overhead")
                .derive(format!("{n} * {}", seconds(o)))
        });
        r.result("step_time_s", st, || {
            Quantity::new("step time", Unit::Seconds)
                .formula("floor + launch time")
                .derive(format!("{} + {}", seconds(floor), seconds(lt)))
        });
        r.result("launch_fraction", eager.launch_fraction, || {
            Quantity::new("launch share of the step", Unit::Fraction)
                .formula("launch time / step time")
                .derive(format!("{} / {}", seconds(lt), seconds(st)))
        });
        if self.floor_s.is_none() {
            r.note("no floor given: the step is launch time alone");
        } else if lt > floor {
            r.note_with(|| {
                format!(
                    "launch-bound: dispatch ({}) exceeds the {} floor",
                    seconds(lt),
                    seconds(floor)
                )
            });
        }
        if let Some(f) = &self.fused {
            let fk = f.kernels;
            match f.by {
                FusedBy::Factor(x) => r.input("fuse_factor", x),
                FusedBy::Kernels => r.input("fused_kernels", fk),
            }
            r.result("fused_kernels_per_step", fk, || {
                let q = Quantity::new("kernels after fusion", Unit::Count);
                match f.by {
                    FusedBy::Kernels => q,
                    FusedBy::Factor(x) => q
                        .formula("round(kernels / fuse factor)")
                        .derive(format!("round({n} / {})", number(x))),
                }
            });
            r.result("saved_time_s", f.saved_time_s, || {
                Quantity::new("launch time saved", Unit::Seconds)
                    .formula("(kernels - fused kernels) * overhead")
                    .derive(format!(
                        "({n} - {fk}) * {} = {} * {}",
                        seconds(o),
                        n - fk,
                        seconds(o)
                    ))
            });
            r.result("saved_fraction", f.saved_fraction, || {
                Quantity::new("step-time cut", Unit::Fraction)
                    .formula("saved / step time")
                    .derive(format!("{} / {}", seconds(f.saved_time_s), seconds(st)))
            });
            r.result("fused_launch_time_s", f.launch_time_s, || {
                Quantity::new("launch time after fusion", Unit::Seconds)
                    .formula("fused kernels * overhead")
                    .derive(format!("{fk} * {}", seconds(o)))
            });
            r.result("fused_step_time_s", f.step_time_s, || {
                Quantity::new("step time after fusion", Unit::Seconds)
                    .formula("floor + fused kernels * overhead")
                    .derive(format!("{} + {fk} * {}", seconds(floor), seconds(o)))
            });
            if let Some(v) = f.vs_floor {
                r.result("fused_vs_floor", v, || {
                    Quantity::new("above the floor after fusion", Unit::Fraction)
                        .formula("fused step time / floor - 1")
                        .derive(format!(
                            "{} / {} - 1",
                            seconds(f.step_time_s),
                            seconds(floor)
                        ))
                });
            }
        }
        if self.modes.len() > 1 {
            r.rows_kind = Some(RowsKind::Table);
            r.describe("mode", || Quantity::new("mode", Unit::None));
            // One key per quantity: rows carry the overhead under the
            // results' name (`overhead_per_kernel_s`; was `per_kernel_s`).
            for m in &self.modes {
                let mut row = Row::default();
                row.inputs
                    .insert("mode".into(), m.overhead.mode.as_str().into());
                row.results.insert(
                    "overhead_per_kernel_s".into(),
                    m.overhead.per_kernel_s.into(),
                );
                row.results
                    .insert("launch_time_s".into(), m.launch_time_s.into());
                row.results
                    .insert("step_time_s".into(), m.step_time_s.into());
                row.results
                    .insert("launch_fraction".into(), m.launch_fraction.into());
                r.rows.push(row);
            }
            if let Some(g) = self
                .modes
                .iter()
                .find(|m| m.overhead.mode == LaunchMode::Graph)
            {
                let gk = g.overhead.per_kernel_s;
                r.note_with(|| {
                    format!(
                        "a CUDA graph cuts the per-kernel overhead {}x ({} -> {})",
                        units::sig_grouped(o / gk, 3),
                        seconds(o),
                        seconds(gk)
                    )
                });
            }
        }
        r
    }
}

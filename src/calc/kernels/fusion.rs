//! `fusion`: HBM traffic and time of an unfused chain of kernels against
//! the one fused kernel: the safe softmax (three kernels, five traversals,
//! against one kernel and two), an elementwise chain, and an activation
//! grafted onto a GEMM's epilogue (formulas.md, "Fusion"; 002 §7.10;
//! 004 "What a launch configuration is").
//!
//! Each pattern has its inputs struct (fields named like the command's
//! flags) and a `cost` function returning a [`FusionCost`], whose
//! [`FusionCost::report`] is the command's report.

use crate::calc::roof::{Roof, RoofTime};
use crate::error::Result;
use crate::inputs::{Count, Number, Seconds, at_least_one, finite_result, non_negative, positive};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, iec_bytes, number, seconds, si};
use serde::{Deserialize, Serialize};

/// The hardware `fusion` runs on when none is named: the lecture's
/// reference part, which its worked examples use.
pub const DEFAULT_HARDWARE: &str = "h100-sxm";

/// `fusion softmax`'s inputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SoftmaxInputs {
    /// Rows of the matrix (S for an S x S score matrix).
    pub rows: Option<Count>,
    /// Columns: the softmax runs along a row.
    pub cols: Option<Count>,
    /// Operations per element (default 5: max, subtract, exp, sum, divide).
    pub ops_per_element: Option<Number>,
    /// Precision of the tensors (default: the hardware's).
    pub dtype: Option<String>,
    /// Launch overhead per kernel, added to both sides.
    pub overhead: Option<Seconds>,
}

/// `fusion chain`'s inputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ChainInputs {
    /// Elementwise kernels in the chain.
    pub ops: Option<Count>,
    /// Elements of each tensor.
    pub elements: Option<Count>,
    /// Tensors each kernel reads, the first being the previous kernel's
    /// output (default 1).
    pub inputs: Option<Count>,
    /// FLOPs per element per kernel (default 1).
    pub flops_per_op: Option<Number>,
    /// Precision of the tensors (default: the hardware's).
    pub dtype: Option<String>,
    /// Launch overhead per kernel, added to both sides.
    pub overhead: Option<Seconds>,
}

/// `fusion epilogue`'s inputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct EpilogueInputs {
    /// Tokens: rows of the GEMM output.
    pub tokens: Option<Count>,
    /// Width of the GEMM output (d_ff for an up-projection).
    pub width: Option<Count>,
    /// Layers, for the total (default 1).
    pub layers: Option<Count>,
    /// Activation operations per element (default 1).
    pub ops_per_element: Option<Number>,
    /// Precision of the tensors (default: the hardware's).
    pub dtype: Option<String>,
    /// Launch overhead per kernel, added to both sides.
    pub overhead: Option<Seconds>,
}

/// The fusion pattern and the figures only it has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// Safe softmax over a rows x cols matrix.
    Softmax {
        /// Rows.
        rows: u64,
        /// Columns.
        cols: u64,
        /// Operations per element.
        ops_per_element: f64,
        /// One traversal of the matrix: rows x cols x b.
        traversal_bytes: f64,
        /// One row: cols x b.
        row_bytes: f64,
        /// Shared memory per SM, where the file has it.
        smem_per_sm: Option<f64>,
        /// Whether a row fits in it (true where the file has no figure).
        row_fits: bool,
    },
    /// A chain of elementwise kernels.
    Chain {
        /// Kernels in the chain.
        ops: u64,
        /// Elements per tensor.
        elements: u64,
        /// Tensors each kernel reads.
        inputs: u64,
        /// FLOPs per element per kernel.
        flops_per_op: f64,
        /// One tensor: elements x b.
        tensor_bytes: f64,
    },
    /// An activation grafted onto a GEMM's epilogue.
    Epilogue {
        /// Tokens.
        tokens: u64,
        /// Output width.
        width: u64,
        /// Layers.
        layers: u64,
        /// Activation operations per element.
        ops_per_element: f64,
        /// One activation tensor: tokens x width x b.
        tensor_bytes: f64,
        /// The unfused round-trip (write + read): 2 x tensor bytes.
        roundtrip_bytes: f64,
        /// Round-trip bytes / bandwidth, one layer.
        roundtrip_time_s: f64,
        /// The same over every layer.
        roundtrip_time_s_all_layers: f64,
    },
}

/// An unfused chain against its fused kernel: every figure `fusion`
/// reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FusionCost {
    /// The hardware's id.
    pub hardware: String,
    /// The precision of the tensors.
    pub dtype: &'static str,
    /// Bytes per element at that precision.
    pub element_bytes: f64,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// The pattern and its own figures.
    pub pattern: Pattern,
    /// The roof the elementwise work runs under: the fp32 vector peak
    /// where the file has one (else the precision's), and the bandwidth.
    pub vector_roof: Roof,
    /// The precision's (matrix) peak.
    pub peak: f64,
    /// The precision's ridge point, peak / bandwidth.
    pub ridge: f64,
    /// Launch overhead per kernel, when given.
    pub overhead_s: Option<f64>,
    /// FLOPs of the work (the same fused or not).
    pub flops: f64,
    /// HBM bytes of the unfused chain.
    pub unfused_bytes: f64,
    /// HBM bytes of the fused kernel.
    pub fused_bytes: f64,
    /// Kernels before fusion.
    pub unfused_kernels: u64,
    /// Kernels after fusion.
    pub fused_kernels: u64,
    /// The unfused chain on the vector roof, launches left out.
    pub unfused_roof: RoofTime,
    /// The fused kernel on the vector roof, launches left out.
    pub fused_roof: RoofTime,
    /// Unfused time, launches included when an overhead is given.
    pub unfused_time_s: f64,
    /// Fused time, likewise.
    pub fused_time_s: f64,
    /// unfused time / fused time.
    pub speedup: f64,
    /// FLOPs / fused bytes.
    pub intensity: f64,
}

/// A count input: given, else its default, else a missing input saying
/// what it is.
fn count(field: &str, v: Option<Count>, default: Result<u64, &str>) -> Result<u64> {
    let n = match (v, default) {
        (Some(c), _) => c.0,
        (None, Ok(d)) => d,
        (None, Err(what)) => {
            return Err(crate::error::Error::missing_input(
                field,
                format!("give `{field}`, {what}"),
            ));
        }
    };
    at_least_one(field, n)
}

/// The sides of a fusion before the roof is applied.
struct Sides {
    flops: f64,
    unfused_bytes: f64,
    fused_bytes: f64,
    unfused_kernels: u64,
    fused_kernels: u64,
}

/// What every pattern shares: the precision, the roofs, the overhead.
struct Setup {
    dtype: &'static str,
    b: f64,
    peak: f64,
    vector_roof: Roof,
    overhead_s: Option<f64>,
}

fn setup(
    hw: &Hardware,
    dtype: Option<&str>,
    overhead: Option<Seconds>,
    mode: Mode,
) -> Result<Setup> {
    let p = hw.precision(dtype)?;
    let roof = Roof::of(hw, p, mode)?;
    let overhead_s = overhead
        .map(|o| non_negative("overhead", o.0))
        .transpose()?;
    // Elementwise and reduction work runs on the vector units: its compute
    // roof is the fp32 vector peak where the file has one.
    // Without one (TPU v1) it is the precision's own peak.
    let vector_roof = hw.compute.dense.get("fp32").map_or(roof, |v| Roof {
        peak: v * hw.peak_multiplier(),
        integer: false,
        ..roof
    });
    Ok(Setup {
        dtype: p.name,
        b: p.bytes(),
        peak: roof.peak,
        vector_roof,
        overhead_s,
    })
}

fn finish(
    hw: &Hardware,
    mode: Mode,
    s: Setup,
    sides: Sides,
    pattern: Pattern,
) -> Result<FusionCost> {
    let flops = finite_result("flops", sides.flops, false)?;
    let unfused_bytes = finite_result("unfused_bytes", sides.unfused_bytes, true)?;
    let fused_bytes = finite_result("fused_bytes", sides.fused_bytes, true)?;
    let unfused_roof = s.vector_roof.time(flops, unfused_bytes);
    let fused_roof = s.vector_roof.time(flops, fused_bytes);
    let launches = |k: u64| s.overhead_s.map_or(0.0, |o| k as f64 * o);
    let unfused_time_s = finite_result(
        "unfused_time_s",
        unfused_roof.time_s + launches(sides.unfused_kernels),
        true,
    )?;
    let fused_time_s = finite_result(
        "fused_time_s",
        fused_roof.time_s + launches(sides.fused_kernels),
        true,
    )?;
    let speedup = finite_result("speedup", unfused_time_s / fused_time_s, true)?;
    let ridge = s.peak / s.vector_roof.bandwidth;
    Ok(FusionCost {
        hardware: hw.id.clone(),
        dtype: s.dtype,
        element_bytes: s.b,
        mode,
        pattern,
        vector_roof: s.vector_roof,
        peak: s.peak,
        ridge,
        overhead_s: s.overhead_s,
        flops,
        unfused_bytes,
        fused_bytes,
        unfused_kernels: sides.unfused_kernels,
        fused_kernels: sides.fused_kernels,
        unfused_roof,
        fused_roof,
        unfused_time_s,
        fused_time_s,
        speedup,
        intensity: flops / fused_bytes,
    })
}

/// Safe softmax over a rows x cols matrix: three kernels (row max; exp and
/// row sum; divide) traverse it five times, one fused kernel twice (three
/// times when a row does not fit in shared memory).
pub fn softmax(hw: &Hardware, i: &SoftmaxInputs, mode: Mode) -> Result<FusionCost> {
    let rows = count("rows", i.rows, Err("the rows of the matrix"))?;
    let cols = count("cols", i.cols, Err("the length of a row"))?;
    let ops = positive("ops-per-element", i.ops_per_element.map_or(5.0, |n| n.0))?;
    let s = setup(hw, i.dtype.as_deref(), i.overhead, mode)?;
    let (rf, cf) = (rows as f64, cols as f64);
    let traversal = finite_result("traversal_bytes", rf * cf * s.b, true)?;
    let row = cf * s.b;
    let smem = hw
        .execution
        .as_ref()
        .and_then(|e| e.smem_per_sm)
        .map(|x| x.get());
    let row_fits = smem.is_none_or(|m| row <= m);
    let sides = Sides {
        flops: ops * rf * cf,
        unfused_bytes: 5.0 * traversal,
        fused_bytes: if row_fits { 2.0 } else { 3.0 } * traversal,
        unfused_kernels: 3,
        fused_kernels: 1,
    };
    let pattern = Pattern::Softmax {
        rows,
        cols,
        ops_per_element: ops,
        traversal_bytes: traversal,
        row_bytes: row,
        smem_per_sm: smem,
        row_fits,
    };
    finish(hw, mode, s, sides, pattern)
}

/// A chain of `ops` elementwise kernels over `elements` elements, each
/// reading `inputs` tensors and writing one; fused, the chain reads its
/// distinct inputs once and writes once.
pub fn chain(hw: &Hardware, i: &ChainInputs, mode: Mode) -> Result<FusionCost> {
    let ops = count("ops", i.ops, Err("the kernels in the chain"))?;
    let elements = count("elements", i.elements, Err("the elements of each tensor"))?;
    let inputs = count("inputs", i.inputs, Ok(1))?;
    let flops_per_op = non_negative("flops-per-op", i.flops_per_op.map_or(1.0, |n| n.0))?;
    let s = setup(hw, i.dtype.as_deref(), i.overhead, mode)?;
    let (of, ef, inf) = (ops as f64, elements as f64, inputs as f64);
    let tensor = finite_result("tensor_bytes", ef * s.b, true)?;
    // Each later op's first input is the previous op's output, which the
    // fused kernel keeps in registers.
    let fused_reads = inf + (of - 1.0) * (inf - 1.0);
    let sides = Sides {
        flops: flops_per_op * of * ef,
        unfused_bytes: of * (inf + 1.0) * tensor,
        fused_bytes: (fused_reads + 1.0) * tensor,
        unfused_kernels: ops,
        fused_kernels: 1,
    };
    let pattern = Pattern::Chain {
        ops,
        elements,
        inputs,
        flops_per_op,
        tensor_bytes: tensor,
    };
    finish(hw, mode, s, sides, pattern)
}

/// An activation applied to a GEMM's tokens x width output: unfused, the
/// GEMM stores the pre-activation, the activation kernel loads it and
/// stores its result; fused into the epilogue, the GEMM stores once.
pub fn epilogue(hw: &Hardware, i: &EpilogueInputs, mode: Mode) -> Result<FusionCost> {
    let tokens = count("tokens", i.tokens, Err("the rows of the GEMM output"))?;
    let width = count("width", i.width, Err("the width of the GEMM output"))?;
    let layers = count("layers", i.layers, Ok(1))?;
    let ops = non_negative("ops-per-element", i.ops_per_element.map_or(1.0, |n| n.0))?;
    let s = setup(hw, i.dtype.as_deref(), i.overhead, mode)?;
    let (tf, wf) = (tokens as f64, width as f64);
    let tensor = finite_result("tensor_bytes", tf * wf * s.b, true)?;
    let rt = 2.0 * tensor;
    let rtt = finite_result("roundtrip_time_s", rt / s.vector_roof.bandwidth, true)?;
    let all = finite_result("roundtrip_time_s_all_layers", rtt * layers as f64, true)?;
    let sides = Sides {
        flops: ops * tf * wf,
        unfused_bytes: 3.0 * tensor,
        fused_bytes: tensor,
        unfused_kernels: 2,
        fused_kernels: 1,
    };
    let pattern = Pattern::Epilogue {
        tokens,
        width,
        layers,
        ops_per_element: ops,
        tensor_bytes: tensor,
        roundtrip_bytes: rt,
        roundtrip_time_s: rtt,
        roundtrip_time_s_all_layers: all,
    };
    finish(hw, mode, s, sides, pattern)
}

impl FusionCost {
    /// The command this cost answers: `fusion softmax`, `fusion chain` or
    /// `fusion epilogue`.
    pub fn command(&self) -> &'static str {
        match self.pattern {
            Pattern::Softmax { .. } => "fusion softmax",
            Pattern::Chain { .. } => "fusion chain",
            Pattern::Epilogue { .. } => "fusion epilogue",
        }
    }

    /// unfused bytes - fused bytes.
    pub fn bytes_saved(&self) -> f64 {
        self.unfused_bytes - self.fused_bytes
    }

    /// unfused time - fused time.
    pub fn saved_time_s(&self) -> f64 {
        self.unfused_time_s - self.fused_time_s
    }

    /// One launch against the fused kernel's HBM time, when an overhead
    /// is given.
    pub fn launch_vs_work(&self) -> Option<f64> {
        self.overhead_s.map(|o| o / self.fused_roof.memory_s)
    }

    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean(self.command(), lean);
        r.hardware = Some(self.hardware.clone());
        r.input("dtype", self.dtype);
        if self.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        let bs = number(self.element_bytes);
        match &self.pattern {
            Pattern::Softmax {
                rows,
                cols,
                ops_per_element,
                traversal_bytes,
                row_bytes,
                smem_per_sm,
                row_fits,
            } => {
                r.input("rows", *rows);
                r.input("cols", *cols);
                r.input("ops_per_element", *ops_per_element);
                r.result("traversal_bytes", *traversal_bytes, || {
                    Quantity::new("one traversal", Unit::Bytes)
                        .formula("rows*cols*b")
                        .derive(format!("{rows}*{cols}*{bs}"))
                });
                r.result("row_bytes", *row_bytes, || {
                    Quantity::new("one row", Unit::BytesIec)
                        .formula("cols*b")
                        .derive(format!("{cols}*{bs}"))
                });
                if let Some(s) = smem_per_sm {
                    r.note_with(|| {
                        if *row_fits {
                            format!(
                                "a {} row fits on chip ({} of shared memory per SM): one program per row reads it once",
                                iec_bytes(*row_bytes),
                                iec_bytes(*s)
                            )
                        } else {
                            format!(
                                "a {} row does not fit in {} of shared memory: the fused kernel is the online form (one pass for the running max and sum, a second to normalise), so it reads the matrix twice: 3 traversals",
                                iec_bytes(*row_bytes),
                                iec_bytes(*s)
                            )
                        }
                    });
                }
            }
            Pattern::Chain {
                ops,
                elements,
                inputs,
                flops_per_op,
                tensor_bytes,
            } => {
                r.input("ops", *ops);
                r.input("elements", *elements);
                r.input("inputs", *inputs);
                r.input("flops_per_op", *flops_per_op);
                r.result("tensor_bytes", *tensor_bytes, || {
                    Quantity::new("one tensor", Unit::Bytes)
                        .formula("elements*b")
                        .derive(format!("{elements}*{bs}"))
                });
            }
            Pattern::Epilogue {
                tokens,
                width,
                layers,
                ops_per_element,
                tensor_bytes,
                ..
            } => {
                r.input("tokens", *tokens);
                r.input("width", *width);
                r.input("layers", *layers);
                r.input("ops_per_element", *ops_per_element);
                r.result("tensor_bytes", *tensor_bytes, || {
                    Quantity::new("one activation tensor", Unit::Bytes)
                        .formula("tokens*width*b")
                        .derive(format!("{tokens}*{width}*{bs}"))
                });
                r.result("roundtrip_bytes", 2.0 * tensor_bytes, || {
                    Quantity::new("unfused round-trip (write + read)", Unit::Bytes)
                        .formula("tokens*width*b*2")
                        .derive(format!("{tokens}*{width}*{bs}*2"))
                });
            }
        }
        self.common(&mut r);
        if let Pattern::Epilogue {
            layers,
            roundtrip_bytes,
            roundtrip_time_s,
            roundtrip_time_s_all_layers,
            ..
        } = &self.pattern
        {
            let bw = self.vector_roof.bandwidth;
            r.result("roundtrip_time_s", *roundtrip_time_s, || {
                Quantity::new("round-trip time per layer", Unit::Seconds)
                    .formula("round-trip bytes / bandwidth")
                    .derive(format!("{} / {}", si(*roundtrip_bytes, "B"), si(bw, "B/s")))
            });
            r.result(
                "roundtrip_time_s_all_layers",
                *roundtrip_time_s_all_layers,
                || {
                    Quantity::new("round-trip time, all layers", Unit::Seconds)
                        .formula("round-trip time * layers")
                        .derive(format!("{} * {layers}", seconds(*roundtrip_time_s)))
                },
            );
            r.note("the GEMM's operand reads are the same either way and are left out");
        }
        r
    }

    /// How the unfused and the fused bytes add up, in words.
    fn byte_derivations(&self) -> (String, String) {
        match &self.pattern {
            Pattern::Softmax {
                traversal_bytes,
                row_fits,
                ..
            } => {
                let ts = si(*traversal_bytes, "B");
                (
                    format!(
                        "5 * {ts} (max: 1 read; exp+sum: 1 read + 1 write; divide: 1 read + 1 write)"
                    ),
                    if *row_fits {
                        format!("2 * {ts} (1 read + 1 write)")
                    } else {
                        format!("3 * {ts} (2 reads + 1 write: the row does not fit on chip)")
                    },
                )
            }
            Pattern::Chain {
                ops,
                inputs,
                tensor_bytes,
                ..
            } => {
                let ts = si(*tensor_bytes, "B");
                (
                    format!("{ops} * ({inputs} + 1) * {ts}"),
                    format!("({inputs} + ({ops} - 1)*({inputs} - 1) + 1) * {ts}"),
                )
            }
            Pattern::Epilogue { tensor_bytes, .. } => {
                let ts = si(*tensor_bytes, "B");
                (
                    format!("3 * {ts} (GEMM store; activation load + store)"),
                    format!("1 * {ts} (GEMM store of the activated tile)"),
                )
            }
        }
    }

    /// The results every pattern shares.
    fn common(&self, r: &mut Report) {
        let roof = &self.vector_roof;
        let bw = roof.bandwidth;
        if let Some(o) = self.overhead_s {
            r.input("overhead_s", o);
        }
        let (flops, ub, fb) = (self.flops, self.unfused_bytes, self.fused_bytes);
        r.result("flops", flops, || {
            // TPU v1's elementwise work runs on its int8 units: operations.
            let label = if roof.integer { "OPs" } else { "FLOPs" };
            let q = Quantity::new(label, roof.unit(Unit::Flop));
            match &self.pattern {
                Pattern::Softmax {
                    rows,
                    cols,
                    ops_per_element,
                    ..
                } => q
                    .formula("ops per element * rows*cols")
                    .derive(format!("{} * {rows}*{cols}", number(*ops_per_element))),
                Pattern::Chain {
                    ops,
                    elements,
                    flops_per_op,
                    ..
                } => q
                    .formula("FLOPs per element per op * ops * elements")
                    .derive(format!("{} * {ops} * {elements}", number(*flops_per_op))),
                Pattern::Epilogue {
                    tokens,
                    width,
                    ops_per_element,
                    ..
                } => q
                    .formula("ops per element * tokens*width")
                    .derive(format!("{} * {tokens}*{width}", number(*ops_per_element))),
            }
        });
        r.result("unfused_bytes", ub, || {
            Quantity::new("unfused HBM bytes", Unit::Bytes)
                .formula("traversals * tensor bytes")
                .derive(self.byte_derivations().0)
        });
        r.result("fused_bytes", fb, || {
            Quantity::new("fused HBM bytes", Unit::Bytes)
                .formula("traversals * tensor bytes")
                .derive(self.byte_derivations().1)
        });
        r.result("bytes_saved", self.bytes_saved(), || {
            Quantity::new("bytes fusion deletes", Unit::Bytes)
                .formula("unfused bytes - fused bytes")
                .derive(format!("{} - {}", si(ub, "B"), si(fb, "B")))
        });
        let side = |bytes: f64, kernels: u64| -> String {
            let mut d = format!(
                "max({} / {}, {} / {})",
                roof.unit(Unit::Flop).format(flops),
                roof.peak_text(),
                si(bytes, "B"),
                si(bw, "B/s")
            );
            if let Some(o) = self.overhead_s {
                d.push_str(&format!(" + {kernels} * {}", seconds(o)));
            }
            d
        };
        let formula = if self.overhead_s.is_some() {
            "max(FLOPs / vector peak, bytes / bandwidth) + kernels * overhead"
        } else {
            "max(FLOPs / vector peak, bytes / bandwidth)"
        };
        let (ut, ft) = (self.unfused_time_s, self.fused_time_s);
        r.result("unfused_time_s", ut, || {
            Quantity::new("unfused time", Unit::Seconds)
                .formula(formula)
                .derive(side(ub, self.unfused_kernels))
        });
        r.result("fused_time_s", ft, || {
            Quantity::new("fused time", Unit::Seconds)
                .formula(formula)
                .derive(side(fb, self.fused_kernels))
        });
        r.result("speedup", self.speedup, || {
            Quantity::new("speedup", Unit::Ratio)
                .formula("unfused time / fused time")
                .derive(format!("{} / {}", seconds(ut), seconds(ft)))
        });
        r.result("saved_time_s", self.saved_time_s(), || {
            Quantity::new("time saved", Unit::Seconds)
                .formula("unfused time - fused time")
                .derive(format!("{} - {}", seconds(ut), seconds(ft)))
        });
        let i = self.intensity;
        r.result("intensity", i, || {
            Quantity::new("fused intensity", roof.unit(Unit::FlopPerByte))
                .formula("FLOPs / fused bytes")
                .derive(format!(
                    "{} / {}",
                    roof.unit(Unit::Flop).format(flops),
                    si(fb, "B")
                ))
        });
        let ridge = self.ridge;
        r.result("ridge_vs_intensity", ridge / i, || {
            Quantity::new("ridge / intensity", Unit::Ratio)
                .formula("ridge / fused intensity")
                .derive(format!("{} / {}", units::sig(ridge, 4), units::sig(i, 4)))
        });
        r.result("unfused_kernels", self.unfused_kernels, || {
            Quantity::new("unfused kernels", Unit::Count)
        });
        r.result("fused_kernels", self.fused_kernels, || {
            Quantity::new("fused kernels", Unit::Count)
        });
        if let (Some(o), Some(lw)) = (self.overhead_s, self.launch_vs_work()) {
            r.result("launch_vs_work", lw, || {
                Quantity::new("one launch / fused kernel's HBM time", Unit::Ratio)
                    .formula("overhead / (fused bytes / bandwidth)")
                    .derive(format!(
                        "{} / ({} / {})",
                        seconds(o),
                        si(fb, "B"),
                        si(bw, "B/s")
                    ))
            });
        }
        // Memory-bound by the roof that times it too: between the vector
        // and the matrix ridges the vector units bound it (noted below).
        if i < ridge && i < roof.ridge() {
            r.note_with(|| {
                format!(
                    "memory-bound even fused: intensity {} is {}x below the ridge ({}); fusion's only lever is bytes",
                    units::sig_grouped(i, 3),
                    units::sig_grouped(ridge / i, 3),
                    units::sig_grouped(ridge, 4)
                )
            });
        }
        // Elementwise and reduction work runs on the vector units, not the
        // matrix units, so its own roof is the fp32 vector peak.
        if roof.peak < self.peak {
            let vr = roof.ridge();
            r.note_with(|| {
                // Above that ridge the vector units, not memory, bound it.
                let verdict = if i < vr {
                    format!("{}x below it: memory-bound", units::sig_grouped(vr / i, 3))
                } else {
                    format!(
                        "{}x above it: bound by the vector units' compute",
                        units::sig_grouped(i / vr, 3)
                    )
                };
                format!(
                    "elementwise work runs on the vector units: against the fp32 vector ridge ({}) the intensity is {verdict}",
                    units::sig_grouped(vr, 3)
                )
            });
        }
    }
}

//! `fusion`: HBM traffic and time of an unfused chain of kernels against
//! the one fused kernel: the safe softmax (three kernels, five traversals,
//! against one kernel and two), an elementwise chain, and an activation
//! grafted onto a GEMM's epilogue (formulas.md, "Fusion"; 002 §7.10;
//! 004 "What a launch configuration is").

use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, iec_bytes, number, seconds, si};

/// Options every fusion pattern takes.
#[derive(Debug, Clone, Default)]
pub struct FusionOptions {
    /// Precision of the tensors (default: the hardware's).
    pub dtype: Option<String>,
    /// Datasheet or measured rates.
    pub mode: Mode,
    /// Launch overhead per kernel, added to each side when given.
    pub overhead_s: Option<f64>,
}

/// The two sides of a fusion, before rendering.
#[derive(Debug, Clone)]
struct Sides {
    unfused_bytes: f64,
    unfused_derive: String,
    fused_bytes: f64,
    fused_derive: String,
    flops: f64,
    flops_derive: String,
    /// The FLOP count's formula in words.
    flops_formula: &'static str,
    unfused_kernels: u64,
    fused_kernels: u64,
}

fn count(flag: &str, v: u64) -> Result<f64> {
    if v == 0 {
        Err(Error::input(flag, "must be at least 1"))
    } else {
        Ok(v as f64)
    }
}

fn finish(r: &mut Report, hw: &Hardware, opts: &FusionOptions, s: Sides) -> Result<()> {
    let prec = hw.precision(opts.dtype.as_deref())?;
    let peak = hw.peak(prec, opts.mode)?;
    let bw = hw.bandwidth(opts.mode)?;
    if let Some(o) = opts.overhead_s {
        if o.is_nan() || o < 0.0 || !o.is_finite() {
            return Err(Error::input("--overhead", "must be zero or more"));
        }
        r.input("overhead_s", o);
    }
    r.result(
        "flops",
        s.flops,
        Quantity::new("FLOPs", Unit::Flop)
            .formula(s.flops_formula)
            .derive(s.flops_derive.clone()),
    );
    r.result(
        "unfused_bytes",
        s.unfused_bytes,
        Quantity::new("unfused HBM bytes", Unit::Bytes)
            .formula("traversals * tensor bytes")
            .derive(s.unfused_derive.clone()),
    );
    r.result(
        "fused_bytes",
        s.fused_bytes,
        Quantity::new("fused HBM bytes", Unit::Bytes)
            .formula("traversals * tensor bytes")
            .derive(s.fused_derive.clone()),
    );
    r.result(
        "bytes_saved",
        s.unfused_bytes - s.fused_bytes,
        Quantity::new("bytes fusion deletes", Unit::Bytes)
            .formula("unfused bytes - fused bytes")
            .derive(format!(
                "{} - {}",
                si(s.unfused_bytes, "B"),
                si(s.fused_bytes, "B")
            )),
    );
    // Elementwise and reduction work runs on the vector units: its compute
    // roof is the fp32 vector peak where the file has one.
    let roof = hw
        .compute
        .dense
        .get("fp32")
        .map_or(peak, |v| v * hw.peak_multiplier());
    let ct = s.flops / roof;
    let side = |bytes: f64, kernels: u64| -> (f64, String) {
        let mt = bytes / bw;
        let mut t = ct.max(mt);
        let mut d = format!(
            "max({} / {}, {} / {})",
            si(s.flops, "FLOP"),
            si(roof, "FLOP/s"),
            si(bytes, "B"),
            si(bw, "B/s")
        );
        if let Some(o) = opts.overhead_s {
            t += kernels as f64 * o;
            d.push_str(&format!(" + {kernels} * {}", seconds(o)));
        }
        (t, d)
    };
    let (ut, ud) = side(s.unfused_bytes, s.unfused_kernels);
    let (ft, fd) = side(s.fused_bytes, s.fused_kernels);
    let formula = if opts.overhead_s.is_some() {
        "max(FLOPs / vector peak, bytes / bandwidth) + kernels * overhead"
    } else {
        "max(FLOPs / vector peak, bytes / bandwidth)"
    };
    r.result(
        "unfused_time_s",
        ut,
        Quantity::new("unfused time", Unit::Seconds)
            .formula(formula)
            .derive(ud),
    );
    r.result(
        "fused_time_s",
        ft,
        Quantity::new("fused time", Unit::Seconds)
            .formula(formula)
            .derive(fd),
    );
    r.result(
        "speedup",
        ut / ft,
        Quantity::new("speedup", Unit::Ratio)
            .formula("unfused time / fused time")
            .derive(format!("{} / {}", seconds(ut), seconds(ft))),
    );
    r.result(
        "saved_time_s",
        ut - ft,
        Quantity::new("time saved", Unit::Seconds)
            .formula("unfused time - fused time")
            .derive(format!("{} - {}", seconds(ut), seconds(ft))),
    );
    let i = s.flops / s.fused_bytes;
    r.result(
        "intensity",
        i,
        Quantity::new("fused intensity", Unit::FlopPerByte)
            .formula("FLOPs / fused bytes")
            .derive(format!(
                "{} / {}",
                si(s.flops, "FLOP"),
                si(s.fused_bytes, "B")
            )),
    );
    let ridge = peak / bw;
    r.result(
        "ridge_vs_intensity",
        ridge / i,
        Quantity::new("ridge / intensity", Unit::Ratio)
            .formula("ridge / fused intensity")
            .derive(format!("{} / {}", units::sig(ridge, 4), units::sig(i, 4))),
    );
    r.result(
        "unfused_kernels",
        s.unfused_kernels,
        Quantity::new("unfused kernels", Unit::Count),
    );
    r.result(
        "fused_kernels",
        s.fused_kernels,
        Quantity::new("fused kernels", Unit::Count),
    );
    if let Some(o) = opts.overhead_s {
        let work = s.fused_bytes / bw;
        r.result(
            "launch_vs_work",
            o / work,
            Quantity::new("one launch / fused kernel's HBM time", Unit::Ratio)
                .formula("overhead / (fused bytes / bandwidth)")
                .derive(format!(
                    "{} / ({} / {})",
                    seconds(o),
                    si(s.fused_bytes, "B"),
                    si(bw, "B/s")
                )),
        );
    }
    if i < ridge {
        r.note(format!(
            "memory-bound even fused: intensity {} is {}x below the ridge ({}); fusion's only lever is bytes",
            units::sig(i, 3),
            units::sig(ridge / i, 3),
            units::sig(ridge, 4)
        ));
    }
    // Elementwise and reduction work runs on the vector units, not the
    // matrix units, so its own roof is the fp32 vector peak.
    if let Some(vector) = hw
        .compute
        .dense
        .get("fp32")
        .map(|v| v * hw.peak_multiplier())
        && opts.mode == Mode::SpeedOfLight
        && vector < peak
    {
        let vr = vector / bw;
        r.note(format!(
                "elementwise work runs on the vector units: against the fp32 vector ridge ({}) the intensity is {}x below",
                units::sig(vr, 3),
                units::sig(vr / i, 3)
            ));
    }
    Ok(())
}

fn start(command: &str, hw: &Hardware, opts: &FusionOptions) -> Result<(Report, f64)> {
    let prec = hw.precision(opts.dtype.as_deref())?;
    let mut r = Report::new(command);
    r.hardware = Some(hw.id.clone());
    r.input("dtype", prec.name);
    if opts.mode == Mode::Achievable {
        r.input("achievable", true);
    }
    Ok((r, prec.bytes()))
}

/// Safe softmax over a rows × cols matrix: three kernels (row max; exp and
/// row sum; divide) traverse it five times, one fused kernel twice.
pub fn softmax(
    hw: &Hardware,
    rows: u64,
    cols: u64,
    ops_per_element: f64,
    opts: &FusionOptions,
) -> Result<Report> {
    let rf = count("--rows", rows)?;
    let cf = count("--cols", cols)?;
    if ops_per_element.is_nan() || ops_per_element <= 0.0 || !ops_per_element.is_finite() {
        return Err(Error::input(
            "--ops-per-element",
            "must be greater than zero",
        ));
    }
    let (mut r, b) = start("fusion softmax", hw, opts)?;
    r.input("rows", rows);
    r.input("cols", cols);
    r.input("ops_per_element", ops_per_element);
    let bs = number(b);
    let traversal = rf * cf * b;
    r.result(
        "traversal_bytes",
        traversal,
        Quantity::new("one traversal", Unit::Bytes)
            .formula("rows*cols*b")
            .derive(format!("{rows}*{cols}*{bs}")),
    );
    let row = cf * b;
    r.result(
        "row_bytes",
        row,
        Quantity::new("one row", Unit::BytesIec)
            .formula("cols*b")
            .derive(format!("{cols}*{bs}")),
    );
    let mut row_fits = true;
    if let Some(s) = hw.execution.as_ref().and_then(|e| e.smem_per_sm) {
        row_fits = row <= s.get();
        if row_fits {
            r.note(format!(
                "a {} row fits on chip ({} of shared memory per SM): one program per row reads it once",
                iec_bytes(row),
                iec_bytes(s.get())
            ));
        } else {
            r.note(format!(
                "a {} row does not fit in {} of shared memory: the fused kernel is the online form (one pass for the running max and sum, a second to normalise), so it reads the matrix twice: 3 traversals",
                iec_bytes(row),
                iec_bytes(s.get())
            ));
        }
    }
    let ts = si(traversal, "B");
    finish(
        &mut r,
        hw,
        opts,
        Sides {
            unfused_bytes: 5.0 * traversal,
            unfused_derive: format!(
                "5 * {ts} (max: 1 read; exp+sum: 1 read + 1 write; divide: 1 read + 1 write)"
            ),
            fused_bytes: if row_fits { 2.0 } else { 3.0 } * traversal,
            fused_derive: if row_fits {
                format!("2 * {ts} (1 read + 1 write)")
            } else {
                format!("3 * {ts} (2 reads + 1 write: the row does not fit on chip)")
            },
            flops: ops_per_element * rf * cf,
            flops_derive: format!("{} * {rows}*{cols}", number(ops_per_element)),
            flops_formula: "ops per element * rows*cols",
            unfused_kernels: 3,
            fused_kernels: 1,
        },
    )?;
    Ok(r)
}

/// A chain of `ops` elementwise kernels over `elements` elements, each
/// reading `inputs` tensors and writing one; fused, the chain reads its
/// distinct inputs once and writes once.
pub fn chain(
    hw: &Hardware,
    ops: u64,
    elements: u64,
    inputs: u64,
    flops_per_op: f64,
    opts: &FusionOptions,
) -> Result<Report> {
    let of = count("--ops", ops)?;
    let ef = count("--elements", elements)?;
    let inf = count("--inputs", inputs)?;
    if flops_per_op.is_nan() || flops_per_op < 0.0 || !flops_per_op.is_finite() {
        return Err(Error::input("--flops-per-op", "must be zero or more"));
    }
    let (mut r, b) = start("fusion chain", hw, opts)?;
    r.input("ops", ops);
    r.input("elements", elements);
    r.input("inputs", inputs);
    r.input("flops_per_op", flops_per_op);
    let tensor = ef * b;
    r.result(
        "tensor_bytes",
        tensor,
        Quantity::new("one tensor", Unit::Bytes)
            .formula("elements*b")
            .derive(format!("{elements}*{}", number(b))),
    );
    let ts = si(tensor, "B");
    // Each later op's first input is the previous op's output, which the
    // fused kernel keeps in registers.
    let fused_reads = inf + (of - 1.0) * (inf - 1.0);
    finish(
        &mut r,
        hw,
        opts,
        Sides {
            unfused_bytes: of * (inf + 1.0) * tensor,
            unfused_derive: format!("{ops} * ({inputs} + 1) * {ts}"),
            fused_bytes: (fused_reads + 1.0) * tensor,
            fused_derive: format!("({inputs} + ({ops} - 1)*({inputs} - 1) + 1) * {ts}"),
            flops: flops_per_op * of * ef,
            flops_derive: format!("{} * {ops} * {elements}", number(flops_per_op)),
            flops_formula: "FLOPs per element per op * ops * elements",
            unfused_kernels: ops,
            fused_kernels: 1,
        },
    )?;
    Ok(r)
}

/// An activation applied to a GEMM's tokens × width output: unfused, the
/// GEMM stores the pre-activation, the activation kernel loads it and
/// stores its result; fused into the epilogue, the GEMM stores once.
pub fn epilogue(
    hw: &Hardware,
    tokens: u64,
    width: u64,
    layers: u64,
    ops_per_element: f64,
    opts: &FusionOptions,
) -> Result<Report> {
    let tf = count("--tokens", tokens)?;
    let wf = count("--width", width)?;
    let lf = count("--layers", layers)?;
    if ops_per_element.is_nan() || ops_per_element < 0.0 || !ops_per_element.is_finite() {
        return Err(Error::input("--ops-per-element", "must be zero or more"));
    }
    let (mut r, b) = start("fusion epilogue", hw, opts)?;
    r.input("tokens", tokens);
    r.input("width", width);
    r.input("layers", layers);
    r.input("ops_per_element", ops_per_element);
    let bs = number(b);
    let tensor = tf * wf * b;
    r.result(
        "tensor_bytes",
        tensor,
        Quantity::new("one activation tensor", Unit::Bytes)
            .formula("tokens*width*b")
            .derive(format!("{tokens}*{width}*{bs}")),
    );
    let rt = 2.0 * tensor;
    r.result(
        "roundtrip_bytes",
        rt,
        Quantity::new("unfused round-trip (write + read)", Unit::Bytes)
            .formula("tokens*width*b*2")
            .derive(format!("{tokens}*{width}*{bs}*2")),
    );
    let ts = si(tensor, "B");
    finish(
        &mut r,
        hw,
        opts,
        Sides {
            unfused_bytes: 3.0 * tensor,
            unfused_derive: format!("3 * {ts} (GEMM store; activation load + store)"),
            fused_bytes: tensor,
            fused_derive: format!("1 * {ts} (GEMM store of the activated tile)"),
            flops: ops_per_element * tf * wf,
            flops_derive: format!("{} * {tokens}*{width}", number(ops_per_element)),
            flops_formula: "ops per element * tokens*width",
            unfused_kernels: 2,
            fused_kernels: 1,
        },
    )?;
    let bw = hw.bandwidth(opts.mode)?;
    let rtt = rt / bw;
    r.result(
        "roundtrip_time_s",
        rtt,
        Quantity::new("round-trip time per layer", Unit::Seconds)
            .formula("round-trip bytes / bandwidth")
            .derive(format!("{} / {}", si(rt, "B"), si(bw, "B/s"))),
    );
    r.result(
        "roundtrip_time_s_all_layers",
        rtt * lf,
        Quantity::new("round-trip time, all layers", Unit::Seconds)
            .formula("round-trip time * layers")
            .derive(format!("{} * {layers}", seconds(rtt))),
    );
    r.note("the GEMM's operand reads are the same either way and are left out");
    Ok(r)
}

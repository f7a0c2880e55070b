//! `coalesce`: the bytes the memory system moves for the bytes one warp's
//! load uses, when lane `i` reads one element at `offset + i x stride x
//! element size`, counted in units of a chosen granularity: the 128-B
//! segment (002 §7.6), the 32-B sector (000 §1.2, 004 "Coalescing") or the
//! DRAM fetch unit (64 B on Hopper, measured). Formulas.md, "Coalescing".

use crate::error::{Error, Result};
use crate::inputs::{Bytes, Count};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, si};
use serde::{Deserialize, Serialize};

/// `coalesce`'s inputs: one warp's access pattern.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CoalesceInputs {
    /// Element type (default: the hardware's `default-dtype`).
    pub dtype: Option<String>,
    /// Distance between adjacent lanes' elements, in elements (default 1).
    pub stride: Option<Count>,
    /// Byte offset of lane 0's element from a unit boundary (default 0).
    pub offset: Option<Bytes>,
    /// The unit memory moves in (default: the DRAM fetch unit where the
    /// hardware file records one, else the sector).
    pub granularity: Option<Granularity>,
}

impl CoalesceInputs {
    /// A load of `dtype` elements at `stride`, `offset` bytes off a
    /// boundary, counted in `granularity` units.
    pub fn new(dtype: &str, stride: u64, offset: u64, granularity: Granularity) -> Self {
        CoalesceInputs {
            dtype: Some(dtype.into()),
            stride: Some(Count(stride)),
            offset: Some(Bytes(offset as f64)),
            granularity: Some(granularity),
        }
    }
}

/// The unit memory is moved in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Granularity {
    /// The 128-B segment (cache line): the lecture's model.
    Segment,
    /// The 32-B L1/L2 sector: the book's and the chapter's model.
    Sector,
    /// The unit DRAM is fetched in (`memory.dram-fetch`).
    Dram,
}

impl Granularity {
    /// The name used on the command line and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Granularity::Segment => "segment",
            Granularity::Sector => "sector",
            Granularity::Dram => "dram",
        }
    }

    /// The default for a hardware file: its DRAM fetch unit where the file
    /// records one, else the sector.
    pub fn default_for(hw: &Hardware) -> Self {
        if hw.memory.dram_fetch.is_some() {
            Granularity::Dram
        } else {
            Granularity::Sector
        }
    }

    fn unit_name(self) -> &'static str {
        match self {
            Granularity::Segment => "segment",
            Granularity::Sector => "sector",
            Granularity::Dram => "DRAM fetch unit",
        }
    }

    fn field(self) -> &'static str {
        match self {
            Granularity::Segment => "memory.segment",
            Granularity::Sector => "memory.sector",
            Granularity::Dram => "memory.dram-fetch",
        }
    }

    /// The unit's size in bytes on `hw`.
    pub fn bytes(self, hw: &Hardware) -> Result<u64> {
        let (v, example) = match self {
            Granularity::Segment => (hw.memory.segment, "128 B"),
            Granularity::Sector => (hw.memory.sector, "32 B"),
            Granularity::Dram => (hw.memory.dram_fetch, "64 B"),
        };
        let v = v.ok_or_else(|| {
            hw.missing(
                self.field(),
                &format!("the {} granularity of coalesce", self.as_str()),
                Some(example),
            )
        })?;
        let b = v.get();
        // Below 2^40 bytes so that bit counts stay far inside u128.
        if b.fract() != 0.0 || !(1.0..=1_099_511_627_776.0).contains(&b) {
            return Err(Error::Data {
                file: hw.id.clone(),
                line: None,
                col: None,
                field: Some(self.field().into()),
                message: format!(
                    "{} bytes is not a whole number of bytes from 1 B to 1 TiB",
                    units::sig(b, 4)
                ),
            });
        }
        Ok(b as u64)
    }
}

/// One warp's access pattern.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Access {
    /// Distance between lanes' elements, in elements (1 = contiguous).
    pub stride: u64,
    /// Byte offset of lane 0's element from a unit boundary.
    pub offset: u64,
    /// The unit memory is moved in.
    pub granularity: Granularity,
}

/// Units of `unit_bits` touched by lanes `first..first + n` of a pattern
/// whose lane `g` covers bits `[base + g*step, base + g*step + elem)`.
/// Addresses grow with the lane, so a unit is new exactly when it differs
/// from the last one seen.
fn units_touched(base: u128, step: u128, elem: u128, unit: u128, first: u128, n: u128) -> u128 {
    let mut count = 0;
    let mut last: Option<u128> = None;
    for g in first..first + n {
        let start = base + g * step;
        let (a, b) = (start / unit, (start + elem - 1) / unit);
        let from = match last {
            Some(l) if l >= a => l + 1,
            _ => a,
        };
        if b >= from {
            count += b - from + 1;
        }
        last = Some(b);
    }
    count
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The counts behind a report: units touched by one warp, and per warp
/// over a long stream of consecutive warps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counts {
    /// Bytes the warp's lanes ask for.
    pub useful_bytes: f64,
    /// Units one warp touches.
    pub units: u64,
    /// Bytes one warp moves.
    pub moved_bytes: f64,
    /// Bytes moved per warp in steady state when consecutive warps continue
    /// the pattern (units shared with neighbours counted once).
    pub stream_moved_bytes: f64,
}

/// Counts units for `lanes` lanes of `elem_bits`-bit elements.
pub fn counts(lanes: u64, elem_bits: u64, unit_bytes: u64, a: &Access) -> Result<Counts> {
    if a.stride == 0 {
        return Err(Error::field(
            "stride",
            "must be at least 1 element (1 = contiguous)",
        ));
    }
    let (lanes, elem, unit) = (
        u128::from(lanes),
        u128::from(elem_bits),
        u128::from(unit_bytes) * 8,
    );
    let step = u128::from(a.stride) * elem;
    let base = u128::from(a.offset) * 8;
    let one = units_touched(base, step, elem, unit, 0, lanes);
    // The pattern's phase against the unit repeats every `period` warps;
    // the second period's new units are the steady-state cost.
    let span = lanes * step;
    // (At most unit-bits warps; bounded so a huge fetch unit stays cheap.)
    let period = (unit / gcd(span, unit)).clamp(1, 1 << 14);
    let first = units_touched(base, step, elem, unit, 0, period * lanes);
    let both = units_touched(base, step, elem, unit, 0, 2 * period * lanes);
    let per_warp = (both - first) as f64 / period as f64;
    Ok(Counts {
        useful_bytes: (lanes * elem) as f64 / 8.0,
        units: u64::try_from(one).map_err(|_| Error::field("stride", "too large"))?,
        moved_bytes: (one * unit / 8) as f64,
        stream_moved_bytes: per_warp * unit_bytes as f64,
    })
}

/// One warp's load on one accelerator: every figure `coalesce` reports.
#[derive(Debug, Clone)]
pub struct CoalesceCost<'a> {
    /// The hardware.
    pub hw: &'a Hardware,
    /// Datasheet or measured bandwidth.
    pub mode: Mode,
    /// The element type.
    pub dtype: &'static str,
    /// Bytes per element.
    pub elem_bytes: f64,
    /// Lanes in a warp.
    pub lanes: u64,
    /// The access pattern.
    pub access: Access,
    /// Bytes in one unit of the granularity.
    pub unit_bytes: u64,
    /// The units counted.
    pub counts: Counts,
    /// Device-memory bandwidth (B/s).
    pub bandwidth: f64,
    /// Useful bytes / bytes moved, for the one warp.
    pub efficiency: f64,
    /// Useful bytes / bytes moved per warp over a stream of warps.
    pub stream_efficiency: f64,
}

/// `coalesce`'s cost: one warp's load at a stride on `hw`.
pub fn cost<'a>(hw: &'a Hardware, inputs: &CoalesceInputs, mode: Mode) -> Result<CoalesceCost<'a>> {
    let ex = hw.execution()?;
    let lanes = u64::from(ex.warp_size.get());
    // Any precision the tool knows: only the element size matters here.
    let p = crate::precision::lookup(inputs.dtype.as_deref().unwrap_or(&hw.default_dtype))
        .map_err(|e| match e {
            Error::Input { message, .. } => Error::field("dtype", message),
            e => e,
        })?;
    if p.bits.fract() != 0.0 {
        return Err(Error::field(
            "dtype",
            format!(
                "{} stores {} bits per element with its block scales; coalesce needs a whole number of bits per element",
                p.name, p.bits
            ),
        ));
    }
    let offset = inputs.offset.map_or(0.0, |b| b.0);
    if !(offset.is_finite() && offset >= 0.0 && offset.fract() == 0.0 && offset <= 1e15) {
        return Err(Error::field(
            "offset",
            format!(
                "`{}`: expected a whole number of bytes, zero or more",
                units::sig(offset, 4)
            ),
        ));
    }
    let access = Access {
        stride: inputs.stride.map_or(1, |c| c.0),
        offset: offset as u64,
        granularity: inputs
            .granularity
            .unwrap_or_else(|| Granularity::default_for(hw)),
    };
    let unit_bytes = access.granularity.bytes(hw)?;
    let counts = counts(lanes, p.bits as u64, unit_bytes, &access)?;
    let bandwidth = hw.bandwidth(mode)?;
    Ok(CoalesceCost {
        hw,
        mode,
        dtype: p.name,
        elem_bytes: p.bytes(),
        lanes,
        access,
        unit_bytes,
        counts,
        bandwidth,
        efficiency: counts.useful_bytes / counts.moved_bytes,
        stream_efficiency: counts.useful_bytes / counts.stream_moved_bytes,
    })
}

impl CoalesceCost<'_> {
    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let (hw, a, c) = (self.hw, &self.access, &self.counts);
        let (eb, unit, lanes, bw) = (self.elem_bytes, self.unit_bytes, self.lanes, self.bandwidth);
        let mut r = Report::new_lean("coalesce", lean);
        r.hardware = Some(hw.id.clone());
        r.input("dtype", self.dtype);
        r.input("stride", a.stride);
        r.input("offset", a.offset);
        r.describe("offset", || Quantity::new("offset", Unit::Bytes));
        r.input("granularity", a.granularity.as_str());
        if self.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        r.result("unit_bytes", unit, || {
            Quantity::new(format!("{} size", a.granularity.unit_name()), Unit::Bytes)
                .source(hw.source(a.granularity.field()))
        });
        r.result("stride_bytes", a.stride as f64 * eb, || {
            Quantity::new("address stride between lanes", Unit::Bytes)
                .formula("stride x element size")
                .derive(format!("{} x {} B", a.stride, units::sig(eb, 4)))
        });
        r.result("useful_bytes", c.useful_bytes, || {
            Quantity::new("useful bytes", Unit::Bytes)
                .formula("lanes x element size")
                .derive(format!("{lanes} x {} B", units::sig(eb, 4)))
        });
        r.result("units_touched", c.units, || {
            Quantity::new(
                format!("{}s touched", a.granularity.unit_name()),
                Unit::Count,
            )
            .formula("distinct units under the lanes' addresses offset + lane x stride x size")
        });
        r.result("moved_bytes", c.moved_bytes, || {
            Quantity::new("bytes moved", Unit::Bytes)
                .formula("units touched x unit size")
                .derive(format!("{} x {unit} B", c.units))
        });
        let eff = self.efficiency;
        r.result("efficiency", eff, || {
            Quantity::new("efficiency", Unit::Fraction)
                .formula("useful bytes / bytes moved")
                .derive(format!(
                    "{} / {}",
                    units::number(c.useful_bytes),
                    units::number(c.moved_bytes)
                ))
        });
        r.result("effective_bandwidth_bytes_per_s", eff * bw, || {
            Quantity::new("effective bandwidth", Unit::BytesPerSec)
                .formula("efficiency x bandwidth")
                .derive(format!("{} x {}", units::sig(eff, 4), si(bw, "B/s")))
                .source(hw.source(if self.mode == Mode::SpeedOfLight {
                    "memory.hbm-bandwidth"
                } else {
                    "achievable.hbm-bandwidth"
                }))
        });
        r.result("slowdown", c.moved_bytes / c.useful_bytes, || {
            Quantity::new("bytes moved per useful byte", Unit::Ratio)
                .formula("bytes moved / useful bytes")
                .derive(format!(
                    "{} / {}",
                    units::number(c.moved_bytes),
                    units::number(c.useful_bytes)
                ))
        });
        let seff = self.stream_efficiency;
        r.result("stream_efficiency", seff, || {
            Quantity::new("efficiency over a stream of warps", Unit::Fraction)
                .formula("useful bytes / steady-state bytes moved per warp (units shared by neighbouring warps counted once)")
                .derive(format!(
                    "{} / {}",
                    units::number(c.useful_bytes),
                    units::sig(c.stream_moved_bytes, 4)
                ))
        });
        r.result("stream_effective_bandwidth_bytes_per_s", seff * bw, || {
            Quantity::new("effective bandwidth over a stream", Unit::BytesPerSec)
                .formula("stream efficiency x bandwidth")
                .derive(format!("{} x {}", units::sig(seff, 4), si(bw, "B/s")))
        });
        r.result("full_unit_stride_elems", (unit as f64 / eb).ceil(), || {
            Quantity::new("stride from which each lane has its own unit", Unit::Count)
                .formula("unit size / element size")
                .derive(format!("{unit} B / {} B", units::sig(eb, 4)))
        });

        if eff >= 1.0 {
            r.note("coalesced: every byte moved is used");
        } else if seff > eff * 1.5 {
            r.note_with(|| {
                format!(
                    "{}% of this warp's bytes are used, but consecutive warps share the boundary units: {}% over a stream",
                    units::percent(eff),
                    units::percent(seff)
                )
            });
        } else {
            r.note_with(|| {
                format!(
                    "strided: {}x the useful bytes are moved; change the layout or stage through shared memory",
                    units::sig_grouped(c.moved_bytes / c.useful_bytes, 4)
                )
            });
        }
        r.note_with(|| {
            format!(
                "granularity: {} ({unit} B){}",
                a.granularity.as_str(),
                match a.granularity {
                    Granularity::Segment => "; the lecture's 128-B segment model (the GPU-architecture lecture (002), §7.6)",
                    Granularity::Sector => "; the L1/L2 32-B sector model (the Learn Kernels book (000), §1.2, and the inference-engineer chapter (004), 'coalescing')",
                    Granularity::Dram => "; the DRAM fetch unit, what HBM actually transfers",
                }
            )
        });
        let elem_bytes = eb.round() as u64;
        if eb.fract() == 0.0 && elem_bytes > 1 && a.offset % elem_bytes != 0 {
            r.note_with(|| {
                format!(
                    "warning: an offset of {} B is not a multiple of the {}-B {} element: a misaligned load, which the hardware does not allow (it faults or is split); the counts assume it were allowed",
                    units::whole(a.offset),
                    units::whole(elem_bytes),
                    self.dtype
                )
            });
        }
        r.note("caches left out: a unit moved for one warp and reused by another from L1/L2 is counted again for the single warp, once for the stream");
        r
    }
}

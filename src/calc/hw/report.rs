//! `hw show`'s report: the headline figures at the precision, every
//! precision's peaks as rows, and the notes.

use super::clock_note;
use super::cost::{HwCost, MemoryLatency};
use super::datasheet::datasheet;
use crate::precision;
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::spec::hardware::{Mode, PeakScope};
use crate::units::{self, si};

impl HwCost<'_> {
    /// The report: headline figures at the precision, the datasheet with
    /// each figure's source, and a table of every precision's peaks. A lean
    /// report records values only.
    pub fn report(&self, lean: bool) -> Report {
        let hw = self.hardware;
        let mut r = Report::new_lean("hw show", lean);
        r.hardware = Some(hw.id.clone());
        r.input("dtype", self.dtype);
        if self.sparse {
            r.input("sparse", true);
        }
        if self.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        let src = |f: &str| hw.source(f).map(String::from);
        r.result("name", hw.name.as_str(), || {
            Quantity::new("name", Unit::None)
        });
        r.result("vendor", hw.vendor.as_str(), || {
            Quantity::new("vendor", Unit::None)
        });
        r.result("kind", hw.kind.as_str(), || {
            Quantity::new("kind", Unit::None)
        });

        let peak = self.peak;
        // int8 peaks count integer operations: OP/s, not FLOP/s.
        let rate = Unit::FlopPerSec.ops_if(self.integer);
        r.result("peak_flops_per_s", peak, || {
            let what = match (self.sparse, self.mode) {
                (true, _) => "peak, 2:4 sparse",
                (false, Mode::Achievable) => "peak, measured matmul",
                (false, Mode::SpeedOfLight) => "peak",
            };
            let what = if hw.compute.peak_scope == PeakScope::Core {
                format!("{what} (per-core engines x cores)")
            } else {
                what.to_string()
            };
            let mut q = Quantity::new(what, rate).source(src(&self.peak_field).as_deref());
            if hw.peak_multiplier() != 1.0 && self.mode == Mode::SpeedOfLight {
                q = q.formula("per-core peak x cores").derive(format!(
                    "{} x {}",
                    rate.format(peak / hw.peak_multiplier()),
                    units::number(hw.peak_multiplier())
                ));
            }
            q
        });
        if let Some(c) = self.chip_peak {
            r.result("chip_peak_flops_per_s", c, || {
                Quantity::new("peak, whole chip as the vendor states it", rate)
                    .source(src(&format!("compute.chip.{}", self.dtype_key())).as_deref())
            });
        }
        if let Some(bw) = self.bandwidth {
            r.result("hbm_bandwidth_bytes_per_s", bw, || {
                let label = if self.mode == Mode::Achievable {
                    "memory bandwidth, measured"
                } else {
                    "memory bandwidth"
                };
                Quantity::new(label, Unit::BytesPerSec).source(hw.source(self.bandwidth_field))
            });
        }
        if let Some((c, binary)) = self.capacity {
            r.result("hbm_capacity_bytes", c, || {
                // The vendor's unit: 144 GiB stays 144 GiB.
                let unit = if binary { Unit::BytesIec } else { Unit::Bytes };
                Quantity::new("memory capacity (datasheet)", unit)
                    .source(hw.source("memory.hbm-capacity"))
            });
        }
        if let Some(u) = self.usable_capacity {
            r.result("usable_capacity_bytes", u, || {
                Quantity::new("memory capacity (runtime total)", Unit::Bytes)
                    .source(hw.source("memory.usable-capacity"))
            });
        }
        if let Some(roof) = &self.roof {
            crate::calc::roof::ridge(&mut r, roof);
        }
        if let (Some(w), Some(fw)) = (self.board_power, self.flops_per_watt) {
            r.result("flops_per_watt", fw, || {
                // The label names no unit: the value carries FLOP/s/W or
                // OP/s/W, and a comparison shows both under one label.
                Quantity::new(
                    "peak per W of board power",
                    Unit::FlopPerSecPerWatt.ops_if(self.integer),
                )
                .formula("peak / board power")
                .derive(format!("{} / {} W", rate.format(peak), units::number(w)))
            });
        }

        // Board energy per FLOP and per byte when the board runs flat out
        // on one engine (formulas.md, "Power and energy").
        let pm = crate::calc::power::PowerModel::of(hw, p_compute(self.dtype));
        r.result(
            "joules_per_flop",
            pm.as_ref().ok().map(|m| m.compute_w / m.compute_rate),
            || {
                let q = Quantity::new(
                    "board energy per FLOP at the sustained peak",
                    Unit::JoulesPerFlop,
                )
                .formula("package.compute-watts / achievable.sustained")
                .group("energy");
                match &pm {
                    Ok(m) => q.derive(format!(
                        "{} W / {} (of which {} W idle, {} W the loop's own memory traffic, {} W compute: {} dynamic)",
                        units::sig(m.compute_w, 4),
                        rate.format(m.compute_rate),
                        units::sig(m.idle_w, 4),
                        units::sig(m.compute_w - m.idle_w - m.compute_dynamic_w(), 4),
                        units::sig(m.compute_dynamic_w(), 4),
                        Unit::JoulesPerFlop.format(m.joules_per_flop())
                    )),
                    Err(_) => q,
                }
            },
        );
        let stream = hw.package.as_ref().and_then(|p| p.stream_watts).zip(
            hw.achievable
                .as_ref()
                .and_then(|a| a.hbm_bandwidth)
                .map(|b| b.get()),
        );
        let idle = hw.package.as_ref().and_then(|p| p.idle_watts);
        r.result("joules_per_hbm_byte", stream.map(|(w, b)| w / b), || {
            let q = Quantity::new("board energy per HBM byte streamed", Unit::JoulesPerByte)
                .formula("package.stream-watts / achievable.hbm-bandwidth")
                .group("energy");
            match (stream, idle) {
                (Some((w, b)), Some(i)) => q.derive(format!(
                    "{} W / {} (of which {} W idle: {} dynamic)",
                    units::sig(w, 4),
                    units::si(b, "B/s"),
                    units::sig(i, 4),
                    Unit::JoulesPerByte.format((w - i) / b)
                )),
                (Some((w, b)), None) => {
                    q.derive(format!("{} W / {}", units::sig(w, 4), units::si(b, "B/s")))
                }
                _ => q,
            }
        });
        if let Err(field) = &pm {
            r.note(format!(
                "energy per FLOP and per byte: the file has no {field}; set it with --set {field}=... (docs/data-schemas.md, \"[package]\"; a measured figure with its source)"
            ));
        }

        let (onchip, terms) = &self.onchip;
        if *onchip > 0.0 {
            r.result("onchip_bytes", *onchip, || {
                Quantity::new("on-chip storage", Unit::Bytes)
                    .formula("sum of on-chip levels x their count")
                    .derive(terms.join(" + "))
            });
        }
        if let Some(clock) = self.clock_hz {
            r.input("clock_hz", clock);
        }
        if let Some(sms) = self.sms {
            r.result("sms", sms, || {
                Quantity::new("SMs / CUs", Unit::Count).source(hw.source("execution.sms"))
            });
            if let Some(bw) = self.bandwidth {
                let per_sm = bw / sms;
                r.result("hbm_bandwidth_per_sm_bytes_per_s", per_sm, || {
                    Quantity::new("memory bandwidth per SM", Unit::BytesPerSec)
                        .formula("bandwidth / SMs")
                        .derive(format!("{} / {}", si(bw, "B/s"), sms))
                });
                if let Some(clock) = self.clock_hz {
                    r.result("hbm_bytes_per_cycle_per_sm", per_sm / clock, || {
                        Quantity::new("memory bytes per cycle per SM", Unit::BytesPerCycle)
                            .formula("bandwidth / SMs / clock")
                            .derive(format!("{} / {} / {}", si(bw, "B/s"), sms, si(clock, "Hz")))
                    });
                }
            }
        }
        if let (Some(bw), Some(lat), Some(inflight)) =
            (self.bandwidth, self.latency, self.bytes_in_flight)
        {
            r.result("littles_law_bytes_in_flight", inflight, || {
                let q = Quantity::new("bytes in flight to saturate memory", Unit::Bytes);
                match lat {
                    MemoryLatency::Cycles { cycles, .. } => q
                        .formula("bandwidth x latency / clock")
                        .derive(format!(
                            "{} x {} cycles / {}",
                            si(bw, "B/s"),
                            units::number(cycles),
                            si(self.clock_hz.unwrap_or(f64::NAN), "Hz")
                        ))
                        .source(hw.source("memory.dram-latency")),
                    MemoryLatency::Seconds { seconds, measured } => q
                        .formula("bandwidth x latency")
                        .derive(format!("{} x {}", si(bw, "B/s"), units::seconds(seconds)))
                        .source(if measured {
                            hw.source("achievable.dram-latency")
                        } else {
                            hw.source("memory.dram-latency-time")
                        }),
                }
            });
        }

        // The datasheet's figures are described even in a lean report: a
        // comparison's inner points may carry keys (a part's own levels and
        // links) that no full point describes.
        let lean_report = r.lean;
        r.lean = false;
        datasheet(&mut r, hw, self.clock_hz);
        r.lean = lean_report;

        // The columns are described in FLOP units unless every precision
        // is an integer one (TPU v1); an int8 row beside float ones carries
        // its own OP units.
        let all_integer =
            !self.precisions.is_empty() && self.precisions.iter().all(|pp| pp.integer);
        r.describe("precision", || Quantity::new("precision", Unit::None));
        r.describe("dense_flops_per_s", || {
            Quantity::new("dense peak", Unit::FlopPerSec.ops_if(all_integer))
        });
        r.describe("sparse_flops_per_s", || {
            Quantity::new("2:4 sparse peak", Unit::FlopPerSec.ops_if(all_integer))
        });
        r.describe("ridge_point_flop_per_byte", || {
            Quantity::new("ridge point", Unit::FlopPerByte.ops_if(all_integer))
        });
        r.describe("joules_per_flop", || {
            Quantity::new("J per FLOP, sustained", Unit::JoulesPerFlop)
        });
        {
            for pp in &self.precisions {
                let mut row = Row::default();
                row.inputs.insert("precision".into(), pp.precision.into());
                row.results
                    .insert("dense_flops_per_s".into(), pp.dense.into());
                if let Some(s) = pp.sparse {
                    row.results.insert("sparse_flops_per_s".into(), s.into());
                }
                if let Some(rp) = pp.ridge {
                    row.results
                        .insert("ridge_point_flop_per_byte".into(), rp.into());
                }
                row.results.insert(
                    "joules_per_flop".into(),
                    crate::calc::power::PowerModel::of(hw, pp.precision)
                        .ok()
                        .map(|m| m.compute_w / m.compute_rate)
                        .into(),
                );
                if pp.integer != all_integer {
                    for (k, u) in [
                        ("dense_flops_per_s", Unit::FlopPerSec),
                        ("sparse_flops_per_s", Unit::FlopPerSec),
                        ("ridge_point_flop_per_byte", Unit::FlopPerByte),
                    ] {
                        row.units.insert(k.into(), u.ops_if(pp.integer));
                    }
                }
                r.rows.push(row);
            }
            r.rows_kind = Some(RowsKind::Table);
            r.table_in_comparison = true;
        }
        if self.chip_peak.is_some() {
            r.note_with(|| {
                format!(
                    "{}: the headline peak is the per-core engines' rate times {} cores; the chip peak is the vendor's figure for all engines together",
                    hw.id,
                    units::number(hw.peak_multiplier())
                )
            });
        }
        for (key, format) in [
            ("fp8", hw.compute.fp8_format.as_deref()),
            ("fp4", hw.compute.fp4_format.as_deref()),
        ] {
            if let Some(f) = format
                && self.precisions.iter().any(|pp| pp.precision == key)
            {
                r.note_with(|| {
                    format!(
                        "{}'s {key} peak is for {} (microscaled, block-scaled), not plain {key}",
                        hw.id,
                        f.to_ascii_uppercase()
                    )
                });
            }
        }
        if self.bandwidth.is_none() {
            r.note_with(|| {
                format!(
                    "{} has measured compute rates but no measured memory bandwidth (achievable.hbm-bandwidth): the ridge point, per-SM bandwidth and bytes in flight need one and are left out",
                    hw.id
                )
            });
        }
        // Measured bandwidth over a latency nobody measured on this part:
        // say so rather than let the bytes in flight pass as measured.
        if self.mode == Mode::Achievable
            && self.bytes_in_flight.is_some()
            && !matches!(
                self.latency,
                Some(MemoryLatency::Seconds { measured: true, .. })
            )
        {
            r.note_with(|| {
                format!(
                    "{} has no measured memory latency (achievable.dram-latency): bytes in flight use the measured bandwidth and the file's datasheet latency",
                    hw.id
                )
            });
        }
        r.note(match self.mode {
            Mode::SpeedOfLight => "speed-of-light figures from the datasheet; --achievable uses the file's measured ones (an error where it has none)",
            Mode::Achievable => "achievable figures: measured, not datasheet",
        });
        // A clock far outside what hardware runs at is likely a unit slip.
        if let Some(n) = clock_note(hw, self.clock_hz.filter(|_| self.clock_given)) {
            r.note(n);
        }
        r
    }

    fn dtype_key(&self) -> &'static str {
        precision::lookup(self.dtype).map_or(self.dtype, |p| p.compute)
    }
}

/// The compute key of a precision name (`int4` computes at `int8`).
fn p_compute(name: &str) -> &'static str {
    precision::lookup(name).map_or("", |p| p.compute)
}

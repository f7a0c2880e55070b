//! `collective`'s report: the time, bus and algorithm bandwidth, and each
//! phase as a row.

use super::{CollectiveCost, Kind};
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::spec::hardware::Mode;
use crate::units::{self, si};

fn bus_formula(kind: Kind) -> &'static str {
    match kind {
        Kind::AllReduce => "2 (N-1)/N x bytes",
        Kind::AllGather => "(N-1)/N x (N x bytes)",
        Kind::ReduceScatter => "(N-1)/N x bytes",
        Kind::AllToAll => "(N-1)/N x bytes",
        Kind::SendRecv => "bytes",
    }
}

impl CollectiveCost {
    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean(format!("collective {}", self.kind.as_str()), lean);
        r.hardware = Some(self.hardware.clone());
        r.input("kind", self.kind.as_str());
        r.input("devices", self.devices);
        r.input("bytes", self.bytes);
        if self.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        r.describe("bytes", || Quantity::new("input per rank", Unit::Bytes));
        r.result("algorithm", self.algorithm.as_str(), || {
            Quantity::new("algorithm", Unit::None)
        });
        let single = self.phases.len() == 1;
        r.result("bus_bytes", self.bus_bytes, || {
            let q = Quantity::new("bytes sent per device (bus bytes)", Unit::Bytes);
            if single {
                let p = &self.phases[0];
                q.formula(bus_formula(self.kind)).derive(format!(
                    "N = {}, bytes = {}",
                    p.devices,
                    si(p.bytes, "B")
                ))
            } else {
                q.formula("sum over phases").derive(
                    self.phases
                        .iter()
                        .map(|p| si(p.bus_bytes, "B"))
                        .collect::<Vec<_>>()
                        .join(" + "),
                )
            }
        });
        if !single {
            r.result("scale_up_bus_bytes", self.scale_up_bus_bytes, || {
                Quantity::new("bus bytes on the scale-up tier", Unit::Bytes)
            });
            r.result("scale_out_bus_bytes", self.scale_out_bus_bytes, || {
                Quantity::new("bus bytes on the scale-out tier", Unit::Bytes)
            });
        }
        r.result("bandwidth_bytes_per_s", self.bandwidth, || {
            let q = Quantity::new(
                "bandwidth used, one direction per device (bottleneck phase)",
                Unit::BytesPerSec,
            );
            let link = self
                .phases
                .iter()
                .max_by(|a, b| a.bandwidth_s.total_cmp(&b.bandwidth_s))
                .map(|p| format!("{}: ", p.link))
                .unwrap_or_default();
            let q = q.source(
                self.sources
                    .iter()
                    .find(|s| s.starts_with(&link))
                    .map(String::as_str),
            );
            match self.mode {
                Mode::SpeedOfLight => q.formula("the link's per-direction bandwidth x the share the topology lets one collective use"),
                Mode::Achievable => q.formula("measured link bandwidth x the measured bus efficiency of this collective"),
            }
        });
        r.result("latency_s", self.latency_s, || {
            Quantity::new("latency term", Unit::Seconds)
                .formula("per phase: fixed latency + steps x hop latency")
                .derive(
                    self.phases
                        .iter()
                        .map(|p| {
                            format!(
                                "{} ({} step{})",
                                units::seconds(p.latency_s),
                                p.steps,
                                if p.steps == 1 { "" } else { "s" }
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(" + "),
                )
        });
        r.result("bandwidth_time_s", self.bandwidth_s, || {
            Quantity::new("bandwidth term", Unit::Seconds)
                .formula("bus bytes / bandwidth, per phase")
                .derive(
                    self.phases
                        .iter()
                        .map(|p| format!("{} / {}", si(p.bus_bytes, "B"), si(p.bandwidth, "B/s")))
                        .collect::<Vec<_>>()
                        .join(if self.concurrent {
                            " alongside "
                        } else {
                            " + "
                        }),
                )
        });
        let protocols: Vec<&str> = self.phases.iter().filter_map(|p| p.protocol).collect();
        if !protocols.is_empty() {
            r.result("protocol", protocols.join(", ").as_str(), || {
                Quantity::new("NCCL protocol", Unit::None).formula(
                    "per phase the faster of LL128 (graph latency, ll128-share of the bandwidth) and Simple (simple-latency, all of it)",
                )
            });
        }
        let gpu_formula = if self.concurrent {
            "max over concurrent phases of (latency + bus bytes / bandwidth)"
        } else {
            "latency + bus bytes / bandwidth, summed over phases"
        };
        if let Some(h) = self.host_s {
            r.result("gpu_time_s", self.gpu_s, || {
                Quantity::new("GPU time", Unit::Seconds)
                    .formula(gpu_formula)
                    .derive(format!(
                        "{} + {}",
                        units::seconds(self.latency_s),
                        units::seconds(self.bandwidth_s)
                    ))
            });
            r.result("host_path_s", h, || {
                Quantity::new("host path of one eager call", Unit::Seconds)
                    .formula("achievable.call.collective-eager")
            });
        }
        r.result("time_s", self.time_s, || {
            let label = match self.mode {
                Mode::SpeedOfLight => "time (speed of light)",
                Mode::Achievable => "time (achievable)",
            };
            let q = Quantity::new(label, Unit::Seconds);
            match self.host_s {
                Some(h) => q
                    .formula("max(GPU time, host path): calls back to back overlap the host's path with the GPU's work")
                    .derive(format!(
                        "max({}, {})",
                        units::seconds(self.gpu_s),
                        units::seconds(h)
                    )),
                None => q.formula(gpu_formula).derive(format!(
                    "{} + {}",
                    units::seconds(self.latency_s),
                    units::seconds(self.bandwidth_s)
                )),
            }
        });
        r.result("algbw_bytes_per_s", self.algbw(), || {
            Quantity::new("algorithm bandwidth", Unit::BytesPerSec).formula("bytes / time")
        });
        r.result("busbw_bytes_per_s", self.busbw(), || {
            Quantity::new("bus bandwidth", Unit::BytesPerSec).formula("bus bytes / time")
        });
        let mut headline = vec![
            "algorithm",
            "bus_bytes",
            "bandwidth_bytes_per_s",
            "latency_s",
        ];
        if !protocols.is_empty() {
            headline.push("protocol");
        }
        if self.host_s.is_some() {
            headline.extend(["gpu_time_s", "host_path_s"]);
        }
        headline.extend(["time_s", "busbw_bytes_per_s"]);
        r.headline(&headline);
        if !single && !lean {
            r.rows_kind = Some(RowsKind::Table);
            for p in &self.phases {
                let mut row = Row::default();
                row.inputs.insert("phase".into(), p.kind.as_str().into());
                row.inputs.insert("link".into(), p.link.clone().into());
                row.results.insert("devices".into(), p.devices.into());
                row.results.insert("phase_bytes".into(), p.bytes.into());
                row.results
                    .insert("phase_bus_bytes".into(), p.bus_bytes.into());
                row.results
                    .insert("phase_bandwidth_bytes_per_s".into(), p.bandwidth.into());
                row.results.insert("phase_time_s".into(), p.time_s.into());
                r.rows.push(row);
            }
            r.describe("phase", || Quantity::new("phase", Unit::None));
            r.describe("link", || Quantity::new("link", Unit::None));
            r.describe("devices", || {
                Quantity::new("devices per group", Unit::Count)
            });
            r.describe("phase_bytes", || {
                Quantity::new("input per rank", Unit::Bytes)
            });
            r.describe("phase_bus_bytes", || {
                Quantity::new("bus bytes", Unit::Bytes)
            });
            r.describe("phase_bandwidth_bytes_per_s", || {
                Quantity::new("bandwidth", Unit::BytesPerSec)
            });
            r.describe("phase_time_s", || Quantity::new("time", Unit::Seconds));
        }
        r.note_with(|| match self.mode {
            Mode::SpeedOfLight => "speed of light: datasheet link bandwidth, the whole of it used; the latency term is the file's hop latency per step (0 where the file gives none), so small messages take longer in practice (--achievable adds NCCL's measured per-call latency)".into(),
            Mode::Achievable if !protocols.is_empty() => "achievable: measured link bandwidth and per-collective bus efficiency; NCCL's faster protocol per phase (LL128 at the measured graph latency and 0.92 of the bandwidth, or Simple at its measured fixed cost), and an eager call takes the longer of its host path and that GPU time (calibrated on two H200s over NVLink; not calibrated for more devices)".into(),
            Mode::Achievable => "achievable: measured link bandwidth and NCCL's measured per-call latency and per-collective bus efficiency (calibrated on two H200s over NVLink; not calibrated for more devices)".into(),
        });
        r
    }
}

//! The fabric tiers a collective runs on, read from the hardware file's
//! `interconnect` list: scale-up up to its domain, then scale-out.

use super::LaunchMode;
use crate::error::{Error, Result};
use crate::spec::hardware::{Hardware, Link, Mode};
use serde::Serialize;

/// How a tier's devices are wired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Topology {
    /// A switch: every device reaches every other at its full bandwidth.
    Switch,
    /// Direct links to each peer (Infinity Fabric): the per-device figure
    /// is shared by `links` links, one per peer.
    FullMesh {
        /// Links per device.
        links: u32,
    },
    /// A torus (a ring is a torus of one axis); the tier's bandwidth is
    /// what leaves a device one way along one axis, both ring directions
    /// together.
    Torus {
        /// Axes.
        axes: u32,
    },
}

/// One fabric tier as a collective sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tier {
    /// The interconnect's name (`nvlink4`).
    pub name: String,
    /// `scale-up` or `scale-out`.
    pub tier: &'static str,
    /// Bandwidth one way per device (per axis for a torus), B/s.
    pub bandwidth: f64,
    /// Wiring.
    pub topology: Topology,
    /// Devices per domain (`None`: unbounded).
    pub domain: Option<u64>,
    /// Latency per algorithm step (the file's hop latency; 0 when absent).
    pub hop_latency: f64,
    /// Fixed latency per phase (measured NCCL call latency with
    /// `--achievable`; 0 at speed of light).
    pub fixed_latency: f64,
    /// Share of `bandwidth` each collective reaches (1 at speed of light).
    pub efficiency: [f64; 5],
    /// NCCL's two protocols, where the file has their figures
    /// (`--achievable`, scale-up, called from a graph or eagerly): each
    /// phase takes the faster (formulas.md, "Collectives", protocols).
    pub protocols: Option<Protocols>,
    /// The host's path of one eager call, priced apart from the GPU's time
    /// where the file has the protocols (the call takes the longer).
    pub host_s: Option<f64>,
    /// Where the bandwidth comes from.
    pub source: Option<String>,
}

/// NCCL's small- and large-message protocols on one tier.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Protocols {
    /// The small-message protocol's (LL128) bandwidth over the large one's.
    pub small_share: f64,
    /// The large-message protocol's (Simple) fixed GPU time, seconds (the
    /// small one pays the tier's `fixed_latency`).
    pub large_latency: f64,
}

/// A tier that could not be built, kept until a collective needs it.
#[derive(Debug, Clone, PartialEq)]
struct Missing {
    field: String,
    why: String,
    example: &'static str,
}

/// The fabric tiers of one accelerator, resolved once for many
/// collectives (a plan search times thousands).
#[derive(Debug, Clone, PartialEq)]
pub struct Fabric {
    /// The hardware's id.
    pub hardware: String,
    /// Datasheet or measured figures.
    pub mode: Mode,
    scale_up: Option<std::result::Result<Tier, Missing>>,
    scale_out: Option<std::result::Result<Tier, Missing>>,
}

fn topology(link: &Link) -> Topology {
    let t = link.topology.as_deref().unwrap_or("switch");
    if let Some(axes) = link.axes {
        return Topology::Torus { axes: axes.get() };
    }
    if t == "ring" {
        return Topology::Torus { axes: 1 };
    }
    if let Some(rest) = t.strip_prefix("torus") {
        let axes = rest
            .trim_start_matches('-')
            .trim_end_matches('d')
            .parse()
            .unwrap_or(1);
        return Topology::Torus { axes };
    }
    match (t, link.links) {
        ("full-mesh", Some(l)) => Topology::FullMesh { links: l.get() },
        _ => Topology::Switch,
    }
}

impl Fabric {
    /// The scale-up and scale-out tiers of `hw`, collectives captured in a
    /// CUDA graph (as a step or a plan runs them). A tier whose bandwidth
    /// the file lacks is an error only when a collective needs it.
    pub fn of(hw: &Hardware, mode: Mode) -> Fabric {
        Self::called(hw, mode, LaunchMode::Graph)
    }

    /// The tiers of `hw` with collectives called as `call` says.
    pub fn called(hw: &Hardware, mode: Mode, call: LaunchMode) -> Fabric {
        let build = |tier: &'static str| -> Option<std::result::Result<Tier, Missing>> {
            let (i, link) = hw
                .interconnect
                .iter()
                .enumerate()
                .find(|(_, l)| l.tier.as_str() == tier)?;
            Some(Self::tier(hw, i, link, tier, mode, call))
        };
        Fabric {
            hardware: hw.id.clone(),
            mode,
            scale_up: build("scale-up"),
            scale_out: build("scale-out"),
        }
    }

    fn tier(
        hw: &Hardware,
        i: usize,
        link: &Link,
        tier: &'static str,
        mode: Mode,
        call: LaunchMode,
    ) -> std::result::Result<Tier, Missing> {
        let sol = link
            .per_direction_bandwidth
            .map(|b| b.get())
            .or(link.bidirectional_bandwidth.map(|b| b.get() / 2.0));
        let Some(sol) = sol else {
            return Err(Missing {
                field: format!("interconnect.{i}.per-direction-bandwidth"),
                why: format!("the bandwidth of {} for collectives", link.name),
                example: "200 GB/s",
            });
        };
        let hop_latency = link.latency.map_or(0.0, |l| l.get());
        let topology = topology(link);
        // A torus collective is costed per axis: what leaves a device one
        // way along one axis, over its two links (one per ring direction).
        // A file that counts its links gives per-device totals (split over
        // the axes); one that does not gives one link per axis each way.
        let per_axis = |b: f64| match (topology, link.links) {
            (Topology::Torus { axes }, Some(_)) => b / f64::from(axes.max(1)),
            (Topology::Torus { .. }, None) => 2.0 * b,
            _ => b,
        };
        let sol = per_axis(sol);
        let sol_source = hw
            .source(&format!("interconnect.{i}.per-direction-bandwidth"))
            .or(hw.source(&format!("interconnect.{i}.bidirectional-bandwidth")))
            .map(String::from);
        let mut t = Tier {
            name: link.name.clone(),
            tier,
            bandwidth: sol,
            topology,
            domain: link.domain_size.map(|d| u64::from(d.get())),
            hop_latency,
            fixed_latency: 0.0,
            efficiency: [1.0; 5],
            protocols: None,
            host_s: None,
            source: sol_source,
        };
        if mode == Mode::Achievable {
            let field = format!("achievable.link-bandwidth.{}", link.name);
            let measured = hw
                .achievable
                .as_ref()
                .and_then(|a| a.link_bandwidth.get(&link.name));
            let Some(m) = measured else {
                return Err(Missing {
                    field,
                    why: format!("the measured bandwidth of {} (--achievable)", link.name),
                    example: "370 GB/s",
                });
            };
            t.bandwidth = per_axis(m.get());
            t.source = hw.source(&field).map(String::from);
            // NCCL's per-call latency and bus efficiency were measured on
            // the scale-up link (formulas.md, "Collectives", calibration).
            let a = hw.achievable.as_ref();
            if tier == "scale-up" {
                let calls = a.and_then(|a| a.call.as_ref());
                let protocols = a
                    .and_then(|a| a.collective_protocol.as_ref())
                    .and_then(|p| {
                        Some(Protocols {
                            small_share: p.ll128_share?,
                            large_latency: p.simple_latency?.get(),
                        })
                    });
                // With the protocols the GPU pays the graph latency in either
                // mode and an eager call's host path is priced apart.
                let gpu_call = match (call, protocols) {
                    (LaunchMode::Eager, Some(_)) => LaunchMode::Graph,
                    _ => call,
                };
                if call != LaunchMode::None
                    && let Some(p) = protocols
                {
                    t.protocols = Some(p);
                    if call == LaunchMode::Eager {
                        t.host_s = calls.and_then(|c| c.collective_eager).map(|l| l.get());
                    }
                }
                let (latency, field) = match gpu_call {
                    LaunchMode::None => (None, None),
                    LaunchMode::Graph => (
                        calls.and_then(|c| c.collective_graph),
                        Some("achievable.call.collective-graph"),
                    ),
                    // A call waited for is issued from the host as an eager
                    // one is.
                    LaunchMode::Eager | LaunchMode::Synchronised => (
                        calls.and_then(|c| c.collective_eager),
                        Some("achievable.call.collective-eager"),
                    ),
                };
                let mut notes = Vec::new();
                if let (Some(l), Some(f)) = (latency, field) {
                    t.fixed_latency = l.get();
                    notes.push(
                        hw.source(f)
                            .map_or_else(|| f.to_string(), |s| format!("{f}: {s}")),
                    );
                }
                if t.protocols.is_some() {
                    notes.push("achievable.collective-protocol".into());
                    if t.host_s.is_some() {
                        let f = "achievable.call.collective-eager";
                        notes.push(
                            hw.source(f)
                                .map_or_else(|| f.to_string(), |s| format!("{f}: {s}")),
                        );
                    }
                }
                if let Some(b) = a.and_then(|a| a.bus_efficiency.as_ref()) {
                    for (i, (_, v)) in b.entries().into_iter().enumerate() {
                        if let Some(v) = v {
                            t.efficiency[i] = v;
                        }
                    }
                    notes.push("achievable.bus-efficiency".into());
                }
                if !notes.is_empty() {
                    t.source = Some(match t.source {
                        Some(s) => format!("{s}; {}", notes.join("; ")),
                        None => notes.join("; "),
                    });
                }
            }
        }
        Ok(t)
    }

    fn need<'a>(
        &self,
        t: &'a Option<std::result::Result<Tier, Missing>>,
    ) -> Result<Option<&'a Tier>> {
        match t {
            None => Ok(None),
            Some(Ok(t)) => Ok(Some(t)),
            Some(Err(m)) => Err(Error::MissingField {
                owner: self.hardware.clone(),
                field: m.field.clone(),
                why: m.why.clone(),
                example: Some(m.example.into()),
            }),
        }
    }

    /// The scale-up tier, if the hardware has one (an error if it lacks
    /// the figures a collective needs).
    pub fn scale_up(&self) -> Result<Option<&Tier>> {
        self.need(&self.scale_up)
    }

    /// The scale-out tier, if any.
    pub fn scale_out(&self) -> Result<Option<&Tier>> {
        self.need(&self.scale_out)
    }

    /// Devices in one scale-up domain (`None`: the tier is unbounded or
    /// absent), read without needing the tier's bandwidth.
    pub fn domain(&self) -> Option<u64> {
        match &self.scale_up {
            Some(Ok(t)) => t.domain,
            _ => None,
        }
    }
}

//! `collective`: the time of one NCCL-style collective (all-reduce,
//! all-gather, reduce-scatter, all-to-all, send/recv) over N devices on the
//! hardware's fabric tiers, from an alpha-beta model: a latency term per
//! phase plus the bytes each device puts on its links over the bandwidth it
//! can use (formulas.md, "Collectives"; 000 §5.1).
//!
//! The fabric is the hardware file's `interconnect` list: the scale-up tier
//! (NVLink switch, Infinity Fabric mesh, TPU ICI torus, NeuronLink) up to its
//! `domain-size`, then the scale-out tier (one NIC per device). A
//! collective wider than the scale-up domain runs hierarchically: inside
//! each domain, across domains, inside again.

use crate::error::{Error, Result};
use crate::inputs::{Bytes, Count, Seconds, at_least_one, non_negative, positive};
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::spec::hardware::{Hardware, Link, Mode};
use crate::units::{self, si};
use serde::{Deserialize, Serialize};

/// Which collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Every rank ends with the element-wise sum of every rank's input.
    AllReduce,
    /// Every rank ends with every rank's input, concatenated.
    AllGather,
    /// Every rank ends with its 1/N slice of the sum of the inputs.
    ReduceScatter,
    /// Every rank sends a distinct 1/N slice of its input to each rank.
    AllToAll,
    /// Each rank sends its whole input to one peer (a pipeline hand-off).
    SendRecv,
}

impl Kind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [Kind; 5] = [
        Kind::AllReduce,
        Kind::AllGather,
        Kind::ReduceScatter,
        Kind::AllToAll,
        Kind::SendRecv,
    ];

    /// The name users type.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::AllReduce => "all-reduce",
            Kind::AllGather => "all-gather",
            Kind::ReduceScatter => "reduce-scatter",
            Kind::AllToAll => "all-to-all",
            Kind::SendRecv => "send-recv",
        }
    }

    /// Its place in a tier's efficiency figures.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// `collective`'s inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CollectiveInputs {
    /// Which collective.
    pub kind: Kind,
    /// Devices taking part.
    pub devices: Count,
    /// Each rank's input buffer, as NCCL counts it (for all-gather the
    /// piece each rank contributes; for reduce-scatter the whole vector).
    pub bytes: Bytes,
    /// A fixed latency per phase, replacing the file's (default: the link's
    /// hop latency per step at speed of light, plus NCCL's measured
    /// per-call latency with `--achievable`).
    #[serde(default)]
    pub latency: Option<Seconds>,
    /// With `--achievable`: how the collective is called, `none`, `graph`
    /// or `eager` (the default: one call from Python); it picks the
    /// measured per-call latency (`achievable.call.collective-*`).
    #[serde(default)]
    pub launch: Option<String>,
}

/// How a collective is called, for its measured per-call latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallMode {
    /// No per-call latency beyond the link's hops.
    None,
    /// Captured in a CUDA graph (inside a step or a plan).
    Graph,
    /// Called eagerly from Python.
    Eager,
}

impl CallMode {
    /// Parses `none`, `graph` or `eager`.
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(CallMode::None),
            "graph" => Ok(CallMode::Graph),
            "eager" => Ok(CallMode::Eager),
            _ => Err(Error::field(
                "launch",
                format!("`{s}`: expected none, graph or eager"),
            )),
        }
    }

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            CallMode::None => "none",
            CallMode::Graph => "graph",
            CallMode::Eager => "eager",
        }
    }
}

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
    /// Where the bandwidth comes from.
    pub source: Option<String>,
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
        Self::called(hw, mode, CallMode::Graph)
    }

    /// The tiers of `hw` with collectives called as `call` says.
    pub fn called(hw: &Hardware, mode: Mode, call: CallMode) -> Fabric {
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
        call: CallMode,
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
                let (latency, field) = match call {
                    CallMode::None => (None, None),
                    CallMode::Graph => (
                        calls.and_then(|c| c.collective_graph),
                        Some("achievable.call.collective-graph"),
                    ),
                    CallMode::Eager => (
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

/// One phase of a collective on one tier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Phase {
    /// The primitive this phase runs.
    pub kind: Kind,
    /// The link it runs on.
    pub link: String,
    /// `scale-up` or `scale-out`.
    pub tier: &'static str,
    /// Devices in each group of this phase.
    pub devices: u64,
    /// Each rank's input to this phase, bytes.
    pub bytes: f64,
    /// Bytes each device sends one way over this tier.
    pub bus_bytes: f64,
    /// Bandwidth one way the phase uses per device, B/s.
    pub bandwidth: f64,
    /// Algorithm steps (each pays a hop latency).
    pub steps: u64,
    /// Latency term, seconds.
    pub latency_s: f64,
    /// bus bytes / bandwidth, seconds.
    pub bandwidth_s: f64,
    /// latency + bandwidth terms.
    pub time_s: f64,
    /// How it runs (`ring`, `torus 4x4x4`, `direct`).
    pub algorithm: String,
}

/// One collective: every figure `collective` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollectiveCost {
    /// The hardware's id.
    pub hardware: String,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// Which collective.
    pub kind: Kind,
    /// Devices taking part.
    pub devices: u64,
    /// Each rank's input, bytes.
    pub bytes: f64,
    /// The phases, in order.
    pub phases: Vec<Phase>,
    /// Whether the phases overlap (hierarchical all-to-all: the NVLink and
    /// the network parts run at once) rather than run one after another.
    pub concurrent: bool,
    /// Bytes each device sends one way, all tiers.
    pub bus_bytes: f64,
    /// Bus bytes on the scale-up tier.
    pub scale_up_bus_bytes: f64,
    /// Bus bytes on the scale-out tier.
    pub scale_out_bus_bytes: f64,
    /// The per-direction bandwidth of the phase with the largest bandwidth
    /// term (the bottleneck), B/s.
    pub bandwidth: f64,
    /// Sum of the latency terms, seconds.
    pub latency_s: f64,
    /// Sum (or, concurrent, the largest) of the bandwidth terms, seconds.
    pub bandwidth_s: f64,
    /// The collective's time, seconds.
    pub time_s: f64,
    /// The algorithm in words.
    pub algorithm: String,
    /// Where the bandwidths come from.
    pub sources: Vec<String>,
}

impl CollectiveCost {
    /// Input bytes per rank over the time (NCCL's algorithm bandwidth).
    pub fn algbw(&self) -> f64 {
        if self.time_s > 0.0 {
            self.bytes / self.time_s
        } else {
            0.0
        }
    }

    /// Bus bytes over the time (NCCL's bus bandwidth).
    pub fn busbw(&self) -> f64 {
        if self.time_s > 0.0 {
            self.bus_bytes / self.time_s
        } else {
            0.0
        }
    }
}

/// Average ring distance from one position to every position (itself
/// included) of a bidirectional ring of `f`: f/4 for even f, (f²-1)/(4f)
/// for odd.
fn mean_ring_distance(f: u64) -> f64 {
    let f = f as f64;
    if (f as u64).is_multiple_of(2) {
        f / 4.0
    } else {
        (f * f - 1.0) / (4.0 * f)
    }
}

/// The most even way to lay `n` devices on `axes` torus axes: factors in
/// ascending order, the largest as small as it can be.
pub fn torus_shape(n: u64, axes: u32) -> Vec<u64> {
    fn best(n: u64, k: u32, min: u64) -> Option<Vec<u64>> {
        if k == 1 {
            return (n >= min).then(|| vec![n]);
        }
        let mut out: Option<Vec<u64>> = None;
        let mut d = min.max(1);
        while d.saturating_pow(k) <= n {
            if n.is_multiple_of(d)
                && let Some(mut rest) = best(n / d, k - 1, d)
            {
                rest.insert(0, d);
                let better = match &out {
                    None => true,
                    Some(o) => rest.last() < o.last(),
                };
                if better {
                    out = Some(rest);
                }
            }
            d += 1;
        }
        out
    }
    let axes = axes.max(1);
    best(n, axes, 1).unwrap_or_else(|| vec![n])
}

/// Bytes each device sends, and algorithm steps, for `kind` over a flat
/// group of `n` with `v` input bytes per rank (formulas.md, "Collectives").
fn ring_bus(kind: Kind, n: u64, v: f64) -> (f64, u64) {
    let nf = n as f64;
    match kind {
        Kind::AllReduce => (2.0 * (nf - 1.0) / nf * v, 2 * (n - 1)),
        Kind::AllGather => ((nf - 1.0) * v, n - 1),
        Kind::ReduceScatter => ((nf - 1.0) / nf * v, n - 1),
        Kind::AllToAll => ((nf - 1.0) / nf * v, 1),
        Kind::SendRecv => (v, 1),
    }
}

/// One phase of `kind` among groups of `n` on tier `t`.
fn flat(t: &Tier, kind: Kind, n: u64, v: f64, fixed: Option<f64>) -> Phase {
    let eff = t.efficiency[kind.index()];
    let (bus, bandwidth, steps, algorithm) = if n <= 1 {
        (0.0, t.bandwidth, 0, "none (one device)".to_string())
    } else {
        match t.topology {
            Topology::Switch => {
                let (bus, steps) = ring_bus(kind, n, v);
                let alg = match kind {
                    Kind::AllToAll => "pairwise, all peers at once",
                    Kind::SendRecv => "point-to-point",
                    _ => "ring",
                };
                (bus, t.bandwidth, steps, alg.to_string())
            }
            Topology::FullMesh { links } => {
                let (bus, _) = ring_bus(kind, n, v);
                let l = f64::from(links.max(1));
                let used = ((n - 1) as f64).min(l);
                match kind {
                    Kind::SendRecv => (bus, t.bandwidth / l, 1, "point-to-point, one link".into()),
                    _ => {
                        let steps = if kind == Kind::AllReduce { 2 } else { 1 };
                        (
                            bus,
                            t.bandwidth * used / l,
                            steps,
                            format!("direct over {} of {} links", used, links),
                        )
                    }
                }
            }
            Topology::Torus { axes } => {
                let shape = torus_shape(n, axes);
                let used: Vec<u64> = shape.iter().copied().filter(|&f| f > 1).collect();
                let dims = shape
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join("x");
                let k = used.len().max(1) as f64;
                let sum_steps: u64 = used.iter().map(|f| f - 1).sum();
                match kind {
                    Kind::AllToAll => {
                        let d = used
                            .iter()
                            .map(|&f| mean_ring_distance(f))
                            .fold(0.0, f64::max);
                        let hops: u64 = used.iter().map(|f| f / 2).sum();
                        (
                            v * d,
                            t.bandwidth,
                            hops.max(1),
                            format!("torus {dims}, hop-weighted bytes on the busiest axis"),
                        )
                    }
                    Kind::SendRecv => (v, t.bandwidth / 2.0, 1, "neighbour on one axis".into()),
                    _ => {
                        let (bus, _) = ring_bus(kind, n, v);
                        let steps = if kind == Kind::AllReduce {
                            2 * sum_steps
                        } else {
                            sum_steps
                        };
                        (
                            bus,
                            k * t.bandwidth,
                            steps,
                            format!(
                                "torus {dims}, bidirectional rings on {} ax{} at once",
                                used.len(),
                                if used.len() == 1 { "is" } else { "es" }
                            ),
                        )
                    }
                }
            }
        }
    };
    let bandwidth = bandwidth * eff;
    let latency_s = if n <= 1 {
        0.0
    } else {
        fixed.unwrap_or(t.fixed_latency) + steps as f64 * t.hop_latency
    };
    let bandwidth_s = if bus > 0.0 { bus / bandwidth } else { 0.0 };
    Phase {
        kind,
        link: t.name.clone(),
        tier: t.tier,
        devices: n,
        bytes: v,
        bus_bytes: bus,
        bandwidth,
        steps,
        latency_s,
        bandwidth_s,
        time_s: latency_s + bandwidth_s,
        algorithm,
    }
}

/// The collective `kind` of `bytes` per rank over `devices` on `fabric`;
/// `latency` replaces each phase's fixed latency.
pub fn time(
    fabric: &Fabric,
    kind: Kind,
    devices: u64,
    bytes: f64,
    latency: Option<f64>,
) -> Result<CollectiveCost> {
    let n = at_least_one("devices", devices)?;
    let v = non_negative("bytes", bytes)?;
    if kind == Kind::SendRecv && n == 1 {
        return Err(Error::field(
            "devices",
            "a send/recv needs two devices (a sender and a receiver)",
        ));
    }
    let up = fabric.scale_up()?;
    let domain = up.and_then(|t| t.domain);
    let spans = domain.is_some_and(|d| n > d) || up.is_none();
    let mut concurrent = false;
    let phases: Vec<Phase> = if !spans {
        let up = up.expect("a scale-up tier when the collective fits in it");
        vec![flat(up, kind, n, v, latency)]
    } else {
        let Some(out) = fabric.scale_out()? else {
            return Err(match (up, domain) {
                (Some(u), Some(d)) => Error::field(
                    "devices",
                    format!(
                        "{} devices exceed {}'s {} domain of {} and it has no scale-out tier; give at most {}",
                        units::whole(n),
                        fabric.hardware,
                        u.name,
                        units::whole(d),
                        units::whole(d)
                    ),
                ),
                _ => Error::Unsupported(format!(
                    "{} has no scale-up or scale-out interconnect in its file; a collective needs one (add an [[interconnect]] entry)",
                    fabric.hardware
                )),
            });
        };
        match (up, domain) {
            (Some(up), Some(d)) if d > 1 => {
                if n % d != 0 {
                    let lower = n / d * d;
                    return Err(Error::field(
                        "devices",
                        format!(
                            "{} devices fill scale-up domains of {} ({}) unevenly; give a multiple of {} (e.g. {} or {}) or at most {}",
                            units::whole(n),
                            units::whole(d),
                            up.name,
                            units::whole(d),
                            units::whole(lower.max(d)),
                            units::whole(lower + d),
                            units::whole(d)
                        ),
                    ));
                }
                let m = n / d;
                let df = d as f64;
                match kind {
                    Kind::AllReduce => vec![
                        flat(up, Kind::ReduceScatter, d, v, latency),
                        flat(out, Kind::AllReduce, m, v / df, latency),
                        flat(up, Kind::AllGather, d, v / df, latency),
                    ],
                    Kind::AllGather => vec![
                        flat(out, Kind::AllGather, m, v, latency),
                        flat(up, Kind::AllGather, d, v * m as f64, latency),
                    ],
                    Kind::ReduceScatter => vec![
                        flat(up, Kind::ReduceScatter, d, v, latency),
                        flat(out, Kind::ReduceScatter, m, v / df, latency),
                    ],
                    Kind::AllToAll => {
                        concurrent = true;
                        // Of each rank's input, (d-1)/n goes to peers in its
                        // domain and (n-d)/n across the network.
                        let nf = n as f64;
                        let mut inside = flat(up, Kind::AllToAll, d, v, latency);
                        let scale = (df - 1.0) / nf / ((df - 1.0) / df);
                        inside.bus_bytes *= scale;
                        inside.bandwidth_s *= scale;
                        inside.time_s = inside.latency_s + inside.bandwidth_s;
                        let mut across = flat(out, Kind::AllToAll, m, v, latency);
                        let mf = m as f64;
                        let scale = (nf - df) / nf / ((mf - 1.0) / mf);
                        across.bus_bytes *= scale;
                        across.bandwidth_s *= scale;
                        across.devices = n;
                        across.time_s = across.latency_s + across.bandwidth_s;
                        vec![inside, across]
                    }
                    Kind::SendRecv => vec![flat(out, Kind::SendRecv, 2, v, latency)],
                }
            }
            _ => vec![flat(out, kind, n, v, latency)],
        }
    };
    let hierarchical = phases.len() > 1;
    let (mut up_bus, mut out_bus) = (0.0, 0.0);
    for p in &phases {
        if p.tier == "scale-up" {
            up_bus += p.bus_bytes;
        } else {
            out_bus += p.bus_bytes;
        }
    }
    let latency_s = if concurrent {
        phases.iter().map(|p| p.latency_s).fold(0.0, f64::max)
    } else {
        phases.iter().map(|p| p.latency_s).sum()
    };
    let bandwidth_s = if concurrent {
        phases.iter().map(|p| p.bandwidth_s).fold(0.0, f64::max)
    } else {
        phases.iter().map(|p| p.bandwidth_s).sum()
    };
    let time_s = if concurrent {
        phases.iter().map(|p| p.time_s).fold(0.0, f64::max)
    } else {
        phases.iter().map(|p| p.time_s).sum()
    };
    let slowest = phases
        .iter()
        .max_by(|a, b| a.bandwidth_s.total_cmp(&b.bandwidth_s))
        .expect("at least one phase");
    let algorithm = if hierarchical {
        format!(
            "hierarchical: {}",
            phases
                .iter()
                .map(|p| format!(
                    "{} over {} ({} devices)",
                    p.kind.as_str(),
                    p.link,
                    p.devices
                ))
                .collect::<Vec<_>>()
                .join(if concurrent { " alongside " } else { ", then " })
        )
    } else {
        phases[0].algorithm.clone()
    };
    let mut sources = Vec::new();
    for t in [fabric.scale_up()?, fabric.scale_out().ok().flatten()]
        .into_iter()
        .flatten()
    {
        if phases.iter().any(|p| p.link == t.name)
            && let Some(s) = &t.source
        {
            sources.push(format!("{}: {s}", t.name));
        }
    }
    Ok(CollectiveCost {
        hardware: fabric.hardware.clone(),
        mode: fabric.mode,
        kind,
        devices: n,
        bytes: v,
        bandwidth: slowest.bandwidth,
        bus_bytes: up_bus + out_bus,
        scale_up_bus_bytes: up_bus,
        scale_out_bus_bytes: out_bus,
        latency_s,
        bandwidth_s,
        time_s,
        algorithm,
        concurrent,
        phases,
        sources,
    })
}

/// `collective`'s cost for `inputs` on `hw`.
pub fn cost(hw: &Hardware, inputs: &CollectiveInputs, mode: Mode) -> Result<CollectiveCost> {
    let latency = inputs
        .latency
        .map(|l| non_negative("latency", l.0))
        .transpose()?;
    let bytes = positive("bytes", inputs.bytes.0)?;
    let call = inputs
        .launch
        .as_deref()
        .map(CallMode::parse)
        .transpose()?
        .unwrap_or(CallMode::Eager);
    time(
        &Fabric::called(hw, mode, call),
        inputs.kind,
        inputs.devices.0,
        bytes,
        latency,
    )
}

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
        r.result("time_s", self.time_s, || {
            let label = match self.mode {
                Mode::SpeedOfLight => "time (speed of light)",
                Mode::Achievable => "time (achievable)",
            };
            Quantity::new(label, Unit::Seconds)
                .formula(if self.concurrent {
                    "max over concurrent phases of (latency + bus bytes / bandwidth)"
                } else {
                    "latency + bus bytes / bandwidth, summed over phases"
                })
                .derive(format!(
                    "{} + {}",
                    units::seconds(self.latency_s),
                    units::seconds(self.bandwidth_s)
                ))
        });
        r.result("algbw_bytes_per_s", self.algbw(), || {
            Quantity::new("algorithm bandwidth", Unit::BytesPerSec).formula("bytes / time")
        });
        r.result("busbw_bytes_per_s", self.busbw(), || {
            Quantity::new("bus bandwidth", Unit::BytesPerSec).formula("bus bytes / time")
        });
        r.headline(&[
            "algorithm",
            "bus_bytes",
            "bandwidth_bytes_per_s",
            "latency_s",
            "time_s",
            "busbw_bytes_per_s",
        ]);
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
            Mode::Achievable => "achievable: measured link bandwidth and NCCL's measured per-call latency and per-collective bus efficiency (calibrated on two H200s over NVLink; not calibrated for more devices)".into(),
        });
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_shapes_are_even() {
        assert_eq!(torus_shape(64, 3), vec![4, 4, 4]);
        assert_eq!(torus_shape(8, 3), vec![2, 2, 2]);
        assert_eq!(torus_shape(7, 3), vec![1, 1, 7]);
        assert_eq!(torus_shape(16, 1), vec![16]);
        assert_eq!(torus_shape(12, 2), vec![3, 4]);
    }

    #[test]
    fn ring_distances() {
        assert_eq!(mean_ring_distance(2), 0.5);
        assert_eq!(mean_ring_distance(4), 1.0);
        assert!((mean_ring_distance(3) - 8.0 / 12.0).abs() < 1e-12);
    }
}

//! The alpha-beta model of one collective: each phase's latency and bytes
//! on its tier, flat or hierarchical across domains (formulas.md,
//! "Collectives").

use super::{Fabric, Kind, Tier, Topology};
use crate::error::{Error, Result};
use crate::inputs::{at_least_one, non_negative};
use crate::spec::hardware::Mode;
use crate::units;
use serde::Serialize;

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
    /// NCCL's protocol it takes, where the tier has the protocols' figures
    /// (`LL128` for small messages, `Simple` for large).
    pub protocol: Option<&'static str>,
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
    /// The GPU's time of the collective (its phases), seconds.
    pub gpu_s: f64,
    /// The host's path of one eager call, where it is priced apart from
    /// the GPU's time (the protocol model): calls back to back take the
    /// longer of the two.
    pub host_s: Option<f64>,
    /// The collective's time, seconds: `gpu_s`, or the longer of it and
    /// `host_s`.
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
    let mut bandwidth = bandwidth * eff;
    let hops = steps as f64 * t.hop_latency;
    let mut latency_s = if n <= 1 {
        0.0
    } else {
        fixed.unwrap_or(t.fixed_latency) + hops
    };
    let mut bandwidth_s = if bus > 0.0 { bus / bandwidth } else { 0.0 };
    // NCCL's protocols (formulas.md, "Collectives", protocols): the small
    // one at the tier's latency and a share of the bandwidth, the large at
    // its own latency and the whole of it; the faster is taken. A latency
    // given by the user replaces the model.
    let mut protocol = None;
    if let (Some(p), None, true) = (t.protocols, fixed, n > 1) {
        let small = latency_s + bandwidth_s / p.small_share;
        let large = p.large_latency + hops + bandwidth_s;
        if small <= large {
            protocol = Some("LL128");
            bandwidth *= p.small_share;
            bandwidth_s /= p.small_share;
        } else {
            protocol = Some("Simple");
            latency_s = p.large_latency + hops;
        }
    }
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
        protocol,
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
    // Called eagerly with the protocols' figures: the host's path runs
    // alongside the GPU's work, and calls back to back take the longer.
    let host_s = fabric
        .scale_up()?
        .filter(|t| phases.iter().any(|p| p.link == t.name))
        .and_then(|t| t.host_s);
    let gpu_s = time_s;
    let time_s = host_s.map_or(gpu_s, |h| gpu_s.max(h));
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
        gpu_s,
        host_s,
        time_s,
        algorithm,
        concurrent,
        phases,
        sources,
    })
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

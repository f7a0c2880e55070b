//! An engine's own all-reduce inside one NVLink domain (formulas.md,
//! "Engines: how a profile turns into kernels", custom all-reduce):
//! one-shot, each device reading every peer's buffer over peer memory and
//! reducing, (N-1) x bytes in over its link and one pass of the engine's
//! latency; two-shot, a reduce-scatter then an all-gather through peer
//! memory, 2 (N-1)/N x bytes and two passes. The engine's file says up to
//! which size one-shot runs, the largest message and the most devices it
//! takes; past them, or across domains, NCCL's collective is priced. The
//! speed of light counts the bytes alone, as it does NCCL's.

use super::time::CollectiveCost;
use super::{Fabric, Kind, Phase, time};
use crate::error::{Error, Result};
use crate::spec::engine::{AllReduceAlgorithm, Engine};

/// The collective `kind` of `bytes` per rank over `devices` on `fabric` as
/// engine `e` runs it: its custom all-reduce where the file's limits take
/// the message, NCCL's ([`time`]) otherwise. `latency` replaces the fixed
/// latency of an NCCL phase.
pub fn time_on(
    fabric: &Fabric,
    kind: Kind,
    devices: u64,
    bytes: f64,
    latency: Option<f64>,
    e: &Engine,
) -> Result<CollectiveCost> {
    let nccl = time(fabric, kind, devices, bytes, latency)?;
    let a = &e.all_reduce;
    if kind != Kind::AllReduce || a.algorithm != AllReduceAlgorithm::Custom || devices < 2 {
        return Ok(nccl);
    }
    let Some(up) = fabric.scale_up()? else {
        return Ok(nccl);
    };
    let n = devices;
    let in_domain = up.domain.is_none_or(|d| n <= d);
    let max_devices = a.max_devices.map_or(u64::MAX, u64::from);
    let max_bytes = a.max_bytes.map_or(f64::INFINITY, |b| b.get());
    if !in_domain || n > max_devices || bytes > max_bytes {
        return Ok(nccl);
    }
    let limit = match a.one_shot_devices {
        Some(d) if n > u64::from(d) => a.one_shot_max_bytes_large.or(a.one_shot_max_bytes),
        _ => a.one_shot_max_bytes,
    };
    let one_shot = limit.is_some_and(|l| bytes <= l.get());
    // The speed of light leaves every fixed latency out, NCCL's and the
    // engine's alike: only the bytes over the link count.
    let sol = fabric.mode == crate::spec::hardware::Mode::SpeedOfLight;
    let l = a.latency.map(|s| if sol { 0.0 } else { s.get() }).ok_or_else(|| {
        Error::Unsupported(format!(
            "engine `{}` all-reduces {} devices with its custom kernel but its file has no `all-reduce.latency`; set it with --set engine.all-reduce.latency=3.5us",
            e.id, n
        ))
    })?;
    let nf = n as f64;
    let (bus, passes, name) = if one_shot {
        ((nf - 1.0) * bytes, 1.0, "one-shot")
    } else {
        (2.0 * (nf - 1.0) / nf * bytes, 2.0, "two-shot")
    };
    let bandwidth = up.bandwidth * up.efficiency[kind.index()];
    let bandwidth_s = if bandwidth > 0.0 {
        bus / bandwidth
    } else {
        0.0
    };
    let latency_s = passes * l;
    let algorithm = format!(
        "custom {name} ({} all-reduce over {} peer memory; NCCL {})",
        e.id,
        up.name,
        crate::units::seconds(nccl.time_s)
    );
    let phase = Phase {
        kind,
        link: up.name.clone(),
        tier: up.tier,
        devices: n,
        bytes,
        bus_bytes: bus,
        bandwidth,
        steps: passes as u64,
        latency_s,
        bandwidth_s,
        time_s: latency_s + bandwidth_s,
        algorithm: format!("custom {name}"),
        protocol: None,
    };
    let mut sources = nccl.sources.clone();
    if let Some(s) = e.source("all-reduce.latency") {
        sources.push(format!("engine {}: all-reduce.latency: {s}", e.id));
    }
    Ok(CollectiveCost {
        phases: vec![phase],
        concurrent: false,
        bus_bytes: bus,
        scale_up_bus_bytes: bus,
        scale_out_bus_bytes: 0.0,
        bandwidth,
        latency_s,
        bandwidth_s,
        gpu_s: latency_s + bandwidth_s,
        // Captured with the step: no host path of its own.
        host_s: None,
        time_s: latency_s + bandwidth_s,
        algorithm,
        sources,
        ..nccl
    })
}

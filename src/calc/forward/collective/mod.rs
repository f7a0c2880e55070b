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
//!
//! The rooms: this file holds the inputs, the kinds and launch modes, and
//! [`cost`]; `fabric` the tiers read from the hardware file, `time` the
//! alpha-beta model of one collective, `report` the report made from its
//! cost.

use crate::error::{Error, Result};
use crate::inputs::{Bytes, Count, Seconds, non_negative, positive};
use crate::spec::hardware::{Hardware, Mode};
use serde::{Deserialize, Serialize};

mod custom;
mod fabric;
mod report;
mod time;

pub use custom::time_on;
pub use fabric::{Fabric, Protocols, Tier, Topology};
pub use time::{CollectiveCost, Phase, time, torus_shape};

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
    /// The engine whose all-reduce runs (NCCL's when `None`).
    #[serde(skip)]
    pub engine: Option<std::sync::Arc<crate::spec::engine::Engine>>,
}

/// How a collective is called, for its measured per-call latency, is a
/// [`LaunchMode`]: none (no per-call latency beyond the link's hops),
/// graph (captured in a CUDA graph, inside a step or a plan) or eager
/// (called from Python).
pub use crate::calc::launch::LaunchMode;

/// Parses a collective's `none`, `graph` or `eager`.
pub fn call_mode(s: &str) -> Result<LaunchMode> {
    LaunchMode::of_choice(s)
        .ok_or_else(|| Error::field("launch", format!("`{s}`: expected none, graph or eager")))
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
        .map(call_mode)
        .transpose()?
        .unwrap_or(LaunchMode::Eager);
    let fabric = Fabric::called(hw, mode, call);
    match &inputs.engine {
        Some(e) => time_on(&fabric, inputs.kind, inputs.devices.0, bytes, latency, e),
        None => time(&fabric, inputs.kind, inputs.devices.0, bytes, latency),
    }
}

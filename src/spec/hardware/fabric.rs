//! The fabric: each link's tier and bandwidths.

use crate::spec::{BytesPerSec, Seconds};
use serde::Deserialize;
use std::num::NonZeroU32;

/// Which fabric a link is: inside the scale-up domain, across it, or to
/// the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    /// NVLink, Infinity Fabric, ICI, NeuronLink: the scale-up domain.
    ScaleUp,
    /// NICs between domains.
    ScaleOut,
    /// The link to the host (PCIe).
    Host,
}

impl Tier {
    /// The name as files write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::ScaleUp => "scale-up",
            Tier::ScaleOut => "scale-out",
            Tier::Host => "host",
        }
    }
}

impl std::fmt::Display for Tier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One fabric tier.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Link {
    /// `nvlink4`, `ici`, `infinity-fabric`, `neuronlink-v4`, `nic`, `pcie`...
    pub name: String,
    /// `scale-up`, `scale-out` or `host`.
    pub tier: Tier,
    /// Bandwidth in one direction, per device.
    pub per_direction_bandwidth: Option<BytesPerSec>,
    /// Both directions added, per device, as vendors usually quote it.
    pub bidirectional_bandwidth: Option<BytesPerSec>,
    /// Devices in one domain of this tier.
    pub domain_size: Option<NonZeroU32>,
    /// Topology: `switch`, `ring`, `torus-3d`, ...
    pub topology: Option<String>,
    /// One-hop latency.
    pub latency: Option<Seconds>,
    /// Torus axes (TPU ICI). The bandwidths stay per device; `links /
    /// axes` links run along each axis.
    pub axes: Option<NonZeroU32>,
    /// Physical links per device on this tier.
    pub links: Option<NonZeroU32>,
    /// Both directions of one physical link added (TPU7x ICI: 200 GB/s);
    /// `links` of them make the device's bidirectional figure.
    pub link_bandwidth: Option<BytesPerSec>,
    /// Largest domain the fabric can build (NVLink 5: 576 GPUs), beyond
    /// the `domain-size` of the system this file describes.
    pub max_domain_size: Option<NonZeroU32>,
    /// All devices of one domain together (NVL72: 130 TB/s).
    pub aggregate_bandwidth: Option<BytesPerSec>,
}

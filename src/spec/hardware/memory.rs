//! The memory section: HBM and the on-chip levels, each with its scope.

use crate::spec::{Bytes, BytesPerSec, Cycles, Seconds};
use serde::Deserialize;
use std::num::NonZeroU32;

/// HBM and on-chip memory.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Memory {
    /// Device memory capacity, as the datasheet states it.
    pub hbm_capacity: Option<Bytes>,
    /// Device memory the runtime reports as the device's total (what an
    /// allocator can be offered), where it has been measured; datasheets
    /// round, and this is what fits.
    pub usable_capacity: Option<Bytes>,
    /// Device memory a serving process holds outside its tensor allocator
    /// once it has run its first kernels (the CUDA context, the BLAS and
    /// attention libraries' handles and workspaces), measured: what
    /// `--reserve step` holds back beside the step's activations.
    pub runtime_bytes: Option<Bytes>,
    /// Device memory bandwidth (read + write, as the datasheet states it).
    pub hbm_bandwidth: Option<BytesPerSec>,
    /// Device memory load latency.
    pub dram_latency: Option<Cycles>,
    /// Device memory load latency as a time, where it is stated that way.
    pub dram_latency_time: Option<Seconds>,
    /// The L1/L2 sector size.
    pub sector: Option<Bytes>,
    /// The cache-line (segment) size.
    pub segment: Option<Bytes>,
    /// The granularity DRAM is fetched in.
    pub dram_fetch: Option<Bytes>,
    /// On-chip levels, innermost first.
    #[serde(default)]
    pub levels: Vec<Level>,
}

/// How far an on-chip memory level is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Per SM / CU (capacity is per SM; the chip total multiplies by SMs).
    Sm,
    /// Per core (TPU TensorCore, NeuronCore).
    Core,
    /// Per XCD or chiplet.
    Die,
    /// One per chip.
    Chip,
}

/// One on-chip memory level.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Level {
    /// `registers`, `shared-memory`, `l1`, `l2`, `vmem`, `sbuf`, ...
    pub name: String,
    /// Capacity per `scope` unit.
    pub capacity: Bytes,
    /// How far it is shared.
    pub scope: Scope,
    /// How many units of `scope` the chip has (defaults: SMs for `sm`,
    /// `compute.cores` for `core`, 1 for `chip`).
    pub count: Option<NonZeroU32>,
    /// Whether it counts toward the on-chip total (false for an L1 that
    /// shares its array with shared memory).
    #[serde(default = "yes")]
    pub counts_toward_total: bool,
    /// Bandwidth per scope unit per cycle.
    pub bytes_per_cycle: Option<f64>,
    /// Aggregate bandwidth.
    pub bandwidth: Option<BytesPerSec>,
    /// Load latency.
    pub latency: Option<Cycles>,
}

fn yes() -> bool {
    true
}

//! A file's package, host and calibration sections: board power and
//! memory, the host's link, and where a calibrated file came from.

use crate::spec::{Bytes, BytesPerSec, Joules};
use serde::Deserialize;
use std::num::{NonZeroU32, NonZeroU64};

/// The provenance and held-out error of a calibrated file.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Calibration {
    /// The base part's id.
    pub base: String,
    /// The measurement file.
    pub measurements: String,
    /// Its SHA-256, hex.
    pub sha256: String,
    /// The device the runtime reported.
    pub device: String,
    /// Its driver.
    pub driver: String,
    /// The framework version.
    #[serde(default)]
    pub torch: String,
    /// When it was measured.
    pub date: String,
    /// Which rows were held out.
    #[serde(default)]
    pub held_out: String,
    /// Held-out points predicted.
    #[serde(default, deserialize_with = "crate::spec::plain::opt_count")]
    pub points: Option<u64>,
    /// Their median relative error.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub median_error: Option<f64>,
    /// Their worst relative error.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub worst_error: Option<f64>,
    /// The base file's median relative error over the same points.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub shipped_median_error: Option<f64>,
    /// The base file's worst relative error over them.
    #[serde(default, deserialize_with = "crate::spec::plain::number")]
    pub shipped_worst_error: Option<f64>,
    /// Figures the measurements gave that were kept at the base's value,
    /// each with why.
    #[serde(default)]
    pub kept: Vec<String>,
}

/// How the package is built.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Package {
    /// Compute dies (Blackwell's 2 reticle-sized dies, MI355X's 8 XCDs,
    /// TPU7x's 2 chiplets).
    pub compute_dies: Option<NonZeroU32>,
    /// I/O dies (AMD's memory-controller and Infinity Cache dies).
    pub io_dies: Option<NonZeroU32>,
    /// Bandwidth between the compute dies.
    pub die_to_die_bandwidth: Option<BytesPerSec>,
    /// HBM stacks on the package.
    pub hbm_stacks: Option<NonZeroU32>,
    /// Transistors on the package.
    pub transistors: Option<NonZeroU64>,
    /// Board power limit in watts (max TDP / TBP): the most the board
    /// draws; the power model caps every operation at it.
    pub tdp_watts: Option<NonZeroU32>,
    /// Measured board power with nothing running, watts.
    #[serde(default, deserialize_with = "crate::spec::plain::watts")]
    pub idle_watts: Option<f64>,
    /// Measured board power during a long compute-bound matmul loop at the
    /// sustained rate (`achievable.sustained`), watts.
    #[serde(default, deserialize_with = "crate::spec::plain::watts")]
    pub compute_watts: Option<f64>,
    /// Device-memory traffic of the loop `compute-watts` was measured on
    /// (bytes read and written per second, by a profiler): the share of
    /// that power the memory draws is taken out of the compute's.
    pub compute_traffic: Option<BytesPerSec>,
    /// Measured board power while streaming device memory at the
    /// achievable bandwidth (`achievable.hbm-bandwidth`), watts.
    #[serde(default, deserialize_with = "crate::spec::plain::watts")]
    pub stream_watts: Option<f64>,
    /// Measured energy of an element of an elementwise kernel on the
    /// strided (non-vectorized) path beyond its bytes' and idle power's
    /// (`achievable.strided-element`): such kernels keep the SMs busy
    /// well past what their bytes draw.
    pub strided_element_energy: Option<Joules>,
}

/// A host (or cloud VM) around a group of devices.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Host {
    /// Devices per host or VM.
    pub devices: Option<NonZeroU32>,
    /// Host CPU threads (vCPUs).
    pub vcpus: Option<NonZeroU32>,
    /// Host memory.
    pub memory: Option<Bytes>,
}

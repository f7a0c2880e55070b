//! The hardware file: one accelerator's datasheet, execution limits,
//! memory hierarchy, fabric and launch costs. Field meanings and units are in
//! `docs/data-schemas.md`.
//!
//! The rooms: this file holds the file's top-level table and the queries
//! the calculations ask of it; `compute`, `memory`, `execution`, `fabric`,
//! `measured` and `package` the sections' types, `validate` the checks a
//! file must pass when it is read.

use super::{Bytes, BytesPerSec, Hz};
use crate::error::{Error, Result};
use crate::precision::{self, Precision};
use indexmap::IndexMap;
use serde::Deserialize;

mod compute;
mod execution;
mod fabric;
mod measured;
mod memory;
mod package;
mod validate;

pub use compute::{Compute, PeakScope, Peaks};
pub use execution::{Execution, Launch, MatrixUnit, Vendor};
pub use fabric::{Link, Tier};
pub use measured::{
    Achievable, AttentionEfficiency, BusEfficiency, Call, CollectiveProtocol, Evidence,
    EvidenceKind, GemmTiling, GroupedGemmFigures, KernelFixed, PowerLimitFigures, ShareTable,
    Shares,
};
pub use memory::{Level, Memory, Scope};
pub use package::{Calibration, Host, Package};

/// What kind of accelerator a file describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A GPU with SMs or CUs, warps or wavefronts.
    Gpu,
    /// A Google TPU.
    Tpu,
    /// An AWS Trainium device.
    Trainium,
}

impl Kind {
    /// The word used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Gpu => "gpu",
            Kind::Tpu => "tpu",
            Kind::Trainium => "trainium",
        }
    }
}

/// Whether a rate is the datasheet's (speed of light) or measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Datasheet peaks: the default.
    #[default]
    SpeedOfLight,
    /// The `achievable` section's measured figures (`--achievable`).
    Achievable,
}

/// A hardware file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Hardware {
    /// The short name users type (`h100-sxm`); must match the file name.
    pub id: String,
    /// The product name.
    pub name: String,
    /// `nvidia`, `amd`, `google`, `aws`, or another maker's name.
    pub vendor: Vendor,
    /// `gpu`, `tpu` or `trainium`.
    pub kind: Kind,
    /// The precision used when `--dtype` is not given.
    pub default_dtype: String,
    /// One line for `hw list`.
    #[serde(default)]
    pub summary: Option<String>,
    /// Field path -> where the number came from (a document and section,
    /// a vendor datasheet, or a measurement; `docs/sources.md`). Every
    /// number in a built-in file has one; a user's file may leave the
    /// table out, and then every value cites the file itself.
    #[serde(default)]
    pub sources: IndexMap<String, String>,
    /// What a value without a `[sources]` entry cites: the file's own name
    /// when it has no `[sources]` table, else nothing.
    #[serde(skip)]
    pub cites_file: Option<String>,
    /// Peaks and clock.
    pub compute: Compute,
    /// HBM and the on-chip hierarchy.
    pub memory: Memory,
    /// Execution limits (GPUs).
    #[serde(default)]
    pub execution: Option<Execution>,
    /// Matrix-unit shapes.
    #[serde(default)]
    pub matrix_unit: Option<MatrixUnit>,
    /// Fabric tiers, scale-up first.
    #[serde(default)]
    pub interconnect: Vec<Link>,
    /// Kernel launch costs.
    #[serde(default)]
    pub launch: Option<Launch>,
    /// Measured figures, used with `--achievable`.
    #[serde(default)]
    pub achievable: Option<Achievable>,
    /// Package construction: dies, HBM stacks, transistors, power.
    #[serde(default)]
    pub package: Option<Package>,
    /// The host a device is sold or rented with (a cloud VM's chips, CPUs
    /// and memory).
    #[serde(default)]
    pub host: Option<Host>,
    /// Where a file `roofline calibrate` wrote came from, and its
    /// held-out error (quoted by every `--achievable` answer on it).
    #[serde(default)]
    pub calibration: Option<Calibration>,
}

impl Hardware {
    /// The precision to use: `--dtype` if given, else the file's default;
    /// an error listing those the part has if it lacks it.
    pub fn precision(&self, dtype: Option<&str>) -> Result<&'static Precision> {
        let p = precision::lookup(dtype.unwrap_or(&self.default_dtype))?;
        if self.compute.dense.get(p.compute).is_none() {
            // int4 and the like are stored narrow and computed wider: the
            // message names the precision asked for first.
            let what = if p.name == p.compute {
                format!("{} peak", p.name)
            } else {
                format!("peak for {} (computed at {})", p.name, p.compute)
            };
            return Err(Error::Unsupported(format!(
                "{} has no {what}; it has {}",
                self.id,
                self.compute.dense.keys().join(", ")
            )));
        }
        Ok(p)
    }

    /// Multiplier from a stated peak to the device total.
    pub fn peak_multiplier(&self) -> f64 {
        match self.compute.peak_scope {
            PeakScope::Device => 1.0,
            PeakScope::Core => self.compute.cores.map_or(1.0, |c| f64::from(c.get())),
        }
    }

    /// The device's dense peak for a precision (FLOP/s).
    pub fn peak(&self, p: &Precision, mode: Mode) -> Result<f64> {
        match mode {
            Mode::SpeedOfLight => self
                .compute
                .dense
                .get(p.compute)
                .map(|v| v * self.peak_multiplier())
                .ok_or_else(|| {
                    Error::Unsupported(format!("{} has no {} peak", self.id, p.compute))
                }),
            Mode::Achievable => self
                .achievable
                .as_ref()
                .and_then(|a| a.dense.get(p.compute))
                .ok_or_else(|| {
                    self.missing(
                        &format!("achievable.dense.{}", p.compute),
                        "the --achievable compute rate",
                        None,
                    )
                }),
        }
    }

    /// The device's 2:4 structured-sparsity peak for a precision (FLOP/s):
    /// datasheet only (measured rates are dense). An error naming the
    /// `sparse` input when the file has none at that precision.
    pub fn sparse_peak(&self, p: &Precision, mode: Mode) -> Result<f64> {
        // Two flags that cannot go together: a usage error, as other
        // clashes are.
        if mode == Mode::Achievable {
            return Err(Error::usage(
                "--sparse",
                "takes the datasheet's sparse peak and --achievable the measured rates, which are dense matmuls; give one or the other",
            ));
        }
        let table = self.compute.sparse.as_ref();
        table
            .and_then(|s| s.get(p.compute))
            .map(|v| v * self.peak_multiplier())
            .ok_or_else(|| {
                let has = table.map(Peaks::keys).unwrap_or_default();
                Error::field(
                    "sparse",
                    if has.is_empty() {
                        format!("{} publishes no 2:4 sparse peaks", self.id)
                    } else {
                        format!(
                            "{} has no sparse {} peak; it has sparse {}",
                            self.id,
                            p.compute,
                            has.join(", ")
                        )
                    },
                )
            })
    }

    /// Whether the datasheet capacity is a whole number of GiB, as vendors
    /// who write binary units state it (Trainium3's 144 GiB, TPU7x's
    /// 192 GiB); reports show it in that unit.
    pub fn capacity_is_binary(&self) -> bool {
        const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
        self.memory
            .hbm_capacity
            .is_some_and(|c| c.get() >= GIB && (c.get() / GIB).fract() == 0.0)
    }

    /// Board power (W), where the vendor publishes it.
    pub fn board_power(&self) -> Option<f64> {
        self.package
            .as_ref()
            .and_then(|p| p.tdp_watts)
            .map(|w| f64::from(w.get()))
    }

    /// Device-memory bandwidth (B/s).
    pub fn bandwidth(&self, mode: Mode) -> Result<f64> {
        match mode {
            Mode::SpeedOfLight => {
                self.memory
                    .hbm_bandwidth
                    .map(BytesPerSec::get)
                    .ok_or_else(|| {
                        self.missing("memory.hbm-bandwidth", "the memory roof", Some("3.35 TB/s"))
                    })
            }
            Mode::Achievable => self
                .achievable
                .as_ref()
                .and_then(|a| a.hbm_bandwidth)
                .map(BytesPerSec::get)
                .ok_or_else(|| {
                    self.missing(
                        "achievable.hbm-bandwidth",
                        "the --achievable memory roof",
                        Some("4.2 TB/s"),
                    )
                }),
        }
    }

    /// The execution section, or an error saying the part has no warps.
    pub fn execution(&self) -> Result<&Execution> {
        self.execution.as_ref().ok_or_else(|| match self.kind {
            // A GPU file that leaves the section out (a user's own, with
            // only the roofline figures) is missing data, not the wrong
            // kind of part.
            Kind::Gpu => Error::Unsupported(format!(
                "{} has no [execution] section (SMs, warp size, resident warps and blocks, registers, shared memory per block), which this command needs; add it to the file (docs/data-schemas.md, \"execution\"; `roofline hw new --from h100-sxm` shows one filled in)",
                self.id
            )),
            _ => Error::Unsupported(format!(
                "{} is a {} and has no SMs, warps or thread blocks; this command applies to GPUs",
                self.id,
                self.kind.as_str()
            )),
        })
    }

    /// Boost clock (Hz).
    pub fn clock(&self) -> Result<f64> {
        self.compute
            .clock
            .map(Hz::get)
            .ok_or_else(|| self.missing("compute.clock", "cycle-based figures", Some("1.8 GHz")))
    }

    /// A missing-field error for this hardware.
    pub fn missing(&self, field: &str, why: &str, example: Option<&str>) -> Error {
        Error::MissingField {
            owner: self.id.clone(),
            field: field.into(),
            why: why.into(),
            example: example.map(Into::into),
        }
    }

    /// Device memory the runtime reports (bytes), where it is known
    /// (`memory.usable-capacity`).
    pub fn usable_capacity(&self) -> Option<f64> {
        self.memory.usable_capacity.map(Bytes::get)
    }

    /// Where a field's number came from, if the file says; a file without
    /// a `[sources]` table is the source of all its values.
    pub fn source(&self, field: &str) -> Option<&str> {
        self.sources
            .get(field)
            .or(self.cites_file.as_ref())
            .map(String::as_str)
    }
}

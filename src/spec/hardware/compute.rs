//! The compute section: peaks per precision, dense and sparse, and the
//! clock and units they come from.

use crate::spec::{FlopPerSec, Hz};
use serde::Deserialize;
use std::num::NonZeroU32;

/// Dense peaks per precision; a precision a part lacks is left out.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Peaks {
    /// FP64 (tensor core where it has one).
    pub fp64: Option<FlopPerSec>,
    /// FP32 on the vector units.
    pub fp32: Option<FlopPerSec>,
    /// TF32 tensor.
    pub tf32: Option<FlopPerSec>,
    /// BF16 tensor.
    pub bf16: Option<FlopPerSec>,
    /// FP16 tensor.
    pub fp16: Option<FlopPerSec>,
    /// FP8 tensor (and MXFP8).
    pub fp8: Option<FlopPerSec>,
    /// FP6 tensor.
    pub fp6: Option<FlopPerSec>,
    /// FP4 tensor.
    pub fp4: Option<FlopPerSec>,
    /// INT8 tensor (OP/s).
    pub int8: Option<FlopPerSec>,
    /// INT4 tensor (OP/s).
    pub int4: Option<FlopPerSec>,
}

impl Peaks {
    /// The peak for a compute key (`bf16`), if the part has it.
    pub fn get(&self, key: &str) -> Option<f64> {
        let v = match key {
            "fp64" => self.fp64,
            "fp32" => self.fp32,
            "tf32" => self.tf32,
            "bf16" => self.bf16,
            "fp16" => self.fp16,
            "fp8" => self.fp8,
            "fp6" => self.fp6,
            "fp4" => self.fp4,
            "int8" => self.int8,
            "int4" => self.int4,
            _ => None,
        };
        v.map(FlopPerSec::get)
    }

    /// The compute keys this table has, in registry order.
    pub fn keys(&self) -> Vec<&'static str> {
        [
            "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4",
        ]
        .into_iter()
        .filter(|k| self.get(k).is_some())
        .collect()
    }
}

/// Whether peaks are stated per device or per core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeakScope {
    /// The figures are the whole device's.
    #[default]
    Device,
    /// The figures are per core; the device total is derived with `cores`.
    Core,
}

/// Compute peaks and clock.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Compute {
    /// Boost clock from the datasheet.
    pub clock: Option<Hz>,
    /// Whether `dense` and `sparse` are per device or per core.
    #[serde(default)]
    pub peak_scope: PeakScope,
    /// Cores per device (required when `peak-scope = "core"`).
    pub cores: Option<NonZeroU32>,
    /// Dense peaks.
    pub dense: Peaks,
    /// Peaks with 2:4 structured sparsity, where published.
    #[serde(default)]
    pub sparse: Option<Peaks>,
    /// Sparse-embedding cores beside the main cores (TPU SparseCores).
    pub sparse_cores: Option<NonZeroU32>,
    /// DMA engines (Trainium).
    pub dma_engines: Option<NonZeroU32>,
    /// Cores dedicated to collective communication (Trainium CC-Cores).
    pub collective_cores: Option<NonZeroU32>,
    /// The whole chip's peaks as the vendor states them, where they differ
    /// from the `dense` figures times `cores` (Trainium3: `dense` holds the
    /// Tensor Engine's per-core rates, `chip` all engines together). Always
    /// device totals, whatever `peak-scope` says.
    #[serde(default)]
    pub chip: Option<Peaks>,
    /// The 8-bit float format the `fp8` peak is for, where it is not plain
    /// FP8 (E4M3/E5M2): `mxfp8` (microscaled, block-scaled) on Trainium3.
    pub fp8_format: Option<String>,
    /// Likewise for the `fp4` peak: `mxfp4`, `nvfp4`.
    pub fp4_format: Option<String>,
}

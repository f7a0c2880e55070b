//! The execution section (the limits and granularities occupancy needs,
//! the matrix units), the vendor, and kernel launch costs.

use crate::spec::{Bytes, BytesOrZero, SecondsOrZero};
use serde::Deserialize;
use std::num::NonZeroU32;

/// GPU execution limits and the allocation granularities occupancy needs.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Execution {
    /// CUDA compute capability ("9.0") or the AMD gfx target.
    pub compute_capability: Option<String>,
    /// SMs (NVIDIA) or CUs (AMD).
    pub sms: NonZeroU32,
    /// Threads per warp or wavefront.
    pub warp_size: NonZeroU32,
    /// Warp schedulers (SM sub-partitions) per SM.
    pub schedulers_per_sm: Option<NonZeroU32>,
    /// FP32 lanes per SM.
    pub fp32_lanes_per_sm: Option<NonZeroU32>,
    /// Tensor cores per SM.
    pub tensor_cores_per_sm: Option<NonZeroU32>,
    /// Resident warps per SM.
    pub max_warps_per_sm: Option<NonZeroU32>,
    /// Resident threads per SM.
    pub max_threads_per_sm: Option<NonZeroU32>,
    /// Threads per block.
    pub max_threads_per_block: Option<NonZeroU32>,
    /// Resident blocks per SM.
    pub max_blocks_per_sm: Option<NonZeroU32>,
    /// 32-bit registers per SM.
    pub registers_per_sm: Option<NonZeroU32>,
    /// Registers per thread.
    pub max_registers_per_thread: Option<NonZeroU32>,
    /// Registers per block.
    pub max_registers_per_block: Option<NonZeroU32>,
    /// Registers are allocated to a warp in multiples of this.
    pub register_allocation_unit: Option<NonZeroU32>,
    /// `warp` (NVIDIA since Kepler) or `block`.
    pub register_allocation_granularity: Option<String>,
    /// Warps are allocated to a block in multiples of this (for registers).
    pub warp_allocation_granularity: Option<NonZeroU32>,
    /// Shared memory per SM (the largest carveout).
    pub smem_per_sm: Option<Bytes>,
    /// Shared memory a block gets without opting in.
    pub smem_per_block: Option<Bytes>,
    /// Shared memory a block may opt in to.
    pub smem_per_block_optin: Option<Bytes>,
    /// Shared memory the system reserves per resident block.
    pub reserved_smem_per_block: Option<BytesOrZero>,
    /// Shared memory is allocated in multiples of this.
    pub smem_allocation_unit: Option<Bytes>,
    /// The shared-memory carveouts the SM can be configured with.
    #[serde(default)]
    pub smem_carveouts: Vec<BytesOrZero>,
    /// Scalar registers (SGPRs) per SIMD, shared by its waves (AMD gfx9).
    pub sgprs_per_simd: Option<NonZeroU32>,
    /// SGPRs are granted to a wave in multiples of this (AMD).
    pub sgpr_allocation_unit: Option<NonZeroU32>,
    /// SGPRs a wave's code may address (AMD; 102 on gfx8 and gfx9).
    pub addressable_sgprs_per_wave: Option<NonZeroU32>,
    /// SGPRs a wave's count may hold beyond the addressable ones (VCC,
    /// FLAT_SCRATCH, XNACK_MASK on gfx9).
    pub special_sgprs_per_wave: Option<u32>,
    /// SGPRs added to every wave when a trap handler is installed.
    pub trap_sgprs_per_wave: Option<u32>,
    /// Shared-memory banks.
    pub smem_banks: Option<NonZeroU32>,
    /// Largest portable thread-block cluster.
    pub max_cluster_size: Option<NonZeroU32>,
    /// Largest cluster with the non-portable opt-in.
    pub max_cluster_size_nonportable: Option<NonZeroU32>,
}

/// Matrix-unit shapes.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct MatrixUnit {
    /// Instruction or array shapes, e.g. `m16n8k16`, `m64nNk16`, `256x256`.
    pub shapes: Vec<String>,
    /// Multiply-accumulate units in one array (TPU v1: 256 x 256).
    pub macs_per_array: Option<NonZeroU32>,
    /// Arrays per core.
    pub arrays_per_core: Option<NonZeroU32>,
    /// Vector-register shape as rows x lanes of 32-bit words (TPU: `8x128`).
    pub vector_register: Option<String>,
}

/// Who makes an accelerator: the four the catalog holds by name, any other
/// as written (a user's file may describe any part).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "String")]
pub enum Vendor {
    /// NVIDIA.
    Nvidia,
    /// AMD.
    Amd,
    /// Google.
    Google,
    /// Amazon Web Services.
    Aws,
    /// Another maker, as the file names it.
    Other(String),
}

impl From<String> for Vendor {
    fn from(s: String) -> Self {
        match s.as_str() {
            "nvidia" => Vendor::Nvidia,
            "amd" => Vendor::Amd,
            "google" => Vendor::Google,
            "aws" => Vendor::Aws,
            _ => Vendor::Other(s),
        }
    }
}

impl Vendor {
    /// The name as files write it.
    pub fn as_str(&self) -> &str {
        match self {
            Vendor::Nvidia => "nvidia",
            Vendor::Amd => "amd",
            Vendor::Google => "google",
            Vendor::Aws => "aws",
            Vendor::Other(s) => s,
        }
    }
}

impl std::fmt::Display for Vendor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Kernel launch costs.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Launch {
    /// Per kernel, launched eagerly back to back.
    pub eager: Option<SecondsOrZero>,
    /// Per kernel, launched then synchronised.
    pub synchronised: Option<SecondsOrZero>,
    /// Per kernel, replayed from a CUDA graph; zero where a runtime runs a
    /// step as one compiled program with no per-kernel launch (TPU, Trainium:
    /// formulas.md, "Achievable figures carried between parts").
    pub graph: Option<SecondsOrZero>,
    /// The GPU's idle time before each kernel launched eagerly while the
    /// host runs ahead of it: a queued kernel still waits this long after
    /// the one before it ends (measured; `achievable.launch` only).
    pub eager_gap: Option<SecondsOrZero>,
}

//! The hardware file: one accelerator's datasheet, execution limits,
//! memory hierarchy, fabric and launch costs. Field meanings and units are in
//! `docs/data-schemas.md`.

use super::{
    Bytes, BytesOrZero, BytesPerSec, Cycles, FlopPerSec, Hz, Origin, Seconds, field_error,
};
use crate::error::{Error, Result};
use crate::precision::{self, Precision};
use indexmap::IndexMap;
use serde::Deserialize;
use std::num::{NonZeroU32, NonZeroU64};

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
    #[serde(default)]
    pub points: Option<u64>,
    /// Their median relative error.
    #[serde(default)]
    pub median_error: Option<f64>,
    /// Their worst relative error.
    #[serde(default)]
    pub worst_error: Option<f64>,
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
    pub idle_watts: Option<f64>,
    /// Measured board power during a long compute-bound matmul loop at the
    /// sustained rate (`achievable.sustained`), watts.
    pub compute_watts: Option<f64>,
    /// Device-memory traffic of the loop `compute-watts` was measured on
    /// (bytes read and written per second, by a profiler): the share of
    /// that power the memory draws is taken out of the compute's.
    pub compute_traffic: Option<BytesPerSec>,
    /// Measured board power while streaming device memory at the
    /// achievable bandwidth (`achievable.hbm-bandwidth`), watts.
    pub stream_watts: Option<f64>,
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

/// Kernel launch costs.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Launch {
    /// Per kernel, launched eagerly back to back.
    pub eager: Option<Seconds>,
    /// Per kernel, launched then synchronised.
    pub synchronised: Option<Seconds>,
    /// Per kernel, replayed from a CUDA graph.
    pub graph: Option<Seconds>,
}

/// Measured figures beside the datasheet ones.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Achievable {
    /// Sustained device-memory bandwidth (stream).
    pub hbm_bandwidth: Option<BytesPerSec>,
    /// Best measured matmul rates per precision.
    #[serde(default)]
    pub dense: Peaks,
    /// Measured launch costs.
    #[serde(default)]
    pub launch: Option<Launch>,
    /// Measured pointer-chase latencies.
    pub l1_latency: Option<Seconds>,
    /// Measured L2 latency.
    pub l2_latency: Option<Seconds>,
    /// Measured device-memory latency.
    pub dram_latency: Option<Seconds>,
    /// Measured fabric bandwidth one way, keyed by the `interconnect` name
    /// (`nvlink4`); no more than that link's per-direction figure.
    #[serde(default)]
    pub link_bandwidth: IndexMap<String, BytesPerSec>,
    /// Fixed GPU time of every kernel beyond its launch, in every launch
    /// mode: the ramp-up of a grid, its tail, a last wave smaller than the
    /// SM count. The per-operation model adds `kernel-overhead` once per
    /// kernel an operation launches (formulas.md, "Achievable: a forward
    /// operation by operation"); fitted as the intercept of time against
    /// bytes for memory-bound GEMMs replayed from a CUDA graph, less
    /// `launch.graph`.
    pub kernel_overhead: Option<Seconds>,
    /// Dense matmul rates a long compute-bound loop holds under the
    /// board's power limit, per precision (the clock drops below its
    /// boost; the source names the clock and power seen). Compute-bound
    /// operations of a step that is compute-bound as a whole (prefill,
    /// large batches: work that repeats back to back) run at this rate
    /// instead of `dense`; a single matmul or a step bound by memory keeps
    /// `dense`. No more than `dense` of the same precision.
    #[serde(default)]
    pub sustained: Peaks,
    /// Fixed costs of one call, per launch mode, that are not per kernel.
    #[serde(default)]
    pub call: Option<Call>,
    /// Bus bandwidth each collective reaches on the scale-up link at large
    /// sizes, as a share of `link-bandwidth`.
    #[serde(default)]
    pub bus_efficiency: Option<BusEfficiency>,
    /// How the vendor GEMM library tiles a matmul.
    #[serde(default)]
    pub gemm: Option<GemmTiling>,
    /// Flash attention's compute efficiency by sequence length.
    #[serde(default)]
    pub attention: Option<AttentionEfficiency>,
}

/// Fixed costs of one call beyond its kernels' work (formulas.md,
/// "Achievable: per-call costs"). Each is a measured floor: where a
/// figure is rounded it is rounded down.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Call {
    /// One matmul called eagerly from Python and timed on its own (CUDA
    /// events around the call): the host path from the call to the
    /// kernel's start (dispatch, launch), added once to a `matmul
    /// --launch eager` answer. Fitted as the eager time less the
    /// graph-replayed time of the same GEMM.
    pub matmul_eager: Option<Seconds>,
    /// One NCCL collective called eagerly from Python and timed on its own:
    /// its latency term under `collective --launch eager` (host path,
    /// NCCL's launch and its protocol's handshake together). Fitted as the
    /// intercept of eager time against bytes.
    pub collective_eager: Option<Seconds>,
    /// One NCCL collective captured in a CUDA graph: its latency term under
    /// `--launch graph` and inside a step or a plan. Fitted as the
    /// intercept of graph-replayed time against bytes.
    pub collective_graph: Option<Seconds>,
}

/// Bus bandwidth per collective as a share (0 to 1] of the link's
/// measured `link-bandwidth` (formulas.md, "Collectives", calibration).
/// Fitted at the largest size measured, where the latency term is
/// negligible: bus bytes / (time - latency) / link-bandwidth.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct BusEfficiency {
    /// All-reduce.
    pub all_reduce: Option<f64>,
    /// All-gather.
    pub all_gather: Option<f64>,
    /// Reduce-scatter.
    pub reduce_scatter: Option<f64>,
    /// All-to-all.
    pub all_to_all: Option<f64>,
    /// Send/recv.
    pub send_recv: Option<f64>,
}

impl BusEfficiency {
    /// The five shares in `collective::Kind` order (all-reduce, all-gather,
    /// reduce-scatter, all-to-all, send-recv), with the field names.
    pub fn entries(&self) -> [(&'static str, Option<f64>); 5] {
        [
            ("all-reduce", self.all_reduce),
            ("all-gather", self.all_gather),
            ("reduce-scatter", self.reduce_scatter),
            ("all-to-all", self.all_to_all),
            ("send-recv", self.send_recv),
        ]
    }
}

/// The tiling structure of the vendor GEMM library (formulas.md,
/// "Achievable: GEMM efficiency by shape"). A matmul's compute time is
/// FLOPs / (rate x padding x waves), taking the tile and K split that
/// give the shortest time, as the library's heuristic aims to: padding =
/// M N / (ceil(M/tm) tm ceil(N/tn) tn), waves = tiles x splits /
/// (ceil(tiles x splits / SMs) x SMs).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct GemmTiling {
    /// Output tiles (rows x columns of C per CTA, `"256x128"`) the library
    /// chooses among, from the profiler's kernel names.
    #[serde(default)]
    pub tiles: Vec<String>,
    /// The most ways the library splits K when the tiles of M x N leave
    /// SMs idle (1: it never splits).
    pub split_k: Option<NonZeroU32>,
    /// The smallest tile that runs at the full rate (`"128x128"`): a tile
    /// reusing each operand element less, tm tn / (tm + tn) against this
    /// tile's, reaches that share of the rate; absent: every tile runs at
    /// the full rate.
    pub full_rate_tile: Option<String>,
    /// `tiles` parsed, once: every point of an `--achievable` sweep
    /// resolves the GEMM model (the fields are not changed after loading).
    #[serde(skip)]
    parsed: std::sync::OnceLock<std::result::Result<Vec<(u64, u64)>, String>>,
}

impl GemmTiling {
    /// The tiles as (rows, columns); `Err` names the first malformed entry.
    pub fn parsed(&self) -> std::result::Result<&[(u64, u64)], String> {
        self.parsed
            .get_or_init(|| self.tiles.iter().map(|t| tile(t)).collect())
            .as_deref()
            .map_err(Clone::clone)
    }

    /// `full-rate-tile` as (rows, columns), if given.
    pub fn full_rate(&self) -> std::result::Result<Option<(u64, u64)>, String> {
        self.full_rate_tile.as_deref().map(tile).transpose()
    }
}

/// One `"256x128"` tile as (rows, columns).
fn tile(t: &str) -> std::result::Result<(u64, u64), String> {
    let (a, b) = t
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{t}`: expected rows x columns, as `256x128`"))?;
    let n = |s: &str| s.trim().parse::<u64>().ok().filter(|&v| v > 0);
    match (n(a), n(b)) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(format!(
            "`{t}`: expected two positive whole numbers, as `256x128`"
        )),
    }
}

/// Flash attention's share of the dense rate by sequence length S
/// (formulas.md, "Achievable: attention"): efficiency(S) = peak-fraction x
/// S / (S + half-length). Prefill attention runs at dense x
/// efficiency(S); decode attention, far below the ridge, streams the KV
/// cache at `hbm-bandwidth` and needs neither figure.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AttentionEfficiency {
    /// The share (0 to 1] of the dense rate approached at long sequences.
    pub peak_fraction: Option<f64>,
    /// The sequence length, in tokens, at which the efficiency is half of
    /// `peak-fraction`.
    pub half_length: Option<NonZeroU64>,
    /// Queries per tile of the attention kernel when several tokens per
    /// sequence are new (a chunk, a verify pass): fewer queries than this
    /// are padded up to it, so q new tokens cost ceil(q / tile) x tile
    /// queries' compute. One new token (decode) runs a split-KV decode
    /// kernel and is not padded.
    pub query_tile: Option<NonZeroU64>,
    /// The share of the dense rate approached at long spans by the kernel
    /// that attends several new tokens per sequence over a cached prefix
    /// (a chunk, a prefix-cache hit, a speculative verify pass); the
    /// prefill figures apply where the file has none.
    pub cached_peak_fraction: Option<f64>,
    /// That kernel's half length: efficiency(S) = cached-peak-fraction x
    /// S / (S + cached-half-length) for S keys each query sees.
    pub cached_half_length: Option<NonZeroU64>,
    /// Queries per tile of that kernel (q new tokens of a sequence and head
    /// are padded up to it).
    pub cached_query_tile: Option<NonZeroU64>,
    /// Queries per tile of that kernel's split-KV variant, which it runs
    /// when batch x heads x query blocks would leave the SMs idle.
    pub cached_split_query_tile: Option<NonZeroU64>,
}

/// The first `[sources]` key that names no field of the parsed document.
/// It is found on the document the file is deserialized from, so the text
/// is parsed once (a second parse was half of a query's loading time).
fn first_unknown_source(doc: &toml::de::DeTable<'_>) -> Option<String> {
    let toml::de::DeValue::Table(sources) = doc.get("sources")?.get_ref() else {
        return None;
    };
    sources
        .keys()
        .map(|k| k.get_ref())
        .find(|k| !super::has_path(doc, k))
        .map(|k| k.to_string())
}

impl Hardware {
    /// Parses and validates a hardware file's text.
    pub fn parse(src: &str, origin: &Origin) -> Result<Self> {
        let (mut hw, unknown): (Hardware, _) =
            super::from_toml_with(src, origin, first_unknown_source)?;
        hw.validate(src, origin, unknown.as_deref())?;
        if hw.sources.is_empty() {
            hw.cites_file = Some(origin.name.clone());
        }
        Ok(hw)
    }

    /// `unknown_source` is the first `[sources]` key that names no field
    /// of the file.
    fn validate(&self, src: &str, origin: &Origin, unknown_source: Option<&str>) -> Result<()> {
        let err = |field: &str, msg: String| Err(field_error(src, origin, field, msg));
        if self.id == super::template::PLACEHOLDER_ID {
            return err("id", super::placeholder_message(&origin.name));
        }
        let dt = precision::lookup(&self.default_dtype).map_err(|_| {
            field_error(
                src,
                origin,
                "default-dtype",
                format!("unknown precision `{}`", self.default_dtype),
            )
        })?;
        if self.compute.dense.get(dt.compute).is_none() {
            return err(
                "default-dtype",
                format!(
                    "`{}` has no peak in compute.dense (it has {})",
                    dt.name,
                    self.compute.dense.keys().join(", ")
                ),
            );
        }
        if self.compute.peak_scope == PeakScope::Core && self.compute.cores.is_none() {
            return err(
                "compute.peak-scope",
                "per-core peaks need compute.cores to derive the device total".into(),
            );
        }
        for (i, link) in self.interconnect.iter().enumerate() {
            if let (Some(one), Some(both)) =
                (link.per_direction_bandwidth, link.bidirectional_bandwidth)
                && one.get() > both.get() * (1.0 + 1e-9)
            {
                return err(
                    &format!("interconnect.{i}.per-direction-bandwidth"),
                    format!(
                        "per-direction bandwidth ({}) exceeds the bidirectional figure ({}); a bidirectional figure adds both directions",
                        crate::units::si(one.get(), "B/s"),
                        crate::units::si(both.get(), "B/s")
                    ),
                );
            }
            if let (Some(d), Some(m)) = (link.domain_size, link.max_domain_size)
                && d > m
            {
                return err(
                    &format!("interconnect.{i}.domain-size"),
                    format!("a domain of {d} is larger than the fabric's maximum of {m}"),
                );
            }
            if let (Some(l), Some(b), Some(n)) = (
                link.link_bandwidth,
                link.bidirectional_bandwidth,
                link.links,
            ) && (l.get() * f64::from(n.get()) - b.get()).abs() > b.get() * 0.005
            {
                return err(
                    &format!("interconnect.{i}.link-bandwidth"),
                    format!(
                        "{n} links of {} make {}, not the device's {}",
                        crate::units::si(l.get(), "B/s"),
                        crate::units::si(l.get() * f64::from(n.get()), "B/s"),
                        crate::units::si(b.get(), "B/s")
                    ),
                );
            }
            if let (Some(n), Some(a)) = (link.links, link.axes)
                && !n.get().is_multiple_of(a.get())
            {
                return err(
                    &format!("interconnect.{i}.links"),
                    format!("{n} links do not divide evenly over {a} torus axes"),
                );
            }
        }
        if let Some(ex) = &self.execution {
            if let Some(t) = ex.max_threads_per_sm
                && t.get() < ex.warp_size.get()
            {
                return err(
                    "execution.max-threads-per-sm",
                    format!(
                        "{} threads is fewer than one warp of {}",
                        crate::units::whole(t.get()),
                        ex.warp_size
                    ),
                );
            }
            if let (Some(w), Some(t)) = (ex.max_warps_per_sm, ex.max_threads_per_sm)
                && u64::from(w.get()).checked_mul(u64::from(ex.warp_size.get()))
                    != Some(u64::from(t.get()))
            {
                return err(
                    "execution.max-threads-per-sm",
                    format!(
                        "{} threads is not max-warps-per-sm ({}) x warp-size ({})",
                        crate::units::whole(t.get()),
                        w,
                        ex.warp_size
                    ),
                );
            }
            if let (Some(b), Some(o)) = (ex.smem_per_block_optin, ex.smem_per_sm)
                && b.get() > o.get()
            {
                return err(
                    "execution.smem-per-block-optin",
                    "exceeds smem-per-sm".into(),
                );
            }
            // A carveout is a split of the SM's shared memory: one larger
            // than the SM's whole shared memory is a typo or a unit slip.
            if let Some(o) = ex.smem_per_sm
                && let Some(c) = ex.smem_carveouts.iter().find(|c| c.0 > o.get())
            {
                return err(
                    "execution.smem-carveouts",
                    format!(
                        "a carveout of {} exceeds smem-per-sm ({}), the SM's whole shared memory",
                        crate::units::iec_bytes(c.0),
                        crate::units::iec_bytes(o.get())
                    ),
                );
            }
            if let (Some(d), Some(o)) = (ex.smem_per_block, ex.smem_per_block_optin)
                && d.get() > o.get()
            {
                return err(
                    "execution.smem-per-block",
                    "the default per-block shared memory exceeds the opt-in maximum".into(),
                );
            }
        }
        // A file's measured rate above its datasheet's is a typo or a unit
        // slip (GB/s for TB/s), not a faster chip. A `--set` what-if may
        // lower the datasheet figure (the book's 1.5 TB/s A100) below a
        // measured one; the catalog checks a measured figure set on the
        // command line itself (`check_measured`).
        if !origin.overridden {
            self.check_measured(src, origin)?;
        }
        self.check_power(src, origin)?;
        for (i, l) in self.memory.levels.iter().enumerate() {
            if l.scope == Scope::Core && l.count.is_none() && self.compute.cores.is_none() {
                return err(
                    &format!("memory.levels.{i}.scope"),
                    "a per-core level needs compute.cores (or count) to give a chip total".into(),
                );
            }
        }
        if !origin.overridden
            && let Some(key) = unknown_source
        {
            return err(
                "sources",
                format!("source given for `{key}`, which is not a field of this file"),
            );
        }
        Ok(())
    }

    /// Rejects board-power figures that contradict each other: a figure
    /// that is not a positive number, idle power at or above the power
    /// under load, any figure above the board limit (formulas.md, "Power
    /// and energy").
    fn check_power(&self, src: &str, origin: &Origin) -> Result<()> {
        let err = |field: &str, msg: String| Err(field_error(src, origin, field, msg));
        let Some(p) = &self.package else {
            return Ok(());
        };
        let figures = [
            ("package.idle-watts", p.idle_watts),
            ("package.compute-watts", p.compute_watts),
            ("package.stream-watts", p.stream_watts),
        ];
        for (field, v) in figures {
            if let Some(w) = v
                && !(w.is_finite() && w > 0.0)
            {
                return err(
                    field,
                    format!("{w} W is not a board power: expected a number of watts above 0"),
                );
            }
        }
        if let Some(limit) = p.tdp_watts.map(|w| f64::from(w.get())) {
            for (field, v) in figures {
                // Readings average 100 ms samples, which sit a little
                // either side of the limit the board enforces over longer
                // windows: 1% above it is noise, more is a contradiction.
                let idle = field == "package.idle-watts";
                if let Some(w) = v
                    && (w > limit * 1.01 || (idle && w >= limit))
                {
                    return err(
                        field,
                        format!(
                            "{w} W is {} the board limit package.tdp-watts ({limit} W); expected {} {limit} W",
                            if idle { "not below" } else { "above" },
                            if idle { "less than" } else { "at most" }
                        ),
                    );
                }
            }
        }
        if let (Some(t), Some(bw)) = (
            p.compute_traffic,
            self.achievable.as_ref().and_then(|a| a.hbm_bandwidth),
        ) && t.get() > bw.get() * (1.0 + 1e-9)
        {
            return err(
                "package.compute-traffic",
                format!(
                    "{} is above achievable.hbm-bandwidth ({}); expected the compute loop's own traffic, at most the bandwidth",
                    crate::units::si(t.get(), "B/s"),
                    crate::units::si(bw.get(), "B/s")
                ),
            );
        }
        if let (Some(idle), Some(c), Some(st), Some(t), Some(bw)) = (
            p.idle_watts,
            p.compute_watts,
            p.stream_watts,
            p.compute_traffic,
            self.achievable.as_ref().and_then(|a| a.hbm_bandwidth),
        ) {
            let memory = (st - idle) * t.get() / bw.get();
            if c - idle - memory <= 0.0 {
                return err(
                    "package.compute-watts",
                    format!(
                        "{c} W leaves nothing for compute once idle ({idle} W) and the loop's memory traffic ({:.1} W at package.compute-traffic) are taken out; expected more than {:.1} W",
                        memory,
                        idle + memory
                    ),
                );
            }
        }
        if let Some(idle) = p.idle_watts {
            for (field, v) in &figures[1..] {
                if let Some(w) = *v
                    && w <= idle
                {
                    return err(
                        field,
                        format!(
                            "{w} W under load is not above the idle power package.idle-watts ({idle} W); expected more than {idle} W"
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// Rejects a measured (`achievable`) figure above the datasheet figure
    /// it measures: the HBM bandwidth, a dense peak, a link's one-way
    /// bandwidth.
    pub(crate) fn check_measured(&self, src: &str, origin: &Origin) -> Result<()> {
        let err = |field: &str, msg: String| Err(field_error(src, origin, field, msg));
        if let Some(a) = &self.achievable {
            if let (Some(m), Some(d)) = (a.hbm_bandwidth, self.memory.hbm_bandwidth)
                && m.get() > d.get() * (1.0 + 1e-9)
            {
                return err(
                    "achievable.hbm-bandwidth",
                    format!(
                        "measured {} exceeds the datasheet's {}",
                        crate::units::si(m.get(), "B/s"),
                        crate::units::si(d.get(), "B/s")
                    ),
                );
            }
            for (name, m) in &a.link_bandwidth {
                let field = format!("achievable.link-bandwidth.{name}");
                let Some(link) = self.interconnect.iter().find(|l| &l.name == name) else {
                    let names: Vec<&str> =
                        self.interconnect.iter().map(|l| l.name.as_str()).collect();
                    return err(
                        &field,
                        format!(
                            "`{name}` names no interconnect of this file (it has {})",
                            names.join(", ")
                        ),
                    );
                };
                // Measured one way, so it can be no more than the link's
                // per-direction figure (half the bidirectional one).
                let one_way = link
                    .per_direction_bandwidth
                    .map(BytesPerSec::get)
                    .or(link.bidirectional_bandwidth.map(|b| b.get() / 2.0));
                if let Some(d) = one_way
                    && m.get() > d * (1.0 + 1e-9)
                {
                    return err(
                        &field,
                        format!(
                            "measured {} exceeds the link's {} each way",
                            crate::units::si(m.get(), "B/s"),
                            crate::units::si(d, "B/s")
                        ),
                    );
                }
            }
            for key in a.sustained.keys() {
                let m = a.sustained.get(key).unwrap_or(0.0);
                let (cap, what) = match a.dense.get(key) {
                    Some(d) => (Some(d), "measured burst rate (achievable.dense)"),
                    None => (
                        self.compute
                            .dense
                            .get(key)
                            .map(|d| d * self.peak_multiplier()),
                        "datasheet's dense peak",
                    ),
                };
                if let Some(d) = cap
                    && m > d * (1.0 + 1e-9)
                {
                    let rate = crate::report::Unit::FlopPerSec
                        .ops_if(crate::precision::lookup(key).is_ok_and(|p| p.integer()));
                    return err(
                        &format!("achievable.sustained.{key}"),
                        format!(
                            "sustained {} exceeds the {what} {}",
                            rate.format(m),
                            rate.format(d)
                        ),
                    );
                }
            }
            let share = |field: &str, v: Option<f64>| -> Result<()> {
                match v {
                    Some(x) if !(x > 0.0 && x <= 1.0) => err(
                        field,
                        format!("{x} is not a share: expected a number above 0 and at most 1"),
                    ),
                    _ => Ok(()),
                }
            };
            if let Some(b) = &a.bus_efficiency {
                for (name, v) in b.entries() {
                    share(&format!("achievable.bus-efficiency.{name}"), v)?;
                }
            }
            if let Some(at) = &a.attention {
                share("achievable.attention.peak-fraction", at.peak_fraction)?;
                share(
                    "achievable.attention.cached-peak-fraction",
                    at.cached_peak_fraction,
                )?;
            }
            if let Some(g) = &a.gemm
                && let Err(e) = g.parsed()
            {
                return err("achievable.gemm.tiles", e);
            }
            if let Some(g) = &a.gemm
                && let Err(e) = g.full_rate()
            {
                return err("achievable.gemm.full-rate-tile", e);
            }
            for key in a.dense.keys() {
                if let (Some(m), Some(d)) = (a.dense.get(key), self.compute.dense.get(key))
                    && m > d * self.peak_multiplier() * (1.0 + 1e-9)
                {
                    // An int8 peak counts integer operations.
                    let rate = crate::report::Unit::FlopPerSec
                        .ops_if(crate::precision::lookup(key).is_ok_and(|p| p.integer()));
                    return err(
                        &format!("achievable.dense.{key}"),
                        format!(
                            "measured {} exceeds the datasheet's dense {}",
                            rate.format(m),
                            rate.format(d * self.peak_multiplier())
                        ),
                    );
                }
            }
        }
        Ok(())
    }

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

//! `occupancy`: how many blocks of a kernel an SM holds at once, under each
//! of its four budgets (registers, shared memory, warps, block slots), the
//! one that binds, and the fraction of the warp budget that fills
//! (formulas.md, "Occupancy"; 002 §7.5 and exercise 1; 004 "Latency
//! hiding").
//!
//! The default arithmetic is NVIDIA's occupancy calculator's
//! (`cuda_occupancy.h`): registers are allocated per warp in units of the
//! register allocation unit and split evenly across the SM's warp-scheduler
//! partitions; shared memory is allocated in units of the allocation unit with
//! the per-block reservation added; the SM's shared-memory size is the
//! largest carveout unless a carveout is asked for. `textbook` is the
//! lecture's textbook arithmetic without any of those granularities.
//!
//! AMD Instinct parts (MI300X, MI355X) go through the same arithmetic with
//! AMD's numbers in the hardware file (formulas.md, "Occupancy on AMD
//! Instinct"): CUs for SMs, 4 SIMDs for partitions, waves for warps, VGPRs
//! in granules of 8 per lane, LDS for shared memory; the report speaks of
//! CUs, waves, workgroups and LDS. On AMD parts a fifth budget applies when
//! the kernel's SGPRs are given: the SIMD's scalar register file, by the
//! LLVM AMDGPU backend's rule for gfx9 (`getOccupancyWithNumSGPRs`).
//!
//! [`cost`] is integer arithmetic on the inputs and the hardware file, every
//! step checked, with no allocation: a sweep of a million points stays
//! cheap. Text is made only by [`OccupancyCost::report`], lazily.

use crate::error::{Error, Result};
use crate::inputs::{Bytes, Count};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::Vendor;
use crate::spec::hardware::{Execution, Hardware, Mode};
use crate::units::{self, number};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// `occupancy`'s inputs: one kernel launch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OccupancyInputs {
    /// Threads per block (required).
    pub threads: Option<Count>,
    /// Registers per thread (required).
    pub regs: Option<Count>,
    /// Scalar registers (SGPRs) per wave, as the compiler reports them (AMD
    /// only; when absent SGPRs do not limit).
    pub sgprs: Option<Count>,
    /// Dynamic shared memory per block (default 0).
    pub smem: Option<Bytes>,
    /// Static shared memory per block (default 0).
    pub static_smem: Option<Bytes>,
    /// Shared-memory carveout asked for (default: the SM's largest).
    pub carveout: Option<Bytes>,
    /// The lecture's simplified arithmetic instead of NVIDIA's.
    #[serde(default, deserialize_with = "switch")]
    pub textbook: bool,
    /// Blocks in the grid, for how many SMs a launch keeps busy.
    pub grid: Option<Count>,
}

impl OccupancyInputs {
    /// A kernel of `threads` threads per block, `regs` registers per thread
    /// and `smem` bytes of dynamic shared memory per block.
    pub fn new(threads: u64, regs: u64, smem: u64) -> Self {
        OccupancyInputs {
            threads: Some(Count(threads)),
            regs: Some(Count(regs)),
            smem: Some(Bytes(smem as f64)),
            ..Default::default()
        }
    }

    /// The same kernel under the lecture's textbook arithmetic.
    pub fn textbook(self) -> Self {
        OccupancyInputs {
            textbook: true,
            ..self
        }
    }

    /// The same kernel launched as a grid of `blocks` blocks.
    pub fn grid(self, blocks: u64) -> Self {
        OccupancyInputs {
            grid: Some(Count(blocks)),
            ..self
        }
    }
}

/// A switch given as a boolean or as the text `true` / `false` (a sweep
/// passes text).
fn switch<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("true or false")
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<bool, E> {
            Ok(v)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<bool, E> {
            match v.trim() {
                "true" | "yes" | "1" => Ok(true),
                "false" | "no" | "0" => Ok(false),
                _ => Err(E::custom(format!("`{v}`: expected true or false"))),
            }
        }
    }
    d.deserialize_any(V)
}

/// One of the budgets that bound the blocks an SM holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    /// The register file.
    Registers,
    /// The scalar register file (AMD SGPRs, when given).
    Sgprs,
    /// Shared memory.
    Smem,
    /// The warp (thread) budget.
    Threads,
    /// The block-slot limit.
    Blocks,
}

impl Limiter {
    /// Every limiter, in the order reports list them.
    pub const ALL: [Limiter; 5] = [
        Limiter::Registers,
        Limiter::Sgprs,
        Limiter::Smem,
        Limiter::Threads,
        Limiter::Blocks,
    ];

    /// The name reports give it (`registers`, `sgprs`, `smem`, `threads`,
    /// `blocks`).
    pub fn as_str(self) -> &'static str {
        match self {
            Limiter::Registers => "registers",
            Limiter::Sgprs => "sgprs",
            Limiter::Smem => "smem",
            Limiter::Threads => "threads",
            Limiter::Blocks => "blocks",
        }
    }

    /// What a person calls it in a sentence.
    pub fn describe(self) -> &'static str {
        match self {
            Limiter::Registers => "registers",
            Limiter::Sgprs => "SGPRs",
            Limiter::Smem => "shared memory",
            Limiter::Threads => "the warp budget",
            Limiter::Blocks => "the block-slot limit",
        }
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The set of limiters that bind (several can tie).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limiters(u8);

impl Limiters {
    /// Whether `l` binds.
    pub fn contains(self, l: Limiter) -> bool {
        self.0 & l.bit() != 0
    }

    fn insert(&mut self, l: Limiter) {
        self.0 |= l.bit();
    }

    /// The binding limiters, in the order registers, sgprs, smem, threads,
    /// blocks.
    pub fn iter(self) -> impl Iterator<Item = Limiter> {
        Limiter::ALL.into_iter().filter(move |l| self.contains(*l))
    }

    /// The first binding limiter.
    pub fn first(self) -> Option<Limiter> {
        self.iter().next()
    }
}

/// Why a kernel that is within every per-block limit still cannot launch:
/// NVIDIA's calculator answers such a kernel with zero blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The block's allocated registers exceed what one block may have.
    Registers {
        /// Registers the block is allocated.
        allocated: u64,
        /// The most a block may have.
        limit: u64,
    },
    /// The block's shared memory, reservation included, exceeds the SM's
    /// largest carveout.
    Smem {
        /// Bytes the block is allocated.
        allocated: u64,
        /// The SM's largest carveout.
        limit: u64,
    },
    /// The block asks for more shared memory (static + dynamic) than one
    /// block may opt in to.
    SmemPerBlock {
        /// Bytes the block asks for, static plus dynamic.
        requested: u64,
        /// The per-block opt-in limit.
        limit: u64,
    },
}

impl Failure {
    /// The budget at fault.
    pub fn limiter(self) -> Limiter {
        match self {
            Failure::Registers { .. } => Limiter::Registers,
            Failure::Smem { .. } | Failure::SmemPerBlock { .. } => Limiter::Smem,
        }
    }
}

/// The execution numbers occupancy reads from a hardware file, all
/// present and whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Threads per warp.
    pub warp_size: u64,
    /// Resident warps per SM.
    pub max_warps: u64,
    /// Threads per block.
    pub max_threads_per_block: u64,
    /// Resident blocks per SM.
    pub max_blocks: u64,
    /// 32-bit registers per SM.
    pub regs_per_sm: u64,
    /// Registers per thread.
    pub max_regs_per_thread: u64,
    /// Registers per block.
    pub max_regs_per_block: u64,
    /// Register allocation unit (registers per warp are a multiple).
    pub reg_unit: u64,
    /// Scheduler partitions the register file is split over.
    pub partitions: u64,
    /// Warps are counted in multiples of this for the per-block check.
    pub warp_granularity: u64,
    /// Shared memory per SM: the largest carveout.
    pub smem_per_sm: u64,
    /// Shared memory a block gets without opting in (the static limit).
    pub smem_default: u64,
    /// Shared memory a block may opt in to.
    pub smem_optin: u64,
    /// Shared memory reserved per resident block.
    pub reserved: u64,
    /// Shared-memory allocation unit.
    pub smem_unit: u64,
    /// SMs on the chip.
    pub sms: u64,
}

/// A whole number of bytes from a hardware file; a value no GPU could
/// have (fractional, or beyond 2^53) is bad data naming the field.
fn hw_bytes(hw: &Hardware, field: &str, v: f64) -> Result<u64> {
    const LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53
    if !(v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= LIMIT) {
        return Err(hw_error(
            hw,
            field,
            format!(
                "{} bytes is not a whole number of bytes that occupancy can compute with",
                units::sig(v, 4)
            ),
        ));
    }
    Ok(v as u64)
}

fn hw_error(hw: &Hardware, field: &str, message: String) -> Error {
    Error::Data {
        file: hw.id.clone(),
        line: None,
        col: None,
        field: Some(field.into()),
        message,
    }
}

/// A whole number of bytes from an input field.
fn input_bytes(field: &str, v: Option<Bytes>) -> Result<u64> {
    let v = v.map_or(0.0, |b| b.0);
    if !(v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= 1e15) {
        return Err(Error::field(
            field,
            format!(
                "`{}`: expected a whole number of bytes, zero or more",
                units::sig(v, 4)
            ),
        ));
    }
    Ok(v as u64)
}

fn need<T>(hw: &Hardware, v: Option<T>, field: &str, example: &str) -> Result<T> {
    v.ok_or_else(|| hw.missing(&format!("execution.{field}"), "occupancy", Some(example)))
}

impl Budget {
    /// The budget of `hw`'s execution section, checked.
    pub fn of(hw: &Hardware, ex: &Execution) -> Result<Self> {
        let n = |v: Option<std::num::NonZeroU32>| v.map(|x| u64::from(x.get()));
        let warp_size = u64::from(ex.warp_size.get());
        let max_warps = match (n(ex.max_warps_per_sm), n(ex.max_threads_per_sm)) {
            (Some(w), _) => w,
            (None, Some(t)) => t / warp_size,
            (None, None) => need(hw, None, "max-warps-per-sm", "64")?,
        };
        if max_warps == 0 {
            return Err(hw_error(
                hw,
                "execution.max-threads-per-sm",
                format!("fewer threads than one warp of {warp_size}"),
            ));
        }
        let bytes = |field: &str, v: Option<f64>| -> Result<Option<u64>> {
            v.map(|v| hw_bytes(hw, field, v)).transpose()
        };
        let smem_per_sm = need(
            hw,
            bytes("execution.smem-per-sm", ex.smem_per_sm.map(|b| b.get()))?,
            "smem-per-sm",
            "228 KiB",
        )?;
        let smem_block = bytes(
            "execution.smem-per-block",
            ex.smem_per_block.map(|b| b.get()),
        )?;
        let smem_optin = bytes(
            "execution.smem-per-block-optin",
            ex.smem_per_block_optin.map(|b| b.get()),
        )?
        .or(smem_block)
        .ok_or_else(|| {
            hw.missing(
                "execution.smem-per-block-optin",
                "occupancy",
                Some("227 KiB"),
            )
        })?;
        if let Some(g) = &ex.register_allocation_granularity
            && g != "warp"
        {
            return Err(Error::Unsupported(format!(
                "{}: register-allocation-granularity `{g}`: only per-warp allocation (every NVIDIA GPU since Kepler) is modelled",
                hw.id
            )));
        }
        Ok(Budget {
            warp_size,
            max_warps,
            max_threads_per_block: need(
                hw,
                n(ex.max_threads_per_block),
                "max-threads-per-block",
                "1024",
            )?,
            max_blocks: need(hw, n(ex.max_blocks_per_sm), "max-blocks-per-sm", "32")?,
            regs_per_sm: need(hw, n(ex.registers_per_sm), "registers-per-sm", "65536")?,
            max_regs_per_thread: need(
                hw,
                n(ex.max_registers_per_thread),
                "max-registers-per-thread",
                "255",
            )?,
            max_regs_per_block: n(ex.max_registers_per_block)
                .or(n(ex.registers_per_sm))
                .unwrap_or(u64::MAX),
            reg_unit: n(ex.register_allocation_unit).unwrap_or(1),
            partitions: n(ex.schedulers_per_sm).unwrap_or(1),
            warp_granularity: n(ex.warp_allocation_granularity)
                .or(n(ex.schedulers_per_sm))
                .unwrap_or(1),
            smem_per_sm,
            smem_default: smem_block.unwrap_or(smem_optin),
            smem_optin,
            reserved: bytes(
                "execution.reserved-smem-per-block",
                ex.reserved_smem_per_block.map(|b| b.get()),
            )?
            .unwrap_or(0),
            smem_unit: bytes(
                "execution.smem-allocation-unit",
                ex.smem_allocation_unit.map(|b| b.get()),
            )?
            .unwrap_or(1)
            .max(1),
            sms: u64::from(ex.sms.get()),
        })
    }
}

/// An AMD part's scalar register file, from its hardware file: what a
/// wave's SGPRs cost (docs/formulas.md, "Occupancy on AMD Instinct").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SgprBudget {
    /// SGPRs per SIMD, shared by its waves.
    pub per_simd: u64,
    /// A wave's SGPRs are granted in multiples of this.
    pub unit: u64,
    /// SGPRs a wave's code may address.
    pub addressable: u64,
    /// SGPRs the reported count may hold beyond the addressable ones.
    pub special: u64,
    /// SGPRs a trap handler adds to every wave.
    pub trap: u64,
}

impl SgprBudget {
    /// The SGPR budget of `hw`'s execution section; every field must be
    /// there.
    pub fn of(hw: &Hardware, ex: &Execution) -> Result<Self> {
        let n = |v: Option<std::num::NonZeroU32>, field: &str, example: &str| {
            need(hw, v.map(|x| u64::from(x.get())), field, example)
        };
        let z =
            |v: Option<u32>, field: &str, example: &str| need(hw, v.map(u64::from), field, example);
        Ok(SgprBudget {
            per_simd: n(ex.sgprs_per_simd, "sgprs-per-simd", "800")?,
            unit: n(ex.sgpr_allocation_unit, "sgpr-allocation-unit", "16")?,
            addressable: n(
                ex.addressable_sgprs_per_wave,
                "addressable-sgprs-per-wave",
                "102",
            )?,
            special: z(ex.special_sgprs_per_wave, "special-sgprs-per-wave", "6")?,
            trap: z(ex.trap_sgprs_per_wave, "trap-sgprs-per-wave", "16")?,
        })
    }

    /// The most SGPRs a wave's reported count may hold.
    pub fn max_per_wave(&self) -> u64 {
        self.addressable + self.special
    }

    /// SGPRs a wave of `sgprs` takes from the SIMD's file: the count
    /// rounded up to the unit, plus the trap handler's.
    pub fn per_wave(&self, sgprs: u64) -> u64 {
        sgprs.div_ceil(self.unit) * self.unit + self.trap
    }

    /// The most SGPRs per wave that still let `waves` waves share a SIMD
    /// (LLVM's getMaxNumSGPRs): floor(per SIMD / waves) less the trap
    /// handler's, rounded down to the unit, at most the addressable.
    pub fn most_for(&self, waves: u64) -> u64 {
        let budget = (self.per_simd / waves.max(1)).saturating_sub(self.trap);
        (budget / self.unit * self.unit).min(self.max_per_wave())
    }
}

/// The smallest carveout of `ex` that holds `size` bytes, as NVIDIA's
/// calculator rounds a request up to one the SM can be configured with;
/// `None` if none does.
fn carveout_at_least(hw: &Hardware, ex: &Execution, b: &Budget, size: u64) -> Result<Option<u64>> {
    if ex.smem_carveouts.is_empty() {
        return Ok((size <= b.smem_per_sm).then_some(b.smem_per_sm));
    }
    let best = ex
        .smem_carveouts
        .iter()
        .map(|c| c.get())
        .filter(|&c| c >= size as f64)
        .fold(None, |m: Option<f64>, c| Some(m.map_or(c, |m| m.min(c))));
    best.map(|c| hw_bytes(hw, "execution.smem-carveouts", c))
        .transpose()
}

fn round_up(x: u64, unit: u64) -> Option<u64> {
    x.div_ceil(unit).checked_mul(unit)
}

fn overflow(field: &str) -> Error {
    Error::field(field, "the product is too large for a 64-bit count")
}

/// A grid's spread over the SMs (`grid` given).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridCost {
    /// Blocks in the grid.
    pub grid: u64,
    /// SMs with at least one block: min(grid, SMs).
    pub sms_busy: u64,
    /// SMs with work over SMs.
    pub sm_fraction: f64,
    /// Blocks a busy SM holds in the first wave: min(blocks per SM,
    /// ceil(grid / SMs)).
    pub first_wave_blocks: u64,
    /// Occupancy of a busy SM in the first wave.
    pub busy_sm_occupancy: f64,
    /// grid / (blocks per SM x SMs); `None` when no block fits.
    pub waves: Option<f64>,
}

/// One kernel on one GPU: every figure `occupancy` reports.
#[derive(Debug, Clone)]
pub struct OccupancyCost<'a> {
    /// The hardware.
    pub hw: &'a Hardware,
    /// Threads per block.
    pub threads: u64,
    /// Registers per thread.
    pub regs: u64,
    /// SGPRs per wave, when given (AMD).
    pub sgprs: Option<u64>,
    /// Dynamic shared memory per block.
    pub smem: u64,
    /// Static shared memory per block.
    pub static_smem: u64,
    /// The carveout asked for.
    pub carveout: Option<u64>,
    /// The lecture's textbook arithmetic.
    pub textbook: bool,
    /// The hardware's budgets.
    pub budget: Budget,
    /// ceil(threads / warp size).
    pub warps_per_block: u64,
    /// Registers allocated to one warp.
    pub regs_per_warp: u64,
    /// Blocks the register file holds.
    pub by_registers: u64,
    /// The SGPR budget, when SGPRs were given.
    pub sgpr_budget: Option<SgprBudget>,
    /// SGPRs one wave takes from its SIMD's file, trap handler's included.
    pub sgprs_per_wave: Option<u64>,
    /// Blocks the SGPR file holds; `None` when SGPRs were not given.
    pub by_sgprs: Option<u64>,
    /// Blocks shared memory holds; `None` when a block uses none.
    pub by_smem: Option<u64>,
    /// Blocks the warp budget holds.
    pub by_threads: u64,
    /// The block-slot limit.
    pub by_blocks: u64,
    /// Shared memory allocated to one block.
    pub smem_per_block: u64,
    /// Shared memory the SM is configured with for this kernel.
    pub smem_per_sm: u64,
    /// Resident blocks per SM: the smallest limit, 0 when it cannot launch.
    pub blocks_per_sm: u64,
    /// Resident warps per SM.
    pub warps_per_sm: u64,
    /// Resident threads per SM.
    pub threads_per_sm: u64,
    /// Warps per SM over the warp budget.
    pub occupancy: f64,
    /// The binding limits.
    pub limiters: Limiters,
    /// Set when the kernel cannot launch.
    pub failure: Option<Failure>,
    /// The grid's spread, when a grid was given.
    pub grid: Option<GridCost>,
}

/// `occupancy`'s cost: resident blocks per SM under each limit, by
/// NVIDIA's rules or the lecture's (`textbook`). Inputs out of a per-block
/// range are errors naming the field; a kernel within them that still
/// cannot launch comes back with `failure` set and zero blocks, as the
/// calculator answers it. (`mode` does not enter: occupancy has no
/// measured variant.)
pub fn cost<'a>(
    hw: &'a Hardware,
    inputs: &OccupancyInputs,
    _mode: Mode,
) -> Result<OccupancyCost<'a>> {
    let ex = hw.execution()?;
    // The allocation rules below are NVIDIA's (its occupancy calculator);
    // AMD's CDNA compute units follow the same shape (docs/formulas.md,
    // "Occupancy on AMD Instinct"): registers per wave in granules, waves
    // per SIMD, LDS per workgroup, a wave and workgroup limit per CU.
    if !is_amd(hw) && hw.vendor != Vendor::Nvidia {
        return Err(Error::Unsupported(format!(
            "{} is not an NVIDIA or AMD GPU (vendor `{}`): occupancy here follows NVIDIA's and AMD's published allocation rules, and its vendor publishes no equivalent to model it with",
            hw.id, hw.vendor
        )));
    }
    let b = Budget::of(hw, ex)?;
    let threads = inputs
        .threads
        .ok_or_else(|| Error::missing_input("threads", "give `threads`"))?
        .0;
    let regs = inputs
        .regs
        .ok_or_else(|| Error::missing_input("regs", "give `regs`"))?
        .0;
    let sgprs = inputs.sgprs.map(|c| c.0);
    let smem = input_bytes("smem", inputs.smem)?;
    let static_smem = input_bytes("static-smem", inputs.static_smem)?;
    let carveout = inputs
        .carveout
        .map(|c| input_bytes("carveout", Some(c)))
        .transpose()?;
    let textbook = inputs.textbook;

    if threads == 0 {
        return Err(Error::field("threads", "must be at least 1"));
    }
    if threads > b.max_threads_per_block {
        return Err(Error::field(
            "threads",
            format!(
                "{} threads per block exceeds {}'s limit of {}",
                number(threads as f64),
                hw.id,
                number(b.max_threads_per_block as f64)
            ),
        ));
    }
    if regs == 0 || regs > b.max_regs_per_thread {
        return Err(Error::field(
            "regs",
            format!(
                "{} registers per thread: {} allows 1 to {}",
                units::whole(regs),
                hw.id,
                units::whole(b.max_regs_per_thread)
            ),
        ));
    }
    // SGPRs: AMD's scalar registers, one file per SIMD shared by its waves.
    // More than a wave may address is a kernel LLVM refuses to compile
    // ("addressable scalar registers"), so it is an error, not 0 blocks.
    let sgpr_budget = match sgprs {
        None => None,
        Some(_) if !is_amd(hw) => {
            return Err(Error::field(
                "sgprs",
                format!(
                    "{} (vendor `{}`) has no SGPRs: scalar registers per wave are AMD's; give `sgprs` for AMD parts only",
                    hw.id, hw.vendor
                ),
            ));
        }
        Some(n) => {
            let sb = SgprBudget::of(hw, ex)?;
            if n == 0 {
                return Err(Error::field("sgprs", "must be at least 1"));
            }
            if n > sb.max_per_wave() {
                return Err(Error::field(
                    "sgprs",
                    format!(
                        "{n} SGPRs per wave: {} allows 1 to {} ({} addressable + {} for VCC, FLAT_SCRATCH and XNACK_MASK, which the compiler's count includes); LLVM refuses to compile more",
                        hw.id,
                        sb.max_per_wave(),
                        sb.addressable,
                        sb.special
                    ),
                ));
            }
            Some(sb)
        }
    };
    // CUDA caps statically declared shared memory at the default per-block
    // figure (48 KiB); only dynamic shared memory can opt in beyond it.
    if static_smem > b.smem_default {
        return Err(Error::field(
            "static-smem",
            format!(
                "{} of static shared memory exceeds the {} a block may declare statically; more must be dynamic shared memory, with the opt-in",
                units::iec_bytes(static_smem as f64),
                units::iec_bytes(b.smem_default as f64)
            ),
        ));
    }
    let total_smem = smem
        .checked_add(static_smem)
        .ok_or_else(|| Error::field("smem", "dynamic plus static shared memory overflows"))?;
    // Beyond the per-block opt-in the kernel cannot launch: NVIDIA's
    // calculator answers 0 blocks, as it does for registers beyond the
    // per-block limit (docs/formulas.md, "Occupancy").
    let mut failure = (total_smem > b.smem_optin).then_some(Failure::SmemPerBlock {
        requested: total_smem,
        limit: b.smem_optin,
    });

    // Within the per-block limits, threads < 2^32 and regs < 2^32, so the
    // products below fit; they are checked all the same.
    let warps_per_block = threads.div_ceil(b.warp_size);
    let by_threads = b.max_warps / warps_per_block;
    let (regs_per_warp, by_registers, smem_per_block, smem_per_sm, by_smem);
    if textbook {
        // 002 §7.5 / exercise 1 and 004: whole register file over the
        // block's registers, whole shared memory over the block's bytes.
        let regs_per_block = threads.checked_mul(regs).ok_or_else(|| overflow("regs"))?;
        regs_per_warp = b
            .warp_size
            .checked_mul(regs)
            .ok_or_else(|| overflow("regs"))?;
        by_registers = b.regs_per_sm / regs_per_block;
        smem_per_block = total_smem;
        // A carveout asked for is the shared memory there is, as given.
        smem_per_sm = carveout.unwrap_or(b.smem_per_sm);
        by_smem = (total_smem > 0).then(|| smem_per_sm / total_smem);
    } else {
        // Registers: per warp, rounded to the allocation unit; the
        // per-block check rounds warps up to the allocation granularity;
        // residency is counted per scheduler partition.
        regs_per_warp = regs
            .checked_mul(b.warp_size)
            .and_then(|r| round_up(r, b.reg_unit))
            .ok_or_else(|| overflow("regs"))?;
        let regs_per_block = round_up(warps_per_block, b.warp_granularity)
            .and_then(|w| w.checked_mul(regs_per_warp))
            .ok_or_else(|| overflow("regs"))?;
        let reg_limit = b.max_regs_per_block.min(b.regs_per_sm);
        by_registers = if regs_per_block > reg_limit {
            failure.get_or_insert(Failure::Registers {
                allocated: regs_per_block,
                limit: reg_limit,
            });
            0
        } else {
            let per_partition = b.regs_per_sm / b.partitions;
            let warps = (per_partition / regs_per_warp)
                .checked_mul(b.partitions)
                .ok_or_else(|| overflow("regs"))?;
            warps / warps_per_block
        };

        // Shared memory: static + reserved + dynamic, rounded to the unit.
        let allocated = total_smem
            .checked_add(b.reserved)
            .and_then(|s| round_up(s, b.smem_unit))
            .ok_or_else(|| {
                hw_error(
                    hw,
                    "execution.reserved-smem-per-block",
                    "the block's shared memory with the reservation overflows".into(),
                )
            })?;
        smem_per_block = allocated;
        let preference = match carveout {
            None => b.smem_per_sm,
            Some(c) => carveout_at_least(hw, ex, &b, c)?.ok_or_else(|| {
                Error::field(
                    "carveout",
                    format!(
                        "{} is more than {}'s largest carveout ({})",
                        units::iec_bytes(c as f64),
                        hw.id,
                        units::iec_bytes(b.smem_per_sm as f64)
                    ),
                )
            })?,
        };
        // A block that needs more than the preferred carveout gets the
        // smallest carveout that holds it (Volta and later); a block no
        // carveout holds cannot launch.
        smem_per_sm = if preference >= allocated {
            preference
        } else {
            match carveout_at_least(hw, ex, &b, allocated)? {
                Some(c) => c,
                None => {
                    failure.get_or_insert(Failure::Smem {
                        allocated,
                        limit: b.smem_per_sm,
                    });
                    b.smem_per_sm
                }
            }
        };
        by_smem = (allocated > 0).then(|| smem_per_sm / allocated);
    }
    // SGPRs (LLVM AMDGPU, getOccupancyWithNumSGPRs on gfx9): waves per
    // SIMD = floor(SGPRs per SIMD / per wave), per wave the count rounded
    // up to the unit plus the trap handler's; the same in both arithmetics.
    let (sgprs_per_wave, by_sgprs) = match (sgprs, sgpr_budget) {
        (Some(n), Some(sb)) => {
            let per_wave = sb.per_wave(n);
            let waves = (sb.per_simd / per_wave)
                .checked_mul(b.partitions)
                .ok_or_else(|| overflow("sgprs"))?;
            (Some(per_wave), Some(waves / warps_per_block))
        }
        _ => (None, None),
    };
    // A block beyond the opt-in gets no shared memory at all.
    let by_smem = match failure {
        Some(Failure::SmemPerBlock { .. }) => Some(0),
        _ => by_smem,
    };

    // AMD's workgroup limit is a limit on barriers: a one-wave workgroup
    // uses none, so only the wave budget holds it (LLVM AMDGPU,
    // getMaxWorkGroupsPerCU).
    let by_blocks = if is_amd(hw) && warps_per_block == 1 {
        b.max_warps
    } else {
        b.max_blocks
    };
    let mut limiters = Limiters::default();
    let blocks_per_sm = match failure {
        Some(f) => {
            limiters.insert(f.limiter());
            0
        }
        None => {
            let blocks = by_registers
                .min(by_sgprs.unwrap_or(u64::MAX))
                .min(by_smem.unwrap_or(u64::MAX))
                .min(by_threads)
                .min(by_blocks);
            for (l, v) in [
                (Limiter::Registers, Some(by_registers)),
                (Limiter::Sgprs, by_sgprs),
                (Limiter::Smem, by_smem),
                (Limiter::Threads, Some(by_threads)),
                (Limiter::Blocks, Some(by_blocks)),
            ] {
                if v == Some(blocks) {
                    limiters.insert(l);
                }
            }
            blocks
        }
    };
    // blocks x warps per block <= max warps, and blocks x threads is at
    // most that many warps' threads.
    let warps_per_sm = blocks_per_sm
        .checked_mul(warps_per_block)
        .ok_or_else(|| overflow("threads"))?;
    let threads_per_sm = blocks_per_sm
        .checked_mul(threads)
        .ok_or_else(|| overflow("threads"))?;
    let occupancy = warps_per_sm as f64 / b.max_warps as f64;

    let grid = match inputs.grid {
        None => None,
        Some(Count(0)) => return Err(Error::field("grid", "must be at least 1 block")),
        Some(Count(g)) => {
            let sms_busy = g.min(b.sms);
            let first_wave_blocks = g.div_ceil(b.sms).min(blocks_per_sm);
            let warps = first_wave_blocks
                .checked_mul(warps_per_block)
                .ok_or_else(|| overflow("grid"))?;
            let slots = blocks_per_sm
                .checked_mul(b.sms)
                .ok_or_else(|| overflow("grid"))?;
            Some(GridCost {
                grid: g,
                sms_busy,
                sm_fraction: sms_busy as f64 / b.sms as f64,
                first_wave_blocks,
                busy_sm_occupancy: warps as f64 / b.max_warps as f64,
                waves: (slots > 0).then(|| g as f64 / slots as f64),
            })
        }
    };

    Ok(OccupancyCost {
        hw,
        threads,
        regs,
        sgprs,
        smem,
        static_smem,
        carveout,
        textbook,
        budget: b,
        warps_per_block,
        regs_per_warp,
        by_registers,
        sgpr_budget,
        sgprs_per_wave,
        by_sgprs,
        by_smem,
        by_threads,
        by_blocks,
        smem_per_block,
        smem_per_sm,
        blocks_per_sm,
        warps_per_sm,
        threads_per_sm,
        occupancy,
        limiters,
        failure,
        grid,
    })
}

/// An AMD GPU: its SMs are compute units (CUs), warps are waves, blocks
/// are workgroups, registers are VGPRs (arch and accumulation together)
/// and shared memory is the LDS.
fn is_amd(hw: &Hardware) -> bool {
    hw.vendor == Vendor::Amd
}

/// NVIDIA's words in a label or formula put in AMD's.
fn amd_words(s: &str) -> String {
    s.replace("registers per SM", "VGPRs per CU")
        .replace("regs per SM", "VGPRs per CU")
        .replace("shared memory", "LDS")
        .replace("shared-memory carveout", "LDS per CU")
        .replace("SMs", "CUs")
        .replace("SM", "CU")
        .replace("warps", "waves")
        .replace("warp", "wave")
        .replace("blocks", "workgroups")
        .replace("block", "workgroup")
        .replace("partitions", "SIMDs")
        .replace("carveout", "LDS per CU")
}

fn count_or_null(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::from)
}

impl OccupancyCost<'_> {
    /// Resident threads each limit alone allows (blocks x threads per
    /// block), `None` for shared memory a block does not use and for SGPRs
    /// not given.
    pub fn threads_by(&self, l: Limiter) -> Option<u64> {
        let blocks = match l {
            Limiter::Registers => Some(self.by_registers),
            Limiter::Sgprs => self.by_sgprs,
            Limiter::Smem => self.by_smem,
            Limiter::Threads => Some(self.by_threads),
            Limiter::Blocks => Some(self.by_blocks),
        };
        blocks.and_then(|b| b.checked_mul(self.threads))
    }

    /// Resident threads on the whole GPU: threads per SM x SMs.
    pub fn threads_per_gpu(&self) -> u64 {
        // threads per SM <= max warps x warp size < 2^64 / SMs in any file.
        self.threads_per_sm.saturating_mul(self.budget.sms)
    }

    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let hw = self.hw;
        let b = &self.budget;
        let mut r = Report::new_lean("occupancy", lean);
        // Sized once: a sweep builds one of these per point.
        r.inputs.reserve(8);
        r.results.reserve(24);
        r.hardware = Some(hw.id.clone());
        r.input("threads", self.threads);
        r.input("regs", self.regs);
        if let Some(n) = self.sgprs {
            r.input("sgprs", n);
            r.describe("sgprs", || Quantity::new("SGPRs per wave", Unit::Count));
        }
        r.input("smem", self.smem);
        r.describe("smem", || {
            Quantity::new("dynamic shared memory per block", Unit::BytesIec)
        });
        if self.static_smem > 0 {
            r.input("static_smem", self.static_smem);
            r.describe("static_smem", || {
                Quantity::new("static shared memory per block", Unit::BytesIec)
            });
        }
        if let Some(c) = self.carveout {
            r.input("carveout", c);
            r.describe("carveout", || {
                Quantity::new("carveout asked for", Unit::BytesIec)
            });
        }
        if self.textbook {
            r.input("textbook", true);
        }
        if let Some(g) = &self.grid {
            r.input("grid", g.grid);
        }
        let src = |f: &str| hw.source(f);

        r.result("warps_per_block", self.warps_per_block, || {
            Quantity::new("warps per block", Unit::Count)
                .formula("ceil(threads / warp size)")
                .derive(format!("ceil({} / {})", self.threads, b.warp_size))
        });
        r.result("blocks_by_registers", self.by_registers, || {
            let q = Quantity::new("blocks by registers", Unit::Count);
            if self.textbook {
                q.formula("floor(registers per SM / (threads x registers per thread))")
                    .derive(format!(
                        "floor({} / ({} x {}))",
                        b.regs_per_sm, self.threads, self.regs
                    ))
            } else if matches!(self.failure, Some(Failure::Registers { .. })) {
                q.formula("0: the block's registers exceed the per-block limit")
            } else {
                q.formula("floor(floor(regs per SM / partitions / regs per warp) x partitions / warps per block), regs per warp = ceil(regs x warp size / unit) x unit")
                    .derive(format!(
                        "regs per warp = ceil({} x {} / {u}) x {u} = {rpw}; floor(floor({} / {p} / {rpw}) x {p} / {})",
                        self.regs,
                        b.warp_size,
                        b.regs_per_sm,
                        self.warps_per_block,
                        u = b.reg_unit,
                        rpw = self.regs_per_warp,
                        p = b.partitions,
                    ))
                    .source(src("execution.register-allocation-unit"))
            }
        });
        let amd = is_amd(hw);
        if amd {
            r.result("blocks_by_sgprs", count_or_null(self.by_sgprs), || {
                let q = Quantity::new("blocks by SGPRs", Unit::Count);
                match (self.sgprs, self.sgpr_budget, self.sgprs_per_wave) {
                    (Some(n), Some(sb), Some(pw)) => q
                        .formula("floor(floor(SGPRs per SIMD / per wave) x SIMDs / waves per workgroup), per wave = ceil(sgprs / unit) x unit + trap handler's")
                        .derive(format!(
                            "per wave = ceil({n} / {u}) x {u} + {t} = {pw}; floor(floor({} / {pw}) x {} / {})",
                            sb.per_simd,
                            b.partitions,
                            self.warps_per_block,
                            u = sb.unit,
                            t = sb.trap,
                        ))
                        .source(src("execution.sgprs-per-simd")),
                    _ => q.formula("`sgprs` not given: SGPRs do not limit"),
                }
            });
        }
        r.result("blocks_by_smem", count_or_null(self.by_smem), || {
            let q = Quantity::new("blocks by shared memory", Unit::Count);
            match (self.textbook, self.by_smem) {
                _ if matches!(self.failure, Some(Failure::SmemPerBlock { .. })) => {
                    q.formula("0: the block's shared memory exceeds the per-block opt-in limit")
                }
                (_, None) => q.formula("no limit: the block allocates no shared memory"),
                (true, Some(_)) => q
                    .formula("floor(shared memory per SM / shared memory per block)")
                    .derive(format!(
                        "floor({} / {})",
                        units::iec_bytes(self.smem_per_sm as f64),
                        units::iec_bytes(self.smem_per_block as f64)
                    )),
                (false, Some(_)) => q
                    .formula("floor(carveout / ceil((static + dynamic + reserved) / unit) x unit)")
                    .derive(format!(
                        "floor({} / ceil(({} + {} + {}) / {u}) x {u}) = floor({} / {})",
                        number(self.smem_per_sm as f64),
                        number(self.static_smem as f64),
                        number(self.smem as f64),
                        number(b.reserved as f64),
                        number(self.smem_per_sm as f64),
                        number(self.smem_per_block as f64),
                        u = b.smem_unit,
                    ))
                    .source(src("execution.reserved-smem-per-block")),
            }
        });
        r.result("blocks_by_threads", self.by_threads, || {
            Quantity::new("blocks by threads (warps)", Unit::Count)
                .formula("floor(max warps per SM / warps per block)")
                .derive(format!("floor({} / {})", b.max_warps, self.warps_per_block))
                .source(src("execution.max-warps-per-sm"))
        });
        r.result("blocks_by_blocks", self.by_blocks, || {
            Quantity::new("blocks by block slots", Unit::Count)
                .formula("max blocks per SM")
                .source(src("execution.max-blocks-per-sm"))
        });
        r.result(
            "threads_by_registers",
            count_or_null(self.threads_by(Limiter::Registers)),
            || {
                Quantity::new("threads the registers hold", Unit::Count)
                    .formula("blocks by registers x threads per block")
                    .derive(format!("{} x {}", self.by_registers, self.threads))
            },
        );
        if amd {
            r.result(
                "threads_by_sgprs",
                count_or_null(self.threads_by(Limiter::Sgprs)),
                || {
                    let q = Quantity::new("threads the SGPRs hold", Unit::Count);
                    match self.by_sgprs {
                        None => q.formula("`sgprs` not given: SGPRs do not limit"),
                        Some(s) => q
                            .formula("blocks by SGPRs x threads per block")
                            .derive(format!("{s} x {}", self.threads)),
                    }
                },
            );
        }
        r.result(
            "threads_by_smem",
            count_or_null(self.threads_by(Limiter::Smem)),
            || {
                let q = Quantity::new("threads shared memory holds", Unit::Count);
                match self.by_smem {
                    None => q.formula("no limit: the block allocates no shared memory"),
                    Some(s) => q
                        .formula("blocks by shared memory x threads per block")
                        .derive(format!("{s} x {}", self.threads)),
                }
            },
        );
        let blocks = self.blocks_per_sm;
        r.result("blocks_per_sm", blocks, || {
            let dash = |v: Option<u64>| v.map_or("-".into(), |v| v.to_string());
            let q = Quantity::new("resident blocks per SM", Unit::Count);
            if amd {
                q.formula("min(by registers, by SGPRs, by shared memory, by threads, by blocks)")
                    .derive(format!(
                        "min({}, {}, {}, {}, {})",
                        self.by_registers,
                        dash(self.by_sgprs),
                        dash(self.by_smem),
                        self.by_threads,
                        self.by_blocks
                    ))
            } else {
                q.formula("min(by registers, by shared memory, by threads, by blocks)")
                    .derive(format!(
                        "min({}, {}, {}, {})",
                        self.by_registers,
                        dash(self.by_smem),
                        self.by_threads,
                        self.by_blocks
                    ))
            }
        });
        let warps = self.warps_per_sm;
        r.result("warps_per_sm", warps, || {
            Quantity::new("resident warps per SM", Unit::Count)
                .formula("blocks per SM x warps per block")
                .derive(format!("{blocks} x {}", self.warps_per_block))
        });
        r.result("threads_per_sm", self.threads_per_sm, || {
            Quantity::new("resident threads per SM", Unit::Count)
                .formula("blocks per SM x threads per block")
                .derive(format!("{blocks} x {}", self.threads))
        });
        r.result("threads_per_gpu", self.threads_per_gpu(), || {
            Quantity::new("resident threads on the GPU", Unit::Count)
                .formula("threads per SM x SMs")
                .derive(format!("{} x {}", self.threads_per_sm, b.sms))
                .source(src("execution.sms"))
        });
        r.result("occupancy", self.occupancy, || {
            Quantity::new("occupancy", Unit::Fraction)
                .formula("warps per SM / max warps per SM")
                .derive(format!("{warps} / {}", b.max_warps))
        });
        r.result(
            "limiter",
            self.limiters.first().map_or("none", Limiter::as_str),
            || Quantity::new("limiter", Unit::None).formula("the smallest limit"),
        );
        if !self.textbook {
            r.result("smem_per_block_bytes", self.smem_per_block, || {
                Quantity::new("shared memory allocated per block", Unit::BytesIec)
                    .formula("ceil((static + dynamic + reserved) / unit) x unit")
            });
            r.result("smem_carveout_bytes", self.smem_per_sm, || {
                Quantity::new("shared-memory carveout", Unit::BytesIec).formula(
                    "the requested carveout rounded up to one the SM supports (default: the largest), or the smallest that holds one block",
                )
            });
        }
        if let Some(g) = &self.grid {
            self.grid_report(&mut r, g);
        }
        if !lean {
            self.notes(&mut r);
            if is_amd(hw) {
                for q in r.quantities.values_mut() {
                    q.label = amd_words(&q.label);
                    q.formula = amd_words(&q.formula);
                }
                for n in r.notes.iter_mut().filter(|n| !n.starts_with("AMD CDNA")) {
                    *n = amd_words(n);
                }
            }
        }
        r
    }

    fn grid_report(&self, r: &mut Report, g: &GridCost) {
        let b = &self.budget;
        let (grid, sms) = (g.grid, b.sms);
        r.result("sms_busy", g.sms_busy, || {
            Quantity::new("SMs with work", Unit::Count)
                .formula("min(grid, SMs)")
                .derive(format!("min({grid}, {sms})"))
                .source(self.hw.source("execution.sms"))
        });
        r.result("sm_fraction", g.sm_fraction, || {
            Quantity::new("fraction of SMs busy", Unit::Fraction)
                .formula("SMs with work / SMs")
                .derive(format!("{} / {sms}", g.sms_busy))
        });
        r.result("busy_sm_occupancy", g.busy_sm_occupancy, || {
            Quantity::new("occupancy of a busy SM (first wave)", Unit::Fraction)
                .formula("min(blocks per SM, ceil(grid / SMs)) x warps per block / max warps")
                .derive(format!(
                    "min({}, ceil({grid} / {sms})) x {} / {}",
                    self.blocks_per_sm, self.warps_per_block, b.max_warps
                ))
        });
        if let Some(w) = g.waves {
            r.result("waves", w, || {
                Quantity::new("waves", Unit::Count)
                    .formula("grid / (blocks per SM x SMs)")
                    .derive(format!("{grid} / ({} x {sms})", self.blocks_per_sm))
            });
        }
        if grid < sms {
            r.note_with(|| {
                format!(
                    "the grid of {} blocks leaves {} of {} SMs idle",
                    number(grid as f64),
                    number((sms - grid) as f64),
                    number(sms as f64)
                )
            });
        }
    }

    fn notes(&self, r: &mut Report) {
        let b = &self.budget;
        match self.failure {
            Some(Failure::Registers { allocated, limit }) => r.note(format!(
                "cannot launch: {} registers per thread x {} threads allocates {} registers per block; {} allows {}",
                number(self.regs as f64),
                number(self.threads as f64),
                number(allocated as f64),
                self.hw.id,
                number(limit as f64)
            )),
            Some(Failure::Smem { allocated, limit }) => r.note(format!(
                "cannot launch: the block is allocated {} of shared memory (reservation included); {}'s largest carveout is {}",
                units::iec_bytes(allocated as f64),
                self.hw.id,
                units::iec_bytes(limit as f64)
            )),
            Some(Failure::SmemPerBlock { requested, limit }) => r.note(format!(
                "cannot launch: the block asks for {} of shared memory; {} allows a block at most {} (the opt-in limit)",
                units::iec_bytes(requested as f64),
                self.hw.id,
                units::iec_bytes(limit as f64)
            )),
            None => {
                let names: Vec<&str> = self.limiters.iter().map(Limiter::describe).collect();
                // "a and b", "a, b and c".
                let names = match names.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} and {last}", rest.join(", "))
                    }
                    _ => names.join(""),
                };
                r.note(format!(
                    "{names} bound: {} blocks x {} warps = {} of {} warps ({}%)",
                    number(self.blocks_per_sm as f64),
                    number(self.warps_per_block as f64),
                    number(self.warps_per_sm as f64),
                    number(b.max_warps as f64),
                    units::percent(self.occupancy)
                ));
            }
        }
        if self.textbook {
            r.note("textbook arithmetic (the GPU-architecture lecture (002), §7.5, and the inference-engineer chapter (004), 'coalescing'): no allocation granularity, no reserved shared memory; NVIDIA's calculator (the default) can give fewer blocks");
        } else {
            if is_amd(self.hw) {
                let per_simd = b.max_warps / b.partitions.max(1);
                let sgprs = match (self.sgpr_budget, self.sgprs_per_wave) {
                    (Some(sb), Some(pw)) => format!(
                        "SGPRs: {} per SIMD, a wave takes its count rounded up to {} plus {} for the trap handler ({pw} here)",
                        sb.per_simd, sb.unit, sb.trap
                    ),
                    _ => match self
                        .hw
                        .execution()
                        .ok()
                        .and_then(|ex| SgprBudget::of(self.hw, ex).ok())
                    {
                        Some(sb) => format!(
                            "SGPRs not given (`sgprs`), so they do not limit; up to {} per wave keep {per_simd} waves per SIMD",
                            sb.most_for(per_simd)
                        ),
                        None => "SGPRs not given (`sgprs`), so they do not limit".into(),
                    },
                };
                r.note(format!(
                    "AMD CDNA rules: a CU has {} SIMDs of at most {per_simd} waves each; `regs` is the VGPRs a lane uses, arch VGPRs and AGPRs together ({} at most), allocated in granules of {}; LDS holds {} per CU in units of {}; blocks are workgroups, warps are waves; {sgprs}",
                    b.partitions,
                    b.max_regs_per_thread,
                    b.reg_unit / b.warp_size.max(1),
                    units::iec_bytes(b.smem_per_sm as f64),
                    units::iec_bytes(b.smem_unit as f64)
                ));
            } else {
                r.note("NVIDIA occupancy-calculator rules: per-warp register allocation unit, per-partition residency, shared-memory allocation unit and per-block reservation");
            }
            if !is_amd(self.hw) && self.smem + self.static_smem > b.smem_default {
                r.note(format!(
                    "more than {} of shared memory per block needs the opt-in (cudaFuncSetAttribute MaxDynamicSharedMemorySize)",
                    units::iec_bytes(b.smem_default as f64)
                ));
            }
        }
        r.note("occupancy is the supply of warps to hide latency, not utilisation; see littles-law for the demand");
    }
}

#[cfg(test)]
mod tests {
    use super::SgprBudget;

    // gfx9's numbers (LLVM AMDGPUBaseInfo.cpp): 800 per SIMD, granule 16,
    // 102 addressable, 6 special, 16 for the trap handler.
    const GFX9: SgprBudget = SgprBudget {
        per_simd: 800,
        unit: 16,
        addressable: 102,
        special: 6,
        trap: 16,
    };

    #[test]
    fn a_wave_takes_its_count_rounded_up_plus_the_trap_handlers() {
        // 1 -> 16 + 16; 80 -> 80 + 16; 81 -> 96 + 16; 108 -> 112 + 16.
        for (s, per_wave) in [(1, 32), (80, 96), (81, 112), (96, 112), (108, 128)] {
            assert_eq!(GFX9.per_wave(s), per_wave, "{s}");
        }
        assert_eq!(GFX9.max_per_wave(), 108);
    }

    #[test]
    fn the_most_for_a_wave_count_inverts_the_cost() {
        // floor(800 / w) - 16, rounded down to 16, at most 108:
        // w = 8: 100 - 16 = 84 -> 80; w = 7: 114 - 16 = 98 -> 96;
        // w = 6: 133 - 16 = 117 -> 112 -> 108 (the most a wave may have).
        for (w, most) in [(8, 80), (7, 96), (6, 108)] {
            assert_eq!(GFX9.most_for(w), most, "{w}");
            // The most still fits w waves, one more SGPR (past the granule) does not.
            assert!(GFX9.per_simd / GFX9.per_wave(most) >= w);
            if most < GFX9.max_per_wave() {
                assert!(GFX9.per_simd / GFX9.per_wave(most + 1) < w);
            }
        }
    }
}

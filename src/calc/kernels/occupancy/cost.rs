//! The occupancy arithmetic: blocks per SM under each budget, the one that
//! binds, and a grid's spread over the SMs.

use super::budget::{Budget, SgprBudget, carveout_at_least, hw_error, input_bytes};
use super::{Failure, Limiter, Limiters, OccupancyInputs};
use crate::error::{Error, Result};
use crate::inputs::Count;
use crate::spec::hardware::Vendor;
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, number};

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
pub(super) fn is_amd(hw: &Hardware) -> bool {
    hw.vendor == Vendor::Amd
}

impl<'a> OccupancyCost<'a> {
    /// This cost, or the error a command answers for a block that asks for
    /// more shared memory than one block may have: as the CLI refuses
    /// `--threads` beyond the per-block limit, it refuses `--smem` beyond
    /// it (exit 65). [`cost`] itself answers 0 blocks there, as NVIDIA's
    /// calculator does (its sample has such rows), for the chart and the
    /// library.
    pub fn launchable(self) -> Result<OccupancyCost<'a>> {
        if let Some(Failure::SmemPerBlock { requested, limit }) = self.failure {
            return Err(Error::field(
                "smem",
                format!(
                    "{} of shared memory per block (static and dynamic) exceeds {}'s per-block limit of {} (the opt-in maximum): the kernel cannot launch",
                    units::iec_bytes(requested as f64),
                    self.hw.id,
                    units::iec_bytes(limit as f64)
                ),
            ));
        }
        Ok(self)
    }

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
}

//! The SM's budgets occupancy reads from a hardware file (registers,
//! shared memory, warps, block slots, and AMD's SGPRs), checked whole.

use crate::error::{Error, Result};
use crate::inputs::Bytes;
use crate::spec::hardware::{Execution, Hardware};
use crate::units;

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
pub(super) fn hw_bytes(hw: &Hardware, field: &str, v: f64) -> Result<u64> {
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

pub(super) fn hw_error(hw: &Hardware, field: &str, message: String) -> Error {
    Error::Data {
        file: hw.id.clone(),
        line: None,
        col: None,
        field: Some(field.into()),
        message,
    }
}

/// A whole number of bytes from an input field.
pub(super) fn input_bytes(field: &str, v: Option<Bytes>) -> Result<u64> {
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
pub(super) fn carveout_at_least(
    hw: &Hardware,
    ex: &Execution,
    b: &Budget,
    size: u64,
) -> Result<Option<u64>> {
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

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
//! largest carveout unless a carveout is asked for. `--textbook` is the
//! seeds' arithmetic without any of those granularities.

use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Execution, Hardware};
use crate::units::{self, number};
use serde_json::Value;

/// What the caller asks about one kernel launch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kernel {
    /// Threads per block.
    pub threads: u64,
    /// Registers per thread.
    pub regs: u64,
    /// Dynamic shared memory per block (bytes).
    pub smem: u64,
    /// Static shared memory per block (bytes).
    pub static_smem: u64,
    /// Shared-memory carveout preference (bytes); `None` = the largest.
    pub carveout: Option<u64>,
    /// The seeds' simplified arithmetic instead of NVIDIA's.
    pub textbook: bool,
    /// Blocks in the grid, for how many SMs a launch keeps busy.
    pub grid: Option<u64>,
}

/// Why a kernel cannot launch at all.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchFailure {
    /// The flag at fault (`--threads`, `--regs`, `--smem`).
    pub flag: &'static str,
    /// What is wrong.
    pub message: String,
    /// Whether the flag's value alone is out of range (an input error) rather
    /// than a combination the calculator answers with zero blocks.
    pub out_of_range: bool,
}

/// Resident blocks per SM under each limit, with the numbers behind them.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Blocks the register file holds.
    pub by_registers: u64,
    /// Blocks shared memory holds; `None` when a block uses none.
    pub by_smem: Option<u64>,
    /// Blocks the warp (thread) budget holds.
    pub by_threads: u64,
    /// The per-SM block-slot limit.
    pub by_blocks: u64,
    /// Warps per block.
    pub warps_per_block: u64,
    /// Warp budget of the SM.
    pub max_warps: u64,
    /// Registers allocated to one warp.
    pub regs_per_warp: u64,
    /// Shared memory allocated to one block (reservation and rounding
    /// included in exact mode).
    pub smem_per_block: u64,
    /// Shared memory the SM is configured with for this kernel.
    pub smem_per_sm: u64,
    /// Set when the kernel cannot launch (zero blocks).
    pub failure: Option<LaunchFailure>,
}

impl Limits {
    /// Resident blocks per SM: the smallest limit, 0 if it cannot launch.
    pub fn blocks_per_sm(&self) -> u64 {
        if self.failure.is_some() {
            return 0;
        }
        self.by_registers
            .min(self.by_smem.unwrap_or(u64::MAX))
            .min(self.by_threads)
            .min(self.by_blocks)
    }

    /// The binding limits, in the order registers, smem, threads, blocks.
    pub fn limiters(&self) -> Vec<&'static str> {
        let b = self.blocks_per_sm();
        let mut out = Vec::new();
        if let Some(f) = &self.failure {
            out.push(match f.flag {
                "--regs" => "registers",
                "--smem" | "--static-smem" => "smem",
                _ => "threads",
            });
            return out;
        }
        if self.by_registers == b {
            out.push("registers");
        }
        if self.by_smem == Some(b) {
            out.push("smem");
        }
        if self.by_threads == b {
            out.push("threads");
        }
        if self.by_blocks == b {
            out.push("blocks");
        }
        out
    }
}

fn need<T: Copy>(hw: &Hardware, v: Option<T>, field: &str, example: &str) -> Result<T> {
    v.ok_or_else(|| {
        hw.missing(
            &format!("execution.{field}"),
            "occupancy",
            Some(example).filter(|e| !e.is_empty()),
        )
    })
}

fn round_up(x: u64, unit: u64) -> u64 {
    x.div_ceil(unit) * unit
}

/// The execution numbers occupancy reads, all present.
struct Budget {
    warp_size: u64,
    max_warps: u64,
    max_threads_per_block: u64,
    max_blocks: u64,
    regs_per_sm: u64,
    max_regs_per_thread: u64,
    max_regs_per_block: u64,
    reg_unit: u64,
    partitions: u64,
    warp_granularity: u64,
    smem_per_sm: u64,
    smem_default: u64,
    smem_optin: u64,
    reserved: u64,
    smem_unit: u64,
    carveouts: Vec<u64>,
}

fn budget(hw: &Hardware, ex: &Execution) -> Result<Budget> {
    let n = |v: Option<std::num::NonZeroU32>| v.map(|x| u64::from(x.get()));
    let b = |v: Option<crate::spec::Bytes>| v.map(|x| x.get() as u64);
    let warp_size = u64::from(ex.warp_size.get());
    let max_warps = match (n(ex.max_warps_per_sm), n(ex.max_threads_per_sm)) {
        (Some(w), _) => w,
        (None, Some(t)) => t / warp_size,
        (None, None) => need(hw, None::<u64>, "max-warps-per-sm", "64")?,
    };
    let smem_per_sm = need(hw, b(ex.smem_per_sm), "smem-per-sm", "228 KiB")?;
    let smem_optin = b(ex.smem_per_block_optin)
        .or(b(ex.smem_per_block))
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
        smem_default: b(ex.smem_per_block).unwrap_or(smem_optin),
        smem_optin,
        reserved: ex.reserved_smem_per_block.map_or(0, |x| x.get() as u64),
        smem_unit: b(ex.smem_allocation_unit).unwrap_or(1).max(1),
        carveouts: {
            let mut c: Vec<u64> = ex.smem_carveouts.iter().map(|x| x.get() as u64).collect();
            c.sort_unstable();
            c
        },
    })
}

impl Budget {
    /// The smallest carveout at least `size`, as NVIDIA's calculator rounds
    /// a shared-memory request up to one the SM can be configured with.
    fn align_carveout(&self, size: u64) -> Option<u64> {
        if self.carveouts.is_empty() {
            return (size <= self.smem_per_sm).then_some(self.smem_per_sm);
        }
        self.carveouts.iter().copied().find(|&c| c >= size)
    }
}

/// Resident blocks per SM under each limit, by NVIDIA's rules or the
/// seeds' (`k.textbook`). Inputs that cannot launch come back with
/// `failure` set and zero blocks, as the calculator answers them.
pub fn limits(hw: &Hardware, k: &Kernel) -> Result<Limits> {
    let ex = hw.execution()?;
    // The allocation rules below are NVIDIA's (its occupancy calculator);
    // AMD does not publish the equivalent for its CUs.
    if hw.vendor != "nvidia" {
        return Err(Error::Unsupported(format!(
            "{} is not an NVIDIA part (vendor `{}`): occupancy here follows NVIDIA's allocation rules, and its vendor publishes no equivalent to model it with",
            hw.id, hw.vendor
        )));
    }
    let b = budget(hw, ex)?;
    // CUDA caps statically declared shared memory at the default per-block
    // figure (48 KiB); only dynamic shared memory can opt in beyond it.
    if k.static_smem > b.smem_default {
        return Err(Error::input(
            "--static-smem",
            format!(
                "{} of static shared memory exceeds the {} a block may declare statically; more must be dynamic (--smem) with an opt-in",
                crate::units::iec_bytes(k.static_smem as f64),
                crate::units::iec_bytes(b.smem_default as f64)
            ),
        ));
    }
    let warps_per_block = k.threads.div_ceil(b.warp_size);
    let total_smem = k
        .smem
        .checked_add(k.static_smem)
        .ok_or_else(|| Error::input("--smem", "dynamic plus static shared memory overflows"))?;
    let mut out = Limits {
        by_registers: 0,
        by_smem: None,
        by_threads: 0,
        by_blocks: b.max_blocks,
        warps_per_block,
        max_warps: b.max_warps,
        regs_per_warp: 0,
        smem_per_block: 0,
        smem_per_sm: b.smem_per_sm,
        failure: None,
    };
    let fail = |out: &mut Limits, flag: &'static str, message: String, out_of_range: bool| {
        out.failure = Some(LaunchFailure {
            flag,
            message,
            out_of_range,
        });
    };
    if k.threads == 0 {
        fail(&mut out, "--threads", "must be at least 1".into(), true);
        return Ok(out);
    }
    if k.threads > b.max_threads_per_block {
        fail(
            &mut out,
            "--threads",
            format!(
                "{} threads per block exceeds {}'s limit of {}",
                number(k.threads as f64),
                hw.id,
                number(b.max_threads_per_block as f64)
            ),
            true,
        );
        return Ok(out);
    }
    if k.regs == 0 || k.regs > b.max_regs_per_thread {
        fail(
            &mut out,
            "--regs",
            format!(
                "{} registers per thread: {} allows 1 to {}",
                k.regs, hw.id, b.max_regs_per_thread
            ),
            true,
        );
        return Ok(out);
    }
    if total_smem > b.smem_optin {
        fail(
            &mut out,
            "--smem",
            format!(
                "{} of shared memory per block exceeds {}'s per-block opt-in limit of {}",
                units::iec_bytes(total_smem as f64),
                hw.id,
                units::iec_bytes(b.smem_optin as f64)
            ),
            true,
        );
        return Ok(out);
    }
    out.by_threads = b.max_warps / warps_per_block;
    if k.textbook {
        // 002 §7.5 / exercise 1 and 004: whole register file over the
        // block's registers, whole shared memory over the block's bytes.
        let regs_per_block = k.threads * k.regs;
        out.regs_per_warp = b.warp_size * k.regs;
        out.by_registers = b.regs_per_sm / regs_per_block;
        out.smem_per_block = total_smem;
        // A carveout asked for is the shared memory there is, as given.
        let smem = k.carveout.unwrap_or(b.smem_per_sm);
        out.smem_per_sm = smem;
        out.by_smem = (total_smem > 0).then(|| smem / total_smem);
        return Ok(out);
    }

    // Registers: per warp, rounded to the allocation unit; the per-block
    // check rounds warps up to the allocation granularity; residency is
    // counted per scheduler partition.
    let regs_per_warp = round_up(k.regs * b.warp_size, b.reg_unit);
    out.regs_per_warp = regs_per_warp;
    let regs_per_block_check = regs_per_warp * round_up(warps_per_block, b.warp_granularity);
    if regs_per_block_check > b.max_regs_per_block || regs_per_block_check > b.regs_per_sm {
        out.by_registers = 0;
        fail(
            &mut out,
            "--regs",
            format!(
                "{} registers per thread x {} threads allocates {} registers per block; {} allows {}",
                k.regs,
                k.threads,
                number(regs_per_block_check as f64),
                hw.id,
                number(b.max_regs_per_block.min(b.regs_per_sm) as f64)
            ),
            false,
        );
    } else {
        let per_partition = b.regs_per_sm / b.partitions;
        let warps = (per_partition / regs_per_warp) * b.partitions;
        out.by_registers = warps / warps_per_block;
    }

    // Shared memory: static + reserved + dynamic, rounded to the unit.
    let allocated = round_up(total_smem + b.reserved, b.smem_unit);
    out.smem_per_block = allocated;
    let preference = match k.carveout {
        None => b.smem_per_sm,
        Some(c) => b.align_carveout(c).ok_or_else(|| {
            Error::input(
                "--carveout",
                format!(
                    "{} is more than {}'s largest carveout ({})",
                    units::iec_bytes(c as f64),
                    hw.id,
                    units::iec_bytes(b.smem_per_sm as f64)
                ),
            )
        })?,
    };
    // A block that needs more than the preferred carveout gets the smallest
    // carveout that holds it (Volta and later).
    let smem_sm = if preference >= allocated {
        preference
    } else {
        b.align_carveout(allocated).unwrap_or(b.smem_per_sm)
    };
    out.smem_per_sm = smem_sm;
    out.by_smem = (allocated > 0).then(|| smem_sm / allocated);
    Ok(out)
}

fn flag_value(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::from)
}

/// `occupancy`: the report for one kernel on one GPU.
pub fn occupancy(hw: &Hardware, k: &Kernel) -> Result<Report> {
    let l = limits(hw, k)?;
    if let Some(f) = &l.failure
        && f.out_of_range
    {
        return Err(Error::input(f.flag, &f.message));
    }
    let ex = hw.execution()?;
    let mut r = Report::new("occupancy");
    r.hardware = Some(hw.id.clone());
    r.input("threads", k.threads);
    r.input("regs", k.regs);
    r.input("smem", k.smem);
    r.describe(
        "smem",
        Quantity::new("dynamic shared memory per block", Unit::BytesIec),
    );
    if k.static_smem > 0 {
        r.input("static_smem", k.static_smem);
        r.describe(
            "static_smem",
            Quantity::new("static shared memory per block", Unit::BytesIec),
        );
    }
    if let Some(c) = k.carveout {
        r.input("carveout", c);
        r.describe(
            "carveout",
            Quantity::new("carveout asked for", Unit::BytesIec),
        );
    }
    if k.textbook {
        r.input("textbook", true);
    }
    if let Some(g) = k.grid {
        r.input("grid", g);
    }
    let b = budget(hw, ex)?;
    let src = |f: &str| hw.source(f).map(String::from);

    r.result(
        "warps_per_block",
        l.warps_per_block,
        Quantity::new("warps per block", Unit::Count)
            .formula("ceil(threads / warp size)")
            .derive(format!("ceil({} / {})", k.threads, b.warp_size)),
    );

    let regs_q = if k.textbook {
        Quantity::new("blocks by registers", Unit::Count)
            .formula("floor(registers per SM / (threads x registers per thread))")
            .derive(format!(
                "floor({} / ({} x {}))",
                b.regs_per_sm, k.threads, k.regs
            ))
    } else if l.failure.is_some() {
        Quantity::new("blocks by registers", Unit::Count)
            .formula("0: the block's registers exceed the per-block limit")
    } else {
        Quantity::new("blocks by registers", Unit::Count)
            .formula("floor(floor(regs per SM / partitions / regs per warp) x partitions / warps per block), regs per warp = ceil(regs x warp size / unit) x unit")
            .derive(format!(
                "regs per warp = ceil({} x {} / {u}) x {u} = {rpw}; floor(floor({} / {p} / {rpw}) x {p} / {})",
                k.regs,
                b.warp_size,
                b.regs_per_sm,
                l.warps_per_block,
                u = b.reg_unit,
                rpw = l.regs_per_warp,
                p = b.partitions,
            ))
            .source(src("execution.register-allocation-unit").as_deref())
    };
    r.result("blocks_by_registers", l.by_registers, regs_q);

    let smem_q = match (k.textbook, l.by_smem) {
        (_, None) => Quantity::new("blocks by shared memory", Unit::Count)
            .formula("no limit: the block allocates no shared memory"),
        (true, Some(_)) => Quantity::new("blocks by shared memory", Unit::Count)
            .formula("floor(shared memory per SM / shared memory per block)")
            .derive(format!(
                "floor({} / {})",
                units::iec_bytes(b.smem_per_sm as f64),
                units::iec_bytes(l.smem_per_block as f64)
            )),
        (false, Some(_)) => Quantity::new("blocks by shared memory", Unit::Count)
            .formula("floor(carveout / ceil((static + dynamic + reserved) / unit) x unit)")
            .derive(format!(
                "floor({} / ceil(({} + {} + {}) / {u}) x {u}) = floor({} / {})",
                number(l.smem_per_sm as f64),
                number(k.static_smem as f64),
                number(k.smem as f64),
                number(b.reserved as f64),
                number(l.smem_per_sm as f64),
                number(l.smem_per_block as f64),
                u = b.smem_unit,
            ))
            .source(src("execution.reserved-smem-per-block").as_deref()),
    };
    r.result("blocks_by_smem", flag_value(l.by_smem), smem_q);
    r.result(
        "blocks_by_threads",
        l.by_threads,
        Quantity::new("blocks by threads (warps)", Unit::Count)
            .formula("floor(max warps per SM / warps per block)")
            .derive(format!("floor({} / {})", b.max_warps, l.warps_per_block))
            .source(src("execution.max-warps-per-sm").as_deref()),
    );
    r.result(
        "blocks_by_blocks",
        l.by_blocks,
        Quantity::new("blocks by block slots", Unit::Count)
            .formula("max blocks per SM")
            .source(src("execution.max-blocks-per-sm").as_deref()),
    );
    let blocks = l.blocks_per_sm();
    let limiters = l.limiters();
    r.result(
        "blocks_per_sm",
        blocks,
        Quantity::new("resident blocks per SM", Unit::Count)
            .formula("min(by registers, by shared memory, by threads, by blocks)")
            .derive(format!(
                "min({}, {}, {}, {})",
                l.by_registers,
                l.by_smem.map_or("-".into(), |v| v.to_string()),
                l.by_threads,
                l.by_blocks
            )),
    );
    let warps = blocks * l.warps_per_block;
    r.result(
        "warps_per_sm",
        warps,
        Quantity::new("resident warps per SM", Unit::Count)
            .formula("blocks per SM x warps per block")
            .derive(format!("{blocks} x {}", l.warps_per_block)),
    );
    r.result(
        "threads_per_sm",
        blocks * k.threads,
        Quantity::new("resident threads per SM", Unit::Count)
            .formula("blocks per SM x threads per block")
            .derive(format!("{blocks} x {}", k.threads)),
    );
    let occ = warps as f64 / b.max_warps as f64;
    r.result(
        "occupancy",
        occ,
        Quantity::new("occupancy", Unit::Fraction)
            .formula("warps per SM / max warps per SM")
            .derive(format!("{warps} / {}", b.max_warps)),
    );
    r.result(
        "limiter",
        limiters.first().copied().unwrap_or("none"),
        Quantity::new("limiter", Unit::None).formula("the smallest limit"),
    );
    if !k.textbook {
        r.result(
            "smem_per_block_bytes",
            l.smem_per_block,
            Quantity::new("shared memory allocated per block", Unit::BytesIec)
                .formula("ceil((static + dynamic + reserved) / unit) x unit"),
        );
        r.result(
            "smem_carveout_bytes",
            l.smem_per_sm,
            Quantity::new("shared-memory carveout", Unit::BytesIec).formula(
                "the requested carveout rounded up to one the SM supports (default: the largest), or the smallest that holds one block",
            ),
        );
    }

    if let Some(g) = k.grid {
        grid_results(&mut r, hw, ex, &l, g)?;
    }

    if let Some(f) = &l.failure {
        r.note(format!("cannot launch: {}", f.message));
    } else {
        let names: Vec<&str> = limiters
            .iter()
            .map(|s| match *s {
                "smem" => "shared memory",
                "threads" => "the warp budget",
                "blocks" => "the block-slot limit",
                other => other,
            })
            .collect();
        r.note(format!(
            "{} bound: {blocks} blocks x {} warps = {warps} of {} warps ({})",
            names.join(" and "),
            l.warps_per_block,
            b.max_warps,
            units::sig(occ * 100.0, 4) + "%"
        ));
    }
    if k.textbook {
        r.note("textbook arithmetic (002 §7.5, 004): no allocation granularity, no reserved shared memory; NVIDIA's calculator (the default) can give fewer blocks");
    } else {
        r.note("NVIDIA occupancy-calculator rules: per-warp register allocation unit, per-partition residency, shared-memory allocation unit and per-block reservation");
        if k.smem + k.static_smem > b.smem_default {
            r.note(format!(
                "more than {} of shared memory per block needs the opt-in (cudaFuncSetAttribute MaxDynamicSharedMemorySize)",
                units::iec_bytes(b.smem_default as f64)
            ));
        }
    }
    r.note("occupancy is the supply of warps to hide latency, not utilisation; see littles-law for the demand");
    Ok(r)
}

fn grid_results(
    r: &mut Report,
    hw: &Hardware,
    ex: &Execution,
    l: &Limits,
    grid: u64,
) -> Result<()> {
    if grid == 0 {
        return Err(Error::input("--grid", "must be at least 1 block"));
    }
    let sms = u64::from(ex.sms.get());
    let blocks = l.blocks_per_sm();
    let busy = grid.min(sms);
    r.result(
        "sms_busy",
        busy,
        Quantity::new("SMs with work", Unit::Count)
            .formula("min(grid, SMs)")
            .derive(format!("min({grid}, {sms})"))
            .source(hw.source("execution.sms")),
    );
    r.result(
        "sm_fraction",
        busy as f64 / sms as f64,
        Quantity::new("fraction of SMs busy", Unit::Fraction)
            .formula("SMs with work / SMs")
            .derive(format!("{busy} / {sms}")),
    );
    let per_sm = grid.div_ceil(sms).min(blocks);
    let warps = per_sm * l.warps_per_block;
    r.result(
        "busy_sm_occupancy",
        warps as f64 / l.max_warps as f64,
        Quantity::new("occupancy of a busy SM (first wave)", Unit::Fraction)
            .formula("min(blocks per SM, ceil(grid / SMs)) x warps per block / max warps")
            .derive(format!(
                "min({blocks}, ceil({grid} / {sms})) x {} / {}",
                l.warps_per_block, l.max_warps
            )),
    );
    if blocks > 0 {
        let slots = blocks * sms;
        r.result(
            "waves",
            grid as f64 / slots as f64,
            Quantity::new("waves", Unit::Count)
                .formula("grid / (blocks per SM x SMs)")
                .derive(format!("{grid} / ({blocks} x {sms})")),
        );
    }
    if grid < sms {
        r.note(format!(
            "the grid of {grid} blocks leaves {} of {sms} SMs idle",
            sms - grid
        ));
    }
    Ok(())
}

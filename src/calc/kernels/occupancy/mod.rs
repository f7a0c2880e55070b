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
//!
//! The rooms: this file holds the inputs and the limiter types; `budget`
//! the SM's budgets read from the hardware file, `cost` the arithmetic,
//! `report` the report made from the cost, `solve` the inverse questions
//! (the most of a resource for a target occupancy).

use crate::inputs::{Bytes, Count};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

mod budget;
mod cost;
mod report;
mod solve;

pub use budget::{Budget, SgprBudget};
pub use cost::{GridCost, OccupancyCost, cost};
pub use solve::{Share, Solve, SolveCost, solve};

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
    /// The resource to solve for: the most registers, threads or shared
    /// memory that still reach the target occupancy ([`solve()`]).
    pub solve: Option<Solve>,
    /// The occupancy a solve aims at (default full); alone, the warps it
    /// takes.
    pub target_occupancy: Option<Share>,
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

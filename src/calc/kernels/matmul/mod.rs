//! `matmul`: what a GEMM's design does to its bytes. FLOPs, naive
//! (zero-reuse) and tiled HBM traffic, intensity, attainable throughput and
//! time on the roofline, the tile's feasibility against shared memory and
//! the register file, waves and the tail, register micro-tiles, and
//! tensor-core row utilisation for small M (formulas.md, "Matmul traffic",
//! "Tile feasibility", "Waves", "Tensor-core row utilisation"; 002 §7.7,
//! §7.8, §7.11, exercise 4; 004 "Tensor cores").
//!
//! The headline `time_s` counts the L2 as well ([`traffic`]; formulas.md,
//! "Matmul through the L2"): programs resident together share A and B
//! panels, so HBM traffic follows a wave's or an L2-resident group's
//! footprint, and the time is a lower bound checked against cuBLAS on an
//! H200 (tests/matmul_validation.rs). The single-tile time stays as
//! `tile_time_s`.
//!
//! [`cost`] computes every figure into a [`MatmulCost`];
//! [`MatmulCost::report`] lays it out. One function, `tile_cost`, decides
//! a tile's traffic, roofline and feasibility, for the headline tile and
//! for every row of the tile table alike.

use crate::calc::roof::{self, Bound, Roof, RoofTime};
use crate::error::{Error, Result};
use crate::inputs::{Count, at_least_one, mul, parse_count};
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, iec_bytes, number, seconds, si};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

mod achievable;
pub mod efficiency;
mod mma;
mod report;
pub mod ridge;
mod tiles;
mod traffic;

pub use achievable::Shaped;
use achievable::shaped;
pub use mma::*;
pub use tiles::*;
pub use traffic::*;

/// Bytes of one fp32 accumulator element: bf16 inputs, fp32 accumulation.
pub const ACCUMULATOR_BYTES: f64 = 4.0;

/// The square tiles of the lecture's table (002 §7.8).
pub const TABLE_TILES: [u64; 4] = [32, 64, 128, 256];

/// The default square tile.
pub const DEFAULT_TILE: u64 = 128;

/// The default K chunk, used where it divides K (else halved until it
/// does).
pub const DEFAULT_TILE_K: u64 = 64;

/// `matmul`'s inputs. M, N and K are required; the rest default in
/// [`cost`]: tile 128 (for both `tile-m` and `tile-n`), `tile-k` 64 halved
/// until it divides K, 2 stages, 1 program per SM, 256 threads, the table
/// tiles 32, 64, 128, 256, the hardware's precision, no MMA shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MatmulInputs {
    /// Rows of A and C (tokens in a linear layer).
    pub m: Count,
    /// Columns of B and C.
    pub n: Count,
    /// The contraction dimension.
    pub k: Count,
    /// Square tile: the default of `tile-m` and `tile-n` (128).
    #[serde(default)]
    pub tile: Option<Count>,
    /// Tile rows (BLOCK_M), before clamping to M.
    #[serde(default)]
    pub tile_m: Option<Count>,
    /// Tile columns (BLOCK_N), before clamping to N.
    #[serde(default)]
    pub tile_n: Option<Count>,
    /// K chunk per loop step (BLOCK_K); must divide K once clamped to it.
    #[serde(default)]
    pub tile_k: Option<Count>,
    /// Shared-memory pipeline stages (2 = double buffering).
    #[serde(default)]
    pub stages: Option<Count>,
    /// Programs resident per SM, for waves (1).
    #[serde(default)]
    pub programs_per_sm: Option<Count>,
    /// Threads per program, for the register micro-tile (256).
    #[serde(default)]
    pub threads: Option<Count>,
    /// Tensor-core instruction shape, for row utilisation.
    #[serde(default)]
    pub mma: Option<String>,
    /// Square tiles for the table rows (32, 64, 128, 256; empty: no table).
    #[serde(default)]
    pub tiles: Option<Tiles>,
    /// Precision (default: the hardware's).
    #[serde(default)]
    pub dtype: Option<String>,
    /// With `--achievable`: how the kernel is launched, `none`, `graph` or
    /// `eager` (the default: one call from Python).
    #[serde(default)]
    pub launch: Option<String>,
}

impl MatmulInputs {
    /// An M×N×K GEMM with every other input at its default.
    pub fn new(m: u64, n: u64, k: u64) -> Self {
        MatmulInputs {
            m: Count(m),
            n: Count(n),
            k: Count(k),
            tile: None,
            tile_m: None,
            tile_n: None,
            tile_k: None,
            stages: None,
            programs_per_sm: None,
            threads: None,
            mma: None,
            tiles: None,
            dtype: None,
            launch: None,
        }
    }

    /// The same GEMM with a square tile.
    pub fn with_tile(mut self, tile: u64) -> Self {
        self.tile = Some(Count(tile));
        self
    }
}

/// Register file bytes per SM: registers × 4 B, or the `registers` level.
fn register_file(hw: &Hardware) -> Option<f64> {
    if let Some(r) = hw.execution.as_ref().and_then(|e| e.registers_per_sm) {
        return Some(f64::from(r.get()) * 4.0);
    }
    hw.memory
        .levels
        .iter()
        .find(|l| l.name == "registers" || l.name == "vgprs")
        .map(|l| l.capacity.get())
}

/// Shared memory per SM: the execution table's figure, else a per-SM
/// `lds` level (AMD's local data share, its shared memory).
fn smem_per_sm(hw: &Hardware) -> Option<f64> {
    if let Some(s) = hw.execution.as_ref().and_then(|e| e.smem_per_sm) {
        return Some(s.get());
    }
    hw.memory
        .levels
        .iter()
        .find(|l| l.name == "lds")
        .map(|l| l.capacity.get())
}

/// What a tile is checked against: the hardware's shared-memory and
/// register-file limits, where its file records them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limits {
    /// Shared memory per SM.
    pub smem_per_sm: Option<f64>,
    /// Default shared memory per block.
    pub smem_per_block: Option<f64>,
    /// The per-block limit a tile must fit: the opt-in maximum, else the
    /// SM's.
    pub smem_limit: Option<f64>,
    /// Shared memory the system reserves per block.
    pub reserved_smem: f64,
    /// Selectable shared-memory carveouts.
    pub carveouts: Vec<f64>,
    /// Register file bytes per SM.
    pub register_file: Option<f64>,
}

impl Limits {
    /// The limits `hw` records.
    pub fn of(hw: &Hardware) -> Self {
        let ex = hw.execution.as_ref();
        Limits {
            smem_per_sm: smem_per_sm(hw),
            smem_per_block: ex.and_then(|e| e.smem_per_block).map(|s| s.get()),
            smem_limit: ex
                .and_then(|e| e.smem_per_block_optin)
                .map(|s| s.get())
                .or_else(|| smem_per_sm(hw)),
            reserved_smem: ex
                .and_then(|e| e.reserved_smem_per_block)
                .map_or(0.0, |r| r.get()),
            carveouts: ex.map_or_else(Vec::new, |e| {
                e.smem_carveouts.iter().map(|c| c.get()).collect()
            }),
            register_file: register_file(hw),
        }
    }
}

/// One tile's figures: traffic, place on the roofline, feasibility.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TileCost {
    /// The tile as asked for (rows, columns), before clamping.
    pub requested: (u64, u64),
    /// Tile rows, clamped to M.
    pub tile_m: u64,
    /// Tile columns, clamped to N.
    pub tile_n: u64,
    /// Operand reads from HBM, bytes.
    pub tiled_bytes: f64,
    /// FLOPs / tiled bytes.
    pub intensity: f64,
    /// min(effective peak, intensity × bandwidth): the tensor-core row
    /// cap applies when an MMA shape is given.
    pub attainable: f64,
    /// max(FLOPs / effective peak, tiled bytes / bandwidth).
    pub time: RoofTime,
    /// naive bytes / tiled bytes.
    pub tiled_vs_naive: f64,
    /// Shared memory per program.
    pub smem_bytes: f64,
    /// fp32 accumulator bytes.
    pub accumulator_bytes: f64,
    /// Shared memory within the per-block limit, where one is recorded.
    pub smem_fits: Option<bool>,
    /// Accumulator below the register file, where one is recorded.
    pub registers_fit: Option<bool>,
    /// Both fit; `None` when the hardware records neither limit.
    pub fits: Option<bool>,
}

/// The shape a tile is evaluated at, shared by the headline and the table.
#[derive(Debug, Clone, Copy)]
struct Shape {
    m: u64,
    n: u64,
    k: u64,
    tile_k: u64,
    stages: u64,
    b: f64,
    flops: f64,
    naive_bytes: f64,
}

/// A tile's figures on `roof` (the effective roof, capped by tensor-core
/// row utilisation when an MMA shape is given) against `limits`.
fn tile_cost(s: &Shape, roof: &Roof, limits: &Limits, tm: u64, tn: u64) -> TileCost {
    let (bm, bn) = (tm.min(s.m), tn.min(s.n));
    let tb = tiled_bytes(s.m, s.n, s.k, bm, bn, s.b);
    let intensity = s.flops / tb;
    let smem = smem_bytes(bm, bn, s.tile_k, s.b, s.stages);
    let acc = accumulator_bytes(bm, bn);
    let smem_fits = limits.smem_limit.map(|l| smem <= l);
    let registers_fit = limits.register_file.map(|rf| acc < rf);
    let fits = match (smem_fits, registers_fit) {
        (None, None) => None,
        (a, g) => Some(a.unwrap_or(true) && g.unwrap_or(true)),
    };
    TileCost {
        requested: (tm, tn),
        tile_m: bm,
        tile_n: bn,
        tiled_bytes: tb,
        intensity,
        attainable: roof.attainable(intensity),
        time: roof.time(s.flops, tb),
        tiled_vs_naive: s.naive_bytes / tb,
        smem_bytes: smem,
        accumulator_bytes: acc,
        smem_fits,
        registers_fit,
        fits,
    }
}

/// The tensor-core figures of an MMA shape at this GEMM.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MmaCost {
    /// The instruction shape.
    pub shape: MmaShape,
    /// Outputs per instruction, MMA_M·MMA_N (when N is fixed).
    pub outputs: Option<u64>,
    /// Padded rows: ceil(M/MMA_M)·MMA_M − M.
    pub padded_rows: u128,
    /// M / (ceil(M/MMA_M)·MMA_M).
    pub row_utilisation: f64,
    /// row utilisation × peak.
    pub effective_peak: f64,
    /// The N the accumulator count uses: the shape's, else min(BN, 256).
    pub accumulator_n: u64,
    /// fp32 accumulator registers per instruction, MMA_M·N.
    pub accumulator_registers: u64,
    /// Threads sharing the accumulator (128 for a warp group, 32 a warp).
    pub threads: u64,
    /// Accumulator registers per thread.
    pub accumulator_registers_per_thread: f64,
    /// Set when the hardware file lists matrix-unit shapes and not this
    /// one: the list.
    pub unlisted_among: Option<Vec<String>>,
}

/// The tile whose intensity reaches the ridge, and what it would need.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RidgeTile {
    /// BLOCK = b·ridge.
    pub edge: f64,
    /// The edge rounded to a whole tile (at least 1).
    pub rounded: u64,
    /// Its accumulator, bytes.
    pub accumulator_bytes: f64,
    /// Its accumulator over the register file.
    pub accumulator_vs_registers: Option<f64>,
    /// Its shared memory at this tile-k and stages.
    pub smem_bytes: f64,
}

/// The grid of programs over the SMs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WaveCost {
    /// SMs on the device.
    pub sms: u64,
    /// The waves.
    pub waves: Waves,
    /// Peak per SM.
    pub peak_per_sm: f64,
}

/// Every figure `matmul` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatmulCost {
    /// The hardware's id.
    pub hardware: String,
    /// The precision.
    pub dtype: &'static str,
    /// Datasheet or measured figures.
    pub mode: Mode,
    /// The roof at that precision (the datasheet or measured peak).
    pub roof: Roof,
    /// Bytes per operand element.
    pub bytes_per_element: f64,
    /// Rows of A and C.
    pub m: u64,
    /// Columns of B and C.
    pub n: u64,
    /// The contraction dimension.
    pub k: u64,
    /// The K chunk.
    pub tile_k: u64,
    /// Whether tile-k was defaulted.
    pub tile_k_defaulted: bool,
    /// Pipeline stages.
    pub stages: u64,
    /// Threads per program.
    pub threads: u64,
    /// Whether the hardware runs threads at all (it records SMs and
    /// warps); a TPU or Trainium does not, so threads, accumulators per
    /// thread and micro-tiles are left out of its report.
    pub has_threads: bool,
    /// The most threads a block may have, where the file records it.
    pub max_threads_per_block: Option<u64>,
    /// The most blocks and threads an SM holds at once, where recorded.
    pub max_blocks_per_sm: Option<u64>,
    /// The most threads an SM holds at once.
    pub max_threads_per_sm: Option<u64>,
    /// Resident programs per SM.
    pub programs_per_sm: u64,
    /// 2·M·N·K.
    pub flops: f64,
    /// FLOPs / peak: the compute floor.
    pub compute_time_s: f64,
    /// 2·b·M·N·K.
    pub naive_bytes: f64,
    /// FLOPs / naive bytes = 1/b.
    pub naive_intensity: f64,
    /// The naive kernel on the roof.
    pub naive_time: RoofTime,
    /// b·M·N.
    pub output_bytes: f64,
    /// b·(MK + KN + MN).
    pub minimal_bytes: f64,
    /// FLOPs / minimal bytes.
    pub minimal_intensity: f64,
    /// The tensor-core figures, with an MMA shape.
    pub mma: Option<MmaCost>,
    /// The roof the tiles run on: the peak capped by row utilisation.
    pub effective_roof: Roof,
    /// The headline tile.
    pub tile: TileCost,
    /// What the tile is checked against.
    pub limits: Limits,
    /// The smallest carveout that holds the tile's shared memory plus the
    /// reserve.
    pub smem_carveout: Option<f64>,
    /// The ridge tile.
    pub ridge_tile: RidgeTile,
    /// The headline tile's register micro-tile.
    pub micro_tile: MicroTile,
    /// Waves, where the hardware records its SMs.
    pub waves: Option<WaveCost>,
    /// The fp32 vector peak, for the tensor-to-vector ratio (non-fp32
    /// precisions only).
    pub fp32_peak: Option<f64>,
    /// The tile table, one entry per square tile asked for.
    pub table: Vec<(u64, TileCost)>,
    /// Whether the tiles were asked for (`--tiles`), not the default set.
    pub tiles_given: bool,
    /// HBM traffic with the L2 level counted.
    pub traffic: Traffic,
    /// FLOPs / traffic bytes.
    pub traffic_intensity: f64,
    /// max(FLOPs / effective peak, traffic / bandwidth): the lower bound.
    pub time: RoofTime,
    /// Under measured (achievable) figures, the output write a cooperative
    /// kernel's epilogue does not overlap with its MMAs: output / bandwidth.
    pub epilogue_time_s: Option<f64>,
    /// The headline time: the lower bound at datasheet peaks; with measured
    /// figures, max(compute + epilogue, memory).
    pub time_s: f64,
    /// What bounds the headline time.
    pub bound: Bound,
    /// The per-shape model's figures (`--achievable`).
    pub shaped: Option<Shaped>,
    /// B's bytes, b·K·N: the weights of a linear layer.
    pub weight_bytes: f64,
    /// Memory-bound with the weights at least half the traffic.
    pub weight_streaming: bool,
    /// Board power and energy over the headline time at the traffic
    /// (formulas.md, "Power and energy").
    pub energy: crate::calc::power::Energy,
    /// At datasheet figures, the bound with a warm L2 (formulas.md, "The
    /// speed of light with a warm L2"): each operand once, b·(MK + KN +
    /// MN), with at most the L2's capacity of it on chip when the call
    /// starts. `None` with measured figures or where the file lacks the
    /// L2's bandwidth.
    pub warm: Option<crate::calc::warm::Warm>,
}

/// A count input with its default, at least 1.
fn count(field: &str, v: Option<Count>, default: u64) -> Result<u64> {
    at_least_one(field, v.map_or(default, |c| c.0))
}

/// `matmul`'s cost on `hw`: every figure, every integer product checked.
pub fn cost(hw: &Hardware, inputs: &MatmulInputs, mode: Mode) -> Result<MatmulCost> {
    cost_with(hw, inputs, mode, true)
}

/// [`cost`] less the tile table (`table` empty): a sweep's lean point,
/// whose report keeps no table, need not price a tile per row of it.
pub fn cost_lean(hw: &Hardware, inputs: &MatmulInputs, mode: Mode) -> Result<MatmulCost> {
    cost_with(hw, inputs, mode, false)
}

fn cost_with(
    hw: &Hardware,
    inputs: &MatmulInputs,
    mode: Mode,
    with_table: bool,
) -> Result<MatmulCost> {
    let m = at_least_one("m", inputs.m.0)?;
    let n = at_least_one("n", inputs.n.0)?;
    let k = at_least_one("k", inputs.k.0)?;
    let tile = count("tile", inputs.tile, DEFAULT_TILE)?;
    let tile_m = count("tile-m", inputs.tile_m, tile)?;
    let tile_n = count("tile-n", inputs.tile_n, tile)?;
    let stages = count("stages", inputs.stages, 2)?;
    let programs_per_sm = count("programs-per-sm", inputs.programs_per_sm, 1)?;
    let threads = count("threads", inputs.threads, 256)?;
    let table_tiles: &[u64] = inputs.tiles.as_ref().map_or(&TABLE_TILES, |t| &t.0);
    if table_tiles.contains(&0) {
        return Err(Error::field("tiles", "a tile of 0; tiles are at least 1"));
    }
    let tile_k = resolve_tile_k(k, inputs.tile_k.map(|c| c.0))?;
    let shape = inputs.mma.as_deref().map(MmaShape::parse).transpose()?;
    let prec = hw.precision(inputs.dtype.as_deref())?;
    let b = prec.bytes();
    let roof = Roof::of(hw, prec, mode)?;
    let f = flops(m, n, k);
    let nb = naive_bytes(m, n, k, b);
    let limits = Limits::of(hw);

    let mma = match shape {
        None => None,
        Some(s) => {
            let (util, padded) = row_utilisation(m, s.m);
            let too_big = |_| {
                Error::field(
                    "mma",
                    format!(
                        "`{}`: MMA_M x MMA_N is too large for a 64-bit count",
                        s.name()
                    ),
                )
            };
            let outputs =
                s.n.map(|sn| mul("mma", &[s.m, sn]).map_err(too_big))
                    .transpose()?;
            let acc_n = s.n.unwrap_or(tile_n.min(n).min(256));
            let acc_regs = mul("mma", &[s.m, acc_n]).map_err(too_big)?;
            let listed = hw.matrix_unit.as_ref().map(|mu| {
                let ok = mu.shapes.iter().any(|x| x.eq_ignore_ascii_case(&s.name()))
                    || (s.m == 64 && mu.shapes.iter().any(|x| x == "m64nNk16"));
                (ok, mu.shapes.clone())
            });
            Some(MmaCost {
                shape: s,
                outputs,
                padded_rows: padded,
                row_utilisation: util,
                effective_peak: util * roof.peak,
                accumulator_n: acc_n,
                accumulator_registers: acc_regs,
                threads: s.threads(),
                accumulator_registers_per_thread: acc_regs as f64 / s.threads() as f64,
                unlisted_among: listed.and_then(|(ok, l)| (!ok).then_some(l)),
            })
        }
    };
    let effective_roof = Roof {
        peak: mma.as_ref().map_or(roof.peak, |c| c.effective_peak),
        ..roof
    };
    let sh = Shape {
        m,
        n,
        k,
        tile_k,
        stages,
        b,
        flops: f,
        naive_bytes: nb,
    };
    let t = tile_cost(&sh, &effective_roof, &limits, tile_m, tile_n);
    let smem_carveout = limits
        .carveouts
        .iter()
        .copied()
        .filter(|c| *c >= t.smem_bytes + limits.reserved_smem)
        .reduce(f64::min);
    let rt = ridge_tile(roof.ridge(), b);
    let rti = rt.round().max(1.0) as u64;
    let racc = accumulator_bytes(rti, rti);
    let ridge = RidgeTile {
        edge: rt,
        rounded: rti,
        accumulator_bytes: racc,
        accumulator_vs_registers: limits.register_file.map(|rf| racc / rf),
        smem_bytes: smem_bytes(rti, rti, tile_k, b, stages),
    };
    let waves = hw.execution.as_ref().map(|e| {
        let sms = u64::from(e.sms.get());
        let programs = u128::from(m.div_ceil(t.tile_m)) * u128::from(n.div_ceil(t.tile_n));
        WaveCost {
            sms,
            waves: waves(programs, u128::from(sms), u128::from(programs_per_sm)),
            peak_per_sm: roof.peak / sms as f64,
        }
    });
    let fp32_peak = if prec.compute == "fp32" {
        None
    } else {
        hw.compute
            .dense
            .get("fp32")
            .map(|v| v * hw.peak_multiplier())
    };
    let table = if with_table {
        table_tiles
            .iter()
            .map(|&tt| (tt, tile_cost(&sh, &effective_roof, &limits, tt, tt)))
            .collect()
    } else {
        Vec::new()
    };
    // The L2 level (formulas.md, "Matmul through the L2").
    let l2 = hw
        .memory
        .levels
        .iter()
        .find(|l| l.name == "l2")
        .map(|l| l.capacity.get());
    let resident = waves.as_ref().map(|w| w.waves.slots);
    let tr = traffic(
        (m, n, k),
        (t.tile_m, t.tile_n, tile_k, stages),
        b,
        resident,
        l2,
    );
    let time = effective_roof.time(f, tr.bytes);
    let output_bytes = b * m as f64 * n as f64;
    let epilogue_time_s = (mode == Mode::Achievable).then(|| output_bytes / roof.bandwidth);
    let shaped = match mode {
        Mode::SpeedOfLight => None,
        Mode::Achievable => Some(shaped(hw, &roof, (m, n, k), b, tr.bytes, inputs)?),
    };
    let (time_s, bound) = match (&shaped, epilogue_time_s) {
        (Some(sh), _) => (sh.time_s, sh.bound),
        (None, Some(e)) if time.compute_s + e >= time.memory_s => {
            (time.compute_s + e, Bound::Compute)
        }
        (None, Some(_)) => (time.memory_s, Bound::Memory),
        (None, None) => (time.time_s, time.bound),
    };
    let weight_bytes = b * k as f64 * n as f64;
    let minimal = minimal_bytes(m, n, k, b);
    let warm = match mode {
        Mode::SpeedOfLight => crate::calc::warm::L2::of(hw)
            .map(|l2| crate::calc::warm::warm(&effective_roof, l2, f, minimal, minimal, 1.0)),
        Mode::Achievable => None,
    };
    let energy = crate::calc::power::Energy::new(
        crate::calc::power::PowerModel::of(hw, prec.compute).map(|pm| pm.draw(time_s, f, tr.bytes)),
        time_s,
        mode,
        1.0,
        0.0,
        crate::calc::power::Per::Work,
    );
    Ok(MatmulCost {
        hardware: hw.id.clone(),
        dtype: prec.name,
        mode,
        roof,
        bytes_per_element: b,
        m,
        n,
        k,
        tile_k,
        tile_k_defaulted: inputs.tile_k.is_none(),
        stages,
        threads,
        has_threads: hw.execution.is_some(),
        max_threads_per_block: hw
            .execution
            .as_ref()
            .and_then(|e| e.max_threads_per_block)
            .map(|t| u64::from(t.get())),
        max_blocks_per_sm: hw
            .execution
            .as_ref()
            .and_then(|e| e.max_blocks_per_sm)
            .map(|t| u64::from(t.get())),
        max_threads_per_sm: hw
            .execution
            .as_ref()
            .and_then(|e| e.max_threads_per_sm)
            .map(|t| u64::from(t.get())),
        programs_per_sm,
        flops: f,
        compute_time_s: f / roof.peak,
        naive_bytes: nb,
        naive_intensity: f / nb,
        naive_time: roof.time(f, nb),
        output_bytes,
        minimal_bytes: minimal,
        minimal_intensity: f / minimal,
        mma,
        effective_roof,
        tile: t,
        limits,
        smem_carveout,
        ridge_tile: ridge,
        micro_tile: micro_tile(t.tile_m, t.tile_n, threads),
        waves,
        fp32_peak,
        table,
        tiles_given: inputs.tiles.is_some(),
        traffic_intensity: f / tr.bytes,
        traffic: tr,
        time,
        epilogue_time_s,
        time_s,
        bound,
        shaped,
        weight_bytes,
        weight_streaming: bound == Bound::Memory && weight_bytes >= 0.5 * tr.bytes,
        energy,
        warm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mma_shapes_parse() {
        assert_eq!(
            MmaShape::parse("m16n8k16").unwrap(),
            MmaShape {
                m: 16,
                n: Some(8),
                k: 16
            }
        );
        assert_eq!(MmaShape::parse("wgmma").unwrap().name(), "m64nNk16");
        assert_eq!(MmaShape::parse("m64nNk16").unwrap().n, None);
        assert!(MmaShape::parse("16x8x16").is_err());
        assert!(MmaShape::parse("m0n8k16").is_err());
    }

    #[test]
    fn tile_k_defaults_and_divides() {
        assert_eq!(resolve_tile_k(4096, None).unwrap(), 64);
        assert_eq!(resolve_tile_k(4092, None).unwrap(), 4);
        assert_eq!(resolve_tile_k(16, None).unwrap(), 16);
        assert_eq!(resolve_tile_k(4096, Some(8192)).unwrap(), 4096);
        let e = resolve_tile_k(4096, Some(48)).unwrap_err().to_string();
        assert!(e.contains("does not divide") && e.contains("try 32"), "{e}");
        let e = resolve_tile_k(4096, Some(0)).unwrap_err();
        assert!(matches!(&e, Error::Field { field, .. } if field == "tile-k"));
    }

    #[test]
    fn tile_k_suggestions_divide_k() {
        // A prime K: only 1 (and K) divide it.
        assert_eq!(suggest_tile_k(1_000_000_007, 1_000_000_006), 1);
        // 4096 / 48: gcd 16, the power of two 32 divides 4096 and is <= 48.
        assert_eq!(suggest_tile_k(4096, 48), 32);
        // 360 / 100: gcd 20 beats the power of two 8.
        assert_eq!(suggest_tile_k(360, 100), 20);
        assert_eq!(suggest_tile_k(1, 5), 1);
        for (k, t) in [(u64::MAX, 1000), (1 << 63, u64::MAX - 1), (12_288, 100)] {
            let d = suggest_tile_k(k, t);
            assert!(k.is_multiple_of(d) && d <= t, "{k} {t}: {d}");
        }
    }

    #[test]
    fn waves_divide_evenly() {
        let w = waves(264, 132, 1);
        assert_eq!((w.full_waves, w.tail_programs, w.idle_slots), (2, 0, 0));
        assert_eq!(w.efficiency, 1.0);
    }

    #[test]
    fn waves_of_the_largest_grid_stay_at_most_one() {
        let p = u128::from(u64::MAX) * u128::from(u64::MAX);
        let w = waves(p, 132, u128::from(u64::MAX));
        assert!(w.efficiency > 0.0 && w.efficiency <= 1.0);
    }

    #[test]
    fn row_utilisation_of_the_largest_m() {
        let (u, padded) = row_utilisation(u64::MAX, 64);
        assert_eq!(padded, 1);
        assert!(u > 0.999 && u <= 1.0);
    }
}

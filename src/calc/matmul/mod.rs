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

use super::roof::{self, Bound, Roof, RoofTime};
use crate::error::{Error, Result};
use crate::inputs::{Count, at_least_one, mul, parse_count};
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, iec_bytes, number, seconds, si};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

pub mod efficiency;

/// Bytes of one fp32 accumulator element: bf16 inputs, fp32 accumulation.
pub const ACCUMULATOR_BYTES: f64 = 4.0;

/// The square tiles of the lecture's table (002 §7.8).
pub const TABLE_TILES: [u64; 4] = [32, 64, 128, 256];

/// The default square tile.
pub const DEFAULT_TILE: u64 = 128;

/// The default K chunk, used where it divides K (else halved until it
/// does).
pub const DEFAULT_TILE_K: u64 = 64;

/// FLOPs of C = A·B with A M×K and B K×N: 2·M·N·K ("Matmul traffic").
pub fn flops(m: u64, n: u64, k: u64) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64
}

/// Zero-reuse HBM reads: every multiply-add fetches one A and one B
/// element, 2·b·M·N·K bytes ("Matmul traffic", naive).
pub fn naive_bytes(m: u64, n: u64, k: u64, b: f64) -> f64 {
    2.0 * b * m as f64 * n as f64 * k as f64
}

/// Tiled operand reads: A is re-read once per column of tiles, B once per
/// row, b·M·N·K·(1/min(BM,M) + 1/min(BN,N)) ("Matmul traffic", tiled and
/// clamping). A tile that overhangs the matrix is masked, so its reuse is
/// capped at the matrix edge.
pub fn tiled_bytes(m: u64, n: u64, k: u64, bm: u64, bn: u64, b: f64) -> f64 {
    let bm = bm.min(m) as f64;
    let bn = bn.min(n) as f64;
    b * m as f64 * n as f64 * k as f64 * (1.0 / bm + 1.0 / bn)
}

/// Each operand read once and the output written once: b·(MK + KN + MN)
/// ("Matmul traffic", minimal traffic).
pub fn minimal_bytes(m: u64, n: u64, k: u64, b: f64) -> f64 {
    let (m, n, k) = (m as f64, n as f64, k as f64);
    b * (m * k + k * n + m * n)
}

/// Shared memory per program: one A tile and one B tile per stage,
/// (BM·BK + BK·BN)·b·stages ("Tile feasibility").
pub fn smem_bytes(bm: u64, bn: u64, bk: u64, b: f64, stages: u64) -> f64 {
    (bm as f64 * bk as f64 + bk as f64 * bn as f64) * b * stages as f64
}

/// The fp32 accumulator tile held in registers: BM·BN·4 bytes ("Tile
/// feasibility").
pub fn accumulator_bytes(bm: u64, bn: u64) -> f64 {
    bm as f64 * bn as f64 * ACCUMULATOR_BYTES
}

/// The square tile edge whose intensity (BLOCK/b) reaches the ridge:
/// BLOCK = b·ridge ("Tile feasibility").
pub fn ridge_tile(ridge: f64, b: f64) -> f64 {
    b * ridge
}

/// The output footprint of `area` elements (the tiles of the programs that
/// run together), as near square as M and N allow: sqrt(area) on a side,
/// or the whole of a short side and area / that side on the other
/// ("Matmul through the L2", wave footprint). Each side is at least 1.
pub fn area_footprint(m: u64, n: u64, area: f64) -> (f64, f64) {
    let (mf, nf) = (m as f64, n as f64);
    let w = area.sqrt();
    let (fm, fn_) = if mf <= w && mf <= nf {
        (mf, (area / mf).min(nf))
    } else if nf <= w {
        ((area / nf).min(mf), nf)
    } else {
        (w.min(mf), w.min(nf))
    };
    (fm.max(1.0), fn_.max(1.0))
}

/// The largest output footprint whose panel rows and columns add up to at
/// most `sum` (A rows + B columns held at once): sum/2 on a side, or the
/// whole of a short side and the rest on the other ("Matmul through the
/// L2", group footprint). Each side is at least 1.
pub fn panel_footprint(m: u64, n: u64, sum: f64) -> (f64, f64) {
    let (mf, nf) = (m as f64, n as f64);
    let half = sum / 2.0;
    let (fm, fn_) = if half <= mf && half <= nf {
        (half, half)
    } else if mf <= nf {
        (mf, (sum - mf).min(nf))
    } else {
        ((sum - nf).min(mf), nf)
    };
    (fm.max(1.0), fn_.max(1.0))
}

/// Operand reads from HBM when every F_m × F_n output footprint reads its
/// A row panel and B column panel once: b·M·N·K·(1/F_m + 1/F_n) ("Matmul
/// through the L2"; the tiled formula with the footprint for the tile).
pub fn footprint_bytes(m: u64, n: u64, k: u64, footprint: (f64, f64), b: f64) -> f64 {
    b * m as f64 * n as f64 * k as f64 * (1.0 / footprint.0 + 1.0 / footprint.1)
}

/// Which level of reuse sets a GEMM's HBM traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrafficLevel {
    /// Programs resident together share panels through the L2.
    L2,
    /// Reuse inside one tile's shared memory only (the lecture's figure).
    SmemTile,
    /// Each operand read once: the footprint covers the whole output.
    Compulsory,
}

impl TrafficLevel {
    /// The level's name in reports: `l2`, `smem-tile`, `compulsory`.
    pub fn as_str(self) -> &'static str {
        match self {
            TrafficLevel::L2 => "l2",
            TrafficLevel::SmemTile => "smem-tile",
            TrafficLevel::Compulsory => "compulsory",
        }
    }
}

/// Where a reuse footprint comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FootprintSource {
    /// The tiles of one wave of resident programs.
    Wave,
    /// The largest footprint whose whole-K panels fit in L2, reused across
    /// waves (a rasterization group).
    Group,
    /// One tile (no L2 or SM count recorded, or nothing better).
    Tile,
}

/// The HBM traffic of a GEMM with the L2 level counted ("Matmul through
/// the L2").
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Traffic {
    /// L2 capacity, where the hardware records it.
    pub l2_bytes: Option<f64>,
    /// Programs resident at once: SMs × programs per SM.
    pub resident_programs: Option<u128>,
    /// One wave's output footprint (rows, columns), before the slab check.
    pub wave_footprint: Option<(f64, f64)>,
    /// Bytes one wave keeps in flight in L2: b·(F_m + F_n)·BK·stages.
    pub wave_slab_bytes: Option<f64>,
    /// Whether that slab fits in L2.
    pub wave_slab_fits: Option<bool>,
    /// The largest footprint whose whole-K panels fit in L2.
    pub group_footprint: Option<(f64, f64)>,
    /// The footprint the traffic uses.
    pub footprint: (f64, f64),
    /// Where that footprint comes from.
    pub source: FootprintSource,
    /// Operand reads: footprint bytes, at most the single-tile figure and
    /// at least each operand once.
    pub operand_bytes: f64,
    /// Operand reads plus the output write.
    pub bytes: f64,
    /// The level that sets the traffic.
    pub level: TrafficLevel,
}

/// The traffic of an M×N×K GEMM tiled BM×BN (clamped) whose programs run
/// `resident` at a time over an L2 of `l2` bytes ("Matmul through the L2").
/// Without an L2 capacity or a resident count, the single-tile figure.
pub fn traffic(
    (m, n, k): (u64, u64, u64),
    (bm, bn, bk, stages): (u64, u64, u64, u64),
    b: f64,
    resident: Option<u128>,
    l2: Option<f64>,
) -> Traffic {
    let (bm, bn) = (bm.min(m), bn.min(n));
    let tile = tiled_bytes(m, n, k, bm, bn, b);
    let output = b * m as f64 * n as f64;
    let compulsory = b * (m as f64 * k as f64 + k as f64 * n as f64);
    let single = Traffic {
        l2_bytes: l2,
        resident_programs: resident,
        wave_footprint: None,
        wave_slab_bytes: None,
        wave_slab_fits: None,
        group_footprint: None,
        footprint: (bm as f64, bn as f64),
        source: FootprintSource::Tile,
        operand_bytes: tile,
        bytes: tile + output,
        level: TrafficLevel::SmemTile,
    };
    let (Some(p), Some(l2)) = (resident, l2) else {
        return single;
    };
    // One wave: its programs start together and run at one rate, so they
    // walk K together and read each A row panel and B column panel of the
    // wave's footprint once, if the slab they hold in flight fits in L2.
    let area = p as f64 * bm as f64 * bn as f64;
    let wave = area_footprint(m, n, area);
    let slab = b * (wave.0 + wave.1) * bk as f64 * stages as f64;
    let slab_fits = slab <= l2;
    let wave_used = if slab_fits {
        wave
    } else {
        // Only as wide a footprint as the L2 holds a slab of.
        panel_footprint(m, n, l2 / (b * bk as f64 * stages as f64))
    };
    let wave_bytes = footprint_bytes(m, n, k, wave_used, b);
    // A group whose whole-K panels stay in L2 is reused across waves.
    let group = panel_footprint(m, n, l2 / (b * k as f64));
    let group_bytes = footprint_bytes(m, n, k, group, b);
    let (mut footprint, mut source, mut bytes) = if group_bytes < wave_bytes {
        (group, FootprintSource::Group, group_bytes)
    } else {
        (wave_used, FootprintSource::Wave, wave_bytes)
    };
    if bytes >= tile {
        (footprint, source, bytes) = ((bm as f64, bn as f64), FootprintSource::Tile, tile);
    }
    let operand = bytes.max(compulsory);
    let level = if operand <= compulsory * (1.0 + 1e-12) {
        TrafficLevel::Compulsory
    } else if source == FootprintSource::Tile {
        TrafficLevel::SmemTile
    } else {
        TrafficLevel::L2
    };
    Traffic {
        wave_footprint: Some(wave),
        wave_slab_bytes: Some(slab),
        wave_slab_fits: Some(slab_fits),
        group_footprint: Some(group),
        footprint,
        source,
        operand_bytes: operand,
        bytes: operand + output,
        level,
        ..single
    }
}

/// How a grid of programs falls into waves over the SMs ("Waves").
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Waves {
    /// Programs in the grid.
    pub programs: u128,
    /// Programs resident at once: SMs × programs per SM.
    pub slots: u128,
    /// programs / slots, fractional.
    pub waves: f64,
    /// Whole waves.
    pub full_waves: u128,
    /// Programs in the last, partial wave (0 when it divides evenly).
    pub tail_programs: u128,
    /// Slots idle during the partial wave.
    pub idle_slots: u128,
    /// programs / (ceil(waves) · slots).
    pub efficiency: f64,
}

/// Waves of `programs` over `sms` SMs holding `per_sm` programs each
/// ("Waves"). Counts are u128 so no grid of 64-bit dimensions overflows;
/// `sms` and `per_sm` must be at least 1.
pub fn waves(programs: u128, sms: u128, per_sm: u128) -> Waves {
    let slots = sms.saturating_mul(per_sm).max(1);
    let full = programs / slots;
    let tail = programs % slots;
    let launched = if tail == 0 { full } else { full + 1 };
    let efficiency = if launched == 0 {
        0.0
    } else {
        match launched.checked_mul(slots) {
            // programs <= launched·slots exactly, so the rounded ratio is
            // at most 1.
            Some(total) => programs as f64 / total as f64,
            None => (programs as f64 / (launched as f64 * slots as f64)).min(1.0),
        }
    };
    Waves {
        programs,
        slots,
        waves: programs as f64 / slots as f64,
        full_waves: full,
        tail_programs: tail,
        idle_slots: if tail == 0 { 0 } else { slots - tail },
        efficiency,
    }
}

/// Utilisation of the SMs over a fractional number of waves: the last wave
/// is launched whole, so waves / ceil(waves) ("Waves").
pub fn wave_efficiency(waves: f64) -> f64 {
    waves / waves.ceil()
}

/// A register micro-tile: each thread owns TM × TN accumulators ("Matmul
/// traffic", register micro-tile).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MicroTile {
    /// Accumulators per thread: BM·BN / threads.
    pub accumulators_per_thread: f64,
    /// Square micro-tile edge, TM = TN = sqrt(accumulators per thread).
    pub edge: f64,
    /// Shared-memory elements read per k step: TM + TN.
    pub smem_reads: f64,
    /// FLOPs per k step: 2·TM·TN.
    pub flops: f64,
    /// FLOPs per shared-memory element: 2·TM·TN / (TM + TN).
    pub flops_per_smem_element: f64,
}

/// The square micro-tile of a BM × BN tile over `threads` threads.
pub fn micro_tile(bm: u64, bn: u64, threads: u64) -> MicroTile {
    let acc = bm as f64 * bn as f64 / threads as f64;
    let edge = acc.sqrt();
    MicroTile {
        accumulators_per_thread: acc,
        edge,
        smem_reads: 2.0 * edge,
        flops: 2.0 * edge * edge,
        flops_per_smem_element: 2.0 * edge * edge / (2.0 * edge),
    }
}

/// A tensor-core instruction shape, `mMnNkK` (N may be the letter `N` for
/// wgmma's variable width).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MmaShape {
    /// Rows of A (tokens in a linear layer).
    pub m: u64,
    /// Columns of B, if fixed.
    pub n: Option<u64>,
    /// The contraction depth.
    pub k: u64,
}

impl MmaShape {
    /// Parses `m16n8k16`, `m64nNk16`, `m64n256k16`, or the aliases `mma`
    /// (m16n8k16) and `wgmma` (m64nNk16). An error names the field `mma`.
    pub fn parse(text: &str) -> Result<Self> {
        let t = text.trim().to_ascii_lowercase();
        let t = match t.as_str() {
            "mma" => "m16n8k16".to_string(),
            "wgmma" | "hgmma" => "m64nnk16".to_string(),
            _ => t,
        };
        let bad = || {
            Error::field(
                "mma",
                format!(
                    "`{text}` is not an MMA shape; expected mMnNkK such as m16n8k16, m64nNk16 or m64n256k16 (or mma, wgmma)"
                ),
            )
        };
        let rest = t.strip_prefix('m').ok_or_else(bad)?;
        let (m, rest) = rest.split_once('n').ok_or_else(bad)?;
        let (n, k) = rest.split_once('k').ok_or_else(bad)?;
        let m: u64 = m.parse().map_err(|_| bad())?;
        let k: u64 = k.parse().map_err(|_| bad())?;
        let n = if n == "n" || n.is_empty() {
            None
        } else {
            Some(n.parse::<u64>().map_err(|_| bad())?)
        };
        if m == 0 || k == 0 || n == Some(0) {
            return Err(bad());
        }
        Ok(MmaShape { m, n, k })
    }

    /// The shape as written, `m64nNk16` when N is variable.
    pub fn name(&self) -> String {
        match self.n {
            Some(n) => format!("m{}n{}k{}", self.m, n, self.k),
            None => format!("m{}nNk{}", self.m, self.k),
        }
    }

    /// Threads that share the instruction's accumulator: a warp group of
    /// 128 for Hopper's M = 64 wgmma, one warp of 32 otherwise.
    pub fn threads(&self) -> u64 {
        if self.m >= 64 { 128 } else { 32 }
    }
}

/// Row utilisation of an MMA whose M is `mma_m` when the GEMM has `m` rows:
/// m / (ceil(m/mma_m)·mma_m), and the padded rows ("Tensor-core row
/// utilisation"). Counted in u128, so no 64-bit M overflows.
pub fn row_utilisation(m: u64, mma_m: u64) -> (f64, u128) {
    let (m, mm) = (u128::from(m), u128::from(mma_m.max(1)));
    let padded_total = m.div_ceil(mm) * mm;
    (m as f64 / padded_total as f64, padded_total - m)
}

/// Square tiles for the table rows: a list, or none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Tiles(pub Vec<u64>);

impl<'de> Deserialize<'de> for Tiles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        fn one<E: de::Error>(t: &str) -> std::result::Result<u64, E> {
            parse_count(t).map_err(|_| {
                E::custom(format!(
                    "`{t}` is not a tile size; expected e.g. 32,64,128,256 or none"
                ))
            })
        }
        impl<'de> Visitor<'de> for V {
            type Value = Tiles;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("square tiles, e.g. 32,64,128,256, or none")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Tiles, E> {
                Ok(Tiles(vec![v]))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Tiles, E> {
                one(&v.to_string()).map(|t| Tiles(vec![t]))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Tiles, E> {
                one(&v.to_string()).map(|t| Tiles(vec![t]))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Tiles, E> {
                if v.trim() == "none" {
                    return Ok(Tiles(Vec::new()));
                }
                v.split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(one)
                    .collect::<std::result::Result<Vec<u64>, E>>()
                    .map(Tiles)
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> std::result::Result<Tiles, A::Error> {
                let mut out = Vec::new();
                while let Some(Count(t)) = s.next_element::<Count>()? {
                    out.push(t);
                }
                Ok(Tiles(out))
            }
        }
        d.deserialize_any(V)
    }
}

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

/// The largest divisor of `k` that is at most `t` (1 divides everything).
/// Found from `k`'s prime factors, so a 64-bit K answers at once.
pub fn largest_divisor_at_most(k: u64, t: u64) -> u64 {
    let mut primes = Vec::new();
    factor(k, &mut primes);
    primes.sort_unstable();
    let mut divisors = vec![1u64];
    let mut i = 0;
    while i < primes.len() {
        let p = primes[i];
        let mut e = 0;
        while i < primes.len() && primes[i] == p {
            e += 1;
            i += 1;
        }
        let base = divisors.len();
        let mut pk = 1u64;
        for _ in 0..e {
            pk *= p; // a divisor of k: no overflow
            for j in 0..base {
                divisors.push(divisors[j] * pk);
            }
        }
    }
    divisors.into_iter().filter(|d| *d <= t).max().unwrap_or(1)
}

fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(m)) as u64
}

fn pow_mod(mut a: u64, mut e: u64, m: u64) -> u64 {
    let mut r = 1 % m;
    a %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, a, m);
        }
        a = mul_mod(a, a, m);
        e >>= 1;
    }
    r
}

/// Miller-Rabin with the bases that decide every 64-bit number.
fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    for p in BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for a in BASES {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A non-trivial factor of an odd composite `n` (Pollard's rho).
fn rho(n: u64) -> u64 {
    let mut c = 1u64;
    loop {
        let f = |x: u64| ((u128::from(mul_mod(x, x, n)) + u128::from(c)) % u128::from(n)) as u64;
        let (mut x, mut y, mut d) = (2u64, 2u64, 1u64);
        while d == 1 {
            x = f(x);
            y = f(f(y));
            d = gcd(x.abs_diff(y), n);
        }
        if d != n {
            return d;
        }
        c += 1;
    }
}

/// Pushes the prime factors of `n` (with multiplicity).
fn factor(mut n: u64, out: &mut Vec<u64>) {
    for p in 2..64u64 {
        while n > 1 && n.is_multiple_of(p) {
            out.push(p);
            n /= p;
        }
    }
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x == 1 {
            continue;
        }
        if is_prime(x) {
            out.push(x);
        } else {
            let d = rho(x);
            stack.push(d);
            stack.push(x / d);
        }
    }
}

/// The tile-k to use: an explicit one must divide K (after clamping to K);
/// the default is 64, halved until it divides K ("Tile feasibility").
pub fn resolve_tile_k(k: u64, tile_k: Option<u64>) -> Result<u64> {
    match tile_k {
        Some(t) => {
            let t = at_least_one("tile-k", t)?.min(k);
            if k.is_multiple_of(t) {
                return Ok(t);
            }
            let d = largest_divisor_at_most(k, t);
            Err(Error::field(
                "tile-k",
                format!(
                    "{} does not divide K = {}: the K loop runs K / tile-k whole steps; try {}",
                    units::whole(t),
                    units::whole(k),
                    units::whole(d)
                ),
            ))
        }
        None => {
            let mut t = DEFAULT_TILE_K.min(k);
            while t > 1 && !k.is_multiple_of(t) {
                t /= 2;
            }
            Ok(t.max(1))
        }
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
}

/// A GEMM priced by its shape under measured figures (formulas.md,
/// "Achievable: GEMM efficiency by shape"): the library's tile and K split,
/// the compute and memory terms, the kernel's fixed overhead and its launch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shaped {
    /// The shape's time before per-kernel costs.
    pub gemm: efficiency::GemmTime,
    /// Launch mode: `none`, `graph` or `eager`.
    pub launch: &'static str,
    /// Kernels: the GEMM and, for a split 16-bit GEMM bound by its
    /// weights, the reduction.
    pub kernels: f64,
    /// Kernel overhead and launch (eager: the host's path where longer).
    pub overhead_s: f64,
    /// Where the per-kernel figures come from.
    pub overhead_source: String,
    /// The time.
    pub time_s: f64,
    /// Compute when the compute term exceeds the reads.
    pub bound: Bound,
}

/// Prices one GEMM by its shape; `traffic` is the L2-aware HBM traffic,
/// the output included.
fn shaped(
    hw: &Hardware,
    roof: &Roof,
    (m, n, k): (u64, u64, u64),
    b: f64,
    traffic: f64,
    inputs: &MatmulInputs,
) -> Result<Shaped> {
    let a = hw.achievable.as_ref();
    let launch = match inputs.launch.as_deref().map(str::trim) {
        None => "eager",
        Some(l) if l.eq_ignore_ascii_case("none") => "none",
        Some(l) if l.eq_ignore_ascii_case("graph") => "graph",
        Some(l) if l.eq_ignore_ascii_case("eager") => "eager",
        Some(l) => {
            return Err(Error::field(
                "launch",
                format!("`{l}`: expected none, graph or eager"),
            ));
        }
    };
    let model = efficiency::GemmModel::of(hw);
    // The output is written once in the epilogue; the rest is read.
    let output = 2.0_f64.max(b) * m as f64 * n as f64;
    let read =
        (traffic - b * m as f64 * n as f64).max(b * (m as f64 * k as f64 + k as f64 * n as f64));
    let g = model.time((m, n, k), 1.0, roof.peak, roof.bandwidth, read, output);
    let kernels = if crate::calc::step::price::reduces(&g, b) {
        2.0
    } else {
        1.0
    };
    let overhead = a.and_then(|a| a.kernel_overhead).map_or(0.0, |s| s.get());
    let fields = |f: &str| -> Result<f64> {
        let v = match f {
            "achievable.launch.graph" => a.and_then(|a| a.launch.as_ref()).and_then(|l| l.graph),
            _ => a.and_then(|a| a.call.as_ref()).and_then(|c| c.matmul_eager),
        };
        v.map(|s| s.get()).ok_or_else(|| {
            hw.missing(
                f,
                if f.ends_with("graph") {
                    "the CUDA-graph launch cost of one kernel (matmul --achievable --launch graph)"
                } else {
                    "the host path of one matmul called eagerly (matmul --achievable, whose default is --launch eager; --launch none or graph does without)"
                },
                Some(if f.ends_with("graph") { "1 us" } else { "20 us" }),
            )
        })
    };
    let gpu = g.time_s + kernels * overhead;
    let (time_s, field) = match launch {
        "none" => (gpu, None),
        "graph" => {
            let l = fields("achievable.launch.graph")?;
            (gpu + kernels * l, Some("achievable.launch.graph"))
        }
        _ => {
            let h = fields("achievable.call.matmul-eager")?;
            (gpu.max(kernels * h), Some("achievable.call.matmul-eager"))
        }
    };
    let src = |f: &str| {
        hw.source(f)
            .map_or_else(|| f.to_string(), |s| format!("{f}: {s}"))
    };
    let mut overhead_source = src("achievable.kernel-overhead");
    if let Some(f) = field {
        overhead_source = format!("{overhead_source}; {}", src(f));
    }
    Ok(Shaped {
        overhead_s: time_s - g.time_s,
        bound: if g.compute_s > g.read_s {
            Bound::Compute
        } else {
            Bound::Memory
        },
        gemm: g,
        launch,
        kernels,
        overhead_source,
        time_s,
    })
}

/// A count input with its default, at least 1.
fn count(field: &str, v: Option<Count>, default: u64) -> Result<u64> {
    at_least_one(field, v.map_or(default, |c| c.0))
}

/// `matmul`'s cost on `hw`: every figure, every integer product checked.
pub fn cost(hw: &Hardware, inputs: &MatmulInputs, mode: Mode) -> Result<MatmulCost> {
    let m = at_least_one("m", inputs.m.0)?;
    let n = at_least_one("n", inputs.n.0)?;
    let k = at_least_one("k", inputs.k.0)?;
    let tile = count("tile", inputs.tile, DEFAULT_TILE)?;
    let tile_m = count("tile-m", inputs.tile_m, tile)?;
    let tile_n = count("tile-n", inputs.tile_n, tile)?;
    let stages = count("stages", inputs.stages, 2)?;
    let programs_per_sm = count("programs-per-sm", inputs.programs_per_sm, 1)?;
    let threads = count("threads", inputs.threads, 256)?;
    let table_tiles = inputs
        .tiles
        .as_ref()
        .map_or_else(|| TABLE_TILES.to_vec(), |t| t.0.clone());
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
    let table = table_tiles
        .iter()
        .map(|&tt| (tt, tile_cost(&sh, &effective_roof, &limits, tt, tt)))
        .collect();
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
        minimal_bytes: minimal_bytes(m, n, k, b),
        minimal_intensity: f / minimal_bytes(m, n, k, b),
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
    })
}

/// A count as a JSON integer where it fits, else a float.
fn int(v: u128) -> serde_json::Value {
    u64::try_from(v).map_or_else(|_| (v as f64).into(), Into::into)
}

/// `Some(true)`/`Some(false)` as JSON booleans, `None` as null.
fn opt_bool(v: Option<bool>) -> serde_json::Value {
    v.map_or(serde_json::Value::Null, Into::into)
}

impl MatmulCost {
    /// The most programs of this tile an SM holds at once and the limit
    /// that sets it (shared memory with its per-block reserve, the fp32
    /// accumulators against the register file, block slots, threads);
    /// `None` where the file records none of them.
    pub fn resident_limit(&self) -> Option<(u64, String)> {
        let t = &self.tile;
        let lim = &self.limits;
        let mut best: Option<(u64, String)> = None;
        let mut consider = |n: u64, why: String| {
            if best.as_ref().is_none_or(|(b, _)| n < *b) {
                best = Some((n, why));
            }
        };
        let per_block = t.smem_bytes + lim.reserved_smem;
        if let Some(s) = lim.smem_per_sm
            && per_block > 0.0
        {
            consider(
                (s / per_block).floor() as u64,
                format!(
                    "shared memory ({} a program of {} per SM)",
                    iec_bytes(per_block),
                    iec_bytes(s)
                ),
            );
        }
        if let Some(rf) = lim.register_file
            && t.accumulator_bytes > 0.0
        {
            // Strictly less than the file, as `registers_fit` asks: some
            // registers hold addresses and operands.
            consider(
                ((rf / t.accumulator_bytes).ceil() - 1.0).max(0.0) as u64,
                format!(
                    "registers ({} of fp32 accumulators a program of {} per SM)",
                    iec_bytes(t.accumulator_bytes),
                    iec_bytes(rf)
                ),
            );
        }
        if let Some(b) = self.max_blocks_per_sm {
            consider(b, "block slots".into());
        }
        if let (Some(ts), true) = (self.max_threads_per_sm, self.has_threads) {
            consider(
                ts / self.threads.max(1),
                format!(
                    "threads ({} a program of {} per SM)",
                    number(self.threads as f64),
                    number(ts as f64)
                ),
            );
        }
        best
    }

    /// The L2 level, the headline time and what bounds it
    /// (formulas.md, "Matmul through the L2").
    /// The per-shape figures and the headline time they give.
    fn report_shaped(&self, r: &mut Report, sh: &Shaped) {
        let e = sh.gemm.efficiency;
        let peak = self.roof.peak_text();
        r.input("launch", sh.launch);
        r.result("gemm_efficiency", e.efficiency, || {
            Quantity::new("share of the rate this shape reaches", Unit::Fraction)
                .formula("padding x waves, for the library's best tile and K split")
                .derive(format!(
                    "{} x {} (tile {}x{}, split K {})",
                    units::sig(e.padding, 4),
                    units::sig(e.waves, 4),
                    e.tile.0,
                    e.tile.1,
                    e.split_k
                ))
        });
        r.result("gemm_tile", format!("{}x{}", e.tile.0, e.tile.1), || {
            Quantity::new("library tile (rows x columns)", Unit::None)
        });
        r.result("split_k", e.split_k as f64, || {
            Quantity::new("K splits", Unit::Count)
                .formula("split only when the tiles leave SMs idle")
        });
        r.result("shaped_compute_time_s", sh.gemm.compute_s, || {
            Quantity::new("compute at the shape's efficiency", Unit::Seconds)
                .formula("FLOPs / (rate x efficiency)")
                .derive(format!(
                    "{} / ({} x {})",
                    self.roof.unit(Unit::Flop).format(self.flops),
                    peak,
                    units::sig(e.efficiency, 4)
                ))
        });
        r.result("launch_time_s", sh.overhead_s, || {
            Quantity::new(
                format!("kernel overhead and launch ({})", sh.launch),
                Unit::Seconds,
            )
            .source(Some(sh.overhead_source.as_str()))
            .formula(if sh.launch == "eager" {
                "the longer of the GPU's time and the host's path per call, less the GEMM's time"
            } else {
                "kernels x (kernel overhead + launch)"
            })
        });
        r.result("time_s", self.time_s, || {
            Quantity::new("time (achievable: by shape)", Unit::Seconds)
                .formula("max(compute, reads / bandwidth) + output / bandwidth + per-kernel costs")
                .derive(format!(
                    "max({}, {}) + {} + {}",
                    seconds(sh.gemm.compute_s),
                    seconds(sh.gemm.read_s),
                    seconds(sh.gemm.write_s),
                    seconds(sh.overhead_s)
                ))
        });
    }

    fn report_l2(&self, r: &mut Report) {
        let (m, n, k) = (self.m, self.n, self.k);
        let t = &self.tile;
        let (bm, bn, bk, stages) = (t.tile_m, t.tile_n, self.tile_k, self.stages);
        let b = self.bytes_per_element;
        let bs = || number(b);
        let bw = self.roof.bandwidth;
        let f = self.flops;
        let ops = |u: Unit| self.roof.unit(u);
        let tr = &self.traffic;
        let fp = |v: f64| units::sig(v, 4);
        if let Some(l2) = tr.l2_bytes {
            r.result("l2_capacity_bytes", l2, || {
                Quantity::new("L2 capacity", Unit::BytesIec).formula("the hardware file's l2 level")
            });
        }
        if let Some(p) = tr.resident_programs {
            r.result("resident_programs", int(p), || {
                Quantity::new("programs resident at once", Unit::Count)
                    .formula("SMs * programs per SM")
                    .derive(format!(
                        "{} * {}",
                        self.waves.as_ref().map_or(0, |w| w.sms),
                        self.programs_per_sm
                    ))
            });
        }
        if let (Some(w), Some(p)) = (tr.wave_footprint, tr.resident_programs) {
            let area = || format!("{p}*{bm}*{bn}");
            r.result("wave_footprint_m", w.0, || {
                Quantity::new("wave footprint rows", Unit::None)
                    .formula("sqrt(resident*BM*BN), at most M (all of M when M is the short side)")
                    .derive(format!("sqrt({}) against M = {m}", area()))
            });
            r.result("wave_footprint_n", w.1, || {
                Quantity::new("wave footprint columns", Unit::None)
                    .formula("resident*BM*BN / rows, at most N")
                    .derive(format!("{} / {} against N = {n}", area(), fp(w.0)))
            });
        }
        if let (Some(slab), Some(fits), Some(w), Some(l2)) = (
            tr.wave_slab_bytes,
            tr.wave_slab_fits,
            tr.wave_footprint,
            tr.l2_bytes,
        ) {
            r.result("wave_slab_bytes", slab, || {
                Quantity::new("L2 a wave holds in flight", Unit::BytesIec)
                    .formula("b*(wave rows + wave columns)*BK*stages")
                    .derive(format!(
                        "{}*({} + {})*{bk}*{stages}",
                        bs(),
                        fp(w.0),
                        fp(w.1)
                    ))
            });
            r.result("wave_slab_fits", fits, || {
                Quantity::new("the wave's slab fits in L2", Unit::None)
                    .formula("wave slab <= L2")
                    .derive(format!("{} <= {}", iec_bytes(slab), iec_bytes(l2)))
            });
            if !fits {
                r.note_with(|| {
                    format!(
                        "a wave's slab ({}) overflows the {} L2: the footprint shrinks to what it holds",
                        iec_bytes(slab),
                        iec_bytes(l2)
                    )
                });
            }
        }
        if let (Some(g), Some(l2)) = (tr.group_footprint, tr.l2_bytes) {
            let sum = || format!("{} / ({}*{k})", iec_bytes(l2), bs());
            r.result("group_footprint_m", g.0, || {
                Quantity::new("L2 group footprint rows", Unit::None)
                    .formula("rows + columns = L2 / (b*K): half each, all of a short side")
                    .derive(format!("{} against M = {m}", sum()))
            });
            r.result("group_footprint_n", g.1, || {
                Quantity::new("L2 group footprint columns", Unit::None)
                    .formula("L2 / (b*K) - rows, at most N")
                    .derive(format!("{} - {} against N = {n}", sum(), fp(g.0)))
            });
        }
        let (fm, fnn) = tr.footprint;
        let source = match tr.source {
            FootprintSource::Wave => "the wave's",
            FootprintSource::Group => "the L2 group's",
            FootprintSource::Tile => "one tile's",
        };
        r.result("reuse_footprint_m", fm, || {
            Quantity::new("reuse footprint rows", Unit::None)
                .formula("the wave's or the L2 group's, whichever reads less; at least one tile")
                .derive(format!("{source}: {}", fp(fm)))
        });
        r.result("reuse_footprint_n", fnn, || {
            Quantity::new("reuse footprint columns", Unit::None)
                .formula("the wave's or the L2 group's, whichever reads less; at least one tile")
                .derive(format!("{source}: {}", fp(fnn)))
        });
        r.result("l2_operand_bytes", tr.operand_bytes, || {
            Quantity::new("operand reads through L2", Unit::Bytes)
                .formula("b*M*N*K*(1/Fm + 1/Fn), at most tiled bytes, at least b*(M*K + K*N)")
                .derive(format!(
                    "{}*{m}*{n}*{k}*(1/{} + 1/{})",
                    bs(),
                    fp(fm),
                    fp(fnn)
                ))
        });
        r.result("traffic_bytes", tr.bytes, || {
            Quantity::new("HBM traffic (operands + output)", Unit::Bytes)
                .formula("operand reads through L2 + b*M*N")
                .derive(format!(
                    "{} + {}",
                    si(tr.operand_bytes, "B"),
                    si(self.output_bytes, "B")
                ))
        });
        r.result("traffic_level", tr.level.as_str(), || {
            Quantity::new("reuse level that sets the traffic", Unit::None)
                .formula("compulsory (each operand once), l2 (a footprint of resident programs) or smem-tile (one tile)")
        });
        let ti = self.traffic_intensity;
        r.result("traffic_intensity", ti, || {
            Quantity::new("intensity at that traffic", ops(Unit::FlopPerByte))
                .formula("FLOPs / traffic bytes")
                .derive(format!(
                    "{} / {}",
                    ops(Unit::Flop).format(f),
                    si(tr.bytes, "B")
                ))
        });
        let time = self.time;
        r.result("traffic_memory_time_s", time.memory_s, || {
            Quantity::new("memory time at that traffic", Unit::Seconds)
                .formula("traffic bytes / bandwidth")
                .derive(format!("{} / {}", si(tr.bytes, "B"), si(bw, "B/s")))
        });
        let peak_text = || self.effective_roof.peak_text();
        if let Some(e) = self.epilogue_time_s {
            r.result("epilogue_time_s", e, || {
                Quantity::new("output write not overlapped (epilogue)", Unit::Seconds)
                    .formula("b*M*N / bandwidth")
                    .derive(format!(
                        "{} / {}",
                        si(self.output_bytes, "B"),
                        si(bw, "B/s")
                    ))
            });
            match &self.shaped {
                Some(sh) => self.report_shaped(r, sh),
                None => r.result("time_s", self.time_s, || {
                    Quantity::new("time (measured figures)", Unit::Seconds)
                        .formula("max(FLOPs / peak + epilogue, traffic bytes / bandwidth)")
                        .derive(format!(
                            "max({} + {}, {})",
                            seconds(time.compute_s),
                            seconds(e),
                            seconds(time.memory_s)
                        ))
                }),
            }
        } else {
            r.result("time_s", self.time_s, || {
                Quantity::new("time (lower bound)", Unit::Seconds)
                    .formula("max(FLOPs / peak, traffic bytes / bandwidth)")
                    .derive(format!(
                        "max({} / {}, {} / {})",
                        ops(Unit::Flop).format(f),
                        peak_text(),
                        si(tr.bytes, "B"),
                        si(bw, "B/s")
                    ))
            });
        }
        r.result("bound", self.bound.as_str(), || {
            Quantity::new("bound", Unit::None)
        });
        let wb = self.weight_bytes;
        r.result("weight_bytes", wb, || {
            Quantity::new("B (the weights of a linear layer)", Unit::Bytes)
                .formula("b*K*N")
                .derive(format!("{}*{k}*{n}", bs()))
        });
        r.result("weight_fraction_of_traffic", wb / tr.bytes, || {
            Quantity::new("weights / traffic", Unit::Fraction)
                .formula("b*K*N / traffic bytes")
                .derive(format!("{} / {}", si(wb, "B"), si(tr.bytes, "B")))
        });
        r.result("weight_streaming", self.weight_streaming, || {
            Quantity::new("weight-streaming", Unit::None)
                .formula("memory-bound and weights >= half the traffic")
        });
        let ridge = self.effective_roof.ridge();
        r.note_with(|| {
            let level = match tr.level {
                TrafficLevel::Compulsory => format!(
                    "traffic level compulsory: the resident programs cover the whole {}x{} output, so each operand is read once",
                    units::whole(m),
                    units::whole(n)
                ),
                TrafficLevel::L2 => format!(
                    "traffic level l2: {source} {}x{} footprint reads each A row panel and B column panel once through L2, {} against {} for one {}x{} tile",
                    units::sig_grouped(fm, 4),
                    units::sig_grouped(fnn, 4),
                    si(tr.operand_bytes, "B"),
                    si(t.tiled_bytes, "B"),
                    units::whole(bm),
                    units::whole(bn)
                ),
                TrafficLevel::SmemTile if tr.l2_bytes.is_none() || tr.resident_programs.is_none() => format!(
                    "traffic level smem-tile: {} records no L2 capacity or SM count, so only one tile's reuse is counted",
                    self.hardware
                ),
                TrafficLevel::SmemTile => "traffic level smem-tile: no L2 footprint reads less than one tile".to_string(),
            };
            let bound = match self.bound {
                Bound::Compute => format!(
                    "compute-bound: intensity {} at that traffic is above the ridge ({})",
                    units::sig_grouped(ti, 4),
                    units::sig_grouped(ridge, 4)
                ),
                Bound::Memory => format!(
                    "memory-bound: intensity {} at that traffic is {}x below the ridge ({})",
                    units::sig_grouped(ti, 4),
                    units::sig_grouped(ridge / ti, 3),
                    units::sig_grouped(ridge, 4)
                ),
            };
            format!("{level}; {bound}")
        });
        if self.weight_streaming {
            r.note_with(|| {
                format!(
                    "weight-streaming: the {}x{} weights ({}) are {}% of the traffic; the time follows the weight bytes ({} at {})",
                    units::whole(k),
                    units::whole(n),
                    si(wb, "B"),
                    units::sig_grouped(100.0 * wb / tr.bytes, 3),
                    seconds(wb / bw),
                    si(bw, "B/s")
                )
            });
        }
        if self.epilogue_time_s.is_some() {
            r.note("measured figures: the time adds the output write, which a cooperative kernel's epilogue does not overlap with its MMAs; datasheet figures give the lower bound");
        }
    }

    /// The report of this cost; a lean one records values only (and no
    /// tile table).
    pub fn report(&self, lean: bool) -> Report {
        let (m, n, k) = (self.m, self.n, self.k);
        let t = &self.tile;
        let (bm, bn, bk) = (t.tile_m, t.tile_n, self.tile_k);
        let roof = &self.roof;
        let (peak, bw) = (roof.peak, roof.bandwidth);
        let stages = self.stages;
        let b = self.bytes_per_element;
        let f = self.flops;

        let mut r = Report::new_lean("matmul", lean);
        // int8 arithmetic is counted in operations, not FLOPs.
        let int_ops = roof.integer;
        let (op_u, rate_u) = if int_ops {
            ("OP", "OP/s")
        } else {
            ("FLOP", "FLOP/s")
        };
        r.hardware = Some(self.hardware.clone());
        r.input("m", m);
        r.input("n", n);
        r.input("k", k);
        r.input("tile_m", bm);
        r.input("tile_n", bn);
        r.input("tile_k", bk);
        r.input("stages", stages);
        r.input("dtype", self.dtype);
        if self.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        if let Some(n) = crate::precision::lookup(self.dtype)
            .ok()
            .and_then(|p| p.compute_note())
        {
            r.note(n);
        }
        let (req_m, req_n) = t.requested;
        if bm < req_m || bn < req_n {
            r.note_with(|| {
                format!(
                    "tile {}x{} clamped to the matrix: {}x{} (a masked tile reuses each element only as often as the matrix is wide)",
                    units::whole(req_m),
                    units::whole(req_n),
                    units::whole(bm),
                    units::whole(bn)
                )
            });
        }
        if self.tile_k_defaulted && bk != DEFAULT_TILE_K {
            r.note_with(|| {
                format!(
                    "tile-k {bk}: the largest power of two up to 64 that divides K = {}",
                    units::whole(k)
                )
            });
        }
        let dims = || format!("{m}*{n}*{k}");
        let bs = || number(b);

        // Step 1: FLOPs, fixed by the mathematics.
        r.result("flops", f, || {
            Quantity::new(
                if int_ops { "OPs" } else { "FLOPs" },
                Unit::Flop.ops_if(int_ops),
            )
            .formula("2*M*N*K")
            .derive(format!("2*{m}*{n}*{k}"))
        });
        let compute_time = self.compute_time_s;
        r.result("compute_time_s", compute_time, || {
            Quantity::new("compute floor", Unit::Seconds)
                .formula("FLOPs / peak")
                .derive(format!("{} / {}", si(f, op_u), si(peak, rate_u)))
        });
        let ridge = roof::ridge(&mut r, roof);

        // Naive: zero reuse.
        let nb = self.naive_bytes;
        let ni = self.naive_intensity;
        let nt = self.naive_time.time_s;
        r.result("naive_bytes", nb, || {
            Quantity::new("naive HBM bytes (zero reuse)", Unit::Bytes)
                .formula("2*b*M*N*K")
                .derive(format!("2*{}*{}", bs(), dims()))
        });
        r.result("naive_intensity", ni, || {
            Quantity::new("naive intensity", Unit::FlopPerByte.ops_if(int_ops))
                .formula("2*M*N*K / (2*b*M*N*K) = 1/b")
                .derive(format!("1/{}", bs()))
        });
        roof::attainable(
            &mut r,
            &roof::AttainableKeys {
                attainable: "naive_attainable_flops_per_s",
                attainable_label: "naive attainable",
                fraction: "naive_fraction_of_peak",
                fraction_label: "naive fraction of peak",
            },
            roof,
            ni,
        );
        r.result("naive_time_s", nt, || {
            Quantity::new("naive time", Unit::Seconds)
                .formula("max(FLOPs / peak, bytes / bandwidth)")
                .derive(format!(
                    "max({}, {} / {})",
                    seconds(compute_time),
                    si(nb, "B"),
                    si(bw, "B/s")
                ))
        });
        r.result("naive_vs_floor", nt / compute_time, || {
            Quantity::new("naive time / compute floor", Unit::Ratio)
                .formula("naive time / compute floor")
                .derive(format!("{} / {}", seconds(nt), seconds(compute_time)))
        });

        // Tiled: each operand element reused BLOCK times on chip.
        let tb = t.tiled_bytes;
        let ti = t.intensity;
        r.result("tiled_bytes", tb, || {
            Quantity::new("tiled HBM bytes (operand reads)", Unit::Bytes)
                .formula("b*M*N*K*(1/min(BM,M) + 1/min(BN,N))")
                .derive(format!("{}*{}*(1/{bm} + 1/{bn})", bs(), dims()))
        });
        r.result("output_bytes", self.output_bytes, || {
            Quantity::new("output write", Unit::Bytes)
                .formula("b*M*N")
                .derive(format!("{}*{m}*{n}", bs()))
        });
        r.result("tiled_vs_naive", t.tiled_vs_naive, || {
            Quantity::new("traffic cut vs naive", Unit::Ratio)
                .formula("naive bytes / tiled bytes")
                .derive(format!("{} / {}", si(nb, "B"), si(tb, "B")))
        });
        r.result("intensity", ti, || {
            Quantity::new("intensity", Unit::FlopPerByte.ops_if(int_ops))
                .formula("FLOPs / tiled bytes")
                .derive(format!("{} / {}", si(f, op_u), si(tb, "B")))
        });

        // Tensor-core row utilisation caps the compute roof for small M.
        let eff = self.effective_roof.peak;
        let roof_text = || match &self.mma {
            Some(c) => format!(
                "{} * {}",
                units::sig(c.row_utilisation, 4),
                si(peak, rate_u)
            ),
            None => si(peak, rate_u),
        };
        if let Some(c) = &self.mma {
            let s = c.shape;
            r.result("mma_shape", s.name(), || {
                Quantity::new("tensor-core instruction", Unit::None)
            });
            if let (Some(sn), Some(outputs)) = (s.n, c.outputs) {
                r.result("mma_outputs", outputs, || {
                    Quantity::new("outputs per instruction", Unit::Count)
                        .formula("MMA_M * MMA_N")
                        .derive(format!("{} * {sn}", s.m))
                });
            }
            r.result("mma_padded_rows", int(c.padded_rows), || {
                Quantity::new("padded rows", Unit::Count)
                    .formula("ceil(M / MMA_M)*MMA_M - M")
                    .derive(format!("ceil({m} / {})*{} - {m}", s.m, s.m))
            });
            r.result("mma_row_utilisation", c.row_utilisation, || {
                Quantity::new("tensor-core row utilisation", Unit::Fraction)
                    .formula("M / (ceil(M / MMA_M)*MMA_M)")
                    .derive(format!("{m} / (ceil({m} / {})*{})", s.m, s.m))
            });
            r.result("mma_effective_flops_per_s", c.effective_peak, || {
                Quantity::new(
                    "effective tensor-core peak",
                    Unit::FlopPerSec.ops_if(int_ops),
                )
                .formula("row utilisation * peak")
                .derive(roof_text())
            });
            r.result("mma_accumulator_registers", c.accumulator_registers, || {
                Quantity::new("fp32 accumulator registers per instruction", Unit::Count)
                    .formula("MMA_M * MMA_N")
                    .derive(format!("{} * {}", s.m, c.accumulator_n))
            });
            if self.has_threads {
                r.result(
                    "mma_accumulator_registers_per_thread",
                    c.accumulator_registers_per_thread,
                    || {
                        Quantity::new("accumulator registers per thread", Unit::Count)
                            .formula(
                                "MMA_M * MMA_N / threads (128 for a warp group, 32 for a warp)",
                            )
                            .derive(format!("{} / {}", c.accumulator_registers, c.threads))
                    },
                );
            }
            if let Some(list) = &c.unlisted_among {
                r.note_with(|| {
                    format!(
                        "{} does not list {} among its matrix-unit shapes ({})",
                        self.hardware,
                        s.name(),
                        list.join(", ")
                    )
                });
            }
            if c.padded_rows > 0 {
                r.note_with(|| {
                    format!(
                        "{} of every {} MMA rows are padding at M = {}: the tensor cores offer {} of {}",
                        units::whole(c.padded_rows),
                        units::whole(u128::from(m) + c.padded_rows),
                        units::whole(m),
                        si(eff, rate_u),
                        si(peak, rate_u)
                    )
                });
            }
        }
        let ta = t.attainable;
        r.result("attainable_flops_per_s", ta, || {
            Quantity::new("attainable", Unit::FlopPerSec.ops_if(int_ops))
                .formula("min(peak, intensity * bandwidth)")
                .derive(format!(
                    "min({}, {} * {})",
                    roof_text(),
                    units::sig(ti, 4),
                    si(bw, "B/s")
                ))
        });
        r.result("attainable_fraction_of_peak", ta / peak, || {
            Quantity::new("fraction of peak", Unit::Fraction)
                .formula("attainable / peak")
                .derive(format!("{} / {}", si(ta, rate_u), si(peak, rate_u)))
        });
        let time = t.time;
        r.result("memory_time_s", time.memory_s, || {
            Quantity::new("memory time", Unit::Seconds)
                .formula("tiled bytes / bandwidth")
                .derive(format!("{} / {}", si(tb, "B"), si(bw, "B/s")))
        });
        r.result("tile_time_s", time.time_s, || {
            Quantity::new("single-tile time (reuse in one tile only)", Unit::Seconds)
                .formula("max(FLOPs / peak, tiled bytes / bandwidth)")
                .derive(format!(
                    "max({}, {})",
                    seconds(time.compute_s),
                    seconds(time.memory_s)
                ))
        });
        r.result("tile_bound", time.bound.as_str(), || {
            Quantity::new("single-tile bound", Unit::None)
        });
        r.note_with(|| match time.bound {
            Bound::Memory => format!(
                "one tile's reuse alone: memory-bound, intensity {} is {}x below the ridge ({})",
                units::sig_grouped(ti, 4),
                units::sig_grouped(ridge / ti, 3),
                units::sig_grouped(ridge, 4)
            ),
            Bound::Compute => format!(
                "one tile's reuse alone: compute-bound, intensity {} is above the ridge ({})",
                units::sig_grouped(ti, 4),
                units::sig_grouped(ridge, 4)
            ),
        });

        // Minimal traffic: each operand once (002 §7.7's n/3; §7.11's cap at M).
        let mb = self.minimal_bytes;
        r.result("minimal_bytes", mb, || {
            Quantity::new("minimal bytes (each operand once)", Unit::Bytes)
                .formula("b*(M*K + K*N + M*N)")
                .derive(format!("{}*({m}*{k} + {k}*{n} + {m}*{n})", bs()))
        });
        r.result("minimal_intensity", self.minimal_intensity, || {
            Quantity::new(
                "minimal-traffic intensity",
                Unit::FlopPerByte.ops_if(int_ops),
            )
            .formula("2*M*N*K / (b*(M*K + K*N + M*N))")
            .derive(format!("{} / {}", si(f, op_u), si(mb, "B")))
        });

        self.report_l2(&mut r);

        // Feasibility: shared memory with stages, accumulator in registers.
        let smem = t.smem_bytes;
        r.result("smem_bytes_per_block", smem, || {
            Quantity::new("shared memory per program", Unit::BytesIec)
                .formula("(BM*BK + BK*BN)*b*stages")
                .derive(format!("({bm}*{bk} + {bk}*{bn})*{}*{stages}", bs()))
        });
        let acc = t.accumulator_bytes;
        r.result("accumulator_bytes", acc, || {
            Quantity::new("fp32 accumulator (registers)", Unit::BytesIec)
                .formula("BM*BN*4")
                .derive(format!("{bm}*{bn}*4"))
        });
        let lim = &self.limits;
        if let Some(s) = lim.smem_per_sm {
            r.result("smem_fraction_of_sm", smem / s, || {
                Quantity::new("share of the SM's shared memory", Unit::Fraction)
                    .formula("shared memory per program / shared memory per SM")
                    .derive(format!("{} / {}", iec_bytes(smem), iec_bytes(s)))
            });
        }
        if let Some(s) = lim.smem_per_block {
            r.result("smem_fraction_of_block_default", smem / s, || {
                Quantity::new(
                    "share of the default per-block shared memory",
                    Unit::Fraction,
                )
                .formula("shared memory per program / default per block")
                .derive(format!("{} / {}", iec_bytes(smem), iec_bytes(s)))
            });
        }
        if let Some(c) = self.smem_carveout {
            r.result("smem_carveout_bytes", c, || {
                Quantity::new("smallest carveout that holds it", Unit::BytesIec)
                    .formula("min carveout >= shared memory per program + reserved")
                    .derive(format!(
                        "min carveout >= {} + {}",
                        iec_bytes(smem),
                        iec_bytes(lim.reserved_smem)
                    ))
            });
        }
        if let (Some(l), Some(fits)) = (lim.smem_limit, t.smem_fits) {
            r.result("smem_fits", fits, || {
                Quantity::new("shared memory fits", Unit::None)
                    .formula("shared memory per program <= per-block limit")
                    .derive(format!("{} <= {}", iec_bytes(smem), iec_bytes(l)))
            });
        }
        if let (Some(rf), Some(fit)) = (lim.register_file, t.registers_fit) {
            r.result("accumulator_fraction_of_registers", acc / rf, || {
                Quantity::new("share of the register file", Unit::Fraction)
                    .formula("accumulator / register file per SM")
                    .derive(format!("{} / {}", iec_bytes(acc), iec_bytes(rf)))
            });
            r.result("registers_fit", fit, || {
                Quantity::new("accumulator fits in registers", Unit::None)
                    .formula("accumulator < register file (room left for addresses and operands)")
                    .derive(format!("{} < {}", iec_bytes(acc), iec_bytes(rf)))
            });
        }
        // With neither limit recorded (a TPU, Trainium) there is nothing to
        // check the tile against: say so rather than answer yes.
        if t.fits.is_none() {
            r.note_with(|| {
                format!(
                    "tile feasibility unknown: {} records no shared-memory or register-file limits",
                    self.hardware
                )
            });
        }
        let threads_fit = self
            .max_threads_per_block
            .filter(|_| self.has_threads)
            .map(|max| self.threads <= max);
        let fits = match (t.fits, threads_fit) {
            (_, Some(false)) => Some(false),
            (f, _) => f,
        };
        r.result("fits", opt_bool(fits), || {
            Quantity::new("tile fits", Unit::None).formula(
                "shared memory fits and registers fit (and the threads are within the block limit)",
            )
        });
        if let (Some(false), Some(max)) = (threads_fit, self.max_threads_per_block) {
            r.note_with(|| {
                format!(
                    "warning: {} threads per program exceed the {} threads a block may have on {}: the kernel cannot launch",
                    number(self.threads as f64),
                    number(max as f64),
                    self.hardware
                )
            });
        }
        if t.registers_fit == Some(false) {
            r.note_with(|| {
                format!(
                    "the {}x{} fp32 accumulator ({}) leaves no registers for anything else: the register file, not shared memory, caps the tile",
                    units::whole(bm),
                    units::whole(bn),
                    iec_bytes(acc)
                )
            });
        }
        if t.smem_fits == Some(false) {
            r.note_with(|| {
                format!(
                    "{} of shared memory per program exceeds the per-block limit",
                    iec_bytes(smem)
                )
            });
        }
        let rt = &self.ridge_tile;
        let rti = rt.rounded;
        r.result("ridge_tile", rt.edge, || {
            Quantity::new("square tile that reaches the ridge", Unit::None)
                .formula("BLOCK = b * ridge")
                .derive(format!("{} * {}", bs(), units::sig(ridge, 4)))
        });
        r.result("ridge_tile_accumulator_bytes", rt.accumulator_bytes, || {
            Quantity::new("its accumulator", Unit::BytesIec)
                .formula("BLOCK^2*4")
                .derive(format!("{rti}^2*4"))
        });
        if let (Some(v), Some(rf)) = (rt.accumulator_vs_registers, lim.register_file) {
            r.result("ridge_tile_accumulator_vs_registers", v, || {
                Quantity::new("its accumulator / register file", Unit::Ratio)
                    .formula("BLOCK^2*4 / register file")
                    .derive(format!(
                        "{} / {}",
                        iec_bytes(rt.accumulator_bytes),
                        iec_bytes(rf)
                    ))
            });
        }
        r.result("ridge_tile_smem_bytes", rt.smem_bytes, || {
            Quantity::new("its shared memory", Unit::BytesIec)
                .formula("(BLOCK*BK + BK*BLOCK)*b*stages")
                .derive(format!("({rti}*{bk} + {bk}*{rti})*{}*{stages}", bs()))
        });

        // Register micro-tile: the tiling formula one level down.
        let mt = &self.micro_tile;
        let threads = self.threads;
        if self.has_threads {
            r.input("threads", threads);
        }
        if !self.has_threads {
            // A TPU or Trainium: no threads to share the accumulators.
        } else if mt.accumulators_per_thread < 1.0 {
            r.note_with(|| {
                format!(
                    "no register micro-tile: {}x{} accumulators are fewer than {} threads",
                    units::whole(bm),
                    units::whole(bn),
                    units::whole(threads)
                )
            });
        } else {
            r.result(
                "accumulators_per_thread",
                mt.accumulators_per_thread,
                || {
                    Quantity::new("accumulators per thread", Unit::Count)
                        .formula("BM*BN / threads")
                        .derive(format!("{bm}*{bn} / {threads}"))
                },
            );
            r.result("microtile_edge", mt.edge, || {
                Quantity::new("micro-tile edge TM = TN", Unit::Count)
                    .formula("sqrt(accumulators per thread)")
                    .derive(format!("sqrt({})", number(mt.accumulators_per_thread)))
            });
            r.result(
                "microtile_flops_per_smem_element",
                mt.flops_per_smem_element,
                || {
                    Quantity::new("FLOPs per shared-memory element", Unit::None)
                        .formula("2*TM*TN / (TM + TN)")
                        .derive(format!("{} / {}", number(mt.flops), number(mt.smem_reads)))
                },
            );
        }

        // Waves over the SMs.
        if let Some(wc) = &self.waves {
            let w = &wc.waves;
            let sms = wc.sms;
            let pps = self.programs_per_sm;
            r.input("programs_per_sm", pps);
            let slots = || {
                if pps == 1 {
                    format!("{sms}")
                } else {
                    format!("({sms}*{pps})")
                }
            };
            r.result("programs", int(w.programs), || {
                Quantity::new("programs (output tiles)", Unit::Count)
                    .formula("ceil(M/BM)*ceil(N/BN)")
                    .derive(format!("ceil({m}/{bm})*ceil({n}/{bn})"))
            });
            r.result("waves", w.waves, || {
                Quantity::new("waves", Unit::None)
                    .formula("programs / (SMs * programs per SM)")
                    .derive(format!("{} / {}", w.programs, slots()))
            });
            r.result("full_waves", int(w.full_waves), || {
                Quantity::new("full waves", Unit::Count)
                    .formula("floor(waves)")
                    .derive(format!("floor({} / {})", w.programs, slots()))
            });
            r.result("tail_programs", int(w.tail_programs), || {
                Quantity::new("programs in the tail wave", Unit::Count)
                    .formula("programs mod slots")
                    .derive(format!("{} mod {}", w.programs, slots()))
            });
            r.result("idle_slots_in_tail", int(w.idle_slots), || {
                Quantity::new("idle slots in the tail wave", Unit::Count)
                    .formula("slots - tail (0 when the tail is empty)")
                    .derive(format!("{} - {}", slots(), w.tail_programs))
            });
            r.result("wave_efficiency", w.efficiency, || {
                Quantity::new("wave efficiency", Unit::Fraction)
                    .formula("programs / (ceil(waves) * slots)")
                    .derive(format!(
                        "{} / (ceil({}) * {})",
                        w.programs,
                        units::sig(w.waves, 4),
                        slots()
                    ))
            });
            r.result("peak_per_sm_flops_per_s", wc.peak_per_sm, || {
                Quantity::new("peak per SM", Unit::FlopPerSec.ops_if(int_ops))
                    .formula("peak / SMs")
                    .derive(format!("{} / {sms}", si(peak, rate_u)))
            });
            r.note_with(|| {
                format!(
                    "waves assume {} resident program{} per SM (--programs-per-sm)",
                    units::whole(pps),
                    if pps == 1 { "" } else { "s" }
                )
            });
            // None fitting at all is the tile's or the threads' own
            // verdict (`fits`), noted above.
            if let Some((most, why)) = self.resident_limit()
                && pps > most
                && most > 0
            {
                r.note_with(|| {
                    format!(
                        "warning: {} programs per SM is more than an SM of {} holds: at most {} by {why}; the waves and the L2 reuse assume they were resident",
                        units::whole(pps),
                        self.hardware,
                        units::whole(most)
                    )
                });
            }
        }
        if let Some(v) = self.fp32_peak {
            r.result("tensor_vs_vector", peak / v, || {
                Quantity::new("tensor vs fp32 vector peak", Unit::Ratio)
                    .formula("peak / fp32 peak")
                    .derive(format!("{} / {}", si(peak, rate_u), si(v, "FLOP/s")))
            });
        }

        // The lecture's table: square tiles 32..256 at this shape. A lean
        // report (an inner sweep point) keeps values only, and no table.
        if self.table.is_empty() || lean {
            return r;
        }
        r.describe("tile", || Quantity::new("tile", Unit::Count));
        r.describe("tiled_bytes", || Quantity::new("HBM bytes", Unit::Bytes));
        r.describe("intensity", || {
            Quantity::new("intensity", Unit::FlopPerByte.ops_if(int_ops))
        });
        r.describe("attainable_flops_per_s", || {
            Quantity::new("attainable", Unit::FlopPerSec.ops_if(int_ops))
        });
        r.describe("memory_time_s", || {
            Quantity::new("memory time", Unit::Seconds)
        });
        r.describe("tiled_vs_naive", || Quantity::new("vs naive", Unit::Ratio));
        r.describe("smem_bytes_per_block", || {
            Quantity::new("shared memory", Unit::BytesIec)
        });
        r.describe("accumulator_bytes", || {
            Quantity::new("accumulator", Unit::BytesIec)
        });
        r.describe("fits", || Quantity::new("fits", Unit::None));
        for (tile, c) in &self.table {
            let mut row = Row::default();
            row.inputs.insert("tile".into(), (*tile).into());
            row.results
                .insert("tiled_bytes".into(), c.tiled_bytes.into());
            row.results.insert("intensity".into(), c.intensity.into());
            row.results
                .insert("attainable_flops_per_s".into(), c.attainable.into());
            row.results
                .insert("memory_time_s".into(), c.time.memory_s.into());
            row.results
                .insert("tiled_vs_naive".into(), c.tiled_vs_naive.into());
            row.results
                .insert("smem_bytes_per_block".into(), c.smem_bytes.into());
            row.results
                .insert("accumulator_bytes".into(), c.accumulator_bytes.into());
            row.results.insert("fits".into(), opt_bool(c.fits));
            r.rows.push(row);
        }
        r.rows_kind = Some(RowsKind::Table);
        // The answer and the figures that decide it; --all shows the rest.
        r.headline(&[
            "flops",
            "compute_time_s",
            "traffic_bytes",
            "traffic_level",
            "traffic_memory_time_s",
            "time_s",
            "bound",
            "weight_streaming",
            // The lecture's single-tile figures, what its tiling table lists.
            "tiled_bytes",
            "intensity",
            "tile_time_s",
            "tile_bound",
            "fits",
            "waves",
            "wave_efficiency",
        ]);
        // The lecture's tile table is shown when asked for with --tiles;
        // otherwise it is an intermediate for --all.
        r.rows_beyond_headline = !self.tiles_given;
        r
    }
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
    fn divisors_of_large_k_answer_at_once() {
        // A prime K: only 1 (and K) divide it.
        assert_eq!(largest_divisor_at_most(1_000_000_007, 1_000_000_006), 1);
        assert_eq!(largest_divisor_at_most(4096, 48), 32);
        assert_eq!(largest_divisor_at_most(360, 100), 90);
        assert_eq!(largest_divisor_at_most(1, 5), 1);
        // The largest 64-bit prime, and a product of two 32-bit primes.
        assert_eq!(
            largest_divisor_at_most(18_446_744_073_709_551_557, u64::MAX),
            18_446_744_073_709_551_557
        );
        let (p, q) = (4_294_967_291u64, 4_294_967_279u64);
        assert_eq!(largest_divisor_at_most(p * q, p * q - 1), p);
        assert_eq!(
            largest_divisor_at_most(u64::MAX, u64::MAX - 1),
            u64::MAX / 3
        );
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

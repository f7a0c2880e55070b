//! A GEMM's FLOPs and HBM traffic: naive, tiled, minimal, and through the
//! L2 by the footprint of the programs resident together (formulas.md,
//! "Matmul traffic", "Matmul through the L2"; 002 §7.7-§7.8).

use super::*;

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

//! How a grid of tiles runs: waves over the SMs, the register micro-tile,
//! the table's tile list and the K chunk (formulas.md, "Waves", "Matmul
//! traffic", "Tile feasibility").

use super::*;

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

/// A divisor of `k` at most `t` to suggest for `--tile-k`: the larger of
/// gcd(k, t) and the largest power of two that divides k and is at most t
/// (both divide k; 1 divides everything).
pub fn suggest_tile_k(k: u64, t: u64) -> u64 {
    let (mut a, mut b) = (k, t);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let pow2 = 1u64 << k.trailing_zeros().min(63);
    let pow2 = if pow2 <= t { pow2 } else { 1u64 << t.ilog2() };
    a.max(pow2.min(t)).max(1)
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
            let d = suggest_tile_k(k, t);
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

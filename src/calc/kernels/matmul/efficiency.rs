//! A GEMM's achievable time from its shape (formulas.md, "Achievable: GEMM
//! efficiency by shape"): the vendor library tiles C into CTA tiles, pads M
//! and N up to whole tiles, runs the tiles in waves over the SMs and, when
//! the tiles leave SMs idle, splits K. The compute term is FLOPs at the
//! measured rate over padding x wave utilisation, for the tile and split
//! that give the shortest time (the library's heuristic aims at the same);
//! the memory term streams the operands at the measured bandwidth; the
//! output is written after the main loop (the epilogue does not overlap it).
//! `matmul --achievable` and every projection of decode, prefill and plan
//! price through [`GemmModel::time`].

use crate::spec::hardware::Hardware;

/// K below this many elements per split is not split further (a split
/// must keep a few k-steps of the main loop).
const MIN_K_PER_SPLIT: u64 = 256;

/// Slots of the per-thread memo of [`GemmModel::efficiency`].
const MEMO_SLOTS: usize = 512;

/// A memo entry's key: the hash, then the shape (a hash collision between
/// two models on one shape is the one case it would confuse, at 2^-64).
type MemoKey = (u64, [u64; 4]);

thread_local! {
    static MEMO: std::cell::RefCell<Vec<Option<(MemoKey, Efficiency)>>> =
        std::cell::RefCell::new(vec![None; MEMO_SLOTS]);
}

/// How one device runs GEMMs.
#[derive(Debug, Clone, PartialEq)]
pub struct GemmModel {
    /// CTA tiles (rows, columns) the library chooses among; empty: no
    /// tiling loss is modelled.
    pub tiles: Vec<(u64, u64)>,
    /// Most K splits.
    pub split_k: u64,
    /// SMs the waves run over.
    pub sms: u64,
    /// Operand reuse, tm tn / (tm + tn), of the smallest tile that runs at
    /// the full rate; a tile below it reaches its reuse over this share of
    /// the rate (none: every tile runs at the full rate).
    pub full_rate_reuse: Option<f64>,
    /// The fixed GPU time of the reduction kernel a split launches, seconds
    /// (`achievable.kernel-overhead`): a compute-bound shape is split only
    /// where the split saves more than this.
    pub split_cost_s: f64,
    /// The library's split rule for weight-streaming GEMMs: (most rows,
    /// least K / N) ascending in rows, and the K at or below which none
    /// splits (`achievable.gemm.stream-split`; empty: no such rule).
    pub stream_split: Vec<(u64, f64)>,
    /// `achievable.gemm.stream-split-k-above`.
    pub stream_split_k_above: u64,
    /// The hash of the figures above, made at the first GEMM priced and
    /// kept: a sweep prices a few GEMMs at every point.
    pub(crate) fingerprint: Fingerprint,
}

/// A [`GemmModel`]'s hash of its own figures, made once. It is derived
/// from the figures, so it takes no part in comparing two models.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fingerprint(std::cell::OnceCell<u64>);

impl PartialEq for Fingerprint {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Operand reuse of a tm x tn tile: multiply-adds per operand element it
/// loads in a k-step, tm tn / (tm + tn).
fn reuse(tm: u64, tn: u64) -> f64 {
    (tm * tn) as f64 / (tm + tn) as f64
}

/// The efficiency of one shape under the best tile.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Efficiency {
    /// The tile chosen, rows x columns (0 x 0 when no tiles are known).
    pub tile: (u64, u64),
    /// K splits.
    pub split_k: u64,
    /// M N / (padded M x padded N).
    pub padding: f64,
    /// tiles x splits / (waves x SMs).
    pub waves: f64,
    /// The tile's share of the rate from its operand reuse (1 at or above
    /// the full-rate tile's).
    pub feed: f64,
    /// padding x waves x feed: the share of the rate the shape reaches.
    pub efficiency: f64,
}

/// One GEMM's achievable time, with its terms.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct GemmTime {
    /// FLOPs / (rate x efficiency).
    pub compute_s: f64,
    /// Operand bytes read / bandwidth.
    pub read_s: f64,
    /// Output bytes written / bandwidth, after the main loop.
    pub write_s: f64,
    /// max(compute, read) + write.
    pub time_s: f64,
    /// The shape's efficiency.
    pub efficiency: Efficiency,
}

impl GemmModel {
    /// The file's `achievable.gemm` figures (no tiles, no split when it has
    /// none).
    pub fn of(hw: &Hardware) -> Self {
        let g = hw.achievable.as_ref().and_then(|a| a.gemm.as_ref());
        GemmModel {
            tiles: g
                .and_then(|g| g.parsed().ok())
                .map(<[_]>::to_vec)
                .unwrap_or_default(),
            split_k: g.and_then(|g| g.split_k).map_or(1, |s| u64::from(s.get())),
            sms: hw.execution.as_ref().map_or(1, |e| u64::from(e.sms.get())),
            full_rate_reuse: g
                .and_then(|g| g.full_rate().ok().flatten())
                .map(|(tm, tn)| reuse(tm, tn)),
            split_cost_s: hw
                .achievable
                .as_ref()
                .and_then(|a| a.kernel_overhead)
                .map_or(0.0, |s| s.get()),
            stream_split: g
                .map(|g| {
                    g.stream_split
                        .iter()
                        .map(|r| (r.rows, r.k_over_n))
                        .collect()
                })
                .unwrap_or_default(),
            stream_split_k_above: g.and_then(|g| g.stream_split_k_above).unwrap_or(0),
            fingerprint: Fingerprint::default(),
        }
    }

    /// Whether the library splits a weight-streaming GEMM of m x n x k,
    /// by its measured rule (formulas.md, "Achievable: GEMM efficiency by
    /// shape", split K); `None` where the rule does not cover m.
    pub fn stream_splits(&self, m: u64, n: u64, k: u64) -> Option<bool> {
        let &(_, ratio) = self.stream_split.iter().find(|(rows, _)| m <= *rows)?;
        Some(k > self.stream_split_k_above && k as f64 >= ratio * n as f64)
    }

    /// The candidates the library chooses among: each tile, unsplit, and
    /// split K ways where its tiles alone leave SMs idle.
    fn candidates(&self, m: u64, n: u64, k: u64, groups: f64, mut each: impl FnMut(Efficiency)) {
        let sms = self.sms.max(1) as f64;
        let groups = groups.max(1.0);
        for &(tm, tn) in &self.tiles {
            let (rows, cols) = (m.div_ceil(tm) as f64, n.div_ceil(tn) as f64);
            let padding = (m as f64 * n as f64) / (rows * tm as f64 * cols * tn as f64);
            let tiles = rows * cols * groups;
            let feed = self
                .full_rate_reuse
                .map_or(1.0, |full| (reuse(tm, tn) / full).min(1.0));
            let most = if tiles < sms { self.split_k.max(1) } else { 1 };
            for s in 1..=most {
                if s > 1 && k / s < MIN_K_PER_SPLIT {
                    break;
                }
                let grid = tiles * s as f64;
                let waves = grid / ((grid / sms).ceil() * sms);
                each(Efficiency {
                    tile: (tm, tn),
                    split_k: s,
                    padding,
                    waves,
                    feed,
                    efficiency: padding * waves * feed,
                });
            }
        }
    }

    /// The best tile and split for `groups` independent GEMMs of m x n x k
    /// (a grouped GEMM over MoE experts has `groups` > 1; their tiles share
    /// the waves).
    pub fn efficiency(&self, m: u64, n: u64, k: u64, groups: f64) -> Efficiency {
        // A sweep resolves a model per point and asks it for the same few
        // shapes again and again: the answer, a pure function of the model
        // and the shape, is remembered per thread.
        let key = self.key(m, n, k, groups);
        let slot = (key.0 as usize) % MEMO_SLOTS;
        if let Some(e) = MEMO.with(|c| c.borrow()[slot].filter(|x| x.0 == key).map(|x| x.1)) {
            return e;
        }
        let e = self.search(m, n, k, groups);
        MEMO.with(|c| c.borrow_mut()[slot] = Some((key, e)));
        e
    }

    /// What [`GemmModel::efficiency`] depends on: a hash of the model and
    /// the shape, and the shape itself.
    fn key(&self, m: u64, n: u64, k: u64, groups: f64) -> MemoKey {
        use std::hash::{Hash, Hasher};
        let model = *self.fingerprint.0.get_or_init(|| {
            let mut h = rustc_hash::FxHasher::default();
            self.tiles.hash(&mut h);
            (self.split_k, self.sms).hash(&mut h);
            self.full_rate_reuse.map(f64::to_bits).hash(&mut h);
            h.finish()
        });
        let mut h = rustc_hash::FxHasher::default();
        model.hash(&mut h);
        (m, n, k, groups.to_bits()).hash(&mut h);
        (h.finish(), [m, n, k, groups.to_bits()])
    }

    fn search(&self, m: u64, n: u64, k: u64, groups: f64) -> Efficiency {
        let mut best = Efficiency {
            tile: (0, 0),
            split_k: 1,
            padding: 1.0,
            waves: 1.0,
            feed: 1.0,
            efficiency: 1.0,
        };
        if self.tiles.is_empty() || m == 0 || n == 0 {
            return best;
        }
        best.efficiency = 0.0;
        let sms = self.sms.max(1) as f64;
        let groups = groups.max(1.0);
        let (mf, nf) = (m as f64, n as f64);
        for &(tm, tn) in &self.tiles {
            let feed = self
                .full_rate_reuse
                .map_or(1.0, |full| (reuse(tm, tn) / full).min(1.0));
            // Padding cannot raise a tile above its feed.
            if feed <= best.efficiency + 1e-12 {
                continue;
            }
            // Exact for the sizes a GEMM has (below 2^52): a quotient of
            // whole numbers that is whole rounds to itself.
            let (tmf, tnf) = (tm as f64, tn as f64);
            let (rows, cols) = ((mf / tmf).ceil(), (nf / tnf).ceil());
            let padding = (mf * nf) / (rows * tmf * cols * tnf);
            let tiles = rows * cols * groups;
            // Waves cannot raise a tile above padding x feed: a tile that
            // cannot beat the best so far is not tried (a sweep prices
            // every GEMM of every point through here).
            if padding * feed <= best.efficiency + 1e-12 {
                continue;
            }
            // The library splits K only when the tiles alone leave SMs idle.
            let most = if tiles < sms { self.split_k.max(1) } else { 1 };
            for s in 1..=most {
                if s > 1 && k / s < MIN_K_PER_SPLIT {
                    break;
                }
                let grid = tiles * s as f64;
                let waves = grid / ((grid / sms).ceil() * sms);
                let e = padding * waves * feed;
                if e > best.efficiency + 1e-12 {
                    best = Efficiency {
                        tile: (tm, tn),
                        split_k: s,
                        padding,
                        waves,
                        feed,
                        efficiency: e,
                    };
                }
            }
        }
        best
    }

    /// The achievable time of `groups` GEMMs of m x n x k each at `rate`
    /// FLOP/s and `bandwidth` B/s, reading `read_bytes` and writing
    /// `write_bytes` in all.
    #[allow(clippy::too_many_arguments)]
    pub fn time(
        &self,
        (m, n, k): (u64, u64, u64),
        groups: f64,
        rate: f64,
        bandwidth: f64,
        read_bytes: f64,
        write_bytes: f64,
    ) -> GemmTime {
        let mut e = self.efficiency(m, n, k, groups);
        let flops = 2.0 * m as f64 * n as f64 * k as f64 * groups.max(1.0);
        let read_s = read_bytes / bandwidth;
        let write_s = write_bytes / bandwidth;
        // A compute-bound split launches a reduction kernel (the profiler
        // counts one `splitKreduce_kernel` after each, bf16 and fp8,
        // validation/results/2026-12-01-h200/h200-gemm-probe2.json): the split is chosen only
        // where it saves more than that kernel's fixed cost (formulas.md,
        // "Achievable: GEMM efficiency by shape", split K).
        if e.split_k > 1 && flops / (rate * e.efficiency) > read_s && self.split_cost_s > 0.0 {
            let cost = |c: &Efficiency| {
                (flops / (rate * c.efficiency)).max(read_s)
                    + if c.split_k > 1 {
                        self.split_cost_s
                    } else {
                        0.0
                    }
            };
            let mut best = (cost(&e), e);
            self.candidates(m, n, k, groups, |c| {
                let t = cost(&c);
                if t < best.0 - 1e-15 {
                    best = (t, c);
                }
            });
            e = best.1;
        }
        // A weight-streaming GEMM splits, or not, as the library's measured
        // rule says; its compute term is not binding, so the split decides
        // only the reduction kernel.
        if groups <= 1.0
            && flops / (rate * e.efficiency) <= read_s
            && let Some(split) = self.stream_splits(m, n, k)
            && split != (e.split_k > 1)
        {
            let mut best: Option<Efficiency> = None;
            self.candidates(m, n, k, groups, |c| {
                if (c.split_k > 1) == split
                    && best.is_none_or(|b| c.efficiency > b.efficiency + 1e-12)
                {
                    best = Some(c);
                }
            });
            e = best.unwrap_or(Efficiency {
                split_k: if split { 2 } else { 1 },
                ..e
            });
        }
        let compute_s = flops / (rate * e.efficiency);
        GemmTime {
            compute_s,
            read_s,
            write_s,
            time_s: compute_s.max(read_s) + write_s,
            efficiency: e,
        }
    }
}

/// Whether a GEMM launches a separate split-K reduction kernel: every
/// compute-bound split (the profiler counts one `splitKreduce_kernel` after
/// each, bf16 and fp8: validation/results/2026-12-01-h200/h200-gemm-probe2.json; the split is
/// chosen only where it saves more than that kernel, [`GemmModel::time`]),
/// and a 16-bit GEMM bound by its weights and split over K to spread them
/// over idle SMs (the fp8 kernels at the decode shapes did not split). Its
/// fp32 partials, m x n per split, stay in the L2, so only the kernel's
/// fixed costs are priced.
pub fn reduces(g: &GemmTime, weight_bytes: f64) -> bool {
    g.efficiency.split_k > 1 && (g.compute_s > g.read_s || weight_bytes >= 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_streaming_splits_follow_the_measured_rule() {
        // validation/results/2026-12-03-h200/h200-split-k.json: cuBLAS split
        // Llama-3.2-1B's down projection (2,048 x 8,192) at M = 1 and 128,
        // Llama-3.2-3B's (3,072 x 8,192) at 128 but not 256, none of the
        // K = 2,048 projections, Llama-3-8B's output projection (4,096 x
        // 4,096) at M = 1 but not 64, and Qwen3-32B's down (5,120 x 25,600)
        // at every M to 256. (The rule's misses, such as the 1B's down at
        // 256, are tabled in docs/validation.md.)
        let hw = crate::catalog::Catalog::default()
            .hardware("h200-sxm", &[])
            .unwrap();
        let g = GemmModel::of(&hw);
        assert_eq!(g.stream_splits(1, 2048, 8192), Some(true));
        assert_eq!(g.stream_splits(128, 2048, 8192), Some(true));
        assert_eq!(g.stream_splits(128, 3072, 8192), Some(true));
        assert_eq!(g.stream_splits(256, 3072, 8192), Some(false));
        assert_eq!(g.stream_splits(1, 3072, 2048), Some(false));
        assert_eq!(g.stream_splits(1, 16384, 2048), Some(false));
        assert_eq!(g.stream_splits(1, 4096, 4096), Some(true));
        assert_eq!(g.stream_splits(64, 4096, 4096), Some(false));
        assert_eq!(g.stream_splits(256, 5120, 25600), Some(true));
        // Past the measured rows the wave rule decides.
        assert_eq!(g.stream_splits(512, 5120, 25600), None);
        // A weight-streaming GEMM's reduction follows the rule: the 1B's
        // down at M = 1 pays one, its output projection none.
        let t = |m, n, k| {
            let b = 2.0;
            let read = b * (m * k + k * n) as f64;
            g.time((m, n, k), 1.0, 763.9e12, 4.2e12, read, b * (m * n) as f64)
        };
        assert!(t(1, 2048, 8192).efficiency.split_k > 1);
        assert_eq!(t(1, 2048, 2048).efficiency.split_k, 1);
    }

    fn h200() -> GemmModel {
        GemmModel {
            tiles: vec![(256, 128), (128, 128)],
            split_k: 4,
            sms: 132,
            full_rate_reuse: None,
            split_cost_s: 0.0,
            stream_split: Vec::new(),
            stream_split_k_above: 0,
            fingerprint: Fingerprint::default(),
        }
    }

    #[test]
    fn a_wave_and_a_bit_loses_the_rest_of_the_second_wave() {
        // 512 x 14336 at 256 x 128: 2 x 112 = 224 tiles over 132 SMs, two
        // waves of which the second is 92 of 132 full: 224 / 264.
        let e = h200().efficiency(512, 14336, 4096, 1.0);
        assert!((e.efficiency - 224.0 / 264.0).abs() < 1e-9, "{e:?}");
        assert_eq!(e.padding, 1.0);
    }

    #[test]
    fn a_small_m_pads_to_the_tile() {
        // M = 100 pads to 128: 100/128 of every tile's rows do work.
        let e = GemmModel {
            tiles: vec![(128, 128)],
            split_k: 1,
            sms: 1,
            full_rate_reuse: None,
            split_cost_s: 0.0,
            stream_split: Vec::new(),
            stream_split_k_above: 0,
            fingerprint: Fingerprint::default(),
        }
        .efficiency(100, 128, 4096, 1.0);
        assert!((e.padding - 100.0 / 128.0).abs() < 1e-12);
    }

    #[test]
    fn split_k_fills_idle_sms() {
        // 128 x 4096 at 128 x 128: 32 tiles; split 4 ways, 128 of 132.
        let e = h200().efficiency(128, 4096, 4096, 1.0);
        assert_eq!(e.split_k, 4);
        assert!((e.waves - 128.0 / 132.0).abs() < 1e-12);
    }

    #[test]
    fn a_small_tile_runs_at_its_operand_reuse() {
        // 256^3 with 128 x 128 (reuse 64) at the full rate and 64 x 32
        // (reuse 21.3) among the tiles: 128 x 128 gives 4 of 132 SMs, 64 x
        // 32 gives 32 tiles split 4 ways over K (128 of 132) at 21.3/64 of
        // the rate, 0.32, the better of the two.
        let g = GemmModel {
            tiles: vec![(128, 128), (64, 32)],
            split_k: 4,
            sms: 132,
            full_rate_reuse: Some(reuse(128, 128)),
            split_cost_s: 0.0,
            stream_split: Vec::new(),
            stream_split_k_above: 0,
            fingerprint: Fingerprint::default(),
        };
        let e = g.efficiency(256, 256, 4096, 1.0);
        assert_eq!(e.tile, (64, 32));
        let want = (2048.0 / 96.0 / 64.0) * 128.0 / 132.0;
        assert!((e.efficiency - want).abs() < 1e-9, "{e:?}");
    }

    #[test]
    fn a_compute_bound_split_must_save_more_than_its_reduction() {
        // 256 x 256 x 4096 on 64 x 32 tiles: 32 tiles of 132 SMs. At 100
        // TFLOP/s unsplit takes 2^29 / (1e14 x 32/132) = 22.1 us; split 4
        // ways 128/132 of the SMs, 5.5 us, plus the reduction's fixed cost.
        let g = |cost: f64| GemmModel {
            tiles: vec![(64, 32)],
            split_k: 4,
            sms: 132,
            full_rate_reuse: None,
            split_cost_s: cost,
            stream_split: Vec::new(),
            stream_split_k_above: 0,
            fingerprint: Fingerprint::default(),
        };
        let flops = 2.0 * 256.0 * 256.0 * 4096.0;
        let t = g(2.4e-6).time((256, 256, 4096), 1.0, 1e14, 1e12, 0.0, 0.0);
        assert_eq!(t.efficiency.split_k, 4);
        assert!((t.compute_s - flops / (1e14 * 128.0 / 132.0)).abs() < 1e-12);
        // A reduction costing 20 us saves nothing: unsplit.
        let t = g(20e-6).time((256, 256, 4096), 1.0, 1e14, 1e12, 0.0, 0.0);
        assert_eq!(t.efficiency.split_k, 1);
        assert!((t.compute_s - flops / (1e14 * 32.0 / 132.0)).abs() < 1e-12);
    }

    #[test]
    fn no_tiles_no_loss() {
        let g = GemmModel {
            tiles: vec![],
            split_k: 1,
            sms: 132,
            full_rate_reuse: None,
            split_cost_s: 0.0,
            stream_split: Vec::new(),
            stream_split_k_above: 0,
            fingerprint: Fingerprint::default(),
        };
        assert_eq!(g.efficiency(7, 7, 7, 1.0).efficiency, 1.0);
    }
}

//! Floors of a disaggregated candidate's score under `--objective cost`
//! and `energy` (formulas.md, "Fleet: disaggregated pools", floors): the
//! least device-seconds per output token each pool's run can take, from
//! the arrivals it serves alone, found before any run. Every run of a pool
//! spans at least from its first arrival to its last, and every device
//! draws at least idle power all that time, so idle power over those
//! device-seconds bounds its energy below, whatever each step's dynamic
//! energy is.

use crate::calc::simulate::arrivals::Request;
use crate::calc::simulate::pools::{route_stream, routed_first};

/// The requests a coupled run with `rd` decode replicas sends through the
/// prefill pool: `rd` x the `n` an aggregated run takes, at least `n` and
/// at most `most` (or `n` where that is more), so that the decode replica
/// it follows sees about `n`.
pub(super) fn want(n: usize, rd: u64, most: usize) -> usize {
    n.saturating_mul(rd as usize).clamp(n, most.max(n))
}

/// Per replica count `rd` of the decode pool, the least device-seconds per
/// output token of one prefill device and of one decode device.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SpanFloors {
    /// Index `rd`: (prefill, decode) seconds per output token per device
    /// at rate 1 (divide by the rate).
    per_device: Vec<(f64, f64)>,
    rate: f64,
}

impl SpanFloors {
    /// The floors for `rd` = 1 to `most_rd` over `long`, the requests at
    /// unit rate (at least `most` of them, each coupled run a prefix), the
    /// routing stream of `seed` and `n` requests a run.
    pub(super) fn new(
        long: &[Request],
        n: usize,
        most: usize,
        seed: u64,
        most_rd: u64,
        rate: f64,
    ) -> Self {
        let mut route = route_stream(seed);
        let draws: Vec<f64> = (0..want(n, most_rd.max(1), most).min(long.len()))
            .map(|_| route.unit())
            .collect();
        Self::of(long, &draws, n, most, most_rd, rate)
    }

    /// As [`SpanFloors::new`], with request `k`'s routing draw `draws[k]`
    /// (uniform on [0, 1)).
    pub(super) fn of(
        long: &[Request],
        draws: &[f64],
        n: usize,
        most: usize,
        most_rd: u64,
        rate: f64,
    ) -> Self {
        let top = most_rd.max(1) as usize;
        let len = draws.len().min(long.len());
        // Output tokens of the decode replica's share, by rd: each request
        // is in the share for every rd from the first whose run reaches
        // it to the last that routes it first (a difference array, whole
        // tokens, exact).
        let mut diff = vec![0i64; top + 2];
        for (k, (r, &u)) in long.iter().zip(draws).enumerate().take(len) {
            // The first rd > 1 whose run has more than k requests.
            let lo = (k / n.max(1) + 1).max(2);
            let hi = last_routed(u, top as u64) as usize;
            if lo <= hi {
                diff[lo] += r.output as i64;
                diff[hi + 1] -= r.output as i64;
            }
        }
        let mut per_device = vec![(0.0, 0.0); top + 1];
        let mut outputs = 0i64;
        let out_prefix: Vec<u64> = std::iter::once(0)
            .chain(long.iter().scan(0u64, |s, r| {
                *s += r.output;
                Some(*s)
            }))
            .collect();
        for (rd, slot) in per_device.iter_mut().enumerate().skip(1) {
            outputs += diff[rd];
            let w = want(n, rd as u64, most).min(long.len());
            if w == 0 {
                continue;
            }
            // The prefill pool serves all w: from the first arrival to the
            // last, for all their output tokens.
            let all = out_prefix[w] as f64;
            let pre = if all > 0.0 {
                (long[w - 1].arrival_s - long[0].arrival_s) / all
            } else {
                0.0
            };
            // The decode replica serves its share: from its first arrival
            // to its last.
            let dec = if rd == 1 {
                pre
            } else {
                let w = w.min(len);
                let first = (0..w).find(|&k| routed_first(draws[k], rd as u64));
                let last = (0..w).rev().find(|&k| routed_first(draws[k], rd as u64));
                match (first, last) {
                    (Some(a), Some(b)) if outputs > 0 => {
                        (long[b].arrival_s - long[a].arrival_s) / outputs as f64
                    }
                    _ => 0.0,
                }
            };
            *slot = (pre, dec);
        }
        SpanFloors { per_device, rate }
    }

    /// Seconds per output token per device of the prefill pool and of the
    /// decode pool with `rd` decode replicas; None past the table.
    pub(super) fn at(&self, rd: u64) -> Option<(f64, f64)> {
        self.per_device
            .get(rd as usize)
            .filter(|_| rd >= 1)
            .map(|(p, d)| (p / self.rate, d / self.rate))
    }
}

/// The largest rd up to `top` (at least 1) that routes a request of draw
/// `u` to the first decode replica (`routed_first` holds from 1 up to it).
fn last_routed(u: f64, top: u64) -> u64 {
    if routed_first(u, top) {
        return top;
    }
    // routed_first(u, 1) holds and routed_first(u, top) does not:
    // bisect.
    let (mut lo, mut hi) = (1u64, top);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if routed_first(u, mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(arrival_s: f64, output: u64) -> Request {
        Request {
            arrival_s,
            prompt: 100,
            output,
        }
    }

    /// Four requests at unit-rate arrivals 1, 2, 3, 4 s with 10, 20, 30
    /// and 40 output tokens, two a run (so rd decode replicas take 2 rd,
    /// at most 4), routing draws 0.1, 0.6, 0.4, 0.9, at 2 requests a
    /// second. By hand: rd = 1 runs the first two on both pools, (2 - 1) /
    /// 30 / 2 = 1/60 s a token. rd = 2 runs all four through prefill,
    /// (4 - 1) / 100 / 2 = 0.015; the draws below 1/2 go to the decode
    /// replica followed, the first and third, (3 - 1) / 40 / 2 = 0.025.
    /// rd = 3: only the first draw is below 1/3 (0.4 x 3 = 1.2), one
    /// request, no span: 0.
    #[test]
    fn spans_by_hand() {
        let long = [req(1.0, 10), req(2.0, 20), req(3.0, 30), req(4.0, 40)];
        let f = SpanFloors::of(&long, &[0.1, 0.6, 0.4, 0.9], 2, 4, 3, 2.0);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-15;
        let (p, d) = f.at(1).unwrap();
        assert!(close(p, 1.0 / 60.0) && close(d, 1.0 / 60.0), "{p} {d}");
        let (p, d) = f.at(2).unwrap();
        assert!(close(p, 0.015) && close(d, 0.025), "{p} {d}");
        let (p, d) = f.at(3).unwrap();
        assert!(close(p, 0.015) && d == 0.0, "{p} {d}");
        assert_eq!(f.at(4), None);
        assert_eq!(f.at(0), None);
        // The coupled run's request counts: 2 rd within 2 and 4.
        assert_eq!([1, 2, 3].map(|rd| want(2, rd, 4)), [2, 4, 4]);
        // The last replica count routing each draw first.
        assert_eq!(last_routed(0.4, 3), 2);
        assert_eq!(last_routed(0.6, 3), 1);
        assert_eq!(last_routed(0.1, 3), 3);
    }
}

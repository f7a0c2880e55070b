//! Whether a run reached steady state (formulas.md, "Fleet: steady
//! state"): its arrival span cut in four windows, the first a warm-up; in
//! each the time-mean of requests in the system, of KV tokens held, the
//! mean queue wait and the preemptions of the requests arriving in it. A
//! run whose later windows still climb has not settled: a longer run would
//! show more (the cache fills, preemptions recompute, the queue grows).

use crate::calc::simulate::scheduler::Outcome;
use crate::units;

/// One window's figures.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Window {
    /// Time-mean of requests arrived and not finished.
    pub in_flight: f64,
    /// Time-mean of KV tokens held (prompt, then the output so far).
    pub kv_tokens: f64,
    /// Mean wait from arrival to first scheduled, seconds.
    pub queue_s: f64,
    /// Preemptions of the requests arriving in it.
    pub preemptions: u64,
}

/// A run's four windows.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Steady {
    /// Earliest to latest.
    pub windows: [Window; 4],
    /// Requests in the run.
    pub requests: u64,
}

/// Relative growth from the second window to the last that counts as a
/// climb (beyond it a Poisson run of a few hundred requests a window
/// rarely strays at steady state).
const GROWTH: f64 = 0.10;

impl Steady {
    /// The windows of `out` (any order).
    pub fn of(out: &[Outcome]) -> Self {
        let t0 = out
            .iter()
            .map(|o| o.arrival_s)
            .fold(f64::INFINITY, f64::min);
        let t1 = out.iter().map(|o| o.arrival_s).fold(0.0, f64::max);
        let mut s = Steady {
            requests: out.len() as u64,
            ..Default::default()
        };
        if out.is_empty() || t1 <= t0 {
            return s;
        }
        let len = (t1 - t0) / 4.0;
        let mut counts = [0u64; 4];
        for (k, w) in s.windows.iter_mut().enumerate() {
            let (a, b) = (t0 + k as f64 * len, t0 + (k + 1) as f64 * len);
            let mut area = 0.0;
            let mut kv = 0.0;
            for o in out {
                let (lo, hi) = (o.arrival_s.max(a), o.finish_s.min(b));
                if hi > lo {
                    area += hi - lo;
                }
                // The prompt's cache from the first schedule, the output's
                // growing linearly to the finish.
                let (p, first) = (o.prompt as f64, o.first_token_s);
                let (lo, hi) = (o.start_s.max(a), first.min(b));
                if hi > lo {
                    kv += p * (hi - lo);
                }
                let (lo, hi) = (first.max(a), o.finish_s.min(b));
                if hi > lo {
                    let d = (o.finish_s - first).max(f64::MIN_POSITIVE);
                    let g = o.output as f64 / d;
                    kv += p * (hi - lo) + g * ((hi - first).powi(2) - (lo - first).powi(2)) / 2.0;
                }
            }
            w.in_flight = area / len;
            w.kv_tokens = kv / len;
        }
        for o in out {
            let k = (((o.arrival_s - t0) / len) as usize).min(3);
            counts[k] += 1;
            s.windows[k].queue_s += o.start_s - o.arrival_s;
            s.windows[k].preemptions += u64::from(o.preemptions);
        }
        for (w, n) in s.windows.iter_mut().zip(counts) {
            w.queue_s /= n.max(1) as f64;
        }
        s
    }

    /// What still climbs over the run's last three windows, or None when
    /// it has settled. `ttft_s`: the TTFT target, which sets how much queue
    /// wait counts.
    pub fn trend(&self, ttft_s: Option<f64>) -> Option<String> {
        let [_, a, b, c] = self.windows;
        let rising = |x: f64, y: f64, z: f64, slack: f64| z > x * (1.0 + GROWTH) + slack && y >= x;
        let mut why = Vec::new();
        if rising(a.in_flight, b.in_flight, c.in_flight, 1.0) {
            why.push(format!(
                "requests in the system rise from {} to {}",
                units::sig(a.in_flight, 3),
                units::sig(c.in_flight, 3)
            ));
        }
        if rising(a.kv_tokens, b.kv_tokens, c.kv_tokens, 0.0) && why.is_empty() {
            why.push(format!(
                "KV tokens held rise from {} to {}",
                units::whole(a.kv_tokens as u64),
                units::whole(c.kv_tokens as u64)
            ));
        }
        let slack = 0.02 * ttft_s.unwrap_or(1.0);
        if c.queue_s > 2.0 * a.queue_s + slack && b.queue_s >= a.queue_s {
            why.push(format!(
                "the queue wait rises from {} to {}",
                units::seconds(a.queue_s),
                units::seconds(c.queue_s)
            ));
        }
        if c.preemptions > 2 * a.preemptions + 4 {
            why.push(format!(
                "preemptions rise from {} to {} a quarter",
                units::whole(a.preemptions),
                units::whole(c.preemptions)
            ));
        }
        (!why.is_empty()).then(|| why.join(", "))
    }

    /// Whether the requests in the system more than double from window 2
    /// to window 4 (window 3 between): arrivals outrun the service over
    /// the run's whole second half, past any warm-up (window 1), so a
    /// longer run only climbs further. The search gives such a plan up at
    /// once rather than doubling its run to 64,000 requests (issue 55:
    /// each doubling of an overloaded plan was most of a `fleet` without
    /// a TTFT target).
    pub fn runaway(&self) -> bool {
        let [_, a, b, c] = self.windows;
        c.in_flight > 2.0 * a.in_flight + 1.0 && b.in_flight >= a.in_flight
    }

    /// The last window in words, for a verdict.
    pub fn text(&self) -> String {
        let [_, a, _, c] = self.windows;
        format!(
            "{} requests in the system (window 2: {}), {} preemptions in the last quarter",
            units::sig(c.in_flight, 3),
            units::sig(a.in_flight, 3),
            units::whole(c.preemptions)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(arrival: f64, wait: f64, service: f64) -> Outcome {
        Outcome {
            arrival_s: arrival,
            prompt: 100,
            output: 10,
            start_s: arrival + wait,
            first_token_s: arrival + wait + 0.1,
            finish_s: arrival + wait + service,
            preemptions: 0,
            replica: 0,
        }
    }

    #[test]
    fn a_steady_stream_has_no_trend_and_a_growing_queue_has() {
        // One request a second, each in the system 5 s: Little's law holds
        // 5 in the system in every window after the first.
        let flat: Vec<Outcome> = (0..400).map(|i| req(i as f64, 0.0, 5.0)).collect();
        let s = Steady::of(&flat);
        assert!((s.windows[2].in_flight - 5.0).abs() < 0.1, "{s:?}");
        assert_eq!(s.trend(Some(2.0)), None);
        // Each request waits 0.05 s longer than the one before: the queue
        // and the requests in the system grow without end.
        let growing: Vec<Outcome> = (0..400)
            .map(|i| req(i as f64, 0.05 * i as f64, 5.0))
            .collect();
        let s = Steady::of(&growing);
        let why = s.trend(Some(2.0)).unwrap();
        assert!(why.contains("queue wait rises"), "{why}");
        assert!(why.contains("requests in the system rise"), "{why}");
        // By hand: request i is in the system 5 + 0.05 i s, so at time t
        // about the arrivals after t - 5 - 0.05 t are, 5 + 0.05 t / 1.05:
        // over window 2 (100 to 200 s) a mean of about 12, over window 4
        // (300 to 400 s) about 21.7, short of twice 12 + 1: a climb, not a
        // runaway. The flat stream is neither.
        assert!(!s.runaway(), "{s:?}");
        assert!(!Steady::of(&flat).runaway());
        // Each request waits 0.5 s longer than the one before: (0.5 t + 5)
        // / 1.5 in the system, about 53 over window 2 and 120 over window
        // 4, more than twice 53 + 1.
        let runaway: Vec<Outcome> = (0..400)
            .map(|i| req(i as f64, 0.5 * i as f64, 5.0))
            .collect();
        assert!(Steady::of(&runaway).runaway());
    }
}

//! A run's statistics and its report (formulas.md, "Simulation:
//! definitions"). TTFT runs from arrival to the end of the iteration that
//! completes the prompt; TPOT is a request's mean gap between its later
//! tokens, (last - first) / (output - 1), and has no value for a request of
//! one output token; E2E runs from arrival to the last token. Percentiles
//! are nearest-rank. Throughput divides by the span from the first
//! arrival to the last finish, and `mean_in_flight` is the time-average of
//! requests arrived and not finished over that span.

use super::scheduler::{Outcome, Totals};
use super::slo::Target;
use super::{SimCost, Workload};
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::units;

/// Mean and percentiles of one latency.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// How many values.
    pub n: usize,
}

/// The nearest-rank `p`th percentile of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let k = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[k.clamp(1, sorted.len()) - 1]
}

impl Spread {
    /// The spread of the batch sizes counted: the same figures as
    /// [`Spread::of`] on the list of them (the sum of whole sizes is
    /// exact either way).
    fn of_counts(b: &super::scheduler::BatchSizes) -> Self {
        let n = b.len();
        Spread {
            mean: if n == 0 {
                f64::NAN
            } else {
                b.sum() as f64 / n as f64
            },
            p50: b.percentile(50.0),
            p90: b.percentile(90.0),
            p99: b.percentile(99.0),
            n: n as usize,
        }
    }

    fn of(v: &mut [f64]) -> Self {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        Spread {
            mean: if n == 0 {
                f64::NAN
            } else {
                v.iter().sum::<f64>() / n as f64
            },
            p50: percentile(v, 50.0),
            p90: percentile(v, 90.0),
            p99: percentile(v, 99.0),
            n,
        }
    }
}

/// How a run went against one target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Against {
    /// The target.
    pub target: Target,
    /// The run's value at the target's percentile.
    pub value_s: f64,
    /// target / value - 1: above zero it is met with that much room.
    pub margin: f64,
}

impl Against {
    /// Whether the target is met.
    pub fn met(&self) -> bool {
        self.value_s <= self.target.seconds
    }

    /// Records the run's value at the target's percentile under
    /// `value_key` and the margin under `margin_key`, as simulate's and
    /// fleet's reports show a target (`k`: `ttft` or `tpot`); `said` words
    /// the value's formula before the target, `margin_formula` the
    /// margin's. A margin that is no number is recorded as null.
    pub fn record(
        &self,
        r: &mut Report,
        k: &str,
        (value_key, margin_key): (String, String),
        said: &str,
        margin_formula: &'static str,
    ) {
        let a = *self;
        r.result(value_key, a.value_s, || {
            Quantity::new(
                format!(
                    "{} at p{}",
                    k.to_uppercase(),
                    units::sig(a.target.percentile, 4)
                ),
                Unit::Seconds,
            )
            .formula(format!("{said}target {}", a.target.text()))
        });
        let m = if a.margin.is_finite() {
            serde_json::Value::from(a.margin)
        } else {
            serde_json::Value::Null
        };
        r.result(margin_key, m, || {
            Quantity::new(format!("{} margin", k.to_uppercase()), Unit::Fraction)
                .formula(margin_formula)
        });
    }
}

/// Every statistic of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    /// Time to first token.
    pub ttft: Spread,
    /// Time per output token.
    pub tpot: Spread,
    /// End to end.
    pub e2e: Spread,
    /// Arrival to first scheduled.
    pub queue: Spread,
    /// Requests finished.
    pub requests: u64,
    /// First arrival to last finish, seconds.
    pub span_s: f64,
    /// Requests per second.
    pub throughput: f64,
    /// Output tokens per second, all devices.
    pub output_tokens_per_s: f64,
    /// Output tokens per second per device.
    pub output_tokens_per_s_per_device: f64,
    /// Time-mean of requests in the system.
    pub mean_in_flight: f64,
    /// Requests meeting every target, per second.
    pub goodput: f64,
    /// The TTFT target, if any.
    pub ttft_slo: Option<Against>,
    /// The TPOT target, if any.
    pub tpot_slo: Option<Against>,
    /// Time-mean share of KV blocks held (busy and idle time).
    pub kv_mean: f64,
    /// Largest share held.
    pub kv_peak: f64,
    /// Sequences per iteration.
    pub batch: Spread,
    /// Largest batch.
    pub batch_max: u32,
    /// Iterations.
    pub iterations: u64,
    /// Preemptions.
    pub preemptions: u64,
    /// Share of the span the replicas were busy.
    pub busy: f64,
    /// Devices in all.
    pub devices: u64,
    /// Whether the last quarter of requests (by arrival) alone meets every
    /// target too: a queue still growing at the end of a run fails it.
    pub late_meets: bool,
}

impl Summary {
    /// The statistics of `out` and `t` over `replicas` replicas on
    /// `devices` devices.
    pub fn of(out: &[Outcome], t: &Totals, replicas: u64, devices: u64, w: &Workload) -> Self {
        let first = out
            .iter()
            .map(|o| o.arrival_s)
            .fold(f64::INFINITY, f64::min);
        let last = out.iter().map(|o| o.finish_s).fold(0.0, f64::max);
        let span = (last - first).max(f64::MIN_POSITIVE);
        let mut ttft: Vec<f64> = out.iter().map(|o| o.first_token_s - o.arrival_s).collect();
        let mut e2e: Vec<f64> = out.iter().map(|o| o.finish_s - o.arrival_s).collect();
        let mut queue: Vec<f64> = out.iter().map(|o| o.start_s - o.arrival_s).collect();
        let tpot_of = |o: &Outcome| {
            (o.output > 1).then(|| (o.finish_s - o.first_token_s) / (o.output - 1) as f64)
        };
        let mut tpot: Vec<f64> = out.iter().filter_map(tpot_of).collect();
        let tokens: u64 = out.iter().map(|o| o.output).sum();
        let good = out
            .iter()
            .filter(|o| {
                w.slo_ttft
                    .is_none_or(|s| o.first_token_s - o.arrival_s <= s.seconds)
                    && w.slo_tpot
                        .is_none_or(|s| tpot_of(o).is_none_or(|x| x <= s.seconds))
            })
            .count();
        let s = Summary {
            ttft: Spread::of(&mut ttft),
            tpot: Spread::of(&mut tpot),
            e2e: Spread::of(&mut e2e),
            queue: Spread::of(&mut queue),
            requests: out.len() as u64,
            span_s: span,
            throughput: out.len() as f64 / span,
            output_tokens_per_s: tokens as f64 / span,
            output_tokens_per_s_per_device: tokens as f64 / span / devices as f64,
            mean_in_flight: t.in_flight_area / span,
            goodput: good as f64 / span,
            ttft_slo: None,
            tpot_slo: None,
            kv_mean: t.kv_area / (span * replicas as f64),
            kv_peak: t.kv_peak,
            batch: Spread::of_counts(&t.batch_sizes),
            batch_max: t.batch_sizes.max(),
            iterations: t.iterations,
            preemptions: t.preemptions,
            busy: t.busy_s / (span * replicas as f64),
            devices,
            late_meets: true,
        };
        let against = |target: Target, sorted: &[f64]| {
            let v = percentile(sorted, target.percentile);
            // No request with a second token: the TPOT target binds nothing.
            let v = if v.is_nan() { 0.0 } else { v };
            Against {
                target,
                value_s: v,
                margin: if v > 0.0 {
                    target.seconds / v - 1.0
                } else {
                    f64::INFINITY
                },
            }
        };
        // The last quarter by arrival (outcomes are in arrival order).
        let late = &out[out.len() - out.len() / 4..];
        let mut late_ttft: Vec<f64> = late.iter().map(|o| o.first_token_s - o.arrival_s).collect();
        let mut late_tpot: Vec<f64> = late.iter().filter_map(tpot_of).collect();
        late_ttft.sort_by(f64::total_cmp);
        late_tpot.sort_by(f64::total_cmp);
        let late_meets = w.slo_ttft.is_none_or(|x| against(x, &late_ttft).met())
            && w.slo_tpot.is_none_or(|x| against(x, &late_tpot).met());
        Summary {
            late_meets,
            ttft_slo: w.slo_ttft.map(|x| against(x, &ttft)),
            tpot_slo: w.slo_tpot.map(|x| against(x, &tpot)),
            ..s
        }
    }

    /// Whether every target given is met.
    pub fn meets(&self) -> bool {
        self.ttft_slo.is_none_or(|a| a.met()) && self.tpot_slo.is_none_or(|a| a.met())
    }
}

fn secs(r: &mut Report, key: &'static str, v: f64, label: &str, formula: &str) {
    r.result(key, v, || {
        Quantity::new(label, Unit::Seconds).formula(formula)
    });
}

impl SimCost {
    /// The report.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("simulate", lean);
        let s = &self.summary;
        let w = &self.workload;
        r.hardware = Some(self.hardware.clone());
        r.model = Some(self.model.clone());
        match &w.arrivals {
            super::Arrivals::Poisson(x) => r.input("rate", *x),
            super::Arrivals::Closed(c) => r.input("concurrency", *c),
            super::Arrivals::Trace(_) => r.input("trace", true),
        }
        if !matches!(w.arrivals, super::Arrivals::Trace(_)) {
            r.input("prompt", w.prompt.text());
            r.input("output", w.output.text());
        }
        r.input("requests", w.requests);
        r.input("seed", w.seed);
        r.input("engine", self.engine.as_str());
        if w.prefix_hit > 0.0 {
            r.input("prefix_hit", w.prefix_hit);
        }
        let l = self.layout;
        for (k, v) in [("tp", l.tp), ("pp", l.pp), ("ep", l.ep), ("dp", l.dp)] {
            r.input(k, v);
        }
        r.input("max_batched_tokens", self.caps.max_tokens);
        r.input("max_seqs", self.caps.max_seqs);
        if let Some(p) = &self.pools {
            r.input("prefill_hw", p.hardware.clone());
            let l = p.layout;
            for (k, v) in [
                ("prefill_tp", l.tp),
                ("prefill_pp", l.pp),
                ("prefill_ep", l.ep),
                ("prefill_dp", l.dp),
            ] {
                r.input(k, v);
            }
            r.input("prefill_max_batched_tokens", p.max_tokens);
        }
        r.input("block_size", self.caps.block);
        if let Some(d) = w.draft {
            r.input("speculative", d.text());
        }
        crate::calc::step::record_precisions(&mut r, self.precisions, self.mode);
        let mut head = vec![
            "ttft_p50_s",
            "ttft_p99_s",
            "tpot_p50_s",
            "tpot_p99_s",
            "e2e_p99_s",
            "queue_mean_s",
            "throughput_requests_per_s",
            "output_tokens_per_s_per_device",
            "mean_in_flight",
            "kv_use_mean",
            "kv_use_peak",
            "batch_size_mean",
            "preemptions",
            "power_w",
            "energy_per_token_j",
            "cost_per_million_output_tokens",
        ];
        if s.ttft_slo.is_some() || s.tpot_slo.is_some() {
            head.extend(["goodput_requests_per_s", "slo_met"]);
        }
        r.headline(&head);
        for (name, sp, what) in [
            ("ttft", &s.ttft, "time to first token"),
            ("tpot", &s.tpot, "time per output token"),
            ("e2e", &s.e2e, "end-to-end latency"),
        ] {
            let f = match name {
                "ttft" => "first token - arrival",
                "tpot" => "(last token - first token) / (output - 1), requests of 2+ tokens",
                _ => "last token - arrival",
            };
            if sp.n == 0 {
                // Every request had one output token: no gap to time.
                r.note(format!(
                    "no request has a second output token, so {what} has no value"
                ));
                continue;
            }
            let v = serde_json::Value::from;
            for (suffix, x, lab) in [
                ("mean", sp.mean, "mean"),
                ("p50", sp.p50, "p50"),
                ("p90", sp.p90, "p90"),
                ("p99", sp.p99, "p99"),
            ] {
                let key = format!("{name}_{suffix}_s");
                r.result(key, v(x), || {
                    Quantity::new(format!("{what}, {lab}"), Unit::Seconds).formula(f)
                });
            }
        }
        secs(
            &mut r,
            "queue_mean_s",
            s.queue.mean,
            "time queued, mean",
            "first scheduled - arrival",
        );
        secs(&mut r, "queue_p99_s", s.queue.p99, "time queued, p99", "");
        r.result("requests_finished", s.requests, || {
            Quantity::new("requests finished", Unit::Count)
        });
        secs(
            &mut r,
            "span_s",
            s.span_s,
            "span simulated",
            "last finish - first arrival",
        );
        r.result("throughput_requests_per_s", s.throughput, || {
            Quantity::new("throughput (requests/s)", Unit::None).formula("requests / span")
        });
        r.result("output_tokens_per_s", s.output_tokens_per_s, || {
            Quantity::new("output tokens/s", Unit::None).formula("output tokens / span")
        });
        r.result(
            "output_tokens_per_s_per_device",
            s.output_tokens_per_s_per_device,
            || {
                Quantity::new("output tokens/s per device", Unit::None)
                    .formula(format!("output tokens / span / {} devices", s.devices))
            },
        );
        r.result("mean_in_flight", s.mean_in_flight, || {
            Quantity::new("requests in the system, time-mean", Unit::None)
                .formula("integral of (arrived - finished) dt / span; Little's law: throughput x mean E2E")
                .derive(format!(
                    "throughput x mean E2E = {}",
                    units::sig(s.throughput * s.e2e.mean, 4)
                ))
        });
        if s.ttft_slo.is_some() || s.tpot_slo.is_some() {
            r.result("goodput_requests_per_s", s.goodput, || {
                Quantity::new("goodput (requests/s)", Unit::None)
                    .formula("requests meeting every target / span")
            });
            for (k, a) in [("ttft", s.ttft_slo), ("tpot", s.tpot_slo)] {
                if let Some(a) = a {
                    a.record(
                        &mut r,
                        k,
                        (format!("{k}_slo_value_s"), format!("{k}_slo_margin")),
                        "",
                        "target / value - 1 (below zero: missed)",
                    );
                }
            }
            r.result("slo_met", s.meets(), || {
                Quantity::new("every target met", Unit::None)
            });
        }
        r.result("kv_capacity_tokens", self.kv_tokens, || {
            Quantity::new("KV room per replica", Unit::Count)
                .formula("(usable memory - weights) / KV bytes per token, per device")
        });
        r.result("kv_use_mean", s.kv_mean, || {
            Quantity::new("KV blocks held, time-mean", Unit::Fraction)
        });
        r.result("kv_use_peak", s.kv_peak, || {
            Quantity::new("KV blocks held, peak", Unit::Fraction)
        });
        for (k, x, lab) in [
            (
                "batch_size_mean",
                s.batch.mean,
                "sequences per iteration, mean",
            ),
            (
                "batch_size_p50",
                s.batch.p50,
                "sequences per iteration, p50",
            ),
            (
                "batch_size_p90",
                s.batch.p90,
                "sequences per iteration, p90",
            ),
            (
                "batch_size_p99",
                s.batch.p99,
                "sequences per iteration, p99",
            ),
            (
                "batch_size_max",
                s.batch_max as f64,
                "sequences per iteration, most",
            ),
        ] {
            r.result(k, x, || Quantity::new(lab, Unit::Count));
        }
        r.result("iterations", s.iterations, || {
            Quantity::new("iterations", Unit::Count)
        });
        r.result("preemptions", s.preemptions, || {
            Quantity::new("preemptions (recomputed)", Unit::Count)
        });
        r.result("busy_fraction", s.busy, || {
            Quantity::new("share of the span busy", Unit::Fraction)
        });
        r.result("devices", s.devices, || {
            Quantity::new("devices", Unit::Count)
        });
        if let Some(p) = &self.pools {
            let l = p.layout;
            r.result("prefill_devices", l.devices(), || {
                Quantity::new("devices, prefill pool", Unit::Count).formula("prefill tp x pp x dp")
            });
            r.result("decode_devices", self.layout.devices(), || {
                Quantity::new("devices, decode pool", Unit::Count).formula("tp x pp x dp")
            });
            r.result("kv_transfer_mean_s", p.transfer_mean_s, || {
                Quantity::new("KV transfer, mean request", Unit::Seconds)
                    .formula("latency + prompt x KV bytes per token (all layers) / bandwidth")
            });
            r.result("kv_transfer_bandwidth", p.transfer.bandwidth, || {
                Quantity::new("KV transfer bandwidth", Unit::BytesPerSec).formula(format!(
                    "min(devices of a prefill replica x its link, devices of a decode replica x its link), {}",
                    p.transfer.link
                ))
            });
            r.result("prefill_kv_capacity_tokens", p.kv_tokens, || {
                Quantity::new("KV room per prefill replica", Unit::Count)
            });
            r.result("prefill_busy_fraction", p.busy, || {
                Quantity::new(
                    "share of the span the prefill pool was busy",
                    Unit::Fraction,
                )
            });
            r.note(format!(
                "disaggregated: {} prefill replica(s) on {} (tp {} pp {}) and {} decode replica(s) on {} (tp {} pp {}); TTFT is the prefill pool's queue and prefill plus the KV transfer over {}; the decode pool runs decode-only steps, and KV use, batches and busy time are its own",
                l.dp,
                p.hardware,
                l.tp,
                l.pp,
                self.layout.dp,
                self.hardware,
                self.layout.tp,
                self.layout.pp,
                p.transfer.link
            ));
        }
        if s.preemptions > 0 {
            r.note(format!(
                "the KV cache filled: {} preemptions, each recomputing its prompt and tokens so far",
                units::whole(s.preemptions)
            ));
        }
        if let Some(n) = &self.reserve_note {
            r.note(n.clone());
        }
        r.note("iterations priced by the same per-operation step cost as decode and prefill; a pipeline runs one batch through its stages in turn (no microbatching)");
        if let Some(d) = w.draft {
            r.note(draft_note(&d));
        }
        if let Some(out) = &self.outcomes {
            r.rows_kind = Some(RowsKind::Table);
            r.rows_are_records = true;
            for (i, o) in out.iter().enumerate() {
                let mut row = Row::default();
                row.inputs.insert("request".into(), (i as u64).into());
                let put = |row: &mut Row, k: &'static str, v: serde_json::Value| {
                    row.results.insert(k.into(), v);
                };
                put(&mut row, "arrival_s", o.arrival_s.into());
                put(&mut row, "prompt_tokens", o.prompt.into());
                put(&mut row, "output_tokens", o.output.into());
                put(&mut row, "queue_s", (o.start_s - o.arrival_s).into());
                put(&mut row, "ttft_s", (o.first_token_s - o.arrival_s).into());
                let tpot =
                    (o.output > 1).then(|| (o.finish_s - o.first_token_s) / (o.output - 1) as f64);
                // None for a request of one output token: left out.
                if let Some(t) = tpot {
                    put(&mut row, "tpot_s", t.into());
                }
                put(&mut row, "e2e_s", (o.finish_s - o.arrival_s).into());
                put(&mut row, "preemptions", o.preemptions.into());
                put(&mut row, "replica", o.replica.into());
                r.rows.push(row);
            }
            for (k, lab, u) in [
                ("request", "request", Unit::Count),
                ("arrival_s", "arrival", Unit::Seconds),
                ("prompt_tokens", "prompt", Unit::Count),
                ("output_tokens", "output", Unit::Count),
                ("queue_s", "queued", Unit::Seconds),
                ("ttft_s", "TTFT", Unit::Seconds),
                ("tpot_s", "TPOT", Unit::Seconds),
                ("e2e_s", "E2E", Unit::Seconds),
                ("replica", "replica", Unit::Count),
            ] {
                r.describe(k, Quantity::new(lab, u));
            }
        }
        if self.outcomes.is_none() && !self.timeline.is_empty() {
            timeline_rows(&mut r, &self.timeline);
        }
        self.energy.record(&mut r);
        r.note("energy per output token over the whole run: prefill, decode and idle waits between requests included");
        r
    }
}

/// The most points a timeline keeps.
pub const TIMELINE_POINTS: usize = 1000;

/// The state over time as rows against `time_s` (the last sample in each
/// of up to [`TIMELINE_POINTS`] equal slices of the run).
fn timeline_rows(r: &mut Report, t: &[[f64; 5]]) {
    let end = t.last().map_or(0.0, |x| x[0]);
    let slice = end / TIMELINE_POINTS as f64;
    let mut kept: Vec<[f64; 5]> = Vec::new();
    for x in t {
        let bucket = if slice > 0.0 {
            (x[0] / slice) as u64
        } else {
            0
        };
        match kept.last_mut() {
            Some(k) if slice > 0.0 && (k[0] / slice) as u64 == bucket => *k = *x,
            _ => kept.push(*x),
        }
    }
    r.rows_kind = Some(RowsKind::Sweep);
    r.axes = vec!["time_s".into()];
    for x in kept {
        let mut row = Row::default();
        row.inputs.insert("time_s".into(), x[0].into());
        row.results.insert("in_flight".into(), x[1].into());
        row.results.insert("running".into(), x[2].into());
        row.results.insert("kv_use".into(), x[3].into());
        let ttft = if x[4].is_nan() {
            serde_json::Value::Null
        } else {
            x[4].into()
        };
        row.results.insert("latest_ttft_s".into(), ttft);
        r.rows.push(row);
    }
    for (k, lab, u) in [
        ("time_s", "time", Unit::Seconds),
        ("in_flight", "requests in the system", Unit::Count),
        ("running", "sequences running (replica 0)", Unit::Count),
        ("kv_use", "KV blocks held (replica 0)", Unit::Fraction),
        ("latest_ttft_s", "latest TTFT", Unit::Seconds),
    ] {
        r.describe(k, Quantity::new(lab, u));
    }
}

/// What a run with speculative decoding did on each decode step
/// (formulas.md, "Simulation: speculative decoding"); `fleet` says it too.
pub fn draft_note(d: &crate::calc::speculative::Draft) -> String {
    use crate::calc::speculative::Acceptance;
    let g = d.draft_tokens;
    let cost = if d.draft_cost > 0.0 {
        format!(
            ", plus {g} draft passes at {} of a plain step each",
            units::sig(d.draft_cost, 4)
        )
    } else {
        ", the drafts free".to_string()
    };
    format!(
        "speculative decoding: each decode step verifies its last token and {g} draft{} as one {}-token step{cost}, and gains {} tokens ({}), whole tokens each step and the rest carried; the KV cache holds the drafted positions while they are verified, and a sequence drafts no more than the tokens it still owes",
        if g == 1 { "" } else { "s" },
        g + 1,
        match d.acceptance {
            Acceptance::Length { .. } => format!("L = {}", units::sig(d.tokens(g), 4)),
            _ => format!(
                "{} = {}",
                d.acceptance.formula(),
                units::sig(d.tokens(g), 4)
            ),
        },
        match d.acceptance {
            Acceptance::Length { each, .. } => format!(
                "the mean accepted length given; a shorter pass at the one rate that yields it, a = {}",
                units::sig(each, 4)
            ),
            _ => format!("a = {}", d.acceptance.text()),
        }
    )
}

//! The engine and the simulation loop (formulas.md, "Simulation:
//! scheduler"). Each replica runs iterations back to back while it has
//! work. An iteration first gives every running sequence its next tokens
//! in admission order (one for a decode, a chunk of what is left of its
//! prompt for a prefill) within the token budget, preempting the most
//! recently admitted sequences when the KV cache has no block for them
//! (they are recomputed later: their blocks are freed and they rejoin the
//! front of the queue); then, if nothing was preempted, admits waiting
//! requests first come, first served while there are sequence slots,
//! budget and free blocks. An iteration's tokens count when it ends: a
//! chunk that completes a prompt, and every decode, emits a token then.

use super::arrivals::{Arrivals, Request};
use super::cost::{Batch, StepCost};
use super::dist::Random;
use super::events::{Kind, Queue};
use super::kv::Pool;
use crate::error::Result;
use std::collections::VecDeque;

/// What the engine is set up with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Token budget of one iteration.
    pub max_tokens: u64,
    /// Sequences one iteration may hold.
    pub max_seqs: u64,
    /// Share of each prompt already cached.
    pub prefix_hit: f64,
    /// Attention window and the share of layers it applies to.
    pub window: crate::spec::model::Window,
    /// Data-parallel replicas, each with its own cache and queue.
    pub replicas: u64,
    /// A decode pool of a disaggregated deployment: each request arrives
    /// with its prompt's cache already computed (moved from a prefill
    /// pool) and its first token emitted, so it takes blocks for its prompt
    /// and decodes from its first iteration (formulas.md, "Simulation:
    /// disaggregated pools").
    pub prefilled: bool,
    /// Speculative decoding: each decode verifies its drafts as one
    /// multi-token step and gains the expected accepted tokens
    /// (formulas.md, "Simulation: speculative decoding").
    pub draft: Option<crate::calc::speculative::Draft>,
}

/// Positions a decode feeds this iteration: its last token alone, or with
/// speculative decoding that token and up to g drafts, within the
/// iteration's token budget and no more than the `owed` tokens it still
/// has to emit (formulas.md, "Simulation: speculative decoding").
fn verified(draft: Option<crate::calc::speculative::Draft>, budget: u64, owed: u64) -> u64 {
    match draft {
        None => 1,
        Some(d) => (d.draft_tokens + 1).min(budget).min(owed).max(1),
    }
}

/// Stops a run as soon as a target is sure to be missed: more requests
/// over a target's time than its percentile allows (`fleet` asks only
/// whether a run meets its targets).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Abort {
    /// TTFT target time, and the most requests that may exceed it.
    pub ttft: Option<(f64, u64)>,
    /// TPOT target time, and the most requests that may exceed it.
    pub tpot: Option<(f64, u64)>,
}

/// What happened to one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// Arrival, seconds.
    pub arrival_s: f64,
    /// Prompt tokens.
    pub prompt: u64,
    /// Output tokens.
    pub output: u64,
    /// First scheduled, seconds.
    pub start_s: f64,
    /// First token, seconds.
    pub first_token_s: f64,
    /// Last token, seconds.
    pub finish_s: f64,
    /// Times preempted.
    pub preemptions: u32,
    /// The replica that served it.
    pub replica: u32,
}

/// One request in the system.
#[derive(Debug, Clone, Copy)]
struct Live {
    skip: u64,
    computed: u64,
    target: u64,
    generated: u64,
    prefilling: bool,
    blocks: u64,
    done: bool,
    /// Speculative decoding: the expected accepted tokens not yet emitted
    /// (a share of one token, carried to the next pass).
    credit: f64,
}

/// A replica's state.
struct Engine {
    waiting: VecDeque<u32>,
    running: Vec<u32>,
    pool: Pool,
    busy: bool,
    /// The iteration in flight: (request, new tokens).
    batch: Vec<(u32, u64)>,
    started_s: f64,
}

/// How many iterations ran each batch size (index: sequences).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchSizes {
    counts: Vec<u64>,
}

impl BatchSizes {
    /// Counts one iteration of `size` sequences.
    pub fn add(&mut self, size: u32) {
        let i = size as usize;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
    }

    /// The iterations counted.
    pub fn len(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Whether none was counted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The largest size counted (0 for none).
    pub fn max(&self) -> u32 {
        self.counts.iter().rposition(|&c| c > 0).unwrap_or(0) as u32
    }

    /// The sum of the sizes over every iteration.
    pub fn sum(&self) -> u64 {
        self.counts
            .iter()
            .enumerate()
            .map(|(size, &c)| size as u64 * c)
            .sum()
    }

    /// The nearest-rank `p`th percentile, as [`super::report::percentile`]
    /// gives it on the sorted list of sizes (NaN for none).
    pub fn percentile(&self, p: f64) -> f64 {
        let n = self.len();
        if n == 0 {
            return f64::NAN;
        }
        let k = (((p / 100.0) * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0u64;
        for (size, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= k {
                return size as f64;
            }
        }
        self.max() as f64
    }
}

/// Figures over the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    /// Iterations, all replicas.
    pub iterations: u64,
    /// Sequences in each iteration, as a count of iterations per batch
    /// size: exact percentiles in memory bounded by the largest batch, not
    /// by the run's iterations (about 14 a request: 112 MB at a million
    /// requests as a list).
    pub batch_sizes: BatchSizes,
    /// Sum over iterations of sequences x duration (for the time-mean).
    pub batch_area: f64,
    /// Sum over iterations of the share of blocks held x duration.
    pub kv_area: f64,
    /// The largest share of blocks held.
    pub kv_peak: f64,
    /// Time-integral of requests in the system (arrived, not finished).
    pub in_flight_area: f64,
    /// Preemptions.
    pub preemptions: u64,
    /// Busy time summed over replicas, seconds.
    pub busy_s: f64,
    /// (time, requests in the system, sequences running on replica 0, its
    /// share of KV held, the latest TTFT seen) after each of replica 0's
    /// iterations, for the chart.
    pub timeline: Vec<[f64; 5]>,
}

/// A run: requests, replicas, one event queue, one random stream.
pub struct Simulation<C: StepCost> {
    cfg: Config,
    cost: C,
    rng: Random,
    queue: Queue,
    now: f64,
    requests: Vec<Request>,
    out: Vec<Outcome>,
    live: Vec<Live>,
    engines: Vec<Engine>,
    closed: bool,
    next_closed: usize,
    /// Arrivals come only from [`Simulation::arrive_at`]: a pool of a
    /// disaggregated closed loop, whose clients wait on the other pool.
    external: bool,
    /// Requests finished since [`Simulation::take_finished`] last ran, with
    /// their times (kept only when external).
    finished: Vec<(u32, f64)>,
    in_flight: u64,
    last_change: f64,
    totals: Totals,
    keep_timeline: bool,
    last_ttft: f64,
    abort: Option<Abort>,
    misses: (u64, u64),
    aborted: bool,
    /// Scratch: (drafts, cached tokens) of each speculating decode in the
    /// iteration being formed.
    drafting: Vec<(u64, u64)>,
}

impl<C: StepCost> Simulation<C> {
    /// A run of `requests` (arrival times set for Poisson and traces; a
    /// closed loop sends its first `concurrency` at time zero), each
    /// replica holding `kv_tokens` tokens of cache in blocks of `block`.
    pub fn new(
        cfg: Config,
        cost: C,
        arrivals: &Arrivals,
        requests: Vec<Request>,
        kv_tokens: u64,
        block: u64,
        seed: u64,
    ) -> Self {
        let n = requests.len();
        let engines = (0..cfg.replicas.max(1))
            .map(|_| Engine {
                waiting: VecDeque::new(),
                running: Vec::new(),
                pool: Pool::new(kv_tokens, block),
                busy: false,
                batch: Vec::new(),
                started_s: 0.0,
            })
            .collect();
        let mut s = Simulation {
            cfg,
            cost,
            // The lengths were drawn from the seed's own stream; routing
            // draws from a second one so it does not shift them.
            rng: Random::new(seed ^ 0x9e37_79b9_7f4a_7c15),
            queue: Queue::default(),
            now: 0.0,
            out: requests
                .iter()
                .map(|r| Outcome {
                    arrival_s: r.arrival_s,
                    prompt: r.prompt,
                    output: r.output,
                    start_s: f64::NAN,
                    first_token_s: f64::NAN,
                    finish_s: f64::NAN,
                    preemptions: 0,
                    replica: 0,
                })
                .collect(),
            live: Vec::with_capacity(n),
            requests,
            engines,
            closed: false,
            next_closed: 0,
            external: false,
            finished: Vec::new(),
            in_flight: 0,
            last_change: 0.0,
            totals: Totals::default(),
            keep_timeline: false,
            last_ttft: f64::NAN,
            abort: None,
            misses: (0, 0),
            aborted: false,
            drafting: Vec::new(),
        };
        match arrivals {
            Arrivals::Closed(users) => {
                s.closed = true;
                let first = (*users as usize).min(n);
                for i in 0..first {
                    s.queue.push(0.0, Kind::Arrival { req: i as u32 });
                }
                s.next_closed = first;
            }
            _ => {
                if let Some(r) = s.requests.first() {
                    s.queue.push(r.arrival_s, Kind::Arrival { req: 0 });
                }
            }
        }
        s
    }

    /// A run whose requests arrive only when [`Simulation::arrive_at`]
    /// sends them (one pool of a disaggregated closed loop): none is sent
    /// at the start, none follows another, and each finish is kept for
    /// [`Simulation::take_finished`].
    pub fn external(
        cfg: Config,
        cost: C,
        requests: Vec<Request>,
        kv_tokens: u64,
        block: u64,
        seed: u64,
    ) -> Self {
        let mut s = Self::new(
            cfg,
            cost,
            &Arrivals::Closed(0),
            requests,
            kv_tokens,
            block,
            seed,
        );
        s.external = true;
        s
    }

    /// Sends request `req` at time `t` (not before the run's time now).
    pub fn arrive_at(&mut self, req: u32, t: f64) {
        self.queue.push(t.max(self.now), Kind::Arrival { req });
    }

    /// The time of the next event, if any.
    pub fn next_time(&self) -> Option<f64> {
        if self.aborted {
            return None;
        }
        self.queue.next_time()
    }

    /// The requests finished (their last token) since the last call, with
    /// the time each finished.
    pub fn take_finished(&mut self) -> Vec<(u32, f64)> {
        std::mem::take(&mut self.finished)
    }

    /// Keeps replica 0's state after every iteration (for `--chart`).
    pub fn keep_timeline(&mut self) {
        self.keep_timeline = true;
    }

    /// Stops the run once `a` says a target is missed.
    pub fn abort_when(&mut self, a: Abort) {
        self.abort = Some(a);
    }

    /// Whether the run stopped early, a target sure to be missed.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// The time now.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Runs the next event; false when none is left.
    pub fn step(&mut self) -> Result<bool> {
        if self.aborted {
            return Ok(false);
        }
        let Some(e) = self.queue.pop() else {
            return Ok(false);
        };
        self.now = e.time;
        match e.kind {
            Kind::Arrival { req } => self.arrive(req)?,
            Kind::Done { engine } => self.done(engine as usize)?,
        }
        Ok(true)
    }

    /// Runs every event up to and including time `t`.
    pub fn step_until_time(&mut self, t: f64) -> Result<()> {
        while self.queue.next_time().is_some_and(|x| x <= t) {
            self.step()?;
        }
        Ok(())
    }

    /// Runs to the end.
    pub fn step_until_no_events(&mut self) -> Result<()> {
        while self.step()? {}
        Ok(())
    }

    /// Each request's outcome and the run's totals.
    pub fn finish(self) -> (Vec<Outcome>, Totals) {
        (self.out, self.totals)
    }

    fn count_in_flight(&mut self, delta: i64) {
        self.totals.in_flight_area += self.in_flight as f64 * (self.now - self.last_change);
        self.last_change = self.now;
        self.in_flight = self.in_flight.saturating_add_signed(delta);
    }

    fn arrive(&mut self, req: u32) -> Result<()> {
        let i = req as usize;
        self.count_in_flight(1);
        if !self.closed && i + 1 < self.requests.len() {
            let t = self.requests[i + 1].arrival_s;
            self.queue.push(t, Kind::Arrival { req: req + 1 });
        }
        let r = self.requests[i];
        // The cached prefix leaves at least the prompt's last token to run,
        // for its logits. A prefilled arrival brings its whole prompt's
        // cache, but a preempted one recomputes all of it (skip 0).
        let skip = if self.cfg.prefilled {
            0
        } else {
            ((self.cfg.prefix_hit * r.prompt as f64).floor() as u64).min(r.prompt - 1)
        };
        if self.live.len() <= i {
            self.live.resize(
                i + 1,
                Live {
                    skip: 0,
                    computed: 0,
                    target: 0,
                    generated: 0,
                    prefilling: true,
                    blocks: 0,
                    done: false,
                    credit: 0.0,
                },
            );
        }
        let pre = self.cfg.prefilled;
        self.live[i] = Live {
            skip,
            computed: if pre { r.prompt } else { skip },
            target: r.prompt,
            generated: u64::from(pre),
            prefilling: !pre,
            blocks: 0,
            done: false,
            credit: 0.0,
        };
        self.out[i].arrival_s = self.now;
        if pre {
            // Its first token came from the prefill pool with its cache.
            self.out[i].first_token_s = self.now;
        }
        let e = if self.engines.len() > 1 {
            self.rng.below(self.engines.len() as u64) as usize
        } else {
            0
        };
        self.out[i].replica = e as u32;
        self.engines[e].waiting.push_back(req);
        if !self.engines[e].busy {
            self.start(e)?;
        }
        Ok(())
    }

    /// Forms and starts replica `e`'s next iteration, if it has work.
    fn start(&mut self, e: usize) -> Result<()> {
        let cfg = self.cfg;
        let eng = &mut self.engines[e];
        let live = &mut self.live;
        let out = &mut self.out;
        let mut budget = cfg.max_tokens;
        let mut b = Batch::default();
        let mut drafting = std::mem::take(&mut self.drafting);
        drafting.clear();
        eng.batch.clear();
        let mut preempted = false;
        let mut i = 0;
        while i < eng.running.len() && budget > 0 {
            let r = eng.running[i] as usize;
            let l = live[r];
            let new = if l.prefilling {
                (l.target - l.computed).min(budget)
            } else {
                verified(cfg.draft, budget, out[r].output - l.generated)
            };
            let need = eng.pool.more_for(l.blocks, l.computed + new);
            let mut self_out = false;
            while eng.pool.free < need {
                let Some(v) = eng.running.pop() else { break };
                let lv = &mut live[v as usize];
                eng.pool.free += lv.blocks;
                lv.blocks = 0;
                lv.computed = lv.skip;
                // Recompute the prompt and every token emitted so far; its
                // last chunk emits the next token.
                lv.target = out[v as usize].prompt + lv.generated;
                lv.prefilling = true;
                out[v as usize].preemptions += 1;
                eng.waiting.push_front(v);
                self.totals.preemptions += 1;
                preempted = true;
                if v as usize == r {
                    self_out = true;
                    break;
                }
            }
            if self_out {
                break;
            }
            eng.pool.free -= need;
            let l = &mut live[r];
            l.blocks += need;
            budget -= new;
            let sampled = if l.prefilling {
                u64::from(l.computed + new == l.target)
            } else {
                new
            };
            b.add_sampled(new, l.computed, sampled, cfg.window);
            if !l.prefilling && new > 1 {
                drafting.push((new - 1, l.computed));
            }
            eng.batch.push((r as u32, new));
            i += 1;
        }
        while !preempted && budget > 0 && (eng.running.len() as u64) < cfg.max_seqs {
            let Some(&w) = eng.waiting.front() else { break };
            let l = live[w as usize];
            // A prefilled arrival decodes its next token at once.
            let new = if l.prefilling {
                (l.target - l.computed).min(budget)
            } else {
                verified(cfg.draft, budget, out[w as usize].output - l.generated)
            };
            let need = eng.pool.more_for(l.blocks, l.computed + new);
            if eng.pool.free < need {
                break;
            }
            eng.waiting.pop_front();
            eng.running.push(w);
            eng.pool.free -= need;
            let l = &mut live[w as usize];
            l.blocks += need;
            budget -= new;
            let sampled = if l.prefilling {
                u64::from(l.computed + new == l.target)
            } else {
                new
            };
            b.add_sampled(new, l.computed, sampled, cfg.window);
            if !l.prefilling && new > 1 {
                drafting.push((new - 1, l.computed));
            }
            eng.batch.push((w, new));
            let o = &mut out[w as usize];
            if o.start_s.is_nan() {
                o.start_s = self.now;
            }
        }
        if eng.batch.is_empty() {
            eng.busy = false;
            self.drafting = drafting;
            return Ok(());
        }
        let mut dt = self.cost.seconds(&b)?;
        if let Some(d) = cfg.draft
            && d.draft_cost > 0.0
            && !drafting.is_empty()
        {
            dt += super::cost::draft_seconds(
                &mut self.cost,
                &mut drafting,
                d.draft_cost,
                cfg.window,
            )?;
        }
        self.drafting = drafting;
        let eng = &mut self.engines[e];
        eng.busy = true;
        eng.started_s = self.now;
        let t = &mut self.totals;
        t.iterations += 1;
        t.batch_sizes.add(eng.batch.len() as u32);
        t.batch_area += eng.batch.len() as f64 * dt;
        let kv = if eng.pool.total == 0 {
            0.0
        } else {
            eng.pool.used() as f64 / eng.pool.total as f64
        };
        t.kv_area += kv * dt;
        t.kv_peak = t.kv_peak.max(kv);
        t.busy_s += dt;
        self.queue
            .push(self.now + dt, Kind::Done { engine: e as u32 });
        Ok(())
    }

    fn done(&mut self, e: usize) -> Result<()> {
        let now = self.now;
        let mut finished = 0u64;
        let batch = std::mem::take(&mut self.engines[e].batch);
        for &(r, new) in &batch {
            let (l, o) = (&mut self.live[r as usize], &mut self.out[r as usize]);
            let emitted = if l.prefilling {
                l.computed += new;
                if l.computed == l.target {
                    l.prefilling = false;
                    1
                } else {
                    0
                }
            } else if new == 1 {
                l.computed += 1;
                1
            } else {
                // A verify pass of new - 1 drafts: the expected accepted
                // tokens, whole ones now and the share carried; the cache
                // keeps the accepted positions.
                let e = self.cfg.draft.map_or(1.0, |d| d.tokens(new - 1));
                let x = l.credit + e;
                let k = (x.floor() as u64).clamp(1, new);
                l.credit = (x - k as f64).max(0.0);
                l.computed += k;
                k
            };
            if emitted > 0 {
                l.generated += emitted;
                if o.first_token_s.is_nan() {
                    o.first_token_s = now;
                    self.last_ttft = now - o.arrival_s;
                    if let Some((t, most)) = self.abort.and_then(|a| a.ttft)
                        && now - o.arrival_s > t
                    {
                        self.misses.0 += 1;
                        self.aborted |= self.misses.0 > most;
                    }
                }
                if l.generated >= o.output {
                    if let Some((t, most)) = self.abort.and_then(|a| a.tpot)
                        && o.output > 1
                        && (now - o.first_token_s) / (o.output - 1) as f64 > t
                    {
                        self.misses.1 += 1;
                        self.aborted |= self.misses.1 > most;
                    }
                    o.finish_s = now;
                    l.done = true;
                    if self.external {
                        self.finished.push((r, now));
                    }
                    self.engines[e].pool.free += l.blocks;
                    l.blocks = 0;
                    finished += 1;
                }
            }
        }
        self.engines[e].batch = batch;
        if finished > 0 {
            let live = &self.live;
            self.engines[e].running.retain(|&r| !live[r as usize].done);
            for _ in 0..finished {
                self.count_in_flight(-1);
                if self.closed && !self.external && self.next_closed < self.requests.len() {
                    let i = self.next_closed;
                    self.next_closed += 1;
                    self.queue.push(now, Kind::Arrival { req: i as u32 });
                }
            }
        }
        if self.keep_timeline && e == 0 {
            let eng = &self.engines[0];
            let kv = if eng.pool.total == 0 {
                0.0
            } else {
                eng.pool.used() as f64 / eng.pool.total as f64
            };
            self.totals.timeline.push([
                now,
                self.in_flight as f64,
                eng.running.len() as f64,
                kv,
                self.last_ttft,
            ]);
        }
        self.start(e)
    }
}

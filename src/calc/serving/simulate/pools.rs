//! Disaggregated prefill and decode pools (formulas.md, "Simulation:
//! disaggregated pools"), as two coupled simulations: the prefill pool
//! runs every prompt (each request leaves it when its prompt completes);
//! its cache then crosses the scale-out fabric to the decode pool, and the
//! moment it lands is the request's arrival there. The decode pool runs
//! decode-only steps ([`Config::prefilled`]). A request's TTFT is its
//! prefill pool queue, prefill and KV transfer; its TPOT comes from the
//! decode pool's steps.

use super::arrivals::{Arrivals, Request};
use super::cost::StepCost;
use super::dist::Random;
use super::scheduler::{Abort, Config, Outcome, Simulation, Totals};
use super::slo::Target;
use crate::calc::collective::{Fabric, Kind};
use crate::calc::plan::Layout;
use crate::error::{Error, Result};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;

/// The KV cache's move from a prefill replica to a decode replica.
#[derive(Debug, Clone, PartialEq)]
pub struct Transfer {
    /// Bytes of one prompt token's cache, every layer.
    pub bytes_per_token: f64,
    /// Bytes per second between the two replicas.
    pub bandwidth: f64,
    /// Fixed seconds per move (the links' latency; 0 at speed of light).
    pub latency_s: f64,
    /// The links it crosses (`nic`, or `h200-sxm nic -> b200 nic`).
    pub link: String,
}

impl Transfer {
    /// Seconds to move a prompt of `prompt` tokens.
    pub fn seconds(&self, prompt: u64) -> f64 {
        self.latency_s + prompt as f64 * self.bytes_per_token / self.bandwidth
    }
}

/// One side's scale-out link: bandwidth per device one way (times its
/// send/recv efficiency) and latency, or why it is missing. Under
/// `--achievable` a file without a measured scale-out figure takes its
/// datasheet figure at the share its measured scale-up link reaches of its
/// own datasheet figure (formulas.md, "Simulation: disaggregated pools"),
/// named in the link's text.
pub fn link(hw: &Hardware, mode: Mode) -> Result<(f64, f64, String)> {
    let fabric = Fabric::of(hw, mode);
    let t = match fabric.scale_out() {
        Err(Error::MissingField { field, .. })
            if mode == Mode::Achievable && field.starts_with("achievable.link-bandwidth.") =>
        {
            return datasheet_share(hw, &field);
        }
        t => t?,
    };
    let Some(t) = t else {
        return Err(Error::Unsupported(format!(
            "{} has no scale-out interconnect (an [[interconnect]] with tier = \"scale-out\" and its per-direction-bandwidth), which prices the KV transfer between disaggregated pools; add one to a copy of the file (`roofline hw new`)",
            hw.id
        )));
    };
    let eff = t.efficiency[Kind::SendRecv.index()];
    Ok((
        t.bandwidth * eff,
        t.hop_latency + t.fixed_latency,
        t.name.clone(),
    ))
}

/// The scale-out link under `--achievable` without its own measurement:
/// the datasheet figure times measured / datasheet of the scale-up link
/// (the share a measured NCCL send/recv reaches); `missing` is the field
/// that would give it, named when the scale-up link has no measurement
/// either.
fn datasheet_share(hw: &Hardware, missing: &str) -> Result<(f64, f64, String)> {
    let sol = Fabric::of(hw, Mode::SpeedOfLight);
    let ach = Fabric::of(hw, Mode::Achievable);
    let none = || {
        Error::MissingField {
        owner: hw.id.clone(),
        field: missing.to_string(),
        why: "the measured scale-out bandwidth that prices the KV transfer between disaggregated pools (--achievable); without it the datasheet figure is taken at the share the measured scale-up link reaches, and this part has no measured scale-up link either".into(),
        example: Some("45 GB/s".into()),
    }
    };
    let (Ok(Some(out)), Ok(Some(up_sol)), Ok(Some(up))) =
        (sol.scale_out(), sol.scale_up(), ach.scale_up())
    else {
        return Err(none());
    };
    if !(up_sol.bandwidth > 0.0 && up.bandwidth > 0.0) {
        return Err(none());
    }
    let share = (up.bandwidth * up.efficiency[Kind::SendRecv.index()] / up_sol.bandwidth).min(1.0);
    Ok((
        out.bandwidth * share,
        out.hop_latency,
        format!(
            "{} (its datasheet {}/s x {:.1}%, the share the measured {} reaches of its datasheet figure; set {missing} to a measurement)",
            out.name,
            crate::units::si(out.bandwidth, "B"),
            share * 100.0,
            up.name
        ),
    ))
}

/// The transfer from a prefill replica of layout `lp` on `hp` to a decode
/// replica of `ld` on `hd`: each device sends (and receives) over its own
/// scale-out link, so the move runs at the slower side's devices x link
/// bandwidth; `kv_bytes` is the cache's bytes per element.
pub fn transfer(
    m: &Model,
    kv_bytes: f64,
    (hp, lp): (&Hardware, Layout),
    (hd, ld): (&Hardware, Layout),
    mode: Mode,
) -> Result<Transfer> {
    let (bp, ap, np) = link(hp, mode)?;
    let (bd, ad, nd) = link(hd, mode)?;
    let per_token = crate::calc::model::kv_elements_per_token_per_layer(m)? as f64
        * kv_bytes
        * m.layers.get() as f64;
    let send = (lp.tp * lp.pp) as f64 * bp;
    let recv = (ld.tp * ld.pp) as f64 * bd;
    Ok(Transfer {
        bytes_per_token: per_token,
        bandwidth: send.min(recv),
        latency_s: ap.max(ad),
        link: if hp.id == hd.id {
            np
        } else {
            format!("{} {np} -> {} {nd}", hp.id, hd.id)
        },
    })
}

/// The prefill pool's share of each request: its prompt and the first
/// token only.
pub fn prefill_requests(reqs: &[Request]) -> Vec<Request> {
    reqs.iter().map(|r| Request { output: 1, ..*r }).collect()
}

/// Runs the prefill pool over `reqs` (arrival times set); each request's
/// outcome there (its first token ends its prompt).
pub fn run_prefill<C: StepCost>(
    cfg: Config,
    cost: C,
    reqs: &[Request],
    kv_tokens: u64,
    block: u64,
    seed: u64,
) -> Result<(Vec<Outcome>, Totals)> {
    let mut sim = Simulation::new(
        cfg,
        cost,
        &Arrivals::Trace(Vec::new()),
        prefill_requests(reqs),
        kv_tokens,
        block,
        seed,
    );
    sim.step_until_no_events()?;
    Ok(sim.finish())
}

/// Routing among decode replicas draws from its own stream, apart from
/// the lengths' and the prefill pool's: one draw a request when there are
/// two replicas or more.
pub fn route_stream(seed: u64) -> Random {
    Random::new(seed ^ 0x5851_f42d_4c95_7f2d)
}

/// Whether a request whose routing draw is `u` (uniform on [0, 1)) goes to
/// the first of `r` decode replicas (`Random::below(r) == 0`): true for
/// every `r` up to some largest one, since `u r` only grows with `r`.
pub fn routed_first(u: f64, r: u64) -> bool {
    r <= 1 || ((u * r as f64) as u64).min(r - 1) == 0
}

/// The decode pool's run: which requests it served and how.
pub struct Decoded {
    /// Each request served, joined across both pools (arrival at the
    /// prefill pool, first token when its cache lands, last token).
    pub outcomes: Vec<Outcome>,
    /// The decode pool's totals; `in_flight_area` spans both pools.
    pub totals: Totals,
}

/// Runs the decode pool on what the prefill pool produced: `pre` is each
/// request's prefill outcome (in `reqs`' order). With `only` set to
/// `Some(r)` the landed requests are routed at random among `r` decode
/// replicas and only the first is simulated (the replicas are exchangeable);
/// otherwise `cfg.replicas` replicas run. `timeline` keeps decode
/// replica 0's state over time. `abort`, a TPOT target, stops a run once
/// it is sure to be missed (then `None`).
#[allow(clippy::too_many_arguments)]
pub fn run_decode<C: StepCost>(
    cfg: Config,
    cost: C,
    reqs: &[Request],
    pre: &[Outcome],
    transfer: &Transfer,
    kv_tokens: u64,
    block: u64,
    seed: u64,
    only: Option<u64>,
    abort: Option<Target>,
    timeline: bool,
) -> Result<Option<Decoded>> {
    let mut route = route_stream(seed);
    let mut kept: Vec<usize> = Vec::with_capacity(reqs.len());
    for k in 0..reqs.len() {
        if let Some(r) = only
            && r > 1
            && !routed_first(route.unit(), r)
        {
            continue;
        }
        kept.push(k);
    }
    // Requests of one output token are done when their prompt is.
    let land = |k: usize| pre[k].first_token_s + transfer.seconds(reqs[k].prompt);
    let mut moving: Vec<usize> = kept
        .iter()
        .copied()
        .filter(|&k| reqs[k].output > 1)
        .collect();
    moving.sort_by(|&a, &b| land(a).total_cmp(&land(b)).then(a.cmp(&b)));
    let dreqs: Vec<Request> = moving
        .iter()
        .map(|&k| Request {
            arrival_s: land(k),
            ..reqs[k]
        })
        .collect();
    let cfg = Config {
        prefilled: true,
        replicas: if only.is_some() { 1 } else { cfg.replicas },
        ..cfg
    };
    let mut sim = Simulation::new(
        cfg,
        cost,
        &Arrivals::Trace(Vec::new()),
        dreqs,
        kv_tokens,
        block,
        seed,
    );
    if let Some(t) = abort {
        // Nearest rank: n - ceil(p n / 100) requests may exceed the time.
        let n = moving.len() as u64;
        sim.abort_when(Abort {
            ttft: None,
            tpot: Some((
                t.seconds,
                n - ((t.percentile / 100.0) * n as f64).ceil() as u64,
            )),
        });
    }
    if timeline {
        sim.keep_timeline();
    }
    sim.step_until_no_events()?;
    if sim.aborted() {
        return Ok(None);
    }
    let (dout, mut totals) = sim.finish();
    let mut at = vec![usize::MAX; reqs.len()];
    for (j, &k) in moving.iter().enumerate() {
        at[k] = j;
    }
    let outcomes: Vec<Outcome> = kept
        .iter()
        .map(|&k| {
            let p = pre[k];
            match at[k] {
                usize::MAX => Outcome {
                    output: reqs[k].output,
                    ..p
                },
                j => {
                    let d = dout[j];
                    Outcome {
                        arrival_s: reqs[k].arrival_s,
                        prompt: reqs[k].prompt,
                        output: reqs[k].output,
                        start_s: p.start_s,
                        first_token_s: d.first_token_s,
                        finish_s: d.finish_s,
                        preemptions: p.preemptions + d.preemptions,
                        replica: d.replica,
                    }
                }
            }
        })
        .collect();
    // Requests in the system, from arrival at the prefill pool to the last
    // token: the integral is the sum of their times in it.
    totals.in_flight_area = outcomes.iter().map(|o| o.finish_s - o.arrival_s).sum();
    Ok(Some(Decoded { outcomes, totals }))
}

/// A closed loop of `users` clients over both pools (formulas.md,
/// "Simulation: disaggregated pools", closed loop): each client sends a
/// request to the prefill pool and, when its last token comes back from the
/// decode pool (or its prompt ends, for one output token), its next; the
/// k-th request sent takes the lengths of `reqs[k]`. The two pools run in
/// one time order, each prompt's cache landing in the decode pool its
/// transfer after its prompt ends. The joined requests with the decode
/// pool's totals, and the prefill pool's totals.
#[allow(clippy::too_many_arguments)]
pub fn run_closed<P: StepCost, D: StepCost>(
    (pcfg, pcost): (Config, P),
    (dcfg, dcost): (Config, D),
    reqs: &[Request],
    users: u64,
    transfer: &Transfer,
    (pkv, dkv): (u64, u64),
    block: u64,
    seed: u64,
    timeline: bool,
) -> Result<(Decoded, Totals)> {
    let n = reqs.len();
    let mut p = Simulation::external(pcfg, pcost, prefill_requests(reqs), pkv, block, seed);
    let dcfg = Config {
        prefilled: true,
        ..dcfg
    };
    let mut d = Simulation::external(dcfg, dcost, reqs.to_vec(), dkv, block, seed);
    if timeline {
        d.keep_timeline();
    }
    let first = (users as usize).min(n);
    for k in 0..first {
        p.arrive_at(k as u32, 0.0);
    }
    let mut next = first;
    loop {
        // The earlier pool's next event; the prefill pool's first on a tie
        // (a prompt that ends then may land in the decode pool then).
        let prefill = match (p.next_time(), d.next_time()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => a <= b,
        };
        let mut send = |sim: &mut Simulation<P>, t: f64| {
            if next < n {
                sim.arrive_at(next as u32, t);
                next += 1;
            }
        };
        if prefill {
            p.step()?;
            for (k, t) in p.take_finished() {
                let r = reqs[k as usize];
                if r.output > 1 {
                    d.arrive_at(k, t + transfer.seconds(r.prompt));
                } else {
                    send(&mut p, t);
                }
            }
        } else {
            d.step()?;
            for (_, t) in d.take_finished() {
                send(&mut p, t);
            }
        }
    }
    let (pout, ptot) = p.finish();
    let (dout, mut totals) = d.finish();
    let outcomes: Vec<Outcome> = (0..n)
        .map(|k| {
            let (pk, r) = (pout[k], reqs[k]);
            if r.output <= 1 {
                return Outcome {
                    output: r.output,
                    ..pk
                };
            }
            let dk = dout[k];
            Outcome {
                arrival_s: pk.arrival_s,
                prompt: r.prompt,
                output: r.output,
                start_s: pk.start_s,
                first_token_s: dk.first_token_s,
                finish_s: dk.finish_s,
                preemptions: pk.preemptions + dk.preemptions,
                replica: dk.replica,
            }
        })
        .collect();
    totals.in_flight_area = outcomes.iter().map(|o| o.finish_s - o.arrival_s).sum();
    Ok((Decoded { outcomes, totals }, ptot))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::simulate::cost::Mock;
    use crate::catalog::Catalog;

    fn hw(id: &str) -> Hardware {
        Catalog::default().hardware(id, &[]).unwrap()
    }

    /// A step of 1 s plus 1 ms a token, on one replica of up to 8
    /// sequences: the hand derivations below count in it.
    fn one_second_steps() -> (Mock, Config) {
        let mock = Mock {
            fixed_s: 1.0,
            per_token_s: 0.001,
            per_seen_s: 0.0,
        };
        let cfg = Config {
            max_tokens: 4096,
            max_seqs: 8,
            prefix_hit: 0.0,
            window: crate::spec::model::Window::NONE,
            replicas: 1,
            prefilled: false,
            draft: None,
        };
        (mock, cfg)
    }

    /// Two requests of 100 prompt and 5 output tokens, at 0 and 0.5 s, on
    /// the mock cost (1 s an iteration + 1 ms a token) with a transfer of
    /// 0.5 s + 1 s per 100 tokens. By hand: the prefill replica runs 0 to
    /// 1.1 s and 1.1 to 2.2 s; the caches land at 2.6 and 3.7 s. The decode
    /// replica runs the first alone from 2.6 (to 3.601, then 4.602); the
    /// second waits for the step in flight and joins at 4.602; steps of two
    /// take 1.002 s (to 5.604, 6.606, where the first ends), then the
    /// second alone to 7.607 and 8.608.
    #[test]
    fn two_requests_through_both_pools_by_hand() {
        let (mock, cfg) = one_second_steps();
        let reqs = [
            Request {
                arrival_s: 0.0,
                prompt: 100,
                output: 5,
            },
            Request {
                arrival_s: 0.5,
                prompt: 100,
                output: 5,
            },
        ];
        let t = Transfer {
            bytes_per_token: 1.0,
            bandwidth: 100.0,
            latency_s: 0.5,
            link: "test".into(),
        };
        let (pre, _) = run_prefill(cfg, mock, &reqs, 10_000, 16, 0).unwrap();
        assert!((pre[0].first_token_s - 1.1).abs() < 1e-9);
        assert!((pre[1].first_token_s - 2.2).abs() < 1e-9);
        let d = run_decode(cfg, mock, &reqs, &pre, &t, 10_000, 16, 0, None, None, false)
            .unwrap()
            .unwrap();
        let o = &d.outcomes;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(o[0].first_token_s, 2.6), "{}", o[0].first_token_s);
        assert!(close(o[1].first_token_s, 3.7), "{}", o[1].first_token_s);
        assert!(close(o[0].finish_s, 6.606), "{}", o[0].finish_s);
        assert!(close(o[1].finish_s, 8.608), "{}", o[1].finish_s);
        // TTFT 2.6 and 3.2 s; TPOT 4.006 / 4 and 4.908 / 4.
        assert!(close(o[1].first_token_s - o[1].arrival_s, 3.2));
        assert!(close((o[0].finish_s - o[0].first_token_s) / 4.0, 1.0015));
        // The decode pool ran decode-only steps: 2 + 2 + 2 = 6 (none of a
        // prompt's chunks).
        assert_eq!(d.totals.iterations, 6);
        // Its time in the system integrates to the E2E sum: Little's law.
        assert!(close(d.totals.in_flight_area, 6.606 + 8.108));
    }

    /// A closed loop over both pools on the mock cost (1 s an iteration +
    /// 1 ms a token), the transfer 0.5 s + 1 s per 100 tokens, requests of
    /// 100 prompt and 5 output tokens. By hand, one client: prefill 1.1 s,
    /// transfer 1.5 s, then 4 decode steps of 1.001 s: each request takes
    /// 1.1 + 1.5 + 4.004 = 6.604 s and the next is sent as it ends, so
    /// throughput = 1 / (TTFT + (output - 1) x TPOT) = 1 / 6.604. Two
    /// clients: the first two requests run as in
    /// `two_requests_through_both_pools_by_hand` with both sent at 0 (the
    /// prefill replica starts the first alone, 0 to 1.1 s, then the second
    /// to 2.2 s; they land at 2.6 and 3.7 s and end at 6.606 and 8.608 s);
    /// each client sends its next as its last ends, so the third arrives at
    /// 6.606 s and lands 2.6 s later, the fourth at 8.608 s. One client and
    /// one output token: the prompt is the request (1.1 s), and nothing
    /// reaches the decode pool.
    #[test]
    fn a_closed_loop_through_both_pools_by_hand() {
        let (mock, cfg) = one_second_steps();
        let t = Transfer {
            bytes_per_token: 1.0,
            bandwidth: 100.0,
            latency_s: 0.5,
            link: "test".into(),
        };
        let run = |users: u64, output: u64| {
            let reqs = vec![
                Request {
                    arrival_s: 0.0,
                    prompt: 100,
                    output,
                };
                4
            ];
            run_closed(
                (cfg, mock),
                (cfg, mock),
                &reqs,
                users,
                &t,
                (10_000, 10_000),
                16,
                0,
                false,
            )
            .unwrap()
        };
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        let (d, p) = run(1, 5);
        for (k, o) in d.outcomes.iter().enumerate() {
            let start = k as f64 * 6.604;
            assert!(close(o.arrival_s, start), "{k}: {}", o.arrival_s);
            assert!(close(o.first_token_s - o.arrival_s, 2.6), "{k}");
            assert!(close(o.finish_s - o.arrival_s, 6.604), "{k}");
        }
        assert_eq!((p.iterations, d.totals.iterations), (4, 16));
        // One client is always in the system: the integral is the span.
        assert!(close(d.totals.in_flight_area, 4.0 * 6.604));
        let (d, p) = run(2, 5);
        let o = &d.outcomes;
        let got: Vec<(f64, f64)> = o.iter().map(|o| (o.arrival_s, o.first_token_s)).collect();
        let want = [(0.0, 2.6), (0.0, 3.7), (6.606, 9.206), (8.608, 11.208)];
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                close(g.0, w.0) && close(g.1, w.1),
                "{k}: {g:?} against {w:?}"
            );
        }
        assert!(close(o[0].finish_s, 6.606) && close(o[1].finish_s, 8.608));
        assert_eq!(p.iterations, 4);
        let (d, p) = run(1, 1);
        for (k, o) in d.outcomes.iter().enumerate() {
            assert!(close(o.arrival_s, k as f64 * 1.1), "{k}: {}", o.arrival_s);
            assert!(close(o.finish_s - o.arrival_s, 1.1), "{k}");
        }
        assert_eq!((p.iterations, d.totals.iterations), (4, 0));
    }

    /// The move runs at the slower side: a TP 2 H200 replica sends over two
    /// 50 GB/s NICs, a TP 1 A100 receives over one 25 GB/s NIC (the files'
    /// scale-out figures): 25 GB/s. Llama-3-8B's cache is 32 layers x 8 KV
    /// heads x 128 x 2 (K and V) x 2 B = 131,072 B a token.
    #[test]
    fn the_transfer_crosses_the_slower_fabric() {
        let m = Catalog::default().model("llama-3-8b", &[]).unwrap();
        let one = Layout {
            tp: 1,
            pp: 1,
            dp: 1,
            ep: 1,
        };
        let two = Layout { tp: 2, ..one };
        let (h, a) = (hw("h200-sxm"), hw("a100-sxm-80gb"));
        let t = transfer(&m, 2.0, (&h, two), (&a, one), Mode::SpeedOfLight).unwrap();
        assert_eq!(t.bytes_per_token, 131_072.0);
        assert!((t.bandwidth - 25e9).abs() < 1.0, "{}", t.bandwidth);
        assert!((t.seconds(2048) - 2048.0 * 131_072.0 / 25e9).abs() < 1e-12);
        let same = transfer(&m, 2.0, (&h, two), (&h, two), Mode::SpeedOfLight).unwrap();
        assert!((same.bandwidth - 100e9).abs() < 1.0);
        // No scale-out tier, or no measured figure for it: named, not
        // guessed.
        let e = link(&hw("mi300x"), Mode::SpeedOfLight).unwrap_err();
        assert!(e.to_string().contains("scale-out"), "{e}");
        // Under --achievable with no measured NIC figure, the datasheet NIC
        // (50 GB/s a GPU) at the share the measured NVLink reaches of its
        // datasheet (370 of 450 GB/s): 41.1 GB/s, and the text says so.
        let (bw, _, text) = link(&h, Mode::Achievable).unwrap();
        assert!((bw - 50e9 * 370.0 / 450.0).abs() < 1e6, "{bw}");
        assert!(text.contains("achievable.link-bandwidth.nic"), "{text}");
    }
}

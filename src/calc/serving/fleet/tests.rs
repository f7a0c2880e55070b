//! Fleet's checks: more traffic never needs fewer devices, a looser target
//! never more, and the winner run on its own by `simulate` meets the
//! targets.

use super::search::{FleetCost, Verdict, search};
use super::*;
use crate::calc::simulate::{self, Rate, SimulateInputs, dist};
use crate::catalog::Catalog;
use crate::spec::hardware::Mode;

fn inputs(rate: f64, ttft: &str, tpot: &str) -> FleetInputs {
    FleetInputs {
        sim: SimulateInputs {
            rate: Some(Rate(rate)),
            prompt: Some(dist::parse("1024").unwrap()),
            output: Some(dist::parse("128").unwrap()),
            slo_ttft: Some(simulate::slo::parse(ttft).unwrap()),
            slo_tpot: Some(simulate::slo::parse(tpot).unwrap()),
            requests: Some(Count(1000)),
            ..Default::default()
        },
        options: FleetOptions {
            max_devices: Some(Count(32)),
            caps: Some("32,128".into()),
            ..Default::default()
        },
        prices: Default::default(),
        check: Default::default(),
        part_prices: Default::default(),
    }
}

fn devices(rate: f64, ttft: &str, tpot: &str) -> u64 {
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let f = search(&m, &[hw], &inputs(rate, ttft, tpot), Mode::SpeedOfLight).unwrap();
    f.candidates[0].devices()
}

#[test]
fn more_traffic_never_fewer_devices() {
    let d: Vec<u64> = [5.0, 20.0, 60.0, 120.0]
        .iter()
        .map(|&r| devices(r, "1s", "30ms"))
        .collect();
    assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
    assert!(d[3] > d[0], "{d:?}");
}

#[test]
fn a_looser_target_never_more_devices() {
    let tight = devices(60.0, "300ms", "15ms");
    let loose = devices(60.0, "1s", "30ms");
    let looser = devices(60.0, "5s", "100ms");
    assert!(
        looser <= loose && loose <= tight,
        "{tight} {loose} {looser}"
    );
}

#[test]
fn the_winner_simulated_alone_meets_the_targets() {
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let i = inputs(60.0, "1s", "30ms");
    let f = search(&m, std::slice::from_ref(&hw), &i, Mode::SpeedOfLight).unwrap();
    let best = &f.candidates[0];
    assert!(matches!(best.verdict, Verdict::Meets { .. }));
    let l = best.layout;
    // One replica at the rate / replicas, as `simulate --rate` takes it.
    let one = SimulateInputs {
        rate: Some(Rate(60.0 / l.dp as f64)),
        tp: Some(Count(l.tp)),
        pp: Some(Count(l.pp)),
        max_seqs: Some(Count(best.max_seqs)),
        max_batched_tokens: Some(Count(best.max_tokens)),
        ..i.sim.clone()
    };
    let s = simulate::cost(&m, &hw, &one, Mode::SpeedOfLight)
        .unwrap()
        .summary;
    assert!(s.meets(), "{:?} {:?}", s.ttft_slo, s.tpot_slo);
    // The whole deployment: dp replicas with requests routed at random,
    // as many requests for each.
    let all = SimulateInputs {
        rate: Some(Rate(60.0)),
        dp: Some(Count(l.dp)),
        requests: Some(Count(1000 * l.dp)),
        ..one
    };
    let s = simulate::cost(&m, &hw, &all, Mode::SpeedOfLight)
        .unwrap()
        .summary;
    assert!(s.meets(), "{:?} {:?}", s.ttft_slo, s.tpot_slo);
}

#[test]
fn no_layout_meeting_the_targets_is_no_answer() {
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let f = search(&m, &[hw], &inputs(10.0, "1s", "100us"), Mode::SpeedOfLight).unwrap();
    let e = f.report(false).unwrap_err();
    assert_eq!(e.exit_code(), 1);
    assert!(e.to_string().contains("short"), "{e}");
}

/// Llama-3-8B with 8,000-token prompts and 192-token answers at 8 a
/// second: a 2,048-token chunk mixed into a decode step at least triples
/// it, so a tight TPOT target favours a separate prefill pool.
fn long_prompts(rate: f64, tpot: &str) -> FleetInputs {
    FleetInputs {
        sim: SimulateInputs {
            rate: Some(Rate(rate)),
            prompt: Some(dist::parse("8000").unwrap()),
            output: Some(dist::parse("192").unwrap()),
            slo_ttft: Some(simulate::slo::parse("2s").unwrap()),
            slo_tpot: Some(simulate::slo::parse(tpot).unwrap()),
            requests: Some(Count(300)),
            ..Default::default()
        },
        options: FleetOptions {
            max_devices: Some(Count(16)),
            caps: Some("32".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn best_of(i: &FleetInputs, hws: &[&str]) -> FleetCost {
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let hws: Vec<_> = hws.iter().map(|h| cat.hardware(h, &[]).unwrap()).collect();
    search(&m, &hws, i, Mode::SpeedOfLight).unwrap()
}

/// At 2.5 ms TPOT: tensor parallel 4 mixes its chunks into 2.8 ms steps
/// at p99 (4 ms held it before its steps were stretched by the board's
/// limit, which they no longer are: formulas.md, "One time on one
/// device"), where a decode pool of two devices runs 2.3 ms.
#[test]
fn disaggregation_wins_where_mixed_steps_break_tpot() {
    let i = long_prompts(8.0, "2.5ms");
    let f = best_of(&i, &["h200-sxm"]);
    let best = &f.candidates[0];
    assert!(matches!(best.verdict, Verdict::Meets { .. }));
    let p = best.prefill.as_ref().expect("a disaggregated winner");
    // Every aggregated layout needs more devices, or breaks the target
    // within the bound.
    assert!(
        f.candidates
            .iter()
            .filter(|c| c.prefill.is_none())
            .all(|c| {
                matches!(c.verdict, Verdict::Breaks { .. }) || c.devices() > best.devices()
            })
    );
    // The whole deployment, run by `simulate` with both pools, meets the
    // targets too.
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let l = best.layout;
    let all = SimulateInputs {
        tp: Some(Count(l.tp)),
        pp: Some(Count(l.pp)),
        dp: Some(Count(l.dp)),
        max_seqs: Some(Count(best.max_seqs)),
        max_batched_tokens: Some(Count(best.max_tokens)),
        prefill_tp: Some(Count(p.layout.tp)),
        prefill_pp: Some(Count(p.layout.pp)),
        prefill_dp: Some(Count(p.layout.dp)),
        requests: Some(Count(300 * l.dp.max(p.layout.dp))),
        ..i.sim.clone()
    };
    let s = simulate::cost(&m, &hw, &all, Mode::SpeedOfLight).unwrap();
    assert!(
        s.summary.meets(),
        "{:?} {:?}",
        s.summary.ttft_slo,
        s.summary.tpot_slo
    );
    assert_eq!(s.summary.devices, best.devices());
}

#[test]
fn disaggregation_loses_on_short_prompts() {
    // 128-token prompts: a prefill pool is a replica's devices that an
    // aggregated replica spends a sliver of its steps on.
    let mut i = inputs(20.0, "1s", "30ms");
    i.sim.prompt = Some(dist::parse("128").unwrap());
    i.sim.requests = Some(Count(300));
    let f = best_of(&i, &["h200-sxm"]);
    let best = &f.candidates[0];
    assert!(best.prefill.is_none(), "{best:?}");
    let split = f
        .candidates
        .iter()
        .find(|c| c.prefill.is_some() && matches!(c.verdict, Verdict::Meets { .. }))
        .expect("a disaggregated plan that meets");
    assert!(split.devices() > best.devices());
}

#[test]
fn with_pools_more_traffic_never_fewer_devices_and_looser_never_more() {
    let d: Vec<u64> = [2.0, 8.0, 16.0]
        .iter()
        .map(|&r| best_of(&long_prompts(r, "4ms"), &["h200-sxm"]).candidates[0].devices())
        .collect();
    assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
    let tight = best_of(&long_prompts(8.0, "4ms"), &["h200-sxm"]).candidates[0].devices();
    let loose = best_of(&long_prompts(8.0, "8ms"), &["h200-sxm"]).candidates[0].devices();
    assert!(loose <= tight, "{tight} {loose}");
}

#[test]
fn mixed_parts_may_split_the_pools_and_missing_fabric_is_noted() {
    // An H200 prefill pool may feed an A100 decode pool (its 25 GB/s NIC
    // then bounds the transfer); an MI300X file has no scale-out tier, so
    // it takes no part in disaggregated pools and a note says why.
    let i = long_prompts(8.0, "4ms");
    let f = best_of(&i, &["h200-sxm", "a100-sxm-80gb", "mi300x"]);
    let mixed = f
        .candidates
        .iter()
        .filter_map(|c| c.prefill.as_ref().map(|p| (c, p)))
        .find(|(c, p)| c.hardware != p.hardware)
        .expect("a mixed-part candidate");
    assert!(mixed.1.link.contains("->"), "{}", mixed.1.link);
    assert!(
        f.notes
            .iter()
            .any(|n| n.contains("mi300x") && n.contains("scale-out")),
        "{:?}",
        f.notes
    );
    assert!(
        f.candidates
            .iter()
            .filter_map(|c| c.prefill.as_ref())
            .all(|p| p.hardware != "mi300x")
    );
}

#[test]
fn a_request_no_part_can_hold_is_no_answer() {
    // Llama-3.1-70B's weights overfill an H200 at tp 1, and a forced
    // 1,000,000-token request's cache (320 KiB a token) exceeds what any
    // two-device layout holds beside the weights.
    let cat = Catalog::default();
    let m = cat.model("llama-3.1-70b", &[]).unwrap();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let mut i = inputs(1.0, "10s", "1s");
    i.sim.prompt = Some(dist::parse("1000000").unwrap());
    i.sim.force = true;
    i.options.max_devices = Some(Count(2));
    let f = search(&m, &[hw], &i, Mode::SpeedOfLight).unwrap();
    let e = f.report(false).unwrap_err();
    assert_eq!(e.exit_code(), 1, "{e}");
    assert!(e.to_string().contains("KV cache"), "{e}");
}

/// `--objective energy` puts first the configuration that meets with the
/// least energy per output token; `--objective cost` with an energy price
/// only ranks the same way (the bill is energy x a constant).
#[test]
fn objective_energy_ranks_by_energy_per_token() {
    use super::Objective;
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let mut i = inputs(20.0, "2s", "50ms");
    i.options.objective = Some(Objective::Energy);
    let f = search(&m, std::slice::from_ref(&hw), &i, Mode::SpeedOfLight).unwrap();
    let meets: Vec<f64> = f
        .candidates
        .iter()
        .filter(|c| matches!(c.verdict, super::Verdict::Meets { .. }))
        .map(|c| c.energy.as_ref().unwrap().per_token_j().unwrap())
        .collect();
    assert!(meets.len() > 1);
    assert!(meets.iter().all(|e| *e >= meets[0]), "{meets:?}");
    i.options.objective = Some(Objective::Cost);
    i.prices = crate::calc::power::Prices {
        device_hour: None,
        kwh: Some(0.1),
        pue: 1.0,
    };
    let g = search(&m, &[hw], &i, Mode::SpeedOfLight).unwrap();
    assert_eq!(g.candidates[0].layout, f.candidates[0].layout);
    assert_eq!(g.candidates[0].max_seqs, f.candidates[0].max_seqs);
}

/// Pruning by each objective's floor (formulas.md, "Fleet") ranks the same
/// five best as simulating every candidate: the floors are lower bounds.
#[test]
fn pruning_by_floors_keeps_the_five_best() {
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let prices = crate::calc::power::Prices {
        device_hour: Some(2.5),
        kwh: Some(0.1),
        pue: 1.2,
    };
    for objective in [Objective::Devices, Objective::Energy, Objective::Cost] {
        let mut i = inputs(40.0, "1s", "20ms");
        i.options.caps = Some("16,64,256".into());
        i.options.objective = Some(objective);
        i.prices = prices;
        let top = |exhaustive: bool| {
            let mut i = i.clone();
            i.options.exhaustive = exhaustive;
            let f = search(&m, std::slice::from_ref(&hw), &i, Mode::SpeedOfLight).unwrap();
            let meets: Vec<_> = f
                .candidates
                .iter()
                .filter(|c| matches!(c.verdict, Verdict::Meets { .. }) && c.prefill.is_none())
                .take(5)
                .map(|c| {
                    let score = objective
                        .score(c.devices(), c.energy.as_ref().unwrap(), &prices)
                        .unwrap();
                    (c.layout, c.max_seqs, c.max_tokens, score)
                })
                .collect();
            (meets, f.runs)
        };
        let (pruned, few) = top(false);
        let (all, many) = top(true);
        assert_eq!(pruned.len(), 5, "{objective:?}: {pruned:?}");
        assert_eq!(pruned, all, "{objective:?}");
        assert!(few < many, "{objective:?}: {few} runs pruned vs {many}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(6))]
    /// The split plans' floors (formulas.md, "Fleet: disaggregated pools",
    /// floors) never exceed what the coupled runs give: for every split
    /// plan that meets, searched without pruning, its device-seconds and
    /// joules per output token at its own replica counts are at least the
    /// floors' there. Only workloads that offer a split plan that meets
    /// count (`prop_assume!`).
    #[test]
    fn split_floors_never_exceed_the_runs(
        rate in 2.0f64..40.0,
        prompt in 256u64..4096,
        output in 16u64..256,
        requests in 100u64..300,
        seed in 0u64..1000,
    ) {
        let cat = Catalog::default();
        let m = cat.model("llama-3-8b", &[]).unwrap();
        let hw = cat.hardware("h200-sxm", &[]).unwrap();
        let mut i = inputs(rate, "2s", "30ms");
        i.sim.prompt = Some(dist::parse(&prompt.to_string()).unwrap());
        i.sim.output = Some(dist::parse(&output.to_string()).unwrap());
        i.sim.requests = Some(Count(requests));
        i.sim.seed = Some(Count(seed));
        i.options.max_devices = Some(Count(8));
        i.options.caps = Some("16,64".into());
        i.options.exhaustive = true;
        let f = search(&m, std::slice::from_ref(&hw), &i, Mode::SpeedOfLight).unwrap();
        let n = requests as usize;
        let most = super::pools::MOST_REQUESTS;
        let long = crate::calc::simulate::arrivals::requests(
            &crate::calc::simulate::arrivals::Arrivals::Poisson(1.0),
            super::floors::want(n, 8, most) as u64,
            &f.workload.prompt,
            &f.workload.output,
            &mut dist::Random::new(seed),
        );
        let fl = super::floors::SpanFloors::new(&long, n, most, seed, 8, rate);
        let idle = crate::calc::power::PowerModel::of(&hw, "bf16").unwrap().idle_w;
        let mut checked = 0;
        for c in &f.candidates {
            let (Verdict::Meets { .. }, Some(p), Some(e)) = (&c.verdict, &c.prefill, &c.energy)
            else {
                continue;
            };
            // The winner's figures come from its whole run at steady state,
            // not from the coupled run the floors bound.
            if c.checked.is_some() {
                continue;
            }
            let (pre, dec) = fl.at(c.layout.dp).unwrap();
            let s = p.layout.devices() as f64 * pre + (c.layout.tp * c.layout.pp) as f64 * dec;
            let dst = e.device_s_per_token().unwrap();
            let j = e.per_token_j().unwrap();
            proptest::prop_assert!(s > 0.0 && s <= dst, "{s} > {dst}: {c:?}");
            proptest::prop_assert!(idle * s <= j, "{} > {j}: {c:?}", idle * s);
            checked += 1;
        }
        // A workload one device serves offers no split plan (a split needs
        // two), so the case says nothing about the floors: it is drawn
        // again rather than failed (rate 39.47/s, prompt 1,739, output 16
        // at seed 698 was one, issue 37).
        proptest::prop_assume!(checked > 0, "no split plan met");
    }
}

/// Under cost and energy the split plans prune by their floors too; the
/// five best plans of either kind, and the best split plan, are the same
/// as without pruning.
#[test]
fn split_pruning_keeps_the_five_best_and_the_best_split() {
    let cat = Catalog::default();
    let m = cat.model("llama-3-8b", &[]).unwrap();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let prices = crate::calc::power::Prices {
        device_hour: Some(3.5),
        kwh: Some(0.12),
        pue: 1.0,
    };
    for objective in [Objective::Energy, Objective::Cost] {
        let mut i = inputs(20.0, "2s", "30ms");
        i.options.caps = Some("16,64".into());
        i.options.objective = Some(objective);
        i.prices = prices;
        let top = |exhaustive: bool| {
            let mut i = i.clone();
            i.options.exhaustive = exhaustive;
            let f = search(&m, std::slice::from_ref(&hw), &i, Mode::SpeedOfLight).unwrap();
            let key = |c: &super::Candidate| {
                let score = objective
                    .score(c.devices(), c.energy.as_ref().unwrap(), &prices)
                    .unwrap();
                (
                    c.layout,
                    c.prefill.clone().map(|p| p.layout),
                    c.max_seqs,
                    score,
                )
            };
            let meets: Vec<_> = f
                .candidates
                .iter()
                .filter(|c| matches!(c.verdict, Verdict::Meets { .. }))
                .collect();
            let best: Vec<_> = meets.iter().take(5).map(|c| key(c)).collect();
            let split = meets.iter().find(|c| c.prefill.is_some()).map(|c| key(c));
            (best, split, f.runs)
        };
        let (pruned, split, few) = top(false);
        let (all, all_split, many) = top(true);
        assert_eq!(pruned.len(), 5, "{objective:?}");
        assert_eq!(pruned, all, "{objective:?}");
        assert!(split.is_some(), "{objective:?}");
        assert_eq!(split, all_split, "{objective:?}");
        assert!(few < many, "{objective:?}: {few} runs pruned vs {many}");
    }
}

/// The attention data-parallel candidates of an MoE model (formulas.md,
/// "Fleet"): DeepSeek-V3 (128 heads) on H200s (NVLink domains of 8) gets
/// every tp dividing the heads with its experts over G = 2, 4, 8 replicas
/// while tp x G stays within 8: tp 1 with ep 2, 4, 8; tp 2 with ep 4, 8;
/// tp 4 with ep 8. A dense model gets none.
#[test]
fn dep_candidates_fill_one_domain() {
    let cat = Catalog::default();
    let hw = cat.hardware("h200-sxm", &[]).unwrap();
    let m = cat.model("deepseek-v3", &[]).unwrap();
    let s =
        crate::calc::plan::Setup::new(&hw, &m, &Default::default(), Mode::SpeedOfLight).unwrap();
    let got: Vec<(u64, u64, u64)> = super::search::dep_layouts(&s, 1024)
        .iter()
        .map(|l| (l.tp, l.dp, l.ep))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, 2, 2),
            (1, 4, 4),
            (1, 8, 8),
            (2, 2, 4),
            (2, 4, 8),
            (4, 2, 8)
        ]
    );
    for l in super::search::dep_layouts(&s, 1024) {
        assert_eq!(l.attention_dp(), l.dp);
    }
    let dense = cat.model("llama-3-8b", &[]).unwrap();
    let s = crate::calc::plan::Setup::new(&hw, &dense, &Default::default(), Mode::SpeedOfLight)
        .unwrap();
    assert!(super::search::dep_layouts(&s, 1024).is_empty());
}

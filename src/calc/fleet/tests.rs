//! Fleet's checks: more traffic never needs fewer devices, a looser target
//! never more, and the winner run on its own by `simulate` meets the
//! targets.

use super::search::{Verdict, search};
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

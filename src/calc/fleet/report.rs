//! `fleet`'s report: the winner's devices, layout and margins; every
//! candidate as a row (JSON `plans`); the frontier as rows with
//! `--pareto`.

use super::search::{Candidate, FleetCost, Verdict};
use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::units;
use serde_json::Value;

/// The rows the table shows at most (JSON `plans` keeps every one).
pub const ROWS: usize = 12;

fn row(c: &Candidate, rank: usize) -> Row {
    let mut r = Row::default();
    r.inputs.insert("rank".into(), (rank as u64).into());
    r.inputs
        .insert("hardware".into(), c.hardware.clone().into());
    let l = c.layout;
    for (k, v) in [("tp", l.tp), ("pp", l.pp), ("ep", l.ep), ("dp", l.dp)] {
        r.inputs.insert(k.into(), v.into());
    }
    r.inputs.insert("max_seqs".into(), c.max_seqs.into());
    r.inputs
        .insert("max_batched_tokens".into(), c.max_tokens.into());
    match &c.verdict {
        Verdict::Meets { at, binds } => {
            r.results.insert("devices".into(), c.devices().into());
            r.results.insert("meets".into(), true.into());
            let v = |a: Option<crate::calc::simulate::report::Against>| {
                a.map_or(Value::Null, |a| a.value_s.into())
            };
            let mg = |a: Option<crate::calc::simulate::report::Against>| {
                a.map_or(Value::Null, |a| {
                    if a.margin.is_finite() {
                        a.margin.into()
                    } else {
                        Value::Null
                    }
                })
            };
            r.results.insert("ttft_s".into(), v(at.ttft_slo));
            r.results.insert("ttft_margin".into(), mg(at.ttft_slo));
            r.results.insert("tpot_s".into(), v(at.tpot_slo));
            r.results.insert("tpot_margin".into(), mg(at.tpot_slo));
            r.results.insert(
                "output_tokens_per_s_per_device".into(),
                at.output_tokens_per_s_per_device.into(),
            );
            let e = c.energy.as_ref();
            r.results.insert(
                "energy_per_token_j".into(),
                e.and_then(|e| e.per_token_j()).into(),
            );
            r.results.insert(
                "power_w".into(),
                e.and_then(|e| e.draw.as_ref().ok().map(|d| d.power_w))
                    .into(),
            );
            r.results.insert(
                "binds".into(),
                binds
                    .clone()
                    .unwrap_or_else(|| "nothing: one replica suffices".into())
                    .into(),
            );
        }
        Verdict::Breaks { why, .. } => {
            r.results.insert("devices".into(), Value::Null);
            r.results.insert("energy_per_token_j".into(), Value::Null);
            r.results.insert("power_w".into(), Value::Null);
            r.results.insert("meets".into(), false.into());
            r.results.insert("binds".into(), why.clone().into());
        }
    }
    r
}

impl FleetCost {
    /// The report; no candidate meeting the targets is no answer (exit 1),
    /// naming the closest and by how much it misses.
    pub fn report(&self, lean: bool) -> Result<Report> {
        let Some(best) = self.candidates.first() else {
            return Err(Error::NoAnswer("no layout was searched".into()));
        };
        let Verdict::Meets { at, binds } = &best.verdict else {
            let closest = self
                .candidates
                .iter()
                .find(|c| {
                    matches!(
                        c.verdict,
                        Verdict::Breaks {
                            margin: Some(_),
                            ..
                        }
                    )
                })
                .unwrap_or(best);
            let (why, margin) = match &closest.verdict {
                Verdict::Breaks { why, margin } => (why.clone(), *margin),
                Verdict::Meets { .. } => (String::new(), None),
            };
            let l = closest.layout;
            return Err(Error::NoAnswer(format!(
                "no layout of {} within {} devices meets the targets; the closest, {} tp {} pp {} ep {}{}, misses: {why}{}",
                self.model,
                units::whole(self.max_devices),
                closest.hardware,
                l.tp,
                l.pp,
                l.ep,
                if closest.max_seqs > 0 {
                    format!(" max-seqs {}", closest.max_seqs)
                } else {
                    String::new()
                },
                margin.map_or(String::new(), |m| format!(
                    " ({}% short)",
                    units::percent(-m)
                ))
            )));
        };
        let mut r = Report::new_lean("fleet", lean);
        r.hardware = Some(best.hardware.clone());
        r.model = Some(self.model.clone());
        let w = &self.workload;
        if let crate::calc::simulate::arrivals::Arrivals::Poisson(x) = w.arrivals {
            r.input("rate", x);
        }
        r.input("prompt", w.prompt.text());
        r.input("output", w.output.text());
        if let Some(t) = w.slo_ttft {
            r.input("slo_ttft", t.text());
        }
        if let Some(t) = w.slo_tpot {
            r.input("slo_tpot", t.text());
        }
        r.input("requests", w.requests);
        r.input("seed", w.seed);
        r.input("objective", self.objective.as_str());
        r.input("max_devices", self.max_devices);
        r.headline(&[
            "devices",
            "hardware",
            "tp",
            "pp",
            "ep",
            "dp",
            "max_seqs",
            "max_batched_tokens",
            "ttft_s",
            "ttft_margin",
            "tpot_s",
            "tpot_margin",
            "binds",
            "output_tokens_per_s_per_device",
            "power_w",
            "energy_per_token_j",
            "cost_per_million_output_tokens",
        ]);
        r.result("devices", best.devices(), || {
            Quantity::new("devices", Unit::Count).formula("tp x pp x replicas")
        });
        r.result("hardware", best.hardware.clone(), || {
            Quantity::new("part", Unit::None)
        });
        let l = best.layout;
        for (k, v, lab) in [
            ("tp", l.tp, "tensor parallel"),
            ("pp", l.pp, "pipeline stages"),
            ("ep", l.ep, "expert parallel"),
            ("dp", l.dp, "replicas"),
        ] {
            r.result(k, v, || Quantity::new(lab, Unit::Count));
        }
        r.result("max_seqs", best.max_seqs, || {
            Quantity::new("batch cap", Unit::Count)
        });
        r.result("max_batched_tokens", best.max_tokens, || {
            Quantity::new("token budget", Unit::Count)
        });
        for (k, a) in [("ttft", at.ttft_slo), ("tpot", at.tpot_slo)] {
            if let Some(a) = a {
                r.result(format!("{k}_s"), a.value_s, || {
                    Quantity::new(
                        format!(
                            "{} at p{}",
                            k.to_uppercase(),
                            units::sig(a.target.percentile, 4)
                        ),
                        Unit::Seconds,
                    )
                    .formula(format!("simulated; target {}", a.target.text()))
                });
                let m = if a.margin.is_finite() {
                    Value::from(a.margin)
                } else {
                    Value::Null
                };
                r.result(format!("{k}_margin"), m, || {
                    Quantity::new(format!("{} margin", k.to_uppercase()), Unit::Fraction)
                        .formula("target / value - 1")
                });
            }
        }
        r.result(
            "binds",
            binds
                .clone()
                .unwrap_or_else(|| "nothing: one replica suffices".into()),
            || Quantity::new("what one replica fewer breaks", Unit::None),
        );
        r.result(
            "output_tokens_per_s_per_device",
            at.output_tokens_per_s_per_device,
            || Quantity::new("output tokens/s per device", Unit::None),
        );
        r.result(
            "throughput_requests_per_s",
            at.throughput * l.dp as f64,
            || Quantity::new("throughput, all replicas", Unit::None),
        );
        r.result("kv_use_peak", at.kv_peak, || {
            Quantity::new("KV blocks held, peak (one replica)", Unit::Fraction)
        });
        match &best.energy {
            Some(e) => {
                e.record(&mut r);
                self.prices.record(&mut r, &[e]);
            }
            None => crate::calc::power::Energy::unmodelled(
                "no run priced",
                crate::calc::power::Per::Output,
            )
            .record(&mut r),
        }
        r.result("candidates", self.candidates.len() as u64, || {
            Quantity::new("configurations considered", Unit::Count)
        });
        r.result("simulations", self.runs, || {
            Quantity::new("simulated runs", Unit::Count)
        });
        let plans: Vec<Value> = self
            .candidates
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let row = row(c, k + 1);
                let mut o = serde_json::Map::new();
                for (k, v) in row.inputs.into_iter().chain(row.results) {
                    o.insert(k.into_owned(), v);
                }
                Value::Object(o)
            })
            .collect();
        r.result("plans", plans, || {
            Quantity::new("every configuration, best first", Unit::None)
        });
        r.rows_kind = Some(RowsKind::Table);
        match &self.pareto {
            Some(pts) => {
                // The frontier is drawn against speed per user.
                r.rows_kind = Some(RowsKind::Sweep);
                r.axes = vec!["tokens_per_s_per_user".into()];
                for p in pts {
                    let mut row = Row::default();
                    row.inputs
                        .insert("hardware".into(), p.hardware.clone().into());
                    for (k, v) in [
                        ("tp", p.layout.tp),
                        ("pp", p.layout.pp),
                        ("ep", p.layout.ep),
                    ] {
                        row.inputs.insert(k.into(), v.into());
                    }
                    row.inputs.insert("max_seqs".into(), p.max_seqs.into());
                    row.results
                        .insert("tokens_per_s_per_device".into(), p.per_device.into());
                    row.inputs
                        .insert("tokens_per_s_per_user".into(), p.per_user.into());
                    r.rows.push(row);
                }
                r.describe(
                    "tokens_per_s_per_device",
                    Quantity::new("tokens/s per device", Unit::None),
                );
                r.describe(
                    "tokens_per_s_per_user",
                    Quantity::new("tokens/s per user", Unit::None),
                );
                r.note("rows: the frontier of output tokens/s per device against tokens/s per user (1 / mean TPOT), each layout and batch cap run saturated (a closed loop of max-seqs users)");
            }
            None => {
                // The best few, and the first of each kind of break.
                let mut shown = 0;
                let mut seen_breaks: Vec<String> = Vec::new();
                for (k, c) in self.candidates.iter().enumerate() {
                    let show = match &c.verdict {
                        Verdict::Meets { .. } => shown < 5,
                        Verdict::Breaks { why, .. } => {
                            let gist: String = why.split(':').next().unwrap_or("").to_string();
                            let new = !seen_breaks.contains(&gist);
                            if new {
                                seen_breaks.push(gist);
                            }
                            new
                        }
                    };
                    if show && r.rows.len() < ROWS {
                        r.rows.push(row(c, k + 1));
                        if matches!(c.verdict, Verdict::Meets { .. }) {
                            shown += 1;
                        }
                    }
                }
            }
        }
        for (k, lab, u) in [
            ("rank", "rank", Unit::Count),
            ("meets", "meets", Unit::None),
            ("ttft_s", "TTFT", Unit::Seconds),
            ("tpot_s", "TPOT", Unit::Seconds),
            ("energy_per_token_j", "J per output token", Unit::Joules),
            ("power_w", "power per device", Unit::Watts),
        ] {
            r.describe(k, Quantity::new(lab, u));
        }
        r.note(format!(
            "every verdict is simulated: one replica at the rate / replicas, {} requests, seed {}; `simulate` with the winner's flags reproduces it",
            units::whole(w.requests),
            w.seed
        ));
        r.note("aggregated prefill and decode on each replica; disaggregated pools are not searched yet");
        Ok(r)
    }
}

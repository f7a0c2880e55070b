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

/// The table's columns in order: a terminal too narrow for them all drops
/// from the end, so both targets stay beside the plan and the layout's
/// finer figures go first.
const ROW_COLUMNS: [&str; 20] = [
    "rank",
    "layout",
    "hardware",
    "tp",
    "dp",
    "max_seqs",
    "devices",
    "meets",
    "ttft_s",
    "tpot_s",
    "ttft_margin",
    "tpot_margin",
    "output_tokens_per_s_per_device",
    "binds",
    "prefill_pool",
    "pp",
    "ep",
    "max_batched_tokens",
    "energy_per_token_j",
    "power_w",
];

/// A candidate's pools as JSON: one entry `prefill_and_decode` when
/// aggregated, else `prefill` then `decode`.
pub fn pools(c: &Candidate) -> Value {
    let pool = |role: &str, hw: &str, l: crate::calc::plan::Layout, tokens: u64| {
        serde_json::json!({
            "role": role,
            "hardware": hw,
            "tp": l.tp,
            "pp": l.pp,
            "ep": l.ep,
            "dp": l.dp,
            "devices": l.devices(),
            "max_batched_tokens": tokens,
        })
    };
    let mut v = Vec::new();
    match &c.prefill {
        None => v.push(pool(
            "prefill_and_decode",
            &c.hardware,
            c.layout,
            c.max_tokens,
        )),
        Some(p) => {
            let mut pre = pool("prefill", &p.hardware, p.layout, p.max_tokens);
            pre["kv_transfer_s"] = p.transfer_s.into();
            pre["kv_transfer_bandwidth"] = p.bandwidth.into();
            v.push(pre);
            v.push(pool("decode", &c.hardware, c.layout, c.max_tokens));
        }
    }
    if let Some(d) = v.last_mut() {
        d["max_seqs"] = c.max_seqs.into();
    }
    Value::Array(v)
}

/// The prefill pool in words: `h200-sxm tp 1 pp 1 x 3` (`-` when
/// aggregated).
fn prefill_text(c: &Candidate) -> Value {
    match &c.prefill {
        None => Value::Null,
        Some(p) => format!(
            "{} tp {} pp {}{} x {}",
            p.hardware,
            p.layout.tp,
            p.layout.pp,
            if p.layout.ep > 1 {
                format!(" ep {}", p.layout.ep)
            } else {
                String::new()
            },
            p.layout.dp
        )
        .into(),
    }
}

/// What binds when one replica suffices.
fn nothing_binds(c: &Candidate) -> String {
    match &c.prefill {
        None => "nothing: one replica suffices".into(),
        Some(p) => format!(
            "nothing: one decode replica suffices (the prefill pool's {} replicas are the fewest meeting TTFT)",
            p.layout.dp
        ),
    }
}

fn layout_kind(c: &Candidate) -> &'static str {
    if c.prefill.is_some() {
        "disaggregated"
    } else {
        "aggregated"
    }
}

fn row(c: &Candidate, rank: usize) -> Row {
    let mut r = Row::default();
    // What names the plan first; the columns a narrow terminal may drop
    // (pipeline and expert parallel, the split plan's prefill pool, the
    // token budget) are results after the targets ([`ROW_COLUMNS`]).
    r.inputs.insert("rank".into(), (rank as u64).into());
    r.inputs.insert("layout".into(), layout_kind(c).into());
    r.inputs
        .insert("hardware".into(), c.hardware.clone().into());
    let l = c.layout;
    for (k, v) in [("tp", l.tp), ("dp", l.dp)] {
        r.inputs.insert(k.into(), v.into());
    }
    r.inputs.insert("max_seqs".into(), c.max_seqs.into());
    r.results.insert("prefill_pool".into(), prefill_text(c));
    for (k, v) in [("pp", l.pp), ("ep", l.ep)] {
        r.results.insert(k.into(), v.into());
    }
    r.results
        .insert("max_batched_tokens".into(), c.max_tokens.into());
    match &c.verdict {
        Verdict::Meets { at, binds } => {
            r.results.insert("devices".into(), c.devices().into());
            r.results.insert("meets".into(), true.into());
            // Without a target the row still shows the simulated p99.
            let v = |a: Option<crate::calc::simulate::report::Against>, p99: f64| {
                a.map_or(Value::from(p99), |a| a.value_s.into())
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
            r.results
                .insert("ttft_s".into(), v(at.ttft_slo, at.ttft.p99));
            r.results.insert("ttft_margin".into(), mg(at.ttft_slo));
            r.results
                .insert("tpot_s".into(), v(at.tpot_slo, at.tpot.p99));
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
                binds.clone().unwrap_or_else(|| nothing_binds(c)).into(),
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
            if let Some(why) = &self.unconfirmed {
                return Err(Error::NoAnswer(format!(
                    "no plan of {} within {} devices was confirmed: {why}",
                    self.model,
                    units::whole(self.max_devices)
                )));
            }
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
                .or_else(|| {
                    // Nothing ran: the layout whose weights fit but whose
                    // cache cannot hold the longest request is nearest.
                    self.candidates.iter().find(|c| {
                        matches!(&c.verdict, Verdict::Breaks { why, .. } if why.contains("KV cache"))
                    })
                })
                .unwrap_or(best);
            let (why, margin) = match &closest.verdict {
                Verdict::Breaks { why, margin } => (why.clone(), *margin),
                Verdict::Meets { .. } => (String::new(), None),
            };
            let l = closest.layout;
            let pre = match &closest.prefill {
                Some(_) => format!(
                    "a prefill pool of {} beside a decode pool of ",
                    prefill_text(closest).as_str().unwrap_or_default()
                ),
                None => String::new(),
            };
            return Err(Error::NoAnswer(format!(
                "no layout of {} within {} devices meets the targets, aggregated or disaggregated; the closest, {pre}{} tp {} pp {} ep {}{}, misses: {why}{}",
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
        r.input("engine", self.engine.as_str());
        if let Some(d) = w.draft {
            r.input("speculative", d.text());
        }
        r.headline(&[
            "devices",
            "layout",
            "prefill_pool",
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
        r.result("layout", layout_kind(best), || {
            Quantity::new("prefill and decode", Unit::None)
                .formula("aggregated: both on every replica; disaggregated: separate pools")
        });
        if best.prefill.is_some() {
            r.result("prefill_pool", prefill_text(best), || {
                Quantity::new("prefill pool", Unit::None).formula("part, tp, pp x replicas")
            });
        }
        r.result("hardware", best.hardware.clone(), || {
            Quantity::new(
                if best.prefill.is_some() {
                    "part (decode pool)"
                } else {
                    "part"
                },
                Unit::None,
            )
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
        for (k, a, p99) in [
            ("ttft", at.ttft_slo, at.ttft.p99),
            ("tpot", at.tpot_slo, at.tpot.p99),
        ] {
            if a.is_none() {
                r.result(format!("{k}_s"), p99, || {
                    Quantity::new(format!("{} at p99", k.to_uppercase()), Unit::Seconds)
                        .formula("simulated; no target")
                });
            }
            if let Some(a) = a {
                a.record(
                    &mut r,
                    k,
                    (format!("{k}_s"), format!("{k}_margin")),
                    "simulated; ",
                    "target / value - 1",
                );
            }
        }
        r.result(
            "binds",
            binds.clone().unwrap_or_else(|| nothing_binds(best)),
            || Quantity::new("what one replica fewer breaks", Unit::None),
        );
        r.result(
            "output_tokens_per_s_per_device",
            at.output_tokens_per_s_per_device,
            || Quantity::new("output tokens/s per device", Unit::None),
        );
        // A run whole counts every replica; the search's is one of dp.
        let whole = if best.checked.is_some() {
            1.0
        } else {
            l.dp as f64
        };
        r.result("throughput_requests_per_s", at.throughput * whole, || {
            Quantity::new("throughput, all replicas (requests/s)", Unit::None)
        });
        if let Some(p) = &best.prefill {
            r.result("prefill_devices", p.layout.devices(), || {
                Quantity::new("devices, prefill pool", Unit::Count)
            });
            r.result("decode_devices", best.layout.devices(), || {
                Quantity::new("devices, decode pool", Unit::Count)
            });
            r.result("kv_transfer_s", p.transfer_s, || {
                Quantity::new("KV transfer, mean prompt", Unit::Seconds).formula(format!(
                    "prompt x KV bytes per token / bandwidth, over {}",
                    p.link
                ))
            });
            r.result("kv_transfer_bandwidth", p.bandwidth, || {
                Quantity::new("KV transfer bandwidth", Unit::BytesPerSec)
                    .formula("min(devices x link) of a prefill and a decode replica")
            });
        }
        r.result("pools", pools(best), || Quantity::new("pools", Unit::None));
        r.result("kv_use_peak", at.kv_peak, || {
            Quantity::new("KV blocks held, peak (one replica)", Unit::Fraction)
        });
        match &best.energy {
            Some(e) => {
                e.record(&mut r);
                self.prices_of(best).record(&mut r, &[e]);
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
                o.insert("pools".into(), pools(c));
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
                    row.inputs.insert(
                        "prefill_pool".into(),
                        match &p.prefill {
                            Some((hw, l, d)) => format!(
                                "{hw} tp {} pp {}, {} devices",
                                l.tp,
                                l.pp,
                                units::sig(*d, 3)
                            )
                            .into(),
                            None => Value::Null,
                        },
                    );
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
                r.note("rows: the frontier of output tokens/s per device against tokens/s per user (1 / mean TPOT), each aggregated layout and batch cap run saturated (a closed loop of max-seqs users); a disaggregated point is a decode replica's full batch of decode-only steps at the mean context beside the share of a prefill pool its prompts need (prefill_pool: that pool's layout and devices per decode replica), tokens/s per device counting both");
            }
            None => {
                r.row_headline = ROW_COLUMNS.iter().map(|k| k.to_string()).collect();
                // The best few, and the first of each kind of break.
                let mut shown = 0;
                let mut seen_breaks: Vec<String> = Vec::new();
                // The best few, and the best of each kind (aggregated,
                // disaggregated) beyond them.
                let mut kinds_seen = [false; 2];
                for (k, c) in self.candidates.iter().enumerate() {
                    let kind = usize::from(c.prefill.is_some());
                    let show = match &c.verdict {
                        Verdict::Meets { .. } => {
                            let first_of_kind = !kinds_seen[kind];
                            kinds_seen[kind] = true;
                            shown < 5 || first_of_kind
                        }
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
        if self.pareto.is_none() && r.rows.len() < self.candidates.len() {
            r.note(format!(
                "rank: each plan's place among all {} considered (JSON `plans`, or --all, lists every one); the table shows the best five that meet, the best of each kind (aggregated, disaggregated) and the first of each kind of break, so ranks skip",
                units::whole(self.candidates.len() as u64)
            ));
        }
        let line = simulate_line(self, best);
        r.result("check_command", line.clone(), || {
            Quantity::new(
                "the simulate command that runs the winner whole",
                Unit::None,
            )
        });
        if let Some(k) = &best.checked {
            r.result("verdict_requests", k.requests, || {
                Quantity::new("requests in the winner's verdict run", Unit::Count)
                    .formula("doubled while queue, preemptions or KV use still climb")
            });
            r.result("kv_use_steady", k.kv_share, || {
                Quantity::new("KV cache held, last quarter (all replicas)", Unit::Fraction)
            });
            let margin = |a: Option<crate::calc::simulate::report::Against>, k: &str| {
                a.filter(|a| a.margin.is_finite())
                    .map(|a| format!(" {k} {}%", units::percent(a.margin)))
                    .unwrap_or_default()
            };
            r.note(format!(
                "the winner's verdict: its whole deployment over {} requests, seed {}, at steady state ({}{}); margins{}{}{}",
                units::whole(k.requests),
                w.seed,
                k.steady.text(),
                if k.extended > 0 {
                    format!("; the run was doubled {} times until it stopped climbing", k.extended)
                } else {
                    String::new()
                },
                margin(at.ttft_slo, "TTFT"),
                margin(at.tpot_slo, "TPOT"),
                if k.added > 0 {
                    format!("; {} replicas more than the short run needed", k.added)
                } else {
                    String::new()
                }
            ));
        }
        r.note(format!(
            "the other verdicts are simulated as one replica at the rate / replicas over {} requests, seed {}",
            units::whole(w.requests),
            w.seed
        ));
        r.note(format!("check it: {line}"));
        r.note("disaggregated candidates: each part's prefill pool with the fewest devices meeting TTFT (queue + prefill + KV transfer), then every decode pool beside it, each verdict a coupled run of both pools");
        if let Some(d) = w.draft {
            r.note(crate::calc::simulate::report::draft_note(&d));
        }
        for n in &self.notes {
            r.note(n.clone());
        }
        Ok(r)
    }
}

impl FleetCost {
    /// A plan's prices: its parts' device-hour prices weighted by their
    /// devices, or the one price.
    pub fn prices_of(&self, c: &Candidate) -> crate::calc::power::Prices {
        let mut w = vec![(c.hardware.as_str(), c.layout.devices() as f64)];
        if let Some(p) = &c.prefill {
            w.push((p.hardware.as_str(), p.layout.devices() as f64));
        }
        self.part_prices.of(&self.prices, &w)
    }
}

/// A plan in words: `h200-sxm tp 2 x 3, max-seqs 64`, a split plan's
/// prefill pool first.
pub fn plan_text(c: &Candidate) -> String {
    let l = c.layout;
    let mut s = format!("{} tp {} pp {}", c.hardware, l.tp, l.pp);
    if l.ep > 1 {
        s += &format!(" ep {}", l.ep);
    }
    s += &format!(" x {}, max-seqs {}", l.dp, c.max_seqs);
    match &c.prefill {
        Some(_) => format!(
            "prefill {} + decode {s}",
            prefill_text(c).as_str().unwrap_or_default()
        ),
        None => s,
    }
}

/// The `simulate` command that runs a candidate's whole deployment: the
/// search's model, parts, workload, precisions, prices, `--set`s and mode
/// ([`super::check`](mod@super::check)), the candidate's layout, and the run length of its
/// verdict.
pub fn simulate_line(f: &FleetCost, c: &Candidate) -> String {
    let w = &f.workload;
    let k = &f.check;
    let mut v: Vec<String> = vec!["roofline".into(), "simulate".into()];
    let mut put = |name: &str, val: String| {
        v.push(format!("--{name}"));
        v.push(val);
    };
    put("model", k.model.clone().unwrap_or_else(|| f.model.clone()));
    put("hw", k.part(&c.hardware).to_string());
    let l = c.layout;
    let rate = match w.arrivals {
        crate::calc::simulate::arrivals::Arrivals::Poisson(x) => x,
        _ => 0.0,
    };
    put("rate", format!("{}/s", units::sig(rate, 6)));
    put("prompt", w.prompt.text());
    put("output", w.output.text());
    for (name, n) in [("tp", l.tp), ("pp", l.pp), ("ep", l.ep), ("dp", l.dp)] {
        if n > 1 {
            put(name, n.to_string());
        }
    }
    put("max-seqs", c.max_seqs.to_string());
    put("max-batched-tokens", c.max_tokens.to_string());
    if let Some(p) = &c.prefill {
        if p.hardware != c.hardware {
            put("prefill-hw", k.part(&p.hardware).to_string());
        }
        let pl = p.layout;
        for (name, n) in [("tp", pl.tp), ("pp", pl.pp), ("ep", pl.ep)] {
            if n > 1 {
                put(&format!("prefill-{name}"), n.to_string());
            }
        }
        put("prefill-dp", pl.dp.to_string());
        if p.max_tokens != crate::calc::simulate::DEFAULT_WHOLE_PROMPT {
            put("prefill-max-batched-tokens", p.max_tokens.to_string());
        }
    }
    if let Some(t) = w.slo_ttft {
        put("slo-ttft", slo_text(t));
    }
    if let Some(t) = w.slo_tpot {
        put("slo-tpot", slo_text(t));
    }
    let n = c
        .checked
        .as_ref()
        .map_or_else(|| super::confirm::first_length(w, c), |k| k.requests);
    put("requests", n.to_string());
    put("seed", w.seed.to_string());
    let price = (!f.part_prices.0.is_empty())
        .then(|| f.prices_of(c).device_hour)
        .flatten()
        .map(|p| format!("{}/h", units::sig(p, 6)));
    v.extend(k.words(price.as_deref()));
    v.iter()
        .map(|w| super::check::quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

fn slo_text(t: crate::calc::simulate::slo::Target) -> String {
    let time = units::seconds(t.seconds).replace(' ', "");
    if (t.percentile - 99.0).abs() < 1e-9 {
        time
    } else {
        format!("p{}={time}", units::sig(t.percentile, 4))
    }
}

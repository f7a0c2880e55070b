//! A search's report: the best layout's figures, then every layout as a
//! row with what binds it and why it is not first.

use super::evaluate::PlanCost;
use super::report::{HEADLINE, header, plan_results, time_note};
use super::search::SearchCost;
use super::{Layout, Objective};
use crate::calc::power;
use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::units;

fn plan_row(p: &PlanCost, rank: usize, score: f64, verdict: &str) -> Row {
    let mut row = Row::default();
    let l = p.layout;
    row.inputs.insert("rank".into(), (rank as u64).into());
    row.inputs.insert("tp".into(), l.tp.into());
    row.inputs.insert("pp".into(), l.pp.into());
    row.inputs.insert("ep".into(), l.ep.into());
    row.inputs.insert("dp".into(), l.dp.into());
    let res = &mut row.results;
    res.insert(
        "memory_bytes_per_device".into(),
        p.memory_bytes_per_device.into(),
    );
    res.insert("comm_time_s".into(), p.comm_time_s.into());
    res.insert("prefill_time_s".into(), p.prefill_time_s.into());
    res.insert("decode_step_time_s".into(), p.decode_step_time_s.into());
    res.insert("bubble_fraction".into(), p.bubble_fraction.into());
    res.insert(
        "tokens_per_s_per_device".into(),
        p.tokens_per_s_per_device.into(),
    );
    res.insert(
        "power_w".into(),
        p.energy.draw.as_ref().ok().map(|d| d.power_w).into(),
    );
    res.insert("energy_per_token_j".into(), p.energy.per_token_j().into());
    res.insert(
        "prefill_energy_per_token_j".into(),
        p.prefill_energy.per_token_j().into(),
    );
    res.insert(
        "tokens_per_kwh".into(),
        p.energy.per_token_j().map(|j| power::KWH / j).into(),
    );
    res.insert("layout".into(), layout_text(&l).into());
    res.insert("binds".into(), binds(p).into());
    res.insert("fits".into(), p.fits.into());
    let _ = score;
    res.insert("verdict".into(), verdict.into());
    row
}

/// A layout in a few letters: `tp8 pp2`, the degrees above one (`tp1`
/// where every degree is one).
fn layout_text(l: &Layout) -> String {
    let parts: Vec<String> = [("tp", l.tp), ("pp", l.pp), ("ep", l.ep), ("dp", l.dp)]
        .iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, n)| format!("{k}{n}"))
        .collect();
    if parts.is_empty() {
        "tp1".into()
    } else {
        parts.join(" ")
    }
}

/// What dominates a layout's decode step: memory (it does not fit),
/// communication (more than half the step), the pipeline bubble, or the
/// roof of the busiest stage's compute and memory traffic.
fn binds(p: &PlanCost) -> &'static str {
    if !p.fits {
        "memory (does not fit)"
    } else if p.comm_time_s > p.decode_step_time_s * 0.5 {
        "communication"
    } else if p.bubble_fraction > 0.0 {
        "pipeline bubble"
    } else {
        "compute and memory time"
    }
}

fn describe_rows(r: &mut Report) {
    r.describe("rank", || Quantity::new("rank", Unit::Count));
    for (k, label, unit) in [
        ("tp", "tp", Unit::Count),
        ("pp", "pp", Unit::Count),
        ("ep", "ep", Unit::Count),
        ("dp", "dp", Unit::Count),
        ("memory_bytes_per_device", "memory per device", Unit::Bytes),
        ("comm_time_s", "communication per step", Unit::Seconds),
        ("prefill_time_s", "prefill", Unit::Seconds),
        ("decode_step_time_s", "decode step", Unit::Seconds),
        ("bubble_fraction", "bubble", Unit::Fraction),
        (
            "tokens_per_s_per_device",
            "tokens/s per device",
            Unit::Count,
        ),
        ("power_w", "power per device", Unit::Watts),
        (
            "energy_per_token_j",
            "energy per output token",
            Unit::Joules,
        ),
        (
            "prefill_energy_per_token_j",
            "energy per prompt token",
            Unit::Joules,
        ),
        (
            "tokens_per_kwh",
            "output tokens per kWh",
            Unit::TokensPerKwh,
        ),
        ("layout", "layout", Unit::None),
        ("binds", "what binds", Unit::None),
        ("fits", "fits", Unit::None),
        ("verdict", "why not first", Unit::None),
    ] {
        r.describe(k, || Quantity::new(label, unit));
    }
}

impl SearchCost {
    /// The report of a search: the best layout's figures, then every
    /// layout as a row (`plans`).
    pub fn report(&self, lean: bool) -> Report {
        let best = &self.plans[0];
        let mut r = Report::new_lean("plan search", lean);
        header(&mut r, best);
        r.input("devices", self.devices);
        r.input("objective", self.objective.as_str());
        if let Some(t) = self.slo_ttft {
            r.input("slo_ttft", t);
        }
        if let Some(t) = self.slo_tpot {
            r.input("slo_tpot", t);
        }
        r.result("plans_considered", self.plans.len() as u64, || {
            Quantity::new("valid layouts", Unit::Count)
        });
        plan_results(&mut r, best, "", lean, false);
        r.headline(HEADLINE);
        best.record_energy(&mut r);
        if !lean {
            r.order_groups(&["memory", "communication", "time"]);
            r.rows_kind = Some(RowsKind::Table);
            for (i, p) in self.plans.iter().enumerate() {
                r.rows
                    .push(plan_row(p, i + 1, self.scores[i], &self.verdicts[i]));
            }
            describe_rows(&mut r);
            // The default table: each layout, the figure the objective
            // ranks by, what binds it, whether it fits; --all the rest.
            let ranked_by = match self.objective {
                Objective::Latency => "decode_step_time_s",
                _ => "tokens_per_s_per_device",
            };
            r.row_headline = ["rank", "layout", ranked_by, "binds", "fits"]
                .iter()
                .map(|k| (*k).to_string())
                .collect();
        }
        // `plans`: every layout as one object with a single plan's keys,
        // best first (the table shows them as its rows).
        let plans: Vec<serde_json::Value> = self
            .plans
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let row = plan_row(p, i + 1, self.scores[i], &self.verdicts[i]);
                let mut o = serde_json::Map::new();
                for (k, v) in row.inputs.into_iter().chain(row.results) {
                    o.insert(k.into_owned(), v);
                }
                serde_json::Value::Object(o)
            })
            .collect();
        r.result("plans", plans, || {
            Quantity::new("every valid layout, best first", Unit::None)
        });
        for (why, n) in &self.rejected {
            r.note_with(|| {
                format!(
                    "skipped {} layout{}: {why}",
                    units::whole(*n),
                    if *n == 1 { "" } else { "s" }
                )
            });
        }
        if !best.fits {
            r.note("no layout fits; the best is the one closest to fitting");
        }
        time_note(&mut r, best.mode);
        r
    }
}

//! Separate prefill and decode pools: each pool's best layout, the KV
//! transfer between them, and its report.

use super::evaluate::PlanCost;
use super::report::{header, plan_results, time_note};
use super::search::search;
use super::{Objective, PlanInputs, Setup, Workload};
use crate::calc::model::kv_elements_per_token_per_layer;
use crate::error::{Error, Result};
use crate::inputs::at_least_one;
use crate::report::{Quantity, Report, Unit};
use crate::units::{self, si};
use serde::Serialize;

/// Separate prefill and decode pools.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DisaggCost {
    /// The prefill pool's best layout (shortest TTFT that fits).
    pub prefill: PlanCost,
    /// The decode pool's best layout (by the objective).
    pub decode: PlanCost,
    /// KV bytes of one request (prompt x KV per token, all layers).
    pub kv_transfer_bytes: f64,
    /// Bandwidth between the pools, B/s (the devices of one prefill
    /// replica, each over its own scale-out link).
    pub transfer_bandwidth: f64,
    /// Time to move one request's KV, seconds.
    pub kv_transfer_s: f64,
    /// Whether the transfer takes no longer than a decode step, so it
    /// hides behind decoding the requests already running.
    pub hides: bool,
}

/// Lays out prefill on `a` devices and decode on `b`.
pub fn disaggregate(
    s: &Setup,
    a: u64,
    b: u64,
    w: Workload,
    inputs: &PlanInputs,
) -> Result<DisaggCost> {
    let mut pre_in = inputs.clone();
    pre_in.objective = Some(Objective::Latency);
    pre_in.tp = None;
    pre_in.pp = None;
    pre_in.ep = None;
    let pre = search(s, at_least_one("prefill-devices", a)?, w, &pre_in)?;
    let prefill = pre
        .plans
        .iter()
        .filter(|p| p.fits)
        .min_by(|x, y| x.prefill_time_s.total_cmp(&y.prefill_time_s))
        .cloned()
        .ok_or_else(|| {
            Error::NoAnswer(format!(
                "no layout of {} fits on {} prefill devices",
                s.model.id,
                units::whole(a)
            ))
        })?;
    let mut dec_in = inputs.clone();
    dec_in.tp = None;
    dec_in.pp = None;
    dec_in.ep = None;
    let dec = search(s, at_least_one("decode-devices", b)?, w, &dec_in)?;
    let decode = dec.plans[0].clone();
    let kv_per_token = kv_elements_per_token_per_layer(s.model)? as f64
        * s.step.precisions.kv
        * s.model.layers.get() as f64;
    let kv_transfer_bytes = w.prompt as f64 * kv_per_token;
    let link =
        match s.fabric.scale_out()? {
            Some(t) => t.bandwidth,
            None => s.fabric.scale_up()?.map(|t| t.bandwidth).ok_or_else(|| {
                Error::Unsupported(format!("{} has no link between pools", s.hw.id))
            })?,
        };
    let senders = (prefill.layout.tp * prefill.layout.pp) as f64;
    let transfer_bandwidth = link * senders;
    let kv_transfer_s = kv_transfer_bytes / transfer_bandwidth;
    Ok(DisaggCost {
        hides: kv_transfer_s <= decode.decode_step_time_s,
        prefill,
        decode,
        kv_transfer_bytes,
        transfer_bandwidth,
        kv_transfer_s,
    })
}

impl DisaggCost {
    /// The report of a disaggregated deployment.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("plan disaggregate", lean);
        header(&mut r, &self.decode);
        r.input("prefill_devices", self.prefill.layout.devices());
        r.input("decode_devices", self.decode.layout.devices());
        for (prefix, p, pool) in [
            ("prefill_", &self.prefill, "prefill pool"),
            ("decode_", &self.decode, "decode pool"),
        ] {
            let mark = r.results.len();
            plan_results(&mut r, p, prefix, lean, false);
            if !lean {
                let keys: Vec<crate::report::Key> = r.results.keys().skip(mark).cloned().collect();
                for k in keys {
                    if let Some(q) = r.quantities.get_mut(&k) {
                        q.label = format!("{pool}: {}", q.label);
                        q.group = Some(pool.to_string());
                    }
                }
            }
        }
        r.result("prefill_time_s", self.prefill.prefill_time_s, || {
            Quantity::new("prefill of the whole batch (prefill pool)", Unit::Seconds)
        });
        r.result("decode_step_time_s", self.decode.decode_step_time_s, || {
            Quantity::new("decode step (decode pool)", Unit::Seconds)
        });
        let mark = r.results.len();
        r.result("kv_transfer_bytes", self.kv_transfer_bytes, || {
            Quantity::new("KV per request", Unit::Bytes)
                .formula("prompt x KV bytes per token (all layers)")
        });
        r.result(
            "transfer_bandwidth_bytes_per_s",
            self.transfer_bandwidth,
            || {
                Quantity::new("bandwidth between the pools", Unit::BytesPerSec)
                    .formula("tp x pp of a prefill replica x the scale-out link, one way")
            },
        );
        r.result("kv_transfer_s", self.kv_transfer_s, || {
            Quantity::new("KV transfer per request", Unit::Seconds)
                .formula("KV per request / bandwidth between the pools")
                .derive(format!(
                    "{} / {}",
                    si(self.kv_transfer_bytes, "B"),
                    si(self.transfer_bandwidth, "B/s")
                ))
        });
        r.result("kv_transfer_hides", self.hides, || {
            Quantity::new("transfer hides behind a decode step", Unit::None)
                .formula("KV transfer <= decode step")
        });
        r.headline(&[
            "prefill_time_s",
            "decode_step_time_s",
            "prefill_tp",
            "prefill_pp",
            "prefill_ep",
            "prefill_dp",
            "prefill_memory_bytes_per_device",
            "decode_tp",
            "decode_pp",
            "decode_ep",
            "decode_dp",
            "decode_memory_bytes_per_device",
            "kv_transfer_bytes",
            "kv_transfer_s",
            "kv_transfer_hides",
            "power_w",
            "energy_per_token_j",
            "prefill_energy_per_token_j",
            "cost_per_million_output_tokens",
            "cost_per_million_input_tokens",
        ]);
        // The decode pool's step per output token; the prefill pool's pass
        // per prompt token beside it (the KV transfer's energy is not
        // modelled).
        self.decode.energy.record(&mut r);
        let per = self.prefill.prefill_energy.per_token_j();
        r.result("prefill_energy_per_token_j", per, || {
            Quantity::new("prefill pool energy per prompt token", Unit::Joules)
                .formula("power x devices x prefill time / prompt tokens")
                .group("energy")
        });
        if !lean {
            r.group_since(mark, "between the pools");
            r.order_groups(&["prefill pool", "decode pool", "between the pools"]);
        }
        r.note_with(|| {
            let (a, b) = (self.prefill.layout, self.decode.layout);
            format!(
                "the pools are laid out separately (DistServe; the Learn Kernels book (000), §5.3): prefill tp {} pp {} dp {} ep {}, decode tp {} pp {} dp {} ep {}",
                units::whole(a.tp),
                units::whole(a.pp),
                units::whole(a.dp),
                units::whole(a.ep),
                units::whole(b.tp),
                units::whole(b.pp),
                units::whole(b.dp),
                units::whole(b.ep)
            )
        });
        time_note(&mut r, self.decode.mode);
        r
    }
}

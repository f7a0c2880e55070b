//! `decode --tp N`: one decode step of a tensor-parallel group of N
//! devices. There is one TP model in the crate, `plan`'s: the step is the
//! layout tp N x pp 1 x dp 1 x ep 1 evaluated at the decode workload
//! ([`crate::calc::plan::evaluate`]: the weights and KV heads split as
//! [`crate::calc::plan::tp_device_bytes`] and [`crate::calc::kv::kv_share`]
//! split them, the forward sharded onto one device, the all-reduces of
//! `plan`'s communication on the scale-up fabric under the engine's
//! algorithm). This file only maps decode's inputs onto it, refuses what
//! the per-device step cannot price, and reports the figures
//! (formulas.md, "Plans").

use super::cost::{Goodput, Slo, SloBound};
use super::inputs::DecodeInputs;
use crate::calc::kv;
use crate::calc::plan::{self, PlanCost, PlanInputs, Setup, Workload};
use crate::error::{Error, Result};
use crate::inputs::{Count, Tokens, at_least_one, positive};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use crate::units::{self, si};

/// decode's inputs that one device's step prices but a TP group's does not
/// (yet), each with why; given with `tp` above 1 they are refused, naming
/// the flag, rather than ignored.
const ONE_DEVICE_ONLY: &[(&str, &str)] = &[
    (
        "kernels",
        "a TP step counts each shard's kernels from the layer structure",
    ),
    (
        "acceptance",
        "speculative decoding is priced on one device's step",
    ),
    (
        "draft-tokens",
        "speculative decoding is priced on one device's step",
    ),
    (
        "draft-cost",
        "speculative decoding is priced on one device's step",
    ),
    (
        "speculative",
        "speculative decoding is priced on one device's step",
    ),
    (
        "measured",
        "a measured time is rated by one device's FLOPs and bytes",
    ),
];

/// The error for decode's field `field` given beside `tp` above 1.
pub fn refused(field: &str, tp: u64) -> Error {
    let why = ONE_DEVICE_ONLY
        .iter()
        .find(|(f, _)| *f == field)
        .map_or("it is priced on one device's step", |(_, w)| w)
        .replace("{tp}", &tp.to_string());
    Error::field(
        field,
        format!(
            "cannot be combined with --tp {}: {why}; leave one of them out",
            units::whole(tp)
        ),
    )
}

/// One decode step of a TP group: `plan`'s cost of the layout and what
/// decode adds to it.
#[derive(Debug, Clone, PartialEq)]
pub struct TpCost {
    /// `plan`'s cost of tp x 1 x 1 x 1 at the decode workload (prompt 1:
    /// no prefill is asked, so the live activations are the step's).
    pub plan: PlanCost,
    /// Weight, activation and KV precision and the launch mode.
    pub precisions: [&'static str; 4],
    /// Sequences of this context whose KV and live activations fit beside
    /// each device's weights.
    pub max_batch: u64,
    /// The time-per-token search, if asked: the group's step at each batch
    /// (its tokens per second per device).
    pub slo: Option<Slo>,
    /// Requests with the group's prefill in the loop, if asked.
    pub goodput: Option<Goodput>,
    /// Whether the batch is the search's answer (no batch was given).
    pub batch_searched: bool,
    /// The model's maximum when the context passes it (forced).
    pub beyond_max: Option<u64>,
    /// All-reduces in one step: per dense layer x dense layers + per MoE
    /// layer x MoE layers.
    pub allreduces: u64,
    /// Layers without routed experts.
    pub dense_layers: u64,
    /// Layers with them.
    pub moe_layers: u64,
}

/// The TP degree `inputs` ask for (1 when not given); 0 is refused.
pub fn degree(inputs: &DecodeInputs) -> Result<u64> {
    at_least_one("tp", inputs.tp.map_or(1, |c| c.0))
}

/// One decode step of model `m` on a TP group of `inputs.tp` devices `hw`.
pub fn cost(m: &Model, hw: &Hardware, inputs: &DecodeInputs, mode: Mode) -> Result<TpCost> {
    let tp = degree(inputs)?;
    let given = |f: &str| match f {
        "kernels" => inputs.kernels.is_some(),
        "acceptance" => inputs.acceptance.is_some(),
        "draft-tokens" => inputs.draft_tokens.is_some(),
        "draft-cost" => inputs.draft_cost.is_some(),
        _ => false,
    };
    if let Some((f, _)) = ONE_DEVICE_ONLY.iter().find(|(f, _)| given(f)) {
        return Err(refused(f, tp));
    }
    let given_batch = match inputs.batch {
        Some(b) => Some(at_least_one("batch", b.0)?),
        None if inputs.slo_tpot.is_some() => None,
        None => {
            return Err(Error::missing_input(
                "batch",
                "give `batch`, or a time-per-token target (`slo-tpot`) to search for the largest batch meeting it",
            ));
        }
    };
    let beyond_max = kv::check_context(m, inputs.context.0, inputs.force)
        .map_err(|e| crate::inputs::refused_by(kv::CONTEXT_READS, e))?;
    // A share, as one device's decode takes it (plan's `step` reserve is
    // priced from a run's caps, which a step alone has not).
    if let Some(v) = &inputs.reserve {
        kv::parse_share("reserve", v)?;
    }
    let pi = PlanInputs {
        devices: Some(Count(tp)),
        tp: Some(Count(tp)),
        pp: Some(Count(1)),
        dp: Some(Count(1)),
        ep: Some(Count(1)),
        batch: Some(Count(given_batch.unwrap_or(1))),
        context: Some(inputs.context),
        prompt: Some(Tokens(1)),
        dtype: inputs.dtype.clone(),
        kv_dtype: inputs.kv_dtype.clone(),
        activations: inputs.activations.clone(),
        launch: inputs.launch.clone(),
        reserve: inputs.reserve.clone(),
        engine: inputs.engine.clone(),
        ..Default::default()
    };
    let s = Setup::new(hw, m, &pi, mode)?;
    // decode has no --allow-cross-node: a group past the scale-up domain
    // is plan's to price.
    if let Some(d) = s.fabric.domain()
        && tp > d
    {
        return Err(Error::field(
            "tp",
            format!(
                "tp {} exceeds {}'s scale-up domain of {} devices, so every all-reduce would cross the network; give tp of at most {}, or price the cross-node layout with `roofline plan --tp {} --pp 1 --allow-cross-node`",
                units::whole(tp),
                hw.id,
                units::whole(d),
                units::whole(d),
                units::whole(tp)
            ),
        ));
    }
    let (l, devices) = plan::layout(&pi)?;
    plan::validate(&s, l, devices)?;
    let w = plan::workload(&pi)?;
    // The layout's cost at a batch: plan's evaluate, nothing else.
    let at = |batch: u64| plan::evaluate(&s, l, Workload { batch, ..w });
    // Memory per sequence is linear in the batch at prompt 1 (its KV and
    // its one token's live activations), so one sequence's cost gives the
    // most that fit beside the weights.
    let one = at(1)?;
    let per_seq = one.kv_bytes + one.activation_bytes;
    let left = one.usable_bytes - one.weight_bytes;
    let max_batch = if left <= 0.0 || per_seq <= 0.0 {
        0
    } else {
        (left / per_seq)
            .floor()
            .min(crate::inputs::MAX_COUNT as f64) as u64
    };
    let slo = match inputs.slo_tpot {
        None => None,
        Some(target) => Some(slo_search(
            positive("slo-tpot", target.seconds)?,
            max_batch,
            tp,
            |b| Ok(at(b)?.decode_step_time_s),
        )?),
    };
    let batch = given_batch.unwrap_or_else(|| slo.as_ref().map_or(1, |s| s.batch.max(1)));
    let p = if batch == 1 { one } else { at(batch)? };
    let goodput = goodput(inputs, &p, |prompt| {
        // Time to first token: the group's prefill of one prompt.
        Ok(plan::evaluate(
            &s,
            l,
            Workload {
                batch: 1,
                prompt,
                ..w
            },
        )?
        .prefill_time_s)
    })?;
    let moe_layers = m.moe_layers();
    let dense_layers = m.layers.get() - moe_layers;
    let c = &p.decode_comm;
    let allreduces =
        c.allreduces_per_dense_layer * dense_layers + c.allreduces_per_moe_layer * moe_layers;
    Ok(TpCost {
        precisions: s.step.precision_names(),
        plan: p,
        max_batch,
        slo,
        goodput,
        batch_searched: given_batch.is_none(),
        beyond_max,
        allreduces,
        dense_layers,
        moe_layers,
    })
}

/// Goodput as one device's `decode` works it (formulas.md, "Serving:
/// decode step"), the step and the prefill (`ttft(prompt)`) the group's;
/// None without `prompt` and `output`.
fn goodput(
    inputs: &DecodeInputs,
    p: &PlanCost,
    ttft: impl Fn(u64) -> Result<f64>,
) -> Result<Option<Goodput>> {
    let (out, prompt) = match (inputs.output, inputs.prompt) {
        (None, None) => {
            if inputs.slo_ttft.is_some() {
                return Err(Error::missing_input(
                    "prompt",
                    "slo-ttft needs prompt and output to put prefill in the loop",
                ));
            }
            return Ok(None);
        }
        (Some(_), None) => {
            return Err(Error::missing_input(
                "prompt",
                "goodput needs the prompt length as well as output",
            ));
        }
        (None, Some(_)) => {
            return Err(Error::missing_input(
                "output",
                "goodput needs the output length as well as prompt",
            ));
        }
        (Some(o), Some(q)) => (at_least_one("output", o.0)?, at_least_one("prompt", q.0)?),
    };
    let ttft = ttft(prompt)?;
    let step = p.decode_step_time_s;
    let b = p.work.batch as f64;
    let ttft_ok = inputs.slo_ttft.is_none_or(|x| ttft <= x.seconds);
    let tpot_ok = inputs.slo_tpot.is_none_or(|x| step <= x.seconds);
    Ok(Some(Goodput {
        prompt,
        output: out,
        ttft_s: ttft,
        request_latency_s: ttft + out as f64 * step,
        requests_per_s: b / (out as f64 * step + b * ttft),
        meets_slo: ttft_ok && tpot_ok,
    }))
}

/// The largest batch of at most `fit` (the sequences that fit; 0: none
/// does, so batch 1 is tried alone) whose step `step(batch)` meets
/// `target` per token, by bisection as one device's search does: a step
/// grows with the batch. Its tokens per second are per device of the
/// `devices`.
fn slo_search(
    target: f64,
    fit: u64,
    devices: u64,
    step: impl Fn(u64) -> Result<f64>,
) -> Result<Slo> {
    super::cost::slo_search(target, fit.max(1), SloBound::Memory, devices, &step)
}

impl TpCost {
    /// Board power and energy per output token of the group.
    pub fn energy(&self) -> &crate::calc::power::Energy {
        &self.plan.energy
    }

    /// The report; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let p = &self.plan;
        let l = p.layout;
        let c = &p.decode_comm;
        let mut r = Report::new_lean("decode", lean);
        r.hardware = Some(p.hardware.clone());
        r.model = Some(p.model.clone());
        if self.batch_searched {
            r.result("batch", p.work.batch, || {
                Quantity::new(
                    "batch (searched: the largest meeting --slo-tpot)",
                    Unit::Count,
                )
            });
        } else {
            r.input("batch", p.work.batch);
        }
        r.input("context", p.work.context);
        crate::calc::step::record_precisions(&mut r, self.precisions, p.mode);
        r.input("tp", l.tp);
        if !lean {
            r.headline(&[
                "weight_bytes_per_device",
                "kv_bytes_per_device",
                "memory_bytes_per_device",
                "fits",
                "allreduces_per_step",
                "comm_time_s",
                "step_time_s",
                "tokens_per_s_per_group",
                "tokens_per_s",
                "tokens_per_s_per_user",
                "slo_batch",
                "slo_bound",
                "slo_tokens_per_s",
                "ttft_s",
                "goodput_requests_per_s",
                "power_w",
                "energy_per_token_j",
                "cost_per_million_output_tokens",
                "cost_per_million_input_tokens",
                "energy_cost_share",
            ]);
        }
        let mark = r.results.len();
        r.result("weight_bytes_per_device", p.weight_bytes, || {
            Quantity::new("weights per device", Unit::Bytes)
                .formula("(attention + FFN + experts) / tp per layer x layers + norms + (embedding + LM head) / tp, x bytes per weight (plan's split)")
                .derive(format!(
                    "{} of the model's {} (each module at its own precision)",
                    si(p.weight_bytes, "B"),
                    si(p.weights.model, "B")
                ))
        });
        r.result("kv_share", p.kv_share, || {
            Quantity::new("share of the KV heads per device", Unit::Fraction).formula(
                "ceil(kv heads / tp) / kv heads (1 for MLA: the latent is shared by every head)",
            )
        });
        r.result("kv_bytes_per_device", p.kv_bytes, || {
            Quantity::new("KV cache per device", Unit::Bytes)
                .formula("batch x context x KV per token per layer x layers x share")
                .derive(format!(
                    "{} x {} x {} x {} x {}",
                    p.work.batch,
                    p.work.context,
                    si(p.kv_bytes_per_token_layer, "B"),
                    p.layers_per_stage,
                    units::sig(p.kv_share, 4)
                ))
        });
        r.result("activation_bytes_per_device", p.activation_bytes, || {
            Quantity::new("live activations per device", Unit::Bytes)
                .formula("batch x (4 x hidden + 2 x MLP width / tp) x 2 B")
        });
        r.result("memory_bytes_per_device", p.memory_bytes_per_device, || {
            Quantity::new("memory per device", Unit::Bytes)
                .formula("weights + KV + activations")
                .derive(format!(
                    "{} + {} + {}",
                    si(p.weight_bytes, "B"),
                    si(p.kv_bytes, "B"),
                    si(p.activation_bytes, "B")
                ))
        });
        r.result("usable_bytes", p.usable_bytes, || {
            Quantity::new("usable memory per device", Unit::Bytes)
                .formula("capacity x (1 - reserve)")
                .derive(format!(
                    "{} - {}",
                    si(p.capacity_bytes, "B"),
                    si(p.reserve_bytes, "B")
                ))
        });
        r.result("fits", p.fits, || {
            Quantity::new("fits", Unit::None).formula("memory per device <= usable memory")
        });
        r.result("max_batch", self.max_batch as f64, || {
            Quantity::new("sequences of this context that fit", Unit::Count)
                .formula("floor((usable memory - weights) / (KV + activations of one sequence))")
        });
        if !lean {
            r.group_since(mark, "memory");
        }
        let mark = r.results.len();
        r.result("tp_allreduce_bytes", c.tp_allreduce_bytes, || {
            Quantity::new("each all-reduce's input per rank", Unit::Bytes)
                .formula("batch x hidden x 2 B")
                .derive(format!("{} x {} x 2 B", p.work.batch, p.hidden))
        });
        r.result("tp_allreduce_s", c.tp_allreduce_s, || {
            Quantity::new("one all-reduce", Unit::Seconds).formula(
                "all-reduce of that size over tp devices on the scale-up fabric, the engine's algorithm (formulas.md, Collectives)",
            )
        });
        r.result("allreduces_per_step", self.allreduces, || {
            let q = Quantity::new("all-reduces per step", Unit::Count);
            if self.moe_layers == 0 {
                q.formula("2 per layer (after attention, after the MLP) x layers")
                    .derive(format!(
                        "{} x {}",
                        c.allreduces_per_dense_layer, self.dense_layers
                    ))
            } else {
                q.formula("2 per dense layer x dense layers + 2 per MoE layer x MoE layers")
                    .derive(format!(
                        "{} x {} + {} x {}",
                        c.allreduces_per_dense_layer,
                        self.dense_layers,
                        c.allreduces_per_moe_layer,
                        self.moe_layers
                    ))
            }
        });
        r.result("comm_time_s", p.comm_time_s, || {
            Quantity::new("communication per step", Unit::Seconds)
                .formula("all-reduces per step x one all-reduce")
                .derive(format!(
                    "{} x {}",
                    self.allreduces,
                    units::seconds(c.tp_allreduce_s)
                ))
        });
        if !lean {
            r.group_since(mark, "communication");
        }
        let mark = r.results.len();
        let (label, formula) = match p.mode {
            Mode::SpeedOfLight => (
                "step time (speed of light: a lower bound)",
                "max(one device's share of the forward, max(FLOPs / peak, bytes / bandwidth) + launch; communication): another microbatch's compute can run under any collective",
            ),
            Mode::Achievable => (
                "step time (achievable: measured figures)",
                "one device's share of the forward, each operation on its own roofline, summed, + communication",
            ),
        };
        r.result("device_time_s", p.decode_stage_compute_s, || {
            Quantity::new("one device's share of the forward", Unit::Seconds)
        });
        r.result("step_time_s", p.decode_step_time_s, || {
            Quantity::new(label, Unit::Seconds)
                .formula(formula)
                .derive(match p.mode {
                    Mode::SpeedOfLight => format!(
                        "max({}, {})",
                        units::seconds(p.decode_stage_compute_s),
                        units::seconds(p.comm_time_s)
                    ),
                    Mode::Achievable => format!(
                        "{} + {}",
                        units::seconds(p.decode_stage_compute_s),
                        units::seconds(p.comm_time_s)
                    ),
                })
        });
        // `tokens_per_s` is per device, as one device's decode has it, so a
        // sweep over tp compares like with like.
        r.result("tokens_per_s_per_group", p.tokens_per_s, || {
            Quantity::new("tokens per second of the group", Unit::Count)
                .formula("batch / step time")
                .derive(format!(
                    "{} / {}",
                    p.work.batch,
                    units::seconds(p.decode_step_time_s)
                ))
        });
        r.result("tokens_per_s", p.tokens_per_s_per_device, || {
            Quantity::new("tokens per second per device", Unit::Count)
                .formula("tokens per second of the group / tp")
                .derive(format!(
                    "{} / {}",
                    units::sig_grouped(p.tokens_per_s, 4),
                    l.tp
                ))
        });
        r.result("tokens_per_s_per_user", 1.0 / p.decode_step_time_s, || {
            Quantity::new("tokens per second per sequence", Unit::Count).formula("1 / step time")
        });
        if !lean {
            r.group_since(mark, "time");
        }
        if let Some(slo) = &self.slo {
            super::report::record_slo(
                &mut r,
                slo,
                " of the group's step",
                "slo batch / time per token / tp",
            );
        }
        if let Some(g) = &self.goodput {
            super::report::record_goodput(
                &mut r,
                g,
                "the group's prefill of one prompt (plan's)",
                "requests per second of the group",
            );
        }
        p.energy.record(&mut r);
        if !lean {
            r.order_groups(&["memory", "communication", "time"]);
        }
        if let Some(w) = &p.why_not {
            r.note(format!("does not fit: {w}"));
        }
        r.note_with(|| {
            format!(
                "a tensor-parallel group of {} {}: each holds 1/{} of the sharded weights (norms replicated) and ceil(kv heads / {}) of the KV heads, {}% of the cache; the step is `plan --tp {} --pp 1`'s decode step (formulas.md, Plans)",
                l.tp,
                p.hardware,
                l.tp,
                l.tp,
                units::percent(p.kv_share),
                l.tp
            )
        });
        if p.kv_share >= 1.0 {
            r.note("the KV latent is shared by every head, so each TP rank holds all of it");
        }
        r.note(match p.mode {
            Mode::SpeedOfLight => "speed of light: datasheet peaks, memory and link bandwidths, no collective latency; communication runs under compute (the step takes the longer of the two); a lower bound on a real step",
            Mode::Achievable => "achievable: measured peaks, memory bandwidth, link bandwidth and collective latency; communication follows compute (an engine's two-batch overlap hides only EP all-to-alls, which TP alone has none of)",
        });
        if let Some(slo) = &self.slo {
            r.note_with(|| slo_note(slo, self.batch_searched, p.work.context));
        }
        kv::note_beyond_max(
            &mut r,
            self.beyond_max,
            "context beyond the model's maximum of",
        );
        r
    }
}

/// What the time-per-token search found and what binds it, in words.
fn slo_note(slo: &Slo, searched: bool, context: u64) -> String {
    if slo.batch == 0 {
        return format!(
            "no batch meets {} per token: batch 1 takes {} on the group",
            units::seconds(slo.tpot_s),
            units::seconds(slo.batch_tpot_s)
        );
    }
    let why = match (slo.bound, slo.next_tpot_s) {
        (SloBound::TimePerToken, Some(next)) => format!(
            "time per token: batch {} takes {} ({} at {})",
            units::whole(slo.batch + 1),
            units::seconds(next),
            units::seconds(slo.batch_tpot_s),
            units::whole(slo.batch)
        ),
        _ => format!(
            "memory: {} sequences of {} tokens do not fit beside each device's weights, so time per token ({} at {}) is not what binds",
            units::whole(slo.batch + 1),
            units::whole(context),
            units::seconds(slo.batch_tpot_s),
            units::whole(slo.batch)
        ),
    };
    let worked = if searched {
        "; the step above is worked at that batch"
    } else {
        ""
    };
    format!(
        "the largest batch meeting {} per token on the group is {}, set by {why}{worked}",
        units::seconds(slo.tpot_s),
        units::whole(slo.batch)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    /// A step of 1 ms plus 0.1 ms a sequence: 2 ms per token is met by 10
    /// sequences (2.0 ms) and missed by 11 (2.1 ms).
    fn step(b: u64) -> Result<f64> {
        Ok(1e-3 + b as f64 * 1e-4)
    }

    #[test]
    fn the_search_finds_the_largest_batch_and_what_binds_it() {
        let s = slo_search(2.0e-3 + 1e-12, 1000, 8, step).unwrap();
        assert_eq!((s.batch, s.bound), (10, SloBound::TimePerToken));
        assert!((s.next_tpot_s.unwrap() - 2.1e-3).abs() < 1e-12);
        // 10 sequences in 2 ms over 8 devices: 625 tokens/s each.
        assert!((s.tokens_per_s - 625.0).abs() < 1e-6);
        // Only 5 fit: the memory binds.
        let s = slo_search(2.0e-3 + 1e-12, 5, 8, step).unwrap();
        assert_eq!(
            (s.batch, s.bound, s.next_tpot_s),
            (5, SloBound::Memory, None)
        );
        // Not even one sequence meets 1 ms.
        let s = slo_search(1.0e-3, 1000, 8, step).unwrap();
        assert_eq!((s.batch, s.tokens_per_s), (0, 0.0));
    }

    #[test]
    fn one_devices_cost_refuses_a_group_and_the_group_refuses_kernels() {
        let cat = Catalog::default();
        let m = cat.model("llama-3.1-70b", &[]).unwrap();
        let hw = cat.hardware("h200-sxm", &[]).unwrap();
        let i = |f: serde_json::Value| -> DecodeInputs {
            crate::inputs::from_fields(f.as_object().unwrap()).unwrap()
        };
        let group = i(serde_json::json!({"batch": 1, "context": 128, "tp": 8}));
        let e = super::super::cost(&m, &hw, &group, Mode::SpeedOfLight).unwrap_err();
        assert_eq!(e.exit_code(), 65, "{e}");
        let kernels = i(serde_json::json!({"batch": 1, "context": 128, "tp": 8, "kernels": 9}));
        let e = cost(&m, &hw, &kernels, Mode::SpeedOfLight).unwrap_err();
        assert!(e.to_string().contains("kernels"), "{e}");
        assert!(cost(&m, &hw, &group, Mode::SpeedOfLight).is_ok());
    }
}

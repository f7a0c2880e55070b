//! A plan's report: its figures as inputs and results, the headline, and
//! the notes on what the times assume.

use super::evaluate::PlanCost;
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::Mode;
use crate::units::{self, si};

/// The results a plan's table shows by default.
pub(super) const HEADLINE: &[&str] = &[
    "plans_considered",
    "tp",
    "pp",
    "ep",
    "dp",
    "memory_bytes_per_device",
    "usable_bytes",
    "fits",
    "comm_time_s",
    "prefill_time_s",
    "decode_step_time_s",
    "bubble_fraction",
    "tokens_per_s_per_device",
    "power_w",
    "energy_per_token_j",
    "prefill_energy_per_token_j",
    "cost_per_million_output_tokens",
    "cost_per_million_input_tokens",
];

/// Records a plan's figures; its layout as inputs (a layout the user gave)
/// or as results (one a search or a pool chose).
pub(super) fn plan_results(
    r: &mut Report,
    p: &PlanCost,
    prefix: &str,
    lean: bool,
    layout_given: bool,
) {
    let key = |k: &'static str| -> crate::report::Key {
        if prefix.is_empty() {
            k.into()
        } else {
            format!("{prefix}{k}").into()
        }
    };
    let l = p.layout;
    for (k, v, label) in [
        ("tp", l.tp, "tensor parallel"),
        ("pp", l.pp, "pipeline stages"),
        ("ep", l.ep, "expert parallel"),
        ("dp", l.dp, "data parallel"),
    ] {
        if layout_given {
            r.input(key(k), v);
        } else {
            r.result(key(k), v, || Quantity::new(label, Unit::Count));
        }
    }
    let mark = r.results.len();
    r.result(key("weight_bytes_per_device"), p.weight_bytes, || {
        Quantity::new("weights per device", Unit::Bytes).formula(
            "the heaviest stage's device, each module at its own precision: attention, dense FFN and shared experts / tp, norms and routers whole, (routed + redundant) / ep experts, embedding / tp on the first stage, lm_head / tp on the last",
        )
        .derive(stage_words(&p.weights))
    });
    let wt = &p.weights;
    r.result(key("weight_bytes_all_devices"), wt.all_devices, || {
        Quantity::new("weights over all devices", Unit::Bytes)
            .formula("each stage's device x tp x dp = the model's weights + replicated")
            .derive(format!(
                "{} + {} replicated",
                si(wt.model, "B"),
                si(wt.replicated(), "B")
            ))
    });
    if p.experts_per_device > 0.0 {
        r.result(key("experts_per_device"), p.experts_per_device, || {
            Quantity::new("experts per device per MoE layer", Unit::Count).formula(
                "(routed + redundant) / ep; with ep 1, routed / tp (experts split like the MLP)",
            )
        });
    }
    r.result(key("kv_bytes_per_device"), p.kv_bytes, || {
        Quantity::new("KV cache per device", Unit::Bytes)
            .formula("batch x context x KV per token per layer x layers per stage x share")
            .derive(format!(
                "{} x {} x {} x {} x {}",
                p.work.batch,
                p.work.context,
                si(p.kv_bytes_per_token_layer, "B"),
                p.layers_per_stage,
                units::sig(p.kv_share, 4)
            ))
    });
    r.result(key("kv_share"), p.kv_share, || {
        Quantity::new("share of the KV heads per device", Unit::Fraction).formula(
            "ceil(kv_heads / tp) / kv_heads (1 for MLA: the latent is shared by every head)",
        )
    });
    r.result(
        key("activation_bytes_per_device"),
        p.activation_bytes,
        || {
            Quantity::new("live activations per device", Unit::Bytes)
                .formula("prefill tokens per microbatch x (4 x hidden + 2 x MLP width / tp) x 2 B")
        },
    );
    r.result(
        key("memory_bytes_per_device"),
        p.memory_bytes_per_device,
        || {
            Quantity::new("memory per device", Unit::Bytes)
                .formula("weights + KV + activations")
                .derive(format!(
                    "{} + {} + {}",
                    si(p.weight_bytes, "B"),
                    si(p.kv_bytes, "B"),
                    si(p.activation_bytes, "B")
                ))
        },
    );
    r.result(key("usable_bytes"), p.usable_bytes, || {
        Quantity::new("usable memory", Unit::Bytes)
            .formula("capacity x (1 - reserve)")
            .derive(format!(
                "{} - {}",
                si(p.capacity_bytes, "B"),
                si(p.reserve_bytes, "B")
            ))
    });
    r.result(key("fits"), p.fits, || {
        Quantity::new("fits", Unit::None).formula("memory per device <= usable memory")
    });
    if !lean {
        r.group_since(mark, "memory");
    }
    let mark = r.results.len();
    let c = &p.decode_comm;
    if l.tp > 1 {
        r.result(key("tp_allreduce_bytes"), c.tp_allreduce_bytes, || {
            Quantity::new("TP all-reduce per rank (decode)", Unit::Bytes)
                .formula("batch / microbatches x hidden x 2 B")
                .derive(format!(
                    "{} x {} x 2 B",
                    units::number(p.decode_tokens),
                    p.hidden
                ))
        });
        r.result(key("tp_allreduce_s"), c.tp_allreduce_s, || {
            Quantity::new("one TP all-reduce (decode)", Unit::Seconds).formula(
                "collective all-reduce of that size over tp devices (formulas.md, Collectives)",
            )
        });
    }
    if l.ep > 1 {
        r.result(key("ep_alltoall_bytes"), c.ep_alltoall_bytes, || {
            Quantity::new(
                "EP dispatch per rank (decode; combine the same)",
                Unit::Bytes,
            )
            .formula("tokens / tp x experts per token x hidden x 2 B")
        });
        r.result(key("ep_alltoall_s"), c.ep_alltoall_s, || {
            Quantity::new("one EP all-to-all (decode)", Unit::Seconds).formula(
                "collective all-to-all of that size over ep devices (formulas.md, Collectives)",
            )
        });
    }
    if c.lm_head_s > 0.0 {
        r.result(key("lm_head_logits_bytes"), c.lm_head_logits_bytes, || {
            Quantity::new("LM head logits all-gathered per rank (decode)", Unit::Bytes)
                .formula("sequences / tp x vocabulary x 2 B (the hidden states before it: sequences / tp x hidden x 2 B)")
        });
        r.result(key("lm_head_s"), c.lm_head_s, || {
            Quantity::new("LM head all-gathers (decode)", Unit::Seconds).formula(
                "two all-gathers over the attention data-parallel group (formulas.md, Plans: attention data-parallel with expert parallelism)",
            )
        });
    }
    if l.pp > 1 {
        r.result(key("pp_send_bytes"), c.pp_send_bytes, || {
            Quantity::new("activations per stage boundary (decode)", Unit::Bytes)
        });
        r.result(key("pp_send_s"), c.pp_send_s, || {
            Quantity::new("one stage send (decode)", Unit::Seconds)
        });
    }
    r.result(key("comm_per_dense_layer_s"), c.dense_layer_s, || {
        Quantity::new("communication per dense layer (decode)", Unit::Seconds)
            .formula("all-reduces per layer x one all-reduce")
    });
    if p.experts_per_device > 0.0 {
        r.result(key("comm_per_moe_layer_s"), c.moe_layer_s, || {
            Quantity::new("communication per MoE layer (decode)", Unit::Seconds)
                .formula("attention all-reduce + dispatch + combine (or two all-reduces with ep 1)")
        });
    }
    r.result(key("comm_time_s"), p.comm_time_s, || {
        Quantity::new("communication per decode step", Unit::Seconds).formula(
            "(microbatches + pp - 1) x (the busiest stage's layers' communication + its send)",
        )
    });
    r.result(key("prefill_comm_time_s"), p.prefill_comm_time_s, || {
        Quantity::new("communication per prefill", Unit::Seconds)
    });
    if !lean {
        r.group_since(mark, "communication");
    }
    let mark = r.results.len();
    // Prefill and decode share one pipeline formula; only the stage's
    // compute time and communication differ.
    let slots = p.microbatches + l.pp - 1;
    let stage = match p.mode {
        Mode::SpeedOfLight => {
            "(microbatches + pp - 1) x (max(FLOPs / peak, bytes / bandwidth) + communication) of the busiest stage"
        }
        Mode::Achievable => {
            "(microbatches + pp - 1) x (the busiest stage's operations, each on its own roofline, summed + communication)"
        }
    };
    // The pipeline's time, the one time of each pass (formulas.md, "One
    // time on one device"): the board's limit holds its power, not its
    // time.
    let pipelined = |label: &'static str, stage_compute_s: f64, comm_s: f64| {
        move || {
            Quantity::new(label, Unit::Seconds)
                .formula(stage)
                .derive(format!(
                    "({} + {} - 1) x ({} + {})",
                    p.microbatches,
                    l.pp,
                    units::seconds(stage_compute_s),
                    units::seconds(comm_s / slots as f64)
                ))
        }
    };
    // Every prompt of the batch prefilled before its first decode step: the
    // last request's time to first token when the batch arrives at once
    // (`simulate` gives each request's).
    r.result(
        key("prefill_time_s"),
        p.prefill_time_s,
        pipelined(
            "prefill of the whole batch (its last first token)",
            p.prefill_stage_compute_s,
            p.prefill_comm_time_s,
        ),
    );
    r.result(
        key("decode_step_time_s"),
        p.decode_step_time_s,
        pipelined("decode step", p.decode_stage_compute_s, p.comm_time_s),
    );
    r.result(key("bubble_fraction"), p.bubble_fraction, || {
        Quantity::new("pipeline bubble", Unit::Fraction)
            .formula("(pp - 1) / (microbatches + pp - 1)")
            .derive(format!(
                "({} - 1) / ({} + {} - 1)",
                l.pp, p.microbatches, l.pp
            ))
    });
    r.result(key("tokens_per_s"), p.tokens_per_s, || {
        Quantity::new("decode tokens/s (all replicas)", Unit::Count)
            .formula("batch x dp / decode step")
            .derive(format!(
                "{} x {} / {}",
                p.work.batch,
                l.dp,
                units::seconds(p.decode_step_time_s)
            ))
    });
    r.result(
        key("tokens_per_s_per_device"),
        p.tokens_per_s_per_device,
        || Quantity::new("decode tokens/s per device", Unit::Count),
    );
    if !lean {
        r.group_since(mark, "time");
    }
}

pub(super) fn header(r: &mut Report, p: &PlanCost) {
    r.hardware = Some(p.hardware.clone());
    r.model = Some(p.model.clone());
    r.input("dtype", p.weights_in.as_str());
    if p.kv_dtype != p.dtype {
        r.input("kv_dtype", p.kv_dtype);
    }
    r.input("batch", p.work.batch);
    r.input("context", p.work.context);
    r.input("prompt", p.work.prompt);
    r.input("microbatches", p.microbatches);
    if p.redundant_experts > 0 {
        r.input("redundant_experts", p.redundant_experts);
    }
    if p.mode == Mode::Achievable {
        r.input("achievable", true);
    }
    r.input("engine", p.engine.as_str());
}

pub(super) fn time_note(r: &mut Report, mode: Mode) {
    r.note(match mode {
        Mode::SpeedOfLight => "speed of light: datasheet peaks, memory and link bandwidths, no collective latency; communication runs under compute (each stage takes the longer of the two), the EP dispatch carries one copy of a token per scale-up domain it reaches, in fp8 where the activations are; a lower bound on a real run",
        Mode::Achievable => "achievable: measured peaks, memory bandwidth, link bandwidth and NCCL latency; communication follows compute, save the EP all-to-alls of a pass of two or more tokens where the engine declares two-batch overlap (overlap.ep-all-to-all)",
    });
    r.note(match mode {
        Mode::SpeedOfLight => "decode and prefill times per device: the forward pass `decode` and `prefill` cost (their typed per-op FLOPs and bytes) sharded to one device of the busiest stage, timed as max(FLOPs / peak, bytes / bandwidth) plus launch overhead; collectives carry bf16 activations",
        Mode::Achievable => "decode and prefill times per device: the forward pass `decode` and `prefill` price, sharded to one device of the busiest stage (GEMMs split as tensor parallelism splits them), each operation on its own roofline with its kernels' fixed costs and launch, at the sustained rate or under the board's power limit where the file measures it (formulas.md, Achievable); collectives carry bf16 activations",
    });
}

impl PlanCost {
    /// Records the decode step's power and energy per output token, and
    /// the prefill's energy per prompt token beside them.
    pub fn record_energy(&self, r: &mut Report) {
        self.energy.record(r);
        let per = self.prefill_energy.per_token_j();
        r.result("prefill_energy_per_token_j", per, || {
            Quantity::new("prefill energy per prompt token", Unit::Joules)
                .formula("power x devices x prefill time / prompt tokens")
                .group("energy")
        });
    }

    /// The report of one layout.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("plan", lean);
        header(&mut r, self);
        r.input("devices", self.layout.devices());
        plan_results(&mut r, self, "", lean, true);
        r.headline(HEADLINE);
        self.record_energy(&mut r);
        if !lean {
            r.order_groups(&["memory", "communication", "time"]);
        }
        if let Some(w) = &self.why_not {
            r.note(format!("does not fit: {w}"));
        }
        if self.experts_per_device > 0.0 && self.layout.ep > 1 {
            r.note_with(|| {
                format!(
                    "MoE layers: {} experts per device over an expert group of {}; shared experts are split by tp on every device",
                    units::sig_grouped(self.experts_per_device, 4),
                    units::whole(self.layout.ep)
                )
            });
        }
        let g = self.layout.attention_dp();
        if self.experts_per_device > 0.0 && g > 1 {
            r.note_with(|| {
                let head = if self.decode_comm.lm_head_s > 0.0 {
                    format!("the LM head's vocabulary split over the group ({}'s dp-attention.lm-head = gathered): each rank's hidden states all-gathered before it, its slice of the logits after", self.engine)
                } else {
                    format!("the LM head whole on each replica, its own sequences' logits, no collective ({}'s dp-attention.lm-head = local)", self.engine)
                };
                format!(
                    "attention data-parallel with expert parallelism (DEP {}): {} replicas of tp {} run every MoE layer together, each its own {} sequences' attention and KV; the dispatch and combine all-to-all over the {} devices; {head}",
                    units::whole(self.layout.ep),
                    units::whole(g),
                    units::whole(self.layout.tp),
                    units::whole(self.work.batch),
                    units::whole(self.layout.ep),
                )
            });
        }
        if self.layout.devices() > 1 {
            r.note(weights_note(self));
        }
        if self.w8a8_default {
            r.note(crate::calc::step::W8A8_NOTE);
        }
        if self.kv_share >= 1.0 && self.layout.tp > 1 {
            r.note("the KV latent is shared by every head, so each TP rank holds all of it: data-parallel attention saves the memory that tensor parallelism cannot");
        }
        time_note(&mut r, self.mode);
        r
    }
}

/// A device of each stage, in words, for the per-device derivation.
fn stage_words(w: &super::evaluate::Weights) -> String {
    if w.per_stage.len() == 1 {
        return format!("one stage: {}", si(w.per_stage[0], "B"));
    }
    let each: Vec<String> = w.per_stage.iter().map(|b| si(*b, "B")).collect();
    format!("the heaviest of the stages' {}", each.join(", "))
}

/// What the layout's weights add up to over all its devices and what it
/// holds more than once (formulas.md, "Plans", memory).
fn weights_note(p: &PlanCost) -> String {
    let w = &p.weights;
    let l = p.layout;
    let mut parts = Vec::new();
    if w.tp_copies > 0.0 {
        let what = if p.experts_per_device > 0.0 {
            "norms and routers"
        } else {
            "norms"
        };
        parts.push(format!(
            "{} of {what}, whole on each of the {} TP ranks",
            si(w.tp_copies, "B"),
            units::whole(l.tp)
        ));
    }
    if w.dp_copies > 0.0 {
        parts.push(format!(
            "{} for {} more copies of the weights other than the routed experts (dp {}){}",
            si(w.dp_copies, "B"),
            units::whole(l.dp - 1),
            units::whole(l.dp),
            if p.decode_comm.lm_head_s > 0.0 {
                ", the LM head once per attention data-parallel group"
            } else {
                ""
            }
        ));
    }
    if w.expert_copies.abs() > 0.0 {
        parts.push(format!(
            "{} of routed experts held more than once ({} per device per MoE layer over tp x dp = {} devices)",
            si(w.expert_copies, "B"),
            units::sig_grouped(p.experts_per_device, 4),
            units::whole(l.tp.saturating_mul(l.dp))
        ));
    }
    let replicated = if parts.is_empty() {
        "nothing replicated".to_string()
    } else {
        format!("replicated: {}", parts.join("; "))
    };
    format!(
        "weights over all {} devices: {} = the model's {} (as `model show` weighs it) + {}",
        units::whole(l.devices()),
        si(w.all_devices, "B"),
        si(w.model, "B"),
        replicated
    )
}

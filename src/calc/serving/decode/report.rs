//! The report built from a [`DecodeCost`]: inputs, every figure with its
//! formula and derivation, the headline, and the notes that say what the
//! numbers assume.

use super::cost::{DecodeCost, SloBound};
use crate::calc::step::LaunchMode;
use crate::calc::step::W8A8_NOTE;
use crate::calc::step::{self, report as step_price};
use crate::calc::{kv, roof};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::Mode;
use crate::units::{self, si};

impl DecodeCost {
    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("decode", lean);
        let s = &self.setup;
        let st = &self.timed.step;
        let t = &self.timed.roof;
        // At an int8 compute precision the work counts operations.
        let u = |unit: Unit| s.roof.unit(unit);
        r.hardware = Some(self.hardware.clone());
        r.model = Some(self.model.clone());
        if self.batch_searched {
            // The batch is an answer (the time-per-token search's), not an
            // input; the step's figures are worked at it.
            r.result("batch", self.batch, || {
                Quantity::new(
                    "batch (searched: the largest meeting --slo-tpot)",
                    Unit::Count,
                )
            });
        } else {
            r.input("batch", self.batch);
        }
        r.input("context", self.context);
        s.record_precisions(&mut r);
        // A lean point has no headline: the list is not made for it.
        if !lean {
            let mut headline = vec![
                "weight_bytes",
                "kv_bytes",
                "flops",
                "experts_touched_per_layer",
                "intensity",
                "bound",
                "launch_time_s",
                "step_time_s",
                "warm_l2_time_s",
                "tokens_per_s",
                "tokens_per_s_per_user",
                "expected_tokens_per_pass",
                "speculative_speedup",
                "fits",
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
            ];
            if s.launch == LaunchMode::None {
                headline.retain(|k| *k != "launch_time_s");
            }
            r.headline(&headline);
        }
        let weight_bytes = st.weight_bytes();
        r.result("weight_bytes", weight_bytes, || {
            Quantity::new("weights read", Unit::Bytes)
                .formula(
                    "every matrix once (embedding: one row per token; MoE: the experts touched)",
                )
                .derive(step::describe_weights(st))
        });
        let kv_token = self.timed.step.kv_bytes_per_token;
        r.result("kv_bytes", st.kv_read_bytes(), || {
            Quantity::new("KV cache read", Unit::Bytes)
                .formula("batch x cached tokens x KV per token (read once)")
                .derive(format!(
                    "{} x {} x {}",
                    self.batch,
                    units::grouped(u128::from(self.timed.step.cached_tokens)),
                    units::iec_bytes(kv_token)
                ))
        });
        r.result("kv_write_bytes", st.kv_write_bytes(), || {
            Quantity::new("new keys and values written", Unit::Bytes)
                .formula("batch x new tokens x KV per token")
        });
        r.result("activation_bytes", st.activation_bytes(), || {
            Quantity::new("activations in and out", Unit::Bytes)
                .formula("each matmul's input read and output written")
        });
        let bytes = st.bytes();
        r.result("bytes", bytes, || {
            Quantity::new("bytes moved", Unit::Bytes)
                .formula("weights + KV read + KV written + activations")
                .derive(format!(
                    "{} + {} + {} + {}",
                    si(weight_bytes, "B"),
                    si(st.kv_read_bytes(), "B"),
                    si(st.kv_write_bytes(), "B"),
                    si(st.activation_bytes(), "B")
                ))
        });
        let flops = st.flops();
        r.result("flops", flops, || {
            Quantity::new(if s.roof.integer { "OPs" } else { "FLOPs" }, u(Unit::Flop))
                .formula("matmuls 2 x tokens x weights + attention 2 x heads x (d_qk + d_v) x pairs + LM head")
                .derive(format!(
                    "{} matmul + {} attention",
                    u(Unit::Flop).format(st.flops_of(step::OpKind::Matmul)),
                    u(Unit::Flop).format(st.flops_of(step::OpKind::Attention))
                ))
        });
        if let Some(e) = st.experts_touched {
            r.result("experts_touched_per_layer", e, || {
                Quantity::new("routed experts read per MoE layer", Unit::Count)
                    .formula("E x (1 - (1 - k/E)^tokens), uniform routing")
            });
        }
        let intensity = roof::intensity(&mut r, &s.roof, flops, bytes);
        s.record_roof(&mut r);
        roof::attainable(&mut r, &roof::ATTAINABLE, &s.roof, intensity);
        r.result("bound", t.bound.as_str(), || {
            Quantity::new("bound", Unit::None).formula("the larger of the two times")
        });
        roof::times(&mut r, &s.roof, t, flops, bytes);
        s.record_warm(&mut r, flops, weight_bytes + st.kv_read_bytes(), bytes, 1.0);
        let priced = self.timed.priced.as_ref();
        match priced {
            None => {
                r.result("kernels", s.kernels, || {
                    let q = Quantity::new("kernels per step", Unit::Count);
                    if s.kernels_given {
                        q.formula("given")
                    } else {
                        q.formula("layers x 12 (dense) or 16 + 3 per shared expert (MoE) + 4 (embedding, final norm, LM head, sampling)")
                    }
                });
                r.result("launch_time_s", self.timed.launch_s, || {
                    Quantity::new(
                        format!("launch overhead ({})", s.launch.as_str()),
                        Unit::Seconds,
                    )
                    .source(s.sources[2].as_deref())
                    .formula("kernels x overhead per kernel")
                    .derive(format!(
                        "{} x {}",
                        s.kernels,
                        units::seconds(s.per_kernel_s)
                    ))
                });
            }
            Some(p) => step_price::record(&mut r, p, s.kernels_given, s.launch.as_str()),
        }
        let label = match (s.mode, s.launch) {
            (Mode::SpeedOfLight, LaunchMode::None) => "step time (speed of light: a lower bound)",
            (Mode::SpeedOfLight, _) => "step time (speed of light + launch overhead)",
            (Mode::Achievable, _) => "step time (achievable: measured figures)",
        };
        let spec = self.speculation.as_ref();
        r.result("step_time_s", self.step_time_s, || {
            let q = Quantity::new(label, Unit::Seconds);
            match (spec, priced) {
                (None, Some(p)) => q
                    .formula("sum over operations of max(compute, memory) + kernels x (overhead + launch)")
                    .derive(step_price::derivation(p)),
                (None, None) => q.formula("max(compute, memory) + launch").derive(format!(
                    "max({}, {}) + {}",
                    units::seconds(t.compute_s),
                    units::seconds(t.memory_s),
                    units::seconds(self.timed.launch_s)
                )),
                (Some(sp), _) => q
                    .formula("verify pass of g+1 tokens + g x c x plain step")
                    .derive(format!(
                        "{} + {} x {} x {}",
                        units::seconds(self.timed.total_s),
                        sp.draft_tokens,
                        units::sig(sp.draft_cost, 4),
                        units::seconds(sp.plain_step_s)
                    )),
            }
        });
        let tps = self.tokens_per_s();
        r.result("tokens_per_s", tps, || {
            Quantity::new("tokens per second per device", Unit::Count)
                .formula("batch x tokens per step / step time")
                .derive(format!(
                    "{} x {} / {}",
                    self.batch,
                    units::sig(self.tokens_per_step, 4),
                    units::seconds(self.step_time_s)
                ))
        });
        r.result(
            "tokens_per_s_per_user",
            self.tokens_per_s_per_user(),
            || {
                Quantity::new("tokens per second per sequence", Unit::Count)
                    .formula("tokens per step / step time")
            },
        );
        r.result("model_weight_bytes", self.model_weight_bytes, || {
            Quantity::new("all the model's weights", Unit::Bytes).formula("params x bits / 8")
        });
        if let Some(sp) = spec {
            r.result("expected_tokens_per_pass", sp.expected_tokens, || {
                Quantity::new("tokens per sequence per pass", Unit::Count)
                    .formula(sp.acceptance.formula())
                    .source(Some("Leviathan et al. 2023"))
            });
            r.result("plain_step_time_s", sp.plain_step_s, || {
                Quantity::new("plain one-token step", Unit::Seconds)
            });
            r.result("speculative_speedup", sp.speedup, || {
                Quantity::new("speedup over plain decoding", Unit::Ratio)
                    .formula("plain step / (pass / tokens per pass)")
                    .derive(format!(
                        "{} / ({} / {})",
                        units::seconds(sp.plain_step_s),
                        units::seconds(sp.pass_s),
                        units::sig(sp.expected_tokens, 4)
                    ))
            });
        }
        if let Some(f) = &self.memory {
            r.result("fits", f.fits, || {
                Quantity::new("weights and KV fit", Unit::None)
                    .formula("KV of the batch <= memory x (1 - reserve) - weights")
            });
            r.result("max_batch", f.max_batch as f64, || {
                Quantity::new("sequences of this context that fit", Unit::Count)
                    .formula("floor(KV budget / KV per sequence)")
            });
        }
        if let Some(slo) = &self.slo {
            record_slo(&mut r, slo, "", "slo batch / time per token");
        }
        if let Some(g) = &self.goodput {
            record_goodput(
                &mut r,
                g,
                "prefill of one prompt",
                "requests per second per device",
            );
        }
        self.energy.record(&mut r);
        // Notes.
        let d = self.model_weight_bytes - weight_bytes;
        r.note_with(|| {
            let moe = if st.experts_touched.is_some() {
                ", and only the routed experts the batch touches are read"
            } else {
                ""
            };
            if self.tied_embeddings {
                // The LM head streams the embedding's matrix whole; the
                // gather's rows are read beside it.
                format!(
                    "the step reads {} of weights ({} in the model; the LM head shares the embedding's matrix, read whole by the head and row by row by the gather){moe}",
                    si(weight_bytes, "B"),
                    si(self.model_weight_bytes, "B")
                )
            } else if d > 0.0 {
                format!(
                    "the step reads {} of the model's {} of weights: the embedding table is gathered (one row per token), not streamed{moe}",
                    si(weight_bytes, "B"),
                    si(self.model_weight_bytes, "B"),
                )
            } else {
                format!(
                    "the step reads all {} of the model's weights: its tokens outnumber the embedding table's rows, so at most every row is gathered once",
                    si(weight_bytes, "B"),
                )
            }
        });
        if st.experts_touched.is_some() {
            r.note("MoE: experts touched assume uniform routing, each token choosing its top-k independently; real routers are skewed, so fewer distinct experts are read at mid batch");
        }
        match (s.mode, s.launch) {
            (Mode::SpeedOfLight, LaunchMode::None) => r.note(
                "speed of light: datasheet peak and bandwidth, no launch overhead; a lower bound no real step beats (--launch graph or eager adds dispatch; --achievable uses measured figures)",
            ),
            (Mode::SpeedOfLight, _) => {
                r.note("speed of light plus the file's launch overhead per kernel")
            }
            (Mode::Achievable, _) => {}
        }
        if s.mode == Mode::Achievable {
            r.note_with(|| {
                format!(
                    "achievable: each operation on its own roofline, summed (the file's measured {} bandwidth, {} {} matmul rate by GEMM shape, kernel overhead and {}); a calibrated estimate, not a bound",
                    si(s.roof.bandwidth, "B/s"),
                    s.roof.peak_text(),
                    s.compute,
                    s.launch_words()
                )
            });
            if let Some(p) = priced {
                step_price::notes(&mut r, p, s.pricer.as_ref(), &s.missing);
            }
        }
        if s.weights != s.activations {
            r.note_with(|| {
                format!(
                    "weights in {}, activations in {}: the matmuls run at the {} peak",
                    s.weights, s.activations, s.compute
                )
            });
        }
        if s.w8a8_default {
            r.note(W8A8_NOTE);
        }
        if s.activations == "fp8" || s.weights == "fp8" {
            r.note(
                "fp8 ranges: E4M3 up to 448, E5M2 up to 57,344 (formulas.md, Serving: fp8 ranges)",
            );
        }
        if let Some(f) = &self.memory
            && !f.fits
        {
            r.note_with(|| {
                format!(
                    "the KV cache of this batch ({}) exceeds the {} left beside the weights: at most {} sequences of this context fit",
                    si(f.kv_bytes, "B"),
                    si(f.kv_budget_bytes, "B"),
                    units::whole(f.max_batch)
                )
            });
        }
        kv::note_beyond_max(
            &mut r,
            self.beyond_max,
            "context beyond the model's maximum of",
        );
        if let Some(slo) = &self.slo
            && slo.batch > 0
        {
            r.note_with(|| {
                let why = match (slo.bound, slo.next_tpot_s) {
                    (SloBound::Memory, _) => format!(
                        "memory: {} sequences of {} tokens do not fit beside the weights, so time per token ({} at {}) is not what binds",
                        units::whole(slo.batch + 1),
                        units::whole(self.context),
                        units::seconds(slo.batch_tpot_s),
                        units::whole(slo.batch)
                    ),
                    (SloBound::TimePerToken, Some(next)) => format!(
                        "time per token: batch {} takes {} ({} at {})",
                        units::whole(slo.batch + 1),
                        units::seconds(next),
                        units::seconds(slo.batch_tpot_s),
                        units::whole(slo.batch)
                    ),
                    _ => format!(
                        "the search's upper end, batch {}: the file gives no memory capacity to bound it",
                        units::whole(slo.searched_to)
                    ),
                };
                let searched = if self.batch_searched {
                    "; the step above is worked at that batch"
                } else {
                    ""
                };
                format!(
                    "the largest batch meeting {} per token is {}, set by {why}{searched}",
                    units::seconds(slo.tpot_s),
                    units::whole(slo.batch)
                )
            });
        }
        if let Some(slo) = &self.slo
            && slo.batch == 0
        {
            r.note_with(|| {
                format!(
                    "no batch meets {} per token: batch 1 takes {}",
                    units::seconds(slo.tpot_s),
                    units::seconds(slo.batch_tpot_s)
                )
            });
        }
        r
    }
}

/// The `--slo-tpot` results: the largest batch meeting the target and its
/// rates. `searched` names what was bisected beyond the batch range (empty
/// for one device's step); `rate` is the tokens-per-second formula.
pub(super) fn record_slo(r: &mut Report, slo: &super::Slo, searched: &str, rate: &str) {
    r.result("slo_batch", slo.batch as f64, || {
        Quantity::new(
            format!(
                "largest batch with time per token <= {}",
                units::seconds(slo.tpot_s)
            ),
            Unit::Count,
        )
        .formula(format!(
            "bisection over batch 1..{}{searched}",
            slo.searched_to
        ))
    });
    r.result("slo_tokens_per_s", slo.tokens_per_s, || {
        Quantity::new("tokens per second per device there", Unit::Count).formula(rate)
    });
    r.result("slo_time_per_token_s", slo.batch_tpot_s, || {
        Quantity::new("time per output token there", Unit::Seconds)
    });
    r.result("slo_bound", slo.bound.as_str(), || {
        Quantity::new("what sets that batch", Unit::None).formula(
            "memory when the search reaches the sequences that fit, else the next batch's time per token",
        )
    });
}

/// The goodput results: time to first token (`ttft` says how it was
/// priced), request latency, requests per second (`rps` labels whose) and
/// those meeting the SLOs.
pub(super) fn record_goodput(r: &mut Report, g: &super::Goodput, ttft: &str, rps: &str) {
    r.result("ttft_s", g.ttft_s, || {
        Quantity::new(
            format!(
                "time to first token ({} prompt tokens)",
                units::whole(g.prompt)
            ),
            Unit::Seconds,
        )
        .formula(ttft)
    });
    r.result("request_latency_s", g.request_latency_s, || {
        Quantity::new(
            format!("request latency ({} output tokens)", units::whole(g.output)),
            Unit::Seconds,
        )
        .formula("ttft + output x time per token")
    });
    r.result("requests_per_s", g.requests_per_s, || {
        Quantity::new(rps, Unit::Count).formula("batch / (output steps x step time + batch x ttft)")
    });
    r.result(
        "goodput_requests_per_s",
        if g.meets_slo { g.requests_per_s } else { 0.0 },
        || {
            Quantity::new("requests per second meeting the SLOs", Unit::Count).formula(
                "requests per second if ttft and time per token meet their targets, else 0",
            )
        },
    );
}

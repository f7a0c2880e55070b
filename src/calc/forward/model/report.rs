//! `model show`'s report: the parameter subtotals and their sum, weight
//! and KV bytes, and the architecture with its sources.

use super::{ModelCost, Params, Part};
use crate::report::{Quantity, Report, Unit};
use crate::spec::model::AttentionKind;
use crate::units::{grouped, si};

/// The parameter subtotals, each derived from the layer shapes, then
/// their sum and the parameters one token uses: `model show`'s and
/// `model list`'s derivation of the count.
pub(super) fn param_results(r: &mut Report, parts: &[Part], p: &Params, moe: bool) {
    let parts_from = r.results.len();
    for part in parts {
        r.result(part.key, part.value as f64, || {
            Quantity::new(part.label, Unit::Count)
                .formula(part.formula.clone())
                .derive(part.derivation.clone())
        });
    }
    r.group_since(parts_from, "parameters");
    let total = p.total as f64;
    r.result("params", total, || {
        Quantity::new("parameters", Unit::Count)
            .formula(
                parts
                    .iter()
                    .map(|x| x.label)
                    .collect::<Vec<_>>()
                    .join(" + "),
            )
            .derive(
                parts
                    .iter()
                    .map(|x| grouped(x.value.into()))
                    .collect::<Vec<_>>()
                    .join(" + "),
            )
    });
    r.result("active_params", p.active as f64, || {
        if moe {
            Quantity::new("active parameters per token", Unit::Count)
                .formula("params - routed experts + the routed experts one token runs (moe_layers x top-k x one expert)")
                .derive(format!(
                    "{} - {} + {}",
                    grouped(p.total.into()),
                    grouped(p.routed_experts.into()),
                    grouped(
                        u128::from(p.active) + u128::from(p.routed_experts)
                            - u128::from(p.total)
                    )
                ))
        } else {
            Quantity::new("active parameters per token", Unit::Count)
                .formula("params (dense: every parameter is used)")
        }
    });
}

impl ModelCost {
    fn source(&self, field: &str) -> Option<&str> {
        self.sources
            .get(field)
            .or(self.cites_file.as_ref())
            .map(String::as_str)
    }

    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let p = &self.params;
        let arch = &self.architecture;
        let mut r = Report::new_lean("model show", lean);
        r.model = Some(self.model.clone());
        r.input("dtype", self.weights_in.as_str());
        r.input("kv_dtype", self.kv_dtype);
        r.result("name", self.name.as_str(), || {
            Quantity::new("name", Unit::None)
        });
        param_results(&mut r, &self.parts, p, arch.moe.is_some());
        let total = p.total as f64;
        let bits = self.weight_bits;
        // Cards differ in what they count: say what this count holds.
        let no_embedding = p.active.saturating_sub(p.embedding) as f64;
        r.result("active_params_without_embedding", no_embedding, || {
            Quantity::new("active, less the input embedding", Unit::Count)
                .formula("active_params - embedding: a token gathers one row of the embedding table, not the table")
                .derive(format!(
                    "{} - {}",
                    grouped(p.active.into()),
                    grouped(p.embedding.into())
                ))
        });
        if let Some(c) = self.card.0 {
            r.result("card_params", c, || {
                Quantity::new("the card's parameters", Unit::Count)
                    .source(self.source("card-params"))
            });
            r.note_with(|| {
                format!(
                    "parameters: {} derived (embedding {} and output head {} counted) against the card's {} ({:+.2}%)",
                    crate::units::number(total),
                    crate::units::number(p.embedding as f64),
                    crate::units::number(p.lm_head as f64),
                    crate::units::number(c),
                    (total / c - 1.0) * 100.0
                )
            });
        }
        if let Some(c) = self.card.1 {
            r.result("card_active_params", c, || {
                Quantity::new("the card's active parameters", Unit::Count)
                    .source(self.source("card-active-params"))
            });
            r.note_with(|| {
                let (with, without) = (p.active as f64, no_embedding);
                let (v, what) = if (with / c - 1.0).abs() <= (without / c - 1.0).abs() {
                    (with, "with the embedding")
                } else {
                    (without, "without the input embedding")
                };
                format!(
                    "active: the card's {} matches the count {what}, {} ({:+.2}%); with the embedding it is {}, without {}",
                    crate::units::number(c),
                    crate::units::number(v),
                    (v / c - 1.0) * 100.0,
                    crate::units::number(with),
                    crate::units::number(without)
                )
            });
        }
        // Mixed where some module is at a format other than dtype.
        let mixed = self.weights_in != self.dtype;
        r.result("weight_bytes", self.weight_bytes, || {
            if mixed {
                Quantity::new("weights", Unit::Bytes).formula(
                    "sum over modules of params x the module's bits / 8 (weight-formats; the rest at dtype)",
                )
            } else {
                Quantity::new("weights", Unit::Bytes)
                    .formula("params x bits / 8")
                    .derive(format!("{} x {} / 8", grouped(p.total.into()), bits))
            }
        });
        r.result("active_weight_bytes", self.active_weight_bytes, || {
            if mixed {
                Quantity::new("active weights per token", Unit::Bytes)
                    .formula("weights - the routed experts a token skips at their format")
            } else {
                Quantity::new("active weights per token", Unit::Bytes)
                    .formula("active_params x bits / 8")
                    .derive(format!("{} x {} / 8", grouped(p.active.into()), bits))
            }
        });
        let mla = arch.attention == AttentionKind::Mla;
        r.result(
            "kv_bytes_per_token_per_layer",
            self.kv_bytes_per_token_per_layer,
            || {
                let (f, d) = if mla {
                    (
                        "(kv_lora_rank + qk_rope_head_dim) x bytes: the latent and the rotary key",
                        format!(
                            "({} + {})",
                            arch.kv_lora_rank.unwrap_or(0),
                            arch.qk_rope_head_dim.unwrap_or(0)
                        ),
                    )
                } else {
                    (
                        "2 x kv_heads x head_dim x bytes: a key and a value per KV head",
                        format!("2 x {} x {}", arch.kv_heads, arch.head_dim.unwrap_or(0)),
                    )
                };
                Quantity::new("KV per token per layer", Unit::Bytes)
                    .formula(f)
                    .derive(format!("{d} x {}", self.kv_element_bytes))
            },
        );
        r.result("kv_bytes_per_token", self.kv_bytes_per_token, || {
            Quantity::new("KV per token", Unit::Bytes)
                .formula("layers x KV per token per layer")
                .derive(format!(
                    "{} x {}",
                    arch.layers,
                    si(self.kv_bytes_per_token_per_layer, "B")
                ))
        });
        let mark = r.results.len();
        self.architecture(&mut r);
        if let Some(ctx) = arch.max_context {
            r.result("max_context", ctx as f64, || {
                Quantity::new("maximum context", Unit::Count).source(self.source("max-context"))
            });
        }
        r.group_since(mark, "architecture");
        // The answer and the shapes that decide it; --all adds the
        // subtotals and the rest, --explain derives every one.
        r.headline(&[
            "name",
            "params",
            "active_params",
            "weight_bytes",
            "active_weight_bytes",
            "kv_bytes_per_token_per_layer",
            "kv_bytes_per_token",
            "layers",
            "hidden_size",
            "heads",
            "kv_heads",
            "head_dim",
            "kv_lora_rank",
            "routed_experts",
            "experts_per_token",
        ]);
        for n in &self.notes {
            r.note(n.clone());
        }
        r.note_with(|| {
            // A checkpoint that mixes formats is not "in" one of them.
            let formats = if self.weights_in == self.dtype {
                String::new()
            } else {
                let list: Vec<String> = self
                    .weight_formats
                    .iter()
                    .map(|(m, f)| format!("{m} in {f}"))
                    .collect();
                format!(" with {}", list.join(", "))
            };
            format!(
                "{} billion parameters = {} in {}{formats}",
                crate::units::sig_grouped(total / 1e9, 4),
                si(self.weight_bytes, "B"),
                self.dtype
            )
        });
        r
    }

    /// The architecture numbers, each with its source, and the MoE shape.
    fn architecture(&self, r: &mut Report) {
        let a = &self.architecture;
        let p = &self.params;
        let count = |r: &mut Report, key: &'static str, label: &str, v: u64, field: &str| {
            r.result(key, v as f64, || {
                Quantity::new(label, Unit::Count).source(self.source(field))
            });
        };
        count(r, "layers", "layers (L)", a.layers, "layers");
        count(
            r,
            "hidden_size",
            "hidden size (d)",
            a.hidden_size,
            "hidden-size",
        );
        count(r, "vocab_size", "vocabulary", a.vocab_size, "vocab-size");
        count(r, "heads", "query heads (h)", a.heads, "attention.heads");
        count(
            r,
            "kv_heads",
            "KV heads (h_kv)",
            a.kv_heads,
            "attention.kv-heads",
        );
        if let (Some(dh), Some(hd)) = (a.head_dim, a.heads_x_head_dim) {
            r.result("head_dim", dh as f64, || {
                Quantity::new("head dimension (d_h)", Unit::Count)
                    .source(self.source("attention.head-dim"))
                    .formula(if a.head_dim_given {
                        ""
                    } else {
                        "hidden_size / heads"
                    })
            });
            r.result("heads_x_head_dim", hd as f64, || {
                Quantity::new("h x d_h", Unit::Count)
                    .formula("heads x head_dim")
                    .derive(format!("{} x {}", a.heads, dh))
            });
            r.result(
                "query_heads_per_kv_head",
                a.heads as f64 / a.kv_heads as f64,
                || {
                    Quantity::new("query heads per KV head", Unit::Count)
                        .formula("heads / kv_heads")
                        .derive(format!("{} / {}", a.heads, a.kv_heads))
                },
            );
        } else {
            for (key, label, field, v) in [
                (
                    "kv_lora_rank",
                    "MLA latent rank",
                    "attention.kv-lora-rank",
                    a.kv_lora_rank,
                ),
                (
                    "qk_rope_head_dim",
                    "MLA rotary key dim",
                    "attention.qk-rope-head-dim",
                    a.qk_rope_head_dim,
                ),
            ] {
                if let Some(v) = v {
                    count(r, key, label, v, field);
                }
            }
        }
        count(
            r,
            "intermediate_size",
            "dense FFN width (d_ff)",
            a.intermediate_size,
            "ffn.intermediate-size",
        );
        if let Some(w) = a.sliding_window {
            count(
                r,
                "sliding_window",
                "sliding window (tokens)",
                w,
                "sliding-window",
            );
            if self.windowed_layers < a.layers {
                r.result("windowed_layers", self.windowed_layers as f64, || {
                    Quantity::new("windowed layers", Unit::Count)
                        .source(self.source("layer-types"))
                        .formula("layers the window applies to (layer-types); the others attend to every token")
                });
            }
        }
        if let Some(moe) = &a.moe {
            count(
                r,
                "routed_experts",
                "routed experts",
                moe.routed_experts,
                "moe.routed-experts",
            );
            count(
                r,
                "shared_experts",
                "shared experts",
                moe.shared_experts,
                "moe.shared-experts",
            );
            count(
                r,
                "experts_per_token",
                "routed experts per token (top-k)",
                moe.experts_per_token,
                "moe.experts-per-token",
            );
            // Shared experts are few and top-k is at most the routed
            // count, so the sum is computed in f64 and cannot wrap.
            r.result(
                "experts_run_per_token",
                moe.experts_per_token as f64 + moe.shared_experts as f64,
                || {
                    Quantity::new("experts run per token", Unit::Count)
                        .formula("top-k + shared")
                        .derive(format!(
                            "{} + {}",
                            moe.experts_per_token, moe.shared_experts
                        ))
                },
            );
            count(
                r,
                "dense_layers",
                "dense layers",
                moe.dense_layers,
                "moe.dense-layers",
            );
            if let Some(f) = self.active_fraction {
                r.result("active_fraction", f, || {
                    Quantity::new("active share of parameters", Unit::Fraction)
                        .formula("active_params / params")
                        .derive(format!(
                            "{} / {}",
                            grouped(p.active.into()),
                            grouped(p.total.into())
                        ))
                });
            }
        }
    }
}

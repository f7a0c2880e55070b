//! What a per-operation price adds to a report (decode, prefill): the
//! kernel count and overhead it used, whether the sustained rate applied,
//! each operation's time in the step's derivation, and notes on figures
//! the file lacked.

use super::price::{Priced, Pricer};
use crate::report::{Quantity, Report, Unit};
use crate::units;

/// Records `kernels`, `launch_time_s` and `sustained` from `p`.
pub fn record(r: &mut Report, p: &Priced, given: bool, launch: &str) {
    r.result("kernels", p.kernels, || {
        let q = Quantity::new("kernels per step", Unit::Count);
        let q = q.derive(kernel_derivation(p));
        if given {
            q.formula("given (each operation's count scaled to it)")
        } else {
            q.formula("per operation: each projection's GEMMs, attention and its cache writes, the elementwise kernels between them (formulas.md, Achievable)")
        }
    });
    r.result("launch_time_s", p.overhead_s, || {
        Quantity::new(
            format!("kernel overhead and launch ({launch})"),
            Unit::Seconds,
        )
        .formula("per operation: kernels x (kernel overhead + launch); eager: the host's wait where it is longer")
    });
    let limited = p.clock.is_some();
    r.result("sustained", p.sustained, || {
        let q = Quantity::new("sustained rate used", Unit::None);
        if limited {
            q.formula("whether the step's power at the burst clock passes the board's limit, so its clock drops (formulas.md, Achievable: the power limit over a step)")
        } else {
            q.formula("compute-bound operations take more than half the step")
        }
    });
}

/// The sum of the operations' times, largest first, for a derivation:
/// `ffn 2.95 ms + qkv 623 us + ...`.
pub fn derivation(p: &Priced) -> String {
    let mut ops: Vec<_> = p.ops.iter().filter(|o| o.time_s > 0.0).collect();
    ops.sort_by(|a, b| b.time_s.total_cmp(&a.time_s));
    ops.iter()
        .map(|o| format!("{} {}", o.name, units::seconds(o.time_s)))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Each operation's kernels over the step, most first, so `--explain`
/// shows what the engine launches: `routed-experts 256 + qkv 32 + ...`.
fn kernel_derivation(p: &Priced) -> String {
    let mut ops: Vec<_> = p.ops.iter().filter(|o| o.kernels > 0.0).collect();
    ops.sort_by(|a, b| b.kernels.total_cmp(&a.kernels));
    ops.iter()
        .map(|o| format!("{} {}", o.name, units::number(o.kernels)))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Notes: the rate used, the figures the model did without.
pub fn notes(r: &mut Report, p: &Priced, pricer: Option<&Pricer>, missing: &[&str]) {
    if let (Some(pr), Some(x)) = (pricer, p.clock) {
        if let Some(pl) = &pr.power {
            if p.sustained {
                r.note_with(|| {
                    format!(
                        "clock under the power limit: repeated back to back the step would draw more than the {:.0} W the board holds (package.compute-watts), so its clock drops to {:.0}% of the burst clock and its compute-bound operations stretch (achievable.power-limit)",
                        pl.limit_w,
                        x * 100.0
                    )
                });
            } else {
                r.note_with(|| {
                    format!(
                        "within the power limit: the step draws at most the {:.0} W the board holds at the burst clock, so every operation runs at the burst rate (achievable.dense)",
                        pl.limit_w
                    )
                });
            }
        }
    } else if let Some(pr) = pricer {
        if p.sustained {
            if let Some(s) = pr.sustained {
                r.note_with(|| {
                    format!(
                        "compute-bound as a whole: its compute-bound operations run at the sustained {}/s the board holds under its power limit (achievable.sustained), not the burst {}/s",
                        units::si(s, "FLOP"),
                        units::si(pr.rate, "FLOP")
                    )
                });
            }
        } else if pr.sustained.is_some() {
            r.note("bound by memory and overheads as a whole: the burst matmul rate applies (achievable.dense), not the sustained one");
        }
    }
    if let (Some(h), Some(_)) = (pricer.and_then(|pr| pr.head), p.op(super::LM_HEAD)) {
        r.note_with(|| {
            format!(
                "LM head at {}: a weight-quantized checkpoint keeps it at 16 bits, as vLLM's fp8 quantization and the measured fp8 forwards do: its weights and logits at {} bytes an element and the {} rate (formulas.md, Achievable: the LM head)",
                h.compute, h.weight, h.compute
            )
        });
    }
    if !missing.is_empty() {
        r.note_with(|| {
            format!(
                "the file lacks {}: the per-operation model does without (no per-kernel overhead, no tiling loss, the GEMM rate for attention, the burst rate for long work, as applies), so it errs fast",
                missing.join(", ")
            )
        });
    }
}

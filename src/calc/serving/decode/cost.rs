//! `decode`'s cost: the step (or speculative pass) at a batch, the memory
//! that batch needs, the time-per-token search for the largest batch, and
//! goodput with prefill in the loop, gathered into a [`DecodeCost`].

use super::inputs::DecodeInputs;
use crate::calc::step::Shape;
use crate::calc::step::{Choices, Setup, setup};
use crate::calc::step::{Timed, timed_with};
use crate::calc::{kv, power, speculative};
use crate::error::{Error, Result};
use crate::inputs::{at_least_one, positive};
use crate::spec::hardware::{Hardware, Mode};
use crate::spec::model::Model;
use serde::Serialize;
use std::rc::Rc;

/// Speculative decoding applied to the step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Speculation {
    /// a (one rate, one a position, or a mean accepted length).
    pub acceptance: speculative::Acceptance,
    /// g.
    pub draft_tokens: u64,
    /// c.
    pub draft_cost: f64,
    /// (1 - a^(g+1)) / (1 - a), or per position 1 + a1 + a1 a2 + ...
    pub expected_tokens: f64,
    /// The plain one-token step, total.
    pub plain_step_s: f64,
    /// verify pass + g c plain steps.
    pub pass_s: f64,
    /// plain step / (pass / expected tokens).
    pub speedup: f64,
}

/// What limits the largest batch meeting a time-per-token target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SloBound {
    /// One more sequence's KV cache does not fit beside the weights.
    Memory,
    /// One more sequence makes a token take longer than the target.
    TimePerToken,
    /// The search's own upper end (no memory capacity to bound it).
    SearchLimit,
}

impl SloBound {
    /// The words a table shows.
    pub fn as_str(self) -> &'static str {
        match self {
            SloBound::Memory => "memory",
            SloBound::TimePerToken => "time per token",
            SloBound::SearchLimit => "search limit",
        }
    }
}

/// The largest batch meeting a time-per-output-token target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slo {
    /// The target.
    pub tpot_s: f64,
    /// The largest batch meeting it (0: none does).
    pub batch: u64,
    /// The upper end searched (memory's max batch, where known).
    pub searched_to: u64,
    /// Its time per output token.
    pub batch_tpot_s: f64,
    /// What sets the batch: the memory (the next batch's KV does not fit)
    /// or the time per token (the next batch misses the target).
    pub bound: SloBound,
    /// The next batch's time per output token, where it fits.
    pub next_tpot_s: Option<f64>,
    /// Device throughput there.
    pub tokens_per_s: f64,
}

/// Requests with prefill in the loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Goodput {
    /// Prompt tokens.
    pub prompt: u64,
    /// Output tokens.
    pub output: u64,
    /// Prefill of one prompt (time to first token).
    pub ttft_s: f64,
    /// ttft + output x time per output token.
    pub request_latency_s: f64,
    /// batch / (output x step + batch x ttft).
    pub requests_per_s: f64,
    /// Whether the SLOs given are met.
    pub meets_slo: bool,
}

/// Every figure `decode` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeCost {
    /// The hardware's id.
    pub hardware: String,
    /// The model's id.
    pub model: String,
    /// Sequences.
    pub batch: u64,
    /// Tokens cached per sequence.
    pub context: u64,
    /// Precisions, roof and launch (shared by a sweep's points).
    pub setup: Rc<Setup>,
    /// The step (a speculative pass when speculating).
    pub timed: Timed,
    /// Every weight of the model at the weight precision.
    pub model_weight_bytes: f64,
    /// Whether the model's LM head is its embedding matrix (the file's
    /// `tied-embeddings`), for the note on weights read.
    pub tied_embeddings: bool,
    /// Tokens each sequence gains per step.
    pub tokens_per_step: f64,
    /// Step time (a pass, drafts included).
    pub step_time_s: f64,
    /// Speculative decoding, if asked.
    pub speculation: Option<Speculation>,
    /// The SLO search, if asked.
    pub slo: Option<Slo>,
    /// Goodput, if asked.
    pub goodput: Option<Goodput>,
    /// KV + weights against memory, where the file has a capacity.
    pub memory: Option<MemoryFit>,
    /// The model's maximum when the context passes it (forced).
    pub beyond_max: Option<u64>,
    /// Whether the batch is the time-per-token search's answer (no batch
    /// was given).
    pub batch_searched: bool,
    /// Board power and energy per output token (formulas.md, "Power and
    /// energy"), over the step's own time; where the work would draw
    /// more than the board's limit in it, the stretched draw is its
    /// estimate.
    pub energy: power::Energy,
}

/// Weights and KV against device memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryFit {
    /// Bytes left for KV after weights and reserve.
    pub kv_budget_bytes: f64,
    /// The KV of this batch.
    pub kv_bytes: f64,
    /// Whether it fits.
    pub fits: bool,
    /// Sequences of this context that fit.
    pub max_batch: u64,
    /// Usable or datasheet memory.
    pub source: kv::MemorySource,
}

/// `decode`'s cost.
pub fn cost(m: &Model, hw: &Hardware, inputs: &DecodeInputs, mode: Mode) -> Result<DecodeCost> {
    cost_in(m, hw, inputs, mode, |choices| {
        Fixed::new(m, hw, mode, choices, inputs.reserve.as_ref())
    })
}

/// `decode`'s cost at one point of a sweep: the set-up and the model's
/// parameter count come from `shared`, made at the first point of this
/// model, device and choices and reused by every later one (a sweep over
/// the batch or the context changes none of them).
pub fn cost_shared(
    m: &Rc<Model>,
    hw: &Rc<Hardware>,
    inputs: &DecodeInputs,
    mode: Mode,
    shared: &mut Shared,
) -> Result<DecodeCost> {
    cost_in(m, hw, inputs, mode, |choices| {
        shared.get(m, hw, mode, choices, inputs.reserve.as_ref())
    })
}

/// What a decode point derives from its model, device, choices and memory
/// reserve alone.
#[derive(Debug, Clone)]
struct Fixed {
    setup: Rc<Setup>,
    params: crate::calc::model::Params,
    /// The KV budget, where the file has a memory capacity.
    budget: Option<kv::Budget>,
    /// The power model at the compute precision, or the field it lacks.
    power: Rc<std::result::Result<power::PowerModel, String>>,
}

impl Fixed {
    /// Made in the order a point's cost needs them, so a point fails with
    /// the error it always did.
    fn new(
        m: &Model,
        hw: &Hardware,
        mode: Mode,
        choices: Choices,
        reserve: Option<&serde_json::Value>,
    ) -> Result<Fixed> {
        let setup = setup(m, hw, mode, choices)?;
        let params = crate::calc::model::params(m)?;
        let budget = match kv::device_memory(hw) {
            Err(_) => None,
            Ok(_) => Some(kv::budget(m, hw, choices.dtype, reserve)?),
        };
        let power = Rc::new(power::PowerModel::of(hw, setup.compute));
        Ok(Fixed {
            setup: Rc::new(setup),
            params,
            budget,
            power,
        })
    }
}

/// The set-ups a sweep's points share ([`cost_shared`]), each kept with
/// the model and device files it was made for (held, so a file is never
/// mistaken for another made later at the same address) and the choices.
#[derive(Debug, Default)]
pub struct Shared {
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    model: Rc<Model>,
    hw: Rc<Hardware>,
    mode: Mode,
    choices: [Option<String>; 4],
    kernels: Option<crate::inputs::Count>,
    reserve: Option<serde_json::Value>,
    engine: Option<crate::spec::engine::Engine>,
    fixed: Fixed,
}

/// Most set-ups a [`Shared`] keeps (a grid over precisions and launch
/// modes has a few; past this the oldest goes).
const SHARED_ENTRIES: usize = 16;

impl Shared {
    fn get(
        &mut self,
        m: &Rc<Model>,
        hw: &Rc<Hardware>,
        mode: Mode,
        c: Choices,
        reserve: Option<&serde_json::Value>,
    ) -> Result<Fixed> {
        let texts = [c.dtype, c.activations, c.kv_dtype, c.launch];
        let found = self.entries.iter().find(|e| {
            Rc::ptr_eq(&e.model, m)
                && Rc::ptr_eq(&e.hw, hw)
                && e.mode == mode
                && e.kernels == c.kernels
                && e.reserve.as_ref() == reserve
                && e.engine.as_ref() == c.engine
                && e.choices.iter().zip(texts).all(|(a, b)| a.as_deref() == b)
        });
        if let Some(e) = found {
            return Ok(e.fixed.clone());
        }
        // A set-up that fails is not kept: the next point fails the same way.
        let fixed = Fixed::new(m, hw, mode, c, reserve)?;
        if self.entries.len() == SHARED_ENTRIES {
            self.entries.remove(0);
        }
        self.entries.push(Entry {
            model: Rc::clone(m),
            hw: Rc::clone(hw),
            mode,
            choices: texts.map(|t| t.map(str::to_string)),
            kernels: c.kernels,
            reserve: reserve.cloned(),
            engine: c.engine.cloned(),
            fixed: fixed.clone(),
        });
        Ok(fixed)
    }
}

fn cost_in(
    m: &Model,
    hw: &Hardware,
    inputs: &DecodeInputs,
    mode: Mode,
    fixed: impl FnOnce(Choices) -> Result<Fixed>,
) -> Result<DecodeCost> {
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
    // One device's step; a TP group's is `plan`'s (super::tp).
    if super::tp::degree(inputs)? > 1 {
        return Err(Error::field(
            "tp",
            "decode::cost prices one device's step; a tensor-parallel group's is decode::tp::cost",
        ));
    }
    let context = inputs.context.0;
    let beyond_max = kv::check_context(m, context, inputs.force)?;
    let Fixed {
        setup: s,
        params: counts,
        budget,
        power: power_model,
    } = fixed(Choices {
        dtype: inputs.dtype.as_deref(),
        activations: inputs.activations.as_deref(),
        kv_dtype: inputs.kv_dtype.as_deref(),
        launch: inputs.launch.as_deref(),
        kernels: inputs.kernels,
        engine: inputs.engine.as_deref(),
    })?;
    let timed = |m: &Model, s: &Setup, shape: Shape| timed_with(m, s, shape, counts);
    // Each module at its own format where the checkpoint mixes them.
    let model_weight_bytes = crate::calc::model::weight_bytes(m, &counts, s.precisions.weight)?;

    // Memory: weights that cannot fit at all are no answer (exit 1).
    let memory = match budget {
        None => None,
        Some(b) => {
            let (source, left) = (b.source, b.kv_budget_bytes);
            // Windowed layers cache at most their window.
            let per_seq = crate::calc::model::kv_elements_per_token_per_layer(m)? as f64
                * s.precisions.kv
                * m.cached_token_layers(context + 1);
            // The batch's KV is filled in once the batch is known (it may
            // be the answer of the time-per-token search).
            Some((
                MemoryFit {
                    kv_budget_bytes: left,
                    kv_bytes: 0.0,
                    fits: true,
                    max_batch: (left / per_seq).floor().min(u64::MAX as f64) as u64,
                    source,
                },
                per_seq,
            ))
        }
    };

    let spec = match inputs.acceptance {
        None => {
            if inputs.draft_tokens.is_some() || inputs.draft_cost.is_some() {
                return Err(Error::missing_input(
                    "acceptance",
                    "speculative decoding needs the acceptance rate as well",
                ));
            }
            None
        }
        Some(a) => {
            let g = speculative::draft_tokens(inputs.draft_tokens.map_or(4, |g| g.0))?;
            let a = a.0.with_drafts(g)?;
            let c = speculative::draft_cost(inputs.draft_cost.map(|c| c.0))?;
            Some((a, g, c))
        }
    };

    // One step (or speculative pass) at a batch: the timed forward, the
    // pass time and tokens per sequence per pass.
    let at = |b: u64| -> Result<(Timed, f64, f64, Option<Speculation>)> {
        let plain = timed(
            m,
            &s,
            Shape {
                batch: b,
                new: 1,
                past: context,
                lm_head_tokens: 1,
            },
        )?;
        match spec {
            None => {
                let t = plain.total_s;
                Ok((plain, t, 1.0, None))
            }
            Some((a, g, c)) => {
                let verify = timed(
                    m,
                    &s,
                    Shape {
                        batch: b,
                        new: g + 1,
                        past: context,
                        lm_head_tokens: g + 1,
                    },
                )?;
                let e = a.tokens(g);
                let pass = verify.total_s + g as f64 * c * plain.total_s;
                let sp = Speculation {
                    acceptance: a,
                    draft_tokens: g,
                    draft_cost: c,
                    expected_tokens: e,
                    plain_step_s: plain.total_s,
                    pass_s: pass,
                    speedup: plain.total_s / (pass / e),
                };
                Ok((verify, pass, e, Some(sp)))
            }
        }
    };
    let slo = match inputs.slo_tpot {
        None => None,
        Some(target) => {
            let target = positive("slo-tpot", target.seconds)?;
            let hi = memory.as_ref().map_or(1 << 20, |(f, _)| f.max_batch.max(1));
            let tpot = |b: u64| -> Result<f64> {
                let (_, pass, e, _) = at(b)?;
                Ok(pass / e)
            };
            // What stops the batch growing at the top of the search: the
            // memory, or the search's own limit where nothing bounds it.
            let top = if memory.is_some() {
                SloBound::Memory
            } else {
                SloBound::SearchLimit
            };
            Some(slo_search(target, hi, top, 1, &tpot)?)
        }
    };

    let batch_searched = given_batch.is_none();
    // Without a batch, the step is worked at the search's answer (batch 1
    // where none meets the target).
    let batch = given_batch.unwrap_or_else(|| slo.as_ref().map_or(1, |s| s.batch.max(1)));
    let memory = memory.map(|(mut f, per_seq)| {
        f.kv_bytes = per_seq * batch as f64;
        f.fits = f.kv_bytes <= f.kv_budget_bytes;
        f
    });
    let (t, step_time_s, tokens_per_step, speculation) = at(batch)?;
    // A speculative pass is the verify forward plus g draft steps, each
    // taken to draw what a plain step of the target draws for c of its
    // time (the draft model's own figures are not known).
    let drafts = match &speculation {
        Some(sp) => Some((
            timed(
                m,
                &s,
                Shape {
                    batch,
                    new: 1,
                    past: context,
                    lm_head_tokens: 1,
                },
            )?,
            sp.draft_tokens as f64 * sp.draft_cost,
        )),
        None => None,
    };
    // One time (formulas.md, "One time on one device"): the step's own,
    // the roofs' bound or the achievable price (which already runs at the
    // clock the board's limit settles); the energy is the draw held to it,
    // and where the work would pass the limit in that time, the stretched
    // draw is the note's estimate.
    let draw = power_model
        .as_ref()
        .as_ref()
        .map_err(String::clone)
        .map(|pm| {
            let pass = power::of_timed(pm, &t);
            let d = match &drafts {
                Some((plain, k)) => power::Draw::sum([pass, power::of_timed(pm, plain).scaled(*k)]),
                None => pass,
            };
            (pm, d)
        });
    let energy = power::Energy::held(
        draw,
        step_time_s,
        mode,
        1.0,
        batch as f64 * tokens_per_step,
        power::Per::Output,
    );

    let goodput = match (inputs.output, inputs.prompt) {
        (None, None) => None,
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
        (Some(out), Some(prompt)) => {
            let out = at_least_one("output", out.0)?;
            let prompt = at_least_one("prompt", prompt.0)?;
            let pre = timed(
                m,
                &s,
                Shape {
                    batch: 1,
                    new: prompt,
                    past: 0,
                    lm_head_tokens: 1,
                },
            )?;
            let ttft = pre.total_s;
            let tpot = step_time_s / tokens_per_step;
            let b = batch as f64;
            let steps = out as f64 / tokens_per_step;
            let ttft_ok = inputs.slo_ttft.is_none_or(|x| ttft <= x.seconds);
            let tpot_ok = inputs.slo_tpot.is_none_or(|x| tpot <= x.seconds);
            Some(Goodput {
                prompt,
                output: out,
                ttft_s: ttft,
                request_latency_s: ttft + out as f64 * tpot,
                requests_per_s: b / (steps * step_time_s + b * ttft),
                meets_slo: ttft_ok && tpot_ok,
            })
        }
    };
    if inputs.slo_ttft.is_some() && goodput.is_none() {
        return Err(Error::missing_input(
            "prompt",
            "slo-ttft needs prompt and output to put prefill in the loop",
        ));
    }

    Ok(DecodeCost {
        hardware: hw.id.clone(),
        model: m.id.clone(),
        batch,
        context,
        setup: s,
        timed: t,
        model_weight_bytes,
        tied_embeddings: m.tied_embeddings,
        tokens_per_step,
        step_time_s,
        speculation,
        slo,
        goodput,
        memory,
        beyond_max,
        batch_searched,
        energy,
    })
}

impl DecodeCost {
    /// Tokens per second per device.
    pub fn tokens_per_s(&self) -> f64 {
        self.batch as f64 * self.tokens_per_step / self.step_time_s
    }
    /// Tokens per second each sequence sees.
    pub fn tokens_per_s_per_user(&self) -> f64 {
        self.tokens_per_step / self.step_time_s
    }
}

/// The `--slo-tpot` answer: the largest batch in 1..=hi whose time per
/// token `tpot` is at most `target`, by bisection (time per token grows
/// with the batch; batch 0 when none meets it). What stops it: `top` when
/// the search reaches hi, else the next batch's time per token. Its tokens
/// per second are per device of `devices`.
pub(super) fn slo_search(
    target: f64,
    hi: u64,
    top: SloBound,
    devices: u64,
    tpot: &impl Fn(u64) -> Result<f64>,
) -> Result<Slo> {
    let (best, best_tpot) = if tpot(1)? > target {
        (0, tpot(1)?)
    } else if tpot(hi)? <= target {
        (hi, tpot(hi)?)
    } else {
        // Invariant: lo meets the target, hi does not.
        let (mut lo, mut hi) = (1u64, hi);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if tpot(mid)? <= target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo, tpot(lo)?)
    };
    let (bound, next_tpot_s) = if best == hi && best > 0 {
        (top, None)
    } else {
        (SloBound::TimePerToken, Some(tpot(best + 1)?))
    };
    Ok(Slo {
        tpot_s: target,
        batch: best,
        searched_to: hi,
        batch_tpot_s: best_tpot,
        bound,
        next_tpot_s,
        tokens_per_s: if best == 0 {
            0.0
        } else {
            best as f64 / best_tpot / devices as f64
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::spec::overrides::Set;

    fn inputs(f: serde_json::Value) -> DecodeInputs {
        crate::inputs::from_fields(f.as_object().unwrap()).unwrap()
    }

    #[test]
    fn a_shared_set_up_gives_every_point_the_answer_it_gets_alone() {
        // Points that change the set-up (precision, launch, reserve, the
        // file) between points that do not: each must read its own.
        let cat = Catalog::default();
        let m = Rc::new(cat.model("llama-3-8b", &[]).unwrap());
        let h200 = Rc::new(cat.hardware("h200-sxm", &[]).unwrap());
        let slower: Vec<Set> = vec!["achievable.hbm-bandwidth=2TB/s".parse().unwrap()];
        let slow = Rc::new(cat.hardware("h200-sxm", &slower).unwrap());
        let mut shared = Shared::default();
        let mut points = 0;
        for hw in [&h200, &slow, &h200] {
            for dtype in [None, Some("fp8"), None, Some("int4")] {
                for launch in [None, Some("eager")] {
                    for reserve in [None, Some(0.5), Some(0.99)] {
                        for batch in [1, 64] {
                            let mut f = serde_json::json!({"batch": batch, "context": 2048});
                            if let Some(d) = dtype {
                                f["dtype"] = d.into();
                            }
                            if let Some(l) = launch {
                                f["launch"] = l.into();
                            }
                            if let Some(r) = reserve {
                                f["reserve"] = r.into();
                            }
                            let i = inputs(f);
                            let alone = cost(&m, hw, &i, Mode::Achievable);
                            let got = cost_shared(&m, hw, &i, Mode::Achievable, &mut shared);
                            match (alone, got) {
                                (Ok(a), Ok(b)) => assert_eq!(a, b, "{i:?}"),
                                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                                (a, b) => panic!("{i:?}: {:?} against {:?}", a.is_ok(), b.is_ok()),
                            }
                            points += 1;
                        }
                    }
                }
            }
        }
        // A third of them (the 99% reserve leaves no room for the weights)
        // fail, the same way alone and shared.
        assert_eq!(points, 144);
    }
}

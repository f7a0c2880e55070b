//! What one iteration costs (formulas.md, "Simulation: iteration time").
//! An iteration is one forward of its decode tokens and prefill chunks
//! over their caches; the engine describes it by a few sums ([`Batch`])
//! and a [`StepCost`] prices it. The real cost ([`Forward`]) builds the
//! forward from the same typed operations as `decode` and `prefill`
//! ([`step::forward`]) and times it through `plan`'s replica pricing
//! ([`Replica::pass_s`], which on one device is `decode`'s roofline
//! time plus launch overhead), so a change to the step model reaches the
//! simulator. The operations that depend only on the token count are built
//! once per count and kept; attention is linear in its query-key pairs and
//! cached tokens, so its operation is made from two probes.

use crate::calc::plan::{Comm, Replica, StagePart};
use crate::calc::step::{self, Op, OpKind, Precisions, Shape, Step};
use crate::error::Result;
use crate::spec::model::{Model, Window};

/// The sums an iteration is priced by.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Batch {
    /// New tokens in all (decodes plus chunk tokens).
    pub tokens: u64,
    /// Tokens the LM head runs on (each decode, and each chunk that ends a
    /// prompt).
    pub lm_head: u64,
    /// Causal query-key pairs, all sequences.
    pub pairs: f64,
    /// Cached tokens attention reads, all sequences.
    pub seen: f64,
    /// Sequences.
    pub seqs: u64,
    /// The sequence with the most new tokens: (new, cached tokens it
    /// sees), the shape the per-operation model prices attention by.
    pub longest: (u64, u64),
}

impl Batch {
    /// Adds a sequence of `new` tokens over `past` cached ones; `samples`
    /// when it ends with a sampled token. The window logic is
    /// [`step::forward`]'s.
    pub fn add(&mut self, new: u64, past: u64, samples: bool, window: Window) {
        self.add_sampled(new, past, u64::from(samples), window);
    }

    /// Adds a sequence of `new` tokens over `past` cached ones, `sampled`
    /// of them through the LM head (a verify pass samples at every
    /// position).
    pub fn add_sampled(&mut self, new: u64, past: u64, sampled: u64, window: Window) {
        // Windowed layers read at most the window; full ones every token
        // (a mean over the layers, as the step model counts it).
        let seen = window.seen(past);
        self.tokens += new;
        self.lm_head += sampled;
        self.seen += seen;
        self.pairs += window.pairs(new, past, step::causal_pairs);
        self.seqs += 1;
        if new > self.longest.0 {
            self.longest = (new, seen.round() as u64);
        }
    }
}

/// The most pass sizes a memo makes room for before they are met.
const MEMO_AHEAD: u64 = 1024;

/// A memo of kept forwards for passes of up to `most` tokens.
fn memo(most: u64) -> rustc_hash::FxHashMap<u64, Kept> {
    let room = most.saturating_add(1).min(MEMO_AHEAD) as usize;
    rustc_hash::FxHashMap::with_capacity_and_hasher(room, Default::default())
}

/// Prices iterations.
pub trait StepCost {
    /// Seconds the iteration `b` takes.
    fn seconds(&mut self, b: &Batch) -> Result<f64>;

    /// Seconds of `share` of the iteration `b` (a speculative draft's cost:
    /// its drafted tokens x their cost as a share of a plain step of `b`).
    fn share_seconds(&mut self, b: &Batch, share: f64) -> Result<f64> {
        Ok(share * self.seconds(b)?)
    }
}

impl<C: StepCost> StepCost for &mut C {
    fn seconds(&mut self, b: &Batch) -> Result<f64> {
        (**self).seconds(b)
    }
    fn share_seconds(&mut self, b: &Batch, share: f64) -> Result<f64> {
        (**self).share_seconds(b, share)
    }
}

/// The drafts of a speculative iteration (formulas.md, "Simulation:
/// speculative decoding"): `drafting` holds each speculating sequence's
/// (drafts, cached tokens). A draft round runs one token for every
/// sequence still drafting, at `c` of a plain one-token step of those
/// sequences, as `decode --speculative` prices its g drafts; the
/// sequences drafting fewer (near their last token) leave the later
/// rounds.
pub fn draft_seconds<C: StepCost>(
    cost: &mut C,
    drafting: &mut [(u64, u64)],
    c: f64,
    window: Window,
) -> Result<f64> {
    drafting.sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
    let mut plain = Batch::default();
    let mut s = 0.0;
    let mut i = 0;
    while i < drafting.len() {
        let d = drafting[i].0;
        while i < drafting.len() && drafting[i].0 == d {
            plain.add(1, drafting[i].1, true, window);
            i += 1;
        }
        let next = drafting.get(i).map_or(0, |x| x.0);
        s += cost.share_seconds(&plain, c * (d - next) as f64)?;
    }
    Ok(s)
}

/// One decode pass of `seqs` sequences over `past` cached tokens each:
/// (seconds, tokens each sequence gains). Plain: one token. With a draft:
/// the verify step of g + 1 tokens a sequence plus g drafts at c of the
/// plain step, for (1 - a^(g+1)) / (1 - a) tokens (formulas.md,
/// "Simulation: speculative decoding"). `fleet`'s decode-only bounds
/// price a full batch with it.
pub fn decode_pass<C: StepCost>(
    cost: &mut C,
    draft: Option<crate::calc::speculative::Draft>,
    seqs: u64,
    past: u64,
    window: Window,
) -> Result<(f64, f64)> {
    let mut plain = Batch::default();
    for _ in 0..seqs {
        plain.add(1, past, true, window);
    }
    let Some(d) = draft else {
        return Ok((cost.seconds(&plain)?, 1.0));
    };
    let g = d.draft_tokens;
    let mut verify = Batch::default();
    for _ in 0..seqs {
        verify.add_sampled(g + 1, past, g + 1, window);
    }
    let mut s = cost.seconds(&verify)?;
    if d.draft_cost > 0.0 {
        s += cost.share_seconds(&plain, g as f64 * d.draft_cost)?;
    }
    Ok((s, d.tokens(g)))
}

/// A stand-in for tests: a fixed time per iteration plus a time per token
/// and per cached token read, so expected results follow by hand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mock {
    /// Seconds per iteration.
    pub fixed_s: f64,
    /// Seconds per new token.
    pub per_token_s: f64,
    /// Seconds per cached token read.
    pub per_seen_s: f64,
}

impl StepCost for Mock {
    fn seconds(&mut self, b: &Batch) -> Result<f64> {
        Ok(self.fixed_s + self.per_token_s * b.tokens as f64 + self.per_seen_s * b.seen)
    }
}

/// What the operations of a pass that do not depend on the cache cost each
/// stage (the body by token count, the LM head by sampled tokens), with
/// their FLOPs and, for a body, the pass's communication.
struct Kept {
    parts: Vec<StagePart>,
    flops: f64,
    comm: Option<Comm>,
}

/// The real cost: the model's forward on a replica of a layout.
pub struct Forward<'r, 'a, 'b> {
    replica: &'r Replica<'a, 'b>,
    model: &'r Model,
    precisions: Precisions,
    /// Attention per pair (FLOPs), per cached token (bytes read), per new
    /// token (bytes written, activations): one probe each.
    attention: Op,
    per_pair_flops: f64,
    per_seen_bytes: f64,
    /// By token count: a map, since a pass's token count can reach a
    /// million where a cap allows it and a dense memo would zero
    /// gigabytes no pass uses (issue 55: `fleet --caps 1,2,1000000`).
    bodies: rustc_hash::FxHashMap<u64, Kept>,
    /// The LM head (and the final norm before it, an elementwise kernel
    /// the per-operation model prices) by tokens.
    heads: rustc_hash::FxHashMap<u64, Kept>,
    /// The pass's stages, summed.
    parts: Vec<StagePart>,
    kernels: f64,
    scratch: Step,
    /// The part's power model once metered: each iteration's draw held to
    /// its own time (formulas.md, "One time on one device").
    limit: Option<crate::calc::power::PowerModel>,
    /// Whether each iteration's draw is summed.
    metered: bool,
    /// Every iteration's draw per device, summed.
    drawn: crate::calc::power::Draw,
}

impl<'r, 'a, 'b> Forward<'r, 'a, 'b> {
    /// Probes the model's attention and sets up the caches for passes of
    /// up to `max_tokens` tokens and `max_seqs` sampled tokens (room made
    /// ahead for at most `MEMO_AHEAD` (1,024) sizes each; the rest as met).
    pub fn new(
        replica: &'r Replica<'a, 'b>,
        model: &'r Model,
        precisions: Precisions,
        max_tokens: u64,
        max_seqs: u64,
    ) -> Result<Self> {
        let probe = |past: u64| -> Result<Op> {
            let st = step::forward_engine(
                model,
                Shape {
                    batch: 1,
                    new: 1,
                    past,
                    lm_head_tokens: 0,
                },
                &precisions,
                replica.engine(),
            )?;
            Ok(st
                .ops
                .into_iter()
                .find(|o| o.kind == OpKind::Attention)
                .expect("every forward has an attention op"))
        };
        // One new token over no cache: one pair, nothing read.
        let a0 = probe(0)?;
        // Over one cached token: two pairs, one token read (a window is
        // never shorter than one token).
        let a1 = probe(1)?;
        let scratch = step::forward_engine(
            model,
            Shape {
                batch: 1,
                new: 1,
                past: 0,
                lm_head_tokens: 1,
            },
            &precisions,
            replica.engine(),
        )?;
        Ok(Forward {
            replica,
            model,
            precisions,
            per_pair_flops: a0.flops,
            per_seen_bytes: a1.kv_read_bytes,
            attention: a0,
            bodies: memo(max_tokens),
            heads: memo(max_seqs),
            kernels: scratch.kernels,
            scratch,
            parts: vec![StagePart::default(); replica.stages()],
            limit: None,
            metered: false,
            drawn: crate::calc::power::Draw::default(),
        })
    }

    /// Meters every iteration's board power on a device of the replica:
    /// its stage's share of the work (formulas.md, "Power and energy").
    pub fn meter(&mut self, pm: crate::calc::power::PowerModel) {
        self.limit = Some(pm);
        self.metered = true;
    }

    /// FLOPs of one token's forward beyond attention and the LM head (the
    /// body, linear in its tokens): the least work any forwarded token
    /// costs the replica.
    pub fn body_flops_per_token(&mut self) -> Result<f64> {
        Ok(self.body(1)?.flops)
    }

    /// The replica's layout.
    pub fn layout(&self) -> crate::calc::plan::Layout {
        self.replica.layout
    }

    /// Starts the meter again from zero.
    pub fn reset_meter(&mut self) {
        self.drawn = crate::calc::power::Draw::default();
    }

    /// What the iterations drew per device, summed (zero unless metered).
    pub fn drawn(&self) -> crate::calc::power::Draw {
        self.drawn
    }

    /// The parts of `ops` and `extra` as a step of their own (kernels:
    /// the structural count, given once per pass by its body).
    fn kept(&mut self, ops: Vec<Op>, extra: Vec<Op>, kernels: f64, tokens: u64) -> Kept {
        let st = &mut self.scratch;
        st.ops = ops;
        st.extra = extra;
        st.kernels = kernels;
        let mut parts = vec![StagePart::default(); self.replica.stages()];
        self.replica.add_part(st, tokens as f64, &mut parts);
        Kept {
            parts,
            flops: st.flops(),
            comm: None,
        }
    }

    /// The forward of `tokens` one-token sequences over no cache, the LM
    /// head on `lm_head_tokens` of them: what a body or a head keeps.
    fn forward(&self, tokens: u64, lm_head_tokens: u64) -> Result<Step> {
        step::forward_engine(
            self.model,
            Shape {
                batch: tokens,
                new: 1,
                past: 0,
                lm_head_tokens,
            },
            &self.precisions,
            self.replica.engine(),
        )
    }

    fn body(&mut self, tokens: u64) -> Result<&Kept> {
        if !self.bodies.contains_key(&tokens) {
            let st = self.forward(tokens, 0)?;
            let ops = st
                .ops
                .into_iter()
                .filter(|o| o.kind != OpKind::Attention)
                .collect();
            let mut k = self.kept(ops, st.extra, self.kernels, tokens);
            k.comm = Some(self.replica.comm(tokens as f64)?);
            self.bodies.insert(tokens, k);
        }
        Ok(&self.bodies[&tokens])
    }

    fn head(&mut self, tokens: u64) -> Result<Option<&Kept>> {
        if tokens == 0 {
            return Ok(None);
        }
        if !self.heads.contains_key(&tokens) {
            let st = self.forward(tokens, 1)?;
            let norm = st
                .extra
                .into_iter()
                .filter(|o| o.name == "final-norm")
                .collect();
            let head = st.ops.into_iter().filter(|o| o.name == "lm-head").collect();
            let mut k = self.kept(head, norm, 0.0, tokens);
            // Its collectives where the vocabulary is split over an
            // attention data-parallel group.
            k.comm = Some(crate::calc::plan::Comm {
                lm_head_s: self.replica.lm_head_s(tokens as f64)?,
                ..Default::default()
            });
            self.heads.insert(tokens, k);
        }
        Ok(self.heads.get(&tokens))
    }
}

impl StepCost for Forward<'_, '_, '_> {
    /// The draft's share: its time, and the draw it meters, `share` of
    /// the plain step's.
    fn share_seconds(&mut self, b: &Batch, share: f64) -> Result<f64> {
        let before = std::mem::take(&mut self.drawn);
        let s = self.seconds(b);
        let drawn = std::mem::replace(&mut self.drawn, before);
        if self.metered {
            self.drawn = crate::calc::power::Draw::sum([self.drawn, drawn.scaled(share)]);
        }
        Ok(share * s?)
    }

    fn seconds(&mut self, b: &Batch) -> Result<f64> {
        if b.tokens == 0 {
            return Ok(0.0);
        }
        // The kept parts first: filling them reuses the scratch step, and
        // an error leaves the summed parts in place.
        self.head(b.lm_head)?;
        self.body(b.tokens)?;
        let mut attention = self.attention.clone();
        let t = b.tokens as f64;
        attention.flops = self.per_pair_flops * b.pairs;
        attention.kv_read_bytes = self.per_seen_bytes * b.seen;
        attention.kv_write_bytes *= t;
        attention.activation_bytes *= t;
        // The per-operation model prices attention by the longest
        // sequence's new tokens and the cache it sees (flash attention for
        // a prefill chunk, streaming for decodes).
        let (new, seen) = b.longest;
        let st = &mut self.scratch;
        st.ops.clear();
        st.extra.clear();
        st.ops.push(attention);
        st.kernels = 0.0;
        st.shape = Shape {
            batch: b.seqs.max(1),
            new: new.max(1),
            past: seen,
            lm_head_tokens: 1,
        };
        st.cached_tokens = seen;
        let mut parts = std::mem::take(&mut self.parts);
        parts.fill(StagePart::default());
        self.replica.add_part(&self.scratch, t, &mut parts);
        let mut head_s = 0.0;
        if let Some(h) = self.head(b.lm_head)? {
            for (p, q) in parts.iter_mut().zip(&h.parts) {
                *p += *q;
            }
            head_s = h.comm.map_or(0.0, |c| c.lm_head_s);
        }
        let body = self.body(b.tokens)?;
        for (p, q) in parts.iter_mut().zip(&body.parts) {
            *p += *q;
        }
        let mut comm = body.comm.expect("a body keeps its communication");
        comm.lm_head_s = head_s;
        let s = self.replica.pass_s_of(&parts, &comm);
        // What a device draws: its stage's part, the FLOPs and bytes its
        // time counts, averaged over the stages (formulas.md, "Power and
        // energy"). The strided path's energy is a measured inefficiency:
        // only the achievable model pays it.
        let stages = parts.len().max(1) as f64;
        let work = crate::calc::power::Work {
            time_s: s,
            flops: parts.iter().map(|p| p.flops).sum::<f64>() / stages,
            bytes: parts.iter().map(|p| p.bytes).sum::<f64>() / stages,
            strided: match self.replica.mode() {
                crate::spec::hardware::Mode::Achievable => {
                    parts.iter().map(|p| p.strided).sum::<f64>() / stages
                }
                crate::spec::hardware::Mode::SpeedOfLight => 0.0,
            },
        };
        self.parts = parts;
        // One time for the iteration, the model's (formulas.md, "One time
        // on one device"): where its work would pass the board's limit in
        // it, the board is held at the limit, its time not stretched.
        let Some(pm) = &self.limit else {
            return Ok(s);
        };
        if self.metered {
            let (held, _) = pm.one_time(pm.draw_step(s, [work]));
            self.drawn = crate::calc::power::Draw::sum([self.drawn, held]);
        }
        Ok(s)
    }
}

//! `decode`: one decode step of a model on a device (formulas.md, "Serving:
//! decode step"; 002 §7.3-§7.4, 004 "launch overhead"). The step is a
//! forward of one new token per sequence over a cache of `context` tokens,
//! built from typed per-op costs ([`crate::calc::step`]) and timed on one
//! [`Roof`](crate::calc::roof::Roof): max(FLOPs / peak, bytes / bandwidth), plus launch overhead
//! when asked. With speculative decoding a pass verifies g+1 tokens per
//! sequence; with a time-per-output-token target the largest batch that
//! meets it is found by bisection. On a tensor-parallel group (`tp`) the
//! step is `plan`'s ([`tp`]).

mod cost;
mod fp8;
mod inputs;
mod report;
pub mod tp;

pub use cost::{
    DecodeCost, Goodput, MemoryFit, Shared, Slo, SloBound, Speculation, cost, cost_shared,
};
pub use fp8::float_max_normal;
pub use inputs::{DecodeInputs, SPECULATIVE_PARTS, speculative_fields};

//! `roofline`: an analytical performance-model calculator for accelerator
//! kernels and LLM inference.
//!
//! Data flows one way: TOML ([`spec`], validated, units resolved) ->
//! [`calc`] (pure functions) -> [`report::Report`] -> [`render`] -> bytes.
//! The library never prints and never exits; the binary parses arguments,
//! calls it and writes what it returns.
//!
//! # Composing costs
//!
//! Each calculation is a function from typed inputs to a plain cost struct
//! (`matmul::cost(&hw, &MatmulInputs, mode) -> MatmulCost`); a report is
//! made from the cost only when something is to be shown. Costs compose
//! without reports. One Llama-3-8B layer's seven projections at batch 1 on
//! an H100, summed from matmul costs:
//!
//! ```
//! use roofline::calc::matmul::{self, MatmulInputs};
//! use roofline::catalog::Catalog;
//! use roofline::spec::hardware::Mode;
//!
//! let hw = Catalog::default().hardware("h100-sxm", &[])?;
//! // (M, N, K) of the q, k, v, o, gate, up and down projections, one token.
//! let shapes = [
//!     (1, 4096, 4096), (1, 1024, 4096), (1, 1024, 4096), (1, 4096, 4096),
//!     (1, 14336, 4096), (1, 14336, 4096), (1, 4096, 14336),
//! ];
//! let (mut seconds, mut flops) = (0.0, 0.0);
//! for (m, n, k) in shapes {
//!     let c = matmul::cost(&hw, &MatmulInputs::new(m, n, k), Mode::SpeedOfLight)?;
//!     seconds += c.time_s;
//!     flops += c.flops;
//! }
//! // 218,103,808 weights: 2 FLOPs each per token, 2 bytes each read once
//! // from HBM at 3.35 TB/s, so about 130 us for the layer.
//! assert_eq!(flops, 2.0 * 218_103_808.0);
//! assert!(seconds > 130e-6 && seconds < 133e-6, "{seconds}");
//! # Ok::<(), roofline::Error>(())
//! ```
//!
//! Inputs can also be built from fields, as the command line and scenario
//! files do ([`inputs::from_fields`]), and a grid of points evaluated with
//! [`sweep::evaluate`]; `docs/library.md` walks through both.

#![deny(missing_docs)]
// The library never prints: it returns bytes for the shells to write.
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod calc;
pub mod catalog;
pub mod chart;
pub mod error;
pub mod inputs;
pub mod precision;
pub mod query;
pub mod render;
pub mod report;
pub mod spec;
pub mod sweep;
pub mod units;

pub use error::{Error, Result};

//! `roofline`: an analytical performance-model calculator for accelerator
//! kernels and LLM inference.
//!
//! Data flows one way: TOML ([`spec`], validated, units resolved) ->
//! [`calc`] (pure functions) -> [`report::Report`] -> [`render`] -> bytes.
//! The library never prints and never exits; the binary parses arguments,
//! calls it and writes what it returns.

#![deny(missing_docs)]

pub mod calc;
pub mod catalog;
pub mod chart;
pub mod error;
pub mod inputs;
pub mod precision;
pub mod render;
pub mod report;
pub mod spec;
pub mod sweep;
pub mod units;

pub use error::{Error, Result};

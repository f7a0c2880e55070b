//! The serving commands built on the step: decode, prefill, a parallel
//! plan, a request-level simulation, fleet sizing, power and energy,
//! calibration against measurements, speculative decoding.

pub mod calibrate;
pub mod decode;
pub mod fleet;
pub mod plan;
pub mod power;
pub mod prefill;
pub mod simulate;
pub mod speculative;

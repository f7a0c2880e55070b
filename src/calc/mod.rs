//! Calculations: one module per topic, each a pure function from resolved
//! inputs (hardware, model, numbers) to a [`Report`](crate::report::Report).
//! None of them prints, reads a file or knows the output format.

pub mod accuracy;
pub mod calibrate;
pub mod coalesce;
pub mod collective;
pub mod decode;
pub mod dtype;
pub mod engine;
pub mod expr;
pub mod fleet;
pub mod fusion;
pub mod hw;
pub mod kv;
pub mod launch;
pub mod littles_law;
pub mod matmul;
pub mod measured;
pub mod model;
pub mod occupancy;
pub mod plan;
pub mod point;
pub mod power;
pub mod prefill;
pub mod roof;
pub mod simulate;
pub mod speculative;
pub mod step;
pub mod warm;

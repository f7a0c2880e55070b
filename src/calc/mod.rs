//! Calculations: one module per topic, each a pure function from resolved
//! inputs (hardware, model, numbers) to a [`Report`](crate::report::Report).
//! None of them prints, reads a file or knows the output format.
//!
//! Three floors over a shared ground (docs/architecture.md): [`kernels`]
//! (the seeds' kernel calculators), [`forward`] (the model and its step)
//! and [`serving`] (the commands built on the step). Each module is also
//! named here under its old path, `calc::matmul`, which the library's
//! users (python/, web/) call.

pub mod accuracy;
pub mod dtype;
pub mod engine;
pub mod expr;
pub mod forward;
pub mod hw;
pub mod kernels;
pub mod measured;
pub mod roof;
pub mod serving;
pub mod warm;

pub use forward::{collective, kv, model, step};
pub use kernels::{coalesce, fusion, launch, littles_law, matmul, occupancy, point};
pub use serving::{calibrate, decode, fleet, plan, power, prefill, simulate, speculative};

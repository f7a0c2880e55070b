//! Board power, energy and cost of work on one accelerator (formulas.md,
//! "Power and energy"). A [`PowerModel`] is resolved once from a hardware
//! file's measured board power (idle, at sustained full compute, while
//! streaming memory) and prices any work given its time, FLOPs and bytes:
//! idle power for as long as it runs, plus a fixed dynamic energy per FLOP
//! and per byte, with the board limit capping the power (the clock drops
//! and the work stretches until it fits). [`Energy`] carries one answer's
//! draw and the tokens it makes into its report; [`Prices`] turns those
//! into cost per million tokens.
//!
//! Rooms: `model` resolves the model from a hardware file and gives the
//! energy per FLOP and per byte; `draw` prices work under the board limit
//! (the power-limited time) and holds a step to its one time
//! (`PowerModel::one_time`); `energy` is one answer's draw and tokens, and
//! `energy_report` records it; `prices` reads the prices and `cost`
//! turns them into cost per million tokens.

mod cost;
mod draw;
mod energy;
mod energy_report;
mod model;
mod prices;
#[cfg(test)]
mod testing;

pub use draw::{Draw, Work, of_timed, step_work};
pub use energy::{Energy, KWH, Per};
pub use model::PowerModel;
pub use prices::{PRICE_FIELDS, Prices};

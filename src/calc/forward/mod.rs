//! The model and its step: parameter and KV counts, one forward pass
//! priced operation by operation ([`step`]), and the collectives between
//! devices. The serving commands price every step through here.

pub mod collective;
pub mod kv;
pub mod model;
pub mod step;

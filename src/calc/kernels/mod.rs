//! The seeds' kernel calculators: one kernel on one device (a point on
//! the roofline, occupancy, coalescing, Little's law, matmul, fusion,
//! launch overhead).

pub mod coalesce;
pub mod fusion;
pub mod launch;
pub mod littles_law;
pub mod matmul;
pub mod occupancy;
pub mod point;

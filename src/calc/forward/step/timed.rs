//! A forward timed under a [`Setup`]: the speed of light on one roof plus
//! launch overhead, or the sum of the per-operation prices under
//! `--achievable`.

use super::setup::Setup;
use crate::calc::model::Params;
use crate::calc::roof::RoofTime;
use crate::calc::step::price::Priced;
use crate::calc::step::{self, Shape, Step};
use crate::error::Result;
use crate::spec::model::Model;

/// A timed forward: the step, its roofline time, launch overhead and the
/// total.
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    /// The ops and their sums.
    pub step: Step,
    /// max(compute, memory) over the whole step (the speed of light's
    /// time; under `--achievable` the one-roof figure beside the
    /// per-operation sum).
    pub roof: RoofTime,
    /// Speed of light: kernels x seconds per kernel. Per operation: every
    /// kernel's overhead and launch (or host wait).
    pub launch_s: f64,
    /// roof + launch, or the per-operation sum.
    pub total_s: f64,
    /// The per-operation prices (`--achievable`).
    pub priced: Option<Priced>,
}

/// Times a forward of `shape` under `s`.
pub fn timed(m: &Model, s: &Setup, shape: Shape) -> Result<Timed> {
    let step = step::forward_engine(m, shape, &s.precisions, &s.engine)?;
    Ok(time_step(s, step))
}

/// [`timed`], with the model's parameter counts already made.
pub fn timed_with(m: &Model, s: &Setup, shape: Shape, params: Params) -> Result<Timed> {
    let step = step::forward_on(m, shape, &s.precisions, &s.engine, || Ok(params))?;
    Ok(time_step(s, step))
}

/// Times a forward already built: the speed of light on one roof, or the
/// per-operation sum under `--achievable`.
pub fn time_step(s: &Setup, step: Step) -> Timed {
    let t = s.roof.time(step.flops(), step.bytes());
    match &s.pricer {
        Some(p) => {
            let scale = if s.kernels_given {
                let structural = step.achievable_kernels();
                if structural > 0.0 {
                    s.kernels / structural
                } else {
                    1.0
                }
            } else {
                1.0
            };
            let priced = p.price(&step, scale);
            Timed {
                step,
                roof: t,
                launch_s: priced.overhead_s,
                total_s: priced.time_s,
                priced: Some(priced),
            }
        }
        None => {
            let launch_s = s.kernels * s.per_kernel_s;
            Timed {
                step,
                roof: t,
                launch_s,
                total_s: t.time_s + launch_s,
                priced: None,
            }
        }
    }
}

//! One answer's energy: its draw (or the field missing for it), the devices
//! it runs on and the tokens it makes; per-token figures, and pools serving
//! the same tokens added together (formulas.md, "Power and energy").

use super::Draw;
use crate::spec::hardware::Mode;
use serde::Serialize;

/// Joules per kilowatt-hour.
pub const KWH: f64 = 3.6e6;

/// What an answer's tokens are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Per {
    /// No tokens: energy of the work itself (`point`, `matmul`).
    Work,
    /// A rate without a size (`point --intensity`): power only.
    Rate,
    /// Output (decoded) tokens.
    Output,
    /// Prompt tokens (`prefill`).
    Prompt,
}

/// One answer's energy: its draw (or the field missing for it), the
/// devices it runs on and the tokens it makes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Energy {
    /// Per-device draw, or the power field the file lacks.
    pub draw: std::result::Result<Draw, String>,
    /// The answer's own time for the tokens, s (what a device-hour price
    /// is charged for where no draw is modelled).
    pub time_s: f64,
    /// Datasheet or achievable times.
    pub mode: Mode,
    /// Devices drawing it.
    pub devices: f64,
    /// Tokens made in the draw's time (0 for `Per::Work`).
    pub tokens: f64,
    /// What the tokens are.
    pub per: Per,
    /// Where the work would pass the board's limit in its time and the
    /// draw is held there: the draw the limit would stretch, whose time
    /// is an estimate the report names as one, not a bound (formulas.md,
    /// "One time on one device").
    pub estimate: Option<Draw>,
}

impl Energy {
    /// The energy of `draw` on `devices` devices for `tokens` tokens.
    pub fn new(
        draw: std::result::Result<Draw, String>,
        time_s: f64,
        mode: Mode,
        devices: f64,
        tokens: f64,
        per: Per,
    ) -> Self {
        Energy {
            draw,
            time_s,
            mode,
            devices,
            tokens,
            per,
            estimate: None,
        }
    }

    /// The energy of a step at its one time (formulas.md, "One time on one
    /// device"): `draw` held to its own time by its power model, the
    /// stretched draw kept as the estimate where the limit would stretch
    /// it.
    pub fn held(
        draw: std::result::Result<(&super::PowerModel, Draw), String>,
        time_s: f64,
        mode: Mode,
        devices: f64,
        tokens: f64,
        per: Per,
    ) -> Self {
        let (draw, estimate) = match draw {
            Ok((pm, d)) => {
                let (held, estimate) = pm.one_time(d);
                (Ok(held), estimate)
            }
            Err(e) => (Err(e), None),
        };
        Energy {
            estimate,
            ..Energy::new(draw, time_s, mode, devices, tokens, per)
        }
    }

    /// Pools serving the same output tokens (a disaggregated deployment's
    /// prefill and decode pools, each priced as its own run): their joules
    /// and device-seconds per token add (formulas.md, "Power and energy",
    /// pools). The draw is the mean per device over `span_s` of the
    /// deployment; a pool without a power figure leaves the energy null,
    /// naming it.
    pub fn pooled(parts: &[Energy], span_s: f64) -> Energy {
        let devices: f64 = parts.iter().map(|e| e.devices).sum();
        let mode = parts.first().map_or(Mode::SpeedOfLight, |e| e.mode);
        let dst: Option<f64> = parts.iter().map(Energy::device_s_per_token).sum();
        let Some(dst) = dst.filter(|d| *d > 0.0 && devices > 0.0) else {
            return Energy::unmodelled("no output tokens", Per::Output);
        };
        // Tokens the deployment makes in the span.
        let span = span_s.max(f64::MIN_POSITIVE);
        let tokens = span * devices / dst;
        let draw = parts
            .iter()
            .map(|e| match &e.draw {
                Err(f) => Err(f.clone()),
                Ok(d) => Ok((e, d, e.per_token_j().unwrap_or(0.0))),
            })
            .collect::<std::result::Result<Vec<_>, String>>()
            .map(|ps| {
                let per_token: f64 = ps.iter().map(|p| p.2).sum();
                let share = |f: fn(&Draw) -> f64| -> f64 {
                    ps.iter()
                        .map(|(e, d, _)| f(d) * e.devices / e.tokens.max(f64::MIN_POSITIVE))
                        .sum::<f64>()
                        * tokens
                        / devices
                };
                let energy_j = per_token * tokens / devices;
                Draw {
                    time_s: span,
                    limited_time_s: span,
                    energy_j,
                    power_w: energy_j / span,
                    uncapped_w: ps.iter().map(|p| p.1.uncapped_w).fold(0.0, f64::max),
                    idle_w: ps.iter().map(|(e, d, _)| d.idle_w * e.devices).sum::<f64>() / devices,
                    limit_w: ps.iter().map(|p| p.1.limit_w).fold(0.0, f64::max),
                    flop_j: share(|d| d.flop_j),
                    byte_j: share(|d| d.byte_j),
                    strided_j: share(|d| d.strided_j),
                    held: ps.iter().any(|p| p.1.held),
                }
            });
        Energy::new(draw, span, mode, devices, tokens, Per::Output)
    }

    /// No energy: the figures are null and the note says why.
    pub fn unmodelled(why: &str, per: Per) -> Self {
        Energy::new(Err(why.to_string()), 0.0, Mode::SpeedOfLight, 1.0, 0.0, per)
    }

    /// Energy per token over every device, J.
    pub fn per_token_j(&self) -> Option<f64> {
        let d = self.draw.as_ref().ok()?;
        (self.tokens > 0.0).then(|| d.energy_j * self.devices / self.tokens)
    }

    /// Device-seconds per token: under the power limit where a draw is
    /// modelled, else the answer's own time.
    pub fn device_s_per_token(&self) -> Option<f64> {
        let t = self.draw.as_ref().map_or(self.time_s, |d| d.limited_time_s);
        (self.tokens > 0.0 && t > 0.0).then(|| t * self.devices / self.tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::power::testing::{close, decode_at, h200};

    /// formulas.md's decode derivation at batch 1: idle over the step,
    /// the bytes streamed, the FLOPs, no operation at the limit.
    #[test]
    fn decode_batch_one_by_hand() {
        let c = decode_at(&h200(), 1, Mode::Achievable);
        let t = c.step_time_s;
        let st = &c.timed.step;
        let by_hand = 80.9 * t + 141.9e-12 * st.bytes() + 0.762e-12 * st.flops();
        let e = c.energy.per_token_j().unwrap();
        assert!(close(e, by_hand, 2e-3), "{e} {by_hand}");
        // About 2.63 J and 457 W (formulas.md); streaming is four fifths
        // of it.
        assert!(close(e, 2.63, 0.01), "{e}");
        let d = c.energy.draw.as_ref().unwrap();
        assert!(!d.limited());
        assert!(d.byte_j / d.energy_j > 0.8);
    }

    /// Energy per token falls with batch while memory binds, and the
    /// board limit holds at every batch.
    #[test]
    fn energy_per_token_falls_with_batch_until_compute_binds() {
        let hw = h200();
        for mode in [Mode::Achievable, Mode::SpeedOfLight] {
            let mut last = f64::INFINITY;
            for b in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512] {
                let c = decode_at(&hw, b, mode);
                let e = c.energy.per_token_j().unwrap();
                let d = c.energy.draw.as_ref().unwrap();
                assert!(d.power_w <= 700.0 * (1.0 + 1e-9), "{b}: {}", d.power_w);
                if c.timed.roof.bound == crate::calc::roof::Bound::Memory {
                    assert!(e < last, "{mode:?} batch {b}: {e} after {last}");
                }
                last = e;
            }
        }
    }

    /// Two pools serving the same 50 tokens over 10 s: 2 devices drawing
    /// 100 J each and 1 drawing 300 J. By hand: 500 J / 50 tokens = 10 J a
    /// token, 500 J / (3 devices x 10 s) = 16.67 W a device, and 3 x 10
    /// device-seconds / 50 = 0.6 a token.
    #[test]
    fn pools_add_by_hand() {
        let pool = |devices: f64, joules: f64| {
            let d = Draw {
                time_s: 10.0,
                limited_time_s: 10.0,
                energy_j: joules,
                power_w: joules / 10.0,
                idle_w: 100.0,
                ..Draw::default()
            };
            Energy::new(Ok(d), 10.0, Mode::Achievable, devices, 50.0, Per::Output)
        };
        let e = Energy::pooled(&[pool(2.0, 100.0), pool(1.0, 300.0)], 10.0);
        assert!((e.per_token_j().unwrap() - 10.0).abs() < 1e-12);
        assert!((e.draw.as_ref().unwrap().power_w - 500.0 / 30.0).abs() < 1e-9);
        assert!((e.device_s_per_token().unwrap() - 0.6).abs() < 1e-12);
        assert_eq!(e.devices, 3.0);
        let missing = Energy::new(
            Err("package.idle-watts".into()),
            10.0,
            Mode::Achievable,
            1.0,
            50.0,
            Per::Output,
        );
        let e = Energy::pooled(&[pool(2.0, 100.0), missing], 10.0);
        assert_eq!(e.draw.unwrap_err(), "package.idle-watts");
    }
}

//! What work draws under the board limit (formulas.md, "Power and
//! energy"): idle power for as long as it runs plus its dynamic energy, the
//! clock dropping where that would pass the limit, so the work takes the
//! power-limited time. A step's operations add, and the limit holds over
//! the step as a whole.

use super::PowerModel;
use serde::Serialize;

/// One operation of a step, as the power model sees it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Work {
    /// Its time, s.
    pub time_s: f64,
    /// FLOPs.
    pub flops: f64,
    /// Bytes of device memory it moves.
    pub bytes: f64,
    /// Elements it computes on the strided elementwise path.
    pub strided: f64,
}

impl PowerModel {
    /// One operation of `time_s` doing `flops` and `bytes`: power = idle +
    /// dynamic energy / time, and where that passes the limit the clock
    /// drops until it fits: time = dynamic / (limit - idle).
    pub fn draw(&self, time_s: f64, flops: f64, bytes: f64) -> Draw {
        self.draw_step(
            time_s,
            [Work {
                time_s,
                flops,
                bytes,
                strided: 0.0,
            }],
        )
    }

    /// Operations run one after another within a step of `step_s` (at
    /// least their sum: the GPU idles while a host behind it issues the
    /// next). The board holds its limit over windows longer than a step,
    /// so the step is capped as a whole: its dynamic energy over (limit -
    /// idle) is the shortest it can take (formulas.md, "Power and energy",
    /// a step).
    pub fn draw_step(&self, step_s: f64, ops: impl IntoIterator<Item = Work>) -> Draw {
        let (mut busy, mut flop_j, mut byte_j, mut strided_j) = (0.0, 0.0, 0.0, 0.0);
        for w in ops {
            busy += w.time_s;
            flop_j += w.flops * self.joules_per_flop();
            byte_j += self.streamed_bytes(w.flops, w.bytes) * self.joules_per_byte();
            strided_j += self.strided_j(w.strided);
        }
        let time_s = step_s.max(busy);
        let dynamic = flop_j + byte_j + strided_j;
        let headroom = self.limit_w - self.idle_w;
        let floor = if headroom > 0.0 {
            dynamic / headroom
        } else {
            f64::INFINITY
        };
        let time = time_s.max(floor);
        let energy = self.idle_w * time + dynamic;
        Draw {
            time_s,
            limited_time_s: time,
            energy_j: energy,
            uncapped_w: if time_s > 0.0 {
                self.idle_w + dynamic / time_s
            } else if dynamic > 0.0 {
                f64::INFINITY
            } else {
                self.idle_w
            },
            power_w: if time > 0.0 {
                energy / time
            } else {
                self.idle_w
            },
            idle_w: self.idle_w,
            limit_w: self.limit_w,
            flop_j,
            byte_j,
            strided_j,
            held: false,
        }
    }
}

impl PowerModel {
    /// `d` over its own time, the time not stretched: the caller's time is
    /// a bound (the roofs') or already priced at the clock the limit
    /// settles (`--achievable`). The mean power is what the work would
    /// draw in that time, at most the limit; the energy is that power over
    /// the time (so energy per token x tokens per second is the power
    /// shown); the dynamic shares stay the work's (what it would draw).
    /// Held at the limit, the energy is still a lower bound where the
    /// time is: the work's own energy over any longer time is at least
    /// the limit's over this one (formulas.md, "One time on one device").
    pub fn held(&self, d: Draw) -> Draw {
        let t = d.time_s;
        let dynamic = d.flop_j + d.byte_j + d.strided_j;
        let uncapped = d.idle_w * t + dynamic;
        let energy = self.limit_w.max(d.idle_w) * t;
        if uncapped <= energy || dynamic <= 0.0 {
            if !d.limited() {
                return d;
            }
            return Draw {
                limited_time_s: t,
                energy_j: uncapped,
                power_w: if t > 0.0 { uncapped / t } else { d.idle_w },
                ..d
            };
        }
        Draw {
            time_s: t,
            limited_time_s: t,
            energy_j: energy,
            power_w: if t > 0.0 { energy / t } else { d.idle_w },
            held: true,
            ..d
        }
    }

    /// The one time of a step (formulas.md, "One time on one device"):
    /// `d` held to its own time, and `d` itself where the limit would
    /// stretch it, the estimate a note gives. Every step command (one
    /// device's `decode`, `prefill`, `plan`, `decode --tp`, `simulate`'s
    /// iterations, `fleet`) takes its time and energy from here.
    pub fn one_time(&self, d: Draw) -> (Draw, Option<Draw>) {
        (self.held(d), Some(d).filter(Draw::limited))
    }
}

/// What some work draws.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Draw {
    /// The time the work was given, s.
    pub time_s: f64,
    /// The time under the board limit (at least `time_s`), s.
    pub limited_time_s: f64,
    /// Energy, J.
    pub energy_j: f64,
    /// Mean board power over `limited_time_s`, W (at most the limit).
    pub power_w: f64,
    /// The highest power any step would draw without the limit, W.
    pub uncapped_w: f64,
    /// Idle power, W.
    pub idle_w: f64,
    /// The board's limit, W (0 where unknown).
    pub limit_w: f64,
    /// Dynamic energy of the FLOPs, J.
    pub flop_j: f64,
    /// Dynamic energy of the bytes, J.
    pub byte_j: f64,
    /// Energy of the strided elementwise path beyond its bytes', J.
    pub strided_j: f64,
    /// Whether the board was held at its limit over the work's own time
    /// ([`PowerModel::held`]), for the work or some of it: the energy is
    /// less than the work's idle and dynamic energies add to.
    #[serde(skip)]
    pub held: bool,
}

impl Draw {
    /// Several draws one after another.
    pub fn sum(draws: impl IntoIterator<Item = Draw>) -> Draw {
        let mut d = Draw::default();
        for o in draws {
            d.idle_w = o.idle_w;
            d.limit_w = d.limit_w.max(o.limit_w);
            d.held |= o.held;
            d.time_s += o.time_s;
            d.limited_time_s += o.limited_time_s;
            d.energy_j += o.energy_j;
            d.flop_j += o.flop_j;
            d.byte_j += o.byte_j;
            d.strided_j += o.strided_j;
            d.uncapped_w = d.uncapped_w.max(o.uncapped_w);
        }
        d.power_w = if d.limited_time_s > 0.0 {
            d.energy_j / d.limited_time_s
        } else {
            d.idle_w
        };
        d
    }

    /// The draw of `k` times the work (k of its repetitions, or a share of
    /// one): times and energies scale, powers stay.
    pub fn scaled(self, k: f64) -> Draw {
        Draw {
            time_s: self.time_s * k,
            limited_time_s: self.limited_time_s * k,
            energy_j: self.energy_j * k,
            flop_j: self.flop_j * k,
            byte_j: self.byte_j * k,
            strided_j: self.strided_j * k,
            ..self
        }
    }

    /// Whether the limit stretched the work.
    pub fn limited(&self) -> bool {
        self.limited_time_s > self.time_s * (1.0 + 1e-9)
    }

    /// Idle energy over the time under the limit, J.
    pub fn idle_j(&self) -> f64 {
        self.idle_w * self.limited_time_s
    }
}

/// The operations of `step` with their FLOPs, bytes and strided elements
/// scaled by `k` (a replica's share on one device), times left to the step.
pub fn step_work(step: &crate::calc::step::Step, k: f64) -> impl Iterator<Item = Work> + '_ {
    step.ops.iter().chain(&step.extra).map(move |op| Work {
        time_s: 0.0,
        flops: op.flops * k,
        bytes: op.bytes() * k,
        strided: op.strided_elements() * k,
    })
}

/// The draw of a forward step: operation by operation where it was priced
/// that way (`--achievable`), the step capped as a whole; else the step as
/// one operation.
pub fn of_timed(pm: &PowerModel, t: &crate::calc::step::Timed) -> Draw {
    match &t.priced {
        Some(p) => pm.draw_step(
            t.total_s,
            t.step
                .ops
                .iter()
                .chain(&t.step.extra)
                .zip(&p.ops)
                .map(|(op, ot)| Work {
                    time_s: ot.time_s,
                    flops: op.flops,
                    bytes: op.bytes(),
                    strided: op.strided_elements(),
                }),
        ),
        None => pm.draw(t.total_s, t.step.flops(), t.step.bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::power::testing::{close, h200};

    /// The 8192^3 bf16 GEMM at its burst rate passes the limit, stretches
    /// to (e_F F + e_B B') / (L - P0) and costs 1.063 pJ/FLOP, the
    /// measured loop's 692.8 W / 651 TFLOP/s within 0.2%.
    #[test]
    fn capped_gemm_matches_the_measured_loop() {
        let pm = PowerModel::of(&h200(), "bf16").unwrap();
        let f = 2.0 * 8192f64.powi(3);
        let d = pm.draw(f / 764e12, f, 1.28e9);
        assert!(d.limited());
        assert!(close(d.power_w, 700.0, 1e-9));
        let bytes = 815.8e9 * f / 651e12; // the loop's traffic, above 1.28 GB
        let t = (0.762e-12 * f + 141.9e-12 * bytes) / (700.0 - 80.9);
        assert!(close(d.limited_time_s, t, 2e-3), "{} {t}", d.limited_time_s);
        assert!(close(d.energy_j / f, 692.8 / 651e12, 2e-3));
    }

    /// Held to its own time, a GEMM at its burst rate draws the limit (its
    /// uncapped draw is above it) and its energy is the limit over that
    /// time; a memory-bound operation below the limit is unchanged.
    #[test]
    fn held_to_its_own_time() {
        let pm = PowerModel::of(&h200(), "bf16").unwrap();
        let f = 2.0 * 8192f64.powi(3);
        let t = f / 764e12;
        let d = pm.held(pm.draw(t, f, 1.28e9));
        assert!(close(d.time_s, t, 1e-12) && !d.limited());
        assert!(close(d.power_w, pm.limit_w, 1e-9));
        assert!(close(d.energy_j, pm.limit_w * t, 1e-9));
        assert!(d.held && d.idle_j() + d.flop_j + d.byte_j + d.strided_j > d.energy_j);
        let m = pm.draw(1e-3, 0.0, 2e9);
        assert_eq!(pm.held(m), m);
    }

    /// Below the limit a memory-bound operation draws idle plus its bytes'
    /// power; a gap with no work draws idle power.
    #[test]
    fn below_the_limit_and_idle_gaps() {
        let pm = PowerModel::of(&h200(), "bf16").unwrap();
        let d = pm.draw(1e-3, 0.0, 2e9);
        assert!(close(d.power_w, 80.9 + 141.9e-12 * 2e9 / 1e-3, 1e-3));
        assert!(!d.limited());
        let gap = pm.draw(5e-6, 0.0, 0.0);
        assert!(close(gap.power_w, 80.9, 1e-12));
        let work = |time_s: f64, bytes: f64| Work {
            time_s,
            bytes,
            ..Work::default()
        };
        let both = pm.draw_step(0.0, [work(1e-3, 2e9), work(1e-3, 0.0)]);
        assert!(close(both.power_w, (d.energy_j + 80.9e-3) / 2e-3, 1e-12));
    }

    /// A step of a GEMM that alone would pass the limit and 1 ms of
    /// waiting (a kernel gap, a collective): capped as a whole, the wait's
    /// headroom absorbs the GEMM's excess. By hand: the GEMM's 1.1 TFLOP
    /// at 764 TFLOP/s (1.44 ms) costs 0.762 pJ x 1.1e12 + 141.9 pJ x its
    /// loop traffic = 1.033 J, which over 619.1 W of headroom takes 1.67
    /// ms, less than the step's 2.44 ms: nothing stretches, where capped
    /// on its own the GEMM stretches.
    #[test]
    fn a_step_is_capped_as_a_whole() {
        let pm = PowerModel::of(&h200(), "bf16").unwrap();
        let f = 2.0 * 8192f64.powi(3);
        let gemm = Work {
            time_s: f / 764e12,
            flops: f,
            bytes: 1.28e9,
            strided: 0.0,
        };
        let wait = Work {
            time_s: 1e-3,
            ..Work::default()
        };
        let alone = pm.draw(gemm.time_s, gemm.flops, gemm.bytes);
        assert!(alone.limited());
        let step = pm.draw_step(0.0, [gemm, wait]);
        let t = gemm.time_s + 1e-3;
        let gemm_j = 0.762e-12 * f + 141.9e-12 * 815.8e9 * f / 651e12;
        let dynamic = gemm_j;
        assert!(dynamic / (700.0 - 80.9) < t);
        assert!(!step.limited());
        assert!(close(step.limited_time_s, t, 1e-12));
        assert!(
            close(step.energy_j, 80.9 * t + dynamic, 2e-3),
            "{}",
            step.energy_j
        );
        // An eager step whose host takes 5 ms: the GPU idles the rest.
        let eager = pm.draw_step(5e-3, [gemm, wait]);
        assert!(close(eager.limited_time_s, 5e-3, 1e-12));
        assert!(close(eager.energy_j, 80.9 * 5e-3 + dynamic, 2e-3));
        // Strided elements add their energy: 1e9 at 612 pJ.
        let strided = pm.draw_step(
            1e-3,
            [Work {
                time_s: 1e-3,
                strided: 1e9,
                ..Work::default()
            }],
        );
        assert!(
            close(strided.energy_j, 80.9e-3 + 0.612, 1e-3),
            "{}",
            strided.energy_j
        );
    }

    proptest::proptest! {
        /// No operation, and no sum of them, passes the board limit.
        #[test]
        fn never_above_the_limit(
            ops in proptest::collection::vec((1e-9f64..1.0, 0.0f64..1e15, 0.0f64..1e12), 1..20)
        ) {
            let pm = PowerModel::of(&h200(), "bf16").unwrap();
            let d = pm.draw_step(0.0, ops.iter().map(|&(time_s, flops, bytes)| Work { time_s, flops, bytes, strided: 0.0 }));
            proptest::prop_assert!(d.power_w <= pm.limit_w * (1.0 + 1e-9));
            proptest::prop_assert!(d.power_w >= pm.idle_w * (1.0 - 1e-9));
            proptest::prop_assert!(d.limited_time_s >= d.time_s * (1.0 - 1e-12));
            for (t, f, b) in ops {
                let o = pm.draw(t, f, b);
                proptest::prop_assert!(o.power_w <= pm.limit_w * (1.0 + 1e-9));
            }
        }
    }
}

//! The board's power limit over a step that repeats back to back
//! (formulas.md, "Achievable: the power limit over a step"). Every
//! operation is priced at the burst clock; each class of work draws its
//! measured power there (GEMMs, attention, memory-bound kernels, waits:
//! kernel gaps and collectives). Where the step's time-weighted power
//! passes the limit the board holds, the clock drops to the fraction `x`
//! at which it equals the limit: a compute-bound class's time grows as
//! `x^-beta` and its power falls as `x`, memory-bound work and waits keep
//! their time and power. The board enforces the limit over windows longer
//! than a step, so one clock serves the whole step.

use crate::spec::hardware::Hardware;

/// The measured figures the solve needs, resolved once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerLimit {
    /// Power the board holds at its limit (`package.compute-watts`), W.
    pub limit_w: f64,
    /// Back-to-back GEMMs at the burst clock, W.
    pub gemm_w: f64,
    /// GEMM time's exponent in the clock: from `achievable.dense` over
    /// `achievable.sustained` at the clock that gemm_w over limit_w gives,
    /// so a step of GEMMs alone runs at the sustained rate.
    pub gemm_beta: f64,
    /// Causal flash attention at the burst clock, W.
    pub attention_w: f64,
    /// Attention time's exponent in the clock.
    pub attention_beta: f64,
    /// Memory-bound kernels (`package.stream-watts`), W.
    pub stream_w: f64,
    /// A GPU waiting at the burst clock (kernel gaps, collectives), W.
    pub wait_w: f64,
}

/// A step's time at the burst clock by class of work, seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Mix {
    /// Compute-bound GEMMs (and other compute-bound ops but attention).
    pub gemm_s: f64,
    /// Compute-bound attention.
    pub attention_s: f64,
    /// Memory-bound work.
    pub stream_s: f64,
    /// Kernel overheads, launch gaps, collectives: the GPU waits.
    pub wait_s: f64,
}

impl std::ops::AddAssign for Mix {
    fn add_assign(&mut self, o: Mix) {
        self.gemm_s += o.gemm_s;
        self.attention_s += o.attention_s;
        self.stream_s += o.stream_s;
        self.wait_s += o.wait_s;
    }
}

impl PowerLimit {
    /// The file's figures at compute rate `rate` (burst) and `sustained`,
    /// if it has every one (`achievable.power-limit`, `package`); `None`
    /// keeps the older rule (formulas.md).
    pub fn of(hw: &Hardware, rate: f64, sustained: Option<f64>) -> Option<PowerLimit> {
        let f = hw.achievable.as_ref()?.power_limit.as_ref()?;
        let p = hw.package.as_ref()?;
        let (limit_w, stream_w) = (p.compute_watts?, p.stream_watts?);
        // Loading refuses gemm-watts at or below compute-watts.
        let gemm_w = f.gemm_watts.filter(|g| *g > limit_w)?;
        // Without a sustained rate below the burst one the GEMMs have no
        // measured stretch: the step keeps the burst rate.
        let s = sustained.filter(|s| *s < rate)?;
        Some(PowerLimit {
            limit_w,
            gemm_w,
            gemm_beta: (rate / s).ln() / (gemm_w / limit_w).ln(),
            attention_w: f.attention_watts?,
            attention_beta: f.attention_clock_exponent?,
            stream_w,
            wait_w: f.wait_watts?,
        })
    }

    /// Time and time-weighted power of `m` at clock fraction `x`.
    fn at(&self, m: &Mix, x: f64) -> (f64, f64) {
        let g = m.gemm_s * x.powf(-self.gemm_beta);
        let a = m.attention_s * x.powf(-self.attention_beta);
        let t = g + a + m.stream_s + m.wait_s;
        let e = self.gemm_w * x * g
            + self.attention_w * x * a
            + self.stream_w * m.stream_s
            + self.wait_w * m.wait_s;
        (t, if t > 0.0 { e / t } else { 0.0 })
    }

    /// The clock fraction the board holds over `m` repeated back to back:
    /// 1 where its power at the burst clock is within the limit.
    pub fn clock(&self, m: &Mix) -> f64 {
        if self.at(m, 1.0).1 <= self.limit_w {
            return 1.0;
        }
        // The power rises with the clock (each compute class's power x
        // x^(1 - beta) over a time that falls): bisect.
        let (mut lo, mut hi) = (0.05, 1.0);
        if self.at(m, lo).1 > self.limit_w {
            return lo;
        }
        for _ in 0..48 {
            let mid = 0.5 * (lo + hi);
            if self.at(m, mid).1 > self.limit_w {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        lo
    }

    /// How much longer a compute-bound op of `attention` kind or not runs
    /// at clock fraction `x`.
    pub fn stretch(&self, x: f64, attention: bool) -> f64 {
        x.powf(-if attention {
            self.attention_beta
        } else {
            self.gemm_beta
        })
    }

    /// The time of `m` at clock fraction `x`, seconds.
    pub fn time(&self, m: &Mix, x: f64) -> f64 {
        self.at(m, x).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The H200's figures (hardware/h200-sxm.toml).
    fn h200() -> PowerLimit {
        PowerLimit {
            limit_w: 692.8,
            gemm_w: 960.0,
            gemm_beta: (763.9f64 / 651.0).ln() / (960.0f64 / 692.8).ln(),
            attention_w: 814.0,
            attention_beta: 0.88,
            stream_w: 677.3,
            wait_w: 122.0,
        }
    }

    #[test]
    fn gemms_alone_run_at_the_sustained_rate() {
        // By construction of the exponent: 1 s of GEMMs at 763.9 TFLOP/s
        // takes 763.9 / 651 s at the limit, drawing the limit.
        let p = h200();
        let m = Mix {
            gemm_s: 1.0,
            ..Mix::default()
        };
        let x = p.clock(&m);
        assert!((p.time(&m, x) - 763.9 / 651.0).abs() < 1e-6);
        assert!((x - 692.8 / 960.0).abs() < 1e-6, "{x}");
    }

    #[test]
    fn the_hand_derivation_of_a_2048_token_prefill() {
        // formulas.md: Llama-3-8B bf16, 2,048 tokens, burst times by class
        // from `--explain`; 904 W at the burst clock, 692 W at x = 0.745,
        // 55.45 ms.
        let p = PowerLimit {
            gemm_w: 960.0,
            attention_w: 814.0,
            attention_beta: 0.88,
            wait_w: 122.0,
            ..h200()
        };
        let m = Mix {
            gemm_s: 40.07e-3,
            attention_s: 2.54e-3,
            stream_s: 4.61e-3,
            wait_s: 1.25e-3,
        };
        assert!((p.at(&m, 1.0).1 - 904.0).abs() < 1.0);
        let x = p.clock(&m);
        assert!((x - 0.745).abs() < 0.002, "{x}");
        assert!((p.time(&m, x) - 55.45e-3).abs() < 0.1e-3);
    }

    #[test]
    fn waits_and_memory_bound_work_below_the_limit_keep_the_burst_clock() {
        let p = h200();
        let m = Mix {
            stream_s: 1.0,
            wait_s: 1.0,
            ..Mix::default()
        };
        assert_eq!(p.clock(&m), 1.0);
        // GEMMs with as long a wait after them: (960 + 122) / 2 = 541 W.
        let m = Mix {
            gemm_s: 1.0,
            wait_s: 1.0,
            ..Mix::default()
        };
        assert_eq!(p.clock(&m), 1.0);
    }

    #[test]
    fn a_short_wait_lets_the_clock_rise_between_the_two() {
        // By hand: 1 s of GEMMs and 0.2 s of waiting; at x the power is
        // (960 x^(1 - b) + 122 x 0.2) / (x^-b + 0.2) = 692.8.
        let p = h200();
        let m = Mix {
            gemm_s: 1.0,
            wait_s: 0.2,
            ..Mix::default()
        };
        let x = p.clock(&m);
        let b = p.gemm_beta;
        let power = (960.0 * x.powf(1.0 - b) + 122.0 * 0.2) / (x.powf(-b) + 0.2);
        assert!((power - 692.8).abs() < 1e-6, "{power}");
        assert!(x > 692.8 / 960.0 && x < 1.0, "{x}");
    }
}

//! The power model of one part at one compute precision, resolved from a
//! hardware file's measured board power (formulas.md, "Power and energy"):
//! the fields it needs, the dynamic energy per FLOP and per byte, and the
//! bytes an operation streams.

use crate::spec::hardware::Hardware;
use serde::Serialize;

/// A part's power model at one compute precision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerModel {
    /// Board limit, W (`package.tdp-watts`).
    pub limit_w: f64,
    /// Idle board power, W.
    pub idle_w: f64,
    /// Board power at sustained full compute, W.
    pub compute_w: f64,
    /// Board power while streaming memory, W.
    pub stream_w: f64,
    /// The compute rate `compute_w` was measured at, FLOP/s.
    pub compute_rate: f64,
    /// The memory traffic of the loop `compute_w` was measured on, B/s.
    pub compute_traffic: f64,
    /// The bandwidth `stream_w` was measured at, B/s.
    pub stream_bandwidth: f64,
    /// The precision's compute key (`bf16`).
    pub compute: String,
    /// Energy of an element on the strided elementwise path beyond its
    /// bytes' (`package.strided-element-energy`), J; 0 without it.
    pub strided_element_j: f64,
}

/// The board-power fields a model needs, in the order they are asked for.
const FIELDS: [&str; 5] = [
    "package.tdp-watts",
    "package.idle-watts",
    "package.compute-watts",
    "package.stream-watts",
    "package.compute-traffic",
];

impl PowerModel {
    /// The model of `hw` at compute precision `compute`; `Err` names the
    /// first field the file lacks (a report shows it in a note and leaves
    /// the energy figures null).
    pub fn of(hw: &Hardware, compute: &str) -> std::result::Result<Self, String> {
        let p = hw.package.as_ref();
        let values = [
            hw.board_power(),
            p.and_then(|p| p.idle_watts),
            p.and_then(|p| p.compute_watts),
            p.and_then(|p| p.stream_watts),
            p.and_then(|p| p.compute_traffic).map(|t| t.get()),
        ];
        if let Some(i) = values.iter().position(Option::is_none) {
            return Err(FIELDS[i].to_string());
        }
        let [limit_w, idle_w, compute_w, stream_w, compute_traffic] =
            values.map(|v| v.unwrap_or(0.0));
        let a = hw.achievable.as_ref();
        let compute_rate = a
            .and_then(|a| a.sustained.get(compute))
            .ok_or_else(|| format!("achievable.sustained.{compute}"))?;
        let stream_bandwidth = a
            .and_then(|a| a.hbm_bandwidth)
            .map(|b| b.get())
            .ok_or_else(|| "achievable.hbm-bandwidth".to_string())?;
        Ok(PowerModel {
            limit_w,
            idle_w,
            compute_w,
            stream_w,
            compute_rate,
            compute_traffic,
            stream_bandwidth,
            compute: compute.to_string(),
            strided_element_j: p
                .and_then(|p| p.strided_element_energy)
                .map_or(0.0, |j| j.get()),
        })
    }

    /// Dynamic power of the compute engine at the sustained rate, W: the
    /// compute loop's power less idle and less its own memory traffic's
    /// share.
    pub fn compute_dynamic_w(&self) -> f64 {
        self.compute_w - self.idle_w - self.joules_per_byte() * self.compute_traffic
    }

    /// Dynamic energy per FLOP, J: compute's dynamic power / sustained
    /// rate.
    pub fn joules_per_flop(&self) -> f64 {
        self.compute_dynamic_w() / self.compute_rate
    }

    /// Dynamic energy per byte of device memory, J: (stream - idle) /
    /// bandwidth.
    pub fn joules_per_byte(&self) -> f64 {
        (self.stream_w - self.idle_w) / self.stream_bandwidth
    }

    /// The bytes an operation streams: its own, or, where its compute
    /// keeps the engine busier, the traffic the measured compute loop
    /// streamed for as long as the FLOPs take at the sustained rate (a
    /// compute-bound matmul rereads its operand tiles; an operation's
    /// compulsory bytes leave those out).
    pub fn streamed_bytes(&self, flops: f64, bytes: f64) -> f64 {
        bytes.max(self.compute_traffic * flops / self.compute_rate)
    }

    /// Energy beyond idle of `flops` and `bytes`, J.
    pub fn dynamic_j(&self, flops: f64, bytes: f64) -> f64 {
        flops * self.joules_per_flop() + self.streamed_bytes(flops, bytes) * self.joules_per_byte()
    }

    /// Energy beyond their bytes' of `elements` computed on the strided
    /// elementwise path, J.
    pub fn strided_j(&self, elements: f64) -> f64 {
        elements * self.strided_element_j
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::power::testing::{close, h200};

    /// formulas.md, "Power and energy": e_B and e_F from the measured
    /// readings (validation/results/2026-12-01-h200/h200-power-summary.json, h200-gemm-dram.json)
    /// worked by hand.
    #[test]
    fn energies_per_byte_and_flop_by_hand() {
        let pm = PowerModel::of(&h200(), "bf16").unwrap();
        let e_b = (677.3 - 80.9) / 4202.7e9;
        assert!(close(pm.joules_per_byte(), e_b, 1e-9));
        // 141.9 pJ/B; the loop's traffic takes 115.8 W of the 692.8.
        let e_f = (692.8 - 80.9 - e_b * 815.8e9) / 651e12;
        assert!(close(pm.joules_per_flop(), e_f, 1e-9));
        assert!(close(e_f, 0.762e-12, 1e-3), "{e_f}");
        let fp8 = PowerModel::of(&h200(), "fp8").unwrap();
        assert!(close(fp8.joules_per_flop(), 496.1 / 1166e12, 1e-3));
    }
}

//! The figures the per-operation model uses as parameters rather than as
//! direct readings (formulas.md, "Calibration: fitting the achievable
//! figures"): the GEMM rate of a full wave of unpadded tiles per precision,
//! and flash attention's peak fraction and half length. Each is searched
//! for the least median relative error of the model's own answer (`matmul
//! --achievable --launch graph`, the attention term) over the fitting rows
//! that identify it: a coarse grid, then a fine one around its best.

use super::measurements::{Operation, Row};
use super::predict;
use crate::error::Result;
use crate::spec::FlopPerSec;
use crate::spec::hardware::{AttentionEfficiency, Hardware, Peaks};
use std::num::NonZeroU64;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::INFINITY;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn set_peak(p: &mut Peaks, dtype: &str, v: f64) {
    let slot = match dtype {
        "bf16" => &mut p.bf16,
        "fp16" => &mut p.fp16,
        "fp8" => &mut p.fp8,
        "fp32" => &mut p.fp32,
        "tf32" => &mut p.tf32,
        "int8" => &mut p.int8,
        _ => return,
    };
    *slot = Some(FlopPerSec(v));
}

/// Median relative error of the model on `rows`.
fn error(hw: &Hardware, rows: &[&Row]) -> Result<f64> {
    let mut e = Vec::with_capacity(rows.len());
    for r in rows {
        if let Some(p) = predict::predict(r, hw, None)? {
            e.push((p - r.seconds).abs() / r.seconds);
        }
    }
    Ok(median(e))
}

/// The rate of precision `dtype` of least median GEMM error over the
/// rows that identify it: graph GEMMs of 100 GFLOP or more whose intensity
/// is at least twice the ridge of `hw`'s achievable rate and bandwidth
/// (their time is the rate's, not the overhead's or the stream's). Searched
/// within a quarter of the fastest such row, never above the datasheet
/// peak; the kernel overhead stays as `hw` has it. Written into `hw`;
/// returns (rate, error, rows), or None for fewer than two such rows.
pub fn gemm(hw: &mut Hardware, rows: &[&Row], dtype: &str) -> Result<Option<(f64, f64, usize)>> {
    let Some(a) = hw.achievable.as_ref() else {
        return Ok(None);
    };
    let Some(sheet) = hw.compute.dense.get(dtype) else {
        return Ok(None);
    };
    let bw = a.hbm_bandwidth.map_or(f64::INFINITY, |b| b.get());
    let ridge = a.dense.get(dtype).unwrap_or(sheet) / bw;
    let rate_of = |r: &Row| {
        2.0 * r.m.unwrap_or(0) as f64 * r.n.unwrap_or(0) as f64 * r.k.unwrap_or(0) as f64
            / r.seconds
    };
    let large: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| super::fit::is_large_gemm(r) && r.dtype == dtype)
        .filter(|r| {
            let (rd, wr) = super::fit::gemm_read_write(r);
            rate_of(r) * r.seconds / (rd + wr) >= 2.0 * ridge
        })
        .collect();
    if large.len() < 2 {
        return Ok(None);
    }
    let start = large
        .iter()
        .map(|r| rate_of(r))
        .fold(0.0, f64::max)
        .min(sheet);
    let (mut best_r, mut best_e) = (start, f64::INFINITY);
    for (span, steps) in [(0.25, 50usize), (0.02, 40)] {
        let centre = best_r;
        for j in 0..=steps {
            let f = 1.0 - span + 2.0 * span * j as f64 / steps as f64;
            let r = (centre * f).min(sheet);
            if let Some(a) = hw.achievable.as_mut() {
                set_peak(&mut a.dense, dtype, r);
            }
            let e = error(hw, &large)?;
            if e < best_e {
                (best_e, best_r) = (e, r);
            }
        }
    }
    if let Some(a) = hw.achievable.as_mut() {
        set_peak(&mut a.dense, dtype, best_r);
    }
    Ok(Some((best_r, best_e, large.len())))
}

/// Flash attention's (peak fraction, half length) of least median error
/// over the prefill attention rows, written into `hw`.
pub fn attention(hw: &mut Hardware, rows: &[&Row]) -> Result<Option<(f64, usize)>> {
    let att: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| r.op == Operation::AttentionPrefill)
        .collect();
    // Fewer than three points do not identify a curve of two parameters.
    if att.len() < 3 || hw.achievable.is_none() {
        return Ok(None);
    }
    let (mut bp, mut bh, mut be) = (0.5, 2048.0, f64::INFINITY);
    for (p_lo, p_hi, h_lo, h_hi, steps) in [
        (0.1, 1.0, 0.0, 16384.0, 45usize),
        (-0.02, 0.02, -400.0, 400.0, 20),
    ] {
        let (cp, ch) = (bp, bh);
        for i in 0..=steps {
            for j in 0..=steps {
                let (p, h) = if p_lo > 0.0 {
                    (
                        p_lo + (p_hi - p_lo) * i as f64 / steps as f64,
                        h_lo + (h_hi - h_lo) * j as f64 / steps as f64,
                    )
                } else {
                    (
                        cp + p_lo + (p_hi - p_lo) * i as f64 / steps as f64,
                        ch + h_lo + (h_hi - h_lo) * j as f64 / steps as f64,
                    )
                };
                if !(p > 0.0 && p <= 1.0) || h < 1.0 {
                    continue;
                }
                put_attention(hw, p, h);
                let e = error(hw, &att)?;
                if e < be {
                    (be, bp, bh) = (e, p, h);
                }
            }
        }
    }
    put_attention(hw, bp, bh);
    Ok(Some((be, att.len())))
}

fn put_attention(hw: &mut Hardware, p: f64, h: f64) {
    if let Some(a) = hw.achievable.as_mut() {
        let at = a.attention.get_or_insert_with(AttentionEfficiency::default);
        at.peak_fraction = Some(p);
        at.half_length = NonZeroU64::new(h.round().max(1.0) as u64);
    }
}

/// PyTorch's grouped GEMM on the part: the (stream fraction, compute
/// fraction) of least median error of the grouped experts' price
/// (`predict::grouped_time`) over the fitting `grouped_gemm` rows, each
/// fraction in (0, 1], written into `hw`; returns (stream, compute, error,
/// rows), or None for fewer than three rows. The rows of few rows an
/// expert identify the stream fraction (their time is the weights'
/// stream), those of many rows the compute fraction.
pub fn grouped(hw: &mut Hardware, rows: &[&Row]) -> Result<Option<(f64, f64, f64, usize)>> {
    let g: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| r.op == Operation::GroupedGemm)
        .collect();
    if g.len() < 3 || hw.achievable.is_none() {
        return Ok(None);
    }
    let (mut bs, mut bc, mut be) = (1.0, 1.0, f64::INFINITY);
    for (lo, hi, steps) in [(0.2, 1.0, 40usize), (-0.02, 0.02, 40)] {
        let (cs, cc) = (bs, bc);
        for i in 0..=steps {
            for j in 0..=steps {
                let at = |c: f64, x: usize| {
                    let v = lo + (hi - lo) * x as f64 / steps as f64;
                    if lo > 0.0 { v } else { c + v }
                };
                let (sf, cf) = (at(cs, i), at(cc, j));
                if !(sf > 0.0 && sf <= 1.0 && cf > 0.0 && cf <= 1.0) {
                    continue;
                }
                put_grouped(hw, sf, cf);
                let e = error(hw, &g)?;
                if e < be {
                    (be, bs, bc) = (e, sf, cf);
                }
            }
        }
    }
    put_grouped(hw, bs, bc);
    Ok(Some((bs, bc, be, g.len())))
}

fn put_grouped(hw: &mut Hardware, sf: f64, cf: f64) {
    if let Some(a) = hw.achievable.as_mut() {
        let g = a.grouped_gemm.get_or_insert_with(Default::default);
        g.stream_fraction = Some(sf);
        g.compute_fraction = Some(cf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::launch::LaunchMode;

    fn grouped_row(groups: u64, m: u64, n: u64, k: u64, seconds: f64) -> Row {
        Row {
            line: 2,
            op: Operation::GroupedGemm,
            model: None,
            layers: None,
            batch: Some(groups),
            m: Some(m),
            n: Some(n),
            k: Some(k),
            seq: None,
            context: None,
            heads: None,
            kv_heads: None,
            head_dim: None,
            bytes: None,
            flops: None,
            dtype: "bf16".into(),
            launch: LaunchMode::Graph,
            seconds,
            sm_clock_mhz: None,
            power_w: None,
            kernels: Some(2),
            burst_seconds: None,
            wait_seconds: None,
        }
    }

    #[test]
    fn grouped_fractions_are_found_from_rows_derived_by_hand() {
        // The H100 file's figures the derivation uses (asserted, so a
        // change to the file fails here rather than silently).
        let mut hw = crate::catalog::Catalog::default()
            .hardware("h100-sxm", &[])
            .unwrap();
        let a = hw.achievable.as_ref().unwrap();
        let (bw, rate) = (2.97e12, 794.5e12);
        assert_eq!(a.hbm_bandwidth.unwrap().get(), bw);
        assert_eq!(a.dense.get("bf16"), Some(rate));
        assert_eq!(a.kernel_overhead.unwrap().get(), 2.4e-6);
        assert_eq!(a.launch.as_ref().unwrap().graph.unwrap().get(), 1.17e-6);
        // Rows made with stream fraction 0.6 and compute fraction 0.9; two
        // kernels a call, each 2.4 us fixed plus a 1.17 us graph launch.
        let (sf, cf, per_call) = (0.6, 0.9, 2.0 * (2.4e-6 + 1.17e-6));
        // One row an expert: the weights' stream binds whatever the tile.
        // The compute term is at most 320 times the useful FLOPs (the
        // tallest tile, 320 rows, padded from 1) at cf x rate: 320 x 2 n k g
        // / (0.9 x 794.5e12) against the weights' 2 n k g / (0.6 x 2.97e12),
        // a ratio of 0.80.
        let stream = |g: u64, n: u64, k: u64| {
            let (g, n, k) = (g as f64, n as f64, k as f64);
            let read = g * (n * k + k) * 2.0;
            let write = g * n * 2.0;
            (read + write) / (sf * bw) + per_call
        };
        // 1,024 rows an expert and tiles in whole waves (33 experts of 8 x
        // 16 tiles of 128 x 64, or 66 of 8 x 8: 4,224 = 32 x 132 SMs, the
        // full-rate tile, no padding): efficiency 1, so the compute term is
        // 2 m n k g / (cf x rate); it exceeds the read (g (n k + m k) 2 B at
        // sf x bw: 621 us against 793 us for the first), and the write
        // (m n g 2 B) follows at sf x bw.
        let compute = |g: u64, m: u64, n: u64, k: u64| {
            let (g, m, n, k) = (g as f64, m as f64, n as f64, k as f64);
            2.0 * m * n * k * g / (cf * rate) + m * n * g * 2.0 / (sf * bw) + per_call
        };
        let rows = [
            grouped_row(8, 1, 28672, 4096, stream(8, 28672, 4096)),
            grouped_row(256, 1, 4096, 7168, stream(256, 4096, 7168)),
            grouped_row(33, 1024, 1024, 8192, compute(33, 1024, 1024, 8192)),
            grouped_row(66, 1024, 512, 8192, compute(66, 1024, 512, 8192)),
        ];
        let refs: Vec<&Row> = rows.iter().collect();
        let (s, c, e, n) = grouped(&mut hw, &refs).unwrap().unwrap();
        assert_eq!(n, 4);
        assert!((s - sf).abs() < 0.0015, "stream fraction {s}");
        assert!((c - cf).abs() < 0.0015, "compute fraction {c}");
        assert!(e < 0.003, "median error {e}");
        // Written into the file the search was given.
        let g = hw
            .achievable
            .as_ref()
            .unwrap()
            .grouped_gemm
            .as_ref()
            .unwrap();
        assert_eq!((g.stream_fraction, g.compute_fraction), (Some(s), Some(c)));
        // Fewer than three rows identify nothing.
        assert!(grouped(&mut hw, &refs[..2]).unwrap().is_none());
    }
}

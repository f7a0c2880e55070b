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

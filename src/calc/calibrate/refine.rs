//! The figures the per-operation model uses as parameters rather than as
//! direct readings (formulas.md, "Calibration: fitting the achievable
//! figures"): the GEMM rate of a full wave of unpadded tiles per precision
//! with the fixed kernel overhead, and flash attention's peak fraction and
//! half length. Each pair is searched for the least median relative error
//! of the model's own answer (`matmul --achievable --launch graph`, the
//! attention term) over the fitting rows: a coarse grid, then a fine one
//! around its best.

use super::measurements::{LaunchMode, Operation, Row};
use super::predict;
use crate::error::Result;
use crate::spec::hardware::{AttentionEfficiency, Hardware, Peaks};
use crate::spec::{FlopPerSec, Seconds};
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

/// The (rate per precision, overhead) of least median GEMM error, written
/// into `hw`; returns that error and the rows it was taken over.
pub fn gemm(hw: &mut Hardware, rows: &[&Row]) -> Result<Option<(f64, usize)>> {
    let gemms: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| r.op == Operation::Gemm && r.launch == LaunchMode::Graph)
        .collect();
    let Some(a) = hw.achievable.as_ref() else {
        return Ok(None);
    };
    let mut dtypes: Vec<String> = gemms.iter().map(|r| r.dtype.clone()).collect();
    dtypes.sort();
    dtypes.dedup();
    let start: Vec<(String, f64, f64)> = dtypes
        .iter()
        .filter_map(|d| {
            let best = a.dense.get(d)?;
            let sheet = hw.compute.dense.get(d)?;
            Some((d.clone(), best, sheet))
        })
        .collect();
    if start.is_empty() {
        return Ok(None);
    }
    let o0 = a.kernel_overhead.map_or(2e-6, |s| s.get());
    // The overhead is shared; each precision's rate is searched on its own
    // rows for each overhead tried.
    let mut best_o = o0;
    let mut best_rates: Vec<f64> = start.iter().map(|s| s.1).collect();
    let mut best_err = f64::INFINITY;
    for (o_lo, o_hi, o_steps, r_span, r_steps) in [
        (0.0, 6e-6, 24usize, 0.25, 25usize),
        (-0.25e-6, 0.25e-6, 10, 0.02, 20),
    ] {
        let centre_o = best_o;
        let centre_r = best_rates.clone();
        for i in 0..=o_steps {
            let o = if o_lo == 0.0 {
                o_lo + (o_hi - o_lo) * i as f64 / o_steps as f64
            } else {
                centre_o + o_lo + (o_hi - o_lo) * i as f64 / o_steps as f64
            };
            if o < 0.0 {
                continue;
            }
            if let Some(a) = hw.achievable.as_mut() {
                a.kernel_overhead = (o > 0.0).then_some(Seconds(o));
            }
            let mut rates = Vec::new();
            for (k, (d, _, sheet)) in start.iter().enumerate() {
                let rows_d: Vec<&Row> = gemms.iter().copied().filter(|r| &r.dtype == d).collect();
                let mut best_d = (f64::INFINITY, centre_r[k]);
                for j in 0..=r_steps {
                    let f = 1.0 - r_span + 2.0 * r_span * j as f64 / r_steps as f64;
                    let r = (centre_r[k] * f).min(*sheet);
                    if let Some(a) = hw.achievable.as_mut() {
                        set_peak(&mut a.dense, d, r);
                    }
                    let e = error(hw, &rows_d)?;
                    if e < best_d.0 {
                        best_d = (e, r);
                    }
                }
                rates.push(best_d.1);
                if let Some(a) = hw.achievable.as_mut() {
                    set_peak(&mut a.dense, d, best_d.1);
                }
            }
            let e = error(hw, &gemms)?;
            if e < best_err {
                best_err = e;
                best_o = o;
                best_rates = rates;
            }
        }
    }
    if let Some(a) = hw.achievable.as_mut() {
        a.kernel_overhead = (best_o > 0.0).then_some(Seconds(best_o));
        for ((d, _, _), r) in start.iter().zip(&best_rates) {
            set_peak(&mut a.dense, d, *r);
        }
    }
    Ok(Some((best_err, gemms.len())))
}

/// Flash attention's (peak fraction, half length) of least median error
/// over the prefill attention rows, written into `hw`.
pub fn attention(hw: &mut Hardware, rows: &[&Row]) -> Result<Option<(f64, usize)>> {
    let att: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| r.op == Operation::AttentionPrefill)
        .collect();
    if att.len() < 2 || hw.achievable.is_none() {
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

//! The constraints a layout must meet against the model and the fabric;
//! a failure names the constraint and suggests values that pass.

use super::{Layout, Setup};
use crate::error::{Error, Result};
use crate::inputs::at_least_one;
use crate::units;

/// Greatest common divisor.
pub(super) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Divisors of `n`, ascending.
pub fn divisors(n: u64) -> Vec<u64> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d <= n / d {
        if n.is_multiple_of(d) {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    large.reverse();
    small.extend(large);
    small
}

fn list(v: &[u64]) -> String {
    let shown: Vec<String> = v.iter().take(12).map(u64::to_string).collect();
    if v.len() > 12 {
        format!("{}, ...", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// What [`tensor_parallel`]'s checks read: a sweep over anything else
/// fails them at every point alike, so stops at its first.
const TP_READS: &[&str] = &["tp", "model", "hw", "allow-cross-node"];

/// What [`validate`]'s checks read.
const LAYOUT_READS: &[&str] = &[
    "tp",
    "pp",
    "dp",
    "ep",
    "devices",
    "model",
    "hw",
    "allow-cross-node",
    "redundant-experts",
];

/// The tensor-parallel degree against the model's heads and the fabric's
/// scale-up domain (`domain` devices, on the part `hw`): the checks `plan`
/// makes of a layout's tp, and `kv --tp` of its split.
pub fn tensor_parallel(
    m: &crate::spec::model::Model,
    hw: &str,
    domain: Option<u64>,
    tp: u64,
    allow_cross_node: bool,
) -> Result<()> {
    tp_checks(m, hw, domain, tp, allow_cross_node)
        .map_err(|e| crate::inputs::refused_by(TP_READS, e))
}

fn tp_checks(
    m: &crate::spec::model::Model,
    hw: &str,
    domain: Option<u64>,
    tp: u64,
    allow_cross_node: bool,
) -> Result<()> {
    at_least_one("tp", tp)?;
    let heads = m.attention.heads.get();
    let kv = m.kv_heads();
    if !heads.is_multiple_of(tp) && !kv.is_multiple_of(tp) {
        let mut ok: Vec<u64> = divisors(heads);
        ok.retain(|t| allow_cross_node || domain.is_none_or(|d| *t <= d));
        return Err(Error::field(
            "tp",
            format!(
                "tp {} divides neither the {} KV heads nor the {} heads of {}; valid: {}",
                units::whole(tp),
                units::whole(kv),
                units::whole(heads),
                m.id,
                list(&ok)
            ),
        ));
    }
    if let Some(d) = domain
        && tp > d
        && !allow_cross_node
    {
        let ok: Vec<u64> = divisors(heads).into_iter().filter(|t| *t <= d).collect();
        return Err(Error::field(
            "tp",
            format!(
                "tp {} exceeds {}'s scale-up domain of {} devices, so every all-reduce would cross the network; give tp of at most {} ({}) or allow it with --allow-cross-node",
                units::whole(tp),
                hw,
                units::whole(d),
                units::whole(d),
                list(&ok)
            ),
        ));
    }
    if let Some(d) = domain
        && tp > d
        && !tp.is_multiple_of(d)
    {
        return Err(Error::field(
            "tp",
            format!(
                "tp {} across domains of {} must be a multiple of {}",
                units::whole(tp),
                units::whole(d),
                units::whole(d)
            ),
        ));
    }
    Ok(())
}

/// Checks a layout against the model and the fabric; the error names the
/// constraint that failed and suggests values that pass.
pub fn validate(s: &Setup, l: Layout, devices: Option<u64>) -> Result<()> {
    layout_checks(s, l, devices).map_err(|e| crate::inputs::refused_by(LAYOUT_READS, e))
}

fn layout_checks(s: &Setup, l: Layout, devices: Option<u64>) -> Result<()> {
    let m = s.model;
    for (f, v) in [("tp", l.tp), ("pp", l.pp), ("dp", l.dp), ("ep", l.ep)] {
        at_least_one(f, v)?;
    }
    tensor_parallel(m, &s.hw.id, s.fabric.domain(), l.tp, s.allow_cross_node)?;
    if let Some(n) = devices
        && l.devices() != n
    {
        let tp_pp = l.tp.saturating_mul(l.pp);
        let hint = if n.is_multiple_of(tp_pp) {
            format!(
                "for tp {} and pp {} give dp {}",
                units::whole(l.tp),
                units::whole(l.pp),
                units::whole(n / tp_pp)
            )
        } else {
            let ok: Vec<u64> = divisors(gcd(n, m.attention.heads.get()))
                .into_iter()
                .filter(|t| {
                    validate(
                        s,
                        Layout {
                            tp: *t,
                            pp: 1,
                            dp: n / t,
                            ep: 1,
                        },
                        None,
                    )
                    .is_ok()
                })
                .collect();
            format!(
                "tp x pp = {} does not divide {}; tp that divide both the devices and the heads: {}",
                units::whole(tp_pp),
                units::whole(n),
                list(&ok)
            )
        };
        return Err(Error::field(
            "dp",
            format!(
                "tp x pp x dp = {} x {} x {} = {}, not the {} devices; {hint}",
                units::whole(l.tp),
                units::whole(l.pp),
                units::whole(l.dp),
                units::whole(l.devices()),
                units::whole(n)
            ),
        ));
    }
    let layers = m.layers.get();
    if !layers.is_multiple_of(l.pp) {
        return Err(Error::field(
            "pp",
            format!(
                "pp {} does not divide the {} layers of {}; valid: {}",
                units::whole(l.pp),
                units::whole(layers),
                m.id,
                list(&divisors(layers))
            ),
        ));
    }
    match &m.moe {
        None if l.ep > 1 => {
            return Err(Error::field(
                "ep",
                format!(
                    "ep {}: {} is dense and has no experts to spread; give ep 1",
                    units::whole(l.ep),
                    m.id
                ),
            ));
        }
        None => {}
        Some(_) => {
            let slots = s.expert_slots();
            let td = l.tp * l.dp;
            let ok: Vec<u64> = divisors(td)
                .into_iter()
                .filter(|e| slots.is_multiple_of(*e))
                .collect();
            if !td.is_multiple_of(l.ep) {
                return Err(Error::field(
                    "ep",
                    format!(
                        "ep {} does not divide tp x dp = {}, the devices of a pipeline stage; valid: {}",
                        units::whole(l.ep),
                        units::whole(td),
                        list(&ok)
                    ),
                ));
            }
            if !slots.is_multiple_of(l.ep) {
                let routed = slots - s.redundant;
                let first = (l.ep - routed % l.ep) % l.ep;
                let redundant: Vec<u64> = (0..3).map(|i| first + i * l.ep).collect();
                return Err(Error::field(
                    "ep",
                    format!(
                        "ep {} does not divide the {} experts ({} routed + {} redundant); valid: {}; or, for ep {}, redundant-experts {}, ...",
                        units::whole(l.ep),
                        units::whole(slots),
                        units::whole(routed),
                        units::whole(s.redundant),
                        list(&ok),
                        units::whole(l.ep),
                        list(&redundant)
                    ),
                ));
            }
            if let Some(d) = s.fabric.domain()
                && l.ep > d
                && !l.ep.is_multiple_of(d)
            {
                let ok: Vec<u64> = ok.into_iter().filter(|e| *e <= d || e % d == 0).collect();
                return Err(Error::field(
                    "ep",
                    format!(
                        "an expert group of {} fills scale-up domains of {} unevenly; valid: {}",
                        units::whole(l.ep),
                        units::whole(d),
                        list(&ok)
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_in_order() {
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(61), vec![1, 61]);
        assert_eq!(divisors(1), vec![1]);
    }
}

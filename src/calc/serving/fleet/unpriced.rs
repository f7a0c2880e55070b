//! Layouts the search could not price because the part lacks a figure
//! they need (an `--achievable` link bandwidth, a scale-out NIC): each is
//! left out, and the answer says which figure and how many layouts and
//! candidate plans that cost, so that no layout drops silently
//! (formulas.md, "Fleet").

use crate::calc::plan::Layout;
use crate::error::Error;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// A layout as (devices, tp, pp, ep): ordered smallest first.
type Key = (u64, u64, u64, u64);

/// Layouts left out, per part and reason.
#[derive(Default)]
pub struct Unpriced {
    /// (part, the error's text) -> the layouts it left out.
    left: RefCell<BTreeMap<(String, String), BTreeSet<Key>>>,
}

/// Layouts a note lists by name before it counts the rest.
const NAMED: usize = 6;

impl Unpriced {
    /// Records that `l` on `hw` was left out for `e`.
    pub fn add(&self, hw: &str, l: Layout, e: &Error) {
        self.left
            .borrow_mut()
            .entry((hw.to_string(), e.to_string()))
            .or_default()
            .insert((l.tp.saturating_mul(l.pp), l.tp, l.pp, l.ep));
    }

    /// One note per part and reason: the layouts left out and the
    /// candidates of the aggregated search they would have been
    /// (`per_layout` each: batch caps times token budgets).
    pub fn notes(&self, per_layout: u64) -> Vec<String> {
        self.left
            .borrow()
            .iter()
            .map(|((hw, why), ls)| {
                let mut named: Vec<String> = ls
                    .iter()
                    .take(NAMED)
                    .map(|&(_, tp, pp, ep)| {
                        let mut s = format!("tp {tp}");
                        if pp > 1 {
                            s += &format!(" pp {pp}");
                        }
                        if ep > 1 {
                            s += &format!(" ep {ep}");
                        }
                        s
                    })
                    .collect();
                if ls.len() > NAMED {
                    named.push(format!("{} more", ls.len() - NAMED));
                }
                let n = ls.len() as u64;
                format!(
                    "{n} layout{} on {hw} not searched, aggregated or as a disaggregated pool ({}; {} candidate plan{} of the aggregated search): {why}",
                    if n == 1 { "" } else { "s" },
                    named.join(", "),
                    crate::units::whole(n.saturating_mul(per_layout)),
                    if n.saturating_mul(per_layout) == 1 {
                        ""
                    } else {
                        "s"
                    },
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_figure_and_counts_what_it_cost() {
        let u = Unpriced::default();
        let e = Error::MissingField {
            owner: "x".into(),
            field: "achievable.link-bandwidth.nvlink4".into(),
            why: "w".into(),
            example: None,
        };
        for tp in [2, 4, 8] {
            u.add(
                "x",
                Layout {
                    tp,
                    pp: 1,
                    dp: 1,
                    ep: 1,
                },
                &e,
            );
        }
        // The same layout twice (the pool search meets it again) counts once.
        u.add(
            "x",
            Layout {
                tp: 2,
                pp: 1,
                dp: 1,
                ep: 1,
            },
            &e,
        );
        let n = u.notes(10);
        assert_eq!(n.len(), 1);
        assert!(n[0].starts_with("3 layouts on x not searched"), "{}", n[0]);
        assert!(
            n[0].contains("tp 2, tp 4, tp 8; 30 candidate plans"),
            "{}",
            n[0]
        );
        assert!(
            n[0].contains("`achievable.link-bandwidth.nvlink4`"),
            "{}",
            n[0]
        );
    }
}

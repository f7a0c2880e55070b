//! `matmul`'s report: every figure of a [`MatmulCost`] with its formula
//! and derivation, the notes, the tile table. Here the sections are put in
//! order; each section is a room of its own.

use super::*;

mod feasibility;
mod l2;
mod sm;
mod table;
mod tiling;

/// A count as a JSON integer where it fits, else a float.
fn int(v: u128) -> serde_json::Value {
    u64::try_from(v).map_or_else(|_| (v as f64).into(), Into::into)
}

/// `Some(true)`/`Some(false)` as JSON booleans, `None` as null.
fn opt_bool(v: Option<bool>) -> serde_json::Value {
    v.map_or(serde_json::Value::Null, Into::into)
}

/// The units of the work and of its rate: int8 arithmetic is counted in
/// operations, not FLOPs.
fn op_units(integer: bool) -> (&'static str, &'static str) {
    if integer {
        ("OP", "OP/s")
    } else {
        ("FLOP", "FLOP/s")
    }
}

impl MatmulCost {
    /// The report of this cost; a lean one records values only (and no
    /// tile table).
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("matmul", lean);
        self.report_inputs(&mut r);
        self.report_tiling(&mut r);
        self.report_l2(&mut r);
        self.report_feasibility(&mut r);
        self.report_sm(&mut r);
        self.energy.record(&mut r);
        self.report_table(&mut r, lean);
        r
    }

    /// The hardware, the inputs and the notes on how the tile was chosen.
    fn report_inputs(&self, r: &mut Report) {
        let (m, n, k) = (self.m, self.n, self.k);
        let t = &self.tile;
        let (bm, bn, bk) = (t.tile_m, t.tile_n, self.tile_k);
        let stages = self.stages;
        r.hardware = Some(self.hardware.clone());
        r.input("m", m);
        r.input("n", n);
        r.input("k", k);
        r.input("tile_m", bm);
        r.input("tile_n", bn);
        r.input("tile_k", bk);
        r.input("stages", stages);
        r.input("dtype", self.dtype);
        if self.mode == Mode::Achievable {
            r.input("achievable", true);
        }
        if let Some(n) = crate::precision::lookup(self.dtype)
            .ok()
            .and_then(|p| p.compute_note())
        {
            r.note(n);
        }
        let (req_m, req_n) = t.requested;
        if bm < req_m || bn < req_n {
            r.note_with(|| {
                format!(
                    "tile {}x{} clamped to the matrix: {}x{} (a masked tile reuses each element only as often as the matrix is wide)",
                    units::whole(req_m),
                    units::whole(req_n),
                    units::whole(bm),
                    units::whole(bn)
                )
            });
        }
        if self.tile_k_defaulted && bk != DEFAULT_TILE_K {
            r.note_with(|| {
                format!(
                    "tile-k {bk}: the largest power of two up to 64 that divides K = {}",
                    units::whole(k)
                )
            });
        }
    }
}

//! What the power rooms' tests share: the H200 file, a relative
//! comparison, a decode step at a batch and prices read from fields.

use super::Prices;
use crate::calc::decode::{self, DecodeInputs};
use crate::catalog::Catalog;
use crate::error::Result;
use crate::spec::hardware::{Hardware, Mode};

pub(super) fn h200() -> Hardware {
    Catalog::default().hardware("h200-sxm", &[]).unwrap()
}

pub(super) fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs()
}

pub(super) fn decode_at(hw: &Hardware, batch: u64, mode: Mode) -> decode::DecodeCost {
    let m = Catalog::default().model("llama-3-8b", &[]).unwrap();
    let mut f = crate::inputs::Fields::new();
    f.insert("batch".into(), batch.into());
    f.insert("context".into(), 1024.into());
    let inputs: DecodeInputs = crate::inputs::from_fields(&f).unwrap();
    decode::cost(&m, hw, &inputs, mode).unwrap()
}

pub(super) fn prices(p: &[(&str, &str)]) -> Result<Prices> {
    let mut f = crate::inputs::Fields::new();
    for (k, v) in p {
        f.insert((*k).into(), (*v).into());
    }
    Prices::take(&mut f)
}

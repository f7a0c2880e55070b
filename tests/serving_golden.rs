//! The lecture's strided decode (002 §7.6): the decode floor the seed
//! states, slowed by the coalescing efficiency the tool computes for a
//! stride-32 fp32 read.

use crate::common;
use common::{check, golden};
use roofline::calc::coalesce::{Access, Granularity, counts};

#[test]
fn lecture_strided_decode() {
    // Every weight byte costs a stride-32 fp32 load: one 128-B segment per
    // 4-B element.
    let a = Access {
        stride: 32,
        offset: 0,
        granularity: Granularity::Segment,
    };
    let c = counts(32, 32, 128, &a).unwrap();
    let efficiency = c.useful_bytes / c.moved_bytes;
    let floor_ms = golden("lec-7.6-strided-decode-time").input("floor_ms");
    check("lec-7.6-strided-decode-time", floor_ms / efficiency);
}

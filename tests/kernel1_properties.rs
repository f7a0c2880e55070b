//! Properties of the coalescing and occupancy models over many inputs.

use proptest::prelude::*;
use roofline::calc::coalesce::{Access, Granularity, counts};
use roofline::calc::occupancy::{Kernel, limits};
use roofline::catalog::Catalog;
use roofline::spec::hardware::Hardware;

fn h200() -> Hardware {
    Catalog::default()
        .hardware("tests/data/occupancy/h200.toml", &[])
        .unwrap()
}

proptest! {
    #[test]
    fn coalescing_efficiency_is_a_fraction(
        stride in 1u64..300,
        offset in 0u64..512,
        bits in prop::sample::select(vec![8u64, 16, 32, 64]),
        unit in prop::sample::select(vec![32u64, 64, 128]),
    ) {
        let a = Access { stride, offset, granularity: Granularity::Sector };
        let c = counts(32, bits, unit, &a).unwrap();
        prop_assert!(c.moved_bytes >= c.useful_bytes);
        prop_assert!(c.stream_moved_bytes >= c.useful_bytes - 1e-9);
        // Each lane touches at most ceil(size / unit) + 1 units, and so
        // does a warp of a stream on average. (The stream's average can
        // exceed the first warp's: it averages over the alignment phases
        // later warps fall on.)
        let per_lane = (bits / 8).div_ceil(unit) + 1;
        prop_assert!(c.units <= 32 * per_lane);
        prop_assert!(c.stream_moved_bytes <= (32 * per_lane * unit) as f64);
    }

    #[test]
    fn more_registers_never_hold_more_blocks(
        threads in 1u64..=1024,
        regs in 1u64..255,
        smem in 0u64..=100_000,
    ) {
        let hw = h200();
        let k = Kernel { threads, regs, smem, ..Kernel::default() };
        let more = Kernel { regs: regs + 1, ..k.clone() };
        let a = limits(&hw, &k).unwrap();
        let b = limits(&hw, &more).unwrap();
        prop_assert!(b.blocks_per_sm() <= a.blocks_per_sm());
        let bigger = Kernel { smem: smem + 4096, ..k.clone() };
        prop_assert!(limits(&hw, &bigger).unwrap().blocks_per_sm() <= a.blocks_per_sm());
        prop_assert!(a.blocks_per_sm() * a.warps_per_block <= 64);
    }
}

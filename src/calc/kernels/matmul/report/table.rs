//! The lecture's tile table (square tiles 32 to 256 at this shape, 002
//! §7.8) and the headline of a full `matmul` report.

use super::*;

impl MatmulCost {
    /// The table's rows and the headline; a lean report (an inner sweep
    /// point) keeps values only, and no table.
    pub(super) fn report_table(&self, r: &mut Report, lean: bool) {
        let int_ops = self.roof.integer;
        // The lecture's table: square tiles 32..256 at this shape. A lean
        // report (an inner sweep point) keeps values only, and no table.
        if self.table.is_empty() || lean {
            return;
        }
        r.describe("tile", || Quantity::new("tile", Unit::Count));
        r.describe("tiled_bytes", || Quantity::new("HBM bytes", Unit::Bytes));
        r.describe("intensity", || {
            Quantity::new("intensity", Unit::FlopPerByte.ops_if(int_ops))
        });
        r.describe("attainable_flops_per_s", || {
            Quantity::new("attainable", Unit::FlopPerSec.ops_if(int_ops))
        });
        r.describe("memory_time_s", || {
            Quantity::new("memory time", Unit::Seconds)
        });
        r.describe("tiled_vs_naive", || Quantity::new("vs naive", Unit::Ratio));
        r.describe("smem_bytes_per_block", || {
            Quantity::new("shared memory", Unit::BytesIec)
        });
        r.describe("accumulator_bytes", || {
            Quantity::new("accumulator", Unit::BytesIec)
        });
        r.describe("fits", || Quantity::new("fits", Unit::None));
        for (tile, c) in &self.table {
            let mut row = Row::default();
            row.inputs.insert("tile".into(), (*tile).into());
            row.results
                .insert("tiled_bytes".into(), c.tiled_bytes.into());
            row.results.insert("intensity".into(), c.intensity.into());
            row.results
                .insert("attainable_flops_per_s".into(), c.attainable.into());
            row.results
                .insert("memory_time_s".into(), c.time.memory_s.into());
            row.results
                .insert("tiled_vs_naive".into(), c.tiled_vs_naive.into());
            row.results
                .insert("smem_bytes_per_block".into(), c.smem_bytes.into());
            row.results
                .insert("accumulator_bytes".into(), c.accumulator_bytes.into());
            row.results.insert("fits".into(), opt_bool(c.fits));
            r.rows.push(row);
        }
        r.rows_kind = Some(RowsKind::Table);
        // The answer and the figures that decide it; --all shows the rest.
        r.headline(&[
            "power_w",
            "energy_j",
            "flops",
            "compute_time_s",
            "traffic_bytes",
            "traffic_level",
            "traffic_memory_time_s",
            "time_s",
            "warm_l2_time_s",
            "bound",
            "weight_streaming",
            // The lecture's single-tile figures, what its tiling table lists.
            "tiled_bytes",
            "intensity",
            "tile_time_s",
            "tile_bound",
            "fits",
            "waves",
            "wave_efficiency",
        ]);
        self.energy.trim_headline(r);
        // The lecture's tile table is shown when asked for with --tiles;
        // otherwise it is an intermediate for --all.
        r.rows_beyond_headline = !self.tiles_given;
    }
}

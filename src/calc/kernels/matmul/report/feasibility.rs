//! Whether a GEMM's tile fits an SM: shared memory with its stages and
//! reserve, the fp32 accumulators against the register file, threads
//! against the block limit, the square tile that would reach the ridge,
//! and how many programs an SM holds at once (formulas.md, "Tile
//! feasibility").

use super::*;

impl MatmulCost {
    /// The most programs of this tile an SM holds at once and the limit
    /// that sets it (shared memory with its per-block reserve, the fp32
    /// accumulators against the register file, block slots, threads);
    /// `None` where the file records none of them.
    pub fn resident_limit(&self) -> Option<(u64, String)> {
        self.resident_most()
            .map(|(n, which)| (n, self.resident_why(which)))
    }

    /// [`Self::resident_limit`]'s count and which limit binds, without
    /// its words: a sweep's point makes them only where it notes them.
    pub(crate) fn resident_most(&self) -> Option<(u64, Resident)> {
        let t = &self.tile;
        let lim = &self.limits;
        let mut best: Option<(u64, Resident)> = None;
        let mut consider = |n: u64, which: Resident| {
            if best.is_none_or(|(b, _)| n < b) {
                best = Some((n, which));
            }
        };
        let per_block = t.smem_bytes + lim.reserved_smem;
        if let Some(s) = lim.smem_per_sm
            && per_block > 0.0
        {
            consider((s / per_block).floor() as u64, Resident::Smem);
        }
        if let Some(rf) = lim.register_file
            && t.accumulator_bytes > 0.0
        {
            // Strictly less than the file, as `registers_fit` asks: some
            // registers hold addresses and operands.
            consider(
                ((rf / t.accumulator_bytes).ceil() - 1.0).max(0.0) as u64,
                Resident::Registers,
            );
        }
        if let Some(b) = self.max_blocks_per_sm {
            consider(b, Resident::Blocks);
        }
        if let (Some(ts), true) = (self.max_threads_per_sm, self.has_threads) {
            consider(ts / self.threads.max(1), Resident::Threads);
        }
        best
    }

    /// Why at most [`Self::resident_most`]'s count fit, in words.
    pub(crate) fn resident_why(&self, which: Resident) -> String {
        let t = &self.tile;
        let lim = &self.limits;
        match which {
            Resident::Smem => format!(
                "shared memory ({} a program of {} per SM)",
                iec_bytes(t.smem_bytes + lim.reserved_smem),
                iec_bytes(lim.smem_per_sm.unwrap_or(0.0))
            ),
            Resident::Registers => format!(
                "registers ({} of fp32 accumulators a program of {} per SM)",
                iec_bytes(t.accumulator_bytes),
                iec_bytes(lim.register_file.unwrap_or(0.0))
            ),
            Resident::Blocks => "block slots".into(),
            Resident::Threads => format!(
                "threads ({} a program of {} per SM)",
                number(self.threads as f64),
                number(self.max_threads_per_sm.unwrap_or(0) as f64)
            ),
        }
    }

    /// Shared memory, registers, threads and the ridge tile, in the
    /// report's order.
    pub(super) fn report_feasibility(&self, r: &mut Report) {
        let t = &self.tile;
        let (bm, bn, bk) = (t.tile_m, t.tile_n, self.tile_k);
        let stages = self.stages;
        let b = self.bytes_per_element;
        let bs = || number(b);
        let ridge = self.roof.ridge();

        // Feasibility: shared memory with stages, accumulator in registers.
        let smem = t.smem_bytes;
        r.result("smem_bytes_per_block", smem, || {
            Quantity::new("shared memory per program", Unit::BytesIec)
                .formula("(BM*BK + BK*BN)*b*stages")
                .derive(format!("({bm}*{bk} + {bk}*{bn})*{}*{stages}", bs()))
        });
        let acc = t.accumulator_bytes;
        r.result("accumulator_bytes", acc, || {
            Quantity::new("fp32 accumulator (registers)", Unit::BytesIec)
                .formula("BM*BN*4")
                .derive(format!("{bm}*{bn}*4"))
        });
        let lim = &self.limits;
        if let Some(s) = lim.smem_per_sm {
            r.result("smem_fraction_of_sm", smem / s, || {
                Quantity::new("share of the SM's shared memory", Unit::Fraction)
                    .formula("shared memory per program / shared memory per SM")
                    .derive(format!("{} / {}", iec_bytes(smem), iec_bytes(s)))
            });
        }
        if let Some(s) = lim.smem_per_block {
            r.result("smem_fraction_of_block_default", smem / s, || {
                Quantity::new(
                    "share of the default per-block shared memory",
                    Unit::Fraction,
                )
                .formula("shared memory per program / default per block")
                .derive(format!("{} / {}", iec_bytes(smem), iec_bytes(s)))
            });
        }
        if let Some(c) = self.smem_carveout {
            r.result("smem_carveout_bytes", c, || {
                Quantity::new("smallest carveout that holds it", Unit::BytesIec)
                    .formula("min carveout >= shared memory per program + reserved")
                    .derive(format!(
                        "min carveout >= {} + {}",
                        iec_bytes(smem),
                        iec_bytes(lim.reserved_smem)
                    ))
            });
        }
        if let (Some(l), Some(fits)) = (lim.smem_limit, t.smem_fits) {
            r.result("smem_fits", fits, || {
                Quantity::new("shared memory fits", Unit::None)
                    .formula("shared memory per program <= per-block limit")
                    .derive(format!("{} <= {}", iec_bytes(smem), iec_bytes(l)))
            });
        }
        if let (Some(rf), Some(fit)) = (lim.register_file, t.registers_fit) {
            r.result("accumulator_fraction_of_registers", acc / rf, || {
                Quantity::new("share of the register file", Unit::Fraction)
                    .formula("accumulator / register file per SM")
                    .derive(format!("{} / {}", iec_bytes(acc), iec_bytes(rf)))
            });
            r.result("registers_fit", fit, || {
                Quantity::new("accumulator fits in registers", Unit::None)
                    .formula("accumulator < register file (room left for addresses and operands)")
                    .derive(format!("{} < {}", iec_bytes(acc), iec_bytes(rf)))
            });
        }
        // With neither limit recorded (a TPU, Trainium) there is nothing to
        // check the tile against: say so rather than answer yes.
        if t.fits.is_none() {
            r.note_with(|| {
                format!(
                    "tile feasibility unknown: {} records no shared-memory or register-file limits",
                    self.hardware
                )
            });
        }
        let threads_fit = self
            .max_threads_per_block
            .filter(|_| self.has_threads)
            .map(|max| self.threads <= max);
        let fits = match (t.fits, threads_fit) {
            (_, Some(false)) => Some(false),
            (f, _) => f,
        };
        r.result("fits", opt_bool(fits), || {
            Quantity::new("tile fits", Unit::None).formula(
                "shared memory fits and registers fit (and the threads are within the block limit)",
            )
        });
        if let (Some(false), Some(max)) = (threads_fit, self.max_threads_per_block) {
            r.note_with(|| {
                format!(
                    "warning: {} threads per program exceed the {} threads a block may have on {}: the kernel cannot launch",
                    number(self.threads as f64),
                    number(max as f64),
                    self.hardware
                )
            });
        }
        if t.registers_fit == Some(false) {
            r.note_with(|| {
                format!(
                    "the {}x{} fp32 accumulator ({}) leaves no registers for anything else: the register file, not shared memory, caps the tile",
                    units::whole(bm),
                    units::whole(bn),
                    iec_bytes(acc)
                )
            });
        }
        if t.smem_fits == Some(false) {
            r.note_with(|| {
                format!(
                    "{} of shared memory per program exceeds the per-block limit",
                    iec_bytes(smem)
                )
            });
        }
        let rt = &self.ridge_tile;
        let rti = rt.rounded;
        r.result("ridge_tile", rt.edge, || {
            Quantity::new("square tile that reaches the ridge", Unit::None)
                .formula("BLOCK = b * ridge")
                .derive(format!("{} * {}", bs(), units::sig(ridge, 4)))
        });
        r.result("ridge_tile_accumulator_bytes", rt.accumulator_bytes, || {
            Quantity::new("its accumulator", Unit::BytesIec)
                .formula("BLOCK^2*4")
                .derive(format!("{rti}^2*4"))
        });
        if let (Some(v), Some(rf)) = (rt.accumulator_vs_registers, lim.register_file) {
            r.result("ridge_tile_accumulator_vs_registers", v, || {
                Quantity::new("its accumulator / register file", Unit::Ratio)
                    .formula("BLOCK^2*4 / register file")
                    .derive(format!(
                        "{} / {}",
                        iec_bytes(rt.accumulator_bytes),
                        iec_bytes(rf)
                    ))
            });
        }
        r.result("ridge_tile_smem_bytes", rt.smem_bytes, || {
            Quantity::new("its shared memory", Unit::BytesIec)
                .formula("(BLOCK*BK + BK*BLOCK)*b*stages")
                .derive(format!("({rti}*{bk} + {bk}*{rti})*{}*{stages}", bs()))
        });
    }
}

/// The per-SM limit that bounds the resident programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resident {
    /// Shared memory per SM.
    Smem,
    /// The register file (fp32 accumulators).
    Registers,
    /// Block slots.
    Blocks,
    /// Threads per SM.
    Threads,
}

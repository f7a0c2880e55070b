//! FLOPs and the single-tile view of a GEMM's bytes: naive (zero-reuse),
//! tiled and minimal traffic, tensor-core row utilisation for small M, and
//! the attainable rate and time of one tile's reuse (formulas.md, "Matmul
//! traffic", "Tensor-core row utilisation"; 002 §7.7, §7.8, §7.11 and
//! exercise 4).

use super::*;

impl MatmulCost {
    /// FLOPs through minimal traffic, in the report's order.
    pub(super) fn report_tiling(&self, r: &mut Report) {
        let (m, n, k) = (self.m, self.n, self.k);
        let t = &self.tile;
        let (bm, bn) = (t.tile_m, t.tile_n);
        let roof = &self.roof;
        let (peak, bw) = (roof.peak, roof.bandwidth);
        let b = self.bytes_per_element;
        let f = self.flops;
        let int_ops = roof.integer;
        let (op_u, rate_u) = op_units(int_ops);
        let dims = || format!("{m}*{n}*{k}");
        let bs = || number(b);
        // Step 1: FLOPs, fixed by the mathematics.
        r.result("flops", f, || {
            Quantity::new(
                if int_ops { "OPs" } else { "FLOPs" },
                Unit::Flop.ops_if(int_ops),
            )
            .formula("2*M*N*K")
            .derive(format!("2*{m}*{n}*{k}"))
        });
        let compute_time = self.compute_time_s;
        r.result("compute_time_s", compute_time, || {
            Quantity::new("compute floor", Unit::Seconds)
                .formula("FLOPs / peak")
                .derive(format!("{} / {}", si(f, op_u), si(peak, rate_u)))
        });
        let ridge = roof::ridge(r, roof);

        // Naive: zero reuse.
        let nb = self.naive_bytes;
        let ni = self.naive_intensity;
        let nt = self.naive_time.time_s;
        r.result("naive_bytes", nb, || {
            Quantity::new("naive HBM bytes (zero reuse)", Unit::Bytes)
                .formula("2*b*M*N*K")
                .derive(format!("2*{}*{}", bs(), dims()))
        });
        r.result("naive_intensity", ni, || {
            Quantity::new("naive intensity", Unit::FlopPerByte.ops_if(int_ops))
                .formula("2*M*N*K / (2*b*M*N*K) = 1/b")
                .derive(format!("1/{}", bs()))
        });
        roof::attainable(
            r,
            &roof::AttainableKeys {
                attainable: "naive_attainable_flops_per_s",
                attainable_label: "naive attainable",
                fraction: "naive_fraction_of_peak",
                fraction_label: "naive fraction of peak",
            },
            roof,
            ni,
        );
        r.result("naive_time_s", nt, || {
            Quantity::new("naive time", Unit::Seconds)
                .formula("max(FLOPs / peak, bytes / bandwidth)")
                .derive(format!(
                    "max({}, {} / {})",
                    seconds(compute_time),
                    si(nb, "B"),
                    si(bw, "B/s")
                ))
        });
        r.result("naive_vs_floor", nt / compute_time, || {
            Quantity::new("naive time / compute floor", Unit::Ratio)
                .formula("naive time / compute floor")
                .derive(format!("{} / {}", seconds(nt), seconds(compute_time)))
        });

        // Tiled: each operand element reused BLOCK times on chip.
        let tb = t.tiled_bytes;
        let ti = t.intensity;
        r.result("tiled_bytes", tb, || {
            Quantity::new("tiled HBM bytes (operand reads)", Unit::Bytes)
                .formula("b*M*N*K*(1/min(BM,M) + 1/min(BN,N))")
                .derive(format!("{}*{}*(1/{bm} + 1/{bn})", bs(), dims()))
        });
        r.result("output_bytes", self.output_bytes, || {
            Quantity::new("output write", Unit::Bytes)
                .formula("b*M*N")
                .derive(format!("{}*{m}*{n}", bs()))
        });
        r.result("tiled_vs_naive", t.tiled_vs_naive, || {
            Quantity::new("traffic cut vs naive", Unit::Ratio)
                .formula("naive bytes / tiled bytes")
                .derive(format!("{} / {}", si(nb, "B"), si(tb, "B")))
        });
        r.result("intensity", ti, || {
            Quantity::new("intensity", Unit::FlopPerByte.ops_if(int_ops))
                .formula("FLOPs / tiled bytes")
                .derive(format!("{} / {}", si(f, op_u), si(tb, "B")))
        });

        // Tensor-core row utilisation caps the compute roof for small M.
        let eff = self.effective_roof.peak;
        let roof_text = || match &self.mma {
            Some(c) => format!(
                "{} * {}",
                units::sig(c.row_utilisation, 4),
                si(peak, rate_u)
            ),
            None => si(peak, rate_u),
        };
        if let Some(c) = &self.mma {
            let s = c.shape;
            r.result("mma_shape", s.name(), || {
                Quantity::new("tensor-core instruction", Unit::None)
            });
            if let (Some(sn), Some(outputs)) = (s.n, c.outputs) {
                r.result("mma_outputs", outputs, || {
                    Quantity::new("outputs per instruction", Unit::Count)
                        .formula("MMA_M * MMA_N")
                        .derive(format!("{} * {sn}", s.m))
                });
            }
            r.result("mma_padded_rows", int(c.padded_rows), || {
                Quantity::new("padded rows", Unit::Count)
                    .formula("ceil(M / MMA_M)*MMA_M - M")
                    .derive(format!("ceil({m} / {})*{} - {m}", s.m, s.m))
            });
            r.result("mma_row_utilisation", c.row_utilisation, || {
                Quantity::new("tensor-core row utilisation", Unit::Fraction)
                    .formula("M / (ceil(M / MMA_M)*MMA_M)")
                    .derive(format!("{m} / (ceil({m} / {})*{})", s.m, s.m))
            });
            r.result("mma_effective_flops_per_s", c.effective_peak, || {
                Quantity::new(
                    "effective tensor-core peak",
                    Unit::FlopPerSec.ops_if(int_ops),
                )
                .formula("row utilisation * peak")
                .derive(roof_text())
            });
            r.result("mma_accumulator_registers", c.accumulator_registers, || {
                Quantity::new("fp32 accumulator registers per instruction", Unit::Count)
                    .formula("MMA_M * MMA_N")
                    .derive(format!("{} * {}", s.m, c.accumulator_n))
            });
            if self.has_threads {
                r.result(
                    "mma_accumulator_registers_per_thread",
                    c.accumulator_registers_per_thread,
                    || {
                        Quantity::new("accumulator registers per thread", Unit::Count)
                            .formula(
                                "MMA_M * MMA_N / threads (128 for a warp group, 32 for a warp)",
                            )
                            .derive(format!("{} / {}", c.accumulator_registers, c.threads))
                    },
                );
            }
            if let Some(list) = &c.unlisted_among {
                r.note_with(|| {
                    format!(
                        "{} does not list {} among its matrix-unit shapes ({})",
                        self.hardware,
                        s.name(),
                        list.join(", ")
                    )
                });
            }
            if c.padded_rows > 0 {
                r.note_with(|| {
                    format!(
                        "{} of every {} MMA rows are padding at M = {}: the tensor cores offer {} of {}",
                        units::whole(c.padded_rows),
                        units::whole(u128::from(m) + c.padded_rows),
                        units::whole(m),
                        si(eff, rate_u),
                        si(peak, rate_u)
                    )
                });
            }
        }
        let ta = t.attainable;
        r.result("attainable_flops_per_s", ta, || {
            Quantity::new("attainable", Unit::FlopPerSec.ops_if(int_ops))
                .formula("min(peak, intensity * bandwidth)")
                .derive(format!(
                    "min({}, {} * {})",
                    roof_text(),
                    units::sig(ti, 4),
                    si(bw, "B/s")
                ))
        });
        r.result("attainable_fraction_of_peak", ta / peak, || {
            Quantity::new("fraction of peak", Unit::Fraction)
                .formula("attainable / peak")
                .derive(format!("{} / {}", si(ta, rate_u), si(peak, rate_u)))
        });
        let time = t.time;
        r.result("memory_time_s", time.memory_s, || {
            Quantity::new("memory time", Unit::Seconds)
                .formula("tiled bytes / bandwidth")
                .derive(format!("{} / {}", si(tb, "B"), si(bw, "B/s")))
        });
        r.result("tile_time_s", time.time_s, || {
            Quantity::new("single-tile time (reuse in one tile only)", Unit::Seconds)
                .formula("max(FLOPs / peak, tiled bytes / bandwidth)")
                .derive(format!(
                    "max({}, {})",
                    seconds(time.compute_s),
                    seconds(time.memory_s)
                ))
        });
        r.result("tile_bound", time.bound.as_str(), || {
            Quantity::new("single-tile bound", Unit::None)
        });
        r.note_with(|| match time.bound {
            Bound::Memory => format!(
                "one tile's reuse alone: memory-bound, intensity {} is {}x below the ridge ({})",
                units::sig_grouped(ti, 4),
                units::sig_grouped(ridge / ti, 3),
                units::sig_grouped(ridge, 4)
            ),
            Bound::Compute => format!(
                "one tile's reuse alone: compute-bound, intensity {} is above the ridge ({})",
                units::sig_grouped(ti, 4),
                units::sig_grouped(ridge, 4)
            ),
        });

        // Minimal traffic: each operand once (002 §7.7's n/3; §7.11's cap at M).
        let mb = self.minimal_bytes;
        r.result("minimal_bytes", mb, || {
            Quantity::new("minimal bytes (each operand once)", Unit::Bytes)
                .formula("b*(M*K + K*N + M*N)")
                .derive(format!("{}*({m}*{k} + {k}*{n} + {m}*{n})", bs()))
        });
        r.result("minimal_intensity", self.minimal_intensity, || {
            Quantity::new(
                "minimal-traffic intensity",
                Unit::FlopPerByte.ops_if(int_ops),
            )
            .formula("2*M*N*K / (b*(M*K + K*N + M*N))")
            .derive(format!("{} / {}", si(f, op_u), si(mb, "B")))
        });
    }
}

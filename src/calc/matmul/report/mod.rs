//! `matmul`'s report: every figure of a [`MatmulCost`] with its formula
//! and derivation, the notes, the tile table.

use super::*;

/// A count as a JSON integer where it fits, else a float.
fn int(v: u128) -> serde_json::Value {
    u64::try_from(v).map_or_else(|_| (v as f64).into(), Into::into)
}

/// `Some(true)`/`Some(false)` as JSON booleans, `None` as null.
fn opt_bool(v: Option<bool>) -> serde_json::Value {
    v.map_or(serde_json::Value::Null, Into::into)
}

impl MatmulCost {
    /// The most programs of this tile an SM holds at once and the limit
    /// that sets it (shared memory with its per-block reserve, the fp32
    /// accumulators against the register file, block slots, threads);
    /// `None` where the file records none of them.
    pub fn resident_limit(&self) -> Option<(u64, String)> {
        let t = &self.tile;
        let lim = &self.limits;
        let mut best: Option<(u64, String)> = None;
        let mut consider = |n: u64, why: String| {
            if best.as_ref().is_none_or(|(b, _)| n < *b) {
                best = Some((n, why));
            }
        };
        let per_block = t.smem_bytes + lim.reserved_smem;
        if let Some(s) = lim.smem_per_sm
            && per_block > 0.0
        {
            consider(
                (s / per_block).floor() as u64,
                format!(
                    "shared memory ({} a program of {} per SM)",
                    iec_bytes(per_block),
                    iec_bytes(s)
                ),
            );
        }
        if let Some(rf) = lim.register_file
            && t.accumulator_bytes > 0.0
        {
            // Strictly less than the file, as `registers_fit` asks: some
            // registers hold addresses and operands.
            consider(
                ((rf / t.accumulator_bytes).ceil() - 1.0).max(0.0) as u64,
                format!(
                    "registers ({} of fp32 accumulators a program of {} per SM)",
                    iec_bytes(t.accumulator_bytes),
                    iec_bytes(rf)
                ),
            );
        }
        if let Some(b) = self.max_blocks_per_sm {
            consider(b, "block slots".into());
        }
        if let (Some(ts), true) = (self.max_threads_per_sm, self.has_threads) {
            consider(
                ts / self.threads.max(1),
                format!(
                    "threads ({} a program of {} per SM)",
                    number(self.threads as f64),
                    number(ts as f64)
                ),
            );
        }
        best
    }

    /// The L2 level, the headline time and what bounds it
    /// (formulas.md, "Matmul through the L2").
    /// The per-shape figures and the headline time they give.
    fn report_shaped(&self, r: &mut Report, sh: &Shaped) {
        let e = sh.gemm.efficiency;
        let peak = self.roof.peak_text();
        r.input("launch", sh.launch);
        r.result("gemm_efficiency", e.efficiency, || {
            Quantity::new("share of the rate this shape reaches", Unit::Fraction)
                .formula("padding x waves, for the library's best tile and K split")
                .derive(format!(
                    "{} x {} (tile {}x{}, split K {})",
                    units::sig(e.padding, 4),
                    units::sig(e.waves, 4),
                    e.tile.0,
                    e.tile.1,
                    e.split_k
                ))
        });
        r.result("gemm_tile", format!("{}x{}", e.tile.0, e.tile.1), || {
            Quantity::new("library tile (rows x columns)", Unit::None)
        });
        r.result("split_k", e.split_k as f64, || {
            Quantity::new("K splits", Unit::Count)
                .formula("split only when the tiles leave SMs idle")
        });
        r.result("shaped_compute_time_s", sh.gemm.compute_s, || {
            Quantity::new("compute at the shape's efficiency", Unit::Seconds)
                .formula("FLOPs / (rate x efficiency)")
                .derive(format!(
                    "{} / ({} x {})",
                    self.roof.unit(Unit::Flop).format(self.flops),
                    peak,
                    units::sig(e.efficiency, 4)
                ))
        });
        r.result("launch_time_s", sh.overhead_s, || {
            Quantity::new(
                format!("kernel overhead and launch ({})", sh.launch),
                Unit::Seconds,
            )
            .source(Some(sh.overhead_source.as_str()))
            .formula(if sh.launch == "eager" {
                "the longer of the GPU's time and the host's path per call, less the GEMM's time"
            } else {
                "kernels x (kernel overhead + launch)"
            })
        });
        r.result("time_s", self.time_s, || {
            Quantity::new("time (achievable: by shape)", Unit::Seconds)
                .formula("max(compute, reads / bandwidth) + output / bandwidth + per-kernel costs")
                .derive(format!(
                    "max({}, {}) + {} + {}",
                    seconds(sh.gemm.compute_s),
                    seconds(sh.gemm.read_s),
                    seconds(sh.gemm.write_s),
                    seconds(sh.overhead_s)
                ))
        });
    }

    fn report_l2(&self, r: &mut Report) {
        let (m, n, k) = (self.m, self.n, self.k);
        let t = &self.tile;
        let (bm, bn, bk, stages) = (t.tile_m, t.tile_n, self.tile_k, self.stages);
        let b = self.bytes_per_element;
        let bs = || number(b);
        let bw = self.roof.bandwidth;
        let f = self.flops;
        let ops = |u: Unit| self.roof.unit(u);
        let tr = &self.traffic;
        let fp = |v: f64| units::sig(v, 4);
        if let Some(l2) = tr.l2_bytes {
            r.result("l2_capacity_bytes", l2, || {
                Quantity::new("L2 capacity", Unit::BytesIec).formula("the hardware file's l2 level")
            });
        }
        if let Some(p) = tr.resident_programs {
            r.result("resident_programs", int(p), || {
                Quantity::new("programs resident at once", Unit::Count)
                    .formula("SMs * programs per SM")
                    .derive(format!(
                        "{} * {}",
                        self.waves.as_ref().map_or(0, |w| w.sms),
                        self.programs_per_sm
                    ))
            });
        }
        if let (Some(w), Some(p)) = (tr.wave_footprint, tr.resident_programs) {
            let area = || format!("{p}*{bm}*{bn}");
            r.result("wave_footprint_m", w.0, || {
                Quantity::new("wave footprint rows", Unit::None)
                    .formula("sqrt(resident*BM*BN), at most M (all of M when M is the short side)")
                    .derive(format!("sqrt({}) against M = {m}", area()))
            });
            r.result("wave_footprint_n", w.1, || {
                Quantity::new("wave footprint columns", Unit::None)
                    .formula("resident*BM*BN / rows, at most N")
                    .derive(format!("{} / {} against N = {n}", area(), fp(w.0)))
            });
        }
        if let (Some(slab), Some(fits), Some(w), Some(l2)) = (
            tr.wave_slab_bytes,
            tr.wave_slab_fits,
            tr.wave_footprint,
            tr.l2_bytes,
        ) {
            r.result("wave_slab_bytes", slab, || {
                Quantity::new("L2 a wave holds in flight", Unit::BytesIec)
                    .formula("b*(wave rows + wave columns)*BK*stages")
                    .derive(format!(
                        "{}*({} + {})*{bk}*{stages}",
                        bs(),
                        fp(w.0),
                        fp(w.1)
                    ))
            });
            r.result("wave_slab_fits", fits, || {
                Quantity::new("the wave's slab fits in L2", Unit::None)
                    .formula("wave slab <= L2")
                    .derive(format!("{} <= {}", iec_bytes(slab), iec_bytes(l2)))
            });
            if !fits {
                r.note_with(|| {
                    format!(
                        "a wave's slab ({}) overflows the {} L2: the footprint shrinks to what it holds",
                        iec_bytes(slab),
                        iec_bytes(l2)
                    )
                });
            }
        }
        if let (Some(g), Some(l2)) = (tr.group_footprint, tr.l2_bytes) {
            let sum = || format!("{} / ({}*{k})", iec_bytes(l2), bs());
            r.result("group_footprint_m", g.0, || {
                Quantity::new("L2 group footprint rows", Unit::None)
                    .formula("rows + columns = L2 / (b*K): half each, all of a short side")
                    .derive(format!("{} against M = {m}", sum()))
            });
            r.result("group_footprint_n", g.1, || {
                Quantity::new("L2 group footprint columns", Unit::None)
                    .formula("L2 / (b*K) - rows, at most N")
                    .derive(format!("{} - {} against N = {n}", sum(), fp(g.0)))
            });
        }
        let (fm, fnn) = tr.footprint;
        let source = match tr.source {
            FootprintSource::Wave => "the wave's",
            FootprintSource::Group => "the L2 group's",
            FootprintSource::Tile => "one tile's",
        };
        r.result("reuse_footprint_m", fm, || {
            Quantity::new("reuse footprint rows", Unit::None)
                .formula("the wave's or the L2 group's, whichever reads less; at least one tile")
                .derive(format!("{source}: {}", fp(fm)))
        });
        r.result("reuse_footprint_n", fnn, || {
            Quantity::new("reuse footprint columns", Unit::None)
                .formula("the wave's or the L2 group's, whichever reads less; at least one tile")
                .derive(format!("{source}: {}", fp(fnn)))
        });
        r.result("l2_operand_bytes", tr.operand_bytes, || {
            Quantity::new("operand reads through L2", Unit::Bytes)
                .formula("b*M*N*K*(1/Fm + 1/Fn), at most tiled bytes, at least b*(M*K + K*N)")
                .derive(format!(
                    "{}*{m}*{n}*{k}*(1/{} + 1/{})",
                    bs(),
                    fp(fm),
                    fp(fnn)
                ))
        });
        r.result("traffic_bytes", tr.bytes, || {
            Quantity::new("HBM traffic (operands + output)", Unit::Bytes)
                .formula("operand reads through L2 + b*M*N")
                .derive(format!(
                    "{} + {}",
                    si(tr.operand_bytes, "B"),
                    si(self.output_bytes, "B")
                ))
        });
        r.result("traffic_level", tr.level.as_str(), || {
            Quantity::new("reuse level that sets the traffic", Unit::None)
                .formula("compulsory (each operand once), l2 (a footprint of resident programs) or smem-tile (one tile)")
        });
        let ti = self.traffic_intensity;
        r.result("traffic_intensity", ti, || {
            Quantity::new("intensity at that traffic", ops(Unit::FlopPerByte))
                .formula("FLOPs / traffic bytes")
                .derive(format!(
                    "{} / {}",
                    ops(Unit::Flop).format(f),
                    si(tr.bytes, "B")
                ))
        });
        let time = self.time;
        r.result("traffic_memory_time_s", time.memory_s, || {
            Quantity::new("memory time at that traffic", Unit::Seconds)
                .formula("traffic bytes / bandwidth")
                .derive(format!("{} / {}", si(tr.bytes, "B"), si(bw, "B/s")))
        });
        let peak_text = || self.effective_roof.peak_text();
        if let Some(e) = self.epilogue_time_s {
            r.result("epilogue_time_s", e, || {
                Quantity::new("output write not overlapped (epilogue)", Unit::Seconds)
                    .formula("b*M*N / bandwidth")
                    .derive(format!(
                        "{} / {}",
                        si(self.output_bytes, "B"),
                        si(bw, "B/s")
                    ))
            });
            match &self.shaped {
                Some(sh) => self.report_shaped(r, sh),
                None => r.result("time_s", self.time_s, || {
                    Quantity::new("time (measured figures)", Unit::Seconds)
                        .formula("max(FLOPs / peak + epilogue, traffic bytes / bandwidth)")
                        .derive(format!(
                            "max({} + {}, {})",
                            seconds(time.compute_s),
                            seconds(e),
                            seconds(time.memory_s)
                        ))
                }),
            }
        } else {
            r.result("time_s", self.time_s, || {
                Quantity::new("time (lower bound)", Unit::Seconds)
                    .formula("max(FLOPs / peak, traffic bytes / bandwidth)")
                    .derive(format!(
                        "max({} / {}, {} / {})",
                        ops(Unit::Flop).format(f),
                        peak_text(),
                        si(tr.bytes, "B"),
                        si(bw, "B/s")
                    ))
            });
        }
        r.result("bound", self.bound.as_str(), || {
            Quantity::new("bound", Unit::None)
        });
        let wb = self.weight_bytes;
        r.result("weight_bytes", wb, || {
            Quantity::new("B (the weights of a linear layer)", Unit::Bytes)
                .formula("b*K*N")
                .derive(format!("{}*{k}*{n}", bs()))
        });
        r.result("weight_fraction_of_traffic", wb / tr.bytes, || {
            Quantity::new("weights / traffic", Unit::Fraction)
                .formula("b*K*N / traffic bytes")
                .derive(format!("{} / {}", si(wb, "B"), si(tr.bytes, "B")))
        });
        r.result("weight_streaming", self.weight_streaming, || {
            Quantity::new("weight-streaming", Unit::None)
                .formula("memory-bound and weights >= half the traffic")
        });
        let ridge = self.effective_roof.ridge();
        r.note_with(|| {
            let level = match tr.level {
                TrafficLevel::Compulsory => format!(
                    "traffic level compulsory: the resident programs cover the whole {}x{} output, so each operand is read once",
                    units::whole(m),
                    units::whole(n)
                ),
                TrafficLevel::L2 => format!(
                    "traffic level l2: {source} {}x{} footprint reads each A row panel and B column panel once through L2, {} against {} for one {}x{} tile",
                    units::sig_grouped(fm, 4),
                    units::sig_grouped(fnn, 4),
                    si(tr.operand_bytes, "B"),
                    si(t.tiled_bytes, "B"),
                    units::whole(bm),
                    units::whole(bn)
                ),
                TrafficLevel::SmemTile if tr.l2_bytes.is_none() || tr.resident_programs.is_none() => format!(
                    "traffic level smem-tile: {} records no L2 capacity or SM count, so only one tile's reuse is counted",
                    self.hardware
                ),
                TrafficLevel::SmemTile => "traffic level smem-tile: no L2 footprint reads less than one tile".to_string(),
            };
            let bound = match self.bound {
                Bound::Compute => format!(
                    "compute-bound: intensity {} at that traffic is above the ridge ({})",
                    units::sig_grouped(ti, 4),
                    units::sig_grouped(ridge, 4)
                ),
                Bound::Memory => format!(
                    "memory-bound: intensity {} at that traffic is {}x below the ridge ({})",
                    units::sig_grouped(ti, 4),
                    units::sig_grouped(ridge / ti, 3),
                    units::sig_grouped(ridge, 4)
                ),
            };
            format!("{level}; {bound}")
        });
        if self.weight_streaming {
            r.note_with(|| {
                format!(
                    "weight-streaming: the {}x{} weights ({}) are {}% of the traffic; the time follows the weight bytes ({} at {})",
                    units::whole(k),
                    units::whole(n),
                    si(wb, "B"),
                    units::sig_grouped(100.0 * wb / tr.bytes, 3),
                    seconds(wb / bw),
                    si(bw, "B/s")
                )
            });
        }
        if self.epilogue_time_s.is_some() {
            r.note("measured figures: the time adds the output write, which a cooperative kernel's epilogue does not overlap with its MMAs; datasheet figures give the lower bound");
        }
    }

    /// The report of this cost; a lean one records values only (and no
    /// tile table).
    pub fn report(&self, lean: bool) -> Report {
        let (m, n, k) = (self.m, self.n, self.k);
        let t = &self.tile;
        let (bm, bn, bk) = (t.tile_m, t.tile_n, self.tile_k);
        let roof = &self.roof;
        let (peak, bw) = (roof.peak, roof.bandwidth);
        let stages = self.stages;
        let b = self.bytes_per_element;
        let f = self.flops;

        let mut r = Report::new_lean("matmul", lean);
        // int8 arithmetic is counted in operations, not FLOPs.
        let int_ops = roof.integer;
        let (op_u, rate_u) = if int_ops {
            ("OP", "OP/s")
        } else {
            ("FLOP", "FLOP/s")
        };
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
        let ridge = roof::ridge(&mut r, roof);

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
            &mut r,
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

        self.report_l2(&mut r);

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

        // Register micro-tile: the tiling formula one level down.
        let mt = &self.micro_tile;
        let threads = self.threads;
        if self.has_threads {
            r.input("threads", threads);
        }
        if !self.has_threads {
            // A TPU or Trainium: no threads to share the accumulators.
        } else if mt.accumulators_per_thread < 1.0 {
            r.note_with(|| {
                format!(
                    "no register micro-tile: {}x{} accumulators are fewer than {} threads",
                    units::whole(bm),
                    units::whole(bn),
                    units::whole(threads)
                )
            });
        } else {
            r.result(
                "accumulators_per_thread",
                mt.accumulators_per_thread,
                || {
                    Quantity::new("accumulators per thread", Unit::Count)
                        .formula("BM*BN / threads")
                        .derive(format!("{bm}*{bn} / {threads}"))
                },
            );
            r.result("microtile_edge", mt.edge, || {
                Quantity::new("micro-tile edge TM = TN", Unit::Count)
                    .formula("sqrt(accumulators per thread)")
                    .derive(format!("sqrt({})", number(mt.accumulators_per_thread)))
            });
            r.result(
                "microtile_flops_per_smem_element",
                mt.flops_per_smem_element,
                || {
                    Quantity::new("FLOPs per shared-memory element", Unit::None)
                        .formula("2*TM*TN / (TM + TN)")
                        .derive(format!("{} / {}", number(mt.flops), number(mt.smem_reads)))
                },
            );
        }

        // Waves over the SMs.
        if let Some(wc) = &self.waves {
            let w = &wc.waves;
            let sms = wc.sms;
            let pps = self.programs_per_sm;
            r.input("programs_per_sm", pps);
            let slots = || {
                if pps == 1 {
                    format!("{sms}")
                } else {
                    format!("({sms}*{pps})")
                }
            };
            r.result("programs", int(w.programs), || {
                Quantity::new("programs (output tiles)", Unit::Count)
                    .formula("ceil(M/BM)*ceil(N/BN)")
                    .derive(format!("ceil({m}/{bm})*ceil({n}/{bn})"))
            });
            r.result("waves", w.waves, || {
                Quantity::new("waves", Unit::None)
                    .formula("programs / (SMs * programs per SM)")
                    .derive(format!("{} / {}", w.programs, slots()))
            });
            r.result("full_waves", int(w.full_waves), || {
                Quantity::new("full waves", Unit::Count)
                    .formula("floor(waves)")
                    .derive(format!("floor({} / {})", w.programs, slots()))
            });
            r.result("tail_programs", int(w.tail_programs), || {
                Quantity::new("programs in the tail wave", Unit::Count)
                    .formula("programs mod slots")
                    .derive(format!("{} mod {}", w.programs, slots()))
            });
            r.result("idle_slots_in_tail", int(w.idle_slots), || {
                Quantity::new("idle slots in the tail wave", Unit::Count)
                    .formula("slots - tail (0 when the tail is empty)")
                    .derive(format!("{} - {}", slots(), w.tail_programs))
            });
            r.result("wave_efficiency", w.efficiency, || {
                Quantity::new("wave efficiency", Unit::Fraction)
                    .formula("programs / (ceil(waves) * slots)")
                    .derive(format!(
                        "{} / (ceil({}) * {})",
                        w.programs,
                        units::sig(w.waves, 4),
                        slots()
                    ))
            });
            r.result("peak_per_sm_flops_per_s", wc.peak_per_sm, || {
                Quantity::new("peak per SM", Unit::FlopPerSec.ops_if(int_ops))
                    .formula("peak / SMs")
                    .derive(format!("{} / {sms}", si(peak, rate_u)))
            });
            r.note_with(|| {
                format!(
                    "waves assume {} resident program{} per SM (--programs-per-sm)",
                    units::whole(pps),
                    if pps == 1 { "" } else { "s" }
                )
            });
            // None fitting at all is the tile's or the threads' own
            // verdict (`fits`), noted above.
            if let Some((most, why)) = self.resident_limit()
                && pps > most
                && most > 0
            {
                r.note_with(|| {
                    format!(
                        "warning: {} programs per SM is more than an SM of {} holds: at most {} by {why}; the waves and the L2 reuse assume they were resident",
                        units::whole(pps),
                        self.hardware,
                        units::whole(most)
                    )
                });
            }
        }
        if let Some(v) = self.fp32_peak {
            r.result("tensor_vs_vector", peak / v, || {
                Quantity::new("tensor vs fp32 vector peak", Unit::Ratio)
                    .formula("peak / fp32 peak")
                    .derive(format!("{} / {}", si(peak, rate_u), si(v, "FLOP/s")))
            });
        }

        self.energy.record(&mut r);
        // The lecture's table: square tiles 32..256 at this shape. A lean
        // report (an inner sweep point) keeps values only, and no table.
        if self.table.is_empty() || lean {
            return r;
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
        self.energy.trim_headline(&mut r);
        // The lecture's tile table is shown when asked for with --tiles;
        // otherwise it is an intermediate for --all.
        r.rows_beyond_headline = !self.tiles_given;
        r
    }
}

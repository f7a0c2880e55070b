//! The L2 level of a GEMM's report and the headline time it gives: the
//! wave's and the L2 group's footprints, the traffic through L2, the bound,
//! weight streaming, and under `--achievable` the per-shape figures
//! (formulas.md, "Matmul through the L2").

use super::*;

impl MatmulCost {
    /// The per-shape figures and the headline time they give.
    pub(super) fn report_shaped(&self, r: &mut Report, sh: &Shaped) {
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

    /// The L2 level, the headline time and what bounds it
    /// (formulas.md, "Matmul through the L2").
    pub(super) fn report_l2(&self, r: &mut Report) {
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
        match (&self.warm, self.mode) {
            (Some(w), _) => crate::calc::warm::record(
                r,
                &self.effective_roof,
                w,
                "time",
                self.minimal_bytes,
                self.minimal_bytes,
            ),
            (None, Mode::SpeedOfLight) => crate::calc::warm::note_cold(r),
            (None, Mode::Achievable) => {}
        }
    }
}

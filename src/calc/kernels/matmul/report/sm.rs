//! How a GEMM's programs sit on the SMs: the register micro-tile each
//! thread holds, the waves of programs over the SMs and the tail, and the
//! tensor cores against the fp32 vector peak (formulas.md, "Waves"; 002
//! §7.8, §7.11).

use super::*;

impl MatmulCost {
    /// The micro-tile, the waves and the tensor-vs-vector ratio, in the
    /// report's order.
    pub(super) fn report_sm(&self, r: &mut Report) {
        let (m, n) = (self.m, self.n);
        let t = &self.tile;
        let (bm, bn) = (t.tile_m, t.tile_n);
        let peak = self.roof.peak;
        let int_ops = self.roof.integer;
        let (_, rate_u) = op_units(int_ops);

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
            if let Some((most, which)) = self.resident_most()
                && pps > most
                && most > 0
            {
                r.note_with(|| {
                    let why = self.resident_why(which);
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
    }
}

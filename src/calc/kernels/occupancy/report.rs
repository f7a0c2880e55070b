//! Occupancy's report: every budget's blocks and threads, the binding
//! limit, the grid, and the notes, in AMD's words on AMD parts.

use super::budget::SgprBudget;
use super::cost::{GridCost, OccupancyCost, is_amd};
use super::{Failure, Limiter};
use crate::report::{Quantity, Report, Unit};
use crate::units::{self, number};
use serde_json::Value;

/// NVIDIA's words in a label or formula put in AMD's.
fn amd_words(s: &str) -> String {
    s.replace("registers per SM", "VGPRs per CU")
        .replace("regs per SM", "VGPRs per CU")
        .replace("shared memory", "LDS")
        .replace("shared-memory carveout", "LDS per CU")
        .replace("SMs", "CUs")
        .replace("SM", "CU")
        .replace("warps", "waves")
        .replace("warp", "wave")
        .replace("blocks", "workgroups")
        .replace("block", "workgroup")
        .replace("partitions", "SIMDs")
        .replace("carveout", "LDS per CU")
}

fn count_or_null(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::from)
}

impl OccupancyCost<'_> {
    /// The report of this cost; a lean one records values only.
    pub fn report(&self, lean: bool) -> Report {
        let hw = self.hw;
        let b = &self.budget;
        let mut r = Report::new_lean("occupancy", lean);
        // Sized once: a sweep builds one of these per point.
        r.inputs.reserve(8);
        r.results.reserve(24);
        r.hardware = Some(hw.id.clone());
        r.input("threads", self.threads);
        r.input("regs", self.regs);
        if let Some(n) = self.sgprs {
            r.input("sgprs", n);
            r.describe("sgprs", || Quantity::new("SGPRs per wave", Unit::Count));
        }
        r.input("smem", self.smem);
        r.describe("smem", || {
            Quantity::new("dynamic shared memory per block", Unit::BytesIec)
        });
        if self.static_smem > 0 {
            r.input("static_smem", self.static_smem);
            r.describe("static_smem", || {
                Quantity::new("static shared memory per block", Unit::BytesIec)
            });
        }
        if let Some(c) = self.carveout {
            r.input("carveout", c);
            r.describe("carveout", || {
                Quantity::new("carveout asked for", Unit::BytesIec)
            });
        }
        if self.textbook {
            r.input("textbook", true);
        }
        if let Some(g) = &self.grid {
            r.input("grid", g.grid);
        }
        let src = |f: &str| hw.source(f);

        r.result("warps_per_block", self.warps_per_block, || {
            Quantity::new("warps per block", Unit::Count)
                .formula("ceil(threads / warp size)")
                .derive(format!("ceil({} / {})", self.threads, b.warp_size))
        });
        r.result("blocks_by_registers", self.by_registers, || {
            let q = Quantity::new("blocks by registers", Unit::Count);
            if self.textbook {
                q.formula("floor(registers per SM / (threads x registers per thread))")
                    .derive(format!(
                        "floor({} / ({} x {}))",
                        b.regs_per_sm, self.threads, self.regs
                    ))
            } else if matches!(self.failure, Some(Failure::Registers { .. })) {
                q.formula("0: the block's registers exceed the per-block limit")
            } else {
                q.formula("floor(floor(regs per SM / partitions / regs per warp) x partitions / warps per block), regs per warp = ceil(regs x warp size / unit) x unit")
                    .derive(format!(
                        "regs per warp = ceil({} x {} / {u}) x {u} = {rpw}; floor(floor({} / {p} / {rpw}) x {p} / {})",
                        self.regs,
                        b.warp_size,
                        b.regs_per_sm,
                        self.warps_per_block,
                        u = b.reg_unit,
                        rpw = self.regs_per_warp,
                        p = b.partitions,
                    ))
                    .source(src("execution.register-allocation-unit"))
            }
        });
        let amd = is_amd(hw);
        if amd {
            r.result("blocks_by_sgprs", count_or_null(self.by_sgprs), || {
                let q = Quantity::new("blocks by SGPRs", Unit::Count);
                match (self.sgprs, self.sgpr_budget, self.sgprs_per_wave) {
                    (Some(n), Some(sb), Some(pw)) => q
                        .formula("floor(floor(SGPRs per SIMD / per wave) x SIMDs / waves per workgroup), per wave = ceil(sgprs / unit) x unit + trap handler's")
                        .derive(format!(
                            "per wave = ceil({n} / {u}) x {u} + {t} = {pw}; floor(floor({} / {pw}) x {} / {})",
                            sb.per_simd,
                            b.partitions,
                            self.warps_per_block,
                            u = sb.unit,
                            t = sb.trap,
                        ))
                        .source(src("execution.sgprs-per-simd")),
                    _ => q.formula("`sgprs` not given: SGPRs do not limit"),
                }
            });
        }
        r.result("blocks_by_smem", count_or_null(self.by_smem), || {
            let q = Quantity::new("blocks by shared memory", Unit::Count);
            match (self.textbook, self.by_smem) {
                _ if matches!(self.failure, Some(Failure::SmemPerBlock { .. })) => {
                    q.formula("0: the block's shared memory exceeds the per-block opt-in limit")
                }
                (_, None) => q.formula("no limit: the block allocates no shared memory"),
                (true, Some(_)) => q
                    .formula("floor(shared memory per SM / shared memory per block)")
                    .derive(format!(
                        "floor({} / {})",
                        units::iec_bytes(self.smem_per_sm as f64),
                        units::iec_bytes(self.smem_per_block as f64)
                    )),
                (false, Some(_)) => q
                    .formula("floor(carveout / ceil((static + dynamic + reserved) / unit) x unit)")
                    .derive(format!(
                        "floor({} / ceil(({} + {} + {}) / {u}) x {u}) = floor({} / {})",
                        number(self.smem_per_sm as f64),
                        number(self.static_smem as f64),
                        number(self.smem as f64),
                        number(b.reserved as f64),
                        number(self.smem_per_sm as f64),
                        number(self.smem_per_block as f64),
                        u = b.smem_unit,
                    ))
                    .source(src("execution.reserved-smem-per-block")),
            }
        });
        r.result("blocks_by_threads", self.by_threads, || {
            Quantity::new("blocks by threads (warps)", Unit::Count)
                .formula("floor(max warps per SM / warps per block)")
                .derive(format!("floor({} / {})", b.max_warps, self.warps_per_block))
                .source(src("execution.max-warps-per-sm"))
        });
        r.result("blocks_by_blocks", self.by_blocks, || {
            Quantity::new("blocks by block slots", Unit::Count)
                .formula("max blocks per SM")
                .source(src("execution.max-blocks-per-sm"))
        });
        r.result(
            "threads_by_registers",
            count_or_null(self.threads_by(Limiter::Registers)),
            || {
                Quantity::new("threads the registers hold", Unit::Count)
                    .formula("blocks by registers x threads per block")
                    .derive(format!("{} x {}", self.by_registers, self.threads))
            },
        );
        if amd {
            r.result(
                "threads_by_sgprs",
                count_or_null(self.threads_by(Limiter::Sgprs)),
                || {
                    let q = Quantity::new("threads the SGPRs hold", Unit::Count);
                    match self.by_sgprs {
                        None => q.formula("`sgprs` not given: SGPRs do not limit"),
                        Some(s) => q
                            .formula("blocks by SGPRs x threads per block")
                            .derive(format!("{s} x {}", self.threads)),
                    }
                },
            );
        }
        r.result(
            "threads_by_smem",
            count_or_null(self.threads_by(Limiter::Smem)),
            || {
                let q = Quantity::new("threads shared memory holds", Unit::Count);
                match self.by_smem {
                    None => q.formula("no limit: the block allocates no shared memory"),
                    Some(s) => q
                        .formula("blocks by shared memory x threads per block")
                        .derive(format!("{s} x {}", self.threads)),
                }
            },
        );
        let blocks = self.blocks_per_sm;
        r.result("blocks_per_sm", blocks, || {
            let dash = |v: Option<u64>| v.map_or("-".into(), |v| v.to_string());
            let q = Quantity::new("resident blocks per SM", Unit::Count);
            if amd {
                q.formula("min(by registers, by SGPRs, by shared memory, by threads, by blocks)")
                    .derive(format!(
                        "min({}, {}, {}, {}, {})",
                        self.by_registers,
                        dash(self.by_sgprs),
                        dash(self.by_smem),
                        self.by_threads,
                        self.by_blocks
                    ))
            } else {
                q.formula("min(by registers, by shared memory, by threads, by blocks)")
                    .derive(format!(
                        "min({}, {}, {}, {})",
                        self.by_registers,
                        dash(self.by_smem),
                        self.by_threads,
                        self.by_blocks
                    ))
            }
        });
        let warps = self.warps_per_sm;
        r.result("warps_per_sm", warps, || {
            Quantity::new("resident warps per SM", Unit::Count)
                .formula("blocks per SM x warps per block")
                .derive(format!("{blocks} x {}", self.warps_per_block))
        });
        r.result("threads_per_sm", self.threads_per_sm, || {
            Quantity::new("resident threads per SM", Unit::Count)
                .formula("blocks per SM x threads per block")
                .derive(format!("{blocks} x {}", self.threads))
        });
        r.result("threads_per_gpu", self.threads_per_gpu(), || {
            Quantity::new("resident threads on the GPU", Unit::Count)
                .formula("threads per SM x SMs")
                .derive(format!("{} x {}", self.threads_per_sm, b.sms))
                .source(src("execution.sms"))
        });
        r.result("occupancy", self.occupancy, || {
            Quantity::new("occupancy", Unit::Fraction)
                .formula("warps per SM / max warps per SM")
                .derive(format!("{warps} / {}", b.max_warps))
        });
        r.result(
            "limiter",
            self.limiters.first().map_or("none", Limiter::as_str),
            || Quantity::new("limiter", Unit::None).formula("the smallest limit"),
        );
        if !self.textbook {
            r.result("smem_per_block_bytes", self.smem_per_block, || {
                Quantity::new("shared memory allocated per block", Unit::BytesIec)
                    .formula("ceil((static + dynamic + reserved) / unit) x unit")
            });
            r.result("smem_carveout_bytes", self.smem_per_sm, || {
                Quantity::new("shared-memory carveout", Unit::BytesIec).formula(
                    "the requested carveout rounded up to one the SM supports (default: the largest), or the smallest that holds one block",
                )
            });
        }
        if let Some(g) = &self.grid {
            self.grid_report(&mut r, g);
        }
        if !lean {
            self.notes(&mut r);
            if is_amd(hw) {
                for q in r.quantities.values_mut() {
                    q.label = amd_words(&q.label);
                    q.formula = amd_words(&q.formula);
                }
                for n in r.notes.iter_mut().filter(|n| !n.starts_with("AMD CDNA")) {
                    *n = amd_words(n);
                }
            }
        }
        r
    }

    fn grid_report(&self, r: &mut Report, g: &GridCost) {
        let b = &self.budget;
        let (grid, sms) = (g.grid, b.sms);
        r.result("sms_busy", g.sms_busy, || {
            Quantity::new("SMs with work", Unit::Count)
                .formula("min(grid, SMs)")
                .derive(format!("min({grid}, {sms})"))
                .source(self.hw.source("execution.sms"))
        });
        r.result("sm_fraction", g.sm_fraction, || {
            Quantity::new("fraction of SMs busy", Unit::Fraction)
                .formula("SMs with work / SMs")
                .derive(format!("{} / {sms}", g.sms_busy))
        });
        r.result("busy_sm_occupancy", g.busy_sm_occupancy, || {
            Quantity::new("occupancy of a busy SM (first wave)", Unit::Fraction)
                .formula("min(blocks per SM, ceil(grid / SMs)) x warps per block / max warps")
                .derive(format!(
                    "min({}, ceil({grid} / {sms})) x {} / {}",
                    self.blocks_per_sm, self.warps_per_block, b.max_warps
                ))
        });
        if let Some(w) = g.waves {
            r.result("waves", w, || {
                Quantity::new("waves", Unit::Count)
                    .formula("grid / (blocks per SM x SMs)")
                    .derive(format!("{grid} / ({} x {sms})", self.blocks_per_sm))
            });
        }
        if grid < sms {
            r.note_with(|| {
                format!(
                    "the grid of {} blocks leaves {} of {} SMs idle",
                    number(grid as f64),
                    number((sms - grid) as f64),
                    number(sms as f64)
                )
            });
        }
    }

    fn notes(&self, r: &mut Report) {
        let b = &self.budget;
        match self.failure {
            Some(Failure::Registers { allocated, limit }) => r.note(format!(
                "cannot launch: {} registers per thread x {} threads allocates {} registers per block; {} allows {}",
                number(self.regs as f64),
                number(self.threads as f64),
                number(allocated as f64),
                self.hw.id,
                number(limit as f64)
            )),
            Some(Failure::Smem { allocated, limit }) => r.note(format!(
                "cannot launch: the block is allocated {} of shared memory (reservation included); {}'s largest carveout is {}",
                units::iec_bytes(allocated as f64),
                self.hw.id,
                units::iec_bytes(limit as f64)
            )),
            Some(Failure::SmemPerBlock { requested, limit }) => r.note(format!(
                "cannot launch: the block asks for {} of shared memory; {} allows a block at most {} (the opt-in limit)",
                units::iec_bytes(requested as f64),
                self.hw.id,
                units::iec_bytes(limit as f64)
            )),
            None => {
                let names: Vec<&str> = self.limiters.iter().map(Limiter::describe).collect();
                // "a and b", "a, b and c".
                let names = match names.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} and {last}", rest.join(", "))
                    }
                    _ => names.join(""),
                };
                r.note(format!(
                    "{names} bound: {} blocks x {} warps = {} of {} warps ({}%)",
                    number(self.blocks_per_sm as f64),
                    number(self.warps_per_block as f64),
                    number(self.warps_per_sm as f64),
                    number(b.max_warps as f64),
                    units::percent(self.occupancy)
                ));
            }
        }
        if self.textbook {
            r.note("textbook arithmetic (the GPU-architecture lecture (002), §7.5, and the inference-engineer chapter (004), 'coalescing'): no allocation granularity, no reserved shared memory; NVIDIA's calculator (the default) can give fewer blocks");
        } else {
            if is_amd(self.hw) {
                let per_simd = b.max_warps / b.partitions.max(1);
                let sgprs = match (self.sgpr_budget, self.sgprs_per_wave) {
                    (Some(sb), Some(pw)) => format!(
                        "SGPRs: {} per SIMD, a wave takes its count rounded up to {} plus {} for the trap handler ({pw} here)",
                        sb.per_simd, sb.unit, sb.trap
                    ),
                    _ => match self
                        .hw
                        .execution()
                        .ok()
                        .and_then(|ex| SgprBudget::of(self.hw, ex).ok())
                    {
                        Some(sb) => format!(
                            "SGPRs not given (`sgprs`), so they do not limit; up to {} per wave keep {per_simd} waves per SIMD",
                            sb.most_for(per_simd)
                        ),
                        None => "SGPRs not given (`sgprs`), so they do not limit".into(),
                    },
                };
                r.note(format!(
                    "AMD CDNA rules: a CU has {} SIMDs of at most {per_simd} waves each; `regs` is the VGPRs a lane uses, arch VGPRs and AGPRs together ({} at most), allocated in granules of {}; LDS holds {} per CU in units of {}; blocks are workgroups, warps are waves; {sgprs}",
                    b.partitions,
                    b.max_regs_per_thread,
                    b.reg_unit / b.warp_size.max(1),
                    units::iec_bytes(b.smem_per_sm as f64),
                    units::iec_bytes(b.smem_unit as f64)
                ));
            } else {
                r.note("NVIDIA occupancy-calculator rules: per-warp register allocation unit, per-partition residency, shared-memory allocation unit and per-block reservation");
            }
            if !is_amd(self.hw) && self.smem + self.static_smem > b.smem_default {
                r.note(format!(
                    "more than {} of shared memory per block needs the opt-in (cudaFuncSetAttribute MaxDynamicSharedMemorySize)",
                    units::iec_bytes(b.smem_default as f64)
                ));
            }
        }
        r.note("occupancy is the supply of warps to hide latency, not utilisation; see littles-law for the demand");
    }
}

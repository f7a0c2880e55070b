//! `matmul`: what a GEMM's design does to its bytes. FLOPs, naive
//! (zero-reuse) and tiled HBM traffic, intensity, attainable throughput and
//! time on the roofline, the tile's feasibility against shared memory and
//! the register file, waves and the tail, register micro-tiles, and
//! tensor-core row utilisation for small M (formulas.md, "Matmul traffic",
//! "Tile feasibility", "Waves", "Tensor-core row utilisation"; 002 §7.7,
//! §7.8, §7.11, exercise 4; 004 "Tensor cores").

use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Row, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units::{self, iec_bytes, number, seconds, si};

/// Bytes of one fp32 accumulator element: bf16 inputs, fp32 accumulation.
pub const ACCUMULATOR_BYTES: f64 = 4.0;

/// The square tiles of the lecture's table (002 §7.8).
pub const TABLE_TILES: [u64; 4] = [32, 64, 128, 256];

/// FLOPs of C = A·B with A M×K and B K×N: 2·M·N·K.
pub fn flops(m: u64, n: u64, k: u64) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64
}

/// Zero-reuse HBM reads: every multiply-add fetches one A and one B
/// element, 2·b·M·N·K bytes.
pub fn naive_bytes(m: u64, n: u64, k: u64, b: f64) -> f64 {
    2.0 * b * m as f64 * n as f64 * k as f64
}

/// Tiled operand reads: A is re-read once per column of tiles, B once per
/// row, b·M·N·K·(1/min(BM,M) + 1/min(BN,N)). A tile that overhangs the
/// matrix is masked, so its reuse is capped at the matrix edge.
pub fn tiled_bytes(m: u64, n: u64, k: u64, bm: u64, bn: u64, b: f64) -> f64 {
    let bm = bm.min(m) as f64;
    let bn = bn.min(n) as f64;
    b * m as f64 * n as f64 * k as f64 * (1.0 / bm + 1.0 / bn)
}

/// Each operand read once and the output written once: b·(MK + KN + MN).
pub fn minimal_bytes(m: u64, n: u64, k: u64, b: f64) -> f64 {
    let (m, n, k) = (m as f64, n as f64, k as f64);
    b * (m * k + k * n + m * n)
}

/// Shared memory per program: one A tile and one B tile per stage,
/// (BM·BK + BK·BN)·b·stages.
pub fn smem_bytes(bm: u64, bn: u64, bk: u64, b: f64, stages: u64) -> f64 {
    (bm as f64 * bk as f64 + bk as f64 * bn as f64) * b * stages as f64
}

/// The fp32 accumulator tile held in registers: BM·BN·4 bytes.
pub fn accumulator_bytes(bm: u64, bn: u64) -> f64 {
    bm as f64 * bn as f64 * ACCUMULATOR_BYTES
}

/// The square tile edge whose intensity (BLOCK/b) reaches the ridge:
/// BLOCK = b·ridge.
pub fn ridge_tile(ridge: f64, b: f64) -> f64 {
    b * ridge
}

/// How a grid of programs falls into waves over the SMs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waves {
    /// Programs in the grid.
    pub programs: u128,
    /// Programs resident at once: SMs × programs per SM.
    pub slots: u128,
    /// programs / slots, fractional.
    pub waves: f64,
    /// Whole waves.
    pub full_waves: u128,
    /// Programs in the last, partial wave (0 when it divides evenly).
    pub tail_programs: u128,
    /// Slots idle during the partial wave.
    pub idle_slots: u128,
    /// programs / (ceil(waves) · slots).
    pub efficiency: f64,
}

/// Waves of `programs` over `sms` SMs holding `per_sm` programs each.
pub fn waves(programs: u128, sms: u128, per_sm: u128) -> Waves {
    let slots = sms * per_sm;
    let full = programs / slots;
    let tail = programs % slots;
    let launched = if tail == 0 { full } else { full + 1 };
    Waves {
        programs,
        slots,
        waves: programs as f64 / slots as f64,
        full_waves: full,
        tail_programs: tail,
        idle_slots: if tail == 0 { 0 } else { slots - tail },
        efficiency: if launched == 0 {
            0.0
        } else {
            programs as f64 / (launched * slots) as f64
        },
    }
}

/// Utilisation of the SMs over a fractional number of waves: the last wave
/// is launched whole, so waves / ceil(waves).
pub fn wave_efficiency(waves: f64) -> f64 {
    waves / waves.ceil()
}

/// A register micro-tile: each thread owns TM × TN accumulators.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MicroTile {
    /// Accumulators per thread: BM·BN / threads.
    pub accumulators_per_thread: f64,
    /// Square micro-tile edge, TM = TN = sqrt(accumulators per thread).
    pub edge: f64,
    /// Shared-memory elements read per k step: TM + TN.
    pub smem_reads: f64,
    /// FLOPs per k step: 2·TM·TN.
    pub flops: f64,
    /// FLOPs per shared-memory element: 2·TM·TN / (TM + TN).
    pub flops_per_smem_element: f64,
}

/// The square micro-tile of a BM × BN tile over `threads` threads.
pub fn micro_tile(bm: u64, bn: u64, threads: u64) -> MicroTile {
    let acc = bm as f64 * bn as f64 / threads as f64;
    let edge = acc.sqrt();
    MicroTile {
        accumulators_per_thread: acc,
        edge,
        smem_reads: 2.0 * edge,
        flops: 2.0 * edge * edge,
        flops_per_smem_element: 2.0 * edge * edge / (2.0 * edge),
    }
}

/// A tensor-core instruction shape, `mMnNkK` (N may be the letter `N` for
/// wgmma's variable width).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaShape {
    /// Rows of A (tokens in a linear layer).
    pub m: u64,
    /// Columns of B, if fixed.
    pub n: Option<u64>,
    /// The contraction depth.
    pub k: u64,
}

impl MmaShape {
    /// Parses `m16n8k16`, `m64nNk16`, `m64n256k16`, or the aliases `mma`
    /// (m16n8k16) and `wgmma` (m64nNk16).
    pub fn parse(text: &str) -> Result<Self> {
        let t = text.trim().to_ascii_lowercase();
        let t = match t.as_str() {
            "mma" => "m16n8k16".to_string(),
            "wgmma" | "hgmma" => "m64nnk16".to_string(),
            _ => t,
        };
        let bad = || {
            Error::input(
                "--mma",
                format!(
                    "`{text}` is not an MMA shape; expected mMnNkK such as m16n8k16, m64nNk16 or m64n256k16 (or mma, wgmma)"
                ),
            )
        };
        let rest = t.strip_prefix('m').ok_or_else(bad)?;
        let (m, rest) = rest.split_once('n').ok_or_else(bad)?;
        let (n, k) = rest.split_once('k').ok_or_else(bad)?;
        let m: u64 = m.parse().map_err(|_| bad())?;
        let k: u64 = k.parse().map_err(|_| bad())?;
        let n = if n == "n" || n.is_empty() {
            None
        } else {
            Some(n.parse::<u64>().map_err(|_| bad())?)
        };
        if m == 0 || k == 0 || n == Some(0) {
            return Err(bad());
        }
        Ok(MmaShape { m, n, k })
    }

    /// The shape as written, `m64nNk16` when N is variable.
    pub fn name(&self) -> String {
        match self.n {
            Some(n) => format!("m{}n{}k{}", self.m, n, self.k),
            None => format!("m{}nNk{}", self.m, self.k),
        }
    }

    /// Threads that share the instruction's accumulator: a warp group of
    /// 128 for Hopper's M = 64 wgmma, one warp of 32 otherwise.
    pub fn threads(&self) -> u64 {
        if self.m >= 64 { 128 } else { 32 }
    }
}

/// Row utilisation of an MMA whose M is `mma_m` when the GEMM has `m` rows:
/// m / (ceil(m/mma_m)·mma_m), and the padded rows.
pub fn row_utilisation(m: u64, mma_m: u64) -> (f64, u64) {
    let padded_total = m.div_ceil(mma_m) * mma_m;
    (m as f64 / padded_total as f64, padded_total - m)
}

/// Inputs of `matmul`.
#[derive(Debug, Clone)]
pub struct MatmulParams {
    /// Rows of A and C.
    pub m: u64,
    /// Columns of B and C.
    pub n: u64,
    /// The contraction dimension.
    pub k: u64,
    /// Tile rows (BLOCK_M), before clamping to M.
    pub tile_m: u64,
    /// Tile columns (BLOCK_N), before clamping to N.
    pub tile_n: u64,
    /// K chunk per loop step; `None` picks 64 (or the largest power of two
    /// below it that divides K).
    pub tile_k: Option<u64>,
    /// Shared-memory pipeline stages (2 = double buffering).
    pub stages: u64,
    /// Programs resident per SM, for waves.
    pub programs_per_sm: u64,
    /// Threads per program, for the register micro-tile.
    pub threads: u64,
    /// Tensor-core instruction shape, for row utilisation.
    pub mma: Option<String>,
    /// Precision (default: the hardware's).
    pub dtype: Option<String>,
    /// Datasheet or measured rates.
    pub mode: Mode,
    /// Square tiles for the report's table rows (empty: no table).
    pub table_tiles: Vec<u64>,
}

impl Default for MatmulParams {
    fn default() -> Self {
        MatmulParams {
            m: 4096,
            n: 4096,
            k: 4096,
            tile_m: 128,
            tile_n: 128,
            tile_k: None,
            stages: 2,
            programs_per_sm: 1,
            threads: 256,
            mma: None,
            dtype: None,
            mode: Mode::SpeedOfLight,
            table_tiles: TABLE_TILES.to_vec(),
        }
    }
}

/// A count as a JSON integer where it fits, else a float.
fn int(v: u128) -> serde_json::Value {
    u64::try_from(v).map_or_else(|_| (v as f64).into(), Into::into)
}

fn positive(flag: &str, v: u64) -> Result<()> {
    if v == 0 {
        Err(Error::input(flag, "must be at least 1"))
    } else {
        Ok(())
    }
}

/// The tile-k to use: an explicit one must divide K (after clamping to K);
/// the default is 64, halved until it divides K.
pub fn resolve_tile_k(k: u64, tile_k: Option<u64>) -> Result<u64> {
    match tile_k {
        Some(0) => Err(Error::input("--tile-k", "must be at least 1")),
        Some(t) => {
            let t = t.min(k);
            if !k.is_multiple_of(t) {
                let mut d = t;
                while !k.is_multiple_of(d) {
                    d -= 1;
                }
                Err(Error::input(
                    "--tile-k",
                    format!(
                        "{t} does not divide K = {k}: the K loop runs K / tile-k whole steps; try {d}"
                    ),
                ))
            } else {
                Ok(t)
            }
        }
        None => {
            let mut t = 64.min(k);
            while !k.is_multiple_of(t) {
                t /= 2;
            }
            Ok(t.max(1))
        }
    }
}

/// Register file bytes per SM: registers × 4 B, or the `registers` level.
fn register_file(hw: &Hardware) -> Option<f64> {
    if let Some(r) = hw.execution.as_ref().and_then(|e| e.registers_per_sm) {
        return Some(f64::from(r.get()) * 4.0);
    }
    hw.memory
        .levels
        .iter()
        .find(|l| l.name == "registers")
        .map(|l| l.capacity.get())
}

/// `matmul`: the whole report for one hardware.
pub fn matmul(hw: &Hardware, p: &MatmulParams) -> Result<Report> {
    positive("--m", p.m)?;
    positive("--n", p.n)?;
    positive("--k", p.k)?;
    positive("--tile-m", p.tile_m)?;
    positive("--tile-n", p.tile_n)?;
    positive("--stages", p.stages)?;
    positive("--programs-per-sm", p.programs_per_sm)?;
    positive("--threads", p.threads)?;
    let bk = resolve_tile_k(p.k, p.tile_k)?;
    let mma = p.mma.as_deref().map(MmaShape::parse).transpose()?;
    let prec = hw.precision(p.dtype.as_deref())?;
    let b = prec.bytes();
    let peak = hw.peak(prec, p.mode)?;
    let bw = hw.bandwidth(p.mode)?;
    let ridge = peak / bw;
    let (m, n, k) = (p.m, p.n, p.k);
    let bm = p.tile_m.min(m);
    let bn = p.tile_n.min(n);

    let mut r = Report::new("matmul");
    r.hardware = Some(hw.id.clone());
    r.input("m", m);
    r.input("n", n);
    r.input("k", k);
    r.input("tile_m", bm);
    r.input("tile_n", bn);
    r.input("tile_k", bk);
    r.input("stages", p.stages);
    r.input("dtype", prec.name);
    if p.mode == Mode::Achievable {
        r.input("achievable", true);
    }
    if bm < p.tile_m || bn < p.tile_n {
        r.note(format!(
            "tile {}x{} clamped to the matrix: {bm}x{bn} (a masked tile reuses each element only as often as the matrix is wide)",
            p.tile_m, p.tile_n
        ));
    }
    if p.tile_k.is_none() && bk != 64 {
        r.note(format!(
            "tile-k {bk}: the largest power of two up to 64 that divides K = {k}"
        ));
    }
    let dims = format!("{m}*{n}*{k}");
    let bs = number(b);

    // Step 1: FLOPs, fixed by the mathematics.
    let f = flops(m, n, k);
    r.result(
        "flops",
        f,
        Quantity::new("FLOPs", Unit::Flop)
            .formula("2*M*N*K")
            .derive(format!("2*{m}*{n}*{k}")),
    );
    let compute_time = f / peak;
    r.result(
        "compute_time_s",
        compute_time,
        Quantity::new("compute floor", Unit::Seconds)
            .formula("FLOPs / peak")
            .derive(format!("{} / {}", si(f, "FLOP"), si(peak, "FLOP/s"))),
    );
    let roof = super::roof::Roof {
        peak,
        bandwidth: bw,
    };
    super::roof::ridge(&mut r, &roof);

    // Naive: zero reuse.
    let nb = naive_bytes(m, n, k, b);
    let ni = f / nb;
    let nt = compute_time.max(nb / bw);
    r.result(
        "naive_bytes",
        nb,
        Quantity::new("naive HBM bytes (zero reuse)", Unit::Bytes)
            .formula("2*b*M*N*K")
            .derive(format!("2*{bs}*{dims}")),
    );
    r.result(
        "naive_intensity",
        ni,
        Quantity::new("naive intensity", Unit::FlopPerByte)
            .formula("2*M*N*K / (2*b*M*N*K) = 1/b")
            .derive(format!("1/{bs}")),
    );
    super::roof::attainable(
        &mut r,
        &super::roof::AttainableKeys {
            attainable: "naive_attainable_flops_per_s",
            attainable_label: "naive attainable",
            fraction: "naive_fraction_of_peak",
            fraction_label: "naive fraction of peak",
        },
        &roof,
        ni,
    );
    r.result(
        "naive_time_s",
        nt,
        Quantity::new("naive time", Unit::Seconds)
            .formula("max(FLOPs / peak, bytes / bandwidth)")
            .derive(format!(
                "max({}, {} / {})",
                seconds(compute_time),
                si(nb, "B"),
                si(bw, "B/s")
            )),
    );
    r.result(
        "naive_vs_floor",
        nt / compute_time,
        Quantity::new("naive time / compute floor", Unit::Ratio)
            .formula("naive time / compute floor")
            .derive(format!("{} / {}", seconds(nt), seconds(compute_time))),
    );

    // Tiled: each operand element reused BLOCK times on chip.
    let tb = tiled_bytes(m, n, k, bm, bn, b);
    let ti = f / tb;
    let ta = peak.min(ti * bw);
    let mem_time = tb / bw;
    r.result(
        "tiled_bytes",
        tb,
        Quantity::new("tiled HBM bytes (operand reads)", Unit::Bytes)
            .formula("b*M*N*K*(1/min(BM,M) + 1/min(BN,N))")
            .derive(format!("{bs}*{dims}*(1/{bm} + 1/{bn})")),
    );
    let ob = b * m as f64 * n as f64;
    r.result(
        "output_bytes",
        ob,
        Quantity::new("output write", Unit::Bytes)
            .formula("b*M*N")
            .derive(format!("{bs}*{m}*{n}")),
    );
    r.result(
        "tiled_vs_naive",
        nb / tb,
        Quantity::new("traffic cut vs naive", Unit::Ratio)
            .formula("naive bytes / tiled bytes")
            .derive(format!("{} / {}", si(nb, "B"), si(tb, "B"))),
    );
    r.result(
        "intensity",
        ti,
        Quantity::new("intensity", Unit::FlopPerByte)
            .formula("FLOPs / tiled bytes")
            .derive(format!("{} / {}", si(f, "FLOP"), si(tb, "B"))),
    );

    // Tensor-core row utilisation caps the compute roof for small M.
    let mut roof = peak;
    let mut roof_text = si(peak, "FLOP/s");
    if let Some(s) = mma {
        let (util, padded) = row_utilisation(m, s.m);
        r.result(
            "mma_shape",
            s.name(),
            Quantity::new("tensor-core instruction", Unit::None),
        );
        if let Some(sn) = s.n {
            r.result(
                "mma_outputs",
                s.m * sn,
                Quantity::new("outputs per instruction", Unit::Count)
                    .formula("MMA_M * MMA_N")
                    .derive(format!("{} * {sn}", s.m)),
            );
        }
        r.result(
            "mma_padded_rows",
            padded,
            Quantity::new("padded rows", Unit::Count)
                .formula("ceil(M / MMA_M)*MMA_M - M")
                .derive(format!("ceil({m} / {})*{} - {m}", s.m, s.m)),
        );
        r.result(
            "mma_row_utilisation",
            util,
            Quantity::new("tensor-core row utilisation", Unit::Fraction)
                .formula("M / (ceil(M / MMA_M)*MMA_M)")
                .derive(format!("{m} / (ceil({m} / {})*{})", s.m, s.m)),
        );
        roof = util * peak;
        roof_text = format!("{} * {}", units::sig(util, 4), si(peak, "FLOP/s"));
        r.result(
            "mma_effective_flops_per_s",
            roof,
            Quantity::new("effective tensor-core peak", Unit::FlopPerSec)
                .formula("row utilisation * peak")
                .derive(roof_text.clone()),
        );
        let acc_n = s.n.unwrap_or(bn.min(256));
        let acc_regs = s.m * acc_n;
        r.result(
            "mma_accumulator_registers",
            acc_regs,
            Quantity::new("fp32 accumulator registers per instruction", Unit::Count)
                .formula("MMA_M * MMA_N")
                .derive(format!("{} * {acc_n}", s.m)),
        );
        r.result(
            "mma_accumulator_registers_per_thread",
            acc_regs as f64 / s.threads() as f64,
            Quantity::new("accumulator registers per thread", Unit::Count)
                .formula("MMA_M * MMA_N / threads (128 for a warp group, 32 for a warp)")
                .derive(format!("{acc_regs} / {}", s.threads())),
        );
        if let Some(mu) = &hw.matrix_unit
            && !mu.shapes.iter().any(|x| x.eq_ignore_ascii_case(&s.name()))
            && !(s.m == 64 && mu.shapes.iter().any(|x| x == "m64nNk16"))
        {
            r.note(format!(
                "{} does not list {} among its matrix-unit shapes ({})",
                hw.id,
                s.name(),
                mu.shapes.join(", ")
            ));
        }
        if padded > 0 {
            r.note(format!(
                "{padded} of every {} MMA rows are padding at M = {m}: the tensor cores offer {} of {}",
                m + padded,
                si(roof, "FLOP/s"),
                si(peak, "FLOP/s")
            ));
        }
    }
    let ta = ta.min(roof);
    r.result(
        "attainable_flops_per_s",
        ta,
        Quantity::new("attainable", Unit::FlopPerSec)
            .formula("min(peak, intensity * bandwidth)")
            .derive(format!(
                "min({roof_text}, {} * {})",
                units::sig(ti, 4),
                si(bw, "B/s")
            )),
    );
    r.result(
        "attainable_fraction_of_peak",
        ta / peak,
        Quantity::new("fraction of peak", Unit::Fraction)
            .formula("attainable / peak")
            .derive(format!("{} / {}", si(ta, "FLOP/s"), si(peak, "FLOP/s"))),
    );
    r.result(
        "memory_time_s",
        mem_time,
        Quantity::new("memory time", Unit::Seconds)
            .formula("tiled bytes / bandwidth")
            .derive(format!("{} / {}", si(tb, "B"), si(bw, "B/s"))),
    );
    let ct = f / roof;
    let time = ct.max(mem_time);
    let bound = if mem_time >= ct { "memory" } else { "compute" };
    r.result(
        "time_s",
        time,
        Quantity::new("time", Unit::Seconds)
            .formula("max(FLOPs / peak, tiled bytes / bandwidth)")
            .derive(format!("max({}, {})", seconds(ct), seconds(mem_time))),
    );
    r.result("bound", bound, Quantity::new("bound", Unit::None));
    if bound == "memory" {
        r.note(format!(
            "memory-bound: intensity {} is {}x below the ridge ({})",
            units::sig(ti, 4),
            units::sig(ridge / ti, 3),
            units::sig(ridge, 4)
        ));
    } else {
        r.note(format!(
            "compute-bound: intensity {} is above the ridge ({})",
            units::sig(ti, 4),
            units::sig(ridge, 4)
        ));
    }

    // Minimal traffic: each operand once (002 §7.7's n/3; §7.11's cap at M).
    let mb = minimal_bytes(m, n, k, b);
    r.result(
        "minimal_bytes",
        mb,
        Quantity::new("minimal bytes (each operand once)", Unit::Bytes)
            .formula("b*(M*K + K*N + M*N)")
            .derive(format!("{bs}*({m}*{k} + {k}*{n} + {m}*{n})")),
    );
    r.result(
        "minimal_intensity",
        f / mb,
        Quantity::new("minimal-traffic intensity", Unit::FlopPerByte)
            .formula("2*M*N*K / (b*(M*K + K*N + M*N))")
            .derive(format!("{} / {}", si(f, "FLOP"), si(mb, "B"))),
    );

    // Feasibility: shared memory with stages, accumulator in registers.
    let smem = smem_bytes(bm, bn, bk, b, p.stages);
    r.result(
        "smem_bytes_per_block",
        smem,
        Quantity::new("shared memory per program", Unit::BytesIec)
            .formula("(BM*BK + BK*BN)*b*stages")
            .derive(format!("({bm}*{bk} + {bk}*{bn})*{bs}*{}", p.stages)),
    );
    let acc = accumulator_bytes(bm, bn);
    r.result(
        "accumulator_bytes",
        acc,
        Quantity::new("fp32 accumulator (registers)", Unit::BytesIec)
            .formula("BM*BN*4")
            .derive(format!("{bm}*{bn}*4")),
    );
    let ex = hw.execution.as_ref();
    let smem_limit = ex.and_then(|e| e.smem_per_block_optin.or(e.smem_per_sm));
    let smem_fits = smem_limit.map(|l| smem <= l.get());
    if let Some(e) = ex {
        if let Some(s) = e.smem_per_sm {
            r.result(
                "smem_fraction_of_sm",
                smem / s.get(),
                Quantity::new("share of the SM's shared memory", Unit::Fraction)
                    .formula("shared memory per program / shared memory per SM")
                    .derive(format!("{} / {}", iec_bytes(smem), iec_bytes(s.get()))),
            );
        }
        if let Some(s) = e.smem_per_block {
            r.result(
                "smem_fraction_of_block_default",
                smem / s.get(),
                Quantity::new(
                    "share of the default per-block shared memory",
                    Unit::Fraction,
                )
                .formula("shared memory per program / default per block")
                .derive(format!("{} / {}", iec_bytes(smem), iec_bytes(s.get()))),
            );
        }
        let reserved = e.reserved_smem_per_block.map_or(0.0, |r| r.get());
        if let Some(c) = e
            .smem_carveouts
            .iter()
            .map(|c| c.get())
            .filter(|c| *c >= smem + reserved)
            .reduce(f64::min)
        {
            r.result(
                "smem_carveout_bytes",
                c,
                Quantity::new("smallest carveout that holds it", Unit::BytesIec)
                    .formula("min carveout >= shared memory per program + reserved")
                    .derive(format!(
                        "min carveout >= {} + {}",
                        iec_bytes(smem),
                        iec_bytes(reserved)
                    )),
            );
        }
    }
    if let (Some(l), Some(fits)) = (smem_limit, smem_fits) {
        r.result(
            "smem_fits",
            fits,
            Quantity::new("shared memory fits", Unit::None)
                .formula("shared memory per program <= per-block limit")
                .derive(format!("{} <= {}", iec_bytes(smem), iec_bytes(l.get()))),
        );
    }
    let regfile = register_file(hw);
    let reg_fits = regfile.map(|rf| acc < rf);
    if let Some(rf) = regfile {
        r.result(
            "accumulator_fraction_of_registers",
            acc / rf,
            Quantity::new("share of the register file", Unit::Fraction)
                .formula("accumulator / register file per SM")
                .derive(format!("{} / {}", iec_bytes(acc), iec_bytes(rf))),
        );
        r.result(
            "registers_fit",
            acc < rf,
            Quantity::new("accumulator fits in registers", Unit::None)
                .formula("accumulator < register file (room left for addresses and operands)")
                .derive(format!("{} < {}", iec_bytes(acc), iec_bytes(rf))),
        );
    }
    // With neither limit recorded (a TPU, Trainium) there is nothing to
    // check the tile against: say so rather than answer yes.
    let fits = match (smem_fits, reg_fits) {
        (None, None) => {
            r.note(format!(
                "tile feasibility unknown: {} records no shared-memory or register-file limits",
                hw.id
            ));
            serde_json::Value::Null
        }
        (s, g) => (s.unwrap_or(true) && g.unwrap_or(true)).into(),
    };
    r.result(
        "fits",
        fits,
        Quantity::new("tile fits", Unit::None).formula("shared memory fits and registers fit"),
    );
    if reg_fits == Some(false) {
        r.note(format!(
            "the {bm}x{bn} fp32 accumulator ({}) leaves no registers for anything else: the register file, not shared memory, caps the tile",
            iec_bytes(acc)
        ));
    }
    if smem_fits == Some(false) {
        r.note(format!(
            "{} of shared memory per program exceeds the per-block limit",
            iec_bytes(smem)
        ));
    }
    let rt = ridge_tile(ridge, b);
    r.result(
        "ridge_tile",
        rt,
        Quantity::new("square tile that reaches the ridge", Unit::None)
            .formula("BLOCK = b * ridge")
            .derive(format!("{bs} * {}", units::sig(ridge, 4))),
    );
    let rti = rt.round().max(1.0) as u64;
    let racc = accumulator_bytes(rti, rti);
    r.result(
        "ridge_tile_accumulator_bytes",
        racc,
        Quantity::new("its accumulator", Unit::BytesIec)
            .formula("BLOCK^2*4")
            .derive(format!("{rti}^2*4")),
    );
    if let Some(rf) = regfile {
        r.result(
            "ridge_tile_accumulator_vs_registers",
            racc / rf,
            Quantity::new("its accumulator / register file", Unit::Ratio)
                .formula("BLOCK^2*4 / register file")
                .derive(format!("{} / {}", iec_bytes(racc), iec_bytes(rf))),
        );
    }
    r.result(
        "ridge_tile_smem_bytes",
        smem_bytes(rti, rti, bk, b, p.stages),
        Quantity::new("its shared memory", Unit::BytesIec)
            .formula("(BLOCK*BK + BK*BLOCK)*b*stages")
            .derive(format!("({rti}*{bk} + {bk}*{rti})*{bs}*{}", p.stages)),
    );

    // Register micro-tile: the tiling formula one level down.
    let mt = micro_tile(bm, bn, p.threads);
    r.input("threads", p.threads);
    if mt.accumulators_per_thread < 1.0 {
        r.note(format!(
            "no register micro-tile: {bm}x{bn} accumulators are fewer than {} threads",
            p.threads
        ));
    } else {
        r.result(
            "accumulators_per_thread",
            mt.accumulators_per_thread,
            Quantity::new("accumulators per thread", Unit::Count)
                .formula("BM*BN / threads")
                .derive(format!("{bm}*{bn} / {}", p.threads)),
        );
        r.result(
            "microtile_edge",
            mt.edge,
            Quantity::new("micro-tile edge TM = TN", Unit::Count)
                .formula("sqrt(accumulators per thread)")
                .derive(format!("sqrt({})", number(mt.accumulators_per_thread))),
        );
        r.result(
            "microtile_flops_per_smem_element",
            mt.flops_per_smem_element,
            Quantity::new("FLOPs per shared-memory element", Unit::None)
                .formula("2*TM*TN / (TM + TN)")
                .derive(format!("{} / {}", number(mt.flops), number(mt.smem_reads))),
        );
    }

    // Waves over the SMs.
    if let Some(e) = ex {
        let sms = u128::from(e.sms.get());
        let programs = u128::from(m.div_ceil(bm)) * u128::from(n.div_ceil(bn));
        let w = waves(programs, sms, u128::from(p.programs_per_sm));
        r.input("programs_per_sm", p.programs_per_sm);
        r.result(
            "programs",
            int(w.programs),
            Quantity::new("programs (output tiles)", Unit::Count)
                .formula("ceil(M/BM)*ceil(N/BN)")
                .derive(format!("ceil({m}/{bm})*ceil({n}/{bn})")),
        );
        let slots = if p.programs_per_sm == 1 {
            format!("{sms}")
        } else {
            format!("({sms}*{})", p.programs_per_sm)
        };
        r.result(
            "waves",
            w.waves,
            Quantity::new("waves", Unit::None)
                .formula("programs / (SMs * programs per SM)")
                .derive(format!("{} / {slots}", w.programs)),
        );
        r.result(
            "full_waves",
            int(w.full_waves),
            Quantity::new("full waves", Unit::Count)
                .formula("floor(waves)")
                .derive(format!("floor({} / {slots})", w.programs)),
        );
        r.result(
            "tail_programs",
            int(w.tail_programs),
            Quantity::new("programs in the tail wave", Unit::Count)
                .formula("programs mod slots")
                .derive(format!("{} mod {slots}", w.programs)),
        );
        r.result(
            "idle_slots_in_tail",
            int(w.idle_slots),
            Quantity::new("idle slots in the tail wave", Unit::Count)
                .formula("slots - tail (0 when the tail is empty)")
                .derive(format!("{slots} - {}", w.tail_programs)),
        );
        r.result(
            "wave_efficiency",
            w.efficiency,
            Quantity::new("wave efficiency", Unit::Fraction)
                .formula("programs / (ceil(waves) * slots)")
                .derive(format!(
                    "{} / (ceil({}) * {slots})",
                    w.programs,
                    units::sig(w.waves, 4)
                )),
        );
        r.result(
            "peak_per_sm_flops_per_s",
            peak / sms as f64,
            Quantity::new("peak per SM", Unit::FlopPerSec)
                .formula("peak / SMs")
                .derive(format!("{} / {sms}", si(peak, "FLOP/s"))),
        );
        r.note(format!(
            "waves assume {} resident program(s) per SM (--programs-per-sm)",
            p.programs_per_sm
        ));
    }
    if prec.compute != "fp32"
        && let Some(v) = hw.compute.dense.get("fp32")
    {
        let v = v * hw.peak_multiplier();
        r.result(
            "tensor_vs_vector",
            peak / v,
            Quantity::new("tensor vs fp32 vector peak", Unit::Ratio)
                .formula("peak / fp32 peak")
                .derive(format!("{} / {}", si(peak, "FLOP/s"), si(v, "FLOP/s"))),
        );
    }

    // The lecture's table: square tiles 32..256 at this shape.
    if p.table_tiles.contains(&0) {
        return Err(Error::input("--tiles", "a tile of 0"));
    }
    if p.table_tiles.is_empty() {
        return Ok(r);
    }
    for key in [
        ("tile", Quantity::new("tile", Unit::Count)),
        ("tiled_bytes", Quantity::new("HBM bytes", Unit::Bytes)),
        ("intensity", Quantity::new("intensity", Unit::FlopPerByte)),
        (
            "attainable_flops_per_s",
            Quantity::new("attainable", Unit::FlopPerSec),
        ),
        ("memory_time_s", Quantity::new("memory time", Unit::Seconds)),
        ("tiled_vs_naive", Quantity::new("vs naive", Unit::Ratio)),
        (
            "smem_bytes_per_block",
            Quantity::new("shared memory", Unit::BytesIec),
        ),
        (
            "accumulator_bytes",
            Quantity::new("accumulator", Unit::BytesIec),
        ),
        ("fits", Quantity::new("fits", Unit::None)),
    ] {
        if !r.quantities.contains_key(key.0) {
            r.describe(key.0, key.1);
        }
    }
    for &t in &p.table_tiles {
        let (tm, tn) = (t.min(m), t.min(n));
        let tbt = tiled_bytes(m, n, k, tm, tn, b);
        let it = f / tbt;
        let sm = smem_bytes(tm, tn, bk, b, p.stages);
        let ac = accumulator_bytes(tm, tn);
        let fit: serde_json::Value = if smem_limit.is_none() && regfile.is_none() {
            serde_json::Value::Null
        } else {
            (smem_limit.is_none_or(|l| sm <= l.get()) && regfile.is_none_or(|rf| ac < rf)).into()
        };
        let mut row = Row::default();
        row.inputs.insert("tile".into(), t.into());
        row.results.insert("tiled_bytes".into(), tbt.into());
        row.results.insert("intensity".into(), it.into());
        row.results
            .insert("attainable_flops_per_s".into(), peak.min(it * bw).into());
        row.results
            .insert("memory_time_s".into(), (tbt / bw).into());
        row.results
            .insert("tiled_vs_naive".into(), (nb / tbt).into());
        row.results.insert("smem_bytes_per_block".into(), sm.into());
        row.results.insert("accumulator_bytes".into(), ac.into());
        row.results.insert("fits".into(), fit);
        r.rows.push(row);
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mma_shapes_parse() {
        assert_eq!(
            MmaShape::parse("m16n8k16").unwrap(),
            MmaShape {
                m: 16,
                n: Some(8),
                k: 16
            }
        );
        assert_eq!(MmaShape::parse("wgmma").unwrap().name(), "m64nNk16");
        assert_eq!(MmaShape::parse("m64nNk16").unwrap().n, None);
        assert!(MmaShape::parse("16x8x16").is_err());
        assert!(MmaShape::parse("m0n8k16").is_err());
    }

    #[test]
    fn tile_k_defaults_and_divides() {
        assert_eq!(resolve_tile_k(4096, None).unwrap(), 64);
        assert_eq!(resolve_tile_k(4092, None).unwrap(), 4);
        assert_eq!(resolve_tile_k(16, None).unwrap(), 16);
        assert_eq!(resolve_tile_k(4096, Some(8192)).unwrap(), 4096);
        let e = resolve_tile_k(4096, Some(48)).unwrap_err().to_string();
        assert!(e.contains("does not divide"), "{e}");
        assert!(resolve_tile_k(4096, Some(0)).is_err());
    }

    #[test]
    fn waves_divide_evenly() {
        let w = waves(264, 132, 1);
        assert_eq!((w.full_waves, w.tail_programs, w.idle_slots), (2, 0, 0));
        assert_eq!(w.efficiency, 1.0);
    }
}

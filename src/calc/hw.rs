//! `hw show` and `hw list`: an accelerator's datasheet numbers and the
//! figures derived from them (formulas.md, "Hardware figures"; 002 §7.3).

use crate::error::Result;
use crate::precision::{self, Precision};
use crate::report::{Quantity, Report, Row, Unit};
use crate::spec::hardware::{Hardware, Mode, Scope};
use crate::units::{self, si};

/// Options of `hw show`.
#[derive(Debug, Clone, Default)]
pub struct ShowOptions {
    /// The precision for the headline ridge point (default: the file's).
    pub dtype: Option<String>,
    /// Clock for per-cycle figures (default: the file's boost clock).
    pub clock_hz: Option<f64>,
    /// Datasheet or measured rates.
    pub mode: Mode,
}

/// Number of units of an on-chip level's scope on the chip.
pub fn level_count(hw: &Hardware, scope: Scope, count: Option<u32>) -> f64 {
    if let Some(c) = count {
        return f64::from(c);
    }
    match scope {
        Scope::Sm => hw
            .execution
            .as_ref()
            .map_or(1.0, |e| f64::from(e.sms.get())),
        Scope::Core => hw.compute.cores.map_or(1.0, |c| f64::from(c.get())),
        Scope::Die | Scope::Chip => 1.0,
    }
}

/// Total on-chip storage: every level that counts toward the total, times
/// the number of its scope units (002 §7.3: registers + SMEM + L2).
pub fn onchip_bytes(hw: &Hardware) -> (f64, Vec<String>) {
    let mut total = 0.0;
    let mut terms = Vec::new();
    for l in hw.memory.levels.iter().filter(|l| l.counts_toward_total) {
        let n = level_count(hw, l.scope, l.count.map(|c| c.get()));
        total += l.capacity.get() * n;
        if n == 1.0 {
            terms.push(format!("{} {}", units::iec_bytes(l.capacity.get()), l.name));
        } else {
            terms.push(format!(
                "{} x {} {}",
                n,
                units::iec_bytes(l.capacity.get()),
                l.name
            ));
        }
    }
    (total, terms)
}

/// `hw show`: headline figures at one precision and a row per precision.
pub fn show(hw: &Hardware, opts: &ShowOptions) -> Result<Report> {
    let p = hw.precision(opts.dtype.as_deref())?;
    let mut r = Report::new("hw show");
    r.hardware = Some(hw.id.clone());
    r.input("dtype", p.name);
    let sos = opts.mode == Mode::SpeedOfLight;
    if !sos {
        r.input("achievable", true);
    }
    let src = |f: &str| hw.source(f).map(String::from);
    r.result("name", hw.name.as_str(), Quantity::new("name", Unit::None));
    r.result(
        "vendor",
        hw.vendor.as_str(),
        Quantity::new("vendor", Unit::None),
    );
    r.result("kind", hw.kind.as_str(), Quantity::new("kind", Unit::None));

    let peak = hw.peak(p, opts.mode)?;
    let peak_field = if sos {
        format!("compute.dense.{}", p.compute)
    } else {
        format!("achievable.dense.{}", p.compute)
    };
    let mut q = Quantity::new("peak", Unit::FlopPerSec).source(src(&peak_field).as_deref());
    if hw.peak_multiplier() != 1.0 {
        q = q.formula("per-core peak x cores").derive(format!(
            "{} x {}",
            si(peak / hw.peak_multiplier(), "FLOP/s"),
            hw.peak_multiplier()
        ));
    }
    r.result("peak_flops_per_s", peak, q);

    let bw = hw.bandwidth(opts.mode)?;
    let bw_field = if sos {
        "memory.hbm-bandwidth"
    } else {
        "achievable.hbm-bandwidth"
    };
    r.result(
        "hbm_bandwidth_bytes_per_s",
        bw,
        Quantity::new("memory bandwidth", Unit::BytesPerSec).source(hw.source(bw_field)),
    );
    if let Some(c) = hw.memory.hbm_capacity {
        r.result(
            "hbm_capacity_bytes",
            c.get(),
            Quantity::new("memory capacity", Unit::Bytes).source(hw.source("memory.hbm-capacity")),
        );
    }
    super::roof::ridge(
        &mut r,
        &super::roof::Roof {
            peak,
            bandwidth: bw,
        },
    );

    let (onchip, terms) = onchip_bytes(hw);
    if onchip > 0.0 {
        r.result(
            "onchip_bytes",
            onchip,
            Quantity::new("on-chip storage", Unit::Bytes)
                .formula("sum of on-chip levels x their count")
                .derive(terms.join(" + ")),
        );
    }

    let clock = opts.clock_hz.map_or_else(|| hw.clock(), Ok);
    if let Ok(clock) = clock {
        r.input("clock_hz", clock);
    }
    if let Some(ex) = &hw.execution {
        let sms = f64::from(ex.sms.get());
        r.result(
            "sms",
            sms,
            Quantity::new("SMs / CUs", Unit::Count).source(hw.source("execution.sms")),
        );
        let per_sm = bw / sms;
        r.result(
            "hbm_bandwidth_per_sm_bytes_per_s",
            per_sm,
            Quantity::new("memory bandwidth per SM", Unit::BytesPerSec)
                .formula("bandwidth / SMs")
                .derive(format!("{} / {}", si(bw, "B/s"), sms)),
        );
        if let Ok(clock) = clock {
            r.result(
                "hbm_bytes_per_cycle_per_sm",
                per_sm / clock,
                Quantity::new("memory bytes per cycle per SM", Unit::BytesPerCycle)
                    .formula("bandwidth / SMs / clock")
                    .derive(format!("{} / {} / {}", si(bw, "B/s"), sms, si(clock, "Hz"))),
            );
        }
    }
    if let (Ok(clock), Some(lat)) = (&clock, hw.memory.dram_latency) {
        let clock = *clock;
        let t = lat.get() / clock;
        r.result(
            "littles_law_bytes_in_flight",
            bw * t,
            Quantity::new("bytes in flight to saturate memory", Unit::Bytes)
                .formula("bandwidth x latency / clock")
                .derive(format!(
                    "{} x {} cycles / {}",
                    si(bw, "B/s"),
                    units::number(lat.get()),
                    si(clock, "Hz")
                ))
                .source(hw.source("memory.dram-latency")),
        );
    }

    datasheet(&mut r, hw, clock.ok());

    r.describe("precision", Quantity::new("precision", Unit::None));
    r.describe(
        "dense_flops_per_s",
        Quantity::new("dense peak", Unit::FlopPerSec),
    );
    r.describe(
        "sparse_flops_per_s",
        Quantity::new("sparse peak", Unit::FlopPerSec),
    );
    r.describe(
        "ridge_point_flop_per_byte",
        Quantity::new("ridge point", Unit::FlopPerByte),
    );
    for key in hw.compute.dense.keys() {
        let Some(pp) = precision::ALL.iter().find(|x| x.name == key) else {
            continue;
        };
        let Ok(pk) = hw.peak(pp, opts.mode) else {
            continue;
        };
        let mut row = Row::default();
        row.inputs.insert("precision".into(), key.into());
        row.results.insert("dense_flops_per_s".into(), pk.into());
        if sos && let Some(s) = hw.compute.sparse.as_ref().and_then(|s| s.get(key)) {
            row.results.insert(
                "sparse_flops_per_s".into(),
                (s * hw.peak_multiplier()).into(),
            );
        }
        row.results
            .insert("ridge_point_flop_per_byte".into(), (pk / bw).into());
        r.rows.push(row);
    }
    if sos {
        r.note("speed-of-light figures from the datasheet; --achievable uses the file's measured ones (an error where it has none)");
    } else {
        r.note("achievable figures: measured, not datasheet");
    }
    Ok(r)
}

/// A result key from a level or link name: `shared-memory` -> `shared_memory`.
fn key(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect::<String>()
        .to_ascii_lowercase()
}

fn scope_word(scope: Scope) -> &'static str {
    match scope {
        Scope::Sm => "per SM",
        Scope::Core => "per core",
        Scope::Die => "per die",
        Scope::Chip => "per chip",
    }
}

/// The rest of the datasheet, each figure with its source: clock, memory
/// levels (per unit and chip totals, 002 §7.3), execution limits, fabric
/// tiers (both directions and each way), launch costs, package and host.
fn datasheet(r: &mut Report, hw: &Hardware, clock: Option<f64>) {
    let mut mark = r.results.len();
    let src = |f: &str| hw.source(f);
    if let Some(c) = hw.compute.clock {
        r.result(
            "boost_clock_hz",
            c.get(),
            Quantity::new("boost clock", Unit::Hz).source(src("compute.clock")),
        );
    }
    if let Some(c) = hw.compute.cores {
        r.result(
            "cores",
            f64::from(c.get()),
            Quantity::new("cores (TensorCores / NeuronCores)", Unit::Count)
                .source(src("compute.cores")),
        );
    }
    for (k, label, v) in [
        ("sparse_cores", "SparseCores", hw.compute.sparse_cores),
        ("dma_engines", "DMA engines", hw.compute.dma_engines),
        (
            "collective_cores",
            "collective cores",
            hw.compute.collective_cores,
        ),
    ] {
        if let Some(v) = v {
            let field = format!("compute.{}", k.replace('_', "-"));
            r.result(
                k,
                f64::from(v.get()),
                Quantity::new(label, Unit::Count).source(src(&field)),
            );
        }
    }
    r.group_since(mark, "compute");
    mark = r.results.len();
    let m = &hw.memory;
    if let Some(l) = m.dram_latency {
        r.result(
            "dram_latency_cycles",
            l.get(),
            Quantity::new("memory latency", Unit::Cycles).source(src("memory.dram-latency")),
        );
    }
    for (k, label, field, v) in [
        ("sector_bytes", "sector", "memory.sector", m.sector),
        (
            "segment_bytes",
            "segment (cache line)",
            "memory.segment",
            m.segment,
        ),
        (
            "dram_fetch_bytes",
            "DRAM fetch unit",
            "memory.dram-fetch",
            m.dram_fetch,
        ),
    ] {
        if let Some(v) = v {
            r.result(
                k,
                v.get(),
                Quantity::new(label, Unit::Bytes).source(src(field)),
            );
        }
    }
    r.group_since(mark, "memory");
    mark = r.results.len();
    for (i, l) in m.levels.iter().enumerate() {
        let k = key(&l.name);
        let n = level_count(hw, l.scope, l.count.map(|c| c.get()));
        let cap_field = format!("memory.levels.{i}.capacity");
        r.result(
            &format!("{k}_bytes"),
            l.capacity.get(),
            Quantity::new(
                format!("{} {}", l.name, scope_word(l.scope)),
                Unit::BytesIec,
            )
            .source(src(&cap_field)),
        );
        if n > 1.0 {
            r.result(
                &format!("{k}_total_bytes"),
                l.capacity.get() * n,
                Quantity::new(format!("{} on the chip", l.name), Unit::BytesIec)
                    .formula(format!("{} x count", l.name))
                    .derive(format!("{} x {}", n, units::iec_bytes(l.capacity.get()))),
            );
        }
        if let (Some(bpc), Some(c)) = (l.bytes_per_cycle, clock) {
            r.result(
                &format!("{k}_bandwidth_bytes_per_s"),
                bpc * n * c,
                Quantity::new(
                    format!("{} bandwidth on the chip", l.name),
                    Unit::BytesPerSec,
                )
                .formula("bytes per cycle x count x clock")
                .derive(format!("{} x {} x {}", units::number(bpc), n, si(c, "Hz")))
                .source(src(&format!("memory.levels.{i}.bytes-per-cycle"))),
            );
        } else if let Some(b) = l.bandwidth {
            r.result(
                &format!("{k}_bandwidth_bytes_per_s"),
                b.get(),
                Quantity::new(format!("{} bandwidth", l.name), Unit::BytesPerSec)
                    .source(src(&format!("memory.levels.{i}.bandwidth"))),
            );
        }
        if let Some(lat) = l.latency {
            r.result(
                &format!("{k}_latency_cycles"),
                lat.get(),
                Quantity::new(format!("{} latency", l.name), Unit::Cycles)
                    .source(src(&format!("memory.levels.{i}.latency"))),
            );
        }
    }
    r.group_since(mark, "on-chip");
    mark = r.results.len();
    if let Some(ex) = &hw.execution {
        let sms = f64::from(ex.sms.get());
        let counts = [
            (
                "warp_size",
                "warp / wavefront size",
                "warp-size",
                Some(ex.warp_size),
            ),
            (
                "max_warps_per_sm",
                "resident warps per SM",
                "max-warps-per-sm",
                ex.max_warps_per_sm,
            ),
            (
                "max_threads_per_sm",
                "resident threads per SM",
                "max-threads-per-sm",
                ex.max_threads_per_sm,
            ),
            (
                "max_threads_per_block",
                "threads per block",
                "max-threads-per-block",
                ex.max_threads_per_block,
            ),
            (
                "max_blocks_per_sm",
                "resident blocks per SM",
                "max-blocks-per-sm",
                ex.max_blocks_per_sm,
            ),
            (
                "registers_per_sm",
                "32-bit registers per SM",
                "registers-per-sm",
                ex.registers_per_sm,
            ),
            (
                "max_registers_per_thread",
                "registers per thread",
                "max-registers-per-thread",
                ex.max_registers_per_thread,
            ),
            (
                "max_cluster_size",
                "portable cluster size",
                "max-cluster-size",
                ex.max_cluster_size,
            ),
        ];
        for (k, label, field, v) in counts {
            if let Some(v) = v {
                r.result(
                    k,
                    f64::from(v.get()),
                    Quantity::new(label, Unit::Count).source(src(&format!("execution.{field}"))),
                );
            }
        }
        for (k, label, field, v) in [
            (
                "smem_per_block_bytes",
                "shared memory per block (default)",
                "smem-per-block",
                ex.smem_per_block.map(|b| b.get()),
            ),
            (
                "smem_per_block_optin_bytes",
                "shared memory per block (opt-in)",
                "smem-per-block-optin",
                ex.smem_per_block_optin.map(|b| b.get()),
            ),
            (
                "reserved_smem_per_block_bytes",
                "reserved shared memory per block",
                "reserved-smem-per-block",
                ex.reserved_smem_per_block.map(|b| b.get()),
            ),
        ] {
            if let Some(v) = v {
                r.result(
                    k,
                    v,
                    Quantity::new(label, Unit::BytesIec).source(src(&format!("execution.{field}"))),
                );
            }
        }
        if let Some(l) = ex.fp32_lanes_per_sm {
            r.result(
                "fp32_lanes",
                sms * f64::from(l.get()),
                Quantity::new("FP32 lanes (CUDA cores)", Unit::Count)
                    .formula("SMs x FP32 lanes per SM")
                    .derive(format!("{} x {}", sms, l))
                    .source(src("execution.fp32-lanes-per-sm")),
            );
        }
        if let Some(t) = ex.tensor_cores_per_sm {
            r.result(
                "tensor_cores",
                sms * f64::from(t.get()),
                Quantity::new("tensor / matrix cores", Unit::Count)
                    .formula("SMs x tensor cores per SM")
                    .derive(format!("{} x {}", sms, t))
                    .source(src("execution.tensor-cores-per-sm")),
            );
        }
    }
    r.group_since(mark, "execution");
    mark = r.results.len();
    for (i, link) in hw.interconnect.iter().enumerate() {
        let k = key(&link.name);
        let per = if link.axes.is_some() { " per axis" } else { "" };
        let f = |x: &str| format!("interconnect.{i}.{x}");
        if let Some(b) = link.bidirectional_bandwidth {
            r.result(
                &format!("{k}_bidirectional_bytes_per_s"),
                b.get(),
                Quantity::new(
                    format!("{} ({}) both directions{per}", link.name, link.tier),
                    Unit::BytesPerSec,
                )
                .source(src(&f("bidirectional-bandwidth"))),
            );
        }
        if let Some(b) = link.per_direction_bandwidth {
            r.result(
                &format!("{k}_per_direction_bytes_per_s"),
                b.get(),
                Quantity::new(
                    format!("{} ({}) each way{per}", link.name, link.tier),
                    Unit::BytesPerSec,
                )
                .source(src(&f("per-direction-bandwidth"))),
            );
        }
        if let Some(d) = link.domain_size {
            let topo = link
                .topology
                .as_deref()
                .map_or(String::new(), |t| format!(", {t}"));
            r.result(
                &format!("{k}_domain_size"),
                f64::from(d.get()),
                Quantity::new(format!("{} domain{topo}", link.name), Unit::Count)
                    .source(src(&f("domain-size"))),
            );
        }
        if let Some(d) = link.max_domain_size {
            r.result(
                &format!("{k}_max_domain_size"),
                f64::from(d.get()),
                Quantity::new(format!("{} largest domain", link.name), Unit::Count)
                    .source(src(&f("max-domain-size"))),
            );
        }
        if let Some(b) = link.aggregate_bandwidth {
            r.result(
                &format!("{k}_aggregate_bytes_per_s"),
                b.get(),
                Quantity::new(format!("{} domain aggregate", link.name), Unit::BytesPerSec)
                    .source(src(&f("aggregate-bandwidth"))),
            );
        }
        if let Some(n) = link.axes {
            r.result(
                &format!("{k}_axes"),
                f64::from(n.get()),
                Quantity::new(format!("{} torus axes", link.name), Unit::Count)
                    .source(src(&f("axes"))),
            );
        }
        if let Some(n) = link.links {
            r.result(
                &format!("{k}_links"),
                f64::from(n.get()),
                Quantity::new(format!("{} links", link.name), Unit::Count).source(src(&f("links"))),
            );
        }
    }
    r.group_since(mark, "interconnect");
    mark = r.results.len();
    if let Some(l) = &hw.launch {
        for (k, label, field, v) in [
            ("launch_eager_s", "launch, eager", "launch.eager", l.eager),
            (
                "launch_graph_s",
                "launch, CUDA graph",
                "launch.graph",
                l.graph,
            ),
            (
                "launch_synchronised_s",
                "launch, synchronised",
                "launch.synchronised",
                l.synchronised,
            ),
        ] {
            if let Some(v) = v {
                r.result(
                    k,
                    v.get(),
                    Quantity::new(label, Unit::Seconds).source(src(field)),
                );
            }
        }
    }
    r.group_since(mark, "launch");
    mark = r.results.len();
    if let Some(p) = &hw.package {
        let counts = [
            (
                "compute_dies",
                "compute dies",
                "compute-dies",
                p.compute_dies.map(|x| f64::from(x.get())),
            ),
            (
                "io_dies",
                "I/O dies",
                "io-dies",
                p.io_dies.map(|x| f64::from(x.get())),
            ),
            (
                "hbm_stacks",
                "HBM stacks",
                "hbm-stacks",
                p.hbm_stacks.map(|x| f64::from(x.get())),
            ),
            (
                "transistors",
                "transistors",
                "transistors",
                p.transistors.map(|x| x.get() as f64),
            ),
            (
                "tdp_watts",
                "board power (W)",
                "tdp-watts",
                p.tdp_watts.map(|x| f64::from(x.get())),
            ),
        ];
        for (k, label, field, v) in counts {
            if let Some(v) = v {
                r.result(
                    k,
                    v,
                    Quantity::new(label, Unit::Count).source(src(&format!("package.{field}"))),
                );
            }
        }
        if let Some(b) = p.die_to_die_bandwidth {
            r.result(
                "die_to_die_bytes_per_s",
                b.get(),
                Quantity::new("die-to-die bandwidth", Unit::BytesPerSec)
                    .source(src("package.die-to-die-bandwidth")),
            );
        }
    }
    r.group_since(mark, "package");
    mark = r.results.len();
    if let Some(a) = &hw.achievable {
        if let Some(b) = a.hbm_bandwidth {
            r.result(
                "measured_hbm_bandwidth_bytes_per_s",
                b.get(),
                Quantity::new("memory bandwidth, measured", Unit::BytesPerSec)
                    .source(src("achievable.hbm-bandwidth")),
            );
        }
        for key in a.dense.keys() {
            if let Some(v) = a.dense.get(key) {
                r.result(
                    &format!("measured_{key}_flops_per_s"),
                    v,
                    Quantity::new(format!("{key} matmul, measured"), Unit::FlopPerSec)
                        .source(src(&format!("achievable.dense.{key}"))),
                );
            }
        }
        for (k, label, field, v) in [
            (
                "measured_l1_latency_s",
                "L1 latency, measured",
                "achievable.l1-latency",
                a.l1_latency,
            ),
            (
                "measured_l2_latency_s",
                "L2 latency, measured",
                "achievable.l2-latency",
                a.l2_latency,
            ),
            (
                "measured_dram_latency_s",
                "memory latency, measured",
                "achievable.dram-latency",
                a.dram_latency,
            ),
        ] {
            if let Some(v) = v {
                r.result(
                    k,
                    v.get(),
                    Quantity::new(label, Unit::Seconds).source(src(field)),
                );
            }
        }
        for (name, b) in &a.link_bandwidth {
            r.result(
                &format!("measured_{}_bytes_per_s", key(name)),
                b.get(),
                Quantity::new(format!("{name} bandwidth, measured"), Unit::BytesPerSec)
                    .source(src(&format!("achievable.link-bandwidth.{name}"))),
            );
        }
    }
    r.group_since(mark, "measured");
    mark = r.results.len();
    if let Some(h) = &hw.host {
        if let Some(d) = h.devices {
            r.result(
                "host_devices",
                f64::from(d.get()),
                Quantity::new("devices per host", Unit::Count).source(src("host.devices")),
            );
        }
        if let Some(v) = h.vcpus {
            r.result(
                "host_vcpus",
                f64::from(v.get()),
                Quantity::new("host vCPUs", Unit::Count).source(src("host.vcpus")),
            );
        }
        if let Some(m) = h.memory {
            r.result(
                "host_memory_bytes",
                m.get(),
                Quantity::new("host memory", Unit::Bytes).source(src("host.memory")),
            );
        }
    }
    r.group_since(mark, "host");
    r.order_groups(&[
        "compute",
        "memory",
        "on-chip",
        "execution",
        "interconnect",
        "launch",
        "package",
        "host",
        "measured",
    ]);
}

/// Peak at the file's default precision, for listings.
pub fn default_peak(hw: &Hardware) -> Option<(&'static Precision, f64)> {
    let p = hw.precision(None).ok()?;
    Some((p, hw.peak(p, Mode::SpeedOfLight).ok()?))
}

/// `hw list`: one row per accelerator with its summary.
pub fn list(items: &[Hardware]) -> Report {
    let mut r = Report::new("hw list");
    r.describe("id", Quantity::new("id", Unit::None));
    r.describe("name", Quantity::new("name", Unit::None));
    r.describe("kind", Quantity::new("kind", Unit::None));
    r.describe(
        "peak_flops_per_s",
        Quantity::new("peak (default dtype)", Unit::FlopPerSec),
    );
    r.describe(
        "hbm_bandwidth_bytes_per_s",
        Quantity::new("memory bandwidth", Unit::BytesPerSec),
    );
    r.describe("hbm_capacity_bytes", Quantity::new("memory", Unit::Bytes));
    r.describe("summary", Quantity::new("summary", Unit::None));
    for hw in items {
        let mut row = Row::default();
        row.inputs.insert("id".into(), hw.id.clone().into());
        row.results.insert("name".into(), hw.name.clone().into());
        row.results.insert("kind".into(), hw.kind.as_str().into());
        if let Some((p, pk)) = default_peak(hw) {
            row.results.insert("dtype".into(), p.name.into());
            row.results.insert("peak_flops_per_s".into(), pk.into());
        }
        if let Some(b) = hw.memory.hbm_bandwidth {
            row.results
                .insert("hbm_bandwidth_bytes_per_s".into(), b.get().into());
        }
        if let Some(c) = hw.memory.hbm_capacity {
            row.results
                .insert("hbm_capacity_bytes".into(), c.get().into());
        }
        if let Some(s) = &hw.summary {
            row.results.insert("summary".into(), s.clone().into());
        }
        r.rows.push(row);
    }
    r
}

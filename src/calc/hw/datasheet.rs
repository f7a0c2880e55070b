//! The rest of `hw show`'s report: every datasheet figure with its source
//! (clock, memory levels, limits, fabric tiers, launch costs, package).

use super::level_count;
use crate::precision;
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Scope};
use crate::units::{self, si};

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
pub(super) fn datasheet(r: &mut Report, hw: &Hardware, clock: Option<f64>) {
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
        // One meaning per key across parts: an SM's level is keyed per SM
        // (its chip total beside it); a die's or a core's level is keyed
        // for the chip, with the per-unit figure named by its unit, so an
        // MI355X's per-XCD L2 never sits in an H100's chip-wide `l2_bytes`.
        let (unit_key, total_key) = match l.scope {
            Scope::Sm | Scope::Chip => (format!("{k}_bytes"), format!("{k}_total_bytes")),
            Scope::Die => (format!("{k}_per_die_bytes"), format!("{k}_bytes")),
            Scope::Core => (format!("{k}_per_core_bytes"), format!("{k}_bytes")),
        };
        let chip_wide = matches!(l.scope, Scope::Die | Scope::Core);
        r.result(
            unit_key,
            l.capacity.get(),
            Quantity::new(
                format!("{} {}", l.name, scope_word(l.scope)),
                Unit::BytesIec,
            )
            .source(src(&cap_field)),
        );
        if n > 1.0 || chip_wide {
            r.result(
                total_key,
                l.capacity.get() * n,
                Quantity::new(format!("{} on the chip", l.name), Unit::BytesIec)
                    .formula(format!("{} x count", l.name))
                    .derive(format!("{} x {}", n, units::iec_bytes(l.capacity.get()))),
            );
        }
        if let (Some(bpc), Some(c)) = (l.bytes_per_cycle, clock) {
            r.result(
                format!("{k}_bandwidth_bytes_per_s"),
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
                format!("{k}_bandwidth_bytes_per_s"),
                b.get(),
                Quantity::new(format!("{} bandwidth", l.name), Unit::BytesPerSec)
                    .source(src(&format!("memory.levels.{i}.bandwidth"))),
            );
        }
        if let Some(lat) = l.latency {
            r.result(
                format!("{k}_latency_cycles"),
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
            // The rest of the section, so that every field the file holds
            // is printed (occupancy's allocation rules, the banks).
            (
                "max_cluster_size_nonportable",
                "non-portable cluster size",
                "max-cluster-size-nonportable",
                ex.max_cluster_size_nonportable,
            ),
            (
                "schedulers_per_sm",
                "warp schedulers per SM",
                "schedulers-per-sm",
                ex.schedulers_per_sm,
            ),
            (
                "max_registers_per_block",
                "registers per block",
                "max-registers-per-block",
                ex.max_registers_per_block,
            ),
            (
                "register_allocation_unit",
                "register allocation unit, per warp",
                "register-allocation-unit",
                ex.register_allocation_unit,
            ),
            (
                "warp_allocation_granularity",
                "warp allocation granularity",
                "warp-allocation-granularity",
                ex.warp_allocation_granularity,
            ),
            (
                "smem_banks",
                "shared-memory banks",
                "smem-banks",
                ex.smem_banks,
            ),
            (
                "sgprs_per_simd",
                "scalar registers per SIMD",
                "sgprs-per-simd",
                ex.sgprs_per_simd,
            ),
            (
                "sgpr_allocation_unit",
                "SGPR allocation unit",
                "sgpr-allocation-unit",
                ex.sgpr_allocation_unit,
            ),
            (
                "addressable_sgprs_per_wave",
                "addressable SGPRs per wave",
                "addressable-sgprs-per-wave",
                ex.addressable_sgprs_per_wave,
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
            (
                "smem_per_sm_bytes",
                "shared memory per SM",
                "smem-per-sm",
                ex.smem_per_sm.map(|b| b.get()),
            ),
            (
                "smem_allocation_unit_bytes",
                "shared-memory allocation unit",
                "smem-allocation-unit",
                ex.smem_allocation_unit.map(|b| b.get()),
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
        for (k, label, field, v) in [
            (
                "special_sgprs_per_wave",
                "special SGPRs per wave (VCC etc.)",
                "special-sgprs-per-wave",
                ex.special_sgprs_per_wave,
            ),
            (
                "trap_sgprs_per_wave",
                "trap-handler SGPRs per wave",
                "trap-sgprs-per-wave",
                ex.trap_sgprs_per_wave,
            ),
        ] {
            if let Some(v) = v {
                r.result(
                    k,
                    f64::from(v),
                    Quantity::new(label, Unit::Count).source(src(&format!("execution.{field}"))),
                );
            }
        }
        if !ex.smem_carveouts.is_empty() {
            // The list's length, not its text, so that the table keeps its
            // width; the sizes are in the file and in the occupancy report.
            r.result(
                "smem_carveout_count",
                ex.smem_carveouts.len() as f64,
                Quantity::new("shared-memory carveouts", Unit::Count)
                    .source(src("execution.smem-carveouts")),
            );
        }
        for (k, label, field, v) in [
            (
                "compute_capability",
                "compute capability",
                "compute-capability",
                ex.compute_capability.clone(),
            ),
            (
                "register_allocation_granularity",
                "register allocation granularity",
                "register-allocation-granularity",
                ex.register_allocation_granularity.clone(),
            ),
        ] {
            if let Some(v) = v {
                r.result(
                    k,
                    v,
                    Quantity::new(label, Unit::None).source(src(&format!("execution.{field}"))),
                );
            }
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
    if let Some(mu) = &hw.matrix_unit {
        // The shapes are text as long as a sentence (the Blackwell files'),
        // left to `matmul --mma`; the counts are printed.
        for (k, label, field, v) in [
            (
                "macs_per_array",
                "multiply-accumulators per array",
                "macs-per-array",
                mu.macs_per_array,
            ),
            (
                "arrays_per_core",
                "matrix arrays per core",
                "arrays-per-core",
                mu.arrays_per_core,
            ),
        ] {
            if let Some(v) = v {
                r.result(
                    k,
                    f64::from(v.get()),
                    Quantity::new(label, Unit::Count).source(src(&format!("matrix-unit.{field}"))),
                );
            }
        }
        if let Some(v) = &mu.vector_register {
            r.result(
                "vector_register",
                v.clone(),
                Quantity::new("vector register shape", Unit::None)
                    .source(src("matrix-unit.vector-register")),
            );
        }
    }
    r.group_since(mark, "execution");
    mark = r.results.len();
    for (i, link) in hw.interconnect.iter().enumerate() {
        let k = key(&link.name);
        let per = " per device";
        let f = |x: &str| format!("interconnect.{i}.{x}");
        if let Some(b) = link.bidirectional_bandwidth {
            r.result(
                format!("{k}_bidirectional_bytes_per_s"),
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
                format!("{k}_per_direction_bytes_per_s"),
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
                format!("{k}_domain_size"),
                f64::from(d.get()),
                Quantity::new(format!("{} domain{topo}", link.name), Unit::Count)
                    .source(src(&f("domain-size"))),
            );
        }
        if let Some(d) = link.max_domain_size {
            r.result(
                format!("{k}_max_domain_size"),
                f64::from(d.get()),
                Quantity::new(format!("{} largest domain", link.name), Unit::Count)
                    .source(src(&f("max-domain-size"))),
            );
        }
        if let Some(b) = link.aggregate_bandwidth {
            r.result(
                format!("{k}_aggregate_bytes_per_s"),
                b.get(),
                Quantity::new(format!("{} domain aggregate", link.name), Unit::BytesPerSec)
                    .source(src(&f("aggregate-bandwidth"))),
            );
        }
        if let Some(n) = link.axes {
            r.result(
                format!("{k}_axes"),
                f64::from(n.get()),
                Quantity::new(format!("{} torus axes", link.name), Unit::Count)
                    .source(src(&f("axes"))),
            );
        }
        if let Some(n) = link.links {
            r.result(
                format!("{k}_links"),
                f64::from(n.get()),
                Quantity::new(format!("{} links", link.name), Unit::Count).source(src(&f("links"))),
            );
            if let Some(a) = link.axes {
                r.result(
                    format!("{k}_links_per_axis"),
                    f64::from(n.get()) / f64::from(a.get()),
                    Quantity::new(format!("{} links per torus axis", link.name), Unit::Count)
                        .formula("links / axes")
                        .derive(format!("{n} / {a}")),
                );
            }
        }
        if let Some(b) = link.link_bandwidth {
            r.result(
                format!("{k}_link_bidirectional_bytes_per_s"),
                b.get(),
                Quantity::new(
                    format!("{} one link, both directions", link.name),
                    Unit::BytesPerSec,
                )
                .source(src(&f("link-bandwidth"))),
            );
            if let Some(a) = link.axes
                && let Some(n) = link.links
            {
                r.result(
                    format!("{k}_axis_bidirectional_bytes_per_s"),
                    b.get() * f64::from(n.get()) / f64::from(a.get()),
                    Quantity::new(
                        format!("{} one torus axis, both directions", link.name),
                        Unit::BytesPerSec,
                    )
                    .formula("link bandwidth x links per axis")
                    .derive(format!(
                        "{} x {}",
                        si(b.get(), "B/s"),
                        f64::from(n.get()) / f64::from(a.get())
                    )),
                );
            }
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
                let integer = precision::lookup(key).is_ok_and(|p| p.integer());
                r.result(
                    format!("measured_{key}_flops_per_s"),
                    v,
                    Quantity::new(
                        format!("{key} matmul, measured"),
                        Unit::FlopPerSec.ops_if(integer),
                    )
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
                format!("measured_{}_bytes_per_s", key(name)),
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

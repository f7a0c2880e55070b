//! `engine list` and `engine show`: the catalog of serving engines and one
//! engine's profile, each field with its source (formulas.md, "Engines:
//! how a profile turns into kernels").

use crate::report::{Quantity, Report, Row, RowsKind, Unit};
use crate::spec::engine::{AllReduceAlgorithm, Dispatch, Engine};

/// The profile's fields as (key, value, file field) for a report.
fn fields(e: &Engine) -> Vec<(&'static str, serde_json::Value, &'static str, &'static str)> {
    let f = &e.fusion;
    let g = &e.moe.grouped;
    let a = &e.all_reduce;
    let mut out: Vec<(&'static str, serde_json::Value, &'static str, &'static str)> = vec![
        (
            "fused_norm_residual",
            f.norm_residual.into(),
            "fusion.norm-residual",
            "residual add inside the norm",
        ),
        (
            "fused_rotary",
            f.rotary.into(),
            "fusion.rotary",
            "rotary embedding as one kernel",
        ),
        (
            "fused_gate_up_activation",
            f.gate_up_activation.into(),
            "fusion.gate-up-activation",
            "SiLU x up as one kernel",
        ),
        (
            "fused_qkv",
            f.qkv.into(),
            "fusion.qkv",
            "q, k, v as one GEMM",
        ),
        (
            "fused_kv_write",
            f.kv_write.into(),
            "fusion.kv-write",
            "keys and values cached by one kernel",
        ),
        (
            "norm_one_pass",
            f.norm_one_pass.into(),
            "fusion.norm-one-pass",
            "one-pass norm kernel (pointwise class)",
        ),
        (
            "moe_dispatch",
            e.moe.dispatch.as_str().into(),
            "moe.dispatch",
            "expert dispatch",
        ),
    ];
    let count = |v: Option<u32>| v.map_or(serde_json::Value::Null, Into::into);
    out.extend([
        (
            "routing_kernels",
            count(g.routing_kernels),
            "moe.grouped.routing-kernels",
            "grouped: routing kernels a layer",
        ),
        (
            "permute_kernels",
            count(g.permute_kernels),
            "moe.grouped.permute-kernels",
            "grouped: permute kernels a layer",
        ),
        (
            "combine_kernels",
            count(g.combine_kernels),
            "moe.grouped.combine-kernels",
            "grouped: combine kernels a layer",
        ),
        (
            "gemm_kernels",
            count(g.gemm_kernels),
            "moe.grouped.gemm-kernels",
            "grouped: kernels a grouped GEMM call",
        ),
        (
            "gather_in_gemm",
            g.gather_in_gemm.into(),
            "moe.grouped.gather-in-gemm",
            "grouped: the GEMM gathers its rows",
        ),
        (
            "scale_in_gemm",
            g.scale_in_gemm.into(),
            "moe.grouped.scale-in-gemm",
            "grouped: the GEMM scales by the routing weights",
        ),
        (
            "scatter_in_gemm",
            g.scatter_in_gemm.into(),
            "moe.grouped.scatter-in-gemm",
            "grouped: the GEMM writes in token order",
        ),
    ]);
    out.push((
        "weight_stream_fraction",
        g.weight_stream_fraction
            .map_or(serde_json::Value::Null, Into::into),
        "moe.grouped.weight-stream-fraction",
        "grouped GEMM's share of the bandwidth",
    ));
    out.push((
        "dequant_stream_fraction",
        g.dequant_stream_fraction
            .map_or(serde_json::Value::Null, Into::into),
        "moe.grouped.dequant-stream-fraction",
        "grouped GEMM's share of the bandwidth, 4-bit weights dequantized in the kernel",
    ));
    out.push((
        "attention_kernel",
        e.attention
            .kernel
            .clone()
            .map_or(serde_json::Value::Null, Into::into),
        "attention.kernel",
        "attention kernel",
    ));
    out.push((
        "attention_path",
        e.attention.path.as_str().into(),
        "attention.path",
        "attention path (flash: scores on chip; eager: written out)",
    ));
    out.push((
        "all_reduce_algorithm",
        match a.algorithm {
            AllReduceAlgorithm::Nccl => "nccl",
            AllReduceAlgorithm::Custom => "custom",
        }
        .into(),
        "all-reduce.algorithm",
        "all-reduce",
    ));
    let bytes =
        |b: Option<crate::spec::Bytes>| b.map_or(serde_json::Value::Null, |b| b.get().into());
    out.extend([
        (
            "one_shot_max_bytes",
            bytes(a.one_shot_max_bytes),
            "all-reduce.one-shot-max-bytes",
            "one-shot up to (few devices)",
        ),
        (
            "one_shot_large_max_bytes",
            bytes(a.one_shot_max_bytes_large),
            "all-reduce.one-shot-max-bytes-large",
            "one-shot up to (more devices)",
        ),
        (
            "custom_max_bytes",
            bytes(a.max_bytes),
            "all-reduce.max-bytes",
            "custom kernel's largest message",
        ),
    ]);
    out.push((
        "all_reduce_latency_s",
        a.latency
            .map_or(serde_json::Value::Null, |s| s.get().into()),
        "all-reduce.latency",
        "custom all-reduce latency a pass",
    ));
    out.push((
        "graph_decode",
        e.graphs.decode.into(),
        "graphs.decode",
        "decode replays from a CUDA graph",
    ));
    out
}

/// `engine show`: one engine's profile.
pub fn show(e: &Engine, lean: bool) -> Report {
    let mut r = Report::new_lean("engine show", lean);
    r.input("engine", e.id.as_str());
    r.result("name", e.name.as_str(), || {
        Quantity::new("name", Unit::None)
    });
    // A figure the file leaves out is left out of the report.
    for (key, value, field, label) in fields(e).into_iter().filter(|f| !f.1.is_null()) {
        let unit = if key.ends_with("_bytes") {
            Unit::Bytes
        } else if key.ends_with("_s") {
            Unit::Seconds
        } else {
            Unit::None
        };
        let source = e.source(field).map(|s| format!("{field}: {s}"));
        r.result(key, value, || {
            Quantity::new(label, unit).source(source.as_deref())
        });
    }
    if let Some(s) = &e.summary {
        r.note(s.clone());
    }
    r
}

/// `engine list`: one row per engine of the catalog.
pub fn list(engines: &[Engine]) -> Report {
    let mut r = Report::new("engine list");
    r.rows_kind = Some(RowsKind::Table);
    for (k, label) in [
        ("id", "id"),
        ("name", "name"),
        ("moe_dispatch", "expert dispatch"),
        ("fused", "fused"),
        ("all_reduce_algorithm", "all-reduce"),
    ] {
        r.describe(k, || Quantity::new(label, Unit::None));
    }
    for e in engines {
        let fused = e.fusion.names();
        let mut row = Row::default();
        row.inputs.insert("id".into(), e.id.as_str().into());
        row.results.insert("name".into(), e.name.as_str().into());
        row.results
            .insert("moe_dispatch".into(), e.moe.dispatch.as_str().into());
        row.results.insert("fused".into(), fused.join(", ").into());
        row.results.insert(
            "all_reduce_algorithm".into(),
            match e.all_reduce.algorithm {
                AllReduceAlgorithm::Nccl => "nccl",
                AllReduceAlgorithm::Custom => "custom",
            }
            .into(),
        );
        r.rows.push(row);
    }
    r.note("the default engine is pytorch; choose another with --engine ID or a path");
    r
}

/// The note a step's report carries when its point names an engine: the
/// kernels it fuses, how it runs the MoE experts, its attention kernel
/// (formulas.md, "Engines").
pub fn note(e: &Engine) -> String {
    let fused = e.fusion.names();
    let g = &e.moe.grouped;
    let moe = match e.moe.dispatch {
        Dispatch::Loop => "experts in a loop (8 kernels a touched expert)".to_string(),
        Dispatch::Grouped => format!(
            "experts grouped: 2 grouped GEMMs a layer, {} routing, {} permute, {} combine kernels, {} a GEMM call",
            g.routing_kernels.unwrap_or(0),
            g.permute_kernels.unwrap_or(0),
            g.combine_kernels.unwrap_or(0),
            g.gemm_kernels.unwrap_or(0)
        ),
    };
    let attention = if e.attention.path == crate::spec::engine::AttentionPath::Eager {
        "with its scores written out (eager path: repeat_kv copies, the score matrix and its softmax kernels)"
    } else if e.attention.path == crate::spec::engine::AttentionPath::Flex {
        "FlexAttention (flex path: the block mask's tiles, the output copied, sinks by the log-sum-exp)"
    } else {
        e.attention
            .kernel
            .as_deref()
            .unwrap_or("as the hardware file measured")
    };
    format!(
        "engine {}: fused {}; {moe}; attention {attention} (formulas.md, \"Engines\")",
        e.id,
        fused.join(", "),
    )
}

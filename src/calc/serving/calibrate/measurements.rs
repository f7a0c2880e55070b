//! Reading a measurement file of `validation/calibrate.py` (the CSV schema
//! of `docs/data-schemas.md`, "Calibration measurements"): every row checked
//! for what the fit needs, every problem named by file, line and column.

use crate::error::{Error, Result};

/// What one row measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operation {
    /// A read-only stream over `bytes`.
    HbmRead,
    /// A device-to-device copy; `bytes` counts read plus written.
    HbmCopy,
    /// A one-element kernel, per launch mode.
    Launch,
    /// One GEMM of m x n x k.
    Gemm,
    /// One grouped GEMM (`torch._grouped_mm`): `batch` groups (experts) of
    /// m x n x k each, in one call of `kernels` kernels.
    GroupedGemm,
    /// Causal flash attention over `seq` tokens.
    AttentionPrefill,
    /// One query token over a KV cache of `context` tokens.
    AttentionDecode,
    /// A short compute-bound loop (the burst clock).
    ComputeShort,
    /// A long compute-bound loop (the power-limited clock).
    ComputeSustained,
    /// A whole decode step of a catalog model.
    DecodeStep,
    /// A whole prefill of `seq` tokens per sequence of a catalog model.
    PrefillStep,
    /// One GEMM's work split into `kernels` GEMMs of m x n x k (`bytes` in
    /// all), replayed from a graph: the kernel-count sweep the kernel
    /// overhead is fitted from.
    KernelSweep,
    /// The host's path of one GEMM call from Python.
    HostGemm,
    /// The host's path of one elementwise call (`kernels` it launches).
    HostKernel,
    /// The host's path of one decode attention call.
    HostAttention,
    /// The host's path of the attention op of a pass over a cached prefix.
    HostCachedAttention,
    /// Every `host_*` call of the file once, interleaved, per cycle.
    HostLayer,
    /// Kernels of one class in a profiled step (`kernel-fixed`): their
    /// mean duration, how many ran (`kernels`) and the bytes each moves.
    Kernel(KernelClass),
    /// Spin kernels back to back: a GPU waiting (power loop).
    PowerWait,
    /// Device-to-device copies back to back (power loop).
    PowerStream,
    /// GEMMs, each followed by a spin of `wait_seconds` (power loop).
    PowerGemm,
    /// Causal attention back to back (power loop).
    PowerAttention,
}

/// The kernel classes whose fixed time `[achievable.kernel-fixed]` carries,
/// by their key there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KernelClass {
    /// A row-wise norm.
    Norm,
    /// A pointwise kernel.
    Pointwise,
    /// A cache write.
    KvWrite,
    /// The attention kernel.
    Attention,
    /// A split attention's combine kernel.
    Combine,
    /// A device-to-device copy.
    Copy,
}

impl KernelClass {
    /// Every class, in the schema's order.
    pub const ALL: [KernelClass; 6] = [
        KernelClass::Norm,
        KernelClass::Pointwise,
        KernelClass::KvWrite,
        KernelClass::Attention,
        KernelClass::Combine,
        KernelClass::Copy,
    ];

    /// Its key under `achievable.kernel-fixed`.
    pub fn key(self) -> &'static str {
        match self {
            KernelClass::Norm => "norm",
            KernelClass::Pointwise => "pointwise",
            KernelClass::KvWrite => "kv-write",
            KernelClass::Attention => "attention",
            KernelClass::Combine => "combine",
            KernelClass::Copy => "copy",
        }
    }
}

/// The names the file uses, in the order the schema lists them.
pub const OPERATIONS: [(&str, Operation); 27] = [
    ("hbm_read", Operation::HbmRead),
    ("hbm_copy", Operation::HbmCopy),
    ("launch", Operation::Launch),
    ("gemm", Operation::Gemm),
    ("grouped_gemm", Operation::GroupedGemm),
    ("attention_prefill", Operation::AttentionPrefill),
    ("attention_decode", Operation::AttentionDecode),
    ("compute_short", Operation::ComputeShort),
    ("compute_sustained", Operation::ComputeSustained),
    ("decode_step", Operation::DecodeStep),
    ("prefill_step", Operation::PrefillStep),
    ("kernel_sweep", Operation::KernelSweep),
    ("host_gemm", Operation::HostGemm),
    ("host_kernel", Operation::HostKernel),
    ("host_attention", Operation::HostAttention),
    ("host_cached_attention", Operation::HostCachedAttention),
    ("host_layer", Operation::HostLayer),
    ("kernel_norm", Operation::Kernel(KernelClass::Norm)),
    (
        "kernel_pointwise",
        Operation::Kernel(KernelClass::Pointwise),
    ),
    ("kernel_kv_write", Operation::Kernel(KernelClass::KvWrite)),
    (
        "kernel_attention",
        Operation::Kernel(KernelClass::Attention),
    ),
    ("kernel_combine", Operation::Kernel(KernelClass::Combine)),
    ("kernel_copy", Operation::Kernel(KernelClass::Copy)),
    ("power_wait", Operation::PowerWait),
    ("power_stream", Operation::PowerStream),
    ("power_gemm", Operation::PowerGemm),
    ("power_attention", Operation::PowerAttention),
];

impl Operation {
    /// The file's name for it.
    pub fn name(self) -> &'static str {
        OPERATIONS
            .iter()
            .find(|(_, o)| *o == self)
            .map_or("?", |(n, _)| n)
    }

    /// The shape columns a row of this operation must fill (positive
    /// integers), besides `seconds`.
    fn needs(self) -> &'static [&'static str] {
        match self {
            Operation::HbmRead | Operation::HbmCopy => &["bytes"],
            Operation::Launch => &[],
            Operation::Gemm => &["m", "n", "k"],
            Operation::GroupedGemm => &["batch", "m", "n", "k"],
            Operation::AttentionPrefill => &["batch", "seq", "heads", "kv_heads", "head_dim"],
            Operation::AttentionDecode => &["batch", "context", "heads", "kv_heads", "head_dim"],
            Operation::ComputeShort | Operation::ComputeSustained => &["m", "n", "k"],
            Operation::DecodeStep => &["layers", "batch", "context"],
            Operation::PrefillStep => &["layers", "batch", "seq"],
            Operation::KernelSweep => &["m", "n", "k", "kernels", "bytes"],
            Operation::HostKernel => &["kernels"],
            Operation::Kernel(_) => &["kernels", "bytes"],
            Operation::PowerWait => &["burst_seconds", "power_w", "sm_clock_mhz"],
            Operation::PowerStream => &["bytes", "burst_seconds", "power_w", "sm_clock_mhz"],
            Operation::PowerGemm => &[
                "m",
                "n",
                "k",
                "burst_seconds",
                "wait_seconds",
                "power_w",
                "sm_clock_mhz",
            ],
            Operation::PowerAttention => &[
                "batch",
                "seq",
                "heads",
                "kv_heads",
                "head_dim",
                "burst_seconds",
                "power_w",
                "sm_clock_mhz",
            ],
            Operation::HostGemm
            | Operation::HostAttention
            | Operation::HostCachedAttention
            | Operation::HostLayer => &[],
        }
    }
}

/// How the measured kernels were launched: eager (back to back from
/// Python, CUDA events around the calls), synchronised (each call followed
/// by a synchronise, host clock) or graph (replayed from a CUDA graph).
pub use crate::calc::launch::LaunchMode;

/// One measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1-based line in the file.
    pub line: usize,
    /// What was measured.
    pub op: Operation,
    /// Catalog model id (decode steps).
    pub model: Option<String>,
    /// Layers run (decode steps).
    pub layers: Option<u64>,
    /// Sequences.
    pub batch: Option<u64>,
    /// GEMM rows.
    pub m: Option<u64>,
    /// GEMM columns.
    pub n: Option<u64>,
    /// GEMM depth.
    pub k: Option<u64>,
    /// Prompt tokens (prefill attention).
    pub seq: Option<u64>,
    /// Cached tokens (decode attention and steps).
    pub context: Option<u64>,
    /// Query heads.
    pub heads: Option<u64>,
    /// KV heads.
    pub kv_heads: Option<u64>,
    /// Head dimension.
    pub head_dim: Option<u64>,
    /// Bytes the operation moves, as the script counts them.
    pub bytes: Option<f64>,
    /// FLOPs it does.
    pub flops: Option<f64>,
    /// Precision (`bf16`, `fp8`, `fp32`).
    pub dtype: String,
    /// Launch mode.
    pub launch: LaunchMode,
    /// Seconds per operation (median).
    pub seconds: f64,
    /// Mean SM clock over the loop, MHz.
    pub sm_clock_mhz: Option<f64>,
    /// Mean board power over the loop, W.
    pub power_w: Option<f64>,
    /// Kernels one call launches (`host_kernel`).
    pub kernels: Option<u64>,
    /// A power loop's first call, before the limit acts, s.
    pub burst_seconds: Option<f64>,
    /// The spin's time within a `power_gemm` call, s.
    pub wait_seconds: Option<f64>,
}

/// What every row of a file shares.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    /// The device name the runtime reported.
    pub device: String,
    /// The driver version.
    pub driver: String,
    /// The framework version.
    pub torch: String,
    /// When it was measured (the first row's date).
    pub date: String,
}

/// A parsed measurement file.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurements {
    /// The rows, in file order.
    pub rows: Vec<Row>,
    /// Device, driver, framework, date.
    pub provenance: Provenance,
}

/// Columns every file has.
const REQUIRED: [&str; 7] = [
    "operation",
    "dtype",
    "launch",
    "seconds",
    "device",
    "driver",
    "date",
];

/// Precisions a row may name.
const DTYPES: [&str; 6] = ["bf16", "fp16", "fp32", "fp8", "int8", "tf32"];

/// Splits one CSV line (RFC 4180 quoting: fields in double quotes may hold
/// commas, a doubled quote is a quote).
fn split_line(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (true, c) => cur.push(c),
            (false, '"') if cur.is_empty() => quoted = true,
            (false, ',') => out.push(std::mem::take(&mut cur)),
            (false, c) => cur.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed on its line".into());
    }
    out.push(cur);
    Ok(out)
}

/// Parses the text of a measurement file called `file` in messages.
pub fn parse(text: &str, file: &str) -> Result<Measurements> {
    let err =
        |line: usize, field: &str, message: String| Error::at_line(file, line, field, message);
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((hline, header)) = lines.next() else {
        return Err(err(
            1,
            "operation",
            "the file is empty; expected a header line naming the columns (docs/data-schemas.md, \"Calibration measurements\")".into(),
        ));
    };
    let cols = split_line(header).map_err(|m| err(hline, "header", m))?;
    let cols: Vec<String> = cols.into_iter().map(|c| c.trim().to_string()).collect();
    for r in REQUIRED {
        if !cols.iter().any(|c| c == r) {
            return Err(err(
                hline,
                r,
                format!(
                    "the header has no `{r}` column; a measurement file has {}",
                    REQUIRED.join(", ")
                ),
            ));
        }
    }
    let idx = |name: &str| cols.iter().position(|c| c == name);
    let mut rows = Vec::new();
    let mut provenance: Option<(Provenance, usize)> = None;
    for (line, text) in lines {
        let fields = split_line(text).map_err(|m| err(line, "row", m))?;
        if fields.len() != cols.len() {
            return Err(err(
                line,
                "row",
                format!(
                    "{} fields where the header names {} columns",
                    fields.len(),
                    cols.len()
                ),
            ));
        }
        let get = |name: &str| -> &str { idx(name).map_or("", |i| fields[i].trim()) };
        let op_name = get("operation");
        let Some(op) = OPERATIONS
            .iter()
            .find(|(n, _)| *n == op_name)
            .map(|(_, o)| *o)
        else {
            let known: Vec<&str> = OPERATIONS.iter().map(|(n, _)| *n).collect();
            return Err(err(
                line,
                "operation",
                format!(
                    "`{}` is not an operation the model knows; expected one of {}",
                    crate::units::excerpt(op_name, 40),
                    known.join(", ")
                ),
            ));
        };
        let number = |name: &str| -> Result<Option<f64>> {
            let v = get(name);
            if v.is_empty() {
                return Ok(None);
            }
            match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(Some(x)),
                _ => Err(err(
                    line,
                    name,
                    format!(
                        "`{}` is not a plain number; the file carries base units (seconds, bytes, FLOPs) without a unit suffix",
                        crate::units::excerpt(v, 40)
                    ),
                )),
            }
        };
        let count = |name: &str| -> Result<Option<u64>> {
            match number(name)? {
                None => Ok(None),
                Some(x) if x >= 1.0 && x.fract() == 0.0 && x < 2f64.powi(53) => Ok(Some(x as u64)),
                Some(x) => Err(err(
                    line,
                    name,
                    format!("{x} is not a positive whole number"),
                )),
            }
        };
        let seconds = match number("seconds")? {
            Some(s) if s > 0.0 => s,
            Some(s) => {
                return Err(err(
                    line,
                    "seconds",
                    format!("{s} s: a measured time is positive"),
                ));
            }
            None => return Err(err(line, "seconds", "no time given".into())),
        };
        for need in op.needs() {
            if get(need).is_empty() {
                return Err(err(
                    line,
                    need,
                    format!("a `{}` row needs its `{need}`", op.name()),
                ));
            }
        }
        let dtype = get("dtype").to_string();
        if !DTYPES.contains(&dtype.as_str()) {
            return Err(err(
                line,
                "dtype",
                format!(
                    "`{}` is not a precision; expected one of {}",
                    crate::units::excerpt(&dtype, 40),
                    DTYPES.join(", ")
                ),
            ));
        }
        let launch = match get("launch") {
            "eager" => LaunchMode::Eager,
            "synchronised" | "synchronized" => LaunchMode::Synchronised,
            "graph" => LaunchMode::Graph,
            other => {
                return Err(err(
                    line,
                    "launch",
                    format!(
                        "`{}` is not a launch mode; expected eager, synchronised or graph",
                        crate::units::excerpt(other, 40)
                    ),
                ));
            }
        };
        let p = Provenance {
            device: get("device").to_string(),
            driver: get("driver").to_string(),
            torch: get("torch").to_string(),
            date: get("date").to_string(),
        };
        if p.device.is_empty() {
            return Err(err(line, "device", "no device name given".into()));
        }
        match &provenance {
            None => provenance = Some((p, line)),
            Some((first, at)) if first.device != p.device => {
                return Err(err(
                    line,
                    "device",
                    format!(
                        "`{}` differs from line {at}'s `{}`: one file holds one device's measurements",
                        crate::units::excerpt(&p.device, 40),
                        crate::units::excerpt(&first.device, 40)
                    ),
                ));
            }
            Some(_) => {}
        }
        let row = Row {
            line,
            op,
            model: Some(get("model").to_string()).filter(|s| !s.is_empty()),
            layers: count("layers")?,
            batch: count("batch")?,
            m: count("m")?,
            n: count("n")?,
            k: count("k")?,
            seq: count("seq")?,
            context: count("context")?,
            heads: count("heads")?,
            kv_heads: count("kv_heads")?,
            head_dim: count("head_dim")?,
            bytes: number("bytes")?,
            flops: number("flops")?,
            dtype,
            launch,
            seconds,
            sm_clock_mhz: number("sm_clock_mhz")?,
            power_w: number("power_w")?,
            kernels: count("kernels")?,
            burst_seconds: number("burst_seconds")?,
            wait_seconds: number("wait_seconds")?,
        };
        for (name, v, what) in [
            ("bytes", row.bytes, ""),
            ("flops", row.flops, ""),
            ("burst_seconds", row.burst_seconds, " (a time)"),
            ("power_w", row.power_w, " (board power, W)"),
            ("sm_clock_mhz", row.sm_clock_mhz, " (a clock, MHz)"),
        ] {
            if v.is_some_and(|v| v <= 0.0) {
                return Err(err(line, name, format!("must be positive{what}")));
            }
        }
        if let Some(w) = row.wait_seconds
            && !(w >= 0.0 && w < row.burst_seconds.unwrap_or(f64::INFINITY) && w < seconds)
        {
            return Err(err(
                line,
                "wait_seconds",
                format!(
                    "{w} s: the spin's share of a call is at least 0 and less than the call ({} s settled, {} s first)",
                    seconds,
                    row.burst_seconds.map_or("?".into(), |b| b.to_string())
                ),
            ));
        }
        if matches!(op, Operation::DecodeStep | Operation::PrefillStep) && row.model.is_none() {
            return Err(err(
                line,
                "model",
                format!("a `{}` row names its catalog model", op.name()),
            ));
        }
        if let (Some(h), Some(kv)) = (row.heads, row.kv_heads)
            && (kv > h || h % kv != 0)
        {
            return Err(err(
                line,
                "kv_heads",
                format!("{kv} KV heads do not divide {h} query heads"),
            ));
        }
        rows.push(row);
    }
    let Some((provenance, _)) = provenance else {
        return Err(err(
            hline,
            "operation",
            "the file has a header and no measurements".into(),
        ));
    };
    Ok(Measurements { rows, provenance })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "operation,model,layers,batch,m,n,k,seq,context,heads,kv_heads,head_dim,bytes,flops,dtype,launch,repeats,seconds,sm_clock_mhz,mem_clock_mhz,power_w,temperature_c,device,driver,torch,date,note";

    fn one(row: &str) -> Result<Measurements> {
        parse(&format!("{HEAD}\n{row}\n"), "m.csv")
    }

    fn field_of(e: Error) -> (Option<usize>, Option<String>) {
        match e {
            Error::Data { line, field, .. } => (line, field),
            e => panic!("not a data error: {e}"),
        }
    }

    #[test]
    fn a_quoted_note_with_commas_is_one_field() {
        let m = one("gemm,,,,1,4096,4096,,,,,,1,1,bf16,graph,5,1.0e-05,,,,,NVIDIA H200,580,2.11,2026-12-01,\"a, b\"").unwrap();
        assert_eq!(m.rows[0].m, Some(1));
        assert_eq!(m.provenance.device, "NVIDIA H200");
    }

    #[test]
    fn a_time_with_a_unit_names_line_and_column() {
        let e = one(
            "gemm,,,,1,4096,4096,,,,,,1,1,bf16,graph,5,10 us,,,,,NVIDIA H200,580,2.11,2026-12-01,",
        )
        .unwrap_err();
        assert_eq!(field_of(e), (Some(2), Some("seconds".into())));
    }

    #[test]
    fn zero_and_negative_times_are_refused() {
        for t in ["0", "-1e-6"] {
            let e = one(&format!(
                "gemm,,,,1,4096,4096,,,,,,1,1,bf16,graph,5,{t},,,,,D,580,2.11,2026-12-01,"
            ))
            .unwrap_err();
            assert_eq!(field_of(e).1.as_deref(), Some("seconds"));
        }
    }

    #[test]
    fn a_gemm_without_k_is_refused() {
        let e = one("gemm,,,,1,4096,,,,,,,1,1,bf16,graph,5,1e-5,,,,,D,580,2.11,2026-12-01,")
            .unwrap_err();
        assert_eq!(field_of(e), (Some(2), Some("k".into())));
    }

    #[test]
    fn an_unknown_operation_is_refused() {
        let e = one("conv2d,,,,1,1,1,,,,,,1,1,bf16,graph,5,1e-5,,,,,D,580,2.11,2026-12-01,")
            .unwrap_err();
        assert_eq!(field_of(e).1.as_deref(), Some("operation"));
    }

    #[test]
    fn a_missing_column_is_named() {
        let e = parse("operation,dtype,launch,device,driver,date\n", "m.csv").unwrap_err();
        assert_eq!(field_of(e), (Some(1), Some("seconds".into())));
    }

    #[test]
    fn two_devices_in_one_file_are_refused() {
        let a = "hbm_read,,,,,,,,,,,,1e9,,fp32,eager,5,2.5e-4,,,,,NVIDIA H200,580,2.11,2026-12-01,";
        let b = "hbm_read,,,,,,,,,,,,1e9,,fp32,eager,5,2.5e-4,,,,,NVIDIA H100,580,2.11,2026-12-01,";
        let e = parse(&format!("{HEAD}\n{a}\n{b}\n"), "m.csv").unwrap_err();
        assert_eq!(field_of(e), (Some(3), Some("device".into())));
    }
}

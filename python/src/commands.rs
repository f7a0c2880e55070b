//! One Python function per command, each a thin conversion: its keyword
//! arguments (named as scenario-file fields, `-` written `_`) become the
//! library's fields, and the library's dispatch answers. The argument
//! docs below are the docstrings Python shows.

use crate::convert::{field_value, set_texts, to_py};
use crate::errors::OrRaise;
use crate::report::{Asked, Report};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use roofline::inputs::Fields;
use roofline::spec::hardware::Mode;
use roofline::sweep::Axis;
use serde_json::Value;

/// Fields from (name, value) pairs: `None` is left out, `kv_dtype` is
/// `kv-dtype`; an edited hardware or model adds its `--set`s. A list is an
/// axis, in the order given (`hw` and `model` lists stay fields, which the
/// library makes the outermost axes, as the CLI's comparisons are).
fn fields<'py>(
    args: impl IntoIterator<Item = (String, Bound<'py, PyAny>)>,
    sets: &mut Vec<String>,
    axes: &mut Vec<Axis>,
) -> PyResult<Fields> {
    let mut f = Fields::new();
    for (name, v) in args {
        if v.is_none() {
            continue;
        }
        let key = name.replace('_', "-");
        let c = field_value(&key, &v, false)?;
        for s in c.sets {
            if !sets.contains(&s) {
                sets.push(s);
            }
        }
        match c.value {
            Value::Array(values) if key != "hw" && key != "model" => {
                axes.push(Axis::list(key, values))
            }
            v => {
                f.insert(key, v);
            }
        }
    }
    Ok(f)
}

fn asked<'py>(
    command: &str,
    args: impl IntoIterator<Item = (String, Bound<'py, PyAny>)>,
    achievable: bool,
    set: Option<&Bound<'py, PyAny>>,
) -> PyResult<Asked> {
    let mut sets = set_texts(set)?;
    let mut axes = Vec::new();
    let fields = fields(args, &mut sets, &mut axes)?;
    Ok(Asked {
        command: command.to_string(),
        fields,
        axes,
        sets,
        mode: if achievable {
            Mode::Achievable
        } else {
            Mode::SpeedOfLight
        },
    })
}

/// Runs a command over its arguments.
fn run<'py>(
    py: Python<'py>,
    command: &str,
    args: Vec<(&str, Option<Bound<'py, PyAny>>)>,
    achievable: bool,
    set: Option<&Bound<'py, PyAny>>,
) -> PyResult<Report> {
    let args = args
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)));
    let a = asked(command, args, achievable, set)?;
    let mut reports = a.evaluate(py, false)?;
    Ok(Report {
        inner: reports.remove(0),
        asked: Some(a),
    })
}

/// Splits `achievable` and `set` from keyword arguments given as a dict.
fn split_kwargs<'py>(
    kw: &Bound<'py, PyDict>,
) -> PyResult<(
    Vec<(String, Bound<'py, PyAny>)>,
    bool,
    Option<Bound<'py, PyAny>>,
)> {
    let mut args = Vec::new();
    let mut achievable = false;
    let mut set = None;
    for (k, v) in kw.iter() {
        let k: String = k.extract()?;
        match k.as_str() {
            "achievable" => achievable = v.is_truthy()?,
            "set" => set = Some(v),
            _ => args.push((k, v)),
        }
    }
    Ok((args, achievable, set))
}

/// Runs a command over keyword arguments given as a dict.
pub fn run_kwargs(py: Python<'_>, command: &str, kw: &Bound<'_, PyDict>) -> PyResult<Report> {
    let (args, achievable, set) = split_kwargs(kw)?;
    let a = asked(command, args, achievable, set.as_ref())?;
    let mut reports = a.evaluate(py, false)?;
    Ok(Report {
        inner: reports.remove(0),
        asked: Some(a),
    })
}

/// The library's name for a command given as the CLI spells it
/// (`"hw show"`, `"littles-law"`) or as its Python function is named
/// (`"hw_show"`, `"littles_law"`).
fn command_name(py: Python<'_>, name: &str) -> PyResult<String> {
    let known = roofline::query::COMMANDS;
    for c in [
        name.to_string(),
        name.replace('_', " "),
        name.replace('_', "-"),
    ] {
        if known.contains(&c.as_str()) {
            return Ok(c);
        }
    }
    // The library's own message, with its suggestion.
    roofline::query::evaluate(&Default::default(), name, &Fields::new(), &[], false)
        .or_raise(py)?;
    Ok(name.to_string())
}

/// Evaluates a command at every point of a grid and returns a table with
/// one row per point: the axes (the arguments given as lists, and `hw` or
/// `model` lists) as columns, then every result.
///
/// Args:
///     command: the command, as the CLI spells it ("decode", "hw show") or as its function is named ("hw_show").
///     achievable: use the hardware's measured figures.
///     set: what-if edits of the hardware or model files.
///     **fields: the command's arguments; a list (or range) of values is an axis.
///
/// Returns:
///     pandas.DataFrame when pandas is installed, else a list of dicts; values in base units.
///
/// Example:
///     roofline.sweep("decode", model="llama-3-8b", hw=["h100-sxm", "h200-sxm"], batch=range(1, 513), context=8192)
#[pyfunction]
#[pyo3(signature = (command, *, achievable = false, set = None, **fields))]
fn sweep<'py>(
    py: Python<'py>,
    command: &str,
    achievable: bool,
    set: Option<Bound<'py, PyAny>>,
    fields: Option<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let command = command_name(py, command)?;
    let args: Vec<(String, Bound<'py, PyAny>)> = match &fields {
        Some(d) => d
            .iter()
            .map(|(k, v)| Ok((k.extract::<String>()?, v)))
            .collect::<PyResult<_>>()?,
        None => Vec::new(),
    };
    let a = asked(&command, args, achievable, set.as_ref())?;
    let report = a.evaluate(py, false)?.remove(0);
    // Columns in the order keys first appear: axes, then results.
    let mut keys: Vec<String> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    let mut columns: Vec<Vec<&Value>> = Vec::new();
    let single;
    let rows: Vec<(&roofline::report::Map<Value>, &roofline::report::Map<Value>)> =
        if report.rows.is_empty() || !report.rows_are_points() {
            single = roofline::report::Map::default();
            vec![(&single, &report.results)]
        } else {
            report
                .rows
                .iter()
                .map(|r| (&r.inputs, &r.results))
                .collect()
        };
    let n = rows.len();
    for (i, (ins, outs)) in rows.iter().enumerate() {
        for (p, (k, v)) in ins.iter().chain(outs.iter()).enumerate() {
            let k: &str = k.as_ref();
            // Rows almost always list the same keys in the same order.
            let same = keys.get(p).is_some_and(|x| x == k);
            let c = match if same { Some(&p) } else { index.get(k) } {
                Some(&c) => c,
                None => {
                    index.insert(k.to_string(), keys.len());
                    keys.push(k.to_string());
                    columns.push(Vec::with_capacity(n));
                    keys.len() - 1
                }
            };
            let col = &mut columns[c];
            // A key a row lacks is a gap (None), not a shift.
            while col.len() < i {
                col.push(&Value::Null);
            }
            if col.len() == i {
                col.push(v);
            }
        }
    }
    for col in &mut columns {
        col.resize(n, &Value::Null);
    }
    let Ok(pd) = py.import("pandas") else {
        // One key string per column, shared by every row's dict.
        let names: Vec<_> = keys
            .iter()
            .map(|k| pyo3::types::PyString::intern(py, k))
            .collect();
        let out = PyList::empty(py);
        for i in 0..n {
            let row = PyDict::new(py);
            for (k, col) in names.iter().zip(&columns) {
                row.set_item(k, to_py(py, col[i])?)?;
            }
            out.append(row)?;
        }
        return Ok(out.into_any());
    };
    // Numeric columns go to pandas as numpy arrays filled from one buffer,
    // not as lists of Python floats: a 10,000-point sweep has hundreds of
    // thousands of values.
    let np = py.import("numpy")?;
    let dict = PyDict::new(py);
    for (k, col) in keys.iter().zip(&columns) {
        dict.set_item(k, column(py, &np, col)?)?;
    }
    pd.getattr("DataFrame")?.call1((dict,))
}

/// One column: an int64, float64 or bool numpy array where every value
/// is of that kind (a number column with gaps is float64, a gap NaN, as
/// pandas makes it of a list), else a list whose repeated texts are one
/// Python string each (a `hardware` or `bound` column has a few distinct
/// values over thousands of rows).
fn column<'py>(
    py: Python<'py>,
    np: &Bound<'py, PyModule>,
    col: &[&Value],
) -> PyResult<Bound<'py, PyAny>> {
    let array = |bytes: Vec<u8>, dtype: &str| -> PyResult<Bound<'py, PyAny>> {
        let buf = pyo3::types::PyByteArray::new(py, &bytes);
        np.getattr("frombuffer")?.call1((buf, dtype))
    };
    if col.iter().all(|v| v.is_i64()) {
        let bytes = col
            .iter()
            .flat_map(|v| v.as_i64().unwrap_or_default().to_ne_bytes())
            .collect();
        return array(bytes, "int64");
    }
    if col.iter().all(|v| v.is_number() || v.is_null()) && col.iter().any(|v| v.is_number()) {
        let bytes = col
            .iter()
            .flat_map(|v| v.as_f64().unwrap_or(f64::NAN).to_ne_bytes())
            .collect();
        return array(bytes, "float64");
    }
    if col.iter().all(|v| v.is_boolean()) {
        let bytes = col
            .iter()
            .map(|v| u8::from(v.as_bool() == Some(true)))
            .collect();
        return array(bytes, "bool");
    }
    let mut texts: std::collections::HashMap<&str, Bound<'py, PyAny>> = Default::default();
    let mut items = Vec::with_capacity(col.len());
    for v in col {
        items.push(match v {
            Value::String(s) => match texts.get(s.as_str()) {
                Some(t) => t.clone(),
                None => {
                    let t = to_py(py, v)?;
                    texts.insert(s.as_str(), t.clone());
                    t
                }
            },
            v => to_py(py, v)?,
        });
    }
    Ok(PyList::new(py, items)?.into_any())
}

/// One function per command: its keywords, in order, and its docstring.
macro_rules! command_fns {
    ($(
        $(#[doc = $doc:literal])*
        fn $fname:ident = $cmd:literal ($($pos:ident),*) [$($kw:ident),*];
    )*) => {
        $(
            $(#[doc = $doc])*
            #[pyfunction]
            #[pyo3(signature = ($($pos = None,)* *, $($kw = None,)* achievable = false, set = None))]
            #[allow(clippy::too_many_arguments)]
            fn $fname<'py>(
                py: Python<'py>,
                $($pos: Option<Bound<'py, PyAny>>,)*
                $($kw: Option<Bound<'py, PyAny>>,)*
                achievable: bool,
                set: Option<Bound<'py, PyAny>>,
            ) -> PyResult<Report> {
                let args: Vec<(&str, Option<Bound<'py, PyAny>>)> =
                    vec![$((stringify!($pos), $pos),)* $((stringify!($kw), $kw),)*];
                run(py, $cmd, args, achievable, set.as_ref())
            }
        )*
    };
}

// The commands whose inputs the library declares once
// (`roofline::query::declared`: `decode`, `prefill`, `plan`, `simulate`
// and `fleet`), their keywords and docstrings written by build.rs from
// that declaration, and `register_declared`, which adds them.
include!(concat!(env!("OUT_DIR"), "/declared.rs"));

/// The functions written here, then the declared ones; `register` adds
/// them all.
macro_rules! commands {
    ($(
        $(#[doc = $doc:literal])*
        fn $fname:ident = $cmd:literal ($($pos:ident),*) [$($kw:ident),*];
    )*) => {
        command_fns! {
            $(
                $(#[doc = $doc])*
                fn $fname = $cmd ($($pos),*) [$($kw),*];
            )*
        }

        /// Adds every command's function, and `sweep`.
        pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($fname, m)?)?;)*
            register_declared(m)?;
            m.add_function(wrap_pyfunction!(sweep, m)?)?;
            Ok(())
        }
    };
}

commands! {
    /// The hardware catalog: one row per accelerator with its headline figures.
    ///
    /// Args:
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits applied to every file they validate for (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.rows` holds one entry per accelerator.
    fn hw_list = "hw list" () [];

    /// The model catalog: one row per model with its parameters and KV size.
    ///
    /// Args:
    ///     achievable: Not used by the model list.
    ///     set: What-if edits applied to every file they validate for (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.rows` holds one entry per model.
    fn model_list = "model list" () [];

    /// One accelerator's numbers and derived figures: peaks, ridge point, per-SM and per-cycle figures.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
    ///     dtype: Precision for the headline peak and ridge point (default: the file's default-dtype).
    ///     clock: Clock for per-cycle figures (default: the file's boost clock).
    ///     sparse: Use the 2:4 structured-sparsity peak (an error where the file has none at the precision).
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn hw_show = "hw show" (hw) [dtype, clock, sparse];

    /// A model's parameters, weight bytes and KV bytes per token.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     model: Catalog id, a model .toml, or a Hugging Face config.json; a list compares several.
    ///     dtype: Weight precision (default bf16).
    ///     kv_dtype: KV-cache precision, as for `kv`: fp32, bf16 (default), fp16, fp8, int8, int4, int2.
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn model_show = "model show" (model) [dtype, kv_dtype];

    /// Where a kernel sits on the roofline: ridge point, attainable throughput, bound and time.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
    ///     intensity: Arithmetic intensity in FLOP per byte (or give flops and bytes).
    ///     flops: Total FLOPs (e.g. 137.4TFLOP, or a bare count); needs bytes.
    ///     bytes: Bytes moved to and from device memory (e.g. 100MB); needs flops.
    ///     dtype: Precision (default: the hardware's default-dtype).
    ///     sparse: Use the 2:4 structured-sparsity peak (an error where the file has none at the precision).
    ///     price: Price of one device for an hour: "2.50/h" (also /min, /s); gives cost per million tokens, in your currency.
    ///     energy_price: Price of energy: "0.10/kWh" (also /MWh, /Wh); adds the energy bill to the cost and reports its share.
    ///     pue: Power usage effectiveness, at least 1 (default 1): scales the energy bill only.
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn point = "point" () [hw, intensity, flops, bytes, dtype, sparse, price, energy_price, pue, measured];

    /// Resident blocks per SM under each limit, the binding one, and occupancy (NVIDIA's occupancy-calculator rules; textbook=True for the lecture's simplified arithmetic).
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
    ///     threads: Threads per block.
    ///     regs: Registers per thread (on AMD parts: VGPRs per lane, arch and AGPRs together).
    ///     sgprs: Scalar registers per wave, as the compiler reports them (AMD parts only; without it SGPRs do not limit).
    ///     smem: Dynamic shared memory per block (e.g. 32KiB; a bare number is bytes; default 0).
    ///     static_smem: Static shared memory per block (default 0).
    ///     carveout: Preferred shared-memory carveout per SM (e.g. 100KiB); rounded up to one the SM supports (default: the largest).
    ///     textbook: The lecture's simplified arithmetic: no allocation granularity, no reserved shared memory.
    ///     grid: Blocks in the grid: how many SMs the launch keeps busy and how full.
    ///     solve: Solve for the most of one resource that still reaches target_occupancy: registers (per thread), threads (per block) or smem (dynamic, per block).
    ///     target_occupancy: The occupancy to reach (40% or 0.4; default 100% with solve); alone, the warps per SM it takes.
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn occupancy = "occupancy" () [hw, threads, regs, sgprs, smem, static_smem, carveout, textbook, grid, solve, target_occupancy];

    /// Bytes moved for bytes used by one warp's strided load, at a segment, sector or DRAM-fetch granularity.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
    ///     dtype: Element type (default: the hardware's default-dtype).
    ///     stride: Distance between adjacent lanes' elements, in elements (1 = contiguous; the default).
    ///     offset: Byte offset of lane 0's element from an aligned boundary (default 0).
    ///     granularity: The unit memory moves in: segment (128 B), sector (32 B) or dram (the file's memory.dram-fetch). Default: dram where known, else sector.
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn coalesce = "coalesce" () [hw, dtype, stride, offset, granularity];

    /// Little's law: bytes and loads in flight to saturate memory, per SM against the warp budget; the pointer-chase corollary.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
    ///     latency: Load latency, in cycles ("500 cycles"; a bare number is cycles) or as a time ("350 ns") (default: the file's DRAM latency).
    ///     clock: Clock that converts cycles to time (default: the file's boost clock).
    ///     transaction: Bytes per load (default: the file's segment, 128 B).
    ///     warps: Resident warps per SM sharing the loads (default: the warp budget).
    ///     pointer: Bytes per dependent load in the pointer chase (default 8 B).
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn littles_law = "littles-law" () [hw, latency, clock, transaction, warps, pointer];

    /// Naive and tiled matmul: traffic, intensity, time, tile feasibility, waves, tensor-core row utilisation.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several (default: h100-sxm, the lecture's reference part).
    ///     m: Rows of A and C (tokens in a linear layer); required unless solve.
    ///     n: Columns of B and C; required unless solve.
    ///     k: The contraction dimension; required unless solve.
    ///     tile: Square tile: sets tile_m and tile_n [default: 128].
    ///     tile_m: Tile rows (BLOCK_M); overrides tile.
    ///     tile_n: Tile columns (BLOCK_N); overrides tile.
    ///     tile_k: K chunk per loop step (BLOCK_K); must divide K [default: 64, halved until it divides K].
    ///     stages: Shared-memory pipeline stages (2 = double buffering) [default: 2].
    ///     dtype: Precision of A and B (default: the hardware's).
    ///     programs_per_sm: Programs resident per SM, for waves [default: 1].
    ///     threads: Threads per program, for the register micro-tile [default: 256].
    ///     mma: Tensor-core instruction shape for row utilisation: m16n8k16, m64nNk16 (wgmma), m64n256k16, ...
    ///     tiles: Square tiles for the table rows, comma-separated, or `none` (then format csv prints the results instead of the table) [default: 32,64,128,256].
    ///     solve: Solve instead of costing a shape: "ridge", the n at which a square n x n x n matmul (minimal traffic) reaches the part's ridge at dtype; takes no shape.
    ///     launch: With achievable: the launch, none, graph or eager [default: eager, one call from Python].
    ///     price: Price of one device for an hour: "2.50/h" (also /min, /s); gives cost per million tokens, in your currency.
    ///     energy_price: Price of energy: "0.10/kWh" (also /MWh, /Wh); adds the energy bill to the cost and reports its share.
    ///     pue: Power usage effectiveness, at least 1 (default 1): scales the energy bill only.
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn matmul = "matmul" () [hw, m, n, k, tile, tile_m, tile_n, tile_k, stages, dtype, programs_per_sm, threads, mma, tiles, solve, launch, price, energy_price, pue, measured];

    /// Safe softmax: three kernels (5 traversals) against one fused kernel (2).
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     rows: Rows of the matrix (S for an S x S score matrix).
    ///     cols: Columns (the softmax runs along a row).
    ///     ops_per_element: Operations per element (default 5: max, subtract, exp, sum, divide).
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several (default: h100-sxm, the lecture's reference part).
    ///     dtype: Precision of the tensors (default: the hardware's).
    ///     overhead: Launch overhead per kernel, added to both sides, e.g. "5 us".
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn fusion_softmax = "fusion softmax" () [rows, cols, ops_per_element, hw, dtype, overhead];

    /// A chain of elementwise kernels against one fused kernel.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     ops: Elementwise kernels in the chain.
    ///     elements: Elements of each tensor.
    ///     inputs: Tensors each kernel reads, the first being the previous output (default 1).
    ///     flops_per_op: FLOPs per element per kernel (default 1).
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several (default: h100-sxm, the lecture's reference part).
    ///     dtype: Precision of the tensors (default: the hardware's).
    ///     overhead: Launch overhead per kernel, added to both sides, e.g. "5 us".
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn fusion_chain = "fusion chain" () [ops, elements, inputs, flops_per_op, hw, dtype, overhead];

    /// An activation grafted onto a GEMM's epilogue against a separate kernel.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     tokens: Tokens (rows of the GEMM output).
    ///     width: Width of the GEMM output (d_ff for an up-projection).
    ///     layers: Layers, for the total (default 1).
    ///     ops_per_element: Activation operations per element (default 1).
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several (default: h100-sxm, the lecture's reference part).
    ///     dtype: Precision of the tensors (default: the hardware's).
    ///     overhead: Launch overhead per kernel, added to both sides, e.g. "5 us".
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn fusion_epilogue = "fusion epilogue" () [tokens, width, layers, ops_per_element, hw, dtype, overhead];

    /// Launch overhead per step, eager against CUDA graphs, and what fusing to fewer kernels saves.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     hw: Hardware whose launch figures to use (id, path, or a list).
    ///     kernels: Kernels launched per step.
    ///     kernels_per_layer: Kernels per layer (with layers) instead of kernels.
    ///     layers: Layers (with kernels_per_layer).
    ///     extra_kernels: Kernels outside the layers: final norm, LM head, sampling (with kernels_per_layer; default 0).
    ///     overhead: Eager overhead per kernel, e.g. "5 us".
    ///     sync_overhead: Overhead per kernel when each launch is synchronised.
    ///     graph_overhead: Overhead per kernel replayed from a CUDA graph.
    ///     kernel_time: The kernel's own execution time, subtracted from measured*.
    ///     measured: Measured time per kernel, eager, execution included.
    ///     measured_sync: Measured time per kernel, synchronised, execution included.
    ///     measured_graph: Measured time per kernel as a CUDA graph, execution included.
    ///     floor: The step's time without launches (e.g. the weight-read floor; default 0).
    ///     fused_kernels: Kernels after fusion.
    ///     fuse_factor: Fusion cuts the kernel count by this factor (rounded).
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn launch = "launch" () [hw, kernels, kernels_per_layer, layers, extra_kernels, overhead, sync_overhead, graph_overhead, kernel_time, measured, measured_sync, measured_graph, floor, fused_kernels, fuse_factor];

    /// KV-cache bytes per token, layer, sequence and batch; with hw, the batch and context that fit beside the weights.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     model: Model id, path or roofline.Model; a list compares.
    ///     context: Tokens per sequence.
    ///     batch: Sequences (default 1).
    ///     kv_dtype: KV precision: fp32, bf16 (default), fp16, fp8, int8, int4, int2 (integers with KIVI's fp16 scale and zero point per 32 elements).
    ///     hw: Hardware to fit on: max batch and max context beside the weights.
    ///     dtype: Weight precision for the fit (default: the hardware's default-dtype).
    ///     reserve: Memory held back for activations and the runtime (default 10%).
    ///     page: Tokens per KV page: the waste of the last partly filled page.
    ///     reserved: Tokens a contiguous allocator reserves per sequence: its waste.
    ///     force: Allow a context beyond the model's maximum.
    ///     tp: Tensor-parallel ranks to split the model over for the fit: each device holds 1/tp of the sharded weights and ceil(kv heads / tp) of the KV heads (default 1).
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn kv = "kv" () [model, context, batch, kv_dtype, hw, dtype, reserve, page, reserved, force, tp];


    /// Speculative decoding: tokens per target pass and speedup.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     acceptance: Probability a drafted token is accepted (0 to 1).
    ///     draft_tokens: Tokens the draft proposes per pass (g).
    ///     draft_cost: Cost of one drafted token as a share of a target pass (c; default 0).
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn speculative = "speculative" () [acceptance, draft_tokens, draft_cost];

    /// One collective over N devices on the fabric tiers: bus bytes, bandwidth and latency terms, time, algorithm.
    ///
    /// Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    /// a list of values sweeps that input (one row per value).
    ///
    /// Args:
    ///     kind: all-reduce, all-gather, reduce-scatter, all-to-all or send-recv.
    ///     hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
    ///     devices: Devices taking part.
    ///     bytes: Each rank's input buffer as NCCL counts it (e.g. 1GiB): for all-gather the piece each rank contributes, for reduce-scatter the whole vector.
    ///     latency: A fixed latency per phase (e.g. 20us), replacing the default (the file's hop latency at speed of light; NCCL's measured 18.5 us per call with achievable).
    ///     launch: With achievable: how the collective is called, none, graph (18.5 us per call on the H200 pair) or eager (44 us) [default: eager].
    ///     achievable: Use the hardware's measured figures instead of the datasheet's.
    ///     set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).
    ///
    /// Returns:
    ///     Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    fn collective = "collective" (kind) [hw, devices, bytes, latency, launch, engine, measured];
}

//! The answer of a command as a Python object: dicts of the JSON report's
//! keys and base-unit values, the derivation text, the terminal's table,
//! and in a notebook the HTML table (`render::Html`, the renderer the web
//! page uses) and charts as SVG.

use crate::convert::to_py;
use crate::errors::OrRaise;
use pyo3::prelude::*;
use pyo3::types::PyList;
use roofline::chart::roofline::KernelMark;
use roofline::chart::{self, ChartFormat, RooflineData, SweepData};
use roofline::inputs::Fields;
use roofline::query::{self, Context};
use roofline::render::{self, Renderer};
use roofline::report::Report as Inner;
use roofline::spec::hardware::Mode;

/// The question a report answers, kept so `explain()` can derive each
/// point of a sweep in full.
#[derive(Clone)]
pub struct Asked {
    pub command: String,
    pub fields: Fields,
    /// Fields given as lists, in the order given (outermost first).
    pub axes: Vec<roofline::sweep::Axis>,
    pub sets: Vec<String>,
    pub mode: Mode,
}

impl Asked {
    /// The library's context for this question.
    pub fn context(&self, py: Python<'_>) -> PyResult<Context> {
        let sets = crate::convert::parse_sets(py, &self.sets)?;
        Ok(Context::new(Default::default(), sets, self.mode))
    }

    /// Evaluates the question: one report, or one per point.
    pub fn evaluate(&self, py: Python<'_>, each_point: bool) -> PyResult<Vec<Inner>> {
        let ctx = self.context(py)?;
        query::evaluate(&ctx, &self.command, &self.fields, &self.axes, each_point).or_raise(py)
    }
}

/// A command's answer.
///
/// `.results` and `.inputs` are dicts keyed as the CLI's `--format json`
/// is, in base units (seconds, bytes, FLOP/s); `.notes` the verdicts and
/// assumptions; `.rows` a sweep's or comparison's points. In Jupyter it
/// shows as the table the terminal prints.
#[pyclass(frozen, module = "roofline")]
pub struct Report {
    pub inner: Inner,
    pub asked: Option<Asked>,
}

impl Report {
    fn rendered(&self, r: &dyn Renderer, all: bool) -> String {
        let bytes = if all {
            let mut x = self.inner.clone();
            x.headline.clear();
            r.render(&x)
        } else {
            r.render(&self.inner)
        };
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn value<'py>(&self, py: Python<'py>, v: impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(v)
            .map_err(|e| crate::errors::DataError::new_err(e.to_string()))?;
        to_py(py, &v)
    }
}

#[pymethods]
impl Report {
    /// The command that answered (`decode`, `hw show`).
    #[getter]
    fn command(&self) -> &str {
        &self.inner.command
    }

    /// The hardware id, where one was used.
    #[getter]
    fn hardware(&self) -> Option<&str> {
        self.inner.hardware.as_deref()
    }

    /// The model id, where one was used.
    #[getter]
    fn model(&self) -> Option<&str> {
        self.inner.model.as_deref()
    }

    /// The inputs as resolved, in base units (defaults filled in).
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, &self.inner.inputs)
    }

    /// The answers in base units, keyed as the JSON report is.
    #[getter]
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, &self.inner.results)
    }

    /// What each result means: label, unit and source.
    #[getter]
    fn quantities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, &self.inner.quantities)
    }

    /// Verdicts and assumptions, as the table's notes.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.inner.notes.clone()
    }

    /// The inputs that vary across `rows`, outermost first.
    #[getter]
    fn axes(&self) -> Vec<String> {
        self.inner.axes.clone()
    }

    /// A sweep's points, a comparison's items or a table inside the
    /// answer: a list of {"inputs": {...}, "results": {...}}.
    #[getter]
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, &self.inner.rows)
    }

    /// The whole report as a dict: `json.loads` of the CLI's `--format json`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.value(py, &self.inner)
    }

    /// The report as the CLI's `--format json` prints it.
    fn to_json(&self) -> String {
        self.rendered(&render::Json, false)
    }

    /// Each result's derivation with the numbers substituted, as the
    /// CLI's `--explain` prints it (one per point for a sweep).
    fn explain(&self, py: Python<'_>) -> PyResult<String> {
        let reports = match &self.asked {
            Some(a) if !self.inner.rows.is_empty() && self.inner.rows_are_points() => {
                a.evaluate(py, true)?
            }
            _ => vec![self.inner.clone()],
        };
        Ok(String::from_utf8_lossy(&render::explain_all(&reports, false)).into_owned())
    }

    /// The table the terminal prints.
    ///
    /// Args:
    ///     all: every intermediate result, not only the answer and what decides it.
    #[pyo3(signature = (all = false))]
    fn table(&self, all: bool) -> String {
        self.rendered(&render::Table, all)
    }

    /// The table as Markdown, for docs and issues.
    ///
    /// Args:
    ///     all: every intermediate result, not only the answer and what decides it.
    #[pyo3(signature = (all = false))]
    fn markdown(&self, all: bool) -> String {
        self.rendered(&render::Markdown, all)
    }

    /// The results of a sweep drawn against its swept input.
    ///
    /// Args:
    ///     y: the result keys to draw (default: the command's headline result).
    ///
    /// Returns:
    ///     Chart: shown as SVG in a notebook; `.save(path)` writes .svg or .png.
    #[pyo3(signature = (y = None))]
    fn chart(&self, py: Python<'_>, y: Option<Vec<String>>) -> PyResult<Chart> {
        let data = SweepData::from_report(&self.inner, &y.unwrap_or_default()).or_raise(py)?;
        Ok(Chart {
            chart: chart::Chart::Sweep(data),
        })
    }

    /// A result by its key: `report["step_time_s"]`.
    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.inner.results.get(key) {
            Some(v) => to_py(py, v),
            None => Err(pyo3::exceptions::PyKeyError::new_err(format!(
                "no result `{key}`; the report has: {}",
                self.inner
                    .results
                    .keys()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    fn __repr__(&self) -> String {
        self.rendered(&render::Table, false)
    }

    fn _repr_html_(&self) -> String {
        let mut s = self.rendered(&render::Html, false);
        if !self.inner.notes.is_empty() {
            s.push_str("<ul class=\"notes\">");
            for n in &self.inner.notes {
                s.push_str("<li>");
                s.push_str(&html_escape(n));
                s.push_str("</li>");
            }
            s.push_str("</ul>");
        }
        s
    }
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A chart: SVG in a notebook, a file with `.save(path)`.
#[pyclass(frozen, module = "roofline")]
pub struct Chart {
    pub chart: chart::Chart,
}

#[pymethods]
impl Chart {
    /// The chart as SVG text.
    fn svg(&self, py: Python<'_>) -> PyResult<String> {
        let bytes = chart::render(&self.chart, ChartFormat::Svg).or_raise(py)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Writes the chart to a file ending in .svg or .png.
    ///
    /// Args:
    ///     path: where to write it; the extension picks the format.
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let format = ChartFormat::from_path(&path, "path").or_raise(py)?;
        let bytes = chart::render(&self.chart, format).or_raise(py)?;
        std::fs::write(&path, bytes).map_err(|e| {
            crate::errors::FileError::new_err(format!("cannot write {}: {e}", path.display()))
        })
    }

    fn _repr_svg_(&self, py: Python<'_>) -> PyResult<String> {
        self.svg(py)
    }
}

/// The roofline of one or more accelerators, with kernels marked.
///
/// Args:
///     hw: a hardware id, path or roofline.Hardware, or a list of them.
///     dtype: precisions to draw, e.g. ["bf16", "fp8"] (default: each part's default).
///     points: kernels to mark: "LABEL:INTENSITY", "LABEL:FLOPS/BYTES", or a Report (its intensity).
///     achievable: draw the measured roofs beside the datasheet ones.
///
/// Returns:
///     Chart: shown as SVG in a notebook; `.save(path)` writes .svg or .png.
#[pyfunction]
#[pyo3(signature = (hw, *, dtype = None, points = None, achievable = false))]
pub fn roofline_chart(
    py: Python<'_>,
    hw: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    points: Option<&Bound<'_, PyList>>,
    achievable: bool,
) -> PyResult<Chart> {
    let c = crate::convert::field_value("hw", hw, false)?;
    let ids: Vec<String> = match &c.value {
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        serde_json::Value::String(s) => vec![s.clone()],
        _ => Vec::new(),
    };
    let sets = crate::convert::parse_sets(py, &c.sets)?;
    let mode = if achievable {
        Mode::Achievable
    } else {
        Mode::SpeedOfLight
    };
    let ctx = Context::new(Default::default(), sets, mode);
    let hw = ctx.hardware(&ids.join(",")).or_raise(py)?;
    let dtypes: Vec<String> = match dtype {
        None => Vec::new(),
        Some(d) if d.is_none() => Vec::new(),
        Some(d) => match d.extract::<String>() {
            Ok(s) => s.split(',').map(|x| x.trim().to_string()).collect(),
            Err(_) => d.extract::<Vec<String>>()?,
        },
    };
    let mut kernels = Vec::new();
    for p in points.into_iter().flat_map(|l| l.iter()) {
        if let Ok(r) = p.cast::<Report>() {
            let json = serde_json::to_value(&r.get().inner)
                .map_err(|e| crate::errors::DataError::new_err(e.to_string()))?;
            kernels.push(KernelMark::from_report(&json, "a report").or_raise(py)?);
        } else {
            kernels.push(KernelMark::parse(&p.extract::<String>()?).or_raise(py)?);
        }
    }
    let data = RooflineData::build(&hw, &dtypes, kernels, achievable).or_raise(py)?;
    Ok(Chart {
        chart: chart::Chart::Roofline(data),
    })
}

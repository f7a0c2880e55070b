//! The page's three questions, JSON in and JSON out, over the library's
//! one dispatch ([`roofline::query::evaluate`]):
//!
//! - [`catalog`]: the built-in hardware and models, ids and names;
//! - [`query`]: a command and its fields (named as scenario files name
//!   them, values with units as the command line takes them) -> the
//!   report as `--format json` writes it, its HTML tables, its notes and,
//!   on request, its derivations;
//! - [`chart`]: the same request -> the SVG the chart code draws: the
//!   roofline of the named hardware with the query's kernel marked,
//!   `occupancy`'s three graphs, `simulate`'s run over time or `fleet
//!   --pareto`'s frontier (the charts `--chart FILE` draws for those two).
//!
//! A request also carries pasted files by name (`"my-hw.toml"`,
//! `"config.json"`), which the hardware and model fields name as the
//! command line names a path; the page has no file system.

use roofline::catalog::Catalog;
use roofline::chart::{
    self, Chart, ChartFormat, OccupancyData, RooflineData, SweepData, roofline::KernelMark,
};
use roofline::error::{Error, Result};
use roofline::inputs::Fields;
use roofline::query::{self, Context};
use roofline::render::{Html, Json, Renderer, explain_all};
use roofline::report::Report;
use roofline::spec::hardware::Mode;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// What the page asks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The command, as the command line spells it (`decode`, `hw show`).
    pub command: String,
    /// Its inputs, kebab-case as in scenario files.
    #[serde(default)]
    pub fields: Fields,
    /// Pasted hardware files by the name the fields give them
    /// (`my-hw.toml`).
    #[serde(default)]
    pub hardware_texts: BTreeMap<String, String>,
    /// Pasted model files by name: TOML, or a Hugging Face `config.json`
    /// when the name ends in `.json`.
    #[serde(default)]
    pub model_texts: BTreeMap<String, String>,
    /// `--set` overrides, `path=value`.
    #[serde(default)]
    pub sets: Vec<String>,
    /// `--achievable`.
    #[serde(default)]
    pub achievable: bool,
    /// `--all`: every result in the tables.
    #[serde(default)]
    pub all: bool,
    /// `--explain`: the derivations too.
    #[serde(default)]
    pub explain: bool,
}

/// An error answer: the message as the command line prints it and the
/// exit code it would return.
pub fn failure(message: &str, code: u8) -> String {
    json!({ "ok": false, "error": message, "exit_code": code }).to_string()
}

/// A library error as the command line reports it.
fn error_answer(e: Error) -> String {
    let e = query::as_flags(e);
    failure(&format!("error: {e}"), e.exit_code())
}

/// The request, or the answer saying why it is not one.
fn parse(text: &str) -> std::result::Result<Request, String> {
    serde_json::from_str(text).map_err(|e| failure(&format!("error: a bad request: {e}"), 2))
}

/// The context a request runs in: the built-in catalog plus its pasted
/// files, its overrides and its mode.
fn context(r: &Request) -> Result<Context> {
    let catalog = Catalog {
        hw_texts: r.hardware_texts.clone().into_iter().collect(),
        model_texts: r.model_texts.clone().into_iter().collect(),
        ..Catalog::default()
    };
    let sets = Context::parse_sets(&r.sets)?;
    let mode = if r.achievable {
        Mode::Achievable
    } else {
        Mode::SpeedOfLight
    };
    Ok(Context::new(catalog, sets, mode))
}

/// The report a request's query gives (a comparison's items as its
/// rows); with `each_point`, one full report per point instead, for the
/// derivations.
fn evaluate(r: &Request, each_point: bool) -> Result<Vec<Report>> {
    let ctx = context(r)?;
    query::evaluate(&ctx, &r.command, &r.fields, &[], each_point)
}

/// The one report of a query.
fn report(r: &Request) -> Result<Report> {
    evaluate(r, false)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::Unsupported(format!("`{}` gave no answer", r.command)))
}

/// Answers a query: `{"ok": true, "json", "html", "notes", "explain"}`.
pub fn query(text: &str) -> String {
    let r = match parse(text) {
        Ok(r) => r,
        Err(answer) => return answer,
    };
    let mut report = match report(&r) {
        Ok(report) => report,
        Err(e) => return error_answer(e),
    };
    let explain = if r.explain {
        match evaluate(&r, true) {
            Ok(reports) => String::from_utf8_lossy(&explain_all(&reports, false)).into_owned(),
            Err(e) => return error_answer(e),
        }
    } else {
        String::new()
    };
    let json = String::from_utf8_lossy(&Json.render(&report)).into_owned();
    if r.all {
        report.headline.clear();
    }
    let html = String::from_utf8_lossy(&Html.render(&report)).into_owned();
    json!({
        "ok": true,
        "json": json,
        "html": html,
        "notes": report.notes,
        "explain": explain,
    })
    .to_string()
}

/// The hardware a command's chart is of: the `hw` field, or the default
/// part of the commands that have one; none for commands without.
fn chart_hardware(r: &Request) -> Option<String> {
    match r.fields.get("hw") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(","),
        ),
        _ if r.command == "matmul" || r.command.starts_with("fusion") => {
            Some(query::DEFAULT_HW.to_string())
        }
        _ => None,
    }
}

/// The kernel a report describes, for the roofline: its own intensity,
/// or the first item's in a comparison.
fn mark(report: &Report) -> Option<KernelMark> {
    let json = serde_json::to_value(report).ok()?;
    if let Ok(m) = KernelMark::from_report(&json, &report.command) {
        return Some(m);
    }
    let first = json.get("rows")?.get(0)?;
    let mut item = json!({ "command": report.command, "results": first.get("results")? });
    if let Some(i) = json.get("inputs") {
        item["inputs"] = i.clone();
    }
    KernelMark::from_report(&item, &report.command).ok()
}

/// Draws a request's chart: `{"ok": true, "svg", "title", "notes"}`, with
/// `svg` null for a command that has none. The hardware's chart is drawn
/// even when the query itself fails (its kernel is then not marked).
pub fn chart(text: &str) -> String {
    let r = match parse(text) {
        Ok(r) => r,
        Err(answer) => return answer,
    };
    match draw(&r) {
        Ok(Some((title, svg, notes))) => {
            json!({ "ok": true, "title": title, "svg": svg, "notes": notes }).to_string()
        }
        Ok(None) => json!({ "ok": true, "svg": null, "notes": [] }).to_string(),
        Err(e) => error_answer(e),
    }
}

/// The results `--chart FILE` draws for a command whose chart is of its
/// own rows, as the command line chooses them: `simulate`'s state over
/// time, `fleet --pareto`'s frontier; none for the other commands.
fn own_rows_chart(r: &Request) -> Option<&'static [&'static str]> {
    match r.command.as_str() {
        "simulate" => Some(&["running", "kv_use", "latest_ttft_s"]),
        "fleet" if matches!(r.fields.get("pareto"), Some(Value::Bool(true))) => {
            Some(&["tokens_per_s_per_device"])
        }
        _ => None,
    }
}

/// The chart of a command's own rows: `simulate` run again keeping its
/// state over time (as `--chart` asks of it), or `fleet`'s frontier.
fn draw_rows(r: &Request, keys: &[&str]) -> Result<(String, String, Vec<String>)> {
    let mut request = Request {
        command: r.command.clone(),
        fields: r.fields.clone(),
        hardware_texts: r.hardware_texts.clone(),
        model_texts: r.model_texts.clone(),
        sets: r.sets.clone(),
        achievable: r.achievable,
        all: r.all,
        explain: false,
    };
    if r.command == "simulate" {
        request.fields.insert("timeline".into(), Value::Bool(true));
        // A run of one row per request draws no timeline (as on the
        // command line, where --per-request and --chart do not meet).
        request.fields.remove("per-request");
    }
    let report = report(&request)?;
    let keys: Vec<String> = keys.iter().map(|k| (*k).to_string()).collect();
    let data = SweepData::from_report(&report, &keys)?;
    let title = match r.command.as_str() {
        "simulate" => "the simulated run over time".to_string(),
        _ => "the frontier of tokens/s per device against tokens/s per user".to_string(),
    };
    let svg = String::from_utf8_lossy(&chart::render(&Chart::Sweep(data), ChartFormat::Svg)?)
        .into_owned();
    Ok((title, svg, Vec::new()))
}

/// The chart's title, SVG and notes.
fn draw(r: &Request) -> Result<Option<(String, String, Vec<String>)>> {
    if let Some(keys) = own_rows_chart(r) {
        return draw_rows(r, keys).map(Some);
    }
    if r.command == "simulate" || r.command == "fleet" {
        return Ok(None);
    }
    let Some(list) = chart_hardware(r) else {
        return Ok(None);
    };
    let ctx = context(r)?;
    let hardware = ctx.hardware(&list)?;
    let (chart, title) = if r.command == "occupancy" {
        let [hw] = hardware.as_slice() else {
            return Ok(None);
        };
        let inputs =
            roofline::inputs::from_fields_where(&r.fields, |k| k != "hw" && !k.contains('.'));
        match inputs.and_then(|i| OccupancyData::build(hw, &i)) {
            Ok(d) => (Chart::Occupancy(d), format!("occupancy of {}", hw.id)),
            Err(_) => return Ok(None),
        }
    } else {
        let kernels: Vec<KernelMark> = report(r)
            .ok()
            .and_then(|report| mark(&report))
            .into_iter()
            .collect();
        let dtypes: Vec<String> = match r.fields.get("dtype") {
            Some(Value::String(d)) => d
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
            _ => Vec::new(),
        };
        let title = match kernels.first() {
            Some(k) => format!("roofline of {list} with {} marked", k.label),
            None => format!("roofline of {list}"),
        };
        let data = RooflineData::build(&hardware, &dtypes, kernels, r.achievable)
            .or_else(|_| RooflineData::build(&hardware, &[], Vec::new(), r.achievable))?;
        (Chart::Roofline(data), title)
    };
    let notes = match &chart {
        Chart::Roofline(d) => d.notes.clone(),
        _ => Vec::new(),
    };
    let svg = String::from_utf8_lossy(&chart::render(&chart, ChartFormat::Svg)?).into_owned();
    Ok(Some((title, svg, notes)))
}

/// The built-in catalog: `{"hardware": [{id, name}], "models": [...]}`.
pub fn catalog() -> String {
    let c = Catalog::default();
    let hardware: Vec<Value> = c
        .hardware_entries()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            let name = c.hardware(&e.id, &[]).map(|h| h.name).unwrap_or_default();
            json!({ "id": e.id, "name": name })
        })
        .collect();
    let models: Vec<Value> = c
        .model_entries()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            let name = c.model(&e.id, &[]).map(|m| m.name).unwrap_or_default();
            json!({ "id": e.id, "name": name })
        })
        .collect();
    json!({ "ok": true, "hardware": hardware, "models": models, "commands": query::COMMANDS })
        .to_string()
}

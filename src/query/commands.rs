//! One point of each command: the fields of one point (every field has
//! one value) -> the hardware and model it names -> the typed inputs ->
//! the calculation's cost -> its report. Errors name the field; the
//! command line turns a field into its flag, a scenario into its line.

use super::Context;
use crate::calc;
use crate::error::{Error, Result};
use crate::inputs::{Fields, from_fields_where};
use crate::report::Report;
use crate::spec::engine::SERVING_ENGINE;
use crate::spec::hardware::Hardware;
use serde_json::Value;

/// The hardware `matmul` and `fusion` use when none is named: the lecture's
/// reference part.
pub const DEFAULT_HW: &str = calc::fusion::DEFAULT_HARDWARE;

/// Whether a point's field is an input of the calculation (not the
/// hardware, the model or a swept `--set` path).
fn is_calc_field(k: &str) -> bool {
    !matches!(k, "hw" | "model" | "engine") && !k.contains('.')
}

/// The calculation's inputs from a point's fields, without copying them.
fn inputs<T: serde::de::DeserializeOwned>(fields: &Fields) -> Result<T> {
    from_fields_where(fields, is_calc_field)
}

/// The model file's top-level fields that `model show` varies as a `--set`
/// when they are fields of the query (a table's fields are given by their
/// dotted path, `attention.heads`).
const MODEL_TOP_LEVEL: &[&str] = &[
    "layers",
    "hidden-size",
    "vocab-size",
    "tied-embeddings",
    "max-context",
    "weight-dtype",
    "sliding-window",
    "norm",
    "position-embedding",
    "linear-bias",
];

/// Whether a swept name picks or changes a file, so each of its values
/// loads one ([`crate::sweep::check_files`]): `hw`, `model`, a dotted
/// `--set` path, and for `model show` a top-level field of the model file.
pub(crate) fn is_file_axis(command: &str, name: &str) -> bool {
    matches!(name, "hw" | "model" | "engine")
        || name.contains('.')
        || (command == "model show" && MODEL_TOP_LEVEL.contains(&name))
}

/// The commands that take prices (`price`, `energy-price`, `pue`) for
/// cost per token.
const PRICED: &[&str] = &[
    "point", "matmul", "decode", "prefill", "plan", "simulate", "fleet",
];

/// The commands that take `measured`, a measured time, for the achieved
/// rates and their shares of the roofs (MFU, MBU).
const MEASURED: &[&str] = &["point", "matmul", "decode", "prefill", "collective"];

/// Evaluates one point of `command`; `lean` asks for values only.
pub(super) fn point(ctx: &Context, command: &str, fields: &Fields, lean: bool) -> Result<Report> {
    if MEASURED.contains(&command)
        && let Some(m) = fields.get("measured")
    {
        let time = match m {
            Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
            Value::String(s) => crate::units::parse(s, crate::units::Dim::Seconds)
                .map_err(|e| Error::field("measured", e))?,
            other => {
                return Err(Error::field(
                    "measured",
                    format!("`{other}`: expected a time, e.g. 1.2ms"),
                ));
            }
        };
        if !(time.is_finite() && time > 0.0) {
            return Err(Error::field(
                "measured",
                format!("`{m}`: a measured time is positive"),
            ));
        }
        let typed = m.as_str().map_or_else(|| m.to_string(), String::from);
        let time = crate::units::plausible(crate::units::Dim::Seconds, time, &typed)
            .map_err(|e| Error::field("measured", e))?;
        if command == "decode" {
            // A bad tp is reported where the point is read.
            let tp = decode_tp(fields).unwrap_or(1);
            if tp > 1 {
                return Err(calc::decode::tp::refused("measured", tp));
            }
        }
        let mut f = fields.clone();
        f.remove("measured");
        let mut r = point_inner(ctx, command, &f, lean)?;
        calc::measured::record(&mut r, time)?;
        return Ok(r);
    }
    point_inner(ctx, command, fields, lean)
}

/// The tensor-parallel degree of a decode point (1 without `tp`), read
/// alone: the other fields are read where they are used.
fn decode_tp(fields: &Fields) -> Result<u64> {
    #[derive(serde::Deserialize)]
    struct Tp {
        tp: Option<crate::inputs::Count>,
    }
    let t: Tp = from_fields_where(fields, |k| k == "tp")?;
    crate::inputs::at_least_one("tp", t.tp.map_or(1, |c| c.0))
}

/// [`point`] without a measured time.
fn point_inner(ctx: &Context, command: &str, fields: &Fields, lean: bool) -> Result<Report> {
    let priced = PRICED.contains(&command)
        && calc::power::PRICE_FIELDS
            .iter()
            .any(|k| fields.contains_key(*k));
    if !priced || command == "fleet" {
        return point_priced(ctx, command, fields, lean, &calc::power::Prices::default());
    }
    let mut f = fields.clone();
    let prices = calc::power::Prices::take(&mut f)?;
    point_priced(ctx, command, &f, lean, &prices)
}

/// One point with its prices taken out of the fields.
fn point_priced(
    ctx: &Context,
    command: &str,
    fields: &Fields,
    lean: bool,
    prices: &calc::power::Prices,
) -> Result<Report> {
    let mode = ctx.mode;
    Ok(match command {
        "hw show" => {
            let hw = ctx.point_hardware(fields, None)?;
            calc::hw::cost(&hw, &inputs(fields)?, mode)?.report(lean)
        }
        "model show" => model_show(ctx, fields, lean)?,
        "engine show" => calc::engine::show(&*ctx.point_engine(fields)?, lean),
        "engine list" => {
            let mut engines = Vec::new();
            for e in ctx.catalog.engine_entries()? {
                engines.push(ctx.catalog.engine(&e.id, &ctx.sets)?);
            }
            ctx.point_engine(&Fields::new())?;
            calc::engine::list(&engines)
        }
        "point" => {
            let hw = ctx.point_hardware(fields, None)?;
            // "300 FLOP/B" (or, for int8, "300 OP/B") reads as the bare
            // intensity it names.
            let bare = match fields.get("intensity") {
                Some(Value::String(s)) if crate::units::bare_intensity(s) != s => {
                    let mut f = fields.clone();
                    f.insert("intensity".into(), crate::units::bare_intensity(s).into());
                    Some(f)
                }
                _ => None,
            };
            let f = bare.as_ref().unwrap_or(fields);
            let c = calc::point::cost(&hw, &inputs(f)?, mode)?;
            let mut r = c.report(lean);
            prices.record(&mut r, &[&c.energy]);
            r
        }
        "occupancy" => {
            let hw = ctx.point_hardware(fields, None)?;
            let i: calc::occupancy::OccupancyInputs = inputs(fields)?;
            if i.solve.is_some() || i.target_occupancy.is_some() {
                calc::occupancy::solve(&hw, &i, mode)?.report(lean)
            } else {
                calc::occupancy::cost(&hw, &i, mode)?
                    .launchable()?
                    .report(lean)
            }
        }
        "coalesce" => {
            let hw = ctx.point_hardware(fields, None)?;
            calc::coalesce::cost(&hw, &inputs(fields)?, mode)?.report(lean)
        }
        "littles-law" => {
            let hw = ctx.point_hardware(fields, None)?;
            calc::littles_law::cost(&hw, &inputs(fields)?, mode)?.report(lean)
        }
        "matmul" if fields.contains_key("solve") => {
            let hw = ctx.point_hardware(fields, Some(DEFAULT_HW))?;
            calc::matmul::ridge::check_solve(fields)?;
            let dtype = fields.get("dtype").and_then(Value::as_str);
            let r = calc::matmul::ridge::ridge(&hw, dtype, mode)?.report(lean);
            noted_default(fields, r)
        }
        "matmul" => {
            let hw = ctx.point_hardware(fields, Some(DEFAULT_HW))?;
            // A lean report keeps no tile table: none is priced.
            let cost = if lean {
                calc::matmul::cost_lean
            } else {
                calc::matmul::cost
            };
            let c = cost(&hw, &inputs(fields)?, mode)?;
            let mut r = c.report(lean);
            prices.record(&mut r, &[&c.energy]);
            noted_default(fields, r)
        }
        "fusion softmax" => fusion(ctx, fields, lean, |hw, f| {
            calc::fusion::softmax(hw, &inputs(f)?, mode)
        })?,
        "fusion chain" => fusion(ctx, fields, lean, |hw, f| {
            calc::fusion::chain(hw, &inputs(f)?, mode)
        })?,
        "fusion epilogue" => fusion(ctx, fields, lean, |hw, f| {
            calc::fusion::epilogue(hw, &inputs(f)?, mode)
        })?,
        "launch" => {
            let hw = match fields.get("hw") {
                Some(_) => Some(ctx.point_hardware(fields, None)?),
                None => None,
            };
            calc::launch::cost(hw.as_deref(), &inputs(fields)?, mode)?.report(lean)
        }
        "collective" => {
            let hw = ctx.point_hardware(fields, None)?;
            let mut i: calc::collective::CollectiveInputs = inputs(fields)?;
            i.engine = Some(ctx.point_engine(fields)?);
            calc::collective::cost(&hw, &i, mode)?.report(lean)
        }
        "plan" => plan(ctx, fields, lean, prices)?,
        "kv" => {
            let m = ctx.point_model(fields)?;
            let hw = if fields.contains_key("hw") {
                Some(ctx.point_hardware(fields, None)?)
            } else {
                None
            };
            calc::kv::cost(&m, hw.as_deref(), &inputs(fields)?)?.report(lean)
        }
        "decode" => decode(ctx, fields, lean, prices)?,
        "prefill" => {
            let m = ctx.point_model(fields)?;
            let hw = ctx.point_hardware(fields, None)?;
            let mut i: calc::prefill::PrefillInputs = inputs(fields)?;
            i.engine = Some(ctx.point_engine(fields)?);
            let c = calc::prefill::cost(&m, &hw, &i, mode)?;
            let mut r = c.report(lean);
            engine_note(ctx, fields, &mut r)?;
            prices.record(&mut r, &[&c.energy]);
            r
        }
        "speculative" => calc::speculative::cost(&inputs(fields)?)?.report(lean),
        "simulate" => {
            let m = ctx.point_model(fields)?;
            let hw = ctx.point_hardware(fields, None)?;
            // A disaggregated run's prefill pool may be another part.
            let pre = match fields.get("prefill-hw") {
                Some(Value::String(id)) => ctx.hardware(id)?.into_iter().next(),
                _ => None,
            };
            let pre = pre.as_ref().unwrap_or(&hw);
            let mut i: calc::simulate::SimulateInputs = inputs(fields)?;
            i.engine = Some(ctx.point_engine_or(fields, SERVING_ENGINE)?);
            let c = calc::simulate::cost_with(&m, &hw, pre, &i, mode)?;
            let mut r = c.report(lean);
            prices.record(&mut r, &[&c.energy]);
            r
        }
        "fleet" => {
            // One joint search over the parts listed in `parts` (the
            // command line's --hw), not a comparison.
            let m = ctx.point_model(fields)?;
            let list = calc::fleet::parts_list(fields);
            let hws = ctx.hardware(&list)?;
            let f: Fields = fields
                .iter()
                .filter(|(k, _)| is_calc_field(k) && k.as_str() != "parts")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let mut inputs = calc::fleet::FleetInputs::from_fields(&f)?;
            // Compared parts (no `joint`): each search takes its own part's
            // price from a per-part list.
            if !fields.contains_key("parts")
                && let [one] = hws.as_slice()
                && !inputs.part_prices.0.is_empty()
            {
                inputs.part_prices.only(&one.id);
            }
            inputs.sim.engine = Some(ctx.point_engine_or(fields, SERVING_ENGINE)?);
            // The names as given, for the check command it prints.
            let given = super::context::split(&list).map(String::from);
            let parts = hws.iter().map(|h| h.id.clone()).zip(given).collect();
            inputs.check = calc::fleet::check::Check::of(fields, &ctx.sets, mode, parts)
                .with_dirs(&ctx.catalog);
            let mut r = calc::fleet::search::search(&m, &hws, &inputs, mode)?.report(lean)?;
            // The parts are loaded as one list, not through the cache the
            // evidence notes read (Context::quote_errors): each part's
            // evidence and band is quoted here, as simulate's is.
            if mode == crate::spec::hardware::Mode::Achievable {
                for h in &hws {
                    let q = calc::accuracy::quote("all", h);
                    r.note(if hws.len() == 1 {
                        q
                    } else {
                        format!("{}: {q}", h.id)
                    });
                }
            }
            r
        }
        "calc" => calc(ctx, fields, lean)?,
        "dtype" => calc::dtype::report(&inputs(fields)?, lean)?,
        other => return Err(super::unknown_command(other)),
    })
}

/// Says which kernels the engine runs, where the point names an engine or
/// changes one with `--set engine.*` (the default's answers stay as they
/// were).
fn engine_note(ctx: &Context, fields: &Fields, r: &mut Report) -> Result<()> {
    let named = fields.contains_key("engine")
        || ctx
            .sets
            .iter()
            .any(|s| crate::spec::overrides::is_engine_path(&s.path));
    if !named {
        return Ok(());
    }
    r.note(calc::engine::note(&*ctx.point_engine(fields)?));
    Ok(())
}

/// Notes the default hardware on a report whose point named none.
fn noted_default(fields: &Fields, mut r: Report) -> Report {
    if fields.get("hw").and_then(Value::as_str).is_none() {
        r.note(format!(
            "hardware: {DEFAULT_HW}, the default (the lecture's worked examples use it); choose another with --hw"
        ));
    }
    r
}

/// One point of a fusion pattern: its hardware (the default where none is
/// named, noted in the report) and its cost.
fn fusion(
    ctx: &Context,
    fields: &Fields,
    lean: bool,
    cost: impl FnOnce(&Hardware, &Fields) -> Result<calc::fusion::FusionCost>,
) -> Result<Report> {
    let hw = ctx.point_hardware(fields, Some(DEFAULT_HW))?;
    let r = cost(&hw, fields)?.report(lean);
    Ok(noted_default(fields, r))
}

fn model_show(ctx: &Context, fields: &Fields, lean: bool) -> Result<Report> {
    use calc::model::{self, ModelInputs};
    // A top-level field of the model file (`layers = 16`) is a `--set` of
    // that field at this point, as a dotted path is.
    let file_field = |k: &str| MODEL_TOP_LEVEL.contains(&k);
    if !fields.keys().any(|k| file_field(k)) {
        let m = ctx.point_model(fields)?;
        let inputs: ModelInputs = inputs(fields)?;
        return Ok(model::cost(&m, &inputs)?.report(lean));
    }
    let m = ctx.point_model_where(fields, |k| k.contains('.') || file_field(k))?;
    let inputs: ModelInputs = from_fields_where(fields, |k| matches!(k, "dtype" | "kv-dtype"))?;
    Ok(model::cost(&m, &inputs)?.report(lean))
}

fn plan(
    ctx: &Context,
    fields: &Fields,
    lean: bool,
    prices: &calc::power::Prices,
) -> Result<Report> {
    use calc::plan::{self, PlanInputs, Setup};
    let hw = ctx.point_hardware(fields, None)?;
    let model = ctx.point_model(fields)?;
    let mut inputs: PlanInputs = inputs(fields)?;
    plan::plan_reserve(&inputs)?;
    inputs.engine = Some(ctx.point_engine_or(fields, SERVING_ENGINE)?);
    if inputs.disaggregate == Some(true) {
        let s = Setup::new(&hw, &model, &inputs, ctx.mode)?;
        let w = plan::workload(&inputs)?;
        let (a, b) = match (inputs.prefill_devices, inputs.decode_devices) {
            (Some(a), Some(b)) => (a.0, b.0),
            _ => {
                return Err(Error::missing_input(
                    "prefill-devices",
                    "give --prefill-devices and --decode-devices",
                ));
            }
        };
        let c = plan::disaggregate(&s, a, b, w, &inputs)?;
        let mut r = c.report(lean);
        prices.record(&mut r, &[&c.decode.energy, &c.prefill.prefill_energy]);
        return Ok(assumed(r, fields));
    }
    if inputs.search == Some(true) {
        let s = Setup::new(&hw, &model, &inputs, ctx.mode)?;
        let w = plan::workload(&inputs)?;
        let Some(n) = inputs.devices else {
            return Err(Error::missing_input(
                "devices",
                "a search needs the number of devices; give `devices`",
            ));
        };
        let c = plan::search(&s, n.0, w, &inputs)?;
        let mut r = c.report(lean);
        prices.record(&mut r, &[&c.plans[0].energy, &c.plans[0].prefill_energy]);
        return Ok(assumed(r, fields));
    }
    let c = plan::cost(&hw, &model, &inputs, ctx.mode)?;
    let mut r = c.report(lean);
    prices.record(&mut r, &[&c.energy, &c.prefill_energy]);
    Ok(assumed(r, fields))
}

/// A plan's figures all hang on the batch, context and prompt: those not
/// given are named in a note with the values assumed.
fn assumed(mut r: Report, fields: &Fields) -> Report {
    let left_out: Vec<String> = ["batch", "context", "prompt"]
        .iter()
        .filter(|k| !fields.contains_key(**k))
        .filter_map(|k| {
            let v = r.inputs.get(*k)?.as_u64()?;
            Some(format!("--{k} {}", crate::units::whole(v)))
        })
        .collect();
    if !left_out.is_empty() {
        r.note(format!(
            "assumed, since not given: {}; every figure depends on them",
            left_out.join(", ")
        ));
    }
    r
}

fn decode(
    ctx: &Context,
    fields: &Fields,
    lean: bool,
    prices: &calc::power::Prices,
) -> Result<Report> {
    use calc::decode::{self, DecodeInputs};
    let m = ctx.point_model(fields)?;
    let hw = ctx.point_hardware(fields, None)?;
    let engine = ctx.point_engine(fields)?;
    // One set-up per model, device and choices across a sweep's points.
    let priced = |inputs: &DecodeInputs| -> Result<Report> {
        let mut inputs = inputs.clone();
        inputs.engine = Some(engine.clone());
        let c = decode::cost_shared(
            &m,
            &hw,
            &inputs,
            ctx.mode,
            &mut ctx.decode_setups.borrow_mut(),
        )?;
        let mut r = c.report(lean);
        prices.record(&mut r, &[&c.energy]);
        engine_note(ctx, fields, &mut r)?;
        Ok(r)
    };
    // A tensor-parallel group: plan's layout tp x 1 x 1 (decode::tp).
    let tp = decode_tp(fields)?;
    if tp > 1 {
        if fields.contains_key("speculative") {
            return Err(decode::tp::refused("speculative", tp));
        }
        let mut inputs: DecodeInputs = inputs(fields)?;
        inputs.engine = Some(engine.clone());
        let c = decode::tp::cost(&m, &hw, &inputs, ctx.mode)?;
        let mut r = c.report(lean);
        prices.record(&mut r, &[c.energy()]);
        engine_note(ctx, fields, &mut r)?;
        return Ok(r);
    }
    match decode::speculative_fields(fields)? {
        None => priced(&inputs(fields)?),
        Some((f, named)) => priced(&inputs(&f).map_err(named)?).map_err(named),
    }
}

/// `calc`: the expression's fields read from the catalog's files, the
/// `--set`s applied (a model path to models, any other to hardware).
fn calc(ctx: &Context, fields: &Fields, lean: bool) -> Result<Report> {
    use crate::spec::overrides::{self, Set};
    use calc::expr::{self, CalcInputs, fields::FieldValue};
    let inputs: CalcInputs = inputs(fields)?;
    let mut trees: std::collections::HashMap<String, toml::Table> = Default::default();
    let mut read = |name: &str| -> std::result::Result<FieldValue, String> {
        let hw = ctx.catalog.hardware_entries().map_err(|e| e.to_string())?;
        let models = ctx.catalog.model_entries().map_err(|e| e.to_string())?;
        // Ids hold dots (`llama-3.1-70b`): the longest known id wins.
        let known = |s: &str| hw.iter().chain(models.iter()).any(|e| e.id == s);
        if known(name) {
            return Err(format!(
                "`{name}` is a catalog id, not a field; a field is ID.path (`{name}.` and a path `roofline hw show`/`model show` prints)"
            ));
        }
        let (id, path) =
            expr::split_field(name, &known).ok_or_else(|| format!("`{name}` is no field"))?;
        if !trees.contains_key(id) {
            let is_hw = hw.iter().any(|e| e.id == id);
            let is_model = !is_hw && models.iter().any(|e| e.id == id);
            if !is_hw && !is_model {
                let ids: Vec<&str> = hw
                    .iter()
                    .chain(models.iter())
                    .map(|e| e.id.as_str())
                    .collect();
                // The id may hold dots itself: of the prefixes with a near
                // id, the nearest (the longer on a tie) names both the id
                // and the path meant.
                let near = name
                    .match_indices('.')
                    .map(|(i, _)| i)
                    .filter_map(|i| {
                        crate::catalog::suggest(&name[..i], ids.iter().copied())
                            .map(|s| (crate::error::edit_distance(&name[..i], &s), i, s))
                    })
                    .min_by_key(|(d, i, _)| (*d, std::cmp::Reverse(*i)))
                    .map(|(_, i, s)| (i, s));
                let (named, hint) = match near {
                    Some((i, s)) => (
                        &name[..i],
                        format!(" (did you mean `{s}.{}`?)", &name[i + 1..]),
                    ),
                    None => (id, String::new()),
                };
                return Err(format!(
                    "`{name}`: no hardware or model `{named}` in the catalog{hint}; a field is ID.path, ID from `roofline hw list` or `roofline model list`"
                ));
            }
            ctx.mark_read(is_hw, is_model);
            let (text, _) = if is_hw {
                ctx.catalog.hardware_text(id)
            } else {
                ctx.catalog.model_text(id)
            }
            .map_err(|e| e.to_string())?;
            let owned: Vec<Set> = ctx
                .sets
                .iter()
                .filter(|s| overrides::is_model_path(&s.path) == is_model)
                .map(|s| Set {
                    path: overrides::file_path(&s.path).to_string(),
                    value: s.value.clone(),
                })
                .collect();
            let mine: Vec<&Set> = owned.iter().collect();
            let text = overrides::apply(&text, id, &mine).map_err(|e| e.to_string())?;
            let tree: toml::Table =
                toml::from_str(&text).map_err(|e| format!("`{id}`: {}", e.message().trim()))?;
            trees.insert(id.to_string(), tree);
        }
        expr::fields::field(&trees[id], id, path)
    };
    Ok(expr::cost(&inputs, &mut read)?.report(lean))
}

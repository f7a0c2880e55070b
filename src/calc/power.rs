//! Board power, energy and cost of work on one accelerator (formulas.md,
//! "Power and energy"). A [`PowerModel`] is resolved once from a hardware
//! file's measured board power (idle, at sustained full compute, while
//! streaming memory) and prices any work given its time, FLOPs and bytes:
//! idle power for as long as it runs, plus a fixed dynamic energy per FLOP
//! and per byte, with the board limit capping the power (the clock drops
//! and the work stretches until it fits). [`Energy`] carries one answer's
//! draw and the tokens it makes into its report; [`Prices`] turns those
//! into cost per million tokens.

use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::{Hardware, Mode};
use crate::units;
use serde::{Deserialize, Serialize};

/// A part's power model at one compute precision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerModel {
    /// Board limit, W (`package.tdp-watts`).
    pub limit_w: f64,
    /// Idle board power, W.
    pub idle_w: f64,
    /// Board power at sustained full compute, W.
    pub compute_w: f64,
    /// Board power while streaming memory, W.
    pub stream_w: f64,
    /// The compute rate `compute_w` was measured at, FLOP/s.
    pub compute_rate: f64,
    /// The memory traffic of the loop `compute_w` was measured on, B/s.
    pub compute_traffic: f64,
    /// The bandwidth `stream_w` was measured at, B/s.
    pub stream_bandwidth: f64,
    /// The precision's compute key (`bf16`).
    pub compute: String,
}

/// The board-power fields a model needs, in the order they are asked for.
const FIELDS: [&str; 5] = [
    "package.tdp-watts",
    "package.idle-watts",
    "package.compute-watts",
    "package.stream-watts",
    "package.compute-traffic",
];

impl PowerModel {
    /// The model of `hw` at compute precision `compute`; `Err` names the
    /// first field the file lacks (a report shows it in a note and leaves
    /// the energy figures null).
    pub fn of(hw: &Hardware, compute: &str) -> std::result::Result<Self, String> {
        let p = hw.package.as_ref();
        let values = [
            hw.board_power(),
            p.and_then(|p| p.idle_watts),
            p.and_then(|p| p.compute_watts),
            p.and_then(|p| p.stream_watts),
            p.and_then(|p| p.compute_traffic).map(|t| t.get()),
        ];
        if let Some(i) = values.iter().position(Option::is_none) {
            return Err(FIELDS[i].to_string());
        }
        let [limit_w, idle_w, compute_w, stream_w, compute_traffic] =
            values.map(|v| v.unwrap_or(0.0));
        let a = hw.achievable.as_ref();
        let compute_rate = a
            .and_then(|a| a.sustained.get(compute))
            .ok_or_else(|| format!("achievable.sustained.{compute}"))?;
        let stream_bandwidth = a
            .and_then(|a| a.hbm_bandwidth)
            .map(|b| b.get())
            .ok_or_else(|| "achievable.hbm-bandwidth".to_string())?;
        Ok(PowerModel {
            limit_w,
            idle_w,
            compute_w,
            stream_w,
            compute_rate,
            compute_traffic,
            stream_bandwidth,
            compute: compute.to_string(),
        })
    }

    /// Dynamic power of the compute engine at the sustained rate, W: the
    /// compute loop's power less idle and less its own memory traffic's
    /// share.
    pub fn compute_dynamic_w(&self) -> f64 {
        self.compute_w - self.idle_w - self.joules_per_byte() * self.compute_traffic
    }

    /// Dynamic energy per FLOP, J: compute's dynamic power / sustained
    /// rate.
    pub fn joules_per_flop(&self) -> f64 {
        self.compute_dynamic_w() / self.compute_rate
    }

    /// Dynamic energy per byte of device memory, J: (stream - idle) /
    /// bandwidth.
    pub fn joules_per_byte(&self) -> f64 {
        (self.stream_w - self.idle_w) / self.stream_bandwidth
    }

    /// The bytes an operation streams: its own, or, where its compute
    /// keeps the engine busier, the traffic the measured compute loop
    /// streamed for as long as the FLOPs take at the sustained rate (a
    /// compute-bound matmul rereads its operand tiles; an operation's
    /// compulsory bytes leave those out).
    pub fn streamed_bytes(&self, flops: f64, bytes: f64) -> f64 {
        bytes.max(self.compute_traffic * flops / self.compute_rate)
    }

    /// Energy beyond idle of `flops` and `bytes`, J.
    pub fn dynamic_j(&self, flops: f64, bytes: f64) -> f64 {
        flops * self.joules_per_flop() + self.streamed_bytes(flops, bytes) * self.joules_per_byte()
    }

    /// One operation of `time_s` doing `flops` and `bytes`: power = idle +
    /// dynamic energy / time, and where that passes the limit the clock
    /// drops until it fits: time = dynamic / (limit - idle).
    pub fn draw(&self, time_s: f64, flops: f64, bytes: f64) -> Draw {
        let dynamic = self.dynamic_j(flops, bytes);
        let headroom = self.limit_w - self.idle_w;
        let floor = if headroom > 0.0 {
            dynamic / headroom
        } else {
            f64::INFINITY
        };
        let time = time_s.max(floor);
        let energy = self.idle_w * time + dynamic;
        Draw {
            time_s,
            limited_time_s: time,
            energy_j: energy,
            uncapped_w: if time_s > 0.0 {
                self.idle_w + dynamic / time_s
            } else {
                f64::INFINITY
            },
            power_w: if time > 0.0 {
                energy / time
            } else {
                self.idle_w
            },
            idle_w: self.idle_w,
            flop_j: flops * self.joules_per_flop(),
            byte_j: self.streamed_bytes(flops, bytes) * self.joules_per_byte(),
        }
    }

    /// Operations run one after another, each capped on its own.
    pub fn draw_ops(&self, ops: impl IntoIterator<Item = (f64, f64, f64)>) -> Draw {
        let mut d = Draw::sum(ops.into_iter().map(|(t, f, b)| self.draw(t, f, b)));
        // With no operations the board idles.
        d.idle_w = self.idle_w;
        if d.limited_time_s <= 0.0 {
            d.power_w = self.idle_w;
        }
        d
    }
}

/// What some work draws.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Draw {
    /// The time the work was given, s.
    pub time_s: f64,
    /// The time under the board limit (at least `time_s`), s.
    pub limited_time_s: f64,
    /// Energy, J.
    pub energy_j: f64,
    /// Mean board power over `limited_time_s`, W (at most the limit).
    pub power_w: f64,
    /// The highest power any operation would draw without the limit, W.
    pub uncapped_w: f64,
    /// Idle power, W.
    pub idle_w: f64,
    /// Dynamic energy of the FLOPs, J.
    pub flop_j: f64,
    /// Dynamic energy of the bytes, J.
    pub byte_j: f64,
}

impl Draw {
    /// Several draws one after another.
    pub fn sum(draws: impl IntoIterator<Item = Draw>) -> Draw {
        let mut d = Draw::default();
        for o in draws {
            d.idle_w = o.idle_w;
            d.time_s += o.time_s;
            d.limited_time_s += o.limited_time_s;
            d.energy_j += o.energy_j;
            d.flop_j += o.flop_j;
            d.byte_j += o.byte_j;
            d.uncapped_w = d.uncapped_w.max(o.uncapped_w);
        }
        d.power_w = if d.limited_time_s > 0.0 {
            d.energy_j / d.limited_time_s
        } else {
            d.idle_w
        };
        d
    }

    /// The draw of `k` times the work (k of its repetitions, or a share of
    /// one): times and energies scale, powers stay.
    pub fn scaled(self, k: f64) -> Draw {
        Draw {
            time_s: self.time_s * k,
            limited_time_s: self.limited_time_s * k,
            energy_j: self.energy_j * k,
            flop_j: self.flop_j * k,
            byte_j: self.byte_j * k,
            ..self
        }
    }

    /// Whether the limit stretched the work.
    pub fn limited(&self) -> bool {
        self.limited_time_s > self.time_s * (1.0 + 1e-9)
    }
}

/// The draw of a forward step: operation by operation where it was priced
/// that way (`--achievable`), else the step as one operation.
pub fn of_timed(pm: &PowerModel, t: &super::decode::Timed) -> Draw {
    match &t.priced {
        Some(p) => pm.draw_ops(
            t.step
                .ops
                .iter()
                .chain(&t.step.extra)
                .zip(&p.ops)
                .map(|(op, ot)| (ot.time_s, op.flops, op.bytes())),
        ),
        None => pm.draw(t.total_s, t.step.flops(), t.step.bytes()),
    }
}

/// What an answer's tokens are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Per {
    /// No tokens: energy of the work itself (`point`, `matmul`).
    Work,
    /// A rate without a size (`point --intensity`): power only.
    Rate,
    /// Output (decoded) tokens.
    Output,
    /// Prompt tokens (`prefill`).
    Prompt,
}

/// One answer's energy: its draw (or the field missing for it), the
/// devices it runs on and the tokens it makes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Energy {
    /// Per-device draw, or the power field the file lacks.
    pub draw: std::result::Result<Draw, String>,
    /// The answer's own time for the tokens, s (what a device-hour price
    /// is charged for where no draw is modelled).
    pub time_s: f64,
    /// Datasheet or achievable times.
    pub mode: Mode,
    /// Devices drawing it.
    pub devices: f64,
    /// Tokens made in the draw's time (0 for `Per::Work`).
    pub tokens: f64,
    /// What the tokens are.
    pub per: Per,
}

impl Energy {
    /// The energy of `draw` on `devices` devices for `tokens` tokens.
    pub fn new(
        draw: std::result::Result<Draw, String>,
        time_s: f64,
        mode: Mode,
        devices: f64,
        tokens: f64,
        per: Per,
    ) -> Self {
        Energy {
            draw,
            time_s,
            mode,
            devices,
            tokens,
            per,
        }
    }

    /// Pools serving the same output tokens (a disaggregated deployment's
    /// prefill and decode pools, each priced as its own run): their joules
    /// and device-seconds per token add (formulas.md, "Power and energy",
    /// pools). The draw is the mean per device over `span_s` of the
    /// deployment; a pool without a power figure leaves the energy null,
    /// naming it.
    pub fn pooled(parts: &[Energy], span_s: f64) -> Energy {
        let devices: f64 = parts.iter().map(|e| e.devices).sum();
        let mode = parts.first().map_or(Mode::SpeedOfLight, |e| e.mode);
        let dst: Option<f64> = parts.iter().map(Energy::device_s_per_token).sum();
        let Some(dst) = dst.filter(|d| *d > 0.0 && devices > 0.0) else {
            return Energy::unmodelled("no output tokens", Per::Output);
        };
        // Tokens the deployment makes in the span.
        let span = span_s.max(f64::MIN_POSITIVE);
        let tokens = span * devices / dst;
        let draw = parts
            .iter()
            .map(|e| match &e.draw {
                Err(f) => Err(f.clone()),
                Ok(d) => Ok((e, d, e.per_token_j().unwrap_or(0.0))),
            })
            .collect::<std::result::Result<Vec<_>, String>>()
            .map(|ps| {
                let per_token: f64 = ps.iter().map(|p| p.2).sum();
                let share = |f: fn(&Draw) -> f64| -> f64 {
                    ps.iter()
                        .map(|(e, d, _)| f(d) * e.devices / e.tokens.max(f64::MIN_POSITIVE))
                        .sum::<f64>()
                        * tokens
                        / devices
                };
                let energy_j = per_token * tokens / devices;
                Draw {
                    time_s: span,
                    limited_time_s: span,
                    energy_j,
                    power_w: energy_j / span,
                    uncapped_w: ps.iter().map(|p| p.1.uncapped_w).fold(0.0, f64::max),
                    idle_w: ps.iter().map(|(e, d, _)| d.idle_w * e.devices).sum::<f64>() / devices,
                    flop_j: share(|d| d.flop_j),
                    byte_j: share(|d| d.byte_j),
                }
            });
        Energy::new(draw, span, mode, devices, tokens, Per::Output)
    }

    /// No energy: the figures are null and the note says why.
    pub fn unmodelled(why: &str, per: Per) -> Self {
        Energy::new(Err(why.to_string()), 0.0, Mode::SpeedOfLight, 1.0, 0.0, per)
    }

    /// Leaves the energy figures out of a table's headline when they are
    /// not modelled: a table need not show a row of dashes (JSON keeps the
    /// nulls).
    pub fn trim_headline(&self, r: &mut Report) {
        if self.draw.is_err() {
            r.headline.retain(|k| {
                !matches!(
                    k.as_str(),
                    "power_w" | "energy_j" | "energy_per_token_j" | "tokens_per_kwh"
                )
            });
        }
    }

    /// Energy per token over every device, J.
    pub fn per_token_j(&self) -> Option<f64> {
        let d = self.draw.as_ref().ok()?;
        (self.tokens > 0.0).then(|| d.energy_j * self.devices / self.tokens)
    }

    /// Device-seconds per token: under the power limit where a draw is
    /// modelled, else the answer's own time.
    pub fn device_s_per_token(&self) -> Option<f64> {
        let t = self.draw.as_ref().map_or(self.time_s, |d| d.limited_time_s);
        (self.tokens > 0.0 && t > 0.0).then(|| t * self.devices / self.tokens)
    }

    /// Records `power_w`, `energy_j` (work) or `energy_per_token_j` and
    /// `tokens_per_kwh` (tokens), with the notes; null where the file
    /// lacks a power figure.
    pub fn record(&self, r: &mut Report) {
        let d = self.draw.as_ref().ok();
        let bound = match self.mode {
            Mode::SpeedOfLight => " (lower bound)",
            Mode::Achievable => "",
        };
        r.result("power_w", d.map(|d| d.power_w), || {
            let q = Quantity::new(
                if self.devices > 1.0 {
                    "board power per device"
                } else {
                    "board power"
                },
                Unit::Watts,
            )
            .formula("(idle x time + J/FLOP x FLOPs + J/B x bytes) / time, at most the limit")
            .group("energy");
            match d {
                Some(d) => q.derive(format!(
                    "({} x {} + {} + {}) / {}{}",
                    units::si(d.idle_w, "W"),
                    units::seconds(d.limited_time_s),
                    crate::units::joules(d.flop_j),
                    crate::units::joules(d.byte_j),
                    units::seconds(d.limited_time_s),
                    if d.limited() { " (at the limit)" } else { "" }
                )),
                None => q,
            }
        });
        // Only where modelled: a null time reads as an overflow.
        if let (true, Some(d)) = (self.per != Per::Rate, d) {
            r.result("power_limited_time_s", d.limited_time_s, || {
                Quantity::new("time under the board limit", Unit::Seconds)
                    .formula("sum over operations of max(time, dynamic energy / (limit - idle))")
                    .group("energy")
            });
        }
        if matches!(self.per, Per::Work | Per::Rate) {
            let d = d.filter(|_| self.per == Per::Work);
            r.result("energy_j", d.map(|d| d.energy_j), || {
                Quantity::new(format!("energy{bound}"), Unit::Joules)
                    .formula("power x time under the limit")
                    .group("energy")
                    .derive(d.map_or_else(String::new, |d| {
                        format!(
                            "{} x {}",
                            units::si(d.power_w, "W"),
                            units::seconds(d.limited_time_s)
                        )
                    }))
            });
        } else {
            let what = if self.per == Per::Prompt {
                "prompt"
            } else {
                "output"
            };
            let per = self.per_token_j();
            r.result("energy_per_token_j", per, || {
                Quantity::new(format!("energy per {what} token{bound}"), Unit::Joules)
                    .formula(if self.devices > 1.0 {
                        "power x devices x time / tokens"
                    } else {
                        "power x time / tokens"
                    })
                    .group("energy")
                    .derive(d.map_or_else(String::new, |d| {
                        let dev = if self.devices > 1.0 {
                            format!(" x {}", units::number(self.devices))
                        } else {
                            String::new()
                        };
                        format!(
                            "{}{dev} x {} / {}",
                            units::si(d.power_w, "W"),
                            units::seconds(d.limited_time_s),
                            units::number(self.tokens)
                        )
                    }))
            });
            r.result("tokens_per_kwh", per.map(|j| KWH / j), || {
                Quantity::new(format!("{what} tokens per kWh"), Unit::TokensPerKwh)
                    .formula("3.6e6 J / energy per token")
                    .group("energy")
            });
        }
        if r.lean {
            return;
        }
        self.trim_headline(r);
        match &self.draw {
            // A field name, or a sentence saying why the work is not priced.
            Err(why) if why.contains(' ') => r.note(format!("energy: not modelled: {why}")),
            Err(field) => r.note(format!(
                "energy: not modelled, the file has no {field}; set it with --set {field}=... (docs/data-schemas.md, \"[package]\"; a measured figure with its source)"
            )),
            Ok(d) => {
                if d.limited() {
                    r.note(format!(
                        "power-limited: some of the work would draw up to {} uncapped; at the board limit the clock drops there and the whole takes {} rather than {} (mean {})",
                        units::si(d.uncapped_w, "W"),
                        units::seconds(d.limited_time_s),
                        units::seconds(d.time_s),
                        units::si(d.power_w, "W")
                    ));
                }
                if self.mode == Mode::SpeedOfLight {
                    r.note("energy at the speed of light is a lower bound: the shortest time the roofs allow, at measured joules per FLOP and per byte; --achievable prices the measured times");
                }
            }
        }
    }
}

/// Joules per kilowatt-hour.
pub const KWH: f64 = 3.6e6;

impl Draw {
    /// Idle energy over the time under the limit, J.
    pub fn idle_j(&self) -> f64 {
        self.idle_w * self.limited_time_s
    }
}

/// Prices for cost per token: per device-hour, per kWh and the PUE that
/// scales the energy. Plain numbers; the currency is the user's.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Prices {
    /// Price of one device for an hour.
    pub device_hour: Option<f64>,
    /// Price of a kilowatt-hour of energy.
    pub kwh: Option<f64>,
    /// Power usage effectiveness: facility energy over device energy (>= 1).
    pub pue: f64,
}

/// The fields [`Prices::take`] reads.
pub const PRICE_FIELDS: [&str; 3] = ["price", "energy-price", "pue"];

/// A price as `AMOUNT/UNIT`, the amount above zero and the unit one of
/// `per` (each with its factor to the base unit).
fn parse_price(
    field: &str,
    v: &serde_json::Value,
    per: &[(&str, f64)],
    what: &str,
    example: &str,
) -> Result<f64> {
    let text = match v {
        serde_json::Value::String(s) => s.trim().to_string(),
        other => other.to_string(),
    };
    let expected = || {
        format!(
            "`{text}`: expected a price per {what} as AMOUNT/{}, e.g. {example} (a plain number: the currency is yours)",
            per[0].0
        )
    };
    let (amount, unit) = text
        .split_once('/')
        .ok_or_else(|| Error::field(field, expected()))?;
    let amount: f64 = amount
        .trim()
        .parse()
        .map_err(|_| Error::field(field, expected()))?;
    let unit = unit.trim();
    let factor = per
        .iter()
        .find(|(u, _)| u.eq_ignore_ascii_case(unit))
        .map(|(_, f)| *f)
        .ok_or_else(|| {
            Error::field(
                field,
                format!(
                    "`{text}`: unknown unit `{unit}`; expected one of {}",
                    per.iter()
                        .map(|(u, _)| format!("/{u}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
    if !(amount.is_finite() && amount > 0.0) {
        return Err(Error::field(
            field,
            format!("`{text}`: a price must be a finite number above zero"),
        ));
    }
    Ok(amount * factor)
}

impl Prices {
    /// Whether any price was given.
    pub fn any(&self) -> bool {
        self.device_hour.is_some() || self.kwh.is_some()
    }

    /// The device-hour share of the cost per million tokens at
    /// `device_s` device-seconds a token (formulas.md, "Cost per token"):
    /// 0 without a device price, None when one is given but the time is
    /// not known.
    pub fn device_per_million(&self, device_s: Option<f64>) -> Option<f64> {
        match (self.device_hour, device_s) {
            (Some(p), Some(s)) => Some(p / 3600.0 * s * 1e6),
            (Some(_), None) => None,
            (None, _) => Some(0.0),
        }
    }

    /// The energy bill's share of the cost per million tokens at `joules`
    /// a token: 0 without an energy price, None when one is given but the
    /// energy is not known.
    pub fn energy_per_million(&self, joules: Option<f64>) -> Option<f64> {
        match (self.kwh, joules) {
            (Some(p), Some(j)) => Some(p * self.pue * j / KWH * 1e6),
            (Some(_), None) => None,
            (None, _) => Some(0.0),
        }
    }

    /// Takes `price` ("2.50/h", per device-hour), `energy-price`
    /// ("0.10/kWh") and `pue` (default 1) out of a point's fields.
    pub fn take(fields: &mut crate::inputs::Fields) -> Result<Prices> {
        let device_hour = match fields.remove("price") {
            Some(v) => Some(parse_price(
                "price",
                &v,
                &[
                    ("h", 1.0),
                    ("hour", 1.0),
                    ("hr", 1.0),
                    ("min", 60.0),
                    ("s", 3600.0),
                ],
                "device-hour",
                "2.50/h",
            )?),
            None => None,
        };
        let kwh = match fields.remove("energy-price") {
            Some(v) => Some(parse_price(
                "energy-price",
                &v,
                &[("kWh", 1.0), ("MWh", 1e-3), ("Wh", 1e3)],
                "kilowatt-hour",
                "0.10/kWh",
            )?),
            None => None,
        };
        let pue = match fields.remove("pue") {
            None => 1.0,
            Some(v) => {
                let x = match &v {
                    serde_json::Value::Number(n) => n.as_f64(),
                    serde_json::Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                };
                let x = x.ok_or_else(|| {
                    Error::field(
                        "pue",
                        format!("`{v}`: expected a number of at least 1, e.g. 1.2"),
                    )
                })?;
                if !(x.is_finite() && x >= 1.0) {
                    return Err(Error::field(
                        "pue",
                        format!(
                            "{x} is below 1: power usage effectiveness is facility energy over device energy, at least 1"
                        ),
                    ));
                }
                if kwh.is_none() {
                    return Err(Error::missing_input(
                        "energy-price",
                        "pue scales the energy bill; give energy-price as well",
                    ));
                }
                x
            }
        };
        Ok(Prices {
            device_hour,
            kwh,
            pue,
        })
    }

    /// Records `cost_per_million_output_tokens` (and
    /// `cost_per_million_input_tokens` for an energy of prompt tokens) and
    /// the energy bill's share of each, when a price is given.
    pub fn record(&self, r: &mut Report, energies: &[&Energy]) {
        if !self.any() {
            return;
        }
        for e in energies {
            let (key, share_key, what) = match e.per {
                Per::Output => (
                    "cost_per_million_output_tokens",
                    "energy_cost_share",
                    "output",
                ),
                Per::Prompt => (
                    "cost_per_million_input_tokens",
                    "input_energy_cost_share",
                    "input",
                ),
                Per::Work | Per::Rate => continue,
            };
            let device = self.device_per_million(e.device_s_per_token());
            let energy = self.energy_per_million(e.per_token_j());
            let total = device.zip(energy).map(|(a, b)| a + b);
            r.result(key, total, || {
                let mut f = Vec::new();
                if self.device_hour.is_some() {
                    f.push(
                        "price per device-hour / 3600 x device-seconds per token x 1e6".to_string(),
                    );
                }
                if self.kwh.is_some() {
                    f.push("price per kWh x PUE x J per token / 3.6e6 x 1e6".to_string());
                }
                let mut d = Vec::new();
                if let (Some(p), Some(s)) = (self.device_hour, e.device_s_per_token()) {
                    d.push(format!(
                        "{} / 3600 x {} x 1e6",
                        units::sig(p, 4),
                        units::seconds(s)
                    ));
                }
                if let (Some(p), Some(j)) = (self.kwh, e.per_token_j()) {
                    d.push(format!(
                        "{} x {} x {} / 3.6e6 x 1e6",
                        units::sig(p, 4),
                        units::sig(self.pue, 4),
                        crate::units::joules(j)
                    ));
                }
                Quantity::new(
                    format!("cost per million {what} tokens (the price's currency)"),
                    Unit::None,
                )
                .formula(f.join(" + "))
                .derive(d.join(" + "))
                .group("cost")
            });
            if self.kwh.is_some() {
                let share = total
                    .zip(energy)
                    .map(|(t, e)| if t > 0.0 { e / t } else { 0.0 });
                r.result(share_key, share, || {
                    Quantity::new(format!("energy's share of the {what} cost"), Unit::Fraction)
                        .formula("energy bill / cost")
                        .group("cost")
                });
            }
        }
        if self.kwh.is_some() && energies.iter().any(|e| e.draw.is_err()) {
            r.note("cost: the energy bill needs the board-power figures the note on energy names; the cost is null without them");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::decode::{self, DecodeInputs};
    use crate::catalog::Catalog;

    fn h200() -> Hardware {
        Catalog::default().hardware("h200-sxm", &[]).unwrap()
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs()
    }

    /// formulas.md, "Power and energy": e_B and e_F from the measured
    /// readings (validation/h200-power-summary.json, h200-gemm-dram.json)
    /// worked by hand.
    #[test]
    fn energies_per_byte_and_flop_by_hand() {
        let pm = PowerModel::of(&h200(), "bf16").unwrap();
        let e_b = (677.3 - 80.9) / 4202.7e9;
        assert!(close(pm.joules_per_byte(), e_b, 1e-9));
        // 141.9 pJ/B; the loop's traffic takes 115.8 W of the 692.8.
        let e_f = (692.8 - 80.9 - e_b * 815.8e9) / 651e12;
        assert!(close(pm.joules_per_flop(), e_f, 1e-9));
        assert!(close(e_f, 0.762e-12, 1e-3), "{e_f}");
        let fp8 = PowerModel::of(&h200(), "fp8").unwrap();
        assert!(close(fp8.joules_per_flop(), 496.1 / 1166e12, 1e-3));
    }

    /// The 8192^3 bf16 GEMM at its burst rate passes the limit, stretches
    /// to (e_F F + e_B B') / (L - P0) and costs 1.063 pJ/FLOP, the
    /// measured loop's 692.8 W / 651 TFLOP/s within 0.2%.
    #[test]
    fn capped_gemm_matches_the_measured_loop() {
        let pm = PowerModel::of(&h200(), "bf16").unwrap();
        let f = 2.0 * 8192f64.powi(3);
        let d = pm.draw(f / 764e12, f, 1.28e9);
        assert!(d.limited());
        assert!(close(d.power_w, 700.0, 1e-9));
        let bytes = 815.8e9 * f / 651e12; // the loop's traffic, above 1.28 GB
        let t = (0.762e-12 * f + 141.9e-12 * bytes) / (700.0 - 80.9);
        assert!(close(d.limited_time_s, t, 2e-3), "{} {t}", d.limited_time_s);
        assert!(close(d.energy_j / f, 692.8 / 651e12, 2e-3));
    }

    /// Below the limit a memory-bound operation draws idle plus its bytes'
    /// power; a gap with no work draws idle power.
    #[test]
    fn below_the_limit_and_idle_gaps() {
        let pm = PowerModel::of(&h200(), "bf16").unwrap();
        let d = pm.draw(1e-3, 0.0, 2e9);
        assert!(close(d.power_w, 80.9 + 141.9e-12 * 2e9 / 1e-3, 1e-3));
        assert!(!d.limited());
        let gap = pm.draw(5e-6, 0.0, 0.0);
        assert!(close(gap.power_w, 80.9, 1e-12));
        let both = pm.draw_ops([(1e-3, 0.0, 2e9), (1e-3, 0.0, 0.0)]);
        assert!(close(both.power_w, (d.energy_j + 80.9e-3) / 2e-3, 1e-12));
    }

    fn decode_at(hw: &Hardware, batch: u64, mode: Mode) -> decode::DecodeCost {
        let m = Catalog::default().model("llama-3-8b", &[]).unwrap();
        let mut f = crate::inputs::Fields::new();
        f.insert("batch".into(), batch.into());
        f.insert("context".into(), 1024.into());
        let inputs: DecodeInputs = crate::inputs::from_fields(&f).unwrap();
        decode::cost(&m, hw, &inputs, mode).unwrap()
    }

    /// formulas.md's decode derivation at batch 1: idle over the step,
    /// the bytes streamed, the FLOPs, no operation at the limit.
    #[test]
    fn decode_batch_one_by_hand() {
        let c = decode_at(&h200(), 1, Mode::Achievable);
        let t = c.step_time_s;
        let st = &c.timed.step;
        let by_hand = 80.9 * t + 141.9e-12 * st.bytes() + 0.762e-12 * st.flops();
        let e = c.energy.per_token_j().unwrap();
        assert!(close(e, by_hand, 2e-3), "{e} {by_hand}");
        // About 2.63 J and 457 W (formulas.md); streaming is four fifths
        // of it.
        assert!(close(e, 2.63, 0.01), "{e}");
        let d = c.energy.draw.as_ref().unwrap();
        assert!(!d.limited());
        assert!(d.byte_j / d.energy_j > 0.8);
    }

    /// Energy per token falls with batch while memory binds, and the
    /// board limit holds at every batch.
    #[test]
    fn energy_per_token_falls_with_batch_until_compute_binds() {
        let hw = h200();
        for mode in [Mode::Achievable, Mode::SpeedOfLight] {
            let mut last = f64::INFINITY;
            for b in [1, 2, 4, 8, 16, 32, 64, 128, 256, 512] {
                let c = decode_at(&hw, b, mode);
                let e = c.energy.per_token_j().unwrap();
                let d = c.energy.draw.as_ref().unwrap();
                assert!(d.power_w <= 700.0 * (1.0 + 1e-9), "{b}: {}", d.power_w);
                if c.timed.roof.bound == crate::calc::roof::Bound::Memory {
                    assert!(e < last, "{mode:?} batch {b}: {e} after {last}");
                }
                last = e;
            }
        }
    }

    /// A part without the measured figures: null figures naming the field.
    #[test]
    fn missing_fields_are_named() {
        let hw = Catalog::default().hardware("h100-sxm", &[]).unwrap();
        assert_eq!(
            PowerModel::of(&hw, "bf16").unwrap_err(),
            "package.idle-watts"
        );
        let c = decode_at(&hw, 1, Mode::SpeedOfLight);
        let r = c.report(false);
        assert!(r.results["power_w"].is_null());
        assert!(r.results["energy_per_token_j"].is_null());
        assert!(r.notes.iter().any(|n| n.contains("package.idle-watts")));
    }

    fn prices(p: &[(&str, &str)]) -> Result<Prices> {
        let mut f = crate::inputs::Fields::new();
        for (k, v) in p {
            f.insert((*k).into(), (*v).into());
        }
        Prices::take(&mut f)
    }

    /// Cost per million tokens by hand: 2.50 an hour over 1,000 tokens a
    /// second is 2.5 / 3.6e6 per token, 0.6944 per million; 0.10 a kWh at
    /// PUE 1.5 on 0.5 J a token adds 0.1 x 1.5 x 0.5 / 3.6e6 x 1e6.
    /// Two pools serving the same 50 tokens over 10 s: 2 devices drawing
    /// 100 J each and 1 drawing 300 J. By hand: 500 J / 50 tokens = 10 J a
    /// token, 500 J / (3 devices x 10 s) = 16.67 W a device, and 3 x 10
    /// device-seconds / 50 = 0.6 a token.
    #[test]
    fn pools_add_by_hand() {
        let pool = |devices: f64, joules: f64| {
            let d = Draw {
                time_s: 10.0,
                limited_time_s: 10.0,
                energy_j: joules,
                power_w: joules / 10.0,
                idle_w: 100.0,
                ..Draw::default()
            };
            Energy::new(Ok(d), 10.0, Mode::Achievable, devices, 50.0, Per::Output)
        };
        let e = Energy::pooled(&[pool(2.0, 100.0), pool(1.0, 300.0)], 10.0);
        assert!((e.per_token_j().unwrap() - 10.0).abs() < 1e-12);
        assert!((e.draw.as_ref().unwrap().power_w - 500.0 / 30.0).abs() < 1e-9);
        assert!((e.device_s_per_token().unwrap() - 0.6).abs() < 1e-12);
        assert_eq!(e.devices, 3.0);
        let missing = Energy::new(
            Err("package.idle-watts".into()),
            10.0,
            Mode::Achievable,
            1.0,
            50.0,
            Per::Output,
        );
        let e = Energy::pooled(&[pool(2.0, 100.0), missing], 10.0);
        assert_eq!(e.draw.unwrap_err(), "package.idle-watts");
    }

    #[test]
    fn cost_by_hand() {
        let p = prices(&[
            ("price", "2.50/h"),
            ("energy-price", "0.10/kWh"),
            ("pue", "1.5"),
        ])
        .unwrap();
        let draw = Draw {
            time_s: 1.0,
            limited_time_s: 1.0,
            energy_j: 500.0,
            power_w: 500.0,
            ..Draw::default()
        };
        let e = Energy::new(Ok(draw), 1.0, Mode::Achievable, 1.0, 1000.0, Per::Output);
        let mut r = Report::new("decode");
        p.record(&mut r, &[&e]);
        let device = 2.5 / 3600.0 / 1000.0 * 1e6;
        let energy = 0.1 * 1.5 * 0.5 / 3.6e6 * 1e6;
        let cost = r.number("cost_per_million_output_tokens").unwrap();
        assert!(close(cost, device + energy, 1e-12), "{cost}");
        let share = r.number("energy_cost_share").unwrap();
        assert!(close(share, energy / (device + energy), 1e-12));
    }

    #[test]
    fn bad_prices_are_refused() {
        for (k, v) in [
            ("price", "0/h"),
            ("price", "-1/h"),
            ("price", "2.5"),
            ("price", "2.5/day"),
            ("price", "x/h"),
            ("energy-price", "0.1/kW"),
            ("energy-price", "inf/kWh"),
        ] {
            let e = prices(&[(k, v)]).unwrap_err();
            assert_eq!(e.exit_code(), 65, "{k}={v}: {e}");
        }
        let e = prices(&[("energy-price", "0.1/kWh"), ("pue", "0.9")]).unwrap_err();
        assert_eq!(e.exit_code(), 65);
        assert!(prices(&[("pue", "1.2")]).is_err());
        assert_eq!(
            prices(&[("energy-price", "100/MWh")]).unwrap().kwh,
            Some(0.1)
        );
    }

    proptest::proptest! {
        /// No operation, and no sum of them, passes the board limit.
        #[test]
        fn never_above_the_limit(
            ops in proptest::collection::vec((1e-9f64..1.0, 0.0f64..1e15, 0.0f64..1e12), 1..20)
        ) {
            let pm = PowerModel::of(&h200(), "bf16").unwrap();
            let d = pm.draw_ops(ops.iter().copied());
            proptest::prop_assert!(d.power_w <= pm.limit_w * (1.0 + 1e-9));
            proptest::prop_assert!(d.power_w >= pm.idle_w * (1.0 - 1e-9));
            proptest::prop_assert!(d.limited_time_s >= d.time_s * (1.0 - 1e-12));
            for (t, f, b) in ops {
                let o = pm.draw(t, f, b);
                proptest::prop_assert!(o.power_w <= pm.limit_w * (1.0 + 1e-9));
            }
        }
    }
}

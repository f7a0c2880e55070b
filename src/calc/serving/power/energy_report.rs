//! An answer's energy in its report: power, energy or energy per token and
//! tokens per kWh, the power-limited time, and the notes on what is not
//! modelled, what the limit stretched and what is a lower bound.

use super::{Energy, KWH, Per};
use crate::report::{Quantity, Report, Unit};
use crate::spec::hardware::Mode;
use crate::units;

impl Energy {
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
            let Some(d) = d else { return q };
            // Idle over the draw's time plus its dynamic energies, over
            // that time (a held draw's time is its own).
            let t = units::seconds(d.limited_time_s);
            let strided = if d.strided_j > 0.0 {
                format!(" + {} strided", crate::units::joules(d.strided_j))
            } else {
                String::new()
            };
            let mean = format!(
                "({} x {t} + {} + {}{strided}) / {t}",
                units::si(d.idle_w, "W"),
                crate::units::joules(d.flop_j),
                crate::units::joules(d.byte_j),
            );
            q.derive(if d.held && d.power_w >= d.limit_w * (1.0 - 1e-9) {
                format!(
                    "min({}, {mean}): held at the limit",
                    units::si(d.power_w, "W")
                )
            } else if d.held {
                // A run whose iterations were held at the limit where they
                // would pass it: its energy is below what they would draw.
                format!(
                    "{} / {t}, less than {mean}: the work that would pass the {} limit held at it",
                    crate::units::joules(d.energy_j),
                    units::si(d.limit_w, "W")
                )
            } else if d.limited() {
                format!("{mean} (at the limit)")
            } else {
                mean
            })
        });
        // Only where modelled: a null time reads as an overflow. A draw
        // held at the limit over its own time gives the stretched time as
        // an estimate, after the per-token figures.
        if let (true, Some(d), None) = (self.per != Per::Rate, d, &self.estimate) {
            r.result("power_limited_time_s", d.limited_time_s, || {
                Quantity::new("time under the board limit", Unit::Seconds)
                    .formula("max(time, dynamic energy / (limit - idle)) over each step")
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
        if let Some(d) = &self.estimate {
            r.result("power_limited_time_s", d.limited_time_s, || {
                Quantity::new(
                    "time under the board limit (an estimate, not a bound)",
                    Unit::Seconds,
                )
                .formula("max(time, dynamic energy / (limit - idle)) over the step")
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
                // One time (formulas.md, "One time on one device"): the
                // step's, the board held at its limit over it.
                if let Some(e) = &self.estimate {
                    let what = match self.per {
                        Per::Prompt => "prefill",
                        _ => "step",
                    };
                    r.note(format!(
                        "power-limited: in the {what}'s {} the work would draw up to {} uncapped, more than the board's limit, so the board holds its limit over the {what} ({}) and the energy is the limit's; lowering the clock until the work fits would take about {} by the energy figures (an estimate, not a bound)",
                        units::seconds(e.time_s),
                        units::si(e.uncapped_w, "W"),
                        units::si(d.power_w, "W"),
                        units::seconds(e.limited_time_s)
                    ));
                } else if d.held {
                    r.note(format!(
                        "power-limited: some iterations would draw up to {} uncapped in their own time, more than the board's {} limit; the board holds its limit over them and their energy is the limit's, their time the model's (formulas.md, \"One time on one device\")",
                        units::si(d.uncapped_w, "W"),
                        units::si(d.limit_w, "W")
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::power::PowerModel;
    use crate::calc::power::testing::decode_at;
    use crate::catalog::Catalog;

    /// A part without the measured figures: null figures naming the field.
    #[test]
    fn missing_fields_are_named() {
        let hw = Catalog::default().hardware("h800", &[]).unwrap();
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
}

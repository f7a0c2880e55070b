//! Cost per million tokens from [`Prices`] and an answer's [`Energy`]
//! (formulas.md, "Cost per token"): the device-hour share, the energy bill's
//! share, and their record in the report.

use super::{Energy, KWH, Per, Prices};
use crate::report::{Quantity, Report, Unit};
use crate::units;

impl Prices {
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
            if self.device_hour.is_some() {
                self.record_device_time(r, e, what);
            }
            let device = self.device_per_million(e.device_s_per_token());
            let energy = self.energy_per_million(e.per_token_j());
            let total = device.zip(energy).map(|(a, b)| a + b);
            r.result(key, total, || {
                let mut f = Vec::new();
                if self.device_hour.is_some() {
                    f.push(
                        "price per device-hour / 3600 x device time per token x 1e6".to_string(),
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

impl Prices {
    /// Records the device time a token costs, `device_s_per_output_token`
    /// (or `_input_`), the figure the device-hour share multiplies, and
    /// puts it in a table beside the cost. Where the board limit stretches
    /// the work it is the stretched time ([`Energy::device_s_per_token`]):
    /// the table then shows that time too and says so, so that the step a
    /// table prices is one it shows.
    fn record_device_time(&self, r: &mut Report, e: &Energy, what: &str) {
        let key = format!("device_s_per_{what}_token");
        let t = e.draw.as_ref().map_or(e.time_s, |d| d.limited_time_s);
        let limited = e.draw.as_ref().is_ok_and(|d| d.limited());
        r.result(key.clone(), e.device_s_per_token(), || {
            let time = if e.draw.is_ok() {
                "time under the board limit"
            } else {
                "time"
            };
            Quantity::new(format!("device time per {what} token"), Unit::Seconds)
                .formula(format!("{time} x devices / tokens"))
                .derive(format!(
                    "{} x {} / {}",
                    units::seconds(t),
                    units::number(e.devices),
                    units::number(e.tokens)
                ))
                .group("cost")
        });
        if r.lean || r.headline.is_empty() {
            return;
        }
        // Just before the cost, where a table reads it.
        let at = r
            .headline
            .iter()
            .position(|k| k.starts_with("cost_per_million"))
            .unwrap_or(r.headline.len());
        if !r.headline.contains(&key) {
            r.headline.insert(at, key);
        }
        if limited {
            let d = e.draw.as_ref().ok();
            if !r.headline.iter().any(|k| k == "power_limited_time_s") {
                r.headline.insert(at, "power_limited_time_s".into());
            }
            if let Some(d) = d {
                r.note(format!(
                    "cost: the device time is priced at the board limit, {} rather than the roofs' {}: the power cap sets the pace",
                    units::seconds(d.limited_time_s),
                    units::seconds(d.time_s)
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::power::Draw;
    use crate::calc::power::testing::{close, prices};
    use crate::spec::hardware::Mode;

    /// Cost per million tokens by hand: 2.50 an hour over 1,000 tokens a
    /// second is 2.5 / 3.6e6 per token, 0.6944 per million; 0.10 a kWh at
    /// PUE 1.5 on 0.5 J a token adds 0.1 x 1.5 x 0.5 / 3.6e6 x 1e6.
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
}

//! Prices for cost per token, read from a point's fields: per device-hour,
//! per kWh and the PUE, each checked (a clear error naming the field).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

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
}

#[cfg(test)]
mod tests {
    use crate::calc::power::testing::prices;

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
}

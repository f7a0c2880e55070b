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
            "`{}`: expected a price per {what} as AMOUNT/{}, e.g. {example} (a plain number: the currency is yours)",
            crate::units::excerpt(&text, 40),
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
    // A price so small that the cost of a token rounds to zero (which a
    // search by cost would then rank first), or so large that it
    // overflows, is no price: the range leaves every cost a token can
    // have (a picosecond to a day of a device, at any power) finite and
    // above zero.
    let base = amount * factor;
    if !(MIN_PRICE..=MAX_PRICE).contains(&base) {
        return Err(Error::field(
            field,
            format!(
                "`{}`: a price per {what} must be from 1e-9 to 1e12 (a plain number: the currency is yours)",
                crate::units::excerpt(&text, 40)
            ),
        ));
    }
    Ok(base)
}

/// The smallest price accepted, per device-hour or per kWh.
pub const MIN_PRICE: f64 = 1e-9;
/// The largest price accepted, per device-hour or per kWh.
pub const MAX_PRICE: f64 = 1e12;
/// The largest PUE accepted: the facility spending nine times the
/// devices' energy on cooling and power conversion is far beyond any
/// data centre's (reported PUEs are from about 1.1 to 2.5), and a larger
/// one is a slip.
pub const MAX_PUE: f64 = 10.0;

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
                if !(x.is_finite() && (1.0..=MAX_PUE).contains(&x)) {
                    let shown = crate::units::excerpt(&v.to_string().replace('"', ""), 40);
                    return Err(Error::field(
                        "pue",
                        format!(
                            "`{shown}`: power usage effectiveness is facility energy over device energy, from 1 to 10"
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
            // A cost of zero or infinity would come of these.
            ("price", "1e-320/h"),
            ("price", "1e308/h"),
            ("price", "1e-10/h"),
            ("energy-price", "1e-320/Wh"),
            ("energy-price", "1e13/kWh"),
        ] {
            let e = prices(&[(k, v)]).unwrap_err();
            assert_eq!(e.exit_code(), 65, "{k}={v}: {e}");
        }
        for pue in ["0.9", "0", "-1", "1e308", "1e-320", "10.5", "inf"] {
            let e = prices(&[("energy-price", "0.1/kWh"), ("pue", pue)]).unwrap_err();
            assert_eq!(e.exit_code(), 65, "{pue}");
            // The value is quoted as typed, not as a 330-digit decimal.
            assert!(e.to_string().len() < 200, "{e}");
        }
        // The ends of the ranges are accepted.
        let p = prices(&[
            ("price", "1e-9/h"),
            ("energy-price", "1e12/kWh"),
            ("pue", "10"),
        ])
        .unwrap();
        assert_eq!(
            (p.device_hour, p.kwh, p.pue),
            (Some(1e-9), Some(1e12), 10.0)
        );
        assert!(prices(&[("pue", "1.2")]).is_err());
        assert_eq!(
            prices(&[("energy-price", "100/MWh")]).unwrap().kwh,
            Some(0.1)
        );
    }
}

//! How a value is measured ([`Unit`]), which decides how tables format it.

use crate::units;
use serde::Serialize;
use serde_json::Value;

/// How a value is measured, which decides how tables format it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Unit {
    /// Bytes, formatted with SI prefixes (HBM, weights, traffic).
    #[serde(rename = "B")]
    Bytes,
    /// Bytes, formatted with IEC prefixes (on-chip SRAM).
    #[serde(rename = "B (IEC)")]
    BytesIec,
    /// Bytes per second.
    #[serde(rename = "B/s")]
    BytesPerSec,
    /// Bytes per clock cycle.
    #[serde(rename = "B/cycle")]
    BytesPerCycle,
    /// Floating-point operations.
    #[serde(rename = "FLOP")]
    Flop,
    /// Floating-point operations per second.
    #[serde(rename = "FLOP/s")]
    FlopPerSec,
    /// Floating-point operations per second per watt of board power.
    #[serde(rename = "FLOP/s/W")]
    FlopPerSecPerWatt,
    /// Arithmetic intensity.
    #[serde(rename = "FLOP/B")]
    FlopPerByte,
    /// Integer operations (int8, int4 arithmetic: not floating point).
    #[serde(rename = "OP")]
    Op,
    /// Integer operations per second: int8/int4 peaks, printed as OP/s
    /// (TOPS in datasheets).
    #[serde(rename = "OP/s")]
    OpPerSec,
    /// Integer operations per byte.
    #[serde(rename = "OP/B")]
    OpPerByte,
    /// Integer operations per second per watt of board power.
    #[serde(rename = "OP/s/W")]
    OpPerSecPerWatt,
    /// Seconds.
    #[serde(rename = "s")]
    Seconds,
    /// Hertz.
    #[serde(rename = "Hz")]
    Hz,
    /// Clock cycles.
    #[serde(rename = "cycles")]
    Cycles,
    /// A count (parameters, blocks, warps).
    #[serde(rename = "count")]
    Count,
    /// A fraction from 0 to 1, shown as a percentage.
    #[serde(rename = "fraction")]
    Fraction,
    /// A dimensionless ratio, shown as "2.5x".
    #[serde(rename = "x")]
    Ratio,
    /// Bits.
    #[serde(rename = "bits")]
    Bits,
    /// Watts of board power.
    #[serde(rename = "W")]
    Watts,
    /// Joules, formatted J, mJ, uJ, nJ, pJ.
    #[serde(rename = "J")]
    Joules,
    /// Joules per floating-point operation, formatted in pJ/FLOP.
    #[serde(rename = "J/FLOP")]
    JoulesPerFlop,
    /// Joules per byte, formatted in pJ/B.
    #[serde(rename = "J/B")]
    JoulesPerByte,
    /// Tokens per kilowatt-hour.
    #[serde(rename = "tokens/kWh")]
    TokensPerKwh,
    /// Text, a boolean or a structured value.
    #[serde(rename = "")]
    None,
}

impl Unit {
    /// The integer-operation twin of a FLOP unit when `integer` (an int8 or
    /// int4 computation): FLOP -> OP, FLOP/s -> OP/s, FLOP/B -> OP/B,
    /// FLOP/s/W -> OP/s/W; any other unit as it is. JSON keys stay as they are (`_flops_per_s`).
    pub fn ops_if(self, integer: bool) -> Unit {
        match (self, integer) {
            (Unit::Flop, true) => Unit::Op,
            (Unit::FlopPerSec, true) => Unit::OpPerSec,
            (Unit::FlopPerByte, true) => Unit::OpPerByte,
            (Unit::FlopPerSecPerWatt, true) => Unit::OpPerSecPerWatt,
            (u, _) => u,
        }
    }

    /// Formats a base-unit number for people.
    pub fn format(self, v: f64) -> String {
        match self {
            Unit::Bytes => units::si(v, "B"),
            // A capacity stated in decimal units (NVIDIA's "50 MB" of L2,
            // AMD's 8 x 4 MB) reads better in them than as 47.68 MiB.
            Unit::BytesIec if reads_decimal(v) => units::si(v, "B"),
            Unit::BytesIec => units::iec_bytes(v),
            Unit::BytesPerSec => units::si(v, "B/s"),
            Unit::BytesPerCycle => format!("{} B/cycle", plain(v)),
            Unit::Flop => units::si(v, "FLOP"),
            Unit::FlopPerSec => units::si(v, "FLOP/s"),
            Unit::FlopPerSecPerWatt => units::si(v, "FLOP/s/W"),
            Unit::OpPerSecPerWatt => units::si(v, "OP/s/W"),
            Unit::FlopPerByte => format!("{} FLOP/B", plain(v)),
            Unit::Op => units::si(v, "OP"),
            Unit::OpPerSec => units::si(v, "OP/s"),
            Unit::OpPerByte => format!("{} OP/B", plain(v)),
            Unit::Seconds => units::seconds(v),
            Unit::Hz => units::si(v, "Hz"),
            Unit::Cycles => format!("{} cycles", units::number(v)),
            Unit::Count => units::number(v),
            Unit::Fraction => format!("{}%", units::percent(v)),
            Unit::Ratio => format!("{}x", plain(v)),
            Unit::Bits => format!("{} bits", units::sig(v, 4)),
            Unit::Watts => units::si(v, "W"),
            Unit::Joules => units::joules(v),
            Unit::JoulesPerFlop => format!("{} pJ/FLOP", units::sig(v * 1e12, 4)),
            Unit::JoulesPerByte => format!("{} pJ/B", units::sig(v * 1e12, 4)),
            Unit::TokensPerKwh => format!("{} tokens/kWh", units::si(v, "").trim_end()),
            // Grouped from 1,000 up, as every count is (`4,145` tokens/s).
            Unit::None => plain(v),
        }
    }

    /// Formats any JSON value for people.
    pub fn format_value(self, v: &Value) -> String {
        match v {
            Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), |x| self.format(x)),
            Value::String(s) => s.clone(),
            Value::Bool(b) => {
                if *b {
                    "yes".into()
                } else {
                    "no".into()
                }
            }
            Value::Null => "-".into(),
            other => other.to_string(),
        }
    }
}

/// Whether a byte count is a whole number of the decimal unit it would
/// be printed in (32 MB) but not of the binary one (30.52 MiB).
fn reads_decimal(v: f64) -> bool {
    let whole_in = |base: f64| {
        let mut scale = 1.0;
        while scale * base <= v.abs() && scale < base.powi(6) {
            scale *= base;
        }
        scale > 1.0 && (v / scale).fract() == 0.0
    };
    whole_in(1000.0) && !whole_in(1024.0)
}

/// A number without a prefix: four significant digits, grouped in
/// thousands from 1,000 up.
fn plain(v: f64) -> String {
    if v.abs() >= 1000.0 && v.abs() < 1e15 {
        units::number(v)
    } else {
        units::sig(v, 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacities_print_in_the_unit_they_are_whole_in() {
        // NVIDIA's 50 MB and AMD's 8 x 4 MB of L2 are decimal; an SM's
        // 228 KiB and a TPU core's 64 MiB are binary.
        assert_eq!(Unit::BytesIec.format(50e6), "50 MB");
        assert_eq!(Unit::BytesIec.format(32e6), "32 MB");
        assert_eq!(Unit::BytesIec.format(228.0 * 1024.0), "228 KiB");
        assert_eq!(Unit::BytesIec.format(64.0 * 1024.0 * 1024.0), "64 MiB");
        assert_eq!(Unit::BytesIec.format(192.0 * 1024f64.powi(3)), "192 GiB");
    }

    #[test]
    fn units_format_for_people() {
        assert_eq!(Unit::Fraction.format(0.003383), "0.3383%");
        assert_eq!(Unit::Ratio.format(2.5), "2.5x");
        assert_eq!(Unit::BytesIec.format(233472.0), "228 KiB");
        assert_eq!(Unit::BytesIec.format(50e6), "50 MB");
        assert_eq!(Unit::BytesIec.format(33024.0), "32.25 KiB");
        assert_eq!(Unit::FlopPerByte.format(295.22), "295.2 FLOP/B");
        assert_eq!(Unit::Count.format(131072.0), "131,072");
        assert_eq!(Unit::FlopPerByte.format(1365.33), "1,365 FLOP/B");
        assert_eq!(Unit::Ratio.format(590.4), "590.4x");
        // Issue 37: fleet's tokens/s per device printed 4145 beside 6,179.
        assert_eq!(Unit::None.format(4145.0), "4,145");
        assert_eq!(Unit::None.format(0.1091), "0.1091");
    }
}

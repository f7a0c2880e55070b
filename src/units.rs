//! Quantities with units: parsing what people type ("3.35 TB/s", "228 KiB",
//! "1.8 GHz", "500 cycles") into base units, and formatting base-unit values
//! back for people.
//!
//! SI prefixes are powers of 1000, IEC prefixes powers of 1024. A bare number
//! is accepted only where it has an obvious meaning: bytes where bytes are
//! asked for, a count where a count is. Rates, times and frequencies need a
//! unit, and the error says which ones are accepted.

use std::fmt;

/// What kind of quantity a value is; decides which units parse and how a
/// value formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dim {
    /// Bytes (SI or IEC prefixes; a bare number is bytes).
    Bytes,
    /// Bytes per second.
    BytesPerSec,
    /// Floating-point operations (a bare number is a count of FLOP).
    Flop,
    /// Floating-point operations per second (also `OP/s`, `TOPS`).
    FlopPerSec,
    /// Frequency in hertz.
    Hz,
    /// Clock cycles (a bare number is a count of cycles).
    Cycles,
    /// Time in seconds.
    Seconds,
    /// Energy in joules.
    Joules,
}

impl Dim {
    /// The units accepted for this kind of quantity, for error messages.
    pub fn accepted(self) -> &'static str {
        match self {
            Dim::Bytes => "B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB (a bare number is bytes)",
            Dim::BytesPerSec => "B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s",
            Dim::Flop => "FLOP, KFLOP, MFLOP, GFLOP, TFLOP, PFLOP (a bare number is FLOP)",
            Dim::FlopPerSec => "FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s (also OP/s, TOPS, TFLOPS, POPS)",
            Dim::Hz => "Hz, kHz, MHz, GHz",
            Dim::Cycles => "cycles (a bare number is cycles)",
            Dim::Seconds => "s, ms, us (or µs), ns, ps",
            Dim::Joules => "J, mJ, uJ (or µJ), nJ, pJ",
        }
    }

    /// Whether a bare number (no unit) is accepted.
    pub fn bare_ok(self) -> bool {
        matches!(self, Dim::Bytes | Dim::Flop | Dim::Cycles)
    }

    /// What a quantity of this kind is called, for messages.
    pub fn noun(self) -> &'static str {
        match self {
            Dim::Bytes => "size in bytes",
            Dim::BytesPerSec => "bandwidth",
            Dim::Flop => "count of FLOP",
            Dim::FlopPerSec => "compute rate",
            Dim::Hz => "frequency",
            Dim::Cycles => "count of cycles",
            Dim::Seconds => "time",
            Dim::Joules => "energy",
        }
    }

    /// The base unit's symbol.
    pub fn base_symbol(self) -> &'static str {
        match self {
            Dim::Bytes => "B",
            Dim::BytesPerSec => "B/s",
            Dim::Flop => "FLOP",
            Dim::FlopPerSec => "FLOP/s",
            Dim::Hz => "Hz",
            Dim::Cycles => "cycles",
            Dim::Seconds => "s",
            Dim::Joules => "J",
        }
    }
}

/// Why a quantity did not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UnitError {
    /// Nothing was given.
    #[error("empty value; expected a number with a unit ({accepted})")]
    Empty {
        /// The units that would have been accepted.
        accepted: &'static str,
    },
    /// The number part is not a number.
    #[error("`{text}` is not a number; expected a number with a unit ({accepted})")]
    NotANumber {
        /// What was typed.
        text: String,
        /// The units that would have been accepted.
        accepted: &'static str,
    },
    /// A rate, time or frequency was given without a unit.
    #[error("`{text}` has no unit; expected one of {accepted}")]
    MissingUnit {
        /// What was typed.
        text: String,
        /// The units that would have been accepted.
        accepted: &'static str,
    },
    /// The unit is not one this quantity takes.
    #[error("unknown unit `{unit}` in `{text}`; expected one of {accepted}")]
    WrongUnit {
        /// What was typed.
        text: String,
        /// The unit part.
        unit: String,
        /// The units that would have been accepted.
        accepted: &'static str,
    },
    /// NaN or infinite.
    #[error("`{text}` is not a finite number")]
    NotFinite {
        /// What was typed.
        text: String,
    },
    /// Non-zero but below the smallest normal double: every result worked
    /// from it would round to zero or overflow to infinity.
    #[error(
        "`{text}` is too small to compute with (below 2.2e-308 in base units, the smallest normal double)"
    )]
    TooSmall {
        /// What was typed.
        text: String,
    },
}

/// The plausible range of a dimensionless input (an intensity in FLOP/B,
/// an acceptance, a cost ratio, a factor): 10^-15 to 10^15. Real
/// kernels' intensities lie between about 0.01 and 10^5 FLOP/B and the
/// ratios near 1; past these bounds a product of two such inputs with a
/// count (at most 2^53) still stays far from the double's range.
pub const NUMBER: Range = Range {
    min: 1e-15,
    max: 1e15,
    shown: "1e-15 to 1e15",
};

/// [`plausible`] for a dimensionless input: zero, or a magnitude within
/// [`NUMBER`].
pub fn plausible_number(v: f64, text: &str) -> Result<f64, String> {
    let m = v.abs();
    if m > NUMBER.max || (m != 0.0 && m < NUMBER.min) || m.is_nan() {
        let what = if m > NUMBER.max { "above" } else { "below" };
        return Err(format!(
            "`{}` is {what} the plausible range: a dimensionless input is {}",
            excerpt(text, 40),
            NUMBER.shown
        ));
    }
    Ok(v)
}

/// The longest time a flag or a file may give: 10^9 s, about 32 years
/// (the bound a serving target already had). A latency, a launch
/// overhead, a measured kernel or a trace is far shorter; past it a time
/// (`1e308 s`) is a slip that turns every sum of times infinite.
pub const MAX_SECONDS: f64 = 1e9;

/// The plausible range of one kind of quantity, in base units: a value a
/// flag or a file gives is zero (where its field allows zero) or has a
/// magnitude from `min` to `max`. docs/data-schemas.md ("Plausible
/// ranges") gives the reason for each bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The smallest non-zero magnitude.
    pub min: f64,
    /// The largest magnitude.
    pub max: f64,
    /// The bounds as a person writes them, for the message.
    pub shown: &'static str,
}

/// The plausible range of each kind of quantity: the one table every
/// quantity a hardware, model or engine file or a flag gives is checked
/// against ([`plausible`]).
pub fn range(dim: Dim) -> Range {
    let (min, max, shown) = match dim {
        // One bit; an exabyte (10^5 devices of 10 TB each).
        Dim::Bytes => (0.125, 1e18, "1 bit (0.125 B) to 1 EB"),
        // A byte a second; an exabyte a second (about 50 times the
        // fastest on-chip SRAM figure published, 21 PB/s).
        Dim::BytesPerSec => (1.0, 1e18, "1 B/s to 1 EB/s"),
        // One operation; 10^30 FLOP (about 2,000 times the largest
        // training runs, some 5e26 FLOP).
        Dim::Flop => (1.0, 1e30, "1 FLOP to 1e30 FLOP"),
        // One operation a second; 10^22 FLOP/s (10^5 parts at five times
        // the fastest part's 4-bit rate).
        Dim::FlopPerSec => (1.0, 1e22, "1 FLOP/s to 1e22 FLOP/s"),
        // A kilohertz; 100 GHz (some 15 times the fastest clock shipped).
        Dim::Hz => (1e3, 1e11, "1 kHz to 100 GHz"),
        // A thousandth of a cycle (an issue rate's share of one); 10^15
        // cycles (about six days at 2 GHz).
        Dim::Cycles => (1e-3, 1e15, "0.001 to 1e15 cycles"),
        // A femtosecond (a thousandth of the finest unit, ps); 10^9 s,
        // about 32 years (the bound a serving target already had).
        Dim::Seconds => (1e-15, MAX_SECONDS, "1 fs to 1e9 s (about 32 years)"),
        // An attojoule (a millionth of the pJ a bit or an operation
        // costs); a petajoule (a year of a 30 MW site).
        Dim::Joules => (1e-18, 1e15, "1 aJ to 1 PJ"),
    };
    Range { min, max, shown }
}

/// The plausible-range rule every quantity a flag or a file gives passes
/// beyond being finite: zero, or a magnitude within [`range`] of its
/// kind. `text` is the value as written, for the message.
pub fn plausible(dim: Dim, v: f64, text: &str) -> Result<f64, String> {
    let r = range(dim);
    let m = v.abs();
    if dim == Dim::Seconds && m > r.max {
        return Err(format!(
            "`{}` is longer than 1e9 s (about 32 years), the longest time an input may give",
            excerpt(text, 40)
        ));
    }
    if m > r.max || (m != 0.0 && m < r.min) || m.is_nan() {
        let what = if m > r.max {
            "is above the plausible range"
        } else {
            "is below the plausible range"
        };
        return Err(format!(
            "`{}` {what}: a {} is {}",
            excerpt(text, 40),
            dim.noun(),
            r.shown
        ));
    }
    Ok(v)
}

/// Whether a value is one the calculations can work with: finite, and
/// zero or at least the smallest normal double (a subnormal input gives
/// results of zero or infinity).
pub fn usable(v: f64) -> bool {
    v.is_finite() && (v == 0.0 || v.abs() >= f64::MIN_POSITIVE)
}

/// Splits "3.35 TB/s" or "3350GB/s" into the number and the unit text.
pub(crate) fn split_number(text: &str) -> (&str, &str) {
    let t = text.trim();
    let bytes = t.as_bytes();
    let mut end = 0;
    let mut seen_e = false;
    while end < bytes.len() {
        let c = bytes[end] as char;
        let ok = c.is_ascii_digit()
            || c == '.'
            || c == '_'
            || ((c == '-' || c == '+')
                && end
                    .checked_sub(1)
                    .is_none_or(|p| matches!(bytes.get(p), Some(b'e' | b'E'))))
            || ((c == 'e' || c == 'E')
                && !seen_e
                && end > 0
                && bytes.get(end.saturating_add(1)).is_some_and(|n| {
                    n.is_ascii_digit()
                        || ((*n == b'-' || *n == b'+')
                            && bytes
                                .get(end.saturating_add(2))
                                .is_some_and(u8::is_ascii_digit))
                }));
        if !ok {
            break;
        }
        if c == 'e' || c == 'E' {
            seen_e = true;
        }
        end = end.saturating_add(1);
    }
    (&t[..end], t[end..].trim())
}

fn prefix_si(p: &str) -> Option<f64> {
    Some(match p {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        _ => return None,
    })
}

fn prefix_iec(p: &str) -> Option<f64> {
    Some(match p {
        "Ki" | "ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        _ => return None,
    })
}

/// Scale of a byte unit such as "KiB" or "GB"; `None` if it is not one.
fn byte_scale(unit: &str) -> Option<f64> {
    let stem = unit
        .strip_suffix("bytes")
        .or_else(|| unit.strip_suffix("byte"))
        .or_else(|| unit.strip_suffix('B'))?;
    prefix_iec(stem).or_else(|| prefix_si(stem))
}

fn flop_scale(unit: &str) -> Option<f64> {
    for stem in ["FLOP", "FLOPs", "flop", "flops", "OP", "OPs", "op", "ops"] {
        if let Some(p) = unit.strip_suffix(stem) {
            return prefix_si(p);
        }
    }
    None
}

fn flop_rate_scale(unit: &str) -> Option<f64> {
    if let Some(u) = unit.strip_suffix("/s") {
        return flop_scale(u);
    }
    // "TFLOPS", "TOPS", "POPS": the trailing S means per second.
    for stem in ["FLOPS", "OPS"] {
        if let Some(p) = unit.strip_suffix(stem) {
            return prefix_si(p);
        }
    }
    None
}

fn time_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" | "μs" => 1e-6,
        "ns" => 1e-9,
        "ps" => 1e-12,
        "min" => 60.0,
        _ => return None,
    })
}

fn energy_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "J" => 1.0,
        "mJ" => 1e-3,
        "uJ" | "µJ" | "μJ" => 1e-6,
        "nJ" => 1e-9,
        "pJ" => 1e-12,
        _ => return None,
    })
}

fn hz_scale(unit: &str) -> Option<f64> {
    let p = unit
        .strip_suffix("Hz")
        .or_else(|| unit.strip_suffix("hz"))?;
    prefix_si(p)
}

/// Parses a number with an optional unit, returning the value in base units
/// (bytes, B/s, FLOP, FLOP/s, Hz, cycles, seconds).
pub fn parse(text: &str, dim: Dim) -> Result<f64, UnitError> {
    let accepted = dim.accepted();
    let t = text.trim();
    if t.is_empty() {
        return Err(UnitError::Empty { accepted });
    }
    let (num, unit) = split_number(t);
    let lower = num.to_ascii_lowercase();
    if lower.is_empty() || matches!(lower.as_str(), "nan" | "inf" | "-inf" | "+inf") {
        if t.to_ascii_lowercase().starts_with("nan") || t.to_ascii_lowercase().contains("inf") {
            return Err(UnitError::NotFinite { text: t.into() });
        }
        return Err(UnitError::NotANumber {
            text: t.into(),
            accepted,
        });
    }
    let value: f64 = num
        .replace('_', "")
        .parse()
        .map_err(|_| UnitError::NotANumber {
            text: t.into(),
            accepted,
        })?;
    if !value.is_finite() {
        return Err(UnitError::NotFinite { text: t.into() });
    }
    if unit.is_empty() {
        return if dim.bare_ok() {
            if !usable(value) {
                return Err(UnitError::TooSmall { text: t.into() });
            }
            Ok(value)
        } else {
            Err(UnitError::MissingUnit {
                text: t.into(),
                accepted,
            })
        };
    }
    let scale = match dim {
        Dim::Bytes => byte_scale(unit),
        Dim::BytesPerSec => unit.strip_suffix("/s").and_then(byte_scale),
        Dim::Flop => flop_scale(unit),
        Dim::FlopPerSec => flop_rate_scale(unit),
        Dim::Hz => hz_scale(unit),
        Dim::Cycles => matches!(unit, "cycle" | "cycles" | "clk" | "clks").then_some(1.0),
        Dim::Seconds => time_scale(unit),
        Dim::Joules => energy_scale(unit),
    };
    let scale = scale.ok_or_else(|| UnitError::WrongUnit {
        text: t.into(),
        unit: unit.into(),
        accepted,
    })?;
    // A decimal scale is applied in the exponent, so "16.1 us" is the double
    // nearest 1.61e-5 rather than 16.1 x 1e-6 with its rounding error.
    let exp10 = scale.log10().round();
    let v = if scale != 1.0 && 10f64.powi(exp10 as i32) == scale {
        format!("{}e{}", num.replace('_', ""), exp10 as i32)
            .parse::<f64>()
            .unwrap_or(value * scale)
    } else {
        value * scale
    };
    if !v.is_finite() {
        return Err(UnitError::NotFinite { text: t.into() });
    }
    if !usable(v) {
        return Err(UnitError::TooSmall { text: t.into() });
    }
    Ok(v)
}

/// A fraction as a percentage, to the four significant digits tables
/// print (`0.3387` -> `33.87`, without the sign), so a note and the table
/// beside it agree.
pub fn percent(fraction: f64) -> String {
    sig_grouped(fraction * 100.0, 4)
}

/// An arithmetic intensity without its unit: `300 FLOP/B` (or int8's
/// `300 OP/B`) reads as `300`; anything else is returned trimmed.
pub fn bare_intensity(text: &str) -> &str {
    let t = text.trim();
    t.strip_suffix("FLOP/B")
        .or_else(|| t.strip_suffix("OP/B"))
        .unwrap_or(t)
        .trim()
}

/// Rewrites a deserializer's type words in the user's words: "expected a
/// nonzero u64" reads "expected a whole number of at least 1", "expected
/// u32" reads "expected a whole number" (so `0` and `-5` get messages
/// that agree with each other and with the flags' errors).
pub fn in_words(message: &str) -> String {
    let mut m = message.to_string();
    for bits in ["u8", "u16", "u32", "u64", "usize"] {
        m = m
            .replace(
                &format!("expected a nonzero {bits}"),
                "expected a whole number of at least 1",
            )
            .replace(&format!("expected {bits}"), "expected a whole number");
    }
    for kind in ["integer", "floating point", "string"] {
        m = m.replace(&format!("invalid value: {kind} "), "");
        m = m.replace(&format!("invalid type: {kind} "), "");
    }
    m
}

/// At most `max` characters of `text` for a message, escaped (control
/// characters, quotes and backslashes as Rust writes them in a string)
/// and cut with `...` where longer: what was typed or read is quoted
/// briefly, never whole.
pub fn excerpt(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max {
            out.push_str("...");
            break;
        }
        out.extend(c.escape_debug());
    }
    out
}

/// Rounds to `sig` significant digits and prints without trailing zeros
/// (`2706`: derivations, beside the products they substitute into).
pub fn sig(value: f64, sig: usize) -> String {
    if value == 0.0 {
        return "0".into();
    }
    if !value.is_finite() {
        return format!("{value}");
    }
    // Past what prefixes cover, scientific notation stays readable.
    if value.abs() >= 1e15 || value.abs() < 1e-4 {
        let s = format!("{:.*e}", sig.saturating_sub(1), value);
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.')
        } else {
            m
        };
        return format!("{m}e{e}");
    }
    let mag = value.abs().log10().floor() as i32;
    let decimals = (sig as i32).saturating_sub(1).saturating_sub(mag).max(0) as usize;
    let s = format!("{value:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// [`sig`] with the whole part grouped in thousands from 1,000 up
/// (`2,706`), as tables print numbers: for notes and messages.
pub fn sig_grouped(value: f64, digits: usize) -> String {
    let s = sig(value, digits);
    // Scientific notation (past 1e15) stays as it is.
    if s.contains(['e', 'i', 'N']) {
        return s;
    }
    let (sign, rest) = s.strip_prefix('-').map_or(("", s.as_str()), |r| ("-", r));
    let (whole, frac) = rest
        .split_once('.')
        .map_or((rest, None), |(w, f)| (w, Some(f)));
    let mut out = String::with_capacity(s.len().saturating_add(whole.len() / 3));
    out.push_str(sign);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && whole.len().saturating_sub(i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

const SI: [(f64, &str); 6] = [
    (1e18, "E"),
    (1e15, "P"),
    (1e12, "T"),
    (1e9, "G"),
    (1e6, "M"),
    (1e3, "k"),
];

/// Formats with an SI prefix chosen so the mantissa is at least 1, at 4
/// significant digits: `3.35e12, "B/s"` -> `3.35 TB/s`.
pub fn si(value: f64, unit: &str) -> String {
    let a = value.abs();
    // Past the largest prefix a mantissa in the thousands (`1073872896
    // EB`) reads worse than scientific notation in the base unit.
    if a >= 1e21 {
        return format!("{} {unit}", sig(value, 4));
    }
    for (scale, p) in SI {
        if a >= scale {
            // Byte units conventionally write the kilo prefix upper-case.
            let p = if p == "k" && unit.starts_with('B') {
                "K"
            } else {
                p
            };
            return format!("{} {p}{unit}", sig(value / scale, 4));
        }
    }
    format!("{} {unit}", sig(value, 4))
}

/// Formats bytes with IEC prefixes: `233472` -> `228 KiB`.
pub fn iec_bytes(value: f64) -> String {
    let a = value.abs();
    for (i, p) in ["PiB", "TiB", "GiB", "MiB", "KiB"].iter().enumerate() {
        let scale = 1024f64.powi(5i32.saturating_sub(i as i32));
        if a >= scale {
            return format!("{} {p}", sig(value / scale, 4));
        }
    }
    format!("{} B", sig(value, 4))
}

/// Formats an energy in the unit that keeps the mantissa readable: kJ,
/// J, mJ, uJ, nJ, pJ.
pub fn joules(value: f64) -> String {
    let a = value.abs();
    let (scale, u) = if a >= 1e3 {
        return si(value, "J");
    } else if a == 0.0 || a >= 1.0 {
        (1.0, "J")
    } else if a >= 1e-3 {
        (1e-3, "mJ")
    } else if a >= 1e-6 {
        (1e-6, "uJ")
    } else if a >= 1e-9 {
        (1e-9, "nJ")
    } else {
        (1e-12, "pJ")
    };
    format!("{} {u}", sig(value / scale, 4))
}

/// Formats a time in the unit that keeps the mantissa readable.
pub fn seconds(value: f64) -> String {
    let a = value.abs();
    let (scale, u) = if a == 0.0 || a >= 1.0 {
        (1.0, "s")
    } else if a >= 1e-3 {
        (1e-3, "ms")
    } else if a >= 1e-6 {
        (1e-6, "us")
    } else if a >= 1e-9 {
        (1e-9, "ns")
    } else {
        (1e-12, "ps")
    };
    format!("{} {u}", sig(value / scale, 4))
}

/// Formats an integer count with thousands separators: `16896` -> `16,896`.
pub fn grouped(value: u128) -> String {
    let s = value.to_string();
    let mut out = String::with_capacity(s.len().saturating_add(s.len() / 3));
    for (i, c) in s.chars().enumerate() {
        if i > 0 && s.len().saturating_sub(i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A whole number grouped in thousands, for prose: `4096u64` -> `4,096`.
pub fn whole(value: impl Into<u128>) -> String {
    grouped(value.into())
}

/// Formats a plain number for people: integers grouped, others at 4
/// significant digits.
pub fn number(value: f64) -> String {
    // From 1,000 up, four significant digits are whole, so group them.
    let value = if value.abs() >= 1000.0 {
        value.round()
    } else {
        value
    };
    if value.fract() == 0.0 && value.abs() < 1e15 {
        let g = grouped(value.abs() as u128);
        if value < 0.0 { format!("-{g}") } else { g }
    } else {
        sig(value, 4)
    }
}

/// A parsed quantity that remembers its dimension, for display.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    /// Value in base units.
    pub value: f64,
    /// What it measures.
    pub dim: Dim,
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.dim {
            Dim::Seconds => seconds(self.value),
            Dim::Joules => joules(self.value),
            Dim::Cycles => format!("{} cycles", number(self.value)),
            d => si(self.value, d.base_symbol()),
        };
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short_and_escaped() {
        assert_eq!(excerpt("abc", 40), "abc");
        assert_eq!(excerpt("abcdef", 3), "abc...");
        assert_eq!(excerpt("a\"b\n\u{1b}", 40), "a\\\"b\\n\\u{1b}");
    }

    #[test]
    fn an_intensity_drops_its_unit() {
        assert_eq!(bare_intensity(" 300 FLOP/B "), "300");
        assert_eq!(bare_intensity("300OP/B"), "300");
        assert_eq!(bare_intensity("12.5"), "12.5");
        assert_eq!(bare_intensity("3 B/s"), "3 B/s");
    }

    #[test]
    fn type_words_in_the_users_words() {
        assert_eq!(
            in_words("invalid value: integer `0`, expected a nonzero u64"),
            "`0`, expected a whole number of at least 1"
        );
        assert_eq!(
            in_words("invalid value: integer `-5`, expected u32"),
            "`-5`, expected a whole number"
        );
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    #[test]
    fn bytes_si_and_iec() {
        assert!(close(parse("80 GB", Dim::Bytes).unwrap(), 80e9));
        assert!(close(parse("80GB", Dim::Bytes).unwrap(), 80e9));
        assert!(close(parse("228 KiB", Dim::Bytes).unwrap(), 233472.0));
        assert!(close(parse("60 MiB", Dim::Bytes).unwrap(), 62914560.0));
        assert!(close(parse("192 GiB", Dim::Bytes).unwrap(), 206158430208.0));
        assert!(close(parse("2 TB", Dim::Bytes).unwrap(), 2e12));
        assert!(close(parse("128 B", Dim::Bytes).unwrap(), 128.0));
        assert!(close(parse("128", Dim::Bytes).unwrap(), 128.0));
        assert!(close(parse("1 KB", Dim::Bytes).unwrap(), 1000.0));
        assert!(close(parse("1 kB", Dim::Bytes).unwrap(), 1000.0));
        assert!(close(parse("4 bytes", Dim::Bytes).unwrap(), 4.0));
        assert!(close(parse("1.5e3 B", Dim::Bytes).unwrap(), 1500.0));
    }

    #[test]
    fn rates() {
        assert!(close(
            parse("3.35 TB/s", Dim::BytesPerSec).unwrap(),
            3.35e12
        ));
        assert!(close(parse("3350GB/s", Dim::BytesPerSec).unwrap(), 3.35e12));
        assert!(close(
            parse("1 GiB/s", Dim::BytesPerSec).unwrap(),
            1073741824.0
        ));
        assert!(close(
            parse("989 TFLOP/s", Dim::FlopPerSec).unwrap(),
            989e12
        ));
        assert!(close(parse("92 TOPS", Dim::FlopPerSec).unwrap(), 92e12));
        assert!(close(parse("5 PFLOP/s", Dim::FlopPerSec).unwrap(), 5e15));
        assert!(close(parse("67 TFLOPS", Dim::FlopPerSec).unwrap(), 67e12));
        assert!(close(parse("1 OP/s", Dim::FlopPerSec).unwrap(), 1.0));
    }

    #[test]
    fn flop_counts() {
        assert!(close(parse("137.4 GFLOP", Dim::Flop).unwrap(), 137.4e9));
        assert!(close(parse("1e6", Dim::Flop).unwrap(), 1e6));
    }

    #[test]
    fn clocks_cycles_times() {
        assert!(close(parse("1.8 GHz", Dim::Hz).unwrap(), 1.8e9));
        assert!(close(parse("700MHz", Dim::Hz).unwrap(), 7e8));
        assert!(close(parse("500 cycles", Dim::Cycles).unwrap(), 500.0));
        assert!(close(parse("500", Dim::Cycles).unwrap(), 500.0));
        assert!(close(parse("5 us", Dim::Seconds).unwrap(), 5e-6));
        assert!(close(parse("5µs", Dim::Seconds).unwrap(), 5e-6));
        assert!(close(parse("4.0 ms", Dim::Seconds).unwrap(), 4e-3));
        assert!(close(parse("479 ns", Dim::Seconds).unwrap(), 479e-9));
        assert!(close(parse("2 s", Dim::Seconds).unwrap(), 2.0));
        assert!(close(parse("612 pJ", Dim::Joules).unwrap(), 612e-12));
        assert!(close(parse("1.5 µJ", Dim::Joules).unwrap(), 1.5e-6));
        assert!(parse("612", Dim::Joules).is_err());
        assert!(parse("612 ps", Dim::Joules).is_err());
    }

    #[test]
    fn bare_numbers_rejected_for_rates_times_and_clocks() {
        for d in [Dim::BytesPerSec, Dim::FlopPerSec, Dim::Hz, Dim::Seconds] {
            let e = parse("3.35", d).unwrap_err();
            assert!(matches!(e, UnitError::MissingUnit { .. }), "{d:?}: {e}");
            assert!(e.to_string().contains(d.accepted()));
        }
    }

    #[test]
    fn errors() {
        assert!(matches!(
            parse("", Dim::Bytes),
            Err(UnitError::Empty { .. })
        ));
        assert!(matches!(
            parse("fast", Dim::Bytes),
            Err(UnitError::NotANumber { .. })
        ));
        assert!(matches!(
            parse("3 TB", Dim::BytesPerSec),
            Err(UnitError::WrongUnit { .. })
        ));
        assert!(matches!(
            parse("3 GHz", Dim::Seconds),
            Err(UnitError::WrongUnit { .. })
        ));
        assert!(matches!(
            parse("3 furlongs", Dim::Bytes),
            Err(UnitError::WrongUnit { .. })
        ));
        assert!(matches!(
            parse("NaN", Dim::Bytes),
            Err(UnitError::NotFinite { .. })
        ));
        assert!(matches!(
            parse("inf GB", Dim::Bytes),
            Err(UnitError::NotFinite { .. })
        ));
        assert!(matches!(
            parse("1e999 B", Dim::Bytes),
            Err(UnitError::NotFinite { .. })
        ));
        assert!(matches!(
            parse("1e300 EB", Dim::Bytes),
            Err(UnitError::NotFinite { .. })
        ));
        assert!(matches!(
            parse("1..2 GB", Dim::Bytes),
            Err(UnitError::NotANumber { .. } | UnitError::WrongUnit { .. })
        ));
    }

    #[test]
    fn decimal_prefixes_round_once() {
        assert_eq!(parse("16.1 us", Dim::Seconds).unwrap(), 1.61e-5);
        assert_eq!(parse("0.94 us", Dim::Seconds).unwrap(), 9.4e-7);
        assert_eq!(parse("3.35 TB/s", Dim::BytesPerSec).unwrap(), 3.35e12);
        assert_eq!(parse("1.5e3 GB", Dim::Bytes).unwrap(), 1.5e12);
    }

    #[test]
    fn negative_numbers_parse_so_validation_can_name_them() {
        assert!(close(parse("-5 us", Dim::Seconds).unwrap(), -5e-6));
    }

    #[test]
    fn formatting() {
        assert_eq!(si(3.35e12, "B/s"), "3.35 TB/s");
        assert_eq!(si(989e12, "FLOP/s"), "989 TFLOP/s");
        assert_eq!(si(16.06e9, "B"), "16.06 GB");
        assert_eq!(si(1500.0, "B"), "1.5 KB");
        assert_eq!(si(12.0, "B"), "12 B");
        assert_eq!(si(999e18, "B"), "999 EB");
        assert_eq!(si(1.074e27, "B"), "1.074e27 B");
        assert_eq!(iec_bytes(233472.0), "228 KiB");
        assert_eq!(iec_bytes(62914560.0), "60 MiB");
        assert_eq!(seconds(2.45e-3), "2.45 ms");
        assert_eq!(seconds(5e-6), "5 us");
        assert_eq!(seconds(1.5), "1.5 s");
        assert_eq!(grouped(131072), "131,072");
        assert_eq!(number(295.2238806), "295.2");
        assert_eq!(number(8030261248.0), "8,030,261,248");
        assert_eq!(number(7269.965), "7,270");
        assert_eq!(sig(0.0034, 2), "0.0034");
        assert_eq!(sig(123456.0, 3), "123456");
        assert_eq!(sig_grouped(123456.0, 3), "123,456");
        assert_eq!(sig_grouped(2705.88, 4), "2,706");
        assert_eq!(sig_grouped(-52762.4, 3), "-52,762");
        assert_eq!(sig_grouped(1234.5678, 6), "1,234.57");
        assert_eq!(sig_grouped(999.94, 4), "999.9");
        assert_eq!(sig_grouped(999.96, 4), "1,000");
        assert_eq!(sig_grouped(-9.497e-98, 4), "-9.497e-98");
        assert_eq!(sig_grouped(2.017e100, 4), "2.017e100");
        assert_eq!(sig(1.011e15, 4), "1.011e15");
        assert_eq!(sig(9.313e-10, 4), "9.313e-10");
        assert_eq!(seconds(1.011e15), "1.011e15 s");
    }
}

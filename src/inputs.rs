//! Inputs named as fields. Every calculation takes a serde struct
//! (`deny_unknown_fields`, kebab-case) built from a [`Fields`] map: the
//! command line fills the map from its flags, a scenario file from its
//! TOML, and a sweep replaces one entry per point. Errors name the field
//! (`m`, `tile-k`); the command line turns a field into its flag.
//!
//! Quantities with units are newtypes ([`Bytes`], [`Seconds`], ...) that
//! deserialize from a number or from text with a unit, so `"3.35 TB/s"`,
//! `"4 KiB"` and `4096` all arrive in base units.

use crate::error::{Error, Result};
use crate::units::{self, Dim};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Input fields by kebab-case name, as the command line or a scenario
/// file gives them.
pub type Fields = serde_json::Map<String, Value>;

/// Builds a calculation's inputs from fields; an error names the field.
pub fn from_fields<T: DeserializeOwned>(fields: &Fields) -> Result<T> {
    from_fields_where(fields, |_| true)
}

/// Builds a calculation's inputs from the fields `keep` accepts (the
/// command line leaves out the hardware and model ids, which are not
/// inputs of the calculation); an error names the field.
pub fn from_fields_where<T: DeserializeOwned>(
    fields: &Fields,
    keep: impl Fn(&str) -> bool,
) -> Result<T> {
    // The map is borrowed through a value deserializer so a sweep does not
    // clone it per point.
    let de = serde::de::value::MapDeserializer::new(
        fields
            .iter()
            .filter(|(k, _)| keep(k))
            .map(|(k, v)| (k.as_str(), v)),
    );
    VALUE_ERROR.with_borrow_mut(|v| *v = None);
    serde_path_to_error::deserialize::<_, T>(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.to_string();
        // serde reports an unknown or missing field at the parent path.
        let field = if path == "." || path.is_empty() {
            field_in_message(&msg).unwrap_or_default()
        } else {
            path
        };
        if msg.starts_with("missing field") {
            Error::MissingInput {
                message: format!("give `{field}`"),
                field,
            }
        } else {
            VALUE_ERROR.with_borrow_mut(|v| *v = Some((field.clone(), msg.clone())));
            Error::Field {
                field,
                message: msg,
            }
        }
    })
}

std::thread_local! {
    /// The field and message of the last [`from_fields_where`] that
    /// refused a field's own value ([`value_error`]).
    static VALUE_ERROR: std::cell::RefCell<Option<(String, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// Whether `e` is a field's own value refused as it was read (not a
/// number, out of its range, an unknown field): an error that depends on
/// that field's value alone, not on any other input. A sweep that does
/// not vary the field fails this way at every point, so it reports the
/// error once, before its points (issue 55).
pub fn value_error(e: &Error) -> Option<&str> {
    let Error::Field { field, message } = e else {
        return None;
    };
    VALUE_ERROR
        .with_borrow(|v| v.as_ref().is_some_and(|(f, m)| f == field && m == message))
        .then_some(field.as_str())
}

std::thread_local! {
    /// The field and message of the last [`refused_by`] error, and the
    /// inputs its check read ([`depends_on`]).
    static CROSS_ERROR: std::cell::RefCell<Option<(String, String, &'static [&'static str])>> =
        const { std::cell::RefCell::new(None) };
}

/// Marks `e`, a refusal of a field made by a check that compares several
/// inputs (`tp` against the model's heads), as depending on the inputs
/// `on` alone: flags by name, `model` and `hw` for the files. A sweep that
/// varies none of them fails this way at every point, so it reports the
/// error once, before its points (issue 55).
pub fn refused_by(on: &'static [&'static str], e: Error) -> Error {
    if let Error::Field { field, message } = &e {
        CROSS_ERROR.with_borrow_mut(|c| *c = Some((field.clone(), message.clone(), on)));
    }
    e
}

/// The inputs a cross-field refusal depends on, where `e` is one
/// ([`refused_by`]).
pub fn depends_on(e: &Error) -> Option<&'static [&'static str]> {
    let Error::Field { field, message } = e else {
        return None;
    };
    CROSS_ERROR.with_borrow(|c| {
        c.as_ref()
            .filter(|(f, m, _)| f == field && m == message)
            .map(|(_, _, on)| *on)
    })
}

/// The field a serde message names (`unknown field `foo``).
fn field_in_message(msg: &str) -> Option<String> {
    let (_, rest) = msg.split_once('`')?;
    let (field, _) = rest.split_once('`')?;
    Some(field.to_string())
}

/// The largest count an input may give: 2^53, the last integer an f64
/// holds exactly. Every result is an f64, so a larger count could not be
/// answered exactly anyway, and the bound leaves the integer arithmetic
/// of the calculations (a count times a handful of small factors) far
/// from 64-bit overflow.
pub const MAX_COUNT: u64 = 1 << 53;

/// The one check every count from the user passes where it enters (a flag,
/// a scenario field, a data-file integer): at most [`MAX_COUNT`].
pub fn bounded_count(v: u64) -> std::result::Result<u64, String> {
    if v > MAX_COUNT {
        return Err(format!(
            "`{v}` is more than {} (2^53), the largest count computed exactly",
            units::whole(MAX_COUNT)
        ));
    }
    Ok(v)
}

/// Parses a count: a whole number written plainly (`4096`), with
/// separators (`1_000_000`, `1,000,000`) or in scientific notation (`1e6`).
pub fn parse_count(s: &str) -> std::result::Result<u64, String> {
    // Copied only when it has separators to drop: a sweep's points arrive
    // as plain digits, one parse each.
    let t = s.trim();
    let t: std::borrow::Cow<str> = if t.contains(['_', ',']) {
        t.chars().filter(|c| *c != '_' && *c != ',').collect()
    } else {
        t.into()
    };
    if let Ok(n) = t.parse::<u64>() {
        return bounded_count(n);
    }
    if t.bytes().all(|b| b.is_ascii_digit()) && !t.is_empty() {
        return Err(format!(
            "`{s}` is more than {} (2^53), the largest count computed exactly",
            units::whole(MAX_COUNT)
        ));
    }
    let v: f64 = t
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number"))?;
    count_from_f64(v).map_err(|e| format!("`{s}` {e}"))
}

fn count_from_f64(v: f64) -> std::result::Result<u64, &'static str> {
    // No bound is claimed here: a field that needs at least 1 says so
    // itself, and a negative count must not read as "zero is fine".
    if !v.is_finite() {
        return Err("is not a whole number");
    }
    if v < 0.0 {
        return Err("is negative; expected a whole number");
    }
    if v.fract() != 0.0 {
        return Err("is not a whole number");
    }
    if v > MAX_COUNT as f64 {
        return Err(
            "is more than 9,007,199,254,740,992 (2^53), the largest count computed exactly",
        );
    }
    Ok(v as u64)
}

/// A whole number of things (rows, threads, tokens): from an integer, an
/// integral float or text such as `1e6` or `1_000_000`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Count(pub u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a whole number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Count, E> {
                bounded_count(v).map(Count).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Count, E> {
                let v = u64::try_from(v).map_err(|_| {
                    E::custom(format!("`{v}` is negative; expected a whole number"))
                })?;
                bounded_count(v).map(Count).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Count, E> {
                count_from_f64(v)
                    .map(Count)
                    .map_err(|e| E::custom(format!("`{v}` {e}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Count, E> {
                parse_count(v).map(Count).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// Parses a token count: a count as [`parse_count`] reads it, or with the
/// shorthand model cards use, binary multiples: `8k` or `8K` = 8,192,
/// `1M` = 1,048,576 ("8K context" is 8,192 tokens).
pub fn parse_tokens(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1024.0),
        Some((i, 'M')) => (&t[..i], 1024.0 * 1024.0),
        _ => return parse_count(s),
    };
    let v: f64 = digits.trim().replace(['_', ','], "").parse().map_err(|_| {
        format!("`{s}` is not a token count (e.g. 4096, 8k = 8,192, 1M = 1,048,576)")
    })?;
    count_from_f64(v * scale).map_err(|e| format!("`{s}` {e}"))
}

/// A number of tokens (a context, a prompt, a chunk): a [`Count`] that also
/// reads `8k`, `32K`, `1M` ([`parse_tokens`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Tokens(pub u64);

impl<'de> Deserialize<'de> for Tokens {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Tokens;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number of tokens")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Tokens, E> {
                bounded_count(v).map(Tokens).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Tokens, E> {
                let v = u64::try_from(v).map_err(|_| {
                    E::custom(format!("`{v}` is negative; expected a whole number"))
                })?;
                bounded_count(v).map(Tokens).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Tokens, E> {
                count_from_f64(v)
                    .map(Tokens)
                    .map_err(|e| E::custom(format!("`{v}` {e}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Tokens, E> {
                parse_tokens(v).map(Tokens).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A dimensionless number (an intensity, a ratio): from a number or text.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct Number(pub f64);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Number, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Number, E> {
                self.visit_f64(v as f64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Number, E> {
                finite_number(v, &v.to_string())
                    .map(Number)
                    .map_err(E::custom)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Number, E> {
                let t = v.trim().replace('_', "");
                let x: f64 = t
                    .parse()
                    .map_err(|_| E::custom(format!("`{v}` is not a number")))?;
                // Name the value as typed (`1e400`), not as parsed (`inf`).
                finite(x)
                    .and_then(|x| units::plausible_number(x, v))
                    .map(Number)
                    .map_err(|e| {
                        E::custom(if x.is_finite() {
                            e.replacen(&format!("`{x:e}`"), &format!("`{v}`"), 1)
                        } else {
                            format!("`{v}` is not a finite number")
                        })
                    })
            }
        }
        d.deserialize_any(V)
    }
}

fn finite(v: f64) -> std::result::Result<f64, String> {
    if !v.is_finite() {
        Err(format!("`{v}` is not a finite number"))
    } else if !units::usable(v) {
        Err(format!(
            "`{v:e}` is too small to compute with (below 2.2e-308, the smallest normal double)"
        ))
    } else {
        Ok(v)
    }
}

/// [`finite`], then the plausible range of a dimensionless input
/// ([`units::NUMBER`]).
fn finite_number(v: f64, text: &str) -> std::result::Result<f64, String> {
    finite(v).and_then(|x| units::plausible_number(x, text))
}

macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident, $dim:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
        #[serde(transparent)]
        pub struct $name(pub f64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                quantity(d, $dim).map($name)
            }
        }
    };
}

quantity!(
    /// Bytes: `4 KiB`, `80 GB`, or a bare number of bytes.
    Bytes,
    Dim::Bytes
);
quantity!(
    /// Bytes per second: `3.35 TB/s`.
    BytesPerSec,
    Dim::BytesPerSec
);
quantity!(
    /// Floating-point operations: `137.4 GFLOP`, or a bare count.
    Flop,
    Dim::Flop
);
quantity!(
    /// Floating-point operations per second: `989 TFLOP/s`.
    FlopPerSec,
    Dim::FlopPerSec
);
quantity!(
    /// A frequency: `1.8 GHz`.
    Hz,
    Dim::Hz
);
quantity!(
    /// Clock cycles: `500 cycles`, or a bare count.
    Cycles,
    Dim::Cycles
);
quantity!(
    /// A time: `5 us`, `4.0 ms`.
    Seconds,
    Dim::Seconds
);

/// Deserializes a quantity of `dim` from text with a unit, or from a bare
/// number where the dimension allows one.
fn quantity<'de, D: Deserializer<'de>>(d: D, dim: Dim) -> std::result::Result<f64, D::Error> {
    struct V(Dim);
    impl Visitor<'_> for V {
        type Value = f64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a number with a unit ({})", self.0.accepted())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<f64, E> {
            self.visit_f64(v as f64)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<f64, E> {
            self.visit_f64(v as f64)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<f64, E> {
            if !self.0.bare_ok() {
                return Err(E::custom(format!(
                    "`{v}` has no unit; expected one of {}",
                    self.0.accepted()
                )));
            }
            finite(v)
                .and_then(|x| units::plausible(self.0, x, &v.to_string()))
                .map_err(E::custom)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<f64, E> {
            units::parse(v, self.0)
                .map_err(|e| e.to_string())
                .and_then(|x| units::plausible(self.0, x, v))
                .map_err(E::custom)
        }
    }
    d.deserialize_any(V(dim))
}

/// Checks that a quantity is a finite number above zero.
pub fn positive(field: &str, v: f64) -> Result<f64> {
    if !v.is_finite() || v <= 0.0 {
        return Err(Error::field(
            field,
            "must be a finite number greater than zero",
        ));
    }
    Ok(v)
}

/// Checks that a quantity is a finite number of zero or more.
pub fn non_negative(field: &str, v: f64) -> Result<f64> {
    if !v.is_finite() || v < 0.0 {
        return Err(Error::field(
            field,
            "must be a finite number of zero or more",
        ));
    }
    Ok(v)
}

/// Checks that a count is at least one.
pub fn at_least_one(field: &str, n: u64) -> Result<u64> {
    if n == 0 {
        return Err(Error::field(field, "must be a whole number of at least 1"));
    }
    Ok(n)
}

/// Multiplies counts, naming `field` if the product overflows 64 bits.
pub fn mul(field: &str, factors: &[u64]) -> Result<u64> {
    factors.iter().try_fold(1u64, |acc, &f| {
        acc.checked_mul(f)
            .ok_or_else(|| Error::field(field, "the product is too large for a 64-bit count"))
    })
}

/// Checks that a derived quantity is finite and, where `nonzero`, not
/// underflowed to zero: bad data, naming the quantity.
pub fn finite_result(what: &str, v: f64, nonzero: bool) -> Result<f64> {
    if !v.is_finite() {
        return Err(Error::Unsupported(format!(
            "`{what}` overflowed to infinity; the inputs are too large to compute with"
        )));
    }
    if nonzero && v == 0.0 {
        return Err(Error::Unsupported(format!(
            "`{what}` underflowed to zero; the inputs are too small to compute with"
        )));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "kebab-case")]
    struct Sample {
        m: Count,
        bandwidth: Option<BytesPerSec>,
        #[serde(default)]
        tile_k: Option<Count>,
    }

    fn fields(v: Value) -> Fields {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn fields_parse_numbers_and_text() {
        let s: Sample = from_fields(&fields(
            json!({"m": "1e3", "bandwidth": "3.35 TB/s", "tile-k": 64}),
        ))
        .unwrap();
        assert_eq!(s.m, Count(1000));
        assert_eq!(s.bandwidth, Some(BytesPerSec(3.35e12)));
        assert_eq!(s.tile_k, Some(Count(64)));
    }

    #[test]
    fn errors_name_the_field() {
        let e = from_fields::<Sample>(&fields(json!({"m": "-5"}))).unwrap_err();
        assert!(
            matches!(&e, Error::Field { field, .. } if field == "m"),
            "{e}"
        );
        let e = from_fields::<Sample>(&fields(json!({"m": 1, "tile-k": "x"}))).unwrap_err();
        assert!(
            matches!(&e, Error::Field { field, .. } if field == "tile-k"),
            "{e}"
        );
        let e = from_fields::<Sample>(&fields(json!({"m": 1, "bandwidth": 5}))).unwrap_err();
        assert!(e.to_string().contains("no unit"), "{e}");
        let e = from_fields::<Sample>(&fields(json!({"m": 1, "nope": 5}))).unwrap_err();
        assert!(
            matches!(&e, Error::Field { field, .. } if field == "nope"),
            "{e}"
        );
        let e = from_fields::<Sample>(&fields(json!({}))).unwrap_err();
        assert!(
            matches!(&e, Error::MissingInput { field, .. } if field == "m"),
            "{e}"
        );
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn token_counts_read_the_binary_shorthand() {
        // Model cards' "8K context" is 8,192 tokens.
        assert_eq!(parse_tokens("8k"), Ok(8_192));
        assert_eq!(parse_tokens("32K"), Ok(32_768));
        assert_eq!(parse_tokens("128k"), Ok(131_072));
        assert_eq!(parse_tokens("1M"), Ok(1_048_576));
        assert_eq!(parse_tokens("1.5k"), Ok(1_536));
        assert_eq!(parse_tokens("4096"), Ok(4_096));
        assert!(parse_tokens("0.3k").is_err(), "307.2 tokens");
        assert!(parse_tokens("-8k").is_err());
        assert!(parse_tokens("k").is_err());
        assert!(parse_tokens("8 kB").is_err());
        let t: Tokens = serde_json::from_value(json!("8k")).unwrap();
        assert_eq!(t, Tokens(8_192));
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("4096"), Ok(4096));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("1,000,000"), Ok(1_000_000));
        // 2^53 is the last count an f64 result holds exactly: it passes,
        // one more does not, whether written plainly or in e-notation.
        assert_eq!(parse_count("9007199254740992"), Ok(1 << 53));
        assert_eq!(parse_count("9.007199254740992e15"), Ok(1 << 53));
        for bad in [
            "1.5",
            "-5",
            "1e20",
            "nan",
            "abc",
            "9007199254740993",
            "18446744073709551615",
            "18446744073709551616",
            "1e16",
        ] {
            assert!(parse_count(bad).is_err(), "{bad}");
        }
        assert!(
            parse_count("18446744073709551615")
                .unwrap_err()
                .contains("2^53")
        );
    }

    #[test]
    fn overflow_is_named() {
        assert_eq!(mul("x", &[3, 4]).unwrap(), 12);
        let e = mul("m", &[u64::MAX, 2]).unwrap_err();
        assert!(matches!(&e, Error::Field { field, .. } if field == "m"));
    }
}

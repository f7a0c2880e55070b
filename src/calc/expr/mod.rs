//! `calc`: a units-aware calculator over the catalog. An expression of
//! numbers with units, catalog fields (`h100-sxm.compute.dense.bf16`,
//! `llama-3-8b.hidden-size`), `+ - * / ^`, parentheses and a few
//! functions, with an optional `-> UNIT`; its value in base units, written
//! with its unit (a dimensionless quotient as `x` and percent). Adding
//! FLOP/s to B/s, an unknown field or a unit typo is an error naming it.
//! The language is in `docs/cli.md` ("calc"); its arithmetic is plain
//! (formulas.md, "calc").

pub mod fields;
pub mod parse;
pub mod quantity;

use crate::error::{Error, Result};
use crate::report::{Quantity, Report, Unit};
use crate::units;
use fields::FieldValue;
use quantity::Value;
use serde::{Deserialize, Serialize};

/// `calc` inputs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct CalcInputs {
    /// The expression.
    pub expr: String,
}

/// What an expression came to.
#[derive(Debug, Clone)]
pub struct CalcCost {
    /// The expression as given.
    pub expr: String,
    /// Its value.
    pub value: Value,
    /// The expression with each field's value put in.
    pub substituted: String,
    /// `-> UNIT`: the unit as typed and the value in it.
    pub converted: Option<(String, f64)>,
    /// Each field read, with its value and source, in order.
    pub fields: Vec<(String, FieldValue)>,
}

/// The error for a bad expression: bad data (exit 65), naming the
/// expression.
fn bad(message: impl std::fmt::Display) -> Error {
    Error::input("EXPR", message)
}

/// Splits a field's name into its id and path where ids hold dots
/// (`llama-3.1-70b.layers`): at the dot after the longest prefix that
/// `is_id` knows, else at the first dot (so that the error names the id
/// the user most likely meant). `None` for a name without a dot.
pub fn split_field<'a>(name: &'a str, is_id: &dyn Fn(&str) -> bool) -> Option<(&'a str, &'a str)> {
    let dots: Vec<usize> = name.match_indices('.').map(|(i, _)| i).collect();
    let first = *dots.first()?;
    let at = dots
        .iter()
        .rev()
        .copied()
        .find(|&i| is_id(&name[..i]))
        .unwrap_or(first);
    Some((&name[..at], &name[at + 1..]))
}

/// Evaluates `inputs.expr`, reading each field with `field`, given the
/// field's whole name (`ID.path`; the caller knows which ids exist, so it
/// splits the name, see [`split_field`]).
pub fn cost(
    inputs: &CalcInputs,
    field: &mut dyn FnMut(&str) -> std::result::Result<FieldValue, String>,
) -> Result<CalcCost> {
    let parsed = parse::parse(&inputs.expr).map_err(bad)?;
    let mut read: Vec<(String, FieldValue)> = Vec::new();
    let (value, substituted) = parse::eval(&parsed.node, &mut |name| {
        if let Some((_, f)) = read.iter().find(|(n, _)| n == name) {
            return Ok(f.value);
        }
        let f = field(name)?;
        let v = f.value;
        read.push((name.to_string(), f));
        Ok(v)
    })
    .map_err(bad)?;
    if !value.value.is_finite() {
        return Err(bad(format!(
            "`{}` comes to {} (a division by zero, or too large a number)",
            inputs.expr, value.value
        )));
    }
    let converted = match parsed.target {
        None => None,
        Some((typed, unit)) => {
            if unit.dims != value.dims {
                return Err(bad(format!(
                    "cannot convert {} to `{typed}`, which is {}",
                    if value.dims.is_none() {
                        "a plain number".to_string()
                    } else {
                        value.dims.kind()
                    },
                    unit.dims.kind()
                )));
            }
            Some((typed, value.value / unit.scale))
        }
    };
    Ok(CalcCost {
        expr: inputs.expr.clone(),
        value,
        substituted,
        converted,
        fields: read,
    })
}

impl CalcCost {
    /// The answer as printed: the value with its unit, or in the unit
    /// converted to.
    pub fn answer(&self) -> String {
        match &self.converted {
            Some((u, v)) if u == "%" => format!("{}%", units::sig_grouped(*v, 4)),
            Some((u, v)) if u == "x" => format!("{}x", units::sig_grouped(*v, 4)),
            Some((u, v)) => format!("{} {u}", units::sig_grouped(*v, 4)),
            None => self.value.display(),
        }
    }

    /// The report: `value` in base units, `unit` its symbol, `answer` as
    /// printed; each field read, with its source.
    pub fn report(&self, lean: bool) -> Report {
        let mut r = Report::new_lean("calc", lean);
        r.input("expr", self.expr.clone());
        let answer = self.answer();
        r.result("answer", answer.clone(), || {
            Quantity::new("answer", Unit::None)
                .formula(self.expr.clone())
                .derive(format!("{} = {answer}", self.substituted))
        });
        r.result("value", self.value.value, || {
            Quantity::new("value in base units", self.value.unit())
        });
        r.result("unit", self.value.dims.symbol(), || {
            Quantity::new("base unit", Unit::None)
        });
        if self.value.unit() == Unit::Ratio {
            r.result("percent", self.value.value * 100.0, || {
                Quantity::new("as a percentage", Unit::None)
            });
        }
        if let Some((u, v)) = &self.converted {
            r.result("converted", *v, || {
                Quantity::new(format!("in {u}"), Unit::None)
            });
        }
        for (name, f) in &self.fields {
            r.result(name.clone(), f.value.value, || {
                Quantity::new(name.clone(), f.value.unit())
                    .source(f.source.as_deref())
                    .group("fields")
            });
        }
        r.headline(&["answer"]);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_fields(_: &str) -> std::result::Result<FieldValue, String> {
        Err("no fields here".into())
    }

    #[test]
    fn ids_with_dots_split_at_the_longest_known_id() {
        let ids = ["llama-3", "llama-3.1-70b", "h100-sxm"];
        let is_id = |s: &str| ids.contains(&s);
        assert_eq!(
            split_field("llama-3.1-70b.layers", &is_id),
            Some(("llama-3.1-70b", "layers"))
        );
        assert_eq!(
            split_field("llama-3.1-70b.attention.heads", &is_id),
            Some(("llama-3.1-70b", "attention.heads"))
        );
        assert_eq!(
            split_field("h100-sxm.memory.levels.0.capacity", &is_id),
            Some(("h100-sxm", "memory.levels.0.capacity"))
        );
        // No known id: the first dot, so the error names `llama-9`.
        assert_eq!(
            split_field("llama-9.1-70b.layers", &is_id),
            Some(("llama-9", "1-70b.layers"))
        );
        assert_eq!(split_field("layers", &is_id), None);
    }

    #[test]
    fn conversion_checks_the_dimension() {
        let c = cost(
            &CalcInputs {
                expr: "80 GB / 3.35 TB/s -> us".into(),
            },
            &mut no_fields,
        )
        .unwrap();
        // 80e9 / 3.35e12 s = 23,880.6 us.
        assert_eq!(c.answer(), "23,881 us");
        let e = cost(
            &CalcInputs {
                expr: "80 GB -> TB/s".into(),
            },
            &mut no_fields,
        )
        .unwrap_err();
        assert_eq!(e.exit_code(), 65);
        assert!(
            e.to_string().contains("cannot convert bytes to `TB/s`"),
            "{e}"
        );
    }

    #[test]
    fn a_division_by_zero_is_refused() {
        let e = cost(
            &CalcInputs {
                expr: "1 / 0".into(),
            },
            &mut no_fields,
        )
        .unwrap_err();
        assert_eq!(e.exit_code(), 65);
    }
}

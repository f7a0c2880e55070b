//! `dtype`: what a number format is made of. For each precision of the
//! registry ([`crate::precision`]) and each element format it is built
//! from (`e4m3`, `e5m2`, `e2m3`, `e3m2`, `e2m1`, `e8m0`): storage bits per
//! element with block scales, sign, exponent and mantissa bits, the
//! exponent bias, the largest and smallest normal, the smallest subnormal,
//! and the block size and scale format of a block-scaled format
//! (formulas.md, "Number formats").
//!
//! The field widths are the formats' definitions: IEEE 754 (binary64,
//! binary32, binary16), bfloat16, NVIDIA's TF32, the OCP 8-bit floating
//! point specification (E4M3, E5M2) and the OCP Microscaling (MX) v1.0
//! specification (E2M3, E3M2, E2M1, E8M0, block 32); NVFP4 is E2M1 with
//! an E4M3 scale per 16 elements (NVIDIA Blackwell; the Learn Kernels
//! book (000), §6.1). The ranges are computed from the widths.

use crate::error::{Error, Result};
use crate::precision;
use crate::report::{Quantity, Report, Unit};
use serde::{Deserialize, Serialize};

/// `dtype` inputs: a name, or none for the list.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct DtypeInputs {
    /// The precision or element format; none lists them all.
    pub name: Option<String>,
}

/// How a format spends its top exponent.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Top {
    /// IEEE: the all-ones exponent is infinity and NaN.
    Ieee,
    /// OCP E4M3: no infinity; only all-ones exponent and mantissa is NaN.
    NanOnly,
    /// OCP MX element types: every code is a finite number.
    Finite,
}

/// One element format.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Element {
    /// Its name (`e4m3`).
    pub name: &'static str,
    /// Sign bits (0 for the unsigned E8M0 scale).
    pub sign: u32,
    /// Exponent bits.
    pub exponent: u32,
    /// Stored mantissa (fraction) bits.
    pub mantissa: u32,
    top: Top,
    /// Where the widths come from.
    pub source: &'static str,
}

const IEEE: &str = "IEEE 754-2008";
const OCP8: &str = "OCP 8-bit Floating Point Specification (OFP8) rev 1.0";
const MX: &str = "OCP Microscaling Formats (MX) Specification v1.0";

/// The element formats.
pub const ELEMENTS: &[Element] = &[
    Element {
        name: "binary64",
        sign: 1,
        exponent: 11,
        mantissa: 52,
        top: Top::Ieee,
        source: IEEE,
    },
    Element {
        name: "binary32",
        sign: 1,
        exponent: 8,
        mantissa: 23,
        top: Top::Ieee,
        source: IEEE,
    },
    Element {
        name: "tf32",
        sign: 1,
        exponent: 8,
        mantissa: 10,
        top: Top::Ieee,
        source: "NVIDIA A100 whitepaper (TF32: 8-bit exponent, 10-bit mantissa)",
    },
    Element {
        name: "bfloat16",
        sign: 1,
        exponent: 8,
        mantissa: 7,
        top: Top::Ieee,
        source: "bfloat16: binary32's exponent, 7 mantissa bits",
    },
    Element {
        name: "binary16",
        sign: 1,
        exponent: 5,
        mantissa: 10,
        top: Top::Ieee,
        source: IEEE,
    },
    Element {
        name: "e4m3",
        sign: 1,
        exponent: 4,
        mantissa: 3,
        top: Top::NanOnly,
        source: OCP8,
    },
    Element {
        name: "e5m2",
        sign: 1,
        exponent: 5,
        mantissa: 2,
        top: Top::Ieee,
        source: OCP8,
    },
    Element {
        name: "e2m3",
        sign: 1,
        exponent: 2,
        mantissa: 3,
        top: Top::Finite,
        source: MX,
    },
    Element {
        name: "e3m2",
        sign: 1,
        exponent: 3,
        mantissa: 2,
        top: Top::Finite,
        source: MX,
    },
    Element {
        name: "e2m1",
        sign: 1,
        exponent: 2,
        mantissa: 1,
        top: Top::Finite,
        source: MX,
    },
    Element {
        name: "e8m0",
        sign: 0,
        exponent: 8,
        mantissa: 0,
        top: Top::NanOnly,
        source: MX,
    },
];

impl Element {
    /// Total bits.
    pub fn bits(&self) -> u32 {
        self.sign + self.exponent + self.mantissa
    }

    /// The exponent bias, 2^(E-1) - 1.
    pub fn bias(&self) -> i32 {
        (1i32 << (self.exponent - 1)) - 1
    }

    /// The largest finite value.
    pub fn max_normal(&self) -> f64 {
        let all_ones = (1i32 << self.exponent) - 1;
        let m = f64::from(self.mantissa);
        if self.mantissa == 0 {
            // E8M0: exponent 254 is the largest (255 is NaN), 2^127.
            return 2f64.powi(all_ones - 1 - self.bias());
        }
        match self.top {
            Top::Ieee => (2.0 - 2f64.powf(-m)) * 2f64.powi(all_ones - 1 - self.bias()),
            // All ones but the last mantissa code: 1.75 x 2^8 = 448.
            Top::NanOnly => (2.0 - 2.0 * 2f64.powf(-m)) * 2f64.powi(all_ones - self.bias()),
            Top::Finite => (2.0 - 2f64.powf(-m)) * 2f64.powi(all_ones - self.bias()),
        }
    }

    /// The smallest normal, 2^(1 - bias) (E8M0: 2^-127, its exponent 0).
    pub fn min_normal(&self) -> f64 {
        if self.mantissa == 0 {
            return 2f64.powi(-self.bias());
        }
        2f64.powi(1 - self.bias())
    }

    /// The smallest subnormal, 2^(1 - bias - M); none without a mantissa.
    pub fn min_subnormal(&self) -> Option<f64> {
        (self.mantissa > 0).then(|| 2f64.powi(1 - self.bias() - self.mantissa as i32))
    }

    /// Whether it has infinities.
    pub fn has_inf(&self) -> bool {
        self.top == Top::Ieee
    }
}

/// What a precision of the registry is built from.
struct Build {
    /// The registry precision.
    name: &'static str,
    /// Its element format (`None`: an integer of that many bits).
    element: Option<&'static str>,
    /// Integer bits (for int8, int4).
    int_bits: u32,
    /// The other element format it may use, for a note.
    or: Option<&'static str>,
    /// Block size and scale format.
    block: Option<(u32, &'static str, u32)>,
}

const BUILDS: &[Build] = &[
    Build {
        name: "fp64",
        element: Some("binary64"),
        int_bits: 0,
        or: None,
        block: None,
    },
    Build {
        name: "fp32",
        element: Some("binary32"),
        int_bits: 0,
        or: None,
        block: None,
    },
    Build {
        name: "tf32",
        element: Some("tf32"),
        int_bits: 0,
        or: None,
        block: None,
    },
    Build {
        name: "bf16",
        element: Some("bfloat16"),
        int_bits: 0,
        or: None,
        block: None,
    },
    Build {
        name: "fp16",
        element: Some("binary16"),
        int_bits: 0,
        or: None,
        block: None,
    },
    Build {
        name: "fp8",
        element: Some("e4m3"),
        int_bits: 0,
        or: Some("e5m2"),
        block: None,
    },
    Build {
        name: "int8",
        element: None,
        int_bits: 8,
        or: None,
        block: None,
    },
    Build {
        name: "mxfp8",
        element: Some("e4m3"),
        int_bits: 0,
        or: Some("e5m2"),
        block: Some((32, "e8m0", 8)),
    },
    Build {
        name: "fp6",
        element: Some("e2m3"),
        int_bits: 0,
        or: Some("e3m2"),
        block: None,
    },
    Build {
        name: "mxfp6",
        element: Some("e2m3"),
        int_bits: 0,
        or: Some("e3m2"),
        block: Some((32, "e8m0", 8)),
    },
    Build {
        name: "fp4",
        element: Some("e2m1"),
        int_bits: 0,
        or: None,
        block: None,
    },
    Build {
        name: "mxfp4",
        element: Some("e2m1"),
        int_bits: 0,
        or: None,
        block: Some((32, "e8m0", 8)),
    },
    Build {
        name: "nvfp4",
        element: Some("e2m1"),
        int_bits: 0,
        or: None,
        block: Some((16, "e4m3", 8)),
    },
    Build {
        name: "int4",
        element: None,
        int_bits: 4,
        or: None,
        block: Some((128, "bf16", 16)),
    },
];

fn element(name: &str) -> Option<&'static Element> {
    ELEMENTS.iter().find(|e| e.name.eq_ignore_ascii_case(name))
}

/// Other names of the element formats.
const ELEMENT_ALIASES: &[(&str, &str)] = &[
    ("fp8-e4m3", "e4m3"),
    ("fp8-e5m2", "e5m2"),
    ("fp6-e2m3", "e2m3"),
    ("fp6-e3m2", "e3m2"),
    ("fp4-e2m1", "e2m1"),
    ("ue8m0", "e8m0"),
];

/// The report for `inputs`: one format, or all of them as rows.
pub fn report(inputs: &DtypeInputs, lean: bool) -> Result<Report> {
    match inputs.name.as_deref().map(str::trim) {
        Some(n) if !n.is_empty() => one(n, lean),
        _ => {
            let mut reports = Vec::new();
            for b in BUILDS {
                reports.push(one(b.name, lean)?);
            }
            for e in ["e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "e8m0"] {
                reports.push(one(e, lean)?);
            }
            let mut all = Report::combine(reports, &["name".to_string()], &[]);
            all.command = "dtype".into();
            Ok(all)
        }
    }
}

/// One precision or element format.
fn one(name: &str, lean: bool) -> Result<Report> {
    let lower = name.to_ascii_lowercase();
    let el_name = crate::precision::canonical(&lower, ELEMENT_ALIASES);
    // An element format named as such (`e5m2`) is that format, not the
    // registry's fp8 it is an alias of.
    if let Some(e) = element(el_name).filter(|e| e.name.starts_with('e')) {
        let mut r = Report::new_lean("dtype", lean);
        r.input("name", e.name);
        element_results(&mut r, e, None, f64::from(e.bits()));
        r.headline(&["bits_per_element", "max_normal", "min_normal"]);
        return Ok(r);
    }
    let p = precision::lookup(name).map_err(|_| {
        let known: Vec<&str> = BUILDS
            .iter()
            .map(|b| b.name)
            .chain(["e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "e8m0"])
            .collect();
        let hint = crate::error::nearest(&lower, known.iter().copied())
            .map(|n| format!(" (did you mean `{n}`?)"))
            .unwrap_or_default();
        Error::input(
            "NAME",
            format!(
                "unknown number format `{name}`{hint}; known: {}",
                known.join(", ")
            ),
        )
    })?;
    let b = BUILDS
        .iter()
        .find(|b| b.name == p.name)
        .ok_or_else(|| Error::Unsupported(format!("`{}` has no format description", p.name)))?;
    let mut r = Report::new_lean("dtype", lean);
    r.input("name", p.name);
    r.result("layout", p.layout, || Quantity::new("layout", Unit::None));
    r.result("compute", p.compute, || {
        Quantity::new("computes at the peak of", Unit::None)
    });
    match b.element.and_then(element) {
        Some(e) => element_results(&mut r, e, b.block, p.bits),
        None => {
            r.result("bits_per_element", p.bits, || {
                bits_quantity(b.int_bits, b.block)
            });
            r.result("element_format", format!("int{}", b.int_bits), || {
                Quantity::new("element format", Unit::None)
            });
            r.result("element_bits", f64::from(b.int_bits), || {
                Quantity::new("bits of one element", Unit::Bits)
            });
            let max = f64::from((1u32 << (b.int_bits - 1)) - 1);
            r.result("max_normal", max, || {
                Quantity::new("largest value", Unit::None)
                    .formula("2^(bits-1) - 1, two's complement")
                    .derive(format!("2^{} - 1", b.int_bits - 1))
            });
            r.result("min_normal", 1.0, || {
                Quantity::new("smallest non-zero magnitude", Unit::None)
            });
            block_results(&mut r, b.block);
        }
    }
    if let Some(or) = b.or {
        r.note(format!(
            "{} is {} or {or}; the figures are {}'s (`roofline dtype {or}` gives the other)",
            p.name,
            b.element.unwrap_or(""),
            b.element.unwrap_or("")
        ));
    }
    if let Some(n) = p.compute_note() {
        r.note(n);
    }
    r.headline(&["bits_per_element", "max_normal", "min_normal", "block_size"]);
    Ok(r)
}

fn bits_quantity(element_bits: u32, block: Option<(u32, &'static str, u32)>) -> Quantity {
    let q = Quantity::new("bits per element, block scales included", Unit::Bits);
    match block {
        Some((n, _, s)) => q
            .formula("element bits + scale bits / block size")
            .derive(format!("{element_bits} + {s} / {n}")),
        None => q,
    }
}

fn element_results(
    r: &mut Report,
    e: &Element,
    block: Option<(u32, &'static str, u32)>,
    bits: f64,
) {
    r.result("bits_per_element", bits, || bits_quantity(e.bits(), block));
    r.result("element_format", e.name, || {
        Quantity::new("element format", Unit::None).source(Some(e.source))
    });
    r.result("element_bits", f64::from(e.bits()), || {
        Quantity::new("bits of one element", Unit::Bits)
            .formula("sign + exponent + mantissa")
            .derive(format!("{} + {} + {}", e.sign, e.exponent, e.mantissa))
    });
    r.result("sign_bits", f64::from(e.sign), || {
        Quantity::new("sign bits", Unit::Bits)
    });
    r.result("exponent_bits", f64::from(e.exponent), || {
        Quantity::new("exponent bits", Unit::Bits).source(Some(e.source))
    });
    r.result("mantissa_bits", f64::from(e.mantissa), || {
        Quantity::new("mantissa bits (stored)", Unit::Bits).source(Some(e.source))
    });
    r.result("bias", f64::from(e.bias()), || {
        Quantity::new("exponent bias", Unit::Count)
            .formula("2^(exponent bits - 1) - 1")
            .derive(format!("2^{} - 1", e.exponent - 1))
    });
    let all_ones = (1i32 << e.exponent) - 1;
    r.result("max_normal", e.max_normal(), || {
        let q = Quantity::new("largest normal", Unit::None);
        let m = e.mantissa;
        if m == 0 {
            return q
                .formula("2^(2^E - 2 - bias); the all-ones exponent is NaN")
                .derive(format!("2^({} - {})", all_ones - 1, e.bias()));
        }
        match e.top {
            Top::Ieee => q
                .formula("(2 - 2^-M) x 2^(2^E - 2 - bias); the all-ones exponent is inf and NaN")
                .derive(format!(
                    "(2 - 2^-{m}) x 2^({} - {})",
                    all_ones - 1,
                    e.bias()
                )),
            Top::NanOnly => q
                .formula("(2 - 2^(1-M)) x 2^(2^E - 1 - bias); no inf, the all-ones code is NaN")
                .derive(format!(
                    "(2 - 2^-{}) x 2^({all_ones} - {})",
                    m - 1,
                    e.bias()
                )),
            Top::Finite => q
                .formula("(2 - 2^-M) x 2^(2^E - 1 - bias); every code is finite")
                .derive(format!("(2 - 2^-{m}) x 2^({all_ones} - {})", e.bias())),
        }
    });
    r.result("min_normal", e.min_normal(), || {
        Quantity::new("smallest normal", Unit::None)
            .formula("2^(1 - bias)")
            .derive(format!("2^(1 - {})", e.bias()))
    });
    if let Some(s) = e.min_subnormal() {
        r.result("min_subnormal", s, || {
            Quantity::new("smallest subnormal", Unit::None)
                .formula("2^(1 - bias - M)")
                .derive(format!("2^(1 - {} - {})", e.bias(), e.mantissa))
        });
    }
    r.result("has_infinity", e.has_inf(), || {
        Quantity::new("has infinities", Unit::None)
    });
    block_results(r, block);
}

fn block_results(r: &mut Report, block: Option<(u32, &'static str, u32)>) {
    if let Some((n, scale, bits)) = block {
        r.result("block_size", f64::from(n), || {
            Quantity::new("elements per block scale", Unit::Count)
        });
        r.result("scale_format", scale, || {
            Quantity::new("scale format", Unit::None)
        });
        r.result("scale_bits", f64::from(bits), || {
            Quantity::new("bits per block scale", Unit::Bits)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(n: &str) -> &'static Element {
        element(n).unwrap()
    }

    #[test]
    fn ranges_from_the_field_widths() {
        // Hand-derived from each specification's definition.
        assert_eq!(el("e4m3").max_normal(), 448.0);
        assert_eq!(el("e5m2").max_normal(), 57344.0);
        assert_eq!(el("binary16").max_normal(), 65504.0);
        assert_eq!(el("e2m1").max_normal(), 6.0);
        assert_eq!(el("e2m3").max_normal(), 7.5);
        assert_eq!(el("e3m2").max_normal(), 28.0);
        assert_eq!(el("e8m0").max_normal(), 2f64.powi(127));
        assert_eq!(el("binary32").max_normal(), f64::from(f32::MAX));
        assert_eq!(el("binary32").min_normal(), f64::from(f32::MIN_POSITIVE));
        assert_eq!(el("binary64").max_normal(), f64::MAX);
        assert_eq!(el("e4m3").min_normal(), 2f64.powi(-6));
        assert_eq!(el("e4m3").min_subnormal(), Some(2f64.powi(-9)));
        assert_eq!(el("e5m2").min_subnormal(), Some(2f64.powi(-16)));
        assert_eq!(el("tf32").bits(), 19);
    }

    #[test]
    fn every_registry_precision_is_described() {
        for p in precision::ALL {
            let r = report(
                &DtypeInputs {
                    name: Some(p.name.into()),
                },
                false,
            )
            .unwrap();
            assert_eq!(r.number("bits_per_element"), Some(p.bits), "{}", p.name);
        }
    }
}

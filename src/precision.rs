//! The precision registry behind `--dtype`: storage bits per element
//! (including block-scale overhead) and the compute peak each precision runs
//! on. Derivations in `docs/formulas.md` ("Precisions").

use crate::error::{Error, Result};

/// One precision a user can name with `--dtype`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Precision {
    /// The name typed on the command line.
    pub name: &'static str,
    /// Bits of storage per element, block scales included.
    pub bits: f64,
    /// The hardware peak it computes at (a key of `compute.dense`).
    pub compute: &'static str,
    /// How the bits are made up, for `--explain`.
    pub layout: &'static str,
}

impl Precision {
    /// Bytes per element (may be fractional: nvfp4 is 0.5625).
    pub fn bytes(&self) -> f64 {
        self.bits / 8.0
    }

    /// What a report should say when the precision computes at a wider
    /// one's peak (int4 is weight-only: dequantised to bf16 before the
    /// multiply), so no one reads a 4-bit answer as a 4-bit peak.
    pub fn compute_note(&self) -> Option<String> {
        let compute = lookup(self.compute).ok()?;
        (compute.bits > self.bits + 0.5).then(|| {
            format!(
                "{} stores {} bits per element but computes at the {} peak: it is weight-only, dequantised to {} before the multiply",
                self.name, self.bits, compute.name, compute.name
            )
        })
    }

    /// Whether it computes on integer units, so its peak and work count
    /// integer operations (OP/s, the datasheets' TOPS), not FLOPs. `int8`
    /// does; `int4` is weight-only and dequantises to bf16 before the
    /// matmul, so its arithmetic is floating point.
    pub fn integer(&self) -> bool {
        self.compute.starts_with("int")
    }
}

/// Every precision the tool knows, in the order tables list them.
pub const ALL: &[Precision] = &[
    Precision {
        name: "fp64",
        bits: 64.0,
        compute: "fp64",
        layout: "IEEE binary64",
    },
    Precision {
        name: "fp32",
        bits: 32.0,
        compute: "fp32",
        layout: "IEEE binary32",
    },
    Precision {
        name: "tf32",
        bits: 32.0,
        compute: "tf32",
        layout: "stored as fp32; 19 significant bits used by the tensor core",
    },
    Precision {
        name: "bf16",
        bits: 16.0,
        compute: "bf16",
        layout: "1 sign + 8 exponent + 7 mantissa",
    },
    Precision {
        name: "fp16",
        bits: 16.0,
        compute: "fp16",
        layout: "1 sign + 5 exponent + 10 mantissa",
    },
    Precision {
        name: "fp8",
        bits: 8.0,
        compute: "fp8",
        layout: "E4M3 or E5M2, per-tensor scale",
    },
    Precision {
        name: "int8",
        bits: 8.0,
        compute: "int8",
        layout: "8-bit integer, per-tensor or per-channel scale",
    },
    Precision {
        name: "mxfp8",
        bits: 8.25,
        compute: "fp8",
        layout: "8 bits + one 8-bit E8M0 scale per 32 elements",
    },
    Precision {
        name: "fp6",
        bits: 6.0,
        compute: "fp6",
        layout: "E2M3 or E3M2",
    },
    Precision {
        name: "mxfp6",
        bits: 6.25,
        compute: "fp6",
        layout: "6 bits + one 8-bit E8M0 scale per 32 elements",
    },
    Precision {
        name: "fp4",
        bits: 4.0,
        compute: "fp4",
        layout: "E2M1, no block scale",
    },
    Precision {
        name: "mxfp4",
        bits: 4.25,
        compute: "fp4",
        layout: "4 bits + one 8-bit E8M0 scale per 32 elements",
    },
    Precision {
        name: "nvfp4",
        bits: 4.5,
        compute: "fp4",
        layout: "4 bits + one 8-bit E4M3 scale per 16 elements",
    },
    Precision {
        name: "int4",
        bits: 4.125,
        compute: "bf16",
        layout: "4 bits + one 16-bit scale per group of 128; weight-only, so it computes at the bf16 peak after dequantising",
    },
];

/// `name` trimmed, or the registry name it is an alias of (`aliases`:
/// alias, name), in any case and without allocating: a sweep resolves its
/// precisions at every point. Registry names are lowercase ASCII, so the
/// caller compares with `eq_ignore_ascii_case`.
pub(crate) fn canonical<'a>(name: &'a str, aliases: &[(&str, &'static str)]) -> &'a str {
    let n = name.trim();
    aliases
        .iter()
        .find(|(a, _)| a.eq_ignore_ascii_case(n))
        .map_or(n, |(_, c)| c)
}

/// Other names of registry precisions (alias, name); no alias is itself a
/// registry name.
const ALIASES: [(&str, &str); 8] = [
    ("e4m3", "fp8"),
    ("e5m2", "fp8"),
    ("fp8-e4m3", "fp8"),
    ("fp8-e5m2", "fp8"),
    ("float32", "fp32"),
    ("float16", "fp16"),
    ("half", "fp16"),
    ("bfloat16", "bf16"),
];

/// Looks a precision up by name (`e4m3`/`e5m2` are fp8).
pub fn lookup(name: &str) -> Result<&'static Precision> {
    // The registry's own spelling (what a sweep point carries) needs no
    // alias: none of the aliases is a registry name.
    if let Some(p) = ALL.iter().find(|p| p.name == name) {
        return Ok(p);
    }
    let n = canonical(name, &ALIASES);
    ALL.iter()
        .find(|p| p.name.eq_ignore_ascii_case(n))
        .ok_or_else(|| {
            Error::input(
                "--dtype",
                format!(
                    "unknown precision `{name}`; known: {}",
                    ALL.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_in_any_case_and_by_alias() {
        // The exact-name fast path is sound only if no alias is a name.
        for (a, _) in ALIASES {
            assert!(ALL.iter().all(|p| !p.name.eq_ignore_ascii_case(a)), "{a}");
        }
        assert_eq!(lookup("BF16").unwrap().name, "bf16");
        assert_eq!(lookup(" E4M3 ").unwrap().name, "fp8");
        assert_eq!(lookup("bfloat16").unwrap().name, "bf16");
        assert_eq!(lookup("Half").unwrap().name, "fp16");
        assert!(lookup("bf17").is_err());
    }

    #[test]
    fn only_weight_only_precisions_note_their_compute_peak() {
        // int4 computes at bf16 (the registry's layout says so); block-scaled
        // formats compute at their element type's own peak.
        let int4 = lookup("int4").unwrap().compute_note().unwrap();
        assert!(int4.contains("computes at the bf16 peak"), "{int4}");
        for name in ["bf16", "fp8", "mxfp8", "mxfp4", "nvfp4", "int8"] {
            assert_eq!(lookup(name).unwrap().compute_note(), None, "{name}");
        }
    }

    // Golden cases book-6.1-mxfp4-bits (4.25) and book-6.1-nvfp4-bits (4.5):
    // 4 data bits plus an 8-bit scale per 32 or 16 elements.
    #[test]
    fn block_scaled_bits() {
        assert_eq!(lookup("mxfp4").unwrap().bits, 4.0 + 8.0 / 32.0);
        assert_eq!(lookup("nvfp4").unwrap().bits, 4.0 + 8.0 / 16.0);
        assert_eq!(lookup("mxfp8").unwrap().bits, 8.0 + 8.0 / 32.0);
        assert_eq!(lookup("mxfp6").unwrap().bits, 6.0 + 8.0 / 32.0);
        assert_eq!(lookup("int4").unwrap().bits, 4.0 + 16.0 / 128.0);
    }

    #[test]
    fn aliases_and_errors() {
        assert_eq!(lookup("E4M3").unwrap().name, "fp8");
        assert_eq!(lookup("bfloat16").unwrap().bytes(), 2.0);
        let e = lookup("fp7").unwrap_err();
        assert!(e.to_string().contains("bf16"));
        assert_eq!(e.exit_code(), 65);
    }

    #[test]
    fn integer_precisions_compute_on_integer_units() {
        let integer: Vec<&str> = ALL.iter().filter(|p| p.integer()).map(|p| p.name).collect();
        // int4 dequantises to bf16 (formulas.md, "Precisions").
        assert_eq!(integer, ["int8"]);
    }
}

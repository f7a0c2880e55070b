//! The values `calc` computes with: a number in base units and its
//! dimension (powers of bytes, FLOP, seconds and joules), the unit words
//! a number may carry, and how a result is written back for people.
//! Clock cycles and percentages are plain numbers (a cycle count over a
//! frequency is a time); a bit is an eighth of a byte; integer operations
//! (`OP`, `TOPS`) count as FLOP, as the catalog's int8 peaks do.

use crate::report::Unit;
use crate::units;

/// Powers of the base units: bytes, FLOP, seconds, joules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dims(pub [i8; 4]);

/// The base units' symbols, in the order of [`Dims`].
const BASE: [&str; 4] = ["B", "FLOP", "s", "J"];

impl Dims {
    /// No dimension: a count or a ratio.
    pub const NONE: Dims = Dims([0; 4]);
    const B: Dims = Dims([1, 0, 0, 0]);
    const FLOP: Dims = Dims([0, 1, 0, 0]);
    const S: Dims = Dims([0, 0, 1, 0]);
    const J: Dims = Dims([0, 0, 0, 1]);
    const HZ: Dims = Dims([0, 0, -1, 0]);
    const W: Dims = Dims([0, 0, -1, 1]);

    /// Whether it has no dimension.
    pub fn is_none(self) -> bool {
        self == Dims::NONE
    }

    /// The product's dimension.
    pub fn times(self, o: Dims) -> Option<Dims> {
        let mut out = [0i8; 4];
        for (i, v) in out.iter_mut().enumerate() {
            *v = self.0[i].checked_add(o.0[i])?;
        }
        Some(Dims(out))
    }

    /// The quotient's dimension.
    pub fn over(self, o: Dims) -> Option<Dims> {
        self.times(o.pow(-1)?)
    }

    /// The dimension raised to a whole power.
    pub fn pow(self, n: i32) -> Option<Dims> {
        let mut out = [0i8; 4];
        for (i, v) in out.iter_mut().enumerate() {
            *v = i8::try_from(i32::from(self.0[i]).checked_mul(n)?).ok()?;
        }
        Some(Dims(out))
    }

    /// The base unit this dimension is measured in: `FLOP/s`, `B`,
    /// `FLOP/B`; empty for none.
    pub fn symbol(self) -> String {
        let named = [
            (Dims::W, "W"),
            (Dims::HZ, "Hz"),
            (Dims([0, 1, -1, 0]), "FLOP/s"),
            (Dims([1, 0, -1, 0]), "B/s"),
        ];
        if let Some((_, s)) = named.iter().find(|(d, _)| *d == self) {
            return (*s).to_string();
        }
        let part = |i: usize, p: i8| {
            if p == 1 {
                BASE[i].to_string()
            } else {
                format!("{}^{p}", BASE[i])
            }
        };
        let num: Vec<String> = (0..4)
            .filter(|&i| self.0[i] > 0)
            .map(|i| part(i, self.0[i]))
            .collect();
        let den: Vec<String> = (0..4)
            .filter(|&i| self.0[i] < 0)
            .map(|i| part(i, self.0[i].saturating_neg()))
            .collect();
        match (num.is_empty(), den.is_empty()) {
            (true, true) => String::new(),
            (false, true) => num.join("·"),
            (true, false) => format!("1/{}", den.join("/")),
            (false, false) => format!("{}/{}", num.join("·"), den.join("/")),
        }
    }

    /// What a person calls this kind of quantity, for errors.
    pub fn kind(self) -> String {
        let named = [
            (Dims::NONE, "a plain number"),
            (Dims::B, "bytes"),
            (Dims::FLOP, "FLOP"),
            (Dims::S, "a time"),
            (Dims::J, "an energy"),
            (Dims::HZ, "a frequency"),
            (Dims::W, "a power"),
            (Dims([0, 1, -1, 0]), "FLOP/s"),
            (Dims([1, 0, -1, 0]), "B/s"),
            (Dims([-1, 1, 0, 0]), "FLOP/B"),
        ];
        named
            .iter()
            .find(|(d, _)| *d == self)
            .map_or_else(|| self.symbol(), |(_, s)| (*s).to_string())
    }
}

/// A number with its dimension, in base units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Value {
    /// The number in base units (bytes, FLOP, seconds, joules and their
    /// quotients).
    pub value: f64,
    /// Its dimension.
    pub dims: Dims,
    /// A dimensionless quotient (`a / b`), written as `x` and percent; a
    /// count is written as a plain number.
    pub ratio: bool,
}

impl Value {
    /// A plain count.
    pub fn count(value: f64) -> Value {
        Value {
            value,
            dims: Dims::NONE,
            ratio: false,
        }
    }

    /// The unit a report measures it in, where one fits.
    pub fn unit(&self) -> Unit {
        match self.dims.0 {
            [0, 0, 0, 0] if self.ratio => Unit::Ratio,
            [0, 0, 0, 0] => Unit::Count,
            [1, 0, 0, 0] => Unit::BytesIec,
            [1, 0, -1, 0] => Unit::BytesPerSec,
            [0, 1, 0, 0] => Unit::Flop,
            [0, 1, -1, 0] => Unit::FlopPerSec,
            [-1, 1, 0, 0] => Unit::FlopPerByte,
            [0, 0, 1, 0] => Unit::Seconds,
            [0, 0, -1, 0] => Unit::Hz,
            [0, 0, 0, 1] => Unit::Joules,
            [0, 0, -1, 1] => Unit::Watts,
            [0, -1, 0, 1] => Unit::JoulesPerFlop,
            [-1, 0, 0, 1] => Unit::JoulesPerByte,
            _ => Unit::None,
        }
    }

    /// The value as a person reads it: `989 TFLOP/s`, `3.17x (317%)`,
    /// `10 GB`, `23.88 ms`.
    pub fn display(&self) -> String {
        let u = self.unit();
        match u {
            Unit::Ratio => format!("{} ({}%)", u.format(self.value), units::percent(self.value)),
            Unit::None => {
                let s = self.dims.symbol();
                format!("{} {s}", units::sig(self.value, 4))
            }
            u => u.format(self.value),
        }
    }
}

/// One unit word: what one of it is in base units, and its dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnitWord {
    /// Base units in one of it.
    pub scale: f64,
    /// Its dimension.
    pub dims: Dims,
}

fn si_prefix(p: &str, small: bool) -> Option<f64> {
    Some(match p {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "m" if small => 1e-3,
        "u" | "µ" | "μ" if small => 1e-6,
        "n" if small => 1e-9,
        "p" if small => 1e-12,
        _ => return None,
    })
}

fn iec_prefix(p: &str) -> Option<f64> {
    let k = 1024.0f64;
    Some(match p {
        "Ki" | "ki" => k,
        "Mi" => k.powi(2),
        "Gi" => k.powi(3),
        "Ti" => k.powi(4),
        "Pi" => k.powi(5),
        _ => return None,
    })
}

/// The unit words `calc` reads, for errors and `--help`.
pub const KNOWN_UNITS: &str = "B, KB, MB, GB, TB, KiB, MiB, GiB (bytes), bit, Gb (bits), FLOP, TFLOP, OP (operations), s, ms, us, ns, ps, min, Hz, MHz, GHz, J, pJ, W, cycles, %, x; with / between them (TB/s, TFLOP/s, FLOP/B) and TFLOPS, TOPS";

/// One unit word (`GB`, `TFLOP`, `s`, `GHz`, `%`), or `None`.
pub fn unit_word(w: &str) -> Option<UnitWord> {
    let word = |scale, dims| Some(UnitWord { scale, dims });
    match w {
        "%" => return word(0.01, Dims::NONE),
        "x" => return word(1.0, Dims::NONE),
        "cycle" | "cycles" | "clk" | "clks" => return word(1.0, Dims::NONE),
        "min" => return word(60.0, Dims::S),
        "h" => return word(3600.0, Dims::S),
        "sec" | "secs" | "second" | "seconds" => return word(1.0, Dims::S),
        "byte" | "bytes" => return word(1.0, Dims::B),
        _ => {}
    }
    // (stem, dimension, base units per one, small prefixes allowed)
    const STEMS: &[(&str, Dims, f64, bool)] = &[
        ("FLOPS", Dims([0, 1, -1, 0]), 1.0, false),
        ("OPS", Dims([0, 1, -1, 0]), 1.0, false),
        ("FLOPs", Dims::FLOP, 1.0, false),
        ("FLOP", Dims::FLOP, 1.0, false),
        ("flops", Dims::FLOP, 1.0, false),
        ("flop", Dims::FLOP, 1.0, false),
        ("OPs", Dims::FLOP, 1.0, false),
        ("OP", Dims::FLOP, 1.0, false),
        ("ops", Dims::FLOP, 1.0, false),
        ("op", Dims::FLOP, 1.0, false),
        ("bits", Dims::B, 0.125, false),
        ("bit", Dims::B, 0.125, false),
        ("Hz", Dims::HZ, 1.0, false),
        ("B", Dims::B, 1.0, false),
        ("b", Dims::B, 0.125, false),
        ("s", Dims::S, 1.0, true),
        ("J", Dims::J, 1.0, true),
        ("W", Dims::W, 1.0, true),
    ];
    for (stem, dims, scale, small) in STEMS {
        let Some(p) = w.strip_suffix(stem) else {
            continue;
        };
        // A bare `b` is ambiguous beside `B`; bits take a prefix (`Gb`)
        // or the word.
        if *stem == "b" && p.is_empty() {
            return None;
        }
        let bytes = dims.0[0] == 1 && dims.0[1..] == [0, 0, 0];
        let pre = si_prefix(p, *small).or_else(|| bytes.then(|| iec_prefix(p)).flatten())?;
        return word(pre * scale, *dims);
    }
    None
}

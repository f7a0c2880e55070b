//! The expression language of `calc`: numbers with units, catalog fields
//! (`ID.path`), `+ - * / ^`, parentheses, `ceil floor round min max abs
//! sqrt log2`, and a final `-> UNIT` conversion. Parsed by hand into a
//! tree, then evaluated with dimensions checked at each operation.
//!
//! Lexing: a word starting with a letter runs over letters, digits and
//! `_ . -`; one holding a dot is a field, any other a unit or a function.
//! A word such as `ms-2` whose part before the dash is a unit is that
//! unit followed by a minus, so `5ms-2ms` reads as a subtraction; between
//! two fields the minus needs spaces (`a.x - b.y`), since ids hold dashes.
//! After a number, its unit runs over words joined by `/` (`3.35 TB/s`),
//! so `80 GB / 3.35 TB/s` divides by a bandwidth.

use super::quantity::{Dims, KNOWN_UNITS, UnitWord, Value, unit_word};

/// A parse or evaluation failure, in words.
pub type Fail = String;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64, String),
    Word(String),
    Op(char),
    Arrow,
    Open,
    Close,
    Comma,
}

fn lex(text: &str) -> Result<Vec<Tok>, Fail> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let is_word_start = |c: char| c.is_alphabetic() || c == '%' || c == 'µ' || c == 'μ';
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == '_')
            {
                i += 1;
            }
            // An exponent only when digits follow (`1e6`, `2.5E-3`), so
            // `2EB` is 2 exabytes.
            if i < chars.len() && matches!(chars[i], 'e' | 'E') {
                let mut j = i + 1;
                if j < chars.len() && matches!(chars[j], '+' | '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let s: String = chars[start..i].iter().collect();
            let v: f64 = s
                .replace('_', "")
                .parse()
                .map_err(|_| format!("`{s}` is not a number"))?;
            if !v.is_finite() {
                return Err(format!("`{s}` is not a finite number"));
            }
            out.push(Tok::Num(v, s));
        } else if is_word_start(c) {
            let start = i;
            if c == '%' {
                i += 1;
            } else {
                while i < chars.len()
                    && (chars[i].is_alphanumeric()
                        || matches!(chars[i], '_' | '.' | 'µ' | 'μ')
                        || (chars[i] == '-'
                            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric())))
                {
                    i += 1;
                }
            }
            let mut w: String = chars[start..i].iter().collect();
            // `ms-2ms`: a unit, a minus, the rest.
            if !w.contains('.')
                && let Some((head, _)) = w.split_once('-')
                && unit_word(head).is_some()
            {
                i = start + head.chars().count();
                w = head.to_string();
            }
            // A field path never ends in a dot: `x.` ends a sentence.
            while w.ends_with('.') {
                w.pop();
                i -= 1;
            }
            out.push(Tok::Word(w));
        } else {
            match c {
                '-' if chars.get(i + 1) == Some(&'>') => {
                    out.push(Tok::Arrow);
                    i += 2;
                    continue;
                }
                '→' => out.push(Tok::Arrow),
                '+' | '-' | '*' | '/' | '^' | '×' | '·' => {
                    out.push(Tok::Op(if matches!(c, '×' | '·') { '*' } else { c }))
                }
                '(' => out.push(Tok::Open),
                ')' => out.push(Tok::Close),
                ',' => out.push(Tok::Comma),
                other => return Err(format!("unexpected `{other}`")),
            }
            i += 1;
        }
    }
    Ok(out)
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A number with its unit (`3.35 TB/s`), as typed.
    Lit(Value, String),
    /// A catalog field, `ID.path`.
    Field(String),
    /// `-x`.
    Neg(Box<Node>),
    /// `a op b`.
    Bin(char, Box<Node>, Box<Node>),
    /// `f(args)`.
    Call(String, Vec<Node>),
}

/// Functions, with how many arguments each takes (`None`: one or more).
const FUNCTIONS: &[(&str, Option<usize>)] = &[
    ("ceil", Some(1)),
    ("floor", Some(1)),
    ("round", Some(1)),
    ("abs", Some(1)),
    ("sqrt", Some(1)),
    ("log2", Some(1)),
    ("min", None),
    ("max", None),
];

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

/// The deepest tree a line may build: parentheses, unary signs, powers,
/// function calls and chained operators each add a level. A hand-written
/// line stays far below it; the parser and the evaluator recurse once
/// per level, so a bound keeps a machine-made line (15,000 `-`, 7,000
/// `(`) an error, not a stack overflow.
pub const MAX_DEPTH: usize = 200;

/// A subtree and how deep it is.
type Deep = (Node, usize);

fn too_deep() -> Fail {
    format!(
        "the expression nests more than {MAX_DEPTH} levels deep (parentheses, signs, powers and chained operators); split it"
    )
}

/// `a op b`, refused past [`MAX_DEPTH`].
fn bin(op: char, (l, dl): Deep, (r, dr): Deep) -> Result<Deep, Fail> {
    let d = dl.max(dr) + 1;
    if d > MAX_DEPTH {
        return Err(too_deep());
    }
    Ok((Node::Bin(op, Box::new(l), Box::new(r)), d))
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn sum(&mut self, depth: usize) -> Result<Deep, Fail> {
        let mut left = self.product(depth)?;
        while let Some(Tok::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.at += 1;
            let right = self.product(depth)?;
            left = bin(op, left, right)?;
        }
        Ok(left)
    }

    fn product(&mut self, depth: usize) -> Result<Deep, Fail> {
        let mut left = self.unary(depth)?;
        while let Some(Tok::Op(op @ ('*' | '/'))) = self.peek().cloned() {
            self.at += 1;
            let right = self.unary(depth)?;
            left = bin(op, left, right)?;
        }
        Ok(left)
    }

    /// Every recursion passes here, `depth` levels down: refused past
    /// [`MAX_DEPTH`] before it goes deeper.
    fn unary(&mut self, depth: usize) -> Result<Deep, Fail> {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        match self.peek() {
            Some(Tok::Op('-')) => {
                self.at += 1;
                let (inner, d) = self.unary(depth + 1)?;
                if d + 1 > MAX_DEPTH {
                    return Err(too_deep());
                }
                Ok((Node::Neg(Box::new(inner)), d + 1))
            }
            Some(Tok::Op('+')) => {
                self.at += 1;
                self.unary(depth + 1)
            }
            _ => self.power(depth),
        }
    }

    fn power(&mut self, depth: usize) -> Result<Deep, Fail> {
        let base = self.atom(depth)?;
        if let Some(Tok::Op('^')) = self.peek() {
            self.at += 1;
            // Right-associative, and `2^-1` is a half.
            let exp = self.unary(depth + 1)?;
            return bin('^', base, exp);
        }
        Ok(base)
    }

    fn atom(&mut self, depth: usize) -> Result<Deep, Fail> {
        match self.next() {
            Some(Tok::Num(v, text)) => {
                let (unit, typed) = self.unit_after_number()?;
                let mut lit = Value::count(v * unit.scale);
                lit.dims = unit.dims;
                let text = if typed.is_empty() {
                    text
                } else {
                    format!("{text} {typed}")
                };
                Ok((Node::Lit(lit, text), 1))
            }
            Some(Tok::Open) => {
                let inner = self.sum(depth + 1)?;
                match self.next() {
                    Some(Tok::Close) => Ok(inner),
                    _ => Err("a `(` is not closed".into()),
                }
            }
            Some(Tok::Word(w)) if w.contains('.') => Ok((Node::Field(w), 1)),
            Some(Tok::Word(w)) => {
                if let Some((_, arity)) = FUNCTIONS.iter().find(|(f, _)| *f == w) {
                    return self.call(w, *arity, depth);
                }
                // A unit alone is one of it (`GB / s`, `1 / ns`).
                let (unit, typed) = self.unit_from(&w)?;
                let mut one = Value::count(unit.scale);
                one.dims = unit.dims;
                Ok((Node::Lit(one, typed), 1))
            }
            Some(Tok::Close) => Err("a `)` with no `(` before it".into()),
            Some(Tok::Comma) => Err("a `,` outside min(...) or max(...)".into()),
            Some(Tok::Arrow) => Err("`->` must follow the expression it converts".into()),
            Some(Tok::Op(o)) => Err(format!("`{o}` where a number or a field was expected")),
            None => Err("the expression ends where a number or a field was expected".into()),
        }
    }

    fn call(&mut self, name: String, arity: Option<usize>, depth: usize) -> Result<Deep, Fail> {
        if self.next() != Some(Tok::Open) {
            return Err(format!(
                "`{name}` takes its argument in parentheses: {name}(...)"
            ));
        }
        let (first, mut deepest) = self.sum(depth + 1)?;
        let mut args = vec![first];
        loop {
            match self.next() {
                Some(Tok::Comma) => {
                    let (a, d) = self.sum(depth + 1)?;
                    deepest = deepest.max(d);
                    args.push(a);
                }
                Some(Tok::Close) => break,
                _ => return Err(format!("`{name}(` is not closed")),
            }
        }
        if let Some(n) = arity
            && args.len() != n
        {
            return Err(format!("`{name}` takes {n} argument, not {}", args.len()));
        }
        if deepest + 1 > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok((Node::Call(name, args), deepest + 1))
    }

    /// The unit that follows a number, if any: words joined by `/`.
    fn unit_after_number(&mut self) -> Result<(UnitWord, String), Fail> {
        match self.peek() {
            Some(Tok::Word(w)) if !w.contains('.') && !FUNCTIONS.iter().any(|(f, _)| f == w) => {
                let w = w.clone();
                self.at += 1;
                self.unit_from(&w)
            }
            Some(Tok::Word(w)) if w.contains('.') => Err(format!(
                "a number followed by the field `{w}`: put `*` between them"
            )),
            _ => Ok((
                UnitWord {
                    scale: 1.0,
                    dims: Dims::NONE,
                },
                String::new(),
            )),
        }
    }

    /// A unit starting with the word `first`, taking `/ word` parts while
    /// they are unit words.
    fn unit_from(&mut self, first: &str) -> Result<(UnitWord, String), Fail> {
        let mut u = word(first)?;
        let mut typed = first.to_string();
        while let (Some(Tok::Op('/')), Some(Tok::Word(w))) =
            (self.toks.get(self.at), self.toks.get(self.at + 1))
        {
            let Some(d) = (!w.contains('.') && !FUNCTIONS.iter().any(|(f, _)| f == w))
                .then(|| unit_word(w))
                .flatten()
            else {
                break;
            };
            u.scale /= d.scale;
            u.dims = u
                .dims
                .over(d.dims)
                .ok_or_else(|| format!("the unit `{typed}/{w}` has too large a power"))?;
            typed = format!("{typed}/{w}");
            self.at += 2;
        }
        Ok((u, typed))
    }

    /// The target of `->`: unit words joined by `/` and `*`.
    fn target(&mut self) -> Result<(UnitWord, String), Fail> {
        let Some(Tok::Word(first)) = self.next() else {
            return Err(format!("`->` takes a unit ({KNOWN_UNITS})"));
        };
        let (mut u, mut typed) = self.unit_from(&first)?;
        while let Some(Tok::Op(op @ ('*' | '/'))) = self.peek().cloned() {
            self.at += 1;
            let Some(Tok::Word(w)) = self.next() else {
                return Err(format!("`->` takes a unit ({KNOWN_UNITS})"));
            };
            let (d, t) = self.unit_from(&w)?;
            if op == '*' {
                u.scale *= d.scale;
                u.dims = u
                    .dims
                    .times(d.dims)
                    .ok_or("the unit has too large a power")?;
            } else {
                u.scale /= d.scale;
                u.dims = u
                    .dims
                    .over(d.dims)
                    .ok_or("the unit has too large a power")?;
            }
            typed = format!("{typed}{op}{t}");
        }
        Ok((u, typed))
    }
}

fn word(w: &str) -> Result<UnitWord, Fail> {
    unit_word(w).ok_or_else(|| {
        let hint = crate::error::nearest(
            w,
            [
                "B", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "FLOP", "GFLOP",
                "TFLOP", "PFLOP", "TFLOPS", "TOPS", "s", "ms", "us", "ns", "Hz", "MHz", "GHz",
                "cycles", "ceil", "floor", "min", "max",
            ],
        )
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default();
        format!(
            "unknown unit `{w}`{hint}; units are {KNOWN_UNITS}; a catalog field is ID.path (h100-sxm.memory.hbm-bandwidth)"
        )
    })
}

/// A parsed `calc` line: the expression and the unit it converts to.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The expression.
    pub node: Node,
    /// `-> UNIT`: the unit as typed and what one of it is.
    pub target: Option<(String, UnitWord)>,
}

/// Parses a `calc` line.
pub fn parse(text: &str) -> Result<Parsed, Fail> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err("the expression is empty".into());
    }
    let mut p = Parser { toks, at: 0 };
    let (node, _) = p.sum(0)?;
    let target = match p.peek() {
        Some(Tok::Arrow) => {
            p.at += 1;
            let (u, typed) = p.target()?;
            Some((typed, u))
        }
        _ => None,
    };
    match p.peek() {
        None => Ok(Parsed { node, target }),
        Some(Tok::Close) => Err("a `)` with no `(` before it".into()),
        Some(Tok::Num(_, s)) => Err(format!(
            "`{s}` follows a complete expression; join them with an operator"
        )),
        Some(t) => Err(format!(
            "{} follows a complete expression; join them with an operator",
            match t {
                Tok::Word(w) => format!("`{w}`"),
                Tok::Op(o) => format!("`{o}`"),
                _ => "more".into(),
            }
        )),
    }
}

/// A number with a unit as a data file writes one (`"989 TFLOP/s"`,
/// `"228 KiB"`, `"479 cycles"`), or `None` when the text is not one.
pub fn quantity(text: &str) -> Option<Value> {
    let p = parse(text).ok()?;
    match (p.node, p.target) {
        (Node::Lit(v, _), None) => Some(v),
        _ => None,
    }
}

/// Evaluates a tree, reading each field with `field`; returns the value
/// and the expression with every field's value substituted.
pub fn eval(
    node: &Node,
    field: &mut dyn FnMut(&str) -> Result<Value, Fail>,
) -> Result<(Value, String), Fail> {
    match node {
        Node::Lit(v, text) => Ok((*v, text.clone())),
        Node::Field(name) => {
            let v = field(name)?;
            Ok((v, v.display()))
        }
        Node::Neg(inner) => {
            let (v, s) = eval(inner, field)?;
            Ok((
                Value {
                    value: -v.value,
                    ..v
                },
                format!("-{s}"),
            ))
        }
        Node::Call(name, args) => {
            let mut vals = Vec::with_capacity(args.len());
            let mut texts = Vec::with_capacity(args.len());
            for a in args {
                let (v, s) = eval(a, field)?;
                vals.push(v);
                texts.push(s);
            }
            let text = format!("{name}({})", texts.join(", "));
            let first = vals[0];
            let one = |f: fn(f64) -> f64| Value {
                value: f(first.value),
                ..first
            };
            let v = match name.as_str() {
                "ceil" => one(f64::ceil),
                "floor" => one(f64::floor),
                "round" => one(f64::round),
                "abs" => one(f64::abs),
                "log2" | "sqrt" if !first.dims.is_none() && name == "log2" => {
                    return Err(format!(
                        "log2 takes a plain number; `{}` is {}",
                        texts[0],
                        first.dims.kind()
                    ));
                }
                "log2" => one(f64::log2),
                "sqrt" => {
                    let dims = halve(first.dims).ok_or_else(|| {
                        format!("sqrt of {} has no unit (`{}`)", first.dims.kind(), texts[0])
                    })?;
                    Value {
                        value: first.value.sqrt(),
                        dims,
                        ratio: first.ratio,
                    }
                }
                _ => {
                    let mut best = first;
                    for (v, t) in vals.iter().zip(&texts).skip(1) {
                        if v.dims != first.dims {
                            return Err(format!(
                                "{name} compares like with like: `{}` is {} and `{t}` is {}",
                                texts[0],
                                first.dims.kind(),
                                v.dims.kind()
                            ));
                        }
                        let pick = if name == "min" {
                            v.value < best.value
                        } else {
                            v.value > best.value
                        };
                        if pick {
                            best = *v;
                        }
                    }
                    best
                }
            };
            Ok((v, text))
        }
        Node::Bin(op, a, b) => {
            let (x, xs) = eval(a, field)?;
            let (y, ys) = eval(b, field)?;
            let wrap = |s: &str, n: &Node| match n {
                Node::Bin(o, ..) if matches!(o, '+' | '-') || *op == '^' => format!("({s})"),
                _ => s.to_string(),
            };
            let text = format!("{} {op} {}", wrap(&xs, a), wrap(&ys, b));
            let too_large = || "a unit with too large a power".to_string();
            let v = match op {
                '+' | '-' => {
                    if x.dims != y.dims {
                        return Err(format!(
                            "cannot {} {} and {}: `{xs}` and `{ys}` have different units",
                            if *op == '+' { "add" } else { "subtract" },
                            x.dims.kind(),
                            y.dims.kind(),
                        ));
                    }
                    Value {
                        value: if *op == '+' {
                            x.value + y.value
                        } else {
                            x.value - y.value
                        },
                        dims: x.dims,
                        ratio: x.ratio || y.ratio,
                    }
                }
                '*' => Value {
                    value: x.value * y.value,
                    dims: x.dims.times(y.dims).ok_or_else(too_large)?,
                    ratio: x.ratio || y.ratio,
                },
                '/' => {
                    let dims = x.dims.over(y.dims).ok_or_else(too_large)?;
                    Value {
                        value: x.value / y.value,
                        dims,
                        // A quotient of two quantities with units, or of
                        // two ratios, is a ratio; a count over a count
                        // (`8 / 2`) stays a count.
                        ratio: x.ratio || y.ratio || !(x.dims.is_none() && y.dims.is_none()),
                    }
                }
                _ => {
                    if !y.dims.is_none() {
                        return Err(format!(
                            "an exponent is a plain number; `{ys}` is {}",
                            y.dims.kind()
                        ));
                    }
                    let dims = if x.dims.is_none() {
                        Dims::NONE
                    } else {
                        let n = y.value;
                        if n.fract() != 0.0 || n.abs() > 16.0 {
                            return Err(format!(
                                "{} raised to `{ys}`: a quantity with a unit takes a whole power up to 16",
                                x.dims.kind()
                            ));
                        }
                        x.dims.pow(n as i32).ok_or_else(too_large)?
                    };
                    Value {
                        value: x.value.powf(y.value),
                        dims,
                        ratio: x.ratio,
                    }
                }
            };
            Ok((v, text))
        }
    }
}

fn halve(d: Dims) -> Option<Dims> {
    let mut out = [0i8; 4];
    for (i, v) in out.iter_mut().enumerate() {
        if d.0[i] % 2 != 0 {
            return None;
        }
        *v = d.0[i] / 2;
    }
    Some(Dims(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Result<Value, Fail> {
        let p = parse(text)?;
        eval(&p.node, &mut |f| Err(format!("no field {f}"))).map(|(v, _)| v)
    }

    #[test]
    fn a_capacity_over_a_bandwidth_is_a_time() {
        // 80e9 B / 3.35e12 B/s = 23.88 ms, worked by hand.
        let v = run("80 GB / 3.35 TB/s").unwrap();
        assert_eq!(v.dims, Dims([0, 0, 1, 0]));
        assert!((v.value - 80e9 / 3.35e12).abs() < 1e-15);
        assert_eq!(v.display(), "23.88 ms");
    }

    #[test]
    fn precedence_powers_and_functions() {
        assert_eq!(run("2 + 3 * 4").unwrap().value, 14.0);
        assert_eq!(run("(2 + 3) * 4").unwrap().value, 20.0);
        assert_eq!(run("2 ^ 3 ^ 2").unwrap().value, 512.0);
        assert_eq!(run("-2 ^ 2").unwrap().value, -4.0);
        assert_eq!(run("ceil(7 / 2)").unwrap().value, 4.0);
        assert_eq!(run("floor(7 / 2)").unwrap().value, 3.0);
        assert_eq!(run("max(1 GB, 2 GB, 500 MB)").unwrap().value, 2e9);
        assert_eq!(run("min(1 GB, 2 GB)").unwrap().value, 1e9);
        assert_eq!(run("5ms-2ms").unwrap().value, 3e-3);
        assert_eq!(run("2 KiB").unwrap().value, 2048.0);
        assert_eq!(run("8 Gb").unwrap().value, 1e9);
    }

    #[test]
    fn conversions_and_ratios() {
        let p = parse("1 GB -> MiB").unwrap();
        assert_eq!(p.target.as_ref().unwrap().0, "MiB");
        let r = run("225 TFLOP/s / 312 TFLOP/s").unwrap();
        assert!(r.ratio && r.dims.is_none());
        assert_eq!(r.display(), "0.7212x (72.12%)");
        assert_eq!(run("40 %").unwrap().value, 0.4);
        assert_eq!(run("1979 TOPS").unwrap().dims, Dims([0, 1, -1, 0]));
        assert_eq!(
            run("500 cycles / 1.8 GHz").unwrap().dims,
            Dims([0, 0, 1, 0])
        );
    }

    #[test]
    fn mismatches_and_typos_are_named() {
        let e = run("1 TFLOP/s + 1 TB/s").unwrap_err();
        assert!(e.contains("cannot add FLOP/s and B/s"), "{e}");
        let e = run("80 GBB").unwrap_err();
        assert!(e.contains("unknown unit `GBB`"), "{e}");
        assert!(run("2 ^ 1 GB").is_err());
        assert!(run("(1 + 2").is_err());
        assert!(run("1 2").is_err());
        assert!(run("min(1 GB, 1 s)").is_err());
        assert!(run("").is_err());
    }

    #[test]
    fn nesting_is_bounded_by_an_error() {
        // Each of these once overflowed the stack (issue 55): a bound
        // makes them errors naming the limit; one level under it parses.
        for text in [
            format!("{}1", "-".repeat(15_000)),
            format!("{}1{}", "(".repeat(7_000), ")".repeat(7_000)),
            format!("{}2", "2^".repeat(20_000)),
            format!("1{}", "+1".repeat(20_000)),
            format!("{}1{}", "abs(".repeat(5_000), ")".repeat(5_000)),
        ] {
            let e = parse(&text).unwrap_err();
            assert!(e.contains("nests more than"), "{e}");
        }
        let ok = format!(
            "{}1{}",
            "(".repeat(MAX_DEPTH - 1),
            ")".repeat(MAX_DEPTH - 1)
        );
        assert_eq!(run(&ok).unwrap().value, 1.0);
        assert_eq!(run(&format!("{}1", "--".repeat(50))).unwrap().value, 1.0);
    }
}

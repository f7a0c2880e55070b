//! Where requests come from (formulas.md, "Simulation: workload"):
//! Poisson arrivals at a rate, a closed loop of a fixed number of users
//! each sending the next request the moment the last one finishes, or a
//! trace file of arrival times and lengths.
//!
//! A trace is CSV with a header naming `arrival_s`, `prompt_tokens` and
//! `output_tokens` (in any order; other columns are ignored), one request a
//! row; `#` starts a comment line. Rows are taken in arrival order.

use super::dist::{Length, Random};
use crate::error::{Error, Result};

/// How requests arrive.
#[derive(Debug, Clone, PartialEq)]
pub enum Arrivals {
    /// Poisson at this many requests per second.
    Poisson(f64),
    /// This many users, each with one request outstanding.
    Closed(u64),
    /// Requests read from a file.
    Trace(Vec<Request>),
}

/// One request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request {
    /// When it arrives, seconds (closed loop: filled in as it is sent).
    pub arrival_s: f64,
    /// Prompt tokens.
    pub prompt: u64,
    /// Output tokens.
    pub output: u64,
}

/// Parses `12/s`, `12`, `720/min` or `3600/h` as requests per second.
pub fn parse_rate(text: &str) -> std::result::Result<f64, String> {
    let t = text.trim();
    let (num, per) = match t.split_once('/') {
        Some((n, u)) => (
            n.trim(),
            match u.trim() {
                "s" | "sec" => 1.0,
                "min" => 60.0,
                "h" | "hr" => 3600.0,
                u => {
                    return Err(format!(
                        "`{t}`: unknown unit `/{u}`; expected requests per second (12/s, 720/min, 3600/h)"
                    ));
                }
            },
        ),
        None => (t, 1.0),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{t}` is not a rate; expected requests per second, e.g. 12/s"))?;
    if !(v.is_finite() && v > 0.0) {
        return Err(format!(
            "`{t}`: a rate must be above zero (requests per second)"
        ));
    }
    // Below one request in about 32 years the run's clock, the requests
    // times the interval, leaves what a double holds (a subnormal rate is
    // an infinite interval); above a trillion a second no count of
    // replicas a search can hold serves it.
    let r = v / per;
    if !(MIN_RATE..=MAX_RATE).contains(&r) {
        return Err(format!(
            "`{t}`: a rate must be from 1e-9/s to 1e12/s (requests per second)"
        ));
    }
    Ok(r)
}

/// The slowest arrival rate accepted, per second.
pub const MIN_RATE: f64 = 1e-9;
/// The fastest arrival rate accepted, per second.
pub const MAX_RATE: f64 = 1e12;

/// Reads a trace's text; `file` names it in errors (file:line:field).
pub fn parse_trace(file: &str, text: &str) -> Result<Vec<Request>> {
    let bad =
        |line: usize, field: &str, message: String| Error::at_line(file, line, field, message);
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((hline, header)) = lines.next() else {
        return Err(bad(
            1,
            "arrival_s",
            "the trace is empty; expected a header `arrival_s,prompt_tokens,output_tokens` and one row per request".into(),
        ));
    };
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let col = |name: &str| {
        names.iter().position(|n| *n == name).ok_or_else(|| {
            bad(
                hline,
                name,
                format!(
                    "the header has no `{name}` column; expected a first line naming arrival_s, prompt_tokens and output_tokens, comma-separated in any order (it begins `{}`)",
                    crate::units::excerpt(header, 40)
                ),
            )
        })
    };
    let (ca, cp, co) = (
        col("arrival_s")?,
        col("prompt_tokens")?,
        col("output_tokens")?,
    );
    let mut out = Vec::new();
    for (n, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let cell = |c: usize, name: &str| {
            cells.get(c).copied().ok_or_else(|| {
                bad(
                    n,
                    name,
                    format!(
                        "the row has {} cells; the header has {}",
                        cells.len(),
                        names.len()
                    ),
                )
            })
        };
        let a = cell(ca, "arrival_s")?;
        let arrival_s: f64 = a
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                bad(
                    n,
                    "arrival_s",
                    format!(
                        "`{}`: expected seconds from the start, zero or more",
                        crate::units::excerpt(a, 40)
                    ),
                )
            })?;
        let tokens = |c: usize, name: &str| -> Result<u64> {
            let v = cell(c, name)?;
            match crate::inputs::parse_count(v) {
                Ok(k) if (1..=super::dist::MAX_TOKENS).contains(&k) => Ok(k),
                _ => Err(bad(
                    n,
                    name,
                    format!(
                        "`{}`: expected a whole number of tokens, at least 1",
                        crate::units::excerpt(v, 40)
                    ),
                )),
            }
        };
        out.push(Request {
            arrival_s,
            prompt: tokens(cp, "prompt_tokens")?,
            output: tokens(co, "output_tokens")?,
        });
    }
    if out.is_empty() {
        return Err(bad(
            hline,
            "arrival_s",
            "the trace has a header but no requests".into(),
        ));
    }
    // Stable: rows at the same time keep the file's order.
    out.sort_by(|a, b| a.arrival_s.total_cmp(&b.arrival_s));
    Ok(out)
}

/// The requests of a run: `n` of them from `arrivals` with lengths drawn
/// from `prompt` and `output`. The draws come in a fixed order (gap,
/// prompt, output per request) so a seed repeats a run.
pub fn requests(
    arrivals: &Arrivals,
    n: u64,
    prompt: &Length,
    output: &Length,
    r: &mut Random,
) -> Vec<Request> {
    match arrivals {
        Arrivals::Trace(t) => t.clone(),
        Arrivals::Poisson(rate) => {
            let mut t = 0.0;
            (0..n)
                .map(|_| {
                    t += r.exponential(1.0 / rate);
                    Request {
                        arrival_s: t,
                        prompt: prompt.sample(r),
                        output: output.sample(r),
                    }
                })
                .collect()
        }
        Arrivals::Closed(_) => (0..n)
            .map(|_| Request {
                arrival_s: 0.0,
                prompt: prompt.sample(r),
                output: output.sample(r),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("12/s").unwrap(), 12.0);
        assert_eq!(parse_rate("720/min").unwrap(), 12.0);
        assert_eq!(parse_rate("3").unwrap(), 3.0);
        // The range's ends: one request in 1e9 s, 1e12 a second.
        assert_eq!(parse_rate("1e-9/s").unwrap(), 1e-9);
        assert_eq!(parse_rate("3.6e15/h").unwrap(), 1e12);
        for bad in [
            "0", "-1/s", "x/s", "5/day", "inf", "1e-320/s", "1e-10/s", "2e12/s",
        ] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn trace_rows_and_errors() {
        let t = "# a comment\nprompt_tokens,arrival_s,output_tokens\n10,0.5,3\n20,0.1,4\n";
        let r = parse_trace("t.csv", t).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].arrival_s, r[0].prompt, r[0].output), (0.1, 20, 4));
        let e = parse_trace(
            "t.csv",
            "arrival_s,prompt_tokens,output_tokens\n0,10,3\n1,ten,3\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("t.csv") && e.contains('3') && e.contains("prompt_tokens"),
            "{e}"
        );
        let e = parse_trace("t.csv", "arrival,prompt_tokens,output_tokens\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("arrival_s"), "{e}");
        assert!(parse_trace("t.csv", "arrival_s,prompt_tokens,output_tokens\n-1,5,5\n").is_err());
    }

    #[test]
    fn an_error_quotes_the_file_briefly() {
        // A file that is not a trace (a password file named by mistake):
        // the message describes the header it expected and quotes at most
        // 40 characters of the line, escaped.
        let secret = format!("root:x:0:0:{}\u{1b}[31m\n1,2,3\n", "s".repeat(500));
        let e = parse_trace("t.csv", &secret).unwrap_err().to_string();
        assert!(
            e.contains("arrival_s, prompt_tokens and output_tokens"),
            "{e}"
        );
        assert!(e.contains("root:x:0:0:"), "{e}");
        assert!(!e.contains(&"s".repeat(41)), "{e}");
        assert!(!e.contains('\u{1b}'), "{e}");
        let long = format!(
            "arrival_s,prompt_tokens,output_tokens\n{},5,5\n",
            "9x".repeat(300)
        );
        let e = parse_trace("t.csv", &long).unwrap_err().to_string();
        assert!(e.len() < 200, "{e}");
    }
}

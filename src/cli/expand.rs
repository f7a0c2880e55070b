//! Sweeps: `--sweep name=values` runs the command once per value by
//! rewriting the argument list (`--name value`) and parsing it again, so
//! any flag can be swept with its own validation.

use super::{Global, dispatch};
use anyhow::Context;
use roofline::report::Report;
use roofline::sweep;

/// Parses `argv` and runs it, expanding sweeps; returns the shared flags
/// and one report per point (several for a sweep or a list of `--hw`).
/// Sweeps are expanded before parsing, so a required flag can be swept
/// without also being given.
pub fn run(argv: &[String]) -> anyhow::Result<(Global, Vec<Report>)> {
    let mut seen: Vec<String> = Vec::new();
    for spec in all_sweeps(argv) {
        let name = sweep::parse(&spec)?.name;
        if seen.contains(&name) {
            return Err(roofline::Error::input(
                "--sweep",
                format!("`{name}` is swept twice; give all its values in one --sweep"),
            )
            .into());
        }
        seen.push(name);
    }
    let mut global = None;
    let reports = points(argv, &mut global)?;
    match global {
        Some(g) => Ok((g, reports)),
        // Every sweep has at least one point, so this is only reached if
        // parsing never happened; parse now to report why.
        None => Err(super::parse(argv)
            .err()
            .map_or_else(|| anyhow::anyhow!("nothing to run"), anyhow::Error::from)),
    }
}

/// Every `--sweep` value on the command line.
fn all_sweeps(argv: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = argv.iter().skip(1);
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        if a == "--sweep" {
            out.extend(it.next().cloned());
        } else if let Some(v) = a.strip_prefix("--sweep=") {
            out.push(v.to_string());
        }
    }
    out
}

/// The first `--sweep` value on the command line.
fn first_sweep(argv: &[String]) -> Option<String> {
    let mut it = argv.iter().skip(1);
    while let Some(a) = it.next() {
        if a == "--" {
            return None;
        }
        if a == "--sweep" {
            return it.next().cloned();
        }
        if let Some(v) = a.strip_prefix("--sweep=") {
            return Some(v.to_string());
        }
    }
    None
}

fn points(argv: &[String], global: &mut Option<Global>) -> anyhow::Result<Vec<Report>> {
    let Some(spec) = first_sweep(argv) else {
        let cli = super::parse(argv)?;
        let reports = dispatch(&cli)?;
        global.get_or_insert(cli.global);
        return Ok(reports);
    };
    let sw = sweep::parse(&spec)?;
    let mut out = Vec::new();
    for value in sw.values.texts() {
        let next = rewrite(argv, &spec, &sw.name, &value);
        out.extend(points(&next, global).with_context(|| format!("at {}={value}", sw.name))?);
    }
    Ok(out)
}

/// Drops the first `--sweep SPEC` and every `--name X`, then appends
/// `--name value`.
fn rewrite(argv: &[String], spec: &str, name: &str, value: &str) -> Vec<String> {
    let flag = format!("--{name}");
    let mut out = Vec::with_capacity(argv.len() + 2);
    let mut dropped_sweep = false;
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        if !dropped_sweep && a == "--sweep" && argv.get(i + 1).is_some_and(|v| v == spec) {
            dropped_sweep = true;
            i += 2;
            continue;
        }
        if !dropped_sweep && a.strip_prefix("--sweep=") == Some(spec) {
            dropped_sweep = true;
            i += 1;
            continue;
        }
        if *a == flag {
            i += 2;
            continue;
        }
        if a.starts_with(&format!("{flag}=")) {
            i += 1;
            continue;
        }
        out.push(a.clone());
        i += 1;
    }
    out.push(flag);
    out.push(value.to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn rewrite_replaces_the_flag() {
        let a = v("roofline model show llama-3-8b --dtype fp8 --sweep dtype=bf16,int4");
        assert_eq!(
            rewrite(&a, "dtype=bf16,int4", "dtype", "int4"),
            v("roofline model show llama-3-8b --dtype int4")
        );
        let b = v("roofline x --sweep=a=1,2 --a=5");
        assert_eq!(rewrite(&b, "a=1,2", "a", "2"), v("roofline x --a 2"));
    }
}

//! Each declared command's inputs (`roofline::query::declared`) reach all
//! four surfaces unchanged: the command line's flags (`--help`), the
//! Python functions' keywords, docstrings and stubs (the committed
//! `_roofline.pyi`, which `python/tools/stubgen.py --check` holds to the
//! built module) and the web page's form (`web/www/commands.js`, which
//! the browser tests hold to `--help`). The library's side is in
//! `src/query/tests.rs`.

use crate::common::cli;
use roofline::query::declared::{DECLARED, Declared};

/// One input as a surface lists it: name, whether a switch, and its help.
#[derive(Debug, PartialEq)]
struct Listed {
    name: String,
    switch: bool,
    help: String,
}

fn declared(d: &Declared) -> Vec<Listed> {
    d.flags()
        .map(|f| Listed {
            name: f.name.into(),
            switch: f.switch,
            help: f.help.into(),
        })
        .collect()
}

/// The command's own flags from its `--help` (not the options every
/// command shares), with their value names.
fn help_flags(command: &str) -> (String, Vec<(Listed, Option<String>)>) {
    let out = cli(&[command, "--help"]);
    assert!(out.status.success(), "{command} --help failed");
    let text = String::from_utf8(out.stdout).unwrap();
    let summary = text.lines().next().unwrap().to_string();
    let mut flags: Vec<(Listed, Option<String>)> = Vec::new();
    let mut section = "";
    // clap's own `-h, --help` is nobody's input.
    let mut own_help = false;
    for line in text.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            section = line;
            continue;
        }
        if section.is_empty() || section == "Common options:" || section == "Examples:" {
            continue;
        }
        let t = line.trim();
        if t.starts_with("-h, --help") {
            own_help = true;
            continue;
        }
        if let Some(flag) = t
            .strip_prefix("--")
            .filter(|_| line.starts_with("      --"))
        {
            own_help = false;
            let (name, value) = match flag.split_once(' ') {
                Some((n, v)) => (n, Some(v.trim_matches(['<', '>']).to_string())),
                None => (flag, None),
            };
            flags.push((
                Listed {
                    name: name.into(),
                    switch: value.is_none(),
                    help: String::new(),
                },
                value,
            ));
        } else if !t.is_empty() && !own_help {
            let last = &mut flags.last_mut().expect("help text follows its flag").0;
            if !last.help.is_empty() {
                last.help.push(' ');
            }
            last.help.push_str(t);
        }
    }
    (summary, flags)
}

#[test]
fn the_command_line_flags_are_the_declared_inputs() {
    for d in DECLARED {
        let (summary, flags) = help_flags(d.command);
        assert_eq!(summary, d.summary, "{}", d.command);
        let listed: Vec<&Listed> = flags.iter().map(|(l, _)| l).collect();
        let want = declared(d);
        assert_eq!(listed, want.iter().collect::<Vec<_>>(), "{}", d.command);
        for ((l, value), f) in flags.iter().zip(d.flags()) {
            let name = f
                .value_name
                .map_or_else(|| f.name.replace('-', "_").to_uppercase(), String::from);
            assert_eq!(
                value.as_deref(),
                (!f.switch).then_some(name.as_str()),
                "{}",
                l.name
            );
        }
    }
}

#[test]
fn a_declared_requirement_is_the_command_lines() {
    // decode needs --model, --hw, --context and one of --batch or
    // --slo-tpot; prefill --model, --hw and --prompt; plan, simulate and
    // fleet --model and --hw.
    for d in DECLARED {
        let err = crate::common::cli_err(&[d.command], 2);
        for f in d.flags().filter(|f| f.required) {
            assert!(
                err.contains(&format!("--{} <", f.name)),
                "{}: {err}",
                f.name
            );
        }
        for n in d.one_of {
            assert!(err.contains(&format!("--{n} <")), "{n}: {err}");
        }
    }
}

/// `--name` (and a value unless a switch), as a command line gives it.
fn given(d: &Declared, name: &str) -> Vec<String> {
    let f = d
        .flag(name)
        .unwrap_or_else(|| panic!("{}: no {name}", d.command));
    let mut out = vec![format!("--{name}")];
    if !f.switch {
        out.push("1".into());
    }
    out
}

#[test]
fn a_declared_conflict_or_need_is_the_command_lines() {
    // `plan --search` refuses `--disaggregate`, which needs both pools'
    // devices; decode's `--speculative` refuses its three parts. Every
    // required input is given, so that clap's answer is about the pair.
    for d in DECLARED {
        let base: Vec<String> = std::iter::once(d.command.to_string())
            .chain(
                d.flags()
                    .filter(|f| f.required)
                    .flat_map(|f| given(d, f.name)),
            )
            .chain(d.one_of.first().into_iter().flat_map(|n| given(d, n)))
            .collect();
        for f in d.flags() {
            for c in f.conflicts {
                let mut args = base.clone();
                args.extend(given(d, f.name));
                args.extend(given(d, c));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let err = crate::common::cli_err(&args, 2);
                assert!(
                    err.contains(&format!("'--{}", f.name))
                        && err.contains(&format!("'--{c}"))
                        && err.contains("cannot be used with"),
                    "{} --{} --{c}: {err}",
                    d.command,
                    f.name
                );
            }
            if !f.requires.is_empty() {
                let mut args = base.clone();
                args.extend(given(d, f.name));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let err = crate::common::cli_err(&args, 2);
                for r in f.requires {
                    assert!(
                        err.contains(&format!("--{r}")),
                        "{} --{} needs --{r}: {err}",
                        d.command,
                        f.name
                    );
                }
            }
        }
    }
}

/// A function's block in the committed stub: its parameters and its
/// docstring's `Args:` lines as (keyword, text).
fn stub(name: &str) -> (Vec<String>, Vec<(String, String)>) {
    let text = include_str!("../python/py_src/roofline/_roofline.pyi");
    let start = text
        .find(&format!("\ndef {name}("))
        .unwrap_or_else(|| panic!("no stub for {name}"));
    let block = &text[start + 1..];
    let block = &block[..block[1..].find("\ndef ").map_or(block.len(), |i| i + 1)];
    let sig = &block[block.find('(').unwrap() + 1..block.find(") ->").unwrap()];
    // Parameters split at the commas outside brackets.
    let mut params = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in sig.char_indices().chain([(sig.len(), ',')]) {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                let p = sig[start..i].trim();
                if p != "*" {
                    params.push(p.split(':').next().unwrap().trim().to_string());
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    let args = block
        .lines()
        .skip_while(|l| l.trim() != "Args:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let (k, v) = l.trim().split_once(": ").unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    (params, args)
}

#[test]
fn the_python_keywords_and_docstrings_are_the_declared_inputs() {
    for d in DECLARED {
        let (params, args) = stub(&d.command.replace([' ', '-'], "_"));
        let mut want: Vec<String> = d.flags().map(|f| f.keyword()).collect();
        want.extend(["achievable".to_string(), "set".to_string()]);
        assert_eq!(params, want, "{}", d.command);
        let documented: Vec<&String> = args.iter().map(|(k, _)| k).collect();
        assert_eq!(documented, want.iter().collect::<Vec<_>>(), "{}", d.command);
        for ((k, text), f) in args.iter().zip(d.flags()) {
            assert_eq!(*text, f.python_help(), "{k}");
        }
    }
}

#[test]
fn the_web_form_fields_are_the_declared_inputs() {
    let js = include_str!("../web/www/commands.js");
    let json = &js[js.find('{').unwrap()..js.rfind(';').unwrap()];
    let page: serde_json::Value = serde_json::from_str(json).unwrap();
    for d in DECLARED {
        let c = &page[d.command];
        assert_eq!(c["summary"], d.summary, "{}", d.command);
        let fields: Vec<Listed> = c["fields"]
            .as_array()
            .unwrap_or_else(|| panic!("the page has no {}", d.command))
            .iter()
            .map(|f| Listed {
                name: f["name"].as_str().unwrap().into(),
                switch: f["switch"].as_bool().unwrap(),
                help: f["help"].as_str().unwrap().into(),
            })
            .collect();
        // The page reads no files: an input whose value is a FILE
        // (`simulate --trace`) is not a field.
        let want: Vec<Listed> = declared(d)
            .into_iter()
            .zip(d.flags())
            .filter(|(_, f)| f.on_page())
            .map(|(l, _)| l)
            .collect();
        assert_eq!(fields, want, "{}", d.command);
    }
}

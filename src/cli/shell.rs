//! `completions SHELL` and `man`: shell completion scripts and a man page,
//! generated from the same argument definitions the parser uses, so they
//! never drift from the commands.

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell;

/// Shells `completions` writes scripts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShellArg {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
    /// Elvish.
    Elvish,
}

/// `completions` flags.
#[derive(Debug, Args)]
#[command(after_help = "Install, for example:
  roofline completions bash > ~/.local/share/bash-completion/completions/roofline
  roofline completions zsh > ~/.zfunc/_roofline        # with fpath+=~/.zfunc
  roofline completions fish > ~/.config/fish/completions/roofline.fish")]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: ShellArg,
}

/// The completion script for a shell.
pub fn completions(a: &CompletionsArgs) -> Vec<u8> {
    let shell = match a.shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
        ShellArg::Powershell => Shell::PowerShell,
        ShellArg::Elvish => Shell::Elvish,
    };
    let mut cmd = visible(offered(super::Cli::command()));
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "roofline", &mut out);
    out
}

/// The shared flags a command refuses (it prints a script, a page or a
/// template, or runs a scenario's own queries): completion leaves them out.
fn refused(path: &str) -> &'static [&'static str] {
    const ALL: &[&str] = &[
        "format",
        "explain",
        "set",
        "sweep",
        "all",
        "achievable",
        "hw_dir",
        "model_dir",
        "chart",
        "y",
    ];
    match path {
        "completions" | "man" => ALL,
        "hw new" | "model new" => &[
            "format",
            "explain",
            "set",
            "sweep",
            "all",
            "achievable",
            "chart",
            "y",
        ],
        "run" => &["set", "sweep", "chart", "y"],
        _ => &[],
    }
}

/// The command tree with what a completion offers for each value: the
/// catalog's hardware and model ids, the precisions, the choices a flag
/// takes; and without the shared flags a command refuses (hidden, so
/// [`visible`] drops them).
fn offered(cmd: clap::Command) -> clap::Command {
    use clap::builder::PossibleValuesParser;
    let catalog = roofline::catalog::Catalog::default();
    let ids = |e: roofline::Result<Vec<roofline::catalog::Entry>>| -> Vec<String> {
        e.map(|v| v.into_iter().map(|e| e.id).collect())
            .unwrap_or_default()
    };
    let hw = ids(catalog.hardware_entries());
    let models = ids(catalog.model_entries());
    let precisions: Vec<String> = roofline::precision::ALL
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    let choices = |path: &str, id: &str| -> Option<Vec<String>> {
        let v = |l: &[&str]| Some(l.iter().map(|s| (*s).to_string()).collect());
        match id {
            "from" if path.starts_with("model") => Some(models.clone()),
            "hw" | "from" => Some(hw.clone()),
            "model" => Some(models.clone()),
            "dtype" | "kv_dtype" | "activations" => Some(precisions.clone()),
            "launch" => v(&["none", "eager", "graph"]),
            "objective" => v(&["latency", "throughput", "goodput"]),
            _ => None,
        }
    };
    fn walk(
        mut cmd: clap::Command,
        path: &str,
        choices: &dyn Fn(&str, &str) -> Option<Vec<String>>,
    ) -> clap::Command {
        let ids: Vec<String> = cmd
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .collect();
        for id in ids {
            let refused = refused(path).contains(&id.as_str());
            let values = choices(path, &id);
            if !refused && values.is_none() {
                continue;
            }
            cmd = cmd.mut_arg(id.as_str(), |a| {
                let a = if refused { a.hide(true) } else { a };
                match values {
                    Some(v) if a.get_action().takes_values() => {
                        a.value_parser(PossibleValuesParser::new(v))
                    }
                    _ => a,
                }
            });
        }
        let subs: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        for name in subs {
            let sub_path = if path.is_empty() {
                name.clone()
            } else {
                format!("{path} {name}")
            };
            cmd = cmd.mut_subcommand(name.as_str(), |s| walk(s, &sub_path, choices));
        }
        cmd
    }
    let mut cmd = cmd;
    cmd.build();
    walk(cmd, "", &choices)
}

/// The command tree as completion scripts should offer it. clap's
/// generators list hidden options too, so a subcommand with hidden ones (a
/// list's refused shared flags) is remade from its visible arguments,
/// after the tree is built so the shared ones are not given to it again.
fn visible(mut cmd: clap::Command) -> clap::Command {
    fn strip(cmd: clap::Command) -> clap::Command {
        let names: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        names.into_iter().fold(cmd, |cmd, n| {
            cmd.mut_subcommand(n, |sub| {
                let sub = strip(sub);
                if !sub.get_arguments().any(clap::Arg::is_hide_set) {
                    return sub;
                }
                let mut out = clap::Command::new(sub.get_name().to_string());
                if let Some(b) = sub.get_bin_name() {
                    out = out.bin_name(b.to_string());
                }
                if let Some(d) = sub.get_display_name() {
                    out = out.display_name(d.to_string());
                }
                if let Some(a) = sub.get_about() {
                    out = out.about(a.clone());
                }
                if let Some(a) = sub.get_long_about() {
                    out = out.long_about(a.clone());
                }
                for a in sub
                    .get_arguments()
                    .filter(|a| !a.is_hide_set() && a.get_id() != "help")
                {
                    out = out.arg(a.clone());
                }
                out
            })
        })
    }
    cmd.build();
    strip(cmd)
}

/// `man` flags.
#[derive(Debug, Args)]
#[command(
    after_help = "Install, for example (man finds ~/.cargo/share/man when ~/.cargo/bin is on PATH):
  mkdir -p ~/.cargo/share/man/man1
  roofline man --dir ~/.cargo/share/man/man1
  man roofline-hw-show"
)]
pub struct ManArgs {
    /// Write one page per command to DIR (roofline.1, roofline-hw-show.1,
    /// ...), creating it if need be, instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

/// `man`: the main page on standard output, or every command's page
/// written to `--dir`.
pub fn man_command(a: &ManArgs) -> roofline::Result<Vec<u8>> {
    let Some(dir) = &a.dir else {
        return man().map_err(|e| roofline::Error::Io {
            path: "the man page".into(),
            source: e,
        });
    };
    let write_err = |path: &std::path::Path, e| roofline::Error::Write {
        path: path.display().to_string(),
        source: e,
    };
    std::fs::create_dir_all(dir).map_err(|e| write_err(dir, e))?;
    let pages = man_pages().map_err(|e| write_err(dir, e))?;
    for (name, page) in &pages {
        let path = dir.join(name);
        super::output::write_atomic(&path, page).map_err(|e| write_err(&path, e))?;
    }
    Ok(format!(
        "wrote {} man pages to {} (roofline.1, one roofline-COMMAND.1 per command); try `man roofline`\n",
        pages.len(),
        dir.display()
    )
    .into_bytes())
}

/// Every command's page, nested ones included, as (file name, roff): each
/// lists its own options (the shared ones too) and subcommands, and a SEE
/// ALSO naming its parent's page.
pub fn man_pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    fn walk(
        cmd: &clap::Command,
        parent: Option<&str>,
        out: &mut Vec<(String, Vec<u8>)>,
    ) -> std::io::Result<()> {
        let man = clap_mangen::Man::new(cmd.clone());
        let mut page = Vec::new();
        man.render(&mut page)?;
        let name = cmd.get_display_name().unwrap_or(cmd.get_name()).to_string();
        if let Some(p) = parent {
            page.extend_from_slice(format!(".SH \"SEE ALSO\"\n\\fB{p}\\fR(1)\n").as_bytes());
        }
        out.push((man.get_filename(), page));
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, Some(&name), out)?;
        }
        Ok(())
    }
    let mut cmd = super::Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    walk(&cmd, None, &mut out)?;
    Ok(out)
}

/// The man page (roff), the top-level page with every command's section.
pub fn man() -> std::io::Result<Vec<u8>> {
    let cmd = super::Cli::command().disable_help_subcommand(true);
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone()).render(&mut out)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("roofline-{}", sub.get_name());
        let sub = sub.clone().name(name);
        let mut page = Vec::new();
        clap_mangen::Man::new(sub).render(&mut page)?;
        out.extend_from_slice(b"\n");
        out.extend(page);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_gets_a_script_naming_the_commands() {
        for shell in [
            ShellArg::Bash,
            ShellArg::Zsh,
            ShellArg::Fish,
            ShellArg::Powershell,
        ] {
            let s = String::from_utf8(completions(&CompletionsArgs { shell })).unwrap();
            assert!(s.contains("matmul") && s.contains("occupancy"), "{shell:?}");
        }
    }

    #[test]
    fn man_pages_are_one_per_command_with_nested_options_and_real_see_also() {
        let pages = man_pages().unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        for n in [
            "roofline.1",
            "roofline-hw.1",
            "roofline-hw-show.1",
            "roofline-fusion-softmax.1",
        ] {
            assert!(names.contains(&n), "{n} in {names:?}");
        }
        assert!(!names.contains(&"roofline-help.1"));
        let page = |n: &str| {
            String::from_utf8(pages.iter().find(|(p, _)| p == n).unwrap().1.clone()).unwrap()
        };
        // A nested command's own options and the shared ones.
        let show = page("roofline-hw-show.1");
        assert!(
            show.contains("\\-\\-dtype") && show.contains("\\-\\-format"),
            "{show}"
        );
        // Every page another page points at exists.
        for (n, text) in &pages {
            let text = String::from_utf8_lossy(text)
                .replace("\\fR", "")
                .replace("\\-", "-");
            for (at, _) in text.match_indices("(1)") {
                let name: String = text[..at]
                    .chars()
                    .rev()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                if name.starts_with("roofline") {
                    assert!(
                        names.contains(&format!("{name}.1").as_str()),
                        "{n} points at {name}"
                    );
                }
            }
        }
        assert!(
            show.contains("SEE ALSO") && show.contains("roofline-hw"),
            "{show}"
        );
    }

    #[test]
    fn the_man_page_documents_every_command() {
        let s = String::from_utf8(man().unwrap()).unwrap();
        assert!(
            s.starts_with(".ie") || s.contains(".TH roofline"),
            "{}",
            &s[..80]
        );
        for c in ["roofline-matmul", "roofline-occupancy", "roofline-run"] {
            assert!(s.contains(c), "{c}");
        }
    }

    /// The options bash completes after `roofline hw <sub>`.
    fn bash_opts(sub: &str) -> String {
        let script = String::from_utf8(completions(&CompletionsArgs {
            shell: ShellArg::Bash,
        }))
        .unwrap();
        let case = format!("roofline__subcmd__hw__subcmd__{sub})");
        let at = script.find(&case).unwrap();
        script[at..]
            .lines()
            .find(|l| l.trim_start().starts_with("opts="))
            .unwrap()
            .to_string()
    }

    /// The lines bash runs after `roofline <path> <prev>`.
    fn bash_case(sub: &str, prev: &str) -> String {
        let script = String::from_utf8(completions(&CompletionsArgs {
            shell: ShellArg::Bash,
        }))
        .unwrap();
        let at = script.find(&format!("{sub})")).unwrap();
        let rest = &script[at..];
        let end = rest[1..]
            .find("\n        roofline__")
            .unwrap_or(rest.len() - 1);
        let section = &rest[..end];
        let case = section
            .find(&format!("{prev})"))
            .unwrap_or_else(|| panic!("{prev} in {section}"));
        section[case..].lines().nth(1).unwrap().to_string()
    }

    #[test]
    fn completions_offer_catalog_ids_precisions_and_choices() {
        let hw = bash_case("roofline__subcmd__decode", "--hw");
        assert!(hw.contains("h100-sxm") && hw.contains("mi355x"), "{hw}");
        let model = bash_case("roofline__subcmd__decode", "--model");
        assert!(
            model.contains("llama-3-8b") && !model.contains("h100-sxm"),
            "{model}"
        );
        let dtype = bash_case("roofline__subcmd__decode", "--dtype");
        assert!(dtype.contains("bf16") && dtype.contains("nvfp4"), "{dtype}");
        let launch = bash_case("roofline__subcmd__decode", "--launch");
        assert!(launch.contains("eager graph"), "{launch}");
        let from = bash_case("roofline__subcmd__model__subcmd__new", "--from");
        assert!(
            from.contains("llama-3-8b") && !from.contains("h100-sxm"),
            "{from}"
        );
    }

    #[test]
    fn commands_that_refuse_the_shared_flags_do_not_offer_them() {
        let script = String::from_utf8(completions(&CompletionsArgs {
            shell: ShellArg::Bash,
        }))
        .unwrap();
        let opts = |case: &str| {
            let at = script.find(&format!("{case})")).unwrap();
            script[at..]
                .lines()
                .find(|l| l.trim_start().starts_with("opts="))
                .unwrap()
                .to_string()
        };
        let c = opts("roofline__subcmd__completions");
        assert!(
            c.contains("bash") && !c.contains("--format") && !c.contains("--sweep"),
            "{c}"
        );
        let run = opts("roofline__subcmd__run");
        assert!(
            run.contains("--format") && !run.contains("--sweep "),
            "{run}"
        );
        let new = opts("roofline__subcmd__hw__subcmd__new");
        assert!(
            new.contains("--from") && new.contains("--hw-dir") && !new.contains("--set"),
            "{new}"
        );
    }

    #[test]
    fn a_list_completes_only_the_flags_it_takes() {
        let list = bash_opts("list");
        for taken in ["--format", "--explain", "--set", "--hw-dir"] {
            assert!(list.contains(taken), "{list}");
        }
        for refused in [
            "--sweep",
            "--all",
            "--achievable",
            "--chart",
            "--y",
            "--model-dir",
        ] {
            assert!(!list.contains(&format!("{refused} ")), "{list}");
        }
        // The other commands keep every shared flag.
        assert!(bash_opts("show").contains("--sweep"));
    }
}

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
    let mut cmd = visible(super::Cli::command());
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "roofline", &mut out);
    out
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

/// The man page (roff), the top-level page with every command's section.
pub fn man() -> std::io::Result<Vec<u8>> {
    let cmd = super::Cli::command();
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

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
  roofline completions zsh > ~/.zfunc/_roofline        (with fpath+=~/.zfunc)
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
    let mut cmd = super::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "roofline", &mut out);
    out
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
}

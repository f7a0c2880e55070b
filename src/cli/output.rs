//! The files the binary writes (a chart's `--out`, a sweep's `--chart`,
//! `calibrate --out`, `man --dir`'s pages): every one is checked before
//! any work is done (its extension, its folder, that it is not a file the
//! command reads), and written whole or not at all: to a new file beside
//! the target, then renamed over it, so a full disk or a killed process
//! leaves the old file as it was. Also where standard output goes
//! ([`stdout`]). File-system code, for the command line only.

use roofline::chart::ChartFormat;
use roofline::error::{Error, Result};
use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};

thread_local! {
    /// Set while `entry::main_captured` runs: what the command prints is
    /// discarded (a fuzz run only judges the exit code and the error).
    pub(crate) static DISCARD: Cell<bool> = const { Cell::new(false) };
}

/// Standard output, or a sink while `entry::main_captured` runs: the
/// one place a command's output goes, which `entry` (the run) and
/// `chart` (a chart to `-`) both write to.
pub fn stdout() -> Box<dyn Write> {
    if DISCARD.get() {
        Box::new(std::io::sink())
    } else {
        Box::new(std::io::stdout().lock())
    }
}

/// What a written file must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A chart: `.svg` or `.png`; `-` is standard output.
    Chart,
    /// A hardware file: `.toml`.
    Hardware,
    /// A folder files are written into (created if need be).
    Folder,
}

/// One file (or folder) a command line writes.
#[derive(Debug, Clone)]
pub struct Target {
    /// The flag that names it (`--out`, `--chart`, `--dir`).
    pub flag: &'static str,
    /// The path as given.
    pub path: PathBuf,
    /// What it must be.
    pub kind: Kind,
}

/// Checks every file a command line writes before it runs: its
/// extension, that its folder exists and takes a new file, that it is not
/// a folder, and that it is none of the files the command line reads (a
/// `--hw` or `--model` file, calibrate's measurements, a `--from` report,
/// a trace), which writing it would destroy.
pub fn check(argv: &[String], targets: &[Target]) -> Result<()> {
    let inputs = inputs(argv);
    for t in targets {
        check_one(t).map_err(roofline::query::as_flags)?;
        if let Some((flag, _)) = inputs.iter().find(|(_, p)| same_file(p, &t.path)) {
            return Err(Error::input(
                t.flag,
                format!(
                    "`{}` is the file {flag} reads; writing it would replace what is being read: give another name",
                    t.path.display()
                ),
            ));
        }
    }
    Ok(())
}

/// [`check`] for a command line before it runs: its parse's targets
/// (`parsed`, from [`super::targets`]), or where it did not parse (a sweep
/// standing for a required flag), its `--chart`.
pub fn preflight(argv: &[String], parsed: Option<Vec<Target>>) -> Result<()> {
    let targets = match parsed {
        Some(t) => t,
        None => chart_flag(argv)
            .filter(|p| p != "-")
            .map(|p| Target {
                flag: "--chart",
                path: PathBuf::from(p),
                kind: Kind::Chart,
            })
            .into_iter()
            .collect(),
    };
    check(argv, &targets)
}

/// The last `--chart` value on a command line.
fn chart_flag(argv: &[String]) -> Option<String> {
    let mut out = None;
    let mut it = argv.iter().skip(1).take_while(|a| *a != "--");
    while let Some(a) = it.next() {
        if a == "--chart" {
            out = it.next().cloned();
        } else if let Some(v) = a.strip_prefix("--chart=") {
            out = Some(v.to_string());
        }
    }
    out
}

/// The extension and the folder of one target.
fn check_one(t: &Target) -> Result<()> {
    let flag = t.flag.trim_start_matches('-');
    match t.kind {
        Kind::Chart => {
            ChartFormat::from_path(&t.path, flag)?;
        }
        Kind::Hardware => {
            hardware_id(&t.path)?;
        }
        Kind::Folder => {
            return match std::fs::metadata(&t.path) {
                Ok(m) if !m.is_dir() => Err(Error::input(
                    t.flag,
                    format!("`{}` is a file, not a folder", t.path.display()),
                )),
                Ok(_) => writable(&t.path).map_err(|e| Error::Write {
                    path: t.path.display().to_string(),
                    source: e,
                }),
                // Created when the command runs.
                Err(_) => Ok(()),
            };
        }
    }
    if t.path.is_dir() {
        return Err(Error::input(
            t.flag,
            format!("`{}` is a folder; give a file name", t.path.display()),
        ));
    }
    let what = match t.kind {
        Kind::Chart => format!("the chart to {}", t.path.display()),
        _ => t.path.display().to_string(),
    };
    let dir = folder(&t.path);
    let err = |source| Error::Write {
        path: what.clone(),
        source,
    };
    match std::fs::metadata(dir) {
        Err(e) => Err(err(e)),
        Ok(m) if !m.is_dir() => Err(err(std::io::Error::other(format!(
            "{} is not a folder",
            dir.display()
        )))),
        Ok(_) => writable(dir).map_err(err),
    }
}

/// The id a hardware file at `p` carries: its stem; the name must end in
/// `.toml`.
pub fn hardware_id(p: &Path) -> Result<String> {
    let s = p
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| Error::input("--out", "give a file name ending in .toml"))?;
    if p.extension().and_then(|e| e.to_str()) != Some("toml") {
        return Err(Error::input(
            "--out",
            format!("`{}`: a hardware file's name ends in .toml", p.display()),
        ));
    }
    Ok(s.to_string())
}

/// The folder a file goes in (`.` for a bare name).
fn folder(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Whether a new file can be made in `dir`: one is made and removed, as
/// the write will make its temporary file there.
fn writable(dir: &Path) -> std::io::Result<()> {
    let (f, tmp) = temporary(dir, "check")?;
    drop(f);
    std::fs::remove_file(tmp)
}

/// A new file in `dir` that no other process or call has: a hidden name
/// with the process id and a counter, created exclusively.
fn temporary(dir: &Path, name: &str) -> std::io::Result<(std::fs::File, PathBuf)> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let p = dir.join(format!(".{name}.{}.{n}.roofline-tmp", std::process::id()));
        match std::fs::File::create_new(&p) {
            Ok(f) => return Ok((f, p)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1_000_000 => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Writes `bytes` to `path` whole or not at all: into a new file beside
/// it (flushed to disk), then renamed over it. An existing file keeps its
/// permissions; on any failure the new file is removed and the old one is
/// left as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // A symbolic link is written through, as a plain write would: the
    // file it names is replaced, beside itself, and the link kept.
    let real;
    let path = match path.symlink_metadata() {
        Ok(m) if m.file_type().is_symlink() => match path.canonicalize() {
            Ok(p) => {
                real = p;
                real.as_path()
            }
            Err(_) => path,
        },
        _ => path,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let (mut f, tmp) = temporary(folder(path), &name)?;
    let written = (|| {
        f.write_all(bytes)?;
        if let Ok(m) = std::fs::metadata(path) {
            f.set_permissions(m.permissions())?;
        }
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Whether two paths name one existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The existing files a command line names, with the flag naming each
/// (`--hw`, `--model`, `--sweep`, or "the command's FILE" for a
/// positional): every value, each item of a comma list and each value of
/// a `name=a,b` sweep that is a file on disk.
fn inputs(argv: &[String]) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut flag: Option<&str> = None;
    for a in argv.iter().skip(1) {
        let (name, value) = match a.strip_prefix("--") {
            Some(rest) => match rest.split_once('=') {
                Some((n, v)) => (Some(n), v),
                None => {
                    flag = Some(rest);
                    continue;
                }
            },
            None => (flag.take(), a.as_str()),
        };
        // What the command writes is no input of it.
        if matches!(name, Some("out" | "chart" | "dir" | "out-dir")) {
            continue;
        }
        let label = name.map_or_else(|| "the command's FILE".to_string(), |n| format!("--{n}"));
        let value = match name {
            Some("sweep") => value.split_once('=').map_or(value, |(_, v)| v),
            _ => value,
        };
        let pieces = std::iter::once(value).chain(value.split(',').filter(|_| value.contains(',')));
        for piece in pieces {
            let p = Path::new(piece.trim());
            if !piece.trim().is_empty() && p.is_file() {
                out.push((label.clone(), p.to_path_buf()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("roofline-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_nothing_beside_it() {
        let d = dir("whole");
        let p = d.join("a.svg");
        std::fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
        std::fs::remove_dir_all(d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through() {
        let d = dir("link");
        std::fs::write(d.join("real.svg"), "old").unwrap();
        std::os::unix::fs::symlink(d.join("real.svg"), d.join("link.svg")).unwrap();
        write_atomic(&d.join("link.svg"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(d.join("real.svg")).unwrap(), "new");
        assert!(
            d.join("link.svg")
                .symlink_metadata()
                .unwrap()
                .file_type()
                .is_symlink()
        );
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let d = dir("failed");
        let p = d.join("missing").join("a.svg");
        assert!(write_atomic(&p, b"new").is_err());
        assert!(!p.exists());
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn the_files_a_command_line_reads_are_found_in_lists_and_sweeps() {
        let d = dir("inputs");
        let hw = d.join("mine.toml");
        std::fs::write(&hw, "").unwrap();
        let h = hw.display().to_string();
        let argv: Vec<String> = [
            "roofline",
            "decode",
            "--hw",
            &format!("h100-sxm,{h}"),
            "--sweep",
            &format!("model={h}"),
            &format!("--from={h}"),
            "--out",
            &h,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let found: Vec<String> = inputs(&argv).into_iter().map(|(f, _)| f).collect();
        assert_eq!(found, ["--hw", "--sweep", "--from"]);
        std::fs::remove_dir_all(d).unwrap();
    }
}

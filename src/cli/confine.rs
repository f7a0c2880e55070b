//! Where a scenario may read and write. A scenario file is data from
//! someone else: every file it writes (a chart's `out`, a sweep's
//! `chart`) resolves inside the output folder, and every file it reads (a
//! hardware or model path, a chart's `from`) inside the scenario's own
//! folder, `--hw-dir`, `--model-dir` or a folder the user allows with
//! `--allow-path`. Paths are checked before the first query runs, so a
//! scenario that would escape writes nothing. File-system code, for the
//! command line only.

use std::path::{Component, Path, PathBuf};

/// The folders a scenario's paths must stay in, resolved (symbolic links
/// followed) once.
pub struct Confine {
    out_dir: PathBuf,
    out_real: PathBuf,
    base: PathBuf,
    reads: Vec<PathBuf>,
}

/// The real path of a folder (`.` for an empty one); the folder as given
/// when it does not exist.
fn real(dir: &Path) -> PathBuf {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

/// The real path of `p`: the deepest part that exists, resolved, with the
/// rest (not yet created) appended. A dangling symbolic link is followed
/// to where it points, since writing through it would create its target.
/// Nothing is created.
fn real_of(p: &Path) -> PathBuf {
    real_within(p, 0)
}

fn real_within(p: &Path, depth: usize) -> PathBuf {
    let mut rest = Vec::new();
    let mut cur = p.to_path_buf();
    loop {
        if let Ok(meta) = cur.symlink_metadata() {
            let resolved = match cur.canonicalize() {
                Ok(c) => Some(c),
                Err(_) if meta.file_type().is_symlink() && depth < 40 => {
                    std::fs::read_link(&cur).ok().map(|t| {
                        let t = match cur.parent() {
                            Some(parent) if t.is_relative() => parent.join(t),
                            _ => t,
                        };
                        real_within(&t, depth + 1)
                    })
                }
                Err(_) => None,
            };
            if let Some(mut out) = resolved {
                for r in rest.iter().rev() {
                    out.push(r);
                }
                return out;
            }
        }
        match (cur.file_name().map(|n| n.to_os_string()), cur.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                cur = if parent.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    parent.to_path_buf()
                };
            }
            _ => return p.to_path_buf(),
        }
    }
}

impl Confine {
    /// The output folder (already created), the scenario's folder, and the
    /// other folders its reads may use.
    pub fn new(out_dir: &Path, base: &Path, allowed: &[&Path]) -> Self {
        let base_real = real(base);
        let mut reads = vec![base_real];
        reads.extend(allowed.iter().map(|d| real(d)));
        Confine {
            out_dir: out_dir.to_path_buf(),
            out_real: real(out_dir),
            base: base.to_path_buf(),
            reads,
        }
    }

    /// Where a file the scenario writes goes: `value` relative to the
    /// output folder, never out of it. `-` (standard output) stays as it is.
    pub fn write(&self, value: &str) -> Result<String, String> {
        if value == "-" {
            return Ok(value.into());
        }
        let p = Path::new(value);
        let outside = "a scenario writes only inside the output folder (--out-dir); give a path relative to it";
        if p.has_root()
            || p.is_absolute()
            || p.components().any(|c| matches!(c, Component::Prefix(_)))
        {
            return Err(format!("`{value}` is an absolute path; {outside}"));
        }
        if p.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(format!(
                "`{value}` climbs out of its folder with `..`; {outside}"
            ));
        }
        let joined = self.out_dir.join(p);
        if !real_of(&joined).starts_with(&self.out_real) {
            return Err(format!(
                "`{value}` leads outside the output folder through a symbolic link; {outside}"
            ));
        }
        Ok(joined.display().to_string())
    }

    /// Where a file the scenario reads is: `value` relative to the
    /// scenario's folder, inside one of the allowed folders.
    pub fn read(&self, value: &str) -> Result<String, String> {
        let p = Path::new(value);
        let joined = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        };
        let r = real_of(&joined);
        if !self.reads.iter().any(|d| r.starts_with(d)) {
            return Err(format!(
                "`{value}` is outside the scenario's folder, --hw-dir and --model-dir; a scenario reads only there, unless its folder is allowed with --allow-path DIR"
            ));
        }
        Ok(joined.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("roofline-confine-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("out")).unwrap();
        std::fs::create_dir_all(d.join("sc")).unwrap();
        d
    }

    #[test]
    fn writes_stay_in_the_output_folder() {
        let d = tmp("w");
        let c = Confine::new(&d.join("out"), &d.join("sc"), &[]);
        assert!(c.write("x.svg").is_ok());
        assert!(c.write("sub/x.svg").is_ok());
        assert!(c.write("-").is_ok());
        assert!(c.write("../x.svg").unwrap_err().contains("`..`"));
        assert!(c.write("a/../../x.svg").unwrap_err().contains("`..`"));
        assert!(c.write("/tmp/x.svg").unwrap_err().contains("absolute"));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&d, d.join("out/link")).unwrap();
            assert!(c.write("link/x.svg").unwrap_err().contains("symbolic link"));
            std::os::unix::fs::symlink(d.join("sc/f.svg"), d.join("out/f.svg")).unwrap();
            assert!(c.write("f.svg").unwrap_err().contains("symbolic link"));
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn reads_stay_in_allowed_folders() {
        let d = tmp("r");
        std::fs::write(d.join("sc/hw.toml"), "").unwrap();
        std::fs::write(d.join("secret.toml"), "").unwrap();
        let c = Confine::new(&d.join("out"), &d.join("sc"), &[]);
        assert!(c.read("hw.toml").is_ok());
        assert!(
            c.read("../secret.toml")
                .unwrap_err()
                .contains("--allow-path")
        );
        let abs = d.join("secret.toml").display().to_string();
        assert!(c.read(&abs).is_err());
        let allowed = Confine::new(&d.join("out"), &d.join("sc"), &[d.as_path()]);
        assert!(allowed.read("../secret.toml").is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }
}

//! The published crate carries every file the build and the tests read:
//! each `include_str!`/`include_bytes!` target and each `validation/`
//! measurement a test opens lies under one of `Cargo.toml`'s `include`
//! entries, so the unpacked package builds and tests as a clone does.

use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `Cargo.toml`'s `package.include`, as paths relative to the root.
fn included() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    manifest["package"]["include"]
        .as_array()
        .expect("Cargo.toml lists what the package includes")
        .iter()
        .map(|v| v.as_str().unwrap().trim_start_matches('/').to_string())
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `a/b/../c` as `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every file a source or test file embeds or opens by a literal path,
/// relative to the crate root.
fn read_by_the_code() -> Vec<(PathBuf, PathBuf)> {
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        rust_files(&root().join(dir), &mut files);
    }
    files.push(root().join("build.rs"));
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for macro_name in ["include_str!(\"", "include_bytes!(\""] {
            for (at, _) in text.match_indices(macro_name) {
                let rest = &text[at + macro_name.len()..];
                let target = &rest[..rest.find('"').unwrap()];
                let resolved = normalise(&file.parent().unwrap().join(target));
                let relative = resolved.strip_prefix(root()).unwrap().to_path_buf();
                found.push((file.clone(), relative));
            }
        }
        // Measurements opened at run time, by a path under the manifest
        // dir (the folder itself where the name is formatted in).
        for (at, _) in text.match_indices("/validation/") {
            let rest = &text[at + 1..];
            let end = rest.find(['"', '{']).unwrap_or(rest.len());
            found.push((file.clone(), PathBuf::from(&rest[..end])));
        }
    }
    found
}

#[test]
fn the_package_carries_every_file_the_code_reads() {
    let include = included();
    let found = read_by_the_code();
    // The font, the golden cases and the measurements at least.
    assert!(found.iter().any(|(_, p)| p.starts_with("assets")));
    assert!(found.iter().any(|(_, p)| p.starts_with("tests/data")));
    assert!(found.iter().any(|(_, p)| p.starts_with("validation")));
    for (file, path) in found {
        assert!(
            include.iter().any(|i| path.starts_with(i)),
            "{} reads {}, which Cargo.toml's `include` leaves out of the package",
            file.display(),
            path.display()
        );
        assert!(
            root().join(&path).exists(),
            "{} reads {}, which does not exist",
            file.display(),
            path.display()
        );
    }
}

/// Every measurement a source or test file reads by a literal path, under
/// `validation/results/`, the measurement paths the hardware and engine
/// files cite in their sources, and those the docs name.
fn measurements_named_in_code() -> Vec<(PathBuf, String)> {
    let mut files = vec![root().join("README.md"), root().join("CHANGELOG.md")];
    for dir in ["src", "tests", "benches", "hardware", "engines", "docs"] {
        let mut found = Vec::new();
        collect(&root().join(dir), &mut found);
        files.extend(found);
    }
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (at, _) in text.match_indices("validation/results/") {
            let rest = &text[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || "-_./".contains(c)))
                .unwrap_or(rest.len());
            let path = rest[..end].trim_end_matches('.');
            // A folder the name is formatted into, a pattern of names, or
            // the manifest itself.
            if path.ends_with('/')
                || rest[end..].starts_with(['{', '*'])
                || path.ends_with("MANIFEST.toml")
            {
                continue;
            }
            out.push((file.clone(), path.to_string()));
        }
    }
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| ["rs", "toml", "snap", "md"].contains(&e.to_str().unwrap_or("")))
        {
            out.push(path);
        }
    }
}

#[test]
fn every_measurement_the_code_reads_is_in_the_manifest() {
    let text = std::fs::read_to_string(root().join("validation/results/MANIFEST.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    let named: Vec<String> = manifest["file"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("validation/results/{}", f["path"].as_str().unwrap()))
        .collect();
    // Each file the manifest names is there.
    for path in &named {
        assert!(
            root().join(path).exists(),
            "MANIFEST.toml names {path}, which does not exist"
        );
    }
    let found = measurements_named_in_code();
    assert!(
        found.len() > 20,
        "the scan finds the measurements: {}",
        found.len()
    );
    for (file, path) in found {
        assert!(
            named.contains(&path),
            "{} reads {path}, which validation/results/MANIFEST.toml does not name",
            file.display()
        );
    }
}

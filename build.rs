//! Embeds the built-in catalog: every `hardware/*.toml`, `models/*.toml`
//! and `scenarios/*.toml` becomes an `(id, text)` pair in the binary, so
//! adding a data file needs no code change.

use std::fmt::Write;
use std::path::Path;

fn table(dir: &str) -> String {
    println!("cargo:rerun-if-changed={dir}");
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let mut files: Vec<_> = std::fs::read_dir(Path::new(&root).join(dir))
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    let mut out = String::from("&[\n");
    for p in files {
        println!("cargo:rerun-if-changed={}", p.display());
        let id = p
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 file name");
        writeln!(
            out,
            "    ({id:?}, include_str!({:?})),",
            p.display().to_string()
        )
        .expect("write to string");
    }
    out.push(']');
    out
}

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let code = format!(
        "/// Built-in hardware files: (id, TOML text).\npub static HARDWARE: &[(&str, &str)] = {};\n/// Built-in model files: (id, TOML text).\npub static MODELS: &[(&str, &str)] = {};\n/// Built-in scenarios: (name, TOML text).\npub static SCENARIOS: &[(&str, &str)] = {};\n",
        table("hardware"),
        table("models"),
        table("scenarios")
    );
    std::fs::write(Path::new(&out).join("builtin.rs"), code).expect("write builtin.rs");
}

//! Embeds the built-in catalog: every `hardware/*.toml`, `models/*.toml`,
//! `scenarios/*.toml` and `engines/*.toml` becomes an `(id, text)` pair in the binary, so
//! adding a data file needs no code change.
//!
//! A hardware or model file also gets a JSON copy made here, read at run
//! time in place of the TOML: a query loads its built-in files about five
//! times faster that way (`docs/validation.md`, "Speed"). The copy is made
//! only where the TOML path would accept the file as it stands (it parses,
//! each `[sources]` key names a field, every number survives JSON); any
//! other file has none, and loading it parses the TOML, which names the
//! error as before.

use std::fmt::Write;
use std::path::Path;

/// Which checks a file's `[sources]` keys get: hardware keys may index
/// any array (`interconnect.0.bandwidth`), as the hardware loader's check
/// does; a model key that reaches an array gets no JSON copy, and the
/// model loader's own check decides.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Hardware,
    Model,
    Scenario,
    Engine,
}

fn table(dir: &str, kind: Kind) -> String {
    println!("cargo:rerun-if-changed={dir}");
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
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
        let text = format!("include_str!({:?})", p.display().to_string());
        if kind == Kind::Engine {
            writeln!(out, "    ({id:?}, {text}, None),").expect("write to string");
            continue;
        }
        if kind == Kind::Scenario {
            writeln!(out, "    ({id:?}, {text}),").expect("write to string");
            continue;
        }
        // The web module has a size budget (web/build.sh) and reads the
        // TOML: no copies for it.
        let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
        let json = std::fs::read_to_string(&p)
            .ok()
            .filter(|_| !wasm)
            .and_then(|t| as_json(&t, kind))
            .map(|json| {
                let path = Path::new(&out_dir).join(format!("{dir}-{id}.json"));
                std::fs::write(&path, json).expect("write a JSON copy");
                format!("Some(include_str!({:?}))", path.display().to_string())
            })
            .unwrap_or_else(|| "None".into());
        writeln!(out, "    ({id:?}, {text}, {json}),").expect("write to string");
    }
    out.push(']');
    out
}

/// The file as JSON, where the TOML loader would accept what JSON carries.
fn as_json(text: &str, kind: Kind) -> Option<String> {
    let doc: toml::Table = toml::from_str(text).ok()?;
    if !faithful(&toml::Value::Table(doc.clone())) {
        return None;
    }
    if let Some(sources) = doc.get("sources") {
        let toml::Value::Table(sources) = sources else {
            return None;
        };
        if !sources.keys().all(|k| has_path(&doc, k, kind)) {
            return None;
        }
    }
    serde_json::to_string(&doc).ok()
}

/// Whether JSON carries every value as the TOML has it: no dates, no
/// infinite or NaN floats (JSON has neither).
fn faithful(v: &toml::Value) -> bool {
    match v {
        toml::Value::Float(f) => f.is_finite(),
        toml::Value::Datetime(_) => false,
        toml::Value::Array(a) => a.iter().all(faithful),
        toml::Value::Table(t) => t.values().all(faithful),
        _ => true,
    }
}

/// Whether a dotted `[sources]` key names a value of the file, step for
/// step as the loaders check it (`spec::has_path`), except that a model
/// key reaching an array is left to the model loader.
fn has_path(doc: &toml::Table, path: &str, kind: Kind) -> bool {
    let mut table = doc;
    let mut parts = path.split('.');
    let mut next = parts.next();
    while let Some(key) = next {
        let Some(mut value) = table.get(key) else {
            return false;
        };
        next = parts.next();
        let Some(part) = next else {
            return true;
        };
        if let toml::Value::Array(items) = value {
            let item = part.parse::<usize>().ok().and_then(|i| items.get(i));
            let (Kind::Hardware, Some(item)) = (kind, item) else {
                return false;
            };
            next = parts.next();
            value = item;
        }
        let toml::Value::Table(t) = value else {
            return false;
        };
        table = t;
    }
    true
}

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let code = format!(
        "/// Built-in hardware files: (id, TOML text, JSON copy).\npub static HARDWARE: &[(&str, &str, Option<&str>)] = {};\n/// Built-in model files: (id, TOML text, JSON copy).\npub static MODELS: &[(&str, &str, Option<&str>)] = {};\n/// Built-in scenarios: (name, TOML text).\npub static SCENARIOS: &[(&str, &str)] = {};\n/// Built-in engine files: (id, TOML text, no JSON copy).\npub static ENGINES: &[(&str, &str, Option<&str>)] = {};\n",
        table("hardware", Kind::Hardware),
        table("models", Kind::Model),
        table("scenarios", Kind::Scenario),
        table("engines", Kind::Engine)
    );
    std::fs::write(Path::new(&out).join("builtin.rs"), code).expect("write builtin.rs");
}

//! Hugging Face `config.json` import: maps a model family's field names onto
//! the model file's schema and emits TOML, so imported configs go through the
//! same validation as catalog files.

use crate::error::{Error, Result};

/// Converts a `config.json` to model-file TOML.
pub fn to_toml(_src: &str, name: &str) -> Result<String> {
    Err(Error::Unsupported(format!(
        "{name}: importing Hugging Face config.json files is not available yet; write a model .toml (docs/data-schemas.md)"
    )))
}

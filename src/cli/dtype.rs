//! `dtype`: what each number format is made of.

use super::query::Query;
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `dtype` arguments.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline dtype                  # every precision and element format
  roofline dtype e4m3             # largest normal 448
  roofline dtype nvfp4            # 4.5 bits per element: E2M1 + an E4M3 scale per 16
  roofline dtype mxfp4 --format json
  roofline dtype tf32 --explain

Names: the --dtype precisions (fp64, fp32, tf32, bf16, fp16, fp8, int8,
mxfp8, fp6, mxfp6, fp4, mxfp4, nvfp4, int4) and the element formats
(e4m3, e5m2, e2m3, e3m2, e2m1, e8m0). Bits per element include the block
scales; ranges are computed from the field widths.")]
pub struct DtypeArgs {
    /// The precision or element format (none: list them all).
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
}

impl Query for DtypeArgs {
    fn command(&self) -> &'static str {
        "dtype"
    }

    fn fields(&self) -> Result<Fields> {
        let mut f = Fields::new();
        if let Some(n) = &self.name {
            f.insert("name".into(), n.clone().into());
        }
        Ok(f)
    }
}

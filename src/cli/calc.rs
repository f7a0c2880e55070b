//! `calc`: a units-aware calculator over the catalog's fields.

use super::query::Query;
use clap::Args;
use roofline::error::Result;
use roofline::inputs::Fields;
use serde::Serialize;

/// `calc` arguments.
#[derive(Debug, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(after_help = "Examples:
  roofline calc 'h100-sxm.compute.dense.bf16 / a100-sxm-80gb.compute.dense.bf16'   # 3.17x (317%)
  roofline calc 'mi355x.memory.hbm-capacity / 8'                                   # HBM per stack: 36 GB
  roofline calc '225 TFLOP/s / a100-sxm-80gb.compute.dense.bf16'                   # a measured rate's share: 72.12%
  roofline calc '80 GB / 3.35 TB/s'                                                # 23.88 ms
  roofline calc 'h100-sxm.compute.dense.bf16 / h100-sxm.memory.hbm-bandwidth -> FLOP/B'
  roofline calc 'ceil(llama-3-8b.layers / 8)'
  roofline calc 'h100-sxm.memory.levels.shared-memory.capacity * h100-sxm.execution.sms -> MiB'

A field is ID.path: a hardware or model id and the kebab-case path of the
file, as --set names it (a list of tables by index or by its name). Numbers
take units (B, KB, GB, KiB, bit, FLOP, TFLOP, TOPS, s, ms, us, ns, Hz, GHz,
J, W, cycles, %, x), joined by / after a number (3.35 TB/s). Operators
+ - * / ^ and parentheses; functions ceil, floor, round, min, max, abs,
sqrt, log2; `-> UNIT` converts the answer. A minus between two fields
needs spaces around it, since ids hold dashes. Cycles and percentages are
plain numbers. Adding unlike quantities, an unknown field or a unit typo
exits 65 naming it; --format json gives results.value in base units.")]
pub struct CalcArgs {
    /// The expression (quote it for the shell).
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expr: String,
}

impl Query for CalcArgs {
    fn command(&self) -> &'static str {
        "calc"
    }

    fn fields(&self) -> Result<Fields> {
        let mut f = Fields::new();
        f.insert("expr".into(), self.expr.clone().into());
        Ok(f)
    }
}

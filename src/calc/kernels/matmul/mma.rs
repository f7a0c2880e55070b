//! Tensor-core instruction shapes and the row utilisation a small M leaves
//! them (formulas.md, "Tensor-core row utilisation"; 004 "Tensor cores").

use super::*;

/// A tensor-core instruction shape, `mMnNkK` (N may be the letter `N` for
/// wgmma's variable width).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MmaShape {
    /// Rows of A (tokens in a linear layer).
    pub m: u64,
    /// Columns of B, if fixed.
    pub n: Option<u64>,
    /// The contraction depth.
    pub k: u64,
}

impl MmaShape {
    /// Parses `m16n8k16`, `m64nNk16`, `m64n256k16`, or the aliases `mma`
    /// (m16n8k16) and `wgmma` (m64nNk16). An error names the field `mma`.
    pub fn parse(text: &str) -> Result<Self> {
        let t = text.trim().to_ascii_lowercase();
        let t = match t.as_str() {
            "mma" => "m16n8k16".to_string(),
            "wgmma" | "hgmma" => "m64nnk16".to_string(),
            _ => t,
        };
        let bad = || {
            Error::field(
                "mma",
                format!(
                    "`{text}` is not an MMA shape; expected mMnNkK such as m16n8k16, m64nNk16 or m64n256k16 (or mma, wgmma)"
                ),
            )
        };
        let rest = t.strip_prefix('m').ok_or_else(bad)?;
        let (m, rest) = rest.split_once('n').ok_or_else(bad)?;
        let (n, k) = rest.split_once('k').ok_or_else(bad)?;
        let m: u64 = m.parse().map_err(|_| bad())?;
        let k: u64 = k.parse().map_err(|_| bad())?;
        let n = if n == "n" || n.is_empty() {
            None
        } else {
            Some(n.parse::<u64>().map_err(|_| bad())?)
        };
        if m == 0 || k == 0 || n == Some(0) {
            return Err(bad());
        }
        Ok(MmaShape { m, n, k })
    }

    /// The shape as written, `m64nNk16` when N is variable.
    pub fn name(&self) -> String {
        match self.n {
            Some(n) => format!("m{}n{}k{}", self.m, n, self.k),
            None => format!("m{}nNk{}", self.m, self.k),
        }
    }

    /// Threads that share the instruction's accumulator: a warp group of
    /// 128 for Hopper's M = 64 wgmma, one warp of 32 otherwise.
    pub fn threads(&self) -> u64 {
        if self.m >= 64 { 128 } else { 32 }
    }
}

/// Row utilisation of an MMA whose M is `mma_m` when the GEMM has `m` rows:
/// m / (ceil(m/mma_m)·mma_m), and the padded rows ("Tensor-core row
/// utilisation"). Counted in u128, so no 64-bit M overflows.
pub fn row_utilisation(m: u64, mma_m: u64) -> (f64, u128) {
    let (m, mm) = (u128::from(m), u128::from(mma_m.max(1)));
    let padded_total = m.div_ceil(mm) * mm;
    (m as f64 / padded_total as f64, padded_total - m)
}

//! The largest normal value of a float format, behind the fp8 ranges the
//! notes quote (formulas.md, "Serving: fp8 ranges").

/// The largest normal value of a float format with `e` exponent and `m`
/// mantissa bits: IEEE-like formats (E5M2) keep the top exponent for
/// infinities and NaN; E4M3 (the OCP "FN" variant) keeps only the all-ones
/// mantissa of the top exponent for NaN (000 §2.3; formulas.md, "Serving:
/// fp8 ranges").
pub fn float_max_normal(e: u32, m: u32, ieee: bool) -> f64 {
    let bias = (1i32 << (e - 1)) - 1;
    let all_ones = (1i32 << e) - 1;
    let (exp, mant) = if ieee {
        (all_ones - 1, (1u64 << m) - 1)
    } else {
        (all_ones, (1u64 << m) - 2)
    };
    (1.0 + mant as f64 / (1u64 << m) as f64) * 2f64.powi(exp - bias)
}

#[cfg(test)]
mod tests {
    use super::float_max_normal;

    #[test]
    fn fp8_ranges() {
        assert_eq!(float_max_normal(4, 3, false), 448.0);
        assert_eq!(float_max_normal(5, 2, true), 57344.0);
        assert_eq!(float_max_normal(5, 10, true), 65504.0);
    }
}

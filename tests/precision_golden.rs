//! Golden cases of the `quantization` topic that the precision registry
//! answers, through the same path `model show --dtype` uses: bytes =
//! params x bits / 8, with the parameter counts the seed states (read from
//! the golden file's inputs) and the registry's bits per element.
//!
//! GPTQ's and AWQ's 4-bit figures count 4 bits a weight; the registry's
//! `int4` counts its group scales too (4.125 bits), a convention listed in
//! docs/errata.md. KIVI's 2-bit cache is asserted in tests/kv.rs.

use crate::common;
use common::{check, check_flagged, check_si, golden};
use roofline::precision::lookup;

/// The seed's parameter (or element) count of case `id` in `dtype`, in
/// bytes.
fn bytes(id: &str, count_key: &str, dtype: &str) -> f64 {
    golden(id).input(count_key) * lookup(dtype).unwrap().bytes()
}

#[test]
fn book_4_3_gptq_175b_fp16() {
    check_si(
        "book-4.3-gptq-175b-fp16",
        bytes("book-4.3-gptq-175b-fp16", "params", "fp16"),
    );
}

#[test]
fn book_4_3_four_bit_weights_carry_group_scales() {
    // 175e9 x 4.125 / 8 = 90,234,375,000 B; 70e9 x 4.125 / 8 = 36,093,750,000 B.
    check_flagged(
        "book-4.3-gptq-175b-4bit",
        bytes("book-4.3-gptq-175b-4bit", "params", "int4"),
        90_234_375_000.0,
    );
    check_flagged(
        "book-4.3-awq-70b-4bit",
        bytes("book-4.3-awq-70b-4bit", "params", "int4"),
        36_093_750_000.0,
    );
    // Without scales (plain fp4 storage) the registry gives the book's
    // figures.
    check_si(
        "book-4.3-gptq-175b-4bit",
        bytes("book-4.3-gptq-175b-4bit", "params", "fp4"),
    );
    check_si(
        "book-4.3-awq-70b-4bit",
        bytes("book-4.3-awq-70b-4bit", "params", "fp4"),
    );
}

#[test]
fn book_6_1_block_scaled_bits() {
    check("book-6.1-mxfp4-bits", lookup("mxfp4").unwrap().bits);
    check("book-6.1-nvfp4-bits", lookup("nvfp4").unwrap().bits);
}

#[test]
fn book_6_1_float4_align_bytes() {
    check_si(
        "book-6.1-float4-align-bytes",
        bytes("book-6.1-float4-align-bytes", "elements", "fp4"),
    );
}

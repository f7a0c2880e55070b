//! Golden cases of the `quantization` topic that the precision registry
//! computes (../shared/golden/seed_cases.toml), through the same path
//! `model show --dtype` uses: bytes = params x bits / 8.
//!
//! Not computed by any command, so not tested here: book-2.3-e4m3-max and
//! book-2.3-e5m2-max (floating-point format limits), book-4.2-kivi-bits
//! (a 2-bit KV-cache method the tool does not model), book-glossary-tf32-bits
//! (TF32's 19-bit width: the registry stores TF32 as its 32-bit container).

use roofline::precision::lookup;

fn bytes(params: f64, dtype: &str) -> f64 {
    params * lookup(dtype).unwrap().bytes()
}

// book-4.3-gptq-175b-fp16: 175e9 x 16 / 8 = 350 GB.
#[test]
fn book_4_3_gptq_175b_fp16() {
    assert_eq!(bytes(175e9, "fp16"), 350e9);
}

// book-4.3-gptq-175b-4bit: 175e9 x 4 / 8 = 87.5 GB. The book's figure has no
// scales, which is plain fp4 storage; int4 with group scales adds 3.1%.
#[test]
fn book_4_3_gptq_175b_4bit() {
    assert_eq!(bytes(175e9, "fp4"), 87.5e9);
    let grouped = bytes(175e9, "int4");
    assert!((grouped / 87.5e9 - 1.03125).abs() < 1e-12);
}

// book-4.3-awq-70b-4bit: 70e9 x 4 / 8 = 35 GB.
#[test]
fn book_4_3_awq_70b_4bit() {
    assert_eq!(bytes(70e9, "fp4"), 35e9);
}

// book-6.1-mxfp4-bits (4.25), book-6.1-nvfp4-bits (4.5), with the block
// sizes of book-6.1-mx-block (32) and book-6.1-nvfp4-block (16):
// bits = data + scale / block with an 8-bit scale.
#[test]
fn book_6_1_block_scaled_bits() {
    assert_eq!(lookup("mxfp4").unwrap().bits, 4.0 + 8.0 / 32.0);
    assert_eq!(lookup("mxfp4").unwrap().bits, 4.25);
    assert_eq!(lookup("nvfp4").unwrap().bits, 4.0 + 8.0 / 16.0);
    assert_eq!(lookup("nvfp4").unwrap().bits, 4.5);
}

// book-6.1-float4-align-bytes: 128 fp4 elements take 64 bytes.
#[test]
fn book_6_1_float4_align_bytes() {
    assert_eq!(bytes(128.0, "fp4"), 64.0);
}

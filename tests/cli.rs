//! CLI behaviour and error messages with their exit codes: one trycmd case
//! per file in `tests/cmd/` (`*.toml`, or `*.trycmd` transcripts).

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .case("tests/cmd/*.toml")
        .case("tests/cmd/*.trycmd");
}

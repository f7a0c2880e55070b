//! The calculator for a web page. The library, built for
//! `wasm32-unknown-unknown` without its command-line parts, behind three
//! entry points that each take a JSON request and return a JSON answer
//! ([`page`]), exported with the C ABI ([`abi`]) so the page needs no
//! bindings generator: a few lines of JavaScript copy the bytes in and out.
//!
//! Errors come back as data (`{"ok": false, "error": ...}`) with the
//! command line's own message, never as a trap: the page shows them and
//! keeps the rest.

pub mod abi;
pub mod page;

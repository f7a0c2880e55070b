//! The exported functions, C ABI, no imports. The page allocates a buffer
//! in the module's memory (`rf_alloc`), writes the request's UTF-8 JSON
//! into it and calls `rf_call(op, ptr, len)`, which frees the request,
//! keeps the answer's UTF-8 JSON in a buffer the module owns and returns
//! its length; `rf_out()` gives where it starts. The answer stays valid
//! until the next call.

use std::cell::RefCell;

thread_local! {
    /// The last answer's bytes.
    static OUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The entry points, by number.
const CATALOG: u32 = 0;
const QUERY: u32 = 1;
const CHART: u32 = 2;

/// A buffer of `len` bytes for a request; `rf_call` frees it.
#[unsafe(no_mangle)]
pub extern "C" fn rf_alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len.max(1));
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Runs entry point `op` on the request at `ptr..ptr+len` (a buffer from
/// [`rf_alloc`], freed here) and returns the answer's length.
///
/// # Safety
/// `ptr` must come from `rf_alloc(len)` with `len` bytes written, and is
/// not used again by the caller.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rf_call(op: u32, ptr: *mut u8, len: usize) -> usize {
    // SAFETY: the caller passes a buffer rf_alloc made with capacity
    // len.max(1), of which len bytes are written.
    let bytes = unsafe { Vec::from_raw_parts(ptr, len, len.max(1)) };
    let answer = match std::str::from_utf8(&bytes) {
        Err(e) => crate::page::failure(&format!("error: the request is not UTF-8 ({e})"), 2),
        Ok(text) => match op {
            CATALOG => crate::page::catalog(),
            QUERY => crate::page::query(text),
            CHART => crate::page::chart(text),
            _ => crate::page::failure(&format!("error: no entry point {op}"), 2),
        },
    };
    OUT.with(|o| {
        let mut o = o.borrow_mut();
        *o = answer.into_bytes();
        o.len()
    })
}

/// Where the last answer starts.
#[unsafe(no_mangle)]
pub extern "C" fn rf_out() -> *const u8 {
    OUT.with(|o| o.borrow().as_ptr())
}

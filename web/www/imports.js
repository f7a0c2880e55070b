// What roofline.wasm imports, and why a page of plain JavaScript can give
// it. The module is built without a bindings generator; its only imports
// come from plotters, which on wasm32 measures legend text by laying out a
// <span> in the page (web-sys, through wasm-bindgen's raw ABI: every
// JavaScript object is an i32 handle, strings are pointer and length).
// The command line's plotters measures the same text with its built-in
// estimate instead (0.7 em per byte, 1.24 em tall), and the chart code
// pads its legends for that estimate; so here the "span" answers with that
// same estimate, and the page draws the SVG the command line draws, byte
// for byte. Any other import is reported by name if it is ever called.

// plotters' estimate (style/font/naive.rs) for text of `bytes` UTF-8
// bytes at font size `size` px: width and height of its layout box.
function estimate(size, bytes) {
  const em = size / 1.24 / 1.24;
  const width = Math.round(em * 0.7 * bytes);
  const height = Math.round(em * 0.24) + Math.round(em);
  return [width, height];
}

// The import object for `module`; `memory()` gives the instance's memory
// once it exists.
export function imports(module, memory) {
  const spans = new Map(); // handle -> { bytes, size }
  let next = 1000;
  const span = (h) => {
    if (!spans.has(h)) spans.set(h, { bytes: 0, size: 16 });
    return spans.get(h);
  };
  const text = (ptr, len) => new TextDecoder().decode(new Uint8Array(memory().buffer, ptr, len));
  // By the name wasm-bindgen gives each import, less its hash suffix.
  const known = {
    static_accessor_GLOBAL_THIS: () => 1,
    static_accessor_SELF: () => 1,
    static_accessor_GLOBAL: () => 1,
    static_accessor_WINDOW: () => 1,
    __wbindgen_is_undefined: () => 0,
    instanceof_Window: () => 1,
    instanceof_HtmlElement: () => 1,
    document: () => 2,
    body: () => 3,
    createElement: () => next++,
    set_textContent: (h, ptr, len) => {
      span(h).bytes = ptr ? len : 0;
    },
    setAttribute: (h, nptr, nlen, vptr, vlen) => {
      const m = /font-size:\s*([0-9.]+)px/.exec(text(vptr, vlen));
      if (m) span(h).size = Number(m[1]);
    },
    append: () => {},
    offsetWidth: (h) => estimate(span(h).size, span(h).bytes)[0],
    offsetHeight: (h) => estimate(span(h).size, span(h).bytes)[1],
    remove: (h) => {
      spans.delete(h);
    },
    // Bookkeeping of wasm-bindgen's table of JavaScript objects, which
    // the handles above stand in for.
    __wbindgen_externref_statics_end: () => 0,
    __wbindgen_externref_table_grow: () => 0,
    __wbindgen_externref_table_set_null: () => {},
    __wbindgen_object_drop_ref: () => {},
    __wbindgen_object_clone_ref: (h) => h,
    __wbindgen_throw: (ptr, len) => {
      throw new Error(text(ptr, len));
    },
  };
  const out = {};
  for (const im of WebAssembly.Module.imports(module)) {
    if (im.kind !== "function") continue;
    const bare = im.name.replace(/^__wbg_/, "").replace(/_[0-9a-f]{16}$/, "");
    const f =
      known[bare] ??
      known[im.name] ??
      (() => {
        throw new Error(`roofline.wasm called ${im.module}.${im.name}, which this page does not provide`);
      });
    (out[im.module] ??= {})[im.name] = f;
  }
  return out;
}

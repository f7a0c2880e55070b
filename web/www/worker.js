// The calculator's thread: the page compiles roofline.wasm once and hands
// the module here, so a long search (fleet, a big simulate) never freezes
// the page. The page cancels a search by ending this worker and starting a
// fresh one from the same compiled module (instantiating takes
// milliseconds); a query is answered first and its chart after, so the
// table shows while the chart is drawn.
//
// Messages in:  {type: "init", module}
//               {type: "render", id, request, chart}   (chart: draw it too)
//               {type: "call", id, op, request}        (one entry point)
// Messages out: {type: "ready", instantiate_ms} or {type: "failed", error}
//               {type: "answer" | "chart" | "done" | "result", id, answer, ms}
//
// A classic script with no imports of its own: the page fetches it once
// and starts every worker from that text (a blob: URL), so a worker
// started after the network is gone still starts.

// --- what roofline.wasm imports ---------------------------------------------

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
function imports(module, memory) {
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

// --- the worker ----------------------------------------------------------------

const enc = new TextEncoder();
const dec = new TextDecoder();
const OP = { catalog: 0, query: 1, chart: 2 };
let wasm = null;
let compiled = null;
// Settles once the module is instantiated; every other message waits on
// it (even one that came before the module), in the order they came.
let markReady;
const ready = new Promise((ok) => {
  markReady = ok;
});

// Calls an entry point with a JSON request; returns its JSON answer.
function call(op, request) {
  const bytes = enc.encode(JSON.stringify(request));
  const ptr = wasm.rf_alloc(bytes.length);
  new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);
  const len = wasm.rf_call(op, ptr, bytes.length);
  const out = new Uint8Array(wasm.memory.buffer, wasm.rf_out(), len);
  return JSON.parse(dec.decode(out));
}

// Runs `f`, timing it; a trap (which the module never means to raise)
// comes back as an error answer rather than a dead worker.
function timed(f) {
  const t0 = performance.now();
  let answer;
  try {
    answer = f();
  } catch (e) {
    answer = { ok: false, error: `error: the calculator stopped: ${e}`, exit_code: 70 };
    // A trapped instance's state is not to be trusted: start a new one.
    let instance = null;
    instance = new WebAssembly.Instance(compiled, imports(compiled, () => instance.exports.memory));
    wasm = instance.exports;
  }
  return [answer, performance.now() - t0];
}

async function init(module) {
  const t0 = performance.now();
  compiled = module;
  let instance = null;
  try {
    instance = await WebAssembly.instantiate(module, imports(module, () => instance.exports.memory));
  } catch (e) {
    self.postMessage({ type: "failed", error: String(e) });
    throw e;
  }
  wasm = instance.exports;
  markReady();
  self.postMessage({ type: "ready", instantiate_ms: performance.now() - t0 });
}

self.onmessage = async ({ data: m }) => {
  if (m.type === "init") {
    init(m.module);
    return;
  }
  await ready;
  if (m.type === "render") {
    const [answer, ms] = timed(() => call(OP.query, m.request));
    self.postMessage({ type: "answer", id: m.id, answer, ms });
    if (m.chart) {
      const [chart, cms] = timed(() => call(OP.chart, m.request));
      self.postMessage({ type: "chart", id: m.id, answer: chart, ms: cms });
    }
    self.postMessage({ type: "done", id: m.id });
  } else if (m.type === "call") {
    const [answer, ms] = timed(() => call(OP[m.op], m.request));
    self.postMessage({ type: "result", id: m.id, answer, ms });
  }
};

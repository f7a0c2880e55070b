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
import { imports } from "./imports.js";

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

// The page: a form whose state is the URL, the calculator in WebAssembly
// (roofline.wasm, three entry points that take and return JSON), and the
// answer it returns drawn as it stands. No framework; nothing leaves the
// browser.
import { COMMANDS } from "./commands.js";
import { imports } from "./imports.js";

const $ = (id) => document.getElementById(id);
const enc = new TextEncoder();
const dec = new TextDecoder();
const HW_FILE = "my-hw.toml";
// Query parameters that are not fields of the command.
const RESERVED = new Set(["command", "explain", "all", "achievable", "set", "hw-text", "model-text"]);
const OP = { catalog: 0, query: 1, chart: 2 };

let wasm = null;
let catalog = { hardware: [], models: [] };
const timings = { load_ms: null, first_answer_ms: null, first_answer_since_navigation_ms: null, last_update_ms: null };
window.rooflineTimings = timings;

// --- the WebAssembly module -------------------------------------------

async function loadWasm() {
  const url = new URL("roofline.wasm", import.meta.url);
  let module;
  try {
    module = await WebAssembly.compileStreaming(fetch(url));
  } catch {
    // A server that does not send application/wasm.
    module = await WebAssembly.compile(await (await fetch(url)).arrayBuffer());
  }
  let instance = null;
  instance = await WebAssembly.instantiate(module, imports(module, () => instance.exports.memory));
  wasm = instance.exports;
}

// Calls an entry point with a JSON request; returns its JSON answer.
function call(op, request) {
  const bytes = enc.encode(JSON.stringify(request));
  const ptr = wasm.rf_alloc(bytes.length);
  new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);
  const len = wasm.rf_call(op, ptr, bytes.length);
  const out = new Uint8Array(wasm.memory.buffer, wasm.rf_out(), len);
  return JSON.parse(dec.decode(out));
}

// --- state <-> URL ------------------------------------------------------

function stateFromUrl() {
  const p = new URLSearchParams(location.search);
  let command = p.get("command") || "decode";
  if (!COMMANDS[command]) command = "decode";
  const fields = {};
  for (const [k, v] of p) if (!RESERVED.has(k)) fields[k] = v;
  const given = [...p.keys()].some((k) => !RESERVED.has(k));
  return {
    command,
    fields: given ? fields : { ...COMMANDS[command].example },
    explain: p.get("explain") === "1",
    all: p.get("all") === "1",
    achievable: p.get("achievable") === "1",
    sets: p.getAll("set"),
    hwText: p.get("hw-text") || "",
    modelText: p.get("model-text") || "",
  };
}

function urlFromState(s) {
  const p = new URLSearchParams();
  p.set("command", s.command);
  for (const [k, v] of Object.entries(s.fields)) {
    if (v === "" || v === false) continue;
    p.set(k, v === true ? "true" : v);
  }
  if (s.explain) p.set("explain", "1");
  if (s.all) p.set("all", "1");
  if (s.achievable) p.set("achievable", "1");
  for (const x of s.sets) p.append("set", x);
  if (s.hwText) p.set("hw-text", s.hwText);
  if (s.modelText) p.set("model-text", s.modelText);
  return "?" + p.toString();
}

// --- the form -----------------------------------------------------------

// A field's label as people read it: "kv-dtype" -> "kv dtype".
const labelOf = (f) => f.name.replace(/-/g, " ");

function fieldControl(f, value) {
  const div = document.createElement("div");
  div.className = f.switch ? "field switch" : "field";
  const id = "f-" + f.name;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = labelOf(f);
  let input;
  if (f.switch) {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = value === true || value === "true" || value === "1";
  } else if (f.choices) {
    input = document.createElement("select");
    for (const c of f.choices) input.append(new Option(c, c));
    input.value = value ?? f.choices[0];
  } else {
    input = document.createElement("input");
    input.type = "text";
    input.value = value ?? "";
    input.inputMode = "text";
    if (f.name === "hw") input.setAttribute("list", "hw-ids");
    if (f.name === "model") input.setAttribute("list", "model-ids");
  }
  input.id = id;
  input.name = f.name;
  input.dataset.field = f.name;
  const help = document.createElement("p");
  help.className = "help";
  help.id = id + "-help";
  help.textContent = f.help;
  input.setAttribute("aria-describedby", help.id);
  if (f.switch) div.append(input, label, help);
  else div.append(label, input, help);
  return div;
}

function buildForm(s) {
  const spec = COMMANDS[s.command];
  $("command").value = s.command;
  $("command-help").textContent = spec.summary;
  const main = $("fields");
  const more = $("more-fields");
  main.replaceChildren();
  more.replaceChildren();
  let hidden = 0;
  let moreUsed = false;
  for (const f of spec.fields) {
    // The example's inputs and the hardware and model up front; the rest
    // behind "More inputs".
    const upfront = f.positional || f.name === "hw" || f.name === "model" || f.name in spec.example;
    const el = fieldControl(f, s.fields[f.name]);
    if (upfront) main.append(el);
    else {
      more.append(el);
      hidden++;
      if (s.fields[f.name] !== undefined && s.fields[f.name] !== "") moreUsed = true;
    }
  }
  $("more").hidden = hidden === 0;
  $("more").querySelector("summary").textContent = `More inputs (${hidden})`;
  if (moreUsed) $("more").open = true;
  $("opt-explain").checked = s.explain;
  $("opt-all").checked = s.all;
  $("opt-achievable").checked = s.achievable;
  $("sets").value = s.sets.join("\n");
  $("hw-text").value = s.hwText;
  $("model-text").value = s.modelText;
  if (s.hwText || s.modelText) $("paste").open = true;
  if (s.sets.length) $("whatif").open = true;
}

function readForm() {
  const command = $("command").value;
  const fields = {};
  for (const el of document.querySelectorAll("[data-field]")) {
    const v = el.type === "checkbox" ? el.checked : el.value.trim();
    if (v !== "" && v !== false) fields[el.dataset.field] = v;
  }
  return {
    command,
    fields,
    explain: $("opt-explain").checked,
    all: $("opt-all").checked,
    achievable: $("opt-achievable").checked,
    sets: $("sets").value.split("\n").map((x) => x.trim()).filter(Boolean),
    hwText: $("hw-text").value,
    modelText: $("model-text").value,
  };
}

// The name a pasted model goes by: a config.json when it is JSON.
const modelFile = (text) => (text.trimStart().startsWith("{") ? "config.json" : "my-model.toml");

// The request the entry points take.
function request(s) {
  const hardware_texts = {};
  const model_texts = {};
  if (s.hwText.trim()) hardware_texts[HW_FILE] = s.hwText;
  if (s.modelText.trim()) model_texts[modelFile(s.modelText)] = s.modelText;
  const fields = {};
  for (const [k, v] of Object.entries(s.fields)) fields[k] = v === "true" ? true : v;
  return {
    command: s.command,
    fields,
    hardware_texts,
    model_texts,
    sets: s.sets,
    achievable: s.achievable,
    all: s.all,
    explain: s.explain,
  };
}

// --- the command line ---------------------------------------------------

function quote(w) {
  const t = String(w);
  return /^[A-Za-z0-9_.,:/=+%@-]+$/.test(t) ? t : `"${t.replace(/(["\\$`])/g, "\\$1")}"`;
}

function cliLine(s) {
  const spec = COMMANDS[s.command];
  const words = ["roofline", ...s.command.split(" ")];
  for (const f of spec.fields.filter((f) => f.positional)) {
    if (s.fields[f.name] !== undefined) words.push(quote(s.fields[f.name]));
  }
  for (const f of spec.fields.filter((f) => !f.positional)) {
    const v = s.fields[f.name];
    if (v === undefined || v === "" || v === false) continue;
    if (f.switch) words.push("--" + f.name);
    else words.push("--" + f.name, quote(v));
  }
  for (const x of s.sets) words.push("--set", quote(x));
  if (s.achievable) words.push("--achievable");
  if (s.all) words.push("--all");
  if (s.explain) words.push("--explain");
  return words.join(" ");
}

// --- drawing the answer ---------------------------------------------------

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

function render(s) {
  const t0 = performance.now();
  const req = request(s);
  const answer = call(OP.query, req);
  $("cli").textContent = cliLine(s);
  const files = [...Object.keys(req.hardware_texts), ...Object.keys(req.model_texts)];
  $("cli-files").textContent = files.length
    ? `Save the pasted text as ${files.join(" and ")} beside where you run it.`
    : "";
  if (answer.ok) {
    showError("");
    $("answer").hidden = false;
    $("result").innerHTML = answer.html;
    const notes = $("notes");
    notes.replaceChildren(
      ...answer.notes.map((n) => {
        const li = document.createElement("li");
        li.textContent = n;
        return li;
      }),
    );
    $("explain").hidden = !s.explain;
    $("explain-text").textContent = s.explain ? answer.explain : "";
    $("json").textContent = answer.json;
    const link = $("json-link");
    if (link.dataset.url) URL.revokeObjectURL(link.dataset.url);
    link.dataset.url = URL.createObjectURL(new Blob([answer.json], { type: "application/json" }));
    link.href = link.dataset.url;
    link.hidden = false;
  } else {
    showError(answer.error);
    $("answer").hidden = true;
    $("explain").hidden = true;
    $("json").textContent = "";
    $("json-link").hidden = true;
  }
  const chart = call(OP.chart, req);
  const box = $("chart-box");
  if (chart.ok && chart.svg) {
    box.hidden = false;
    $("chart").innerHTML = chart.svg;
    // The SVG as drawn, before the page's DOM reserialises it (for tests).
    window.rooflineChartSvg = chart.svg;
    $("chart").setAttribute("aria-label", chart.title || "chart");
    $("chart-notes").replaceChildren(
      ...chart.notes.map((n) => {
        const li = document.createElement("li");
        li.textContent = n;
        return li;
      }),
    );
  } else if (chart.ok) {
    // This command has no chart.
    box.hidden = true;
  }
  // A chart that cannot be drawn (no hardware yet) keeps the last one.
  timings.last_update_ms = performance.now() - t0;
  $("timing").textContent = `Answered in ${timings.last_update_ms.toFixed(1)} ms.`;
  document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
}

function update() {
  const s = readForm();
  history.replaceState(null, "", urlFromState(s));
  render(s);
}

// --- start ------------------------------------------------------------------

function fillCatalog() {
  const lists = [
    ["hw-ids", catalog.hardware],
    ["model-ids", catalog.models],
  ];
  for (const [id, items] of lists) {
    const dl = document.createElement("datalist");
    dl.id = id;
    for (const e of items) dl.append(new Option(e.name ? `${e.id} (${e.name})` : e.id, e.id));
    document.body.append(dl);
  }
}

async function start() {
  const t0 = performance.now();
  // The module compiles while the form is built.
  const loading = loadWasm();
  const sel = $("command");
  for (const c of Object.keys(COMMANDS)) sel.append(new Option(c, c));
  let s = stateFromUrl();
  buildForm(s);
  try {
    await loading;
  } catch (e) {
    $("loading").textContent = `The calculator could not be loaded (${e}). Serve this folder over HTTP, e.g. python3 -m http.server -d web/dist.`;
    return;
  }
  timings.load_ms = performance.now() - t0;
  $("loading").hidden = true;
  render(s);
  timings.first_answer_ms = performance.now() - t0;
  // performance.now() counts from the start of the navigation.
  timings.first_answer_since_navigation_ms = performance.now();
  document.body.dataset.ready = "true";
  // The catalog's names only feed the fields' suggestions: after the
  // first answer, not before it.
  setTimeout(() => {
    catalog = call(OP.catalog, {});
    fillCatalog();
  }, 0);

  $("query").addEventListener("input", (e) => {
    if (e.target.id !== "command") update();
  });
  $("query").addEventListener("change", (e) => {
    if (e.target.id !== "command") return;
    // A new command starts from its example; the hardware and model stay.
    const old = readForm();
    const next = { ...old, fields: { ...COMMANDS[sel.value].example } };
    for (const k of ["hw", "model"]) {
      if (old.fields[k] && COMMANDS[sel.value].fields.some((f) => f.name === k)) next.fields[k] = old.fields[k];
    }
    buildForm(next);
    update();
  });
  $("query").addEventListener("submit", (e) => e.preventDefault());
  $("hw-text").addEventListener("change", () => {
    // A pasted part is named in the hardware field unless already there.
    const hw = $("f-hw");
    if (hw && $("hw-text").value.trim() && !hw.value.includes(HW_FILE)) {
      hw.value = HW_FILE;
      update();
    }
  });
  $("model-text").addEventListener("change", () => {
    const m = $("f-model");
    const name = modelFile($("model-text").value);
    if (m && $("model-text").value.trim() && !m.value.includes(name)) {
      m.value = name;
      update();
    }
  });
  $("copy-cli").addEventListener("click", () => navigator.clipboard?.writeText($("cli").textContent));
  $("copy-link").addEventListener("click", () => navigator.clipboard?.writeText(location.href));
  window.addEventListener("popstate", () => {
    s = stateFromUrl();
    buildForm(s);
    render(s);
  });
}

start();

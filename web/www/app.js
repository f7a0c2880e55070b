// The page: a form whose state is the URL, the calculator in WebAssembly
// (roofline.wasm, three entry points that take and return JSON, run in a
// worker), and the answer it returns drawn as it stands. No framework;
// nothing leaves the browser.
import { COMMANDS } from "./commands.js";

const $ = (id) => document.getElementById(id);
const HW_FILE = "my-hw.toml";
// Query parameters that are not fields of the command.
const RESERVED = new Set(["command", "explain", "all", "achievable", "set", "hw-text", "model-text"]);

let catalog = { hardware: [], models: [] };
// Where the first answer's time goes, in ms (docs/web.md): *_since_navigation_ms
// count from the navigation's start, the others are spans.
const timings = {
  script_start_ms: null, // since navigation: app.js starts
  compiled_since_navigation_ms: null, // roofline.wasm downloaded and compiled
  instantiate_ms: null, // in the worker
  worker_ready_since_navigation_ms: null,
  first_query_ms: null, // the first answer, in the worker
  first_answer_ms: null, // app.js's start to the first answer drawn
  first_answer_since_navigation_ms: null,
  first_chart_ms: null, // its chart, in the worker
  first_chart_since_navigation_ms: null,
  catalog_ms: null, // every catalog file parsed for the suggestions (after)
  last_update_ms: null, // an input changed -> answer and chart drawn
  cancelled: 0, // questions stopped for a newer one
};
window.rooflineTimings = timings;

// --- the calculator, in a worker ------------------------------------------

// The module is compiled here, as it downloads, and run in a worker
// (worker.js), so a long search never freezes the page. A question still
// being worked when a newer one comes gets CANCEL_AFTER_MS to finish,
// then its worker is ended and a fresh one starts from the same module.
const CANCEL_AFTER_MS = 100;
// Work that takes longer than this shows the busy line.
const BUSY_AFTER_MS = 150;

let module = null;
let workerUrl = null;
let worker = null;
let workerReady = null;
let seq = 0;
let current = null; // the question being worked: { id, s, req, t0, chart }
let pending = null; // the newest question waiting for the worker
let cancelTimer = null;
let busyTimer = null;
const calls = new Map(); // id -> { op, request, resolve } of single calls

// Starts a worker from worker.js's text (or takes over `started`, the one
// index.html started, with the messages it has already sent); posts it the
// module.
function startWorker(started = null) {
  // worker.js's text as a blob: URL needs no network (the file itself
  // while that text is still on its way).
  const w = started?.worker ?? new Worker(workerUrl ?? "worker.js");
  worker = w;
  workerReady = new Promise((ok, fail) => {
    const handle = ({ data: m }) => {
      if (m.type === "ready") {
        timings.instantiate_ms ??= m.instantiate_ms;
        ok();
      } else if (m.type === "failed") fail(new Error(m.error));
      else onMessage(m);
    };
    w.onmessage = handle;
    w.onerror = (e) => fail(new Error(e.message || "the worker failed to start"));
    for (const e of started?.early ?? []) handle(e);
  });
  if (!started) w.postMessage({ type: "init", module });
  // Single calls a stopped worker left unanswered go to the new one.
  for (const [id, c] of calls) w.postMessage({ type: "call", id, op: c.op, request: c.request });
}

// Ends the worker and whatever it is working on; starts a fresh one.
function restartWorker() {
  worker.terminate();
  timings.cancelled += 1;
  startWorker();
}

// One entry point, answered when the worker gets to it.
function callWorker(op, request) {
  const id = ++seq;
  return new Promise((resolve) => {
    calls.set(id, { op, request, resolve });
    worker.postMessage({ type: "call", id, op, request });
  });
}

function onMessage(m) {
  if (m.type === "result") {
    const c = calls.get(m.id);
    calls.delete(m.id);
    c?.resolve({ answer: m.answer, ms: m.ms });
    return;
  }
  // Answers to a question the page has moved on from are dropped.
  if (!current || m.id !== current.id) return;
  if (m.type === "answer") {
    showAnswer(current, m.answer);
    current.query_ms = m.ms;
    if (timings.first_answer_ms === null) {
      timings.first_query_ms = m.ms;
      timings.first_answer_ms = performance.now() - timings.script_start_ms;
      timings.first_answer_since_navigation_ms = performance.now();
    }
  } else if (m.type === "chart") {
    showChart(current, m.answer);
    if (timings.first_chart_ms === null) timings.first_chart_ms = m.ms;
  } else if (m.type === "done") {
    finish(current);
  }
}

// Asks a question; the newest one wins.
function ask(s) {
  pending = s;
  if (!current) {
    next();
    return;
  }
  clearTimeout(cancelTimer);
  const waited = performance.now() - current.t0;
  cancelTimer = setTimeout(() => {
    if (current && pending) {
      current = null;
      restartWorker();
      next();
    }
  }, Math.max(0, CANCEL_AFTER_MS - waited));
}

function next() {
  const s = pending;
  pending = null;
  const req = request(s);
  current = { id: ++seq, s, req, t0: performance.now() };
  showCli(s, req);
  setBusy(true);
  worker.postMessage({ type: "render", id: current.id, request: req, chart: true });
}

function finish(q) {
  timings.last_update_ms = performance.now() - q.t0;
  $("timing").textContent = `Answered in ${timings.last_update_ms.toFixed(1)} ms.`;
  current = null;
  clearTimeout(cancelTimer);
  document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
  if (!document.body.dataset.ready) {
    timings.first_chart_since_navigation_ms = performance.now();
    document.body.dataset.ready = "true";
  }
  if (pending) next();
  else setBusy(false);
}

// Stops the question being worked (the Stop button).
function stop() {
  if (!current) return;
  current = null;
  pending = null;
  clearTimeout(cancelTimer);
  restartWorker();
  setBusy(false);
  $("timing").textContent = "Stopped; change an input to ask again.";
}

// The busy line: shown once work takes longer than BUSY_AFTER_MS, with
// the time it has taken so far.
function setBusy(on) {
  clearInterval(busyTimer);
  document.body.dataset.busy = on ? "true" : "false";
  const box = $("busy");
  if (!on) {
    box.hidden = true;
    return;
  }
  const t0 = performance.now();
  busyTimer = setInterval(() => {
    const ms = performance.now() - t0;
    if (ms < BUSY_AFTER_MS) return;
    box.hidden = false;
    $("busy-text").textContent = `Working… ${(ms / 1000).toFixed(1)} s (a new input or Stop cancels it)`;
  }, 100);
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

function showCli(s, req) {
  $("cli").textContent = cliLine(s);
  const files = [...Object.keys(req.hardware_texts), ...Object.keys(req.model_texts)];
  $("cli-files").textContent = files.length
    ? `Save the pasted text as ${files.join(" and ")} beside where you run it.`
    : "";
}

function showAnswer(q, answer) {
  const s = q.s;
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
}

function showChart(q, chart) {
  const box = $("chart-box");
  if (chart.ok && chart.svg) {
    box.hidden = false;
    $("chart").innerHTML = chart.svg;
    $("chart").dataset.command = q.s.command;
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
  } else if (chart.ok || $("chart").dataset.command !== q.s.command) {
    // This command has no chart (or none yet).
    box.hidden = true;
  }
  // A chart that cannot be drawn (no hardware yet) keeps the command's
  // last one.
}

function update() {
  const s = readForm();
  history.replaceState(null, "", urlFromState(s));
  ask(s);
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
  timings.script_start_ms = performance.now();
  // index.html started compiling the module and the worker.
  const boot = window.rooflineBoot;
  const sel = $("command");
  for (const c of Object.keys(COMMANDS)) sel.append(new Option(c, c));
  let s = stateFromUrl();
  buildForm(s);
  try {
    module = await boot.compiled;
    timings.compiled_since_navigation_ms = boot.compiled_since_navigation_ms;
    boot.workerUrl.then((u) => (workerUrl = u), () => {});
    startWorker({ worker: await boot.worker, early: boot.early });
    await workerReady;
  } catch (e) {
    $("loading").textContent = `The calculator could not be loaded (${e}). Serve this folder over HTTP, e.g. python3 -m http.server -d web/dist.`;
    return;
  }
  timings.worker_ready_since_navigation_ms = performance.now();
  $("loading").hidden = true;
  ask(s);
  // The catalog's names only feed the fields' suggestions: after the
  // first answer, not before it.
  callWorker("catalog", {}).then(({ answer, ms }) => {
    timings.catalog_ms = ms;
    catalog = answer;
    fillCatalog();
  });
  $("stop").addEventListener("click", stop);

  $("query").addEventListener("input", (e) => {
    if (e.target.id !== "command") update();
  });
  $("query").addEventListener("change", (e) => {
    if (e.target.id !== "command") return;
    // A new command starts from its example; the hardware and model stay.
    const old = readForm();
    const fresh = { ...old, fields: { ...COMMANDS[sel.value].example } };
    for (const k of ["hw", "model"]) {
      if (old.fields[k] && COMMANDS[sel.value].fields.some((f) => f.name === k)) fresh.fields[k] = old.fields[k];
    }
    buildForm(fresh);
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
    ask(s);
  });
}

start();

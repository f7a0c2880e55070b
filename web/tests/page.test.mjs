// End-to-end tests of the page in headless Chromium: each command's URL
// state answers with exactly the numbers `roofline ... --format json`
// gives for the same inputs; inputs update the answer; bad input shows the
// command line's own message; the chart, comparisons, derivations, the
// command line shown, a narrow screen and no network.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { serve, browser, open, cells, argv, cli, cliJson, at, same, BIN, ROOT } from "./harness.mjs";
import { generate } from "../tools/commands.mjs";
import { COMMANDS } from "../www/commands.js";

const positional = (command) => COMMANDS[command].fields.filter((f) => f.positional).map((f) => f.name);

// The long-running commands, at sizes the debug CLI answers in a second.
const SIMULATE = { command: "simulate", model: "llama-3-8b", hw: "h200-sxm", rate: "12/s", prompt: "2048", output: "256", requests: "2000" };
const FLEET = { command: "fleet", model: "llama-3-8b", hw: "h200-sxm", rate: "20/s", prompt: "512", output: "64", "slo-ttft": "1s", "slo-tpot": "50ms", requests: "200", caps: "32,64" };

// One URL state per command (the first decode is the example),
// and a few more that exercise lists, switches and pasted-free defaults.
const STATES = [
  { command: "decode", model: "llama-3-8b", hw: "h200-sxm", batch: "32", context: "8192" },
  { command: "hw show", hw: "h100-sxm" },
  { command: "hw show", hw: "b200", dtype: "fp8", sparse: "true" },
  { command: "model show", model: "llama-3.1-70b", "kv-dtype": "fp8" },
  { command: "point", hw: "h100-sxm", intensity: "1" },
  { command: "point", hw: "mi355x", flops: "137.4TFLOP", bytes: "2.15GB" },
  { command: "occupancy", hw: "h100-sxm", threads: "256", regs: "64", smem: "32KiB" },
  { command: "coalesce", hw: "h100-sxm", dtype: "fp32", stride: "32", granularity: "segment" },
  { command: "littles-law", hw: "h100-sxm", latency: "500 cycles", clock: "1.8GHz" },
  { command: "matmul", hw: "h100-sxm", m: "4096", n: "4096", k: "4096", tile: "128" },
  { command: "fusion softmax", rows: "4096", cols: "4096", dtype: "bf16", hw: "h100-sxm" },
  { command: "fusion chain", ops: "3", elements: "134217728", dtype: "bf16" },
  { command: "fusion epilogue", tokens: "32768", width: "11008" },
  { command: "launch", kernels: "490", overhead: "5 us", floor: "4.0 ms" },
  { command: "kv", model: "llama-3-8b", context: "8192", batch: "32" },
  { command: "kv", model: "llama-3-8b", context: "8,192", hw: "h100-sxm" },
  { command: "decode", model: "llama-2-7b", hw: "h100-sxm", batch: "1", context: "1024", launch: "eager" },
  { command: "prefill", model: "llama-3-8b", hw: "h200-sxm", prompt: "8192" },
  { command: "speculative", acceptance: "0.8", "draft-tokens": "4" },
  { command: "collective", kind: "all-reduce", hw: "h200-sxm", devices: "8", bytes: "1GiB" },
  { command: "plan", model: "llama-3.1-70b", hw: "h200-sxm", devices: "8", tp: "8", batch: "32" },
  // Energy and cost (the library's power model) on the page as on the CLI.
  { command: "decode", model: "llama-3-8b", hw: "h200-sxm", batch: "32", context: "8192", price: "2.50/h", "energy-price": "0.10/kWh", pue: "1.2" },
  { command: "simulate", ...Object.fromEntries(Object.entries(SIMULATE).filter(([k]) => k !== "command")), price: "2.50/h" },
  SIMULATE,
  // A disaggregated run: a prefill pool beside the decode replicas.
  { command: "simulate", model: "llama-3-8b", hw: "h200-sxm", rate: "12/s", prompt: "2048", output: "256", requests: "500", "prefill-dp": "1" },
  { command: "simulate", model: "llama-3-8b", hw: "h200-sxm", concurrency: "16", prompt: "lognormal:1024,0.4", output: "uniform:100..300", "slo-ttft": "2s", "slo-tpot": "p50=30ms", requests: "500" },
  FLEET,
  { ...FLEET, pareto: "true" },
  // A comparison, as --hw a,b.
  { command: "decode", model: "llama-3-8b", hw: "h100-sxm,h200-sxm,mi355x", batch: "8", context: "4096" },
  { command: "hw show", hw: "h100-sxm,b200" },
];

const fieldsOf = (s) => {
  const { command, ...rest } = s;
  const f = {};
  for (const [k, v] of Object.entries(rest)) f[k] = v === "true" ? true : v;
  return [command, f];
};

let srv, b;
before(async () => {
  srv = await serve();
  b = await browser();
});
after(async () => {
  await b?.close();
  srv?.server.close();
});

// Every value cell of the page is the CLI's JSON value at its path, and
// every headline result the CLI's table shows is on the page.
async function checkState(state) {
  const [command, fields] = fieldsOf(state);
  const page = await open(b, srv.base, state);
  assert.deepEqual(page.errors, [], "the page logged no errors");
  const expected = cliJson(argv(command, fields, positional(command)));
  const got = await cells(page);
  assert.ok(got.length >= 3, `${command}: at least 3 value cells, got ${got.length}`);
  for (const c of got) {
    const want = at(expected, c.path);
    assert.notEqual(want, undefined, `${command}: ${c.path} is in the CLI's JSON`);
    assert.ok(same(c.value, want), `${command}: ${c.path} is ${c.value} on the page, ${JSON.stringify(want)} in the CLI`);
    assert.equal(c.path.split(".").at(-1), c.key, `${c.path}'s key`);
  }
  // The JSON the page offers is the CLI's, byte for byte.
  const offered = await page.$eval("#json", (e) => e.textContent);
  const cliText = cli([...argv(command, fields, positional(command)), "--format", "json"]).stdout;
  assert.equal(offered.trim(), cliText.trim(), `${command}: the offered JSON`);
  // The command line shown runs and gives that JSON.
  const line = await page.$eval("#cli", (e) => e.textContent);
  assert.ok(line.startsWith(`roofline ${command}`), line);
  const notes = await page.$$eval("#notes li", (els) => els.map((e) => e.textContent));
  assert.deepEqual(notes, expected.notes, `${command}: the notes`);
  await page.close();
}

for (const s of STATES) {
  const label = Object.entries(s).map(([k, v]) => `${k}=${v}`).join("&");
  test(`URL state ${label} matches the CLI's JSON`, () => checkState(s));
}

test("every command the page offers has a URL state here", () => {
  const covered = new Set(STATES.map((s) => s.command));
  for (const c of Object.keys(COMMANDS)) assert.ok(covered.has(c), `${c} has no URL state`);
});

test("the form's fields are the CLI's flags (commands.js is up to date)", () => {
  const committed = readFileSync(path.join(ROOT, "web/www/commands.js"), "utf8");
  assert.equal(committed, generate(BIN), "run: node web/tools/commands.mjs target/debug/roofline");
});

test("changing an input updates the answer", async () => {
  const page = await open(b, srv.base, STATES[0]);
  const before = await page.$eval('[data-path="results.step_time_s"]', (e) => e.dataset.value);
  const n = Number(await page.$eval("body", (e) => e.dataset.updates));
  await page.fill("#f-batch", "64");
  await page.waitForFunction((n) => Number(document.body.dataset.updates) > n, n);
  const afterV = await page.$eval('[data-path="results.step_time_s"]', (e) => e.dataset.value);
  assert.notEqual(afterV, before);
  const want = cliJson(["decode", "--model", "llama-3-8b", "--hw", "h200-sxm", "--batch", "64", "--context", "8192"]);
  assert.equal(Number(afterV), want.results.step_time_s);
  // The URL follows, so the link shares the new question.
  assert.match(page.url(), /batch=64/);
  await page.close();
});

test("a bad unit shows the CLI's message in role=alert and keeps the rest", async () => {
  const page = await open(b, srv.base, STATES[0]);
  await page.fill("#f-context", "8 furlongs");
  const alert = page.locator('[role="alert"]');
  await alert.filter({ hasText: "furlongs" }).waitFor();
  const r = cli(["decode", "--model", "llama-3-8b", "--hw", "h200-sxm", "--batch", "32", "--context", "8 furlongs"]);
  assert.equal(r.code, 65);
  assert.equal((await alert.textContent()).trim(), r.stderr.trim());
  // The inputs and the hardware's chart stay.
  assert.equal(await page.inputValue("#f-context"), "8 furlongs");
  assert.equal(await page.inputValue("#f-model"), "llama-3-8b");
  assert.ok(await page.$("#chart svg"), "the chart stays");
  // Fixing it clears the message.
  await page.fill("#f-context", "8192");
  await page.waitForFunction(() => document.getElementById("error").textContent === "");
  assert.ok(await page.$('[data-path="results.step_time_s"]'));
  await page.close();
});

test("a missing input shows the CLI's message", async () => {
  const page = await open(b, srv.base, { command: "point", hw: "h100-sxm" });
  const text = (await page.locator('[role="alert"]').textContent()).trim();
  const r = cli(["point", "--hw", "h100-sxm"]);
  assert.notEqual(r.code, 0);
  assert.equal(text, r.stderr.trim());
  await page.close();
});

test("the roofline chart renders with the query marked", async () => {
  const page = await open(b, srv.base, STATES[0]);
  const svg = await page.$("#chart svg");
  assert.ok(svg, "an svg");
  const box = await svg.boundingBox();
  assert.ok(box.width > 300 && box.height > 150, JSON.stringify(box));
  const text = await page.$eval("#chart svg", (e) => e.textContent);
  assert.match(text, /h200-sxm|H200/i, "the roof is labelled");
  assert.match(text, /decode/, "the query's kernel is marked");
  await page.close();
});

test("the chart is the command line's chart, byte for byte", async () => {
  const page = await open(b, srv.base, STATES[0]);
  const svg = await page.evaluate(() => window.rooflineChartSvg);
  const json = cliJson(argv("decode", fieldsOf(STATES[0])[1]));
  // The page marks the query's kernel at its intensity, labelled with the command.
  const r = cli(["chart", "roofline", "--hw", "h200-sxm", "--point", `decode:${json.results.intensity}`, "--out", "-"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(svg, r.stdout);
  await page.close();
});

// The SVG `roofline ARGS --chart FILE` writes.
function cliChart(args) {
  const dir = mkdtempSync(path.join(tmpdir(), "roofline-web-"));
  try {
    const file = path.join(dir, "chart.svg");
    const r = cli([...args, "--chart", file]);
    assert.equal(r.code, 0, r.stderr);
    return readFileSync(file, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("simulate's chart is the command line's --chart of its run over time, byte for byte", async () => {
  const page = await open(b, srv.base, SIMULATE);
  assert.equal(await page.$eval("#chart-box", (e) => e.hidden), false);
  const svg = await page.evaluate(() => window.rooflineChartSvg);
  const [command, fields] = fieldsOf(SIMULATE);
  assert.equal(svg, cliChart(argv(command, fields)));
  assert.match(await page.$eval("#chart svg", (e) => e.textContent), /TTFT/);
  await page.close();
});

test("fleet --pareto's chart is the command line's frontier chart, byte for byte", async () => {
  const state = { ...FLEET, pareto: "true" };
  const page = await open(b, srv.base, state);
  const svg = await page.evaluate(() => window.rooflineChartSvg);
  const [command, fields] = fieldsOf(state);
  assert.equal(svg, cliChart(argv(command, fields)));
  await page.close();
});

test("fleet without --pareto has no chart, as on the command line", async () => {
  const fleet = await open(b, srv.base, FLEET);
  assert.equal(await fleet.$eval("#chart-box", (e) => e.hidden), true);
  const [command, fields] = fieldsOf(FLEET);
  const r = cli([...argv(command, fields), "--chart", path.join(tmpdir(), "roofline-web-none.svg")]);
  assert.notEqual(r.code, 0, "the CLI draws no chart of it either");
  await fleet.close();
});

// A search long enough to be interrupted: the CLI's own fleet example,
// which the page works in a worker.
const LONG = { command: "fleet", model: "llama-3.1-70b", hw: "h200-sxm,b200", rate: "40/s", prompt: "2048", output: "300", "slo-ttft": "2s", "slo-tpot": "50ms", requests: "5000" };

// Opens a state whose answer is still being worked.
async function openBusy(state) {
  const page = await b.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  await page.goto(srv.base + "?" + new URLSearchParams(state).toString());
  await page.waitForSelector("#busy:not([hidden])", { timeout: 15000 });
  return page;
}

test("a long search shows a busy line and leaves the page working", async () => {
  const page = await openBusy(LONG);
  assert.equal(await page.$eval("body", (e) => e.dataset.busy), "true");
  // The busy line counts the time while the search runs: the page's own
  // thread is free.
  const first = await page.$eval("#busy-text", (e) => e.textContent);
  await page.waitForFunction((t) => document.getElementById("busy-text").textContent !== t, first);
  assert.equal(await page.$eval("body", (e) => e.dataset.busy), "true", "still searching");
  // Typing still works while it searches.
  await page.fill("#f-seed", "3");
  assert.equal(await page.inputValue("#f-seed"), "3");
  // Stop ends it.
  await page.click("#stop");
  await page.waitForSelector("#busy", { state: "hidden" });
  assert.equal(await page.$eval("body", (e) => e.dataset.busy), "false");
  assert.match(await page.$eval("#timing", (e) => e.textContent), /Stopped/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a new question cancels a long search, and only its own answer shows", async () => {
  const page = await openBusy(LONG);
  await page.selectOption("#command", "decode");
  // decode keeps the model and takes the first of the hardware.
  await page.fill("#f-hw", "h200-sxm");
  await page.waitForSelector("body[data-ready=true]", { timeout: 15000 });
  await page.waitForFunction(() => document.body.dataset.busy === "false");
  assert.ok((await page.evaluate(() => window.rooflineTimings.cancelled)) >= 1, "the search was stopped");
  const state = new URL(page.url()).searchParams;
  assert.equal(state.get("command"), "decode");
  const fields = Object.fromEntries([...state].filter(([k]) => k !== "command"));
  const want = cli([...argv("decode", fields), "--format", "json"]).stdout;
  assert.equal((await page.$eval("#json", (e) => e.textContent)).trim(), want.trim());
  // No late answer of the stopped search replaces it.
  await page.waitForTimeout(500);
  assert.equal((await page.$eval("#json", (e) => e.textContent)).trim(), want.trim());
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("where the first answer's time goes (a measurement, printed, not asserted)", async (t) => {
  const runs = [];
  // Three first visits (a fresh context each: nothing cached), then a
  // repeat visit in the last one's context (the files revalidated, 304).
  let ctx = null;
  for (let i = 0; i < 4; i++) {
    if (i < 3) {
      await ctx?.close();
      ctx = await b.newContext();
    }
    const page = await ctx.newPage();
    await page.goto(srv.base + "?" + new URLSearchParams(STATES[0]).toString());
    await page.waitForSelector("body[data-ready=true]", { timeout: 15000 });
    await page.waitForFunction(() => window.rooflineTimings.catalog_ms !== null);
    runs.push(
      await page.evaluate((visit) => {
        const nav = performance.getEntriesByType("navigation")[0];
        const wasm = performance.getEntriesByName(new URL("roofline.wasm", location.href).href)[0];
        const r = (x) => (x === null || x === undefined ? null : Math.round(x * 10) / 10);
        const tm = window.rooflineTimings;
        return {
          visit,
          html_ms: r(nav.responseEnd),
          wasm_fetched_ms: r(wasm?.responseEnd),
          wasm_bytes: wasm?.encodedBodySize ?? null,
          wasm_transferred_bytes: wasm?.transferSize ?? null,
          compiled_ms: r(tm.compiled_since_navigation_ms),
          app_js_start_ms: r(tm.script_start_ms),
          worker_ready_ms: r(tm.worker_ready_since_navigation_ms),
          instantiate_ms: r(tm.instantiate_ms),
          first_query_ms: r(tm.first_query_ms),
          first_answer_ms: r(tm.first_answer_since_navigation_ms),
          first_chart_ms: r(tm.first_chart_ms),
          chart_shown_ms: r(tm.first_chart_since_navigation_ms),
          catalog_parse_ms: r(tm.catalog_ms),
        };
      }, i < 3 ? "first" : "repeat"),
    );
    await page.close();
  }
  await ctx.close();
  // Times since the navigation's start, except the spans (instantiate,
  // first query, first chart, catalog parse).
  console.log("first-answer timings (ms):\n" + runs.map((x) => JSON.stringify(x)).join("\n"));
  for (const x of runs) {
    t.diagnostic(JSON.stringify(x));
    for (const k of ["compiled_ms", "worker_ready_ms", "first_query_ms", "first_answer_ms"]) {
      assert.equal(typeof x[k], "number", `${k} was recorded`);
    }
    assert.ok(x.first_answer_ms >= x.worker_ready_ms, "the answer comes after the worker is ready");
  }
});

test("occupancy draws its three graphs", async () => {
  const page = await open(b, srv.base, STATES[6]);
  const n = await page.$$eval("#chart svg", (e) => e.length);
  assert.equal(n, 1);
  const text = await page.$eval("#chart svg", (e) => e.textContent);
  assert.match(text, /register/i);
  await page.close();
});

test("--explain shows the CLI's derivations", async () => {
  const page = await open(b, srv.base, { ...STATES[4], explain: "1" });
  const text = await page.$eval("#explain-text", (e) => e.textContent);
  const r = cli(["point", "--hw", "h100-sxm", "--intensity", "1", "--explain"]);
  assert.equal(r.code, 0);
  assert.equal(text.trim(), r.stdout.trim());
  await page.close();
});

test("--achievable and --set reach the answer and the command line", async () => {
  const state = { command: "point", hw: "h200-sxm", intensity: "1", achievable: "1", set: "memory.hbm-bandwidth=5 TB/s" };
  const page = await open(b, srv.base, state);
  const line = await page.$eval("#cli", (e) => e.textContent);
  assert.equal(line, 'roofline point --hw h200-sxm --intensity 1 --set "memory.hbm-bandwidth=5 TB/s" --achievable');
  const want = cliJson(["point", "--hw", "h200-sxm", "--intensity", "1", "--set", "memory.hbm-bandwidth=5 TB/s", "--achievable"]);
  for (const c of await cells(page)) assert.ok(same(c.value, at(want, c.path)), c.path);
  await page.close();
});

test("a pasted hardware file is used as --hw FILE would be", async () => {
  // The H800's file: the page takes the text in its address, and the H100's,
  // with its measured figures and their sources, is past what a server reads.
  const toml = readFileSync(path.join(ROOT, "hardware/h800.toml"), "utf8").replace(/^id = .*$/m, 'id = "my-hw"');
  const page = await open(b, srv.base, { command: "point", hw: "my-hw.toml", intensity: "10", "hw-text": toml });
  const got = await cells(page);
  const want = cliJson(["point", "--hw", "h800", "--intensity", "10"]);
  const peak = got.find((c) => c.key === "attainable_flops_per_s" || c.key === "attainable_flops");
  assert.ok(peak, JSON.stringify(got));
  assert.equal(Number(peak.value), at(want, peak.path));
  assert.match(await page.$eval("#cli-files", (e) => e.textContent), /my-hw\.toml/);
  await page.close();
});

test("a pasted Hugging Face config.json is read as model show FILE reads it", async () => {
  const file = path.join(ROOT, "tests/data/hf/qwen2-7b.json");
  const text = readFileSync(file, "utf8");
  const page = await open(b, srv.base, { command: "model show", model: "config.json", "model-text": text });
  const got = await cells(page);
  const want = cliJson(["model", "show", file]);
  assert.ok(got.length >= 3, JSON.stringify(got));
  // Every figure is the CLI's; the name it is given is not (the CLI names
  // an import after its file or folder, and a pasted text has neither).
  const figures = got.filter((c) => c.path.startsWith("results.") && !["name", "id"].includes(c.key));
  assert.ok(figures.length >= 3, JSON.stringify(figures));
  for (const c of figures) {
    assert.ok(same(c.value, at(want, c.path)), `${c.path}: ${c.value} against ${JSON.stringify(at(want, c.path))}`);
  }
  await page.close();
});

test("a bad pasted hardware file shows what is wrong with it", async () => {
  const page = await open(b, srv.base, { command: "point", hw: "my-hw.toml", intensity: "1", "hw-text": "id = \"my-hw\"\nname = 3\n" });
  const text = (await page.locator('[role="alert"]').textContent()).trim();
  assert.match(text, /^error: /);
  assert.match(text, /my-hw/);
  await page.close();
});

test("labelled inputs and keyboard use", async () => {
  const page = await open(b, srv.base, STATES[0]);
  const unlabelled = await page.$$eval("input, select, textarea", (els) =>
    els.filter((e) => e.labels.length === 0).map((e) => e.id || e.outerHTML),
  );
  assert.deepEqual(unlabelled, []);
  // Tab reaches the command first; the keyboard alone changes the command.
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "command");
  const n = Number(await page.$eval("body", (e) => e.dataset.updates));
  await page.selectOption("#command", "prefill");
  await page.waitForFunction((n) => Number(document.body.dataset.updates) > n, n);
  assert.match(page.url(), /command=prefill/);
  assert.equal(await page.inputValue("#f-model"), "llama-3-8b", "the model stays");
  await page.close();
});

test("readable at 375 px: nothing wider than the screen", async () => {
  const page = await open(b, srv.base, STATES[0], { width: 375, height: 800 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 375, `the page is ${width} px wide`);
  await page.close();
});

test("readable at 375 px: fleet's answer table fits its box", async () => {
  // Issue 37: the table was 379 px in a 351 px box, its values clipped.
  const page = await open(b, srv.base, FLEET, { width: 375, height: 812 });
  const widths = await page.$$eval("table.report.results", (ts) =>
    ts.map((t) => ({ table: t.scrollWidth, box: t.parentElement.clientWidth })),
  );
  assert.ok(widths.length > 0, "fleet answered with a results table");
  assert.deepEqual(widths.filter((w) => w.table > w.box), [], "a results table wider than its box");
  await page.close();
});

test("works with no network once loaded", async () => {
  const ctx = await b.newContext();
  const page = await ctx.newPage();
  await page.goto(srv.base + "?" + new URLSearchParams(STATES[0]).toString());
  await page.waitForSelector("body[data-ready=true]");
  await ctx.setOffline(true);
  const n = Number(await page.$eval("body", (e) => e.dataset.updates));
  await page.fill("#f-batch", "16");
  await page.waitForFunction((n) => Number(document.body.dataset.updates) > n, n);
  const v = await page.$eval('[data-path="results.step_time_s"]', (e) => e.dataset.value);
  const want = cliJson(["decode", "--model", "llama-3-8b", "--hw", "h200-sxm", "--batch", "16", "--context", "8192"]);
  assert.equal(Number(v), want.results.step_time_s);
  // A long search stopped by a new question restarts the worker, which
  // needs no network either. The search is LONG's (fleet's own defaults
  // can finish before the busy line shows on a fast machine).
  await page.selectOption("#command", "fleet");
  for (const [k, v] of Object.entries(LONG)) {
    const field = k === "command" ? null : await page.$(`#f-${k}`);
    if (field && (await field.isVisible())) await field.fill(v);
  }
  await page.waitForSelector("#busy:not([hidden])", { timeout: 15000 });
  const m = Number(await page.$eval("body", (e) => e.dataset.updates));
  await page.selectOption("#command", "decode");
  // decode keeps fleet's model: back to one that fits one device.
  await page.fill("#f-model", "llama-3-8b");
  await page.fill("#f-hw", "h200-sxm");
  await page.waitForFunction((m) => Number(document.body.dataset.updates) > m, m);
  await page.waitForFunction(() => document.body.dataset.busy === "false");
  await page.waitForSelector('[data-path="results.step_time_s"]', { timeout: 15000 });
  assert.ok((await page.evaluate(() => window.rooflineTimings.cancelled)) >= 1);
  assert.equal(await page.$eval("#error", (e) => e.textContent), "");
  await ctx.close();
});

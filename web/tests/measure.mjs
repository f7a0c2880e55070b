// Measures the page in headless Chromium and takes the screenshots in
// docs/: time to the first answer after navigation, and the time of an
// update (an input changed -> answer and chart redrawn), as the page
// itself records them (window.rooflineTimings; the browser tests print the
// same breakdown of the first answer). Not a test: speed is
// measured, not asserted.
//   node web/tests/measure.mjs [--shots]
import path from "node:path";
import { serve, browser, open, ROOT } from "./harness.mjs";

const STATE = { command: "decode", model: "llama-3-8b", hw: "h200-sxm", batch: "32", context: "8192" };
// The screenshots: a serving simulation with its run-over-time chart, and
// on a phone-sized screen the fleet search that sizes the deployment.
const SIMULATE = {
  command: "simulate", model: "llama-3-8b", hw: "h200-sxm", rate: "12/s", prompt: "2048", output: "256",
  requests: "2000", "slo-ttft": "2s", "slo-tpot": "50ms",
};
const FLEET = {
  command: "fleet", model: "llama-3-8b", hw: "h200-sxm", rate: "20/s", prompt: "512", output: "64",
  "slo-ttft": "1s", "slo-tpot": "50ms", requests: "200", caps: "32,64",
};
const shots = process.argv.includes("--shots");
const srv = await serve();
const b = await browser();
try {
  const loads = [];
  for (let i = 0; i < 5; i++) {
    // A fresh context each time: nothing cached, as on a first visit.
    const ctx = await b.newContext();
    const page = await ctx.newPage();
    await page.goto(srv.base + "?" + new URLSearchParams(STATE).toString());
    await page.waitForSelector("body[data-ready=true]", { timeout: 30000 });
    const t = await page.evaluate(() => window.rooflineTimings);
    const r = (x) => (x === null ? null : Math.round(x));
    loads.push({
      // Since the navigation's start: the module compiled, the worker
      // ready, the answer drawn, its chart drawn.
      compiled_ms: r(t.compiled_since_navigation_ms),
      worker_ready_ms: r(t.worker_ready_since_navigation_ms),
      first_answer_ms: r(t.first_answer_since_navigation_ms),
      chart_shown_ms: r(t.first_chart_since_navigation_ms),
      // Spans in the worker.
      instantiate_ms: r(t.instantiate_ms),
      first_query_ms: r(t.first_query_ms),
      first_chart_ms: r(t.first_chart_ms),
    });
    await ctx.close();
  }
  const page = await open(b, srv.base, STATE);
  const updates = [];
  for (const batch of [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512]) {
    const n = Number(await page.$eval("body", (e) => e.dataset.updates));
    await page.fill("#f-batch", String(batch));
    await page.waitForFunction((n) => Number(document.body.dataset.updates) > n, n);
    updates.push(await page.evaluate(() => window.rooflineTimings.last_update_ms));
  }
  updates.sort((a, b) => a - b);
  const median = updates[Math.floor(updates.length / 2)];
  console.log(JSON.stringify({ loads, update_ms: { median, max: updates.at(-1), min: updates[0] } }, null, 1));
  if (shots) {
    // The answer's table and its notes; the page below (the charts, the
    // command line) is left out to keep the file small.
    const wide = await open(b, srv.base, SIMULATE, { width: 1280, height: 1200 });
    await wide.waitForTimeout(200);
    await wide.screenshot({ path: path.join(ROOT, "docs/web-page.png"), fullPage: false });
    await wide.close();
    const narrow = await open(b, srv.base, FLEET, { width: 375, height: 812 });
    await narrow.$eval("#result", (e) => e.scrollIntoView());
    await narrow.screenshot({ path: path.join(ROOT, "docs/web-page-375.png"), fullPage: false });
    await narrow.close();
  }
  await page.close();
} finally {
  await b.close();
  srv.server.close();
}

// Measures the page in headless Chromium and takes the screenshots in
// docs/: time to the first answer after navigation, and the time of an
// update (an input changed -> answer and chart redrawn), as the page
// itself records them (window.rooflineTimings). Not a test: speed is
// measured, not asserted.
//   node web/tests/measure.mjs [--shots]
import path from "node:path";
import { serve, browser, open, ROOT } from "./harness.mjs";

const STATE = { command: "decode", model: "llama-3-8b", hw: "h200-sxm", batch: "32", context: "8192" };
const shots = process.argv.includes("--shots");
const srv = await serve();
const b = await browser();
try {
  const loads = [];
  for (let i = 0; i < 5; i++) {
    const t0 = Date.now();
    const page = await open(b, srv.base, STATE);
    const wall = Date.now() - t0;
    const t = await page.evaluate(() => window.rooflineTimings);
    loads.push({
      // From the navigation's start to the first answer drawn.
      since_navigation_ms: t.first_answer_since_navigation_ms,
      // From the script's start: fetching and compiling the module, then the answer.
      first_answer_ms: t.first_answer_ms,
      module_ms: t.load_ms,
      wall_ms: wall,
    });
    await page.close();
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
    await page.fill("#f-batch", "32");
    await page.waitForTimeout(100);
    await page.screenshot({ path: path.join(ROOT, "docs/web-page.png"), fullPage: true });
    const narrow = await open(b, srv.base, STATE, { width: 375, height: 812 });
    await narrow.screenshot({ path: path.join(ROOT, "docs/web-page-375.png"), fullPage: false });
    await narrow.close();
  }
  await page.close();
} finally {
  await b.close();
  srv.server.close();
}

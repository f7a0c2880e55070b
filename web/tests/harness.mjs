// What every browser test shares: a static server over web/dist on a
// loopback port, Debian's Chromium driven by playwright-core, and the
// command-line binary whose JSON the page must match.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, "../..");
export const DIST = path.join(ROOT, "web/dist");
export const BIN = process.env.ROOFLINE_BIN || path.join(ROOT, "target/debug/roofline");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
};

// Serves web/dist on 127.0.0.1 at a free port.
export async function serve() {
  if (!existsSync(path.join(DIST, "index.html"))) {
    throw new Error(`${DIST}/index.html is missing: run web/build.sh first`);
  }
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    const file = path.join(DIST, url.pathname === "/" ? "index.html" : url.pathname);
    if (!file.startsWith(DIST)) {
      res.writeHead(403).end();
      return;
    }
    try {
      // As a static server revalidates: an ETag, and 304 when the browser
      // has the file already (a repeat visit then reuses the browser's
      // compiled code for roofline.wasm).
      const st = await stat(file);
      const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
      const headers = {
        "content-type": TYPES[path.extname(file)] || "application/octet-stream",
        "cache-control": "no-cache",
        etag,
      };
      if (req.headers["if-none-match"] === etag) {
        res.writeHead(304, headers).end();
        return;
      }
      const body = await readFile(file);
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return { server, base: `http://127.0.0.1:${port}/` };
}

export async function browser() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

// Opens a URL state and waits for the first answer.
export async function open(b, base, params, viewport = { width: 1280, height: 900 }) {
  const page = await b.newPage({ viewport });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.errors = errors;
  await page.goto(base + "?" + new URLSearchParams(params).toString());
  await page.waitForSelector("body[data-ready=true]", { timeout: 15000 });
  return page;
}

// Every value cell: { path, key, value } as the page carries them.
export async function cells(page) {
  return page.$$eval("#result [data-path]", (els) =>
    els.map((e) => ({ path: e.dataset.path, key: e.dataset.key, value: e.dataset.value })),
  );
}

// The command line a page's fields stand for, as argv.
export function argv(command, fields, positional = []) {
  const out = command.split(" ");
  for (const p of positional) if (fields[p] !== undefined) out.push(String(fields[p]));
  for (const [k, v] of Object.entries(fields)) {
    if (positional.includes(k)) continue;
    if (v === true) out.push("--" + k);
    else out.push("--" + k, String(v));
  }
  return out;
}

// Runs the binary; returns { code, stdout, stderr }.
export function cli(args) {
  const r = spawnSync(BIN, args, { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function cliJson(args) {
  const r = cli([...args, "--format", "json"]);
  if (r.code !== 0) throw new Error(`roofline ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// The value at a dotted path of a report ("rows.1.results.time_s").
export function at(report, dotted) {
  let v = report;
  for (const part of dotted.split(".")) {
    if (v === undefined || v === null) return undefined;
    v = v[/^\d+$/.test(part) ? Number(part) : part];
  }
  return v;
}

// Whether a cell's data-value is exactly the JSON report's value.
export function same(cellValue, jsonValue) {
  if (typeof jsonValue === "number") return Number(cellValue) === jsonValue;
  if (typeof jsonValue === "string") return cellValue === jsonValue;
  return cellValue === JSON.stringify(jsonValue);
}

export { execFileSync };

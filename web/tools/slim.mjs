// Slims the linked module for the page: drops its custom sections (symbol
// names, the bindings generator's metadata that plotters' web-sys
// dependency leaves) and the `__wbindgen_describe_*` exports, which only a
// bindings generator reads. The page calls three C-ABI exports and needs
// none of them.
//   node web/tools/slim.mjs IN.wasm OUT.wasm
import { readFileSync, writeFileSync } from "node:fs";

function leb(buf, i) {
  let r = 0, shift = 0, b;
  do {
    b = buf[i++];
    r += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return [r, i];
}

function uleb(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return Buffer.from(out);
}

export function slim(buf) {
  if (buf.readUInt32LE(0) !== 0x6d736100) throw new Error("not a WebAssembly module");
  const parts = [buf.subarray(0, 8)];
  let i = 8;
  while (i < buf.length) {
    const id = buf[i];
    const [size, body] = leb(buf, i + 1);
    const end = body + size;
    if (id === 0) {
      i = end;
      continue;
    }
    if (id === 7) {
      // The export section: keep all but the describe functions.
      let [count, j] = leb(buf, body);
      const kept = [];
      for (let n = 0; n < count; n++) {
        const start = j;
        const [len, k] = leb(buf, j);
        const name = buf.subarray(k, k + len).toString("utf8");
        j = k + len + 1; // the kind byte
        [, j] = leb(buf, j); // the index
        if (!name.startsWith("__wbindgen_describe")) kept.push(buf.subarray(start, j));
      }
      const content = Buffer.concat([uleb(kept.length), ...kept]);
      parts.push(Buffer.from([7]), uleb(content.length), content);
      i = end;
      continue;
    }
    parts.push(buf.subarray(i, end));
    i = end;
  }
  return Buffer.concat(parts);
}

const [, , input, output] = process.argv;
if (input && output) {
  const out = slim(readFileSync(input));
  new WebAssembly.Module(out); // still a valid module
  writeFileSync(output, out);
}

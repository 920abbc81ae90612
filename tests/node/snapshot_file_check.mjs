// Checks the snapshot file format (docs/assets/javascripts/snapshot-file.mjs) with seeded random cases:
// pack then unpack, with the packed bytes arriving in chunks of random sizes, gives the memory back;
// damaged files (wrong magic, truncated, extra bytes, runs out of place) are refused.
// Usage: node snapshot_file_check.mjs [real snapshot .csn1.gz]  → JSON report on stdout.
import { readFile } from "node:fs/promises";

import { packSnapshot, unpackSnapshot } from "../../docs/assets/javascripts/snapshot-file.mjs";

let seed = 20261202;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const int = (n) => Math.floor(random() * n);

function randomMemory() {
  const memory = new Uint8Array(int(40000));
  for (let at = 0; at < memory.length; at += 4096) {
    const kind = int(3); // a zero page, a full page, or a page with a few bytes set
    for (let i = at; i < Math.min(at + 4096, memory.length); i++) {
      if (kind === 1 || (kind === 2 && random() < 0.01)) memory[i] = 1 + int(255);
    }
  }
  return memory;
}

function chunked(bytes) {
  const chunks = [];
  for (let at = 0; at < bytes.length;) {
    const size = 1 + int(random() < 0.5 ? 16 : 9000);
    chunks.push(bytes.slice(at, at + size));
    at += size;
  }
  return new ReadableStream({ start(controller) { chunks.forEach((c) => controller.enqueue(c)); controller.close(); } });
}

const equal = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);
const report = { roundtrips: 0, refused: 0, failures: [] };

for (let n = 0; n < 300; n++) {
  const memory = randomMemory();
  const packed = packSnapshot(memory);
  const back = await unpackSnapshot(chunked(packed));
  if (equal(back, memory)) report.roundtrips++;
  else report.failures.push(`roundtrip ${n}: size ${memory.length}`);
  let kept = 0; // bytes of the pages that are not all zeros: all that may be stored, with the header
  for (let at = 0; at < memory.length; at += 4096) {
    const page = memory.subarray(at, at + 4096);
    if (page.some((b) => b !== 0)) kept += page.length;
  }
  const runs = new DataView(packed.buffer).getUint32(8, true);
  if (packed.length !== 12 + 8 * runs + kept) report.failures.push(`not sparse ${n}`);

  const damaged = [];
  const wrongMagic = packed.slice(); wrongMagic[0] ^= 0xff; damaged.push(["magic", wrongMagic]);
  if (packed.length > 0) damaged.push(["truncated", packed.slice(0, int(packed.length))]);
  damaged.push(["extra", Uint8Array.from([...packed, 7])]);
  const view = new DataView(packed.buffer);
  if (view.getUint32(8, true) > 0) {
    const outside = packed.slice(); new DataView(outside.buffer).setUint32(12, memory.length, true); damaged.push(["outside", outside]);
  }
  for (const [what, bytes] of damaged) {
    try {
      await unpackSnapshot(chunked(bytes));
      report.failures.push(`accepted ${what} ${n}`);
    } catch {
      report.refused++;
    }
  }
}

const real = process.argv[2];
if (real) {
  const file = new Blob([await readFile(real)]);
  const memory = await unpackSnapshot(file.stream().pipeThrough(new DecompressionStream("gzip")));
  const again = await unpackSnapshot(chunked(packSnapshot(memory)));
  report.real = { size: memory.length, same: equal(again, memory) };
}
process.stdout.write(JSON.stringify(report));

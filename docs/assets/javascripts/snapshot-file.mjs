// The engine snapshot's file format: a Pyodide memory snapshot without its zero pages.
//
// About half of the 31 MB of memory is zero pages in a few dozen runs. Leaving
// them out halves what the worker must decompress and copy, which is most of a
// restore's cost. Layout, little-endian:
//   "CSN1"  u32 size of the memory  u32 number of runs  (u32 offset, u32 length) × runs  data of the runs
// gzip-compressed as a whole. The build packs it (scripts/make_snapshot.mjs);
// the worker and the Node tests unpack it.

const MAGIC = 0x314e5343; // "CSN1"
const PAGE = 4096;

/** Pack a memory snapshot: its non-zero pages only. @param {Uint8Array} memory @returns {Uint8Array} */
export function packSnapshot(memory) {
  const runs = [];
  for (let start = 0; start < memory.length; start += PAGE) {
    if (isZero(memory.subarray(start, start + PAGE))) continue;
    const end = Math.min(start + PAGE, memory.length);
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === start) last[1] = end - last[0];
    else runs.push([start, end - start]);
  }
  const headerLength = 12 + 8 * runs.length;
  const packed = new Uint8Array(headerLength + runs.reduce((sum, [, length]) => sum + length, 0));
  const header = new DataView(packed.buffer);
  header.setUint32(0, MAGIC, true);
  header.setUint32(4, memory.length, true);
  header.setUint32(8, runs.length, true);
  let at = headerLength;
  runs.forEach(([offset, length], i) => {
    header.setUint32(12 + 8 * i, offset, true);
    header.setUint32(16 + 8 * i, length, true);
    packed.set(memory.subarray(offset, offset + length), at);
    at += length;
  });
  return packed;
}

function isZero(bytes) {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * Unpack a snapshot from a stream of the packed bytes (already decompressed), as chunks arrive.
 * Throws on anything that is not a whole, well-formed snapshot.
 * @param {ReadableStream<Uint8Array>} stream @returns {Promise<Uint8Array>} the memory
 */
export async function unpackSnapshot(stream) {
  const reader = stream.getReader();
  let head = new Uint8Array(0);
  /** @type {Uint8Array | null} */ let memory = null;
  /** @type {Uint32Array} */ let runs = new Uint32Array(0);
  let run = 0;
  let filled = 0; // bytes of the current run already written
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let chunk = value;
    if (!memory) {
      head = concat(head, chunk);
      const layout = readHeader(head);
      if (!layout) continue;
      ({ memory, runs } = layout);
      chunk = head.subarray(12 + 4 * runs.length);
    }
    for (let at = 0; at < chunk.length;) {
      if (run * 2 >= runs.length) throw new Error("snapshot: more data than its runs");
      const offset = runs[run * 2], length = runs[run * 2 + 1];
      const n = Math.min(length - filled, chunk.length - at);
      memory.set(chunk.subarray(at, at + n), offset + filled);
      at += n;
      filled += n;
      if (filled === length) [run, filled] = [run + 1, 0];
    }
  }
  if (!memory || run * 2 !== runs.length) throw new Error("snapshot: truncated");
  return memory;
}

/** The memory to fill and its runs, once the whole header has arrived; null before. */
function readHeader(head) {
  if (head.length < 12) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new Error("snapshot: not a CSN1 file");
  const size = view.getUint32(4, true);
  const count = view.getUint32(8, true);
  if (head.length < 12 + 8 * count) return null;
  const runs = new Uint32Array(2 * count);
  let end = 0;
  for (let i = 0; i < 2 * count; i += 2) {
    runs[i] = view.getUint32(12 + 4 * i, true);
    runs[i + 1] = view.getUint32(16 + 4 * i, true);
    if (runs[i] < end || runs[i + 1] === 0 || runs[i] + runs[i + 1] > size) throw new Error("snapshot: bad run");
    end = runs[i] + runs[i + 1];
  }
  return { memory: new Uint8Array(size), runs };
}

function concat(a, b) {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/**
 * Pyodide restores a snapshot into the memory its runtime has right after start-up (the runtime's own memory, which
 * INITIAL_MEMORY does not size): a snapshot of a larger memory would not fit. Grow the new instance's memory to the
 * snapshot's size first. @param {WebAssembly.Instance} instance @param {Uint8Array} snapshot
 */
export function fitSnapshot(instance, snapshot) {
  const memory = instance.exports.memory;
  const pages = Math.ceil(snapshot.length / 65536) - memory.buffer.byteLength / 65536;
  if (pages > 0) memory.grow(pages);
}

// The build's snapshot, read as the browser worker reads it, with the runtime's memory grown to its size before the
// restore (WebAssembly.instantiate wrapped, as the worker wraps instantiateStreaming). Shared by the Node checks.
import { readFile } from "node:fs/promises";
import path from "node:path";

import { fitSnapshot, unpackSnapshot } from "../../docs/assets/javascripts/snapshot-file.mjs";

/** @param {string} buildDir @returns {Promise<Uint8Array>} the snapshot, ready for loadPyodide's _loadSnapshot */
export async function prepareSnapshot(buildDir) {
  const file = new Blob([await readFile(path.join(buildDir, "snapshot.csn1.gz"))]);
  const snapshot = await unpackSnapshot(file.stream().pipeThrough(new DecompressionStream("gzip")));
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async (...args) => {
    const made = await instantiate(...args);
    if (made.instance) fitSnapshot(made.instance, snapshot);
    return made;
  };
  return snapshot;
}

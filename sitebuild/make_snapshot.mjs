// Make a Pyodide memory snapshot with the calculator package already imported,
// from the same pinned runtime and wheel that the site ships.
// Usage: node sitebuild/make_snapshot.mjs <engine dir> <lock file name> <snapshot file name>
// (sitebuild/prepare_engine.py runs it; the names come from sitebuild/engine.py).
// Format: docs/assets/javascripts/snapshot-file.mjs. The wheel's sha256 is stored
// inside the snapshot (calculator._wheel_sha256) so that the worker can refuse a stale one.
//
// loadPackage() leaves JavaScript references that a snapshot cannot hold, so
// the wheel (registered in the lock file) is unpacked with zipfile instead.
import nodeCrypto from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

import { packSnapshot } from "../docs/assets/javascripts/snapshot-file.mjs";

/**
 * Zero the heap's free memory. What malloc has freed keeps its old bytes, which the snapshot would carry (about
 * 1.6 MB of pages that are not zero, 0.5 MB once compressed, measured on 2026-12-06). Every free block is taken with
 * malloc, zeroed and given back with free, so that the allocator's own bookkeeping stays its own; sizes go down
 * from 64 KiB, and a size stops as soon as the heap grows for it (the few blocks taken past the old end are zero
 * already). Python's objects all live in this heap: Pyodide's CPython has no pymalloc arenas of its own.
 */
function scrubFreeMemory(pyodide) {
  pyodide.runPython("import gc; gc.collect()");
  const runtime = pyodide._module;
  let end = runtime._sbrk(0);
  const taken = [];
  for (let size = 1 << 16; size >= 16; size >>= 1) {
    for (;;) {
      const block = runtime._malloc(size);
      if (!block) break;
      runtime.HEAPU8.fill(0, block, block + size);
      taken.push(block);
      if (runtime._sbrk(0) !== end) {
        end = runtime._sbrk(0);
        break;
      }
    }
  }
  taken.forEach((block) => runtime._free(block));
}

/**
 * Make the same sources give the same snapshot, byte for byte, so that a rebuild keeps the engine's content name
 * (sitebuild/content_names.py) and returning readers their cached engine. Besides Python's hash seed (fixed by
 * loadPyodide's env below), what Emscripten hands Python in this process is made deterministic: entropy (os.urandom,
 * the seeds of libc's and the random module's generators), the wall clock (file times, moving one second per read so
 * that the import system still sees the wheel's files appear) and the monotonic clock. These stand-ins live in this
 * Node process only: a restored engine reads the browser's clocks and entropy. What the snapshot holds (the random
 * module's state, the hash secret) was already the same for every visitor of a build.
 */
function deterministicRuntime() {
  let state = 0x9e3779b9;
  nodeCrypto.randomFillSync = (view) => {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    for (let i = 0; i < bytes.length; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      bytes[i] = state & 0xff;
    }
    return view;
  };
  let seconds = 315532800; // 1980-01-01, the wheel's SOURCE_DATE_EPOCH (sitebuild/prepare_engine.py)
  Date.now = () => 1000 * seconds++;
  let milliseconds = 0;
  performance.now = () => ++milliseconds;
}

/**
 * Python runs optimised (PYTHONOPTIMIZE=2, as `python -OO`) while the snapshot is made: the docstrings of every module
 * imported and every assert leave the snapshot's memory (0.86 MB fewer non-zero pages, 0.43 MB less to download:
 * 5.8 MB instead of 6.2, measured on 2026-12-07), and the restored engine keeps the flag. The calculator package
 * neither asserts nor reads a docstring (tests/site/test_snapshot_size.py checks its source), so its answers are the same.
 */
const PYTHON_ENV = { PYTHONHASHSEED: "0", PYTHONOPTIMIZE: "2" };

const [engineArg, lockName, snapshotName] = process.argv.slice(2);
deterministicRuntime();
const engineDir = path.resolve(engineArg) + path.sep;
const lock = JSON.parse(readFileSync(engineDir + lockName, "utf8"));
const entry = lock.packages.calculator;
const { loadPyodide } = await import(engineDir + "pyodide.mjs");
const pyodide = await loadPyodide({
  indexURL: engineDir, lockFileURL: engineDir + lockName, _makeSnapshot: true, env: PYTHON_ENV,
});
pyodide.FS.writeFile("/tmp/calculator.whl", readFileSync(engineDir + entry.file_name));
pyodide.globals.set("wheel_sha256", entry.sha256);
// calculator.form.warmup answers every kind of request, so that all the answers need is imported now.
pyodide.runPython(`
import site, zipfile
zipfile.ZipFile("/tmp/calculator.whl").extractall(site.getsitepackages()[0])
import calculator, calculator.form.warmup
calculator._wheel_sha256 = wheel_sha256
calculator.form.warmup.warm_up()
del wheel_sha256
`);
scrubFreeMemory(pyodide);
const snapshot = pyodide.makeMemorySnapshot();
const packed = packSnapshot(snapshot);
writeFileSync(engineDir + snapshotName, gzipSync(packed, { level: 9 }));
console.log(`snapshot: ${snapshot.length} bytes, ${packed.length} without its zero pages`);

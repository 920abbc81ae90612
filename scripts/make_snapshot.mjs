// Make a Pyodide memory snapshot with the calculator package already imported,
// from the same pinned runtime and wheel that the site ships.
// Usage: node scripts/make_snapshot.mjs <engine dir>
// Writes <engine dir>/snapshot.csn1.gz (format: docs/assets/javascripts/snapshot-file.mjs).
// The wheel's sha256 is stored inside the snapshot (calculator._wheel_sha256) so
// that the worker can refuse a stale one.
//
// loadPackage() leaves JavaScript references that a snapshot cannot hold, so
// the wheel (registered in pyodide-lock.json) is unpacked with zipfile instead.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

import { packSnapshot } from "../docs/assets/javascripts/snapshot-file.mjs";

const engineDir = path.resolve(process.argv[2]) + path.sep;
const lock = JSON.parse(readFileSync(engineDir + "pyodide-lock.json", "utf8"));
const entry = lock.packages.calculator;
const { loadPyodide } = await import(engineDir + "pyodide.mjs");
const pyodide = await loadPyodide({ indexURL: engineDir, lockFileURL: engineDir + "pyodide-lock.json", _makeSnapshot: true });
pyodide.FS.writeFile("/tmp/calculator.whl", readFileSync(engineDir + entry.file_name));
pyodide.runPython(`
import json, site, zipfile
zipfile.ZipFile("/tmp/calculator.whl").extractall(site.getsitepackages()[0])
import calculator, calculator.api
calculator._wheel_sha256 = "${entry.sha256}"

# Answer every kind of request once (defaults, the article's examples, a wrong value in each field, a
# request that is not JSON), so that all the answers need is imported now: the browser installs the
# standard library's files only after the engine is ready.
for calc in calculator.CALCULATORS.values():
    requests = [calc.defaults, *({**calc.defaults, **example} for example in calc.examples.values())]
    requests += [{**calc.defaults, spec.id: "x"} for spec in calc.fields]
    for values in requests:
        calculator.api.handle(json.dumps({"calculator": calc.id, "values": values}))
calculator.api.handle("{")
`);
const snapshot = pyodide.makeMemorySnapshot();
const packed = packSnapshot(snapshot);
writeFileSync(engineDir + "snapshot.csn1.gz", gzipSync(packed, { level: 9 }));
console.log(`snapshot: ${snapshot.length} bytes, ${packed.length} without its zero pages`);

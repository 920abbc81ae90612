// Answers a list of calculator requests inside Pyodide, through the same
// engine directory that the site ships: by default its wheel and lock file,
// with --snapshot its memory snapshot (as the browser worker restores it).
// Usage: node run_in_pyodide.mjs <engine dir> <requests.json> [--snapshot]  → JSON responses on stdout.
import { readFile } from "node:fs/promises";
import path from "node:path";

import { unpackSnapshot } from "../../docs/assets/javascripts/snapshot-file.mjs";

const [engineDir, requestsFile, mode] = process.argv.slice(2);
const indexURL = path.resolve(engineDir) + path.sep;
const { loadPyodide } = await import(path.join(indexURL, "pyodide.mjs"));
const options = { indexURL, lockFileURL: path.join(indexURL, "pyodide-lock.json"), stdout: () => {} };
let pyodide;
if (mode === "--snapshot") {
  const file = new Blob([await readFile(path.join(indexURL, "snapshot.csn1.gz"))]);
  const snapshot = await unpackSnapshot(file.stream().pipeThrough(new DecompressionStream("gzip")));
  pyodide = await loadPyodide({ ...options, _loadSnapshot: snapshot });
} else {
  pyodide = await loadPyodide(options);
  await pyodide.loadPackage("calculator", { messageCallback: () => {} });
}
const api = pyodide.pyimport("calculator.api");
const requests = JSON.parse(await readFile(requestsFile, "utf8"));
const responses = requests.map((request) => JSON.parse(api.handle(JSON.stringify(request))));
const version = pyodide.runPython("import sys; sys.version.split()[0]");
const wheel = pyodide.runPython("import calculator; getattr(calculator, '_wheel_sha256', '')");
process.stdout.write(JSON.stringify({ python: version, wheel, responses }));

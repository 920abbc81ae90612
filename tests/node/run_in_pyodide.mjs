// Answers a list of calculator requests inside Pyodide, through the same
// engine directories that the site ships (Pyodide's, and our build's, named by its content, with the loader): by
// default its wheel and lock file,
// with --snapshot its memory snapshot, restored as the browser worker does: with an empty standard
// library, the real one written in only at the end (to show that imports then work again).
// Usage: node run_in_pyodide.mjs <engine dir> <build dir> <requests.json> [--snapshot]  → JSON responses on stdout.
import { readFile } from "node:fs/promises";
import path from "node:path";

import { prepareSnapshot } from "./snapshot_restore.mjs";

const [engineDir, buildDir, requestsFile, mode] = process.argv.slice(2);
const indexURL = path.resolve(engineDir) + path.sep;
const buildURL = path.resolve(buildDir) + path.sep;
const { loadPyodide } = await import(path.join(indexURL, "pyodide.mjs"));
// Pyodide's loader as the site ships it, trimmed, among the build's files (sitebuild/trim_loader.py).
const { default: createPyodideModule } = await import(path.join(buildURL, "pyodide.asm.mjs"));
const options = {
  indexURL, lockFileURL: path.join(buildURL, "pyodide-lock.json"), packageBaseUrl: buildURL, createPyodideModule,
  stdout: () => {},
};
let pyodide;
if (mode === "--snapshot") {
  const snapshot = await prepareSnapshot(buildURL);
  pyodide = await loadPyodide({
    ...options, _loadSnapshot: snapshot, stdLibURL: path.join(indexURL, "python_stdlib.empty.zip"),
  });
} else {
  pyodide = await loadPyodide(options);
  await pyodide.loadPackage("calculator", { messageCallback: () => {} });
}
const api = pyodide.pyimport("calculator.form.api");
const requests = JSON.parse(await readFile(requestsFile, "utf8"));
const responses = requests.map((request) => JSON.parse(api.handle(JSON.stringify(request))));
const version = pyodide.runPython("import sys; sys.version.split()[0]");
const wheel = pyodide.runPython("import calculator; getattr(calculator, '_wheel_sha256', '')");
const lateImport = () => pyodide.runPython("import colorsys; colorsys.rgb_to_hls(1, 0, 0)[0]");
const optimize = pyodide.runPython("import sys; sys.flags.optimize");
const result = { python: version, wheel, optimize, responses };
if (mode === "--snapshot") {
  try {
    lateImport();
    result.importWithoutLibrary = "worked";
  } catch (error) {
    result.importWithoutLibrary = String(error).trim().split("\n").pop(); // Python's last line
  }
  const archive = pyodide.runPython("import sys; next(p for p in sys.path if p.endswith('.zip'))");
  pyodide.FS.writeFile(archive, await readFile(path.join(indexURL, "python_stdlib.zip")));
  result.importWithLibrary = lateImport();
}
process.stdout.write(JSON.stringify(result));

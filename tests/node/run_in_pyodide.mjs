// Answers a list of calculator requests inside Pyodide, through the same
// engine directory, wheel and lock file that the site ships.
// Usage: node run_in_pyodide.mjs <engine dir> <requests.json>  → JSON responses on stdout.
import { readFile } from "node:fs/promises";
import path from "node:path";

const [engineDir, requestsFile] = process.argv.slice(2);
const indexURL = path.resolve(engineDir) + path.sep;
const { loadPyodide } = await import(path.join(indexURL, "pyodide.mjs"));
const pyodide = await loadPyodide({
  indexURL,
  lockFileURL: path.join(indexURL, "pyodide-lock.json"),
  stdout: () => {},
});
await pyodide.loadPackage("calculator", { messageCallback: () => {} });
const api = pyodide.pyimport("calculator.api");
const requests = JSON.parse(await readFile(requestsFile, "utf8"));
const responses = requests.map((request) => JSON.parse(api.handle(JSON.stringify(request))));
const version = pyodide.runPython("import sys; sys.version.split()[0]");
process.stdout.write(JSON.stringify({ python: version, responses }));

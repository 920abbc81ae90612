// Restores the site's snapshot twice, with Pyodide's own loader and with the trimmed one the site ships
// (sitebuild/trim_loader.py), and compares what the restored memory depends on: the runtime's function table, entry by
// entry (a function pointer in the snapshot is an index into it), and the value of every symbol of the offset table.
// Usage: node loader_check.mjs <engine dir> <build dir> <Pyodide's pyodide.asm.mjs>  → JSON on stdout.
import path from "node:path";

import { prepareSnapshot } from "./snapshot_restore.mjs";

const [engineDir, buildDir, originalLoader] = process.argv.slice(2);
const indexURL = path.resolve(engineDir) + path.sep;
const buildURL = path.resolve(buildDir) + path.sep;
const { loadPyodide } = await import(path.join(indexURL, "pyodide.mjs"));
const snapshot = await prepareSnapshot(buildURL);

async function restore(loader) {
  const { default: createPyodideModule } = await import(path.resolve(loader));
  const pyodide = await loadPyodide({
    indexURL, lockFileURL: path.join(buildURL, "pyodide-lock.json"), packageBaseUrl: buildURL, createPyodideModule,
    _loadSnapshot: snapshot.slice(), stdLibURL: path.join(indexURL, "python_stdlib.empty.zip"), stdout: () => {},
  });
  const runtime = pyodide._module;
  const made = Object.keys(runtime.GOT).length; // Globals made by the start itself, before anything reads one
  const table = Array.from({ length: runtime.wasmTable.length }, (_, i) => runtime.wasmTable.get(i)?.name ?? null);
  // What the bootstrap keeps, as Python sees it: its dict for internal code (its names, and whether each is the object
  // Pyodide's own snippets bind there), the modules it holds, and the globals it hands the page.
  const api = pyodide._api;
  const describe = pyodide.runPython(`
def describe(internal, importlib, sys, os, globals):
    import builtins, importlib as il, sys as s, os as o, __main__
    return [list(internal), internal.get("__builtins__") is builtins.__dict__, internal.get("importlib") is il,
            internal.get("__main__") is __main__, internal.get("builtins") is builtins,
            importlib is il, sys is s, os is o, globals is __main__.__dict__]
describe`);
  const bootstrap = describe(api.runPythonInternal_dict, api.importlib, api.sys, api.os, pyodide.globals).toJs();
  // The first calculator with its defaults: an answer computed through the restored runtime.
  const answer = pyodide.runPython(
    "from calculator.form import api, warmup; api.handle(next(warmup.requests()))");
  return { runtime, made, table, answer, bootstrap };
}

const original = await restore(originalLoader);
const trimmed = await restore(path.join(buildURL, "pyodide.asm.mjs"));
const symbols = Object.keys(original.runtime.GOT);
const differing = symbols.filter((name) => trimmed.runtime.GOT[name]?.value !== original.runtime.GOT[name].value);
const tableDiffers = original.table.findIndex((name, i) => trimmed.table[i] !== name);
process.stdout.write(JSON.stringify({
  symbols: symbols.length,
  differing: differing.slice(0, 10),
  globalsMade: { original: original.made, trimmed: trimmed.made },
  table: { original: original.table.length, trimmed: trimmed.table.length, firstDifference: tableDiffers },
  answers: [original.answer, trimmed.answer].map((answer) => JSON.parse(answer)),
  bootstrap: [original.bootstrap, trimmed.bootstrap],
}));

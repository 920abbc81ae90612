// Module worker that runs the Python calculator package in Pyodide.
// It holds no formula and no field list: it passes strings to calculator.api.handle.
//
// Protocol (page → worker):
//   {type: "compute", id: number, request: string}   request = JSON for calculator.api.handle
// Protocol (worker → page):
//   {type: "ready", boot: "snapshot" | "normal"}
//   {type: "result", id: number, response: string}   response = JSON from calculator.api.handle
//   {type: "failed", reason: string}                 the engine could not start (technical detail, English)
//
// Start-up: restore the memory snapshot made at build time (calculator already
// imported), which takes a fraction of a second; if that fails in any way (the
// snapshot API is not a stable one), boot Pyodide normally and load the wheel.

const ENGINE = new URL("../engine/314.0.7/", import.meta.url);
const LOCK_URL = new URL("pyodide-lock.json", ENGINE);
const SNAPSHOT_URL = new URL("snapshot.csn1.gz", ENGINE);
const WASM_URL = new URL("pyodide.asm.wasm", ENGINE);
const STDLIB_URL = new URL("python_stdlib.zip", ENGINE);
// A restored snapshot has imported all its answers need (scripts/make_snapshot.mjs answers every kind
// of request before it is made): it starts with an empty standard library, the real one comes after.
const EMPTY_STDLIB_URL = new URL("python_stdlib.empty.zip", ENGINE);
const options = { indexURL: ENGINE.href, packageBaseUrl: ENGINE.href, stdout: () => {}, stderr: () => {} };

// Start every download at once; each is awaited only where it is needed.
const pyodideModule = import(new URL("pyodide.mjs", ENGINE).href);
import(new URL("pyodide.asm.mjs", ENGINE).href).catch(() => {}); // loadPyodide imports it later: same module, already parsed
const lock = fetch(LOCK_URL).then((r) => r.json()); // read once, by us and by loadPyodide
lock.catch(() => {});
const lockSha = lock.then((contents) => contents.packages.calculator.sha256);
const snapshotFile = import("./snapshot-file.mjs");
const snapshotBytes = fetch(SNAPSHOT_URL).then(async (response) => {
  if (!response.ok) throw new Error(`snapshot: HTTP ${response.status}`);
  return (await snapshotFile).unpackSnapshot(response.body.pipeThrough(new DecompressionStream("gzip")));
});
snapshotBytes.catch(() => {}); // a missing snapshot only means a normal boot
const compiledRuntime = WebAssembly.compileStreaming(fetch(WASM_URL));
compiledRuntime.catch(() => {}); // then loadPyodide compiles it itself

// loadPyodide compiles the runtime only once it holds the whole snapshot; hand it
// the module compiled meanwhile (its own download of the same file is dropped).
const instantiateStreaming = WebAssembly.instantiateStreaming;
WebAssembly.instantiateStreaming = async (source, imports) => {
  let module;
  try {
    module = await compiledRuntime;
  } catch {
    return instantiateStreaming(source, imports);
  }
  Promise.resolve(source).then((response) => response.body?.cancel(), () => {});
  return { module, instance: await WebAssembly.instantiate(module, imports) };
};

async function fromSnapshot(loadPyodide) {
  const pyodide = await loadPyodide({
    ...options, lockFileContents: lock, _loadSnapshot: snapshotBytes, stdLibURL: EMPTY_STDLIB_URL.href,
  });
  const made = pyodide.runPython("import calculator; getattr(calculator, '_wheel_sha256', '')");
  if (made !== (await lockSha)) throw new Error("snapshot made from another build");
  return pyodide;
}

async function normalBoot(loadPyodide) {
  const pyodide = await loadPyodide({ ...options, lockFileContents: lock });
  await pyodide.loadPackage("calculator", { messageCallback: () => {}, errorCallback: () => {} });
  return pyodide;
}

/** @type {Promise<{handle: (request: string) => string, boot: string}>} */
const engine = (async () => {
  const { loadPyodide } = await pyodideModule;
  let pyodide;
  let boot = "snapshot";
  try {
    pyodide = await fromSnapshot(loadPyodide);
  } catch {
    boot = "normal";
    pyodide = await normalBoot(loadPyodide);
  }
  const handle = pyodide.pyimport("calculator.api").handle;
  return { pyodide, handle: (request) => handle(request), boot };
})();

/** Put the real standard library where the snapshot's Python expects it (it knows its directory). */
async function installStdlib(pyodide) {
  const response = await fetch(STDLIB_URL);
  if (!response.ok) throw new Error(`standard library: HTTP ${response.status}`);
  const archive = pyodide.runPython("import sys; next(p for p in sys.path if p.endswith('.zip'))");
  pyodide.FS.writeFile(archive, new Uint8Array(await response.arrayBuffer()));
}

/**
 * Answer. calculator.api.handle never raises: if it does, the answer needed a module that the
 * snapshot had not imported (its archive is still empty), so try once more when the library is in.
 */
async function answer(handle, request) {
  try {
    return handle(request);
  } catch {
    await stdlib;
    return handle(request);
  }
}

// A failure deep inside Pyodide's loader may surface as an unhandled rejection:
// it means the engine cannot start, which the page already hears about.
self.addEventListener("unhandledrejection", (event) => event.preventDefault());

engine.then(
  ({ boot }) => self.postMessage({ type: "ready", boot }),
  (error) => self.postMessage({ type: "failed", reason: String(error && error.message || error) }),
);
// Once ready (the page has heard so just before), fetch the standard library for later imports.
const stdlib = engine.then(({ pyodide, boot }) => boot === "snapshot" && installStdlib(pyodide));
stdlib.catch(() => {}); // then only an answer that needs it fails, and says so

self.addEventListener("message", async ({ data }) => {
  if (!data || data.type !== "compute") return;
  let handle;
  try {
    ({ handle } = await engine);
  } catch {
    return; // already reported as "failed"
  }
  try {
    self.postMessage({ type: "result", id: data.id, response: await answer(handle, String(data.request)) });
  } catch (error) {
    self.postMessage({ type: "failed", reason: String(error && error.message || error) });
  }
});

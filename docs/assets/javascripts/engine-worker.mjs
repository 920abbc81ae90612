// Module worker that runs the Python calculator package in Pyodide.
// It holds no formula and no field list: it passes strings to calculator.form.api.handle.
// Messages: engine-protocol.mjs. The worker's name is the engine's version (its directory), so that its downloads
// begin as soon as this script runs; a worker without a name waits for the "start" message, which names it too.
// Its two modules are imported dynamically for the same reason (a static import would hold this script's first
// line until both had arrived); messages that come before them are kept and read once they are in.
//
// Start-up: restore the memory snapshot made at build time (calculator already
// imported), which takes a fraction of a second; if that fails in any way (the
// snapshot API is not a stable one, or its download stalls), boot Pyodide normally and load the wheel.
// The big downloads report their progress to the page (which waits as long as they move); a runtime that cannot
// be downloaded or compiled fails the start at once, since neither way can start without it.

const modules = Promise.all([import("./engine-protocol.mjs"), import("./snapshot-file.mjs")]);
/** engine-protocol.mjs, once loaded. */
let protocol = null;
// A module that cannot load stops the worker with an error, which the page hears at once.
modules.catch((error) => setTimeout(() => {
  throw error;
}));

/** The engine's directory for a version: engine-protocol.mjs's engineDirectory, written out (needed before it loads). */
const engineDirectory = (version) => new URL(`../engine/${version}/`, import.meta.url);

// This build's own engine files (our wheel, its lock file, the snapshot), relative to Pyodide's versioned directory:
// the build moves them into a directory named by their content and writes its name here (sitebuild/content_names.py),
// so that this worker, itself named by its content, only ever loads the engine it was built with.
const BUILD_FILES = "./";

// The bytes of a start from the snapshot as counted here (the runtime and the snapshot), written in by the build
// (sitebuild/content_names.py) for the page's progress bar; 0: not known (the page's bar then says no amount).
const START_BYTES = 0;

/** Where this build's own files are. */
const buildDirectory = (engineDir) => new URL(BUILD_FILES, engineDir);

// A download with somewhere else to turn (the snapshot: the normal start) that receives nothing for this long (its
// answer, or its next bytes) is abandoned. The runtime has nowhere else: the page's budget for the start decides.
const STALL_MS = 10000;
// Progress reaches the page at most this often.
const PROGRESS_EVERY_MS = 250;

let received = 0;
let reported = 0;
function progress(bytes) {
  received += bytes;
  const now = Date.now();
  if (now - reported < PROGRESS_EVERY_MS) return;
  reported = now;
  if (protocol) self.postMessage(protocol.progress(received, START_BYTES));
}

/** fetch, with its progress reported, abandoned (if ``stalls``) when nothing arrives for STALL_MS. With ``readHere``
 * (a body only this worker reads) the bytes are counted as they pass, in a response made of the counted stream. The
 * runtime's is the browser's own response instead, its bytes counted on a copy: V8 keeps compiled WebAssembly beside
 * a cached response (the HTTP cache, the service worker's cache) for the next visit, which a Response made here (no
 * URL) never gets; a copy of the others (the snapshot's 6 MB) would only cost time and memory during the start. */
async function watchedFetch(url, { stalls = false, readHere = false } = {}) {
  const controller = new AbortController();
  let timer = 0;
  const arm = () => {
    clearTimeout(timer);
    if (stalls) timer = setTimeout(() => controller.abort(new Error(`${url.split("/").pop()}: stalled`)), STALL_MS);
  };
  arm();
  let response;
  try {
    response = await fetch(url, { signal: controller.signal });
  } catch (error) {
    clearTimeout(timer);
    throw error;
  }
  if (!response.ok || !response.body) {
    clearTimeout(timer);
    return response;
  }
  const done = () => clearTimeout(timer);
  const count = (chunk) => {
    arm();
    progress(chunk.byteLength);
  };
  if (readHere) {
    const counted = response.body.pipeThrough(new TransformStream({
      transform(chunk, stream) {
        count(chunk);
        stream.enqueue(chunk);
      },
      flush: done,
    }));
    const { status, statusText, headers } = response;
    return new Response(counted, { status, statusText, headers });
  }
  response.clone().body.pipeTo(new WritableStream({ write: count, close: done, abort: done })).catch(done);
  return response;
}

/** Pyodide's runtime, compiled as it downloads; missing or not WebAssembly: an error that says so. */
async function compileRuntime(url) {
  const response = await watchedFetch(url);
  if (!response.ok) throw new Error(`pyodide.asm.wasm: HTTP ${response.status}`);
  // Streaming needs the right type; a host that sends another is slower, not broken.
  if ((response.headers.get("Content-Type") || "").startsWith("application/wasm")) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

/** Every download starts at once; each is awaited only where it is needed. */
function download(engineDir) {
  const url = (name) => new URL(name, engineDir).href;
  const own = (name) => new URL(name, buildDirectory(engineDir)).href;
  const lock = fetch(own("pyodide-lock.json")).then((r) => r.json()); // read once, by us and by loadPyodide
  const snapshot = watchedFetch(own("snapshot.csn1.gz"), { stalls: true, readHere: true }).then((response) => {
    if (!response.ok) throw new Error(`snapshot: HTTP ${response.status}`);
    return modules.then(([, file]) => file.unpackSnapshot(response.body.pipeThrough(new DecompressionStream("gzip"))));
  });
  const runtime = compileRuntime(url("pyodide.asm.wasm"));
  const files = {
    pyodide: import(url("pyodide.mjs")),
    loader: import(own("pyodide.asm.mjs")), // Pyodide's, trimmed for this build (sitebuild/trim_loader.py)
    lock,
    lockSha: lock.then((contents) => contents.packages.calculator.sha256),
    snapshot,
    runtime,
  };
  // A missing snapshot only means a normal boot; a runtime or a loader that failed here fails the start (boot()).
  for (const promise of [lock, snapshot, runtime, files.loader]) promise.catch(() => {});
  return files;
}

/** loadPyodide compiles the runtime only once it holds the whole snapshot: hand it the module compiled meanwhile,
 * its memory grown to the snapshot's size (a restore needs it; a normal start does not mind). loadPyodide also
 * fetches the runtime itself as it starts, for the instantiation replaced here: a second response, served again by
 * the HTTP cache (inflated again, from a host that sends it gzipped) during the start's busiest moment, only to be
 * dropped. Its request gets an empty answer instead. A runtime that failed fails the start (boot()). */
function useCompiledRuntime(runtime, snapshot, runtimeURL) {
  const fetchOnce = self.fetch;
  self.fetch = (input, init) => (String(input instanceof Request ? input.url : input) === runtimeURL
    ? Promise.resolve(new Response(null, { headers: { "Content-Type": "application/wasm" } }))
    : fetchOnce(input, init));
  WebAssembly.instantiateStreaming = async (_source, imports) => {
    const module = await runtime;
    const instance = await WebAssembly.instantiate(module, imports);
    const [, file] = await modules;
    await snapshot.then((bytes) => file.fitSnapshot(instance, bytes), () => {});
    return { module, instance };
  };
}

async function boot(engineDir, files) {
  useCompiledRuntime(files.runtime, files.snapshot, new URL("pyodide.asm.wasm", engineDir).href);
  // Neither way starts without the runtime: if it cannot be downloaded or compiled, the start fails now.
  const withoutRuntime = files.runtime.then(() => new Promise(() => {}));
  return Promise.race([start(files, engineDir), withoutRuntime]);
}

async function start(files, engineDir) {
  const { loadPyodide } = await files.pyodide;
  const options = {
    indexURL: engineDir.href, packageBaseUrl: buildDirectory(engineDir).href, lockFileContents: files.lock,
    createPyodideModule: (await files.loader).default, stdout: () => {}, stderr: () => {},
  };
  try {
    // A restored snapshot has imported all its answers need (calculator.form.warmup answered every kind of
    // request before it was made): it starts with an empty standard library, the real one comes after.
    const pyodide = await loadPyodide({
      ...options, _loadSnapshot: files.snapshot, stdLibURL: new URL("python_stdlib.empty.zip", engineDir).href,
    });
    // Read without Python source: nothing is parsed before the first answer (sitebuild/trim_loader.py).
    const calculator = pyodide.pyimport("calculator");
    const made = calculator._wheel_sha256;
    calculator.destroy();
    if (made !== (await files.lockSha)) throw new Error("snapshot made from another build");
    return { pyodide, boot: "snapshot" };
  } catch {
    const pyodide = await loadPyodide(options);
    await pyodide.loadPackage("calculator", { messageCallback: () => {}, errorCallback: () => {} });
    return { pyodide, boot: "normal" };
  }
}

/** Put the real standard library where the snapshot's Python expects it (it knows its directory). */
async function installStdlib(pyodide, engineDir) {
  const response = await watchedFetch(new URL("python_stdlib.zip", engineDir).href, { stalls: true, readHere: true });
  if (!response.ok) throw new Error(`standard library: HTTP ${response.status}`);
  const archive = pyodide.runPython("import sys; next(p for p in sys.path if p.endswith('.zip'))");
  pyodide.FS.writeFile(archive, new Uint8Array(await response.arrayBuffer()));
}

/** Whether calculator.form.api answered that a module was missing (the snapshot's library is still empty). */
const missingModule = (response) => {
  try {
    return JSON.parse(response).reason === "missing_module";
  } catch {
    return false;
  }
};

// A failure deep inside Pyodide's loader may surface as an unhandled rejection:
// it means the engine cannot start, which the page already hears about.
self.addEventListener("unhandledrejection", (event) => event.preventDefault());

/** The engine's directory, once named (by the worker's name, or by the first "start" message); its downloads begin then. */
let begin = () => {};
const named = new Promise((resolve) => (begin = resolve));
let chosen = false;
function startWith(version) {
  if (chosen) return;
  chosen = true;
  const engineDir = engineDirectory(version);
  begin({ engineDir, files: download(engineDir) });
}
if (self.name) startWith(self.name);

const engine = named.then(async ({ engineDir, files }) => {
  await modules;
  const { pyodide, boot: how } = await boot(engineDir, files);
  const handle = pyodide.pyimport("calculator.form.api").handle;
  return { pyodide, engineDir, boot: how, handle: (request) => handle(request) };
});
engine.then(({ boot: how }) => self.postMessage(protocol.ready(how)), async (error) => {
  await modules;
  self.postMessage(protocol.failed(error));
});
// Once ready, the standard library for later imports is fetched when no answer has been asked for CALM_MS (the first
// edits come first, while the runtime still compiles the code they run), or at once when an answer needs it.
const CALM_MS = 2000;
let lastRequest = -Infinity;
let wantStdlib = () => {};
const stdlibWanted = new Promise((resolve) => (wantStdlib = resolve));
const stdlib = engine.then(async ({ pyodide, engineDir, boot: how }) => {
  if (how !== "snapshot") return false;
  await stdlibWanted;
  return installStdlib(pyodide, engineDir);
});
stdlib.catch(() => {}); // then only an answer that needs it fails, and says so
engine.then(() => {
  const readyAt = performance.now();
  const check = () => {
    const wait = Math.max(readyAt, lastRequest) + CALM_MS - performance.now();
    if (wait <= 0) wantStdlib();
    else setTimeout(check, wait);
  };
  check();
}, () => {});

/** calculator.form.api.handle never raises; an answer that needed a missing module is retried once the library is in. */
async function answer(handle, request) {
  const response = handle(request);
  if (!missingModule(response)) return response;
  wantStdlib();
  try {
    await stdlib;
  } catch {
    return response;
  }
  return handle(request);
}

// V8 runs the runtime's functions in its baseline tier first and moves those that run often to its optimising tier,
// compiled in the background: after a start, edits took up to three times as long as once the runtime had run a while
// (reports/measurements.md). So once an answer is sent and no request has come for WARM_IDLE_MS, the worker answers
// the last request again, one call per task (a request that arrives waits for one call at most), its answers dropped,
// until WARM_CALLS calls or WARM_MS of them in the worker's life. The User Timing measure WARM_MEASURE records it.
const WARM_CALLS = 80;
const WARM_MS = 300;
const WARM_IDLE_MS = 50;
const WARM_MEASURE = "engine warm-up";
const warm = { calls: 0, ms: 0, last: 0, start: -1, timer: 0, done: false };

function warmUpSoon(handle, request) {
  clearTimeout(warm.timer);
  const step = () => {
    const idle = performance.now() - lastRequest;
    if (idle < WARM_IDLE_MS) {
      warm.timer = setTimeout(step, WARM_IDLE_MS - idle);
      return;
    }
    const start = performance.now();
    if (warm.start < 0) warm.start = start;
    let response;
    try {
      response = handle(request);
    } catch {
      return; // the next request hears of a broken runtime
    }
    warm.calls += 1;
    warm.last = performance.now() - start;
    warm.ms += warm.last;
    if (missingModule(response)) return; // waits for the standard library: the next answer warms up instead
    if (warm.calls < WARM_CALLS && warm.ms < WARM_MS) {
      warm.timer = setTimeout(step);
      return;
    }
    warm.done = true;
    // last: the final call's time (a call runs whole, so the total may pass WARM_MS by that much).
    const detail = { calls: warm.calls, ms: Math.round(warm.ms), last: Math.round(warm.last) };
    performance.measure(WARM_MEASURE, { start: warm.start, end: performance.now(), detail });
  };
  if (!warm.done) warm.timer = setTimeout(step, WARM_IDLE_MS);
}

async function computeAnswer(data) {
  lastRequest = performance.now();
  let handle;
  try {
    ({ handle } = await engine);
  } catch {
    return; // already reported as "failed"
  }
  try {
    const request = String(data.request);
    self.postMessage(protocol.result(data.id, await answer(handle, request)));
    lastRequest = performance.now();
    warmUpSoon(handle, request);
  } catch (error) {
    self.postMessage(protocol.failed(error));
  }
}

function receive(data) {
  if (!data) return;
  if (data.type === protocol.START) startWith(String(data.version));
  // The page asks whether we are alive when an answer is late: answered at once, unless Python is busy computing.
  else if (data.type === protocol.PING) self.postMessage(protocol.pong());
  else if (data.type === protocol.COMPUTE) computeAnswer(data);
}

const inbox = [];
const keep = ({ data }) => inbox.push(data);
self.addEventListener("message", keep);
modules.then(([loaded]) => {
  protocol = loaded;
  self.removeEventListener("message", keep);
  self.addEventListener("message", ({ data }) => receive(data));
  inbox.splice(0).forEach(receive);
}, () => {});

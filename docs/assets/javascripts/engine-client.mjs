// The page's side of the engine: one module worker (engine-worker.mjs) for the whole visit, shared by
// every form, across the theme's instant navigation. It starts the worker (or adopts the one that the
// inline script engine-start.js started while the page was parsed), gives up after a time limit,
// numbers the requests and hands each answer to its caller. Messages: engine-protocol.mjs.
//
// Where the worker is: the build writes it once, on each form, as data-worker, a path from the site's
// root (MkDocs and Zensical do not rewrite raw HTML attributes, and the Markdown extension does not
// know how deep a page is). Both start paths resolve it against the root: this module is two folders
// below it (assets/javascripts/), the inline script finds it from our stylesheet (assets/stylesheets/).
// Either way it holds at any depth and under any sub-path (GitHub Pages).

import * as protocol from "./engine-protocol.mjs";

const SITE_ROOT = new URL("../../", import.meta.url);
// Pyodide may never settle if its wasm cannot be compiled: give up after this long.
const BOOT_TIMEOUT_MS = Number(globalThis.CALC_BOOT_TIMEOUT_MS) || 30000;

/** The shared engine. */
const engine = {
  /** @type {Worker | null} */ worker: null,
  /** @type {"loading" | "ready" | "failed" | "file"} */ state: "loading",
  /** @type {"" | "snapshot" | "normal"} */ boot: "",
  reason: "",
  nextId: 1,
  /** @type {Map<number, (response: string) => void>} */ pending: new Map(),
  /** @type {Set<() => void>} */ listeners: new Set(),
  timer: 0,
};

/** What a form shows of the engine: its state, how it started, why it failed. */
export const engineStatus = () => ({ state: engine.state, boot: engine.boot, reason: engine.reason });

/** Call ``listener`` on every change of state; returns what stops it. */
export function onEngineChange(listener) {
  engine.listeners.add(listener);
  return () => engine.listeners.delete(listener);
}

function setEngineState(state) {
  engine.state = state;
  clearTimeout(engine.timer);
  for (const listener of engine.listeners) listener();
}

/** The worker's address, from the form the build marked (data-worker: a path from the site's root). */
export const workerUrl = (form) => new URL(form.dataset.worker, SITE_ROOT);

// This deploy's worker. The build names every script by its content (sitebuild/content_names.py) and writes the
// worker's name here and on the forms, so a form that names another worker is a page of another deploy.
const OWN_WORKER = new URL("./engine-worker.mjs", import.meta.url);

/** Whether ``form`` belongs to the deploy of this script (the theme's instant navigation may bring a newer page). */
export const isOwnDeploy = (form) => workerUrl(form).href === OWN_WORKER.href;

/** Start the engine, or start it again (a retry), for the version and worker ``form`` names. */
export function startEngine(form) {
  if (location.protocol === "file:") return setEngineState("file");
  stopWorker();
  setEngineState("loading");
  // The first time, adopt the worker that the inline script after the form started.
  const early = window.calcEngineStart;
  window.calcEngineStart = null;
  try {
    engine.worker = early ? early.worker : new Worker(workerUrl(form), { type: "module" });
    if (!early) engine.worker.postMessage(protocol.start(form.dataset.engine));
  } catch (error) {
    return fail(protocol.failed(error));
  }
  engine.timer = setTimeout(() => fail(protocol.failed("no answer in time")), BOOT_TIMEOUT_MS);
  engine.worker.addEventListener("message", ({ data }) => receive(data));
  engine.worker.addEventListener("error", (event) => fail(protocol.failed(event.message || "worker error")));
  if (early) early.release().forEach(receive);
}

/** Start the engine for ``form`` unless one is already running (or cannot run here). */
export function ensureEngine(form) {
  if (!engine.worker && engine.state !== "file") startEngine(form);
}

function receive(data) {
  if (data.type === protocol.READY) {
    engine.boot = data.boot;
    engine.reason = "";
    setEngineState("ready");
  }
  else if (data.type === protocol.FAILED) fail(data);
  else if (data.type === protocol.RESULT) {
    const resolve = engine.pending.get(data.id);
    engine.pending.delete(data.id);
    if (resolve) resolve(data.response);
  }
}

function stopWorker() {
  if (engine.worker) engine.worker.terminate();
  engine.worker = null;
  engine.pending.clear(); // their forms recompute when the engine is ready again
}

function fail(message) {
  engine.reason = message.reason;
  stopWorker();
  setEngineState("failed");
}

/** @returns {Promise<string>} the JSON response of calculator.form.api.handle (call it once the engine is ready) */
export function compute(request) {
  return new Promise((resolve) => {
    const id = engine.nextId++;
    engine.pending.set(id, resolve);
    engine.worker.postMessage(protocol.compute(id, request));
  });
}

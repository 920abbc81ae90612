// The page's side of the engine: one module worker (engine-worker.mjs) for the whole visit, shared by
// every form, across the theme's instant navigation. It starts the worker (or adopts the one that the
// inline script engine-start.js started at the top of the page, or once the home page was idle), numbers the
// requests and hands each answer to its caller. Messages: engine-protocol.mjs.
//
// Time limits count progress, not time: a start is given up only when its downloads have not moved for
// BOOT_TIMEOUT_MS (the worker reports the bytes it receives, which a slow link shows as progress); an answer
// that is late gets a ping, and a worker that answers neither within ANSWER_TIMEOUT_MS is dead (it crashed, it
// closed, it hangs): it is replaced and the requests it held are sent again, once or twice before giving up.
//
// Where the worker is: the build writes it once, on each form, as data-worker, a path from the site's
// root (MkDocs and Zensical do not rewrite raw HTML attributes, and the Markdown extension does not
// know how deep a page is). This module resolves it against the root, two folders above it (assets/javascripts/);
// the inline start script gets it from the build, relative to its page (sitebuild/early_start.py).
// Either way it holds at any depth and under any sub-path (GitHub Pages).

import * as protocol from "./engine-protocol.mjs";

const SITE_ROOT = new URL("../../", import.meta.url);
// A start whose downloads have not moved for this long is given up (Pyodide may never settle otherwise).
const BOOT_TIMEOUT_MS = Number(globalThis.CALC_BOOT_TIMEOUT_MS) || 30000;
// An answer this late gets a ping; a worker silent for this long again is dead.
const ANSWER_TIMEOUT_MS = Number(globalThis.CALC_ANSWER_TIMEOUT_MS) || 8000;
// Dead workers replaced in a row (without an answer in between) before giving up.
const RESTARTS = 2;
// A start longer than this is slow (a slow link): the forms then show its progress, edited or not.
const SLOW_START_MS = 5000;

/** The shared engine. */
const engine = {
  /** @type {Worker | null} */ worker: null,
  /** @type {"loading" | "ready" | "failed" | "file"} */ state: "loading",
  /** @type {"" | "snapshot" | "normal"} */ boot: "",
  reason: "",
  received: 0, // bytes the start has downloaded
  total: 0, // of the bytes it downloads in all (0: not known)
  slow: false, // the start has taken longer than SLOW_START_MS
  nextId: 1,
  /** @type {Map<number, {request: string, resolve: (response: string) => void}>} */ pending: new Map(),
  /** @type {Set<() => void>} */ listeners: new Set(),
  /** @type {HTMLFormElement | null} */ form: null, // the form that named the worker (for a restart)
  timer: 0,
  slowTimer: 0,
  watchdog: 0,
  restarts: 0,
};

/** What a form shows of the engine: its state, how it started, why it failed, what it has downloaded. */
export const engineStatus = () => ({
  state: engine.state, boot: engine.boot, reason: engine.reason, received: engine.received, total: engine.total, slow: engine.slow,
});

/** Call ``listener`` on every change of state (and of progress while loading); returns what stops it. */
export function onEngineChange(listener) {
  engine.listeners.add(listener);
  return () => engine.listeners.delete(listener);
}

function notify() {
  for (const listener of engine.listeners) listener();
}

function setEngineState(state) {
  engine.state = state;
  clearTimeout(engine.timer);
  clearTimeout(engine.slowTimer);
  engine.slow = false;
  notify();
}

/** (Re)start the time a start may go without progress. */
function armBootTimer() {
  clearTimeout(engine.timer);
  engine.timer = setTimeout(() => fail(protocol.failed("no progress in time")), BOOT_TIMEOUT_MS);
}

/** The worker's address, from the form the build marked (data-worker: a path from the site's root). */
export const workerUrl = (form) => new URL(form.dataset.worker, SITE_ROOT);

// This deploy's worker. The build names every script by its content (sitebuild/content_names.py) and writes the
// worker's name here and on the forms, so a form that names another worker is a page of another deploy.
const OWN_WORKER = new URL("./engine-worker.mjs", import.meta.url);

/** Whether ``form`` belongs to the deploy of this script (the theme's instant navigation may bring a newer page). */
export const isOwnDeploy = (form) => workerUrl(form).href === OWN_WORKER.href;

/** Start the engine, or start it again (a retry), for the version and worker ``form`` names. */
export function startEngine(form, { keepPending = false } = {}) {
  if (location.protocol === "file:") return setEngineState("file");
  stopWorker(keepPending);
  if (!keepPending) engine.restarts = 0;
  engine.form = form;
  engine.received = 0;
  setEngineState("loading");
  // The first time, adopt the worker that the inline script started (engine-start.js).
  const early = window.calcEngineStart;
  window.calcEngineStart = null;
  try {
    engine.worker = early ? early.worker : new Worker(workerUrl(form), protocol.workerOptions(form.dataset.engine));
    if (!early) engine.worker.postMessage(protocol.start(form.dataset.engine));
  } catch (error) {
    return fail(protocol.failed(error));
  }
  armBootTimer();
  engine.slowTimer = setTimeout(() => {
    engine.slow = true;
    notify();
  }, SLOW_START_MS);
  const worker = engine.worker;
  worker.addEventListener("message", ({ data }) => worker === engine.worker && receive(data));
  worker.addEventListener("error", (event) => {
    if (worker === engine.worker) fail(protocol.failed(event.message || "worker error"));
  });
  if (early) early.release().forEach(receive);
}

/** Start the engine for ``form`` unless one is already running (or cannot run here). */
export function ensureEngine(form) {
  if (!engine.worker && engine.state !== "file") startEngine(form);
}

function receive(data) {
  if (data.type === protocol.PROGRESS) {
    if (engine.state !== "loading") return;
    engine.received = data.bytes;
    engine.total = data.total;
    armBootTimer();
    notify();
  } else if (data.type === protocol.READY) {
    engine.boot = data.boot;
    engine.reason = "";
    setEngineState("ready");
    // Requests that a dead worker held, sent again to this one.
    for (const [id, { request }] of engine.pending) engine.worker.postMessage(protocol.compute(id, request));
    watchAnswers();
  } else if (data.type === protocol.FAILED) fail(data);
  else if (data.type === protocol.PONG) watchAnswers();
  else if (data.type === protocol.RESULT) {
    const waiting = engine.pending.get(data.id);
    engine.pending.delete(data.id);
    engine.restarts = 0;
    watchAnswers();
    if (waiting) waiting.resolve(data.response);
  }
}

/** While answers are awaited: a late one gets a ping, and a worker that answers neither is replaced. */
function watchAnswers() {
  clearTimeout(engine.watchdog);
  if (!engine.pending.size || engine.state !== "ready") return;
  engine.watchdog = setTimeout(() => {
    engine.worker.postMessage(protocol.ping());
    engine.watchdog = setTimeout(replaceDeadWorker, ANSWER_TIMEOUT_MS);
  }, ANSWER_TIMEOUT_MS);
}

function replaceDeadWorker() {
  if (++engine.restarts > RESTARTS) return fail(protocol.failed("the worker stopped answering"));
  startEngine(engine.form, { keepPending: true });
}

function stopWorker(keepPending = false) {
  clearTimeout(engine.watchdog);
  if (engine.worker) engine.worker.terminate();
  engine.worker = null;
  // Dropped requests: their forms compute again when the engine is ready again.
  if (!keepPending) engine.pending.clear();
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
    engine.pending.set(id, { request, resolve });
    engine.worker.postMessage(protocol.compute(id, request));
    if (engine.pending.size === 1) watchAnswers();
  });
}

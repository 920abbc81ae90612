// The messages between a page (engine-client.mjs) and the engine's worker (engine-worker.mjs).
// Both sides build and read them only through this module.
//
// page → worker
//   {type: "start", version: string}               the engine's version: its files are in ../engine/<version>/
//   {type: "compute", id: number, request: string} request = JSON for calculator.form.api.handle
//   {type: "ping"}                                 an answer is late: is the worker alive?
// worker → page
//   {type: "progress", bytes: number, total: number} bytes of the engine downloaded so far (while starting), of
//                                                  the total a start downloads (0: not known)
//   {type: "ready", boot: "snapshot" | "normal"}
//   {type: "result", id: number, response: string} response = JSON from calculator.form.api.handle
//   {type: "pong"}                                 alive (answers "ping")
//   {type: "failed", reason: string}               the engine cannot answer (technical detail, English)
//
// The worker is named by the engine's version ({type: "module", name: version}), so that it can begin its
// downloads before any message; the "start" message says it again (for a worker started without a name).
// The inline script that starts the worker early (engine-start.js) cannot import a module: it
// writes the same options and "start" message out, and a test checks that they agree.

export const START = "start";
export const COMPUTE = "compute";
export const READY = "ready";
export const RESULT = "result";
export const FAILED = "failed";
export const PROGRESS = "progress";
export const PING = "ping";
export const PONG = "pong";

/** The worker's options: a module worker named by the engine's version. @param {string} version */
export const workerOptions = (version) => ({ type: "module", name: version });
/** @param {string} version */
export const start = (version) => ({ type: START, version });
/** @param {number} id @param {string} request */
export const compute = (id, request) => ({ type: COMPUTE, id, request });
export const ping = () => ({ type: PING });
/** @param {number} bytes @param {number} total */
export const progress = (bytes, total) => ({ type: PROGRESS, bytes, total });
export const pong = () => ({ type: PONG });
/** @param {"snapshot" | "normal"} boot */
export const ready = (boot) => ({ type: READY, boot });
/** @param {number} id @param {string} response */
export const result = (id, response) => ({ type: RESULT, id, response });
/** @param {unknown} error */
export const failed = (error) => ({ type: FAILED, reason: String((error && error.message) || error || "unknown") });

/** The engine's directory for a version, relative to the scripts' own directory. */
export const engineDirectory = (version, base) => new URL(`../engine/${version}/`, base);

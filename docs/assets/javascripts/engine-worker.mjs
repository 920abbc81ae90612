// Module worker that runs the Python calculator package in Pyodide.
// It holds no formula and no field list: it passes strings to calculator.api.handle.
//
// Protocol (page → worker):
//   {type: "compute", id: number, request: string}   request = JSON for calculator.api.handle
// Protocol (worker → page):
//   {type: "ready"}
//   {type: "result", id: number, response: string}   response = JSON from calculator.api.handle
//   {type: "failed", reason: string}                 the engine could not start (technical detail, English)

const ENGINE = new URL("../engine/314.0.7/", import.meta.url);

/** @type {Promise<(request: string) => string>} */
const engine = (async () => {
  const { loadPyodide } = await import(new URL("pyodide.mjs", ENGINE).href);
  const pyodide = await loadPyodide({
    indexURL: ENGINE.href,
    lockFileURL: new URL("pyodide-lock.json", ENGINE).href,
    stdout: () => {},
    stderr: () => {},
  });
  await pyodide.loadPackage("calculator", { messageCallback: () => {}, errorCallback: () => {} });
  const handle = pyodide.pyimport("calculator.api").handle;
  return (request) => handle(request);
})();

// A failure deep inside Pyodide's loader may surface as an unhandled rejection:
// it means the engine cannot start, which the page already hears about.
self.addEventListener("unhandledrejection", (event) => event.preventDefault());

engine.then(
  () => self.postMessage({ type: "ready" }),
  (error) => self.postMessage({ type: "failed", reason: String(error && error.message || error) }),
);

self.addEventListener("message", async ({ data }) => {
  if (!data || data.type !== "compute") return;
  let handle;
  try {
    handle = await engine;
  } catch {
    return; // already reported as "failed"
  }
  try {
    self.postMessage({ type: "result", id: data.id, response: handle(String(data.request)) });
  } catch (error) {
    self.postMessage({ type: "failed", reason: String(error && error.message || error) });
  }
});

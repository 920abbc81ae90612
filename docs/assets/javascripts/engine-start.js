// Start the calculator engine's worker while the page is still being parsed, well before the
// page's module script runs (after the theme's own scripts). engine-client.mjs adopts this worker
// and the messages it has sent meanwhile. Inlined right after each calculator form by the
// Markdown extension (sitebuild/markdown_extension.py). The form names the engine's version
// (data-engine) and the worker (data-worker: its path from the site's root, which engine-client.mjs
// reads too); the root is two folders above our stylesheet (calculators.<digest>.css), which every page links in its head.
// The theme's instant navigation runs this script again on every page it brings in: once
// engine-client.mjs has an engine (it then sets calcEngineStart to null), there is nothing to start.
(() => {
  if (window.calcEngineStart !== undefined || location.protocol === "file:") return;
  const stylesheet = document.querySelector('link[rel="stylesheet"][href*="assets/stylesheets/calculators."]');
  const form = document.querySelector("form[data-calculator][data-engine][data-worker]");
  if (!stylesheet || !form) return;
  try {
    const worker = new Worker(new URL(form.dataset.worker, new URL("../../", stylesheet.href)), { type: "module" });
    const early = [];
    const keep = ({ data }) => early.push(data);
    const failed = (event) => {
      event.preventDefault(); // handled: the page shows its own message
      early.push({ type: "failed", reason: "worker error" });
    };
    worker.addEventListener("message", keep);
    worker.addEventListener("error", failed);
    worker.postMessage({ type: "start", version: form.dataset.engine }); // engine-protocol.mjs: start()
    const release = () => {
      worker.removeEventListener("message", keep);
      worker.removeEventListener("error", failed);
      return early;
    };
    window.calcEngineStart = { worker, release };
  } catch {
    // engine-client.mjs starts the worker itself
  }
})();

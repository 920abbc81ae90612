// Start the calculator engine's worker first thing, at the top of <head>, before the stylesheets and the theme
// (inlined there by sitebuild/early_start.py, on the calculator pages and the home page; the Content-Security-Policy
// names its hash, the same on every page and in every deploy). The build writes on the script element what it needs:
// data-worker, the worker's address relative to the page; data-engine, the engine's version (also the worker's name,
// so that its downloads begin as soon as it runs, before any message); data-idle, to wait until the page is idle
// (the home page: the first calculator reached through its links finds the engine ready, since instant navigation
// keeps the document). engine-client.mjs adopts this worker and the messages it has
// sent meanwhile (then it sets calcEngineStart to null: nothing more to start).
//
// The theme's search worker builds its index as the page starts, on the same cores: it is created only once the
// engine has answered (or failed) and the reader is calm (calcEngineCalm, below), when the search box is first used,
// or after SEARCH_LATEST_MS, whichever comes first. Until then the theme holds a stand-in that keeps its messages,
// listeners and handlers for the real one.
// The theme's bundle, held on the calculator pages (sitebuild/early_start.py turns its tag into a data block), would
// run while the engine starts and take the same cores: it is loaded once the engine has answered (or failed), at the
// reader's first touch, key, scroll or focus, or after THEME_LATEST_MS, whichever comes first; at once on file://.
// Then "calc:theme" is dispatched on the window (calculators.mjs follows the theme's pages from then on). Until then
// the page shows the theme without its script (the search and the palette toggle come with it; the reader's dark
// palette comes from the stylesheet, sitebuild/dark_without_script.py).
// calcEngineSettled resolves once this start has answered or failed (offline.mjs waits for it on the home page).
// calcEngineCalm resolves later, once the reader has neither typed nor pressed for CALM_MS after that: what can wait
// (the search index, the service worker's precaching of the whole site) then does not slow the first edits, while
// the runtime still compiles the code they run. On the home page (data-idle) it resolves with calcEngineSettled.
(({ worker: workerPath, engine: version, idle }) => {
  const THEME_LATEST_MS = 3000;
  let themeAsked = false;
  const loadTheme = () => {
    if (themeAsked) return;
    themeAsked = true;
    const load = () => {
      const held = document.querySelector("script[data-calc-theme]");
      if (!held) return;
      const script = document.createElement("script");
      script.src = held.dataset.calcTheme;
      script.addEventListener("load", () => dispatchEvent(new Event("calc:theme")));
      held.replaceWith(script);
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load, { once: true });
    else load();
  };
  if (window.calcEngineStart !== undefined || location.protocol === "file:") return loadTheme();
  for (const type of ["pointerdown", "keydown", "focusin", "wheel", "touchstart", "scroll"]) {
    addEventListener(type, loadTheme, { capture: true, passive: true, once: true });
  }
  setTimeout(loadTheme, THEME_LATEST_MS);
  const SEARCH_LATEST_MS = 10000;
  const CALM_MS = 2000;
  const Original = window.Worker;
  let wanted = () => {};
  const searchWanted = new Promise((resolve) => (wanted = resolve));
  let settled = () => {};
  window.calcEngineSettled = new Promise((resolve) => (settled = resolve));
  window.calcEngineSettled.then(loadTheme);
  let lastInput = -Infinity;
  for (const type of ["input", "keydown", "pointerdown"]) {
    addEventListener(type, () => (lastInput = performance.now()), { capture: true, passive: true });
  }
  const calm = () => new Promise((resolve) => {
    const since = performance.now();
    const check = () => {
      const wait = Math.max(since, lastInput) + CALM_MS - performance.now();
      if (wait <= 0) resolve();
      else setTimeout(check, wait);
    };
    check();
  });
  // The home page has no edits to wait for: its engine started at idle, for the calculator its links lead to.
  window.calcEngineCalm = window.calcEngineSettled.then(() => (idle === undefined ? calm() : undefined));
  window.calcEngineCalm.then(() => wanted());
  const settle = () => settled();
  const isSearch = (url) => /\/workers\/search\.[^/]*js$/.test(new URL(String(url), location.href).pathname);
  class DeferredWorker {
    constructor(url, options) {
      this.calls = [];
      this.handlers = {};
      searchWanted.then(() => {
        if (this.closed) return;
        const real = Reflect.construct(Original, [url, options]);
        Object.assign(real, this.handlers);
        for (const [method, args] of this.calls) real[method](...args);
        this.real = real;
      });
    }
    call(method, args) {
      if (this.real) this.real[method](...args);
      else this.calls.push([method, args]);
    }
    postMessage(...args) { this.call("postMessage", args); }
    addEventListener(...args) { this.call("addEventListener", args); }
    removeEventListener(...args) { this.call("removeEventListener", args); }
    dispatchEvent(event) { return this.real ? this.real.dispatchEvent(event) : true; }
    terminate() {
      this.closed = true;
      if (this.real) this.real.terminate();
    }
  }
  for (const name of ["onmessage", "onerror", "onmessageerror"]) {
    Object.defineProperty(DeferredWorker.prototype, name, {
      get() { return this.real ? this.real[name] : this.handlers[name] || null; },
      set(handler) {
        if (this.real) this.real[name] = handler;
        else this.handlers[name] = handler;
      },
    });
  }
  window.Worker = new Proxy(Original, {
    construct: (target, args) => (isSearch(args[0]) ? new DeferredWorker(...args) : Reflect.construct(target, args)),
  });
  const used = ({ target }) => {
    if (target instanceof Element && target.closest('[data-md-component="search"], [for="__search"], [class*="search"]')) wanted();
  };
  for (const type of ["focusin", "pointerdown", "change"]) document.addEventListener(type, used, true);
  setTimeout(wanted, SEARCH_LATEST_MS);

  const start = () => {
    if (window.calcEngineStart !== undefined) return settle(); // the page script started it already
    try {
      const worker = new Worker(new URL(workerPath, document.baseURI), { type: "module", name: version });
      const early = [];
      const keep = ({ data }) => early.push(data);
      const failed = (event) => {
        event.preventDefault(); // handled: the page shows its own message
        early.push({ type: "failed", reason: "worker error" });
      };
      worker.addEventListener("message", ({ data }) => data && ["ready", "failed"].includes(data.type) && settle());
      worker.addEventListener("error", settle);
      worker.addEventListener("message", keep);
      worker.addEventListener("error", failed);
      worker.postMessage({ type: "start", version }); // engine-protocol.mjs: start()
      const release = () => {
        worker.removeEventListener("message", keep);
        worker.removeEventListener("error", failed);
        return early;
      };
      window.calcEngineStart = { worker, release };
    } catch {
      settle(); // engine-client.mjs starts the worker itself
    }
  };
  if (idle === undefined) start();
  else addEventListener("load", () => (window.requestIdleCallback || setTimeout)(start, { timeout: 2000 }));
})(document.currentScript.dataset);

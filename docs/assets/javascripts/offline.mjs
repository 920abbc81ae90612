// Registers the service worker that keeps the site usable offline, and offers a
// reload when a new version of the site has been installed.

const ROOT = new URL("../../", import.meta.url);
const NOTICE_ID = "calc-update-notice";
const TEMPLATE_ID = "calc-update-template";

let offered = null; // the newest installed worker: a deploy found after the notice replaces the one it offered

/** The notice, once per page: cloned from the template every page carries (sitebuild/update_notice.py, its words). */
function offerReload(worker) {
  offered = worker;
  const template = document.getElementById(TEMPLATE_ID);
  if (document.getElementById(NOTICE_ID) || !template) return;
  const notice = template.content.firstElementChild.cloneNode(true);
  const button = notice.querySelector("button");
  button.addEventListener("click", () => {
    button.disabled = true; // one reload is on its way
    takeOver(offered);
  });
  document.body.append(notice);
}

// The browser lets a waiting worker take over only once the older one has no work in flight, which a request that
// hangs can hold off for minutes (seen once in CI: 120 s). Past this the page reloads all the same: the reader's click
// does something, and the new worker takes over as soon as the old one is free (the notice comes back until it has).
export const TAKEOVER_MS = 10000;

/** Ask ``worker`` to take over and reload once it has: on the controller's change, or on the worker's own
"activated" if that came first, or after TAKEOVER_MS whatever happened. ``container`` is navigator.serviceWorker,
``reload`` the page's reload (both given by tests). */
export function takeOver(worker, { container = navigator.serviceWorker, reload = () => location.reload(),
  waitMs = TAKEOVER_MS } = {}) {
  let reloading = false;
  const once = () => {
    if (reloading) return;
    reloading = true;
    clearTimeout(timer);
    reload();
  };
  const timer = setTimeout(once, waitMs);
  container.addEventListener("controllerchange", once, { once: true });
  worker.addEventListener("statechange", () => {
    if (worker.state === "activated") once();
  });
  if (worker.state === "activated" || container.controller === worker) once();
  else worker.postMessage({ type: "skip-waiting" });
}

/** Offer ``worker`` once it is installed, if an older one controls this page (then it is an update). */
function watch(worker) {
  const offer = () => {
    if (worker.state === "installed" && navigator.serviceWorker.controller) offerReload(worker);
  };
  offer();
  worker.addEventListener("statechange", offer);
}

async function register() {
  const registration = await navigator.serviceWorker.register(new URL("sw.js", ROOT), { scope: ROOT.pathname });
  // A worker already waiting, or still installing (its "updatefound" came before this page listened).
  for (const worker of [registration.waiting, registration.installing]) if (worker) watch(worker);
  registration.addEventListener("updatefound", () => {
    if (registration.installing) watch(registration.installing);
  });
}

/** Resolves once nothing else should compete for the network: the calculators' engine has answered (on the home
page, the engine that engine-start.js starts at idle). */
function quiet() {
  const forms = [...document.querySelectorAll("form[data-calculator]")];
  if (!forms.length) return window.calcEngineSettled || Promise.resolve();
  const settled = () => forms.every((form) => form.dataset.state === "ready" || form.dataset.state === "error");
  return new Promise((resolve) => {
    if (settled()) return resolve();
    const observer = new MutationObserver(() => {
      if (!settled()) return;
      observer.disconnect();
      resolve();
    });
    for (const form of forms) observer.observe(form, { attributes: true, attributeFilter: ["data-state"] });
  });
}

const secure = globalThis.location?.protocol === "https:"
  || ["localhost", "127.0.0.1", "[::1]"].includes(globalThis.location?.hostname);
if (globalThis.navigator && "serviceWorker" in navigator && secure) {
  // Precaching downloads the whole site: let the page and its engine have the network first, and the reader's first
  // edits the cores (engine-start.js's calcEngineCalm, where it ran; on the home page, as soon as its engine answered).
  quiet().then(() => window.calcEngineCalm).then(register).catch(() => {}); // without it the site still works online
}

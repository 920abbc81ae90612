// Registers the service worker that keeps the site usable offline, and offers a
// reload when a new version of the site has been installed.

const ROOT = new URL("../../", import.meta.url);
const NOTICE_ID = "calc-update-notice";

function offerReload(waiting) {
  if (document.getElementById(NOTICE_ID)) return;
  const notice = document.createElement("div");
  notice.id = NOTICE_ID;
  notice.className = "calc-update";
  notice.setAttribute("role", "status");
  const text = document.createElement("span");
  text.textContent = "È disponibile una nuova versione del sito.";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "md-button md-button--primary";
  button.textContent = "Ricarica";
  button.addEventListener("click", () => {
    navigator.serviceWorker.addEventListener("controllerchange", () => location.reload(), { once: true });
    waiting.postMessage({ type: "skip-waiting" });
  });
  notice.append(text, " ", button);
  document.body.append(notice);
}

async function register() {
  const registration = await navigator.serviceWorker.register(new URL("sw.js", ROOT), { scope: ROOT.pathname });
  // A new worker is an update, worth a reload, only if an older one controls this page.
  const isUpdate = () => Boolean(navigator.serviceWorker.controller);
  if (registration.waiting && isUpdate()) offerReload(registration.waiting);
  registration.addEventListener("updatefound", () => {
    const installing = registration.installing;
    if (!installing) return;
    installing.addEventListener("statechange", () => {
      if (installing.state === "installed" && isUpdate()) offerReload(installing);
    });
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

const secure = location.protocol === "https:" || ["localhost", "127.0.0.1", "[::1]"].includes(location.hostname);
if ("serviceWorker" in navigator && secure) {
  // Precaching downloads the whole site: let the page and its engine have the network first, and the reader's first
  // edits the cores (engine-start.js's calcEngineCalm, where it ran; on the home page, as soon as its engine answered).
  quiet().then(() => window.calcEngineCalm).then(register).catch(() => {}); // without it the site still works online
}

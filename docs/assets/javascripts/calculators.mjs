// The page script: starts the engine (engine-client.mjs) and mounts every calculator form of the page
// (form.mjs) on the theme's document$, which emits each page, the first and each one that its instant
// navigation brings in; the forms of the page it replaced are unmounted (their pending edits saved),
// and the engine stays the same for the whole visit.

//
// A page of another deploy (the theme's instant navigation fetched it after the site was updated) is never run
// by these scripts: the page is loaded again, whole, with its own scripts and engine.

import { ensureEngine, isOwnDeploy, startEngine } from "./engine-client.mjs";
import { mountCalculator } from "./form.mjs";

const FORMS = "form[data-calculator]";
// Running: the inline fallback (page-fallback.js) need not speak for us.
window.calcPageScript = true;
const RELOADED = "calcolatori:ricaricata-per";

/** Load the page again, with its own scripts; once only for an address (never in a loop), else say so. */
function reloadForItsOwnDeploy(forms) {
  let already = "";
  try {
    already = sessionStorage.getItem(RELOADED) || "";
    sessionStorage.setItem(RELOADED, location.href);
  } catch {
    // no session storage: reload all the same (the fresh page runs its own scripts)
  }
  if (already !== location.href) return location.reload();
  for (const form of forms) {
    form.dataset.state = "error";
    form.dataset.engineReason = "page of another deploy";
  }
}

let unmount = [];
let mounted = [];
function onPage() {
  const forms = [...document.querySelectorAll(FORMS)];
  // The same forms again (the theme's document$ replays the page mounted before its bundle came): nothing to do.
  if (forms.length === mounted.length && forms.every((form, i) => form === mounted[i])) return;
  for (const stop of unmount) stop();
  unmount = [];
  mounted = forms;
  if (forms.some((form) => !isOwnDeploy(form))) return reloadForItsOwnDeploy(forms);
  if (forms.length) ensureEngine(forms[0]);
  unmount = forms.map(mountCalculator);
}

// Module scripts run once the page is parsed: start the engine now, before the theme is ready.
const first = document.querySelector(FORMS);
if (first) startEngine(first);
// On a calculator page the theme's bundle comes after the engine has answered (engine-start.js): the forms are
// mounted now, and the theme's pages followed once it has come ("calc:theme").
if (window.document$) window.document$.subscribe(onPage);
else {
  addEventListener("calc:theme", () => window.document$?.subscribe(onPage), { once: true });
  // Without the early start (it did not run), nothing else would load the theme it holds: load it now.
  const held = window.calcEngineSettled === undefined && document.querySelector("script[data-calc-theme]");
  if (held) {
    const theme = document.createElement("script");
    theme.src = held.dataset.calcTheme;
    theme.addEventListener("load", () => dispatchEvent(new Event("calc:theme")));
    held.replaceWith(theme);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", onPage);
  else onPage();
}

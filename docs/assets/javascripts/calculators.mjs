// The page script: starts the engine (engine-client.mjs) and mounts every calculator form of the page
// (form.mjs) on the theme's document$, which emits each page, the first and each one that its instant
// navigation brings in; the forms of the page it replaced are unmounted (their pending edits saved),
// and the engine stays the same for the whole visit.

import { ensureEngine, startEngine } from "./engine-client.mjs";
import { mountCalculator } from "./form.mjs";

const FORMS = "form[data-calculator]";

let unmount = [];
function onPage() {
  for (const stop of unmount) stop();
  const forms = [...document.querySelectorAll(FORMS)];
  if (forms.length) ensureEngine(forms[0]);
  unmount = forms.map(mountCalculator);
}

// Module scripts run once the page is parsed: start the engine now, before the theme is ready.
const first = document.querySelector(FORMS);
if (first) startEngine(first);
if (window.document$) window.document$.subscribe(onPage);
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", onPage);
else onPage();

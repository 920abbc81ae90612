// Wires every calculator form on the page to the Python engine in a module worker.
// It only moves strings (even its messages are in the page, rendered by Python):
// field values go to calculator.form.api.handle, and the texts it answers are put back
// into the elements marked data-output, data-error-for and data-message.
//
// Every rule (which mode applies, what a checkbox's text means, which unit a field shows, the text
// of a result without value) is Python's: it arrives in the answer or in attributes it rendered.
//
// Form attributes it maintains, for styles and tests:
//   data-state  = loading | ready | error   (the engine)
//   data-busy   present while an answer for the latest input is awaited
//   data-status = ok | incomplete | invalid | error (the latest answer)
//   data-mode   the mode of the latest answer (fields and results of other modes are hidden)
//   data-engine-boot = snapshot | normal    (how the engine started)
//   data-engine-reason                      why the engine failed, when it did (technical, English)

import * as protocol from "./engine-protocol.mjs";

const WORKER_URL = new URL("./engine-worker.mjs", import.meta.url);
// Pyodide may never settle if its wasm cannot be compiled: give up after this long.
const BOOT_TIMEOUT_MS = Number(globalThis.CALC_BOOT_TIMEOUT_MS) || 30000;

/** The shared engine: one worker for the whole visit. */
const engine = {
  /** @type {Worker | null} */ worker: null,
  /** @type {"loading" | "ready" | "failed" | "file"} */ state: "loading",
  boot: "",
  reason: "",
  nextId: 1,
  /** @type {Map<number, (response: string) => void>} */ pending: new Map(),
  /** @type {Set<() => void>} */ listeners: new Set(),
  timer: 0,
};

function setEngineState(state) {
  engine.state = state;
  clearTimeout(engine.timer);
  for (const listener of engine.listeners) listener();
}

function startEngine(version) {
  if (location.protocol === "file:") return setEngineState("file");
  stopWorker();
  setEngineState("loading");
  // The first time, adopt the worker that the inline script after the form started.
  const early = window.calcEngineStart;
  window.calcEngineStart = null;
  try {
    engine.worker = early ? early.worker : new Worker(WORKER_URL, { type: "module" });
    if (!early) engine.worker.postMessage(protocol.start(version));
  } catch (error) {
    return fail(protocol.failed(error));
  }
  engine.timer = setTimeout(() => fail(protocol.failed("no answer in time")), BOOT_TIMEOUT_MS);
  engine.worker.addEventListener("message", ({ data }) => receive(data));
  engine.worker.addEventListener("error", (event) => fail(protocol.failed(event.message || "worker error")));
  if (early) early.release().forEach(receive);
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

/** @returns {Promise<string>} the JSON response of calculator.form.api.handle */
function compute(request) {
  return new Promise((resolve) => {
    const id = engine.nextId++;
    engine.pending.set(id, resolve);
    engine.worker.postMessage(protocol.compute(id, request));
  });
}

function readValues(form) {
  const values = {};
  for (const control of form.querySelectorAll("input[name], select[name]")) {
    values[control.name] = control.type === "checkbox" ? (control.checked ? control.value : "") : control.value;
  }
  return values;
}

// Only what changed is written: an edit usually changes a few results, and every write costs a
// style and layout pass.
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** @type {WeakMap<Element, string>} */
const drawn = new WeakMap();

function show(form, response) {
  const answer = JSON.parse(response);
  form.dataset.status = answer.status;
  const message = form.querySelector("[data-message]");
  if (message) setText(message, answer.message);
  if (answer.status === "error") return; // the message says so; the last results stay
  for (const output of form.querySelectorAll("[data-output]")) {
    setText(output, answer.results[output.dataset.output] ?? form.dataset.blank);
  }
  for (const error of form.querySelectorAll("[data-error-for]")) {
    const message = answer.errors[error.dataset.errorFor] ?? "";
    setText(error, message);
    const control = form.elements.namedItem(error.dataset.errorFor);
    if (control instanceof Element) {
      if (message) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }
  }
  for (const link of form.querySelectorAll("a[data-feed]")) {
    const query = answer.links[link.dataset.feed];
    link.hidden = query === undefined; // no link to a sibling from values that do not compute
    if (query === undefined) continue;
    const target = new URL(link.href); // the sibling's page, as the site generator wrote it
    target.search = query;
    if (link.href !== target.href) link.href = target.href;
  }
  for (const unit of form.querySelectorAll("[data-unit-of]")) {
    setText(unit, answer.units[unit.dataset.unitOf] ?? unit.textContent);
  }
  applyMode(form, answer.mode);
  const chart = form.querySelector("[data-chart]");
  if (chart && drawn.get(chart) !== answer.chart) {
    chart.innerHTML = answer.chart; // SVG drawn by the Python package from validated numbers only
    drawn.set(chart, answer.chart);
  }
}

/** Show the fields and results of the mode Python chose; hide the others (their values are kept). */
function applyMode(form, mode) {
  if (form.dataset.mode === mode) return;
  form.dataset.mode = mode;
  for (const element of form.querySelectorAll("[data-modes]")) {
    element.hidden = !element.dataset.modes.split(" ").includes(mode);
  }
}

/** Put a text into a field: a checkbox is checked by the texts Python lists; a list only takes its own options. */
function setField(control, value) {
  if (control instanceof HTMLInputElement && control.type === "checkbox") {
    control.checked = control.dataset.true.split(" ").includes(value.trim().toLowerCase());
  } else if (control instanceof HTMLSelectElement) {
    if ([...control.options].some((option) => option.value === value)) control.value = value;
  } else if (control instanceof HTMLInputElement) {
    control.value = value;
  }
}

/** Fill the fields from a query (?name=value): values only ever become field text. */
function readQuery(form, search) {
  const params = new URLSearchParams(search);
  let applied = false;
  for (const [name, value] of params) {
    const control = form.elements.namedItem(name);
    if (!(control instanceof HTMLInputElement || control instanceof HTMLSelectElement)) continue;
    setField(control, value);
    applied = true;
  }
  return applied;
}

// The values a reader typed, kept on this device only (localStorage, never sent anywhere), so that they
// come back on the next visit; a shared link (values in the address) always wins over them.
const storeKey = (form) => `calcolatori:${form.dataset.calculator}`;

function store(form, query) {
  try {
    if (query === null) localStorage.removeItem(storeKey(form));
    else localStorage.setItem(storeKey(form), query);
  } catch {
    // storage refused (private mode, quota): the address still holds the values
  }
}

function stored(form) {
  try {
    return localStorage.getItem(storeKey(form)) || "";
  } catch {
    return "";
  }
}

/** Keep the values in the address of ``page`` (if the reader is still there) and on this device. */
function writeAddress(form, page) {
  const query = new URLSearchParams(readValues(form)).toString();
  // After an instant navigation the address is already the next page's: it must not get these values.
  if (location.pathname === page) history.replaceState(history.state, "", `${location.pathname}?${query}${location.hash}`);
  store(form, query);
}

async function copyText(button, text) {
  const original = button.dataset.label || (button.dataset.label = button.textContent);
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = button.dataset.done;
  } catch {
    button.textContent = button.dataset.failed;
  }
  setTimeout(() => { button.textContent = original; }, 2500);
}

function mount(form) {
  const calculator = form.dataset.calculator;
  const status = form.querySelector("[data-engine-status]");
  const page = location.pathname;
  let latest = 0;
  // Values not yet computed: typed, taken from the address or, without one, from this device.
  let edited = readQuery(form, location.search) || readQuery(form, stored(form));

  async function update() {
    if (engine.state !== "ready") {
      edited = true;
      return render();
    }
    const ticket = ++latest;
    form.dataset.busy = "";
    const response = await compute(JSON.stringify({ calculator, values: readValues(form) }));
    if (ticket !== latest) return;
    show(form, response);
    delete form.dataset.busy;
  }

  function render() {
    form.dataset.state = engine.state === "ready" ? "ready" : engine.state === "loading" ? "loading" : "error";
    if (engine.state === "ready") form.dataset.engineBoot = engine.boot;
    else delete form.dataset.busy;
    if (engine.reason) form.dataset.engineReason = engine.reason;
    else delete form.dataset.engineReason;
    const showing = engine.state === "ready" || (engine.state === "loading" && !edited) ? "" : engine.state;
    status.hidden = !showing;
    for (const message of status.querySelectorAll("[data-when]")) message.hidden = message.dataset.when !== showing;
  }

  function onEngine() {
    render();
    // Whatever is in the fields now (typed while loading, restored by the browser) is computed.
    if (engine.state === "ready") update();
  }

  const retry = form.querySelector("[data-retry]");
  if (retry) retry.addEventListener("click", () => startEngine(form.dataset.engine));
  let addressTimer = 0;
  const onEdit = () => {
    update();
    // Rewriting the address is slow-ish and rate-limited by browsers: do it once typing pauses.
    clearTimeout(addressTimer);
    addressTimer = setTimeout(() => {
      addressTimer = 0;
      writeAddress(form, page);
    }, 250);
  };
  form.addEventListener("input", onEdit);
  form.addEventListener("change", onEdit);
  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("reset", () => {
    clearTimeout(addressTimer);
    setTimeout(() => { // the browser restores the default values after this event
      history.replaceState(history.state, "", location.pathname + location.hash);
      store(form, null);
      update();
    });
  });
  form.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const copy = target && target.closest("[data-copy]");
    if (copy) {
      const source = form.querySelector(`[data-output="${CSS.escape(copy.dataset.copy)}"]`);
      return copyText(copy, source ? source.textContent : "");
    }
    if (target && target.closest("a[data-feed]")) return flush(); // coming back, the reader finds every value
    const link = target && target.closest("[data-copy-link]");
    if (link) {
      clearTimeout(addressTimer);
      writeAddress(form, page);
      return copyText(link, location.href);
    }
    const preset = target && target.closest("[data-preset]");
    if (!preset) return;
    for (const [name, value] of Object.entries(JSON.parse(preset.dataset.preset))) {
      const control = form.elements.namedItem(name);
      if (control) setField(control, value);
    }
    onEdit();
  });
  // Leaving the page (a link, the back button) within the debounce still records the last edit.
  const flush = () => {
    if (!addressTimer) return;
    clearTimeout(addressTimer);
    addressTimer = 0;
    writeAddress(form, page);
  };
  window.addEventListener("pagehide", flush);
  engine.listeners.add(onEngine);
  onEngine();
  return () => { // the theme's instant navigation replaced the page
    flush();
    window.removeEventListener("pagehide", flush);
    engine.listeners.delete(onEngine);
  };
}

let unmount = [];
function onPage() {
  for (const stop of unmount) stop();
  const forms = [...document.querySelectorAll("form[data-calculator]")];
  if (forms.length && !engine.worker && engine.state !== "file") startEngine(forms[0].dataset.engine);
  unmount = forms.map(mount);
}

// Module scripts run once the page is parsed: start the engine now, before the theme is ready.
const first = document.querySelector("form[data-calculator]");
if (first) startEngine(first.dataset.engine);
if (window.document$) window.document$.subscribe(onPage);
else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", onPage);
else onPage();

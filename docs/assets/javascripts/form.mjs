// A calculator form on the page, wired to the engine (engine-client.mjs). It only moves strings (even
// its messages are in the page, rendered by Python): field values go to calculator.form.api.handle,
// and the texts it answers are put back into the elements marked data-output, data-error-for and
// data-message.
//
// Every rule (which mode applies, what a checkbox's text means, which unit a field shows, the text
// of a result without value) is Python's: it arrives in the answer or in attributes it rendered.
// Each part of the form is mounted on the data-* attributes the Python renderer writes
// (mountAddress, mountEngine, mountReset, mountPresets, mountPresetFilter, mountCopy, mountFeeds).
//
// Form attributes it maintains, for styles and tests:
//   data-state  = loading | ready | error   (the engine)
//   data-busy   present while an answer for the latest input is awaited
//   data-status = ok | incomplete | invalid | error (the latest answer)
//   data-mode   the mode of the latest answer (fields and results of other modes are hidden)
//   data-absent-field  a field hidden while the latest answer lists it as absent (a LoRA target the model lacks)
//   data-engine-boot = snapshot | normal    (how the engine started)
//   data-engine-reason                      why the engine failed, when it did (technical, English)

import { compute, engineStatus, onEngineChange, startEngine } from "./engine-client.mjs";

/** @type {WeakMap<Element, Record<string, Element[]>>} */
const partsOf = new WeakMap();
// Every edit reads the fields and writes the results: the elements are looked up once per form (the renderer wrote
// them all; answers only change their text and attributes, and a chart's own inside, which is not looked up here).
const PARTS = {
  controls: "input[name], select[name]", tones: "[data-tone-for]", outputs: "[data-output]", notes: "[data-note-for]",
  errors: "[data-error-for]", feeds: "a[data-feed]", units: "[data-unit-of]", charts: "[data-chart]",
  modes: "[data-modes]", absent: "[data-absent-field]", rows: ".calc__presets", folds: "[data-fold]",
};

/** The form's parts of a kind (PARTS), found once. */
function parts(form, kind) {
  let found = partsOf.get(form);
  if (!found) partsOf.set(form, (found = {}));
  return (found[kind] ??= [...form.querySelectorAll(PARTS[kind])]);
}

function readValues(form) {
  const values = {};
  for (const control of parts(form, "controls")) {
    values[control.name] = control.type === "checkbox" ? (control.checked ? control.value : "") : control.value;
  }
  return values;
}

// Only what changed is written: an edit usually changes a few results, and every write costs a
// style and layout pass.
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** An attribute written only when it changes (writing the same value still costs a style pass). */
function setAttribute(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

function setHidden(element, hidden) {
  if (element.hidden !== hidden) element.hidden = hidden;
}

/** @type {WeakMap<Element, string>} */
const drawn = new WeakMap();
/** @type {WeakMap<Element, number>} */
const announcing = new WeakMap();
const ANNOUNCE_PAUSE = 900; // ms without a new answer before the headline results are read aloud

/** Say Python's sentence (the headline results and the verdict) in the live region once typing pauses. */
function announce(form, text) {
  const region = form.querySelector("[data-announce]");
  if (!region) return;
  clearTimeout(announcing.get(form));
  announcing.set(form, setTimeout(() => setText(region, text), ANNOUNCE_PAUSE));
}

function show(form, response, edited = false) {
  const answer = JSON.parse(response);
  form.dataset.status = answer.status;
  const message = form.querySelector("[data-message]");
  if (message) setText(message, answer.message);
  if (edited) announce(form, answer.announce ?? answer.message);
  if (answer.status === "error") return; // the message says so; the last results stay
  for (const toned of parts(form, "tones")) { // a verdict's colour, a negative margin
    const tone = (answer.tones ?? {})[toned.dataset.toneFor] ?? "";
    if (toned.dataset.tone !== tone) toned.dataset.tone = tone;
  }
  for (const output of parts(form, "outputs")) {
    setText(output, answer.results[output.dataset.output] ?? form.dataset.blank);
  }
  for (const note of parts(form, "notes")) { // how Python read an ambiguous number
    const text = (answer.notes ?? {})[note.dataset.noteFor] ?? "";
    setText(note, text);
    setHidden(note, !text);
  }
  for (const error of parts(form, "errors")) {
    const message = answer.errors[error.dataset.errorFor] ?? "";
    setText(error, message);
    const control = form.elements.namedItem(error.dataset.errorFor);
    if (control instanceof Element) {
      if (message) setAttribute(control, "aria-invalid", "true");
      else if (control.hasAttribute("aria-invalid")) control.removeAttribute("aria-invalid");
    }
  }
  for (const link of parts(form, "feeds")) {
    const query = answer.links[link.dataset.feed];
    setHidden(link, query === undefined); // no link to a sibling from values that do not compute
    if (query === undefined) continue;
    const target = new URL(link.href); // the sibling's page, as the site generator wrote it
    target.search = query;
    if (link.href !== target.href) link.href = target.href;
  }
  for (const unit of parts(form, "units")) {
    setText(unit, answer.units[unit.dataset.unitOf] ?? unit.textContent);
  }
  applyMode(form, answer.mode);
  if (Array.isArray(answer.absent)) applyAbsent(form, answer.absent);
  for (const chart of parts(form, "charts")) { // the chart, and its copy kept in view
    if (drawn.get(chart) === answer.chart) continue;
    chart.innerHTML = answer.chart; // SVG drawn by the Python package from validated numbers only
    if (chart.closest(".calc__glance")) { // a copy: no repeated ids
      for (const element of chart.querySelectorAll("[id], [aria-labelledby]")) {
        element.removeAttribute("id");
        element.removeAttribute("aria-labelledby");
      }
    }
    drawn.set(chart, answer.chart);
  }
}

/** Show the fields and results of the mode Python chose; hide the others (their values are kept). */
function applyMode(form, mode) {
  if (form.dataset.mode === mode) return;
  form.dataset.mode = mode;
  for (const element of parts(form, "modes")) {
    setHidden(element, !element.dataset.modes.split(" ").includes(mode));
  }
}

/** Hide the fields Python lists as absent for these values (a LoRA target the model lacks); a field of another
 * mode stays hidden. */
function applyAbsent(form, absent) {
  for (const element of parts(form, "absent")) {
    const modes = element.dataset.modes;
    const otherMode = modes !== undefined && !modes.split(" ").includes(form.dataset.mode);
    setHidden(element, otherMode || absent.includes(element.dataset.absentField));
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

/** Put the values Python converted to a new unit into their fields, unless typed over since; whether any changed.
 * A field whose whole text the reader has selected keeps it selected: what they type next replaces the new value. */
function rewrite(form, response, sent) {
  let changed = false;
  for (const [name, text] of Object.entries(JSON.parse(response).rewrites ?? {})) {
    const control = form.elements.namedItem(name);
    if (!(control instanceof HTMLInputElement) || control.value !== sent[name] || control.value === text) continue;
    const whole = control === document.activeElement && control.value.length > 0 && control.selectionStart === 0
      && control.selectionEnd === control.value.length;
    control.value = text;
    if (whole) control.select();
    changed = true;
  }
  return changed;
}

/** Whether a field holds a preset's text (the rule of render.pressed). */
function holds(control, value) {
  if (control instanceof HTMLInputElement && control.type === "checkbox") {
    return control.checked === control.dataset.true.split(" ").includes(value.trim().toLowerCase());
  }
  return control.value === value;
}

/** @type {WeakMap<Element, any>} */
const cached = new WeakMap();
/** What an element's attribute or contents give, worked out once (a preset's fields, a row's buttons). */
const once = (element, make) => (cached.has(element) ? cached.get(element) : (cached.set(element, make()), cached.get(element)));
/** A preset button's fields (data-preset: field → text). @returns {Record<string, string>} */
const presetOf = (button) => once(button, () => JSON.parse(button.dataset.preset));
const buttonsOf = (row) => once(row, () => [...row.querySelectorAll("[data-preset]")]);
const namesIn = (fold) => once(fold, () => [...fold.querySelectorAll("[name]")].map((control) => control.name));

/**
 * The preset buttons whose texts the fields hold are pressed (aria-pressed), the others not; a folded group
 * ([data-fold], the model's shape) names the preset that filled it, followed by its data-edited text once a
 * field differs.
 */
export function markPresets(form, clicked = null) {
  const held = new Map();
  const matches = (button) => Object.entries(presetOf(button)).every(([name, value]) => {
    const control = form.elements.namedItem(name);
    return !(control instanceof Element) || holds(control, value);
  });
  // One pressed per row (two cards may share a memory): the one clicked, else the one still pressed, else the first.
  for (const row of parts(form, "rows")) {
    const buttons = buttonsOf(row);
    const holding = buttons.filter(matches);
    const was = buttons.find((button) => button.getAttribute("aria-pressed") === "true");
    const on = holding.includes(clicked) ? clicked : holding.includes(was) ? was : holding[0];
    for (const button of buttons) setAttribute(button, "aria-pressed", String(button === on));
    const name = on ? on.firstChild.textContent.trim() : ""; // a GPU button: its name (its first text), not its note
    if (on) for (const field of Object.keys(presetOf(on))) held.set(field, name);
  }
  for (const fold of parts(form, "folds")) {
    const names = namesIn(fold);
    const label = names.map((name) => held.get(name)).find(Boolean);
    if (label) setAttribute(fold, "data-filled-by", label);
    const by = fold.dataset.filledBy;
    const note = fold.querySelector("[data-fold-note]");
    if (note) setText(note, label || !by ? label ?? "" : `${by} ${fold.dataset.edited}`);
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

/** Keep (or forget, for null) the values on this device; returns whether it could. */
function store(form, query) {
  try {
    if (query === null) localStorage.removeItem(storeKey(form));
    else localStorage.setItem(storeKey(form), query);
    return !window.calcStorageBlocked; // site data blocked: the theme's stand-in keeps them for this page only
  } catch {
    return false; // storage refused (full, blocked): the address still holds the values, and the page says so
  }
}

function stored(form) {
  try {
    return localStorage.getItem(storeKey(form)) || "";
  } catch {
    return "";
  }
}

/** Opened from a sibling's link (?da=<its id>): say which fields it filled, with their values ([data-arrived]). */
function sayArrived(form, search) {
  const note = form.querySelector("[data-arrived]");
  const params = new URLSearchParams(search);
  const title = note && JSON.parse(note.dataset.titles)[params.get("da")];
  if (!title) return;
  const filled = [...params].filter(([name]) => form.elements.namedItem(name) instanceof Element).map(([name, value]) => {
    const control = form.elements.namedItem(name);
    const label = control.id ? form.querySelector(`label[for="${CSS.escape(control.id)}"]`) : null;
    // As the fields now read (the address has filled them): a box's "on" said sì/no, a choice by its option's label.
    let said = value;
    if (control instanceof HTMLInputElement && control.type === "checkbox") {
      said = control.checked ? note.dataset.yes : note.dataset.no;
    } else if (control instanceof HTMLSelectElement && control.selectedOptions.length) {
      said = control.selectedOptions[0].textContent.trim();
    }
    return `${label ? label.textContent.trim() : name} ${said}`;
  });
  note.textContent = `${note.dataset.arrived.replace("{}", title)} ${filled.join("; ")}.`;
  note.hidden = false;
}

/**
 * The values in the address (?field=value&…) and on this device. They fill the fields now (a shared
 * link wins over this device); edits are written back once typing pauses, and at once when the reader
 * leaves (a link, the back button, the theme's instant navigation) or copies the link.
 */
export function mountAddress(form, onValues = () => {}) {
  const page = location.pathname;
  let timer = 0;
  const note = form.querySelector("[data-address-note]");
  // What the page says about the values kept on this device: an empty live region rendered with the form, its notes
  // in its data-* attributes (calculator/form/render.py, STORAGE_NOTES).
  const storage = form.querySelector("[data-storage-note]");
  /** Say ``kind`` (refused, restored, elsewhere), or nothing (""); "elsewhere" offers the other tab's values. */
  const say = (kind) => {
    if (!storage || storage.dataset.storageNote === kind) return;
    storage.dataset.storageNote = kind;
    storage.textContent = kind ? storage.dataset[kind] : "";
    if (kind !== "elsewhere") return;
    const use = document.createElement("button");
    use.type = "button";
    use.className = "md-button calc__action";
    use.textContent = storage.dataset.useTheirs;
    use.addEventListener("click", () => {
      readQuery(form, stored(form));
      say("");
      write();
      onValues();
    });
    storage.append(" ", use);
  };
  const write = () => {
    clearTimeout(timer);
    timer = 0;
    const query = new URLSearchParams(readValues(form)).toString();
    // Hosts refuse long addresses ("414 URI Too Long"): over the form's limit the address keeps its last values.
    const fits = query.length <= Number(form.dataset.addressLimit || Infinity);
    if (note) note.hidden = fits;
    // After an instant navigation the address is already the next page's: it must not get these values.
    if (fits && location.pathname === page) {
      history.replaceState(history.state, "", `${location.pathname}?${query}${location.hash}`);
    }
    say(store(form, query) ? "" : "refused");
  };
  const flush = () => {
    if (timer) write();
  };
  // Another tab of this site changed (or forgot) this calculator's kept values: the last edit wins, and this tab
  // says so, offering them.
  const onStorage = (event) => {
    if (event.key === storeKey(form) && event.storageArea === localStorage) say("elsewhere");
  };
  window.addEventListener("pagehide", flush);
  window.addEventListener("storage", onStorage);
  // A link's values merge into what this device kept: the fields it does not carry keep the reader's own.
  const fromDevice = readQuery(form, stored(form));
  const fromAddress = readQuery(form, location.search);
  if (fromDevice && !fromAddress) say("restored");
  sayArrived(form, location.search);
  return {
    /** Whether the address or this device gave values, not yet computed. */
    restored: fromAddress || fromDevice,
    // Rewriting the address is slow-ish and rate-limited by browsers: do it once typing pauses.
    writeSoon() {
      clearTimeout(timer);
      timer = setTimeout(write, 250);
    },
    write,
    flush,
    /** Forget the values: the address and this device go back to the defaults. */
    clear() {
      clearTimeout(timer);
      timer = 0;
      if (location.pathname === page) history.replaceState(history.state, "", location.pathname + location.hash);
      say(store(form, null) ? "" : "refused");
    },
    unmount() {
      flush();
      window.removeEventListener("pagehide", flush);
      window.removeEventListener("storage", onStorage);
    },
  };
}

/** The bytes a loading engine has downloaded so far, of its ``total`` (the bar stays indeterminate without it), on
 * the loading message's bar ([data-engine-progress]). */
function showProgress(status, received, total) {
  const note = status.querySelector("[data-engine-progress]");
  if (!note) return;
  note.hidden = !received;
  if (!received || !total) return;
  const bar = note.querySelector("progress");
  bar.max = total;
  bar.value = received;
}

/** The engine's state on the form (data-state, [data-engine-status]), its retry button, and the results. */
export function mountEngine(form, restored) {
  const calculator = form.dataset.calculator;
  const status = form.querySelector("[data-engine-status]");
  let latest = 0;
  let computed = null; // the values of the last answer shown (until the first answer, those of the first request)
  // Values not yet computed: typed, or taken from the address or this device.
  let edited = restored;

  async function update(spoken = false) {
    if (engineStatus().state !== "ready") {
      edited = true;
      return render();
    }
    const ticket = ++latest;
    form.dataset.busy = "";
    const values = readValues(form);
    computed ??= values;
    // After an edit Python also gets the values it computed last: a unit the reader changed converts the values in it.
    const before = spoken === true ? computed : null;
    const response = await compute(JSON.stringify({ calculator, values, before }));
    if (ticket !== latest) return;
    const rewritten = rewrite(form, response, values);
    // Python computed with the converted texts: the next edit's "before" must hold them, not those sent.
    computed = rewritten ? readValues(form) : values;
    show(form, response, spoken === true);
    delete form.dataset.busy;
    if (rewritten) form.dispatchEvent(new Event("change")); // the converted values go to the address
  }

  function render() {
    const { state, boot, reason, received, total, slow } = engineStatus();
    form.dataset.state = state === "ready" ? "ready" : state === "loading" ? "loading" : "error";
    if (state === "ready") form.dataset.engineBoot = boot;
    else delete form.dataset.busy;
    if (reason) form.dataset.engineReason = reason;
    else delete form.dataset.engineReason;
    // Loading is worth saying once the reader waits for it (an edit) or the start is slow (a slow link).
    const showing = state === "ready" || (state === "loading" && !edited && !slow) ? "" : state;
    status.toggleAttribute("data-showing", Boolean(showing)); // a live region stays in place; only its text changes
    for (const message of status.querySelectorAll("[data-when]")) message.hidden = message.dataset.when !== showing;
    // Written only where it shows: a hidden bar would cost the start a write per download's progress.
    showProgress(status, showing === "loading" ? received : 0, total);
  }

  function onEngine() {
    render();
    // Whatever is in the fields now (typed while loading, restored by the browser) is computed.
    if (engineStatus().state === "ready") update();
  }

  for (const retry of form.querySelectorAll("[data-retry]")) retry.addEventListener("click", () => startEngine(form));
  const stop = onEngineChange(onEngine);
  onEngine();
  return { update, unmount: stop };
}

/** The reset button: the browser restores the default values, which are then computed. */
export function mountReset(form, address, update) {
  form.addEventListener("reset", () => {
    address.clear();
    setTimeout(update); // the browser restores the default values after this event
  });
}

/** Buttons that fill a few fields at once ([data-preset]: field → text, JSON); a folded group they fill closes. */
export function mountPresets(form, onEdit) {
  for (const button of form.querySelectorAll("[data-preset]")) {
    button.addEventListener("click", () => {
      const names = Object.keys(JSON.parse(button.dataset.preset));
      for (const [name, value] of Object.entries(JSON.parse(button.dataset.preset))) {
        const control = form.elements.namedItem(name);
        if (control) setField(control, value);
      }
      for (const fold of form.querySelectorAll("[data-fold]")) {
        if (names.some((name) => fold.querySelector(`[name="${CSS.escape(name)}"]`))) fold.open = false;
      }
      markPresets(form, button);
      onEdit();
    });
  }
}

/** A long row of presets shown by section ([data-preset-filter]): typing keeps the buttons whose name or section
 * holds every word typed; a section left without buttons is hidden with them. */
export function mountPresetFilter(form) {
  const fold = (text) => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  for (const box of form.querySelectorAll("[data-preset-filter]")) {
    const row = box.closest(".calc__presets");
    box.hidden = false;
    box.addEventListener("input", (event) => {
      event.stopPropagation(); // not a field: nothing to compute
      const words = fold(box.value).split(/\s+/).filter(Boolean);
      for (const section of row.querySelectorAll("[data-section]")) {
        let shown = 0;
        for (const button of section.querySelectorAll("[data-preset]")) {
          const text = fold(`${section.dataset.section} ${button.textContent}`);
          button.hidden = !words.every((word) => text.includes(word));
          if (!button.hidden) shown += 1;
        }
        section.hidden = shown === 0;
      }
    });
    box.addEventListener("change", (event) => event.stopPropagation());
  }
}

/**
 * A pasted document (a model's config.json) read by the Python module in the worker into field texts, which
 * fill the fields as a preset does; its notes are shown as text. The text area and the file input have no name:
 * what is pasted stays on the page, out of the address and of this device's storage.
 */
export function mountPaste(form, onEdit) {
  const box = form.querySelector("[data-paste-box]");
  if (!box) return;
  box.hidden = false;
  const area = box.querySelector("[data-paste]");
  const notes = box.querySelector("[data-paste-notes]");
  let latest = 0;
  function say(lines, error) {
    notes.replaceChildren(...lines.map((line) => {
      const p = document.createElement("p");
      p.textContent = line;
      if (error) p.dataset.pasteError = "";
      return p;
    }));
  }
  async function read(text) {
    const ticket = ++latest;
    if (!text.trim()) return say([], false);
    if (engineStatus().state !== "ready") return say([box.dataset.waiting], false);
    const answer = JSON.parse(await compute(JSON.stringify({ calculator: form.dataset.calculator, paste: text })));
    if (ticket !== latest) return;
    if (answer.status !== "pasted") return say([answer.message || ""], true);
    if (answer.error) return say([answer.error, ...answer.notes], true);
    for (const [name, value] of Object.entries(answer.fields)) {
      const control = form.elements.namedItem(name);
      if (control) setField(control, value);
    }
    onEdit();
    say(answer.notes, false);
  }
  let timer;
  area.addEventListener("input", (event) => {
    event.stopPropagation(); // not a field: nothing to compute until it is read
    clearTimeout(timer);
    timer = setTimeout(() => read(area.value), 300);
  });
  async function readFile(file) {
    if (!file) return;
    area.value = await file.text();
    read(area.value);
  }
  box.querySelector("[data-paste-file]").addEventListener("change", (event) => {
    event.stopPropagation();
    readFile(event.target.files[0]);
  });
  // A config.json dropped on the box is read like a chosen file (not opened by the browser).
  box.addEventListener("dragover", (event) => event.preventDefault());
  box.addEventListener("drop", (event) => {
    if (!event.dataTransfer || !event.dataTransfer.files.length) return;
    event.preventDefault();
    box.open = true;
    readFile(event.dataTransfer.files[0]);
  });
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

/** Copy buttons: a result's text ([data-copy]: its data-output) and the page's link with the values ([data-copy-link]). */
export function mountCopy(form, address) {
  for (const button of form.querySelectorAll("[data-copy]")) {
    button.addEventListener("click", () => {
      const source = form.querySelector(`[data-output="${CSS.escape(button.dataset.copy)}"]`);
      copyText(button, source ? source.textContent : "");
    });
  }
  for (const button of form.querySelectorAll("[data-copy-link]")) {
    button.addEventListener("click", () => {
      address.write();
      copyText(button, location.href);
    });
  }
}

// The longest a link waits for the answer that will change where it leads.
const FEED_WAIT_MS = 3000;

/** Resolves once the form has no answer pending (data-busy gone), or after FEED_WAIT_MS. */
function settled(form) {
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => "busy" in form.dataset || done());
    const timer = setTimeout(() => done(), FEED_WAIT_MS);
    function done() {
      observer.disconnect();
      clearTimeout(timer);
      resolve();
    }
    observer.observe(form, { attributes: true, attributeFilter: ["data-busy"] });
  });
}

/** Links that carry results to a sibling calculator (a[data-feed]; show() keeps their query current). */
export function mountFeeds(form, address) {
  for (const link of form.querySelectorAll("a[data-feed]")) {
    let waited = false;
    link.addEventListener("click", (event) => {
      // An answer still to come changes where the link leads (an edit just made, the values restored on coming
      // back to a page whose links were written for its defaults): a plain click goes once it has come.
      const plain = event.button === 0 && !(event.ctrlKey || event.metaKey || event.shiftKey || event.altKey);
      if ("busy" in form.dataset && plain && !waited) {
        event.preventDefault();
        event.stopPropagation(); // nor does the theme's instant navigation follow it now
        settled(form).then(() => {
          waited = true; // the click that follows goes, whatever is pending then
          if (!link.hidden) link.click();
          waited = false;
        });
        return;
      }
      // Coming back, the reader finds every value.
      address.flush();
      const target = new URL(link.href); // the sibling says where its values came from
      target.searchParams.set("da", form.dataset.calculator);
      link.href = target.href;
    });
  }
}

/** Wire one calculator form; returns what unmounts it (the theme's instant navigation replaced the page). */
export function mountCalculator(form) {
  const address = mountAddress(form, () => {
    markPresets(form);
    engine.update();
  });
  const engine = mountEngine(form, address.restored);
  const onEdit = () => {
    clearTimeout(announcing.get(form)); // still typing: nothing is said until it pauses
    markPresets(form);
    engine.update(true);
    address.writeSoon();
  };
  form.addEventListener("input", onEdit);
  form.addEventListener("change", onEdit);
  form.addEventListener("submit", (event) => event.preventDefault());
  mountReset(form, address, () => {
    markPresets(form);
    engine.update();
  });
  markPresets(form); // values from the address or this device
  mountPresets(form, onEdit);
  mountPresetFilter(form);
  mountPaste(form, onEdit);
  mountCopy(form, address);
  mountFeeds(form, address);
  return () => {
    address.unmount();
    engine.unmount();
  };
}

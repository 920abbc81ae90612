// If the page script (calculators.mjs, or a module it imports) does not load or does not run, the form says so in
// Italian, offers a reload, and keeps what the reader types as the page script would (the address, and this
// device's localStorage under the same key, in the same form: form.mjs), so that the reload finds it. Inlined
// after each calculator form by the Markdown extension, like engine-start.js (the Content-Security-Policy names
// its hash). The page script marks itself as running (window.calcPageScript); a module script that fails to load
// fires "error" on its element, and one that loads but fails to run leaves the mark unset when the page has loaded.
// The theme's instant navigation runs this script again on every page it brings in: it then only marks the new
// forms, if the page script is missing.
(() => {
  if (window.calcPageFallback) return window.calcPageFallback();
  if (location.protocol === "file:") return; // file-protocol.js explains that case
  const MESSAGE = "Lo script della pagina non si è caricato, quindi i risultati non si aggiornano."
    + " Ricarica la pagina per riprovare: i valori che scrivi restano.";
  const edited = new WeakSet();
  let missing = false;
  const keep = (form) => {
    const values = {};
    for (const control of form.querySelectorAll("input[name], select[name]")) {
      values[control.name] = control.type === "checkbox" ? (control.checked ? control.value : "") : control.value;
    }
    const query = new URLSearchParams(values).toString();
    try {
      localStorage.setItem(`calcolatori:${form.dataset.calculator}`, query);
    } catch {
      // storage refused: the address still holds the values
    }
    if (query.length <= Number(form.dataset.addressLimit || Infinity)) {
      history.replaceState(history.state, "", `${location.pathname}?${query}${location.hash}`);
    }
  };
  const onEdit = (event) => {
    const form = event.target && event.target.form;
    if (!form || !form.dataset.calculator) return;
    edited.add(form);
    if (missing && !window.calcPageScript) keep(form);
  };
  document.addEventListener("input", onEdit, true);
  document.addEventListener("change", onEdit, true);
  const giveUp = () => {
    if (window.calcPageScript) return;
    missing = true;
    for (const form of document.querySelectorAll("form[data-calculator]")) {
      const status = form.querySelector("[data-engine-status]");
      if (!status || status.querySelector('[data-when="script"]')) continue;
      form.dataset.state = "error";
      form.dataset.engineReason = "page script not loaded";
      for (const message of status.querySelectorAll("[data-when]")) message.hidden = true;
      const message = document.createElement("p");
      message.dataset.when = "script";
      const reload = document.createElement("button");
      reload.type = "button";
      reload.className = "md-button calc__retry";
      reload.textContent = "Ricarica la pagina";
      reload.addEventListener("click", () => location.reload());
      message.append(MESSAGE, " ", reload);
      status.append(message);
      status.setAttribute("data-showing", "");
      if (edited.has(form)) keep(form);
    }
  };
  window.calcPageFallback = () => missing && giveUp();
  const pageScript = (target) => target instanceof HTMLScriptElement && /\/calculators\.[^/]*m?js$/.test(target.src);
  window.addEventListener("error", (event) => pageScript(event.target) && giveUp(), true);
  window.addEventListener("load", () => setTimeout(giveUp));
})();

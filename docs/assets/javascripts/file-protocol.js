// A classic script, because browsers refuse module scripts on file:// pages:
// there, tell the reader why the calculator cannot start and how to serve the site.
if (location.protocol === "file:") {
  document.addEventListener("DOMContentLoaded", () => {
    for (const form of document.querySelectorAll("form[data-calculator]")) {
      form.dataset.state = "error";
      const status = form.querySelector("[data-engine-status]");
      if (!status) continue;
      status.setAttribute("data-showing", "");
      for (const message of status.querySelectorAll("[data-when]")) message.hidden = message.dataset.when !== "file";
    }
  });
}

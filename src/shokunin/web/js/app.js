// The shell: navigation between views (by URL hash), the language switch and the
// connection status; exposes window.shokunin for tests and debugging.

import { currentLang, setLang, t, translate } from "./i18n.js";
import { ToolsView } from "./tools-view.js";
import { startWorkbench } from "./workbench.js";

const VIEWS = ["workbench", "tools"];

const workbench = startWorkbench(document.getElementById("view-workbench"));
const tools = new ToolsView(document.getElementById("view-tools"));

function show(name) {
  const view = VIEWS.includes(name) ? name : VIEWS[0];
  for (const id of VIEWS) {
    document.getElementById(`view-${id}`).hidden = id !== view;
    document.querySelector(`.nav a[data-view="${id}"]`).setAttribute("aria-current", id === view ? "page" : "false");
  }
  document.body.dataset.view = view;
  if (view === "tools") tools.load();
}

window.addEventListener("hashchange", () => show(location.hash.replace(/^#\/?/, "")));

const statusEl = document.querySelector(".conn-status");
workbench.client.addEventListener("status", ({ detail: status }) => {
  statusEl.dataset.status = status;
  statusEl.querySelector(".conn-text").dataset.i18n = `status.${status}`;
  statusEl.querySelector(".conn-text").textContent = t(`status.${status}`);
});

for (const b of document.querySelectorAll(".lang-switch button")) {
  b.addEventListener("click", () => setLang(b.dataset.lang));
}
const markLang = () => {
  for (const b of document.querySelectorAll(".lang-switch button")) {
    b.setAttribute("aria-pressed", String(b.dataset.lang === currentLang()));
  }
};
document.addEventListener("langchange", markLang);

translate();
markLang();
show(location.hash.replace(/^#\/?/, ""));

window.shokunin = {
  map: { state: () => workbench.map.state() },
  ws: workbench.client,
  setLang,
};

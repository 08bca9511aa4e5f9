// The shell: the view registry with its views, the language switch, the sandbox walls
// notice (from /health), and window.shokunin for tests and debugging. A new face is one
// import and one register() line here.

import { advisorView } from "./advisor-face.js";
import { analystView } from "./analyst-face.js";
import { currentLang, setLang, translate } from "./i18n.js";
import { modelsView } from "./models-face.js";
import { studioView } from "./studio-face.js";
import { toolsView } from "./tools-face.js";
import { ViewRegistry } from "./view-registry.js";
import { showWallsNotice } from "./walls-notice.js";
import { workbenchView } from "./workbench.js";

const views = new ViewRegistry({
  nav: document.querySelector(".nav"),
  main: document.querySelector("main"),
  status: document.querySelector(".conn-status"),
});
views.register(workbenchView);
views.register(toolsView);
views.register(analystView);
views.register(advisorView);
views.register(studioView);
views.register(modelsView);

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

window.shokunin = {
  views,
  get ws() {
    return views.instance("workbench")?.client ?? null;
  },
  map: { state: () => views.instance("workbench")?.map.state() ?? null },
  setLang,
};

views.start();
showWallsNotice(document.querySelector(".walls-notice"));

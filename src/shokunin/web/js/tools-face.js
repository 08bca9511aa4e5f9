// The Tools view's entry in the view registry: its markup, and loading the tool list each
// time the view is shown (nothing is fetched before). The rendering is ToolsView's. A "try"
// still running when another view is shown goes on, and the list is then not reloaded on
// return (a reload re-selects the tool, which aborts its run), so its result is there.
// Its first strings are still in i18n.js's table, the later ones in tools-strings.js. The
// server reads its tool folders again when they change, so "reload" (or showing the view
// again) lists a tool made or edited while it runs.

import { TOOLS_STRINGS } from "./tools-strings.js";
import { ToolsView } from "./tools-view.js";

const MARKUP = `
<div class="tools-layout">
  <aside class="tools-side">
    <div class="tools-side-head">
      <h1 data-i18n="tools.heading"></h1>
      <button type="button" class="tools-reload" data-i18n="tools.reload"></button>
    </div>
    <p class="muted" data-i18n="tools.intro"></p>
    <div class="tools-list"></div>
  </aside>
  <div class="tool-detail"></div>
</div>
`;

class ToolsFace {
  async mount(container, ctx) {
    if (!this.tools) {
      container.innerHTML = MARKUP;
      this.tools = new ToolsView(container);
      const reload = container.querySelector(".tools-reload");
      reload.addEventListener("click", async () => {
        reload.disabled = true;
        try {
          await this.tools.load();
        } finally {
          reload.disabled = false;
        }
      });
    }
    if (this.tools.run) return;
    ctx.setStatus("loading");
    await this.tools.load();
    // load() shows its own failure in the list; the shell's status says it too.
    ctx.setStatus(this.tools.list.querySelector(".error-text") ? "failed" : "ready");
  }

  unmount() {}
}

export const toolsView = {
  name: "tools",
  label: "nav.tools",
  strings: TOOLS_STRINGS,
  create: () => new ToolsFace(),
};

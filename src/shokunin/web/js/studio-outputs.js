// The project's outputs: the assets as images (GET /api/projects/{id}/assets), each
// finished agent's outputs (GET /api/agents/{id}/outputs) as readable documents, and a link
// to download everything as one ZIP. An agent's outputs are fetched once per completion.

import { t } from "./i18n.js";
import { el } from "./dom.js";
import { agentName, pipelineOrder } from "./studio-agents.js";
import { studioApi as api } from "./studio-api.js";
import { renderDocument } from "./studio-document.js";

export class OutputsPanel {
  /** root: the section holding .studio-download, .studio-assets and .studio-output-list. */
  constructor(root) {
    this.download = root.querySelector(".studio-download");
    this.gallery = root.querySelector(".studio-assets");
    this.list = root.querySelector(".studio-output-list");
    this.reset(null);
  }

  reset(projectId) {
    this.projectId = projectId;
    this.cache = new Map(); // agent id -> {completedAt, outputs}
    this.assetKey = null;
    this.gallery.replaceChildren();
    this.gallery.hidden = true;
    this.download.hidden = true;
    this.list.replaceChildren(this.empty());
  }

  empty() {
    const none = el("p", "muted studio-empty", t("studio.noOutputs"));
    none.dataset.i18n = "studio.noOutputs";
    return none;
  }

  /** agents: the project's agents; loads what is new. Throws the server's error. */
  async update(agents) {
    const projectId = this.projectId;
    const done = pipelineOrder(agents).filter((a) => a.status === "completed");
    const stale = done.filter((a) => this.cache.get(a.id)?.completedAt !== a.completedAt);
    const loaded = await Promise.all(stale.map((a) => api.agentOutputs(a.id)));
    if (projectId !== this.projectId) return;
    stale.forEach((a, i) => this.cache.set(a.id, { completedAt: a.completedAt, outputs: loaded[i] }));
    const key = done.map((a) => `${a.id}@${a.completedAt}`).join(",");
    if (key !== this.assetKey) {
      const assets = await api.assets(projectId);
      if (projectId !== this.projectId) return;
      this.assetKey = key;
      this.renderAssets(assets);
    }
    if (stale.length) this.render(done);
  }

  renderAssets(assets) {
    this.gallery.hidden = !assets.length;
    this.gallery.replaceChildren(...assets.map((asset) => {
      const figure = el("figure", "studio-asset");
      const link = el("a");
      link.href = asset.url;
      link.target = "_blank";
      link.rel = "noopener";
      const img = el("img");
      img.src = asset.url;
      img.alt = asset.name;
      link.append(img);
      figure.append(link, el("figcaption", "mono", asset.name));
      return figure;
    }));
  }

  render(done) {
    const fileUrl = (path) => api.fileUrl(this.projectId, path);
    const groups = done.map((agent) => {
      const outputs = this.cache.get(agent.id)?.outputs ?? [];
      if (!outputs.length) return null;
      const latest = outputs[outputs.length - 1];
      const item = el("details", "studio-output");
      item.dataset.agent = agent.id;
      item.dataset.type = latest.outputType;
      const summary = el("summary");
      summary.append(el("span", "studio-output-agent", agentName(agent)),
        el("span", "studio-doc-kind", latest.outputType),
        el("span", "studio-output-summary muted", String(latest.content?.summary ?? latest.filePath ?? "")));
      item.append(summary,
        renderDocument({ ...(latest.content ?? {}), filePath: latest.filePath ?? undefined }, fileUrl));
      return item;
    }).filter(Boolean);
    this.download.hidden = !groups.length;
    this.download.href = api.zipUrl(this.projectId);
    if (groups.length) this.list.replaceChildren(...groups);
    else this.list.replaceChildren(this.empty());
  }
}

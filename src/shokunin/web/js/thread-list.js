// The Workbench's conversation switcher: a "new conversation" button and a drop-down list
// of earlier threads (GET /api/threads?agent=workbench), each a link "#/workbench/<id>".

import { t } from "./i18n.js";
import { listThreads } from "./threads.js";
import { el, when } from "./dom.js";

export class ThreadList {
  /** root: the chat pane; current(): the open thread's id; onNew(): start a new thread. */
  constructor(root, { agent, current, onNew }) {
    this.agent = agent;
    this.current = current;
    this.toggle = root.querySelector(".thread-toggle");
    this.panel = root.querySelector(".thread-panel");
    this.list = this.panel.querySelector(".thread-items");
    root.querySelector(".thread-new").addEventListener("click", () => {
      this.close();
      onNew();
    });
    this.toggle.addEventListener("click", () => (this.panel.hidden ? this.open() : this.close()));
    this.panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        this.close();
        this.toggle.focus();
      }
    });
    // A click anywhere else closes the list; a click on an entry follows its link first.
    document.addEventListener("click", (event) => {
      if (!this.panel.hidden && !this.panel.contains(event.target) && !this.toggle.contains(event.target)) this.close();
    });
    this.panel.addEventListener("click", (event) => {
      if (event.target.closest("a")) this.close();
    });
    document.addEventListener("langchange", () => this.panel.hidden || this.render());
  }

  async open() {
    this.panel.hidden = false;
    this.toggle.setAttribute("aria-expanded", "true");
    this.threads = null;
    this.error = null;
    this.render();
    try {
      this.threads = await listThreads(this.agent);
    } catch (error) {
      this.error = error.message;
    }
    if (!this.panel.hidden) this.render();
  }

  close() {
    this.panel.hidden = true;
    this.toggle.setAttribute("aria-expanded", "false");
  }

  render() {
    if (this.error) {
      this.list.replaceChildren(el("p", "error-text", t("threads.failed", { error: this.error })));
    } else if (this.threads === null) {
      this.list.replaceChildren(el("p", "muted", t("threads.loading")));
    } else if (!this.threads.length) {
      this.list.replaceChildren(el("p", "muted", t("threads.none")));
    } else {
      this.list.replaceChildren(...this.threads.map((thread) => this.item(thread)));
    }
  }

  item(thread) {
    const link = el("a", "thread-item");
    link.href = `#/workbench/${encodeURIComponent(thread.id)}`;
    link.dataset.thread = thread.id;
    const open = thread.id === this.current();
    if (open) link.setAttribute("aria-current", "true");
    const title = el("span", "thread-title", thread.title || t("threads.untitled"));
    title.title = thread.title || thread.id;
    const meta = el("span", "thread-meta", when(thread.updated_at || thread.created_at));
    meta.append(" · ", t("threads.runs", { count: thread.run_count ?? 0 }));
    if (open) meta.append(" · ", el("strong", "", t("threads.current")));
    link.append(title, meta);
    return link;
  }
}

// A face's conversation switcher: a "new conversation" button and a drop-down list of
// earlier threads (GET /api/threads?agent=<agent>), each a link "#/<view>/<id>" (the
// Workbench's conversations, the Analyst's sessions).

import { t } from "./i18n.js";
import { listThreads } from "./threads.js";
import { el, when } from "./dom.js";

export class ThreadList {
  /** root: the element holding the buttons and the panel; agent: whose threads; view: the
   *  view a thread opens in (the agent's name by default); current(): the open thread's id;
   *  onNew(): start a new thread; words: string keys replacing the "threads.*" ones (failed,
   *  loading, none, untitled, runs, current) in the face's own words. */
  constructor(root, { agent, view = agent, current, onNew, words = {} }) {
    this.agent = agent;
    this.view = view;
    this.words = Object.fromEntries(["failed", "loading", "none", "untitled", "runs", "current"]
      .map((word) => [word, words[word] ?? `threads.${word}`]));
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
      this.list.replaceChildren(el("p", "error-text", t(this.words.failed, { error: this.error })));
    } else if (this.threads === null) {
      this.list.replaceChildren(el("p", "muted", t(this.words.loading)));
    } else if (!this.threads.length) {
      this.list.replaceChildren(el("p", "muted", t(this.words.none)));
    } else {
      this.list.replaceChildren(...this.threads.map((thread) => this.item(thread)));
    }
  }

  item(thread) {
    const link = el("a", "thread-item");
    link.href = `#/${this.view}/${encodeURIComponent(thread.id)}`;
    link.dataset.thread = thread.id;
    const open = thread.id === this.current();
    if (open) link.setAttribute("aria-current", "true");
    const title = el("span", "thread-title", thread.title || t(this.words.untitled));
    title.title = thread.title || t(this.words.untitled);
    const meta = el("span", "thread-meta", when(thread.updated_at || thread.created_at));
    meta.append(" · ", t(this.words.runs, { count: thread.run_count ?? 0 }));
    if (open) meta.append(" · ", el("strong", "", t(this.words.current)));
    link.append(title, meta);
    return link;
  }
}

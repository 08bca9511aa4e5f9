// The Advisor's sessions list: one entry per session (title, last change), the selected one
// marked, each with a delete button. It only shows: the view makes the requests.

import { t } from "./i18n.js";
import { el, when } from "./dom.js";

export class SessionList {
  /** list: the <ul>; onSelect(id), onDelete(id): the user's choices. */
  constructor(list, { onSelect, onDelete }) {
    this.list = list;
    this.onSelect = onSelect;
    this.onDelete = onDelete;
    this.sessions = null;
    this.current = null;
    this.busy = false;
    document.addEventListener("langchange", () => this.sessions && this.render(this.sessions));
  }

  /** sessions: GET /api/sessions's list, newest first. */
  render(sessions) {
    this.sessions = sessions;
    if (!sessions.length) {
      const none = el("li", "muted", t("advisor.noSessions"));
      none.dataset.i18n = "advisor.noSessions";
      this.list.replaceChildren(none);
      return;
    }
    this.list.replaceChildren(...sessions.map((s) => {
      const item = el("li", "advisor-session");
      item.dataset.session = s.session_id;
      const open = el("button", "advisor-session-open");
      open.type = "button";
      open.append(el("span", "advisor-session-title", s.title || t("advisor.untitled")),
        el("span", "advisor-session-when", when(s.updated_at || s.created_at)));
      open.addEventListener("click", () => this.onSelect(s.session_id));
      const remove = el("button", "advisor-session-delete", "×");
      remove.type = "button";
      remove.title = t("advisor.delete");
      remove.setAttribute("aria-label", `${t("advisor.delete")}: ${s.title}`);
      remove.addEventListener("click", () => this.onDelete(s.session_id));
      item.append(open, remove);
      return item;
    }));
    this.mark(this.current);
    this.setBusy(this.busy);
  }

  has(id) {
    return Boolean(this.sessions?.some((s) => s.session_id === id));
  }

  /** Mark the selected session (null: none). */
  mark(id) {
    this.current = id;
    for (const item of this.list.children) {
      item.setAttribute("aria-current", String(item.dataset.session === id));
    }
  }

  /** No switching or deleting while an answer streams. */
  setBusy(busy) {
    this.busy = busy;
    for (const button of this.list.querySelectorAll("button")) button.disabled = busy;
  }
}

// The project's log: the stored entries (GET /api/projects/{id}/logs) and then every
// agent:log as it comes, newest at the bottom, each with its time, level and agent. An
// entry seen twice (a live one also in a re-read after a reconnect) is shown once.

import { t } from "./i18n.js";
import { el } from "./dom.js";

const LIMIT = 500;

const time = (iso) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString(undefined, { hour12: false });
};

export class LogList {
  /** list: the <ol>; name(agentId): the agent's name to show. */
  constructor(list, name) {
    this.list = list;
    this.name = name;
    this.seen = new Set();
  }

  /** entries: the stored log, oldest first ({timestamp, level, message, agentId}). */
  reset(entries = []) {
    this.seen.clear();
    this.list.replaceChildren();
    for (const entry of entries) this.add(entry, false);
    this.placeholder();
    this.scroll();
  }

  /** One entry; level in either case (the socket sends INFO, the REST form info). */
  add(entry, scroll = true) {
    const key = `${entry.agentId}|${Date.parse(entry.timestamp)}|${entry.message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.querySelector(".studio-empty")?.remove();
    const level = String(entry.level ?? "info").toLowerCase();
    const item = el("li", "studio-log-entry");
    item.dataset.level = level;
    item.dataset.agent = entry.agentId ?? "";
    item.append(el("time", "studio-log-time", time(entry.timestamp)),
      el("span", "studio-log-level", level),
      el("span", "studio-log-agent", this.name(entry.agentId)),
      el("span", "studio-log-message", entry.message));
    item.querySelector("time").dateTime = entry.timestamp ?? "";
    const atBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    this.list.append(item);
    while (this.list.children.length > LIMIT) this.list.firstChild.remove();
    if (scroll && atBottom) this.scroll();
  }

  /** Fill in the names of agents that were not known yet when their entries came. */
  rename() {
    for (const label of this.list.querySelectorAll(".studio-log-agent:empty")) {
      label.textContent = this.name(label.parentElement.dataset.agent);
    }
  }

  placeholder() {
    if (this.list.children.length) return;
    const none = el("li", "muted studio-empty", t("studio.noLogs"));
    none.dataset.i18n = "studio.noLogs";
    this.list.append(none);
  }

  scroll() {
    this.list.scrollTop = this.list.scrollHeight;
  }
}

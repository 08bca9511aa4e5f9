// The chat pane: user and agent messages (agent text as sanitised Markdown), dark code
// blocks with a copy button and what the code printed under them, errors in red, messages
// waiting behind a run marked as queued, and the composer with send and cancel.

import { copyText } from "./clipboard.js";
import { t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";
import { el } from "./dom.js";

/** A dark code block: header with step label, language badge and a copy button. */
export function codeBlock(code, language, step) {
  const block = el("figure", "code-block");
  const head = el("figcaption", "code-head");
  if (step) head.append(el("span", "code-step", step));
  head.append(el("span", "code-lang", language || "text"));
  const button = el("button", "code-copy", t("chat.copy"));
  button.type = "button";
  button.dataset.i18n = "chat.copy";
  button.addEventListener("click", async () => {
    const ok = await copyText(code);
    if (!ok) return;
    button.textContent = t("chat.copied");
    button.classList.add("copied");
    setTimeout(() => {
      button.textContent = t("chat.copy");
      button.classList.remove("copied");
    }, 1500);
  });
  head.append(button);
  const pre = el("pre");
  pre.append(el("code", "", code));
  block.append(head, pre);
  return block;
}

export class ChatPane {
  constructor(root, client) {
    this.client = client;
    this.log = root.querySelector(".chat-log");
    this.form = root.querySelector(".chat-form");
    this.input = root.querySelector(".chat-input");
    this.sendButton = root.querySelector(".chat-send");
    this.cancelButton = root.querySelector(".chat-cancel");
    this.indicator = root.querySelector(".chat-running");

    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.input.addEventListener("keydown", (event) => {
      // isComposing: Enter that confirms a Japanese IME conversion must not send.
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
        event.preventDefault();
        this.submit();
      }
    });
    this.cancelButton.addEventListener("click", () => client.cancel());
    client.addEventListener("running", (event) => this.setRunning(event.detail));
    client.addEventListener("status", () => this.updateSend());
    client.addEventListener("lost", () => this.addError(t("chat.lost")));
    this.setRunning(false);
  }

  submit() {
    const text = this.input.value.trim();
    if (!text) return;
    if (!this.client.send(text)) {
      this.addError(t("chat.offline"));
      return;
    }
    this.input.value = "";
  }

  setRunning(running) {
    this.indicator.hidden = !running;
    this.cancelButton.hidden = !running;
  }

  updateSend() {
    this.sendButton.disabled = !this.client.connected;
  }

  /** Show one server message; returns false for types the chat does not show. */
  handle(message) {
    switch (message.type) {
      case "user_message":
        this.growing = null;
        // A message echoed as queued is not shown again when its run echoes it.
        if (message.id && this.log.querySelector(`.msg.user[data-ask-id="${CSS.escape(message.id)}"]`)) return true;
        this.addUser(message);
        return true;
      case "text_delta":
        // The answer as the model writes it, as plain text; the whole `text` replaces it.
        if (!this.growing) {
          this.growing = el("div", "bubble-text growing", "");
          this.add("agent", this.growing);
        }
        this.growing.textContent += message.content;
        return true;
      case "text": {
        const body = el("div", "markdown");
        body.innerHTML = renderMarkdown(message.content);
        for (const pre of body.querySelectorAll("pre")) {
          pre.replaceWith(codeBlock(pre.textContent, pre.dataset.lang));
        }
        if (this.growing) this.growing.replaceWith(body);
        else this.add("agent", body);
        this.growing = null;
        return true;
      }
      case "code":
        if (message.output) {
          // What the code printed, under the code it belongs to.
          // Printed text ends with a newline: no empty last line in the block.
          const block = codeBlock(message.content.replace(/\n$/, ""), t("chat.output"), message.step);
          block.classList.add("code-output");
          this.add("agent code output", block);
        } else {
          this.add("agent code", codeBlock(message.content, message.language || "python", message.step));
        }
        return true;
      case "error":
        this.growing = null;
        this.addError(message.content, message.code);
        return true;
      default:
        return false;
    }
  }

  /** Empty the log for another thread; `note` is the i18n key of what the empty log says. */
  clear(note = "chat.empty") {
    this.growing = null;
    const empty = el("p", "chat-empty muted", t(note));
    empty.dataset.i18n = note;
    this.log.replaceChildren(empty);
  }

  addUser({ content, id, queued }) {
    const parts = [el("div", "bubble-text", content)];
    if (queued) {
      const badge = el("span", "queued-badge", t("chat.queued"));
      badge.dataset.i18n = "chat.queued";
      parts.push(badge);
    }
    const item = this.add(queued ? "user queued" : "user", ...parts);
    if (id) item.dataset.askId = id;
  }

  /** A queued message's run started: it is no longer waiting (and, the first one waiting,
   *  it is already below the earlier run's replies). */
  markStarted(id) {
    const item = this.log.querySelector(`.msg.user[data-ask-id="${CSS.escape(String(id))}"]`);
    if (!item) return;
    item.classList.remove("queued");
    item.querySelector(".queued-badge")?.remove();
  }

  /** Queued messages a cancel dropped: they will not run. */
  markDropped(ids) {
    for (const id of ids) {
      const item = this.log.querySelector(`.msg.user.queued[data-ask-id="${CSS.escape(String(id))}"]`);
      if (!item) continue;
      item.classList.replace("queued", "dropped");
      const badge = item.querySelector(".queued-badge");
      badge.textContent = t("chat.dropped");
      badge.dataset.i18n = "chat.dropped";
    }
  }

  addError(text, code) {
    const body = el("div", "bubble-text", String(text));
    this.add(code === "cancelled" ? "error cancelled" : "error", body);
  }

  add(kind, ...parts) {
    this.log.querySelector(".chat-empty")?.remove();
    const item = el("div", `msg ${kind}`);
    item.append(...parts);
    // Keep the view pinned to the bottom only if the reader was already there.
    const atBottom = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
    // Messages waiting for their run stay at the end: the running run's replies go above.
    const waiting = kind.includes("queued") ? null : this.log.querySelector(".msg.user.queued");
    if (waiting) waiting.before(item);
    else this.log.append(item);
    if (atBottom) this.log.scrollTop = this.log.scrollHeight;
    return item;
  }
}

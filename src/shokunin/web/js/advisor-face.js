// The Advisor view (seed 001): a company profile starts a session; the sessions are listed
// (select, delete, new); questions stream their answer as Markdown with the tools used, the
// knowledge-base sources and diagrams; a step indicator shows the playbook step the
// session is at and lets the user move it. The selected session is remembered in
// localStorage, so a reload shows it again. Nothing is fetched before the view is shown.

import { advisorApi as api } from "./advisor-api.js";
import { ChatLog } from "./advisor-chat.js";
import { SessionList } from "./advisor-sessions.js";
import { StepIndicator } from "./advisor-steps.js";
import { ADVISOR_STRINGS } from "./advisor-strings.js";
import { t } from "./i18n.js";
import { el } from "./dom.js";

const KEY = "shokunin.advisor.session";
const FIELDS = ["industry", "products", "companySize", "region", "clientIndustry",
  "priceTransferStatus"];
const RESUME_TRIES = 3;

const field = (name) => `
      <div class="field">
        <label for="advisor-${name}" data-i18n="advisor.field.${name}"></label>
        <input id="advisor-${name}" name="${name}" data-i18n-placeholder="advisor.hint.${name}" autocomplete="off">
      </div>`;

const MARKUP = `
<div class="advisor-layout">
  <aside class="advisor-side">
    <h1 data-i18n="advisor.heading"></h1>
    <p class="muted" data-i18n="advisor.intro"></p>
    <form class="advisor-profile card">
      <h2 data-i18n="advisor.profile"></h2>${FIELDS.map(field).join("")}
      <button type="submit" class="primary" data-i18n="advisor.start"></button>
    </form>
    <section class="advisor-profile-view card" hidden>
      <h2 data-i18n="advisor.profile"></h2>
      <dl></dl>
    </section>
    <section class="advisor-sessions-card card">
      <div class="advisor-card-head">
        <h2 data-i18n="advisor.sessions"></h2>
        <button type="button" class="advisor-new" data-i18n="advisor.new"></button>
      </div>
      <ul class="advisor-sessions"></ul>
    </section>
  </aside>
  <section class="advisor-main">
    <header class="advisor-head">
      <div class="advisor-stepbar">
        <button type="button" class="advisor-step" aria-expanded="false"></button>
        <select class="advisor-step-select" data-i18n-aria-label="advisor.step.change"></select>
        <button type="button" class="advisor-clear" data-i18n="advisor.clear"></button>
      </div>
      <p class="advisor-reasoning" hidden></p>
    </header>
    <div class="advisor-alert" role="alert" hidden>
      <span class="advisor-alert-text"></span>
      <button type="button" class="advisor-alert-close" data-i18n-aria-label="advisor.close">×</button>
    </div>
    <div class="advisor-log" aria-live="polite"></div>
    <form class="advisor-ask">
      <textarea class="advisor-input" rows="2" data-i18n-placeholder="advisor.placeholder"></textarea>
      <button type="submit" class="primary advisor-send" data-i18n="advisor.send"></button>
      <button type="button" class="advisor-cancel" data-i18n="advisor.cancel" hidden></button>
    </form>
  </section>
</div>
`;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// The wire keeps the seed client's tool marker 「*[tool を使用中]*」 in the answer's text;
// this view shows each tool as a chip instead.
const MARKER = /\n\n\*\[[^\]\n]+ を使用中\]\*\n\n/g;
const withoutMarkers = (text) => text.replace(MARKER, "\n\n").trim();

class AdvisorFace {
  mount(container, ctx) {
    this.ctx = ctx;
    if (!this.root) this.build(container);
    if (!this.started) this.started = this.start();
    else ctx.setStatus(this.running ? "loading" : this.failed ? "failed" : "ready");
  }

  unmount() {} // an answer still streaming goes on, so it is complete on return

  build(container) {
    container.innerHTML = MARKUP;
    this.root = container;
    const $ = (selector) => container.querySelector(selector);
    this.form = $(".advisor-profile");
    this.profileView = $(".advisor-profile-view");
    this.list = new SessionList($(".advisor-sessions"), {
      onSelect: (id) => this.select(id),
      onDelete: (id) => this.deleteSession(id),
    });
    this.input = $(".advisor-input");
    this.send = $(".advisor-send");
    this.cancelButton = $(".advisor-cancel");
    this.clearButton = $(".advisor-clear");
    this.alertBox = $(".advisor-alert");
    this.log = new ChatLog($(".advisor-log"));
    this.steps = new StepIndicator($(".advisor-head"), { onChoose: (step) => this.chooseStep(step) });
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.createSession();
    });
    $(".advisor-new").addEventListener("click", () => this.newSession());
    $(".advisor-ask").addEventListener("submit", (e) => {
      e.preventDefault();
      this.ask(this.input.value.trim());
    });
    this.input.addEventListener("keydown", (e) => {
      // Enter while an input method is composing Japanese confirms the word, never sends.
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.ask(this.input.value.trim());
      }
    });
    this.cancelButton.addEventListener("click", () => this.cancel());
    this.clearButton.addEventListener("click", () => this.clear());
    $(".advisor-alert-close").addEventListener("click", () => this.alert(null));
    this.setSession(null);
  }

  async start() {
    this.ctx.setStatus("loading");
    try {
      const [playbook, sessions] = await Promise.all([api.playbook(), api.sessions()]);
      this.steps.setPlaybook(playbook);
      this.list.render(sessions);
      const saved = localStorage.getItem(KEY);
      if (saved && this.list.has(saved)) await this.select(saved);
      else this.newSession();
      this.failed = false;
    } catch (error) {
      this.failed = true;
      this.started = null; // the next visit tries again
      this.alert(error.message);
    }
    this.ctx.setStatus(this.failed ? "failed" : "ready");
  }

  alert(message) {
    this.alertBox.hidden = !message;
    this.alertBox.querySelector(".advisor-alert-text").textContent = message ?? "";
  }

  setSession(id, userInfo = {}) {
    this.sessionId = id;
    this.form.hidden = Boolean(id);
    this.profileView.hidden = !id;
    const rows = FIELDS.filter((name) => userInfo[name]).flatMap((name) => {
      const dt = el("dt", "", t(`advisor.field.${name}`));
      dt.dataset.i18n = `advisor.field.${name}`;
      return [dt, el("dd", "", userInfo[name])];
    });
    this.profileView.querySelector("dl").replaceChildren(...rows);
    this.list.mark(id);
    this.log.reset(id ? "advisor.empty" : "advisor.needsSession");
    this.steps.show(null);
    this.setBusy(false);
  }

  setBusy(busy) {
    const idle = !busy && Boolean(this.sessionId);
    this.input.disabled = !this.sessionId;
    this.send.disabled = !idle;
    this.clearButton.disabled = !idle;
    this.steps.setBusy(!idle);
    this.cancelButton.hidden = !busy;
    this.list.setBusy(busy);
  }

  async refreshSessions() {
    try {
      this.list.render(await api.sessions());
    } catch (error) {
      this.alert(error.message);
    }
  }

  newSession() {
    if (this.running) return;
    this.alert(null);
    localStorage.removeItem(KEY);
    this.setSession(null);
    this.form.reset();
    this.form.querySelector("input").focus();
  }

  async createSession() {
    this.alert(null);
    const info = Object.fromEntries(FIELDS.map((name) => [name, this.form.elements[name].value.trim()])
      .filter(([, value]) => value));
    try {
      const id = await api.createSession(info);
      await this.refreshSessions();
      await this.select(id);
    } catch (error) {
      this.alert(error.message);
    }
  }

  /** Show a stored session: its profile, messages, step and latest diagram. */
  async select(id) {
    if (this.running) return;
    this.alert(null);
    let data;
    try {
      data = await api.messages(id);
    } catch (error) {
      this.alert(error.message);
      return;
    }
    localStorage.setItem(KEY, id);
    this.setSession(id, data.user_info ?? {});
    let last = null;
    for (const message of data.messages) {
      if (message.role === "user") this.log.user(message.content);
      else last = this.log.assistant(message);
    }
    this.steps.show(data.step ?? { step: data.current_step });
    if (last) await this.showLatestDiagram(last);
    this.input.focus({ preventScroll: true }); // on a narrow screen the profile stays in sight
  }

  async showLatestDiagram(turn) {
    try {
      const diagram = await api.latestDiagram(this.sessionId);
      if (diagram) turn.diagram(diagram);
    } catch (error) {
      turn.error(error.message);
    }
  }

  async deleteSession(id) {
    if (this.running || !confirm(t("advisor.confirmDelete"))) return;
    this.alert(null);
    try {
      await api.deleteSession(id);
    } catch (error) {
      this.alert(error.message);
      return;
    }
    if (id === this.sessionId) this.newSession();
    await this.refreshSessions();
  }

  async clear() {
    if (!this.sessionId || this.running || !confirm(t("advisor.confirmClear"))) return;
    this.alert(null);
    try {
      await api.clear(this.sessionId);
    } catch (error) {
      this.alert(error.message);
      return;
    }
    this.log.reset();
    this.steps.show(null);
  }

  async ask(text) {
    if (!text || this.running) return;
    if (!this.sessionId) {
      this.alert(t("advisor.needsSession"));
      return;
    }
    this.alert(null);
    this.input.value = "";
    this.log.user(text);
    const turn = this.log.turn();
    const sessionId = this.sessionId;
    const answered = await this.run(turn, (signal) => api.chat(text, sessionId, signal));
    // A diagram drawn by a tool may come only as a file: look for it once the answer is done.
    if (answered && this.sessionId === sessionId) await this.showLatestDiagram(turn);
    await this.refreshSessions();
  }

  /** Follow an answer's events until it ends, resuming after a dropped connection; true
   *  when it ended with `done`. */
  async run(turn, open) {
    this.running = { runId: null, controller: new AbortController(), done: false };
    const { signal } = this.running.controller;
    this.setBusy(true);
    this.ctx.setStatus("loading");
    turn.waiting(true);
    let last = 0;
    let ended = false;
    let stream = open(signal);
    for (let tries = 0; ; tries += 1) {
      try {
        for await (const { id, data } of stream) {
          if (id) last = Number(id);
          ended = this.handle(turn, data) || ended;
        }
      } catch (error) {
        if (error.name === "AbortError") break;
        if (!this.running.runId || tries >= RESUME_TRIES) {
          turn.error(error.message);
          ended = true;
        }
      }
      if (ended) break;
      if (!this.running.runId || tries >= RESUME_TRIES) {
        turn.error(t("advisor.dropped"), "dropped");
        break;
      }
      await sleep(500 * (tries + 1));
      stream = api.resume(this.running.runId, last, signal);
    }
    turn.waiting(false);
    const { done } = this.running;
    this.running = null;
    this.setBusy(false);
    this.ctx.setStatus("ready");
    return done;
  }

  /** One wire message; true when the answer has ended. */
  handle(turn, data) {
    switch (data.type) {
      case "run":
        this.running.runId = data.run_id;
        return false;
      case "step_update":
        this.steps.show(data);
        return false;
      case "tool_use":
        turn.tool(data.tool, data.args);
        return false;
      case "sources":
        turn.showSources(data.sources);
        return false;
      case "content":
        turn.content(withoutMarkers(data.data));
        return false;
      case "diagram":
        turn.diagram(data.diagram);
        return false;
      case "done":
        this.running.done = true;
        if (data.content) turn.content(withoutMarkers(data.content));
        if ((data.current_step ?? null) !== this.steps.current()) {
          this.steps.show({ step: data.current_step });
        }
        return true;
      case "error":
        turn.error(data.error, data.code);
        return true;
      default:
        return false;
    }
  }

  async cancel() {
    const runId = this.running?.runId;
    if (!runId) return;
    try {
      await api.cancel(runId);
    } catch (error) {
      if (error.code !== "not_running") this.alert(error.message); // it ended meanwhile
    }
  }

  /** The user moves the session to a step: a short run that settles it. */
  async chooseStep(step) {
    if (!this.sessionId || this.running) return;
    this.alert(null);
    this.steps.setBusy(true);
    try {
      const { run_id: runId } = await api.setStep(this.sessionId, step);
      for await (const { data } of api.resume(runId, 0)) {
        if (data.type === "step_update") this.steps.show(data);
        if (data.type === "error") this.alert(data.error);
      }
    } catch (error) {
      this.alert(error.message);
    }
    this.steps.setBusy(!this.sessionId);
  }
}

export const advisorView = {
  name: "advisor",
  label: "nav.advisor",
  strings: ADVISOR_STRINGS,
  create: () => new AdvisorFace(),
};

// The Analyst view (seed 004): drop or pick a table, see its profile and first rows, ask
// questions; each run's steps (reason, run_code, report), code, output, tables and plots
// stream in, a clarification is answered inline, and each report downloads as Markdown,
// HTML or a notebook. Runs stream from GET /api/runs/{id}/events; cancel stops one.
//
// Sessions: a session is the Analyst thread the first upload makes. Its id is in the URL
// ("#/analyst/<id>") and in localStorage, so a reload reopens it: its latest table, every
// question and what its run stored, shown by the same code as the live events (a run still
// going is followed from its last event). A list reopens earlier sessions, "new session"
// starts another, and the whole session's report downloads as Markdown, HTML or a notebook.

import { ANALYST_STRINGS } from "./analyst-strings.js";
import { loadSession, routeThread, sessionReportUrl } from "./analyst-session.js";
import { FORMATS, Turn } from "./analyst-turn.js";
import { api } from "./http.js";
import { currentLang, t } from "./i18n.js";
import { getEvents } from "./sse.js";
import { ThreadList } from "./thread-list.js";
import { forgetThread, rememberThread, rememberedThread } from "./threads.js";
import { el } from "./dom.js";

const FACE = "analyst";

const MARKUP = `
<div class="analyst-layout">
  <aside class="analyst-side">
    <h1 data-i18n="analyst.heading"></h1>
    <p class="muted" data-i18n="analyst.intro"></p>
    <label class="analyst-drop">
      <input type="file" accept=".csv,.tsv,.txt,.xlsx" hidden>
      <span data-i18n="analyst.drop"></span>
    </label>
    <p class="analyst-dataset muted"></p>
    <div class="analyst-preview"></div>
  </aside>
  <section class="analyst-main">
    <header class="analyst-head">
      <h2 class="analyst-title"></h2>
      <div class="analyst-head-actions">
        <button type="button" class="thread-toggle" aria-haspopup="true" aria-expanded="false" aria-controls="analyst-thread-panel" data-i18n="analyst.sessions"></button>
        <button type="button" class="thread-new" data-i18n="analyst.newSession"></button>
      </div>
      <p class="analyst-session-report" hidden>
        <span class="muted" data-i18n="analyst.sessionReport"></span>
        ${FORMATS.map((fmt) => `<a data-format="${fmt}">${fmt.toUpperCase()}</a>`).join(" ")}
      </p>
      <div id="analyst-thread-panel" class="thread-panel" hidden>
        <h3 data-i18n="analyst.sessionsHeading"></h3>
        <nav class="thread-items" data-i18n-aria-label="analyst.sessionsHeading"></nav>
      </div>
    </header>
    <div class="analyst-log" aria-live="polite"></div>
    <form class="analyst-ask">
      <input class="analyst-question" data-i18n-placeholder="analyst.placeholder" autocomplete="off">
      <button type="submit" class="primary" data-i18n="analyst.ask"></button>
      <button type="button" class="analyst-cancel" data-i18n="analyst.cancel" hidden></button>
    </form>
  </section>
</div>
`;

class AnalystFace {
  constructor() {
    this.threadId = null; // the session shown (null: a new one, made by the first upload)
    this.dataset = null; // the table questions are asked about: the session's latest
    this.loads = 0; // the latest session load; an older one that answers late is dropped
    this.running = null;
  }

  mount(container, ctx) {
    this.ctx = ctx;
    const first = !this.root;
    if (first) this.build(container);
    const wanted = routeThread(ctx.route);
    if (wanted && wanted !== this.threadId) this.openSession(wanted);
    else if (first && rememberedThread(FACE)) this.openSession(rememberedThread(FACE));
    else if (first) this.reset("analyst.empty");
    else this.showRoute();
    if (!this.loading) ctx.setStatus(this.running ? "loading" : "ready");
  }

  unmount() {} // a run still streaming goes on, so it is complete on return

  /** The hash changed within the view: "#/analyst/<id>" opens that session. */
  route(route) {
    const wanted = routeThread(route);
    if (wanted && wanted !== this.threadId) this.openSession(wanted);
    else this.showRoute();
  }

  showRoute() {
    this.ctx.setRoute(this.threadId ? encodeURIComponent(this.threadId) : "");
  }

  build(container) {
    container.innerHTML = MARKUP;
    this.root = container;
    this.log = container.querySelector(".analyst-log");
    this.input = container.querySelector(".analyst-question");
    this.cancelButton = container.querySelector(".analyst-cancel");
    this.title = container.querySelector(".analyst-title");
    this.sessionReport = container.querySelector(".analyst-session-report");
    this.sessions = new ThreadList(container.querySelector(".analyst-head"), {
      agent: FACE,
      current: () => this.threadId,
      onNew: () => this.newSession(),
      words: { failed: "analyst.sessionsFailed", none: "analyst.noSessions",
        untitled: "analyst.untitled", runs: "analyst.questionCount", current: "analyst.current" },
    });
    const drop = container.querySelector(".analyst-drop");
    this.file = drop.querySelector("input");
    this.file.addEventListener("change", () => this.file.files[0] && this.upload(this.file.files[0]));
    drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
    drop.addEventListener("dragleave", () => drop.classList.remove("over"));
    drop.addEventListener("drop", (e) => {
      e.preventDefault();
      drop.classList.remove("over");
      if (e.dataTransfer.files[0]) this.upload(e.dataTransfer.files[0]);
    });
    container.querySelector(".analyst-ask").addEventListener("submit", (e) => {
      e.preventDefault();
      this.ask(this.input.value.trim());
    });
    this.cancelButton.addEventListener("click", () => this.cancel());
    document.addEventListener("langchange", () => this.showSessionReport());
  }

  /** Empty the view for another session; `message`: the log's line meanwhile. */
  reset(message) {
    this.running?.controller.abort(); // its run goes on on the server: the session shows it
    this.running = null;
    this.loading = false;
    this.cancelButton.hidden = true;
    this.dataset = null;
    this.hasReport = false;
    this.file.value = ""; // the same file may be chosen again for the new session
    const info = this.root.querySelector(".analyst-dataset");
    info.textContent = "";
    info.className = "analyst-dataset muted";
    this.root.querySelector(".analyst-preview").replaceChildren();
    this.showTitle();
    this.showSessionReport();
    this.hint(message);
  }

  /** One line in the empty log, saying what to do (or what is being done). */
  hint(message) {
    const line = el("p", "analyst-empty muted", t(message));
    line.dataset.i18n = message;
    this.log.replaceChildren(line);
  }

  showTitle() {
    const name = this.dataset?.original_name;
    if (name) delete this.title.dataset.i18n;
    else this.title.dataset.i18n = "analyst.newSession";
    this.title.textContent = name ?? t("analyst.newSession");
  }

  /** The whole session's report links, once a question of it has a report. */
  showSessionReport() {
    this.sessionReport.hidden = !(this.threadId && this.hasReport);
    if (this.sessionReport.hidden) return;
    for (const a of this.sessionReport.querySelectorAll("a")) {
      a.href = sessionReportUrl(this.threadId, a.dataset.format, currentLang());
    }
  }

  newSession() {
    ++this.loads;
    forgetThread(FACE);
    this.threadId = null;
    this.ctx.setRoute("", { push: true }); // Back returns to the session left
    this.reset("analyst.empty");
    this.ctx.setStatus("ready");
  }

  /** Show a stored session: its latest table, and every question with what its run said. */
  async openSession(id) {
    const load = ++this.loads;
    this.threadId = id;
    this.showRoute();
    this.reset("analyst.loadingSession");
    this.loading = true;
    this.ctx.setStatus("loading");
    let session;
    try {
      session = await loadSession(id);
    } catch (error) {
      if (load !== this.loads) return;
      this.loading = false;
      this.log.replaceChildren(el("p", "error-text", t("analyst.sessionFailed", { error: error.message })));
      this.ctx.setStatus("failed");
      return;
    }
    if (load !== this.loads) return;
    this.loading = false;
    this.ctx.setStatus("ready");
    if (!session.known) { // never used, deleted or another face's: a new session
      this.threadId = null;
      forgetThread(FACE);
      this.showRoute();
      this.reset("analyst.empty");
      return;
    }
    rememberThread(id, FACE);
    if (session.questions.length) this.log.replaceChildren();
    else this.hint("analyst.askNow");
    const dataset = session.datasets.at(-1);
    if (dataset) this.showDataset(dataset);
    let live = null;
    for (const question of session.questions) live = this.replay(question) ?? live;
    this.scrollToEnd();
    if (live) this.follow(live.runId, live.after, live.turn);
  }

  /** One stored question as it was shown live; {runId, after, turn} for a run still going. */
  replay({ runId, status, question, events }) {
    this.log.append(el("div", "analyst-msg user", question));
    let turn = this.turn();
    events.forEach((event, i) => {
      const answered = i < events.length - 1 || status !== "interrupted";
      if (event.kind === "run_interrupted" && answered) {
        turn.asked(event); // the rest of the run is a turn of its own, as live
        turn = this.turn();
      } else {
        turn.show(event, runId);
      }
    });
    if (status !== "running") {
      turn.settle(); // it ended (or waits): nothing is being worked on
      return null;
    }
    return { runId, after: Math.max(0, ...events.map((e) => e.seq ?? 0)), turn };
  }

  /** Show the log's end, or the latest answer from its start; again once its plots have
   *  decoded (they grow the log then). */
  scrollToEnd() {
    // once the latest question is answered, its answer's first line is what to read: at the top
    const last = this.log.lastElementChild;
    const report = last?.classList.contains("analyst-turn") ? last.querySelector(".analyst-report") : null;
    const place = () => {
      if (!report) this.log.scrollTop = this.log.scrollHeight;
      else this.log.scrollTop += report.getBoundingClientRect().top - this.log.getBoundingClientRect().top - 8;
    };
    place();
    for (const img of this.log.querySelectorAll("img.analyst-plot:not([data-decoded])")) {
      img.dataset.decoded = "";
      img.decode().then(place, () => {});
    }
  }

  async upload(file) {
    const info = this.root.querySelector(".analyst-dataset");
    info.textContent = t("analyst.uploading");
    info.className = "analyst-dataset muted";
    const form = new FormData();
    form.append("file", file);
    if (this.threadId) form.append("thread_id", this.threadId);
    const load = this.loads;
    let dataset;
    try {
      dataset = await api("/api/analyst/datasets", { method: "POST", body: form });
    } catch (error) {
      info.textContent = error.message;
      info.className = "analyst-dataset error-text";
      return;
    } finally {
      this.file.value = "";
    }
    if (load !== this.loads) return; // another session was opened meanwhile
    if (this.threadId !== dataset.thread_id) { // the session's first table made it
      this.threadId = dataset.thread_id;
      rememberThread(this.threadId, FACE);
      this.showRoute();
    }
    if (this.log.querySelector(".analyst-empty")) this.hint("analyst.askNow");
    await this.showDataset(dataset);
  }

  /** The table questions are asked about: its name, shape and first rows. */
  async showDataset(dataset) {
    this.dataset = dataset;
    this.showTitle();
    const info = this.root.querySelector(".analyst-dataset");
    const { profile } = dataset;
    info.className = "analyst-dataset muted";
    // a header found (or named) under title lines is said: the rows above it were skipped
    const headerRow = profile.header_row > 1 ? " — " + t("analyst.headerRow", { row: profile.header_row }) : "";
    info.textContent = `${dataset.original_name}: ` + t("analyst.shape", {
      rows: profile.rows, columns: profile.column_count, encoding: dataset.encoding ?? "xlsx" }) + headerRow;
    let preview;
    try {
      preview = await api(`/api/analyst/datasets/${encodeURIComponent(dataset.id)}/preview?rows=10`);
    } catch (error) {
      if (this.dataset === dataset) {
        this.root.querySelector(".analyst-preview").replaceChildren(el("p", "error-text", error.message));
      }
      return;
    }
    if (this.dataset !== dataset) return;
    const table = el("table", "analyst-table");
    const head = table.createTHead().insertRow();
    for (const name of preview.columns) head.append(el("th", "", name));
    const body = table.createTBody();
    for (const row of preview.rows) {
      const tr = body.insertRow();
      for (const value of row) tr.append(el("td", "", value ?? ""));
    }
    this.root.querySelector(".analyst-preview").replaceChildren(table);
  }

  async ask(question) {
    if (!question || this.running) return;
    if (!this.dataset) {
      this.log.append(el("p", "error-text", t("analyst.needsDataset")));
      return;
    }
    this.input.value = "";
    this.log.querySelector(".analyst-empty")?.remove();
    this.log.append(el("div", "analyst-msg user", question));
    let run;
    try {
      run = await api("/api/analyst/runs", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ dataset_id: this.dataset.id, question }) });
    } catch (error) {
      this.log.append(el("p", "error-text", error.message));
      return;
    }
    await this.follow(run.run_id, 0);
  }

  /** A new turn in the log: the run's steps, then what it shows. */
  turn() {
    return new Turn(this.log, {
      onReport: () => {
        this.hasReport = true;
        this.showSessionReport();
      },
      onAnswered: (runId, seq) => this.follow(runId, seq),
    });
  }

  /** Show the run's events after `after` as they come, until it ends or waits. */
  async follow(runId, after, turn = this.turn()) {
    const running = { runId, controller: new AbortController() };
    this.running = running;
    this.cancelButton.hidden = false;
    this.ctx.setStatus("loading");
    let last = after;
    try {
      for await (const { data } of getEvents(`/api/runs/${encodeURIComponent(runId)}/events?after=${after}`,
        running.controller.signal)) {
        last = data.seq ?? last;
        turn.show(data, runId);
        this.scrollToEnd();
      }
    } catch (error) {
      if (error.name !== "AbortError") turn.box.append(el("p", "error-text", error.message));
    } finally {
      turn.settle();
      if (this.running === running) { // not left for another session meanwhile
        this.running = null;
        this.cancelButton.hidden = true;
        this.ctx.setStatus("ready");
        this.scrollToEnd();
      }
    }
    return last;
  }

  async cancel() {
    if (!this.running) return;
    await fetch(`/api/runs/${this.running.runId}/cancel`, { method: "POST" });
  }
}

export const analystView = {
  name: "analyst",
  label: "nav.analyst",
  strings: ANALYST_STRINGS,
  create: () => new AnalystFace(),
};

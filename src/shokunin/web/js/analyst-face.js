// The Analyst view (seed 004): drop or pick a table, see its profile and first rows, ask
// questions; each run's steps (reason, run_code, report), code, output, tables and plots
// stream in, a clarification is answered inline, and the report downloads as Markdown,
// HTML or a notebook. Runs stream from GET /api/runs/{id}/events; cancel stops one.

import { t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";
import { getEvents } from "./sse.js";
import { el } from "./dom.js";

const STRINGS = {
  ja: {
    "nav.analyst": "アナリスト",
    "analyst.heading": "アナリスト",
    "analyst.intro": "CSV・TSV・Excel の表を読み込み、質問するとコードを書いて実行し、結果から答えます。",
    "analyst.drop": "ここに表ファイルをドロップ、またはクリックして選択",
    "analyst.uploading": "読み込み中…",
    "analyst.shape": "{rows} 行 × {columns} 列（{encoding}）",
    "analyst.ask": "質問",
    "analyst.placeholder": "例: 店舗別の売上高合計 / average units by store",
    "analyst.cancel": "中止",
    "analyst.answer": "回答",
    "analyst.step.reason": "判断",
    "analyst.step.run_code": "コード実行",
    "analyst.step.report": "レポート",
    "analyst.output": "出力",
    "analyst.failed": "失敗",
    "analyst.cancelled": "中止しました",
    "analyst.download": "ダウンロード",
    "analyst.needsDataset": "先に表を読み込んでください",
  },
  en: {
    "nav.analyst": "Analyst",
    "analyst.heading": "Analyst",
    "analyst.intro": "Load a CSV, TSV or Excel table and ask: it writes code, runs it and answers from the results.",
    "analyst.drop": "Drop a table file here, or click to choose one",
    "analyst.uploading": "Reading…",
    "analyst.shape": "{rows} rows × {columns} columns ({encoding})",
    "analyst.ask": "Ask",
    "analyst.placeholder": "e.g. average units by store / 店舗別の売上高合計",
    "analyst.cancel": "Cancel",
    "analyst.answer": "Answer",
    "analyst.step.reason": "reason",
    "analyst.step.run_code": "run code",
    "analyst.step.report": "report",
    "analyst.output": "Output",
    "analyst.failed": "Failed",
    "analyst.cancelled": "Cancelled",
    "analyst.download": "Download",
    "analyst.needsDataset": "Load a table first",
  },
};

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
    <div class="analyst-log"></div>
    <form class="analyst-ask">
      <input class="analyst-question" data-i18n-placeholder="analyst.placeholder" autocomplete="off">
      <button type="submit" class="primary" data-i18n="analyst.ask"></button>
      <button type="button" class="analyst-cancel" data-i18n="analyst.cancel" hidden></button>
    </form>
  </section>
</div>
`;

async function api(url, init) {
  const response = await fetch(url, init);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}

class AnalystFace {
  mount(container, ctx) {
    this.ctx = ctx;
    if (this.root) return;
    container.innerHTML = MARKUP;
    this.root = container;
    this.log = container.querySelector(".analyst-log");
    this.input = container.querySelector(".analyst-question");
    this.cancelButton = container.querySelector(".analyst-cancel");
    const drop = container.querySelector(".analyst-drop");
    const file = drop.querySelector("input");
    file.addEventListener("change", () => file.files[0] && this.upload(file.files[0]));
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
    ctx.setStatus("ready");
  }

  unmount() {}

  async upload(file) {
    const info = this.root.querySelector(".analyst-dataset");
    info.textContent = t("analyst.uploading");
    const form = new FormData();
    form.append("file", file);
    if (this.dataset) form.append("thread_id", this.dataset.thread_id);
    try {
      this.dataset = await api("/api/analyst/datasets", { method: "POST", body: form });
    } catch (error) {
      info.textContent = error.message;
      info.className = "analyst-dataset error-text";
      return;
    }
    const { profile } = this.dataset;
    info.className = "analyst-dataset muted";
    info.textContent = `${this.dataset.original_name}: ` + t("analyst.shape", {
      rows: profile.rows, columns: profile.column_count, encoding: this.dataset.encoding ?? "xlsx" });
    const preview = await api(`/api/analyst/datasets/${this.dataset.id}/preview?rows=10`);
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

  /** Show the run's events after `after` as they come, until it ends or waits. */
  async follow(runId, after) {
    this.running = { runId, controller: new AbortController() };
    this.cancelButton.hidden = false;
    this.ctx.setStatus("loading");
    const turn = el("div", "analyst-turn");
    const steps = el("ol", "analyst-steps");
    turn.append(steps);
    this.log.append(turn);
    let last = after;
    try {
      for await (const { data } of getEvents(`/api/runs/${runId}/events?after=${after}`,
        this.running.controller.signal)) {
        last = data.seq ?? last;
        this.show(turn, steps, data, runId);
      }
    } catch (error) {
      if (error.name !== "AbortError") turn.append(el("p", "error-text", error.message));
    } finally {
      this.running = null;
      this.cancelButton.hidden = true;
      this.ctx.setStatus("ready");
      this.log.scrollTop = this.log.scrollHeight;
    }
    return last;
  }

  step(steps, node, detail = "") {
    for (const item of steps.children) item.classList.remove("current");
    const item = el("li", "current", t(`analyst.step.${node}`) + (detail ? ` · ${detail}` : ""));
    item.dataset.node = node;
    steps.append(item);
  }

  show(turn, steps, event, runId) {
    switch (event.kind) {
      case "debug":
        if (event.content?.node) this.step(steps, "reason", event.content.decision.action);
        break;
      case "code": {
        this.step(steps, "run_code", event.step ?? "");
        const pre = el("pre", "analyst-code");
        pre.append(el("code", "", event.code));
        turn.append(pre);
        break;
      }
      case "code_result": {
        const text = [event.stdout, event.ok ? "" : `${event.error_type}: ${event.error_message}`]
          .filter(Boolean).join("\n");
        if (text) {
          const out = el("pre", `analyst-output${event.ok ? "" : " failed"}`, text);
          out.dataset.label = t(event.ok ? "analyst.output" : "analyst.failed");
          turn.append(out);
        }
        break;
      }
      case "table":
        turn.append(Object.assign(el("div", "analyst-table-md markdown"),
          { innerHTML: renderMarkdown(event.markdown) }));
        break;
      case "image": {
        const img = el("img", "analyst-plot");
        img.alt = event.path ?? "plot";
        img.src = `data:image/${event.format === "svg" ? "svg+xml" : event.format};base64,${event.data_base64}`;
        turn.append(img);
        break;
      }
      case "text":
        this.step(steps, "report");
        turn.append(this.report(event.text, runId));
        break;
      case "run_interrupted":
        turn.append(this.clarification(event.payload?.value?.question ?? "", runId, event.seq));
        break;
      case "run_failed":
        turn.append(el("p", "error-text", event.error));
        break;
      case "run_cancelled":
        turn.append(el("p", "muted", t("analyst.cancelled")));
        break;
      default:
    }
    this.log.scrollTop = this.log.scrollHeight;
  }

  report(text, runId) {
    const box = el("div", "analyst-report");
    box.append(Object.assign(el("div", "markdown"), { innerHTML: renderMarkdown(text) }));
    const links = el("p", "analyst-downloads");
    links.append(el("span", "muted", `${t("analyst.download")}: `));
    for (const fmt of ["md", "html", "ipynb"]) {
      const a = el("a", "", fmt.toUpperCase());
      a.href = `/api/analyst/runs/${runId}/report.${fmt}`;
      a.dataset.format = fmt;
      links.append(a, " ");
    }
    box.append(links);
    return box;
  }

  clarification(question, runId, seq) {
    const form = el("form", "analyst-clarify");
    const input = el("input");
    const submit = el("button", "primary", t("analyst.answer"));
    submit.type = "submit";
    form.append(el("p", "", question), input, submit);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!input.value.trim()) return;
      try {
        await api(`/api/runs/${runId}/resume`, {
          method: "POST", headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ value: input.value.trim() }) });
      } catch (error) {
        form.append(el("p", "error-text", error.message));
        return;
      }
      form.replaceChildren(el("p", "muted", `${question} → ${input.value.trim()}`));
      await this.follow(runId, seq);
    });
    return form;
  }

  async cancel() {
    if (!this.running) return;
    await fetch(`/api/runs/${this.running.runId}/cancel`, { method: "POST" });
  }
}

export const analystView = {
  name: "analyst",
  label: "nav.analyst",
  strings: STRINGS,
  create: () => new AnalystFace(),
};

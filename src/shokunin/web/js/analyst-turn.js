// One answer of the Analyst in its log: the run's steps (reason, run code, report) as a row
// of chips, then its code, output, tables, plots and report with its downloads, or the
// clarification it waits for, answered inline. Live events and a reloaded session's stored
// ones are shown by this one code.

import { api } from "./http.js";
import { currentLang, t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";
import { el } from "./dom.js";

export const FORMATS = ["md", "html", "ipynb"];

export class Turn {
  /** log: where the turn goes; onReport(): a report was shown; onAnswered(runId, seq): a
   *  clarification was answered, the run goes on after seq. */
  constructor(log, { onReport, onAnswered }) {
    this.box = el("div", "analyst-turn");
    this.steps = el("ol", "analyst-steps");
    this.box.append(this.steps);
    log.append(this.box);
    this.onReport = onReport;
    this.onAnswered = onAnswered;
  }

  step(node, detail = "") {
    for (const item of this.steps.children) item.classList.remove("current");
    const item = el("li", "current", t(`analyst.step.${node}`) + (detail ? ` · ${detail}` : ""));
    item.dataset.node = node;
    this.steps.append(item);
  }

  /** One event of the run (its SSE form). */
  show(event, runId) {
    const turn = this.box;
    switch (event.kind) {
      case "debug":
        if (event.content?.node) this.step("reason", event.content.decision.action);
        break;
      case "code": {
        this.step("run_code", event.step ?? "");
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
        this.step("report");
        turn.append(this.report(event.text, runId));
        this.onReport();
        break;
      case "run_interrupted":
        turn.append(this.clarification(event.payload?.value?.question ?? "", runId, event.seq));
        break;
      case "run_failed":
        // a failure the user can act on (a model's) says what to change, in their language
        turn.append(el("p", "error-text", event.said?.[currentLang()] ?? event.error));
        break;
      case "run_cancelled":
        turn.append(el("p", "muted", t("analyst.cancelled")));
        break;
      default:
    }
  }

  /** A clarification answered before (a reloaded session does not know the answer). */
  asked(event) {
    const question = event.payload?.value?.question ?? "";
    this.box.append(el("p", "analyst-asked muted", t("analyst.asked", { question })));
  }

  report(text, runId) {
    const box = el("div", "analyst-report");
    box.append(Object.assign(el("div", "markdown"), { innerHTML: renderMarkdown(text) }));
    const links = el("p", "analyst-downloads");
    links.append(el("span", "muted", `${t("analyst.download")}: `));
    for (const fmt of FORMATS) {
      const a = el("a", "", fmt.toUpperCase());
      a.href = `/api/analyst/runs/${encodeURIComponent(runId)}/report.${fmt}`;
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
      const value = input.value.trim();
      if (!value) return;
      try {
        await api(`/api/runs/${encodeURIComponent(runId)}/resume`, {
          method: "POST", headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ value }) });
      } catch (error) {
        form.append(el("p", "error-text", error.message));
        return;
      }
      form.replaceChildren(el("p", "muted", `${question} → ${value}`));
      await this.onAnswered(runId, seq);
    });
    return form;
  }
}

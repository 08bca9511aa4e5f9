// One answer of the Analyst in its log, answer first: while it runs, a line says what it is
// doing; then the report (its sentence and one table), its charts and its downloads. How it
// was computed (each decision in words, the code and what the code printed) is kept behind
// one disclosure, closed. A clarification it waits for is answered inline. Live events and a
// reloaded session's stored ones are shown by this one code.

import { api } from "./http.js";
import { currentLang, t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";
import { el } from "./dom.js";

export const FORMATS = ["md", "html", "ipynb"];
const NUMBER = /^(—|[-+−]?[$¥£€]?[\d,]+(\.\d+)?\s*(%|円|件)?)$/; // a dash: no value

export class Turn {
  /** log: where the turn goes; onReport(): a report was shown; onAnswered(runId, seq): a
   *  clarification was answered, the run goes on after seq. */
  constructor(log, { onReport, onAnswered }) {
    this.box = el("div", "analyst-turn");
    this.working = el("p", "analyst-working muted", t("analyst.working.reason"));
    this.figures = el("div", "analyst-figures");
    this.details = el("details", "analyst-details");
    this.details.append(el("summary", "", t("analyst.details")));
    this.box.append(this.working, this.figures, this.details);
    log.append(this.box);
    this.cells = 0;
    this.onReport = onReport;
    this.onAnswered = onAnswered;
  }

  /** A step of the run in the disclosure, in words, in order with the code and its output;
   *  the working line says it too. */
  step(node, said = "") {
    for (const item of this.details.querySelectorAll(".analyst-steps li")) item.classList.remove("current");
    let steps = this.details.lastElementChild;
    if (!steps?.classList.contains("analyst-steps")) {
      steps = el("ol", "analyst-steps");
      this.details.append(steps);
    }
    const item = el("li", "current");
    item.append(el("span", "analyst-step-name", t(`analyst.step.${node}`)));
    if (said) item.append(el("span", "analyst-step-said", said));
    item.dataset.node = node;
    steps.append(item);
    this.working.textContent = t(`analyst.working.${node}`);
  }

  /** The run has ended or waits: no more "working" line. */
  settle() {
    this.working.remove();
  }

  /** One event of the run (its SSE form). */
  show(event, runId) {
    switch (event.kind) {
      case "debug": {
        const decision = event.content?.decision;
        if (event.content?.node && decision) this.step("reason", this.decision(decision));
        break;
      }
      case "code": {
        this.cells += 1;
        this.step("run_code", t("analyst.cell", { n: this.cells }));
        const pre = el("pre", "analyst-code");
        pre.append(el("code", "", event.code));
        this.details.append(pre);
        break;
      }
      case "code_result": {
        const text = [event.stdout, event.ok ? "" : `${event.error_type}: ${event.error_message}`]
          .filter(Boolean).join("\n");
        if (text) {
          const out = el("pre", `analyst-output${event.ok ? "" : " failed"}`, text);
          out.dataset.label = t(event.ok ? "analyst.output" : "analyst.failed");
          this.details.append(out);
        }
        break;
      }
      case "table": // the report shows the answer's table; the cell printed it in its output
        break;
      case "image": {
        const img = el("img", "analyst-plot");
        img.alt = t("analyst.chart");
        img.src = `data:image/${event.format === "svg" ? "svg+xml" : event.format};base64,${event.data_base64}`;
        this.figures.append(img);
        break;
      }
      case "text":
        this.step("report", t("analyst.reported"));
        this.settle();
        this.box.insertBefore(this.report(event.text, runId), this.figures);
        this.box.insertBefore(this.downloads(runId), this.details);
        this.onReport();
        break;
      case "run_interrupted":
        this.settle();
        this.box.insertBefore(this.clarification(event.payload?.value?.question ?? "", runId, event.seq),
          this.details);
        break;
      case "run_failed":
        this.settle();
        // a failure the user can act on (a model's) says what to change, in their language
        this.box.insertBefore(el("p", "error-text", event.said?.[currentLang()] ?? event.error),
          this.details);
        break;
      case "run_cancelled":
        this.settle();
        this.box.insertBefore(el("p", "muted", t("analyst.cancelled")), this.details);
        break;
      case "run_completed":
        this.settle();
        break;
      default:
    }
  }

  /** A decision of the reason step, in words (never its action's name). */
  decision({ action, analysis_instruction: instruction, clarification_question: question }) {
    if (action === "run_code") return t("analyst.decision.run_code", { instruction: instruction ?? "" });
    if (action === "ask_clarification") return t("analyst.decision.ask", { question: question ?? "" });
    return t("analyst.decision.report");
  }

  /** A clarification answered before (a reloaded session does not know the answer). */
  asked(event) {
    this.settle();
    const question = event.payload?.value?.question ?? "";
    this.box.insertBefore(el("p", "analyst-asked muted", t("analyst.asked", { question })), this.details);
  }

  report(text) {
    const box = el("div", "analyst-report");
    const said = Object.assign(el("div", "markdown"), { innerHTML: renderMarkdown(text) });
    for (const cell of said.querySelectorAll("td")) {
      if (NUMBER.test(cell.textContent.trim())) cell.classList.add("num");
    }
    box.append(said);
    return box;
  }

  downloads(runId) {
    const links = el("p", "analyst-downloads");
    links.append(el("span", "muted", `${t("analyst.download")}: `));
    for (const fmt of FORMATS) {
      const a = el("a", "", fmt.toUpperCase());
      a.href = `/api/analyst/runs/${encodeURIComponent(runId)}/report.${fmt}`;
      a.dataset.format = fmt;
      links.append(a, " ");
    }
    return links;
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

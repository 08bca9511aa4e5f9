// The Advisor's step indicator: the session's current playbook step (id, title and a
// confidence badge; a click shows the reasoning) and a menu of the playbook's steps for the
// user to move the focus. It only shows: the view makes the requests and calls show().

import { t } from "./i18n.js";
import { el } from "./dom.js";

export class StepIndicator {
  /** root: the element holding .advisor-step, .advisor-reasoning and .advisor-step-select;
   *  onChoose(stepId): the user picked a step in the menu. */
  constructor(root, { onChoose }) {
    this.button = root.querySelector(".advisor-step");
    this.reasoning = root.querySelector(".advisor-reasoning");
    this.select = root.querySelector(".advisor-step-select");
    this.titles = new Map();
    this.button.addEventListener("click", () => {
      if (!this.reasoning.textContent) return;
      this.reasoning.hidden = !this.reasoning.hidden;
      this.button.setAttribute("aria-expanded", String(!this.reasoning.hidden));
    });
    this.select.addEventListener("change", () => {
      const step = this.select.value;
      this.select.value = "";
      if (step) onChoose(step);
    });
    this.show(null);
  }

  /** The playbook from GET /api/playbook: fills the menu and the titles. */
  setPlaybook(playbook) {
    this.unknown = playbook.unknown;
    this.titles = new Map([[playbook.unknown.id, playbook.unknown.title],
      ...playbook.steps.map((s) => [s.id, s.title])]);
    const prompt = el("option", "", t("advisor.step.choose"));
    prompt.value = "";
    prompt.dataset.i18n = "advisor.step.choose";
    const options = playbook.steps.map((s) => {
      const option = el("option", "", s.title); // the id stays the value, never the words
      option.value = s.id;
      option.title = s.description;
      return option;
    });
    this.select.replaceChildren(prompt, ...options);
    this.show(this.state ?? null);
  }

  /** Show a step: {step, title?, confidence?, reasoning?}; null or UNKNOWN: not yet known. */
  show(state) {
    this.state = state;
    const id = state?.step && state.step !== this.unknown?.id ? state.step : null;
    this.button.dataset.step = id ?? "";
    const label = el("span", "advisor-step-label", t("advisor.step.label"));
    label.dataset.i18n = "advisor.step.label";
    const parts = [label];
    if (id) {
      parts.push(el("span", "advisor-step-title", state.title || this.titles.get(id) || id));
    } else {
      const none = el("span", "advisor-step-title muted",
        this.unknown?.title ?? t("advisor.step.unknown"));
      if (!this.unknown) none.dataset.i18n = "advisor.step.unknown";
      parts.push(none);
    }
    if (state?.confidence) {
      const key = `advisor.confidence.${state.confidence}`;
      const badge = el("span", "advisor-confidence", t(key));
      badge.dataset.i18n = key;
      badge.dataset.confidence = state.confidence;
      parts.push(badge);
    }
    this.button.replaceChildren(...parts);
    this.reasoning.textContent = state?.reasoning ?? "";
    if (!this.reasoning.textContent) this.reasoning.hidden = true;
    this.button.classList.toggle("has-reasoning", Boolean(state?.reasoning));
    this.button.setAttribute("aria-expanded", String(!this.reasoning.hidden));
  }

  /** The shown step's id, null when not yet known. */
  current() {
    return this.button.dataset.step || null;
  }

  /** The menu is off while an answer or a step change runs. */
  setBusy(busy) {
    this.select.disabled = busy;
  }
}

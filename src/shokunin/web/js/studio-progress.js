// The project's progress: the phase timeline (three phases, the current one highlighted,
// names as the server reports them in metrics' phaseName) and the metrics: a progress
// bar, tasks, tokens, elapsed time and the estimated time left ("not enough data" while
// the server has no estimate). Elapsed time ticks between updates while the project runs.

import { t } from "./i18n.js";
import { el } from "./dom.js";

const PHASES = [1, 2, 3];
const SEED_NAMES = { 1: "planning", 2: "development", 3: "quality" };

/** Seconds as h:mm:ss or m:ss. */
export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(r)}` : `${m}:${pad(r)}`;
}

export class ProgressPanel {
  /** timeline: the <ol> of phases; metrics: the element holding the figures. */
  constructor(timeline, metrics) {
    this.timeline = timeline;
    this.box = metrics;
    this.names = { ...SEED_NAMES };
    this.metrics = null;
    this.status = null;
    this.timer = null;
    const $ = (selector) => metrics.querySelector(selector);
    this.bar = $(".studio-bar");
    this.fill = $(".studio-bar-fill");
    this.percent = $(".studio-metric-percent");
    this.figures = {
      tasks: $('[data-metric="tasks"]'),
      tokens: $('[data-metric="tokens"]'),
      elapsed: $('[data-metric="elapsed"]'),
      eta: $('[data-metric="eta"]'),
    };
    document.addEventListener("langchange", () => this.render());
  }

  /** The phase a project:phase_changed names (with its name) or the project's phase. */
  phase(phase, name) {
    if (name) this.names[phase] = name;
    this.current = phase;
    this.renderTimeline();
  }

  /** metrics: GET /api/projects/{id}/metrics; status: the project's status. */
  update(metrics, status) {
    this.metrics = metrics;
    this.status = status;
    this.at = performance.now();
    if (metrics) this.phase(metrics.currentPhase, metrics.phaseName);
    this.render();
    clearInterval(this.timer);
    this.timer = status === "running" ? setInterval(() => this.renderElapsed(), 1000) : null;
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  renderTimeline() {
    const done = this.status === "completed";
    this.timeline.replaceChildren(...PHASES.map((n) => {
      const item = el("li", "studio-phase");
      item.dataset.phase = String(n);
      const state = done || n < this.current ? "done" : n === this.current ? "current" : "todo";
      item.dataset.state = state;
      if (state === "current") item.setAttribute("aria-current", "step");
      const raw = this.names[n] ?? "";
      const key = `studio.phase.${raw}`;
      const translated = t(key);
      item.append(el("span", "studio-phase-number", t("studio.phase", { n })),
        el("span", "studio-phase-name", translated === key ? raw : translated));
      item.title = raw;
      return item;
    }));
  }

  render() {
    this.renderTimeline();
    const m = this.metrics;
    if (!m) return;
    const percent = Math.max(0, Math.min(100, m.progressPercent ?? 0));
    this.fill.style.width = `${percent}%`;
    this.bar.setAttribute("aria-valuenow", String(Math.round(percent)));
    this.percent.textContent = `${Math.round(percent)}%`;
    this.figures.tasks.textContent = `${m.completedTasks} / ${m.totalTasks}`;
    this.figures.tokens.textContent = m.estimatedTotalTokens
      ? t("studio.metric.tokensOf", { used: m.totalTokensUsed.toLocaleString(),
        total: m.estimatedTotalTokens.toLocaleString() })
      : m.totalTokensUsed.toLocaleString();
    // a number always (seed 002); remainingEstimated false: nothing to estimate from yet
    const eta = m.estimatedRemainingSeconds;
    const known = typeof eta === "number" && m.remainingEstimated !== false;
    this.figures.eta.textContent = known ? duration(eta) : "—";
    this.figures.eta.title = known ? "" : t("studio.metric.noEta");
    this.figures.eta.dataset.known = String(known);
    this.box.querySelector(".studio-eta-note").hidden = known;
    this.renderElapsed();
  }

  renderElapsed() {
    const m = this.metrics;
    if (!m) return;
    const ticking = this.status === "running" ? (performance.now() - this.at) / 1000 : 0;
    this.figures.elapsed.textContent = duration(m.elapsedTimeSeconds + ticking);
  }
}

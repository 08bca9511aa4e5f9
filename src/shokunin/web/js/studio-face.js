// The Studio view (seed 002): a list of game projects with a form to create one, and a
// project's page: its phases, agents (workers under their leader), the checkpoints waiting
// for the user's review, metrics, live logs and outputs, with Start / Pause / Resume /
// Delete. "#/studio" shows the list, "#/studio/<project id>" a project. A project's page
// follows it live over Socket.IO and re-reads it by REST after each state sync and after
// any event that changes more than one number. Nothing is fetched before the view is shown.

import { t } from "./i18n.js";
import { el } from "./dom.js";
import { AgentTree, agentName } from "./studio-agents.js";
import { studioApi as api } from "./studio-api.js";
import { CheckpointPanel } from "./studio-checkpoints.js";
import { LogList } from "./studio-logs.js";
import { OutputsPanel } from "./studio-outputs.js";
import { ProgressPanel } from "./studio-progress.js";
import { CREATE_FORM, ProjectList, readCreateForm } from "./studio-projects.js";
import { ProjectSocket } from "./studio-socket.js";
import { STUDIO_STRINGS } from "./studio-strings.js";

const ACTIONS = { start: ["draft"], pause: ["running"], resume: ["paused"] };
// events that change one number in place; every other event re-reads the project
const IN_PLACE = new Set(["agent:progress", "agent:log", "metrics:tokens", "error:llm",
  "error:state"]);
const REFRESH_DELAY_MS = 60;

const MARKUP = `
<div class="studio-layout">
  <div class="studio-alert" role="alert" hidden>
    <span class="studio-alert-text"></span>
    <button type="button" class="studio-alert-close" data-i18n-aria-label="studio.close">×</button>
  </div>
  <section class="studio-list-page">
    <header class="studio-list-head">
      <h1 data-i18n="studio.heading"></h1>
      <p class="muted" data-i18n="studio.intro"></p>
    </header>
    <div class="studio-list-grid">${CREATE_FORM}
      <section class="studio-projects card">
        <h2 data-i18n="studio.projects"></h2>
        <ul class="studio-project-list"></ul>
      </section>
    </div>
  </section>
  <section class="studio-project-page" hidden>
    <header class="studio-project-head card">
      <a class="studio-back" href="#/studio" data-i18n="studio.back"></a>
      <div class="studio-project-titlebar">
        <h1 class="studio-project-name"></h1>
        <span class="studio-badge studio-project-status"></span>
        <div class="studio-actions">
          <button type="button" class="primary" data-action="start" data-i18n="studio.start"></button>
          <button type="button" data-action="pause" data-i18n="studio.pause"></button>
          <button type="button" data-action="resume" data-i18n="studio.resume"></button>
          <button type="button" class="danger" data-action="delete" data-i18n="studio.delete"></button>
        </div>
      </div>
      <p class="studio-project-about muted"></p>
      <ol class="studio-timeline"></ol>
      <div class="studio-metrics">
        <div class="studio-progress-line">
          <div class="studio-bar studio-progress" role="progressbar" aria-valuemin="0" aria-valuemax="100"
               data-i18n-aria-label="studio.metric.progress"><span class="studio-bar-fill"></span></div>
          <span class="studio-metric-percent">0%</span>
        </div>
        <dl class="studio-figures">
          <div><dt data-i18n="studio.metric.tasks"></dt><dd data-metric="tasks">—</dd></div>
          <div><dt data-i18n="studio.metric.tokens"></dt><dd data-metric="tokens">—</dd></div>
          <div><dt data-i18n="studio.metric.elapsed"></dt><dd data-metric="elapsed">—</dd></div>
          <div><dt data-i18n="studio.metric.eta"></dt><dd><span data-metric="eta">—</span>
            <span class="studio-eta-note muted" data-i18n="studio.metric.noEta"></span></dd></div>
        </dl>
      </div>
    </header>
    <div class="studio-columns">
      <div class="studio-col-main">
        <section class="studio-checkpoints card">
          <h2 data-i18n="studio.checkpoints"></h2>
          <div class="studio-checkpoint-list"></div>
          <ul class="studio-resolved" hidden></ul>
        </section>
        <section class="studio-outputs card">
          <div class="studio-card-head">
            <h2 data-i18n="studio.outputs"></h2>
            <a class="studio-download" download hidden data-i18n="studio.download"></a>
          </div>
          <div class="studio-assets" hidden></div>
          <div class="studio-output-list"></div>
        </section>
      </div>
      <div class="studio-col-side">
        <section class="studio-agents card">
          <h2 data-i18n="studio.agents"></h2>
          <ul class="studio-agent-list"></ul>
        </section>
        <section class="studio-logs card">
          <h2 data-i18n="studio.logs"></h2>
          <ol class="studio-log"></ol>
        </section>
      </div>
    </div>
  </section>
</div>
`;

class StudioFace {
  mount(container, ctx) {
    this.ctx = ctx;
    if (!this.root) this.build(container);
    this.mounted = true;
    this.route(ctx.route);
  }

  unmount() {
    this.mounted = false;
    this.closeSocket();
    this.progress.stop();
  }

  route(route) {
    const id = decodeURIComponent(route ?? "").trim();
    if (id) this.openProject(id);
    else this.showList();
  }

  build(container) {
    container.innerHTML = MARKUP;
    this.root = container;
    const $ = (selector) => container.querySelector(selector);
    this.alertBox = $(".studio-alert");
    this.listPage = $(".studio-list-page");
    this.projectPage = $(".studio-project-page");
    this.form = $(".studio-create");
    this.projects = new ProjectList($(".studio-project-list"), {
      onOpen: (id) => this.navigate(id),
    });
    this.agents = new AgentTree($(".studio-agent-list"));
    this.logs = new LogList($(".studio-log"), (id) => agentName(this.agentsById?.get(id)));
    this.checkpoints = new CheckpointPanel({
      pending: $(".studio-checkpoint-list"),
      resolved: $(".studio-resolved"),
      onResolve: (checkpoint, resolution, feedback) => this.resolve(checkpoint, resolution, feedback),
      fileUrl: (path) => api.fileUrl(this.projectId, path),
    });
    this.progress = new ProgressPanel($(".studio-timeline"), $(".studio-metrics"));
    this.outputs = new OutputsPanel($(".studio-outputs"));
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.create();
    });
    for (const button of container.querySelectorAll(".studio-actions button")) {
      button.addEventListener("click", () => this.act(button.dataset.action));
    }
    $(".studio-alert-close").addEventListener("click", () => this.alert(null));
    document.addEventListener("langchange", () => this.project && this.renderProject(this.project));
  }

  alert(message) {
    this.alertBox.hidden = !message;
    this.alertBox.querySelector(".studio-alert-text").textContent = message ?? "";
  }

  navigate(id) {
    this.ctx.setRoute(id ? encodeURIComponent(id) : "", { push: true });
    this.route(id ?? "");
  }

  // the list
  async showList() {
    this.closeSocket();
    this.progress.stop();
    this.projectId = null;
    this.project = null;
    this.listPage.hidden = false;
    this.projectPage.hidden = true;
    this.ctx.setStatus("loading");
    try {
      this.projects.render(await api.projects());
      this.ctx.setStatus("ready");
    } catch (error) {
      this.alert(error.message);
      this.ctx.setStatus("failed");
    }
  }

  async create() {
    const error = this.form.querySelector(".studio-create-error");
    const submit = this.form.querySelector("button[type=submit]");
    error.hidden = true;
    submit.disabled = true;
    try {
      const project = await api.createProject(readCreateForm(this.form));
      this.form.reset();
      this.navigate(project.id);
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    } finally {
      submit.disabled = false;
    }
  }

  // a project
  async openProject(id) {
    if (this.projectId === id && this.socket) return;
    this.closeSocket();
    this.alert(null);
    if (this.projectId !== id) {
      this.projectId = id;
      this.project = null;
      this.agentsById = new Map();
      this.renderProject(null);
      this.checkpoints.reset();
      this.outputs.reset(id);
      this.logs.reset();
    }
    this.listPage.hidden = true;
    this.projectPage.hidden = false;
    this.ctx.setStatus("loading");
    try {
      await this.refresh();
      const logs = await api.logs(id);
      if (this.projectId === id) this.logs.reset(logs);
    } catch (error) {
      if (this.projectId !== id) return;
      this.alert(error.status === 404 ? t("studio.notFound", { id }) : error.message);
      this.ctx.setStatus("failed");
      return;
    }
    if (this.projectId !== id || !this.mounted || this.socket) return;
    this.socket = new ProjectSocket(id, {
      onStatus: (status) => this.ctx.setStatus(status),
      onEvent: (name, payload) => this.onEvent(name, payload),
    });
  }

  closeSocket() {
    this.socket?.close();
    this.socket = null;
    clearTimeout(this.refreshTimer);
  }

  onEvent(name, payload) {
    switch (name) {
      case "connection:state_sync":
        this.resync();
        return;
      case "agent:progress":
        if (!this.agents.progress(payload.agentId, payload.progress, payload.currentTask)) this.later();
        return;
      case "agent:log":
        this.logs.add(payload);
        return;
      case "metrics:tokens":
        this.agents.tokens(payload.agentId, payload.tokensUsed);
        return;
      case "project:phase_changed":
        this.progress.phase(payload.phase, payload.phaseName);
        break;
      case "error:agent":
        this.alert([payload.errorMessage, ...(payload.suggestions?.length
          ? [`${t("studio.suggestions")} ${payload.suggestions.join(" / ")}`] : [])].join("\n"));
        break;
      case "error:llm":
      case "error:state":
        this.alert(payload.errorMessage);
        break;
      default:
        break;
    }
    if (!IN_PLACE.has(name)) this.later();
  }

  /** After a (re)subscription: everything again, the log too (nothing is replayed). */
  async resync() {
    const id = this.projectId;
    try {
      await this.refresh();
      const logs = await api.logs(id);
      if (this.projectId === id) this.logs.reset(logs);
    } catch (error) {
      if (this.projectId === id) this.alert(error.message);
    }
  }

  /** A re-read soon: a burst of events makes one. */
  later() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.refresh().catch((error) => this.projectId && this.alert(error.message));
    }, REFRESH_DELAY_MS);
  }

  /** Re-read the project, its agents, checkpoints and metrics, one read at a time. */
  async refresh() {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        const id = this.projectId;
        if (!id) return;
        const [project, agents, checkpoints, metrics] = await Promise.all([
          api.project(id), api.agents(id), api.checkpoints(id), api.metrics(id)]);
        if (id !== this.projectId) return;
        this.agentsById = new Map(agents.map((a) => [a.id, a]));
        this.renderProject(project);
        this.agents.render(agents);
        this.logs.rename();
        this.checkpoints.render(checkpoints);
        this.progress.update(metrics, project.status);
        await this.outputs.update(agents);
      } while (this.refreshAgain);
    })();
    try {
      await this.refreshing;
    } finally {
      this.refreshing = null;
    }
  }

  renderProject(project) {
    this.project = project;
    const $ = (selector) => this.projectPage.querySelector(selector);
    $(".studio-project-name").textContent = project?.name ?? "";
    const status = $(".studio-project-status");
    status.hidden = !project;
    status.dataset.status = project?.status ?? "";
    status.textContent = project ? t(`studio.status.${project.status}`) : "";
    const concept = project?.concept;
    $(".studio-project-about").textContent = [project?.description, concept?.description,
      [concept?.genre, concept?.platform, concept?.scope, concept?.targetAudience]
        .filter(Boolean).join(" · ")].filter(Boolean).join(" — ");
    this.projectPage.dataset.status = project?.status ?? "";
    for (const button of this.projectPage.querySelectorAll(".studio-actions button")) {
      const allowed = ACTIONS[button.dataset.action];
      button.disabled = !project || this.acting || (allowed ? !allowed.includes(project.status) : false);
    }
  }

  async act(action) {
    const project = this.project;
    if (!project || this.acting) return;
    if (action === "delete" && !confirm(t("studio.confirmDelete", { name: project.name }))) return;
    this.alert(null);
    this.acting = true;
    this.renderProject(project);
    try {
      if (action === "delete") {
        // no more events or re-reads of a project about to go (they would be 404s)
        this.closeSocket();
        await this.refreshing?.catch(() => {});
        try {
          await api.deleteProject(project.id);
        } catch (error) {
          this.acting = false;
          this.openProject(project.id);
          throw error;
        }
        this.acting = false;
        this.navigate(null);
        return;
      }
      const updated = await api.act(project.id, action);
      if (this.projectId === project.id) this.renderProject(updated);
    } catch (error) {
      this.alert(error.message);
    } finally {
      this.acting = false;
    }
    if (this.projectId === project.id) {
      this.renderProject(this.project);
      this.later();
    }
  }

  async resolve(checkpoint, resolution, feedback) {
    try {
      await api.resolve(checkpoint.id, resolution, feedback);
    } catch (error) {
      // resolved elsewhere, or the project moved on: say so and show the state as it is
      if (error.status !== 409 && error.status !== 404) throw error;
      this.alert(error.message);
    }
    this.later();
  }
}

export const studioView = {
  name: "studio",
  label: "nav.studio",
  strings: STUDIO_STRINGS,
  create: () => new StudioFace(),
};

// The Tools view: the tool list with status (ready, needing settings, broken), a tool's
// settings form and "try a tool" (run through the SSE endpoint with progress, abort, and a
// result shown as a person reads it, its raw JSON behind a disclosure).

import { currentLang, t } from "./i18n.js";
import { readableResult } from "./result-view.js";
import { argumentsForm, settingsForm } from "./schema-form.js";
import { iconContent } from "./tool-icon.js";
import { postEvents } from "./sse.js";
import { el } from "./dom.js";

const MASK = "********";
const api = (name, rest = "") => `/api/tools/${encodeURIComponent(name)}${rest}`;

/** An element whose text follows the language switch. */
function tr(tag, className, key) {
  const node = el(tag, className, t(key));
  node.dataset.i18n = key;
  return node;
}

/** The icon box of a tool: its emoji, image or sanitised inline SVG. */
function iconBox(tool, className = "tool-icon") {
  const box = el("span", className);
  box.setAttribute("aria-hidden", "true");
  box.append(iconContent(tool.icon));
  return box;
}

/** A shipped tool's title or description in the UI's language (its own text is one
 * language), else the tool's own ``fallback``. */
function localized(tool, field, fallback) {
  const key = `builtinTool.${tool.name}${field === "title" ? "" : ".desc"}`;
  return tool.source === "builtin" && t(key) !== key ? tr("span", "", key) : document.createTextNode(fallback);
}

/** Where a tool comes from: "builtin", "user", or "MCP: <server>" for an MCP server's. */
function sourceText(tool) {
  return tool.server ? `MCP: ${tool.server}` : tool.source;
}

const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff]/;

/** A label written "日本語 / English" (as the shipped tools' are): the half in the UI's
 * language; any other label as it is. */
function labelIn(label) {
  const halves = label.split(" / ");
  if (halves.length !== 2 || !JAPANESE.test(halves[0]) || JAPANESE.test(halves[1])) return label;
  return currentLang() === "ja" ? halves[0] : halves[1];
}

/** What a tool still needs set before it works: "A or B, C" in the UI's language. */
function needsText(tool) {
  const what = (tool.needs_settings ?? []).map((group) => group.map((s) => labelIn(s.label)).join(t("tools.or")));
  return t("tools.needsSettings", { what: what.join(t("tools.and")) });
}

/** The status badge's string: broken, loaded but needing settings, or ready. */
function statusKey(tool) {
  if (tool.status !== "ok") return "tools.statusError";
  return tool.needs_settings?.length ? "tools.statusNeedsSettings" : "tools.statusOk";
}

function button(key, className = "") {
  const b = tr("button", className, key);
  b.type = "button";
  return b;
}

export class ToolsView {
  constructor(root) {
    this.list = root.querySelector(".tools-list");
    this.detail = root.querySelector(".tool-detail");
    this.tools = [];
    this.agentTools = [];
    this.selected = null; // {name, index}: two cards may share a name (a shadowed tool)
    this.run = null; // {controller, executionId} of the running try
    this.threads = {}; // tool name -> the thread its tries run on: one workspace for them
    // "needs settings" lines carry the settings' names: written again in a new language
    document.addEventListener("langchange", () => {
      for (const node of [...this.list.querySelectorAll(".tool-needs"), ...this.detail.querySelectorAll(".tool-needs")]) {
        const tool = this.tools[Number(node.dataset.key)];
        if (tool) node.textContent = needsText(tool);
      }
    });
  }

  async load() {
    this.list.replaceChildren(tr("p", "muted", "tools.loading"));
    try {
      const response = await fetch("/api/tools");
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      this.tools = (await response.json()).tools;
      const own = await fetch("/api/agents/workbench/tools");  // optional: listed if there
      this.agentTools = own.ok ? (await own.json()).tools : [];
    } catch (error) {
      this.list.replaceChildren(el("p", "error-text", t("tools.loadFailed", { error: error.message })));
      return;
    }
    this.renderList();
    if (this.run) return; // a try is running in the detail: it stays, and its result shows
    const { name, index } = this.selected ?? {};
    const again = this.tools[index]?.name === name ? index : this.tools.findIndex((tool) => tool.name === name);
    if (again >= 0) this.select(this.tools[again], again);
    else this.detail.replaceChildren(tr("p", "muted placeholder", "tools.select"));
  }

  renderList() {
    if (!this.tools.length) {
      this.list.replaceChildren(tr("p", "muted", "tools.none"));
      this.renderAgentTools();
      return;
    }
    this.list.replaceChildren(...this.tools.map((tool, index) => this.card(tool, index)));
    this.renderAgentTools();
  }

  /** A tool's card in the list: icon, title, status, name, description, what is wrong. */
  card(tool, index) {
    const card = el("button", `tool-card ${tool.status}`);
    card.type = "button";
    card.dataset.tool = tool.name;
    card.dataset.key = String(index);
    card.setAttribute("aria-pressed", String(index === this.selected?.index));
    const icon = iconBox(tool);
    const text = el("span", "tool-text");
    const title = el("span", "tool-title");
    const key = statusKey(tool);
    const status = tr("span", `status-badge ${tool.status}${key === "tools.statusNeedsSettings" ? " needs-settings" : ""}`, key);
    title.append(localized(tool, "title", tool.title || tool.name), status);
    if (tool.source === "mcp") title.append(el("span", "source-badge mcp", sourceText(tool)));
    const desc = el("span", "tool-desc");
    desc.append(localized(tool, "description", tool.description || ""));
    text.append(title, el("span", "tool-name mono", tool.name), desc);
    if (tool.status !== "ok" && tool.error) text.append(el("span", "tool-error", tool.error));
    else if (tool.needs_settings?.length) text.append(this.needsLine("span", tool, index));
    card.append(icon, text);
    card.addEventListener("click", () => this.select(tool, index));
    return card;
  }

  needsLine(tag, tool, index) {
    const line = el(tag, "tool-needs", needsText(tool));
    line.dataset.key = String(index);
    return line;
  }

  /** The notice above "try it" of a tool that needs settings: what to set, and where. */
  needsCard(tool, index) {
    if (tool.status !== "ok" || !tool.needs_settings?.length) return null;
    const card = el("div", "card tool-needs-card");
    card.setAttribute("role", "note");
    card.append(this.needsLine("p", tool, index), tr("p", "muted", "tools.needsSettingsHint"));
    return card;
  }

  /** Read one tool again (after its settings were saved): its card and its notice. */
  async refreshTool(index) {
    const name = this.tools[index]?.name;
    const response = await fetch(api(name));
    if (!response.ok || this.tools[index]?.name !== name) return;
    const fresh = await response.json();
    this.tools[index] = fresh;
    this.list.querySelector(`.tool-card[data-key="${index}"]`)?.replaceWith(this.card(fresh, index));
    const notice = this.detail.querySelector(".tool-needs-card");
    const next = this.needsCard(fresh, index);
    if (notice && next) notice.replaceWith(next);
    else if (notice) notice.remove();
    else if (next) this.detail.querySelector(".tool-head")?.after(next);
  }

  /** The Workbench agent's own tools (map, SQL, Python, ...): listed, not configurable. */
  renderAgentTools() {
    if (!this.agentTools.length) return;
    const section = el("section", "agent-tools");
    section.append(tr("h3", "", "tools.agentHeading"), tr("p", "muted", "tools.agentIntro"));
    for (const tool of this.agentTools) {
      const item = el("div", "tool-card agent-tool");
      item.dataset.tool = tool.name;
      const text = el("span", "tool-text");
      const key = `agentTool.${tool.name}`;
      const known = t(key) !== key;
      text.append(known ? tr("span", "tool-title", key) : el("span", "tool-title", tool.name),
        el("span", "tool-name mono", tool.name),
        known ? tr("span", "tool-desc", `${key}.desc`) : el("span", "tool-desc", tool.description.split("\n")[0]));
      item.append(text);
      section.append(item);
    }
    this.list.append(section);
  }

  select(tool, index) {
    this.abortRun();
    this.selected = { name: tool.name, index };
    for (const card of this.list.querySelectorAll(".tool-card")) {
      card.setAttribute("aria-pressed", String(card.dataset.key === String(index)));
    }
    // A tool whose name an earlier one took: its name's routes (UI, settings) are that one's.
    const shadowed = this.tools.findIndex((other) => other.name === tool.name) !== index;
    const head = el("header", "tool-head");
    const icon = iconBox(tool, "tool-icon big");
    const titles = el("div");
    const heading = el("h2");
    heading.append(localized(tool, "title", tool.title || tool.name));
    const desc = el("p", "tool-desc");
    desc.append(localized(tool, "description", tool.description || ""));
    titles.append(heading, desc);
    const meta = el("p", "tool-meta");
    meta.append(el("span", "mono", tool.name), " · ", tr("span", "", "tools.source"), `: ${sourceText(tool)}`);
    titles.append(meta);
    if (tool.has_ui && !shadowed) {
      const link = tr("a", "tool-ui-link", "tools.openUi");
      link.href = api(tool.name, "/ui");
      link.target = "_blank";
      link.rel = "noopener";
      titles.append(link);
    }
    head.append(icon, titles);
    const parts = [head];
    if (tool.status !== "ok") {
      const broken = el("div", "card tool-broken");
      broken.append(tr("p", "", "tools.unavailable"), el("pre", "tool-error", tool.error || ""));
      parts.push(broken);
    } else {
      const needs = shadowed ? null : this.needsCard(tool, index);
      if (needs) parts.push(needs);
      parts.push(this.tryCard(tool));
    }
    if (tool.has_settings && !shadowed) parts.push(this.settingsCard(tool, index));
    this.detail.replaceChildren(...parts);
  }

  // -- try a tool
  tryCard(tool) {
    const card = el("section", "card try-card");
    card.append(tr("h3", "", "tools.try"));
    const params = tool.declaration?.parameters ?? {};
    const form = argumentsForm(params);
    const formEl = el("form", "try-form");
    formEl.noValidate = true;
    if (!Object.keys(params.properties ?? {}).length) formEl.append(tr("p", "muted", "tools.noParams"));
    formEl.append(form.element);
    const actions = el("div", "actions");
    const run = button("tools.run", "primary run-button");
    run.type = "submit";
    const abort = button("tools.abort", "danger abort-button");
    abort.hidden = true;
    const state = el("span", "run-state");
    state.setAttribute("role", "status");
    actions.append(run, abort, state);
    // Tries run on one thread, so what one writes the next can read (its workspace).
    const same = el("p", "muted same-workspace");
    const fresh = button("tools.newWorkspace", "new-workspace");
    const showThread = () => {
      same.hidden = !this.threads[tool.name];
      same.replaceChildren(tr("span", "", "tools.sameWorkspace"), " ", fresh);
    };
    fresh.addEventListener("click", () => { delete this.threads[tool.name]; showThread(); });
    showThread();
    formEl.append(actions, same);
    const progress = el("ol", "progress-list");
    const resultBox = el("div", "result-box");
    resultBox.hidden = true;
    card.append(formEl, progress, resultBox);

    formEl.addEventListener("submit", async (event) => {
      event.preventDefault();
      const { values, errors } = form.read();
      if (Object.keys(errors).length) return;
      progress.replaceChildren();
      resultBox.hidden = true;
      run.disabled = true;
      abort.hidden = false;
      abort.disabled = true;
      this.setState(state, "tools.running", "running");
      const controller = new AbortController();
      this.run = { controller, executionId: null };
      try {
        const thread = this.threads[tool.name];
        const body = thread ? { args: values, thread_id: thread } : { args: values };
        for await (const { event: kind, data } of postEvents(api(tool.name, "/execute/stream"), body, controller.signal)) {
          if (kind === "started") {
            this.run.executionId = data.execution_id;
            if (data.thread_id) this.threads[tool.name] = data.thread_id;
            showThread();
            abort.disabled = false;
          } else if (kind === "progress") {
            progress.append(el("li", "", data.message));
          } else if (kind === "result") {
            this.showResult(resultBox, state, data);
          }
        }
      } catch (error) {
        if (error.name !== "AbortError") {
          this.setState(state, "tools.failed", "failed");
          resultBox.hidden = false;
          resultBox.replaceChildren(el("pre", "result-json error-text", error.message));
        }
      } finally {
        this.run = null;
        run.disabled = false;
        abort.hidden = true;
      }
    });
    abort.addEventListener("click", () => {
      const id = this.run?.executionId;
      abort.disabled = true;
      // Ask the server to stop the tool; the stream then ends with an aborted result.
      if (id) fetch(`/api/tools/executions/${encodeURIComponent(id)}/abort`, { method: "POST" });
    });
    return card;
  }

  setState(node, key, kind) {
    node.dataset.i18n = key;
    node.textContent = t(key);
    node.className = `run-state ${kind}`;
  }

  /** The result as a person reads it (result-view.js), or the error; the JSON as it came
   * behind a disclosure. */
  showResult(box, state, data) {
    const key = data.aborted ? "tools.aborted" : data.success ? "tools.success" : "tools.failed";
    this.setState(state, key, data.aborted ? "aborted" : data.success ? "ok" : "failed");
    const parts = [tr("h4", "", "tools.result")];
    if (data.success) parts.push(readableResult(data.result));
    else if (data.error) parts.push(el("p", "error-text", data.error));
    const raw = el("details", "result-raw");
    raw.append(tr("summary", "", "tools.rawJson"),
      el("pre", "result-json", JSON.stringify(data.success ? data.result : data, null, 2)));
    parts.push(raw);
    box.replaceChildren(...parts);
    if (data.ui?.url) box.append(this.liveUi(data.ui.url));
    box.hidden = false;
  }

  /** The web page the tool serves while it lives, proxied by the server under the tool's
   * path, in a sandboxed frame: it cannot reach this page, its cookies or its storage. */
  liveUi(url) {
    const section = el("section", "tool-live-ui");
    const head = el("div", "actions");
    const open = tr("a", "tool-ui-link", "tools.liveUiOpen");
    open.href = url;
    open.target = "_blank";
    open.rel = "noopener noreferrer";
    const stop = button("tools.liveUiStop");
    head.append(tr("h4", "", "tools.liveUi"), open, stop);
    const frame = el("iframe", "tool-ui-frame");
    frame.setAttribute("sandbox", "allow-scripts allow-forms allow-popups allow-modals allow-downloads");
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.title = t("tools.liveUi");
    frame.src = url;
    stop.addEventListener("click", async () => {
      stop.disabled = true;
      // the page's address less its key: /api/tools/<name>/ui/<execution_id>
      await fetch(url.replace(/\/[^/]+\/$/, ""), { method: "DELETE" });
      frame.replaceWith(tr("p", "muted", "tools.liveUiStopped"));
      open.remove();
      stop.remove();
    });
    section.append(head, frame);
    return section;
  }

  abortRun() {
    if (!this.run) return;
    const { controller, executionId } = this.run;
    if (executionId) fetch(`/api/tools/executions/${encodeURIComponent(executionId)}/abort`, { method: "POST" });
    controller.abort();
  }

  // -- settings
  settingsCard(tool, index) {
    const card = el("section", "card settings-card");
    card.append(tr("h3", "", "tools.settings"), tr("p", "muted", "tools.loading"));
    this.loadSettings(tool, card, undefined, index);
    return card;
  }

  async loadSettings(tool, card, note, index) {
    const response = await fetch(api(tool.name, "/settings"));
    const body = await response.json();
    if (!response.ok) {
      card.lastChild.replaceWith(el("p", "error-text", body.error ?? response.statusText));
      return;
    }
    const form = settingsForm(body.schema, body.values, MASK);
    const formEl = el("form", "settings-form");
    formEl.noValidate = true;
    const actions = el("div", "actions");
    const save = button("tools.save", "primary");
    save.type = "submit";
    const state = el("span", "run-state");
    state.setAttribute("role", "status");
    actions.append(save, state);
    formEl.append(form.element, actions);
    card.lastChild.replaceWith(formEl);
    form.showErrors(body.errors ?? {}); // stored values the server could not use
    if (note) this.setState(state, note, "ok");
    formEl.addEventListener("submit", async (event) => {
      event.preventDefault();
      const { values, errors } = form.read();
      if (Object.keys(errors).length) return;
      save.disabled = true;
      try {
        const res = await fetch(api(tool.name, "/settings"), {
          method: "PUT",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ values }),
        });
        const answer = await res.json();
        if (res.ok) {
          this.loadSettings(tool, card, "tools.saved", index); // fresh "set"/"not set" badges, secrets cleared
          this.refreshTool(index); // its status: a required setting may be set now
        } else {
          form.showErrors(answer.errors ?? {});
          this.setState(state, "tools.saveFailed", "failed");
          if (answer.errors?.values) state.textContent += `: ${answer.errors.values}`;
        }
      } finally {
        save.disabled = false;
      }
    });
  }
}

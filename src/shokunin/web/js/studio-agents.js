// The project's agents in pipeline order, each with its status, progress bar, current task
// and tokens; workers are nested under the leader that split the work (parentAgentId).
// Live progress and token counts update one agent's row in place.

import { t } from "./i18n.js";
import { el } from "./dom.js";

// seed 002's agent types in the order its pipeline runs them
const ORDER = ["concept", "design", "scenario", "character", "world", "task_split",
  "code_leader", "asset_leader", "code_worker", "asset_worker", "integrator", "tester",
  "reviewer"];

const rank = (a) => [a.metadata?.phase ?? 9, ORDER.indexOf(a.type), a.createdAt, a.id];

function byPipeline(a, b) {
  const [x, y] = [rank(a), rank(b)];
  for (let i = 0; i < x.length; i += 1) {
    if (x[i] < y[i]) return -1;
    if (x[i] > y[i]) return 1;
  }
  return 0;
}

/** parent id (null for the top) -> its agents in pipeline order; a worker whose leader is
 * not listed goes to the top. */
function childrenOf(agents) {
  const known = new Set(agents.map((a) => a.id));
  const children = new Map();
  for (const agent of agents) {
    const parent = known.has(agent.parentAgentId) ? agent.parentAgentId : null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(agent);
  }
  for (const list of children.values()) list.sort(byPipeline);
  return children;
}

/** The agents as the tree shows them: pipeline order, each leader followed by its workers. */
export function pipelineOrder(agents) {
  const children = childrenOf(agents);
  const walk = (parent) => (children.get(parent) ?? [])
    .flatMap((agent) => [agent, ...walk(agent.id)]);
  return walk(null);
}

/** An agent's name: its pipeline title, a worker's task title, else its type. */
export function agentName(agent) {
  return agent?.metadata?.title || agent?.metadata?.task?.title || agent?.type || "";
}

export class AgentTree {
  constructor(list) {
    this.list = list;
    this.rows = new Map(); // agent id -> row element
    this.agents = [];
    document.addEventListener("langchange", () => this.render(this.agents));
  }

  /** agents: GET /api/projects/{id}/agents. */
  render(agents) {
    this.agents = agents;
    this.rows.clear();
    const children = childrenOf(agents);
    const branch = (parent) => (children.get(parent) ?? []).map((agent) => {
      const item = this.row(agent);
      const nested = branch(agent.id);
      if (nested.length) {
        const workers = el("ul", "studio-agent-workers");
        workers.append(...nested);
        item.append(workers);
      }
      return item;
    });
    const top = branch(null);
    if (top.length) this.list.replaceChildren(...top);
    else {
      const none = el("li", "muted studio-empty", t("studio.noAgents"));
      none.dataset.i18n = "studio.noAgents";
      this.list.replaceChildren(none);
    }
  }

  row(agent) {
    const item = el("li", "studio-agent");
    item.dataset.agent = agent.id;
    item.dataset.type = agent.type;
    item.dataset.status = agent.status;
    const head = el("div", "studio-agent-head");
    const name = el("span", "studio-agent-name", agentName(agent));
    name.title = agent.type;
    const key = `studio.agentStatus.${agent.status}`;
    const badge = el("span", "studio-badge", t(key));
    badge.dataset.status = agent.status;
    badge.dataset.i18n = key;
    const tokens = el("span", "studio-agent-tokens muted", t("studio.tokens", { n: agent.tokensUsed }));
    head.append(name, badge, tokens);
    const bar = el("div", "studio-bar");
    bar.setAttribute("role", "progressbar");
    bar.setAttribute("aria-valuemin", "0");
    bar.setAttribute("aria-valuemax", "100");
    bar.append(el("span", "studio-bar-fill"));
    const task = el("div", "studio-agent-task muted");
    item.append(head, bar, task);
    if (agent.error) item.append(el("div", "studio-agent-error error-text", agent.error));
    this.rows.set(agent.id, item);
    this.progress(agent.id, agent.progress, agent.currentTask);
    return item;
  }

  /** agent:progress: one row's bar and current task. */
  progress(agentId, progress, currentTask) {
    const item = this.rows.get(agentId);
    if (!item) return false;
    const value = Math.max(0, Math.min(100, Number(progress) || 0));
    const bar = item.querySelector(".studio-bar");
    bar.setAttribute("aria-valuenow", String(value));
    bar.querySelector(".studio-bar-fill").style.width = `${value}%`;
    if (currentTask !== undefined) item.querySelector(".studio-agent-task").textContent = currentTask ?? "";
    return true;
  }

  /** metrics:tokens: one row's token count. */
  tokens(agentId, tokensUsed) {
    const agent = this.agents.find((a) => a.id === agentId);
    if (agent) agent.tokensUsed = tokensUsed;
    const item = this.rows.get(agentId);
    if (item) item.querySelector(".studio-agent-tokens").textContent = t("studio.tokens", { n: tokensUsed });
  }
}

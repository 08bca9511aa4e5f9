// The Studio's REST API (seed 002) as the Studio view uses it: projects and their actions,
// agents, checkpoints, metrics, logs, outputs and assets. Every failure is an Error whose
// message is the server's `error` text (and `code` its code).

import { api, send } from "./http.js";

const project = (id) => `/api/projects/${encodeURIComponent(id)}`;
const agent = (id) => `/api/agents/${encodeURIComponent(id)}`;

export const studioApi = {
  projects: () => api("/api/projects"),
  createProject: (input) => send("POST", "/api/projects", input),
  project: (id) => api(project(id)),
  deleteProject: (id) => api(project(id), { method: "DELETE" }),
  /** action: start, pause or resume. */
  act: (id, action) => send("POST", `${project(id)}/${action}`),
  agents: (id) => api(`${project(id)}/agents`),
  checkpoints: (id) => api(`${project(id)}/checkpoints`),
  metrics: (id) => api(`${project(id)}/metrics`),
  logs: (id) => api(`${project(id)}/logs`),
  assets: (id) => api(`${project(id)}/assets`),
  agentOutputs: (agentId) => api(`${agent(agentId)}/outputs`),
  /** resolution: approved, rejected or revision_requested. */
  resolve: (checkpointId, resolution, feedback) =>
    send("POST", `/api/checkpoints/${encodeURIComponent(checkpointId)}/resolve`,
      { resolution, feedback: feedback || null }),
  zipUrl: (id) => `${project(id)}/outputs.zip`,
  fileUrl: (id, path) => `${project(id)}/files/${path.split("/").map(encodeURIComponent).join("/")}`,
};

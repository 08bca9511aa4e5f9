// The Studio's REST API (seed 002) as the Studio view uses it: projects and their actions,
// agents, checkpoints, metrics, logs, outputs and assets. Every failure is an Error whose
// message is the server's `error` text (and `code` its code).

async function api(url, init = {}) {
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new Error(`${url}: ${error.message}`);
  }
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw Object.assign(new Error(errorText(body) ?? `${response.status} ${response.statusText}`),
      { code: body.code ?? null, status: response.status });
  }
  return body;
}

/** The message of the JSON error form {"error", "code"} (FastAPI's {"detail"} as a fallback). */
function errorText(body) {
  if (typeof body.error === "string") return body.error;
  if (typeof body.detail === "string") return body.detail;
  if (Array.isArray(body.detail)) return body.detail.map((d) => d.msg).join("; ");
  return null;
}

const send = (method, url, body) => api(url, {
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body ?? {}),
});

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

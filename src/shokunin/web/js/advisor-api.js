// The Advisor's HTTP API (seed 001) as the Advisor view uses it: sessions, their messages
// and step, the playbook, diagrams, and the chat stream with its resume and cancel. Every
// failure is an Error whose message is the server's `error` text (and `code` its code).

import { api, send } from "./http.js";
import { getEvents, postEvents } from "./sse.js";

const post = (url, body) => send("POST", url, body);

const session = (id) => `/api/session/${encodeURIComponent(id)}`;

export const advisorApi = {
  playbook: () => api("/api/playbook"),
  sessions: async () => (await api("/api/sessions")).sessions,
  createSession: async (userInfo) => (await post("/api/session", { user_info: userInfo })).session_id,
  deleteSession: (id) => api(session(id), { method: "DELETE" }),
  messages: (id) => api(`${session(id)}/messages`),
  clear: (id) => post(`${session(id)}/clear`),
  setStep: (id, step) => post(`${session(id)}/step`, { step }),
  latestDiagram: async (id) =>
    (await api(`/api/diagrams/latest?session_id=${encodeURIComponent(id)}`)).diagram,
  cancel: (runId) => post(`/api/runs/${encodeURIComponent(runId)}/cancel`),

  /** The answer's events: {id, data} with data {type, ...}. */
  chat: (message, sessionId, signal) =>
    postEvents("/api/chat", { message, session_id: sessionId }, signal),

  /** A run's events after seq `after` (the answer so far is rebuilt by the server). */
  resume: (runId, after, signal) =>
    getEvents(`/api/chat/runs/${encodeURIComponent(runId)}/events?after=${after}`, signal),
};

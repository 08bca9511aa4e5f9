// An Analyst session as stored, for the view to show again: the thread's datasets
// (GET /api/analyst/threads/{id}/datasets) and its questions, each with the events its run
// stored (GET /api/threads/{id}/messages and /runs), in the form the run's SSE stream sends
// them, so the view's one renderer shows both.

import { getJson, isThreadId, readThread } from "./threads.js";

const AGENT = "analyst";

/** The thread id in a route ("#/analyst/<id>"), or null. */
export function routeThread(route) {
  try {
    const id = decodeURIComponent(route ?? "");
    return isThreadId(id) ? id : null;
  } catch {
    return null; // a malformed %-escape
  }
}

/** A history message (CONTRACTS.md) as the event the run's stream sent. */
export function toEvent(message) {
  return { ...message.data, kind: message.type, run_id: message.run_id, seq: message.seq };
}

/**
 * The session: {known, datasets (oldest first), questions: [{runId, status, question,
 * events}] (oldest first)}. known is false for a thread the server has no Analyst work in
 * (never used, deleted, or another face's).
 */
export async function loadSession(threadId) {
  const [{ history, runs }, datasets] = await Promise.all([
    readThread(threadId),
    getJson(`/api/analyst/threads/${encodeURIComponent(threadId)}/datasets`),
  ]);
  const byRun = new Map();
  for (const message of history?.messages ?? []) {
    if (message.type === "user_message") continue; // the question is the run's input
    if (!byRun.has(message.run_id)) byRun.set(message.run_id, []);
    byRun.get(message.run_id).push(toEvent(message));
  }
  const questions = (runs?.runs ?? []).filter((run) => run.agent === AGENT).map((run) => ({
    runId: run.id,
    status: run.status,
    question: String(run.input?.question ?? ""),
    events: byRun.get(run.id) ?? [],
  }));
  const sets = datasets?.datasets ?? [];
  return { known: datasets !== null && (questions.length > 0 || sets.length > 0),
    datasets: sets, questions };
}

/** Where the whole session's report downloads as `fmt` (md, html, ipynb). */
export function sessionReportUrl(threadId, fmt, lang) {
  return `/api/analyst/threads/${encodeURIComponent(threadId)}/report.${fmt}?lang=${lang}`;
}

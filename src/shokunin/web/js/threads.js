// Threads: the id a face keeps across reloads (one per face), and the Threads REST API
// (GET /api/threads, /api/threads/{id}/messages and /runs); for the Workbench a thread's
// history turned into the seed 000 messages the live socket sends, so one renderer shows
// both.

import { closeRuns } from "./run-outputs.js";

const threadKey = (face) => `shokunin.${face}.thread`;
const THREAD_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/; // as shokunin.runs.check_thread_id

export function newThreadId() {
  // crypto.randomUUID exists only in secure contexts; a LAN http:// address is not one.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function isThreadId(value) {
  return typeof value === "string" && THREAD_ID.test(value);
}

/** The thread this browser last talked in on `face`, if it is still a valid id. */
export function rememberedThread(face = "workbench") {
  const id = localStorage.getItem(threadKey(face));
  return isThreadId(id) ? id : null;
}

export function rememberThread(id, face = "workbench") {
  localStorage.setItem(threadKey(face), id);
}

export function forgetThread(face = "workbench") {
  localStorage.removeItem(threadKey(face));
}

/** GET a JSON document; null for a 404 (an unknown thread has no history yet). */
export async function getJson(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  if (response.status === 404) return null;
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  }
  return response.json();
}

/** A thread as stored: {history: {messages} (CONTRACTS.md's form), runs: {runs}}, each
 *  null for an unknown thread. */
export async function readThread(threadId) {
  const id = encodeURIComponent(threadId);
  const [history, runs] = await Promise.all([
    getJson(`/api/threads/${id}/messages`),
    getJson(`/api/threads/${id}/runs`),
  ]);
  return { history, runs };
}

/** The agent's threads, newest activity first. */
export async function listThreads(agent) {
  const body = await getJson(`/api/threads?agent=${encodeURIComponent(agent)}&limit=50`);
  if (body === null) throw new Error("404 Not Found");
  return body.threads;
}

/** What a cell printed and how it failed, as the socket words it (api/workbench_wire.py). */
function codeResult(data, tag) {
  const out = [];
  const output = `${data.stdout ?? ""}${data.stderr ?? ""}`;
  if (output) {
    const code = { type: "code", content: output, language: "text", output: true, ...tag };
    out.push(data.step ? { ...code, step: data.step } : code);
  }
  if (data.ok === false) {
    const what = [data.error_type, data.error_message].filter(Boolean).join(": ");
    const code = data.error_type === "PolicyViolation" ? "code_refused" : "code_error";
    out.push({ type: "error", content: what || "the code failed", code, ...tag });
  }
  return out;
}

/** A run's closing debug, as the socket words it; closeRuns adds the run's outputs. */
function runEnd(message, run, extra) {
  return { type: "debug", done: true, content: { run, run_id: message.run_id, ...extra },
    run_id: message.run_id, seq: message.seq };
}

/** One history message (CONTRACTS.md) as the seed 000 messages the socket would have sent:
 *  none for kinds the Workbench does not show (tool calls and results). */
export function toWire(message) {
  const wire = toWireOne(message);
  return Array.isArray(wire) ? wire : wire ? [wire] : [];
}

function toWireOne(message) {
  const data = message.data ?? {};
  const tag = { run_id: message.run_id, seq: message.seq };
  switch (message.type) {
    case "user_message":
      return { type: "user_message", content: String(data.text ?? ""), ...tag };
    case "text":
      return { type: "text", content: String(data.text ?? ""), ...tag };
    case "table": // the socket sends a table as Markdown text too
      return { type: "text", content: String(data.markdown ?? ""), ...tag };
    case "code": {
      const code = { type: "code", content: String(data.code ?? ""), language: data.language, ...tag };
      return data.step ? { ...code, step: data.step } : code;
    }
    case "code_result":
      return codeResult(data, tag);
    case "metrics": {
      const { input_tokens, output_tokens, total_tokens, model } = data;
      return { type: "debug", content: { usage: { input_tokens, output_tokens, total_tokens, model } }, ...tag };
    }
    case "run_completed":
      return runEnd(message, "completed", { output: data.output ?? {} });
    case "run_failed":
      return runEnd(message, "failed", { error: data.error });
    case "run_cancelled":
      return runEnd(message, "cancelled", { reason: data.reason });
    case "debug":
      return { type: "debug", content: data.content ?? {}, ...tag };
    case "map":
      return { type: "map", content: data.content ?? {}, ...tag };
    case "highlight_room":
      return { type: "highlight_room", content: { rooms: data.rooms ?? [] }, ...tag };
    case "arrow":
      return { type: "arrow", content: { room: data.room, direction: data.direction }, ...tag };
    case "clear_arrows":
    case "clear_map":
      return { type: message.type, content: {}, ...tag };
    case "image": {
      const image = { type: "image", content: data.data_base64, format: data.format, ...tag };
      return data.path ? { ...image, path: data.path } : image;
    }
    case "error":
      // A failed or cancelled run's end, worded as the socket words it.
      if (data.code === "run_failed") return { type: "error", content: `Error processing request: ${data.message}`, ...tag };
      if (data.code === "run_cancelled") return { type: "error", content: "Cancelled", code: "cancelled", ...tag };
      return data.code
        ? { type: "error", content: String(data.message ?? ""), code: data.code, ...tag }
        : { type: "error", content: String(data.message ?? ""), ...tag };
    default:
      return null;
  }
}

/**
 * A thread's history: {messages (seed 000 form, oldest first), runs, live} where live is
 * {runId, lastSeq} for a run still in progress (the socket replays the rest of it), or null.
 * An unknown thread (404) has an empty history.
 */
export async function loadHistory(threadId) {
  const { history, runs } = await readThread(threadId);
  const messages = closeRuns((history?.messages ?? []).flatMap(toWire));
  const running = (runs?.runs ?? []).filter((run) => run.status === "running").at(-1);
  let live = null;
  if (running) {
    const seqs = (history?.messages ?? []).filter((m) => m.run_id === running.id).map((m) => m.seq);
    live = { runId: running.id, lastSeq: Math.max(0, ...seqs) };
  }
  return { messages, runs: runs?.runs ?? [], live };
}

// A run's closing debug as the socket sends it (api/workbench_outputs.py): the run's outputs
// in seed 000's debug shape. A thread's history has the run's messages, so the summary is
// made again here from them, for the debug pane after a reload.

const OUTPUT_TYPES = new Set(["text", "code", "image", "map", "highlight_room", "arrow",
  "clear_arrows", "clear_map", "error"]);

/** The output as listed: an image's base64 is replaced by its size. */
function brief(message) {
  const { run_id: _run, seq: _seq, done: _done, ...out } = message;
  if (out.type === "image") out.content = `<base64, ${String(message.content ?? "").length} characters>`;
  return out;
}

function summary(messages) {
  const run = { outputs: [], texts: [], raw: [], codeSteps: [], logs: [] };
  for (const message of messages) {
    if (OUTPUT_TYPES.has(message.type)) {
      run.outputs.push(brief(message));
      if (message.type === "text") run.texts.push(String(message.content));
      else if (message.type === "code" && message.output) run.raw.push(String(message.content));
    } else if (message.type === "debug" && !message.done) {
      const step = message.content?.agent_response ?? {};
      run.codeSteps.push(...(step.code_steps ?? []));
      run.logs.push(...(step.logs ?? []));
    }
  }
  return {
    agent_response: { text: run.texts.join("\n\n"), raw_output: run.raw.join(""), code_steps: run.codeSteps, logs: run.logs },
    parsed_outputs: run.outputs,
    output_count: run.outputs.length,
  };
}

/** The messages with each run's closing debug given that run's outputs. */
export function closeRuns(messages) {
  const byRun = new Map();
  for (const m of messages) {
    if (!m.run_id) continue;
    if (!byRun.has(m.run_id)) byRun.set(m.run_id, []);
    byRun.get(m.run_id).push(m);
  }
  return messages.map((m) => (m.done && byRun.has(m.run_id)
    ? { ...m, content: { ...m.content, ...summary(byRun.get(m.run_id)) } }
    : m));
}

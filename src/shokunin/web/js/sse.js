// Server-sent events read with fetch (EventSource can neither POST nor be aborted with a
// signal): yields {event, id, data} with data parsed as JSON.

/** The events of a POST's answer (a tool's execution). */
export async function* postEvents(url, body, signal) {
  yield* read(await open(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify(body),
    signal,
  }));
}

/** The events of a GET stream (a run's events), until the server ends it. */
export async function* getEvents(url, signal) {
  yield* read(await open(url, { headers: { Accept: "text/event-stream" }, signal }));
}

async function open(url, init) {
  const response = await fetch(url, init);
  if (!response.ok) {
    const error = await response.json().catch(() => ({}));
    throw new Error(error.error ?? `${response.status} ${response.statusText}`);
  }
  return response;
}

async function* read(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      let id = null;
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("id:")) id = line.slice(3).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) yield { event, id, data: JSON.parse(data.join("\n")) };
    }
  }
}

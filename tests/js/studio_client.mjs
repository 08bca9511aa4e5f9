// One Studio project watched and approved through the official socket.io-client (Node).
//
//   node studio_client.mjs --url http://127.0.0.1:8000 --project ID [--dialect seed|client]
//                          [--start] [--timeout 60]
//
// Connects over WebSocket, subscribes to the project, approves every checkpoint:created it
// is sent (checkpoint:resolve with an acknowledgement), and collects every event until the
// project is completed: project:status_changed {newStatus} in the seed dialect,
// project:updated {updates.status} in the client dialect. Then prints one JSON line per
// event, {"event", "data"}, in the order received, and exits 0.
//
// With --start it starts the project (POST /api/projects/{id}/start) once subscribed, so
// nothing is missed; without it, it prints {"subscribed": true} on stdout when it is and
// waits for someone else to start the project. Exits 1 with a message on stderr on a
// connection error, a refused resolution, a failed project or a timeout.

import { parseArgs } from "node:util";
import { io } from "socket.io-client";

const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    project: { type: "string" },
    dialect: { type: "string", default: "seed" },
    start: { type: "boolean", default: false },
    timeout: { type: "string", default: "60" },
  },
});
if (!args.url || !args.project) {
  console.error("usage: studio_client.mjs --url URL --project ID [--dialect seed|client] "
    + "[--start] [--timeout SECONDS]");
  process.exit(2);
}

const events = [];
const resolving = new Set();
let finished = false;

function fail(message) {
  if (finished) return;
  finished = true;
  console.error(`studio_client: ${message} (${events.length} events received: `
    + `${[...new Set(events.map((e) => e.event))].join(", ")})`);
  socket.close();
  process.exit(1);
}

function done() {
  if (finished) return;
  finished = true;
  socket.close();
  process.stdout.write(events.map((e) => JSON.stringify(e) + "\n").join(""), () => {
    process.exit(0);
  });
}

function statusOf(event, data) {
  if (args.dialect === "client") return event === "project:updated" ? data?.updates?.status : null;
  return event === "project:status_changed" ? data?.newStatus : null;
}

const timer = setTimeout(() => fail(`timed out after ${args.timeout} s`),
  Number(args.timeout) * 1000);
timer.unref();

const socket = io(args.url, {
  path: "/socket.io",
  transports: ["websocket"],
  query: { dialect: args.dialect },
  reconnection: false,
});

socket.onAny((event, data) => {
  events.push({ event, data });
  if (event === "checkpoint:created") {
    const checkpointId = data.checkpointId ?? data.checkpoint?.id;
    if (resolving.has(checkpointId)) return;
    resolving.add(checkpointId);
    socket.emit("checkpoint:resolve", { checkpointId, resolution: "approved" }, (ack) => {
      if (!ack?.ok) fail(`checkpoint ${checkpointId} was not resolved: ${JSON.stringify(ack)}`);
    });
  }
  const status = statusOf(event, data);
  if (status === "completed") done();
  else if (status === "failed") fail("the project failed");
});

socket.on("connect_error", (error) => fail(`cannot connect to ${args.url}: ${error.message}`));
socket.on("disconnect", (reason) => {
  if (!finished) fail(`disconnected: ${reason}`);
});

socket.on("connect", () => {
  socket.emit("subscribe:project", args.project, async (ack) => {
    if (!ack?.ok) {
      fail(`subscribe:project refused: ${JSON.stringify(ack)}`);
      return;
    }
    if (!args.start) {
      process.stdout.write(JSON.stringify({ subscribed: true }) + "\n");
      return;
    }
    try {
      const response = await fetch(`${args.url}/api/projects/${args.project}/start`,
        { method: "POST" });
      if (!response.ok) fail(`start answered ${response.status}: ${await response.text()}`);
    } catch (error) {
      fail(`start failed: ${error.message}`);
    }
  });
});

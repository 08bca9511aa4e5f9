// The Workbench WebSocket: one thread per browser tab, reconnect after 3 s, and replay
// of a run that was in progress when the connection dropped (deduped by run_id + seq).

const RECONNECT_MS = 3000;
const THREAD_KEY = "shokunin.thread";

function newId() {
  // crypto.randomUUID exists only in secure contexts; a LAN http:// address is not one.
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function threadId() {
  let id = sessionStorage.getItem(THREAD_KEY);
  if (!id) {
    id = newId();
    sessionStorage.setItem(THREAD_KEY, id);
  }
  return id;
}

/**
 * Events: "status" (detail: connecting|connected|disconnected|reconnecting),
 * "message" (detail: a server message, each run message once), "running" (detail: bool),
 * "lost" (a sent message whose run never showed up before the connection dropped).
 */
export class WsClient extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.ws = null;
    this.status = "connecting";
    this.seen = new Set();
    this.activeRun = null; // {id, lastSeq}: a run seen without its end
    this.pending = 0; // messages sent whose run has not started yet
    this.timer = null;
  }

  connect() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.setStatus("connected");
      if (this.activeRun) {
        ws.send(JSON.stringify({ run_id: this.activeRun.id, after: this.activeRun.lastSeq }));
      }
    });
    ws.addEventListener("message", (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch (error) {
        console.warn("ignoring a frame that is not JSON", error);
        return;
      }
      this.receive(data);
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ws = null;
      // A message sent but never started may or may not have reached the server: say so.
      if (this.pending) {
        this.pending = 0;
        this.dispatch("lost");
        this.updateRunning();
      }
      this.setStatus("disconnected");
      clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.setStatus("reconnecting");
        this.connect();
      }, RECONNECT_MS);
    });
  }

  receive(data) {
    if (data.run_id && Number.isInteger(data.seq)) {
      // One event may become two messages (a failed run: error, then the done debug).
      const key = `${data.run_id}:${data.seq}:${data.type}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
      if (data.done) {
        if (this.activeRun?.id === data.run_id) this.activeRun = null;
      } else if (this.activeRun?.id !== data.run_id) {
        if (this.pending) this.pending -= 1;
        this.activeRun = { id: data.run_id, lastSeq: data.seq };
      } else {
        this.activeRun.lastSeq = Math.max(this.activeRun.lastSeq, data.seq);
      }
    } else if (data.type === "debug" && data.content?.cancel === "nothing to cancel") {
      // The server has no run for us (e.g. a restart failed it): stop waiting for one.
      this.activeRun = null;
      this.pending = 0;
    }
    this.dispatch("message", data);
    this.updateRunning();
  }

  get connected() {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  get running() {
    return this.pending > 0 || this.activeRun !== null;
  }

  send(message) {
    if (!this.connected) return false;
    this.ws.send(JSON.stringify({ message }));
    this.pending += 1;
    this.updateRunning();
    return true;
  }

  cancel() {
    if (!this.connected) return;
    this.ws.send(JSON.stringify({ cancel: true }));
    // The server drops queued messages; a run already started still ends with its done.
    this.pending = 0;
    this.updateRunning();
  }

  updateRunning() {
    if (this.running !== this.wasRunning) {
      this.wasRunning = this.running;
      this.dispatch("running", this.running);
    }
  }

  setStatus(status) {
    this.status = status;
    this.dispatch("status", status);
  }

  dispatch(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

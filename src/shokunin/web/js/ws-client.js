// The Workbench WebSocket: one thread at a time, reconnect after 3 s, and replay of a run
// that was in progress when the connection dropped (deduped by run_id + seq + type).
// pause() closes the socket on purpose (the view is hidden): no reconnect until resume(),
// and a run in progress is replayed from its last seq on resume, as after a drop.

const RECONNECT_MS = 3000;

/**
 * Events: "status" (detail: connecting|connected|disconnected|reconnecting|paused),
 * "message" (detail: a server message, each run message once), "running" (detail: bool),
 * "lost" (a sent message whose run never showed up before the connection dropped).
 */
export class WsClient extends EventTarget {
  constructor() {
    super();
    this.url = null;
    this.ws = null;
    this.status = "paused";
    this.paused = true;
    this.seen = new Set();
    this.activeRun = null; // {id, lastSeq}: a run seen without its end
    this.pending = 0; // messages sent whose run has not started yet
    this.timer = null;
  }

  /** Forget the thread: the socket goes (its runs go on on the server), and with it what
   *  was seen and followed. */
  reset() {
    this.drop();
    this.url = null;
    this.seen = new Set();
    this.activeRun = null;
    this.pending = 0;
    this.updateRunning();
  }

  /** Talk on a thread's socket URL; connects now unless paused. */
  open(url) {
    this.drop();
    this.url = url;
    if (!this.paused) this.resume();
  }

  /** Stop talking to the server until resume(). A message sent but not started yet would
   *  be dropped with the socket, so the close waits for its run to start. */
  pause() {
    this.paused = true;
    if (!this.pending) this.drop();
    this.setStatus("paused");
  }

  resume() {
    this.paused = false;
    if (this.connected) {
      this.setStatus("connected");
      return;
    }
    if (!this.ws) {
      clearTimeout(this.timer); // a reconnect waiting after a drop: now instead
      if (this.url) this.connect();
    }
    this.setStatus("connecting");
  }

  /** Close the socket without a reconnect. */
  drop() {
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null; // its close event is then not ours to handle
    ws?.close();
  }

  /** Mark a message shown from elsewhere (the thread's history) as seen, so a replay of
   *  it over the socket is not shown twice. */
  markSeen(data) {
    const key = this.key(data);
    if (key) this.seen.add(key);
  }

  /** Follow a run known to be in progress: on (re)connect its events after lastSeq are
   *  replayed. */
  follow(runId, lastSeq) {
    this.activeRun = { id: runId, lastSeq };
    this.updateRunning();
  }

  key(data) {
    if (!data.run_id || !Number.isInteger(data.seq)) return null;
    // A run has one user message; the thread's history numbers it 0, the socket by its
    // run_started event. One event may become two messages (a failed run: error, then the
    // done debug), hence the type in the key.
    if (data.type === "user_message") return `${data.run_id}:user_message`;
    return `${data.run_id}:${data.seq}:${data.type}`;
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
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      // 1008: refused by auth (logged out, or the key was revoked): reconnecting cannot help.
      if (event.code === 1008) {
        location.assign("/login");
        return;
      }
      if (this.paused) {
        this.setStatus("paused");
        return;
      }
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
    const key = this.key(data);
    // Shown already (the thread's history can bring a run's messages before the socket
    // does): not shown twice, but still counted, or a pause would wait for a start it saw.
    const seen = key !== null && this.seen.has(key);
    if (key) {
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
    } else if (data.type === "error" && data.code === "not_found") {
      this.activeRun = null; // the run we asked to replay is unknown to the server
    }
    if (!seen) this.dispatch("message", data);
    this.updateRunning();
    if (this.paused && !this.pending && this.ws) this.drop(); // a pause waited for a run to start
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

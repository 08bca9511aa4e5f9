// The Studio's live updates: one Socket.IO connection (seed 002 section 1, the `seed`
// dialect) per project shown. On every connect, first or after a drop, it subscribes to the
// project again; the server answers with connection:state_sync, and the view re-reads the
// project then, since Socket.IO does not replay what was missed while away.

import { io } from "../vendor/socket.io.esm.min.js";

export class ProjectSocket {
  /** onStatus(status): "connecting" | "connected" | "reconnecting" | "disconnected";
   *  onEvent(name, payload): every server event. */
  constructor(projectId, { onStatus, onEvent }) {
    this.projectId = projectId;
    this.onStatus = onStatus;
    this.closed = false;
    onStatus("connecting");
    const socket = io({ path: "/socket.io", transports: ["websocket", "polling"] });
    this.socket = socket;
    socket.on("connect", () => {
      onStatus("connected");
      socket.emit("subscribe:project", projectId);
    });
    socket.on("disconnect", (reason) => {
      if (this.closed) return;
      if (reason === "io client disconnect") {
        onStatus("disconnected");
        return;
      }
      // The server closing the connection on purpose does not reconnect by itself.
      if (reason === "io server disconnect") socket.connect();
      onStatus("reconnecting");
    });
    socket.on("connect_error", () => {
      if (!this.closed) onStatus(socket.active ? "reconnecting" : "disconnected");
    });
    socket.onAny((name, payload) => {
      if (!this.closed) onEvent(name, payload ?? {});
    });
  }

  get connected() {
    return this.socket.connected;
  }

  close() {
    this.closed = true;
    if (this.socket.connected) this.socket.emit("unsubscribe:project", this.projectId);
    this.socket.disconnect();
  }
}

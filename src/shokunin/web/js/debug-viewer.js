// The debug pane: each debug message with its arrival time, as pretty or compact JSON.

const LIMIT = 500; // older entries go, so a long session does not grow the page forever

function clock(date) {
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

export class DebugViewer {
  constructor(root) {
    this.list = root.querySelector(".debug-log");
    this.empty = root.querySelector(".debug-empty");
    this.toggle = root.querySelector(".debug-toggle");
    this.pretty = localStorage.getItem("shokunin.debug.pretty") !== "false";
    this.entries = [];
    this.toggle.addEventListener("click", () => this.setPretty(!this.pretty));
    root.querySelector(".debug-clear").addEventListener("click", () => this.clear());
    this.setPretty(this.pretty);
  }

  add(message) {
    const entry = { time: new Date(), message, node: document.createElement("div") };
    entry.node.className = message.done ? `debug-entry done ${message.content?.run ?? ""}` : "debug-entry";
    const head = document.createElement("div");
    head.className = "debug-head";
    const time = document.createElement("time");
    time.dateTime = entry.time.toISOString();
    time.textContent = clock(entry.time);
    head.append(time);
    if (message.done) {
      const badge = document.createElement("span");
      badge.className = "debug-badge";
      badge.textContent = message.content?.run ?? "done";
      head.append(badge);
    }
    if (message.seq !== undefined) {
      const seq = document.createElement("span");
      seq.className = "debug-seq";
      seq.textContent = `#${message.seq}`;
      head.append(seq);
    }
    entry.pre = document.createElement("pre");
    entry.node.append(head, entry.pre);
    this.render(entry);
    this.entries.push(entry);
    if (this.entries.length > LIMIT) this.entries.shift().node.remove();
    this.empty.hidden = true;
    const atBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    this.list.append(entry.node);
    if (atBottom) this.list.scrollTop = this.list.scrollHeight;
  }

  render(entry) {
    entry.pre.textContent = JSON.stringify(entry.message.content, null, this.pretty ? 2 : 0);
  }

  setPretty(pretty) {
    this.pretty = pretty;
    localStorage.setItem("shokunin.debug.pretty", String(pretty));
    this.toggle.setAttribute("aria-pressed", String(pretty));
    this.list.classList.toggle("compact", !pretty);
    for (const entry of this.entries) this.render(entry);
  }

  clear() {
    for (const entry of this.entries) entry.node.remove();
    this.entries = [];
    this.empty.hidden = false;
  }
}

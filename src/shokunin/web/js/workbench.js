// The Workbench view (seed 000): one WebSocket thread feeding four panes.
//
// Lifecycle: the socket opens when the view is first shown and closes when another view is
// shown (a run in progress goes on on the server and is replayed from its last seq when the
// view comes back; a message sent but not yet started keeps the socket until it starts).
// The panes keep their state while the view is hidden.
//
// Threads: the open thread is in the URL ("#/workbench/<id>") once it has a run, and in
// localStorage, so a reload comes back to it; its history is read from the Threads API and
// shown by the same code as the live messages, which the socket's replay cannot duplicate.
// The history's map commands wait for the socket's map_definition (the map cannot place a
// room before it has the plan), then are drawn in their order.

import { ChatPane } from "./chat-pane.js";
import { DebugViewer } from "./debug-viewer.js";
import { t } from "./i18n.js";
import { ImageViewer } from "./image-viewer.js";
import { MapViewer } from "./map-viewer.js";
import { makeSplitter } from "./splitter.js";
import { ThreadList } from "./thread-list.js";
import {
  forgetThread, isThreadId, loadHistory, newThreadId, rememberThread, rememberedThread,
} from "./threads.js";
import { MARKUP } from "./workbench-markup.js";
import { STRINGS } from "./workbench-strings.js";
import { WsClient } from "./ws-client.js";

const AGENT = "workbench";
const MAP_COMMANDS = new Set(["map", "highlight_room", "arrow", "clear_arrows", "clear_map"]);

function socketUrl(threadId) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/ws?thread=${encodeURIComponent(threadId)}`;
}

function routeThread(route) {
  try {
    const id = decodeURIComponent(route);
    return isThreadId(id) ? id : null;
  } catch {
    return null; // a malformed %-escape
  }
}

class Workbench {
  constructor() {
    this.client = new WsClient();
    this.threadId = null;
    this.started = false; // the thread has a run (so it has a URL and can be reopened)
    this.loads = 0; // the latest history load; an older one that answers late is dropped
    this.ctx = null;
    this.panes = null;
    this.heldMap = []; // the history's map commands, drawn once the map definition is in
  }

  mount(container, ctx) {
    this.ctx = ctx;
    const first = !this.panes;
    if (first) this.build(container);
    const wanted = routeThread(ctx.route);
    if (wanted && wanted !== this.threadId) {
      this.openThread(wanted, { fresh: false });
    } else if (first) {
      const remembered = rememberedThread();
      this.openThread(remembered ?? newThreadId(), { fresh: !remembered });
    } else {
      this.showRoute();
    }
    this.client.resume();
  }

  unmount() {
    this.client.pause();
  }

  /** The hash changed within the view: "#/workbench/<id>" opens that thread. */
  route(route) {
    const wanted = routeThread(route);
    if (wanted && wanted !== this.threadId) this.openThread(wanted, { fresh: false });
    else this.showRoute();
  }

  showRoute() {
    this.ctx.setRoute(this.started ? this.threadId : "");
  }

  newThread() {
    forgetThread();
    this.ctx.setRoute("", { push: true }); // Back returns to the conversation left
    this.openThread(newThreadId(), { fresh: true });
  }

  async openThread(id, { fresh }) {
    const load = ++this.loads;
    this.threadId = id;
    this.started = !fresh;
    this.showRoute();
    this.client.reset(); // the old thread's socket goes now, before its messages mix in
    this.chat.clear(fresh ? "chat.empty" : "chat.loadingHistory");
    this.images.clear();
    this.debug.clear();
    this.map.clearMap();
    this.map.clearArrows();
    this.heldMap = [];
    if (!fresh) {
      let history = null;
      let failure = null;
      try {
        history = await loadHistory(id);
      } catch (error) {
        failure = error;
      }
      if (load !== this.loads) return;
      this.chat.clear();
      if (failure) {
        this.chat.addError(t("chat.historyFailed", { error: failure.message }));
      } else if (!history.runs.length) {
        // Unknown to the server (never used, or deleted): a new conversation under this id.
        this.started = false;
        forgetThread();
        this.showRoute();
      } else {
        rememberThread(id);
        this.showHistory(history);
      }
    }
    this.client.open(socketUrl(id));
  }

  showHistory({ messages, runs, live }) {
    for (const message of messages) {
      this.client.markSeen(message);
      if (MAP_COMMANDS.has(message.type)) this.heldMap.push(message);
      else this.show(message);
    }
    if (live) this.client.follow(live.runId, live.lastSeq);
    this.debug.add({ type: "debug", content: { history: {
      thread_id: this.threadId, runs: runs.length, messages: messages.length } } });
  }

  build(container) {
    container.innerHTML = MARKUP;
    this.map = new MapViewer(container.querySelector(".pane-map"));
    this.images = new ImageViewer(container.querySelector(".pane-images"), container.querySelector("#lightbox"));
    this.chat = new ChatPane(container.querySelector(".pane-chat"), this.client);
    this.debug = new DebugViewer(container.querySelector(".pane-debug"));
    this.threads = new ThreadList(container.querySelector(".pane-chat"), {
      agent: AGENT, current: () => this.threadId, onNew: () => this.newThread() });
    this.panes = container.querySelector(".workbench");

    makeSplitter(container.querySelector(".split-columns"), this.panes, "--left-width", 50);
    makeSplitter(container.querySelector(".split-left"), container.querySelector(".col-left"), "--top-height", 58);
    makeSplitter(container.querySelector(".split-right"), container.querySelector(".col-right"), "--top-height", 64);

    this.client.addEventListener("status", ({ detail: status }) => this.ctx?.setStatus(status));
    this.client.addEventListener("message", ({ detail: message }) => {
      if (message.type === "user_message" && !this.started) {
        // The thread's first run: from now on it has a URL and is the one a reload opens.
        this.started = true;
        rememberThread(this.threadId);
        this.showRoute();
      }
      this.show(message);
    });
  }

  /** Show one seed 000 message in its pane. */
  show(message) {
    if (message.type === "image") this.images.add(message);
    else if (message.type === "debug") this.showDebug(message);
    else if (!this.map.handle(message) && !this.chat.handle(message)) console.warn("unknown message type", message.type);
    if (message.type === "map_definition") {
      const held = this.heldMap;
      this.heldMap = [];
      for (const command of held) this.map.handle(command);
    }
  }

  showDebug(message) {
    this.debug.add(message);
    const content = message.content ?? {};
    if (content.run === "started" && content.id) this.chat.markStarted(content.id);
    if (Array.isArray(content.dropped_ids)) this.chat.markDropped(content.dropped_ids);
  }
}

/** The Workbench's entry in the view registry. */
export const workbenchView = {
  name: "workbench",
  label: "nav.workbench",
  strings: STRINGS,
  create: () => new Workbench(),
};

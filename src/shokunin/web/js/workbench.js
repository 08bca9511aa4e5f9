// The Workbench view: one WebSocket thread feeding four panes (seed 000).

import { ChatPane } from "./chat-pane.js";
import { DebugViewer } from "./debug-viewer.js";
import { ImageViewer } from "./image-viewer.js";
import { MapViewer } from "./map-viewer.js";
import { makeSplitter } from "./splitter.js";
import { WsClient, threadId } from "./ws-client.js";

export function startWorkbench(view) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const client = new WsClient(`${scheme}://${location.host}/ws?thread=${encodeURIComponent(threadId())}`);

  const map = new MapViewer(view.querySelector(".pane-map"));
  const images = new ImageViewer(view.querySelector(".pane-images"), document.getElementById("lightbox"));
  const chat = new ChatPane(view.querySelector(".pane-chat"), client);
  const debug = new DebugViewer(view.querySelector(".pane-debug"));

  const grid = view.querySelector(".workbench");
  makeSplitter(view.querySelector(".split-columns"), grid, "--left-width", 50);
  makeSplitter(view.querySelector(".split-left"), view.querySelector(".col-left"), "--top-height", 58);
  makeSplitter(view.querySelector(".split-right"), view.querySelector(".col-right"), "--top-height", 64);

  client.addEventListener("message", ({ detail: message }) => {
    if (message.type === "image") images.add(message);
    else if (message.type === "debug") debug.add(message);
    else if (!map.handle(message) && !chat.handle(message)) console.warn("unknown message type", message.type);
  });
  client.connect();
  return { client, map };
}

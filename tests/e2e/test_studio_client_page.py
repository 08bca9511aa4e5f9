"""A page in Chromium that reads the Studio's socket the way the seed project's React client
does (new-sankaku/toybox, langgraph-studio/: src/services/websocketService.ts), served from
another loopback origin as the client's own vite dev server is, against a server with no
setting: it connects with no query, subscribes with the bare id, and names agents, shows
progress, previews and assets from what it gets. The page is ours, a few lines that read the
same fields; the client's code stays out of the repository."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from tests.live_server import LiveServer
from tests.waiting import wait_until

VENDOR = Path(__file__).resolve().parents[2] / "src/shokunin/web/vendor/socket.io.esm.min.js"
CONCEPT = {"description": "雨の街を走る", "platform": "web", "scope": "mvp"}
PAGE = """<!doctype html><meta charset="utf-8"><script type="module">
import { io } from "/socket.io.js";
const seen = { toasts: [], tokens: [], previews: [], assets: {}, status: null, percent: null };
window.seen = seen;
const socket = io(SERVER, { transports: ["websocket", "polling"] });
socket.on("connect", () => {
  socket.emit("subscribe:project", PROJECT);
});
socket.on("connection:state_sync", () => { seen.synced = true; });
const name = (agent) => agent?.metadata?.displayName || agent?.type || "不明なエージェント";
socket.on("agent:completed", (d) => seen.toasts.push(`${name(d.agent)} が完了しました`));
socket.on("agent:progress", (d) => seen.tokens.push(d.tokensUsed));
socket.on("metrics:update", ({ metrics }) => { seen.percent = metrics.progressPercent; });
socket.on("checkpoint:created", (d) => {
  const content = d.checkpoint.output.content;
  seen.previews.push(typeof content === "string" ? content
    : typeof content?.text === "string" ? content.text : JSON.stringify(content, null, 2));
});
socket.on("asset:created", (d) => { seen.assets[d.asset.id] = { ...d.asset }; });
socket.on("asset:updated", (d) => Object.assign(seen.assets[d.asset.id] ??= {}, d.asset));
socket.on("project:updated", ({ updates }) => { seen.status = updates.status ?? seen.status; });
</script>"""


def _serve(files: dict[str, tuple[str, str]]) -> ThreadingHTTPServer:
    """A static server on another loopback port: the page's origin, as a dev server's is."""

    class Files(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            body, kind = files.get(self.path, ("", "text/plain"))
            data = body.encode("utf-8")
            self.send_response(200 if self.path in files else 404)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Files)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_a_page_reading_the_react_clients_fields_sees_names_numbers_text_and_images(
        browser: Any, live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.url, timeout=10) as http:
        pid = http.post("/api/projects", json={"name": "雨", "concept": CONCEPT}).json()["id"]
        context = browser.new_context()
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        html = PAGE.replace("SERVER", repr(live_server.url)).replace("PROJECT", repr(pid))
        origin = _serve({"/": (html, "text/html"),
                         "/socket.io.js": (VENDOR.read_text("utf-8"), "text/javascript")})
        try:
            page.goto(f"http://127.0.0.1:{origin.server_address[1]}/")
            # its subscription is in before the run starts: the server synced its state
            page.wait_for_function("window.seen?.synced === true")
            assert http.post(f"/api/projects/{pid}/start").status_code == 200
            deadline = time.monotonic() + 60
            while page.evaluate("window.seen.status") != "completed":
                assert time.monotonic() < deadline, page.evaluate("window.seen")
                for checkpoint in http.get(f"/api/projects/{pid}/checkpoints").json():
                    if checkpoint["status"] == "pending":  # as its 承認 button does
                        http.post(f"/api/checkpoints/{checkpoint['id']}/resolve",
                                  json={"resolution": "approved"})
                time.sleep(0.3)
            wait_until(lambda: page.evaluate(  # the events after the project's end
                "window.seen.toasts.length >= 16 && window.seen.percent === 100"),
                what="every agent's completion and the last metrics")
            seen = page.evaluate("window.seen")
        finally:
            context.close()
            origin.shutdown()
    assert not errors  # no TypeError reading metrics.progressPercent
    assert len(seen["toasts"]) == 16 and not [t for t in seen["toasts"] if "不明" in t]
    assert "ゲームコンセプト が完了しました" in seen["toasts"]
    assert seen["tokens"] and all(isinstance(n, int) for n in seen["tokens"])
    assert seen["percent"] == 100.0
    assert len(seen["previews"]) == 11
    assert not [p for p in seen["previews"] if p.lstrip().startswith("{")]
    assets = list(seen["assets"].values())
    assert len(assets) == 2 and {a["type"] for a in assets} == {"image"}
    # approving the asset review judges no file: each waits in the data tab ("pending")
    assert {a["approvalStatus"] for a in assets} == {"pending"}

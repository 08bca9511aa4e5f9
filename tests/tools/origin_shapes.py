"""Our own small tools in the shapes of the origin project's (harupipipipi/rumiai ``tool/``):
one that serves a page on ``context["ui_port"]`` as ``flask_test`` does (an index.html
beside it, an HTTPServer on every address in a daemon thread, execute() returning at once),
and one that uses ``context["runtime"].shared_storage`` as ``workspace_test`` does. Standard
library only: no network to build them."""

from __future__ import annotations

from pathlib import Path

from tests.tools.conftest import make_tool

# What the page's script finds of its host: the proxy's sandbox must block all three.
UI_PAGE = """<!doctype html><meta charset="utf-8"><title>ui probe</title>
<h1 id="ok">UI OK</h1><p id="probe">...</p><a id="rel" href="headers">headers</a>
<a id="abs" href="/headers?from=abs">written for the root, as the origin's tools are</a>
<p id="fetched">...</p>
<script>
fetch("echo", {method: "POST", headers: {"Content-Type": "application/json"},
               body: '{"a": 1}'})
  .then(r => r.json()).then(j => { document.getElementById("fetched").textContent = j.got; })
  .catch(e => { document.getElementById("fetched").textContent = "failed: " + e; });
const out = [];
try { out.push("parent:" + parent.document.title); } catch (e) { out.push("parent:blocked"); }
try { out.push("cookie:" + document.cookie); } catch (e) { out.push("cookie:blocked"); }
try { out.push("storage:" + localStorage.length); } catch (e) { out.push("storage:blocked"); }
document.getElementById("probe").textContent = out.join(" ");
</script>"""

UI_TOOL = '''
import json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer

TOOL_NAME = "UI プローブ"
TOOL_DESCRIPTION = "serves its own page on context['ui_port']"
TOOL_ICON = "🖥"
PAGE = __PAGE__


def get_function_declaration():
    return {"name": "ui_probe", "description": "ui probe",
            "parameters": {"type": "object", "properties": {"mode": {"type": "string"},
                                                            "told": {"type": "integer"}}}}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body, ctype="text/html; charset=utf-8", extra=()):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_GET(self):
        if self.path == "/":
            self.reply(200, PAGE, extra=[("Set-Cookie", "tool=1; Path=/"),
                                         ("X-Frame-Options", "DENY"),
                                         ("Access-Control-Allow-Origin", "*"),
                                         ("Clear-Site-Data", '"*"')])
        elif self.path.startswith("/headers"):
            self.reply(200, json.dumps({"path": self.path, "headers": dict(self.headers)}),
                       "application/json")
        elif self.path == "/redirect":
            self.reply(302, "", extra=[("Location", "/headers?from=redirect")])
        elif self.path == "/big":
            self.send_response(200)
            self.send_header("Content-Length", str(64 * 1024 * 1024))
            self.end_headers()
            self.wfile.write(b"x" * 1024)
        else:
            self.reply(404, "not found")

    def do_POST(self):
        size = int(self.headers.get("Content-Length") or 0)
        self.reply(200, json.dumps({"got": self.rfile.read(size).decode()}), "application/json")


def execute(args, context):
    port = context.get("ui_port")
    if not port:
        return {"success": False, "error": "UIポートが提供されていません"}
    mode = args.get("mode", "serve")
    if mode == "no_server":
        return {"success": True, "result": "no server"}
    if mode.startswith("own_port"):  # as the origin's web_search: a port of its own choice
        server = HTTPServer(("0.0.0.0", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        told = int(args.get("told") or server.server_address[1])
        return {"success": True, "result": "own port",
                "ui_info": {"ui_available": True, "ui_port": told}}
    if mode.startswith("bind:"):  # where a server asking for that host really listens
        server = HTTPServer((mode[5:], port), Handler)
        server.server_close()
        return {"success": True, "result": server.server_address[0]}
    server = HTTPServer(("0.0.0.0", port), Handler)  # as flask_test: every address
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if mode == "wait_abort":
        context["message_callback"](f"serving {port}")
        while not context["abort_event"].wait(0.02):
            pass
        return {"success": False, "error": "中断されました", "aborted": True}
    return {"success": True, "result": {"port": port, "pid": os.getpid()}}
'''.replace("__PAGE__", repr(UI_PAGE))

SHARED_TOOL = '''
TOOL_NAME = "共有ストレージ"
TOOL_DESCRIPTION = "reads and writes runtime.shared_storage"
TOOL_ICON = "📁"


def get_function_declaration():
    return {"name": "__NAME__", "description": "shared storage probe",
            "parameters": {"type": "object", "properties": {
                "mode": {"type": "string"}, "name": {"type": "string"},
                "text": {"type": "string"}}, "required": ["mode"]}}


def execute(args, context):
    runtime = context["runtime"]
    shared = runtime.shared_storage
    mode, name = args["mode"], args.get("name", "note.txt")
    if mode == "write":
        return {"success": True, "result": shared.write(name, args.get("text", ""))}
    if mode == "read":
        return {"success": True, "result": shared.read(name)}
    if mode == "ws_write":  # the thread's workspace, as workspace_test writes
        return {"success": True, "result": runtime.workspace().write(name, args.get("text", ""))}
    if mode == "ws_read":
        space = runtime.workspace()
        if not space.exists(name):
            return {"success": False, "error": f"ファイルが存在しません: {name}"}
        return {"success": True, "result": space.read(name)}
    if mode == "list":
        return {"success": True, "result": {
            "files": shared.list_files(recursive=True), "path": shared.get_path(),
            "chat_id": runtime.get_current_chat_id(),
            "workspace": runtime.workspace().get_path()}}
    if mode == "other_thread":
        runtime.workspace("someone-else")
    return {"success": False, "error": "unknown mode"}
'''


def make_ui_tool(root: Path, name: str = "ui_probe") -> Path:
    """The flask_test-shaped tool: a UI declared by its index.html, no get_ui_info()."""
    folder = make_tool(root, name, UI_TOOL)
    (folder / "index.html").write_text("<h1>static page</h1>", encoding="utf-8")
    return folder


def make_shared_tool(root: Path, name: str = "shared_probe", *,
                     requirements: str | None = None) -> Path:
    return make_tool(root, name, SHARED_TOOL.replace("__NAME__", name),
                     requirements=requirements)

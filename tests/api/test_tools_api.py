"""REST endpoints with TestClient; the SSE stream against a real server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from shokunin.api import create_app
from shokunin.config import Settings
from shokunin.tools import MASK
from tests.live_server import LiveServer
from tests.tools.conftest import PROBE, make_tool

UI_TOOL = PROBE.replace('"probe"', '"ui_probe"') + '''
def get_ui_info():
    return {"has_ui": True, "html_file": "index.html"}
'''


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    tools = tmp_path / "tool"
    make_tool(tools, "probe", PROBE)
    make_tool(tools, "broken", "def (:\n")
    ui = make_tool(tools, "withui", UI_TOOL)
    (ui / "index.html").write_text("<h1>UI</h1>")
    app = create_app(Settings(data_dir=tmp_path / "data", tools_dirs=[tools],
                              tool_settings_file=tmp_path / "userdata" / "s.json",
                              sandbox_pool_size=0))
    with TestClient(app) as test_client:
        yield test_client


def test_list_and_show(client: TestClient) -> None:
    tools = {t["name"]: t for t in client.get("/api/tools").json()["tools"]}
    assert set(tools["probe"]) == {"name", "function_name", "title", "description", "icon",
                                   "declaration", "status", "error", "source", "has_venv",
                                   "has_settings", "has_ui"}
    assert tools["probe"]["status"] == "ok" and tools["probe"]["has_settings"]
    assert tools["broken"]["status"] == "error" and "syntax error" in tools["broken"]["error"]
    assert tools["calculator"]["source"] == "builtin"
    assert client.get("/api/tools/probe").json()["title"] == "プローブ"
    missing = client.get("/api/tools/nope")
    assert missing.status_code == 404 and "nope" in missing.json()["error"]


def test_settings_get_put_masks_secrets(client: TestClient) -> None:
    put = client.put("/api/tools/probe/settings",
                     json={"values": {"api_key": "sk-live-123", "limit": 5}})
    assert put.status_code == 200 and put.json()["values"]["api_key"] == MASK
    got = client.get("/api/tools/probe/settings").json()
    assert got["values"]["api_key"] == MASK and got["schema"]["api_key"]["is_set"]
    assert client.put("/api/tools/probe/settings",
                      json={"values": {"api_key": MASK, "limit": 6}}).status_code == 200
    bad = client.put("/api/tools/probe/settings", json={"values": {"limit": 0, "x": 1}})
    assert bad.status_code == 422
    assert bad.json() == {"errors": {"limit": "must be at least 1", "x": "unknown setting"}}
    assert client.put("/api/tools/probe/settings", json={"v": 1}).status_code == 422
    assert client.put("/api/tools/probe/settings", content=b"{",
                      headers={"Content-Type": "application/json"}).status_code == 422
    result = client.post("/api/tools/probe/execute", json={"args": {"mode": "leak"}}).json()
    assert result["error"] == f"rejected key {MASK}"
    everything = "".join(client.get(u).text for u in (
        "/api/tools", "/api/tools/probe", "/api/tools/probe/settings"))
    assert "sk-live-123" not in everything + json.dumps(result)


def test_execute(client: TestClient) -> None:
    ok = client.post("/api/tools/calculator/execute", json={"args": {"expression": "0.1+0.2"}})
    assert ok.status_code == 200
    body = ok.json()
    assert body["success"] and body["result"]["value"] == "0.3"
    assert set(body) == {"success", "result", "error", "files", "aborted", "execution_id"}
    slow = client.post("/api/tools/probe/execute", json={"args": {"mode": "hang"},
                                                         "timeout": 0.2}).json()
    assert slow["error"] == "timed out after 0.2 s"


@pytest.mark.parametrize(("body", "message"), [
    (b"not json", "must be JSON"), (b"[1]", "JSON object"),
    (b'{"args": 3}', '"args" must be a JSON object'), (b'{"argz": {}}', "unknown field"),
    (b'{"args": {"mode": "x"}, "timeout": -1}', "positive number"),
    (b'{"args": {"mode": 1}}', "invalid args"), (b'{"args": {}}', "'mode' is a required"),
])
def test_execute_bad_body(client: TestClient, body: bytes, message: str) -> None:
    response = client.post("/api/tools/probe/execute", content=body,
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and message in response.json()["error"]


def test_execute_unknown_or_broken_tool(client: TestClient) -> None:
    assert client.post("/api/tools/nope/execute", json={}).status_code == 404
    broken = client.post("/api/tools/broken/execute", json={})
    assert broken.status_code == 409 and "syntax error" in broken.json()["error"]


def test_abort_unknown_execution(client: TestClient) -> None:
    assert client.post("/api/tools/executions/nope/abort").status_code == 404


def test_ui(client: TestClient) -> None:
    page = client.get("/api/tools/withui/ui")
    assert page.status_code == 200 and "<h1>UI</h1>" in page.text
    assert client.get("/api/tools/probe/ui").status_code == 404
    assert client.get("/api/tools/withui/ui/../../etc/passwd").status_code == 404


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data = tmp_path_factory.mktemp("tools_server")
    make_tool(data / "tool", "probe", PROBE)
    live = LiveServer(data).start()
    yield live
    live.stop()


def _events(response: httpx.Response) -> Iterator[tuple[str, dict]]:
    event = None
    for line in response.iter_lines():
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event:
            yield event, json.loads(line[6:])


def test_sse_stream_progress_then_result(server: LiveServer) -> None:
    with httpx.stream("POST", f"{server.url}/api/tools/probe/execute/stream",
                      json={"args": {"mode": "progress"}}, timeout=10) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = list(_events(response))
    assert [e for e, _ in events] == ["started", "progress", "progress", "progress", "result"]
    assert events[1][1] == {"message": "step 0"}
    assert events[-1][1]["success"] and events[-1][1]["execution_id"] == events[0][1][
        "execution_id"]


def test_sse_abort_endpoint(server: LiveServer) -> None:
    with httpx.stream("POST", f"{server.url}/api/tools/probe/execute/stream",
                      json={"args": {"mode": "wait_abort"}}, timeout=10) as response:
        events = _events(response)
        kind, started = next(events)
        assert kind == "started"
        assert next(events) == ("progress", {"message": "waiting"})
        aborted = httpx.post(
            f"{server.url}/api/tools/executions/{started['execution_id']}/abort")
        assert aborted.json() == {"aborted": True}
        kind, result = next(events)
    assert kind == "result" and result["aborted"]


def test_sse_client_disconnect_aborts(server: LiveServer, tmp_path: Path) -> None:
    marker = tmp_path / "aborted"
    with httpx.stream("POST", f"{server.url}/api/tools/probe/execute/stream",
                      json={"args": {"mode": "wait_abort", "path": str(marker)}},
                      timeout=10) as response:
        events = _events(response)
        next(events)
        next(events)  # the tool is running
    deadline = time.monotonic() + 5
    while not marker.exists():  # the tool saw its abort_event
        assert time.monotonic() < deadline, "disconnect did not abort the execution"
        time.sleep(0.05)


def test_sse_bad_body(server: LiveServer) -> None:
    response = httpx.post(f"{server.url}/api/tools/probe/execute/stream", json={"args": 1})
    assert response.status_code == 422

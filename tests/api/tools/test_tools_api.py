"""REST endpoints with TestClient; the SSE stream against a real server."""

from __future__ import annotations

import json
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
from tests.waiting import wait_until

pytestmark = pytest.mark.subprocess

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
                                   "declaration", "status", "error", "source", "server", "has_venv",
                                   "has_settings", "has_ui", "needs_settings"}
    assert tools["probe"]["status"] == "ok" and tools["probe"]["has_settings"]
    assert tools["broken"]["status"] == "error" and "syntax error" in tools["broken"]["error"]
    assert tools["calculator"]["source"] == "builtin"
    assert client.get("/api/tools/probe").json()["title"] == "プローブ"
    missing = client.get("/api/tools/nope")
    assert missing.status_code == 404 and "nope" in missing.json()["error"]


def test_a_tool_without_its_required_settings_says_which_to_set(client: TestClient) -> None:
    """Web search with neither service set up is not ready: listed with what to set (any
    one of a group will do), and ready once one is set (issue 48.2)."""
    search = client.get("/api/tools/web_search").json()
    assert search["status"] == "ok"
    assert search["needs_settings"] == [[
        {"key": "tavily_api_key", "label": "Tavily の APIキー / Tavily API key"},
        {"key": "searxng_url", "label": "SearXNG の URL / SearXNG URL"}]]
    listed = {t["name"]: t for t in client.get("/api/tools").json()["tools"]}
    assert listed["web_search"]["needs_settings"] == search["needs_settings"]
    assert listed["calculator"]["needs_settings"] == []
    ran = client.post("/api/tools/web_search/execute", json={"args": {"query": "x"}}).json()
    assert not ran["success"] and "tavily_api_key" in ran["error"]  # as listed: not ready
    assert client.put("/api/tools/web_search/settings",
                      json={"values": {"tavily_api_key": "tvly-1"}}).status_code == 200
    assert client.get("/api/tools/web_search").json()["needs_settings"] == []
    listed = {t["name"]: t for t in client.get("/api/tools").json()["tools"]}
    assert listed["web_search"]["needs_settings"] == []


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
    assert set(body) == {"success", "result", "error", "files", "aborted", "execution_id",
                         "run_id"}
    assert body["run_id"] == body["execution_id"]
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
        assert aborted.json() == {"aborted": True, "run_id": started["execution_id"]}
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
    wait_until(marker.exists, 5,  # the tool saw its abort_event
               what="the disconnect aborting the execution")


def test_sse_bad_body(server: LiveServer) -> None:
    response = httpx.post(f"{server.url}/api/tools/probe/execute/stream", json={"args": 1})
    assert response.status_code == 422


# -- executions are runs of the tool agent ---------------------------------------------------
def test_execution_is_a_stored_run_of_the_tool_agent(client: TestClient) -> None:
    body = client.post("/api/tools/calculator/execute",
                       json={"args": {"expression": "6*7"}, "thread_id": "calc-1"}).json()
    run = client.get(f"/api/runs/{body['run_id']}").json()
    assert (run["agent"], run["status"], run["thread_id"]) == ("tool", "completed", "calc-1")
    assert run["input"] == {"tool": "calculator", "args": {"expression": "6*7"},
                            "timeout": None}
    messages = client.get("/api/threads/calc-1/messages").json()["messages"]
    assert [m["type"] for m in messages] == ["user_message", "tool_call", "tool_result",
                                             "run_completed"]
    assert messages[1]["data"] == {"call_id": body["run_id"], "name": "calculator",
                                   "args": {"expression": "6*7"}}
    assert messages[2]["data"]["result"] == body["result"] and messages[2]["data"]["success"]


def test_execution_runs_in_its_threads_workspace(client: TestClient) -> None:
    result = client.post("/api/tools/probe/execute",
                         json={"args": {"mode": "context"}, "thread_id": "ws-1"}).json()
    runner = client.app.state.engine.runner  # type: ignore[attr-defined]
    assert result["result"]["workspace"] == str(runner.workspace("ws-1"))
    assert result["result"]["execution_id"] == result["run_id"]


@pytest.mark.parametrize(("body", "code", "word"), [
    (b'{"args": {"mode": "x"}, "thread_id": "../etc"}', "bad_thread_id", "bad thread id"),
    (b'{"args": {"mode": "x"}, "thread_id": 5}', "bad_thread_id", "bad thread id"),
    (b'{"args": {"mode": "x"}, "timeout": NaN}', "bad_json", "must be JSON"),
    (b'{"args": {"mode": "x"}, "timeout": Infinity}', "bad_json", "must be JSON"),
    (b'{"args": {"mode": "\\udc00"}}', "bad_json", "must be JSON"),
    (b"[" * 100_000, "too_deep", "nested too deeply"),
])
def test_execute_bad_body_starts_no_run(client: TestClient, body: bytes, code: str,
                                        word: str) -> None:
    response = client.post("/api/tools/probe/execute", content=body,
                           headers={"content-type": "application/json"})
    # deep nesting and a malformed thread id: 400 on every route
    status = 400 if code in ("too_deep", "bad_thread_id") else 422
    assert response.status_code == status and response.json()["code"] == code
    assert word in response.json()["error"]
    assert client.get("/api/threads", params={"agent": "tool"}).json() == {"threads": []}


def test_abort_of_a_finished_or_foreign_run_is_404(client: TestClient) -> None:
    done = client.post("/api/tools/calculator/execute",
                       json={"args": {"expression": "1"}}).json()["run_id"]
    assert client.post(f"/api/tools/executions/{done}/abort").status_code == 404


VENV_ABORT = '''
TOOL_NAME = "venv abort"
TOOL_DESCRIPTION = "waits for its abort signal in its own venv"
TOOL_ICON = "📦"


def get_function_declaration():
    return {"name": "venv_abort", "description": "waits",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                           "required": ["path"]}}


def execute(args, context):
    context["message_callback"]("waiting")
    while not context["abort_event"].wait(0.02):
        pass
    open(args["path"], "w").close()
    return {"success": False, "error": "stopped by its abort signal", "aborted": True}
'''


def test_cancel_gives_a_venv_tool_its_abort_signal(tmp_path: Path) -> None:
    tools = tmp_path / "tool"
    make_tool(tools, "venv_abort", VENV_ABORT, requirements="# nothing to install\n")
    app = create_app(Settings(data_dir=tmp_path / "data", tools_dirs=[tools],
                              tool_settings_file=tmp_path / "s.json", sandbox_pool_size=0))
    marker = tmp_path / "aborted"
    with TestClient(app) as client:
        runner = app.state.engine.runner

        async def run_and_cancel() -> list:
            run_id = await runner.start("tool", None, {"tool": "venv_abort",
                                                       "args": {"path": str(marker)}})
            seen = []
            async for event in runner.stream(run_id):
                seen.append(event)
                if event.kind == "progress" and event.message == "waiting":
                    assert await runner.cancel(run_id), seen
            return seen

        events = client.portal.call(run_and_cancel)
    assert marker.exists()  # the child heard the abort and returned, it was not killed
    assert [e.kind for e in events][-3:] == ["progress", "tool_result", "run_cancelled"]
    assert events[-2].error == "stopped by its abort signal" and events[-2].aborted


def _sse(response: httpx.Response) -> Iterator[dict]:
    """Whole SSE messages: {"event", "id", "data"} (data parsed), comments skipped."""
    message: dict = {}
    for line in response.iter_lines():
        if not line:
            if message:
                yield message
            message = {}
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(": ")
            message[field] = json.loads(value) if field == "data" else value


def test_replay_a_finished_tool_run_with_last_event_id(server: LiveServer) -> None:
    run_id = httpx.post(f"{server.url}/api/tools/probe/execute",
                        json={"args": {"mode": "progress"}}, timeout=10).json()["run_id"]
    url = f"{server.url}/api/runs/{run_id}/events"
    with httpx.stream("GET", url, timeout=10) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        everything = list(_sse(response))
    assert [(m["event"], m.get("id")) for m in everything] == [
        ("run_started", "1"), ("tool_call", "2"), ("progress", "3"), ("progress", "4"),
        ("progress", "5"), ("tool_result", "6"), ("run_completed", "7"), ("end", None)]
    assert everything[2]["data"]["message"] == "step 0"
    assert everything[2]["data"]["seq"] == 3 and everything[2]["data"]["run_id"] == run_id
    assert everything[-1]["data"] == {"run_id": run_id, "status": "completed"}
    with httpx.stream("GET", url, headers={"Last-Event-ID": "4"}, timeout=10) as response:
        tail = list(_sse(response))
    assert [m.get("id") for m in tail] == ["5", "6", "7", None]
    with httpx.stream("GET", url, params={"after": "7"}, timeout=10) as response:
        assert [m["event"] for m in _sse(response)] == ["end"]  # nothing after: its status


def test_cancel_a_tool_run_from_the_runs_api(server: LiveServer, tmp_path: Path) -> None:
    marker = tmp_path / "aborted"
    with httpx.stream("POST", f"{server.url}/api/tools/probe/execute/stream",
                      json={"args": {"mode": "wait_abort", "path": str(marker)}},
                      timeout=10) as response:
        messages = _sse(response)
        started = next(messages)
        run_id = started["data"]["run_id"]
        assert started["id"] == "1" and next(messages)["event"] == "progress"
        with httpx.stream("GET", f"{server.url}/api/runs/{run_id}/events",
                          timeout=10) as follower:
            live = _sse(follower)
            assert [next(live)["event"] for _ in range(3)] == [
                "run_started", "tool_call", "progress"]
            cancel = httpx.post(f"{server.url}/api/runs/{run_id}/cancel", timeout=10)
            assert cancel.status_code == 202
            rest = list(live)
        result = next(messages)
    assert marker.exists()
    assert result["event"] == "result" and result["data"]["aborted"]
    assert [m["event"] for m in rest] == ["tool_result", "run_cancelled", "end"]
    assert rest[-1]["data"]["status"] == "cancelled"
    assert httpx.get(f"{server.url}/api/runs/{run_id}").json()["status"] == "cancelled"


def test_bad_last_event_id_is_refused_before_the_stream(server: LiveServer) -> None:
    run_id = httpx.post(f"{server.url}/api/tools/calculator/execute",
                        json={"args": {"expression": "1"}}, timeout=10).json()["run_id"]
    for headers, params in [({"Last-Event-ID": "abc"}, {}), ({}, {"after": "-1"}),
                            ({"Last-Event-ID": "9" * 30}, {})]:
        response = httpx.get(f"{server.url}/api/runs/{run_id}/events", headers=headers,
                             params=params, timeout=10)
        assert response.status_code == 400 and response.json()["code"] == "bad_event_id"

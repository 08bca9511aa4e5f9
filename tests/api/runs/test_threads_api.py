"""The threads and runs REST API, with a scripted agent registered on the server's Runner."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from langgraph.checkpoint.memory import InMemorySaver
from starlette.middleware import Middleware

from shokunin import events as ev
from shokunin.api import create_app
from shokunin.config import Settings
from shokunin.runs import Interrupted, RunContext, Runner
from shokunin.sandbox import ExecPythonInput
from tests.live_server import LiveServer


class Scripted:
    """Says what ``input`` asks: text, a failure, a question for a human, or a long wait."""

    name = "scripted"

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        if input.get("ask") and ctx.resume_value is None:
            raise Interrupted({"question": "go?"})
        if ctx.resume_value is not None:
            await ctx.emit(ev.Text(text=f"answer: {ctx.resume_value}"))
        await ctx.emit(ev.Text(text=f"echo: {input.get('message', '')}"))
        if input.get("code"):
            await ctx.emit(ev.Code(code=input["code"]))
        if input.get("fail"):
            raise ValueError("boom")
        if input.get("wait"):
            await asyncio.sleep(3600)
        return {}


class Api:
    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.runner: Runner = client.app.state.engine.runner  # type: ignore[attr-defined]

    def run(self, thread_id: str, block: bool = True, **input: Any) -> str:
        """Start a scripted run with ``input``; with ``block``, return once it is over."""
        run_id = self.client.portal.call(self.runner.start, "scripted", thread_id, input)
        if block:
            self.client.portal.call(self.runner.wait, run_id)
        return run_id


class PrincipalFromHeader:
    """Stands in for the auth middleware: the principal is the ``x-principal`` header."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            who = dict(scope["headers"]).get(b"x-principal")
            if who is not None:
                scope.setdefault("state", {})["principal"] = who.decode()
        await self.app(scope, receive, send)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    app = create_app(Settings(data_dir=tmp_path / "data", sandbox_pool_size=0,
                              tools_dirs=[], tool_settings_file=tmp_path / "s.json"))
    # Innermost, after the perimeter's auth middleware (which sets no principal: auth is off).
    app.user_middleware.append(Middleware(PrincipalFromHeader))
    with TestClient(app) as client:
        client.app.state.engine.runner.register(Scripted())  # type: ignore[attr-defined]
        yield Api(client)


def _error(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "code"} and body["code"] == code
    return body["error"]


def test_list_threads_by_agent_newest_activity_first(api: Api) -> None:
    api.run("old", message="first")
    api.run("new", message="second")
    api.run("old", message="again", fail=True)  # "old" now has the latest run
    threads = api.client.get("/api/threads", params={"agent": "scripted"}).json()["threads"]
    assert [t["id"] for t in threads] == ["old", "new"]
    old = threads[0]
    assert set(old) == {"id", "agent", "title", "created_at", "updated_at", "run_count",
                        "last_status"}
    assert (old["agent"], old["title"], old["run_count"], old["last_status"]) == (
        "scripted", "first", 2, "failed")
    assert old["updated_at"] > old["created_at"] and old["updated_at"].endswith("Z")
    assert api.client.get("/api/threads", params={"agent": "nobody"}).json() == {"threads": []}


def test_list_threads_pages_with_limit_and_before(api: Api) -> None:
    for name in ("a", "b", "c"):
        api.run(name)
    page = api.client.get("/api/threads", params={"limit": 2}).json()["threads"]
    assert [t["id"] for t in page] == ["c", "b"]
    rest = api.client.get("/api/threads", params={"limit": 2,
                                                  "before": page[-1]["updated_at"]}).json()
    assert [t["id"] for t in rest["threads"]] == ["a"]


@pytest.mark.parametrize(("params", "word"), [
    ({"limit": "0"}, "limit"), ({"limit": "x"}, "limit"), ({"limit": "201"}, "limit"),
    ({"before": "yesterday"}, "ISO 8601"),
])
def test_list_threads_bad_query(api: Api, params: dict[str, str], word: str) -> None:
    assert word in _error(api.client.get("/api/threads", params=params), 400, "bad_request")


def test_thread_and_its_runs_oldest_first(api: Api) -> None:
    first = api.run("t1", message="one")
    second = api.run("t1", message="two", fail=True)
    thread = api.client.get("/api/threads/t1").json()
    assert (thread["id"], thread["run_count"], thread["last_status"]) == ("t1", 2, "failed")
    runs = api.client.get("/api/threads/t1/runs").json()["runs"]
    assert [r["id"] for r in runs] == [first, second]
    assert {"id", "agent", "status", "input", "error", "created_at", "finished_at",
            "usage"} <= set(runs[0])
    assert (runs[0]["status"], runs[0]["input"], runs[1]["status"]) == (
        "completed", {"message": "one"}, "failed")
    assert re.fullmatch(r"boom \(error [0-9a-f]{12}\)", runs[1]["error"])  # an id, no class
    assert api.client.get(f"/api/runs/{second}").json() == runs[1]


def test_messages_as_the_user_saw_them(api: Api) -> None:
    first = api.run("t1", message="hello", code="print(1)")
    second = api.run("t1", message="again", fail=True)
    body = api.client.get("/api/threads/t1/messages").json()
    error = api.client.get(f"/api/runs/{second}").json()["error"]
    assert body["thread_id"] == "t1"
    assert [(m["run_id"], m["role"], m["type"], m["data"]) for m in body["messages"]] == [
        (first, "user", "user_message", {"text": "hello"}),
        (first, "assistant", "text", {"text": "echo: hello"}),
        (first, "assistant", "code", {"code": "print(1)", "language": "python", "step": None}),
        (first, "assistant", "run_completed", {"output": {}}),
        (second, "user", "user_message", {"text": "again"}),
        (second, "assistant", "text", {"text": "echo: again"}),
        (second, "assistant", "error", {"message": error, "code": "run_failed"}),
        (second, "assistant", "run_failed", {"error": error, "code": None, "said": None}),
    ]
    assert [m["seq"] for m in body["messages"]] == [0, 2, 3, 4, 0, 2, 3, 3]


@pytest.mark.parametrize("path", ["", "/runs", "/messages"])
def test_unknown_and_bad_thread_ids(api: Api, path: str) -> None:
    assert "nope" in _error(api.client.get(f"/api/threads/nope{path}"), 404, "not_found")
    assert "bad thread id" in _error(api.client.get(f"/api/threads/.hidden{path}"), 400,
                                     "bad_thread_id")
    _error(api.client.get(f"/api/threads/{'x' * 129}{path}"), 400, "bad_thread_id")


def test_delete_unknown_and_bad_thread_ids(api: Api) -> None:
    _error(api.client.delete("/api/threads/nope"), 404, "not_found")
    _error(api.client.delete("/api/threads/.hidden"), 400, "bad_thread_id")
    _error(api.client.delete("/api/threads/a%20b"), 400, "bad_thread_id")


def test_delete_thread_removes_runs_events_checkpoints_and_workspace(api: Api) -> None:
    saver = InMemorySaver()
    api.runner.services.checkpointer = saver
    config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
    checkpoint = {"v": 1, "id": "c1", "ts": "2026-01-01T00:00:00+00:00", "channel_values": {},
                  "channel_versions": {}, "versions_seen": {}}
    api.client.portal.call(saver.aput, config, checkpoint, {}, {})
    run_id = api.run("t1", message="bye")
    api.run("t2", message="stays")
    workspace = api.runner.workspace("t1")
    (workspace / "notes.txt").write_text("x")

    assert api.client.delete("/api/threads/t1").status_code == 204
    _error(api.client.get("/api/threads/t1"), 404, "not_found")
    _error(api.client.get(f"/api/runs/{run_id}"), 404, "not_found")
    assert api.client.portal.call(api.runner.store.events_after, run_id) == []
    assert not workspace.exists()
    assert api.client.portal.call(saver.aget_tuple, config) is None
    assert [t["id"] for t in api.client.get("/api/threads").json()["threads"]] == ["t2"]
    _error(api.client.delete("/api/threads/t1"), 404, "not_found")
    # the id can be used again
    again = api.run("t1", message="new life")
    assert api.client.get(f"/api/runs/{again}").json()["status"] == "completed"


def test_delete_thread_with_a_live_run_is_refused(api: Api) -> None:
    run_id = api.run("t1", block=False, wait=True)
    assert "cancel it first" in _error(api.client.delete("/api/threads/t1"), 409, "run_live")
    assert api.client.post(f"/api/runs/{run_id}/cancel").status_code == 202
    assert api.client.get(f"/api/runs/{run_id}").json()["status"] == "cancelled"
    assert api.client.delete("/api/threads/t1").status_code == 204


def test_resume_a_waiting_run(api: Api) -> None:
    run_id = api.run("t1", message="deploy", ask=True)
    assert api.client.get(f"/api/runs/{run_id}").json()["status"] == "interrupted"
    response = api.client.post(f"/api/runs/{run_id}/resume", json={"value": "yes"})
    assert response.status_code == 202 and response.json() == {"run_id": run_id}
    api.client.portal.call(api.runner.wait, run_id)
    assert api.client.get(f"/api/runs/{run_id}").json()["status"] == "completed"
    texts = [m["data"]["text"] for m in
             api.client.get("/api/threads/t1/messages").json()["messages"]
             if m["type"] == "text"]
    assert texts == ["answer: yes", "echo: deploy"]
    # answered already: no longer waiting
    assert "not waiting" in _error(
        api.client.post(f"/api/runs/{run_id}/resume", json={"value": "again"}), 409,
        "not_waiting")


@pytest.mark.parametrize(("body", "code"), [
    (b"{", "bad_json"), (b"", "bad_json"), (b'{"value": NaN}', "bad_json"),
    (b'{"value": "\\ud800"}', "bad_json"), (b"[" * 100_000, "too_deep"),
    (b'["value"]', "bad_request"), (b"{}", "bad_request"), (b'{"value": 1, "x": 2}',
                                                             "bad_request"),
])
def test_resume_bad_body(api: Api, body: bytes, code: str) -> None:
    run_id = api.run("t1", ask=True)
    _error(api.client.post(f"/api/runs/{run_id}/resume", content=body,
                           headers={"Content-Type": "application/json"}), 400, code)
    assert api.client.get(f"/api/runs/{run_id}").json()["status"] == "interrupted"


def test_unknown_runs_and_runs_that_are_not_running(api: Api) -> None:
    for method, path in [("GET", ""), ("GET", "/events"), ("POST", "/resume"),
                         ("POST", "/cancel")]:
        response = api.client.request(method, f"/api/runs/nope{path}", json={"value": 1})
        _error(response, 404, "not_found")
    done = api.run("t1")
    assert "completed, not running" in _error(
        api.client.post(f"/api/runs/{done}/cancel"), 409, "not_running")


@pytest.mark.kernel
def test_delete_thread_shuts_its_sandbox_kernel_down(api: Api) -> None:
    sandbox = api.client.app.state.engine.sandbox  # type: ignore[attr-defined]
    api.run("t1", message="state lives in the kernel")
    api.run("t2", message="another thread")
    for thread_id in ("t1", "t2"):
        result = api.client.portal.call(sandbox.execute, thread_id, ExecPythonInput(code="x = 1"))
        assert result.ok, result
    assert api.client.delete("/api/threads/t1").status_code == 204
    assert sandbox.threads() == ["t2"]


# -- the thread stream, against a real server ----------------------------------------------
def _sse_messages(response: httpx.Response) -> Iterator[dict[str, Any]]:
    message: dict[str, Any] = {}
    for line in response.iter_lines():
        if not line:
            if message:
                yield message
            message = {}
        elif not line.startswith(":"):
            field, _, value = line.partition(": ")
            message[field] = json.loads(value) if field == "data" else value


def _calc(server: LiveServer, thread_id: str, expression: str) -> str:
    return httpx.post(f"{server.url}/api/tools/calculator/execute", timeout=20, json={
        "args": {"expression": expression}, "thread_id": thread_id}).json()["run_id"]


def test_thread_stream_resumes_after_a_run_and_follows_new_runs(live_server: LiveServer
                                                                 ) -> None:
    thread_id = f"watch-{uuid.uuid4().hex[:8]}"
    first = _calc(live_server, thread_id, "1+1")
    kinds = ["run_started", "tool_call", "tool_result", "run_completed"]
    with httpx.stream("GET", f"{live_server.url}/api/threads/{thread_id}/events",
                      headers={"Last-Event-ID": f"{first}:2"}, timeout=20) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        messages = _sse_messages(response)
        rest = [next(messages) for _ in range(2)]  # the rest of the first run
        second = _calc(live_server, thread_id, "2+2")  # a new run on the thread
        follow = [next(messages) for _ in range(4)]
    assert [(m["event"], m["id"]) for m in rest] == [
        ("tool_result", f"{first}:3"), ("run_completed", f"{first}:4")]
    assert [(m["event"], m["id"]) for m in follow] == [
        (kind, f"{second}:{seq}") for seq, kind in enumerate(kinds, 1)]
    assert follow[2]["data"]["result"]["value"] == "4"


@pytest.mark.parametrize(("headers", "params"), [
    ({"Last-Event-ID": "no-seq"}, {}), ({}, {"after": "run:x"}), ({}, {"after": ":3"}),
    ({"Last-Event-ID": "someone-elses-run:1"}, {}),
])
def test_thread_stream_bad_resume_point(live_server: LiveServer, headers: dict[str, str],
                                        params: dict[str, str]) -> None:
    thread_id = f"bad-{uuid.uuid4().hex[:8]}"
    _calc(live_server, thread_id, "1")
    response = httpx.get(f"{live_server.url}/api/threads/{thread_id}/events", headers=headers,
                         params=params, timeout=20)
    assert response.status_code == 400 and response.json()["code"] == "bad_event_id"


def test_thread_stream_unknown_or_bad_thread(live_server: LiveServer) -> None:
    missing = httpx.get(f"{live_server.url}/api/threads/nope-nope/events", timeout=20)
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    bad = httpx.get(f"{live_server.url}/api/threads/.x/events", timeout=20)
    assert bad.status_code == 400 and bad.json()["code"] == "bad_thread_id"


def test_a_key_sees_only_its_own_threads_and_runs(api: Api) -> None:
    alice, bob = {"x-principal": "key:alice"}, {"x-principal": "key:bob"}
    get = api.client.get
    mine = api.client.post("/api/tools/calculator/execute", headers=alice,
                           json={"args": {"expression": "1+1"}, "thread_id": "a1"}).json()
    waiting = api.client.portal.call(lambda: api.runner.start(
        "scripted", "a2", {"ask": True}, owner="key:alice"))
    api.client.portal.call(api.runner.wait, waiting)
    api.run("nobodys")  # started without a principal: no owner
    listed = {who: [t["id"] for t in get("/api/threads", headers=h).json()["threads"]]
              for who, h in [("alice", alice), ("bob", bob), ("admin", {"x-principal": "admin"}),
                             ("none", {})]}
    assert sorted(listed["alice"]) == ["a1", "a2"] and listed["bob"] == []
    assert sorted(listed["admin"]) == sorted(listed["none"]) == ["a1", "a2", "nobodys"]
    assert get("/api/threads/a1/messages", headers=alice).status_code == 200
    run_id = mine["run_id"]
    for method, path in [
            ("GET", "/api/threads/a1"), ("GET", "/api/threads/a1/runs"),
            ("GET", "/api/threads/a1/messages"), ("GET", "/api/threads/a1/events"),
            ("DELETE", "/api/threads/a1"), ("GET", "/api/threads/nobodys"),
            ("GET", f"/api/runs/{run_id}"), ("GET", f"/api/runs/{run_id}/events"),
            ("POST", f"/api/runs/{waiting}/resume"), ("POST", f"/api/runs/{waiting}/cancel"),
            ("POST", f"/api/tools/executions/{waiting}/abort")]:
        response = api.client.request(method, path, headers=bob, json={"value": "yes"})
        assert response.status_code == 404, (method, path, response.text)
        assert response.json()["code"] == "not_found"
    refused = api.client.post("/api/tools/calculator/execute", headers=bob,
                              json={"args": {"expression": "2"}, "thread_id": "a1"})
    assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert get(f"/api/runs/{waiting}", headers=alice).json()["status"] == "interrupted"
    assert get("/api/threads/a1/runs", headers=alice).json()["runs"][0]["id"] == run_id


def test_resume_with_null_is_refused(api: Api) -> None:
    run_id = api.run("t1", ask=True)
    assert "null" in _error(api.client.post(f"/api/runs/{run_id}/resume",
                                            json={"value": None}), 400, "bad_request")
    assert api.client.get(f"/api/runs/{run_id}").json()["status"] == "interrupted"


def test_cancel_a_run_waiting_for_an_answer(api: Api) -> None:
    run_id = api.run("t1", ask=True)
    assert api.client.post(f"/api/runs/{run_id}/cancel").status_code == 202
    assert api.client.get(f"/api/runs/{run_id}").json()["status"] == "cancelled"
    _error(api.client.post(f"/api/runs/{run_id}/resume", json={"value": 1}), 409,
           "not_waiting")

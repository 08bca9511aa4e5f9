"""A thread belongs to the face that made it: every face that can name a thread refuses to
run its agent on another face's thread, in its own error form, and the other face's thread
(a Studio project) is left as it was."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from tests.api.studio.test_studio_rest import CONCEPT, approve_all, wait_pending
from tests.live_server import LiveServer
from tests.waiting import wait_until

CODE = "thread_belongs_to_other_face"


@pytest.fixture
def http(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=20) as client:
        yield client


@pytest.fixture
def project(http: httpx.Client) -> str:
    response = http.post("/api/projects", json={"name": "雨の街", "concept": CONCEPT})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _snapshot(http: httpx.Client, pid: str) -> dict[str, Any]:
    project = http.get(f"/api/projects/{pid}").json()
    return {"project": project, "agents": http.get(f"/api/projects/{pid}/agents").json(),
            "runs": http.get(f"/api/threads/{pid}/runs").json()}


async def _ws_say(server: LiveServer, thread: str, text: str) -> dict[str, Any]:
    """The first answer to ``text`` that is not the map or an echo of it."""
    async with websockets.connect(f"{server.ws_url}?thread={thread}", max_size=None) as ws:
        await asyncio.wait_for(ws.recv(), 20)  # map_definition
        await ws.send(json.dumps({"message": text}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if message.get("type") in ("error", "text") or message.get("done"):
                return message


def test_a_workbench_message_to_a_studio_project_is_refused_and_changes_nothing(
        live_server: LiveServer, http: httpx.Client, project: str) -> None:
    before = _snapshot(http, project)
    answer = asyncio.run(_ws_say(live_server, project, "hello"))
    assert answer["type"] == "error" and "belongs to the studio agent" in answer["content"]
    assert _snapshot(http, project) == before
    started = http.post(f"/api/projects/{project}/start")  # the project still starts
    assert started.status_code == 200, started.text


def test_a_tool_execution_on_another_faces_thread_is_409(http: httpx.Client,
                                                          project: str) -> None:
    before = _snapshot(http, project)
    refused = http.post("/api/tools/calculator/execute",
                        json={"args": {"expression": "1+1"}, "thread_id": project})
    assert refused.status_code == 409 and refused.json()["code"] == CODE
    assert "studio" in refused.json()["error"]
    assert _snapshot(http, project) == before


def test_an_advisor_chat_on_a_workbench_thread_is_an_error_event(
        live_server: LiveServer, http: httpx.Client) -> None:
    answer = asyncio.run(_ws_say(live_server, "wb-thread-face", "hello"))
    assert answer["type"] != "error"
    with http.stream("POST", "/api/chat", json={"message": "こんにちは",
                                                "session_id": "wb-thread-face"}) as stream:
        body = "".join(stream.iter_text())
    assert '"code": "not_found"' in body.replace('":"', '": "'), body
    runs = http.get("/api/threads/wb-thread-face/runs").json()["runs"]
    assert {run["agent"] for run in runs} == {"workbench"}


def test_an_analyst_upload_into_a_studio_project_is_409(http: httpx.Client,
                                                         project: str) -> None:
    refused = http.post("/api/analyst/datasets", data={"thread_id": project},
                        files={"file": ("a.csv", b"x,y\n1,2\n", "text/csv")})
    assert refused.status_code == 409, refused.text
    assert http.get(f"/api/threads/{project}/runs").json()["runs"] == []


def _waiting_run(http: httpx.Client, pid: str) -> tuple[str, list[str]]:
    """The project's run once it waits, and the ids of the interrupts it waits at."""
    def waiting() -> tuple[str, list[str]] | None:
        [run] = http.get(f"/api/threads/{pid}/runs").json()["runs"]
        if run["status"] == "interrupted":
            with http.stream("GET", f"/api/runs/{run['id']}/events") as events:
                for line in events.iter_lines():
                    if line.startswith("data:") and '"run_interrupted"' in line:
                        payload = json.loads(line[5:])["payload"]
                        return run["id"], [i["id"] for i in payload["interrupts"]]
        return None

    return wait_until(waiting, 20, what="the project's run waiting")


def test_a_resume_a_studio_run_cannot_take_is_refused_and_the_project_completes(
        http: httpx.Client, project: str) -> None:
    # "garbage" failed the run ('str' object has no attribute 'get') and the project for
    # good; an answer forged for a pending checkpoint would have gone past its record.
    assert http.post(f"/api/projects/{project}/start").status_code == 200
    [checkpoint] = wait_pending(http, project)
    run_id, [interrupt_id] = _waiting_run(http, project)
    for value in ("garbage", 7, [], {}, {"nope": {"resolution": "approved"}},
                  {interrupt_id: "approved"}, {interrupt_id: {"resolution": "approved"}}):
        refused = http.post(f"/api/runs/{run_id}/resume", json={"value": value})
        assert refused.status_code == 400, (value, refused.text)
        assert refused.json()["code"] == "bad_request"
        assert "checkpoint" in refused.json()["error"]
    assert http.get(f"/api/runs/{run_id}").json()["status"] == "interrupted"
    assert http.get(f"/api/checkpoints/{checkpoint['id']}").json()["status"] == "pending"
    assert approve_all(http, project)["status"] == "completed"

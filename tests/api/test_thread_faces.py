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

from tests.api.test_studio_rest import CONCEPT
from tests.live_server import LiveServer

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
